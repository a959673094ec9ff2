//! The request line of one server: what every call of it passes through once its route is
//! known. A query that the upstream cannot answer alone becomes a scan of upstream calls
//! along the same line ([`scan`]).

pub mod graph;
mod scan;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::cache::Cache;
use super::executions::{self, Executions, Read, Record, Started};
use super::gate::{Admission, Gate, TOKEN_PARAM, Ticket};
use super::metrics::Metrics;
use super::preview::would_send;
use super::safety_loop::{LoopOp, SafetyLoop};
use super::shape::Plan;
use super::shape::cursor::Cursors;
use super::shape::pages::PageRequest;
use super::trace::{CallSpan, Tracer};
use super::upstream::{Credential, Exchange, Preconditions, Reached, Upstream, UpstreamConfig};
use super::{Context, Data, Observer, UpstreamCredential};
use crate::adapter::{
    AdapterInfo, ExecutionOperation, Lifecycle, Route, ServerInfo, UpstreamRequest,
};
use crate::config::{Config, LoopMode, QueryConfig};
use crate::error::{AqlError, ErrorCode};
use crate::state::Store;
use crate::warning::Warning;

/// The gate, the upstream clients and the cursors of one server, shared by its connections.
pub struct Line {
    gate: Gate,
    /// One client per adapter served, as [`Route::member`] indexes them.
    upstreams: Vec<Upstream>,
    cursors: Cursors,
    store: Arc<Store>,
    metrics: Arc<Metrics>,
    /// The header each request brings its upstream credential in, when the operator asks
    /// for one.
    credential_header: Option<String>,
    /// The adapter that credential is for; the others call with the server's own.
    credential_member: Option<usize>,
    /// The execution safety loop's operations.
    safety_loop: SafetyLoop,
    /// The executions long-running operations started, when the adapter has any.
    executions: Option<Executions>,
    /// How long a call that starts an execution follows it before answering its state.
    execution_wait: Duration,
    /// Kept READ answers, unless the operator turned the cache off.
    cache: Option<Cache>,
    /// Where spans of calls go, when the operator asked for traces.
    tracer: Option<Tracer>,
    /// How far a query may go.
    query: QueryConfig,
}

