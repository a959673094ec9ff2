//! The MCP server: an rmcp [`ServerHandler`] generic over a generated [`Adapter`].
//!
//! `tools/call` follows the request flow of SPEC §3.2: parse the envelope, find the
//! operation, check it belongs to the tool it was sent to, check payload limits and encoding,
//! parse the params with the generated parser, pass the safety gate (trust and danger level,
//! rate limits and quotas, confirmation), call the upstream.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

#[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); see `notify`
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation,
    InitializeRequestParams, InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use crate::adapter::{Adapter, Category, DangerLevel, Route, UpstreamRequest};
use crate::batch;
use crate::config::Config;
use crate::envelope::{Envelope, check_payload, shorten};
use crate::error::{AqlError, ErrorCode};
use crate::gate::audit::{Audit, Event, Record};
use crate::gate::limits::{LimitConfig, Limited, Limiter, paused_error};
use crate::gate::tokens::{TokenKind, Tokens};
use crate::gate::{
    ConfirmReason, Decision, Policy, TOKEN_PARAM, TrustSource, confirmation_context, denial_error,
};
use crate::intake::http::CarriedArguments;
use crate::introspect::{Catalog, INTROSPECT};
use crate::metrics::{CallOutcome, Metrics, UNKNOWN_OPERATION};
use crate::notify::{Progress, SessionLog};
use crate::result::{self, Data};
use crate::session::{Caller, Session, UpstreamCredential};
use crate::shape::Plan;
use crate::shape::cursor::Cursors;
use crate::shape::pages::PageRequest;
use crate::state::Store;
use crate::tools::{Surface, ToolSet, base_name};
use crate::upstream::{Credential, Upstream, UpstreamConfig};
use crate::warning::Warning;

/// Everything a server builds once and shares between connections.
pub struct Shared<A: Adapter> {
    config: Config,
    policy: Policy,
    store: Arc<Store>,
    limiter: Arc<Limiter>,
    tokens: Tokens,
    audit: Audit,
    tools: ToolSet,
    catalog: Catalog,
    upstream: Upstream,
    cursors: Cursors,
    metrics: Arc<Metrics>,
    instructions: String,
    adapter: PhantomData<fn() -> A>,
}

impl<A: Adapter> Shared<A> {
    /// Builds the gate's policy, limits and tokens on `store`, the tool list, the
    /// introspection answers and the upstream client.
    ///
    /// # Errors
    ///
    /// When the upstream client cannot be built (e.g. a malformed base URL override) or the
    /// audit log cannot be opened.
    pub async fn new(config: Config, store: Arc<Store>) -> Result<Self, AqlError> {
        let safety = &config.safety;
        let (trust, trust_source) = match (safety.trust_level, A::INFO.trust) {
            (Some(trust), _) => (trust, TrustSource::Operator),
            (None, Some(trust)) => (trust, TrustSource::Schema),
            (None, None) => (crate::adapter::TrustLevel::Untested, TrustSource::Default),
        };
        let policy = Policy {
            confirm_at: safety.confirm_at,
            deny: safety.deny.clone(),
            ..Policy::at(trust, trust_source)
        };
        let limiter = Arc::new(Limiter::new(
            LimitConfig::merged(
                A::INFO.rate_limits,
                &safety.rate_limits,
                safety.quotas.clone(),
            ),
            store.clone(),
        ));
        let tokens = Tokens::new(A::INFO.name, safety.tokens, store.clone());
        let audit = match &safety.audit_log {
            Some(path) => Audit::to_file(A::INFO.name, path)
                .map_err(|message| AqlError::new(ErrorCode::InternalError, message))?,
            None => Audit::to_log(A::INFO.name),
        };
        let tools = ToolSet::new::<A>(
            config.mode,
            &config.tool_prefix,
            &policy,
            config
                .tool_schema
                .input_schema(config.limits.max_batch_size),
        );
        let catalog = Catalog::new::<A>(&config, &tools, &policy, &limiter);
        let metrics = Arc::new(Metrics::default());
        let upstream = Upstream::new(
            A::INFO,
            UpstreamConfig {
                max_response_bytes: config.limits.max_response_size,
                read_timeout: config.transport_limits.upstream_read_timeout,
                ..UpstreamConfig::default()
            },
        )?
        .observed_by(limiter.clone())
        .measured_by(metrics.clone());
        if config.credential_header.is_some() && !upstream.takes_request_credential() {
            return Err(AqlError::new(
                ErrorCode::InternalError,
                "--credential-header needs a schema whose auth is one bearer token or API key",
            ));
        }
        let cursors = Cursors::shared(&store).await;
        let instructions = format!(
            "MCP-AQL adapter for the {} API. Start with operation 'introspect' (params {{\"query\": \"operations\"}}) on tool '{}' to discover every operation.",
            A::INFO.name,
            tools.tool_for(Category::Read)
        );
        Ok(Self {
            config,
            policy,
            store,
            limiter,
            tokens,
            audit,
            tools,
            catalog,
            upstream,
            cursors,
            metrics,
            instructions,
            adapter: PhantomData,
        })
    }

