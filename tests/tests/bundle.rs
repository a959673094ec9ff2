//! A bundle: the todo adapter (API key, trust `medium`, no limits) and `tasks-adapter.md`
//! (bearer token, trust `generated`, 3 calls a minute) in one server, `REAL_API=work` of
//! `real-api-adapter`, through rmcp's client over stdio. Each adapter calls its own API on
//! 127.0.0.1 with its own credential, under its own trust level and limits; the operation name
//! both schemas have (`get_todo`) is told apart by the namespace; a batch mixes the two; and
//! introspection lists the adapters and narrows to one.

mod support;

use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method};
use axum::routing::get;
use serde_json::{Value, json};
use support::{Client, assert_introspection, call, serve, stdio_client_for};

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");
const TODO_KEY: &str = "todo-key-3b7f";
const TASKS_TOKEN: &str = "tasks-token-91ce";

/// What one upstream saw: method, path and the credential headers of each request.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    method: String,
    path: String,
    api_key: Option<String>,
    authorization: Option<String>,
}

type Log = Arc<Mutex<Vec<Seen>>>;

async fn item(
    State((name, log)): State<(&'static str, Log)>,
    method: Method,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> axum::Json<Value> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    log.lock().expect("log").push(Seen {
        method: method.to_string(),
        path: format!("/todos/{id}"),
        api_key: header("x-api-key"),
        authorization: header("authorization"),
    });
    axum::Json(json!({"id": id, "title": format!("{name} {id}"), "done": false}))
}

/// An API answering `GET` and `DELETE /todos/{id}` with an item of `name`, and what it saw.
async fn upstream(name: &'static str) -> (String, Log) {
    let log = Log::default();
    let router = axum::Router::new()
        .route("/todos/{id}", get(item).delete(item))
        .with_state((name, log.clone()));
    (serve(router).await, log)
}

struct Bundle {
    client: Client,
    todo: Log,
    tasks: Log,
}

async fn bundle(args: &[&str]) -> Bundle {
    let (todo_url, todo) = upstream("todo").await;
    let (tasks_url, tasks) = upstream("tasks").await;
    let client = stdio_client_for(
        BIN,
        args,
        &[
            ("REAL_API", "work"),
            ("TODO_BASE_URL", &todo_url),
            ("TODO_API_KEY", TODO_KEY),
            ("TASKS_BASE_URL", &tasks_url),
            ("TASKS_TOKEN", TASKS_TOKEN),
        ],
    )
    .await;
    Bundle {
        client,
        todo,
        tasks,
    }
}

async fn introspect(client: &Client, params: Value) -> Value {
    let (answer, _) = call(
        client,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": params}),
    )
    .await;
    assert_introspection(&answer);
    answer
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list["data"][key]
        .as_array()
        .unwrap_or_else(|| panic!("a list of {key}: {list}"))
        .iter()
        .map(|entry| entry["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[tokio::test]
async fn one_server_lists_both_adapters_and_narrows_to_one() {
    let Bundle { client, .. } = bundle(&[]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(
        tools.len(),
        5,
        "the five CRUDE tools, not one set per adapter"
    );
    let delete = tools
        .iter()
        .find(|tool| tool.name == "mcp_aql_delete")
        .expect("the delete tool");
    let description = delete.description.as_deref().unwrap_or_default();
    assert!(
        description.contains("todo__delete_todo") && description.contains("tasks__delete_todo"),
        "{description}"
    );
    assert!(
        description.contains("Safety of 'tasks' (trust level 'generated')"),
        "each adapter's gate is told apart: {description}"
    );
    let info = client.peer_info().expect("server info");
    let server = info.server_info.as_ref().expect("server info");
    assert_eq!(server.name, "work");

    let all = introspect(&client, json!({"query": "operations"})).await;
    let listed = names(&all, "operations");
    for name in [
        "todo__get_todo",
        "tasks__get_todo",
        "todo__list_todos",
        "introspect",
    ] {
        assert!(listed.iter().any(|n| n == name), "{name} in {listed:?}");
    }
    let adapters = &all["data"]["_protocol"]["adapters"];
    assert_eq!(adapters[0]["name"], "todo", "{adapters}");
    assert_eq!(
        adapters[0]["safety"]["trust_level"], "validated",
        "{adapters}"
    );
    assert_eq!(adapters[1]["name"], "tasks", "{adapters}");
    assert_eq!(
        adapters[1]["safety"]["trust_level"], "generated",
        "{adapters}"
    );
    assert_eq!(adapters[1]["operations"], 2, "{adapters}");
    assert_eq!(
        adapters[1]["rate_limits"]["limits"],
        json!([{"window": "minute", "limit": 3}])
    );

    let tasks = introspect(&client, json!({"query": "operations", "adapter": "tasks"})).await;
    assert_eq!(
        names(&tasks, "operations"),
        ["tasks__get_todo", "tasks__delete_todo"]
    );
    let reads = introspect(
        &client,
        json!({"query": "operations", "adapter": "todo", "endpoint": "read"}),
    )
    .await;
    let reads = names(&reads, "operations");
    assert!(
        reads.iter().all(|name| name.starts_with("todo__")) && reads.len() >= 2,
        "{reads:?}"
    );
    let types = introspect(&client, json!({"query": "types", "adapter": "tasks"})).await;
    let types = names(&types, "types");
    assert!(
        !types.is_empty() && types.iter().all(|name| name.starts_with("Tasks")),
        "{types:?}"
    );
    let detail = introspect(
        &client,
        json!({"query": "operations", "name": "tasks__get_todo"}),
    )
    .await;
    assert_eq!(detail["data"]["operation"]["mcpTool"], "mcp_aql_read");

    let (unknown, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations", "adapter": "forge"}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], "VALIDATION_INVALID_VALUE");
    let message = unknown["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("'todo', 'tasks'"), "{message}");
    let (bare, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "get_todo", "params": {"id": "1"}}),
    )
    .await;
    assert_eq!(
        bare["error"]["code"], "NOT_FOUND_OPERATION",
        "a bare name is no operation of a bundle: {bare}"
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn each_adapter_calls_its_own_api_with_its_own_credential() {
    let Bundle {
        client,
        todo,
        tasks,
    } = bundle(&[]).await;
    let (mine, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "todo__get_todo", "params": {"id": 7}}),
    )
    .await;
    assert_eq!(mine["data"]["title"], "todo 7", "{mine}");
    let (theirs, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "tasks__get_todo", "params": {"id": "7"}}),
    )
    .await;
    assert_eq!(theirs["data"]["title"], "tasks 7", "{theirs}");

    // A batch may mix the adapters; each item goes to its own API.
    let (batch, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operations": [
            {"operation": "tasks__get_todo", "params": {"id": "8"}},
            {"operation": "todo__get_todo", "params": {"id": 9}},
            {"operation": "introspect", "params": {"query": "types", "adapter": "todo"}}
        ]}),
    )
    .await;
    support::assert_batch(&batch);
    assert_eq!(batch["summary"]["succeeded"], 3, "{batch}");
    let results = &batch["results"];
    assert_eq!(results[0]["result"]["data"]["title"], "tasks 8", "{batch}");
    assert_eq!(results[1]["result"]["data"]["title"], "todo 9", "{batch}");

    let todo = todo.lock().expect("log").clone();
    let tasks = tasks.lock().expect("log").clone();
    assert_eq!(
        todo.iter()
            .map(|seen| seen.path.as_str())
            .collect::<Vec<_>>(),
        ["/todos/7", "/todos/9"]
    );
    assert_eq!(
        tasks
            .iter()
            .map(|seen| seen.path.as_str())
            .collect::<Vec<_>>(),
        ["/todos/7", "/todos/8"]
    );
    let bearer = format!("Bearer {TASKS_TOKEN}");
    for seen in &todo {
        assert_eq!(seen.api_key.as_deref(), Some(TODO_KEY), "{seen:?}");
        assert_eq!(seen.authorization, None, "no other API's token: {seen:?}");
    }
    for seen in &tasks {
        assert_eq!(
            seen.authorization.as_deref(),
            Some(bearer.as_str()),
            "{seen:?}"
        );
        assert_eq!(seen.api_key, None, "no other API's key: {seen:?}");
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn each_adapter_keeps_its_own_trust_level_and_limits() {
    let Bundle {
        client,
        todo,
        tasks,
    } = bundle(&[]).await;
    // `generated` refuses a destructive operation; `medium` asks to confirm it.
    let (refused, _) = call(
        &client,
        "mcp_aql_delete",
        json!({"operation": "tasks__delete_todo", "params": {"id": "1"}}),
    )
    .await;
    assert_eq!(
        refused["error"]["code"], "PERMISSION_DANGER_LEVEL_DENIED",
        "{refused}"
    );
    let (asked, _) = call(
        &client,
        "mcp_aql_delete",
        json!({"operation": "todo__delete_todo", "params": {"id": 1}}),
    )
    .await;
    assert_eq!(asked["error"]["code"], "CONFIRMATION_REQUIRED", "{asked}");
    let token = asked["error"]["details"]["confirmation_token"].clone();
    let (deleted, _) = call(
        &client,
        "mcp_aql_delete",
        json!({"operation": "todo__delete_todo", "params": {"id": 1, "confirmation_token": token}}),
    )
    .await;
    assert_eq!(deleted["success"], true, "{deleted}");

    // tasks allows 3 calls a minute; todo has no limit of its own.
    for id in ["1", "2", "3"] {
        let (read, _) = call(
            &client,
            "mcp_aql_read",
            json!({"operation": "tasks__get_todo", "params": {"id": id}}),
        )
        .await;
        assert_eq!(read["success"], true, "{read}");
    }
    let (limited, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "tasks__get_todo", "params": {"id": "4"}}),
    )
    .await;
    assert_eq!(limited["error"]["code"], "RATE_LIMIT_EXCEEDED", "{limited}");
    for id in [5, 6, 7, 8] {
        let (read, _) = call(
            &client,
            "mcp_aql_read",
            json!({"operation": "todo__get_todo", "params": {"id": id}}),
        )
        .await;
        assert_eq!(read["success"], true, "todo keeps its own count: {read}");
    }
    let listed = introspect(&client, json!({"query": "operations"})).await;
    let status = &listed["data"]["_protocol"]["quota_status"];
    assert!(
        status.get("tasks").is_some() && status.get("todo").is_none(),
        "{status}"
    );
    assert_eq!(
        tasks.lock().expect("log").len(),
        3,
        "the refused call never went out"
    );
    assert_eq!(
        todo.lock().expect("log").len(),
        5,
        "one confirmed delete and four reads"
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_caller_credential_is_for_one_adapter_only() {
    // Both adapters authenticate with one token, so a header cannot say whose it is.
    let output = support::command_for(
        BIN,
        &[
            "--transport",
            "http",
            "--port",
            "0",
            "--credential-header",
            "X-Upstream-Token",
        ],
        &[("REAL_API", "work")],
    )
    .stdin(std::process::Stdio::null())
    .output()
    .await
    .expect("the bundle runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("more than one adapter of this bundle authenticates with one token"),
        "{stderr}"
    );
}
