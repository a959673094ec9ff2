//! Confirmation and quota-continuation tokens (confirmation-tokens spec).
//!
//! A token is `conf_` or `quota_continue_` and 256 bits from the operating system's CSPRNG
//! as hex. It is stored here, never encoded: bound to the adapter, the operation and a
//! SHA-256 of the canonical params, valid for a TTL that depends on the danger level plus the
//! clock-skew tolerance, consumed before the call runs, and known only to the session that
//! asked for it (the store dies with the session). A session may have at most
//! [`MAX_ISSUED_PER_HOUR`] tokens issued and [`MAX_FAILURES_PER_HOUR`] failed redemptions per
//! hour; past either, it gets `RATE_LIMIT_EXCEEDED` (confirmation-tokens §6.5).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use aql_model::DangerLevel;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::TOKEN_PARAM;
use super::limits::{Window, rate_limited};
use crate::clock::rfc3339;
use crate::error::{AqlError, ErrorCode};
use crate::session::random_hex;

/// Tokens one session may be issued per hour.
pub const MAX_ISSUED_PER_HOUR: u32 = 100;
/// Failed redemptions one session may make per hour; then redemptions are refused.
pub const MAX_FAILURES_PER_HOUR: u32 = 20;

/// The param that carries a quota continuation token; `_`-prefixed, so it is metadata and
/// never an operation param.
pub const QUOTA_PARAM: &str = "_quota_continue";

/// What a token lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A gated operation, once (`conf_`).
    Confirmation,
    /// Calls past a quota's pause threshold (`quota_continue_`).
    QuotaContinue,
}

impl TokenKind {
    const fn prefix(self) -> &'static str {
        match self {
            Self::Confirmation => "conf_",
            Self::QuotaContinue => "quota_continue_",
        }
    }

    /// The param the retry carries it in.
    pub const fn param(self) -> &'static str {
        match self {
            Self::Confirmation => TOKEN_PARAM,
            Self::QuotaContinue => QUOTA_PARAM,
        }
    }
}

/// How long tokens live (confirmation-tokens §5.1): defaults and upper bounds are the
/// specification's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenConfig {
    /// Confirmation of a safe, reversible, destructive or dangerous operation. Default 5 min,
    /// at most 15.
    pub confirmation_ttl: Duration,
    /// Confirmation of a forbidden operation. Default 2 min, at most 5.
    pub forbidden_ttl: Duration,
    /// Quota continuation. Default 5 min, at most 10.
    pub quota_ttl: Duration,
    /// Grace added to every expiry for clocks that disagree. Default 30 s, at most 300.
    pub clock_skew: Duration,
}

impl Default for TokenConfig {
    fn default() -> Self {
        Self {
            confirmation_ttl: Duration::from_secs(300),
            forbidden_ttl: Duration::from_secs(120),
            quota_ttl: Duration::from_secs(300),
            clock_skew: Duration::from_secs(30),
        }
    }
}

impl TokenConfig {
    /// The TTL of a token of `kind` for an operation of `danger`.
    pub fn ttl(&self, kind: TokenKind, danger: DangerLevel) -> Duration {
        match (kind, danger) {
            (TokenKind::QuotaContinue, _) => self.quota_ttl,
            (TokenKind::Confirmation, DangerLevel::Forbidden) => self.forbidden_ttl,
            (TokenKind::Confirmation, _) => self.confirmation_ttl,
        }
    }
}

/// A token just issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issued {
    /// The token, for the client only: never logged.
    pub token: String,
    /// A name for the token that logs can carry: `tok_` and 12 hex digits of its SHA-256.
    pub id: String,
    /// When it expires (without the skew tolerance).
    pub expires_at: String,
    /// Its time to live.
    pub ttl: Duration,
}

/// A redemption that failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// What the client gets.
    pub error: AqlError,
    /// The token's log name, when a string was given.
    pub token_id: Option<String>,
}

struct Entry {
    kind: TokenKind,
    operation: &'static str,
    scope: [u8; 32],
    expires: Instant,
    expires_at: String,
    consumed_at: Option<String>,
}

/// A fixed one-hour window of counted events.
#[derive(Default)]
struct Hourly {
    started: Option<Instant>,
    count: u32,
}

impl Hourly {
    /// The count in the current window, restarting it when an hour has passed.
    fn current(&mut self, now: Instant) -> u32 {
        if self
            .started
            .is_none_or(|started| now.duration_since(started) >= Window::Hour.length())
        {
            self.started = Some(now);
            self.count = 0;
        }
        self.count
    }

