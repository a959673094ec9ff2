//! The person at the client confirms what the safety gate holds, end to end: the generated
//! todo adapter's `delete_todo` (destructive, held at the schema's trust level `validated`)
//! behind third-party MCP clients (the Python and TypeScript SDKs, driven by
//! `tests/python/elicit_client.py` and `tests/ts/elicit_client.mjs`, which answer forms the way
//! a person would) over stdio and streamable HTTP, on 2025-11-25 sessions (`elicitation/create`)
//! and at 2026-07-28 (`input_required` and a sealed `requestState`); the operator's fallbacks
//! for clients without elicitation; the `requestState` on the wire (tampered, drifted, foreign,
//! replayed, shared by two instances on one `redis-server`); and out-of-band verification
//! codes sent to a webhook served here, which must never show up where the model or the logs
//! could see them. demo-upstream's request log proves that nothing the person did not confirm
//! reached the API.

mod support;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};
use support::sdk::{SDKS, Sdk};
use support::{Redis, TODO_KEY, assert_result, demo_api, http_server_for};
use tokio::process::Child;

const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
const DELETE_TOOL: &str = "mcp_aql_delete";
const SESSIONS: &str = "2025-11-25";
const MODERN: &str = "2026-07-28";
const PROTOCOLS: [&str; 2] = [SESSIONS, MODERN];
/// The item every case deletes (demo-upstream seeds items 1 to 3).
const ITEM: u64 = 2;
/// Harness runs at once within one test: enough to overlap the waits, few enough for 2 cores.
const PARALLEL: usize = 3;

// ---------------------------------------------------------------------------------------------
// The third-party clients

/// What a harness printed: its JSON steps, and stdout as it came.
struct Run {
    steps: Vec<Value>,
    stdout: String,
}

impl Run {
    fn elicitations(&self) -> Vec<&Value> {
        self.steps
            .iter()
            .filter(|step| step["step"] == "elicitation")
            .collect()
    }

    /// The MCP-AQL answers of the calls, each checked against the official result schema.
    fn answers(&self, label: &str) -> Vec<&Value> {
        self.steps
            .iter()
            .filter(|step| step["step"] == "call")
            .map(|step| {
                assert!(
                    step.get("protocol_error").is_none(),
                    "{label}: the call failed at the protocol level: {step}"
                );
                let answer = &step["answer"];
                assert_result(answer);
                answer
            })
            .collect()
    }

    /// The one answer of a one-call plan.
    fn answer(&self, label: &str) -> &Value {
        let answers = self.answers(label);
        assert_eq!(answers.len(), 1, "{label}: one answer: {:#?}", self.steps);
        answers[0]
    }
}

/// Runs `sdk`'s harness on `plan`.
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
    let steps = stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("{sdk:?} printed a non-JSON line ({error}): {line}"))
        })
        .collect();
    Run { steps, stdout }
}

// ---------------------------------------------------------------------------------------------
// The adapter under test

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Stdio,
    Http,
}

const TRANSPORTS: [Transport; 2] = [Transport::Stdio, Transport::Http];

/// The todo adapter serving streamable HTTP on 127.0.0.1 against `upstream`: the process
/// (killed on drop) and its `/mcp` URL.
async fn todo_http(upstream: &demo_upstream::Running, args: &[&str]) -> (Child, String) {
    let base_url = upstream.base_url();
    let mut all = vec!["--bind", "127.0.0.1"];
    all.extend_from_slice(args);
    http_server_for(
        TODO_BIN,
        &all,
        &[("TODO_BASE_URL", &base_url), ("TODO_API_KEY", TODO_KEY)],
    )
    .await
}

/// A fresh demo-upstream and the todo adapter with `args`: spawned by the harness (stdio), or
/// serving HTTP here.
struct Server {
    upstream: demo_upstream::Running,
    args: Vec<String>,
    http: Option<(Child, String)>,
}

impl Server {
    async fn start(transport: Transport, args: &[&str]) -> Self {
        let upstream = demo_api().await;
        let http = match transport {
            Transport::Stdio => None,
            Transport::Http => Some(todo_http(&upstream, args).await),
        };
        Self {
            upstream,
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            http,
        }
    }

    /// A harness plan against this server.
    fn plan(&self, protocol: &str, elicitation: &str, calls: Vec<Value>) -> Value {
        let mut plan = json!({
            "protocol": protocol,
            "elicitation": elicitation,
            "tool": DELETE_TOOL,
            "calls": calls,
        });
        match &self.http {
            Some((_, url)) => {
                plan["transport"] = "http".into();
                plan["url"] = url.as_str().into();
            }
            None => {
                plan["transport"] = "stdio".into();
                plan["command"] = TODO_BIN.into();
                plan["args"] = json!(self.args);
                plan["env"] = json!({
                    "TODO_BASE_URL": self.upstream.base_url(),
                    "TODO_API_KEY": TODO_KEY,
                    "RUST_LOG": "warn",
                });
            }
        }
        plan
    }

    /// The paths of the DELETEs that reached the API.
    fn deletes(&self) -> Vec<String> {
        deletes(&self.upstream)
    }
}

fn deletes(upstream: &demo_upstream::Running) -> Vec<String> {
    upstream
        .requests()
        .into_iter()
        .filter(|request| request.method == "DELETE")
        .map(|request| request.path)
        .collect()
}

