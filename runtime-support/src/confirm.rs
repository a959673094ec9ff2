//! Confirmation tokens for operations marked `requires_confirmation` (SPEC §8.3, CT).
//!
//! The first call gets `CONFIRMATION_REQUIRED` with a `conf_` token: 128 bits from the
//! operating system's CSPRNG, bound to the operation and a hash of its params, valid for five
//! minutes, redeemable once, known only to the session that asked for it. The retry carries
//! it as the `confirmation_token` param.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::adapter::Route;
use crate::error::{AqlError, ErrorCode};
use crate::session::random_hex;

/// The param that carries a confirmation token on the retry.
pub const TOKEN_PARAM: &str = "confirmation_token";

/// How long a token stays valid.
pub const TOKEN_TTL: Duration = Duration::from_secs(300);

struct Issued {
    operation: &'static str,
    params_hash: [u8; 32],
    expires: Instant,
    expires_at: String,
    used_at: Option<String>,
}

/// The tokens one session has issued.
#[derive(Default)]
pub struct Confirmations {
    issued: Mutex<HashMap<String, Issued>>,
}

impl Confirmations {
    /// Lets the call through when `token` confirms exactly this operation with these params;
    /// otherwise issues a token (no token given) or says why the token is refused.
    pub fn check(
        &self,
        route: &'static Route,
        params: &Map<String, Value>,
        token: Option<Value>,
        session: &str,
    ) -> Result<(), AqlError> {
        let now = Instant::now();
        let hash = params_hash(params);
        let mut issued = match self.issued.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        issued.retain(|_, entry| entry.expires + TOKEN_TTL > now);
        let token = match token {
            None | Some(Value::Null) => return Err(issue(&mut issued, route, hash, now, session)),
            Some(Value::String(token)) => token,
            Some(_) => {
                return Err(AqlError::new(
                    ErrorCode::TokenInvalid,
                    "Parameter 'confirmation_token' must be the string issued with CONFIRMATION_REQUIRED",
                ));
            }
        };
        let Some(entry) = issued.get_mut(&token) else {
            return Err(AqlError::new(
                ErrorCode::TokenInvalid,
                "Confirmation token is not valid for this session; call the operation without 'confirmation_token' to get a new one",
            )
            .with_detail("token", token));
        };
        if let Some(used_at) = &entry.used_at {
            return Err(AqlError::new(
                ErrorCode::TokenAlreadyUsed,
                "Confirmation token was already used; call the operation without 'confirmation_token' to get a new one",
            )
            .with_detail("token", token.clone())
            .with_detail("consumed_at", used_at.clone()));
        }
        if now >= entry.expires {
            let expired_at = entry.expires_at.clone();
            issued.remove(&token);
            return Err(AqlError::new(
                ErrorCode::TokenExpired,
                "Confirmation token has expired; call the operation without 'confirmation_token' to get a new one",
            )
            .with_detail("token", token)
            .with_detail("expired_at", expired_at)
            .with_detail("current_time", rfc3339(SystemTime::now())));
        }
        if entry.operation != route.operation || entry.params_hash != hash {
            return Err(AqlError::new(
                ErrorCode::TokenScopeMismatch,
                format!(
                    "Confirmation token was issued for operation '{}' with other params; it does not confirm this call of '{}'",
                    entry.operation, route.operation
                ),
            )
            .with_detail("token", token)
            .with_detail("token_operation", entry.operation)
            .with_detail("requested_operation", route.operation));
        }
        entry.used_at = Some(rfc3339(SystemTime::now()));
        Ok(())
    }
}

fn issue(
    issued: &mut HashMap<String, Issued>,
    route: &'static Route,
    params_hash: [u8; 32],
    now: Instant,
    session: &str,
) -> AqlError {
    let Some(random) = random_hex(16) else {
        return AqlError::new(
            ErrorCode::InternalError,
            "Confirmation tokens are unavailable: the system random source failed",
        );
    };
    let token = format!("conf_{random}");
    let expires_at = rfc3339(SystemTime::now() + TOKEN_TTL);
    issued.insert(
        token.clone(),
        Issued {
            operation: route.operation,
            params_hash,
            expires: now + TOKEN_TTL,
            expires_at: expires_at.clone(),
            used_at: None,
        },
    );
    tracing::info!(
        session,
        operation = route.operation,
        danger_level = route.danger_level.as_str(),
        "confirmation token issued"
    );
    AqlError::new(
        ErrorCode::ConfirmationRequired,
        format!(
            "Operation '{}' ({} danger level) needs confirmation: repeat the same call with param 'confirmation_token' set to '{token}' within 5 minutes",
            route.operation,
            route.danger_level.as_str()
        ),
    )
    .with_detail("operation", route.operation)
    .with_detail("danger_level", route.danger_level.as_str())
    .with_detail("confirmation_token", token)
    .with_detail("expires_at", expires_at)
}

