//! crate `rmcp-openapi`, through its server binary `rmcp-openapi-server`: interprets the
//! OpenAPI file at start-up and serves one tool per operation over streamable HTTP only, at
//! `http://<bind-address>:<port>/mcp`. Installed with `cargo install --locked`.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::json;
use tokio::process::{Child, Command};

use super::{
    Context, ISSUES_MARKER, Listed, OWNER, REPO, Tally, ensure_payload, failed_row, load_and_rss,
    run_step,
};
use crate::client::{Client, Reply};
use crate::figures::Figures;
use crate::measure::median;

const CRATE: &str = "rmcp-openapi-server";
const VERSION: &str = "0.32.1";

/// Tool names are GitHub's operationIds as they are.
const ISSUES_TOOL: &str = "issues/list-for-repo";
const REPO_TOOL: &str = "repos/get";

/// Spawns for the cold-start medians: each one waits for the full tools/list (13 MB of
/// JSON), so a slow tools/list gets fewer, at least [`MIN_COLD_RUNS`], within
/// [`COLD_BUDGET`].
const COLD_RUNS: usize = 20;
const MIN_COLD_RUNS: usize = 3;
const COLD_BUDGET: Duration = Duration::from_secs(60);

/// How long a start may take before the server counts as failed.
const START_TIMEOUT: Duration = Duration::from_secs(60);

pub async fn measure(ctx: &Context) -> Figures {
    let name = format!("rmcp-openapi {VERSION} ({CRATE}, streamable HTTP)");
    let dir = ctx.peers_dir().join("rmcp-openapi");
    let binary = match install(&dir).await {
        Ok(binary) => binary,
        Err(error) => return failed_row(&name, &error),
    };
    let mut figures = Figures {
        name,
        ..Figures::default()
    };
    let log = dir.join("server.log");
    let mut initialize = Vec::new();
    let mut tools_list = Vec::new();
    let mut runs = COLD_RUNS;
    let mut run = 0;
    while run < runs {
        let started = match Started::spawn(ctx, &binary, &log).await {
            Ok(started) => started,
            Err(error) => {
                figures.notes.push(format!("start {run} failed: {error:#}"));
                break;
            }
        };
        initialize.push(started.initialize_ms);
        tools_list.push(started.tools_list_ms);
        // The first process also serves the scripted first call and the load.
        if run == 0
            && let Err(error) = session(&started, &mut figures).await
        {
            figures.notes.push(format!("session failed: {error:#}"));
            if let Some(pid) = started.child.id() {
                figures.peak_rss_mib = crate::proc::peak_rss_mib(pid);
                figures
                    .notes
                    .push("peak RSS after tools/list, without load".to_owned());
            }
        }
        if run == 0 {
            let per_run = started.tools_list_ms.max(1.0) / 1e3;
            runs = ((COLD_BUDGET.as_secs_f64() / per_run) as usize).clamp(MIN_COLD_RUNS, COLD_RUNS);
        }
        started.stop().await;
        run += 1;
    }
    if !initialize.is_empty() {
        figures.cold_start_initialize_ms = Some(median(&mut initialize));
        figures.cold_start_tools_list_ms = Some(median(&mut tools_list));
        figures.notes.push(format!(
            "cold start: median of {} spawns (tools/list takes ~{:.1} s; runs sized to ~{} s), \
             spawn to the initialize answer over HTTP, polled every 5 ms until it listens",
            initialize.len(),
            median(&mut tools_list) / 1e3,
            COLD_BUDGET.as_secs()
        ));
    }
    figures
}

/// `cargo install --locked rmcp-openapi-server --version 0.32.1 --root <dir>/cargo`, skipped
/// when the binary is there and reports that version.
async fn install(dir: &Path) -> anyhow::Result<PathBuf> {
    let root = dir.join("cargo");
    let binary = root.join("bin").join(CRATE);
    if installed_version(&binary).await.as_deref() == Some(VERSION) {
        return Ok(binary);
    }
    let mut cargo = Command::new("cargo");
    // --locked: the crate's own Cargo.lock; --root: bin/ under the peers directory.
    cargo
        .args(["install", "--locked", CRATE, "--version", VERSION, "--root"])
        .arg(&root);
    run_step(cargo, &dir.join("install.log"), false).await?;
    match installed_version(&binary).await {
        Some(found) if found == VERSION => Ok(binary),
        found => bail!("cargo installed {CRATE} {found:?}, not {VERSION}"),
    }
}

