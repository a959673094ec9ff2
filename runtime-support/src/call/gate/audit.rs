//! The audit trail: one event per gate decision (danger-levels §7.4, confirmation-tokens
//! §6.4).
//!
//! Every event goes to `tracing` under the target `aql::audit` (at `info`, or `debug` for
//! calls allowed below `destructive`, which are most calls), and, with `--audit-log FILE`,
//! as one JSON object per line appended to that file. An event names the operation, its
//! danger level, the trust level, the session and the token's log name (`tok_…`), never the
//! token itself, a credential or a param value.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use aqlgen_model::{DangerLevel, TrustLevel};
use serde_json::{Map, Value};

use crate::clock::rfc3339;
use crate::error::ErrorCode;
use crate::sync::Unpoisoned as _;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The gate let the call through without confirmation.
    Allowed,
    /// The gate refused the call.
    Denied,
    /// The call needs confirmation; a token was issued.
    ConfirmationIssued,
    /// A confirmation token was redeemed; the call runs.
    TokenAccepted,
    /// A confirmation or quota token was refused.
    TokenRejected,
    /// A rate limit stopped the call.
    RateLimited,
    /// A quota reached its pause threshold; a continuation token was issued.
    QuotaPaused,
    /// A quota continuation token was redeemed.
    QuotaContinued,
    /// A quota reached its hard stop.
    QuotaExhausted,
    /// A person was asked to confirm, through the client (now, or by `input_required`).
    PersonAsked,
    /// The person confirmed; the call runs.
    PersonConfirmed,
    /// The person declined or dismissed the form; nothing was sent.
    PersonDeclined,
    /// The person did not answer in time; nothing was sent.
    PersonUnanswered,
    /// A verification code was sent on the operator's channel (the code is never recorded).
    ChallengeSent,
    /// The person's verification code matched; the call runs.
    ChallengePassed,
    /// A verification code was wrong, expired or reused; nothing was sent.
    ChallengeFailed,
}

impl Event {
    /// The event's name in the log.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::Denied => "denied",
            Self::ConfirmationIssued => "confirmation_issued",
            Self::TokenAccepted => "token_accepted",
            Self::TokenRejected => "token_rejected",
            Self::RateLimited => "rate_limited",
            Self::QuotaPaused => "quota_paused",
            Self::QuotaContinued => "quota_continued",
            Self::QuotaExhausted => "quota_exhausted",
            Self::PersonAsked => "person_asked",
            Self::PersonConfirmed => "person_confirmed",
            Self::PersonDeclined => "person_declined",
            Self::PersonUnanswered => "person_unanswered",
            Self::ChallengeSent => "challenge_sent",
            Self::ChallengePassed => "challenge_passed",
            Self::ChallengeFailed => "challenge_failed",
        }
    }
}

/// One decision about one call.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// What happened.
    pub event: Event,
    /// The operation.
    pub operation: &'a str,
    /// Its danger level.
    pub danger: DangerLevel,
    /// The trust level in force.
    pub trust: TrustLevel,
    /// The session.
    pub session: &'a str,
    /// The subject of the caller's access token, behind an authorization server.
    pub subject: Option<&'a str>,
    /// The token's log name, when a token is involved.
    pub token_id: Option<&'a str>,
    /// The code the client got, when the call was stopped.
    pub code: Option<ErrorCode>,
}

/// Where audit events go.
#[derive(Debug)]
pub struct Audit {
    adapter: &'static str,
    file: Option<Mutex<File>>,
}

impl Audit {
    /// Events to `tracing` only.
    pub fn to_log(adapter: &'static str) -> Self {
        Self {
            adapter,
            file: None,
        }
    }

    /// Events to `tracing` and appended to `path`, created if missing.
    ///
    /// # Errors
    ///
    /// A sentence for the operator when the file cannot be opened for appending.
    pub fn to_file(adapter: &'static str, path: &Path) -> Result<Self, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|error| format!("cannot open the audit log {}: {error}", path.display()))?;
        Ok(Self {
            adapter,
            file: Some(Mutex::new(file)),
        })
    }

    /// Records one event.
    pub fn record(&self, record: Record<'_>) {
        let Record {
            event,
            operation,
            danger,
            trust,
            session,
            subject,
            token_id,
            code,
        } = record;
        let subject = subject.unwrap_or("");
        let (event_name, danger_name, trust_name) =
            (event.as_str(), danger.as_str(), trust.as_str());
        let token_id = token_id.unwrap_or("");
        let code = code.map_or("", ErrorCode::as_str);
        if event == Event::Allowed && danger < DangerLevel::Destructive {
            tracing::debug!(target: "aql::audit", event = event_name, operation, danger_level = danger_name, trust_level = trust_name, session_id = session, subject, "audit");
        } else {
            tracing::info!(target: "aql::audit", event = event_name, operation, danger_level = danger_name, trust_level = trust_name, session_id = session, subject, token_id, code, "audit");
        }
        let Some(file) = &self.file else {
            return;
        };
        let mut line = Map::new();
        line.insert("timestamp".into(), rfc3339(SystemTime::now()).into());
        line.insert("event".into(), event_name.into());
        line.insert("adapter".into(), self.adapter.into());
        line.insert("operation".into(), operation.into());
        line.insert("danger_level".into(), danger_name.into());
        line.insert("danger_rank".into(), danger.rank().into());
        line.insert("trust_level".into(), trust_name.into());
        line.insert("session_id".into(), session.into());
        if !subject.is_empty() {
            line.insert("subject".into(), subject.into());
        }
        if !token_id.is_empty() {
            line.insert("token_id".into(), token_id.into());
        }
        if !code.is_empty() {
            line.insert("code".into(), code.into());
        }
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        let mut file = file.locked();
        if let Err(error) = file.write_all(text.as_bytes()) {
            tracing::error!(%error, "cannot append to the audit log");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_appended_as_json_lines() {
        let dir = std::env::temp_dir().join(format!("aql-audit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("audit.jsonl");
        let _ = std::fs::remove_file(&path);
        for event in [Event::ConfirmationIssued, Event::TokenAccepted] {
            let audit = Audit::to_file("todo", &path).expect("opens");
            audit.record(Record {
                event,
                operation: "delete_todo",
                danger: DangerLevel::Destructive,
                trust: TrustLevel::Validated,
                session: "sess_1",
                subject: Some("alice"),
                token_id: Some("tok_abc"),
                code: None,
            });
        }
        let text = std::fs::read_to_string(&path).expect("written");
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON line"))
            .collect();
        assert_eq!(lines.len(), 2, "appended, not overwritten");
        assert_eq!(lines[0]["event"], "confirmation_issued");
        assert_eq!(lines[1]["event"], "token_accepted");
        assert_eq!(lines[1]["danger_rank"], 2);
        assert_eq!(lines[1]["token_id"], "tok_abc");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
