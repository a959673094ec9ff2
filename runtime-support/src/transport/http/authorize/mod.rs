//! The OAuth 2.1 resource server in front of `/mcp` (MCP authorization): every request brings
//! a bearer access token from one of the operator's authorization servers, issued for this
//! resource: a JWT checked against the issuer's keys, or (with an introspection client) an
//! opaque token checked at the issuer's introspection endpoint. Its subject becomes the
//! caller; its scopes decide which operations it may call.
//!
//! - No token, or one that does not hold: `401` with a `WWW-Authenticate: Bearer` challenge
//!   naming the protected resource metadata (RFC 9728), where a client finds the
//!   authorization servers.
//! - A call of an operation whose scopes the token lacks: `403` with
//!   `error="insufficient_scope"` and the scopes needed, so that the client can ask for them
//!   (step-up). The handler refuses such a call too (`PERMISSION_DENIED`), whatever way it
//!   arrives, and leaves the operation out of `introspect`.
//!
//! The token is never sent on: the upstream is called with the server's credential.

mod introspection;
mod jwt;
mod keys;

use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::JsonObject;
use serde_json::{Value, json};

use crate::adapter::Route;
use crate::call::Principal;
use crate::config::{Introspection, ResourceConfig};
use crate::protocol::scopes;
use introspection::Introspector;
use jwt::Rejected;
use keys::Keys;

/// The variable holding the secret of this server's client at the introspection endpoints.
pub const INTROSPECTION_SECRET_ENV: &str = "MCP_AQL_INTROSPECTION_CLIENT_SECRET";

/// Where RFC 9728 puts protected resource metadata.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Checks the bearer tokens of one server.
pub struct Authorizer {
    config: ResourceConfig,
    keys: Keys,
    /// Checks opaque tokens, when the operator gave this server a client to do so.
    introspector: Option<Introspector>,
    route: fn(&str) -> Option<&'static Route>,
    /// The metadata's URL, named in every challenge.
    metadata_url: String,
    /// The metadata document.
    metadata: String,
}

impl Authorizer {
    /// The resource server of `config`, for operations found by `route`.
    ///
    /// # Errors
    ///
    /// A message for the operator when the resource is no URL, the HTTP client cannot start,
    /// or an introspection client is configured without its secret.
    pub fn new(
        config: ResourceConfig,
        route: fn(&str) -> Option<&'static Route>,
        name: &str,
    ) -> Result<Self, String> {
        let metadata_url = metadata_url(&config.resource)?;
        let metadata = json!({
            "resource": config.resource,
            "authorization_servers": config.issuers,
            "scopes_supported": config.scopes.all(),
            "bearer_methods_supported": ["header"],
            "resource_name": name,
        })
        .to_string();
        let introspector = match &config.introspection {
            Some(Introspection { issuer, client: id }) => {
                let secret = std::env::var(INTROSPECTION_SECRET_ENV)
                    .ok()
                    .filter(|secret| !secret.is_empty())
                    .ok_or_else(|| {
                        format!("--introspection-client-id needs the client's secret in the environment variable {INTROSPECTION_SECRET_ENV}")
                    })?;
                Some(Introspector::new(issuer.clone(), id.clone(), secret))
            }
            None => None,
        };
        Ok(Self {
            keys: Keys::new(&config.issuers, config.keys_max_age)?,
            introspector,
            config,
            route,
            metadata_url,
            metadata,
        })
    }

    /// The paths the metadata is served at: the well-known one, and the one with the
    /// resource's path after it (RFC 9728 §3.1).
    pub fn metadata_paths(&self) -> Vec<String> {
        let path = self
            .metadata_url
            .split_once(METADATA_PATH)
            .map_or("", |(_, path)| path);
        let mut paths = vec![METADATA_PATH.to_owned()];
        if !path.is_empty() {
            paths.push(format!("{METADATA_PATH}{path}"));
        }
        paths
    }

