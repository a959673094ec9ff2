//! Opaque access tokens, checked at one authorization server's introspection endpoint
//! (RFC 7662) with this server's own client credentials: the only issuer an opaque token and
//! the client secret are ever sent to. An active answer must name this resource in `aud` and
//! hold `exp` and `nbf` like a JWT.
//!
//! Every answer, active or not, is kept until the token expires or [`KEEP_AT_MOST`], so that
//! one token asked about again and again costs one request; tokens not kept are asked about
//! at most [`ASKS_PER_SECOND`] a second (bursts of [`ASK_BURST`]), so that a flood of
//! made-up tokens cannot turn this server against the authorization server.

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

/// Requests to the introspection endpoint a second, in the long run.
pub const ASKS_PER_SECOND: f64 = 10.0;

/// Requests to the introspection endpoint in one burst.
pub const ASK_BURST: f64 = 20.0;

/// This server's client at one issuer's introspection endpoint, and the answers it keeps.
pub struct Introspector {
    issuer: String,
    client_id: String,
    client_secret: String,
    kept: Mutex<Kept>,
}

struct Kept {
    /// By the token's hash: what it was found to be, and until when that holds.
    answers: HashMap<[u8; 32], (Result<Principal, Rejected>, Instant)>,
    /// Requests that may be made now, and when that was counted.
    budget: f64,
    counted: Instant,
}

impl Introspector {
    /// Introspects at `issuer`'s endpoint as client `client_id`, with the secret
    /// `client_secret`.
    pub fn new(issuer: String, client_id: String, client_secret: String) -> Self {
        Self {
            issuer,
            client_id,
            client_secret,
            kept: Mutex::new(Kept {
                answers: HashMap::new(),
                budget: ASK_BURST,
                counted: Instant::now(),
            }),
        }
    }

    /// Whom the opaque `token` was issued to.
    ///
    /// # Errors
    ///
    /// [`Rejected::Inactive`] when the issuer does not know it as active, the claim that
    /// does not hold in an active answer, [`Rejected::Throttled`] when it cannot be asked
    /// about now.
    pub async fn check(
        &self,
        keys: &Keys,
        token: &str,
        resource: &str,
        now: u64,
        skew: u64,
    ) -> Result<Principal, Rejected> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        {
            let mut kept = self.kept.lock().await;
            if let Some((answer, until)) = kept.answers.get(&digest)
                && Instant::now() < *until
            {
                return answer.clone();
            }
            if !kept.spend() {
                return Err(Rejected::Throttled);
            }
        }
        let (answer, expires) = match self.ask(keys, token).await {
            Some(answer) => self.judge(answer, resource, now, skew),
            // No answer is no verdict: the next try asks again.
            None => (Err(Rejected::Inactive), now),
        };
        let keep = KEEP_AT_MOST.min(Duration::from_secs(expires.saturating_sub(now)));
        let mut kept = self.kept.lock().await;
        if kept.answers.len() >= KEEP_COUNT {
            kept.answers.clear();
        }
        kept.answers
            .insert(digest, (answer.clone(), Instant::now() + keep));
        answer
    }

    /// What the endpoint's `answer` makes of a token, and until when (seconds since the
    /// epoch) that may hold.
    fn judge(
        &self,
        mut answer: Value,
        resource: &str,
        now: u64,
        skew: u64,
    ) -> (Result<Principal, Rejected>, u64) {
        let never_after = now.saturating_add(KEEP_AT_MOST.as_secs());
        if answer["active"] != Value::Bool(true) {
            return (Err(Rejected::Inactive), never_after);
        }
        // An answer without `iss` speaks for the issuer asked.
        if answer["iss"].is_null() {
            answer["iss"] = self.issuer.as_str().into();
        }
        // A client-credentials token is the client's own: its subject is the client.
        if answer["sub"].is_null() {
            answer["sub"] = answer["client_id"].clone();
        }
        let expires = answer["exp"].as_u64().unwrap_or(now);
        let verdict =
            jwt::check(&answer, &self.issuer, resource, now, skew).map(|claims| Principal {
                subject: claims.subject,
                scopes: claims.scopes,
            });
        (verdict, expires.min(never_after))
    }

    /// The endpoint's answer about `token`; `None` when it gives none.
    async fn ask(&self, keys: &Keys, token: &str) -> Option<Value> {
        let endpoint = keys.introspection_endpoint(&self.issuer).await?;
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

impl Kept {
    /// Takes one request from the budget, refilled by the time passed; `false` when none is
    /// left.
    fn spend(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.counted).as_secs_f64() * ASKS_PER_SECOND;
        self.budget = (self.budget + refill).min(ASK_BURST);
        self.counted = now;
        if self.budget < 1.0 {
            return false;
        }
        self.budget -= 1.0;
        true
    }
}
