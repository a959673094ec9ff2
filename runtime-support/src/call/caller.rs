//! Who a call runs for.

/// Who is calling: the identity tokens are bound to, and the upstream credential to use.
pub struct Caller {
    /// A session id, `cred_<hash>` or `anonymous`; never a credential.
    pub id: String,
    /// Where the upstream credential comes from.
    pub credential: UpstreamCredential,
}

/// The upstream credential of one call. Its `Debug` never shows the value.
pub enum UpstreamCredential {
    /// The server's environment, as the schema names it.
    Server,
    /// The value the request brought.
    Request(String),
    /// The operator requires requests to bring one, and this one did not.
    Missing,
}

impl std::fmt::Debug for UpstreamCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Server => "Server",
            Self::Request(_) => "Request([REDACTED])",
            Self::Missing => "Missing",
        })
    }
}
