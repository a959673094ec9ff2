//! MCP Tasks (`io.modelcontextprotocol/tasks`, SEP-2663) behind the two third-party SDKs:
//! `tests/python/elicit_client.py` (the Python `mcp` SDK) and `tests/ts/elicit_client.mjs`
//! (`@modelcontextprotocol/client`) with `"tasks": true` declare the extension, get a task from
//! `start_export` on the jobs adapter (`real-api-adapter`, `REAL_API=jobs`, over stdio) and poll
//! it with `tasks/get` until it ends; `"cancel_after_ms"` sends `tasks/cancel` while it runs.
//!
//! Neither SDK has a tasks client, and each carries tasks on one revision only: the Python SDK
//! through its extension mechanism (a result claim of `resultType: "task"`), active at
//! 2026-07-28 only; the TypeScript SDK through its low-level `request()` on a 2025-11-25
//! session, as its 2026-07-28 codec refuses a `task` result. So Python runs at 2026-07-28 and
//! TypeScript at 2025-11-25 (the harnesses explain why in their headers).

mod support;

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::assert_result;
use support::sdk::Sdk;

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");
/// The key demo-upstream's job API wants.
const KEY: &str = "jobs-test-key";
/// The one tool of `--mode single`.
const TOOL: &str = "mcp_aql";

// ---------------------------------------------------------------------------------------------
// demo-upstream

async fn jobs_api() -> demo_upstream::Running {
    demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream")
}

/// The `POST /jobs/{id}/cancel` paths demo-upstream has received.
fn cancels(api: &demo_upstream::Running) -> Vec<String> {
    api.requests()
        .into_iter()
        .filter(|request| request.method == "POST" && request.path.ends_with("/cancel"))
        .map(|request| request.path)
        .collect()
}

/// demo-upstream's own view of job `id`.
async fn upstream_job(api: &demo_upstream::Running, id: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{}/jobs/{id}", api.base_url()))
        .header("x-api-key", KEY)
        .send()
        .await
        .expect("demo-upstream answers")
        .json()
        .await
        .expect("a job")
}

// ---------------------------------------------------------------------------------------------
// The third-party clients (as in tests/tests/executions.rs)

/// The revision on which `sdk` carries tasks (see the module documentation).
fn tasks_protocol(sdk: Sdk) -> &'static str {
    match sdk {
        Sdk::Python => "2026-07-28",
        Sdk::Ts => "2025-11-25",
    }
}

/// A plan for `sdk` spawning the jobs adapter against `api` over stdio, with one
/// `start_export` call of `params`, merged with `extra` (e.g. `{"tasks": true}`).
fn plan(sdk: Sdk, api: &demo_upstream::Running, params: Value, extra: Value) -> Value {
    let mut params = params;
    params["kind"] = "orders".into();
    let mut plan = json!({
        "transport": "stdio",
        "command": BIN,
        "args": ["--mode", "single"],
        "env": {
            "REAL_API": "jobs",
            "JOBS_BASE_URL": api.base_url(),
            "JOBS_API_KEY": KEY,
            "RUST_LOG": "warn",
        },
        "protocol": tasks_protocol(sdk),
        "elicitation": "none",
        "tool": TOOL,
        "calls": [{"arguments": {"operation": "start_export", "params": params}}],
    });
    for (key, value) in extra.as_object().expect("extra is an object") {
        plan[key] = value.clone();
    }
    plan
}

/// What a harness printed for its one call.
#[derive(Debug, Default)]
struct Run {
    /// The `task` line, when the call answered a task.
    task: Option<Value>,
    /// Each `task_status` line (one per `tasks/get`).
    statuses: Vec<Value>,
    /// Each `task_cancel` line.
    cancels: Vec<Value>,
    /// The `call` line.
    call: Value,
    stdout: String,
}

