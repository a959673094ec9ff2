//! The MCP server: an rmcp [`ServerHandler`] generic over a generated [`Adapter`].
//!
//! `tools/call` follows the request flow of SPEC §3.2: parse the envelope, find the
//! operation, check it belongs to the tool it was sent to, check payload limits and encoding,
//! then answer `introspect` or hand the operation to the call line ([`Line`]), which parses
//! its params, passes the safety gate and calls the upstream.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Instant;

#[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); see `notify`
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, GetTaskParams,
    GetTaskResult, Implementation, InitializeRequestParams, InitializeResult, JsonObject,
    ListToolsResult, NumberOrString, PaginatedRequestParams, ProgressToken, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use aqlgen_model::QUERY_RELATIONSHIPS;

use crate::adapter::{Adapter, Category, ExecutionOperation, Graph, Route};
use crate::call::executions::{Read, execution_category};
use crate::call::gate::Policy;
use crate::call::gate::limits::LimitConfig;
use crate::call::metrics::{CallOutcome, Metrics, UNKNOWN_OPERATION};
use crate::call::safety_loop::LoopOp;
use crate::call::users::UserCredentials;
use crate::call::{Caller, UpstreamCredential};
use crate::call::{Context, Data, Line, Retry, trace};
use crate::config::Config;
use crate::error::{AqlError, ErrorCode};
use crate::protocol::batch;
use crate::protocol::envelope::{Envelope, check_payload};
use crate::protocol::front;
use crate::protocol::introspect::{Catalog, INTROSPECT};
use crate::protocol::notify::{Listener, Progress, SessionLog};
use crate::protocol::person::{self, Person};
use crate::protocol::result::{self, Outcome};
use crate::protocol::scopes;
use crate::protocol::session::Session;
use crate::protocol::tasks::{self, TaskSlot};
use crate::protocol::tools::{Surface, ToolSet, base_name};
use crate::state::Store;
use crate::text::shorten;

/// Everything a server builds once and shares between connections.
pub struct Shared<A: Adapter> {
    config: Config,
    line: Line,
    tools: ToolSet,
    catalog: Catalog,
    metrics: Arc<Metrics>,
    instructions: String,
    /// Each user's upstream credential, when the operator keeps them.
    users: Option<UserCredentials>,
    adapter: PhantomData<fn() -> A>,
}

/// What the server tells a client at initialization: the API (or the APIs of a bundle) and
/// where discovery starts.
fn instructions<A: Adapter>(read_tool: &str) -> String {
    let start = format!(
        "Start with operation 'introspect' (params {{\"query\": \"operations\"}}) on tool '{read_tool}' to discover every operation."
    );
    match A::MEMBERS {
        [only] => format!("MCP-AQL adapter for the {} API. {start}", only.name),
        members => {
            let names: Vec<&str> = members.iter().map(|member| member.name).collect();
            format!(
                "MCP-AQL bundle '{}' of the {} APIs: each operation is named '<adapter>__<operation>'. {start} Narrow the list to one API with params {{\"query\": \"operations\", \"adapter\": \"<adapter>\"}}.",
                A::SERVER.name,
                names.join(", ")
            )
        }
    }
}

impl<A: Adapter> Shared<A> {
    /// Builds the request line (gate, upstream client, cursors) on `store`, the tool list
    /// and the introspection answers.
    ///
    /// # Errors
    ///
    /// When the request line cannot be built (see [`Line::new`]).
    pub async fn new(config: Config, store: Arc<Store>) -> Result<Self, AqlError> {
        let metrics = Arc::new(Metrics::default());
        let line = Line::new(
            A::SERVER,
            A::MEMBERS,
            A::ROUTES,
            A::route,
            &config,
            store,
            metrics.clone(),
        )
        .await?;
        let gate = line.gate();
        let tools = ToolSet::new::<A>(
            config.mode,
            &config.tool_prefix,
            gate,
            config
                .tool_schema
                .input_schema(config.limits.max_batch_size),
        );
        let catalog = Catalog::new::<A>(&config, &tools, gate, line.safety_loop());
        let instructions = instructions::<A>(&tools.tool_for(Category::Read));
        let users = config
            .resource
            .as_ref()
            .and_then(|resource| resource.user_credentials.as_deref())
            .map(UserCredentials::open)
            .transpose()
            .map_err(|message| AqlError::new(ErrorCode::InternalError, message))?;
        Ok(Self {
            config,
            line,
            tools,
            catalog,
            metrics,
            instructions,
            users,
            adapter: PhantomData,
        })
    }

