//! npm `@ivotoby/openapi-mcp-server`: interprets the OpenAPI file at start-up and serves it over
//! stdio, either as one tool per operation (`--tools all`) or as three meta-tools that list,
//! describe and invoke endpoints (`--tools dynamic`).

use std::path::Path;

use anyhow::{Context as _, bail};
use serde_json::{Value, json};
use tokio::process::Command;

use super::{
    COLD_RUNS, Context, DiscreteStdio, ISSUES_MARKER, Listed, OWNER, REPO, Tally, ensure_payload,
    failed_row, load_and_rss, measure_discrete_stdio, npm_install,
};
use crate::client::{Client, truncate};
use crate::figures::Figures;
use crate::measure;
use crate::tasks::DiscreteTools;

const PACKAGE: &str = "@ivotoby/openapi-mcp-server";
const VERSION: &str = "1.16.1";

/// `--tools all` names tools `<operationId with / as ->` and takes body fields beside the
/// path and query params.
const TOOLS: DiscreteTools = DiscreteTools {
    tool_name: |id| id.replace('/', "-"),
    body_member: None,
};

/// The dynamic mode's meta-tools.
const LIST_ENDPOINTS: &str = "list-api-endpoints";
const ENDPOINT_SCHEMA: &str = "get-api-endpoint-schema";
const INVOKE: &str = "invoke-api-endpoint";

/// GitHub's operation for "list the open issues of a repository".
const ISSUES_OPERATION: &str = "issues/list-for-repo";

/// Rows for `--tools all` and `--tools dynamic`.
pub async fn measure(ctx: &Context) -> Vec<Figures> {
    let all = format!("{PACKAGE} {VERSION} (--tools all)");
    let dynamic = format!("{PACKAGE} {VERSION} (--tools dynamic)");
    let dir = ctx.peers_dir().join("ivotoby-openapi-mcp-server");
    let entry = match npm_install(&dir, PACKAGE, VERSION).await {
        Ok(package) => package.join("bin/mcp-server.js"),
        Err(error) => return vec![failed_row(&all, &error), failed_row(&dynamic, &error)],
    };
    vec![
        measure_all_tools(ctx, &entry, all).await,
        measure_dynamic(ctx, &entry, dynamic).await,
    ]
}

/// `node bin/mcp-server.js --transport stdio --openapi-spec <file> --api-base-url <upstream>
/// --tools <mode>`: the spec is read from the file on every start, calls go to the upstream.
fn command(ctx: &Context, entry: &Path, mode: &str) -> Command {
    let mut command = Command::new("node");
    command
        .arg(entry)
        .args(["--transport", "stdio", "--tools", mode])
        .arg("--openapi-spec")
        .arg(&ctx.openapi)
        .arg("--api-base-url")
        .arg(&ctx.upstream_base_url);
    command
}

async fn measure_all_tools(ctx: &Context, entry: &Path, name: String) -> Figures {
    let spawn = || command(ctx, entry, "all");
    let mut figures = Figures {
        name,
        ..Figures::default()
    };
    let peer = DiscreteStdio {
        spawn: &spawn,
        tools: TOOLS,
    };
    measure_discrete_stdio(&peer, &mut figures).await;
    figures
}

async fn measure_dynamic(ctx: &Context, entry: &Path, name: String) -> Figures {
    let spawn = || command(ctx, entry, "dynamic");
    let mut figures = Figures {
        name,
        ..Figures::default()
    };
    if let Err(error) = session_dynamic(spawn(), &mut figures).await {
        figures.notes.push(format!("session failed: {error:#}"));
    }
    match measure::cold_start(spawn, COLD_RUNS).await {
        Ok((initialize, tools_list)) => {
            figures.cold_start_initialize_ms = Some(initialize);
            figures.cold_start_tools_list_ms = Some(tools_list);
        }
        Err(error) => figures.notes.push(format!("cold start failed: {error:#}")),
    }
    figures
}