impl Line {
    /// The line of server `server`, calling the adapters `members`, under `config`, keeping
    /// its state on `store`.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when an upstream client cannot be built (e.g. a malformed base URL
    /// override), the audit log cannot be opened, or `--credential-header` is set where not
    /// exactly one adapter's auth is one token.
    pub async fn new(
        server: &'static ServerInfo,
        members: &[&'static AdapterInfo],
        routes: &'static [&'static Route],
        route: fn(&str) -> Option<&'static Route>,
        config: &Config,
        store: Arc<Store>,
        metrics: Arc<Metrics>,
    ) -> Result<Self, AqlError> {
        let gate = Gate::new(
            server.name,
            members,
            &config.safety,
            store.clone(),
            metrics.clone(),
        )
        .await?;
        let upstreams = members
            .iter()
            .map(|info| {
                Upstream::new(
                    info,
                    UpstreamConfig {
                        max_response_bytes: config.limits.max_response_size,
                        read_timeout: config.transport_limits.upstream_read_timeout,
                        ..UpstreamConfig::default()
                    },
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let per_caller = config.credential_header.is_some()
            || config
                .resource
                .as_ref()
                .is_some_and(|resource| resource.user_credentials.is_some());
        let credential_member = if per_caller {
            Some(credential_member(&upstreams)?)
        } else {
            None
        };
        for (operation, _) in &config.cache.ttl.operations {
            if route(operation).is_none() {
                return Err(AqlError::new(
                    ErrorCode::InternalError,
                    format!(
                        "--cache-ttl names '{operation}', which is no operation of this adapter"
                    ),
                ));
            }
        }
        let cache = Cache::new(&config.cache, &store, metrics.clone());
        let tracer = config
            .otlp_endpoint
            .as_deref()
            .map(|endpoint| Tracer::new(endpoint, server))
            .transpose()
            .map_err(|message| AqlError::new(ErrorCode::InternalError, message))?;
        let cursors = Cursors::shared(&store).await;
        let safety_loop = SafetyLoop::new(config.safety.safety_loop.clone(), store.clone());
        let executions = routes
            .iter()
            .any(|route| route.lifecycle.is_some())
            .then(|| Executions::new(store.clone(), route));
        Ok(Self {
            gate,
            upstreams,
            cursors,
            store,
            metrics,
            credential_header: config.credential_header.clone(),
            credential_member,
            safety_loop,
            executions,
            execution_wait: config.execution_wait,
            cache,
            tracer,
            query: config.query,
        })
    }

    /// The gate: its policy and limits.
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// Where tokens, counters and the cursor key are kept.
    #[cfg(feature = "http")]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The execution safety loop.
    pub fn safety_loop(&self) -> &SafetyLoop {
        &self.safety_loop
    }

    /// Whether the safety loop's operations are served.
    pub fn loop_on(&self) -> bool {
        self.safety_loop.mode() != LoopMode::Disabled
    }

    /// Runs a reserved operation of the safety loop for `context`.
    ///
    /// # Errors
    ///
    /// See [`SafetyLoop::run`].
    pub async fn run_loop<O: Observer>(
        &self,
        op: LoopOp,
        params: &Map<String, Value>,
        context: &Context<'_, O>,
    ) -> Result<Value, AqlError> {
        self.safety_loop.run(op, params, &self.gate, context).await
    }

    /// The base URL upstream requests of adapter `member` go to.
    pub fn base_url(&self, member: usize) -> &str {
        self.upstreams[member].base_url()
    }

    /// Runs `route` with `params` for `context`: checks the feature params, parses the
    /// operation's params, passes the gate, sends the request and shapes the answer. Returns
    /// the answer's data and the warnings raised on the way.
    ///
    /// # Errors
    ///
    /// Whatever stops the call: invalid params, the gate's refusal or question, the
    /// upstream's error.
    pub async fn run<O: Observer>(
        &self,
        route: &'static Route,
        params: Map<String, Value>,
        quota_token: Option<Value>,
        context: &Context<'_, O>,
    ) -> Result<(Data, Vec<Warning>), AqlError> {
        let started = Instant::now();
        let mut span = self
            .tracer
            .as_ref()
            .map(|tracer| tracer.start(route, context.trace));
        let answer = match route.query {
            Some(query) => {
                self.run_query(route, query, params, quota_token, context, span.as_mut())
                    .await
            }
            None => {
                self.run_call(route, params, quota_token, context, span.as_mut())
                    .await
            }
        };
        if let Some(span) = span {
            span.end(
                answer
                    .as_ref()
                    .map_or_else(|error| error.code.as_str(), |_| "success"),
            );
        }
        let (data, mut warnings) = answer?;
        let took = started.elapsed();
        if took > self.query.slow {
            warnings.push(slow(route.operation, took, self.query.slow));
        }
        Ok((data, warnings))
    }

    /// [`Self::run`], noting what happens in the call's `span` when it is traced.
    async fn run_call<O: Observer>(
        &self,
        route: &'static Route,
        mut params: Map<String, Value>,
        quota_token: Option<Value>,
        context: &Context<'_, O>,
        mut span: Option<&mut CallSpan>,
    ) -> Result<(Data, Vec<Warning>), AqlError> {
        let screened = self.gate.screen(route, &mut params);
        if route.paging.is_some() {
            self.cursors.adopt(&self.store).await;
        }
        let mut plan = Plan::take(route, &mut params, &self.cursors)?;
        // Parse first: nothing is issued, refused or counted for an invalid request.
        let mut request = (route.build)(&params)?;
        let credential = self.credential(context, route.member)?;
        let upstream = &self.upstreams[route.member];
        let ticket = Ticket {
            route,
            params: &params,
            request: &request,
            if_match: plan.if_match.as_deref(),
            quota_token,
            dry_run: plan.dry_run,
        };
        let admission = self.gate.admit(screened, ticket, context).await;
        if let Some(span) = span.as_deref_mut() {
            span.decided(match &admission {
                Ok(Admission::Preview { .. }) => "preview",
                Ok(Admission::Proceed(_)) => "allowed",
                Err(error) => error.code.as_str(),
            });
        }
        let mut warnings = match admission? {
            Admission::Preview {
                confirmation_required,
            } => {
                let preview = dry_run(
                    route,
                    &request,
                    plan.if_match.as_deref(),
                    confirmation_required,
                );
                return Ok((Data::Value(preview), plan.warnings));
            }
            Admission::Proceed(warnings) => warnings,
        };
        if let Some(empty) = plan.page.as_ref().and_then(PageRequest::known_empty) {
            warnings.append(&mut plan.warnings);
            return Ok((Data::Value(empty), warnings));
        }
        let method = request.method;
        // One step; a call that starts an execution counts in percent (mcp-integration §5.4):
        // starting takes the first 10, running up to 90, ending the rest.
        let (total, answered) = match route.lifecycle {
            Some(_) => (100.0, STARTED),
            None => (1.0, 1.0),
        };
        context
            .observer
            .progress(0.0, Some(total), "calling the upstream API")
            .await;
        let preconditions = Preconditions {
            if_match: plan.if_match.as_deref(),
            ..Preconditions::default()
        };
        if let Some(span) = span.as_deref_mut() {
            let context_headers = span.upstream(request.method);
            request.headers.extend(context_headers);
        }
        let (exchange, cached) = match &self.cache {
            Some(cache) => {
                cache
                    .fetch(upstream, route, request, preconditions, &credential)
                    .await
            }
            None => (
                upstream.send(request, preconditions, &credential).await,
                None,
            ),
        };
        // What the session's log hears: the request that went out, or the answer the cache
        // gave without one.
        match (exchange.reached, &cached) {
            (Some(_), _) => context.observer.event(
                true,
                json!({"event": "upstream_call", "operation": route.operation, "method": method.as_str()}),
            ),
            (None, Some(_)) => context.observer.event(
                true,
                json!({"event": "cache_hit", "operation": route.operation}),
            ),
            (None, None) => {}
        }
        if let Some(span) = span {
            let status = match exchange.reached {
                Some(Reached::Status(status)) => Some(status),
                Some(Reached::NoAnswer) | None => None,
            };
            span.answered(status, self.cache.as_ref().map(|_| cached.is_some()));
        }
        warnings.extend(cached);
        let Exchange {
            answer,
            reached,
            backoff,
        } = exchange;
        if let Some(reached) = reached {
            self.metrics.upstream(reached);
        }
        if let Some(backoff) = backoff {
            self.gate.limiter(route.member).block(backoff).await;
        }
        context
            .observer
            .progress(answered, Some(total), "the upstream API answered")
            .await;
        if let (Some(lifecycle), Some(executions)) = (route.lifecycle, &self.executions) {
            let (id, mut record) = executions
                .start(route, lifecycle, &params, &answer?, context.caller.owner())
                .await?;
            let started = Started {
                id: id.clone(),
                created_at: record.started_at().to_owned(),
                poll_interval: Duration::from_secs(lifecycle.poll_interval),
                kept: executions::kept(lifecycle),
            };
            if !context.observer.task(&started) {
                self.follow(&id, upstream, lifecycle, &mut record, &credential, context)
                    .await?;
            }
            return Ok((Data::Value(record.response(&id)), warnings));
        }
        let (data, mut shaped) = plan.shape(answer?, route.operation, &self.cursors);
        shaped.append(&mut warnings);
        Ok((data, shaped))
    }

    /// Whether the adapter has long-running operations, whose executions the runtime's
    /// `get_execution` and `cancel_execution` answer.
    pub fn has_executions(&self) -> bool {
        self.executions.is_some()
    }

    /// `get_execution` or `cancel_execution` with `params` for `context`: the execution's
    /// state response, after a fresh read of its state (and its cancel call).
    ///
    /// # Errors
    ///
    /// An invalid `execution_id`; an unknown or foreign execution; an ended one to cancel;
    /// whatever stops the cancel call.
    pub async fn run_execution<O: Observer>(
        &self,
        op: ExecutionOperation,
        params: &Map<String, Value>,
        context: &Context<'_, O>,
    ) -> Result<Value, AqlError> {
        let id = execution_id(op, params)?;
        let read = match op {
            ExecutionOperation::GetExecution => Read::WhenDue,
            ExecutionOperation::CancelExecution => Read::Now,
        };
        let (mut record, lifecycle) = self.execution(id, context, read).await?;
        if op == ExecutionOperation::CancelExecution {
            let token = params.get(TOKEN_PARAM).cloned();
            self.cancel(id, lifecycle, &mut record, token, context)
                .await?;
        }
        Ok(record.response(id))
    }

    /// Follows a started execution for up to the execution wait, telling the client its
    /// progress at each read, and stops at its end.
    async fn follow<O: Observer>(
        &self,
        id: &str,
        upstream: &Upstream,
        lifecycle: &Lifecycle,
        record: &mut Record,
        credential: &Credential<'_>,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let Some(executions) = &self.executions else {
            return Ok(());
        };
        let until = Instant::now() + self.execution_wait;
        let interval = Duration::from_secs(lifecycle.poll_interval);
        let mut reported = STARTED;
        loop {
            executions
                .refresh(id, lifecycle, record, upstream, credential, Read::WhenDue)
                .await?;
            // Progress only ever increases: a read that says nothing new sends nothing.
            let progress = record.percent_done(reported);
            if progress > reported {
                reported = progress;
                context
                    .observer
                    .progress(progress, Some(100.0), &record.progress_message())
                    .await;
            }
            if record.status().is_terminal() || Instant::now() + interval > until {
                return Ok(());
            }
            tokio::select! {
                () = tokio::time::sleep(interval) => {}
                () = context.observer.cancelled() => {
                    // The client gave up on the call: the work it started stops too.
                    return self.cancel(id, lifecycle, record, None, context).await;
                }
            }
        }
    }

    /// Cancels execution `id` upstream with its lifecycle's cancel operation, through the
    /// gate (with the confirmation `token` the caller brought), and keeps it cancelled. A
    /// cancel the upstream refuses because the execution ended meanwhile is answered as ended.
    async fn cancel<O: Observer>(
        &self,
        id: &str,
        lifecycle: &Lifecycle,
        record: &mut Record,
        token: Option<Value>,
        context: &Context<'_, O>,
    ) -> Result<(), AqlError> {
        let executions = self.executions()?;
        let (route, mut params) = executions.cancel_call(id, lifecycle, record)?;
        if let Some(token) = token {
            params.insert(TOKEN_PARAM.to_owned(), token);
        }
        if let Err(error) = Box::pin(self.run(route, params, None, context)).await {
            let credential = self.credential(context, route.member)?;
            executions
                .refresh(
                    id,
                    lifecycle,
                    record,
                    &self.upstreams[route.member],
                    &credential,
                    Read::Now,
                )
                .await?;
            executions.cancel_call(id, lifecycle, record)?;
            return Err(error);
        }
        executions.cancelled(id, lifecycle, record).await
    }

    /// The state of execution `id`, read again from the upstream, for `credential`'s caller:
    /// its record and lifecycle.
    ///
    /// # Errors
    ///
    /// An unknown or foreign execution; an unreachable store.
    pub async fn execution<O: Observer>(
        &self,
        id: &str,
        context: &Context<'_, O>,
        read: Read,
    ) -> Result<(Record, &'static Lifecycle), AqlError> {
        let executions = self.executions()?;
        let (route, lifecycle, mut record, credential) = executions
            .load(id, &context.caller.owner(), |route| {
                self.credential(context, route.member)
            })
            .await?;
        executions
            .refresh(
                id,
                lifecycle,
                &mut record,
                &self.upstreams[route.member],
                &credential,
                read,
            )
            .await?;
        Ok((record, lifecycle))
    }

    fn executions(&self) -> Result<&Executions, AqlError> {
        self.executions.as_ref().ok_or_else(|| {
            AqlError::new(
                ErrorCode::NotFoundOperation,
                "This adapter starts no executions",
            )
        })
    }

    /// The upstream credential of `context`'s call to adapter `member`: the caller's own for
    /// the adapter that takes one, the server's for the others.
    fn credential<'a, O>(
        &self,
        context: &'a Context<'_, O>,
        member: usize,
    ) -> Result<Credential<'a>, AqlError> {
        if self.credential_member != Some(member) {
            return Ok(Credential::Environment);
        }
        match &context.caller.credential {
            UpstreamCredential::Server => Ok(Credential::Environment),
            UpstreamCredential::Request(value) => Ok(Credential::Request(value)),
            UpstreamCredential::Missing => Err(self.missing_credential()),
            UpstreamCredential::NotOnFile => Err(AqlError::new(
                ErrorCode::PermissionDenied,
                "Permission denied: this server calls the upstream API with each user's own credential, and none is on file for this caller; the operator adds it to the user credentials",
            )
            .with_detail("reason", "CREDENTIAL_NOT_ON_FILE")),
        }
    }