/// Asserts that nothing at all reached the API: no DELETE, and no other request either.
fn assert_untouched(upstream: &demo_upstream::Running, label: &str) {
    let requests: Vec<String> = upstream
        .requests()
        .iter()
        .map(|request| format!("{} {}", request.method, request.path))
        .collect();
    assert!(
        requests.is_empty(),
        "{label}: nothing may reach the API, yet it got {requests:?}"
    );
}

/// The item delete as a harness call, with a confirmation token when given.
fn delete_call(token: Option<&str>) -> Value {
    let mut params = json!({"id": ITEM});
    if let Some(token) = token {
        params["confirmation_token"] = token.into();
    }
    json!({"arguments": {"operation": "delete_todo", "params": params}})
}

fn code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("success")
}

/// The confirmation token of a `CONFIRMATION_REQUIRED` answer.
fn token_of(answer: &Value, label: &str) -> String {
    assert_eq!(code(answer), "CONFIRMATION_REQUIRED", "{label}: {answer}");
    answer["error"]["details"]["confirmation_token"]
        .as_str()
        .unwrap_or_else(|| panic!("{label}: a confirmation token in {answer}"))
        .to_owned()
}

/// What the person must be shown: the operation, its danger level and the exact request.
fn assert_form_message(message: &str, label: &str) {
    for shown in [
        "'delete_todo'",
        "destructive",
        "\"method\": \"DELETE\"",
        &format!("\"path\": \"/todos/{ITEM}\""),
    ] {
        assert!(
            message.contains(shown),
            "{label}: the form does not show {shown}:\n{message}"
        );
    }
}

/// A form step printed by a harness: form mode, the message, and one `field` of `kind`.
fn assert_form(step: &Value, field: &str, kind: &str, label: &str) {
    assert_eq!(step["mode"], "form", "{label}: {step}");
    assert_form_message(step["message"].as_str().unwrap_or_default(), label);
    let schema = &step["requested_schema"];
    assert_eq!(
        schema["properties"][field]["type"], kind,
        "{label}: the form asks for {field}: {schema}"
    );
    assert_eq!(schema["required"], json!([field]), "{label}: {schema}");
}

// ---------------------------------------------------------------------------------------------
// Many cases at once

type Case = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Runs `cases` at most [`PARALLEL`] at a time and reports every failing one.
async fn run_cases(cases: Vec<(String, Case)>) {
    let mut running = tokio::task::JoinSet::new();
    let mut failures = Vec::new();
    let mut record = |joined: Result<(), tokio::task::JoinError>| {
        if let Err(error) = joined {
            let message = match error.try_into_panic() {
                Ok(panic) => panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "a panic".to_owned()),
                Err(error) => error.to_string(),
            };
            failures.push(message);
        }
    };
    for (label, case) in cases {
        if running.len() >= PARALLEL
            && let Some(joined) = running.join_next().await
        {
            record(joined);
        }
        running.spawn(async move {
            let started = std::time::Instant::now();
            case.await;
            eprintln!("{label}: ok in {:.1} s", started.elapsed().as_secs_f64());
        });
    }
    while let Some(joined) = running.join_next().await {
        record(joined);
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------------------------
// 1. The person accepts, declines, cancels or walks away

/// One SDK, transport, revision and answer: the form shows what would run; only a yes lets
/// exactly one DELETE through.
async fn person_case(sdk: Sdk, transport: Transport, protocol: &'static str, outcome: &str) {
    let label = format!("{sdk:?} over {transport:?} at {protocol}, person answers {outcome}");
    let timeout = outcome == "timeout";
    let args: &[&str] = if timeout {
        &["--confirm-timeout", "1"]
    } else {
        &[]
    };
    let server = Server::start(transport, args).await;
    let mut plan = server.plan(protocol, outcome, vec![delete_call(None)]);
    if timeout {
        plan["timeout_seconds"] = 3.into();
    }
    let run = harness(sdk, &plan).await;
    let forms = run.elicitations();
    assert_eq!(forms.len(), 1, "{label}: one form: {:#?}", run.steps);
    assert_form(forms[0], "confirm", "boolean", &label);
    let answer = run.answer(&label);
    match outcome {
        "accept" => {
            assert_eq!(code(answer), "success", "{label}: {answer}");
            assert_eq!(
                server.deletes(),
                [format!("/todos/{ITEM}")],
                "{label}: the confirmed DELETE reached the API exactly once"
            );
            return;
        }
        "decline" | "cancel" => {
            assert_eq!(
                code(answer),
                "PERMISSION_CONFIRMATION_DECLINED",
                "{label}: {answer}"
            );
            assert_eq!(answer["error"]["details"]["action"], outcome, "{label}");
            assert_eq!(answer["error"]["details"]["operation"], "delete_todo");
        }
        "timeout" if protocol == MODERN => {
            // The person answered after the requestState expired with --confirm-timeout.
            assert_eq!(code(answer), "TOKEN_EXPIRED", "{label}: {answer}");
            assert_eq!(answer["error"]["details"]["token"], "requestState");
        }
        "timeout" => {
            assert_eq!(
                code(answer),
                "PERMISSION_CONFIRMATION_TIMEOUT",
                "{label}: {answer}"
            );
        }
        other => unreachable!("{other}"),
    }
    assert_untouched(&server.upstream, &label);
}

fn person_cases(sdk: Sdk) -> Vec<(String, Case)> {
    let mut cases: Vec<(String, Case)> = Vec::new();
    // The slow ones first, so the quick ones fill in around them.
    for outcome in ["timeout", "accept", "decline", "cancel"] {
        for transport in TRANSPORTS {
            for protocol in PROTOCOLS {
                cases.push((
                    format!("{sdk:?} {transport:?} {protocol} {outcome}"),
                    Box::pin(person_case(sdk, transport, protocol, outcome)),
                ));
            }
        }
    }
    cases
}

/// The Python SDK over stdio and HTTP, at 2025-11-25 and 2026-07-28: accept, decline,
/// cancel, timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_person_accepts_declines_cancels_or_times_out() {
    run_cases(person_cases(Sdk::Python)).await;
}