    /// The resolved configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The gate's policy in force for adapter `member` ([`Route::member`]).
    pub fn policy(&self, member: usize) -> &Policy {
        self.line.gate().policy(member)
    }

    /// The rate limits and quotas in force for adapter `member`.
    pub fn limits(&self, member: usize) -> &LimitConfig {
        self.line.gate().limiter(member).config()
    }

    /// The base URL upstream requests of adapter `member` go to.
    pub fn base_url(&self, member: usize) -> &str {
        self.line.base_url(member)
    }

    /// Where tokens and counters are kept.
    #[cfg(feature = "http")]
    pub fn store(&self) -> &Store {
        self.line.store()
    }

    /// This instance's calls, upstream answers and gate decisions, counted.
    #[cfg(feature = "metrics")]
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }
}

/// The handler of one MCP connection (or of one stateless HTTP request). What outlives it
/// (tokens, counters, quota continuations) lives in the shared store.
pub struct AqlServer<A: Adapter> {
    shared: Arc<Shared<A>>,
    session: Session,
    log: SessionLog,
}

impl<A: Adapter> AqlServer<A> {
    /// A handler for a new connection.
    pub fn new(shared: Arc<Shared<A>>) -> Self {
        Self {
            shared,
            session: Session::default(),
            log: SessionLog::default(),
        }
    }

