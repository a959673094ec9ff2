//! The streamable HTTP transport: `/mcp` behind an intake that judges every request before
//! rmcp reads it, sessions reaped when idle, a listener that bounds connections and slow
//! clients, the probes an orchestrator asks, and the handover of the listening socket to a
//! new binary.

pub mod authorize;
#[cfg(unix)]
pub mod handover;
pub mod idle;
pub mod intake;
pub mod listener;
pub mod origins;
pub mod priming;
pub mod probes;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::adapter::Adapter;
use crate::protocol::server::{AqlServer, Shared};
use crate::transport::frame::FrameLimits;
use idle::Activity;
use intake::{HttpIntake, guard};
use listener::Connections;

/// Serves streamable HTTP on `address` (`/mcp`, and the probes) until the process is told to
/// stop.
///
/// # Errors
///
/// A message for the operator when the address cannot be listened on.
pub async fn serve<A: Adapter>(shared: Arc<Shared<A>>, address: SocketAddr) -> Result<(), String> {
    // On SIGTERM the listener stops taking connections and lets the open ones finish their
    // calls (within the listener's drain bound); only then are rmcp's sessions ended, so a
    // call in flight is answered rather than cut off.
    let shutdown = CancellationToken::new();
    let sessions_end = CancellationToken::new();
    let config = shared.config();
    let frames = FrameLimits::new(&config.limits);
    let transport = config.transport_limits;
    // Stateless: every request is served on its own, so any instance behind a load balancer
    // can take it; simple answers come back as plain JSON rather than an event stream.
    let http_config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(!config.stateless)
        .with_json_response(config.stateless)
        .with_cancellation_token(sessions_end.child_token())
        .with_max_request_body_bytes(frames.max_bytes)
        // `Host` and `Origin` are judged by the intake, before anything else (`origins`).
        .disable_allowed_hosts();
    if !address.ip().is_loopback() {
        tracing::warn!(%address, "listening beyond loopback: Host header checks are off");
    }
    // Idle sessions are ended by `idle::reap`, which knows of calls in flight; rmcp's
    // keep-alive counts only its own events and would end a session waiting on a slow call.
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = None;
    let sessions = Arc::new(sessions);
    let activity = Arc::new(Activity::default());
    tokio::spawn(idle::reap(
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
    let authorizer = match &config.resource {
        Some(resource) => Some(Arc::new(authorize::Authorizer::new(
            resource.clone(),
            A::route,
            A::SERVER.name,
        )?)),
        None => None,
    };
    let intake = Arc::new(HttpIntake {
        authorizer: authorizer.clone(),
        limits: frames,
        sessions,
        max_sessions: usize::try_from(transport.max_sessions).unwrap_or(usize::MAX),
        body_timeout: transport.body_timeout,
        opening: tokio::sync::Mutex::new(()),
        activity,
        origins: origins::Origins::new(
            &config.allowed_origins,
            address.ip().is_loopback(),
            config.credential_header.as_deref(),
        ),
        credential_header: config.credential_header.clone(),
        owners: std::sync::Mutex::new(std::collections::HashMap::new()),
    });
    let mut router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(intake, guard))
        .merge(probes::router(shared.clone(), shutdown.clone()));
    if let Some(authorizer) = authorizer {
        for path in authorizer.metadata_paths() {
            let authorizer = authorizer.clone();
            router = router.route(
                &path,
                axum::routing::get(move || async move { authorizer.metadata() }),
            );
        }
    }
    let router = router.layer(axum::middleware::from_fn_with_state(
        shutdown.clone(),
        listener::drain_notice,
    ));
    let (listener, inherited) = listen(address).await?;
    // A state file is locked by the process that has it open, so a new process could not
    // open it while this one serves: such a server is replaced by a restart instead.
    let handover = match config.state {
        crate::config::Backend::File(_) => Err(
            "the state file is locked by this process, so a new binary cannot open it while this one serves; with --state file:, restart the server instead (under systemd socket activation no call fails)",
        ),
        _ => Ok(raw_fd(&listener)),
    };
    let signals = watch_signals(shutdown.clone(), handover);
    let local = listener
        .local_addr()
        .map_err(|error| format!("cannot read the listening address: {error}"))?;
    tracing::info!(
        url = %format!("http://{local}/mcp"),
        socket = if inherited { "inherited" } else { "bound" },
        "streamable HTTP endpoint listening"
    );
    let connections = Connections {
        max: usize::try_from(transport.max_connections).unwrap_or(usize::MAX),
        header_timeout: transport.header_timeout,
        idle_timeout: transport.idle_timeout,
        drain: transport.drain_timeout,
    };
    if transport.idle_timeout < Duration::from_secs(20) {
        tracing::warn!(
            seconds = transport.idle_timeout.as_secs(),
            "an idle timeout under 20 s can close event streams between their 15 s keep-alives"
        );
    }
    tokio::spawn(signals);
    #[cfg(unix)]
    handover::notify_ready().await;
    listener::serve(listener, router, connections, shutdown).await;
    sessions_end.cancel();
    tracing::info!("stopped");
    Ok(())
}

/// The socket to serve on: the one this process was handed, else a new one on `address`;
/// and whether it was handed over.
async fn listen(address: SocketAddr) -> Result<(tokio::net::TcpListener, bool), String> {
    #[cfg(unix)]
    if let Some(listener) = handover::inherited()? {
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|error| format!("cannot serve on the inherited socket: {error}"))?;
        return Ok((listener, true));
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    Ok((listener, false))
}

#[cfg(unix)]
type RawSocket = std::os::fd::RawFd;
#[cfg(not(unix))]
type RawSocket = ();

fn raw_fd(listener: &tokio::net::TcpListener) -> RawSocket {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        listener.as_raw_fd()
    }
    #[cfg(not(unix))]
    {
        let _ = listener;
    }
}

