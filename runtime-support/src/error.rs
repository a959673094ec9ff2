//! The MCP-AQL error taxonomy and the one error type that reaches clients.
//!
//! Codes come from the specification's registry (public spec `docs/error-codes.md`) plus the
//! few unregistered codes the documents use (spec digest §3C). Every failure a client sees is
//! an [`AqlError`]: a code, a message written for an agent, and optional `details`.

use serde_json::{Map, Value};

/// An MCP-AQL error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A required parameter (or UPDATE `input`) is missing.
    ValidationMissingParam,
    /// A parameter has the wrong JSON type; also upstream 400 and 422.
    ValidationInvalidType,
    /// A parameter is not defined for the operation.
    ValidationUnknownParam,
    /// A key inside UPDATE `input` is not an updatable field (SPEC §4.5.3).
    ValidationUnknownField,
    /// A value breaks an enum, minimum, maximum or pattern constraint.
    ValidationInvalidValue,
    /// A string holds a NUL byte or text that is not valid UTF-8.
    ValidationInvalidEncoding,
    /// A size, length, element-count or depth limit was exceeded.
    ValidationPayloadTooLarge,
    /// An operation was sent to the wrong CRUDE tool (OPS §6.3).
    ValidationEndpointMismatch,
    /// No operation has that name.
    NotFoundOperation,
    /// The upstream answered 404.
    NotFoundResource,
    /// The upstream refused access, or a credential is missing.
    PermissionDenied,
    /// The adapter is untested: only `introspect` runs (trust-levels §5.4).
    PermissionTrustLevelInsufficient,
    /// The operation's danger level is refused at this trust level or by the operator.
    PermissionDangerLevelDenied,
    /// The operation needs a confirmation token first.
    ConfirmationRequired,
    /// The person asked to confirm declined or dismissed the form.
    PermissionConfirmationDeclined,
    /// The person asked to confirm did not answer in time.
    PermissionConfirmationTimeout,
    /// A person must confirm, and the client cannot ask one; the operator refuses the token
    /// flow instead.
    PermissionConfirmationUnavailable,
    /// An out-of-band verification code was wrong, expired or already tried (SPEC §8.8).
    PermissionVerificationFailed,
    /// The safety loop hard-blocked the agent: nothing runs for it until a person verifies a
    /// code (SPEC §8.8.3).
    PermissionAgentBlocked,
    /// A confirmation token, or a `requestState` returned on a retry, is unknown, malformed or
    /// altered.
    TokenInvalid,
    /// A confirmation token is past its expiry.
    TokenExpired,
    /// A confirmation token was already redeemed.
    TokenAlreadyUsed,
    /// A confirmation token was issued for another operation or other parameters.
    TokenScopeMismatch,
    /// The upstream answered 409.
    ConflictAlreadyExists,
    /// A conditional change's `if_match` no longer matches: the upstream answered 412
    /// (SPEC §9.3.2).
    ConflictVersionMismatch,
    /// The upstream answered 429, or a rate limit stopped the call before it was sent.
    RateLimitExceeded,
    /// A quota reached its pause threshold: continue with the token issued.
    RateLimitQuotaPause,
    /// A quota reached its hard stop: nothing runs until its window ends.
    RateLimitQuotaExhausted,
    /// Too many wrong verification codes from one caller (SPEC §8.8.5).
    RateLimitVerificationAttempts,
    /// An upstream 5xx, an unparsable upstream answer, a transport failure or a runtime fault.
    InternalError,
}

