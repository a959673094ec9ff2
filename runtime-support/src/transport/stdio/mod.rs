//! The stdio transport: one MCP session on the process's standard input and output.
//!
//! An MCP client starts the server with pipes on stdin and stdout. Tokio's own `stdin()` and
//! `stdout()` run every read and write on its blocking thread pool, which costs two thread
//! hand-offs per message; a pipe can instead be made non-blocking and polled by the reactor
//! like a socket. When stdin or stdout is not a pipe (a terminal, a file), the blocking-pool
//! handles are used.

pub mod lines;

use std::sync::Arc;

use rmcp::ServiceExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::either::Either;

use crate::adapter::Adapter;
use crate::protocol::server::{AqlServer, Shared};
use crate::transport::frame::FrameLimits;
use lines::LineTransport;

/// Serves one MCP session on the process's standard streams until the client closes them.
///
/// # Errors
///
/// A message for the operator when the session cannot start or ends abnormally.
pub async fn serve<A: Adapter>(shared: Arc<Shared<A>>) -> Result<(), String> {
    let (input, output) = streams();
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

/// The reading and writing halves of the process's standard streams.
///
/// Must be called inside a Tokio runtime.
pub fn streams() -> (impl AsyncRead + Unpin, impl AsyncWrite + Unpin) {
    (input(), output())
}

#[cfg(unix)]
fn input() -> Either<tokio::net::unix::pipe::Receiver, tokio::io::Stdin> {
    use std::os::fd::AsFd;
    std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| tokio::net::unix::pipe::Receiver::from_file(std::fs::File::from(fd)))
        .map_or_else(|_| Either::Right(tokio::io::stdin()), Either::Left)
}

#[cfg(unix)]
fn output() -> Either<tokio::net::unix::pipe::Sender, tokio::io::Stdout> {
    use std::os::fd::AsFd;
    std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .and_then(|fd| tokio::net::unix::pipe::Sender::from_file(std::fs::File::from(fd)))
        .map_or_else(|_| Either::Right(tokio::io::stdout()), Either::Left)
}

#[cfg(not(unix))]
fn input() -> Either<tokio::io::Stdin, tokio::io::Stdin> {
    Either::Right(tokio::io::stdin())
}

#[cfg(not(unix))]
fn output() -> Either<tokio::io::Stdout, tokio::io::Stdout> {
    Either::Right(tokio::io::stdout())
}
