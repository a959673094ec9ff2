//! MCP Tasks (SEP-2663, extension `io.modelcontextprotocol/tasks`) for long-running
//! executions, end to end: `tests/jobs-adapter.md` served by the `real-api-adapter` binary
//! (`REAL_API=jobs`) against demo-upstream's job API, driven by rmcp's own client, which
//! declares the extension (`ClientCapabilities::builder().enable_tasks()`), reads a
//! `CreateTaskResult` from `Peer::call_tool_once` and sends `tasks/get` and `tasks/cancel`.
//!
//! Covered: a task on a 2025-11-25 stdio session followed to its MCP-AQL answer (completed, and
//! failed upstream); `tasks/cancel` of a running task (cancelled upstream, then refused once
//! ended); an unknown task id (`-32602`); stateless 2026-07-28 streamable HTTP with the
//! capabilities in each request's `_meta`, two instances on one `redis-server` (the task made on
//! one is polled and cancelled on the other); a task bound to the credential that started it
//! (`--credential-header`); a task outliving its process under `--state file:`; a client
//! without the extension keeps the call that waits; and a waiting call the client cancels
//! (`notifications/cancelled`) cancels the job upstream, over stdio and HTTP alike.
//!
//! Why rmcp and not the third-party SDKs the other end-to-end tests drive: neither implements
//! the client side of SEP-2663 (checked in the installed packages, `target/py-mcp` and
//! `target/ts-mcp`, on 2026-11-26). The Python SDK 2.3.0 (`mcp`, `mcp_types`) has the
//! 2025-11-25 core task types (`GetTaskRequest`, `CreateTaskResult`, ..., each marked "2025-11-25
//! only") but no client method that sends `tasks/get` or `tasks/cancel` and no handling of
//! `resultType: "task"`; only a generic hook (`mcp.client.extension.ResultClaim`) on which an
//! application could build one. The TypeScript SDK 2.4.0 (`@modelcontextprotocol/client`)
//! answers a `tools/call` result of `resultType: "task"` with its own error
//! `UNSUPPORTED_RESULT_TYPE`, and lets an application send `tasks/get` and `tasks/cancel` at
//! 2026-07-28 only through `request()` with a result schema of its own
//! (`isExtensionReusedRequestMethod`); it has no tasks client either.

mod support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, CreateTaskResult, ErrorCode, GetTaskParams, GetTaskResult, Implementation,
    ProtocolVersion, Task, TaskPayload, TaskStatus,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use support::{Redis, assert_result, command_for, http_server_for};
use tokio::process::Child;

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");
/// The API key demo-upstream's job API wants and the adapter sends.
const KEY: &str = "jobs-test-key";
/// The one tool of `--mode single`.
const TOOL: &str = "mcp_aql";
/// The longest any task here is followed.
const FOLLOW: Duration = Duration::from_secs(20);

type Client = RunningService<RoleClient, ClientConfig>;

// ---------------------------------------------------------------------------------------------
// Servers and clients

/// demo-upstream on 127.0.0.1, its job API behind [`KEY`].
async fn upstream() -> demo_upstream::Running {
    demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream")
}

/// The jobs adapter's environment against `upstream`.
fn env(upstream: &demo_upstream::Running) -> Vec<(&'static str, String)> {
    vec![
        ("REAL_API", "jobs".to_owned()),
        ("JOBS_BASE_URL", upstream.base_url()),
        ("JOBS_API_KEY", KEY.to_owned()),
    ]
}

/// What rmcp's client declares: the tasks extension or nothing, at `version`.
fn config(tasks: bool, version: ProtocolVersion) -> ClientConfig {
    let capabilities = if tasks {
        ClientCapabilities::builder().enable_tasks().build()
    } else {
        ClientCapabilities::default()
    };
    ClientConfig::new(
        capabilities,
        Implementation::new("aqlgen-tasks-test", "1.0.0"),
    )
    .with_protocol_version(version)
}

