//! A generated server works with MCP clients other than rmcp: the Python `mcp` package
//! (installed by `scripts/setup`) lists the tools of the generated todo adapter, introspects
//! and calls it over stdio against demo-upstream's todo API on 127.0.0.1.

mod support;

use serde_json::{Value, json};
use support::sdk::{python, workspace};
use support::{assert_introspection, assert_result};

const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
const KEY: &str = "python-test-key";

#[tokio::test]
async fn python_mcp_client_lists_introspects_and_calls() {
    let upstream = demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream");
    let python = python();
    let output = tokio::process::Command::new(python)
        .arg(workspace().join("tests/python/client_check.py"))
        .arg(TODO_BIN)
        .args(["--tool-prefix", "py_"])
        .env("TODO_BASE_URL", upstream.base_url())
        .env("TODO_API_KEY", KEY)
        .env(
            "CLIENT_CHECK_CALL",
            json!({"operation": "get_todo", "params": {"id": 1}}).to_string(),
        )
        .env("RUST_LOG", "warn")
        .env_remove("MCP_AQL_ENDPOINT_MODE")
        .env_remove("MCP_AQL_TOOL_PREFIX")
        .kill_on_drop(true)
        .output()
        .await
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "Python client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let steps: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON line per step"))
        .collect();
    assert_eq!(steps.len(), 5, "{stdout}");
    assert_eq!(steps[0], json!({"step": "initialize", "server": "todo"}));
    let tools = steps[1]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "py_mcp_aql_create",
            "py_mcp_aql_read",
            "py_mcp_aql_update",
            "py_mcp_aql_delete",
            "py_mcp_aql_execute"
        ]
    );
    assert!(tools.iter().all(|t| t["mentions_introspect"] == true));
    assert_eq!(tools[1]["readOnlyHint"], true);
    assert_eq!(tools[3]["destructiveHint"], true);

    assert_eq!(steps[2]["step"], "introspect");
    assert_introspection(&steps[2]["answer"]);
    assert_eq!(
        steps[2]["answer"]["data"]["_protocol"]["tools"][1],
        "py_mcp_aql_read"
    );

    assert_result(&steps[3]["answer"]);
    assert_eq!(steps[3]["answer"]["data"]["id"], 1);
    assert_eq!(steps[3]["answer"]["data"]["title"], "Buy milk");
    assert_eq!(steps[3]["is_error"], false);

    assert_result(&steps[4]["answer"]);
    assert_eq!(steps[4]["answer"]["error"]["code"], "NOT_FOUND_OPERATION");
    assert_eq!(steps[4]["is_error"], false);
}