/// The version `<binary> --version` prints ("rmcp-openapi-server 0.32.1").
async fn installed_version(binary: &Path) -> Option<String> {
    let output = Command::new(binary).arg("--version").output().await.ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    text.split_whitespace().last().map(str::to_owned)
}

/// A port on 127.0.0.1 that was free a moment ago.
fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// A server process, initialized and with its first tools/list answered.
struct Started {
    child: Child,
    client: Client,
    listed: Reply,
    initialize_ms: f64,
    tools_list_ms: f64,
}

impl Started {
    /// `rmcp-openapi-server <openapi> --base-url <upstream> --bind-address 127.0.0.1 --port
    /// <free>`: the default, stateless streamable HTTP; no `--header` (the demo upstream
    /// accepts requests without credentials).
    async fn spawn(ctx: &Context, binary: &Path, log: &Path) -> anyhow::Result<Started> {
        let port = free_port()?;
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)?;
        let mut command = Command::new(binary);
        command
            .arg(&ctx.openapi)
            .arg("--base-url")
            .arg(&ctx.upstream_base_url)
            .args(["--bind-address", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .kill_on_drop(true);
        let started = Instant::now();
        let mut child = command.spawn().context("spawning rmcp-openapi-server")?;
        let client = Client::http(&format!("http://127.0.0.1:{port}/mcp")).await?;
        loop {
            match client.initialize().await {
                Ok(_) => break,
                Err(error) => {
                    if let Some(status) = child.try_wait()? {
                        bail!("exited with {status} before answering: {error:#}");
                    }
                    if started.elapsed() > START_TIMEOUT {
                        bail!("no initialize answer within {START_TIMEOUT:?}: {error:#}");
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
        }
        let initialize_ms = started.elapsed().as_secs_f64() * 1e3;
        let listed = client.request("tools/list", json!({})).await?;
        let tools_list_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(Started {
            child,
            client,
            listed,
            initialize_ms,
            tools_list_ms,
        })
    }

    async fn stop(mut self) {
        let _ = self.client.close().await;
        let _ = self.child.kill().await;
    }
}

/// Registration figures from the first tools/list, the scripted first call (that same
/// tools/list, then the issues tool), load and peak RSS.
async fn session(started: &Started, figures: &mut Figures) -> anyhow::Result<()> {
    let listed = Listed::from_reply(started.listed.clone())?;
    listed.record(figures);
    let mut tally = Tally::default();
    tally.add("tools/list", &listed.reply.request, &listed.reply.text);
    let issues = listed.find(ISSUES_TOOL)?;
    // rmcp-openapi leaves out parameters GitHub declares by reference
    // (`$ref: #/components/parameters/owner`), so its tools may offer no owner or repo and
    // refuse them (additionalProperties: false): then no call can name the repository.
    let schema = listed.reply.result()["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|tool| tool["name"] == issues.as_str())
        .map(|tool| tool["inputSchema"]["properties"].clone())
        .unwrap_or_default();
    if schema.get("owner").is_none() || schema.get("repo").is_none() {
        bail!(
            "{issues} offers no owner or repo parameter (the path parameters GitHub declares \
             by $ref are left out), so no call can name the repository: no first-call figure \
             and no load; {} tokens spent on tools/list",
            tally.total()
        );
    }
    let arguments = json!({"owner": OWNER, "repo": REPO, "state": "open"});
    let call = started.client.call_tool(&issues, arguments).await?;
    ensure_payload(&call, ISSUES_MARKER)?;
    tally.finish(&issues, &call, figures);

    let repo = listed.find(REPO_TOOL)?;
    let arguments = json!({"owner": OWNER, "repo": REPO});
    load_and_rss(
        &started.client,
        started.child.id(),
        &repo,
        arguments,
        figures,
    )
    .await;
    Ok(())
}
