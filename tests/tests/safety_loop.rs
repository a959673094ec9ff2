//! The execution safety loop (SPEC §8.6-8.8, `--safety-loop`), end to end: the generated todo
//! adapter's server behind a third-party MCP client (the Python SDK, driven by
//! `tests/python/elicit_client.py`, which answers forms the way a person would) and behind
//! rmcp. An agent starts a monitored execution with a person's approval, reports its actions,
//! is paused (step limit, a failed step, requires-approval patterns) until a person confirms,
//! and is hard-blocked by a deny pattern until a person types the code a webhook served here
//! received; blocks survive a restart on the `--state file:` store and are broadcast to every
//! other executing agent. Monitoring and logging modes only advise or record; the disabled
//! default serves none of it; a client that cannot show a form is refused rather than offered
//! a token; the operations live on their endpoints; enforcing without a durable store does not
//! start. Codes must never show where the model or the logs could see them. A deny match
//! blocks even when the channel does not take the code, and at 2026-07-28 a person's yes
//! answers only for the agent they were shown.

mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{Value, json};
use support::sdk::Sdk;
use support::{TODO_KEY, assert_introspection, assert_result, call, demo_api, todo_client};

const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
/// The 2025-11-25 session protocol: forms arrive as `elicitation/create`.
const SESSIONS: &str = "2025-11-25";
/// The one tool of `--mode single`.
const SINGLE: &str = "mcp_aql";
/// The loop's reserved operations and the endpoint each belongs on (SPEC §8.5.4).
const LOOP_OPS: [(&str, &str); 6] = [
    ("execute_agent", "execute"),
    ("record_execution_step", "create"),
    ("complete_execution", "execute"),
    ("abort_execution", "execute"),
    ("confirm_operation", "execute"),
    ("verify_challenge", "create"),
];

// ---------------------------------------------------------------------------------------------
// The Python client

/// What one harness run printed.
struct Run {
    steps: Vec<Value>,
    /// stdout and stderr as they came (a stdio server's log goes to the harness's stderr).
    output: String,
}

impl Run {
    /// The forms the person was shown.
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
}

/// Runs the Python harness on `plan`.
async fn harness(plan: &Value) -> Run {
    let output = Sdk::Python
        .command()
        .arg(plan.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(60), output)
        .await
        .unwrap_or_else(|_| panic!("the harness ran over 60 s on {plan}"))
        .expect("run the harness");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "the harness failed on {plan}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let steps = stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("a non-JSON line ({error}): {line}"))
        })
        .collect();
    Run {
        steps,
        output: format!("{stdout}\n{stderr}"),
    }
}

/// One call of a plan: `operation` with `params`.
fn op(operation: &str, params: Value) -> Value {
    json!({"arguments": {"operation": operation, "params": params}})
}

/// How the harness reaches the server.
enum Server<'a> {
    /// It spawns the todo adapter over stdio with these flags against the todo API at this URL
    /// (a new process per run).
    Stdio { api: &'a str, args: &'a [String] },
    /// A streamable HTTP endpoint started here.
    Http { url: &'a str },
}

/// A plan against `server` on a 2025-11-25 session, every call to tool `tool`.
fn plan(
    server: &Server<'_>,
    elicitation: &str,
    code_file: Option<&Path>,
    tool: &str,
    calls: Vec<Value>,
) -> Value {
    let mut plan = match server {
        Server::Stdio { api, args } => json!({
            "transport": "stdio",
            "command": TODO_BIN,
            "args": args,
            "env": {"TODO_BASE_URL": api, "TODO_API_KEY": TODO_KEY, "RUST_LOG": "warn"},
        }),
        Server::Http { url } => json!({"transport": "http", "url": url}),
    };
    plan["protocol"] = json!(SESSIONS);
    plan["elicitation"] = json!(elicitation);
    plan["tool"] = json!(tool);
    plan["calls"] = json!(calls);
    if let Some(code_file) = code_file {
        plan["code_file"] = json!(code_file);
    }
    plan
}

// ---------------------------------------------------------------------------------------------
// The out-of-band channel and scratch files

/// A webhook on 127.0.0.1 taking the server's verification messages: each code is written to
/// the code file (where the person's harness reads what they would type) and every message is
/// kept.
struct Webhook {
    url: String,
    code_file: PathBuf,
    received: Arc<Mutex<Vec<Value>>>,
}

#[derive(Clone)]
struct Inbox {
    code_file: PathBuf,
    received: Arc<Mutex<Vec<Value>>>,
}

async fn receive(State(inbox): State<Inbox>, Json(message): Json<Value>) -> StatusCode {
    if let Some(code) = message["code"].as_str() {
        std::fs::write(&inbox.code_file, code).expect("write the code file");
    }
    inbox.received.lock().expect("inbox").push(message);
    StatusCode::NO_CONTENT
}

impl Webhook {
    async fn start(scratch: &Scratch) -> Self {
        let inbox = Inbox {
            code_file: scratch.path("code.txt"),
            received: Arc::default(),
        };
        let router = axum::Router::new()
            .route("/codes", post(receive))
            .with_state(inbox.clone());
        let base = support::serve(router).await;
        Self {
            url: format!("{base}/codes"),
            code_file: inbox.code_file,
            received: inbox.received,
        }
    }

    fn messages(&self) -> Vec<Value> {
        self.received.lock().expect("inbox").clone()
    }

    /// Every code received so far.
    fn codes(&self) -> Vec<String> {
        self.messages()
            .iter()
            .map(|message| {
                message["code"]
                    .as_str()
                    .expect("each message has a code")
                    .to_owned()
            })
            .collect()
    }

    /// The challenge ids received so far, in order.
    fn challenge_ids(&self) -> Vec<String> {
        self.messages()
            .iter()
            .map(|message| {
                message["challenge_id"]
                    .as_str()
                    .expect("each message has a challenge_id")
                    .to_owned()
            })
            .collect()
    }
}

/// A directory of its own for one test, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("aqlgen-safety-loop-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Self(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The flags of an enforcing server in single mode on `state`, sending codes to `webhook`.
fn enforcing(state: &Path, webhook: &Webhook, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--mode",
        "single",
        "--safety-loop",
        "enforcing",
        "--state",
        &format!("file:{}", state.display()),
        "--verify-channel",
        &webhook.url,
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

// ---------------------------------------------------------------------------------------------
// Reading answers

/// The data of a successful answer.
fn data<'a>(answer: &'a Value, label: &str) -> &'a Value {
    assert_eq!(
        answer["success"], true,
        "{label}: should succeed: {answer:#}"
    );
    &answer["data"]
}

/// The directive of a successful loop answer.
fn directive<'a>(answer: &'a Value, label: &str) -> &'a Value {
    let directive = &data(answer, label)["directive"];
    assert!(directive.is_object(), "{label}: a directive: {answer:#}");
    directive
}

/// Asserts a failure with `code`, and returns the error.
fn failure<'a>(answer: &'a Value, code: &str, label: &str) -> &'a Value {
    assert_eq!(answer["success"], false, "{label}: should fail: {answer:#}");
    assert_eq!(
        answer["error"]["code"], code,
        "{label}: the error code: {answer:#}"
    );
    &answer["error"]
}

