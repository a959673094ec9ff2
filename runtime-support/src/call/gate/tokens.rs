//! Confirmation and quota-continuation tokens (confirmation-tokens spec).
//!
//! A token is `conf_` or `quota_continue_` and 256 bits from the operating system's CSPRNG
//! as hex. It is kept in the server's state store, never encoded in itself: bound to the
//! adapter, the operation and a SHA-256 of the canonical params, valid for a TTL that depends
//! on the danger level plus the clock-skew tolerance, consumed before the call runs, and
//! known only to the caller that asked for it (a stdio or HTTP session, or on stateless HTTP
//! the credential the request carries). A caller may have [`MAX_ISSUED_PER_HOUR`] tokens
//! issued and [`MAX_FAILURES_PER_HOUR`] failed redemptions per UTC hour; past either, it gets
//! `RATE_LIMIT_EXCEEDED` (confirmation-tokens §6.5).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aqlgen_model::DangerLevel;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::limits::{Window, rate_limited, window_start};
use super::{QUOTA_PARAM, TOKEN_PARAM};
use crate::clock::{from_unix_seconds, rfc3339, unix_seconds};
use crate::config::TokenConfig;
use crate::digest::{feed_object, hex, random_hex};
use crate::error::{AqlError, ErrorCode};
use crate::state::{Store, Unavailable, unix_millis};

/// Tokens one session may be issued per hour.
pub const MAX_ISSUED_PER_HOUR: u32 = 100;
/// Failed redemptions one session may make per hour; then redemptions are refused.
pub const MAX_FAILURES_PER_HOUR: u32 = 20;

/// What a token lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A gated operation, once (`conf_`).
    Confirmation,
    /// Calls past a quota's pause threshold (`quota_continue_`).
    QuotaContinue,
}

impl TokenKind {
    /// The kind's name in metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation",
            Self::QuotaContinue => "quota_continue",
        }
    }

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

impl From<Unavailable> for Rejected {
    fn from(unavailable: Unavailable) -> Self {
        Self {
            error: unavailable.to_error(),
            token_id: None,
        }
    }
}

/// A token as the store keeps it: `<kind> <operation> <scope hex> <expiry ms>`. Operation
/// names are identifiers, so a space never occurs inside one.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    kind: TokenKind,
    operation: String,
    scope: String,
    expires_ms: u64,
}

impl Entry {
    fn encode(&self) -> String {
        let kind = match self.kind {
            TokenKind::Confirmation => "c",
            TokenKind::QuotaContinue => "q",
        };
        format!(
            "{kind} {} {} {}",
            self.operation, self.scope, self.expires_ms
        )
    }

    fn decode(text: &str) -> Option<Self> {
        let mut parts = text.split(' ');
        let kind = match parts.next()? {
            "c" => TokenKind::Confirmation,
            "q" => TokenKind::QuotaContinue,
            _ => return None,
        };
        Some(Self {
            kind,
            operation: parts.next()?.to_owned(),
            scope: parts.next()?.to_owned(),
            expires_ms: parts.next()?.parse().ok()?,
        })
    }

    fn expires(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(self.expires_ms)
    }
}

/// Issues and redeems tokens, keeping them in the server's [`Store`]: in this process, or
/// shared by every instance on one Redis.
///
/// A token is known only to the caller it was issued to: its key in the store is a hash of
/// the caller's identity and the token, so another caller holding the same text finds
/// nothing. The token itself is never stored.
pub struct Tokens {
    adapter: &'static str,
    config: TokenConfig,
    store: Arc<Store>,
}

impl Tokens {
    /// Tokens of `adapter` kept in `store`.
    pub fn new(adapter: &'static str, config: TokenConfig, store: Arc<Store>) -> Self {
        Self {
            adapter,
            config,
            store,
        }
    }

