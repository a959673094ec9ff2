//! Who a call runs for.

use crate::digest::{credential_id, subject_id};

/// Who is calling: the identity tokens are bound to, and the upstream credential to use.
pub struct Caller {
    /// `sub:<subject>` of an access token, a session id, `cred_<hash>` or `anonymous`; never
    /// a credential.
    pub id: String,
    /// Where the upstream credential comes from.
    pub credential: UpstreamCredential,
    /// Whom the request's access token was issued to, behind an authorization server.
    pub principal: Option<Principal>,
}

impl Caller {
    /// Who owns what this caller starts (executions, safety-loop agents) beyond its session:
    /// the access token's subject behind an authorization server, else the upstream
    /// credential the request brought, else `server`, the operator's one user. Never a
    /// credential itself.
    pub fn owner(&self) -> String {
        match (&self.principal, &self.credential) {
            (Some(principal), _) => subject_id(&principal.subject),
            (None, UpstreamCredential::Request(value)) => credential_id(value),
            (None, _) => "server".to_owned(),
        }
    }
}

/// What a valid access token says of its holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// `sub`.
    pub subject: String,
    /// The scopes it grants.
    pub scopes: Vec<String>,
}

/// The upstream credential of one call. Its `Debug` never shows the value.
pub enum UpstreamCredential {
    /// The server's environment, as the schema names it.
    Server,
    /// The value the request brought.
    Request(String),
    /// The operator requires requests to bring one, and this one did not.
    Missing,
    /// The operator keeps each user's, and has none for this caller.
    NotOnFile,
}

impl std::fmt::Debug for UpstreamCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Server => "Server",
            Self::Request(_) => "Request([REDACTED])",
            Self::Missing => "Missing",
            Self::NotOnFile => "NotOnFile",
        })
    }
}