    /// `PERMISSION_DENIED` for a call that did not bring the upstream credential the operator
    /// requires of each request.
    fn missing_credential(&self) -> AqlError {
        let header = self.credential_header.as_deref().unwrap_or_default();
        AqlError::new(
            ErrorCode::PermissionDenied,
            format!(
                "Permission denied: this server sends each caller's own upstream credential, and the request brought none; send it in the '{header}' HTTP header"
            ),
        )
        .with_detail("reason", "CREDENTIAL_REQUIRED")
        .with_detail("header", header)
    }
}

/// The one adapter of `upstreams` whose auth takes a caller's own credential.
///
/// # Errors
///
/// `INTERNAL_ERROR` when none does, or several do: one header cannot carry credentials for two
/// APIs, and one API's credential is never sent to another.
fn credential_member(upstreams: &[Upstream]) -> Result<usize, AqlError> {
    let mut takers = upstreams
        .iter()
        .enumerate()
        .filter(|(_, upstream)| upstream.takes_request_credential())
        .map(|(member, _)| member);
    match (takers.next(), takers.next()) {
        (Some(member), None) => Ok(member),
        (None, _) => Err(AqlError::new(
            ErrorCode::InternalError,
            "--credential-header needs a schema whose auth is one bearer token or API key",
        )),
        (Some(_), Some(_)) => Err(AqlError::new(
            ErrorCode::InternalError,
            "--credential-header takes a caller's credential for one adapter, and more than one adapter of this bundle authenticates with one token",
        )),
    }
}

