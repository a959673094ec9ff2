//! `components.securitySchemes` to the adapter's `auth`.

use super::document::{Components, SecurityScheme};
use super::naming::snake;
use super::refs::Resolver;
use crate::schema::{AuthConfig, AuthKind};
use crate::validate::rules;

/// The first scheme the format supports (http bearer, apiKey in header or query, http basic)
/// and `check` accepts, in document order, with environment variable names derived from the
/// adapter `name`; `type: none` when there is none. Skipped schemes are reported through
/// `warn`.
pub fn auth(
    refs: &Resolver<'_>,
    components: &Components,
    name: &str,
    warn: &mut dyn FnMut(String),
) -> AuthConfig {
    let prefix = snake(name).to_uppercase();
    // What a scheme whose `$ref` leads nowhere is taken for: one of no kind.
    let unknown = SecurityScheme::default();
    let text = |field: &Option<String>| field.as_deref().unwrap_or_default().to_owned();
    for (name, scheme) in components.security_schemes.iter().flatten() {
        let scheme = refs.resolve(scheme).unwrap_or(&unknown);
        let kind = text(&scheme.kind);
        let config = match (
            kind.as_str(),
            text(&scheme.scheme).to_ascii_lowercase().as_str(),
            text(&scheme.location).as_str(),
        ) {
            ("http", "bearer", _) => bearer(&format!("{prefix}_TOKEN")),
            ("http", "basic", _) => AuthConfig {
                username_env: Some(format!("{prefix}_USERNAME")),
                password_env: Some(format!("{prefix}_PASSWORD")),
                ..AuthConfig::of(AuthKind::Basic)
            },
            ("apiKey", _, place @ ("header" | "query")) => {
                let key_name = Some(text(&scheme.name));
                let (header_name, query_param) = if place == "header" {
                    (key_name, None)
                } else {
                    (None, key_name)
                };
                AuthConfig {
                    key_env: Some(format!("{prefix}_API_KEY")),
                    header_name,
                    query_param,
                    ..AuthConfig::of(AuthKind::ApiKey)
                }
            }
            (kind, _, _) => {
                warn(format!(
                    "security scheme `{name}` ({kind}) is not supported; skipped"
                ));
                continue;
            }
        };
        let mut refused = Vec::new();
        rules::check_auth(&config, &mut refused);
        match refused.first() {
            None => return config,
            Some(refusal) => warn(format!(
                "security scheme `{name}` ({kind}): {}; skipped",
                refusal.message
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