/// Starts the shutdown on SIGTERM or Ctrl-C, and after a handover of `socket` to a new
/// binary on SIGUSR2 (see [`handover`]), or says why this server cannot hand over.
#[cfg(unix)]
fn watch_signals(
    shutdown: CancellationToken,
    socket: Result<RawSocket, &'static str>,
) -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    // Registered now, before the server says it listens: a signal sent as soon as it does
    // finds its handler, not the default action, which ends the process.
    let signals = (
        signal(SignalKind::terminate()),
        signal(SignalKind::user_defined2()),
    );
    let relaunch = handover::Relaunch::capture();
    async move {
        watch(shutdown, socket, signals, relaunch).await;
    }
}

#[cfg(unix)]
async fn watch(
    shutdown: CancellationToken,
    socket: Result<RawSocket, &'static str>,
    signals: (
        std::io::Result<tokio::signal::unix::Signal>,
        std::io::Result<tokio::signal::unix::Signal>,
    ),
    relaunch: std::io::Result<handover::Relaunch>,
) {
    let (Ok(mut terminate), Ok(mut upgrade)) = signals else {
        let _ = tokio::signal::ctrl_c().await;
        shutdown.cancel();
        return;
    };
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            _ = terminate.recv() => break,
            _ = upgrade.recv() => {
                let socket = match socket {
                    Ok(socket) => socket,
                    Err(why) => {
                        tracing::error!("SIGUSR2 ignored: {why}");
                        continue;
                    }
                };
                let relaunch = match &relaunch {
                    Ok(relaunch) => relaunch,
                    Err(error) => {
                        tracing::warn!(%error, "cannot start a new binary: the path of this one is unknown");
                        continue;
                    }
                };
                tracing::info!("SIGUSR2: handing the listening socket to a new binary");
                tokio::select! {
                    started = relaunch.start(socket) => match started {
                        Ok(pid) => {
                            tracing::info!(pid, "the new binary is serving; this one stops taking connections and drains");
                            break;
                        }
                        Err(error) => tracing::error!("the handover failed, so this binary keeps serving: {error}"),
                    },
                    _ = terminate.recv() => break,
                }
            }
        }
    }
    tracing::info!("shutting down");
    shutdown.cancel();
}

#[cfg(not(unix))]
fn watch_signals(
    shutdown: CancellationToken,
    _socket: Result<RawSocket, &'static str>,
) -> impl Future<Output = ()> + Send + 'static {
    async move {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
        shutdown.cancel();
    }
}
