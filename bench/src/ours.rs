//! The generated server measured in one endpoint mode, over stdio, against the demo upstream.

use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::{Value, json};
use tokio::process::Command;

use crate::agent;
use crate::client::Client;
use crate::figures::Figures;
use crate::{measure, proc, tasks, tokens};

/// The trust level the five tasks run at.
const TASK_TRUST: &str = "validated";

/// How to start the server and how hard to load it.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The server binary.
    pub binary: PathBuf,
    /// Environment of every server process (base URL, token).
    pub env: Vec<(String, String)>,
    /// Spawns for the cold-start medians.
    pub cold_runs: usize,
    /// Calls before timing starts.
    pub warmup_calls: usize,
    /// Timed calls at concurrency 1.
    pub calls_c1: usize,
    /// Timed calls at concurrency 32.
    pub calls_c32: usize,
    /// The upstream's `get_repo` URL, called directly for the paired overhead rounds.
    pub floor_url: String,
    /// Paired overhead rounds (each `calls_c1 / overhead_rounds` calls each way).
    pub overhead_rounds: usize,
}

impl Setup {
    /// The server in `mode`, ready to spawn.
    pub fn command(&self, mode: &str) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .args(["--mode", mode])
            .envs(self.env.iter().cloned());
        command
    }
}

/// `repos_get` of the demo upstream's repository: the call the load runs.
pub fn get_repo_arguments() -> Value {
    json!({"operation": "repos_get", "params": {"owner": "octo", "repo": "hello-world"}})
}

/// Every figure of the server in `mode` (`crude` or `single`).
pub async fn measure(setup: &Setup, mode: &str) -> anyhow::Result<Figures> {
    let mut figures = Figures {
        name: format!("aqlgen {mode}"),
        ..Figures::default()
    };

    eprintln!("bench: aqlgen {mode}: tools/list and the scripted first call");
    let client = Client::stdio(setup.command(mode))?;
    let first = agent::list_open_issues(&client, "octo", "hello-world").await?;
    client.close().await?;
    figures.first_call_tokens = Some(first.tokens());
    let steps: Vec<String> = first
        .steps
        .iter()
        .map(|(step, spent)| format!("{step} {spent}"))
        .collect();
    figures
        .notes
        .push(format!("first call steps: {}", steps.join(", ")));

    eprintln!("bench: aqlgen {mode}: five tasks and the query tasks");
    let connect = || async {
        let mut command = setup.command(mode);
        command.env("MCP_AQL_TRUST_LEVEL", TASK_TRUST);
        Client::stdio(command)
    };
    figures.tasks = tasks::run_all(connect, tasks::Script::Aqlgen, &tasks::Task::ALL).await;
    figures.query_tasks = tasks::run_all(connect, tasks::Script::Aqlgen, &tasks::Task::QUERY).await;
    if mode == "crude" {
        figures.plain_query_tasks =
            tasks::run_all(connect, tasks::Script::AqlgenPlain, &tasks::Task::QUERY).await;
    }
    figures.notes.push(format!(
        "tasks: run with `--trust-level {TASK_TRUST}`, which the operator sets for an agent \
         that opens pull requests and labels issues (the import's own level, `generated`, \
         refuses every operation that changes something)"
    ));

    let client = Client::stdio(setup.command(mode))?;
    client.initialize().await?;
    let tools = client.request("tools/list", json!({})).await?;
    let listed = tools.result().to_string();
    figures.tools = Some(tools.tool_names()?.len());
    figures.tools_list_bytes = Some(listed.len());
    figures.tools_list_tokens = Some(tokens::count(&listed));

    eprintln!("bench: aqlgen {mode}: load");
    let tool = if mode == "single" {
        "mcp_aql"
    } else {
        "mcp_aql_read"
    };
    let arguments = get_repo_arguments();
    measure::load(&client, tool, arguments.clone(), 32, setup.warmup_calls).await?;
    let pid = client.pid().context("stdio server without a pid")?;
    let cpu_before = proc::cpu_secs(pid);
    let c1 = measure::load(&client, tool, arguments.clone(), 1, setup.calls_c1).await?;
    let c32 = measure::load(&client, tool, arguments.clone(), 32, setup.calls_c32).await?;
    if let (Some(before), Some(after)) = (cpu_before, proc::cpu_secs(pid)) {
        let calls = (setup.calls_c1 + setup.calls_c32) as f64;
        figures.cpu_us_per_call = Some((after - before) * 1e6 / calls);
    }
    figures.overhead_c1_rounds_us = measure::paired_overhead(
        &client,
        tool,
        &arguments,
        &setup.floor_url,
        setup.overhead_rounds,
        setup.calls_c1 / setup.overhead_rounds,
    )
    .await?;
    figures.notes.push(format!(
        "overhead at c1: {} paired rounds of {} calls through the server, each followed by as \
         many direct calls",
        setup.overhead_rounds,
        setup.calls_c1 / setup.overhead_rounds
    ));
    figures.ping_c1 = Some(measure::pings(&client, 1, setup.calls_c1).await?);
    figures.load_c1 = Some(c1);
    figures.load_c32 = Some(c32);
    figures.peak_rss_mib = proc::peak_rss_mib(pid);
    client.close().await?;

    eprintln!("bench: aqlgen {mode}: cold start x{}", setup.cold_runs);
    let (initialize, tools_list) =
        measure::cold_start(|| setup.command(mode), setup.cold_runs).await?;
    figures.cold_start_initialize_ms = Some(initialize);
    figures.cold_start_tools_list_ms = Some(tools_list);
    Ok(figures)
}