    /// The metadata document, as served.
    pub fn metadata(&self) -> Response {
        (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::CACHE_CONTROL, "max-age=3600"),
            ],
            self.metadata.clone(),
        )
            .into_response()
    }

    /// Who the request's bearer token is for.
    ///
    /// # Errors
    ///
    /// The `401` to answer: without a token, a challenge; with one that does not hold,
    /// `invalid_token` and why.
    pub async fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, Response> {
        let Some(token) = bearer(headers) else {
            return Err(self.challenge(StatusCode::UNAUTHORIZED, None, &[]));
        };
        self.validate(token).await.map_err(|rejected| {
            if rejected == Rejected::Throttled {
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [
                        (header::CONTENT_TYPE, "application/json"),
                        (header::RETRY_AFTER, "1"),
                    ],
                    json!({"error": "temporarily_unavailable", "message": format!("Service Unavailable: {}", rejected.description())})
                        .to_string(),
                )
                    .into_response();
            }
            tracing::info!(reason = ?rejected, "refused an access token");
            self.challenge(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", rejected.description())),
                &[],
            )
        })
    }

    async fn validate(&self, token: &str) -> Result<Principal, Rejected> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        let skew = self.config.clock_skew.as_secs();
        if let Some(introspector) = &self.introspector
            && token.split('.').count() != 3
        {
            return introspector
                .check(&self.keys, token, &self.config.resource, now, skew)
                .await;
        }
        let parsed = jwt::parse(token)?;
        let issuer = parsed.claims["iss"].as_str().ok_or(Rejected::Issuer)?;
        let key = self
            .keys
            .key(issuer, parsed.header.kid.as_deref(), parsed.header.alg)
            .await?;
        jwt::verify(&parsed, &key)?;
        let claims = jwt::check(&parsed.claims, issuer, &self.config.resource, now, skew)?;
        Ok(Principal {
            subject: claims.subject,
            scopes: claims.scopes,
        })
    }

    /// The `403` for a `tools/call` with `arguments` whose operations need scopes the
    /// `principal`'s token lacks; `None` when it has them all.
    pub fn step_up(&self, principal: &Principal, arguments: &JsonObject) -> Option<Response> {
        let operations = match arguments.get("operations") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|item| item["operation"].as_str())
                .collect(),
            _ => arguments
                .get("operation")
                .and_then(Value::as_str)
                .into_iter()
                .collect::<Vec<_>>(),
        };
        let mut missing: Vec<&str> = Vec::new();
        for operation in operations {
            for scope in scopes::missing(&self.config.scopes, operation, self.route, principal) {
                if !missing.contains(&scope) {
                    missing.push(scope);
                }
            }
        }
        if missing.is_empty() {
            return None;
        }
        // The scopes to ask for: those held and those missing, so that a new token does not
        // lose what this one could do.
        let mut wanted: Vec<&str> = principal.scopes.iter().map(String::as_str).collect();
        for scope in missing {
            if !wanted.contains(&scope) {
                wanted.push(scope);
            }
        }
        Some(self.challenge(
            StatusCode::FORBIDDEN,
            Some((
                "insufficient_scope",
                "the access token lacks a scope this call needs",
            )),
            &wanted,
        ))
    }

    /// A `WWW-Authenticate: Bearer` answer with the metadata's URL, the error, and the
    /// scopes to ask for.
    fn challenge(
        &self,
        status: StatusCode,
        error: Option<(&str, &str)>,
        scope: &[&str],
    ) -> Response {
        let mut value = format!("Bearer resource_metadata=\"{}\"", self.metadata_url);
        if let Some((code, description)) = error {
            value.push_str(&format!(
                ", error=\"{code}\", error_description=\"{description}\""
            ));
        }
        if !scope.is_empty() {
            value.push_str(&format!(", scope=\"{}\"", scope.join(" ")));
        }
        let message = match (status, error) {
            (StatusCode::FORBIDDEN, _) => format!(
                "Forbidden: the access token lacks the scopes this call needs; ask the authorization server for a token with scope '{}'",
                scope.join(" ")
            ),
            (_, Some((_, description))) => format!("Unauthorized: {description}"),
            (_, None) => format!(
                "Unauthorized: this server takes bearer access tokens; its protected resource metadata: {}",
                self.metadata_url
            ),
        };
        let mut response = (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            json!({"error": error.map_or("unauthorized", |(code, _)| code), "message": message})
                .to_string(),
        )
            .into_response();
        if let Ok(value) = HeaderValue::from_str(&value) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// The token of an `Authorization: Bearer` header.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Where the metadata of `resource` is: the well-known path inserted between its host and
/// its path (RFC 9728 §3.1).
fn metadata_url(resource: &str) -> Result<String, String> {
    let url = url::Url::parse(resource)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.fragment().is_none())
        .ok_or_else(|| format!("--resource '{resource}' is no http(s) URL without a fragment"))?;
    let path = url.path().trim_end_matches('/');
    Ok(format!(
        "{}{METADATA_PATH}{path}",
        url.origin().ascii_serialization()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_sits_between_host_and_path() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp").as_deref(),
            Ok("https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8080").as_deref(),
            Ok("http://127.0.0.1:8080/.well-known/oauth-protected-resource")
        );
        assert!(metadata_url("mcp.example.com").is_err());
    }

    #[test]
    fn only_bearer_tokens_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc"),
        );
        assert_eq!(bearer(&headers), Some("abc"));
    }
}
