//! Long-running operations end to end (SPEC §8.4): `tests/jobs-adapter.md`, compiled into the
//! `real-api-adapter` binary (`REAL_API=jobs`), starts export jobs on demo-upstream's job API
//! and follows them. A call that starts one answers the execution's state response after
//! following it for `--execution-wait`, with `notifications/progress` (in percent, never
//! decreasing) for a client that sent a progress token; `get_execution` and
//! `cancel_execution` read and cancel it later, on any instance sharing the state store.
//!
//! Completion, failure and cancel run behind the Python and TypeScript SDKs
//! (`tests/python/elicit_client.py`, `tests/ts/elicit_client.mjs`, with `"progress": true`) over
//! stdio, and the TypeScript one also over streamable HTTP; the rest behind rmcp's client, raw
//! stateless HTTP requests (two instances on one `redis-server`, per-caller credentials) or
//! both SDKs again (a progress token inside the operation object's `_meta`). demo-upstream's
//! own view of each job (`GET /jobs/{id}`) and its request log prove what reached it. The
//! cancel passes the safety gate: a person confirms it through the Python SDK's form, or a
//! token does; a cancel of an execution that ended since the last read is refused as ended.

mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::sdk::Sdk;
use support::{Client, Redis, assert_introspection, assert_result, call, http_server_for};

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");
/// The key demo-upstream's job API wants.
const KEY: &str = "jobs-test-key";
/// The one tool of `--mode single`.
const TOOL: &str = "mcp_aql";
const PROTOCOL: &str = "2025-11-25";

// ---------------------------------------------------------------------------------------------
// demo-upstream and the adapter

async fn jobs_api() -> demo_upstream::Running {
    demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream")
}

/// The adapter's environment against `api`.
fn env_for(api: &demo_upstream::Running) -> Vec<(&'static str, String)> {
    vec![
        ("REAL_API", "jobs".to_owned()),
        ("JOBS_BASE_URL", api.base_url()),
        ("JOBS_API_KEY", KEY.to_owned()),
    ]
}

fn borrowed<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter()
        .map(|(key, value)| (*key, value.as_str()))
        .collect()
}

/// The adapter over stdio behind rmcp's client, in single mode with `args`.
async fn rmcp_client(api: &demo_upstream::Running, args: &[&str]) -> Client {
    let mut all = vec!["--mode", "single"];
    all.extend_from_slice(args);
    let env = env_for(api);
    support::stdio_client_for(BIN, &all, &borrowed(&env)).await
}

/// Calls `operation` with `params` on the single tool; the answer, checked against the
/// official result schema.
async fn op(client: &Client, operation: &str, params: Value) -> Value {
    let (answer, is_error) = call(
        client.peer(),
        TOOL,
        json!({"operation": operation, "params": params}),
    )
    .await;
    assert_result(&answer);
    assert!(!is_error, "MCP-AQL answers are not tool errors: {answer}");
    answer
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

/// The paths of the requests `method` demo-upstream received, in order.
fn requested(api: &demo_upstream::Running, method: &str) -> Vec<String> {
    api.requests()
        .into_iter()
        .filter(|request| request.method == method)
        .map(|request| request.path)
        .collect()
}

/// A directory of its own for a `--state file:PATH` (the store keeps a lock file beside it),
/// removed with everything in it when the test ends.
fn state_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a state directory")
}

fn start_export(params: Value) -> Value {
    let mut params = params;
    params["kind"] = "orders".into();
    json!({"operation": "start_export", "params": params})
}

fn execution(operation: &str, id: &str) -> Value {
    json!({"operation": operation, "params": {"execution_id": id}})
}

/// The state response of a successful answer.
fn state(answer: &Value) -> &Value {
    assert_eq!(answer["success"], true, "a state response: {answer}");
    let data = &answer["data"];
    let id = data["execution_id"].as_str().unwrap_or_default();
    assert!(
        id.strip_prefix("exec_")
            .is_some_and(|hex| !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit())),
        "execution_id is exec_<hex>: {data}"
    );
    assert!(data["started_at"].is_string(), "started_at: {data}");
    data
}

fn status(answer: &Value) -> &str {
    state(answer)["status"].as_str().unwrap_or_default()
}

