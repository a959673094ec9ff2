//! What this server knows of each authorization server: its metadata (RFC 8414, or OpenID
//! Connect discovery), and its signing keys, kept and read again when a token names a key not
//! kept (the issuer rotated its keys), at most once per [`REFRESH_EVERY`].

use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::Mutex;

use super::jwt::{Algorithm, Jwk, Rejected};

/// The least time between two reads of one issuer's keys, so that tokens naming unknown keys
/// cannot make this server hammer the authorization server.
const REFRESH_EVERY: Duration = Duration::from_secs(2);

/// How long a read of metadata or keys may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// Every issuer's metadata and keys.
pub struct Keys {
    client: reqwest::Client,
    issuers: Vec<Issuer>,
}

/// One authorization server: where its keys are, and those last read.
struct Issuer {
    id: String,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    metadata: Option<Metadata>,
    keys: Vec<Jwk>,
    read_at: Option<Instant>,
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
    /// The keys of `issuers`, read when first needed.
    ///
    /// # Errors
    ///
    /// A message when the HTTP client cannot be built.
    pub fn new(issuers: &[String]) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|_| "the authorization servers' HTTP client could not start".to_owned())?;
        Ok(Self {
            client,
            issuers: issuers
                .iter()
                .map(|id| Issuer {
                    id: id.clone(),
                    kept: Mutex::new(Kept::default()),
                })
                .collect(),
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
        let mut kept = issuer.kept.lock().await;
        if let Some(key) = find(&kept.keys, kid, alg) {
            return Ok(key);
        }
        if kept
            .read_at
            .is_some_and(|read| read.elapsed() < REFRESH_EVERY)
        {
            return Err(Rejected::UnknownKey);
        }
        kept.read_at = Some(Instant::now());
        match self.read(&issuer.id, &mut kept).await {
            Ok(keys) => kept.keys = keys,
            Err(why) => {
                tracing::warn!(issuer = %issuer.id, "cannot read the authorization server's keys: {why}")
            }
        }
        find(&kept.keys, kid, alg).ok_or(Rejected::UnknownKey)
    }

    /// The issuers, in the order the operator gave them.
    pub fn issuers(&self) -> impl Iterator<Item = &str> {
        self.issuers.iter().map(|issuer| issuer.id.as_str())
    }

    /// `issuer`'s token introspection endpoint (RFC 7662), when its metadata names one.
    pub async fn introspection_endpoint(&self, issuer: &str) -> Option<String> {
        let issuer = self.issuers.iter().find(|known| known.id == issuer)?;
        let mut kept = issuer.kept.lock().await;
        let metadata = self.metadata(&issuer.id, &mut kept).await.ok()?;
        metadata.introspection_endpoint
    }

    /// The HTTP client of the authorization servers.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// The issuer's metadata, read the first time it is needed.
    async fn metadata(&self, issuer: &str, kept: &mut Kept) -> Result<Metadata, String> {
        if let Some(metadata) = &kept.metadata {
            return Ok(metadata.clone());
        }
        let metadata = self.discover(issuer).await?;
        kept.metadata = Some(metadata.clone());
        Ok(metadata)
    }

    /// Reads the issuer's keys, finding where they are first if need be.
    async fn read(&self, issuer: &str, kept: &mut Kept) -> Result<Vec<Jwk>, String> {
        let jwks_uri = self
            .metadata(issuer, kept)
            .await?
            .jwks_uri
            .ok_or_else(|| "its metadata names no jwks_uri".to_owned())?;
        let set: JwkSet = self.get(&jwks_uri).await?;
        // A key this server cannot use (another type, an encryption key) is skipped, not an
        // error: the set may hold keys for other clients.
        Ok(set
            .keys
            .into_iter()
            .filter_map(|key| serde_json::from_value(key).ok())
            .collect())
    }

    /// The issuer's metadata: RFC 8414's well-known place, then OpenID Connect's. The
    /// metadata must name the same issuer.
    async fn discover(&self, issuer: &str) -> Result<Metadata, String> {
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
            match self.get::<Metadata>(&place).await {
                Ok(metadata) if metadata.issuer == issuer => return Ok(metadata),
                Ok(_) => last = "its metadata names another issuer".to_owned(),
                Err(why) => last = why,
            }
        }
        Err(last)
    }

    async fn get<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self
            .client
            .get(url)
            .send()
            .await
            .map_err(|_| format!("{url} did not answer"))?;
        if !response.status().is_success() {
            return Err(format!("{url} answered {}", response.status().as_u16()));
        }
        response
            .json()
            .await
            .map_err(|_| format!("{url} answered no JSON of the expected shape"))
    }
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