    /// Who calls with the request of `context` ([`Session::caller`]), with the upstream
    /// credential the operator keeps for them when it keeps one per user.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Caller {
        let mut caller = self.session.caller(
            front::headers(context),
            front::principal(context),
            self.shared.config.credential_header.as_deref(),
        );
        if let (Some(users), Some(principal)) = (&self.shared.users, &caller.principal) {
            caller.credential = users
                .credential(&principal.subject)
                .map_or(UpstreamCredential::NotOnFile, UpstreamCredential::Request);
        }
        caller
    }

    /// The scopes `caller`'s access token lacks for `operation`; none without an
    /// authorization server.
    fn missing_scopes(&self, caller: &Caller, operation: &str) -> Vec<&str> {
        match (&self.shared.config.resource, &caller.principal) {
            (Some(resource), Some(principal)) => {
                scopes::missing(&resource.scopes, operation, A::route, principal)
            }
            _ => Vec::new(),
        }
    }

    /// Runs one `tools/call` against `surface` and returns the MCP-AQL answer: one
    /// operation, or a batch when the arguments hold `operations`. Tokens are issued to and
    /// redeemed by `caller` ([`Session::caller`]), whose upstream credential the call sends;
    /// `call` says where progress goes and how the client's user is asked to confirm.
    pub async fn call(
        &self,
        surface: Surface,
        arguments: Option<JsonObject>,
        caller: &Caller,
        call: Reached<'_>,
    ) -> CallToolResult {
        let arguments = match self
            .shared
            .config
            .tool_schema
            .normalize(arguments.unwrap_or_default())
        {
            Ok(arguments) => arguments,
            Err(error) => return result::failure_in_session(&error, Some(self.session.id())),
        };
        // One walk over the raw arguments; its verdict is reported in flow order below.
        let payload = check_payload(&arguments, &self.shared.config.limits);
        if batch::is_batch(&arguments) {
            return self
                .call_batch(surface, arguments, payload, caller, call)
                .await;
        }
        match self
            .call_one(surface, arguments, payload, caller, call, false)
            .await
        {
            Outcome::Success { data, warnings } => result::success_with_warnings(data, &warnings),
            Outcome::Failure {
                error,
                introspect: true,
            } => result::bare_failure(&error),
            Outcome::Failure { error, .. } => {
                result::failure_in_session(&error, Some(self.session.id()))
            }
        }
    }

    /// One operation (alone, or an item of a batch), counted in the metrics under its name and
    /// outcome.
    async fn call_one(
        &self,
        surface: Surface,
        arguments: JsonObject,
        payload: Result<(), AqlError>,
        caller: &Caller,
        call: Reached<'_>,
        in_batch: bool,
    ) -> Outcome {
        let started = Instant::now();
        let (operation, outcome) = self
            .operate(surface, arguments, payload, caller, call, in_batch)
            .await;
        let counted = match &outcome {
            Outcome::Success { .. } => CallOutcome::Success,
            Outcome::Failure { error, .. } => CallOutcome::Failed(error.code),
        };
        self.shared
            .metrics
            .call(operation, counted, started.elapsed());
        outcome
    }

    /// One operation, from its arguments to its outcome (SPEC §3.2): envelope, routing,
    /// endpoint check, payload limits, then `introspect` or the operation itself. Also the
    /// name the metrics count it under.
    async fn operate(
        &self,
        surface: Surface,
        arguments: JsonObject,
        payload: Result<(), AqlError>,
        caller: &Caller,
        call: Reached<'_>,
        in_batch: bool,
    ) -> (&'static str, Outcome) {
        let shared = &*self.shared;
        let envelope = match Envelope::parse(Some(arguments)) {
            Ok(envelope) => envelope,
            Err(error) => return (UNKNOWN_OPERATION, self.failed(None, false, error)),
        };
        let operation = envelope.operation.as_str();
        let target = if operation == INTROSPECT {
            Target::Introspect
        } else if let Some(op) = LoopOp::parse(operation).filter(|_| shared.line.loop_on()) {
            Target::Loop(op)
        } else if let Some(op) =
            ExecutionOperation::parse(operation).filter(|_| shared.line.has_executions())
        {
            Target::Execution(op)
        } else if let Some(graph) = A::GRAPH.filter(|_| operation == QUERY_RELATIONSHIPS) {
            Target::Graph(graph)
        } else if let Some(route) = A::route(operation) {
            Target::Route(route)
        } else {
            let error = self.not_found(operation);
            return (
                UNKNOWN_OPERATION,
                self.failed(Some(operation), false, error),
            );
        };
        let (name, category) = match target {
            Target::Introspect => (INTROSPECT, Category::Read),
            Target::Loop(op) => (op.name(), op.category()),
            Target::Execution(op) => (op.as_str(), execution_category(op)),
            Target::Graph(_) => (QUERY_RELATIONSHIPS, Category::Read),
            Target::Route(route) => (route.operation, route.category),
        };
        let introspect = matches!(target, Target::Introspect);
        if let Surface::Family(family) = surface
            && family != category
        {
            let error = self.mismatch(operation, category, surface);
            return (name, self.failed(Some(operation), introspect, error));
        }
        if let Err(error) = payload {
            return (name, self.failed(Some(operation), introspect, error));
        }
        let missing = self.missing_scopes(caller, operation);
        if !missing.is_empty() {
            let error = scopes::refusal(operation, &missing);
            return (name, self.failed(Some(operation), introspect, error));
        }
        let listener = Listener {
            log: &self.log,
            progress: call.progress,
            person: call.person,
            in_batch,
            task: call.task,
            cancel: call.cancel,
        };
        let context = Context {
            caller,
            session: self.session.id(),
            observer: &listener,
            retry: call.retry.filter(|_| !in_batch),
            trace: call.trace,
        };
        let answer = match target {
            Target::Introspect => shared
                .catalog
                .answer(
                    &envelope.params,
                    self.session.id(),
                    shared.line.gate(),
                    &|operation| self.missing_scopes(caller, operation).is_empty(),
                )
                .await
                .map(|data| (Data::Text(data), Vec::new())),
            Target::Loop(op) => shared
                .line
                .run_loop(op, &envelope.params, &context)
                .await
                .map(|data| (Data::Value(data), Vec::new())),
            Target::Execution(op) => shared
                .line
                .run_execution(op, &envelope.params, &context)
                .await
                .map(|data| (Data::Value(data), Vec::new())),
            Target::Graph(graph) => shared
                .line
                .run_graph(graph, A::route, &envelope.params, &context)
                .await
                .map(|(data, warnings)| (Data::Value(data), warnings)),
            Target::Route(route) => {
                shared
                    .line
                    .run(route, envelope.params, envelope.quota_continue, &context)
                    .await
            }
        };
        let outcome = match answer {
            Ok((data, warnings)) => Outcome::Success { data, warnings },
            Err(error) => self.failed(Some(operation), introspect, error),
        };
        (name, outcome)
    }

    /// A batch (operations §7): each item runs as [`Self::call_one`] would run it alone, in
    /// order, until one needs confirmation; the items after it are handed back unrun.
    async fn call_batch(
        &self,
        surface: Surface,
        arguments: JsonObject,
        payload: Result<(), AqlError>,
        caller: &Caller,
        call: Reached<'_>,
    ) -> CallToolResult {
        let limits = &self.shared.config.limits;
        let items = match payload.and_then(|()| batch::items(arguments, limits.max_batch_size)) {
            Ok(items) => items,
            Err(error) => {
                self.log_failure(None, &error);
                return result::bare_failure(&error);
            }
        };
        let mut report = batch::Report::new(items.len());
        let mut items = items.into_iter().enumerate();
        while let Some((index, item)) = items.next() {
            let operation = batch::operation_name(&item);
            let outcome = match item {
                _ if report.is_full(limits.max_response_size) => {
                    let error =
                        batch::too_large_to_run(limits.max_response_size, report.data_bytes());
                    self.failed(Some(&operation), false, error)
                }
                Ok(item) => {
                    self.call_one(surface, item, Ok(()), caller, call, true)
                        .await
                }
                Err(error) => self.failed(None, false, error),
            };
            if report.record(index, operation, outcome, Some(self.session.id())) {
                report.halt(items.by_ref());
                break;
            }
        }
        result::batch_success(report.finish())
    }

    /// The observer of a request that is not a tool call (`tasks/*`): no progress, no
    /// person to ask, no task to start.
    fn quiet_listener<'a>(&'a self, person: &'a Person, task: &'a TaskSlot) -> Listener<'a> {
        Listener {
            log: &self.log,
            progress: None,
            person,
            in_batch: false,
            task,
            cancel: None,
        }
    }

    fn not_found(&self, operation: &str) -> AqlError {
        // Suggestions cost time in the product of the lengths: only for names of sane length.
        let suggestions = if operation.len() <= MAX_SUGGESTED_NAME {
            closest(operation, self.shared.catalog.operation_names())
        } else {
            Vec::new()
        };
        let shown = shorten(operation, MAX_ECHOED_NAME);
        let operation: &str = &shown;
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

    /// Logs a failure and returns it as an outcome.
    fn failed(&self, operation: Option<&str>, introspect: bool, error: AqlError) -> Outcome {
        self.log_failure(operation, &error);
        Outcome::Failure { error, introspect }
    }

    fn log_failure(&self, operation: Option<&str>, error: &AqlError) {
        tracing::debug!(
            session = self.session.id(),
            operation = operation.unwrap_or(""),
            code = error.code.as_str(),
            message = %error.message,
            "operation failed"
        );
        self.log
            .debug(json!({"event": "failed", "operation": operation, "code": error.code.as_str()}));
    }
}

