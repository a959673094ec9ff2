//! A third-party client: the Python `mcp` package (installed by `scripts/setup`) drives the
//! fixture adapter binary over stdio.

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::{BIN, assert_introspection, assert_result, start_upstream};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The venv's interpreter; runs `scripts/setup` first when the venv is missing.
fn python() -> PathBuf {
    let venv = std::env::var_os("AQLGEN_PY_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/py-mcp"));
    let venv = if venv.is_absolute() {
        venv
    } else {
        workspace().join(venv)
    };
    let python = venv.join("bin/python");
    let ready = std::process::Command::new(&python)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !ready {
        let status = std::process::Command::new(workspace().join("scripts/setup"))
            .env("AQLGEN_PY_VENV", &venv)
            .status()
            .expect("run scripts/setup");
        assert!(
            status.success(),
            "scripts/setup failed: the Python mcp client is needed"
        );
    }
    python
}

#[tokio::test]
async fn python_mcp_client_lists_introspects_and_calls() {
    let upstream = start_upstream().await;
    let python = python();
    let output = tokio::process::Command::new(python)
        .arg(workspace().join("tests/python/client_check.py"))
        .arg(BIN)
        .args(["--tool-prefix", "py_"])
        .env("FIXTURE_BASE_URL", &upstream)
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
    assert_eq!(steps[0], json!({"step": "initialize", "server": "fixture"}));
    let tools = steps[1]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "py_mcp_aql_create",
            "py_mcp_aql_read",
            "py_mcp_aql_update",
            "py_mcp_aql_delete"
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
    assert_eq!(steps[3]["answer"]["data"]["id"], "py");
    assert_eq!(steps[3]["is_error"], false);

    assert_result(&steps[4]["answer"]);
    assert_eq!(steps[4]["answer"]["error"]["code"], "NOT_FOUND_OPERATION");
    assert_eq!(steps[4]["is_error"], false);
}