impl Run {
    fn task_id(&self, label: &str) -> String {
        let task = self
            .task
            .as_ref()
            .unwrap_or_else(|| panic!("{label}: the call answered a task:\n{}", self.stdout));
        let id = task["task_id"].as_str().unwrap_or_default().to_owned();
        assert!(
            id.strip_prefix("exec_")
                .is_some_and(|hex| !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit())),
            "{label}: the task id is the execution id exec_<hex>: {task}"
        );
        assert_eq!(task["status"], "working", "{label}: {task}");
        assert_eq!(task["poll_interval_ms"], 1000, "{label}: {task}");
        id
    }

    /// The statuses `tasks/get` answered, in order; each for task `id`.
    fn statuses(&self, id: &str, label: &str) -> Vec<String> {
        self.statuses
            .iter()
            .map(|line| {
                assert_eq!(line["task_id"], id, "{label}: {line}");
                line["status"].as_str().unwrap_or_default().to_owned()
            })
            .collect()
    }

    /// The MCP-AQL answer of the call line, checked against the official result schema.
    fn answer(&self, label: &str) -> &Value {
        assert_eq!(
            self.call["is_error"], false,
            "{label}: MCP-AQL answers are not tool errors:\n{}",
            self.stdout
        );
        let answer = &self.call["answer"];
        assert_result(answer);
        assert_eq!(answer["success"], true, "{label}: {answer}");
        answer
    }
}

/// Runs `sdk`'s harness on `plan` (one call); what it printed.
async fn harness(sdk: Sdk, plan: &Value) -> Run {
    let output = sdk
        .command()
        .arg(plan.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(90), output)
        .await
        .unwrap_or_else(|_| panic!("{sdk:?} harness ran over 90 s on {plan}"))
        .expect("run the harness");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{sdk:?} harness failed on {plan}\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut run = Run::default();
    let mut calls = Vec::new();
    for line in stdout.lines() {
        let step: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("{sdk:?} printed a non-JSON line ({error}): {line}"));
        match step["step"].as_str() {
            Some("task") => {
                assert!(run.task.is_none(), "{sdk:?}: a second task:\n{stdout}");
                run.task = Some(step);
            }
            Some("task_status") => run.statuses.push(step),
            Some("task_cancel") => run.cancels.push(step),
            Some("call") => {
                assert!(
                    step.get("protocol_error").is_none(),
                    "{sdk:?}: the call failed at the protocol level: {step}\n{stdout}"
                );
                calls.push(step);
            }
            _ => panic!("{sdk:?} printed an unexpected step: {line}"),
        }
    }
    assert_eq!(calls.len(), 1, "{sdk:?}: one call line:\n{stdout}");
    run.call = calls.remove(0);
    run.stdout = stdout;
    run
}

// ---------------------------------------------------------------------------------------------
// The scenarios, each behind one SDK

/// A 1.2 s job: the task is working, then completed with the state response and its rows.
async fn completes(sdk: Sdk) {
    let label = format!("{sdk:?}, completed");
    let api = jobs_api().await;
    let plan = plan(
        sdk,
        &api,
        json!({"steps": 6, "step_ms": 200}),
        json!({"tasks": true}),
    );
    let run = harness(sdk, &plan).await;
    let id = run.task_id(&label);
    let statuses = run.statuses(&id, &label);
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("completed"),
        "{label}: {statuses:?}\n{}",
        run.stdout
    );
    assert!(
        statuses[..statuses.len() - 1]
            .iter()
            .all(|s| s == "working"),
        "{label}: {statuses:?}"
    );
    let data = &run.answer(&label)["data"];
    assert_eq!(data["execution_id"], id, "{label}: {data}");
    assert_eq!(data["operation"], "start_export", "{label}: {data}");
    assert_eq!(data["status"], "completed", "{label}: {data}");
    assert_eq!(data["result"], json!({"rows": 60}), "{label}: {data}");
    assert!(run.cancels.is_empty(), "{label}");
    assert!(cancels(&api).is_empty(), "{label}: nothing cancelled");
    assert_eq!(upstream_job(&api, "job_1").await["state"], "succeeded");
}

/// A job failing at step 2: the task completes, its answer the failed state response with
/// the upstream's error.
async fn fails(sdk: Sdk) {
    let label = format!("{sdk:?}, fail_at");
    let api = jobs_api().await;
    let plan = plan(
        sdk,
        &api,
        json!({"steps": 4, "step_ms": 200, "fail_at": 2}),
        json!({"tasks": true}),
    );
    let run = harness(sdk, &plan).await;
    let id = run.task_id(&label);
    let statuses = run.statuses(&id, &label);
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("completed"),
        "{label}: a failed execution is a completed task whose answer says so: {statuses:?}"
    );
    let data = &run.answer(&label)["data"];
    assert_eq!(data["execution_id"], id, "{label}: {data}");
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
    assert_eq!(upstream_job(&api, "job_1").await["state"], "failed");
}

