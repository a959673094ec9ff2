//! Out-of-band verification (SPEC §8.8): a code of 130 random bits, sent on the operator's
//! channel, which the model cannot read, and typed back by the person.
//!
//! The code itself is never kept, logged, audited or answered: the store holds its SHA-256,
//! bound to the caller and to what it verifies, until the challenge expires. Any attempt
//! uses the challenge up, right or wrong (§8.8.2); a caller's wrong codes are counted per
//! minute and past [`MAX_FAILURES`] every attempt is refused (§8.8.5). Both live in the state
//! store, so they hold across restarts (file store) and instances (Redis).

use std::io::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::clock::rfc3339;
use crate::config::Channel;
use crate::digest::{hex, random_hex};
use crate::error::{AqlError, ErrorCode};
use crate::redact;
use crate::state::{Store, Unavailable, unix_millis};

/// Wrong codes a caller may send in one minute (SPEC §8.8.5).
pub const MAX_FAILURES: i64 = 10;
/// The window wrong codes are counted in.
const FAILURE_WINDOW: Duration = Duration::from_secs(60);
/// How long a webhook has to take a code.
const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);
/// Random bytes in a code: 128 bits at least, and a whole number of base32 digits.
const CODE_BYTES: usize = 20;

/// A challenge as the agent may see it: its id and expiry, never its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// `chl_<hex>`.
    pub id: String,
    /// RFC 3339.
    pub expires_at: String,
}

/// What a challenge verifies, for the message on the channel.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// The operation, or what the person approves.
    pub operation: &'a str,
    /// Its danger level.
    pub danger: &'a str,
}

/// What the store keeps of a challenge.
#[derive(Serialize, Deserialize)]
struct Kept {
    caller: String,
    scope: String,
    code_sha256: String,
}

/// Issues and checks the challenges of one server.
pub struct Verifier {
    adapter: &'static str,
    store: Arc<Store>,
    channel: Option<Channel>,
    ttl: Duration,
    http: reqwest::Client,
}

impl Verifier {
    /// Challenges of `adapter` sent on `channel`, living `ttl`, kept on `store`.
    pub fn new(
        adapter: &'static str,
        store: Arc<Store>,
        channel: Option<Channel>,
        ttl: Duration,
    ) -> Self {
        let http = reqwest::Client::builder()
            .timeout(WEBHOOK_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            adapter,
            store,
            channel,
            ttl,
            http,
        }
    }

    /// How long a challenge lives.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// Where codes go, as the person is told.
    pub fn channel(&self) -> Option<&Channel> {
        self.channel.as_ref()
    }

    /// Draws a code for `caller` and `scope` (what it verifies), keeps its hash and sends it on
    /// the channel.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when no channel is configured, the store does not answer or the
    /// channel does not take the code; nothing is kept usable then.
    pub async fn issue(
        &self,
        caller: &str,
        scope: &str,
        subject: Subject<'_>,
    ) -> Result<Challenge, AqlError> {
        let Some(channel) = &self.channel else {
            return Err(unsent());
        };
        let (Some(id), Some(code)) = (random_hex(16), random_code()) else {
            return Err(unsent());
        };
        let id = format!("chl_{id}");
        // The code comes back in the client's answer, which rmcp logs whole at `debug`: the
        // log writer scrubs it, as typed with or without its dashes, while it can be used.
        let until = Instant::now() + self.ttl + Duration::from_secs(60);
        redact::register_until(&code, until);
        redact::register_until(&code.replace('-', ""), until);
        let expires = SystemTime::now() + self.ttl;
        let kept = Kept {
            caller: caller.to_owned(),
            scope: scope.to_owned(),
            code_sha256: digest(&code),
        };
        let kept = serde_json::to_string(&kept).map_err(|_| unsent())?;
        self.store
            .set(&key(&id), &kept, expires)
            .await
            .map_err(AqlError::from)?;
        let challenge = Challenge {
            id,
            expires_at: rfc3339(expires),
        };
        let message = json!({
            "adapter": self.adapter,
            "challenge_id": challenge.id,
            "code": code,
            "operation": subject.operation,
            "danger_level": subject.danger,
            "expires_at": challenge.expires_at,
            "message": format!(
                "Verification code for '{}' ({}) on the {} adapter: {code}. Type it only into the form your MCP client shows; never paste it into a chat.",
                subject.operation, subject.danger, self.adapter
            ),
        });
        self.deliver(channel, &message).await?;
        Ok(challenge)
    }

