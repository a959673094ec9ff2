//! OAuth 2 access tokens for the upstream (RFC 6749): the refresh token grant when the
//! variable the schema names for a refresh token is set, else the client credentials grant.
//!
//! One token is kept per server and reused until shortly before it expires. Calls that find
//! none wait on one request to the token endpoint rather than each sending their own, and a
//! token the upstream refuses (401) is replaced once: by the first call that saw the refusal,
//! while the others take the replacement. The client authenticates with HTTP Basic
//! (`client_secret_basic`). A refresh token the endpoint rotates replaces the one from the
//! environment for the rest of the process. The client secret, refresh tokens and access
//! tokens join the log scrub list.

use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use reqwest::{Client, Url, redirect};
use serde::Deserialize;
use tokio::sync::Mutex;

use super::variables::read_secret;
use crate::adapter::OAuth2;
use crate::error::{AqlError, ErrorCode};
use url::form_urlencoded;

/// A token is renewed this long before it expires, at most (a tenth of its life for short
/// ones), so that it does not expire on its way to the upstream.
const RENEW_BEFORE: Duration = Duration::from_secs(30);

/// Largest token endpoint answer read.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Where an adapter's access tokens come from, and the one it holds.
#[derive(Debug)]
pub(crate) struct TokenSource {
    config: &'static OAuth2,
    url: Url,
    client: Client,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    token: Option<Token>,
    /// A refresh token the endpoint handed out in place of the environment's.
    rotated_refresh: Option<String>,
}

#[derive(Debug, Clone)]
struct Token {
    value: String,
    /// When to get a new one; `None` when the endpoint said nothing of its lifetime.
    renew_at: Option<Instant>,
}

/// A token endpoint's answer (RFC 6749 §5.1).
#[derive(Deserialize)]
struct Granted {
    access_token: String,
    token_type: Option<String>,
    expires_in: Option<u64>,
    refresh_token: Option<String>,
}

/// A token endpoint's refusal (RFC 6749 §5.2); only the code is used.
#[derive(Deserialize)]
struct Refused {
    error: String,
}

impl TokenSource {
    /// The source `config` describes.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when the token URL is not https (or http to this machine), or the
    /// HTTP client cannot start.
    pub(crate) fn new(config: &'static OAuth2, user_agent: &str) -> Result<Self, AqlError> {
        let configured = std::env::var(config.token_url_env)
            .ok()
            .filter(|url| !url.trim().is_empty());
        let url = Url::parse(configured.as_deref().unwrap_or(config.token_url))
            .ok()
            .filter(|url| url.scheme() == "https" || super::is_loopback(url))
            .filter(|url| url.username().is_empty() && url.password().is_none())
            .ok_or_else(|| {
                AqlError::new(
                    ErrorCode::InternalError,
                    format!(
                        "Internal error: the OAuth 2 token URL (the schema's, or '{}') is not an https URL, so the client secret is not sent to it",
                        config.token_url_env
                    ),
                )
                .with_detail("reason", "AUTH_CONFIG_INVALID")
            })?;
        let client = Client::builder()
            .user_agent(user_agent)
            .timeout(Duration::from_secs(30))
            // A token endpoint that redirects could hand the client secret to another host.
            .redirect(redirect::Policy::none())
            .build()
            .map_err(|_| {
                AqlError::new(
                    ErrorCode::InternalError,
                    "Internal error: the OAuth 2 token client could not start",
                )
            })?;
        Ok(Self {
            config,
            url,
            client,
            held: Mutex::new(Held::default()),
        })
    }

    /// An access token: the one held while it is fresh and not `rejected` (the one the
    /// upstream just answered 401 to), else a new one from the token endpoint.
    ///
    /// # Errors
    ///
    /// `PERMISSION_DENIED` when a credential variable is missing or the endpoint refuses the
    /// grant (with its RFC 6749 error code); `INTERNAL_ERROR` when it cannot be reached or
    /// answers something else.
    pub(crate) async fn token(&self, rejected: Option<&str>) -> Result<String, AqlError> {
        let mut held = self.held.lock().await;
        if let Some(token) = &held.token {
            let fresh = token.renew_at.is_none_or(|at| Instant::now() < at);
            if fresh && rejected != Some(token.value.as_str()) {
                return Ok(token.value.clone());
            }
        }
        let token = self.fetch(&mut held).await?;
        held.token = Some(token.clone());
        Ok(token.value)
    }