    /// The resolved configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The gate's policy in force.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The rate limits and quotas in force.
    pub fn limits(&self) -> &LimitConfig {
        self.limiter.config()
    }

    /// The base URL upstream requests go to.
    pub fn base_url(&self) -> &str {
        self.upstream.base_url()
    }

    /// Where tokens and counters are kept.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// This instance's calls, upstream answers and gate decisions, counted.
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

    /// Runs one `tools/call` against `surface` and returns the MCP-AQL answer: one
    /// operation, or a batch when the arguments hold `operations`. `progress` hears of each
    /// upstream call when the client asked for progress. Tokens are issued to and redeemed
    /// by `caller` ([`Session::caller`]), whose upstream credential the call sends.
    pub async fn call(
        &self,
        surface: Surface,
        arguments: Option<JsonObject>,
        caller: &Caller,
        progress: Option<&Progress>,
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
                .call_batch(surface, arguments, payload, caller, progress)
                .await;
        }
        match self
            .call_one(surface, arguments, payload, caller, progress)
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

    /// One operation, counted in the metrics under its name and outcome.
    async fn call_one(
        &self,
        surface: Surface,
        arguments: JsonObject,
        payload: Result<(), AqlError>,
        caller: &Caller,
        progress: Option<&Progress>,
    ) -> Outcome {
        let started = Instant::now();
        let (operation, outcome) = self
            .operate(surface, arguments, payload, caller, progress)
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
        progress: Option<&Progress>,
    ) -> (&'static str, Outcome) {
        let shared = &*self.shared;
        let envelope = match Envelope::parse(Some(arguments)) {
            Ok(envelope) => envelope,
            Err(error) => return (UNKNOWN_OPERATION, self.failed(None, false, error)),
        };
        let operation = envelope.operation.as_str();
        let route = if operation == INTROSPECT {
            None
        } else {
            match A::route(operation) {
                Some(route) => Some(route),
                None => {
                    let error = self.not_found(operation);
                    return (
                        UNKNOWN_OPERATION,
                        self.failed(Some(operation), false, error),
                    );
                }
            }
        };
        let name = route.map_or(INTROSPECT, |route| route.operation);
        let introspect = route.is_none();
        let category = route.map_or(Category::Read, |route| route.category);
        if let Surface::Family(family) = surface
            && family != category
        {
            let error = self.mismatch(operation, category, surface);
            return (name, self.failed(Some(operation), introspect, error));
        }
        if let Err(error) = payload {
            return (name, self.failed(Some(operation), introspect, error));
        }
        let answer = match route {
            None => shared
                .catalog
                .answer(&envelope.params, self.session.id(), &shared.limiter)
                .await
                .map(|data| (Data::Text(data), Vec::new())),
            Some(route) => {
                let quota_token = envelope.quota_continue;
                self.run_route(route, envelope.params, quota_token, caller, progress)
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
        progress: Option<&Progress>,
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
                Ok(item) => self.call_one(surface, item, Ok(()), caller, progress).await,
                Err(error) => self.failed(None, false, error),
            };
            if report.record(index, operation, outcome, Some(self.session.id())) {
                report.halt(items.by_ref());
                break;
            }
        }
        result::batch_success(report.finish())
    }