/// `PERFORMANCE_SLOW_QUERY_WARNING` for a call of `operation` that took `took` (warnings §4.4).
fn slow(operation: &str, took: Duration, threshold: Duration) -> Warning {
    let (ms, threshold_ms) = (took.as_millis() as u64, threshold.as_millis().max(1) as u64);
    let severity = match ms / threshold_ms {
        0 | 1 => crate::warning::Severity::Low,
        2..=9 => crate::warning::Severity::Medium,
        _ => crate::warning::Severity::High,
    };
    Warning::new(
        "PERFORMANCE_SLOW_QUERY_WARNING",
        format!("Operation took {ms}ms (threshold: {threshold_ms}ms)"),
    )
    .with_severity(severity)
    .with_detail("operation", operation)
    .with_detail("duration_ms", ms)
    .with_detail("threshold_ms", threshold_ms)
    .with_detail(
        "suggestions",
        vec![
            "narrow 'filter' to keys the API filters itself",
            "ask for fewer items with 'first'",
        ],
    )
}

/// The percent a call that starts an execution reports once the upstream took it.
const STARTED: f64 = 10.0;

/// The `execution_id` param of `get_execution` and `cancel_execution` (which also takes a
/// confirmation token for its cancel call).
fn execution_id(op: ExecutionOperation, params: &Map<String, Value>) -> Result<&str, AqlError> {
    let known: &[&str] = match op {
        ExecutionOperation::GetExecution => &["execution_id"],
        ExecutionOperation::CancelExecution => &["execution_id", TOKEN_PARAM],
    };
    if let Some(unknown) = params.keys().find(|key| !known.contains(&key.as_str())) {
        return Err(AqlError::new(
            ErrorCode::ValidationUnknownParam,
            format!(
                "Unknown parameter '{}' for '{}'; it takes {}",
                crate::text::shorten(unknown, 64),
                op.as_str(),
                known.join(", ")
            ),
        ));
    }
    match params.get("execution_id") {
        Some(Value::String(id)) => Ok(id),
        None | Some(Value::Null) => Err(AqlError::new(
            ErrorCode::ValidationMissingParam,
            "Missing required parameter 'execution_id': the id the starting call answered",
        )
        .with_detail("param", "execution_id")),
        Some(_) => Err(AqlError::new(
            ErrorCode::ValidationInvalidType,
            "Parameter 'execution_id' must be a string",
        )
        .with_detail("param", "execution_id")
        .with_detail("expected", "string")),
    }
}

/// What a dry run answers: the request that would be sent and whether the gate would ask
/// for confirmation first. Nothing is sent, counted or issued.
fn dry_run(
    route: &Route,
    request: &UpstreamRequest,
    if_match: Option<&str>,
    confirm: bool,
) -> Value {
    json!({
        "dry_run": true,
        "operation": route.operation,
        "danger_level": route.danger_level.as_str(),
        "confirmation_required": confirm,
        "would_send": would_send(request, if_match),
    })
}
