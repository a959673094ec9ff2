//! The MCP server: an rmcp [`ServerHandler`] generic over a generated [`Adapter`].
//!
//! `tools/call` follows the request flow of SPEC §3.2: parse the envelope, find the
//! operation, check it belongs to the tool it was sent to, check payload limits and encoding,
//! enforce confirmation, parse the params with the generated parser, call the upstream.

use std::marker::PhantomData;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation,
    InitializeRequestParams, InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Map;

use crate::adapter::{Adapter, Category, Route};
use crate::config::Config;
use crate::confirm::{Confirmations, TOKEN_PARAM};
use crate::envelope::{Envelope, check_payload};
use crate::error::{AqlError, ErrorCode};
use crate::introspect::{Catalog, INTROSPECT};
use crate::result;
use crate::session::Session;
use crate::tools::{Surface, ToolSet, base_name};
use crate::upstream::{Upstream, UpstreamConfig};

/// Everything a server builds once and shares between connections.
pub struct Shared<A: Adapter> {
    config: Config,
    tools: ToolSet,
    catalog: Catalog,
    upstream: Upstream,
    instructions: String,
    adapter: PhantomData<fn() -> A>,
}

impl<A: Adapter> Shared<A> {
    /// Builds the tool list, the introspection answers and the upstream client.
    ///
    /// # Errors
    ///
    /// When the upstream client cannot be built (e.g. a malformed base URL override).
    pub fn new(config: Config) -> Result<Self, AqlError> {
        let tools = ToolSet::new::<A>(config.mode, &config.tool_prefix);
        let catalog = Catalog::new::<A>(&config, &tools);
        let upstream = Upstream::new(
            A::INFO,
            UpstreamConfig {
                max_response_bytes: config.limits.max_response_size,
                ..UpstreamConfig::default()
            },
        )?;
        let instructions = format!(
            "MCP-AQL adapter for the {} API. Start with operation 'introspect' (params {{\"query\": \"operations\"}}) on tool '{}' to discover every operation.",
            A::INFO.name,
            tools.tool_for(Category::Read)
        );
        Ok(Self {
            config,
            tools,
            catalog,
            upstream,
            instructions,
            adapter: PhantomData,
        })
    }

    /// The resolved configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }
}

/// The handler of one MCP connection. Its session state dies with it.
pub struct AqlServer<A: Adapter> {
    shared: Arc<Shared<A>>,
    session: Session,
    confirmations: Confirmations,
}

impl<A: Adapter> AqlServer<A> {
    /// A handler for a new connection.
    pub fn new(shared: Arc<Shared<A>>) -> Self {
        Self {
            shared,
            session: Session::default(),
            confirmations: Confirmations::default(),
        }
    }

    /// Runs one `tools/call` against `surface` and returns the MCP-AQL answer.
    pub async fn call(&self, surface: Surface, arguments: Option<JsonObject>) -> CallToolResult {
        let shared = &*self.shared;
        let arguments = arguments.unwrap_or_default();
        // One walk over the raw arguments; its verdict is reported in flow order below.
        let payload = check_payload(&arguments, &shared.config.limits);
        let envelope = match Envelope::parse(Some(arguments)) {
            Ok(envelope) => envelope,
            Err(error) => return self.fail(None, &error),
        };
        let operation = envelope.operation.as_str();
        let target = if operation == INTROSPECT {
            Target::Introspect
        } else {
            match A::route(operation) {
                Some(route) => Target::Route(route),
                None => return self.fail(Some(operation), &self.not_found(operation)),
            }
        };
        let category = match target {
            Target::Introspect => Category::Read,
            Target::Route(route) => route.category,
        };
        if let Surface::Family(family) = surface
            && family != category
        {
            let error = self.mismatch(operation, category, surface);
            return self.fail_for(&target, operation, &error);
        }
        if let Err(error) = payload {
            return self.fail_for(&target, operation, &error);
        }
        match target {
            Target::Introspect => {
                match shared.catalog.answer(&envelope.params, self.session.id()) {
                    Ok(data) => result::success_raw(&data),
                    Err(error) => self.fail_for(&target, operation, &error),
                }
            }
            Target::Route(route) => match self.run_route(route, envelope.params).await {
                Ok(data) => result::success_raw(&data),
                Err(error) => self.fail(Some(operation), &error),
            },
        }
    }