    /// Validates the params, passes the gate and sends the request: the upstream's answer
    /// and the warnings it carries.
    async fn run_route(
        &self,
        route: &'static Route,
        mut params: Map<String, Value>,
        quota_token: Option<Value>,
        caller: &Caller,
        progress: Option<&Progress>,
    ) -> Result<(Data, Vec<Warning>), AqlError> {
        let shared = &*self.shared;
        let decision = shared
            .policy
            .decide(route.danger_level, route.requires_confirmation);
        let confirmation = match decision {
            Decision::Confirm(_) => params.remove(TOKEN_PARAM).filter(|token| !token.is_null()),
            Decision::Allow | Decision::Deny(_) => None,
        };
        if route.paging.is_some() {
            shared.cursors.adopt(&shared.store).await;
        }
        let mut plan = Plan::take(route, &mut params, &shared.cursors)?;
        // Parse first: nothing is issued, refused or counted for an invalid request.
        let request = (route.build)(&params)?;
        let credential = match &caller.credential {
            UpstreamCredential::Server => Credential::Environment,
            UpstreamCredential::Request(value) => Credential::Request(value),
            UpstreamCredential::Missing => return Err(missing_credential(&shared.config)),
        };
        let why = match decision {
            Decision::Deny(denial) => {
                let error = denial_error(route, &shared.policy, denial);
                self.audit(route, Event::Denied, None, Some(error.code));
                return Err(error);
            }
            Decision::Confirm(why) => Some(why),
            Decision::Allow => None,
        };
        if plan.dry_run {
            let preview = dry_run(route, &request, plan.if_match.as_deref(), why.is_some());
            return Ok((Data::Value(preview), plan.warnings));
        }
        self.check_limits(route, &params, quota_token, caller)
            .await?;
        // A confirmation is for exactly the request shown: its params and its precondition.
        let mut scope = params.clone();
        if let Some(etag) = &plan.if_match {
            scope.insert("if_match".to_owned(), etag.clone().into());
        }
        match (why, confirmation) {
            (None, _) => self.audit(route, Event::Allowed, None, None),
            (Some(why), None) => {
                return Err(self
                    .ask_confirmation(route, &scope, &why, &request, caller)
                    .await);
            }
            (Some(_), Some(token)) => {
                let redeemed = shared
                    .tokens
                    .redeem(
                        &caller.id,
                        TokenKind::Confirmation,
                        &token,
                        route.operation,
                        &scope,
                    )
                    .await;
                match redeemed {
                    Ok(id) => self.audit(route, Event::TokenAccepted, Some(&id), None),
                    Err(rejected) => {
                        self.audit(
                            route,
                            Event::TokenRejected,
                            rejected.token_id.as_deref(),
                            Some(rejected.error.code),
                        );
                        return Err(rejected.error);
                    }
                }
            }
        }
        let mut warnings = match shared.limiter.commit(SystemTime::now(), &caller.id).await {
            Ok(warnings) => warnings,
            Err(limited) => return Err(self.limited(route, &params, limited, caller).await),
        };
        if let Some(empty) = plan.page.as_ref().and_then(PageRequest::known_empty) {
            warnings.append(&mut plan.warnings);
            return Ok((Data::Value(empty), warnings));
        }
        self.log.debug(
            json!({"event": "upstream_call", "operation": route.operation, "method": request.method.as_str()}),
        );
        if let Some(progress) = progress {
            progress.report(0.0, 1.0, "calling the upstream API").await;
        }
        let sent = shared
            .upstream
            .send(request, plan.if_match.as_deref(), &credential)
            .await;
        if let Some(progress) = progress {
            progress.report(1.0, 1.0, "the upstream API answered").await;
        }
        let (data, mut shaped) = plan.shape(sent?, route.operation, &shared.cursors);
        shaped.append(&mut warnings);
        Ok((data, shaped))
    }

