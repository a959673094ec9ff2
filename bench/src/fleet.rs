//! The fleet figures: the server over stateless streamable HTTP, every call counted in its
//! state store (a rate limit no run reaches), `repos_get` at concurrency 32 on the embedded
//! store, on its file, on Redis, and on two instances sharing Redis with the calls spread
//! over both as a load balancer would.

use std::fmt::Write as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::client::Client;
use crate::figures::Load;
use crate::measure;
use crate::ours::{Setup, get_repo_arguments};
use crate::report::thousands;

/// One configuration measured.
pub struct Row {
    /// What ran: store and instance count.
    pub name: String,
    /// The c32 figures.
    pub load: Load,
}

/// A `redis-server` on a free port of 127.0.0.1, without persistence, stopped on drop.
struct Redis {
    _child: Child,
    url: String,
}

impl Redis {
    async fn start() -> anyhow::Result<Self> {
        let port = free_port()?;
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("redis-server is not installed (scripts/setup installs it)")?;
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Ok(Self {
                    _child: child,
                    url: format!("redis://127.0.0.1:{port}/"),
                });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("redis-server did not listen on 127.0.0.1:{port}")
    }
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// One adapter instance over stateless HTTP on `state`, and its endpoint.
async fn instance(setup: &Setup, state: &str) -> anyhow::Result<(Child, String)> {
    let mut child = Command::new(&setup.binary)
        .args(["--transport", "http", "--port", "0", "--stateless"])
        .args(["--state", state, "--rate-limit", "day=1000000000"])
        .envs(setup.env.iter().cloned())
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .context("spawn the adapter")?;
    let mut lines = BufReader::new(child.stderr.take().context("piped stderr")?).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .context("the adapter did not start within 30 s")??
            .context("the adapter exited before listening")?;
        if line.contains("streamable HTTP endpoint listening")
            && let Some(start) = line.find("http://")
        {
            let url = line[start..].split_whitespace().next().unwrap_or_default();
            break url.trim_matches('"').to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok((child, url))
}

/// Measures each configuration with `setup`'s warmup and c32 call counts.
pub async fn measure(setup: &Setup, work: &Path) -> anyhow::Result<Vec<Row>> {
    let redis = Redis::start().await?;
    let file: PathBuf = work.join("fleet-state.jsonl");
    for stale in ["", ".lock"] {
        let _ = std::fs::remove_file(format!("{}{stale}", file.display()));
    }
    let file_state = format!("file:{}", file.display());
    let configurations = [
        ("embedded memory, 1 instance", "memory", 1),
        ("embedded file, 1 instance", file_state.as_str(), 1),
        ("Redis, 1 instance", redis.url.as_str(), 1),
        ("Redis, 2 instances", redis.url.as_str(), 2),
    ];
    let mut rows = Vec::new();
    for (name, state, count) in configurations {
        eprintln!("bench: fleet: {name}");
        let mut instances = Vec::new();
        let mut clients = Vec::new();
        for _ in 0..count {
            let (child, url) = instance(setup, state).await?;
            let client = Client::http(&url).await?;
            client.initialize().await?;
            instances.push(child);
            clients.push(client);
        }
        let arguments = get_repo_arguments();
        let tool = "mcp_aql_read";
        measure::load_over(&clients, tool, arguments.clone(), 32, setup.warmup_calls).await?;
        let load = measure::load_over(&clients, tool, arguments, 32, setup.calls_c32).await?;
        rows.push(Row {
            name: name.to_owned(),
            load,
        });
        drop(instances);
    }
    Ok(rows)
}

/// The fleet table, for the fleet section of docs/benchmarks.md; `date` is the day measured,
/// `YYYY-MM-DD`.
pub fn render(rows: &[Row], calls: usize, cores: usize, date: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Measured by `scripts/bench` on {date} ({} `repos_get` calls at concurrency 32 per \
         row, after a warmup, on the 1,223-operation GitHub import over stateless HTTP against \
         demo-upstream; every call is counted in the store under a rate limit it never \
         reaches; {cores} cores shared by the client, the instances, Redis and the upstream):\n",
        thousands(calls)
    );
    let _ = writeln!(out, "| state | calls/s | p50 | p99 |");
    let _ = writeln!(out, "|---|---:|---:|---:|");
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} ms | {:.2} ms |",
            row.name,
            thousands(row.load.calls_per_sec.round() as usize),
            row.load.p50_us / 1e3,
            row.load.p99_us / 1e3
        );
    }
    out
}