/// The scripted agent in dynamic mode: tools/list, the endpoint listing (its schema has no
/// search or filter parameter, so it is called without arguments), the issues endpoint's
/// schema, then the invocation; then load through `invoke-api-endpoint` if that works.
async fn session_dynamic(command: Command, figures: &mut Figures) -> anyhow::Result<()> {
    let client = Client::stdio(command)?;
    client.initialize().await?;
    let listed = Listed::fetch(&client).await?;
    listed.record(figures);
    let mut tally = Tally::default();
    tally.add("tools/list", &listed.reply.request, &listed.reply.text);

    let list_tool = listed.find(LIST_ENDPOINTS)?;
    let endpoints = client.call_tool(&list_tool, json!({})).await?;
    tally.add(list_tool.as_str(), &endpoints.request, &endpoints.text);
    let path = issues_path(&endpoints.tool_json())?;
    // Not part of the script: whether the listing honours a search term.
    let searched = client
        .call_tool(&list_tool, json!({"search": "issues"}))
        .await?;
    if searched.tool_json() == endpoints.tool_json() {
        figures.notes.push(format!(
            "{LIST_ENDPOINTS} takes no arguments and lists every endpoint; \
             a `search` argument is ignored"
        ));
    }

    let schema_tool = listed.find(ENDPOINT_SCHEMA)?;
    let schema = client
        .call_tool(&schema_tool, json!({"endpoint": path}))
        .await?;
    tally.add(schema_tool.as_str(), &schema.request, &schema.text);

    // The schema names owner and repo as path parameters and state as a query parameter;
    // the tool takes the endpoint and its parameters separately.
    let invoke = listed.find(INVOKE)?;
    // Each attempt: the issues call, and the same form for the repository the load gets.
    let repo_path = path.trim_end_matches("/issues");
    let filled = |path: &str| path.replace("{owner}", OWNER).replace("{repo}", REPO);
    let attempts = [
        (
            json!({"endpoint": path, "method": "GET",
                   "params": {"owner": OWNER, "repo": REPO, "state": "open"}}),
            json!({"endpoint": repo_path, "method": "GET",
                   "params": {"owner": OWNER, "repo": REPO}}),
        ),
        // The templated path is sent as is; an agent would next try the path filled in.
        (
            json!({"endpoint": filled(&path), "method": "GET", "params": {"state": "open"}}),
            json!({"endpoint": filled(repo_path), "method": "GET"}),
        ),
    ];
    let mut failures = Vec::new();
    for (arguments, repo_arguments) in attempts {
        let endpoint = arguments["endpoint"].to_string();
        let call = client.call_tool(&invoke, arguments).await?;
        if ensure_payload(&call, ISSUES_MARKER).is_ok() {
            tally.finish(&invoke, &call, figures);
            load_and_rss(&client, client.pid(), &invoke, repo_arguments, figures).await;
            return client.close().await;
        }
        tally.add(
            format!("{invoke} {endpoint} (failed)"),
            &call.request,
            &call.text,
        );
        let said = call.result()["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        failures.push(format!("{endpoint}: {}", truncate(said, 160)));
    }
    figures.notes.push(format!(
        "no successful call of {ISSUES_OPERATION}, so no first-call figure and no load: \
         {INVOKE} sends path parameters unfilled and refuses a filled-in path ({}); \
         tokens spent until giving up: {} ({})",
        failures.join("; "),
        tally.total(),
        tally.describe()
    ));
    figures.peak_rss_mib = client.pid().and_then(crate::proc::peak_rss_mib);
    figures
        .notes
        .push("peak RSS after the endpoint listing, without load".to_owned());
    client.close().await
}

/// The path of GitHub's `issues/list-for-repo` in the endpoint listing.
fn issues_path(listing: &Value) -> anyhow::Result<String> {
    let Some(endpoints) = listing["endpoints"].as_array() else {
        bail!("{LIST_ENDPOINTS} answered without an endpoints list");
    };
    endpoints
        .iter()
        .find(|endpoint| endpoint["operationId"] == ISSUES_OPERATION)
        .and_then(|endpoint| endpoint["path"].as_str())
        .map(str::to_owned)
        .with_context(|| format!("{LIST_ENDPOINTS} does not list {ISSUES_OPERATION}"))
}
