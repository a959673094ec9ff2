//! Process entry: tracing, configuration, and serving on stdio or streamable HTTP.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::adapter::Adapter;
use crate::call::gate::TrustSource;
use crate::config::{Config, LogFormat, Transport};
use crate::protocol::server::{AqlServer, Shared};
use crate::state::Store;
use crate::transport::frame::FrameLimits;
use crate::transport::http::intake::{HttpIntake, guard};
use crate::transport::http::listener::{self, Connections};
use crate::transport::http::probes;
use crate::transport::http::sessions::{self as idle_sessions, Activity};
use crate::transport::stdio::lines::LineTransport;

/// Runs a generated adapter binary: parses its command line and environment, then serves
/// MCP until the client disconnects (stdio) or the process is interrupted (HTTP).
///
/// Logs go to stderr, without colours, as text or (`--log-format json`) one JSON object per
/// line; `RUST_LOG` picks the level (default `info`).
pub fn run<A: Adapter>() -> ExitCode {
    init_tracing(LogFormat::from_process());
    let config = Config::from_env(A::INFO);
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
/// A message for the operator when the server cannot start or the transport fails.
pub async fn serve<A: Adapter>(config: Config) -> Result<(), String> {
    let store = Arc::new(Store::open(&config.state, A::INFO.name).await?);
    let shared = Arc::new(
        Shared::<A>::new(config, store)
            .await
            .map_err(|error| error.message)?,
    );
    let config = shared.config().clone();
    let policy = shared.policy();
    let limits = shared.limits();
    let deny: Vec<&str> = policy.deny.iter().map(|level| level.as_str()).collect();
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
        adapter = A::INFO.name,
        version = A::INFO.version,
        mode = config.mode.protocol_name(),
        prefix = %config.tool_prefix,
        base_url = shared.base_url(),
        trust_level = policy.trust.as_str(),
        trust_source = policy.trust_source.as_str(),
        confirm_at = policy.confirm_at.map_or("", |level| level.as_str()),
        deny = %deny.join(","),
        decisions = %policy.table(),
        rate_limits = %rate_limits.join(","),
        quotas = %quotas.join(","),
        audit_log = %config.safety.audit_log.as_ref().map(|path| path.display().to_string()).unwrap_or_default(),
        state = config.state.describe(),
        stateless = config.stateless,
        "starting MCP-AQL server"
    );
    if policy.trust_source == TrustSource::Default {
        tracing::warn!(
            "the schema declares no trust level, so the adapter is untested and answers only \
             'introspect'; vouch for it with --trust-level (or MCP_AQL_TRUST_LEVEL)"
        );
    }
    if config.safety.tokens.clock_skew > Duration::from_secs(60) {
        tracing::warn!(
            seconds = config.safety.tokens.clock_skew.as_secs(),
            "a clock-skew tolerance above 60 s widens the window for replaying a token"
        );
    }
    match config.transport {
        Transport::Stdio => serve_stdio(shared).await,
        Transport::Http => serve_http(shared, SocketAddr::new(config.bind, config.port)).await,
    }
}

async fn serve_stdio<A: Adapter>(shared: Arc<Shared<A>>) -> Result<(), String> {
    let (input, output) = crate::transport::stdio::streams();
    let transport = LineTransport::new(input, output, FrameLimits::new(&shared.config().limits));
    let running = AqlServer::new(shared)
        .serve(transport)
        .await
        .map_err(|error| format!("MCP initialization over stdio failed: {error}"))?;
    let reason = running
        .waiting()
        .await
        .map_err(|error| format!("the stdio session ended abnormally: {error}"))?;
    tracing::info!(?reason, "stdio transport closed");
    Ok(())
}

/// Origins every HTTP server accepts: pages served from this machine, on any port.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

async fn serve_http<A: Adapter>(shared: Arc<Shared<A>>, address: SocketAddr) -> Result<(), String> {
    // On SIGTERM the listener stops taking connections and lets the open ones finish their
    // calls (within the listener's drain bound); only then are rmcp's sessions ended, so a
    // call in flight is answered rather than cut off.
    let shutdown = CancellationToken::new();
    let sessions_end = CancellationToken::new();
    let config = shared.config();
    let frames = FrameLimits::new(&config.limits);
    let transport = config.transport_limits;
    // A browser page may reach a local server (DNS rebinding): a request carrying an `Origin`
    // is served only from a loopback origin or one the operator listed. Clients that send no
    // `Origin` (every non-browser MCP client) are not affected.
    let origins = LOOPBACK_ORIGINS
        .iter()
        .map(|origin| (*origin).to_owned())
        .chain(config.allowed_origins.iter().cloned());
    // Stateless: every request is served on its own, so any instance behind a load balancer
    // can take it; simple answers come back as plain JSON rather than an event stream.
    let mut http_config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!config.stateless)
        .with_json_response(config.stateless)
        .with_cancellation_token(sessions_end.child_token())
        .with_max_request_body_bytes(frames.max_bytes)
        .with_allowed_origins(origins);
    if !address.ip().is_loopback() {
        // The `Host` check only makes sense for a server reachable as localhost; beyond
        // loopback the names clients use are the deployment's, so it is left to the proxy.
        tracing::warn!(%address, "listening beyond loopback: Host header checks are off");
        http_config = http_config.disable_allowed_hosts();
    }
    // Idle sessions are ended by `idle_sessions::reap`, which knows of calls in flight; rmcp's
    // keep-alive counts only its own events and would end a session waiting on a slow call.
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = None;
    let sessions = Arc::new(sessions);
    let activity = Arc::new(Activity::default());
    tokio::spawn(idle_sessions::reap(
        sessions.clone(),
        activity.clone(),
        transport.session_idle_timeout,
        sessions_end.child_token(),
    ));
    let factory_shared = shared.clone();
    let service = StreamableHttpService::new(
        move || Ok(AqlServer::new(factory_shared.clone())),
        sessions.clone(),
        http_config,
    );
    let intake = Arc::new(HttpIntake {
        limits: frames,
        sessions,
        max_sessions: usize::try_from(transport.max_sessions).unwrap_or(usize::MAX),
        body_timeout: transport.body_timeout,
        opening: tokio::sync::Mutex::new(()),
        activity,
    });
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(intake, guard))
        .merge(probes::router(shared.clone(), shutdown.clone()));
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    let local = listener
        .local_addr()
        .map_err(|error| format!("cannot read the listening address: {error}"))?;
    tracing::info!(url = %format!("http://{local}/mcp"), "streamable HTTP endpoint listening");
    let connections = Connections {
        max: usize::try_from(transport.max_connections).unwrap_or(usize::MAX),
        header_timeout: transport.header_timeout,
        idle_timeout: transport.idle_timeout,
    };
    if transport.idle_timeout < Duration::from_secs(20) {
        tracing::warn!(
            seconds = transport.idle_timeout.as_secs(),
            "an idle timeout under 20 s can close event streams between their 15 s keep-alives"
        );
    }
    let signal = shutdown.clone();
    tokio::spawn(async move {
        wait_for_signal().await;
        signal.cancel();
    });
    listener::serve(listener, router, connections, shutdown).await;
    sessions_end.cancel();
    tracing::info!("stopped");
    Ok(())
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!("shutting down");
}