/// The TypeScript SDK over stdio and HTTP, at 2025-11-25 and 2026-07-28: accept, decline,
/// cancel, timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ts_sdk_person_accepts_declines_cancels_or_times_out() {
    run_cases(person_cases(Sdk::Ts)).await;
}

// ---------------------------------------------------------------------------------------------
// 2. The operator's fallbacks, and the token flow chosen outright

/// A client without elicitation gets the token flow by default: a token, nothing sent yet.
async fn fallback_token_case(sdk: Sdk, transport: Transport, protocol: &'static str) {
    let label = format!("{sdk:?} over {transport:?} at {protocol} without elicitation");
    let server = Server::start(transport, &[]).await;
    let run = harness(sdk, &server.plan(protocol, "none", vec![delete_call(None)])).await;
    assert!(run.elicitations().is_empty(), "{label}: {:#?}", run.steps);
    let token = token_of(run.answer(&label), &label);
    assert_untouched(&server.upstream, &label);
    if transport == Transport::Http && protocol == MODERN {
        // Without sessions the caller is the same across connections: the token brought back
        // by a second run of the client runs the call, once.
        let again = harness(
            sdk,
            &server.plan(protocol, "none", vec![delete_call(Some(&token))]),
        )
        .await;
        let answer = again.answer(&label);
        assert_eq!(
            code(answer),
            "success",
            "{label}, token brought back: {answer}"
        );
        assert_eq!(server.deletes(), [format!("/todos/{ITEM}")], "{label}");
    }
}

/// `--confirm-fallback refuse`: a client without elicitation is refused, nothing is sent.
async fn fallback_refuse_case(sdk: Sdk, transport: Transport, protocol: &'static str) {
    let label = format!("{sdk:?} over {transport:?} at {protocol}, --confirm-fallback refuse");
    let server = Server::start(transport, &["--confirm-fallback", "refuse"]).await;
    let run = harness(sdk, &server.plan(protocol, "none", vec![delete_call(None)])).await;
    assert!(run.elicitations().is_empty(), "{label}: {:#?}", run.steps);
    let answer = run.answer(&label);
    assert_eq!(
        code(answer),
        "PERMISSION_CONFIRMATION_UNAVAILABLE",
        "{label}: {answer}"
    );
    let details = &answer["error"]["details"];
    assert_eq!(details["operation"], "delete_todo", "{label}: {answer}");
    assert_eq!(details["confirm_by"], "person", "{label}: {answer}");
    assert!(
        details.get("confirmation_token").is_none(),
        "{label}: no token: {answer}"
    );
    assert_untouched(&server.upstream, &label);
}

/// `--confirm-by all=token`: even a client that could show a form gets a token, no form.
async fn confirm_by_token_case(sdk: Sdk, transport: Transport, protocol: &'static str) {
    let label = format!("{sdk:?} over {transport:?} at {protocol}, --confirm-by all=token");
    let server = Server::start(transport, &["--confirm-by", "all=token"]).await;
    let run = harness(
        sdk,
        &server.plan(protocol, "accept", vec![delete_call(None)]),
    )
    .await;
    assert!(
        run.elicitations().is_empty(),
        "{label}: the person is not asked: {:#?}",
        run.steps
    );
    token_of(run.answer(&label), &label);
    assert_untouched(&server.upstream, &label);
}

fn matrix<F, Fut>(name: &str, case: F) -> Vec<(String, Case)>
where
    F: Fn(Sdk, Transport, &'static str) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut cases: Vec<(String, Case)> = Vec::new();
    for sdk in SDKS {
        for transport in TRANSPORTS {
            for protocol in PROTOCOLS {
                cases.push((
                    format!("{name}: {sdk:?} {transport:?} {protocol}"),
                    Box::pin(case(sdk, transport, protocol)),
                ));
            }
        }
    }
    cases
}