    /// Checks `code` against challenge `id` for `caller` and `scope`, using the challenge up.
    ///
    /// # Errors
    ///
    /// `RATE_LIMIT_VERIFICATION_ATTEMPTS` past [`MAX_FAILURES`] wrong codes in a minute;
    /// `PERMISSION_VERIFICATION_FAILED` for a wrong, expired, reused or foreign challenge;
    /// `INTERNAL_ERROR` when the store does not answer.
    pub async fn check(
        &self,
        caller: &str,
        id: &str,
        scope: &str,
        code: &str,
    ) -> Result<(), AqlError> {
        let now = SystemTime::now();
        let failures = failure_key(caller, now);
        let counted = self.store.counts(std::slice::from_ref(&failures.0)).await?;
        if counted.first().copied().unwrap_or(0) >= MAX_FAILURES {
            return Err(AqlError::new(
                ErrorCode::RateLimitVerificationAttempts,
                format!(
                    "Too many wrong verification codes: no more than {MAX_FAILURES} a minute are checked; wait a minute, then start the call again for a new code"
                ),
            )
            .with_detail("retry_after_seconds", FAILURE_WINDOW.as_secs()));
        }
        let kept = self.store.get(&key(id)).await?;
        let first_use = self
            .store
            .set_new(&format!("challenge-used:{id}"), "1", now + self.ttl)
            .await?;
        let matches = kept
            .as_deref()
            .and_then(|kept| serde_json::from_str::<Kept>(kept).ok())
            .is_some_and(|kept| {
                first_use
                    && kept.caller == caller
                    && kept.scope == scope
                    && same(&kept.code_sha256, &digest(code))
            });
        if matches {
            return Ok(());
        }
        self.count_failure(failures).await?;
        Err(failed())
    }

    async fn count_failure(&self, failures: (String, SystemTime)) -> Result<(), Unavailable> {
        self.store.add(&[failures], 1).await.map(drop)
    }

    async fn deliver(
        &self,
        channel: &Channel,
        message: &serde_json::Value,
    ) -> Result<(), AqlError> {
        let delivered = match channel {
            Channel::Terminal => std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/tty")
                .and_then(|mut tty| {
                    writeln!(
                        tty,
                        "\n{}\n",
                        message["message"].as_str().unwrap_or_default()
                    )
                })
                .is_ok(),
            Channel::File(path) => append_private(path, &message.to_string()).is_ok(),
            Channel::Webhook(url) => self
                .http
                .post(url.clone())
                .json(message)
                .send()
                .await
                .is_ok_and(|answer| answer.status().is_success()),
        };
        if delivered {
            Ok(())
        } else {
            tracing::warn!(
                channel = channel_kind(channel),
                "the verification channel did not take a code"
            );
            Err(unsent())
        }
    }
}

/// The store key of a challenge.
fn key(id: &str) -> String {
    format!("challenge:{id}")
}

/// The counter of `caller`'s wrong codes in the current minute, and when it lapses.
fn failure_key(caller: &str, now: SystemTime) -> (String, SystemTime) {
    let window = unix_millis(now) / 1000 / FAILURE_WINDOW.as_secs();
    (
        format!("challenge-failures:{caller}:{window}"),
        now + FAILURE_WINDOW * 2,
    )
}

