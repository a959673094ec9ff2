//! What this server knows of each authorization server: its metadata (RFC 8414, or OpenID
//! Connect discovery), and its signing keys.
//!
//! Keys are kept for the lifetime their answer's `Cache-Control: max-age` gives, at most the
//! operator's ceiling (`--jwks-max-age`), and [`DEFAULT_LIFETIME`] without one. Once that has
//! passed, the next token that needs them starts a read in the background and is checked
//! against the kept keys meanwhile, so a slow authorization server never stalls a valid
//! caller; after a second lifetime without a good read, the kept keys stop verifying. A key
//! the issuer removed stops verifying with the first read after it is gone.
//!
//! A token naming a key not kept (the issuer rotated its keys) waits for a read, at most one
//! per [`UNKNOWN_KEY_EVERY`] and one at a time per issuer, so that tokens naming unknown keys
//! cannot make this server hammer the authorization server.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::CACHE_CONTROL;
use serde::Deserialize;

use super::jwt::{Algorithm, Jwk, Rejected};
use crate::sync::Unpoisoned as _;

/// How long keys are kept when their answer says nothing of it.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);

/// The shortest keep, whatever the answer says (`no-store`, `max-age=0`): reads of one
/// issuer's keys are at least this far apart.
const SHORTEST_LIFETIME: Duration = Duration::from_secs(2);

/// The least time between two reads a token naming an unknown key may cause.
pub const UNKNOWN_KEY_EVERY: Duration = Duration::from_secs(10);

/// How long a read of metadata or keys may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Every issuer's metadata and keys.
pub struct Keys {
    client: reqwest::Client,
    issuers: Vec<Arc<Issuer>>,
    /// The operator's ceiling on a key set's lifetime.
    ceiling: Duration,
}

/// One authorization server: where its keys are, and those last read.
struct Issuer {
    id: String,
    kept: Mutex<Kept>,
    /// Held by the one read of this issuer under way.
    reading: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Kept {
    metadata: Option<Metadata>,
    keys: Vec<Jwk>,
    /// When the last read was made, good or not.
    read_at: Option<Instant>,
    /// Until when the keys are fresh, and until when they verify at all.
    fresh_until: Option<Instant>,
    usable_until: Option<Instant>,
    /// Whether a background read is under way.
    refreshing: bool,
}

/// What this server reads of an authorization server's metadata.
#[derive(Debug, Clone, Deserialize)]
struct Metadata {
    issuer: String,
    jwks_uri: Option<String>,
    introspection_endpoint: Option<String>,
}

#[derive(Deserialize)]
struct JwkSet {
    keys: Vec<serde_json::Value>,
}

impl Keys {
    /// The keys of `issuers`, read when first needed and kept at most `ceiling`.
    ///
    /// # Errors
    ///
    /// A message when the HTTP client cannot be built.
    pub fn new(issuers: &[String], ceiling: Duration) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|_| "the authorization servers' HTTP client could not start".to_owned())?;
        Ok(Self {
            client,
            issuers: issuers
                .iter()
                .map(|id| {
                    Arc::new(Issuer {
                        id: id.clone(),
                        kept: Mutex::new(Kept::default()),
                        reading: tokio::sync::Mutex::new(()),
                    })
                })
                .collect(),
            ceiling: ceiling.max(SHORTEST_LIFETIME),
        })
    }

    /// The key of `issuer` a token signed with `alg` names by `kid` (or, without a `kid`,
    /// the one key of its issuer that fits).
    ///
    /// # Errors
    ///
    /// [`Rejected::Issuer`] for an issuer not configured, [`Rejected::UnknownKey`] when no
    /// key fits, even after reading the keys again.
    pub async fn key(
        &self,
        issuer: &str,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Jwk, Rejected> {
        let issuer = self
            .issuers
            .iter()
            .find(|known| known.id == issuer)
            .ok_or(Rejected::Issuer)?;
        let now = Instant::now();
        let (found, read_at) = {
            let mut kept = issuer.kept.locked();
            let usable = kept.usable_until.is_some_and(|until| now < until);
            let found = usable.then(|| find(&kept.keys, kid, alg)).flatten();
            let stale = kept.fresh_until.is_none_or(|until| until <= now);
            let due = kept
                .read_at
                .is_none_or(|at| now.duration_since(at) >= SHORTEST_LIFETIME);
            if found.is_some() && stale && due && !kept.refreshing {
                kept.refreshing = true;
                let (issuer, client, ceiling) = (issuer.clone(), self.client.clone(), self.ceiling);
                tokio::spawn(async move {
                    let _reading = issuer.reading.lock().await;
                    refresh(&client, &issuer, ceiling).await;
                    issuer.kept.locked().refreshing = false;
                });
            }
            (found, kept.read_at)
        };
        if let Some(key) = found {
            return Ok(key);
        }
        // No kept key fits: read again, unless a read was made lately; one read at a time,
        // which every token waiting on it then shares.
        let _reading = issuer.reading.lock().await;
        let read_since = issuer.kept.locked().read_at != read_at;
        let lately = read_at.is_some_and(|at| at.elapsed() < UNKNOWN_KEY_EVERY);
        if !read_since && !lately {
            refresh(&self.client, issuer, self.ceiling).await;
        }
        let kept = issuer.kept.locked();
        let usable = kept
            .usable_until
            .is_some_and(|until| Instant::now() < until);
        usable
            .then(|| find(&kept.keys, kid, alg))
            .flatten()
            .ok_or(Rejected::UnknownKey)
    }

    /// `issuer`'s token introspection endpoint (RFC 7662), when its metadata names one.
    pub async fn introspection_endpoint(&self, issuer: &str) -> Option<String> {
        let issuer = self.issuers.iter().find(|known| known.id == issuer)?;
        if let Some(metadata) = &issuer.kept.locked().metadata {
            return metadata.introspection_endpoint.clone();
        }
        let _reading = issuer.reading.lock().await;
        let metadata = metadata(&self.client, issuer).await.ok()?;
        metadata.introspection_endpoint
    }

    /// The HTTP client of the authorization servers.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }
}