    async fn run_route(
        &self,
        route: &'static Route,
        mut params: Map<String, serde_json::Value>,
    ) -> Result<String, AqlError> {
        if route.requires_confirmation {
            let token = params.remove(TOKEN_PARAM);
            // Parse first so a confirmation is only ever issued for a valid request.
            let request = (route.build)(&params)?;
            self.confirmations
                .check(route, &params, token, self.session.id())?;
            tracing::info!(
                session = self.session.id(),
                operation = route.operation,
                danger_level = route.danger_level.as_str(),
                "confirmed operation runs"
            );
            return self.shared.upstream.send(request).await;
        }
        let request = (route.build)(&params)?;
        self.shared.upstream.send(request).await
    }

    fn not_found(&self, operation: &str) -> AqlError {
        let suggestions = closest(operation, self.shared.catalog.operation_names());
        let mut message = format!("Unknown operation: '{operation}'.");
        if !suggestions.is_empty() {
            let quoted: Vec<String> = suggestions.iter().map(|s| format!("'{s}'")).collect();
            message.push_str(&format!(" Did you mean {}?", quoted.join(", ")));
        }
        message.push_str(" Call 'introspect' with query 'operations' to list every operation.");
        AqlError::new(ErrorCode::NotFoundOperation, message)
            .with_detail("operation", operation)
            .with_detail("suggestions", suggestions)
    }

    fn mismatch(&self, operation: &str, category: Category, surface: Surface) -> AqlError {
        let expected = self.shared.tools.tool_for(category);
        let received = self.shared.tools.name(surface);
        AqlError::new(
            ErrorCode::ValidationEndpointMismatch,
            format!(
                "Operation '{operation}' is a {} operation: call it through tool '{expected}', not '{received}'",
                category.semantic_name()
            ),
        )
        .with_detail("operation", operation)
        .with_detail("semantic_category", category.semantic_name())
        .with_detail("expected_tool", expected)
        .with_detail("received_tool", received)
    }

    fn fail_for(&self, target: &Target, operation: &str, error: &AqlError) -> CallToolResult {
        match target {
            Target::Introspect => {
                self.log_failure(Some(operation), error);
                result::introspection_failure(error)
            }
            Target::Route(_) => self.fail(Some(operation), error),
        }
    }

    fn fail(&self, operation: Option<&str>, error: &AqlError) -> CallToolResult {
        self.log_failure(operation, error);
        result::failure_in_session(error, Some(self.session.id()))
    }

    fn log_failure(&self, operation: Option<&str>, error: &AqlError) {
        tracing::debug!(
            session = self.session.id(),
            operation = operation.unwrap_or(""),
            code = error.code.as_str(),
            message = %error.message,
            "operation failed"
        );
    }
}

enum Target {
    Introspect,
    Route(&'static Route),
}

/// Up to three known names closest to `name`: by edit distance, or containing it.
fn closest(name: &str, known: impl Iterator<Item = &'static str>) -> Vec<&'static str> {
    let limit = (name.len() / 3).max(2);
    let mut scored: Vec<(usize, &'static str)> = known
        .filter_map(|candidate| {
            let distance = edit_distance(name, candidate);
            if distance <= limit || candidate.contains(name) || name.contains(candidate) {
                Some((distance, candidate))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, name)| name).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

impl<A: Adapter> ServerHandler for AqlServer<A> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(A::INFO.name, A::INFO.version))
            .with_instructions(self.shared.instructions.clone())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        let session = self.session.start();
        tracing::info!(
            session,
            client = %request.client_info.name,
            client_version = %request.client_info.version,
            "session started"
        );
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            self.shared.tools.tools().cloned().collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(surface) = self.shared.tools.surface(&request.name) else {
            return Err(McpError::invalid_params(
                format!(
                    "Unknown tool '{}'. Registered tools: {}",
                    request.name,
                    self.shared.tools.names().join(", ")
                ),
                None,
            ));
        };
        tracing::debug!(
            session = self.session.id(),
            tool = base_name(surface),
            "tools/call"
        );
        Ok(self.call(surface, request.arguments).await.into())
    }
}

impl<A: Adapter> Drop for AqlServer<A> {
    fn drop(&mut self) {
        tracing::info!(session = self.session.id(), "session ended");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_names_by_distance_and_containment() {
        let known = ["get_repo", "list_repos", "get_issue", "introspect"];
        assert_eq!(closest("get_rpo", known.into_iter()), vec!["get_repo"]);
        assert_eq!(closest("repos", known.into_iter()), vec!["list_repos"]);
        assert!(closest("zzzzzzzzzz", known.into_iter()).is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
