//! rmcp's client over a real stdio pipe to the fixture adapter binary.

mod support;

use rmcp::model::Tool;
use serde_json::{Value, json};
use support::{assert_introspection, call, start_upstream, stdio_client};

fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

#[tokio::test]
async fn initialize_and_crude_tools() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &[], &[]).await;
    let info = client.peer_info().expect("server info after initialize");
    let server = info.server_info.as_ref().expect("server identity");
    assert_eq!(server.name, "fixture");
    assert_eq!(server.version, "0.3.0");
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.expect("tools/list");
    // All five families, execute too though the adapter has no EXECUTE operations.
    assert_eq!(
        names(&tools),
        [
            "mcp_aql_create",
            "mcp_aql_read",
            "mcp_aql_update",
            "mcp_aql_delete",
            "mcp_aql_execute"
        ]
    );
    let expected_hints = [
        (false, false),
        (true, false),
        (false, true),
        (false, true),
        (false, true),
    ];
    for (tool, (read_only, destructive)) in tools.iter().zip(expected_hints) {
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.read_only_hint, Some(read_only), "{}", tool.name);
        assert_eq!(
            annotations.destructive_hint,
            Some(destructive),
            "{}",
            tool.name
        );
        assert!(
            tool.description
                .as_deref()
                .unwrap_or("")
                .contains("introspect")
        );
        let schema = Value::Object((*tool.input_schema).clone());
        assert!(
            schema.get("required").is_none(),
            "a batch has no 'operation'"
        );
        assert_eq!(schema["properties"]["operation"]["type"], "string");
        assert_eq!(schema["properties"]["params"]["type"], "object");
        assert_eq!(schema["properties"]["operations"]["type"], "array");
    }
    client.cancel().await.expect("close");
}

/// Command-line flags, environment variables and the tool names they give.
type ModeCase<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a [&'a str]);

#[tokio::test]
async fn modes_and_prefixes_from_flags_and_environment() {
    let upstream = start_upstream().await;
    let cases: [ModeCase; 5] = [
        (&["--mode", "single"], &[], &["mcp_aql"]),
        (
            &[],
            &[
                ("MCP_AQL_ENDPOINT_MODE", "single"),
                ("MCP_AQL_TOOL_PREFIX", "fx_"),
            ],
            &["fx_mcp_aql"],
        ),
        (
            &["--tool-prefix", "flag_", "--mode", "semantic"],
            &[
                ("MCP_AQL_TOOL_PREFIX", "env_"),
                ("MCP_AQL_ENDPOINT_MODE", "single"),
            ],
            &[
                "flag_mcp_aql_create",
                "flag_mcp_aql_read",
                "flag_mcp_aql_update",
                "flag_mcp_aql_delete",
                "flag_mcp_aql_execute",
            ],
        ),
        (
            &[],
            &[("MCP_AQL_ENDPOINT_MODE", "all")],
            &[
                "mcp_aql_create",
                "mcp_aql_read",
                "mcp_aql_update",
                "mcp_aql_delete",
                "mcp_aql_execute",
                "mcp_aql",
            ],
        ),
        (
            &["--mode", "crude", "--tool-prefix", "gh_"],
            &[],
            &[
                "gh_mcp_aql_create",
                "gh_mcp_aql_read",
                "gh_mcp_aql_update",
                "gh_mcp_aql_delete",
                "gh_mcp_aql_execute",
            ],
        ),
    ];
    for (args, env, expected) in cases {
        let client = stdio_client(&upstream, args, env).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        assert_eq!(names(&tools), expected, "{args:?} {env:?}");
        let single = tools.iter().find(|t| t.name.ends_with("mcp_aql"));
        if let Some(single) = single {
            let annotations = single.annotations.as_ref().expect("annotations");
            assert_eq!(annotations.read_only_hint, Some(false));
            assert_eq!(annotations.destructive_hint, Some(true));
        }
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn bad_configuration_stops_start_up_with_a_clear_message() {
    for (args, env, needle) in [
        (vec![], vec![("MCP_AQL_TOOL_PREFIX", "GitHub")], "lowercase"),
        (
            vec![],
            vec![("MCP_AQL_TOOL_PREFIX", "github")],
            "must end with '_'",
        ),
        (
            vec![],
            vec![("MCP_AQL_ENDPOINT_MODE", "five")],
            "not an endpoint mode",
        ),
        (vec!["--max-nesting-depth", "99"], vec![], "allowed range"),
    ] {
        let output = support::command("http://127.0.0.1:9", &args, &env)
            .output()
            .await
            .expect("run the binary");
        assert!(!output.status.success(), "{args:?} {env:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
    let version = support::command("http://127.0.0.1:9", &["--version"], &[])
        .output()
        .await
        .expect("run the binary");
    assert!(version.status.success());
    assert!(String::from_utf8_lossy(&version.stdout).contains("0.3.0"));
    let help = support::command("http://127.0.0.1:9", &["--help"], &[])
        .output()
        .await
        .expect("run the binary");
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--transport",
        "--port",
        "--bind",
        "--mode",
        "--tool-prefix",
        "MCP_AQL_ENDPOINT_MODE",
        "MCP_AQL_TOOL_PREFIX",
        "--max-request-size",
    ] {
        assert!(help.contains(flag), "{flag} in --help:\n{help}");
    }
}

#[tokio::test]
async fn many_concurrent_calls_on_one_connection() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &[], &[]).await;
    let mut calls = tokio::task::JoinSet::new();
    for index in 0..64 {
        let peer = client.peer().clone();
        calls.spawn(async move {
            let id = format!("item-{index}");
            let (answer, is_error) = call(
                &peer,
                "mcp_aql_read",
                json!({"operation": "get_item", "params": {"id": id}}),
            )
            .await;
            assert!(!is_error);
            assert_eq!(answer["data"]["id"], json!(id));
            let (list, _) = call(
                &peer,
                "mcp_aql_read",
                json!({"operation": "introspect", "params": {"query": "operations"}}),
            )
            .await;
            assert_introspection(&list);
        });
    }
    let mut finished = 0;
    while let Some(outcome) = calls.join_next().await {
        outcome.expect("call task");
        finished += 1;
    }
    assert_eq!(finished, 64);
    client.cancel().await.expect("close");
}

/// `--tool-schema openai-strict`: tools a strict function-calling API accepts as they are,
/// and the calls a model makes through them (params as JSON text, unused members null)
/// answer as their MCP-AQL form does.
#[tokio::test]
async fn provider_tool_schemas_keep_calls_working() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &["--tool-schema", "openai-strict"], &[]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        assert_eq!(
            schema["required"],
            json!(["operation", "params", "operations"])
        );
    }
    let peer = client.peer();
    let (one, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "get_item", "params": "{\"id\": \"1\"}", "operations": null}),
    )
    .await;
    let (plain, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "get_item", "params": {"id": "1"}}),
    )
    .await;
    assert_eq!(one, plain);
    let (batch, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": null, "params": null, "operations": [
            {"operation": "get_item", "params": "{\"id\": \"1\"}"},
            {"operation": "list_items", "params": null}
        ]}),
    )
    .await;
    assert_eq!(batch["summary"]["total"], 2, "{batch}");
    let (bad, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "get_item", "params": "id=1", "operations": null}),
    )
    .await;
    assert_eq!(bad["error"]["code"], "VALIDATION_INVALID_TYPE", "{bad}");
    client.cancel().await.expect("close");
}
