//! `demo-upstream --port 4010`: serves the example APIs until Ctrl-C. Prints exactly one line to
//! stdout, the base URL, so a script can read it; logs (`RUST_LOG=debug`) go to stderr.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

/// An in-memory stand-in for the GitHub-like and todo APIs of `adapters/`.
#[derive(Debug, Parser)]
#[command(version)]
struct Cli {
    /// Port to listen on, on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Require `Authorization: Bearer <TOKEN>` on the GitHub-like routes.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Require `X-Api-Key: <KEY>` on the todo routes (`/todos...`, `/activity`, `/jobs...`).
    #[arg(long, value_name = "KEY")]
    api_key: Option<String>,
    /// Calls the GitHub-like routes allow per hour, announced in `X-RateLimit-*` headers.
    #[arg(long, value_name = "CALLS", default_value_t = 5000)]
    github_rate_limit: u64,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    let options = demo_upstream::Options {
        port: cli.port,
        bearer_token: cli.token,
        api_key: cli.api_key,
        faults: Vec::new(),
        github_rate_limit: Some(cli.github_rate_limit),
        ..demo_upstream::Options::default()
    };
    let server = match demo_upstream::spawn(options).await {
        Ok(server) => server,
        Err(error) => {
            tracing::error!(%error, port = cli.port, "cannot listen");
            return ExitCode::FAILURE;
        }
    };
    let mut stdout = std::io::stdout().lock();
    if writeln!(stdout, "{}", server.base_url())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    drop(stdout);
    if let Err(error) = tokio::signal::ctrl_c().await {
        tracing::error!(%error, "cannot wait for Ctrl-C");
        return ExitCode::FAILURE;
    }
    drop(server);
    ExitCode::SUCCESS
}
