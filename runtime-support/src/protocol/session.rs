//! Sessions: one per MCP connection, from a completed `initialize` until the connection ends
//! (SPEC §2.3). The id is made by the server, never taken from the client.
//!
//! A stateless HTTP request (protocol revision 2026-07-28, or `--stateless`) has no session
//! to speak of: the handler lives for that one request. What ties its calls together is
//! the caller, identified by the credential the request carries ([`Session::caller`]).

use std::sync::OnceLock;

use http::HeaderMap;
use http::header::AUTHORIZATION;
use sha2::{Digest, Sha256};

use crate::call::{Caller, Principal, UpstreamCredential};
use crate::digest::{credential_id, hex, random_hex, subject_id};

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

    /// Who is calling, from the request's HTTP `headers` (none on stdio) and the `principal`
    /// its access token names (behind an authorization server), whose subject is then the
    /// caller.
    ///
    /// Tokens go to this session on stdio and on HTTP sessions (`headers` carry
    /// `Mcp-Session-Id`); on stateless HTTP, to a hash of the request's `Authorization` and
    /// `credential_header` values, or to `anonymous` when it has neither. With
    /// `credential_header`, the upstream credential is that header's value (for
    /// `authorization`, what follows the scheme word), and a request without it has none.
    pub fn caller(
        &self,
        headers: Option<&HeaderMap>,
        principal: Option<&Principal>,
        credential_header: Option<&str>,
    ) -> Caller {
        let credential = match credential_header {
            None => UpstreamCredential::Server,
            Some(name) => headers
                .and_then(|headers| headers.get(name))
                .and_then(|value| value.to_str().ok())
                .map(|value| match name {
                    "authorization" => value.split_once(' ').map_or(value, |(_, token)| token),
                    _ => value,
                })
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .map_or(UpstreamCredential::Missing, |value| {
                    UpstreamCredential::Request(value.to_owned())
                }),
        };
        if let Some(principal) = principal {
            return Caller {
                id: subject_id(&principal.subject),
                credential,
                principal: Some(principal.clone()),
            };
        }
        let id = match headers.filter(|headers| !headers.contains_key("mcp-session-id")) {
            // In a session, a request's own credential is part of who calls: holding the
            // session's id is not enough to redeem its tokens with another credential.
            None => match &credential {
                UpstreamCredential::Request(value) => {
                    format!("{}:{}", self.id(), credential_id(value))
                }
                UpstreamCredential::Server
                | UpstreamCredential::Missing
                | UpstreamCredential::NotOnFile => self.id().to_owned(),
            },
            Some(headers) => credentials_id(headers, credential_header),
        };
        Caller {
            id,
            credential,
            principal: None,
        }
    }
}

/// Who an HTTP request comes from, as a name that shows no credential: its access token's
/// subject ([`subject_id`]) behind an authorization server, else the hash of its
/// `Authorization` and `credential_header` values, else `anonymous`.
#[cfg(feature = "http")]
pub fn requester(
    headers: &HeaderMap,
    principal: Option<&Principal>,
    credential_header: Option<&str>,
) -> String {
    match principal {
        Some(principal) => subject_id(&principal.subject),
        None => credentials_id(headers, credential_header),
    }
}

/// The hash of a request's `Authorization` and `credential_header` values, or `anonymous`.
fn credentials_id(headers: &HeaderMap, credential_header: Option<&str>) -> String {
    let mut hasher = Sha256::new();
    let mut any = false;
    let names = [Some(AUTHORIZATION.as_str()), credential_header];
    for name in names.into_iter().flatten() {
        for value in headers.get_all(name) {
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hasher.update(value.as_bytes());
            hasher.update([0]);
            any = true;
        }
    }
    if any {
        format!("cred_{}", hex(&hasher.finalize()[..16]))
    } else {
        "anonymous".to_owned()
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
        let id = |headers: Option<&HeaderMap>| session.caller(headers, None, None).id;
        assert_eq!(id(None), session.id(), "stdio");
        let mut headers = HeaderMap::new();
        headers.insert("mcp-session-id", "abc".parse().expect("header"));
        headers.insert(AUTHORIZATION, "Bearer one".parse().expect("header"));
        assert_eq!(id(Some(&headers)), session.id(), "an HTTP session");

        headers.remove("mcp-session-id");
        let one = id(Some(&headers));
        assert!(one.starts_with("cred_") && !one.contains("one"));
        headers.insert(AUTHORIZATION, "Bearer two".parse().expect("header"));
        assert_ne!(id(Some(&headers)), one);
        headers.remove(AUTHORIZATION);
        assert_eq!(id(Some(&headers)), "anonymous");
    }

    #[test]
    fn requests_bring_credentials_only_when_asked() {
        let session = Session::default();
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, "Bearer ghp_one".parse().expect("header"));
        headers.insert("x-upstream-key", " k2 ".parse().expect("header"));
        let credential = |name| session.caller(Some(&headers), None, name).credential;
        assert!(matches!(credential(None), UpstreamCredential::Server));
        assert!(
            matches!(credential(Some("authorization")), UpstreamCredential::Request(v) if v == "ghp_one")
        );
        assert!(
            matches!(credential(Some("x-upstream-key")), UpstreamCredential::Request(v) if v == "k2")
        );
        assert!(matches!(
            credential(Some("x-other")),
            UpstreamCredential::Missing
        ));
        assert_eq!(
            format!("{:?}", credential(Some("authorization"))),
            "Request([REDACTED])"
        );
        let by_key = session
            .caller(Some(&headers), None, Some("x-upstream-key"))
            .id;
        assert_ne!(
            by_key,
            session.caller(Some(&headers), None, None).id,
            "the key is part of who calls"
        );
    }

    #[test]
    fn an_access_token_s_subject_is_the_caller() {
        let session = Session::default();
        let principal = Principal {
            subject: "alice".to_owned(),
            scopes: vec!["todo.read".to_owned()],
        };
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, "Bearer eyJ.token".parse().expect("header"));
        let caller = session.caller(Some(&headers), Some(&principal), None);
        assert_eq!(caller.id, subject_id("alice"));
        assert!(caller.id.starts_with("sub_") && !caller.id.contains("alice"));
        assert!(matches!(caller.credential, UpstreamCredential::Server));
        assert_eq!(caller.principal, Some(principal));
    }

    #[test]
    fn subjects_are_callers_by_all_their_characters() {
        let long = "https://issuer.example.com/users/".repeat(8);
        let (a, b) = (format!("{long}a"), format!("{long}b"));
        assert_ne!(
            subject_id(&a),
            subject_id(&b),
            "a shared prefix is not one caller"
        );
    }

    #[cfg(feature = "http")]
    #[test]
    fn every_credential_value_counts() {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, "Bearer one".parse().expect("header"));
        let one = requester(&headers, None, None);
        headers.append(AUTHORIZATION, "Bearer two".parse().expect("header"));
        assert_ne!(requester(&headers, None, None), one, "every value counts");
    }
}
