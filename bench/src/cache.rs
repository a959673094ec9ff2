//! What the response cache saves on a repeated-read task: an agent that reads the same
//! repository, issue list, issue and pull request again and again, on the GitHub import,
//! against a demo-upstream that answers about caching as GitHub does (`private, max-age=60`
//! and 304s) and takes [`LATENCY`] per answer, as a remote API would. The server runs with
//! the cache on, and with `--cache off`; the figures are the upstream requests sent and the
//! time the agent waited.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::{Value, json};

use crate::client::Client;

/// The time the upstream takes to answer, standing in for a network round trip.
pub const LATENCY: Duration = Duration::from_millis(40);

/// How often the agent repeats its reads.
const ROUNDS: usize = 10;

/// One run of the task.
#[derive(Debug, Clone)]
pub struct Run {
    /// `on` or `off`.
    pub cache: &'static str,
    /// Calls the agent made.
    pub calls: usize,
    /// Requests demo-upstream received.
    pub upstream_requests: usize,
    /// Time of all calls, one after another.
    pub total: Duration,
    /// Median time of one call.
    pub p50: Duration,
}

/// The reads of one round.
fn reads() -> [Value; 4] {
    let repo = json!({"owner": "octo", "repo": "hello-world"});
    [
        json!({"operation": "repos_get", "params": repo}),
        json!({"operation": "issues_list_for_repo", "params": {"owner": "octo", "repo": "hello-world", "filter": {"state": "all"}}}),
        json!({"operation": "issues_get", "params": {"owner": "octo", "repo": "hello-world", "issue_number": 1}}),
        json!({"operation": "pulls_get", "params": {"owner": "octo", "repo": "hello-world", "pull_number": 3}}),
    ]
}

/// Runs the task once with the cache on and once off, each against a fresh upstream.
/// `base_url_env` names the variable that points the server at its upstream.
pub async fn measure(setup: &crate::ours::Setup, base_url_env: &str) -> anyhow::Result<[Run; 2]> {
    Ok([
        run(setup, base_url_env, "on").await?,
        run(setup, base_url_env, "off").await?,
    ])
}

async fn run(
    setup: &crate::ours::Setup,
    base_url_env: &str,
    cache: &'static str,
) -> anyhow::Result<Run> {
    let upstream = demo_upstream::spawn(demo_upstream::Options {
        github_caching: true,
        latency: LATENCY,
        github_rate_limit: Some(u64::from(u32::MAX)),
        ..demo_upstream::Options::default()
    })
    .await?;
    let mut command = setup.command("crude");
    command
        .args(["--cache", cache])
        .env(base_url_env, upstream.base_url());
    let client = Client::stdio(command)?;
    client.initialize().await?;
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        for arguments in reads() {
            let started = Instant::now();
            let reply = client
                .call_tool("mcp_aql_read", arguments)
                .await
                .context("tools/call")?;
            times.push(started.elapsed());
            reply.ensure_tool_success()?;
        }
    }
    client.close().await?;
    let total = times.iter().sum();
    times.sort();
    Ok(Run {
        cache,
        calls: times.len(),
        upstream_requests: upstream.requests().len(),
        total,
        p50: times[times.len() / 2],
    })
}

/// The cache paragraph and table, for docs/benchmarks.md; `date` is the day measured.
pub fn render(runs: &[Run; 2], date: &str) -> String {
    let mut out = format!(
        "A repeated-read task on the GitHub import, measured by `scripts/bench` on {date}: \
         {ROUNDS} rounds of `repos_get`, `issues_list_for_repo`, `issues_get` and `pulls_get`, \
         one call at a time over stdio, against demo-upstream answering as GitHub does about \
         caching (`Cache-Control: private, max-age=60`, `ETag`, 304 to a matching \
         `If-None-Match`) after {} ms, a stand-in for the network (`scripts/bench \
         --cache-only` refreshes this part):\n\n\
         | cache | calls | upstream requests | time of all calls | median call |\n\
         |---|---:|---:|---:|---:|\n",
        LATENCY.as_millis()
    );
    for run in runs {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2} s | {:.2} ms |",
            run.cache,
            run.calls,
            run.upstream_requests,
            run.total.as_secs_f64(),
            run.p50.as_secs_f64() * 1000.0
        );
    }
    let [on, off] = runs;
    let saved = off.upstream_requests.saturating_sub(on.upstream_requests);
    let _ = writeln!(
        out,
        "\nThe cache saved {saved} of {} upstream requests and {:.2} s of the agent's waiting. \
         Within GitHub's 60 s each answer is served from the cache; past it, a 304 \
         revalidates it, which GitHub does not count against the rate limit.",
        off.upstream_requests,
        off.total.saturating_sub(on.total).as_secs_f64()
    );
    out
}