impl ErrorCode {
    /// The wire spelling, e.g. `VALIDATION_MISSING_PARAM`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ValidationMissingParam => "VALIDATION_MISSING_PARAM",
            Self::ValidationInvalidType => "VALIDATION_INVALID_TYPE",
            Self::ValidationUnknownParam => "VALIDATION_UNKNOWN_PARAM",
            Self::ValidationUnknownField => "VALIDATION_UNKNOWN_FIELD",
            Self::ValidationInvalidValue => "VALIDATION_INVALID_VALUE",
            Self::ValidationInvalidEncoding => "VALIDATION_INVALID_ENCODING",
            Self::ValidationPayloadTooLarge => "VALIDATION_PAYLOAD_TOO_LARGE",
            Self::ValidationEndpointMismatch => "VALIDATION_ENDPOINT_MISMATCH",
            Self::NotFoundOperation => "NOT_FOUND_OPERATION",
            Self::NotFoundResource => "NOT_FOUND_RESOURCE",
            Self::PermissionDenied => "PERMISSION_DENIED",
            Self::PermissionTrustLevelInsufficient => "PERMISSION_TRUST_LEVEL_INSUFFICIENT",
            Self::PermissionDangerLevelDenied => "PERMISSION_DANGER_LEVEL_DENIED",
            Self::ConfirmationRequired => "CONFIRMATION_REQUIRED",
            Self::PermissionConfirmationDeclined => "PERMISSION_CONFIRMATION_DECLINED",
            Self::PermissionConfirmationTimeout => "PERMISSION_CONFIRMATION_TIMEOUT",
            Self::PermissionConfirmationUnavailable => "PERMISSION_CONFIRMATION_UNAVAILABLE",
            Self::PermissionVerificationFailed => "PERMISSION_VERIFICATION_FAILED",
            Self::PermissionAgentBlocked => "PERMISSION_AGENT_BLOCKED",
            Self::TokenInvalid => "TOKEN_INVALID",
            Self::TokenExpired => "TOKEN_EXPIRED",
            Self::TokenAlreadyUsed => "TOKEN_ALREADY_USED",
            Self::TokenScopeMismatch => "TOKEN_SCOPE_MISMATCH",
            Self::ConflictAlreadyExists => "CONFLICT_ALREADY_EXISTS",
            Self::ConflictVersionMismatch => "CONFLICT_VERSION_MISMATCH",
            Self::RateLimitExceeded => "RATE_LIMIT_EXCEEDED",
            Self::RateLimitQuotaPause => "RATE_LIMIT_QUOTA_PAUSE",
            Self::RateLimitQuotaExhausted => "RATE_LIMIT_QUOTA_EXHAUSTED",
            Self::RateLimitVerificationAttempts => "RATE_LIMIT_VERIFICATION_ATTEMPTS",
            Self::InternalError => "INTERNAL_ERROR",
        }
    }

    /// Whether an agent can recover by changing its request (seed mcp-integration §4.1.3):
    /// recoverable codes are sent with `isError: false`, all others with `isError: true`.
    ///
    /// Beyond the seed's list, the validation codes an agent fixes by editing its call
    /// (unknown param or field, wrong endpoint) count as recoverable: the error names the fix.
    pub const fn is_recoverable(self) -> bool {
        matches!(
            self,
            Self::NotFoundResource
                | Self::NotFoundOperation
                | Self::ValidationMissingParam
                | Self::ValidationInvalidType
                | Self::ValidationInvalidValue
                | Self::ValidationUnknownParam
                | Self::ValidationUnknownField
                | Self::ValidationEndpointMismatch
                | Self::PermissionDenied
                | Self::RateLimitExceeded
                | Self::RateLimitQuotaPause
                | Self::ConfirmationRequired
                | Self::ConflictAlreadyExists
                | Self::ConflictVersionMismatch
        )
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure as a client sees it: `{"code", "message", "details"}`.
///
/// Messages speak the schema's language (operation and parameter names, JSON types) and never
/// carry Rust type names, file paths, backtraces or credentials.
#[derive(Debug, Clone, PartialEq)]
pub struct AqlError {
    /// The taxonomy code.
    pub code: ErrorCode,
    /// A message for the agent: what went wrong and how to fix it.
    pub message: String,
    /// Structured facts about the failure; empty means no `details` member.
    pub details: Map<String, Value>,
}

impl AqlError {
    /// An error with no details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds one `details` member.
    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// The `error` object of a failure response.
    pub fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), self.code.as_str().into());
        error.insert("message".into(), self.message.clone().into());
        if !self.details.is_empty() {
            error.insert("details".into(), Value::Object(self.details.clone()));
        }
        Value::Object(error)
    }
}

impl std::fmt::Display for AqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for AqlError {}
