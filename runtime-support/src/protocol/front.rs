//! What the HTTP front hands the handler beside the JSON-RPC message: rmcp puts the HTTP
//! request's parts (its headers) in each request's extensions, and the front adds the
//! arguments of a plain `tools/call` it already parsed.

use std::sync::{Arc, Mutex};

use http::HeaderMap;
use http::request::Parts;
use rmcp::RoleServer;
use rmcp::model::{JsonObject, ProtocolVersion};
use rmcp::service::RequestContext;

use crate::call::Principal;
use crate::sync::Unpoisoned as _;

/// The header naming the request's protocol revision.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// The HTTP request's parts, on HTTP.
fn parts(context: &RequestContext<RoleServer>) -> Option<&Parts> {
    context.extensions.get::<Parts>()
}

/// The HTTP request's headers, on HTTP.
pub fn headers(context: &RequestContext<RoleServer>) -> Option<&HeaderMap> {
    parts(context).map(|parts| &parts.headers)
}

/// Whom the request's access token was issued to, behind an authorization server.
pub fn principal(context: &RequestContext<RoleServer>) -> Option<&Principal> {
    parts(context)?.extensions.get::<Principal>()
}

/// The arguments the front parsed and carried past rmcp, once.
pub fn carried_arguments(context: &RequestContext<RoleServer>) -> Option<JsonObject> {
    parts(context)?.extensions.get::<CarriedArguments>()?.take()
}

/// The protocol revision the request declares in `MCP-Protocol-Version`, when it is text.
pub fn declared_revision(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(PROTOCOL_VERSION_HEADER)
        .and_then(|value| value.to_str().ok())
}

/// Whether the request declares protocol revision 2026-07-28 or later, which has no sessions,
/// no handshake and no MCP logging.
pub fn is_stateless_revision(headers: &HeaderMap) -> bool {
    declared_revision(headers)
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The arguments of a plain `tools/call`, parsed here once and carried to the handler in
/// the HTTP request's extensions (rmcp hands the request's parts to the handler), so that
/// rmcp parses a body without them: its parse buffers a message through serde's untagged
/// and flattened enums, at several times the parsed size.
#[derive(Debug, Clone)]
pub struct CarriedArguments(Arc<Mutex<Option<JsonObject>>>);

impl CarriedArguments {
    /// Carries `arguments`.
    #[cfg(feature = "http")]
    pub fn new(arguments: JsonObject) -> Self {
        Self(Arc::new(Mutex::new(Some(arguments))))
    }

    /// The arguments, once.
    pub fn take(&self) -> Option<JsonObject> {
        self.0.locked().take()
    }
}
