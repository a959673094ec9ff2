//! The peers, measured in the same run on the same OpenAPI file as aqlgen: two npm packages
//! (`openapi-mcp-generator`, `@ivotoby/openapi-mcp-server` in two modes) and the Rust crate
//! `rmcp-openapi`. Each is installed from its registry at a pinned version into
//! `<work_dir>/peers` on the first run and reused afterwards.
//!
//! A peer that fails to install, start or answer still gets its row: the figures it produced
//! and a note saying what went wrong.

mod generator;
mod ivotoby;
mod rmcp_openapi;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::{Value, json};
use tokio::process::Command;

use crate::client::{Client, Reply};
use crate::figures::{Figures, Load};
use crate::tasks::{self, DiscreteTools};
use crate::{measure, proc, tokens};

/// What every peer measurement needs.
#[derive(Debug, Clone)]
pub struct Context {
    /// GitHub's OpenAPI document.
    pub openapi: PathBuf,
    /// The demo upstream, e.g. `http://127.0.0.1:4010`.
    pub upstream_base_url: String,
    /// The bench work directory (`bench/work`); peers are installed under its `peers/`.
    pub work_dir: PathBuf,
}

impl Context {
    /// Where peers are installed, generated and logged.
    fn peers_dir(&self) -> PathBuf {
        self.work_dir.join("peers")
    }
}

/// The repository every scripted call is about: the demo upstream's seed.
const OWNER: &str = "octo";
const REPO: &str = "hello-world";

/// Text that only a successful "list open issues" answer carries: the seed's open issue.
const ISSUES_MARKER: &str = "Found a bug";
/// Text that only a successful "get repository" answer carries.
const REPO_MARKER: &str = "octo/hello-world";

/// Wall-clock budget of each load run of a peer; slow peers get fewer calls.
const LOAD_BUDGET: Duration = Duration::from_secs(15);

/// The figures of every peer that runs here, in a fixed order.
pub async fn measure_all(ctx: &Context) -> Vec<Figures> {
    let mut rows = vec![generator::measure(ctx).await];
    rows.extend(ivotoby::measure(ctx).await);
    rows.push(rmcp_openapi::measure(ctx).await);
    rows
}

/// A row that holds only a note: the peer could not be measured at all.
fn failed_row(name: &str, error: &anyhow::Error) -> Figures {
    Figures {
        name: name.to_owned(),
        notes: vec![format!("not measured: {error:#}")],
        ..Figures::default()
    }
}

/// Runs an install or build step, its output appended to `log`; fails on a non-zero exit
/// unless `allow_failure`, and returns whether it succeeded.
async fn run_step(mut command: Command, log: &Path, allow_failure: bool) -> anyhow::Result<bool> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("opening {}", log.display()))?;
    let shown = format!("{:?}", command.as_std());
    eprintln!("bench: peers: {shown}");
    let status = command
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .kill_on_drop(true)
        .status()
        .await
        .with_context(|| format!("running {shown}"))?;
    if !status.success() && !allow_failure {
        bail!("{shown} failed ({status}); see {}", log.display());
    }
    Ok(status.success())
}

/// The `version` field of an installed npm package, if it is there.
fn npm_version(package_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(package_dir.join("package.json")).ok()?;
    let manifest: Value = serde_json::from_str(&text).ok()?;
    manifest["version"].as_str().map(str::to_owned)
}

/// Installs `package@version` into `prefix` with npm unless that version is already there;
/// returns the package's directory.
async fn npm_install(prefix: &Path, package: &str, version: &str) -> anyhow::Result<PathBuf> {
    let package_dir = prefix.join("node_modules").join(package);
    if npm_version(&package_dir).as_deref() == Some(version) {
        return Ok(package_dir);
    }
    std::fs::create_dir_all(prefix)?;
    let mut npm = Command::new("npm");
    // --prefix: install into this directory's node_modules, not the global one.
    npm.arg("install")
        .arg("--prefix")
        .arg(prefix)
        .args(["--no-audit", "--no-fund", "--save-exact"])
        .arg(format!("{package}@{version}"));
    run_step(npm, &prefix.join("install.log"), false).await?;
    match npm_version(&package_dir) {
        Some(found) if found == version => Ok(package_dir),
        found => bail!("npm installed {package} {found:?}, not {version}"),
    }
}

/// What a tools/list answer registers.
struct Listed {
    reply: Reply,
    names: Vec<String>,
}

impl Listed {
    async fn fetch(client: &Client) -> anyhow::Result<Listed> {
        let reply = client.request("tools/list", json!({})).await?;
        Listed::from_reply(reply)
    }

