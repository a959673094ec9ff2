//! The generated todo adapter (generated/todo) served by runtime-support, driven by rmcp's
//! client over stdio against demo-upstream's todo API on 127.0.0.1.

mod support;

use serde_json::json;
use support::{assert_introspection, assert_result, call};

const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
const KEY: &str = "todo-test-key";

async fn todo_client(base_url: &str, args: &[&str]) -> support::Client {
    support::stdio_client_for(
        TODO_BIN,
        args,
        &[("TODO_BASE_URL", base_url), ("TODO_API_KEY", KEY)],
    )
    .await
}

async fn upstream() -> demo_upstream::Running {
    demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream")
}

#[tokio::test]
async fn todo_in_single_mode_with_prefix_and_concurrent_calls() {
    let api = upstream().await;
    let client = todo_client(
        &api.base_url(),
        &["--mode", "single", "--tool-prefix", "todo_"],
    )
    .await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["todo_mcp_aql"]);
    let (details, _) = call(
        client.peer(),
        "todo_mcp_aql",
        json!({"operation": "introspect", "params": {"query": "operations", "name": "complete_todo"}}),
    )
    .await;
    assert_introspection(&details);
    assert_eq!(details["data"]["operation"]["mcpTool"], "todo_mcp_aql");

    let mut calls = tokio::task::JoinSet::new();
    for index in 0..48 {
        let peer = client.peer().clone();
        calls.spawn(async move {
            let id = 1 + index % 3;
            let (answer, is_error) = call(
                &peer,
                "todo_mcp_aql",
                json!({"operation": "get_todo", "params": {"id": id}}),
            )
            .await;
            assert_result(&answer);
            assert!(!is_error, "{answer}");
            assert_eq!(answer["data"]["id"], json!(id));
        });
    }
    while let Some(outcome) = calls.join_next().await {
        outcome.expect("call task");
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn todo_over_streamable_http() {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;

    let api = upstream().await;
    let base_url = api.base_url();
    let (mut server, url) = support::http_server_for(
        TODO_BIN,
        &[],
        &[("TODO_BASE_URL", &base_url), ("TODO_API_KEY", KEY)],
    )
    .await;
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("initialize over HTTP");
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 5);
    let (list, _) = call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_introspection(&list);
    let (got, is_error) = call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "get_todo", "params": {"id": 1}}),
    )
    .await;
    assert_result(&got);
    assert!(!is_error);
    assert_eq!(got["data"]["title"], "Buy milk");
    client.cancel().await.expect("close");
    server.kill().await.expect("stop the server");
}