    /// Issues `caller` a token of `kind` for `operation` with exactly these `params`.
    ///
    /// # Errors
    ///
    /// `RATE_LIMIT_EXCEEDED` past [`MAX_ISSUED_PER_HOUR`]; `INTERNAL_ERROR` when the system's
    /// random source fails or the store is unreachable.
    pub async fn issue(
        &self,
        caller: &str,
        kind: TokenKind,
        operation: &'static str,
        danger: DangerLevel,
        params: &Map<String, Value>,
    ) -> Result<Issued, AqlError> {
        let wall = SystemTime::now();
        let (cap, hour_end) = cap_key("issued", caller, wall);
        let [issued] = self.store.add(&[(cap, hour_end)], 1).await?[..] else {
            return Err(Unavailable.to_error());
        };
        if issued > i64::from(MAX_ISSUED_PER_HOUR) {
            return Err(rate_limited(
                Some(MAX_ISSUED_PER_HOUR.into()),
                Window::Hour,
                hour_end,
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
        let entry = Entry {
            kind,
            operation: operation.to_owned(),
            scope: self.scope(operation, params),
            expires_ms: unix_millis(wall + ttl),
        };
        let key = entry_key(caller, &token);
        self.store
            .set(&key, &entry.encode(), self.kept_until(&entry))
            .await?;
        Ok(Issued {
            id: token_id(&token),
            expires_at: rfc3339(entry.expires()),
            token,
            ttl,
        })
    }

    /// Consumes `token` when it is a live token of `kind` issued to `caller` for exactly this
    /// call. Of concurrent redemptions of one token, on any instance, exactly one succeeds.
    ///
    /// # Errors
    ///
    /// `TOKEN_INVALID` (unknown, not a string, or another kind), `TOKEN_ALREADY_USED`,
    /// `TOKEN_EXPIRED`, `TOKEN_SCOPE_MISMATCH` (other operation or params),
    /// `RATE_LIMIT_EXCEEDED` once the caller has failed [`MAX_FAILURES_PER_HOUR`] times in
    /// this hour, or `INTERNAL_ERROR` when the store is unreachable.
    pub async fn redeem(
        &self,
        caller: &str,
        kind: TokenKind,
        token: &Value,
        operation: &'static str,
        params: &Map<String, Value>,
    ) -> Result<String, Rejected> {
        let wall = SystemTime::now();
        let token_id = token.as_str().map(token_id);
        let (cap, hour_end) = cap_key("failed", caller, wall);
        let failures = self.store.counts(std::slice::from_ref(&cap)).await?;
        if failures.first().copied().unwrap_or_default() >= i64::from(MAX_FAILURES_PER_HOUR) {
            return Err(Rejected {
                error: rate_limited(
                    Some(MAX_FAILURES_PER_HOUR.into()),
                    Window::Hour,
                    hour_end,
                    wall,
                    "failed_confirmations",
                ),
                token_id,
            });
        }
        let outcome = match token.as_str() {
            None => Err(AqlError::new(
                ErrorCode::TokenInvalid,
                format!(
                    "Invalid confirmation token: parameter '{}' must be the string issued with the error which asked for it",
                    kind.param()
                ),
            )),
            Some(text) => {
                self.consume(caller, kind, text, operation, params, wall)
                    .await?
            }
        };
        match outcome {
            Ok(()) => Ok(token_id.unwrap_or_default()),
            Err(error) => {
                self.store.add(&[(cap, hour_end)], 1).await?;
                Err(Rejected { error, token_id })
            }
        }
    }

    /// The checks of one redemption, then the one atomic step that consumes the token. The
    /// outer error is the store's; the inner one the client's.
    async fn consume(
        &self,
        caller: &str,
        kind: TokenKind,
        text: &str,
        operation: &'static str,
        params: &Map<String, Value>,
        wall: SystemTime,
    ) -> Result<Result<(), AqlError>, Unavailable> {
        let fresh = format!(
            "call the operation without '{}' to get a new one",
            kind.param()
        );
        let key = entry_key(caller, text);
        let entry = self
            .store
            .get(&key)
            .await?
            .and_then(|text| Entry::decode(&text));
        let Some(entry) = entry.filter(|entry| entry.kind == kind) else {
            return Ok(Err(AqlError::new(
                ErrorCode::TokenInvalid,
                format!("Invalid confirmation token: it is unknown to this caller; {fresh}"),
            )
            .with_detail("token", text)));
        };
        let used_key = format!("{key}:used");
        let used = |consumed_at: Option<String>| {
            AqlError::new(
                ErrorCode::TokenAlreadyUsed,
                format!("Confirmation token has already been used; {fresh}"),
            )
            .with_detail("token", text)
            .with_detail("consumed_at", consumed_at.unwrap_or_else(|| rfc3339(wall)))
        };
        if let Some(consumed_at) = self.store.get(&used_key).await? {
            return Ok(Err(used(Some(consumed_at))));
        }
        if wall > entry.expires() + self.config.clock_skew {
            return Ok(Err(AqlError::new(
                ErrorCode::TokenExpired,
                format!("Confirmation token has expired; {fresh}"),
            )
            .with_detail("token", text)
            .with_detail("expired_at", rfc3339(entry.expires()))
            .with_detail("current_time", rfc3339(wall))));
        }
        if entry.operation != operation || entry.scope != self.scope(operation, params) {
            return Ok(Err(AqlError::new(
                ErrorCode::TokenScopeMismatch,
                format!(
                    "Confirmation token scope mismatch: it was issued for operation '{}' with other params, not for this call of '{operation}'",
                    entry.operation
                ),
            )
            .with_detail("token", text)
            .with_detail("token_operation", entry.operation)
            .with_detail("requested_operation", operation)));
        }
        let now = rfc3339(wall);
        if self
            .store
            .set_new(&used_key, &now, self.kept_until(&entry))
            .await?
        {
            Ok(Ok(()))
        } else {
            // Another redemption won the race between the checks and this step.
            Ok(Err(used(self.store.get(&used_key).await?)))
        }
    }

    fn scope(&self, operation: &str, params: &Map<String, Value>) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.adapter.as_bytes());
        hasher.update([0]);
        hasher.update(operation.as_bytes());
        hasher.update([0]);
        feed_object(&mut hasher, params);
        hex(&hasher.finalize())
    }

    /// Tokens are kept an hour past their expiry (confirmation-tokens §5.5); until then an
    /// expired or used token is still told apart from an unknown one.
    fn kept_until(&self, entry: &Entry) -> SystemTime {
        entry.expires() + self.config.clock_skew + Window::Hour.length()
    }
}

/// Where the store keeps the token `text` issued to `caller`: a hash of both, so neither the
/// token nor the caller's identity is stored.
fn entry_key(caller: &str, text: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(caller.as_bytes());
    hasher.update([0]);
    hasher.update(text.as_bytes());
    format!("tok:{}", hex(&hasher.finalize()))
}

/// The counter of `what` (issued tokens, failed redemptions) for `caller` in the UTC hour
/// holding `wall`, and when that hour ends.
fn cap_key(what: &str, caller: &str, wall: SystemTime) -> (String, SystemTime) {
    let start = window_start(Window::Hour, unix_seconds(wall));
    let caller = hex(&Sha256::digest(caller.as_bytes())[..16]);
    (
        format!("cap:{what}:{caller}:{start}"),
        from_unix_seconds(start + Window::Hour.seconds()),
    )
}

/// `tok_` and the first 12 hex digits of the token's SHA-256: names a token in logs without
/// revealing it.
pub fn token_id(token: &str) -> String {
    format!("tok_{}", hex(&Sha256::digest(token.as_bytes())[..6]))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const CALLER: &str = "sess_a";

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn tokens_with(config: TokenConfig) -> Tokens {
        Tokens::new("todo", config, Arc::new(Store::memory()))
    }

    fn tokens() -> Tokens {
        tokens_with(TokenConfig::default())
    }

    async fn issue(
        tokens: &Tokens,
        operation: &'static str,
        params: &Map<String, Value>,
    ) -> Issued {
        tokens
            .issue(
                CALLER,
                TokenKind::Confirmation,
                operation,
                DangerLevel::Destructive,
                params,
            )
            .await
            .expect("issued")
    }

    async fn code(
        tokens: &Tokens,
        caller: &str,
        kind: TokenKind,
        token: &Value,
        operation: &'static str,
        params: &Map<String, Value>,
    ) -> ErrorCode {
        tokens
            .redeem(caller, kind, token, operation, params)
            .await
            .expect_err("refused")
            .error
            .code
    }

    #[tokio::test]
    async fn token_flow_covers_every_code() {
        let tokens = tokens();
        let params = object(json!({"id": "1", "tags": {"b": 1, "a": 2}}));
        let issued = issue(&tokens, "delete_item", &params).await;
        assert!(issued.token.starts_with("conf_") && issued.token.len() == 69);
        assert!(issued.id.starts_with("tok_") && !issued.token.contains(&issued.id[4..]));
        assert_eq!(issued.ttl, Duration::from_secs(300));
        let token = json!(issued.token);
        let confirm = TokenKind::Confirmation;

        let other = object(json!({"id": "2"}));
        assert_eq!(
            code(&tokens, CALLER, confirm, &token, "delete_item", &other).await,
            ErrorCode::TokenScopeMismatch
        );
        assert_eq!(
            code(&tokens, CALLER, confirm, &token, "delete_other", &params).await,
            ErrorCode::TokenScopeMismatch
        );
        assert_eq!(
            code(
                &tokens,
                CALLER,
                TokenKind::QuotaContinue,
                &token,
                "delete_item",
                &params
            )
            .await,
            ErrorCode::TokenInvalid,
            "a confirmation token does not continue a quota"
        );
        assert_eq!(
            code(&tokens, "sess_b", confirm, &token, "delete_item", &params).await,
            ErrorCode::TokenInvalid,
            "tokens are known only to the caller they were issued to"
        );
        let reordered = object(json!({"tags": {"a": 2, "b": 1}, "id": "1"}));
        let id = tokens
            .redeem(CALLER, confirm, &token, "delete_item", &reordered)
            .await
            .expect("confirmed");
        assert_eq!(id, issued.id);
        assert_eq!(
            code(&tokens, CALLER, confirm, &token, "delete_item", &params).await,
            ErrorCode::TokenAlreadyUsed
        );
        assert_eq!(
            code(
                &tokens,
                CALLER,
                confirm,
                &json!("conf_nope"),
                "delete_item",
                &params
            )
            .await,
            ErrorCode::TokenInvalid
        );
        assert_eq!(
            code(&tokens, CALLER, confirm, &json!(7), "delete_item", &params).await,
            ErrorCode::TokenInvalid
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_redemptions_succeed_once() {
        let tokens = Arc::new(tokens());
        let params = Map::new();
        let token = json!(issue(&tokens, "op", &params).await.token);
        let attempts: Vec<_> = (0..16)
            .map(|_| {
                let (tokens, token, params) = (tokens.clone(), token.clone(), params.clone());
                tokio::spawn(async move {
                    tokens
                        .redeem(CALLER, TokenKind::Confirmation, &token, "op", &params)
                        .await
                })
            })
            .collect();
        let mut won = 0;
        for attempt in attempts {
            match attempt.await.expect("joined") {
                Ok(_) => won += 1,
                Err(rejected) => assert_eq!(rejected.error.code, ErrorCode::TokenAlreadyUsed),
            }
        }
        assert_eq!(won, 1);
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

    #[tokio::test]
    async fn expiry_counts_the_skew_tolerance() {
        let config = TokenConfig {
            confirmation_ttl: Duration::ZERO,
            clock_skew: Duration::from_secs(60),
            ..TokenConfig::default()
        };
        let tokens = tokens_with(config);
        let params = Map::new();
        let issued = issue(&tokens, "op", &params).await;
        tokens
            .redeem(
                CALLER,
                TokenKind::Confirmation,
                &json!(issued.token),
                "op",
                &params,
            )
            .await
            .expect("inside the skew tolerance");

        let strict = tokens_with(TokenConfig {
            clock_skew: Duration::ZERO,
            ..config
        });
        let issued = issue(&strict, "op", &params).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(
            code(
                &strict,
                CALLER,
                TokenKind::Confirmation,
                &json!(issued.token),
                "op",
                &params
            )
            .await,
            ErrorCode::TokenExpired
        );
    }

    #[tokio::test]
    async fn issuing_and_failing_are_capped() {
        let tokens = tokens();
        let params = Map::new();
        for _ in 0..MAX_ISSUED_PER_HOUR {
            issue(&tokens, "op", &params).await;
        }
        let capped = tokens
            .issue(
                CALLER,
                TokenKind::Confirmation,
                "op",
                DangerLevel::Destructive,
                &params,
            )
            .await
            .expect_err("over the cap");
        assert_eq!(capped.code, ErrorCode::RateLimitExceeded);
        assert_eq!(capped.details["scope"], "confirmation_tokens");

        let tokens = self::tokens();
        let live = issue(&tokens, "op", &params).await.token;
        for _ in 0..MAX_FAILURES_PER_HOUR {
            assert_eq!(
                code(
                    &tokens,
                    CALLER,
                    TokenKind::Confirmation,
                    &json!("conf_wrong"),
                    "op",
                    &params
                )
                .await,
                ErrorCode::TokenInvalid
            );
        }
        let locked = tokens
            .redeem(CALLER, TokenKind::Confirmation, &json!(live), "op", &params)
            .await
            .expect_err("locked even for a good token");
        assert_eq!(locked.error.code, ErrorCode::RateLimitExceeded);
        assert_eq!(locked.error.details["scope"], "failed_confirmations");
        assert!(locked.error.details["retry_after_seconds"].as_u64() > Some(0));
    }
}
