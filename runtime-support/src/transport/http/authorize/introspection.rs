//! Opaque access tokens, checked at the authorization server's introspection endpoint
//! (RFC 7662) with this server's own client credentials. An active answer must name this
//! resource in `aud` and hold `exp` and `nbf` like a JWT; it is kept until it expires, or
//! [`KEEP_AT_MOST`], whichever comes first.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::Mutex;

use super::jwt::{self, Rejected};
use super::keys::Keys;
use crate::call::Principal;

/// The longest an introspection answer is used without asking again, so that a revoked
/// token stops working soon.
const KEEP_AT_MOST: Duration = Duration::from_secs(30);

/// Answers kept at most; past that, all are dropped.
const KEEP_COUNT: usize = 10_000;

/// This server's client at the introspection endpoints, and the answers it keeps.
pub struct Introspector {
    client_id: String,
    client_secret: String,
    kept: Mutex<HashMap<[u8; 32], (Principal, Instant)>>,
}

impl Introspector {
    /// Introspects as client `client_id`, with the secret `client_secret`.
    pub fn new(client_id: String, client_secret: String) -> Self {
        Self {
            client_id,
            client_secret,
            kept: Mutex::new(HashMap::new()),
        }
    }

    /// Whom the opaque `token` was issued to, asking the issuers' introspection endpoints in
    /// turn until one knows it as active.
    ///
    /// # Errors
    ///
    /// [`Rejected::Inactive`] when no issuer knows it as active; the claim that does not hold
    /// in an active answer.
    pub async fn check(
        &self,
        keys: &Keys,
        token: &str,
        resource: &str,
        now: u64,
        skew: u64,
    ) -> Result<Principal, Rejected> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some((principal, until)) = self.kept.lock().await.get(&digest)
            && Instant::now() < *until
        {
            return Ok(principal.clone());
        }
        for issuer in keys.issuers() {
            let Some(endpoint) = keys.introspection_endpoint(issuer).await else {
                continue;
            };
            let Some(mut answer) = self.ask(keys, &endpoint, token).await else {
                continue;
            };
            if answer["active"] != Value::Bool(true) {
                continue;
            }
            // An answer without `iss` speaks for the issuer asked.
            if answer["iss"].is_null() {
                answer["iss"] = issuer.into();
            }
            // A client-credentials token is the client's own: its subject is the client.
            if answer["sub"].is_null() {
                answer["sub"] = answer["client_id"].clone();
            }
            let claims = jwt::check(&answer, issuer, resource, now, skew)?;
            let principal = Principal {
                subject: claims.subject,
                scopes: claims.scopes,
            };
            let expires = answer["exp"].as_u64().unwrap_or(now).saturating_sub(now);
            let until = Instant::now() + KEEP_AT_MOST.min(Duration::from_secs(expires));
            let mut kept = self.kept.lock().await;
            if kept.len() >= KEEP_COUNT {
                kept.clear();
            }
            kept.insert(digest, (principal.clone(), until));
            return Ok(principal);
        }
        Err(Rejected::Inactive)
    }

    /// The endpoint's answer about `token`; `None` when it gives none.
    async fn ask(&self, keys: &Keys, endpoint: &str, token: &str) -> Option<Value> {
        let response = keys
            .client()
            .post(endpoint)
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await
            .ok()?;
        if !response.status().is_success() {
            tracing::warn!(
                status = response.status().as_u16(),
                "the introspection endpoint refused this server's request"
            );
            return None;
        }
        response.json().await.ok()
    }
}