fn id_of(answer: &Value) -> String {
    state(answer)["execution_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The error object of an MCP-AQL failure.
fn error_of(answer: &Value) -> &Value {
    assert_eq!(answer["success"], false, "an error answer: {answer}");
    &answer["error"]
}

/// Checks a run of progress notifications: all of 100, strictly increasing, from 0 to 100.
fn assert_progress(label: &str, progress: &[(f64, Option<f64>)]) {
    assert!(
        progress.len() >= 3,
        "{label}: at least calling, started and ended are reported: {progress:?}"
    );
    assert!(
        progress.iter().all(|(_, total)| *total == Some(100.0)),
        "{label}: progress is in percent of 100: {progress:?}"
    );
    assert!(
        progress.windows(2).all(|pair| pair[0].0 < pair[1].0),
        "{label}: progress only increases: {progress:?}"
    );
    assert_eq!(
        progress.iter().take(2).map(|p| p.0).collect::<Vec<_>>(),
        [0.0, 10.0],
        "{label}: 0 when calling, 10 once the upstream took it: {progress:?}"
    );
    assert_eq!(
        progress.last().map(|p| p.0),
        Some(100.0),
        "{label}: {progress:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The third-party clients

/// One call as a harness printed it: the progress lines before it, and its answer.
#[derive(Debug)]
struct Called {
    /// `(progress, total)` of each `progress` line.
    progress: Vec<(f64, Option<f64>)>,
    /// Each `notification` line.
    notifications: Vec<Value>,
    /// Each `elicitation` line: a form the person was shown.
    elicitations: Vec<Value>,
    answer: Value,
}

/// Runs `sdk`'s harness on `plan`; its calls, each answer checked against the result schema.
async fn harness(sdk: Sdk, plan: &Value) -> Vec<Called> {
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
    let mut calls = Vec::new();
    let (mut progress, mut notifications, mut elicitations) = (Vec::new(), Vec::new(), Vec::new());
    for line in stdout.lines() {
        let step: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("{sdk:?} printed a non-JSON line ({error}): {line}"));
        match step["step"].as_str() {
            Some("progress") => progress.push((
                step["progress"].as_f64().expect("a progress number"),
                step["total"].as_f64(),
            )),
            Some("notification") => notifications.push(step),
            Some("elicitation") => elicitations.push(step),
            Some("call") => {
                assert!(
                    step.get("protocol_error").is_none(),
                    "{sdk:?}: the call failed at the protocol level: {step}\n{stdout}"
                );
                let answer = step["answer"].clone();
                assert_result(&answer);
                calls.push(Called {
                    progress: std::mem::take(&mut progress),
                    notifications: std::mem::take(&mut notifications),
                    elicitations: std::mem::take(&mut elicitations),
                    answer,
                });
            }
            _ => panic!("{sdk:?} printed an unexpected step: {line}"),
        }
    }
    assert!(
        progress.is_empty() && notifications.is_empty() && elicitations.is_empty(),
        "{sdk:?}: progress after the last answer:\n{stdout}"
    );
    calls
}

/// Where a harness reaches the adapter.
enum Reach {
    /// It spawns the adapter over stdio with these args and env.
    Stdio(Vec<String>, Vec<(&'static str, String)>),
    /// The adapter serves streamable HTTP here.
    Http(String),
}

impl Reach {
    fn plan(&self, calls: &[Value], progress: bool) -> Value {
        self.plan_answering(calls, progress, "none")
    }

    /// A plan whose person answers forms with `elicitation`.
    fn plan_answering(&self, calls: &[Value], progress: bool, elicitation: &str) -> Value {
        let calls: Vec<Value> = calls.iter().map(|c| json!({"arguments": c})).collect();
        let mut plan = json!({
            "protocol": PROTOCOL,
            "elicitation": elicitation,
            "tool": TOOL,
            "calls": calls,
            "progress": progress,
        });
        match self {
            Self::Stdio(args, env) => {
                plan["transport"] = "stdio".into();
                plan["command"] = BIN.into();
                plan["args"] = json!(args);
                let mut vars: serde_json::Map<String, Value> = env
                    .iter()
                    .map(|(key, value)| ((*key).to_owned(), Value::from(value.as_str())))
                    .collect();
                vars.insert("RUST_LOG".into(), "warn".into());
                plan["env"] = Value::Object(vars);
            }
            Self::Http(url) => {
                plan["transport"] = "http".into();
                plan["url"] = url.as_str().into();
            }
        }
        plan
    }
}

/// Completion, failure, cancel while pending and while running, and a refused cancel after
/// the end, behind `sdk` reaching the adapter through `reach` (whose executions outlive one
/// client session: a state file for stdio, the one process for HTTP); `api` is the adapter's
/// upstream, fresh, so that the jobs are `job_1` to `job_4` in the order started.
async fn complete_fail_and_cancel(sdk: Sdk, reach: &Reach, api: &demo_upstream::Running) {
    // A wait of 3 s: a job of 1.5 s ends within it, a longer one is answered after ~2 s.
    let started = harness(
        sdk,
        &reach.plan(
            &[
                start_export(json!({"steps": 3, "step_ms": 500})),
                start_export(json!({"steps": 5, "step_ms": 200, "fail_at": 2})),
                start_export(json!({"steps": 2, "step_ms": 100, "start_after_ms": 60000})),
                start_export(json!({"steps": 200, "step_ms": 300})),
            ],
            true,
        ),
    )
    .await;
    assert_eq!(started.len(), 4, "{sdk:?}: {started:#?}");

    // 1. Completed within the wait, with its result, and progress from 0 to 100.
    let completed = state(&started[0].answer);
    assert_eq!(completed["status"], "completed", "{sdk:?}: {completed}");
    assert_eq!(completed["operation"], "start_export");
    assert_eq!(completed["result"], json!({"rows": 30}), "{sdk:?}");
    assert!(completed["finished_at"].is_string(), "{completed}");
    assert_eq!(
        completed["progress"],
        json!({"current": 3, "total": 3, "percentage": 100, "message": "step 3 of 3"}),
        "{sdk:?}"
    );
    assert!(completed.get("error").is_none(), "{completed}");
    assert_progress(&format!("{sdk:?} completed"), &started[0].progress);
    assert!(
        started[0]
            .progress
            .iter()
            .any(|(p, _)| *p > 10.0 && *p < 90.0),
        "{sdk:?}: a read while the job ran reports its progress between 10 and 90: {:?}",
        started[0].progress
    );

    // 2. Failed, with the upstream's error in the details.
    let failed = state(&started[1].answer);
    assert_eq!(failed["status"], "failed", "{sdk:?}: {failed}");
    assert!(failed["finished_at"].is_string(), "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");
    let error = &failed["error"];
    assert_eq!(error["code"], "INTERNAL_ERROR", "{sdk:?}: {error}");
    assert_eq!(
        error["details"]["upstream_error"],
        json!({"code": "JOB_FAILED", "message": "step 2 failed"}),
        "{sdk:?}: {error}"
    );
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("step 2 failed")),
        "{error}"
    );
    assert_progress(&format!("{sdk:?} failed"), &started[1].progress);

    // The queued and the long job are answered before they end.
    let pending = state(&started[2].answer);
    assert_eq!(pending["status"], "pending", "{sdk:?}: {pending}");
    assert!(pending.get("finished_at").is_none(), "{pending}");
    let running = state(&started[3].answer);
    assert_eq!(running["status"], "running", "{sdk:?}: {running}");
    for call in &started[2..] {
        let last = call.progress.last().map(|p| p.0);
        assert!(
            call.progress.windows(2).all(|pair| pair[0].0 < pair[1].0)
                && last.is_some_and(|last| (10.0..=90.0).contains(&last)),
            "{sdk:?}: an execution that has not ended reports 10 to 90: {:?}",
            call.progress
        );
    }
    let ids: Vec<String> = started.iter().map(|call| id_of(&call.answer)).collect();
    assert_eq!(requested(api, "POST"), ["/jobs"; 4], "{sdk:?}");

    // 4. and 5. Another session: cancel the queued and the running job, refuse to cancel the
    // completed one; a cancelled execution stays cancelled, a failed one failed.
    let later = harness(
        sdk,
        &reach.plan(
            &[
                execution("cancel_execution", &ids[2]),
                execution("cancel_execution", &ids[3]),
                execution("cancel_execution", &ids[0]),
                execution("get_execution", &ids[3]),
                execution("get_execution", &ids[1]),
            ],
            false,
        ),
    )
    .await;
    assert_eq!(later.len(), 5, "{sdk:?}: {later:#?}");
    for (call, id) in later[..2].iter().zip(&ids[2..]) {
        let cancelled = state(&call.answer);
        assert_eq!(cancelled["status"], "cancelled", "{sdk:?}: {cancelled}");
        assert_eq!(cancelled["execution_id"], id.as_str());
        assert!(cancelled["finished_at"].is_string(), "{cancelled}");
    }
    let refused = error_of(&later[2].answer);
    assert_eq!(
        refused["code"], "VALIDATION_INVALID_VALUE",
        "{sdk:?}: {refused}"
    );
    assert_eq!(
        refused["details"]["status"], "completed",
        "{sdk:?}: {refused}"
    );
    assert_eq!(status(&later[3].answer), "cancelled", "{sdk:?}");
    let still_failed = state(&later[4].answer);
    assert_eq!(still_failed["status"], "failed", "{sdk:?}: {still_failed}");
    assert_eq!(
        still_failed["error"]["details"]["upstream_error"]["code"],
        "JOB_FAILED"
    );

    // Upstream, the two jobs were cancelled, and nothing was sent for the completed one.
    assert_eq!(
        requested(api, "POST")[4..],
        ["/jobs/job_3/cancel", "/jobs/job_4/cancel"],
        "{sdk:?}"
    );
    let queued = upstream_job(api, "job_3").await;
    assert_eq!(queued["state"], "canceled", "{sdk:?}: {queued}");
    assert_eq!(
        queued["progress"]["done"], 0,
        "cancelled while queued: {queued}"
    );
    let stopped = upstream_job(api, "job_4").await;
    assert_eq!(stopped["state"], "canceled", "{sdk:?}: {stopped}");
    assert_eq!(upstream_job(api, "job_1").await["state"], "succeeded");
}

/// A stdio adapter whose executions live in a state file, so that a second session (a
/// second process) sees what the first started.
fn stdio_reach(api: &demo_upstream::Running, file: &Path) -> Reach {
    let args = [
        "--mode".to_owned(),
        "single".to_owned(),
        "--execution-wait".to_owned(),
        "3".to_owned(),
        "--state".to_owned(),
        format!("file:{}", file.display()),
    ];
    Reach::Stdio(args.to_vec(), env_for(api))
}

#[tokio::test]
async fn python_sdk_over_stdio_sees_completion_failure_and_cancel() {
    let api = jobs_api().await;
    let dir = state_dir();
    let file = dir.path().join("executions.json");
    complete_fail_and_cancel(Sdk::Python, &stdio_reach(&api, &file), &api).await;
}

#[tokio::test]
async fn typescript_sdk_over_stdio_sees_completion_failure_and_cancel() {
    let api = jobs_api().await;
    let dir = state_dir();
    let file = dir.path().join("executions.json");
    complete_fail_and_cancel(Sdk::Ts, &stdio_reach(&api, &file), &api).await;
}

#[tokio::test]
async fn typescript_sdk_over_streamable_http_sees_completion_failure_and_cancel() {
    let api = jobs_api().await;
    let env = env_for(&api);
    let (mut server, url) = http_server_for(
        BIN,
        &["--mode", "single", "--execution-wait", "3"],
        &borrowed(&env),
    )
    .await;
    complete_fail_and_cancel(Sdk::Ts, &Reach::Http(url), &api).await;
    server.kill().await.expect("stop the adapter");
}

/// 3. A job longer than `--execution-wait 1` is answered `running`; `get_execution` reads it
/// again later and finds it completed, with its result.
#[tokio::test]
async fn a_long_job_is_answered_running_and_get_execution_finds_it_completed() {
    let api = jobs_api().await;
    let client = rmcp_client(&api, &["--execution-wait", "1"]).await;
    let begun = Instant::now();
    let started = op(
        &client,
        "start_export",
        json!({"kind": "orders", "steps": 6, "step_ms": 500}),
    )
    .await;
    let waited = begun.elapsed();
    assert_eq!(status(&started), "running", "{started}");
    assert!(
        waited < Duration::from_millis(2500),
        "answered after about the execution wait, not the job's 3 s: {waited:?}"
    );
    let id = id_of(&started);
    let mut answer = started;
    for _ in 0..10 {
        if status(&answer) == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(700)).await;
        answer = op(&client, "get_execution", json!({"execution_id": id})).await;
        let data = state(&answer);
        assert_eq!(data["execution_id"], id.as_str());
        assert_eq!(data["operation"], "start_export");
    }
    let done = state(&answer);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"], json!({"rows": 60}));
    assert!(done["finished_at"].is_string(), "{done}");

    // A job cancelled upstream behind the adapter's back is read as cancelled.
    let other = op(
        &client,
        "start_export",
        json!({"kind": "orders", "steps": 100, "step_ms": 500}),
    )
    .await;
    let other_id = id_of(&other);
    let direct = op(&client, "cancel_job", json!({"job_id": "job_2"})).await;
    assert_eq!(direct["success"], true, "{direct}");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let seen = op(&client, "get_execution", json!({"execution_id": other_id})).await;
    assert_eq!(status(&seen), "cancelled", "{seen}");
    assert!(state(&seen)["finished_at"].is_string(), "{seen}");

    // The id is checked; an unknown one is not found.
    let unknown = op(
        &client,
        "get_execution",
        json!({"execution_id": "exec_00000000000000000000000000000000"}),
    )
    .await;
    assert_eq!(
        error_of(&unknown)["code"],
        "NOT_FOUND_RESOURCE",
        "{unknown}"
    );
    let missing = op(&client, "get_execution", json!({})).await;
    assert_eq!(
        error_of(&missing)["code"],
        "VALIDATION_MISSING_PARAM",
        "{missing}"
    );
    client.cancel().await.expect("close");
}

/// 6. A job still running past the lifecycle's `timeout` (2 s) is given up as failed, with
/// reason `timeout`; it stays failed and cannot be cancelled.
#[tokio::test]
async fn a_job_past_its_timeout_is_failed_with_reason_timeout() {
    let api = jobs_api().await;
    let client = rmcp_client(&api, &[]).await;
    let begun = Instant::now();
    let answer = op(
        &client,
        "start_limited_export",
        json!({"kind": "orders", "steps": 100, "step_ms": 500}),
    )
    .await;
    let waited = begun.elapsed();
    let data = state(&answer);
    assert_eq!(data["status"], "failed", "{data}");
    assert_eq!(data["error"]["details"]["reason"], "timeout", "{data}");
    assert!(data["error"]["code"].is_string() && data["error"]["message"].is_string());
    assert!(data["finished_at"].is_string(), "{data}");
    assert!(
        waited < Duration::from_secs(6),
        "given up soon after the 2 s timeout, not after the 20 s wait: {waited:?}"
    );
    let id = id_of(&answer);
    let again = op(&client, "get_execution", json!({"execution_id": id})).await;
    assert_eq!(status(&again), "failed", "{again}");
    let cancel = op(&client, "cancel_execution", json!({"execution_id": id})).await;
    let refused = error_of(&cancel);
    assert_eq!(refused["code"], "VALIDATION_INVALID_VALUE", "{refused}");
    assert_eq!(refused["details"]["status"], "failed", "{refused}");
    assert_eq!(requested(&api, "POST"), ["/jobs"], "no cancel was sent");
    client.cancel().await.expect("close");
}

/// 9. `start_watched_export` follows the `Operation-Location` its start answered to the end;
/// a long one, which the upstream offers no way to cancel, cannot be cancelled.
#[tokio::test]
async fn operation_location_is_followed_to_completion() {
    let api = jobs_api().await;
    let client = rmcp_client(&api, &["--execution-wait", "3"]).await;
    let answer = op(
        &client,
        "start_watched_export",
        json!({"kind": "orders", "steps": 3, "step_ms": 200}),
    )
    .await;
    let data = state(&answer);
    assert_eq!(data["status"], "completed", "{data}");
    assert_eq!(data["operation"], "start_watched_export");
    // No result path: the whole status answer is the result.
    assert_eq!(data["result"]["state"], "succeeded", "{data}");
    assert_eq!(data["result"]["result"], json!({"rows": 30}), "{data}");
    assert!(
        requested(&api, "GET")
            .iter()
            .any(|path| path == "/jobs/job_1"),
        "polled the Operation-Location: {:?}",
        api.requests()
    );

    let long = op(
        &client,
        "start_watched_export",
        json!({"kind": "orders", "steps": 100, "step_ms": 500}),
    )
    .await;
    assert_eq!(status(&long), "running", "{long}");
    let cancel = op(
        &client,
        "cancel_execution",
        json!({"execution_id": id_of(&long)}),
    )
    .await;
    assert_eq!(
        error_of(&cancel)["code"],
        "VALIDATION_INVALID_VALUE",
        "{cancel}"
    );
    assert_eq!(
        requested(&api, "POST"),
        ["/jobs", "/jobs"],
        "no cancel sent"
    );
    client.cancel().await.expect("close");
}

// ---------------------------------------------------------------------------------------------
// Across instances and restarts

/// One stateless MCP request to `url` with the caller's key in `x-api-key`; the MCP-AQL
/// answer, checked against the result schema.
async fn stateless_call(url: &str, key: &str, arguments: Value) -> Value {
    support::stateless_call_with(url, &[("x-api-key", key)], TOOL, arguments).await
}

/// 7. Two stateless instances on one `redis-server`, each caller's own key sent upstream
/// (`--credential-header x-api-key`): an execution started on A is read and cancelled on B;
/// another credential does not find it; the upstream is read at most once per poll interval
/// whichever instance asks.
#[tokio::test]
async fn instances_on_redis_share_executions_but_not_across_credentials() {
    let redis = Redis::start().await;
    let api = jobs_api().await;
    let store = redis.url();
    let args = [
        "--stateless",
        "--mode",
        "single",
        "--state",
        &store,
        "--credential-header",
        "x-api-key",
        "--execution-wait",
        "0",
    ];
    // The server's own key is wrong: only the callers' keys reach demo-upstream.
    let mut env = env_for(&api);
    env.retain(|(key, _)| *key != "JOBS_API_KEY");
    env.push(("JOBS_API_KEY", "not-the-key".to_owned()));
    let env = borrowed(&env);
    let (mut a_server, a) = http_server_for(BIN, &args, &env).await;
    let (mut b_server, b) = http_server_for(BIN, &args, &env).await;

    let begun = Instant::now();
    let started =
        stateless_call(&a, KEY, start_export(json!({"steps": 100, "step_ms": 300}))).await;
    assert!(
        begun.elapsed() < Duration::from_secs(3),
        "--execution-wait 0 answers at once: {:?}",
        begun.elapsed()
    );
    let first = state(&started);
    assert!(
        ["pending", "running"].contains(&first["status"].as_str().unwrap_or_default()),
        "{first}"
    );
    let id = id_of(&started);

    // Read on B, then on A and B again, within one poll interval of each other: the upstream
    // is read at most once for all of them.
    let polls = || {
        api.requests()
            .iter()
            .filter(|r| r.method == "GET" && r.path == "/jobs/job_1")
            .count()
    };
    let before = polls();
    let window = Instant::now();
    let mut seen = Vec::new();
    for url in [&b, &a, &b] {
        seen.push(stateless_call(url, KEY, execution("get_execution", &id)).await);
    }
    let window = window.elapsed();
    for answer in &seen {
        let data = state(answer);
        assert_eq!(data["execution_id"], id.as_str(), "{data}");
        assert_eq!(data["operation"], "start_export");
        assert_eq!(data["started_at"], first["started_at"]);
        assert!(
            ["pending", "running"].contains(&data["status"].as_str().unwrap_or_default()),
            "{data}"
        );
    }
    if window < Duration::from_millis(900) {
        assert!(
            polls() - before <= 1,
            "three reads within {window:?} polled the upstream {} times; the poll interval is 1 s, shared through the store",
            polls() - before
        );
    }

    // Another credential: not found, on either instance, for reading or cancelling.
    for url in [&a, &b] {
        for operation in ["get_execution", "cancel_execution"] {
            let foreign = stateless_call(url, "someone-elses-key", execution(operation, &id)).await;
            assert_eq!(
                error_of(&foreign)["code"],
                "NOT_FOUND_RESOURCE",
                "{operation}: {foreign}"
            );
        }
    }
    assert_eq!(
        requested(&api, "POST"),
        ["/jobs"],
        "nothing was cancelled yet"
    );

    // Cancel on B; A sees it cancelled; the upstream job is.
    let cancelled = stateless_call(&b, KEY, execution("cancel_execution", &id)).await;
    assert_eq!(status(&cancelled), "cancelled", "{cancelled}");
    let on_a = stateless_call(&a, KEY, execution("get_execution", &id)).await;
    assert_eq!(status(&on_a), "cancelled", "{on_a}");
    assert_eq!(requested(&api, "POST"), ["/jobs", "/jobs/job_1/cancel"]);
    assert!(
        api.requests()
            .iter()
            .all(|r| r.header("x-api-key") == Some(KEY)),
        "every upstream request carried the caller's key"
    );
    let job = upstream_job(&api, "job_1").await;
    assert_eq!(job["state"], "canceled", "{job}");
    let again = stateless_call(&a, KEY, execution("cancel_execution", &id)).await;
    assert_eq!(
        error_of(&again)["details"]["status"],
        "cancelled",
        "{again}"
    );

    a_server.kill().await.expect("stop A");
    b_server.kill().await.expect("stop B");
    redis.stop().await;
}

/// 8. An execution started with `--execution-wait 0` on a process that is then killed is
/// followed to completion by the next process on the same `--state file:PATH`.
#[tokio::test]
async fn an_execution_survives_a_restart_on_a_state_file() {
    let api = jobs_api().await;
    let dir = state_dir();
    let file = dir.path().join("executions.json");
    let store = format!("file:{}", file.display());
    let args = ["--state", store.as_str(), "--execution-wait", "0"];

    let first = rmcp_client(&api, &args).await;
    let started = op(
        &first,
        "start_export",
        json!({"kind": "orders", "steps": 5, "step_ms": 600}),
    )
    .await;
    assert_ne!(status(&started), "completed", "{started}");
    let id = id_of(&started);
    // Closing the client drops the child process, which is killed (kill_on_drop).
    first.cancel().await.expect("close");

    let second = rmcp_client(&api, &args).await;
    let mut answer = op(&second, "get_execution", json!({"execution_id": id})).await;
    assert!(
        ["pending", "running"].contains(&status(&answer)),
        "the new process knows the execution: {answer}"
    );
    for _ in 0..12 {
        if status(&answer) == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(600)).await;
        answer = op(&second, "get_execution", json!({"execution_id": id})).await;
    }
    let done = state(&answer);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"], json!({"rows": 50}));
    assert_eq!(done["started_at"], state(&started)["started_at"]);
    assert_eq!(
        requested(&api, "POST"),
        ["/jobs"],
        "started once, never cancelled"
    );
    second.cancel().await.expect("close");
}

// ---------------------------------------------------------------------------------------------
// Progress token in the operation object, introspection

/// 10. A progress token in the operation object's `_meta` (and none in the request's) gets
/// the progress notifications too, behind both SDKs.
#[tokio::test]
async fn a_progress_token_in_the_operation_object_gets_notifications() {
    let api = jobs_api().await;
    let mut arguments = start_export(json!({"steps": 3, "step_ms": 500}));
    arguments["_meta"] = json!({"progressToken": "t1"});
    let reach = Reach::Stdio(
        ["--mode", "single", "--execution-wait", "5"]
            .map(str::to_owned)
            .to_vec(),
        env_for(&api),
    );
    let mut plan = reach.plan(&[arguments], false);
    plan["notifications"] = true.into();
    let (python, ts) = tokio::join!(harness(Sdk::Python, &plan), harness(Sdk::Ts, &plan));
    for (sdk, calls) in [(Sdk::Python, python), (Sdk::Ts, ts)] {
        assert_eq!(calls.len(), 1, "{sdk:?}: {calls:#?}");
        assert_eq!(
            status(&calls[0].answer),
            "completed",
            "{sdk:?}: {:?}",
            calls[0]
        );
        let notifications = &calls[0].notifications;
        assert!(
            notifications.iter().all(|n| n["progress_token"] == "t1"),
            "{sdk:?}: every notification carries the operation object's token: {notifications:#?}"
        );
        let progress: Vec<(f64, Option<f64>)> = notifications
            .iter()
            .map(|n| (n["progress"].as_f64().unwrap_or(-1.0), n["total"].as_f64()))
            .collect();
        assert_progress(&format!("{sdk:?}, operation object's _meta"), &progress);
        assert!(
            notifications
                .iter()
                .any(|n| n["message"].as_str().is_some_and(|m| m.contains("of 3"))),
            "{sdk:?}: messages tell the upstream's progress: {notifications:#?}"
        );
    }
}

/// 11. A lifecycle operation's details describe its lifecycle; `get_execution` and
/// `cancel_execution` are listed, on the read and the execute endpoint.
#[tokio::test]
async fn introspection_describes_lifecycles_and_execution_operations() {
    let api = jobs_api().await;
    let env = env_for(&api);
    let client = support::stdio_client_for(BIN, &[], &borrowed(&env)).await;
    let peer = client.peer();
    let introspect = |tool: &'static str, params: Value| async move {
        let (answer, is_error) = call(
            peer,
            tool,
            json!({"operation": "introspect", "params": params}),
        )
        .await;
        assert!(!is_error);
        assert_introspection(&answer);
        answer
    };
    let names = |list: &Value| -> Vec<String> {
        list["data"]["operations"]
            .as_array()
            .expect("operations")
            .iter()
            .filter_map(|op| op["name"].as_str().map(str::to_owned))
            .collect()
    };

    let all = introspect("mcp_aql_read", json!({"query": "operations"})).await;
    let all = names(&all);
    for name in [
        "start_export",
        "start_watched_export",
        "start_limited_export",
    ] {
        assert!(all.iter().any(|n| n == name), "{name} in {all:?}");
    }
    let read = introspect(
        "mcp_aql_read",
        json!({"query": "operations", "endpoint": "read"}),
    )
    .await;
    let read = names(&read);
    assert!(read.iter().any(|n| n == "get_execution"), "{read:?}");
    assert!(!read.iter().any(|n| n == "cancel_execution"), "{read:?}");
    let execute = introspect(
        "mcp_aql_read",
        json!({"query": "operations", "endpoint": "execute"}),
    )
    .await;
    let execute = names(&execute);
    assert!(
        execute.iter().any(|n| n == "cancel_execution"),
        "{execute:?}"
    );
    assert!(!execute.iter().any(|n| n == "get_execution"), "{execute:?}");

    let details = |name: &'static str| {
        introspect("mcp_aql_read", json!({"query": "operations", "name": name}))
    };
    let states = json!(["pending", "running", "completed", "failed", "cancelled"]);
    let started = details("start_export").await;
    let started = &started["data"]["operation"];
    assert_eq!(started["mcpTool"], "mcp_aql_execute");
    assert_eq!(
        started["lifecycle"],
        json!({"states": states, "supports_cancel": true, "supports_retry": false, "progress_reporting": true}),
        "{started}"
    );
    let watched = details("start_watched_export").await;
    assert_eq!(
        watched["data"]["operation"]["lifecycle"],
        json!({"states": states, "supports_cancel": false, "supports_retry": false, "progress_reporting": false}),
        "{watched}"
    );
    let limited = details("start_limited_export").await;
    assert_eq!(
        limited["data"]["operation"]["lifecycle"]["supports_cancel"],
        true
    );
    let plain = details("get_job").await;
    assert!(
        plain["data"]["operation"].get("lifecycle").is_none(),
        "{plain}"
    );

    let get = details("get_execution").await;
    let get = &get["data"]["operation"];
    assert_eq!(get["mcpTool"], "mcp_aql_read", "{get}");
    assert_eq!(get["endpoint"], "read");
    assert_eq!(get["parameters"][0]["name"], "execution_id", "{get}");
    assert_eq!(get["parameters"][0]["required"], true);
    let cancel = details("cancel_execution").await;
    let cancel = &cancel["data"]["operation"];
    assert_eq!(cancel["mcpTool"], "mcp_aql_execute", "{cancel}");
    assert_eq!(cancel["endpoint"], "execute");
    assert_eq!(cancel["parameters"][0]["name"], "execution_id", "{cancel}");

    // get_execution goes to the read tool, cancel_execution to the execute tool.
    let (wrong, _) = call(
        peer,
        "mcp_aql_execute",
        execution("get_execution", "exec_00"),
    )
    .await;
    assert_result(&wrong);
    assert_eq!(
        wrong["error"]["code"], "VALIDATION_ENDPOINT_MISMATCH",
        "{wrong}"
    );
    client.cancel().await.expect("close");

    // In single mode both are served by the one tool.
    let single = rmcp_client(&api, &[]).await;
    for name in ["get_execution", "cancel_execution"] {
        let (details, _) = call(
            single.peer(),
            TOOL,
            json!({"operation": "introspect", "params": {"query": "operations", "name": name}}),
        )
        .await;
        assert_introspection(&details);
        assert_eq!(details["data"]["operation"]["mcpTool"], TOOL, "{details}");
    }
    single.cancel().await.expect("close");

    // --execution-wait is 0 to 600 seconds.
    let refused = support::command_for(BIN, &["--execution-wait", "601"], &borrowed(&env))
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run the adapter");
    assert!(
        !refused.status.success()
            && String::from_utf8_lossy(&refused.stderr).contains("execution-wait"),
        "--execution-wait 601 is refused: {refused:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The cancel operation passes the safety gate

/// `cancel_execution` calls the lifecycle's cancel operation through the gate: with
/// `--confirm-at reversible` the person at the client (the Python SDK answering the form) is
/// asked; a no leaves the job running, a yes cancels it.
#[tokio::test]
async fn the_person_confirms_a_cancel_through_the_gate() {
    let api = jobs_api().await;
    let dir = state_dir();
    let file = dir.path().join("executions.json");
    let args = [
        "--mode".to_owned(),
        "single".to_owned(),
        "--execution-wait".to_owned(),
        "0".to_owned(),
        "--confirm-at".to_owned(),
        "reversible".to_owned(),
        "--state".to_owned(),
        format!("file:{}", file.display()),
    ];
    let reach = Reach::Stdio(args.to_vec(), env_for(&api));
    let start = start_export(json!({"steps": 100, "step_ms": 300}));
    let started = harness(
        Sdk::Python,
        &reach.plan_answering(&[start], false, "accept"),
    )
    .await;
    assert_eq!(started[0].elicitations.len(), 1, "{started:#?}");
    let id = id_of(&started[0].answer);
    assert_eq!(status(&started[0].answer), "running", "{:?}", started[0]);

    let cancel = execution("cancel_execution", &id);
    let declined = harness(
        Sdk::Python,
        &reach.plan_answering(
            &[cancel.clone(), execution("get_execution", &id)],
            false,
            "decline",
        ),
    )
    .await;
    assert_eq!(declined[0].elicitations.len(), 1, "{declined:#?}");
    let form = declined[0].elicitations[0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        form.contains("/jobs/job_1/cancel"),
        "the form shows the cancel call: {form}"
    );
    let refused = error_of(&declined[0].answer);
    assert_eq!(
        refused["code"], "PERMISSION_CONFIRMATION_DECLINED",
        "{refused}"
    );
    assert_eq!(status(&declined[1].answer), "running", "{:?}", declined[1]);
    assert_eq!(
        requested(&api, "POST"),
        ["/jobs"],
        "a declined cancel sends nothing"
    );

    let accepted = harness(
        Sdk::Python,
        &reach.plan_answering(&[cancel], false, "accept"),
    )
    .await;
    assert_eq!(accepted[0].elicitations.len(), 1, "{accepted:#?}");
    assert_eq!(
        status(&accepted[0].answer),
        "cancelled",
        "{:?}",
        accepted[0]
    );
    assert_eq!(requested(&api, "POST"), ["/jobs", "/jobs/job_1/cancel"]);
    assert_eq!(upstream_job(&api, "job_1").await["state"], "canceled");
}

/// With token confirmation (`--confirm-by all=token`) `cancel_execution` answers
/// `CONFIRMATION_REQUIRED`, whose message says to call again with the same params plus
/// `confirmation_token`; doing so must cancel the execution (the token, issued for `cancel_job`
/// with the upstream job id the model never saw, reaches the gate through `cancel_execution`).
#[tokio::test]
async fn a_cancel_asked_to_be_confirmed_with_a_token_can_be_confirmed() {
    let api = jobs_api().await;
    let client = rmcp_client(
        &api,
        &[
            "--confirm-at",
            "reversible",
            "--confirm-by",
            "all=token",
            "--execution-wait",
            "0",
        ],
    )
    .await;
    let mut params = json!({"kind": "orders", "steps": 100, "step_ms": 300});
    let asked = op(&client, "start_export", params.clone()).await;
    assert_eq!(error_of(&asked)["code"], "CONFIRMATION_REQUIRED", "{asked}");
    params["confirmation_token"] = asked["error"]["details"]["confirmation_token"].clone();
    let started = op(&client, "start_export", params).await;
    assert_eq!(status(&started), "running", "{started}");
    let id = id_of(&started);

    let asked = op(&client, "cancel_execution", json!({"execution_id": id})).await;
    let question = error_of(&asked);
    assert_eq!(question["code"], "CONFIRMATION_REQUIRED", "{asked}");
    assert_eq!(
        requested(&api, "POST"),
        ["/jobs"],
        "nothing cancelled before the confirmation"
    );
    let token = question["details"]["confirmation_token"].clone();
    assert!(token.is_string(), "{asked}");
    let confirmed = op(
        &client,
        "cancel_execution",
        json!({"execution_id": id, "confirmation_token": token}),
    )
    .await;
    assert_eq!(
        confirmed["success"], true,
        "cancel_execution called again with the confirmation_token its CONFIRMATION_REQUIRED asked for cancels the execution: {confirmed}"
    );
    assert_eq!(status(&confirmed), "cancelled", "{confirmed}");
    assert_eq!(requested(&api, "POST"), ["/jobs", "/jobs/job_1/cancel"]);
    client.cancel().await.expect("close");
}

/// An execution that ended upstream after the adapter last read it (within the poll
/// interval, so the cancel does not read it again) is still an ended execution: cancelling it
/// must answer `VALIDATION_INVALID_VALUE` with its status, as for one the adapter saw end: a
/// cancel reads the state again first, and again after the upstream refuses it.
#[tokio::test]
async fn cancelling_an_execution_that_ended_since_the_last_read_is_refused_as_ended() {
    let api = jobs_api().await;
    let client = rmcp_client(&api, &["--execution-wait", "0"]).await;
    // One step of 200 ms: read running at the start, over 200 ms later.
    let started = op(
        &client,
        "start_export",
        json!({"kind": "orders", "steps": 1, "step_ms": 200}),
    )
    .await;
    let begun = Instant::now();
    assert_eq!(status(&started), "running", "{started}");
    let id = id_of(&started);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let cancel = op(&client, "cancel_execution", json!({"execution_id": id})).await;
    let within_interval = begun.elapsed() < Duration::from_millis(900);
    let later = {
        tokio::time::sleep(Duration::from_millis(1100)).await;
        op(&client, "get_execution", json!({"execution_id": id})).await
    };
    assert_eq!(status(&later), "completed", "the job did end: {later}");
    if within_interval {
        let refused = error_of(&cancel);
        assert_eq!(
            (
                refused["code"].as_str(),
                refused["details"]["status"].as_str()
            ),
            (Some("VALIDATION_INVALID_VALUE"), Some("completed")),
            "cancelling an execution that has ended (upstream, since the adapter's last read) answers VALIDATION_INVALID_VALUE with details.status: {cancel}"
        );
    }
    client.cancel().await.expect("close");
}