/// A client without elicitation gets the token flow by default (and the token runs the call
/// once), or a refusal under `--confirm-fallback refuse`; `--confirm-by all=token` gives even
/// an elicitation-capable client the token flow without a form.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fallbacks_and_the_token_policy() {
    let mut cases = matrix("fallback token", fallback_token_case);
    cases.extend(matrix("fallback refuse", fallback_refuse_case));
    cases.extend(matrix("confirm-by token", confirm_by_token_case));
    run_cases(cases).await;

    // On a stdio session the token is brought back on the same connection (rmcp's client,
    // which declares no elicitation).
    let upstream = demo_api().await;
    let client = support::todo_client(&upstream, &[]).await;
    let arguments = json!({"operation": "delete_todo", "params": {"id": ITEM}});
    let (asked, _) = support::call(client.peer(), DELETE_TOOL, arguments.clone()).await;
    assert_result(&asked);
    let token = token_of(&asked, "rmcp session without elicitation");
    assert_untouched(&upstream, "rmcp session before the token came back");
    let mut confirmed = arguments;
    confirmed["params"]["confirmation_token"] = token.into();
    let (ran, _) = support::call(client.peer(), DELETE_TOOL, confirmed).await;
    assert_result(&ran);
    assert_eq!(code(&ran), "success", "{ran}");
    assert_eq!(deletes(&upstream), [format!("/todos/{ITEM}")]);
    client.cancel().await.expect("close the session");
}

// ---------------------------------------------------------------------------------------------
// 3 and 4. The requestState on the wire (2026-07-28, stateless HTTP, reqwest)

/// The `_meta` envelope a 2026-07-28 request carries, as the TypeScript SDK sends it.
fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "aqlgen-raw-client", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

/// One 2026-07-28 `tools/call` of `mcp_aql_delete` by `caller` (its bearer token), a retry when
/// `retry` brings a requestState and the person's answer; the JSON-RPC result.
async fn post_call(
    url: &str,
    caller: &str,
    arguments: &Value,
    retry: Option<(&str, Value)>,
) -> Value {
    let mut params = json!({"name": DELETE_TOOL, "arguments": arguments, "_meta": envelope()});
    if let Some((state, response)) = retry {
        params["requestState"] = state.into();
        params["inputResponses"] = json!({"aql_confirmation": response});
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", MODERN)
        .header("mcp-method", "tools/call")
        .header("mcp-name", DELETE_TOOL)
        .header("authorization", format!("Bearer {caller}"))
        .body(body.to_string())
        .send()
        .await
        .expect("the adapter answers");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    assert_eq!(status, 200, "{url}: {text}");
    let message = support::rpc_message(&text);
    assert_eq!(message["id"], 7, "{message}");
    message
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("a result, not {message}"))
}

/// The form and the sealed state of an `input_required` result.
fn input_required(result: &Value) -> (Value, String) {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "one input request: {result}");
    let request = &requests["aql_confirmation"];
    assert_eq!(request["method"], "elicitation/create", "{result}");
    let params = request["params"].clone();
    assert_eq!(params["mode"], "form", "{result}");
    let state = result["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("a requestState: {result}"))
        .to_owned();
    (params, state)
}

/// The MCP-AQL answer of a complete result, checked against the official result schema.
fn answer_of(result: &Value) -> Value {
    assert_ne!(result["resultType"], "input_required", "{result}");
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text content: {result}"));
    let answer: Value = serde_json::from_str(text).expect("MCP-AQL JSON");
    assert_result(&answer);
    answer
}

