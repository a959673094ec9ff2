//! `quickstart [ADAPTER_BINARY]`: starts the demo upstream on 127.0.0.1, starts the generated
//! GitHub-like adapter as an MCP server over stdio pointed at it, and prints a short session:
//! the tools, introspection, a few calls, an error, a confirmation round trip and a refusal.
//!
//! No credentials and no network are needed: the token is a demo value that the demo upstream
//! checks, and everything listens on 127.0.0.1 only.

use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::process::Command;

const DEMO_TOKEN: &str = "demo-token";

/// The adapter binary: the first argument, else `github-adapter` beside this executable.
fn adapter_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::args_os().nth(1) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate this program: {e}"))?;
    let dir = exe.parent().ok_or("this program has no directory")?;
    Ok(dir.join(format!("github-adapter{}", std::env::consts::EXE_SUFFIX)))
}

/// Prints one step of the session: what was sent and what came back.
async fn step(peer: &Peer<RoleClient>, title: &str, tool: &str, arguments: Value) -> Value {
    let answer = call(peer, title, tool, arguments).await;
    print_answer(&answer);
    answer
}

/// Sends one call and returns the MCP-AQL answer, printing the request.
async fn call(peer: &Peer<RoleClient>, title: &str, tool: &str, arguments: Value) -> Value {
    println!("\n## {title}");
    println!("-> {tool} {arguments}");
    let Value::Object(arguments) = arguments else {
        return json!({"client_error": "arguments must be a JSON object"});
    };
    match peer
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
    {
        Ok(result) => {
            let text = result
                .content
                .first()
                .and_then(|c| c.as_text())
                .map(|t| t.text.clone())
                .unwrap_or_default();
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        }
        Err(error) => json!({"transport_error": error.to_string()}),
    }
}

/// Prints an answer, eliding the middle of long ones.
fn print_answer(answer: &Value) {
    let shown = serde_json::to_string_pretty(answer).unwrap_or_default();
    let mut lines: Vec<&str> = shown.lines().collect();
    if lines.len() > 24 {
        let hidden = lines.len() - 20;
        lines.truncate(20);
        println!("<- {}\n   … {hidden} more lines", lines.join("\n   "));
    } else {
        println!("<- {}", lines.join("\n   "));
    }
}

async fn session(binary: PathBuf) -> Result<(), String> {
    let upstream = demo_upstream::spawn(demo_upstream::Options {
        bearer_token: Some(DEMO_TOKEN.to_owned()),
        ..Default::default()
    })
    .await
    .map_err(|e| format!("cannot start the demo upstream: {e}"))?;
    println!("# demo upstream listening on {}", upstream.base_url());

    let mut command = Command::new(&binary);
    command
        .env("GITHUB_BASE_URL", upstream.base_url())
        .env("GITHUB_TOKEN", DEMO_TOKEN)
        .env_remove("MCP_AQL_ENDPOINT_MODE")
        .env_remove("MCP_AQL_TOOL_PREFIX")
        .kill_on_drop(true);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let client: RunningService<RoleClient, ()> = ()
        .serve(transport)
        .await
        .map_err(|e| format!("MCP initialize failed: {e}"))?;
    let peer = client.peer().clone();

    let tools = peer
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    println!("# adapter started over stdio; tools/list:");
    for tool in &tools {
        println!("  - {}", tool.name);
    }

    let found = call(
        &peer,
        "Discover: which operations deal with issues?",
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations", "search": "issue"}}),
    )
    .await;
    let names: Vec<&str> = found
        .pointer("/data/operations")
        .and_then(Value::as_array)
        .map(|ops| ops.iter().filter_map(|op| op["name"].as_str()).collect())
        .unwrap_or_default();
    println!(
        "<- success: {}, operations: {}",
        found["success"],
        names.join(", ")
    );
    step(
        &peer,
        "Details of one operation",
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations", "name": "list_issues"}}),
    )
    .await;
    step(
        &peer,
        "Open an issue",
        "mcp_aql_create",
        json!({"operation": "create_issue", "params": {"owner": "octo", "repo": "hello-world", "title": "Compile, don't interpret", "labels": ["idea"]}}),
    )
    .await;
    step(
        &peer,
        "List the open issues",
        "mcp_aql_read",
        json!({"operation": "list_issues", "params": {"owner": "octo", "repo": "hello-world", "filter": {"state": "open"}}}),
    )
    .await;
    step(
        &peer,
        "How many open issues per label? One aggregation, over every page",
        "mcp_aql_read",
        json!({"operation": "list_issues", "params": {"owner": "acme", "repo": "tracker", "filter": {"state": "open"}, "aggregate": {"per_label": {"group_by": "label", "count": true}}}}),
    )
    .await;
    step(
        &peer,
        "Which repositories does team acme/platform maintain? One relationship query",
        "mcp_aql_read",
        json!({"operation": "query_relationships", "params": {"root": {"element_type": "Team", "element_name": "acme/platform"}, "direction": "outgoing", "relationship": "maintains", "include": ["graph.edges"]}}),
    )
    .await;
    step(
        &peer,
        "A typo is caught before any upstream call",
        "mcp_aql_read",
        json!({"operation": "list_issues", "params": {"owner": "octo", "rpo": "hello"}}),
    )
    .await;
    step(
        &peer,
        "The wrong tool names the right one",
        "mcp_aql_read",
        json!({"operation": "create_issue", "params": {"owner": "octo", "repo": "hello-world", "title": "x"}}),
    )
    .await;
    let first = step(
        &peer,
        "A destructive operation asks for confirmation",
        "mcp_aql_delete",
        json!({"operation": "delete_repo", "params": {"owner": "octo", "repo": "hello-world"}}),
    )
    .await;
    if let Some(token) = first
        .pointer("/error/details/confirmation_token")
        .and_then(Value::as_str)
    {
        step(
            &peer,
            "…and runs once the token comes back",
            "mcp_aql_delete",
            json!({"operation": "delete_repo", "params": {"owner": "octo", "repo": "hello-world", "confirmation_token": token}}),
        )
        .await;
    }
    step(
        &peer,
        "A dangerous operation is refused at this trust level",
        "mcp_aql_execute",
        json!({"operation": "merge_pull_request", "params": {"owner": "octo", "repo": "hello-world", "pull_number": 3}}),
    )
    .await;

    let sent = upstream.requests();
    println!("\n# the demo upstream received {} request(s):", sent.len());
    for request in sent {
        let query = request.query.map(|q| format!("?{q}")).unwrap_or_default();
        println!("  {} {}{query}", request.method, request.path);
    }
    client
        .cancel()
        .await
        .map_err(|e| format!("closing the session failed: {e}"))?;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let binary = match adapter_binary() {
        Ok(binary) => binary,
        Err(message) => {
            eprintln!("quickstart: {message}");
            return ExitCode::FAILURE;
        }
    };
    match session(binary).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("quickstart: {message}");
            ExitCode::FAILURE
        }
    }
}
