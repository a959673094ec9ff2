//! Process entry: tracing, configuration, and serving on stdio or streamable HTTP.

#[cfg(feature = "http")]
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use crate::adapter::{Adapter, Auth, DangerLevel};
use crate::call::gate::TrustSource;
use crate::config::{Config, ConfirmBy, Fallback, LogFormat, Transport};
use crate::protocol::server::Shared;
use crate::state::Store;
use crate::transport;

/// Runs a generated adapter binary: parses its command line and environment, then serves
/// MCP until the client disconnects (stdio) or the process is interrupted (HTTP).
///
/// Logs go to stderr, without colours, as text or (`--log-format json`) one JSON object per
/// line; `RUST_LOG` picks the level (default `info`).
pub fn run<A: Adapter>() -> ExitCode {
    let config = Config::from_env(A::SERVER, A::MEMBERS);
    init_tracing(config.log_format);
    // One stdio connection is served best by one thread: no hand-offs between workers.
    let mut builder = match config.transport {
        Transport::Stdio => tokio::runtime::Builder::new_current_thread(),
        Transport::Http => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::error!(%error, "cannot start the async runtime");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve::<A>(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_writer(crate::redact::RedactingStderr)
        .with_ansi(false)
        .with_env_filter(filter);
    // A second initialisation (e.g. a test harness already set one) keeps the first.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

/// Serves `A` with `config` until the transport ends.
///
/// # Errors
///
/// A message for the operator when the server cannot start (a transport or state store this
/// build leaves out, among others) or the transport fails.
pub async fn serve<A: Adapter>(config: Config) -> Result<(), String> {
    if let Some(missing) = config.unbuilt() {
        return Err(missing.to_owned());
    }
    let auths: Vec<Auth> = A::MEMBERS.iter().map(|member| member.auth).collect();
    if let Some(refusal) = config.exposure(&auths) {
        return Err(refusal);
    }
    if let Some(resource) = &config.resource
        && let Some(unknown) = resource
            .scopes
            .operations()
            .find(|operation| crate::protocol::scopes::scoped(operation, A::route).is_none())
    {
        return Err(format!(
            "--scope names '{unknown}', which is no operation of this adapter"
        ));
    }
    let store = Arc::new(Store::open(&config.state, A::SERVER.name).await?);
    let shared = Arc::new(
        Shared::<A>::new(config, store)
            .await
            .map_err(|error| error.message)?,
    );
    let config = shared.config().clone();
    let first = shared.policy(0);
    let deny: Vec<&str> = first.deny.iter().map(|level| level.as_str()).collect();
    tracing::info!(
        adapter = A::SERVER.name,
        version = A::SERVER.version,
        mode = config.mode.protocol_name(),
        prefix = %config.tool_prefix,
        confirm_at = first.confirm_at.map_or("", |level| level.as_str()),
        deny = %deny.join(","),
        confirmation = %first.describe()["confirmation"],
        safety_loop = config.safety.safety_loop.mode.as_str(),
        audit_log = %config.safety.audit_log.as_ref().map(|path| path.display().to_string()).unwrap_or_default(),
        state = config.state.describe(),
        stateless = config.stateless,
        "starting MCP-AQL server"
    );
    if config.tool_prefix.len() >= 20 {
        tracing::warn!(
            prefix = %config.tool_prefix,
            "tool prefix is 20 characters or longer"
        );
    }
    for (member, info) in A::MEMBERS.iter().enumerate() {
        report_member(&shared, member, info.name);
    }
    if config.safety.confirm.fallback == Fallback::Token
        && DangerLevel::ALL
            .iter()
            .any(|level| first.confirm.by(*level) != ConfirmBy::Token)
    {
        tracing::info!(
            "clients without elicitation confirm with tokens the model brings back; --confirm-fallback refuse lets only a person confirm"
        );
    }
    if config.safety.tokens.clock_skew > Duration::from_secs(60) {
        tracing::warn!(
            seconds = config.safety.tokens.clock_skew.as_secs(),
            "a clock-skew tolerance above 60 s widens the window for replaying a token"
        );
    }
    match config.transport {
        Transport::Stdio => transport::stdio::serve(shared).await,
        #[cfg(feature = "http")]
        Transport::Http => {
            transport::http::serve(shared, SocketAddr::new(config.bind, config.port)).await
        }
        #[cfg(not(feature = "http"))]
        Transport::Http => Err(crate::config::NO_HTTP.to_owned()),
    }
}

/// Logs what one adapter of the server is held to: where it calls, its trust level and what
/// that decides, and its limits. An adapter no one vouched for is warned about.
fn report_member<A: Adapter>(shared: &Shared<A>, member: usize, name: &str) {
    let policy = shared.policy(member);
    let limits = shared.limits(member);
    let rate_limits: Vec<String> = limits
        .rates
        .iter()
        .map(|limit| format!("{}/{}", limit.limit, limit.window))
        .collect();
    let quotas: Vec<String> = limits
        .quotas
        .iter()
        .map(|quota| {
            let hard = quota
                .hard_stop
                .map(|hard| format!("/{hard}"))
                .unwrap_or_default();
            format!("{}={}/{}{hard}", quota.metric(), quota.warn, quota.pause)
        })
        .collect();
    tracing::info!(
        adapter = name,
        base_url = shared.base_url(member),
        trust_level = policy.trust.as_str(),
        trust_source = policy.trust_source.as_str(),
        decisions = %policy.table(),
        rate_limits = %rate_limits.join(","),
        quotas = %quotas.join(","),
        "serving adapter"
    );
    if policy.trust_source == TrustSource::Default {
        tracing::warn!(
            adapter = name,
            "the schema declares no trust level, so the adapter is untested and answers only \
             'introspect'; vouch for it with --trust-level (or MCP_AQL_TRUST_LEVEL)"
        );
    }
}