    fn from_reply(reply: Reply) -> anyhow::Result<Listed> {
        let names = reply.tool_names()?;
        Ok(Listed { reply, names })
    }

    /// Fills the registration figures: tool count, bytes and tokens of the result.
    fn record(&self, figures: &mut Figures) {
        let result = self.reply.result().to_string();
        figures.tools = Some(self.names.len());
        figures.tools_list_bytes = Some(result.len());
        figures.tools_list_tokens = Some(tokens::count(&result));
    }

    /// `name` if the list registers it: the scripted agent only calls tools it was shown.
    fn find(&self, name: &str) -> anyhow::Result<String> {
        self.names
            .iter()
            .find(|listed| *listed == name)
            .cloned()
            .with_context(|| format!("tools/list does not register {name}"))
    }
}

/// The tokens a scripted agent spends, step by step: request and response texts.
#[derive(Default)]
struct Tally {
    steps: Vec<(String, usize)>,
}

impl Tally {
    fn add(&mut self, step: impl Into<String>, request: &str, response: &str) {
        let spent = tokens::count(request) + tokens::count(response);
        self.steps.push((step.into(), spent));
    }

    fn total(&self) -> usize {
        self.steps.iter().map(|(_, spent)| spent).sum()
    }

    /// Counts the successful issues call `call` of `tool` (its payload as null) as the last
    /// step and records the first-call total and its steps in `figures`.
    fn finish(mut self, tool: &str, call: &Reply, figures: &mut Figures) {
        self.add(
            format!("{tool} (payload as null)"),
            &call.request,
            &without_payload(call),
        );
        figures.first_call_tokens = Some(self.total());
        figures
            .notes
            .push(format!("first call steps: {}", self.describe()));
    }

    /// "tools/list 373616, issues_list-for-repo (payload as null) 612".
    fn describe(&self) -> String {
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|(step, spent)| format!("{step} {spent}"))
            .collect();
        steps.join(", ")
    }
}

/// Fails unless a `tools/call` answer is a success carrying `marker`: some peers report
/// upstream failures as plain text without `isError`.
fn ensure_payload(reply: &Reply, marker: &str) -> anyhow::Result<()> {
    let failed = reply.result()["isError"] == Value::Bool(true);
    if failed || !reply.text.contains(marker) {
        bail!(
            "call did not return the upstream's answer: {}",
            crate::client::truncate(&reply.text, 300)
        );
    }
    Ok(())
}

/// The response text of a `tools/call` with the upstream's payload replaced by `null`, the
/// peer's own wrapping kept: a content text that is JSON becomes `null`, a text that ends in
/// JSON (`API Response (Status: 200):\n[...]`) keeps its prefix, and `structuredContent`
/// (the payload again, parsed) becomes `null`.
fn without_payload(reply: &Reply) -> String {
    let mut message = reply.value.clone();
    let result = &mut message["result"];
    if let Some(blocks) = result["content"].as_array_mut() {
        for block in blocks {
            if let Some(text) = block["text"].as_str() {
                block["text"] = Value::String(strip_json_tail(text));
            }
        }
    }
    if let Some(structured) = result.get_mut("structuredContent") {
        *structured = Value::Null;
    }
    message.to_string()
}

/// `text` with its trailing JSON document replaced by `null`.
fn strip_json_tail(text: &str) -> String {
    let starts = text.match_indices(['{', '[']).map(|(at, _)| at);
    for at in starts {
        if serde_json::from_str::<Value>(&text[at..]).is_ok() {
            return format!("{}null", &text[..at]);
        }
    }
    text.to_owned()
}

/// Runs `calls` calls of `call` at `concurrency` and returns the load figures; `calls` is
/// first sized so that the run fits [`LOAD_BUDGET`], from a timed warm-up at the same
/// concurrency. The answer is checked for `marker` before and after.
async fn load_within_budget(
    client: &Client,
    tool: &str,
    arguments: &Value,
    concurrency: usize,
    max_calls: usize,
) -> anyhow::Result<(Load, usize)> {
    let probe = client.call_tool(tool, arguments.clone()).await?;
    ensure_payload(&probe, REPO_MARKER)?;
    let warmup = (concurrency * 4).max(20);
    let started = Instant::now();
    measure::load(client, tool, arguments.clone(), concurrency, warmup).await?;
    let rate = warmup as f64 / started.elapsed().as_secs_f64();
    let calls = ((rate * LOAD_BUDGET.as_secs_f64()) as usize).clamp(warmup, max_calls);
    let load = measure::load(client, tool, arguments.clone(), concurrency, calls).await?;
    let check = client.call_tool(tool, arguments.clone()).await?;
    ensure_payload(&check, REPO_MARKER)?;
    Ok((load, calls))
}