/// The directive's notifications of type `kind`.
fn notifications<'a>(directive: &'a Value, kind: &str) -> Vec<&'a Value> {
    directive["notifications"]
        .as_array()
        .map(|all| all.iter().filter(|n| n["type"] == kind).collect())
        .unwrap_or_default()
}

/// Whether any of the directive's factors contains `text`.
fn factor_mentions(directive: &Value, text: &str) -> bool {
    directive["factors"].as_array().is_some_and(|factors| {
        factors
            .iter()
            .any(|factor| factor.as_str().is_some_and(|f| f.contains(text)))
    })
}

/// A form asking the person for a yes: the boolean `confirm`.
fn assert_confirm_form(form: &Value, operation: &str, label: &str) {
    assert_eq!(form["mode"], "form", "{label}: {form:#}");
    let properties = &form["requested_schema"]["properties"];
    assert_eq!(
        properties["confirm"]["type"], "boolean",
        "{label}: {form:#}"
    );
    let message = form["message"].as_str().expect("a message");
    assert!(
        message.contains(operation),
        "{label}: the form names '{operation}': {message}"
    );
}

/// A form asking the person for the code: the string `code`.
fn assert_code_form(form: &Value, challenge: &str, label: &str) {
    assert_eq!(form["mode"], "form", "{label}: {form:#}");
    let properties = &form["requested_schema"]["properties"];
    assert_eq!(properties["code"]["type"], "string", "{label}: {form:#}");
    assert!(properties.get("confirm").is_none(), "{label}: {form:#}");
    let message = form["message"].as_str().expect("a message");
    assert!(
        message.contains(challenge),
        "{label}: the form names challenge {challenge}: {message}"
    );
}

/// The verificationId of the one `danger_zone` notification of `directive`.
fn verification_id(directive: &Value, label: &str) -> String {
    let alerts = notifications(directive, "danger_zone");
    assert_eq!(alerts.len(), 1, "{label}: one danger_zone: {directive:#}");
    alerts[0]["metadata"]["verificationId"]
        .as_str()
        .unwrap_or_else(|| panic!("{label}: a verificationId: {directive:#}"))
        .to_owned()
}

// ---------------------------------------------------------------------------------------------
// 1. Enforcing: approve, pause, confirm, hard block, restart, wrong code, right code