/// A fresh code: base32 digits in groups of four (`ABCD-EFGH-…`), 160 random bits.
fn random_code() -> Option<String> {
    const DIGITS: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut bytes = [0u8; CODE_BYTES];
    getrandom::fill(&mut bytes).ok()?;
    let mut digits = String::new();
    let (mut buffer, mut bits) = (0u32, 0);
    for byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            digits.push(char::from(DIGITS[((buffer >> bits) & 31) as usize]));
        }
    }
    let groups: Vec<&str> = digits
        .as_bytes()
        .chunks(4)
        .filter_map(|chunk| std::str::from_utf8(chunk).ok())
        .collect();
    Some(groups.join("-"))
}

/// The hash a code is kept and compared as: case, spaces and dashes do not count.
fn digest(code: &str) -> String {
    let normal: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    hex(&Sha256::digest(normal.as_bytes()))
}

/// Compares two hashes in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Appends `line` to `path`, which only its owner may read.
fn append_private(path: &std::path::Path, line: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    writeln!(file, "{line}")
}

fn channel_kind(channel: &Channel) -> &'static str {
    match channel {
        Channel::Terminal => "terminal",
        Channel::File(_) => "file",
        Channel::Webhook(_) => "webhook",
    }
}

fn unsent() -> AqlError {
    AqlError::new(
        ErrorCode::InternalError,
        "Internal error: the verification code could not be sent on the operator's channel, so the operation was not run; ask the operator to check the adapter's verification channel",
    )
    .with_detail("reason", "verification_channel_unavailable")
}

fn failed() -> AqlError {
    AqlError::new(
        ErrorCode::PermissionVerificationFailed,
        "Verification failed: the code was wrong, expired or already tried, so the operation was not run. Each code is good for one attempt; call the operation again to have a new code sent to the person",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_code_is_good_once_for_its_caller_and_scope() {
        let dir = std::env::temp_dir().join(format!("aql-verify-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let verifier = Verifier::new(
            "demo",
            Arc::new(Store::memory()),
            Some(Channel::File(dir.clone())),
            Duration::from_secs(60),
        );
        let subject = Subject {
            operation: "delete_all",
            danger: "dangerous",
        };
        let challenge = verifier.issue("sess_a", "scope1", subject).await.unwrap();
        let sent: serde_json::Value =
            serde_json::from_str(std::fs::read_to_string(&dir).unwrap().trim()).unwrap();
        let code = sent["code"].as_str().unwrap().to_owned();
        assert_eq!(code.len(), 32 + 7, "{code}");
        assert_eq!(sent["challenge_id"], challenge.id.as_str());
        let lower = code.to_lowercase().replace('-', " ");
        assert_eq!(
            verifier
                .check("sess_a", &challenge.id, "scope1", &lower)
                .await,
            Ok(())
        );
        let again = verifier
            .check("sess_a", &challenge.id, "scope1", &code)
            .await;
        assert_eq!(
            again.unwrap_err().code,
            ErrorCode::PermissionVerificationFailed
        );

        let other = verifier.issue("sess_a", "scope1", subject).await.unwrap();
        let foreign = verifier.check("sess_b", &other.id, "scope1", &code).await;
        assert!(foreign.is_err(), "another caller's challenge");
        let _ = std::fs::remove_file(&dir);
    }

    #[tokio::test]
    async fn wrong_codes_are_rate_limited() {
        let verifier = Verifier::new(
            "demo",
            Arc::new(Store::memory()),
            Some(Channel::Terminal),
            Duration::from_secs(60),
        );
        for _ in 0..MAX_FAILURES {
            let error = verifier
                .check("c", "chl_x", "s", "WRONG")
                .await
                .unwrap_err();
            assert_eq!(error.code, ErrorCode::PermissionVerificationFailed);
        }
        let error = verifier
            .check("c", "chl_x", "s", "WRONG")
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::RateLimitVerificationAttempts);
    }
}