    /// Rate limits and quotas before anything is confirmed or sent: a quota at its pause
    /// threshold is continued with `quota_token` when it is a valid continuation token.
    async fn check_limits(
        &self,
        route: &'static Route,
        params: &Map<String, Value>,
        quota_token: Option<Value>,
        caller: &Caller,
    ) -> Result<(), AqlError> {
        let limited = match self
            .shared
            .limiter
            .check(SystemTime::now(), &caller.id)
            .await
        {
            Ok(()) => return Ok(()),
            Err(limited) => limited,
        };
        let (Limited::Paused(pauses), Some(token)) = (&limited, quota_token) else {
            return Err(self.limited(route, params, limited, caller).await);
        };
        let redeemed = self
            .shared
            .tokens
            .redeem(
                &caller.id,
                TokenKind::QuotaContinue,
                &token,
                route.operation,
                params,
            )
            .await;
        match redeemed {
            Ok(id) => {
                self.audit(route, Event::QuotaContinued, Some(&id), None);
                self.shared
                    .limiter
                    .continue_past(&caller.id, pauses)
                    .await
                    .map_err(AqlError::from)
            }
            Err(rejected) => {
                self.audit(
                    route,
                    Event::TokenRejected,
                    rejected.token_id.as_deref(),
                    Some(rejected.error.code),
                );
                Err(rejected.error)
            }
        }
    }

    /// The client's error for a limit in the way; a pause issues a continuation token.
    async fn limited(
        &self,
        route: &'static Route,
        params: &Map<String, Value>,
        limited: Limited,
        caller: &Caller,
    ) -> AqlError {
        match limited {
            Limited::Rate(error) => {
                self.audit(route, Event::RateLimited, None, Some(error.code));
                error
            }
            Limited::Exhausted(error) => {
                self.audit(route, Event::QuotaExhausted, None, Some(error.code));
                error
            }
            Limited::Unavailable(error) => error,
            Limited::Paused(pauses) => match self
                .shared
                .tokens
                .issue(
                    &caller.id,
                    TokenKind::QuotaContinue,
                    route.operation,
                    route.danger_level,
                    params,
                )
                .await
            {
                Ok(issued) => {
                    let error = paused_error(&pauses, &issued.token, &issued.expires_at);
                    self.audit(
                        route,
                        Event::QuotaPaused,
                        Some(&issued.id),
                        Some(error.code),
                    );
                    error
                }
                Err(error) => {
                    self.audit(route, Event::RateLimited, None, Some(error.code));
                    error
                }
            },
        }
    }

    /// Issues a confirmation token: `CONFIRMATION_REQUIRED` with what the call would do.
    async fn ask_confirmation(
        &self,
        route: &'static Route,
        params: &Map<String, Value>,
        why: &[ConfirmReason],
        request: &UpstreamRequest,
        caller: &Caller,
    ) -> AqlError {
        let issued = self
            .shared
            .tokens
            .issue(
                &caller.id,
                TokenKind::Confirmation,
                route.operation,
                route.danger_level,
                params,
            )
            .await;
        let issued = match issued {
            Ok(issued) => issued,
            Err(error) => {
                self.audit(route, Event::RateLimited, None, Some(error.code));
                return error;
            }
        };
        let (reasons, message) = confirmation_context(route, &self.shared.policy, why, request);
        self.audit(route, Event::ConfirmationIssued, Some(&issued.id), None);
        AqlError::new(
            ErrorCode::ConfirmationRequired,
            format!(
                "This operation requires confirmation: '{}' (danger: {}) runs only when called again with the same params plus '{TOKEN_PARAM}' set to the token in details, within {} s",
                route.operation,
                route.danger_level,
                issued.ttl.as_secs()
            ),
        )
        .with_detail("operation", route.operation)
        .with_detail("danger_level", route.danger_level.as_str())
        .with_detail("reasons", reasons)
        .with_detail("confirmation_message", message)
        .with_detail("confirmation_token", issued.token)
        .with_detail("expires_at", issued.expires_at)
        .with_detail("ttl_seconds", issued.ttl.as_secs())
    }