/// What an operation name leads to.
#[derive(Clone, Copy)]
enum Target {
    /// `introspect`, answered from the catalog.
    Introspect,
    /// A reserved operation of the execution safety loop, when it is on.
    Loop(LoopOp),
    /// `get_execution` or `cancel_execution`, when the adapter has long-running operations.
    Execution(ExecutionOperation),
    /// `query_relationships`, when the adapter declares relationships.
    Graph(&'static Graph),
    /// An operation of the adapter.
    Route(&'static Route),
}

/// How one `tools/call` reaches its client beyond the answer: progress, the person, and what
/// a stateless retry brought back.
#[derive(Clone, Copy)]
pub struct Reached<'a> {
    /// Where progress goes, when the client asked for it.
    pub progress: Option<&'a Progress>,
    /// How the person at the client is asked to confirm.
    pub person: &'a Person,
    /// The `requestState` and `inputResponses` of a retry.
    pub retry: Option<&'a Retry>,
    /// Whether the call may answer with a task (MCP Tasks), and the task it answered with.
    pub task: &'a TaskSlot,
    /// Cancelled when the client cancels the call.
    pub cancel: Option<&'a CancellationToken>,
    /// The trace the client's call belongs to.
    pub trace: Option<&'a trace::Parent>,
}

/// The W3C trace context of a call: in the request's `_meta`, or, as for the progress
/// token, in the operation object's own.
fn trace_parent(meta: &JsonObject, arguments: Option<&JsonObject>) -> Option<trace::Parent> {
    let carried = arguments
        .and_then(|arguments| arguments.get("_meta"))
        .and_then(serde_json::Value::as_object);
    [Some(meta), carried]
        .into_iter()
        .flatten()
        .find_map(|meta| {
            let traceparent = meta.get(trace::TRACEPARENT)?.as_str()?;
            let tracestate = meta
                .get(trace::TRACESTATE)
                .and_then(serde_json::Value::as_str);
            trace::Parent::parse(traceparent, tracestate)
        })
}

/// A `_meta.progressToken` in the operation object itself.
fn carried_progress_token(arguments: &JsonObject) -> Option<ProgressToken> {
    let token = arguments.get("_meta")?.get("progressToken")?;
    match token {
        serde_json::Value::String(text) => {
            Some(ProgressToken(NumberOrString::String(text.as_str().into())))
        }
        serde_json::Value::Number(number) => number
            .as_i64()
            .map(|number| ProgressToken(NumberOrString::Number(number))),
        _ => None,
    }
}

/// See [`AqlServer::supported_protocol_versions`].
pub const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// Longest unknown operation name that gets suggestions.
const MAX_SUGGESTED_NAME: usize = 128;
/// Longest unknown operation name echoed whole in an answer.
const MAX_ECHOED_NAME: usize = 80;

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
    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); see `notify`
    fn get_info(&self) -> ServerConfig {
        let builder = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging();
        // Long-running executions are offered as tasks to clients that take them.
        let capabilities = if self.shared.line.has_executions() {
            builder.enable_tasks().build()
        } else {
            builder.build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(A::SERVER.name, A::SERVER.version))
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
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // Every tool is on the first page, which names no next cursor: any cursor is one
        // this server never gave.
        if let Some(cursor) = request.and_then(|request| request.cursor) {
            return Err(McpError::invalid_params(
                format!(
                    "Invalid params: unknown cursor '{}'; tools/list answers every tool on its first page",
                    shorten(&cursor, MAX_ECHOED_NAME)
                ),
                None,
            ));
        }
        Ok(ListToolsResult::with_all_items(
            self.shared.tools.tools().cloned().collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(surface) = self.shared.tools.surface(&request.name) else {
            return Err(McpError::invalid_params(
                format!(
                    "Unknown tool '{}'. Registered tools: {}",
                    shorten(&request.name, MAX_ECHOED_NAME),
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
        let retry = person::retry_of(&request);
        let arguments = request
            .arguments
            .or_else(|| front::carried_arguments(&context));
        // MCP carries the token in the request's `_meta`; the MCP-AQL documents show it in the
        // operation object's (mcp-integration §5.2): both are honoured.
        let token = context
            .meta
            .get_progress_token()
            .or_else(|| arguments.as_ref().and_then(carried_progress_token));
        let progress = token.map(|token| Progress {
            peer: context.peer.clone(),
            token,
        });
        let caller = self.caller(&context);
        let person = Person::of(
            &context,
            self.shared.config.stateless,
            self.shared.config.safety.confirm.answer_timeout,
        );
        let task = TaskSlot::of(&context, self.shared.line.has_executions());
        let trace = trace_parent(&context.meta, arguments.as_ref());
        let call = Reached {
            progress: progress.as_ref(),
            person: &person,
            retry: retry.as_ref(),
            task: &task,
            cancel: Some(&context.ct),
            trace: trace.as_ref(),
        };
        let result = self.call(surface, arguments, &caller, call).await;
        self.log.flush(&context.peer).await;
        Ok(match (person.input_required(), task.created()) {
            (Some(question), _) => CallToolResponse::InputRequired(question),
            (None, Some(created)) => CallToolResponse::Task(created),
            (None, None) => result.into(),
        })
    }

    /// The revisions served: 2025-06-18 and 2025-11-25 sessions, 2026-07-28 stateless
    /// requests. Not 2024-11-05 or 2025-03-26, whose clients may send JSON-RPC batches, which
    /// the intake refuses: a client asking for them is offered 2025-11-25 instead.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_VERSIONS)
    }

    /// `tasks/get`: an execution's task, its state read again from the upstream.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        let caller = self.caller(&context);
        let (person, task) = (Person::Unreachable, TaskSlot::default());
        let listener = self.quiet_listener(&person, &task);
        let call = Context {
            caller: &caller,
            session: self.session.id(),
            observer: &listener,
            retry: None,
            trace: None,
        };
        let id = &request.task_id;
        match self.shared.line.execution(id, &call, Read::WhenDue).await {
            Ok((record, lifecycle)) => {
                Ok(GetTaskResult::new(tasks::detailed(id, &record, lifecycle)))
            }
            Err(error) => Err(McpError::invalid_params(error.message, None)),
        }
    }

    /// `tasks/cancel`: cancels the execution upstream, through the gate.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let caller = self.caller(&context);
        let (person, task) = (Person::Unreachable, TaskSlot::default());
        let listener = self.quiet_listener(&person, &task);
        let call = Context {
            caller: &caller,
            session: self.session.id(),
            observer: &listener,
            retry: None,
            trace: None,
        };
        let mut params = JsonObject::new();
        params.insert("execution_id".to_owned(), request.task_id.into());
        self.shared
            .line
            .run_execution(ExecutionOperation::CancelExecution, &params, &call)
            .await
            .map(drop)
            .map_err(|error| McpError::invalid_params(error.message, None))
    }

    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); see `notify`
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Protocol revision 2026-07-28 has no MCP logging.
        let stateless_revision = front::headers(&context).is_some_and(front::is_stateless_revision);
        if stateless_revision {
            return Err(McpError::method_not_found::<
                rmcp::model::SetLevelRequestMethod,
            >());
        }
        self.log.set_level(&request);
        Ok(())
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