/// The jobs adapter (`--mode single` and `args`) over stdio, behind rmcp's client on a
/// 2025-11-25 session, declaring the tasks extension at `initialize` when `tasks`.
async fn stdio(upstream: &demo_upstream::Running, args: &[&str], tasks: bool) -> Client {
    let mut all = vec!["--mode", "single"];
    all.extend_from_slice(args);
    let env = env(upstream);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (transport, _) = TokioChildProcess::builder(command_for(BIN, &all, &env))
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the jobs adapter");
    let client = config(tasks, ProtocolVersion::V_2025_11_25)
        .serve(transport)
        .await
        .expect("MCP initialize over stdio");
    assert_offered(&client, ProtocolVersion::V_2025_11_25, "stdio");
    client
}

/// `client` speaks `version` with the server, which advertises the tasks extension (its
/// adapter has long-running operations).
fn assert_offered(client: &Client, version: ProtocolVersion, label: &str) {
    let info = client.peer_info().expect("the server answered");
    assert_eq!(info.protocol_version, version, "{label}");
    assert!(
        info.capabilities.supports_tasks(),
        "{label}: an adapter with long-running operations advertises the tasks extension: {:?}",
        info.capabilities
    );
}

/// The jobs adapter serving streamable HTTP on 127.0.0.1 (`--mode single` and `args`): the
/// process (killed on drop) and its `/mcp` URL.
async fn http(upstream: &demo_upstream::Running, args: &[&str]) -> (Child, String) {
    let mut all = vec!["--bind", "127.0.0.1", "--mode", "single"];
    all.extend_from_slice(args);
    let env = env(upstream);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    http_server_for(BIN, &all, &env).await
}