    fn audit(
        &self,
        route: &'static Route,
        event: Event,
        token_id: Option<&str>,
        code: Option<ErrorCode>,
    ) {
        // The level the audit log's own line takes: routine reads are debug.
        let routine = event == Event::Allowed && route.danger_level < DangerLevel::Destructive;
        self.log.event(
            routine,
            json!({
                "event": event.as_str(),
                "operation": route.operation,
                "danger_level": route.danger_level.as_str(),
                "code": code.map(ErrorCode::as_str),
            }),
        );
        self.shared.metrics.decision(event);
        self.shared.audit.record(Record {
            event,
            operation: route.operation,
            danger: route.danger_level,
            trust: self.shared.policy.trust,
            session: self.session.id(),
            token_id,
            code,
        });
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

/// See [`AqlServer::supported_protocol_versions`].
const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// Longest unknown operation name that gets suggestions.
const MAX_SUGGESTED_NAME: usize = 128;
/// Longest unknown operation name echoed whole in an answer.
const MAX_ECHOED_NAME: usize = 80;

/// Arguments the HTTP front parsed and carried past rmcp (see [`CarriedArguments`]).
fn carried_arguments(context: &RequestContext<RoleServer>) -> Option<JsonObject> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .extensions
        .get::<CarriedArguments>()?
        .take()
}

/// How one operation ended.
pub(crate) enum Outcome {
    /// `data`, and the warnings raised on the way.
    Success {
        /// The answer's `data`.
        data: Data,
        /// Warnings for the answer.
        warnings: Vec<Warning>,
    },
    /// The error; a failure of `introspect` is answered without `details`.
    Failure {
        /// What went wrong.
        error: AqlError,
        /// Whether the operation was `introspect`.
        introspect: bool,
    },
}

/// What a dry run answers: the request that would be sent and whether the gate would ask
/// for confirmation first. Nothing is sent, counted or issued.
fn dry_run(
    route: &Route,
    request: &UpstreamRequest,
    if_match: Option<&str>,
    confirm: bool,
) -> Value {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            request
                .query
                .iter()
                .map(|(name, value)| (*name, value.as_str())),
        )
        .finish();
    let mut would_send = json!({"method": request.method.as_str(), "path": request.path});
    if !query.is_empty() {
        would_send["query"] = query.into();
    }
    if let Some(etag) = if_match {
        would_send["headers"] = json!({"If-Match": etag});
    }
    if let Some(body) = &request.body {
        would_send["body"] = body.clone();
    }
    json!({
        "dry_run": true,
        "operation": route.operation,
        "danger_level": route.danger_level.as_str(),
        "confirmation_required": confirm,
        "would_send": would_send,
    })
}

/// `PERMISSION_DENIED` for a call that did not bring the upstream credential the operator
/// requires of each request.
fn missing_credential(config: &Config) -> AqlError {
    let header = config.credential_header.as_deref().unwrap_or_default();
    AqlError::new(
        ErrorCode::PermissionDenied,
        format!(
            "Permission denied: this server sends each caller's own upstream credential, and the request brought none; send it in the '{header}' HTTP header"
        ),
    )
    .with_detail("reason", "CREDENTIAL_REQUIRED")
    .with_detail("header", header)
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
    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); see `notify`
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        ServerConfig::new(capabilities)
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
        let arguments = request.arguments.or_else(|| carried_arguments(&context));
        let progress = context.meta.get_progress_token().map(|token| Progress {
            peer: context.peer.clone(),
            token,
        });
        let caller = self.session.caller(
            context
                .extensions
                .get::<axum::http::request::Parts>()
                .map(|parts| &parts.headers),
            self.shared.config.credential_header.as_deref(),
        );
        let result = self
            .call(surface, arguments, &caller, progress.as_ref())
            .await;
        self.log.flush(&context.peer).await;
        Ok(result.into())
    }

    /// The revisions served: 2025-06-18 and 2025-11-25 sessions, 2026-07-28 stateless
    /// requests. Not 2024-11-05 or 2025-03-26, whose clients may send JSON-RPC batches, which
    /// the intake refuses: a client asking for them is offered 2025-11-25 instead.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_VERSIONS)
    }

    #[allow(deprecated)] // rmcp marks MCP logging deprecated (SEP-2577); see `notify`
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Protocol revision 2026-07-28 has no MCP logging.
        let stateless_revision = context
            .extensions
            .get::<axum::http::request::Parts>()
            .is_some_and(|parts| crate::intake::http::is_stateless_revision(&parts.headers));
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
