//! `components.securitySchemes` to the adapter's `auth`.

use serde_json::Value;
use serde_yaml::{Mapping, Value as Yaml};

use super::naming::snake;

/// The first scheme the format supports (http bearer, apiKey in header or query, http basic),
/// in document order, with environment variable names derived from the adapter `name`;
/// `type: none` when there is none. Skipped schemes are reported through `warn`.
pub fn auth(document: &Value, name: &str, warn: &mut dyn FnMut(String)) -> Yaml {
    let prefix = snake(name).to_uppercase();
    let mut out = Mapping::new();
    let mut put = |key: &str, value: String| {
        out.insert(Yaml::String(key.to_owned()), Yaml::String(value));
    };
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
            ("http", "bearer", _) => {
                put("type", "bearer".to_owned());
                put("token_env", format!("{prefix}_TOKEN"));
            }
            ("http", "basic", _) => {
                put("type", "basic".to_owned());
                put("username_env", format!("{prefix}_USERNAME"));
                put("password_env", format!("{prefix}_PASSWORD"));
            }
            ("apiKey", _, place @ ("header" | "query")) => {
                put("type", "api_key".to_owned());
                put("key_env", format!("{prefix}_API_KEY"));
                let key = if place == "header" {
                    "header_name"
                } else {
                    "query_param"
                };
                put(key, field("name").to_owned());
            }
            (kind, _, _) => {
                warn(format!(
                    "security scheme `{name}` ({kind}) is not supported; skipped"
                ));
                continue;
            }
        }
        return Yaml::Mapping(out);
    }
    put("type", "none".to_owned());
    Yaml::Mapping(out)
}

/// Bearer auth with the token in `variable`.
pub fn bearer(variable: &str) -> Yaml {
    let mut out = Mapping::new();
    out.insert(
        Yaml::String("type".to_owned()),
        Yaml::String("bearer".to_owned()),
    );
    out.insert(
        Yaml::String("token_env".to_owned()),
        Yaml::String(variable.to_owned()),
    );
    Yaml::Mapping(out)
}