/// A 20 s job, `tasks/cancel` 500 ms in: demo-upstream gets the cancel, the task ends
/// cancelled, the call has no answer.
async fn cancels_upstream(sdk: Sdk) {
    let label = format!("{sdk:?}, tasks/cancel");
    let api = jobs_api().await;
    let plan = plan(
        sdk,
        &api,
        json!({"steps": 100, "step_ms": 200}),
        json!({"tasks": true, "cancel_after_ms": 500}),
    );
    let run = harness(sdk, &plan).await;
    let id = run.task_id(&label);
    assert_eq!(run.cancels.len(), 1, "{label}:\n{}", run.stdout);
    assert_eq!(run.cancels[0]["task_id"], id, "{label}: {}", run.cancels[0]);
    assert!(
        run.cancels[0].get("protocol_error").is_none(),
        "{label}: tasks/cancel answers: {}",
        run.cancels[0]
    );
    let statuses = run.statuses(&id, &label);
    assert_eq!(
        statuses,
        ["cancelled"],
        "{label}: the tasks/get after the cancel:\n{}",
        run.stdout
    );
    assert_eq!(
        run.call,
        json!({"step": "call", "cancelled": true}),
        "{label}"
    );
    assert_eq!(cancels(&api), ["/jobs/job_1/cancel"], "{label}");
    assert_eq!(upstream_job(&api, "job_1").await["state"], "canceled");
}

/// Without `"tasks"` the same call waits and answers the state response (no task).
async fn waits_without_tasks(sdk: Sdk) {
    let label = format!("{sdk:?}, without tasks");
    let api = jobs_api().await;
    let plan = plan(sdk, &api, json!({"steps": 3, "step_ms": 200}), json!({}));
    let run = harness(sdk, &plan).await;
    assert!(
        run.task.is_none() && run.statuses.is_empty(),
        "{label}: no task:\n{}",
        run.stdout
    );
    let data = &run.answer(&label)["data"];
    assert!(
        data["execution_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("exec_")),
        "{label}: {data}"
    );
    assert_eq!(data["status"], "completed", "{label}: {data}");
    assert_eq!(data["result"], json!({"rows": 30}), "{label}: {data}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_completes_with_the_state_response_behind_both_sdks() {
    tokio::join!(completes(Sdk::Python), completes(Sdk::Ts));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_job_completes_the_task_with_the_error_behind_both_sdks() {
    tokio::join!(fails(Sdk::Python), fails(Sdk::Ts));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_cancel_cancels_the_job_upstream_behind_both_sdks() {
    tokio::join!(cancels_upstream(Sdk::Python), cancels_upstream(Sdk::Ts));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_tasks_gets_the_waiting_call_behind_both_sdks() {
    tokio::join!(
        waits_without_tasks(Sdk::Python),
        waits_without_tasks(Sdk::Ts)
    );
}

/// Each SDK on the revision it cannot carry tasks on: its harness says so and stops.
#[tokio::test]
async fn each_sdk_refuses_tasks_on_the_other_revision() {
    let api = jobs_api().await;
    for (sdk, other) in [(Sdk::Python, "2025-11-25"), (Sdk::Ts, "2026-07-28")] {
        let mut plan = plan(
            sdk,
            &api,
            json!({"steps": 1, "step_ms": 10}),
            json!({"tasks": true}),
        );
        plan["protocol"] = other.into();
        let output = sdk
            .command()
            .arg(plan.to_string())
            .stdin(Stdio::null())
            .output()
            .await
            .expect("run the harness");
        assert_eq!(
            output.status.code(),
            Some(2),
            "{sdk:?} at {other}: {output:?}"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("\"tasks\" needs \"protocol\""),
            "{sdk:?} at {other}: {stderr}"
        );
    }
    assert!(api.requests().is_empty(), "nothing reached the upstream");
}