#[tokio::test]
async fn enforcing_loop_pauses_blocks_and_a_person_lifts_them_across_a_restart() {
    let api = demo_api().await;
    let base_url = api.base_url();
    let scratch = Scratch::new("enforcing");
    let webhook = Webhook::start(&scratch).await;
    let state = scratch.path("state.jsonl");
    let audit = scratch.path("audit.jsonl");
    let audit_flag = format!("{}", audit.display());
    let args = enforcing(&state, &webhook, &["--audit-log", &audit_flag]);
    let server = Server::Stdio {
        api: &base_url,
        args: &args,
    };
    let agent = json!({"element_name": "builder"});
    let step = |hint: &str| json!({"element_name": "builder", "nextActionHint": hint});
    let mut outputs = Vec::new();

    // First process: the person approves the start and lifts a pause; a deny action blocks.
    let first = harness(&plan(
        &server,
        "accept",
        None,
        SINGLE,
        vec![
            op(
                "execute_agent",
                json!({"element_name": "builder", "goal": "tidy the todo list"}),
            ),
            op(
                "record_execution_step",
                step("list_todos to see what is open"),
            ),
            op(
                "record_execution_step",
                json!({"element_name": "builder", "nextActionHint": "calling delete_todo on item 3",
                       "stepDescription": "listed the todos", "outcome": "success"}),
            ),
            op(
                "record_execution_step",
                step("calling delete_todo on item 3"),
            ),
            op("confirm_operation", agent.clone()),
            op("record_execution_step", step("drop_table todos")),
            op("execute_agent", agent.clone()),
            op("complete_execution", agent.clone()),
            op("record_execution_step", step("list_todos again")),
        ],
    ))
    .await;
    outputs.push(first.output.clone());
    let answers = first.answers("first process");
    assert_eq!(answers.len(), 9, "{:#?}", first.steps);
    let forms = first.elicitations();
    assert_eq!(
        forms.len(),
        2,
        "a form for execute_agent and one for confirm_operation: {:#?}",
        first.steps
    );
    assert_confirm_form(forms[0], "execute_agent", "start");
    assert!(
        forms[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("tidy the todo list")),
        "the start form shows the goal: {}",
        forms[0]
    );
    assert_confirm_form(forms[1], "confirm_operation", "lift the pause");
    assert!(
        forms[1]["message"]
            .as_str()
            .is_some_and(|m| m.contains("delete_todo on item 3")),
        "the confirm form shows the paused action: {}",
        forms[1]
    );

    let started = data(answers[0], "execute_agent");
    assert_eq!(started["status"], "running");
    assert_eq!(started["mode"], "enforcing");
    let execution = started["execution_id"].as_str().expect("an execution id");
    assert!(execution.starts_with("exe_"), "{started}");
    assert_eq!(started["directive"]["stepsRemaining"], 20);

    let auto = directive(answers[1], "auto-approved step");
    assert_eq!(auto["continue"], true, "{auto:#}");
    assert_eq!(auto["stepsRemaining"], 19, "{auto:#}");
    assert_eq!(auto["nextStepRisk"], "advisory", "{auto:#}");
    assert!(
        factor_mentions(auto, "auto-approve pattern 'list_*'"),
        "{auto:#}"
    );
    assert_eq!(data(answers[1], "step")["execution_id"], execution);
    assert_eq!(data(answers[1], "step")["step"], 1);

    let paused = directive(answers[2], "requires-approval step");
    assert_eq!(paused["continue"], false, "{paused:#}");
    assert!(
        paused.get("stopped").is_none(),
        "a pause is no stop: {paused:#}"
    );
    assert_eq!(paused["nextStepRisk"], "confirm", "{paused:#}");
    assert!(
        paused["reason"]
            .as_str()
            .is_some_and(|r| r.contains("delete_*")),
        "{paused:#}"
    );
    assert_eq!(
        notifications(paused, "autonomy_pause").len(),
        1,
        "an autonomy_pause notification: {paused:#}"
    );

    let still = directive(answers[3], "step while paused");
    assert_eq!(still["continue"], false, "still paused: {still:#}");
    assert!(factor_mentions(still, "paused"), "{still:#}");
    assert_eq!(
        data(answers[3], "step while paused")["step"],
        2,
        "a paused step is not counted"
    );

    let lifted = directive(answers[4], "confirm_operation");
    assert_eq!(lifted["continue"], true, "{lifted:#}");

    let stop = directive(answers[5], "deny step");
    assert_eq!(stop["continue"], false, "{stop:#}");
    assert_eq!(stop["stopped"], true, "{stop:#}");
    assert_eq!(stop["nextStepRisk"], "danger_zone", "{stop:#}");
    assert!(factor_mentions(stop, "deny pattern 'drop_*'"), "{stop:#}");
    let first_challenge = verification_id(stop, "deny step");
    assert!(first_challenge.starts_with("chl_"), "{first_challenge}");
    assert!(
        stop["reason"]
            .as_str()
            .is_some_and(|r| r.contains(&first_challenge)),
        "the reason names the challenge: {stop:#}"
    );
    assert_eq!(
        webhook.challenge_ids(),
        std::slice::from_ref(&first_challenge),
        "the webhook got the code of the notified challenge: {:#?}",
        webhook.messages()
    );
    let sent = &webhook.messages()[0];
    assert_eq!(sent["adapter"], "todo", "{sent:#}");
    assert!(
        sent["operation"]
            .as_str()
            .is_some_and(|o| o.contains("builder") && o.contains("drop_table todos")),
        "the message says what it unblocks: {sent:#}"
    );

    let refused = failure(
        answers[6],
        "PERMISSION_AGENT_BLOCKED",
        "execute_agent while blocked",
    );
    assert_eq!(
        refused["details"]["verificationId"],
        first_challenge.as_str()
    );
    failure(
        answers[7],
        "PERMISSION_AGENT_BLOCKED",
        "complete_execution while blocked",
    );
    let blocked = directive(answers[8], "a step while blocked");
    assert_eq!(blocked["stopped"], true, "{blocked:#}");
    assert_eq!(blocked["continue"], false, "{blocked:#}");
    assert_eq!(webhook.codes().len(), 1, "a live challenge is not renewed");

    // A new process on the same state file: still blocked; a wrong code uses the challenge up,
    // so even the right code, typed by the user afterwards, no longer lifts it.
    let first_code = webhook.codes()[0].clone();
    let second = harness(&plan(
        &server,
        "wrong_code",
        None,
        SINGLE,
        vec![
            op("execute_agent", agent.clone()),
            op("complete_execution", agent.clone()),
            op("verify_challenge", json!({"challenge_id": first_challenge})),
            op(
                "verify_challenge",
                json!({"challenge_id": first_challenge, "code": first_code}),
            ),
            op("execute_agent", agent.clone()),
            op("record_execution_step", step("list_todos")),
        ],
    ))
    .await;
    outputs.push(second.output.clone());
    let answers = second.answers("after the restart");
    assert_eq!(answers.len(), 6, "{:#?}", second.steps);
    let refused = failure(
        answers[0],
        "PERMISSION_AGENT_BLOCKED",
        "execute_agent after a restart",
    );
    assert_eq!(
        refused["details"]["verificationId"],
        first_challenge.as_str(),
        "the block and its challenge survive the restart"
    );
    failure(
        answers[1],
        "PERMISSION_AGENT_BLOCKED",
        "complete_execution after a restart",
    );
    failure(answers[2], "PERMISSION_VERIFICATION_FAILED", "a wrong code");
    failure(
        answers[3],
        "PERMISSION_VERIFICATION_FAILED",
        "a challenge is good for one attempt",
    );
    let forms = second.elicitations();
    assert_eq!(
        forms.len(),
        1,
        "one code form: the second attempt brings its code: {:#?}",
        second.steps
    );
    assert_code_form(forms[0], &first_challenge, "wrong code");
    failure(
        answers[4],
        "PERMISSION_AGENT_BLOCKED",
        "still blocked after a wrong code",
    );
    let renewed = directive(answers[5], "a step after the wrong code");
    assert_eq!(renewed["stopped"], true, "{renewed:#}");
    let second_challenge = verification_id(renewed, "renewed");
    assert_ne!(second_challenge, first_challenge, "a new challenge");
    assert_eq!(
        webhook.challenge_ids(),
        [first_challenge.clone(), second_challenge.clone()],
        "the new code went to the webhook"
    );
    assert!(
        renewed["reason"]
            .as_str()
            .is_some_and(|r| r.contains(&second_challenge)),
        "{renewed:#}"
    );

    // A third process: the person types the code into the form; the agent runs again.
    let third = harness(&plan(
        &server,
        "accept",
        Some(&webhook.code_file),
        SINGLE,
        vec![
            op(
                "verify_challenge",
                json!({"challenge_id": second_challenge}),
            ),
            op("execute_agent", agent.clone()),
            op("record_execution_step", step("list_todos")),
            op("complete_execution", agent.clone()),
        ],
    ))
    .await;
    outputs.push(third.output.clone());
    let answers = third.answers("unblocked");
    assert_eq!(answers.len(), 4, "{:#?}", third.steps);
    let forms = third.elicitations();
    assert_eq!(forms.len(), 2, "{:#?}", third.steps);
    assert_code_form(forms[0], &second_challenge, "right code");
    assert_confirm_form(forms[1], "execute_agent", "restart");
    let unblocked = data(answers[0], "verify_challenge");
    assert_eq!(unblocked["unblocked"], true, "{unblocked:#}");
    assert_eq!(unblocked["element_name"], "builder");
    let again = data(answers[1], "execute_agent after the code");
    assert_eq!(again["status"], "running", "{again:#}");
    assert_ne!(again["execution_id"], execution, "a new execution");
    let free = directive(answers[2], "a step after the code");
    assert_eq!(free["continue"], true, "{free:#}");
    assert!(free.get("stopped").is_none(), "{free:#}");
    assert_eq!(data(answers[3], "complete")["status"], "completed");

    // The codes went to the webhook only: never to the client, the logs, the audit trail or
    // the state file.
    let codes = webhook.codes();
    assert_eq!(codes.len(), 2);
    let audit_text = std::fs::read_to_string(&audit).expect("the audit log");
    let state_text = std::fs::read_to_string(&state).expect("the state file");
    for code in &codes {
        assert!(code.len() >= 26, "a long code: {code}");
        let bare: String = code.chars().filter(|c| *c != '-').collect();
        for (place, text) in outputs
            .iter()
            .map(|output| ("harness output", output))
            .chain([("audit log", &audit_text), ("state file", &state_text)])
        {
            assert!(
                !text.contains(code.as_str()) && !text.contains(&bare),
                "the code {code} shows in the {place}:\n{text}"
            );
        }
    }
    let events: Vec<Value> = audit_text
        .lines()
        .map(|line| serde_json::from_str(line).expect("an audit line"))
        .collect();
    let has = |event: &str| events.iter().any(|line| line["event"] == event);
    for event in ["person_confirmed", "challenge_failed", "challenge_passed"] {
        assert!(has(event), "the audit log has {event}: {audit_text}");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. The step limit and a failed step

#[tokio::test]
async fn the_step_limit_and_a_failed_step_pause_until_a_person_confirms() {
    let api = demo_api().await;
    let base_url = api.base_url();
    let scratch = Scratch::new("steps");
    let webhook = Webhook::start(&scratch).await;
    let args = enforcing(
        &scratch.path("state.jsonl"),
        &webhook,
        &["--max-autonomous-steps", "2"],
    );
    let server = Server::Stdio {
        api: &base_url,
        args: &args,
    };
    let agent = json!({"element_name": "counter"});
    let step = |hint: &str| json!({"element_name": "counter", "nextActionHint": hint});
    let run = harness(&plan(
        &server,
        "accept",
        None,
        SINGLE,
        vec![
            op("execute_agent", agent.clone()),
            op("record_execution_step", step("read_todo 1")),
            op("record_execution_step", step("read_todo 2")),
            op("record_execution_step", step("read_todo 3")),
            op("record_execution_step", step("read_todo 3")),
            op("confirm_operation", agent.clone()),
            op("record_execution_step", step("read_todo 3")),
            op(
                "record_execution_step",
                json!({"element_name": "counter", "nextActionHint": "read_todo 4",
                       "stepDescription": "read_todo 3", "outcome": "failure",
                       "findings": "the API answered 500"}),
            ),
            op("record_execution_step", step("read_todo 4")),
            op("confirm_operation", agent.clone()),
            op("abort_execution", agent.clone()),
        ],
    ))
    .await;
    let answers = run.answers("step limit");
    assert_eq!(answers.len(), 11, "{:#?}", run.steps);
    assert_eq!(
        run.elicitations().len(),
        3,
        "forms: the start and two confirmations: {:#?}",
        run.steps
    );
    assert_eq!(data(answers[0], "start")["directive"]["stepsRemaining"], 2);
    for (index, remaining) in [(1, 1), (2, 0)] {
        let free = directive(answers[index], "within the limit");
        assert_eq!(free["continue"], true, "step {index}: {free:#}");
        assert_eq!(free["stepsRemaining"], remaining, "step {index}: {free:#}");
    }
    let over = directive(answers[3], "third step");
    assert_eq!(over["continue"], false, "{over:#}");
    assert_eq!(over["reason"], "Step limit exceeded", "{over:#}");
    assert!(over.get("stopped").is_none(), "{over:#}");
    let pause = notifications(over, "autonomy_pause");
    assert_eq!(pause.len(), 1, "{over:#}");
    assert_eq!(pause[0]["metadata"]["reason"], "Step limit exceeded");
    let waiting = directive(answers[4], "while paused");
    assert_eq!(waiting["continue"], false, "{waiting:#}");
    assert!(
        waiting["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("Step limit exceeded")),
        "{waiting:#}"
    );
    assert_eq!(directive(answers[5], "confirm")["stepsRemaining"], 2);
    let restarted = directive(answers[6], "after the confirmation");
    assert_eq!(restarted["continue"], true, "{restarted:#}");
    assert_eq!(
        restarted["stepsRemaining"], 1,
        "the counter restarts after a step-limit confirmation: {restarted:#}"
    );
    assert_eq!(data(answers[6], "after the confirmation")["step"], 1);
    let failed = directive(answers[7], "after a failed step");
    assert_eq!(failed["continue"], false, "{failed:#}");
    assert!(
        failed["reason"]
            .as_str()
            .is_some_and(|r| r.contains("previous step failed")),
        "{failed:#}"
    );
    assert_eq!(
        notifications(failed, "autonomy_pause").len(),
        1,
        "{failed:#}"
    );
    assert_eq!(
        directive(answers[8], "paused after failure")["continue"],
        false
    );
    assert_eq!(
        directive(answers[9], "confirm the failure")["continue"],
        true
    );
    assert_eq!(data(answers[10], "abort")["status"], "cancelled");
    assert!(webhook.codes().is_empty(), "no code for a pause");
}

// ---------------------------------------------------------------------------------------------
// 3. The danger_zone broadcast to other executing agents

#[tokio::test]
async fn a_hard_block_is_broadcast_to_every_other_executing_agent() {
    let api = demo_api().await;
    let scratch = Scratch::new("broadcast");
    let webhook = Webhook::start(&scratch).await;
    let args = enforcing(&scratch.path("state.jsonl"), &webhook, &[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let base_url = api.base_url();
    let (mut child, url) = support::http_server_for(
        TODO_BIN,
        &args,
        &[("TODO_BASE_URL", &base_url), ("TODO_API_KEY", TODO_KEY)],
    )
    .await;
    let server = Server::Http { url: &url };
    let step = |name: &str, hint: &str| {
        op(
            "record_execution_step",
            json!({"element_name": name, "nextActionHint": hint}),
        )
    };

    // Each agent on its own session.
    let scout = harness(&plan(
        &server,
        "accept",
        None,
        SINGLE,
        vec![
            op("execute_agent", json!({"element_name": "scout"})),
            step("scout", "list_todos"),
        ],
    ))
    .await;
    let answers = scout.answers("scout starts");
    assert_eq!(data(answers[0], "scout")["status"], "running");
    assert!(
        directive(answers[1], "scout's first step")
            .get("notifications")
            .is_none()
    );

    let wrecker = harness(&plan(
        &server,
        "accept",
        None,
        SINGLE,
        vec![
            op("execute_agent", json!({"element_name": "wrecker"})),
            step("wrecker", "rm -rf /var/lib/todos"),
        ],
    ))
    .await;
    let answers = wrecker.answers("wrecker");
    assert_eq!(data(answers[0], "wrecker")["status"], "running");
    let stop = directive(answers[1], "wrecker's deny step");
    assert_eq!(stop["stopped"], true, "{stop:#}");
    let challenge = verification_id(stop, "wrecker");
    assert_eq!(webhook.challenge_ids(), std::slice::from_ref(&challenge));

    let later = harness(&plan(
        &server,
        "accept",
        None,
        SINGLE,
        vec![
            step("scout", "get_todo 2"),
            step("scout", "get_todo 3"),
            op("execute_agent", json!({"element_name": "latecomer"})),
            step("latecomer", "list_todos"),
        ],
    ))
    .await;
    let answers = later.answers("after the block");
    assert_eq!(answers.len(), 4, "{:#?}", later.steps);
    let warned = directive(answers[0], "scout's next step");
    assert_eq!(
        warned["continue"], true,
        "the broadcast warns, it does not stop the scout: {warned:#}"
    );
    let alerts = notifications(warned, "danger_zone");
    assert_eq!(alerts.len(), 1, "the scout gets the broadcast: {warned:#}");
    assert_eq!(alerts[0]["metadata"]["verificationId"], challenge.as_str());
    assert!(
        alerts[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("wrecker")),
        "the broadcast names the blocked agent: {:#}",
        alerts[0]
    );
    assert!(
        directive(answers[1], "scout's step after that")
            .get("notifications")
            .is_none(),
        "a broadcast is delivered once: {:#}",
        answers[1]
    );
    assert_eq!(data(answers[2], "latecomer")["status"], "running");
    assert!(
        directive(answers[3], "latecomer's step")
            .get("notifications")
            .is_none(),
        "an agent started after the block is not sent it: {:#}",
        answers[3]
    );

    child.kill().await.expect("stop the server");
}

// ---------------------------------------------------------------------------------------------
// 4. Monitoring, logging and disabled

/// The `introspect` list answer, validated, and the loop's entries in it.
async fn loop_operations(client: &support::Client, tool: &str) -> (Value, Vec<Value>) {
    let (list, is_error) = call(
        client,
        tool,
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert!(!is_error, "{list:#}");
    assert_introspection(&list);
    let found = list["data"]["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .filter(|entry| LOOP_OPS.iter().any(|(name, _)| entry["name"] == *name))
        .cloned()
        .collect();
    (list, found)
}

#[tokio::test]
async fn the_loop_is_off_by_default() {
    let api = demo_api().await;
    let client = todo_client(&api, &[]).await;
    let (list, found) = loop_operations(&client, "mcp_aql_read").await;
    assert!(found.is_empty(), "no loop operation when off: {found:#?}");
    let protocol = &list["data"]["_protocol"];
    assert_eq!(
        protocol["capabilities"]["execution_safety_loop"],
        "disabled"
    );
    assert_eq!(protocol["safety_loop"]["mode"], "disabled");
    for (name, tool) in [
        ("record_execution_step", "mcp_aql_create"),
        ("execute_agent", "mcp_aql_execute"),
    ] {
        let (answer, _) = call(
            &client,
            tool,
            json!({"operation": name, "params": {"element_name": "a", "nextActionHint": "x"}}),
        )
        .await;
        assert_result(&answer);
        failure(&answer, "NOT_FOUND_OPERATION", name);
    }
    let (details, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations", "name": "execute_agent"}}),
    )
    .await;
    assert_introspection(&details);
    assert!(details["data"]["operation"].is_null(), "{details:#}");
    client.cancel().await.expect("stop the server");
}

#[tokio::test]
async fn monitoring_advises_and_logging_only_records() {
    let api = demo_api().await;

    // Monitoring, in crude mode: introspection lists the six on their endpoints.
    let client = todo_client(&api, &["--safety-loop", "monitoring"]).await;
    let (list, found) = loop_operations(&client, "mcp_aql_read").await;
    let protocol = &list["data"]["_protocol"];
    assert_eq!(
        protocol["capabilities"]["execution_safety_loop"],
        "monitoring"
    );
    assert_eq!(protocol["safety_loop"]["mode"], "monitoring");
    assert_eq!(protocol["safety_loop"]["maxAutonomousSteps"], 20);
    assert_eq!(
        protocol["safety_loop"]["deny"],
        json!(["drop_*", "delete_all*", "rm -rf*"])
    );
    assert_eq!(
        protocol["safety_loop"]["requiresApproval"],
        json!(["delete_*", "*force*", "deploy_*", "git push*"])
    );
    assert_eq!(
        protocol["safety_loop"]["autoApprove"],
        json!(["read_*", "list_*", "get_*", "search_*"])
    );
    assert_eq!(found.len(), 6, "all six listed: {found:#?}");
    for (name, endpoint) in LOOP_OPS {
        let entry = found
            .iter()
            .find(|entry| entry["name"] == name)
            .unwrap_or_else(|| panic!("{name} is listed"));
        assert_eq!(entry["endpoint"], endpoint, "{entry:#}");
        assert_eq!(
            entry["semantic_category"],
            endpoint.to_uppercase(),
            "{entry:#}"
        );
        let (details, _) = call(
            &client,
            "mcp_aql_read",
            json!({"operation": "introspect", "params": {"query": "operations", "name": name}}),
        )
        .await;
        assert_introspection(&details);
        let details = &details["data"]["operation"];
        assert_eq!(details["endpoint"], endpoint, "{details:#}");
        assert_eq!(
            details["mcpTool"],
            format!("mcp_aql_{endpoint}"),
            "{details:#}"
        );
        let params = details["parameters"].as_array().expect("parameters");
        let element_name = params.iter().find(|p| p["name"] == "element_name");
        if name == "verify_challenge" {
            assert!(element_name.is_none(), "{details:#}");
            assert!(
                params
                    .iter()
                    .any(|p| p["name"] == "challenge_id" && p["required"] == true)
            );
        } else {
            assert_eq!(
                element_name.expect("element_name")["required"],
                true,
                "{details:#}"
            );
        }
    }
    let (endpoint_list, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations", "endpoint": "create"}}),
    )
    .await;
    assert_introspection(&endpoint_list);
    let created: Vec<&str> = endpoint_list["data"]["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .filter_map(|entry| entry["name"].as_str())
        .collect();
    assert!(
        created.contains(&"record_execution_step") && created.contains(&"verify_challenge"),
        "{created:?}"
    );
    assert!(!created.contains(&"execute_agent"), "{created:?}");

    let execute = |operation: &'static str| {
        let client = &client;
        async move {
            let (answer, _) = call(
                client,
                "mcp_aql_execute",
                json!({"operation": operation, "params": {"element_name": "watcher"}}),
            )
            .await;
            assert_result(&answer);
            answer
        }
    };
    let record = |hint: &'static str| {
        let client = &client;
        async move {
            let (answer, _) = call(
                client,
                "mcp_aql_create",
                json!({"operation": "record_execution_step",
                       "params": {"element_name": "watcher", "nextActionHint": hint}}),
            )
            .await;
            assert_result(&answer);
            answer
        }
    };
    let started = execute("execute_agent").await;
    assert_eq!(
        data(&started, "monitoring start")["mode"],
        "monitoring",
        "no form needed: rmcp's client declares no elicitation"
    );
    let denied = record("drop_table todos").await;
    let advice = directive(&denied, "monitoring deny");
    assert_eq!(advice["continue"], true, "{advice:#}");
    assert!(advice.get("stopped").is_none(), "{advice:#}");
    assert!(advice.get("notifications").is_none(), "{advice:#}");
    assert_eq!(advice["nextStepRisk"], "danger_zone", "{advice:#}");
    assert!(
        factor_mentions(advice, "deny pattern 'drop_*'"),
        "{advice:#}"
    );
    assert!(
        factor_mentions(advice, "monitoring mode")
            && factor_mentions(advice, "enforcing would not continue"),
        "{advice:#}"
    );
    let approval = record("calling delete_todo on item 2").await;
    let advice = directive(&approval, "monitoring requires-approval");
    assert_eq!(advice["continue"], true, "{advice:#}");
    assert!(
        factor_mentions(advice, "requires-approval pattern 'delete_*'"),
        "{advice:#}"
    );
    let next = record("list_todos").await;
    assert_eq!(
        directive(&next, "monitoring next")["continue"],
        true,
        "not paused"
    );
    let completed = execute("complete_execution").await;
    assert_eq!(
        data(&completed, "monitoring complete")["status"],
        "completed"
    );
    assert_eq!(data(&completed, "monitoring complete")["steps"], 3);
    let again = execute("execute_agent").await;
    assert_eq!(data(&again, "not blocked")["status"], "running");
    client.cancel().await.expect("stop the server");

    // Logging: recorded, never evaluated.
    let client = todo_client(&api, &["--safety-loop", "logging", "--mode", "single"]).await;
    let (list, found) = loop_operations(&client, SINGLE).await;
    assert_eq!(
        list["data"]["_protocol"]["capabilities"]["execution_safety_loop"],
        "logging"
    );
    assert_eq!(found.len(), 6);
    let (started, _) = call(
        &client,
        SINGLE,
        json!({"operation": "execute_agent", "params": {"element_name": "scribe"}}),
    )
    .await;
    assert_eq!(data(&started, "logging start")["mode"], "logging");
    for hint in ["drop_table todos", "calling delete_todo on item 2"] {
        let (answer, _) = call(
            &client,
            SINGLE,
            json!({"operation": "record_execution_step",
                   "params": {"element_name": "scribe", "nextActionHint": hint}}),
        )
        .await;
        assert_result(&answer);
        let recorded = directive(&answer, "logging step");
        assert_eq!(recorded["continue"], true, "{recorded:#}");
        assert!(recorded.get("stopped").is_none(), "{recorded:#}");
        assert!(
            recorded.get("nextStepRisk").is_none(),
            "not evaluated: {recorded:#}"
        );
        assert_eq!(
            recorded["factors"],
            json!(["logging mode: the step is recorded, not evaluated"]),
            "{recorded:#}"
        );
    }
    client.cancel().await.expect("stop the server");
}

// ---------------------------------------------------------------------------------------------
// 5. Clients that cannot, or whose user will not, approve

#[tokio::test]
async fn approvals_need_a_person_never_a_token() {
    let api = demo_api().await;
    let base_url = api.base_url();
    let scratch = Scratch::new("approvals");
    let webhook = Webhook::start(&scratch).await;
    // The operator prefers tokens everywhere; the loop's approvals still take a person.
    let args = enforcing(
        &scratch.path("state.jsonl"),
        &webhook,
        &["--confirm-by", "all=token"],
    );
    let server = Server::Stdio {
        api: &base_url,
        args: &args,
    };
    let name = |agent: &str| json!({"element_name": agent});

    let no_form = harness(&plan(
        &server,
        "none",
        None,
        SINGLE,
        vec![
            op("execute_agent", name("solo")),
            op(
                "record_execution_step",
                json!({"element_name": "solo", "nextActionHint": "list_todos"}),
            ),
        ],
    ))
    .await;
    let answers = no_form.answers("no elicitation");
    let unavailable = failure(
        answers[0],
        "PERMISSION_CONFIRMATION_UNAVAILABLE",
        "execute_agent without elicitation",
    );
    assert_eq!(unavailable["details"]["operation"], "execute_agent");
    failure(answers[1], "VALIDATION_INVALID_VALUE", "nothing started");

    // A person pauses one agent and blocks another, on a client that can show forms.
    let setup = harness(&plan(
        &server,
        "accept",
        None,
        SINGLE,
        vec![
            op("execute_agent", name("pauser")),
            op(
                "record_execution_step",
                json!({"element_name": "pauser", "nextActionHint": "deploy_release v2"}),
            ),
            op("execute_agent", name("breaker")),
            op(
                "record_execution_step",
                json!({"element_name": "breaker", "nextActionHint": "delete_all_todos"}),
            ),
        ],
    ))
    .await;
    let answers = setup.answers("setup");
    assert_eq!(setup.elicitations().len(), 2, "{:#?}", setup.steps);
    assert_eq!(directive(answers[1], "pause")["continue"], false);
    let stop = directive(answers[3], "block");
    assert_eq!(stop["stopped"], true, "{stop:#}");
    let challenge = verification_id(stop, "block");

    let no_form = harness(&plan(
        &server,
        "none",
        None,
        SINGLE,
        vec![
            op("confirm_operation", name("pauser")),
            op(
                "record_execution_step",
                json!({"element_name": "pauser", "nextActionHint": "deploy_release v2"}),
            ),
            op("verify_challenge", json!({"challenge_id": challenge})),
        ],
    ))
    .await;
    let answers = no_form.answers("no elicitation, paused");
    let unavailable = failure(
        answers[0],
        "PERMISSION_CONFIRMATION_UNAVAILABLE",
        "confirm_operation without elicitation",
    );
    assert_eq!(unavailable["details"]["operation"], "confirm_operation");
    assert_eq!(
        directive(answers[1], "still paused")["continue"],
        false,
        "the pause holds"
    );
    let missing = failure(
        answers[2],
        "VALIDATION_MISSING_PARAM",
        "verify_challenge without a code nor a form",
    );
    assert_eq!(missing["details"]["param"], "code");

    let declined = harness(&plan(
        &server,
        "decline",
        None,
        SINGLE,
        vec![
            op("execute_agent", name("other")),
            op("confirm_operation", name("pauser")),
            op(
                "record_execution_step",
                json!({"element_name": "pauser", "nextActionHint": "deploy_release v2"}),
            ),
            op("verify_challenge", json!({"challenge_id": challenge})),
            op("execute_agent", name("breaker")),
        ],
    ))
    .await;
    let answers = declined.answers("declined");
    assert_eq!(declined.elicitations().len(), 3, "{:#?}", declined.steps);
    failure(
        answers[0],
        "PERMISSION_CONFIRMATION_DECLINED",
        "execute_agent declined",
    );
    failure(
        answers[1],
        "PERMISSION_CONFIRMATION_DECLINED",
        "confirm_operation declined",
    );
    assert_eq!(
        directive(answers[2], "still paused after a decline")["continue"],
        false
    );
    failure(
        answers[3],
        "PERMISSION_CONFIRMATION_DECLINED",
        "the code form declined",
    );
    failure(answers[4], "PERMISSION_AGENT_BLOCKED", "still blocked");
    for run in [&no_form, &declined] {
        assert!(
            !run.output.contains("CONFIRMATION_REQUIRED")
                && !run.output.contains("confirmation_token"),
            "no token is offered: {}",
            run.output
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Endpoint placement

#[tokio::test]
async fn loop_operations_live_on_their_endpoints() {
    let api = demo_api().await;
    let client = todo_client(&api, &["--safety-loop", "monitoring"]).await;
    for (operation, wrong, params) in [
        (
            "record_execution_step",
            "mcp_aql_execute",
            json!({"element_name": "placed", "nextActionHint": "list_todos"}),
        ),
        (
            "verify_challenge",
            "mcp_aql_execute",
            json!({"challenge_id": "chl_0"}),
        ),
        (
            "execute_agent",
            "mcp_aql_create",
            json!({"element_name": "placed"}),
        ),
        (
            "confirm_operation",
            "mcp_aql_read",
            json!({"element_name": "placed"}),
        ),
    ] {
        let (answer, _) = call(
            &client,
            wrong,
            json!({"operation": operation, "params": params}),
        )
        .await;
        assert_result(&answer);
        failure(
            &answer,
            "VALIDATION_ENDPOINT_MISMATCH",
            &format!("{operation} on {wrong}"),
        );
    }
    let (started, _) = call(
        &client,
        "mcp_aql_execute",
        json!({"operation": "execute_agent", "params": {"element_name": "placed"}}),
    )
    .await;
    assert_eq!(
        data(&started, "execute_agent on execute")["status"],
        "running"
    );
    let (step, _) = call(
        &client,
        "mcp_aql_create",
        json!({"operation": "record_execution_step",
               "params": {"element_name": "placed", "nextActionHint": "list_todos"}}),
    )
    .await;
    assert_result(&step);
    assert_eq!(directive(&step, "record on create")["continue"], true);
    client.cancel().await.expect("stop the server");
}

// ---------------------------------------------------------------------------------------------
// 7. Enforcing needs a durable store

#[tokio::test]
async fn enforcing_without_a_state_store_or_a_channel_does_not_start() {
    let channel = ["--verify-channel", "terminal"];
    // Flags, environment, and the flag the refusal must name.
    type Case<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>, &'a str);
    let cases: [Case; 3] = [
        (
            [&["--safety-loop", "enforcing"][..], &channel].concat(),
            vec![],
            "--state",
        ),
        (
            channel.to_vec(),
            vec![("MCP_AQL_SAFETY_LOOP", "enforcing")],
            "--state",
        ),
        (
            vec!["--safety-loop", "enforcing", "--state", "file:/tmp/unused"],
            vec![],
            "--verify-channel",
        ),
    ];
    for (args, env, named) in cases {
        let mut command = support::command_for(TODO_BIN, &args, &env);
        command
            .env("TODO_BASE_URL", "http://127.0.0.1:9")
            .env("TODO_API_KEY", TODO_KEY)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let output = tokio::time::timeout(Duration::from_secs(30), command.output())
            .await
            .expect("the server exits at once")
            .expect("run the server");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success(),
            "{args:?} {env:?}: refused, not started: {stderr}"
        );
        assert!(
            stderr.contains(named) && stderr.contains("enforcing"),
            "{args:?} {env:?}: the operator is told to give {named}: {stderr}"
        );
    }
}

/// A webhook on 127.0.0.1 that takes nothing: the operator's channel is down.
async fn dead_webhook() -> String {
    async fn refuse() -> StatusCode {
        StatusCode::SERVICE_UNAVAILABLE
    }
    let base = support::serve(axum::Router::new().route("/codes", post(refuse))).await;
    format!("{base}/codes")
}

/// A deny match must hard-block the agent (SPEC §8.7.3) whether or not the code reaches the
/// person at once: the block is what keeps the agent from acting, and the code can be sent
/// again on its next step; the agent is told the channel failed.
#[tokio::test]
async fn a_deny_match_blocks_even_when_the_code_cannot_be_sent() {
    let api = demo_api().await;
    let base_url = api.base_url();
    let scratch = Scratch::new("dead-channel");
    let state = format!("file:{}", scratch.path("state.jsonl").display());
    let dead = dead_webhook().await;
    let step = |hint: &str| {
        op(
            "record_execution_step",
            json!({"element_name": "reckless", "nextActionHint": hint}),
        )
    };
    let args: Vec<String> = [
        "--mode",
        "single",
        "--safety-loop",
        "enforcing",
        "--state",
        &state,
        "--verify-channel",
        &dead,
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    let server = Server::Stdio {
        api: &base_url,
        args: &args,
    };
    let run = harness(&plan(
        &server,
        "accept",
        None,
        SINGLE,
        vec![
            op("execute_agent", json!({"element_name": "reckless"})),
            step("drop_table todos"),
            step("list_todos"),
            op("execute_agent", json!({"element_name": "reckless"})),
            op("abort_execution", json!({"element_name": "reckless"})),
        ],
    ))
    .await;
    let answers = run.answers("dead channel");
    let (deny, next, relaunch) = (&answers[1], &answers[2], &answers[3]);
    assert_eq!(deny["data"]["directive"]["stopped"], true, "{deny}");
    let told = |answer: &Value| {
        answer["data"]["directive"]["notifications"]
            .as_array()
            .is_some_and(|notes| {
                notes.iter().any(|note| {
                    note["type"] == "error"
                        && note["metadata"]["reason"] == "verification_channel_unavailable"
                })
            })
    };
    assert!(
        told(deny),
        "the agent is told the code could not be sent: {deny}"
    );
    assert_eq!(next["data"]["directive"]["stopped"], true, "{next}");
    assert!(told(next), "each step tries to send a code again: {next}");
    assert_eq!(
        relaunch["error"]["code"], "PERMISSION_AGENT_BLOCKED",
        "{relaunch}"
    );
    assert_eq!(answers[4]["success"], true, "a blocked agent may abort");
}

/// `tools/call` of `mcp_aql` at 2026-07-28 on stateless HTTP, by `caller`; a retry when
/// `retry` brings a requestState and the person's answer. The JSON-RPC result.
async fn modern_call(
    url: &str,
    caller: &str,
    arguments: &Value,
    retry: Option<(&str, Value)>,
) -> Value {
    let mut params = json!({"name": SINGLE, "arguments": arguments, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "aqlgen-raw-client", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    }});
    if let Some((state, response)) = retry {
        params["requestState"] = state.into();
        params["inputResponses"] = json!({"aql_confirmation": response});
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", SINGLE)
        .header("authorization", format!("Bearer {caller}"))
        .body(body.to_string())
        .send()
        .await
        .expect("the adapter answers");
    let text = response.text().await.expect("a body");
    let message = support::rpc_message(&text);
    message
        .get("result")
        .cloned()
        .unwrap_or_else(|| panic!("a result, not {message}"))
}

/// The form message and sealed state of an `input_required` result.
fn asked(result: &Value) -> (String, String) {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let form = &result["inputRequests"]["aql_confirmation"]["params"];
    let state = result["requestState"].as_str().expect("a requestState");
    (
        form["message"].as_str().unwrap_or_default().to_owned(),
        state.to_owned(),
    )
}

/// The MCP-AQL answer of a complete result.
fn modern_answer(result: &Value) -> Value {
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text content: {result}"));
    let answer: Value = serde_json::from_str(text).expect("MCP-AQL JSON");
    assert_result(&answer);
    answer
}

/// An approval answers for what the person was shown: at 2026-07-28 the retry that brings the
/// person's yes must be the call they were asked about: the person approves starting agent
/// 'scout' and lifting the pause of 'careful', and the model cannot spend those yeses on
/// 'intruder' and 'rogue'.
#[tokio::test]
async fn an_approval_answers_only_for_the_agent_the_person_was_shown() {
    let api = demo_api().await;
    let base_url = api.base_url();
    let scratch = Scratch::new("bound");
    let webhook = Webhook::start(&scratch).await;
    let mut args = enforcing(&scratch.path("state.jsonl"), &webhook, &["--stateless"]);
    args.splice(0..0, ["--bind".to_owned(), "127.0.0.1".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (mut child, url) = support::http_server_for(
        TODO_BIN,
        &args,
        &[("TODO_BASE_URL", &base_url), ("TODO_API_KEY", TODO_KEY)],
    )
    .await;
    let yes = json!({"action": "accept", "content": {"confirm": true}});
    let start =
        |name: &str| json!({"operation": "execute_agent", "params": {"element_name": name}});

    // The wire works: asked, then the same call with the person's yes runs.
    let (message, state) = asked(&modern_call(&url, "alice", &start("scout"), None).await);
    assert!(message.contains("scout"), "{message}");
    let ran = modern_answer(
        &modern_call(&url, "alice", &start("scout"), Some((&state, yes.clone()))).await,
    );
    assert_eq!(data(&ran, "scout starts")["status"], "running");

    // Two more agents, each started with the person's yes, each paused by a requires-approval
    // action.
    for (name, hint) in [
        ("careful", "calling delete_todo on item 1"),
        ("rogue", "deploy_production now"),
    ] {
        let (_, state) = asked(&modern_call(&url, "alice", &start(name), None).await);
        let ran = modern_answer(
            &modern_call(&url, "alice", &start(name), Some((&state, yes.clone()))).await,
        );
        assert_eq!(data(&ran, name)["status"], "running");
        let step = json!({"operation": "record_execution_step",
                          "params": {"element_name": name, "nextActionHint": hint}});
        let paused = modern_answer(&modern_call(&url, "alice", &step, None).await);
        assert_eq!(directive(&paused, name)["continue"], false, "{paused:#}");
    }
    let mut problems = Vec::new();

    // The person is asked about starting 'scout'; the retry starts 'intruder'.
    let (message, state) = asked(&modern_call(&url, "alice", &start("scout"), None).await);
    assert!(
        message.contains("scout") && !message.contains("intruder"),
        "{message}"
    );
    let drifted = modern_answer(
        &modern_call(
            &url,
            "alice",
            &start("intruder"),
            Some((&state, yes.clone())),
        )
        .await,
    );
    if drifted["error"]["code"] != "TOKEN_SCOPE_MISMATCH" {
        problems.push(format!(
            "the person approved starting agent 'scout'; the retry started agent 'intruder': \
             {drifted}"
        ));
    }

    // The person is asked to let 'careful' delete item 1; the retry lifts the pause of 'rogue'.
    let lift =
        |name: &str| json!({"operation": "confirm_operation", "params": {"element_name": name}});
    let (message, state) = asked(&modern_call(&url, "alice", &lift("careful"), None).await);
    assert!(
        message.contains("careful") && !message.contains("rogue"),
        "{message}"
    );
    let drifted = modern_answer(
        &modern_call(&url, "alice", &lift("rogue"), Some((&state, yes.clone()))).await,
    );
    if drifted["error"]["code"] != "TOKEN_SCOPE_MISMATCH" {
        problems.push(format!(
            "the person approved lifting the pause of 'careful' (delete_todo on item 1); the \
             retry lifted the pause of 'rogue' (deploy_production now): {drifted}"
        ));
    }
    child.kill().await.expect("stop the server");
    assert!(
        problems.is_empty(),
        "an approval of the safety loop must be bound to the agent the person was \
         shown; at 2026-07-28 the requestState of one agent's form answers a call for another \
         agent, where it should be refused with TOKEN_SCOPE_MISMATCH:\n{}",
        problems.join("\n")
    );
}

/// Each caller's agents are its own, whatever names they share, on every instance of a fleet:
/// two stateless instances on one Redis, callers A and B bringing their own upstream keys
/// (`--credential-header`), each behind the Python SDK at 2026-07-28. A's agent `builder` is
/// hard-blocked (by a deny action written with look-alike letters); B's `builder` starts and
/// runs, and B cannot lift A's block even with A's challenge and code. A's block holds on the
/// other instance until A brings the code its person was sent.
#[tokio::test]
async fn agents_are_their_callers_own_across_instances() {
    let redis = support::Redis::start().await;
    let api = demo_api().await;
    let base_url = api.base_url();
    let scratch = Scratch::new("callers");
    let webhook = Webhook::start(&scratch).await;
    let store = redis.url();
    let args: Vec<String> = [
        "--stateless",
        "--mode",
        "single",
        "--safety-loop",
        "enforcing",
        "--state",
        &store,
        "--verify-channel",
        &webhook.url,
        "--credential-header",
        "x-upstream-key",
    ]
    .iter()
    .map(|arg| (*arg).to_owned())
    .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env = [("TODO_BASE_URL", base_url.as_str())];
    let (mut one, first) = support::http_server_for(TODO_BIN, &args, &env).await;
    let (mut two, second) = support::http_server_for(TODO_BIN, &args, &env).await;
    let as_caller = |url: &str, key: &str, calls: Vec<Value>| {
        let mut plan = plan(
            &Server::Http { url },
            "accept",
            Some(&webhook.code_file),
            SINGLE,
            calls,
        );
        plan["protocol"] = json!("2026-07-28");
        plan["headers"] = json!({"x-upstream-key": key});
        plan
    };
    let builder = json!({"element_name": "builder"});
    let step = |hint: &str| {
        op(
            "record_execution_step",
            json!({"element_name": "builder", "nextActionHint": hint}),
        )
    };

    let a = harness(&as_caller(
        &first,
        TODO_KEY,
        vec![
            op("execute_agent", builder.clone()),
            step("now d\u{435}lete_\u{430}ll todos"),
        ],
    ))
    .await;
    let answers = a.answers("A blocks its agent");
    assert_eq!(data(answers[0], "A starts")["status"], "running");
    let stopped = directive(answers[1], "A's deny action");
    assert_eq!(
        stopped["stopped"], true,
        "look-alike letters do not evade 'delete_all*': {stopped:#}"
    );
    let (challenge, code) = (
        webhook.challenge_ids()[0].clone(),
        webhook.codes()[0].clone(),
    );

    let b = harness(&as_caller(
        &second,
        "b-own-key",
        vec![
            op("execute_agent", builder.clone()),
            step("list_todos to see what is open"),
            op(
                "verify_challenge",
                json!({"challenge_id": challenge, "code": code}),
            ),
            op("abort_execution", builder.clone()),
        ],
    ))
    .await;
    let answers = b.answers("B's own builder");
    assert_eq!(
        data(answers[0], "B starts an agent of the same name")["status"],
        "running",
        "A's block is not B's"
    );
    assert_eq!(directive(answers[1], "B's step")["continue"], true);
    failure(
        answers[2],
        "PERMISSION_VERIFICATION_FAILED",
        "B answers A's challenge",
    );
    assert_eq!(answers[3]["success"], true, "B ends its own agent");

    let a = harness(&as_caller(
        &second,
        TODO_KEY,
        vec![
            step("list_todos"),
            op(
                "verify_challenge",
                json!({"challenge_id": challenge, "code": code}),
            ),
            step("list_todos"),
        ],
    ))
    .await;
    let answers = a.answers("A on the other instance");
    assert_eq!(
        directive(answers[0], "A's block, elsewhere")["stopped"],
        true,
        "B's answer lifted nothing"
    );
    assert_eq!(
        data(answers[1], "A's person gives the code")["element_name"],
        "builder"
    );
    assert_eq!(directive(answers[2], "A goes on")["continue"], true);
    one.kill().await.expect("stop the first instance");
    two.kill().await.expect("stop the second instance");
}
