//! `components.securitySchemes` to the adapter's `auth`.

use serde_json::Value;

use super::naming::snake;
use crate::schema::{AuthConfig, AuthKind};

/// The first scheme the format supports (http bearer, apiKey in header or query, http basic),
/// in document order, with environment variable names derived from the adapter `name`;
/// `type: none` when there is none. Skipped schemes are reported through `warn`.
pub fn auth(document: &Value, name: &str, warn: &mut dyn FnMut(String)) -> AuthConfig {
    let prefix = snake(name).to_uppercase();
    let schemes = document
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object);
    for (name, scheme) in schemes.into_iter().flatten() {
        let scheme = super::refs::resolve(document, scheme).unwrap_or(&Value::Null);
        let field = |key: &str| scheme.get(key).and_then(Value::as_str).unwrap_or_default();
        match (
            field("type"),
            field("scheme").to_ascii_lowercase().as_str(),
            field("in"),
        ) {
            ("http", "bearer", _) => return bearer(&format!("{prefix}_TOKEN")),
            ("http", "basic", _) => {
                return AuthConfig {
                    username_env: Some(format!("{prefix}_USERNAME")),
                    password_env: Some(format!("{prefix}_PASSWORD")),
                    ..AuthConfig::of(AuthKind::Basic)
                };
            }
            ("apiKey", _, place @ ("header" | "query")) => {
                let key_name = Some(field("name").to_owned());
                let (header_name, query_param) = if place == "header" {
                    (key_name, None)
                } else {
                    (None, key_name)
                };
                return AuthConfig {
                    key_env: Some(format!("{prefix}_API_KEY")),
                    header_name,
                    query_param,
                    ..AuthConfig::of(AuthKind::ApiKey)
                };
            }
            (kind, _, _) => warn(format!(
                "security scheme `{name}` ({kind}) is not supported; skipped"
            )),
        }
    }
    AuthConfig::of(AuthKind::None)
}

/// Bearer auth with the token in `variable`.
pub fn bearer(variable: &str) -> AuthConfig {
    AuthConfig {
        token_env: Some(variable.to_owned()),
        ..AuthConfig::of(AuthKind::Bearer)
    }
}