/// SHA-256 of the params in canonical form (keys sorted at every level).
fn params_hash(params: &Map<String, Value>) -> [u8; 32] {
    let mut hasher = Sha256::new();
    feed_object(&mut hasher, params);
    hasher.finalize().into()
}

fn feed_object(hasher: &mut Sha256, object: &Map<String, Value>) {
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort();
    hasher.update(b"{");
    for key in keys {
        hasher.update(Value::String(key.clone()).to_string().as_bytes());
        hasher.update(b":");
        feed(hasher, &object[key.as_str()]);
        hasher.update(b",");
    }
    hasher.update(b"}");
}

fn feed(hasher: &mut Sha256, value: &Value) {
    match value {
        Value::Object(object) => feed_object(hasher, object),
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                feed(hasher, item);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

/// `2026-11-23T01:02:03Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    let rest = seconds % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::adapter::{Category, DangerLevel, Method, UpstreamRequest};
    use crate::params::ParamError;

    fn build(_: &Map<String, Value>) -> Result<UpstreamRequest, ParamError> {
        Ok(UpstreamRequest {
            method: Method::Delete,
            path: "/x".into(),
            query: Vec::new(),
            body: None,
        })
    }

    static DELETE_ITEM: Route = Route {
        operation: "delete_item",
        category: Category::Delete,
        method: Method::Delete,
        path_template: "/items/{id}",
        danger_level: DangerLevel::Destructive,
        requires_confirmation: true,
        params: &["id", "confirmation_token"],
        build,
    };

    static DELETE_OTHER: Route = Route {
        operation: "delete_other",
        ..DELETE_ITEM
    };

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn token_flow_covers_every_code() {
        let confirmations = Confirmations::default();
        let params = object(json!({"id": "1", "tags": {"b": 1, "a": 2}}));
        let required = confirmations
            .check(&DELETE_ITEM, &params, None, "s")
            .expect_err("needs a token");
        assert_eq!(required.code, ErrorCode::ConfirmationRequired);
        let token = required.details["confirmation_token"]
            .as_str()
            .expect("token")
            .to_owned();
        assert!(token.starts_with("conf_") && token.len() == 37);

        let other = object(json!({"id": "2"}));
        let scope = confirmations
            .check(&DELETE_ITEM, &other, Some(json!(token)), "s")
            .expect_err("other params");
        assert_eq!(scope.code, ErrorCode::TokenScopeMismatch);
        let scope = confirmations
            .check(&DELETE_OTHER, &params, Some(json!(token)), "s")
            .expect_err("other operation");
        assert_eq!(scope.code, ErrorCode::TokenScopeMismatch);

        let reordered = object(json!({"tags": {"a": 2, "b": 1}, "id": "1"}));
        confirmations
            .check(&DELETE_ITEM, &reordered, Some(json!(token)), "s")
            .expect("confirmed");
        let again = confirmations
            .check(&DELETE_ITEM, &params, Some(json!(token)), "s")
            .expect_err("single use");
        assert_eq!(again.code, ErrorCode::TokenAlreadyUsed);

        let unknown = confirmations
            .check(&DELETE_ITEM, &params, Some(json!("conf_nope")), "s")
            .expect_err("unknown");
        assert_eq!(unknown.code, ErrorCode::TokenInvalid);
        let other_session = Confirmations::default()
            .check(&DELETE_ITEM, &params, Some(json!(token)), "t")
            .expect_err("session scoped");
        assert_eq!(other_session.code, ErrorCode::TokenInvalid);
    }

    #[test]
    fn expired_tokens_are_refused() {
        let confirmations = Confirmations::default();
        let params = Map::new();
        let required = confirmations
            .check(&DELETE_ITEM, &params, None, "s")
            .expect_err("needs a token");
        let token = required.details["confirmation_token"]
            .as_str()
            .expect("token")
            .to_owned();
        if let Ok(mut issued) = confirmations.issued.lock()
            && let Some(entry) = issued.get_mut(&token)
        {
            entry.expires = Instant::now();
        }
        let expired = confirmations
            .check(&DELETE_ITEM, &params, Some(json!(token)), "s")
            .expect_err("expired");
        assert_eq!(expired.code, ErrorCode::TokenExpired);
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(1_709_251_199)),
            "2024-02-29T23:59:59Z"
        );
    }
}
