//! The request line of one server: what every call of it passes through once its route is
//! known.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::gate::{Admission, Gate, Ticket};
use super::metrics::Metrics;
use super::preview::would_send;
use super::safety_loop::{LoopOp, SafetyLoop};
use super::shape::Plan;
use super::shape::cursor::Cursors;
use super::shape::pages::PageRequest;
use super::upstream::{Credential, Exchange, Upstream, UpstreamConfig};
use super::{Context, Data, Observer, UpstreamCredential};
use crate::adapter::{AdapterInfo, Route, UpstreamRequest};
use crate::config::{Config, LoopMode};
use crate::error::{AqlError, ErrorCode};
use crate::state::Store;
use crate::warning::Warning;

/// The gate, the upstream client and the cursors of one server, shared by its connections.
pub struct Line {
    gate: Gate,
    upstream: Upstream,
    cursors: Cursors,
    store: Arc<Store>,
    metrics: Arc<Metrics>,
    /// The header each request brings its upstream credential in, when the operator asks
    /// for one.
    credential_header: Option<String>,
    /// The execution safety loop's operations.
    safety_loop: SafetyLoop,
}

impl Line {
    /// The line of adapter `info` under `config`, keeping its state on `store`.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when the upstream client cannot be built (e.g. a malformed base URL
    /// override), the audit log cannot be opened, or `--credential-header` is set for a
    /// schema whose auth is not one token.
    pub async fn new(
        info: &'static AdapterInfo,
        config: &Config,
        store: Arc<Store>,
        metrics: Arc<Metrics>,
    ) -> Result<Self, AqlError> {
        let gate = Gate::new(info, &config.safety, store.clone(), metrics.clone()).await?;
        let upstream = Upstream::new(
            info,
            UpstreamConfig {
                max_response_bytes: config.limits.max_response_size,
                read_timeout: config.transport_limits.upstream_read_timeout,
                ..UpstreamConfig::default()
            },
        )?;
        if config.credential_header.is_some() && !upstream.takes_request_credential() {
            return Err(AqlError::new(
                ErrorCode::InternalError,
                "--credential-header needs a schema whose auth is one bearer token or API key",
            ));
        }
        let cursors = Cursors::shared(&store).await;
        let safety_loop = SafetyLoop::new(config.safety.safety_loop.clone(), store.clone());
        Ok(Self {
            gate,
            upstream,
            cursors,
            store,
            metrics,
            credential_header: config.credential_header.clone(),
            safety_loop,
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

    /// The base URL upstream requests go to.
    pub fn base_url(&self) -> &str {
        self.upstream.base_url()
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
        mut params: Map<String, Value>,
        quota_token: Option<Value>,
        context: &Context<'_, O>,
    ) -> Result<(Data, Vec<Warning>), AqlError> {
        let screened = self.gate.screen(route, &mut params);
        if route.paging.is_some() {
            self.cursors.adopt(&self.store).await;
        }
        let mut plan = Plan::take(route, &mut params, &self.cursors)?;
        // Parse first: nothing is issued, refused or counted for an invalid request.
        let request = (route.build)(&params)?;
        let credential = match &context.caller.credential {
            UpstreamCredential::Server => Credential::Environment,
            UpstreamCredential::Request(value) => Credential::Request(value),
            UpstreamCredential::Missing => return Err(self.missing_credential()),
        };
        let ticket = Ticket {
            route,
            params: &params,
            request: &request,
            if_match: plan.if_match.as_deref(),
            quota_token,
            dry_run: plan.dry_run,
        };
        let mut warnings = match self.gate.admit(screened, ticket, context).await? {
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
        context.observer.event(
            true,
            json!({"event": "upstream_call", "operation": route.operation, "method": request.method.as_str()}),
        );
        context
            .observer
            .progress(0.0, 1.0, "calling the upstream API")
            .await;
        let Exchange {
            answer,
            reached,
            backoff,
        } = self
            .upstream
            .send(request, plan.if_match.as_deref(), &credential)
            .await;
        if let Some(reached) = reached {
            self.metrics.upstream(reached);
        }
        if let Some(backoff) = backoff {
            self.gate.limiter().block(backoff).await;
        }
        context
            .observer
            .progress(1.0, 1.0, "the upstream API answered")
            .await;
        let (data, mut shaped) = plan.shape(answer?, route.operation, &self.cursors);
        shaped.append(&mut warnings);
        Ok((data, shaped))
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
