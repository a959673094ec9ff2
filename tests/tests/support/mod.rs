//! Shared pieces of the end-to-end tests: real HTTP servers on 127.0.0.1 standing in for the
//! target APIs (the fixture's item API here, demo-upstream's todo and GitHub-like APIs), the
//! adapter binaries behind a real MCP client, and validation against the official schemas.

#![allow(dead_code)] // each test file uses a different subset of these helpers

pub mod oidc;
pub mod prism;
pub mod sdk;

use std::process::Stdio;

use aqlgen_spec_schemas::{Schema, assert_valid};
use axum::Json;
use axum::extract::{Path, Query};
use axum::http::StatusCode;
use axum::routing::get;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

/// The fixture adapter's server: generated at build time from `tests/fixture-adapter.md`.
pub const BIN: &str = env!("CARGO_BIN_EXE_fixture-adapter");
/// The server of the checked-in generated todo adapter (`generated/todo`).
pub const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
/// The server of the checked-in generated github adapter (`generated/github`).
pub const GITHUB_BIN: &str = env!("CARGO_BIN_EXE_github-adapter-server");
/// The API key [`demo_api`]'s todo API wants and [`todo_client`] sends.
pub const TODO_KEY: &str = "todo-test-key";
/// The bearer token [`demo_api`]'s GitHub-like API wants and [`github_client`] sends.
pub const GITHUB_TOKEN: &str = "gh-test-token";

/// Validates `value` against the root of the official introspection-response.schema.json
/// (skipped, and said so once, where the official schemas are not found).
pub fn assert_introspection(value: &Value) {
    assert_valid(
        Schema::IntrospectionResponse,
        value,
        "the introspection answer",
    );
}

/// Validates `value` against the official operation-result.schema.json (skipped, and said so
/// once, where the official schemas are not found).
pub fn assert_result(value: &Value) {
    assert_valid(Schema::OperationResult, value, "the operation result");
}

/// Validates `value` against the official batch-operation.schema.json (skipped, and said so
/// once, where the official schemas are not found).
pub fn assert_batch(value: &Value) {
    assert_valid(Schema::BatchOperation, value, "the batch answer");
}

/// Starts the stand-in item API on 127.0.0.1 and returns its base URL. It runs until the
/// test's runtime stops.
pub async fn start_upstream() -> String {
    async fn get_item(Path(id): Path<String>) -> (StatusCode, Json<Value>) {
        if id == "missing" {
            (StatusCode::NOT_FOUND, Json(json!({"message": "Not Found"})))
        } else {
            (
                StatusCode::OK,
                Json(json!({"id": id, "title": "Milk", "status": "open"})),
            )
        }
    }
    async fn list_items(Query(query): Query<Vec<(String, String)>>) -> Json<Value> {
        Json(json!({"items": [{"id": "1", "title": "Milk", "status": "open"}], "query": query}))
    }
    async fn create_item(Json(body): Json<Value>) -> (StatusCode, Json<Value>) {
        (
            StatusCode::CREATED,
            Json(json!({"id": "2", "created": body})),
        )
    }
    async fn update_item(Path(id): Path<String>, Json(body): Json<Value>) -> Json<Value> {
        Json(json!({"id": id, "changed": body}))
    }
    async fn delete_item(Path(id): Path<String>) -> Json<Value> {
        Json(json!({"deleted": id}))
    }
    let router = axum::Router::new()
        .route("/items", get(list_items).post(create_item))
        .route(
            "/items/{id}",
            get(get_item).patch(update_item).delete(delete_item),
        );
    serve(router).await
}