    /// When the current window ends.
    fn resets(&self, now: Instant, wall: SystemTime) -> SystemTime {
        let started = self.started.unwrap_or(now);
        let left = Window::Hour
            .length()
            .saturating_sub(now.duration_since(started));
        wall + left
    }
}

#[derive(Default)]
struct State {
    entries: HashMap<String, Entry>,
    issued: Hourly,
    failures: Hourly,
}

/// The tokens of one session.
pub struct Tokens {
    adapter: &'static str,
    config: TokenConfig,
    state: Mutex<State>,
}

impl Tokens {
    /// An empty store for a session of `adapter`.
    pub fn new(adapter: &'static str, config: TokenConfig) -> Self {
        Self {
            adapter,
            config,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Issues a token of `kind` for `operation` with exactly these `params`.
    ///
    /// # Errors
    ///
    /// `RATE_LIMIT_EXCEEDED` past [`MAX_ISSUED_PER_HOUR`]; `INTERNAL_ERROR` when the system's
    /// random source fails.
    pub fn issue(
        &self,
        kind: TokenKind,
        operation: &'static str,
        danger: DangerLevel,
        params: &Map<String, Value>,
    ) -> Result<Issued, AqlError> {
        let (now, wall) = (Instant::now(), SystemTime::now());
        let mut state = self.state();
        self.purge(&mut state, now);
        if state.issued.current(now) >= MAX_ISSUED_PER_HOUR {
            return Err(rate_limited(
                Some(MAX_ISSUED_PER_HOUR.into()),
                Window::Hour,
                state.issued.resets(now, wall),
                wall,
                "confirmation_tokens",
            ));
        }
        let Some(random) = random_hex(32) else {
            return Err(AqlError::new(
                ErrorCode::InternalError,
                "Internal error: tokens are unavailable because the system random source failed",
            ));
        };
        let token = format!("{}{random}", kind.prefix());
        let ttl = self.config.ttl(kind, danger);
        let expires_at = rfc3339(wall + ttl);
        state.issued.count += 1;
        state.entries.insert(
            token.clone(),
            Entry {
                kind,
                operation,
                scope: self.scope(operation, params),
                expires: now + ttl,
                expires_at: expires_at.clone(),
                consumed_at: None,
            },
        );
        Ok(Issued {
            id: token_id(&token),
            token,
            expires_at,
            ttl,
        })
    }

    /// Consumes `token` when it is a live token of `kind` for exactly this call.
    ///
    /// # Errors
    ///
    /// `TOKEN_INVALID` (unknown, not a string, or another kind), `TOKEN_ALREADY_USED`,
    /// `TOKEN_EXPIRED`, `TOKEN_SCOPE_MISMATCH` (other operation or params), or
    /// `RATE_LIMIT_EXCEEDED` once the session has failed [`MAX_FAILURES_PER_HOUR`] times.
    pub fn redeem(
        &self,
        kind: TokenKind,
        token: &Value,
        operation: &'static str,
        params: &Map<String, Value>,
    ) -> Result<String, Rejected> {
        let (now, wall) = (Instant::now(), SystemTime::now());
        let mut state = self.state();
        self.purge(&mut state, now);
        let token_id = token.as_str().map(token_id);
        if state.failures.current(now) >= MAX_FAILURES_PER_HOUR {
            return Err(Rejected {
                error: rate_limited(
                    Some(MAX_FAILURES_PER_HOUR.into()),
                    Window::Hour,
                    state.failures.resets(now, wall),
                    wall,
                    "failed_confirmations",
                ),
                token_id,
            });
        }
        let scope = self.scope(operation, params);
        let outcome = match token.as_str() {
            None => Err(AqlError::new(
                ErrorCode::TokenInvalid,
                format!(
                    "Invalid confirmation token: parameter '{}' must be the string issued with the error which asked for it",
                    kind.param()
                ),
            )),
            Some(text) => check(
                &mut state,
                kind,
                text,
                operation,
                &scope,
                now,
                wall,
                self.config.clock_skew,
            ),
        };
        outcome
            .map(|()| token_id.clone().unwrap_or_default())
            .map_err(|error| {
                state.failures.count += 1;
                Rejected { error, token_id }
            })
    }

    fn scope(&self, operation: &str, params: &Map<String, Value>) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(self.adapter.as_bytes());
        hasher.update([0]);
        hasher.update(operation.as_bytes());
        hasher.update([0]);
        feed_object(&mut hasher, params);
        hasher.finalize().into()
    }

    /// Drops tokens an hour past their expiry (confirmation-tokens §5.5); until then an
    /// expired or used token is still told apart from an unknown one.
    fn purge(&self, state: &mut State, now: Instant) {
        let keep = self.config.clock_skew + Window::Hour.length();
        state.entries.retain(|_, entry| entry.expires + keep > now);
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "one check over the locked state; a struct for its inputs would only rename them"
)]
fn check(
    state: &mut State,
    kind: TokenKind,
    text: &str,
    operation: &'static str,
    scope: &[u8; 32],
    now: Instant,
    wall: SystemTime,
    skew: Duration,
) -> Result<(), AqlError> {
    let fresh = format!(
        "call the operation without '{}' to get a new one",
        kind.param()
    );
    let entry = match state.entries.get_mut(text) {
        Some(entry) if entry.kind == kind => entry,
        _ => {
            return Err(AqlError::new(
                ErrorCode::TokenInvalid,
                format!("Invalid confirmation token: it is unknown to this session; {fresh}"),
            )
            .with_detail("token", text));
        }
    };
    if let Some(consumed_at) = &entry.consumed_at {
        return Err(AqlError::new(
            ErrorCode::TokenAlreadyUsed,
            format!("Confirmation token has already been used; {fresh}"),
        )
        .with_detail("token", text)
        .with_detail("consumed_at", consumed_at.clone()));
    }
    if now > entry.expires + skew {
        return Err(AqlError::new(
            ErrorCode::TokenExpired,
            format!("Confirmation token has expired; {fresh}"),
        )
        .with_detail("token", text)
        .with_detail("expired_at", entry.expires_at.clone())
        .with_detail("current_time", rfc3339(wall)));
    }
    if entry.operation != operation || entry.scope != *scope {
        return Err(AqlError::new(
            ErrorCode::TokenScopeMismatch,
            format!(
                "Confirmation token scope mismatch: it was issued for operation '{}' with other params, not for this call of '{operation}'",
                entry.operation
            ),
        )
        .with_detail("token", text)
        .with_detail("token_operation", entry.operation)
        .with_detail("requested_operation", operation));
    }
    entry.consumed_at = Some(rfc3339(wall));
    Ok(())
}

/// `tok_` and the first 12 hex digits of the token's SHA-256: names a token in logs without
/// revealing it.
pub fn token_id(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let mut id = String::from("tok_");
    for byte in &digest[..6] {
        id.push_str(&format!("{byte:02x}"));
    }
    id
}

/// Feeds `object` to `hasher` in one canonical form: keys sorted, scalars as compact JSON.
pub(crate) fn feed_object(hasher: &mut Sha256, object: &Map<String, Value>) {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn tokens() -> Tokens {
        Tokens::new("todo", TokenConfig::default())
    }

    #[test]
    fn token_flow_covers_every_code() {
        let tokens = tokens();
        let params = object(json!({"id": "1", "tags": {"b": 1, "a": 2}}));
        let issued = tokens
            .issue(
                TokenKind::Confirmation,
                "delete_item",
                DangerLevel::Destructive,
                &params,
            )
            .expect("issued");
        assert!(issued.token.starts_with("conf_") && issued.token.len() == 69);
        assert!(issued.id.starts_with("tok_") && !issued.token.contains(&issued.id[4..]));
        assert_eq!(issued.ttl, Duration::from_secs(300));
        let token = json!(issued.token);

        let code = |result: Result<String, Rejected>| result.expect_err("refused").error.code;
        let other = object(json!({"id": "2"}));
        assert_eq!(
            code(tokens.redeem(TokenKind::Confirmation, &token, "delete_item", &other)),
            ErrorCode::TokenScopeMismatch
        );
        assert_eq!(
            code(tokens.redeem(TokenKind::Confirmation, &token, "delete_other", &params)),
            ErrorCode::TokenScopeMismatch
        );
        assert_eq!(
            code(tokens.redeem(TokenKind::QuotaContinue, &token, "delete_item", &params)),
            ErrorCode::TokenInvalid,
            "a confirmation token does not continue a quota"
        );
        let reordered = object(json!({"tags": {"a": 2, "b": 1}, "id": "1"}));
        let id = tokens
            .redeem(TokenKind::Confirmation, &token, "delete_item", &reordered)
            .expect("confirmed");
        assert_eq!(id, issued.id);
        assert_eq!(
            code(tokens.redeem(TokenKind::Confirmation, &token, "delete_item", &params)),
            ErrorCode::TokenAlreadyUsed
        );
        assert_eq!(
            code(tokens.redeem(
                TokenKind::Confirmation,
                &json!("conf_nope"),
                "delete_item",
                &params
            )),
            ErrorCode::TokenInvalid
        );
        assert_eq!(
            code(tokens.redeem(TokenKind::Confirmation, &json!(7), "delete_item", &params)),
            ErrorCode::TokenInvalid
        );
        assert_eq!(
            code(Tokens::new("todo", TokenConfig::default()).redeem(
                TokenKind::Confirmation,
                &token,
                "delete_item",
                &params
            )),
            ErrorCode::TokenInvalid,
            "tokens are session-scoped"
        );
    }

    #[test]
    fn ttls_follow_the_danger_level() {
        let config = TokenConfig::default();
        assert_eq!(
            config.ttl(TokenKind::Confirmation, DangerLevel::Dangerous),
            Duration::from_secs(300)
        );
        assert_eq!(
            config.ttl(TokenKind::Confirmation, DangerLevel::Forbidden),
            Duration::from_secs(120)
        );
        assert_eq!(
            config.ttl(TokenKind::QuotaContinue, DangerLevel::Forbidden),
            Duration::from_secs(300)
        );
    }

    #[test]
    fn expiry_counts_the_skew_tolerance() {
        let config = TokenConfig {
            confirmation_ttl: Duration::ZERO,
            clock_skew: Duration::from_secs(60),
            ..TokenConfig::default()
        };
        let tokens = Tokens::new("todo", config);
        let params = Map::new();
        let issued = tokens
            .issue(
                TokenKind::Confirmation,
                "op",
                DangerLevel::Destructive,
                &params,
            )
            .expect("issued");
        tokens
            .redeem(TokenKind::Confirmation, &json!(issued.token), "op", &params)
            .expect("inside the skew tolerance");

        let strict = Tokens::new(
            "todo",
            TokenConfig {
                clock_skew: Duration::ZERO,
                ..config
            },
        );
        let issued = strict
            .issue(
                TokenKind::Confirmation,
                "op",
                DangerLevel::Destructive,
                &params,
            )
            .expect("issued");
        std::thread::sleep(Duration::from_millis(5));
        let expired = strict
            .redeem(TokenKind::Confirmation, &json!(issued.token), "op", &params)
            .expect_err("expired");
        assert_eq!(expired.error.code, ErrorCode::TokenExpired);
    }

    #[test]
    fn issuing_and_failing_are_capped() {
        let tokens = tokens();
        let params = Map::new();
        for _ in 0..MAX_ISSUED_PER_HOUR {
            tokens
                .issue(
                    TokenKind::Confirmation,
                    "op",
                    DangerLevel::Destructive,
                    &params,
                )
                .expect("under the cap");
        }
        let capped = tokens
            .issue(
                TokenKind::Confirmation,
                "op",
                DangerLevel::Destructive,
                &params,
            )
            .expect_err("over the cap");
        assert_eq!(capped.code, ErrorCode::RateLimitExceeded);
        assert_eq!(capped.details["scope"], "confirmation_tokens");

        let tokens = tokens_with_one_live(&params);
        for _ in 0..MAX_FAILURES_PER_HOUR {
            let failed = tokens
                .0
                .redeem(TokenKind::Confirmation, &json!("conf_wrong"), "op", &params)
                .expect_err("unknown");
            assert_eq!(failed.error.code, ErrorCode::TokenInvalid);
        }
        let locked = tokens
            .0
            .redeem(TokenKind::Confirmation, &json!(tokens.1), "op", &params)
            .expect_err("locked even for a good token");
        assert_eq!(locked.error.code, ErrorCode::RateLimitExceeded);
        assert_eq!(locked.error.details["scope"], "failed_confirmations");
        assert!(locked.error.details["retry_after_seconds"].as_u64() > Some(3500));
    }

    fn tokens_with_one_live(params: &Map<String, Value>) -> (Tokens, String) {
        let tokens = tokens();
        let issued = tokens
            .issue(
                TokenKind::Confirmation,
                "op",
                DangerLevel::Destructive,
                params,
            )
            .expect("issued");
        (tokens, issued.token)
    }
}
