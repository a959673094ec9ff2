//! Sessions: one per MCP connection, from a completed `initialize` until the connection ends
//! (SPEC §2.3). The id is made by the server, never taken from the client.
//!
//! A stateless HTTP request (protocol revision 2026-07-28, or `--stateless`) has no session
//! to speak of: the handler lives for that one request. What ties its calls together is
//! the caller, identified by the credential the request carries ([`Session::caller`]).

use std::sync::OnceLock;

use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use sha2::{Digest, Sha256};

/// `len` random bytes from the operating system's CSPRNG, as lowercase hex.
pub fn random_hex(len: usize) -> Option<String> {
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes).ok()?;
    let mut text = String::with_capacity(len * 2);
    for byte in bytes {
        text.push_str(&format!("{byte:02x}"));
    }
    Some(text)
}

/// The state of one connection. Dropped with the connection's handler, which takes every
/// session-scoped value with it.
#[derive(Debug, Default)]
pub struct Session {
    id: OnceLock<String>,
}

impl Session {
    /// Gives the session its id (128 random bits, `sess_<hex>`), once; later calls keep the
    /// first id.
    pub fn start(&self) -> &str {
        self.id
            .get_or_init(|| format!("sess_{}", random_hex(16).unwrap_or_else(fallback_hex)))
    }

    /// The session id; a session used before `initialize` completed gets one on first use.
    pub fn id(&self) -> &str {
        self.start()
    }

    /// Who tokens are issued to and redeemed by: this session on stdio and on HTTP sessions
    /// (`headers` carry `Mcp-Session-Id`); on stateless HTTP, a hash of the request's
    /// `Authorization` header, or `anonymous` when it has none. The credential itself is
    /// never kept.
    pub fn caller(&self, headers: Option<&HeaderMap>) -> String {
        let Some(headers) = headers.filter(|headers| !headers.contains_key("mcp-session-id"))
        else {
            return self.id().to_owned();
        };
        match headers.get(AUTHORIZATION) {
            Some(credential) => {
                let digest = Sha256::digest(credential.as_bytes());
                let mut caller = String::from("cred_");
                for byte in &digest[..16] {
                    caller.push_str(&format!("{byte:02x}"));
                }
                caller
            }
            None => "anonymous".to_owned(),
        }
    }
}

/// Used only if the operating system refuses randomness: unique within the process, and the
/// session id is a label, never a secret.
fn fallback_hex() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{nanos:x}{:x}", NEXT.fetch_add(1, Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_random_and_stable_per_session() {
        let a = Session::default();
        let b = Session::default();
        assert_eq!(a.start().len(), "sess_".len() + 32);
        assert_eq!(a.start(), a.id());
        assert_ne!(a.id(), b.id());
    }

    #[test]
    fn callers_are_sessions_or_credentials() {
        let session = Session::default();
        assert_eq!(session.caller(None), session.id(), "stdio");
        let mut headers = HeaderMap::new();
        headers.insert("mcp-session-id", "abc".parse().expect("header"));
        headers.insert(AUTHORIZATION, "Bearer one".parse().expect("header"));
        assert_eq!(
            session.caller(Some(&headers)),
            session.id(),
            "an HTTP session"
        );

        headers.remove("mcp-session-id");
        let one = session.caller(Some(&headers));
        assert!(one.starts_with("cred_") && !one.contains("one"));
        headers.insert(AUTHORIZATION, "Bearer two".parse().expect("header"));
        assert_ne!(session.caller(Some(&headers)), one);
        headers.remove(AUTHORIZATION);
        assert_eq!(session.caller(Some(&headers)), "anonymous");
    }
}