/// A refusal of the requestState itself.
fn assert_state_refused(answer: &Value, expected: &str, label: &str) {
    assert_eq!(code(answer), expected, "{label}: {answer}");
    assert_eq!(
        answer["error"]["details"]["token"], "requestState",
        "{label}: {answer}"
    );
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

fn delete_args(id: u64) -> Value {
    json!({"operation": "delete_todo", "params": {"id": id}})
}

/// `state` with one base64url character changed, in its payload or in its tag.
fn tampered(state: &str, in_tag: bool) -> String {
    let parts: Vec<&str> = state.split('.').collect();
    assert!(
        parts.len() >= 3,
        "a sealed state has dot-separated parts: {state}"
    );
    let index = if in_tag {
        parts.len() - 1
    } else {
        parts.len() - 2
    };
    let mut part: Vec<char> = parts[index].chars().collect();
    let middle = part.len() / 2;
    part[middle] = if part[middle] == 'A' { 'B' } else { 'A' };
    let part: String = part.into_iter().collect();
    let mut parts: Vec<String> = parts.iter().map(|part| (*part).to_owned()).collect();
    parts[index] = part;
    parts.join(".")
}

/// At 2026-07-28 on stateless HTTP the requestState is sealed, bound to the caller, to the
/// call it was issued for and to one answer: tampered, foreign, drifted and replayed states are
/// refused, and only the correct retry reaches the API, once.
#[tokio::test]
async fn the_request_state_is_sealed_bound_and_single_use() {
    let upstream = demo_api().await;
    let (_server, url) = todo_http(&upstream, &["--stateless"]).await;
    let call = delete_args(ITEM);

    let asked = post_call(&url, "alice", &call, None).await;
    let (form, state) = input_required(&asked);
    assert_form_message(
        form["message"].as_str().unwrap_or_default(),
        "input_required",
    );
    assert_eq!(
        form["requestedSchema"]["properties"]["confirm"]["type"], "boolean",
        "{form}"
    );
    assert_untouched(&upstream, "asked, not answered");

    for in_tag in [false, true] {
        let forged = tampered(&state, in_tag);
        let answer = answer_of(&post_call(&url, "alice", &call, Some((&forged, yes()))).await);
        assert_state_refused(&answer, "TOKEN_INVALID", "tampered requestState");
    }
    let foreign = answer_of(&post_call(&url, "mallory", &call, Some((&state, yes()))).await);
    assert_state_refused(&foreign, "TOKEN_INVALID", "another caller's requestState");
    let drifted =
        answer_of(&post_call(&url, "alice", &delete_args(3), Some((&state, yes()))).await);
    assert_state_refused(&drifted, "TOKEN_SCOPE_MISMATCH", "other params");
    let other_operation = json!({"operation": "clear_completed_todos", "params": {}});
    let moved = answer_of(&post_call(&url, "alice", &other_operation, Some((&state, yes()))).await);
    assert_state_refused(&moved, "TOKEN_SCOPE_MISMATCH", "another operation");
    assert_untouched(&upstream, "refused requestStates");

    let ran = answer_of(&post_call(&url, "alice", &call, Some((&state, yes()))).await);
    assert_eq!(code(&ran), "success", "{ran}");
    assert_eq!(deletes(&upstream), [format!("/todos/{ITEM}")]);

    let replayed = answer_of(&post_call(&url, "alice", &call, Some((&state, yes()))).await);
    assert_state_refused(&replayed, "TOKEN_ALREADY_USED", "replayed requestState");
    assert_eq!(
        upstream.requests().len(),
        1,
        "only the confirmed call reached the API"
    );
}

/// Two stateless instances on one redis-server share the sealing key and the single-use
/// marks: the question comes from A, the accepted retry runs on B, a replay on A (or B) is
/// refused. Without a shared store another instance cannot open the state at all.
#[tokio::test]
async fn a_request_state_is_answered_on_another_instance_once() {
    let redis = Redis::start().await;
    let upstream = demo_api().await;
    let store = redis.url();
    let shared = ["--stateless", "--state", store.as_str()];
    let (_a, a) = todo_http(&upstream, &shared).await;
    let (_b, b) = todo_http(&upstream, &shared).await;
    let call = delete_args(ITEM);

    let (_, state) = input_required(&post_call(&a, "alice", &call, None).await);
    let ran = answer_of(&post_call(&b, "alice", &call, Some((&state, yes()))).await);
    assert_eq!(code(&ran), "success", "retry on the other instance: {ran}");
    for (name, url) in [("A", &a), ("B", &b)] {
        let replayed = answer_of(&post_call(url, "alice", &call, Some((&state, yes()))).await);
        assert_state_refused(
            &replayed,
            "TOKEN_ALREADY_USED",
            &format!("replay on {name}"),
        );
    }
    assert_eq!(deletes(&upstream), [format!("/todos/{ITEM}")]);
    assert_eq!(upstream.requests().len(), 1);

    // The control: instances with a store each have keys of their own.
    let alone = demo_api().await;
    let (_c, c) = todo_http(&alone, &["--stateless"]).await;
    let (_d, d) = todo_http(&alone, &["--stateless"]).await;
    let (_, state) = input_required(&post_call(&c, "alice", &call, None).await);
    let elsewhere = answer_of(&post_call(&d, "alice", &call, Some((&state, yes()))).await);
    assert_state_refused(
        &elsewhere,
        "TOKEN_INVALID",
        "a state of an unshared instance",
    );
    assert_untouched(&alone, "unshared instances");
}

// ---------------------------------------------------------------------------------------------
// 5. Out-of-band verification codes

/// The operator's webhook, served here: it keeps each message and writes its code to
/// `code_file` (where the harness, like the person, reads it), then answers after `delay`.
#[derive(Clone)]
struct Hook {
    received: Arc<Mutex<Vec<Value>>>,
    code_file: PathBuf,
    delay_ms: Arc<AtomicU64>,
}

impl Hook {
    /// The hook and its URL.
    async fn start(code_file: PathBuf) -> (Self, String) {
        let hook = Self {
            received: Arc::default(),
            code_file,
            delay_ms: Arc::default(),
        };
        async fn receive(
            State(hook): State<Hook>,
            axum::Json(body): axum::Json<Value>,
        ) -> &'static str {
            let code = body["code"].as_str().unwrap_or_default().to_owned();
            std::fs::write(&hook.code_file, code).expect("write the code file");
            hook.received.lock().expect("hook log").push(body);
            let delay = hook.delay_ms.load(Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(delay)).await;
            "taken"
        }
        let router = axum::Router::new()
            .route("/hook", post(receive))
            .with_state(hook.clone());
        let base = support::serve(router).await;
        (hook, format!("{base}/hook"))
    }

    fn messages(&self) -> Vec<Value> {
        self.received.lock().expect("hook log").clone()
    }

    /// The last message, checked field by field.
    fn last(&self) -> Value {
        let message = self.messages().pop().expect("the webhook got a code");
        let keys: Vec<&str> = message
            .as_object()
            .expect("a JSON object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            [
                "adapter",
                "challenge_id",
                "code",
                "danger_level",
                "expires_at",
                "message",
                "operation"
            ],
            "{message}"
        );
        assert_eq!(message["adapter"], "todo");
        assert_eq!(message["operation"], "delete_todo");
        assert_eq!(message["danger_level"], "destructive");
        assert!(
            message["challenge_id"]
                .as_str()
                .is_some_and(|id| id.starts_with("chl_")),
            "{message}"
        );
        assert!(
            message["expires_at"]
                .as_str()
                .is_some_and(|at| !at.is_empty())
        );
        let code = message["code"].as_str().unwrap_or_default();
        let groups: Vec<&str> = code.split('-').collect();
        assert!(
            groups.len() == 8
                && groups.iter().all(|group| {
                    group.len() == 4
                        && group
                            .chars()
                            .all(|c| "ABCDEFGHJKLMNPQRSTUVWXYZ23456789".contains(c))
                }),
            "a code is 32 base32 characters in dash-separated groups of 4: {code}"
        );
        assert!(
            message["message"]
                .as_str()
                .is_some_and(|text| text.contains(code)),
            "{message}"
        );
        message
    }
}