/// demo-upstream on 127.0.0.1: its todo API wants [`TODO_KEY`], its GitHub-like API
/// [`GITHUB_TOKEN`].
pub async fn demo_api() -> demo_upstream::Running {
    demo_upstream::spawn(demo_upstream::Options {
        bearer_token: Some(GITHUB_TOKEN.into()),
        api_key: Some(TODO_KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream")
}

/// The generated todo adapter started with `args` against `api`, behind rmcp's stdio client.
pub async fn todo_client(api: &demo_upstream::Running, args: &[&str]) -> Client {
    let base_url = api.base_url();
    stdio_client_for(
        TODO_BIN,
        args,
        &[("TODO_BASE_URL", &base_url), ("TODO_API_KEY", TODO_KEY)],
    )
    .await
}

/// The generated github adapter started with `args` against `api`, behind rmcp's stdio
/// client.
pub async fn github_client(api: &demo_upstream::Running, args: &[&str]) -> Client {
    let base_url = api.base_url();
    stdio_client_for(
        GITHUB_BIN,
        args,
        &[
            ("GITHUB_BASE_URL", &base_url),
            ("GITHUB_TOKEN", GITHUB_TOKEN),
        ],
    )
    .await
}

/// Serves `router` on a free port of 127.0.0.1 until the test's runtime stops; its base URL.
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{address}")
}

/// A command for the fixture adapter binary with a clean MCP environment.
pub fn command(upstream: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = command_for(BIN, args, env);
    command.env("FIXTURE_BASE_URL", upstream);
    command
}

/// A command for any adapter binary with a clean MCP environment.
pub fn command_for(binary: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(binary);
    command
        .args(args)
        .env("RUST_LOG", "warn")
        .kill_on_drop(true);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("MCP_AQL_") {
            command.env_remove(key);
        }
    }
    for (key, value) in env {
        command.env(key, value);
    }
    command
}

pub type Client = RunningService<RoleClient, ()>;

/// The fixture binary over a real stdio pipe, behind rmcp's client.
pub async fn stdio_client(upstream: &str, args: &[&str], env: &[(&str, &str)]) -> Client {
    connect(command(upstream, args, env)).await
}

/// Any adapter binary over a real stdio pipe, behind rmcp's client.
pub async fn stdio_client_for(binary: &str, args: &[&str], env: &[(&str, &str)]) -> Client {
    connect(command_for(binary, args, env)).await
}

async fn connect(command: Command) -> Client {
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the adapter binary");
    ().serve(transport)
        .await
        .expect("MCP initialize over stdio")
}

/// Everything a child process writes to stderr, collected as it comes.
pub struct Stderr {
    buffer: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Stderr {
    /// All of it, once the process has closed its stderr.
    pub async fn text(self) -> String {
        self.reader.await.expect("stderr reader");
        let buffer = self.buffer.lock().expect("stderr buffer");
        String::from_utf8_lossy(&buffer).into_owned()
    }
}

/// Any adapter binary over a real stdio pipe, behind rmcp's client, with its stderr
/// collected.
pub async fn stdio_client_with_stderr(
    binary: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Client, Stderr) {
    let (transport, stderr) = TokioChildProcess::builder(command_for(binary, args, env))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the adapter binary");
    let mut stderr = stderr.expect("piped stderr");
    let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = buffer.clone();
    let reader = tokio::spawn(async move {
        let mut chunk = [0_u8; 8192];
        while let Ok(read) = stderr.read(&mut chunk).await {
            if read == 0 {
                break;
            }
            sink.lock()
                .expect("stderr buffer")
                .extend_from_slice(&chunk[..read]);
        }
    });
    let client = ().serve(transport).await.expect("MCP initialize over stdio");
    (client, Stderr { buffer, reader })
}

/// The binary serving streamable HTTP on a free port of 127.0.0.1, and its `/mcp` URL.
pub async fn http_server(upstream: &str, args: &[&str]) -> (Child, String) {
    http_server_for(BIN, args, &[("FIXTURE_BASE_URL", upstream)]).await
}

/// Any adapter binary serving streamable HTTP on a free port of 127.0.0.1, and its URL.
pub async fn http_server_for(binary: &str, args: &[&str], env: &[(&str, &str)]) -> (Child, String) {
    let mut all = vec!["--transport", "http", "--port", "0"];
    all.extend_from_slice(args);
    let mut env = env.to_vec();
    env.push(("RUST_LOG", "info"));
    let mut child = command_for(binary, &all, &env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the adapter binary");
    let stderr = child.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await
            .expect("server starts within 30 s")
            .expect("read stderr")
            .expect("server printed its URL before exiting");
        if !line.contains("streamable HTTP endpoint listening") {
            continue;
        }
        if let Some(start) = line.find("http://") {
            let url = line[start..].split_whitespace().next().unwrap_or_default();
            break url.trim_matches('"').to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// One stateless MCP request, as an agent's client sends it through a load balancer, with
/// the caller's `Authorization: Bearer`; the MCP-AQL answer, checked against the result
/// schema.
pub async fn stateless_call(url: &str, caller: &str, tool: &str, arguments: Value) -> Value {
    let authorization = format!("Bearer {caller}");
    stateless_call_with(url, &[("authorization", &authorization)], tool, arguments).await
}

/// [`stateless_call`] with `headers` beside the MCP ones, in place of `Authorization`.
pub async fn stateless_call_with(
    url: &str,
    headers: &[(&str, &str)],
    tool: &str,
    arguments: Value,
) -> Value {
    let response = stateless_post(url, headers, tool, arguments).await;
    assert_eq!(response.status().as_u16(), 200, "{url}");
    tool_answer(&response.text().await.expect("a body"))
}

/// Posts one stateless `tools/call` of `tool` with `arguments` and `headers`; the HTTP
/// response, whatever its status.
pub async fn stateless_post(
    url: &str,
    headers: &[(&str, &str)],
    tool: &str,
    arguments: Value,
) -> reqwest::Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(body.to_string())
        .send()
        .await
        .expect("the instance answers")
}

/// The MCP-AQL answer of a `tools/call` in an HTTP body, checked against the result schema.
pub fn tool_answer(body: &str) -> Value {
    let message = rpc_message(body);
    let answer: Value = serde_json::from_str(
        message["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("a tool result: {message}")),
    )
    .expect("MCP-AQL JSON");
    assert_result(&answer);
    answer
}

/// The JSON-RPC answer in an HTTP body: the body itself, or the last event of a stream that
/// carries a result (progress notifications come before it).
pub fn rpc_message(text: &str) -> Value {
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .rfind(|data| data.contains("\"result\""))
        .unwrap_or(text);
    serde_json::from_str(json).expect("a JSON-RPC answer")
}

/// Calls `tool` and returns the parsed JSON text and `isError`.
pub async fn call(peer: &Peer<RoleClient>, tool: &str, arguments: Value) -> (Value, bool) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    let result = peer
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .expect("tools/call answers");
    parse(&result)
}

/// The MCP-AQL answer inside a tool result.
pub fn parse(result: &CallToolResult) -> (Value, bool) {
    assert_eq!(result.content.len(), 1, "one content block");
    let text = &result.content[0].as_text().expect("text content").text;
    for leak in ["::", ".rs", "serde", "panicked", "Error {"] {
        assert!(!text.contains(leak), "answer leaks '{leak}': {text}");
    }
    let value: Value = serde_json::from_str(text).expect("JSON text");
    assert!(
        result.structured_content.is_none(),
        "the answer is not repeated as structuredContent"
    );
    (value, result.is_error.unwrap_or(false))
}

/// Arguments as a JSON object.
pub fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// A raw JSON-RPC `initialize` (id 1), for tests that speak the wire protocol themselves.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// Posts [`INITIALIZE`] to a streamable HTTP endpoint, as a client opening a session.
pub async fn post_initialize(client: &reqwest::Client, url: &str) -> reqwest::Response {
    client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .expect("the server answers")
}

/// A `redis-server` on a free port of 127.0.0.1, without persistence, stopped on drop.
pub struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    /// Starts one on a free port.
    pub async fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        Self::start_on(port).await
    }

    /// Starts one on `port` (again, after [`Redis::stop`]).
    pub async fn start_on(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server runs (scripts/setup installs the Debian package)");
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Self { child, port };
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("redis-server did not listen on 127.0.0.1:{port}");
    }

    /// Its URL for `--state`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops it, returning its port.
    pub async fn stop(mut self) -> u16 {
        self.child.kill().await.expect("redis-server stops");
        self.port
    }
}
