//! Secrets out of text: every credential the adapter sends is scrubbed, in the spellings an
//! echo would give it, from error text for clients and from every log line, whichever layer
//! wrote it (rmcp logs whole messages at `debug` and `trace`).

use std::io::Write;
use std::sync::RwLock;
use std::time::Instant;

use crate::sync::{self, Unpoisoned as _};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use tracing_subscriber::fmt::MakeWriter;

/// What a secret is replaced by.
pub const REDACTED: &str = "[REDACTED]";

/// Secrets shorter than this are not scrubbed from text: replacing every `a` of a message
/// because a password is `a` would destroy the message and protect nothing.
const MIN_REDACTED_LEN: usize = 3;

/// Spellings of every secret sent so far, scrubbed from log lines.
static LOGGED: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Spellings of secrets that matter for a while (verification codes), with when they stop
/// mattering; pruned as new ones come.
static PASSING: RwLock<Vec<(String, Instant)>> = RwLock::new(Vec::new());

/// The ways `secret` shows up when something echoes it: as is, upper- and lower-case,
/// percent- and form-encoded (a query string), and base64 (a header value).
pub fn spellings(secret: &str) -> Vec<String> {
    if secret.len() < MIN_REDACTED_LEN {
        return Vec::new();
    }
    // A query string carries it as a path segment would: everything but unreserved
    // characters percent-encoded.
    let encoded = crate::wire::encode_segment(secret);
    let mut all = vec![
        secret.to_owned(),
        secret.to_ascii_uppercase(),
        secret.to_ascii_lowercase(),
        encoded.replace("%20", "+"),
        encoded,
        STANDARD.encode(secret),
        STANDARD_NO_PAD.encode(secret),
        URL_SAFE.encode(secret),
        URL_SAFE_NO_PAD.encode(secret),
    ];
    // Longest first, so a spelling that contains another is replaced whole.
    all.sort_by_key(|spelling| std::cmp::Reverse(spelling.len()));
    all.dedup();
    all
}

/// `text` with every one of `spellings`, taken in order (longest first), replaced by
/// [`REDACTED`].
pub fn scrub(text: &str, spellings: &[String]) -> String {
    let mut out = text.to_owned();
    for spelling in spellings {
        if out.contains(spelling.as_str()) {
            out = out.replace(spelling.as_str(), REDACTED);
        }
    }
    out
}

/// Adds `secret` to what log lines are scrubbed of, before it is first sent.
pub fn register(secret: &str) {
    let fresh = spellings(secret);
    if fresh.is_empty() {
        return;
    }
    let mut logged = LOGGED.locked();
    for spelling in fresh {
        if !logged.contains(&spelling) {
            logged.push(spelling);
        }
    }
    logged.sort_by_key(|spelling| std::cmp::Reverse(spelling.len()));
}

/// A tracing writer to stderr that scrubs each event of the registered secrets.
#[derive(Debug, Clone, Copy, Default)]
pub struct RedactingStderr;

impl<'a> MakeWriter<'a> for RedactingStderr {
    type Writer = EventBuffer;

    fn make_writer(&'a self) -> Self::Writer {
        EventBuffer(Vec::new())
    }
}

/// One formatted event, written out scrubbed when the formatter drops it.
pub struct EventBuffer(Vec<u8>);

impl Write for EventBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Adds `secret` to what log lines are scrubbed of until `until`: a verification code, which
/// comes back in a client's answer that rmcp logs whole at `debug`.
pub fn register_until(secret: &str, until: Instant) {
    let now = Instant::now();
    let mut passing = PASSING.locked();
    passing.retain(|(_, end)| *end > now);
    passing.extend(
        spellings(secret)
            .into_iter()
            .map(|spelling| (spelling, until)),
    );
    passing.sort_by_key(|(spelling, _)| std::cmp::Reverse(spelling.len()));
}

/// `text` scrubbed of every registered secret: for text shown to a person or a log.
pub fn scrub_registered(text: &str) -> String {
    let logged = sync::read(&LOGGED);
    let mut out = if logged.is_empty() {
        text.to_owned()
    } else {
        scrub(text, &logged)
    };
    drop(logged);
    let passing = sync::read(&PASSING);
    for (spelling, _) in passing.iter() {
        if out.contains(spelling.as_str()) {
            out = out.replace(spelling.as_str(), REDACTED);
        }
    }
    out
}

impl Drop for EventBuffer {
    fn drop(&mut self) {
        let line = scrub_registered(&String::from_utf8_lossy(&self.0));
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_common_spelling_is_scrubbed() {
        let secret = "ghp_Secret+Token/1";
        let all = spellings(secret);
        let text = format!(
            "a {secret} b {} c {} d {} e {} f {}",
            secret.to_ascii_uppercase(),
            secret.to_ascii_lowercase(),
            STANDARD.encode(secret),
            URL_SAFE_NO_PAD.encode(secret),
            crate::wire::encode_segment(secret),
        );
        let clean = scrub(&text, &all);
        assert_eq!(clean.matches(REDACTED).count(), 6, "{clean}");
        assert!(spellings("ab").is_empty());
    }

    #[test]
    fn passing_secrets_leave_text_while_they_matter() {
        let later = Instant::now() + std::time::Duration::from_secs(60);
        register_until("PQRS-TUVW-XYZ2", later);
        assert_eq!(
            scrub_registered("code pqrs-tuvw-xyz2 typed"),
            "code [REDACTED] typed"
        );
        register_until("GONE-SOON", Instant::now());
        register_until("NEXT-ONE", later);
        let passing = PASSING.read().unwrap();
        assert!(!passing.iter().any(|(spelling, _)| spelling == "GONE-SOON"));
    }

    #[test]
    fn registered_secrets_leave_log_lines() {
        register("tok_registered_1234");
        let mut buffer = RedactingStderr.make_writer();
        buffer.write_all(b"x").unwrap();
        let logged = LOGGED.read().unwrap();
        assert!(logged.contains(&"TOK_REGISTERED_1234".to_owned()));
        assert_eq!(
            scrub("echo tok_registered_1234!", &logged),
            "echo [REDACTED]!"
        );
    }
}