/// Reads `issuer`'s keys and keeps them with their lifetime; on failure keeps those it has,
/// which stop verifying when their time is up. The caller holds `issuer.reading`.
async fn refresh(client: &reqwest::Client, issuer: &Issuer, ceiling: Duration) {
    let read = read(client, issuer).await;
    let now = Instant::now();
    let mut kept = issuer.kept.locked();
    kept.read_at = Some(now);
    match read {
        Ok((keys, lifetime)) => {
            let lifetime = lifetime
                .unwrap_or(DEFAULT_LIFETIME)
                .clamp(SHORTEST_LIFETIME, ceiling);
            kept.keys = keys;
            kept.fresh_until = Some(now + lifetime);
            kept.usable_until = Some(now + lifetime * 2);
        }
        Err(why) => {
            tracing::warn!(issuer = %issuer.id, "cannot read the authorization server's keys: {why}");
        }
    }
}

/// The issuer's metadata, read the first time it is needed. The caller holds
/// `issuer.reading`.
async fn metadata(client: &reqwest::Client, issuer: &Issuer) -> Result<Metadata, String> {
    if let Some(metadata) = &issuer.kept.locked().metadata {
        return Ok(metadata.clone());
    }
    let metadata = discover(client, &issuer.id).await?;
    issuer.kept.locked().metadata = Some(metadata.clone());
    Ok(metadata)
}

/// Reads the issuer's keys, finding where they are first if need be, and how long its answer
/// says they may be kept.
async fn read(
    client: &reqwest::Client,
    issuer: &Issuer,
) -> Result<(Vec<Jwk>, Option<Duration>), String> {
    let jwks_uri = metadata(client, issuer)
        .await?
        .jwks_uri
        .ok_or_else(|| "its metadata names no jwks_uri".to_owned())?;
    let response = fetch(client, &jwks_uri).await?;
    let lifetime = response
        .headers()
        .get(CACHE_CONTROL)
        .and_then(|value| value.to_str().ok())
        .and_then(max_age);
    let set: JwkSet = response
        .json()
        .await
        .map_err(|_| format!("{jwks_uri} answered no JSON of the expected shape"))?;
    // A key this server cannot use (another type, an encryption key) is skipped, not an
    // error: the set may hold keys for other clients.
    let keys = set
        .keys
        .into_iter()
        .filter_map(|key| serde_json::from_value(key).ok())
        .collect();
    Ok((keys, lifetime))
}

/// How long a `Cache-Control` value lets an answer be kept: its `max-age`, and nothing for
/// `no-store` or `no-cache`.
fn max_age(cache_control: &str) -> Option<Duration> {
    let mut age = None;
    for directive in cache_control.split(',').map(str::trim) {
        let (name, value) = directive.split_once('=').unwrap_or((directive, ""));
        match name.to_ascii_lowercase().as_str() {
            "no-store" | "no-cache" => return Some(Duration::ZERO),
            "max-age" => {
                age = value
                    .trim_matches('"')
                    .parse()
                    .ok()
                    .map(Duration::from_secs);
            }
            _ => {}
        }
    }
    age
}