/// rmcp's streamable HTTP client at 2026-07-28 (`server/discover`, no handshake; its client
/// capabilities go in each request's `_meta`), declaring the tasks extension when `tasks`.
async fn modern(url: &str, tasks: bool) -> Client {
    let client = config(tasks, ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(url.to_owned()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap_or_else(|error| panic!("server/discover at 2026-07-28 on {url}: {error}"));
    assert_offered(&client, ProtocolVersion::V_2026_07_28, url);
    client
}

/// rmcp's streamable HTTP client on a 2025-11-25 session, declaring the tasks extension at
/// `initialize` when `tasks`.
async fn session(url: &str, tasks: bool) -> Client {
    let client = config(tasks, ProtocolVersion::V_2025_11_25)
        .serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .unwrap_or_else(|error| panic!("MCP initialize on {url}: {error}"));
    assert_offered(&client, ProtocolVersion::V_2025_11_25, url);
    client
}

// ---------------------------------------------------------------------------------------------
// Calls

/// The `start_export` call with `params`.
fn start_export(params: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(TOOL).with_arguments(support::object(
        json!({"operation": "start_export", "params": params}),
    ))
}

/// Sends `request` and expects a task: the task of its `CreateTaskResult`, checked.
async fn create(peer: &Peer<RoleClient>, request: CallToolRequestParams, label: &str) -> Task {
    let response = peer
        .call_tool_once(request)
        .await
        .unwrap_or_else(|error| panic!("{label}: tools/call answers: {error}"));
    let CallToolResponse::Task(CreateTaskResult { task, .. }) = response else {
        panic!("{label}: a client with the tasks extension gets a task, not {response:?}");
    };
    assert!(
        task.task_id.starts_with("exec_")
            && task.task_id.len() > "exec_".len()
            && task.task_id["exec_".len()..]
                .chars()
                .all(|c| c.is_ascii_hexdigit()),
        "{label}: the task id is the execution id exec_<hex>: {task:?}"
    );
    assert_eq!(task.status, TaskStatus::Working, "{label}: {task:?}");
    assert_eq!(
        task.poll_interval_ms,
        Some(1000),
        "{label}: the lifecycle's poll interval: {task:?}"
    );
    task
}

/// Sends `request` and expects a complete result (no task): its MCP-AQL answer, checked
/// against the official result schema.
async fn complete(peer: &Peer<RoleClient>, request: CallToolRequestParams, label: &str) -> Value {
    let response = peer
        .call_tool_once(request)
        .await
        .unwrap_or_else(|error| panic!("{label}: tools/call answers: {error}"));
    let CallToolResponse::Complete(result) = response else {
        panic!(
            "{label}: a client without the tasks extension gets the call that waits, not {response:?}"
        );
    };
    let (answer, is_error) = support::parse(&result);
    assert!(!is_error, "{label}: {answer}");
    assert_result(&answer);
    answer
}

/// `tasks/get` of `id`.
async fn get(peer: &Peer<RoleClient>, id: &str, label: &str) -> GetTaskResult {
    let got = peer
        .get_task(GetTaskParams::new(id))
        .await
        .unwrap_or_else(|error| panic!("{label}: tasks/get {id} answers: {error}"));
    assert_eq!(got.task.task.task_id, id, "{label}: {got:?}");
    got
}

/// Polls `tasks/get` of `id` (at the interval the task asks for) until it ends: every
/// status seen, and the last answer.
async fn follow(
    peer: &Peer<RoleClient>,
    id: &str,
    label: &str,
) -> (Vec<TaskStatus>, GetTaskResult) {
    let until = Instant::now() + FOLLOW;
    let mut seen = Vec::new();
    loop {
        let got = get(peer, id, label).await;
        seen.push(got.task.status());
        if got.task.status().is_terminal() {
            return (seen, got);
        }
        assert_eq!(got.task.status(), TaskStatus::Working, "{label}: {got:?}");
        assert!(
            Instant::now() < until,
            "{label}: task {id} still {:?} after {FOLLOW:?}: {got:?}",
            got.task.status()
        );
        let interval = got.task.task.poll_interval_ms.unwrap_or(1000).min(1000);
        tokio::time::sleep(Duration::from_millis(interval)).await;
    }
}

/// The MCP-AQL answer a completed task carries (its `result`, a `CallToolResult`), checked
/// against the official result schema: its `data`, the state response.
fn answer_of(got: &GetTaskResult, label: &str) -> Value {
    let TaskPayload::Completed { result } = &got.task.payload else {
        panic!("{label}: a completed task: {got:?}");
    };
    let result: CallToolResult = serde_json::from_value(Value::Object(result.clone()))
        .unwrap_or_else(|error| {
            panic!("{label}: the task's result is a CallToolResult ({error}): {result:?}")
        });
    let (answer, is_error) = support::parse(&result);
    assert!(!is_error, "{label}: {answer}");
    assert_result(&answer);
    assert_eq!(answer["success"], true, "{label}: {answer}");
    assert_eq!(
        answer["data"]["execution_id"], got.task.task.task_id,
        "{label}: {answer}"
    );
    assert_eq!(
        answer["data"]["operation"], "start_export",
        "{label}: {answer}"
    );
    answer["data"].clone()
}

/// The JSON-RPC error of a failed request.
fn rpc_error(result: Result<impl std::fmt::Debug, ServiceError>, label: &str) -> rmcp::ErrorData {
    match result {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("{label}: a JSON-RPC error, not {other:?}"),
    }
}

/// The `POST /jobs/{id}/cancel` paths demo-upstream has received.
fn cancels(upstream: &demo_upstream::Running) -> Vec<String> {
    upstream
        .requests()
        .into_iter()
        .filter(|request| request.method == "POST" && request.path.ends_with("/cancel"))
        .map(|request| request.path)
        .collect()
}

/// Waits (up to 10 s) until demo-upstream has received a cancel of `job`.
async fn await_cancel(upstream: &demo_upstream::Running, job: &str, label: &str) {
    let path = format!("/jobs/{job}/cancel");
    let until = Instant::now() + Duration::from_secs(10);
    while !cancels(upstream).contains(&path) {
        assert!(
            Instant::now() < until,
            "{label}: demo-upstream got no POST {path} within 10 s; it got {:?}",
            upstream
                .requests()
                .iter()
                .map(|r| format!("{} {}", r.method, r.path))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The job as demo-upstream itself reports it.
async fn job(upstream: &demo_upstream::Running, job: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{}/jobs/{job}", upstream.base_url()))
        .header("x-api-key", KEY)
        .send()
        .await
        .expect("demo-upstream answers")
        .json()
        .await
        .expect("a JSON job")
}

// ---------------------------------------------------------------------------------------------
// 1 to 4. Tasks on a stdio session

/// `start_export` answers a task at once; `tasks/get` says working (with the upstream's
/// progress), then completed with the MCP-AQL answer: the state response with the job's result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_on_a_stdio_session_completes_with_the_state_response() {
    let label = "stdio 2025-11-25";
    let upstream = upstream().await;
    let client = stdio(&upstream, &[], true).await;
    // Tasks are for executions: anything else answers as ever.
    let introspected = complete(
        client.peer(),
        CallToolRequestParams::new(TOOL).with_arguments(support::object(
            json!({"operation": "introspect", "params": {"query": "operations"}}),
        )),
        label,
    )
    .await;
    assert_eq!(introspected["success"], true, "{label}: {introspected}");

    let created = create(
        client.peer(),
        start_export(json!({"kind": "orders", "steps": 6, "step_ms": 400})),
        label,
    )
    .await;
    let id = created.task_id.clone();
    // The job started upstream, and the call waited for nothing more.
    let posted: Vec<String> = upstream
        .requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(
        posted.first().map(String::as_str),
        Some("POST /jobs"),
        "{posted:?}"
    );

    let first = get(client.peer(), &id, label).await;
    assert_eq!(
        first.task.status(),
        TaskStatus::Working,
        "{label}: {first:?}"
    );
    assert_eq!(first.task.task.created_at, created.created_at, "{label}");
    let message = first.task.task.status_message.clone().unwrap_or_default();
    assert!(
        message.contains("execution running") && message.contains("of 6"),
        "{label}: the status message is the upstream's progress: {first:?}"
    );

    let (seen, done) = follow(client.peer(), &id, label).await;
    assert_eq!(
        done.task.status(),
        TaskStatus::Completed,
        "{label}: {seen:?}"
    );
    let data = answer_of(&done, label);
    assert_eq!(data["status"], "completed", "{label}: {data}");
    assert_eq!(data["result"], json!({"rows": 60}), "{label}: {data}");
    assert!(data["finished_at"].is_string(), "{label}: {data}");
    // A task that ended stays ended, with the same answer.
    let again = get(client.peer(), &id, label).await;
    assert_eq!(answer_of(&again, label), data, "{label}");
    client.cancel().await.expect("close the session");
}

/// A job that fails upstream ends a task `completed` whose MCP-AQL answer says `failed`, with
/// the upstream's error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_fails_completes_the_task_with_status_failed() {
    let label = "stdio, fail_at";
    let upstream = upstream().await;
    let client = stdio(&upstream, &[], true).await;
    let id = create(
        client.peer(),
        start_export(json!({"kind": "orders", "steps": 4, "step_ms": 200, "fail_at": 2})),
        label,
    )
    .await
    .task_id;
    let (seen, done) = follow(client.peer(), &id, label).await;
    assert_eq!(
        done.task.status(),
        TaskStatus::Completed,
        "{label}: a failed execution is a completed task whose answer says so: {seen:?}"
    );
    let data = answer_of(&done, label);
    assert_eq!(data["status"], "failed", "{label}: {data}");
    assert!(data.get("result").is_none(), "{label}: {data}");
    let error = &data["error"];
    assert_eq!(error["code"], "INTERNAL_ERROR", "{label}: {data}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.contains("step 2 failed")),
        "{label}: {data}"
    );
    assert_eq!(
        error["details"]["upstream_error"],
        json!({"code": "JOB_FAILED", "message": "step 2 failed"}),
        "{label}: {data}"
    );
    client.cancel().await.expect("close the session");
}

/// `tasks/cancel` of a running task cancels the job upstream; `tasks/get` then says cancelled;
/// a second `tasks/cancel` is refused and sends nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_cancel_cancels_the_job_upstream() {
    let label = "stdio, tasks/cancel";
    let upstream = upstream().await;
    let client = stdio(&upstream, &[], true).await;
    let id = create(
        client.peer(),
        start_export(json!({"kind": "orders", "steps": 100, "step_ms": 200})),
        label,
    )
    .await
    .task_id;
    let running = get(client.peer(), &id, label).await;
    assert_eq!(
        running.task.status(),
        TaskStatus::Working,
        "{label}: {running:?}"
    );
    assert!(
        cancels(&upstream).is_empty(),
        "{label}: nothing cancelled yet"
    );

    client
        .peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap_or_else(|error| panic!("{label}: tasks/cancel answers: {error}"));
    assert_eq!(cancels(&upstream), ["/jobs/job_1/cancel"], "{label}");
    assert_eq!(
        job(&upstream, "job_1").await["state"],
        "canceled",
        "{label}"
    );
    let cancelled = get(client.peer(), &id, label).await;
    assert_eq!(
        cancelled.task.status(),
        TaskStatus::Cancelled,
        "{label}: {cancelled:?}"
    );

    let error = rpc_error(
        client.peer().cancel_task(CancelTaskParams::new(&id)).await,
        &format!("{label}, again"),
    );
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{label}: {error:?}");
    assert!(
        error.message.contains("already ended"),
        "{label}: an ended task cannot be cancelled: {error:?}"
    );
    assert_eq!(
        cancels(&upstream),
        ["/jobs/job_1/cancel"],
        "{label}: the refused cancel sent nothing"
    );
    client.cancel().await.expect("close the session");
}

/// `tasks/get` and `tasks/cancel` of a task id the server never gave: `-32602`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_task_id_is_invalid_params() {
    let label = "stdio, unknown id";
    let upstream = upstream().await;
    let client = stdio(&upstream, &[], true).await;
    for id in ["exec_00000000000000000000000000000000", "job_1", ""] {
        let error = rpc_error(
            client.peer().get_task(GetTaskParams::new(id)).await,
            &format!("{label}: tasks/get {id:?}"),
        );
        assert_eq!(
            error.code,
            ErrorCode::INVALID_PARAMS,
            "{label}: {id:?}: {error:?}"
        );
        let error = rpc_error(
            client.peer().cancel_task(CancelTaskParams::new(id)).await,
            &format!("{label}: tasks/cancel {id:?}"),
        );
        assert_eq!(
            error.code,
            ErrorCode::INVALID_PARAMS,
            "{label}: {id:?}: {error:?}"
        );
    }
    assert!(
        upstream.requests().is_empty(),
        "{label}: nothing reached the upstream"
    );
    client.cancel().await.expect("close the session");
}

// ---------------------------------------------------------------------------------------------
// 5. Stateless 2026-07-28 over streamable HTTP, two instances on one redis-server

/// A task made on instance A is polled and cancelled on instance B (and A sees it cancelled);
/// another made on A is followed to its end on B. On the same instance A, a 2026-07-28 client
/// that does not declare the extension gets the call that waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_one_redis_answer_each_others_tasks() {
    let upstream = upstream().await;
    let redis = Redis::start().await;
    let state = redis.url();
    let args = ["--stateless", "--state", state.as_str()];
    let (mut server_a, url_a) = http(&upstream, &args).await;
    let (mut server_b, url_b) = http(&upstream, &args).await;
    let a = modern(&url_a, true).await;
    let b = modern(&url_b, true).await;

    let label = "2026-07-28, made on A, cancelled on B";
    let long = create(
        a.peer(),
        start_export(json!({"kind": "orders", "steps": 100, "step_ms": 200})),
        label,
    )
    .await
    .task_id;
    let on_b = get(b.peer(), &long, label).await;
    assert_eq!(on_b.task.status(), TaskStatus::Working, "{label}: {on_b:?}");
    b.peer()
        .cancel_task(CancelTaskParams::new(&long))
        .await
        .unwrap_or_else(|error| panic!("{label}: tasks/cancel on B: {error}"));
    assert_eq!(cancels(&upstream), ["/jobs/job_1/cancel"], "{label}");
    for (name, peer) in [("B", b.peer()), ("A", a.peer())] {
        let got = get(peer, &long, label).await;
        assert_eq!(
            got.task.status(),
            TaskStatus::Cancelled,
            "{label}, on {name}: {got:?}"
        );
    }

    let label = "2026-07-28, made on A, followed on B";
    let short = create(
        a.peer(),
        start_export(json!({"kind": "invoices", "steps": 3, "step_ms": 300})),
        label,
    )
    .await
    .task_id;
    let (seen, done) = follow(b.peer(), &short, label).await;
    assert_eq!(
        done.task.status(),
        TaskStatus::Completed,
        "{label}: {seen:?}"
    );
    let data = answer_of(&done, label);
    assert_eq!(data["status"], "completed", "{label}: {data}");
    assert_eq!(data["result"], json!({"rows": 30}), "{label}: {data}");

    // 7, on the same instance: no extension declared in _meta, no task.
    let label = "2026-07-28 without the tasks extension, on A";
    let plain = modern(&url_a, false).await;
    let answer = complete(
        plain.peer(),
        start_export(json!({"kind": "refunds", "steps": 2, "step_ms": 200})),
        label,
    )
    .await;
    assert_eq!(answer["data"]["status"], "completed", "{label}: {answer}");
    assert_eq!(
        answer["data"]["result"],
        json!({"rows": 20}),
        "{label}: {answer}"
    );

    for client in [a, b, plain] {
        client.cancel().await.expect("close the client");
    }
    server_a.kill().await.expect("stop instance A");
    server_b.kill().await.expect("stop instance B");
    redis.stop().await;
}