/// A scratch directory of this test, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("aqlgen-confirm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The adapter over stdio behind a `sh` pipeline that copies every byte the client sends to
/// `in.log`, what the server answers to `out.log` and its stderr (`RUST_LOG=debug`) to
/// `stderr.log`; the server appends its audit events to `audit.jsonl`. When the client closes
/// the pipe, `tee` ends, the server sees end of input and the pipeline ends with it.
struct Tapped {
    dir: PathBuf,
    upstream: demo_upstream::Running,
}

impl Tapped {
    async fn start(name: &str) -> Self {
        Self {
            dir: scratch(name),
            upstream: demo_api().await,
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }

    fn plan(&self, args: &[&str], protocol: &str, elicitation: &str) -> Value {
        let audit = self.path("audit.jsonl");
        let mut server = vec![TODO_BIN, "--audit-log", audit.to_str().expect("UTF-8 path")];
        server.extend_from_slice(args);
        let server: Vec<String> = server.iter().map(|arg| quoted(arg)).collect();
        let file = |name: &str| quoted(self.path(name).to_str().expect("UTF-8 path"));
        // Appending: the TypeScript client at 2026-07-28 starts a short probe process first.
        let script = format!(
            "tee -a {} | {} 2>>{} | tee -a {}",
            file("in.log"),
            server.join(" "),
            file("stderr.log"),
            file("out.log")
        );
        json!({
            "transport": "stdio",
            "command": "sh",
            "args": ["-c", script],
            "env": {
                "TODO_BASE_URL": self.upstream.base_url(),
                "TODO_API_KEY": TODO_KEY,
                "RUST_LOG": "debug",
            },
            "protocol": protocol,
            "elicitation": elicitation,
            "code_file": self.path("code"),
            "tool": DELETE_TOOL,
            "calls": [delete_call(None)],
        })
    }

    /// The audit events as JSON objects.
    fn audit(&self) -> Vec<Value> {
        self.read("audit.jsonl")
            .lines()
            .map(|line| serde_json::from_str(line).expect("one JSON object per audit line"))
            .collect()
    }

    fn audit_events(&self) -> Vec<String> {
        self.audit()
            .iter()
            .map(|event| event["event"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// The spellings of `code` the server would accept (case, dashes and spaces do not count).
fn spellings(code: &str) -> Vec<String> {
    let compact: String = code.chars().filter(|c| *c != '-').collect();
    vec![
        code.to_owned(),
        code.to_lowercase(),
        compact.clone(),
        compact.to_lowercase(),
    ]
}

/// Where `text` holds `code` (any spelling), with some context around it.
fn code_found(code: &str, text: &str) -> Option<String> {
    spellings(code).iter().find_map(|spelling| {
        let at = text.find(spelling.as_str())?;
        let mut start = at.saturating_sub(200);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (at + spelling.len() + 200).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        Some(format!("…{}…", &text[start..end]))
    })
}

fn assert_code_absent(code: &str, place: &str, text: &str) {
    if let Some(excerpt) = code_found(code, text) {
        panic!("the verification code appears in {place}: {excerpt}");
    }
}

/// The one place the code may travel: from the client to the server, as the person's answer
/// (the result of the `elicitation/create` request on a session, the `inputResponses` of the
/// retry at 2026-07-28), never inside the call's arguments.
fn assert_code_only_in_the_answer(code: &str, in_log: &str, protocol: &str) {
    let lines: Vec<Value> = in_log
        .lines()
        .filter(|line| {
            spellings(code)
                .iter()
                .any(|spelling| line.contains(spelling.as_str()))
        })
        .map(|line| serde_json::from_str(line).expect("a JSON-RPC message"))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "the code travels to the server once, as the person's answer: {lines:#?}"
    );
    let message = &lines[0];
    if protocol == MODERN {
        assert_eq!(message["method"], "tools/call", "{message}");
        let answer = &message["params"]["inputResponses"]["aql_confirmation"];
        assert_eq!(answer["action"], "accept", "{message}");
        assert_eq!(answer["content"]["code"], code, "{message}");
        assert_code_absent(
            code,
            "the call's arguments",
            &message["params"]["arguments"].to_string(),
        );
    } else {
        assert!(
            message.get("method").is_none(),
            "a response, not a request: {message}"
        );
        assert_eq!(message["result"]["action"], "accept", "{message}");
        assert_eq!(message["result"]["content"]["code"], code, "{message}");
    }
}

const VERIFY: [&str; 2] = ["--confirm-by", "destructive=verify"];

/// With `--confirm-by destructive=verify` the code goes to the operator's webhook and the
/// person types it into the form: the call runs once, and the code is nowhere the model or
/// the logs could see it (the harness's output, the server's answers, its debug log, the audit
/// log), only in the person's answer to the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verification_code_runs_the_call_and_stays_out_of_sight() {
    let mut logged = Vec::new();
    for (sdk, protocol) in [
        (Sdk::Python, SESSIONS),
        (Sdk::Python, MODERN),
        (Sdk::Ts, SESSIONS),
        (Sdk::Ts, MODERN),
    ] {
        let label = format!("{sdk:?} over stdio at {protocol}, code from the webhook");
        let tapped = Tapped::start(&format!("verify-{sdk:?}-{protocol}")).await;
        let (hook, hook_url) = Hook::start(tapped.path("code")).await;
        let mut args = VERIFY.to_vec();
        args.extend(["--verify-channel", hook_url.as_str()]);
        let run = harness(sdk, &tapped.plan(&args, protocol, "accept")).await;
        // The pipeline has ended with the client; let the files settle.
        tokio::time::sleep(Duration::from_millis(300)).await;

        let forms = run.elicitations();
        assert_eq!(forms.len(), 1, "{label}: {:#?}", run.steps);
        assert_form(forms[0], "code", "string", &label);
        let sent = hook.last();
        assert_eq!(hook.messages().len(), 1, "{label}: one code sent");
        let challenge = sent["challenge_id"].as_str().unwrap_or_default();
        let form_message = forms[0]["message"].as_str().unwrap_or_default();
        assert!(
            form_message.contains(challenge),
            "{label}: the form names the challenge: {form_message}"
        );
        let answer = run.answer(&label);
        assert_eq!(code(answer), "success", "{label}: {answer}");
        assert_eq!(tapped.upstream.requests().len(), 1, "{label}");
        assert_eq!(
            deletes(&tapped.upstream),
            [format!("/todos/{ITEM}")],
            "{label}"
        );

        let code = sent["code"].as_str().unwrap_or_default();
        let stderr = tapped.read("stderr.log");
        assert!(
            stderr.contains("DEBUG"),
            "{label}: the server logged at debug level: {stderr}"
        );
        let out = tapped.read("out.log");
        assert!(out.contains(challenge), "{label}: out.log has the traffic");
        assert_code_absent(code, &format!("{label}: the harness's stdout"), &run.stdout);
        assert_code_absent(code, &format!("{label}: out.log"), &out);
        if let Some(excerpt) = code_found(code, &stderr) {
            // Checked last, so that everything else is checked on every run.
            logged.push(format!("{label}: {excerpt}"));
        }
        assert_code_absent(
            code,
            &format!("{label}: the audit log"),
            &tapped.read("audit.jsonl"),
        );
        assert_code_only_in_the_answer(code, &tapped.read("in.log"), protocol);

        let events = tapped.audit_events();
        for event in ["challenge_sent", "person_asked", "challenge_passed"] {
            assert!(
                events.iter().any(|e| e == event),
                "{label}: {event} in {events:?}"
            );
        }
        let passed = tapped
            .audit()
            .into_iter()
            .find(|event| event["event"] == "challenge_passed")
            .expect("challenge_passed");
        assert_eq!(passed["token_id"], challenge, "{label}: {passed}");
        let _ = std::fs::remove_dir_all(&tapped.dir);
    }
    assert!(
        logged.is_empty(),
        "SERVER BUG: the verification code is written to the adapter's own log (stderr, \
         RUST_LOG=debug). rmcp's `received request` debug line prints the 2026-07-28 retry's \
         params, whose inputResponses carry the code the person typed, and the code is never \
         registered with the redacting log writer (redact::register), so it is not scrubbed:\n{}",
        logged.join("\n")
    );
}

/// A wrong code, and the right code typed after it expired, are refused; nothing reaches the
/// API and the audit log records `challenge_failed`. At 2026-07-28 a late answer finds its
/// requestState expired with the code. More than ten wrong codes a minute lock the caller out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_expired_and_guessed_codes_are_refused() {
    // A wrong code on a session.
    let tapped = Tapped::start("wrong-code").await;
    let (hook, hook_url) = Hook::start(tapped.path("code")).await;
    let mut args = VERIFY.to_vec();
    args.extend(["--verify-channel", hook_url.as_str()]);
    let run = harness(Sdk::Python, &tapped.plan(&args, SESSIONS, "wrong_code")).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let label = "wrong code";
    let forms = run.elicitations();
    assert_eq!(forms.len(), 1, "{label}: one form: {:#?}", run.steps);
    assert_form(forms[0], "code", "string", label);
    let answer = run.answer(label);
    assert_eq!(
        code(answer),
        "PERMISSION_VERIFICATION_FAILED",
        "{label}: {answer}"
    );
    assert_untouched(&tapped.upstream, label);
    let challenge = hook.last()["challenge_id"].clone();
    let failed: Vec<Value> = tapped
        .audit()
        .into_iter()
        .filter(|event| event["event"] == "challenge_failed")
        .collect();
    assert_eq!(failed.len(), 1, "{label}: {:?}", tapped.audit_events());
    assert_eq!(failed[0]["token_id"], challenge, "{label}");
    assert_eq!(
        failed[0]["code"], "PERMISSION_VERIFICATION_FAILED",
        "{label}"
    );
    let _ = std::fs::remove_dir_all(&tapped.dir);

    // The right code, after it expired: the webhook takes 2 s to answer, the code lives 1 s.
    let tapped = Tapped::start("expired-code").await;
    let (hook, hook_url) = Hook::start(tapped.path("code")).await;
    hook.delay_ms.store(2_000, Ordering::SeqCst);
    let mut args = VERIFY.to_vec();
    args.extend(["--verify-channel", hook_url.as_str(), "--verify-ttl", "1"]);
    let run = harness(Sdk::Python, &tapped.plan(&args, SESSIONS, "accept")).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let label = "expired code";
    let forms = run.elicitations();
    assert_eq!(forms.len(), 1, "{label}: one form: {:#?}", run.steps);
    assert_form(forms[0], "code", "string", label);
    let answer = run.answer(label);
    assert_eq!(
        code(answer),
        "PERMISSION_VERIFICATION_FAILED",
        "{label}: {answer}"
    );
    assert_untouched(&tapped.upstream, label);
    let sent = hook.last();
    let failed: Vec<Value> = tapped
        .audit()
        .into_iter()
        .filter(|event| event["event"] == "challenge_failed")
        .collect();
    assert_eq!(failed.len(), 1, "{label}: {:?}", tapped.audit_events());
    assert_eq!(failed[0]["token_id"], sent["challenge_id"], "{label}");
    let _ = std::fs::remove_dir_all(&tapped.dir);

    // At 2026-07-28 on stateless HTTP: the right code brought back after --verify-ttl.
    let dir = scratch("expired-modern");
    let upstream = demo_api().await;
    let (hook, hook_url) = Hook::start(dir.join("code")).await;
    let audit = dir.join("audit.jsonl");
    let audit_arg = audit.to_str().expect("UTF-8 path");
    let mut args = vec![
        "--stateless",
        "--audit-log",
        audit_arg,
        "--verify-channel",
        hook_url.as_str(),
    ];
    args.extend(VERIFY);
    args.extend(["--verify-ttl", "1"]);
    let (_server, url) = todo_http(&upstream, &args).await;
    let call = delete_args(ITEM);
    let (form, state) = input_required(&post_call(&url, "alice", &call, None).await);
    assert_eq!(
        form["requestedSchema"]["properties"]["code"]["type"], "string",
        "{form}"
    );
    let sent = hook.last();
    assert!(
        form["message"]
            .as_str()
            .is_some_and(|message| message.contains(sent["challenge_id"].as_str().unwrap_or("?"))),
        "{form}"
    );
    tokio::time::sleep(Duration::from_millis(2_200)).await;
    let late = json!({"action": "accept", "content": {"code": sent["code"]}});
    let answer = answer_of(&post_call(&url, "alice", &call, Some((&state, late))).await);
    assert_state_refused(
        &answer,
        "TOKEN_EXPIRED",
        "a code brought back late at 2026-07-28",
    );
    assert_untouched(&upstream, "late code at 2026-07-28");
    let audit_text = std::fs::read_to_string(&audit).unwrap_or_default();
    assert!(audit_text.contains("\"token_rejected\""), "{audit_text}");
    assert_code_absent(
        sent["code"].as_str().unwrap_or("?"),
        "the audit log",
        &audit_text,
    );

    // Guessing: ten wrong codes in a minute are each refused, the eleventh attempt is not even
    // checked, and neither is the right code after it.
    let (_server, url) = todo_http(
        &upstream,
        &[
            "--stateless",
            "--verify-channel",
            hook_url.as_str(),
            "--confirm-by",
            "destructive=verify",
        ],
    )
    .await;
    let second = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
        % 60;
    if second >= 50 {
        // Wrong codes are counted per minute: start the guesses in a fresh one.
        tokio::time::sleep(Duration::from_secs(61 - second)).await;
    }
    let guess = json!({"action": "accept", "content": {"code": "AAAA-BBBB-CCCC-DDDD"}});
    for attempt in 1..=11 {
        let (_, state) = input_required(&post_call(&url, "guesser", &call, None).await);
        let answer =
            answer_of(&post_call(&url, "guesser", &call, Some((&state, guess.clone()))).await);
        let expected = if attempt <= 10 {
            "PERMISSION_VERIFICATION_FAILED"
        } else {
            "RATE_LIMIT_VERIFICATION_ATTEMPTS"
        };
        assert_eq!(code(&answer), expected, "wrong code {attempt}: {answer}");
    }
    let (_, state) = input_required(&post_call(&url, "guesser", &call, None).await);
    let right = json!({"action": "accept", "content": {"code": hook.last()["code"]}});
    let answer = answer_of(&post_call(&url, "guesser", &call, Some((&state, right))).await);
    assert_eq!(
        code(&answer),
        "RATE_LIMIT_VERIFICATION_ATTEMPTS",
        "the right code while locked out: {answer}"
    );
    assert_untouched(&upstream, "guessed codes");
    let _ = std::fs::remove_dir_all(&dir);
}