/// Load at concurrency 1 and 32 and the peak RSS after it, recorded into `figures`; a failed
/// load leaves a note.
async fn load_and_rss(
    client: &Client,
    pid: Option<u32>,
    tool: &str,
    arguments: Value,
    figures: &mut Figures,
) {
    let mut sizes = Vec::new();
    for (concurrency, max_calls) in [(1, 5_000), (32, 20_000)] {
        match load_within_budget(client, tool, &arguments, concurrency, max_calls).await {
            Ok((load, calls)) => {
                sizes.push(format!("{calls} at c{concurrency}"));
                if concurrency == 1 {
                    figures.load_c1 = Some(load);
                } else {
                    figures.load_c32 = Some(load);
                }
            }
            Err(error) => figures.notes.push(format!(
                "load at concurrency {concurrency} failed: {error:#}"
            )),
        }
    }
    if !sizes.is_empty() {
        figures.notes.push(format!(
            "load: {tool} {arguments}, calls sized to ~{} s per run: {}",
            LOAD_BUDGET.as_secs(),
            sizes.join(", ")
        ));
    }
    figures.peak_rss_mib = pid.and_then(proc::peak_rss_mib);
}

/// How to measure a stdio peer that registers one tool per operation.
struct DiscreteStdio<'a> {
    /// Starts a fresh server process.
    spawn: &'a dyn Fn() -> Command,
    /// How it names its tools and takes a body.
    tools: DiscreteTools,
}

/// Spawns for a discrete-tool peer's cold-start medians.
const COLD_RUNS: usize = 20;

/// Every figure of a discrete-tool stdio peer into `figures`: tools/list, the scripted first
/// call (tools/list, then the issues tool), load and RSS on that same process, the five
/// tasks, cold start.
async fn measure_discrete_stdio(peer: &DiscreteStdio<'_>, figures: &mut Figures) {
    if let Err(error) = session_discrete(peer, figures).await {
        figures.notes.push(format!("session failed: {error:#}"));
    }
    eprintln!("bench: {}: five tasks and the query tasks", figures.name);
    figures.tasks = tasks::run_all(
        || async { Client::stdio((peer.spawn)()) },
        tasks::Script::Discrete(peer.tools),
        &tasks::Task::ALL,
    )
    .await;
    figures.query_tasks = tasks::run_all(
        || async { Client::stdio((peer.spawn)()) },
        tasks::Script::Discrete(peer.tools),
        &tasks::Task::QUERY,
    )
    .await;
    match measure::cold_start(peer.spawn, COLD_RUNS).await {
        Ok((initialize, tools_list)) => {
            figures.cold_start_initialize_ms = Some(initialize);
            figures.cold_start_tools_list_ms = Some(tools_list);
        }
        Err(error) => figures.notes.push(format!("cold start failed: {error:#}")),
    }
}

async fn session_discrete(peer: &DiscreteStdio<'_>, figures: &mut Figures) -> anyhow::Result<()> {
    let client = Client::stdio((peer.spawn)())?;
    client.initialize().await?;
    let listed = Listed::fetch(&client).await?;
    listed.record(figures);

    let mut tally = Tally::default();
    tally.add("tools/list", &listed.reply.request, &listed.reply.text);
    let issues = listed.find(&(peer.tools.tool_name)("issues/list-for-repo"))?;
    let arguments = json!({"owner": OWNER, "repo": REPO, "state": "open"});
    let call = client.call_tool(&issues, arguments).await?;
    ensure_payload(&call, ISSUES_MARKER)?;
    tally.finish(&issues, &call, figures);

    let repo = listed.find(&(peer.tools.tool_name)("repos/get"))?;
    let arguments = json!({"owner": OWNER, "repo": REPO});
    load_and_rss(&client, client.pid(), &repo, arguments, figures).await;
    client.close().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_trailing_payload_only() {
        assert_eq!(strip_json_tail("[{\"a\":1}]"), "null");
        assert_eq!(
            strip_json_tail("API Response (Status: 200):\n{\n  \"a\": [1]\n}"),
            "API Response (Status: 200):\nnull"
        );
        assert_eq!(strip_json_tail("Error: {not json"), "Error: {not json");
    }

    #[test]
    fn payload_becomes_null_in_the_message() {
        let value = json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "[1,2]"}], "structuredContent": {"a": 1}}});
        let reply = Reply {
            request: String::new(),
            text: value.to_string(),
            value,
        };
        assert_eq!(
            without_payload(&reply),
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"null"}],"structuredContent":null}}"#
        );
    }
}