/// The issuer's metadata: RFC 8414's well-known place, then OpenID Connect's. The metadata
/// must name the same issuer.
async fn discover(client: &reqwest::Client, issuer: &str) -> Result<Metadata, String> {
    let url = url::Url::parse(issuer).map_err(|_| "the issuer is no URL".to_owned())?;
    let path = url.path().trim_end_matches('/');
    let origin = url.origin().ascii_serialization();
    let places = [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ),
    ];
    let mut last = String::new();
    for place in places {
        let metadata = match fetch(client, &place).await {
            Ok(response) => response
                .json::<Metadata>()
                .await
                .map_err(|_| format!("{place} answered no JSON of the expected shape")),
            Err(why) => Err(why),
        };
        match metadata {
            Ok(metadata) if metadata.issuer == issuer => return Ok(metadata),
            Ok(_) => last = "its metadata names another issuer".to_owned(),
            Err(why) => last = why,
        }
    }
    Err(last)
}

/// A successful answer to a GET of `url`.
async fn fetch(client: &reqwest::Client, url: &str) -> Result<reqwest::Response, String> {
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|_| format!("{url} did not answer"))?;
    if !response.status().is_success() {
        return Err(format!("{url} answered {}", response.status().as_u16()));
    }
    Ok(response)
}

/// The key of `keys` named `kid` that fits `alg`; without a `kid`, the only one that fits.
fn find(keys: &[Jwk], kid: Option<&str>, alg: Algorithm) -> Option<Jwk> {
    let mut fitting = keys
        .iter()
        .filter(|key| super::jwt::fits(key, alg))
        .filter(|key| kid.is_none_or(|kid| key.kid.as_deref() == Some(kid)));
    match (fitting.next(), fitting.next(), kid) {
        (Some(key), None, _) | (Some(key), Some(_), Some(_)) => Some(key.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// An issuer on 127.0.0.1 publishing one key, that counts the reads of its keys and holds
    /// every read after the first until `release` is notified.
    async fn issuer(reads: Arc<AtomicUsize>, release: Arc<tokio::sync::Notify>) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let issuer = format!("http://{}", listener.local_addr().expect("an address"));
        let metadata = serde_json::json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")});
        let jwks = move || {
            let (reads, release) = (reads.clone(), release.clone());
            async move {
                if reads.fetch_add(1, Ordering::SeqCst) > 0 {
                    release.notified().await;
                }
                let keys = serde_json::json!({"keys": [{"kty": "RSA", "kid": "one", "n": "AQAB", "e": "AQAB"}]});
                (
                    [
                        ("content-type", "application/json"),
                        ("cache-control", "max-age=0"),
                    ],
                    keys.to_string(),
                )
            }
        };
        let router = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || async move {
                    ([("content-type", "application/json")], metadata.to_string())
                }),
            )
            .route("/jwks", axum::routing::get(jwks));
        tokio::spawn(async move { axum::serve(listener, router).await });
        issuer
    }

    #[tokio::test]
    async fn a_slow_read_of_the_keys_holds_no_valid_caller_up() {
        let (reads, release) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(tokio::sync::Notify::new()),
        );
        let issuer = issuer(reads.clone(), release.clone()).await;
        let keys =
            Keys::new(std::slice::from_ref(&issuer), Duration::from_secs(600)).expect("keys");
        let lookup = |kid: &'static str| keys.key(&issuer, Some(kid), Algorithm::RS256);
        assert!(lookup("one").await.is_ok(), "the first read");
        // Past the keys' lifetime the next lookup starts a read, which the issuer holds; the
        // caller is answered from the kept keys all the same.
        tokio::time::sleep(SHORTEST_LIFETIME + Duration::from_millis(100)).await;
        let served = tokio::time::timeout(Duration::from_secs(4), lookup("one")).await;
        assert!(matches!(served, Ok(Ok(_))), "served while the read is held");
        release.notify_one();
        let refreshed = async {
            while reads.load(Ordering::SeqCst) < 2 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        assert!(
            tokio::time::timeout(Duration::from_secs(4), refreshed)
                .await
                .is_ok(),
            "the keys are read again in the background"
        );
        // Tokens naming unknown keys cause no read while one was made lately.
        for _ in 0..20 {
            assert_eq!(lookup("forged").await.err(), Some(Rejected::UnknownKey));
        }
        assert_eq!(
            reads.load(Ordering::SeqCst),
            2,
            "the first read and the refresh"
        );
    }

    #[test]
    fn cache_control_gives_the_lifetime() {
        let secs = |s| Some(Duration::from_secs(s));
        assert_eq!(max_age("public, max-age=600"), secs(600));
        assert_eq!(max_age("max-age=\"60\", must-revalidate"), secs(60));
        assert_eq!(max_age("no-store"), secs(0));
        assert_eq!(max_age("max-age=60, no-cache"), secs(0));
        assert_eq!(max_age("public"), None);
        assert_eq!(max_age("max-age=soon"), None);
    }
}