/// Under `--credential-header`, a task belongs to the credential that started it: another
/// caller's `tasks/get` and `tasks/cancel` find no such task, and nothing reaches the upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_bound_to_the_credential_that_started_it() {
    let label = "2026-07-28, --credential-header";
    let upstream = upstream().await;
    let (mut server, url) = http(
        &upstream,
        &["--stateless", "--credential-header", "X-Jobs-Key"],
    )
    .await;
    let caller = |key: &str| {
        let mut headers = std::collections::HashMap::new();
        headers.insert(
            reqwest::header::HeaderName::from_static("x-jobs-key"),
            reqwest::header::HeaderValue::from_str(key).expect("a header value"),
        );
        StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.clone()).custom_headers(headers),
        )
    };
    let lifecycle = || ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let owner = config(true, ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(caller(KEY), lifecycle())
        .await
        .expect("server/discover");
    let other = config(true, ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(caller("someone-elses-key"), lifecycle())
        .await
        .expect("server/discover");
    let id = create(
        owner.peer(),
        start_export(json!({"kind": "orders", "steps": 100, "step_ms": 200})),
        label,
    )
    .await
    .task_id;
    let before = upstream.requests().len();
    let error = rpc_error(
        other.peer().get_task(GetTaskParams::new(&id)).await,
        &format!("{label}: tasks/get by another caller"),
    );
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{label}: {error:?}");
    let error = rpc_error(
        other.peer().cancel_task(CancelTaskParams::new(&id)).await,
        &format!("{label}: tasks/cancel by another caller"),
    );
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{label}: {error:?}");
    assert_eq!(
        upstream.requests().len(),
        before,
        "{label}: another caller's requests reached nothing upstream"
    );
    let got = get(owner.peer(), &id, label).await;
    assert_eq!(got.task.status(), TaskStatus::Working, "{label}: {got:?}");
    owner
        .peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap_or_else(|error| panic!("{label}: tasks/cancel by its owner: {error}"));
    assert_eq!(cancels(&upstream), ["/jobs/job_1/cancel"], "{label}");
    for client in [owner, other] {
        client.cancel().await.expect("close the client");
    }
    server.kill().await.expect("stop the server");
}

// ---------------------------------------------------------------------------------------------
// 6. A task outlives its process under --state file:

/// A task made on one process (a 2025-11-25 session over streamable HTTP) is answered by the
/// next process on the same state file after the first was killed, and followed to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_outlives_its_process_with_a_state_file() {
    let label = "--state file:";
    let upstream = upstream().await;
    let dir = std::env::temp_dir().join(format!("aqlgen-tasks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("state.jsonl");
    let _ = std::fs::remove_file(&file);
    let state = format!("file:{}", file.display());
    let args = ["--state", state.as_str()];

    let (mut first, url) = http(&upstream, &args).await;
    let client = session(&url, true).await;
    let id = create(
        client.peer(),
        start_export(json!({"kind": "orders", "steps": 8, "step_ms": 500})),
        label,
    )
    .await
    .task_id;
    first.kill().await.expect("kill the first process");
    drop(client);

    let (mut second, url) = http(&upstream, &args).await;
    let client = session(&url, true).await;
    let (seen, done) = follow(client.peer(), &id, label).await;
    assert_eq!(
        seen.first(),
        Some(&TaskStatus::Working),
        "{label}: the restarted process finds the job still running: {seen:?}"
    );
    assert_eq!(
        done.task.status(),
        TaskStatus::Completed,
        "{label}: {seen:?}"
    );
    let data = answer_of(&done, label);
    assert_eq!(data["status"], "completed", "{label}: {data}");
    assert_eq!(data["result"], json!({"rows": 80}), "{label}: {data}");
    client.cancel().await.expect("close the session");
    second.kill().await.expect("stop the second process");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// 7 and 8. Clients without the extension

/// A stdio client that does not declare the extension gets the call that waits: the state
/// response, completed, or still running past `--execution-wait` (then `get_execution`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_tasks_gets_the_waiting_call() {
    let label = "stdio 2025-11-25 without the tasks extension";
    let upstream = upstream().await;
    let client = stdio(&upstream, &["--execution-wait", "2"], false).await;
    let answer = complete(
        client.peer(),
        start_export(json!({"kind": "orders", "steps": 3, "step_ms": 200})),
        label,
    )
    .await;
    let data = &answer["data"];
    assert_eq!(data["status"], "completed", "{label}: {answer}");
    assert_eq!(data["result"], json!({"rows": 30}), "{label}: {answer}");
    assert!(
        data["execution_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("exec_")),
        "{label}: {answer}"
    );

    let answer = complete(
        client.peer(),
        start_export(json!({"kind": "orders", "steps": 100, "step_ms": 200})),
        &format!("{label}, past the wait"),
    )
    .await;
    assert_eq!(answer["data"]["status"], "running", "{label}: {answer}");
    let id = answer["data"]["execution_id"].clone();
    let got = complete(
        client.peer(),
        CallToolRequestParams::new(TOOL).with_arguments(support::object(
            json!({"operation": "get_execution", "params": {"execution_id": id}}),
        )),
        &format!("{label}, get_execution"),
    )
    .await;
    assert_eq!(got["data"]["execution_id"], id, "{label}: {got}");
    assert_eq!(got["data"]["status"], "running", "{label}: {got}");
    client.cancel().await.expect("close the session");
}

/// A waiting call the client gives up on (`notifications/cancelled`, sent by rmcp when the
/// call's future is dropped) cancels the job it started upstream: over stdio and on a
/// 2025-11-25 HTTP session, and at 2026-07-28 on stateless HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_waiting_call_cancels_the_job_upstream() {
    tokio::join!(
        cancelled_call(Transport::Stdio),
        cancelled_call(Transport::Session),
        cancelled_call(Transport::Stateless),
    );
}

#[derive(Debug, Clone, Copy)]
enum Transport {
    /// A 2025-11-25 session over stdio.
    Stdio,
    /// A 2025-11-25 session over streamable HTTP.
    Session,
    /// 2026-07-28 over stateless streamable HTTP.
    Stateless,
}

/// A `start_export` of a 30 s job over `transport`, by a client without the tasks extension,
/// dropped after 1.5 s.
async fn cancelled_call(transport: Transport) {
    let label = format!("notifications/cancelled, {transport:?}");
    let upstream = upstream().await;
    let wait = ["--execution-wait", "30"];
    let (server, client) = match transport {
        Transport::Stdio => (None, stdio(&upstream, &wait, false).await),
        Transport::Session => {
            let (server, url) = http(&upstream, &wait).await;
            (Some(server), session(&url, false).await)
        }
        Transport::Stateless => {
            let (server, url) = http(&upstream, &wait).await;
            (Some(server), modern(&url, false).await)
        }
    };
    let call = client.peer().call_tool_once(start_export(
        json!({"kind": "orders", "steps": 100, "step_ms": 300}),
    ));
    // Give the call time to start the job and follow it a while, then drop it.
    let outcome = tokio::time::timeout(Duration::from_millis(1500), call).await;
    assert!(
        outcome.is_err(),
        "{label}: the call was still waiting on its 30 s job, not {outcome:?}"
    );
    await_cancel(&upstream, "job_1", &label).await;
    assert_eq!(
        job(&upstream, "job_1").await["state"],
        "canceled",
        "{label}"
    );
    assert_eq!(cancels(&upstream), ["/jobs/job_1/cancel"], "{label}");
    client.cancel().await.expect("close the client");
    if let Some(mut server) = server {
        server.kill().await.expect("stop the server");
    }
}
