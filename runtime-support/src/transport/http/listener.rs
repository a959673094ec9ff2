//! The HTTP listener: HTTP/1.1 connections under a cap, each with a header-read deadline and
//! an idle timeout, so slow or silent clients cannot hold the server's sockets.
//!
//! A connection over the cap is answered `503` with `Retry-After` and closed. A connection
//! that sends nothing and is sent nothing for the idle timeout is closed; streams stay busy
//! through rmcp's SSE keep-alive comments (every 15 s), so only dead connections go.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::transport::http::intake::RETRY_AFTER_SECONDS;

/// Connection limits and timeouts.
#[derive(Debug, Clone, Copy)]
pub struct Connections {
    pub max: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    /// How long open connections get to finish after shutdown begins.
    pub drain: Duration,
}

/// Serves `router` on `listener` until `shutdown` is cancelled, then drains.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: Connections,
    shutdown: CancellationToken,
) {
    let permits = Arc::new(Semaphore::new(limits.max));
    let tracker = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Typically out of file descriptors: back off instead of spinning.
                tracing::warn!(%error, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tracing::warn!(%peer, max = limits.max, "refused a connection: the connection cap is reached");
            tracker.spawn(refuse(stream));
            continue;
        };
        let router = router.clone();
        let shutdown = shutdown.clone();
        tracker.spawn(async move {
            connection(stream, peer, router, limits, shutdown).await;
            drop(permit);
        });
    }
    tracker.close();
    if tokio::time::timeout(limits.drain, tracker.wait())
        .await
        .is_err()
    {
        tracing::info!(
            "closing connections still open after {} s",
            limits.drain.as_secs()
        );
    }
}

async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: axum::Router,
    limits: Connections,
    shutdown: CancellationToken,
) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        stream,
        activity: activity.clone(),
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let connection = builder.serve_connection(io, TowerToHyperService::new(router));
    tokio::pin!(connection);
    let mut draining = false;
    let mut closing = false;
    loop {
        // Once draining, a connection idle for a moment is closed: its client sent nothing
        // since its last answer, which told it `connection: close` (see `drain_notice`).
        let idle_for = if draining {
            DRAINING_IDLE.min(limits.idle_timeout)
        } else {
            limits.idle_timeout
        };
        let deadline = activity.last() + idle_for;
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%peer, %error, "connection ended with an error");
                }
                return;
            }
            () = tokio::time::sleep_until(deadline), if !closing => {
                if activity.last() + idle_for <= Instant::now() {
                    if draining {
                        // Ends the connection once any answer under way is sent.
                        connection.as_mut().graceful_shutdown();
                        closing = true;
                        continue;
                    }
                    tracing::debug!(%peer, "closed an idle connection");
                    return;
                }
            }
            () = shutdown.cancelled(), if !draining => draining = true,
        }
    }
}

/// How long a connection may sit idle once the server drains before it is closed. Closing a
/// kept-alive connection at once races a request its client is sending on it; every answer
/// while draining says `connection: close` instead, and only a connection whose client stays
/// silent is closed.
const DRAINING_IDLE: Duration = Duration::from_secs(1);

/// Marks every answer sent while the server drains `connection: close`, so that clients
/// open their next connection to the process that takes over.
pub async fn drain_notice(
    shutdown: axum::extract::State<CancellationToken>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let mut response = next.run(request).await;
    if shutdown.is_cancelled() {
        response.headers_mut().insert(
            hyper::header::CONNECTION,
            hyper::header::HeaderValue::from_static("close"),
        );
    }
    response
}

/// Answers a connection over the cap with `503` and closes it.
async fn refuse(mut stream: TcpStream) {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32000,"message":"Server busy: too many open connections; retry in {RETRY_AFTER_SECONDS} s"}}}}"#
    );
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: {RETRY_AFTER_SECONDS}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
}

/// When a connection last moved a byte, as milliseconds since it opened.
struct Activity {
    opened: Instant,
    last_ms: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Self {
            opened: Instant::now(),
            last_ms: AtomicU64::new(0),
        }
    }

    fn touch(&self) {
        let ms = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    fn last(&self) -> Instant {
        self.opened + Duration::from_millis(self.last_ms.load(Ordering::Relaxed))
    }
}

/// A stream that notes every byte it moves.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(poll, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        poll
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(poll, Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(poll, Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
