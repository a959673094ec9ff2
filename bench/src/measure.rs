//! The timed measurements: cold start, load through a server, and the direct-call floor.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::{Value, json};
use tokio::process::Command;
use tokio::task::JoinSet;

use crate::client::Client;
use crate::figures::Load;

/// Spawns a stdio server `runs` times and returns the median milliseconds from spawn to the
/// initialize answer and from spawn to the tools/list answer (each run: initialize, the
/// initialized notification, tools/list, close).
pub async fn cold_start(spawn: impl Fn() -> Command, runs: usize) -> anyhow::Result<(f64, f64)> {
    let mut initialize = Vec::with_capacity(runs);
    let mut tools_list = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let client = Client::stdio(spawn())?;
        client.initialize().await?;
        initialize.push(millis(started.elapsed()));
        client.request("tools/list", json!({})).await?;
        tools_list.push(millis(started.elapsed()));
        client.close().await?;
    }
    Ok((median(&mut initialize), median(&mut tools_list)))
}

/// Calls tool `tool` with `arguments` `calls` times, `concurrency` calls in flight at once on
/// the one connection; every answer must be a success.
pub async fn load(
    client: &Client,
    tool: &str,
    arguments: Value,
    concurrency: usize,
    calls: usize,
) -> anyhow::Result<Load> {
    load_over(
        std::slice::from_ref(client),
        tool,
        arguments,
        concurrency,
        calls,
    )
    .await
}

/// As [`load`], each call sent to the next of `clients` in turn, as a load balancer spreads
/// requests over instances.
pub async fn load_over(
    clients: &[Client],
    tool: &str,
    arguments: Value,
    concurrency: usize,
    calls: usize,
) -> anyhow::Result<Load> {
    let tool: Arc<str> = tool.into();
    let arguments = Arc::new(arguments);
    let clients: Arc<[Client]> = clients.into();
    let turn = Arc::new(AtomicUsize::new(0));
    run_load(concurrency, calls, move || {
        let (clients, tool, arguments) = (clients.clone(), tool.clone(), arguments.clone());
        let next = turn.fetch_add(1, Ordering::Relaxed) % clients.len();
        async move {
            let reply = clients[next].call_tool(&tool, (*arguments).clone()).await?;
            reply.ensure_tool_success()
        }
    })
    .await
}

/// MCP `ping` round trips: the cost of the transport and the server's JSON-RPC loop alone,
/// with no tool and no upstream behind it.
pub async fn pings(client: &Client, concurrency: usize, calls: usize) -> anyhow::Result<Load> {
    let client = client.clone();
    run_load(concurrency, calls, move || {
        let client = client.clone();
        async move { client.request("ping", json!({})).await.map(drop) }
    })
    .await
}

/// The floor: `GET url` with one reqwest client, `concurrency` requests in flight, each
/// answer read in full and required to be 2xx.
pub async fn direct(url: &str, concurrency: usize, calls: usize) -> anyhow::Result<Load> {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency.max(1))
        .build()?;
    direct_with(&http, url, concurrency, calls).await
}

/// The per-call overhead at concurrency 1, measured so that the shared machine's drift
/// cancels out: `rounds` times, `calls_per_round` calls through the server and then as many
/// direct calls; one figure per round, the difference of the two p50s.
pub async fn paired_overhead(
    client: &Client,
    tool: &str,
    arguments: &Value,
    url: &str,
    rounds: usize,
    calls_per_round: usize,
) -> anyhow::Result<Vec<f64>> {
    let http = reqwest::Client::new();
    let mut differences = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let through = load(client, tool, arguments.clone(), 1, calls_per_round).await?;
        let direct = direct_with(&http, url, 1, calls_per_round).await?;
        differences.push(through.p50_us - direct.p50_us);
    }
    Ok(differences)
}

async fn direct_with(
    http: &reqwest::Client,
    url: &str,
    concurrency: usize,
    calls: usize,
) -> anyhow::Result<Load> {
    let (http, url): (reqwest::Client, Arc<str>) = (http.clone(), url.into());
    run_load(concurrency, calls, move || {
        let (http, url) = (http.clone(), url.clone());
        async move {
            let response = http
                .get(&*url)
                .header("accept", "application/vnd.github+json")
                .header("authorization", "Bearer bench")
                .send()
                .await?
                .error_for_status()?;
            response.bytes().await?;
            Ok(())
        }
    })
    .await
}

/// Runs `calls` calls of `call` on `concurrency` workers and times each one.
async fn run_load<F, Fut>(concurrency: usize, calls: usize, call: F) -> anyhow::Result<Load>
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send,
{
    let remaining = Arc::new(AtomicUsize::new(calls));
    let started = Instant::now();
    let mut workers = JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let (remaining, call) = (remaining.clone(), call.clone());
        workers.spawn(async move {
            let mut latencies = Vec::with_capacity(calls / concurrency.max(1) + 1);
            while take_one(&remaining) {
                let sent = Instant::now();
                call().await?;
                latencies.push(micros(sent.elapsed()));
            }
            anyhow::Ok(latencies)
        });
    }
    let mut latencies = Vec::with_capacity(calls);
    while let Some(worker) = workers.join_next().await {
        latencies.extend(worker.context("load worker panicked")??);
    }
    let elapsed = started.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    Ok(Load {
        calls_per_sec: latencies.len() as f64 / elapsed,
        p50_us: percentile(&latencies, 0.50),
        p99_us: percentile(&latencies, 0.99),
    })
}

/// Claims one of the remaining calls; false once none are left.
fn take_one(remaining: &AtomicUsize) -> bool {
    remaining
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            left.checked_sub(1)
        })
        .is_ok()
}

/// The median of `values` (sorted in place); 0 for none.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    percentile(values, 0.5)
}

/// The nearest-rank percentile `q` (0..=1) of sorted `values`; 0 for none.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn millis(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64() * 1e3
}

fn micros(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64() * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let sorted: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&sorted, 0.5), 50.0);
        assert_eq!(percentile(&sorted, 0.99), 99.0);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