    async fn fetch(&self, held: &mut Held) -> Result<Token, AqlError> {
        let env = |name: &str| std::env::var_os(name);
        let client_id = read_secret(&env, self.config.client_id_env)?;
        let client_secret = read_secret(&env, self.config.client_secret_env)?;
        crate::redact::register(&client_secret);
        let mut form: Vec<(&str, String)> = Vec::new();
        let refresh = match (&held.rotated_refresh, self.config.refresh_token_env) {
            (Some(rotated), _) => Some(rotated.clone()),
            (None, Some(variable)) if env(variable).is_some_and(|value| !value.is_empty()) => {
                Some(read_secret(&env, variable)?)
            }
            (None, _) => None,
        };
        match refresh {
            Some(refresh) => {
                crate::redact::register(&refresh);
                form.push(("grant_type", "refresh_token".to_owned()));
                form.push(("refresh_token", refresh));
            }
            None => form.push(("grant_type", "client_credentials".to_owned())),
        }
        if !self.config.scope.is_empty() {
            form.push(("scope", self.config.scope.to_owned()));
        }
        // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined.
        let encode =
            |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
        let basic = BASE64.encode(format!("{}:{}", encode(&client_id), encode(&client_secret)));
        let mut authorization = HeaderValue::from_str(&format!("Basic {basic}")).map_err(|_| {
            self.refused("the client id or secret cannot be sent in a header", None)
        })?;
        authorization.set_sensitive(true);
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let sent = self
            .client
            .post(self.url.clone())
            .header(AUTHORIZATION, authorization)
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await;
        let response = sent.map_err(|error| {
            let kind = if error.is_timeout() {
                "TRANSPORT_TIMEOUT"
            } else {
                "TRANSPORT_NETWORK_ERROR"
            };
            AqlError::new(
                ErrorCode::InternalError,
                "Internal error: the OAuth 2 token endpoint could not be reached, so the upstream API was not called",
            )
            .with_detail("upstream_error", kind)
            .with_detail("retryable", true)
        })?;
        let status = response.status();
        let body = read_limited(response).await?;
        if !status.is_success() {
            let code = serde_json::from_slice::<Refused>(&body)
                .ok()
                .map(|refused| refused.error)
                .filter(|code| {
                    code.len() <= 64 && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
                });
            return Err(match status.as_u16() {
                400 | 401 => self.refused("the token endpoint refused the grant", code.as_deref()),
                other => AqlError::new(
                    ErrorCode::InternalError,
                    format!("Internal error: the OAuth 2 token endpoint answered HTTP {other}"),
                )
                .with_detail("http_status", other)
                .with_detail("retryable", other >= 500),
            });
        }
        let granted: Granted = serde_json::from_slice(&body).map_err(|_| {
            AqlError::new(
                ErrorCode::InternalError,
                "Internal error: the OAuth 2 token endpoint's answer holds no access_token",
            )
        })?;
        let bearer = granted
            .token_type
            .as_deref()
            .is_none_or(|kind| kind.eq_ignore_ascii_case("bearer"));
        if !bearer
            || granted.access_token.is_empty()
            || granted.access_token.chars().any(char::is_control)
        {
            return Err(AqlError::new(
                ErrorCode::InternalError,
                "Internal error: the OAuth 2 token endpoint handed out no usable bearer token",
            ));
        }
        crate::redact::register(&granted.access_token);
        if let Some(rotated) = granted
            .refresh_token
            .filter(|_| self.config.refresh_token_env.is_some())
        {
            crate::redact::register(&rotated);
            held.rotated_refresh = Some(rotated);
        }
        let renew_at = granted.expires_in.map(|seconds| {
            let life = Duration::from_secs(seconds);
            Instant::now() + life.saturating_sub(RENEW_BEFORE.min(life / 10))
        });
        tracing::debug!(expires_in = ?granted.expires_in, "obtained an OAuth 2 access token");
        Ok(Token {
            value: granted.access_token,
            renew_at,
        })
    }

    fn refused(&self, why: &str, code: Option<&str>) -> AqlError {
        let variables = match self.config.refresh_token_env {
            Some(refresh) => format!(
                "'{}', '{}' and '{refresh}'",
                self.config.client_id_env, self.config.client_secret_env
            ),
            None => format!(
                "'{}' and '{}'",
                self.config.client_id_env, self.config.client_secret_env
            ),
        };
        let mut error = AqlError::new(
            ErrorCode::PermissionDenied,
            format!(
                "Permission denied: {why}{}; check the environment variables {variables}",
                code.map(|code| format!(" ({code})")).unwrap_or_default()
            ),
        )
        .with_detail("reason", "AUTH_TOKEN_REFUSED");
        if let Some(code) = code {
            error = error.with_detail("oauth_error", code);
        }
        error
    }
}

async fn read_limited(mut response: reqwest::Response) -> Result<Vec<u8>, AqlError> {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(AqlError::new(
                ErrorCode::InternalError,
                "Internal error: the OAuth 2 token endpoint's answer is too large",
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
