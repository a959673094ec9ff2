//! The safety gate end to end: which calls run, which wait for a confirmation token and which
//! are refused, and how often anything may reach the API. The fixture adapter's confirmed
//! delete shows the token round trip (scope, single use, forgery, another session); the
//! generated todo and GitHub adapters, behind rmcp's client over stdio against demo-upstream
//! on 127.0.0.1, whose request log shows what reached the API, cover every danger level at
//! every trust level, the operator's overrides, token lifetimes and caps, each rate-limit
//! window, the upstream's own limits, quota stages and the audit log.

mod support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use demo_upstream::{Fault, StatusCode};
use serde_json::{Value, json};
use support::{assert_introspection, assert_result, call, start_upstream, stdio_client};

const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");
const GITHUB_BIN: &str = env!("CARGO_BIN_EXE_github-adapter-server");
const KEY: &str = "todo-test-key";
const TOKEN: &str = "ghp_gate-test-token";
const DELETE: &str = "mcp_aql_delete";

struct Todo {
    api: demo_upstream::Running,
    client: support::Client,
}

impl Todo {
    /// A fresh demo-upstream and the todo adapter started with `args`.
    async fn start(args: &[&str]) -> Self {
        Self::start_with_env(args, &[]).await
    }

    async fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let api = demo_upstream::spawn(demo_upstream::Options {
            api_key: Some(KEY.into()),
            ..demo_upstream::Options::default()
        })
        .await
        .expect("start demo-upstream");
        let base_url = api.base_url();
        let mut all_env = vec![("TODO_BASE_URL", base_url.as_str()), ("TODO_API_KEY", KEY)];
        all_env.extend_from_slice(env);
        let client = support::stdio_client_for(TODO_BIN, args, &all_env).await;
        Self { api, client }
    }

    /// Calls `operation` on `tool` with `params`; checks the answer against the official
    /// result schema.
    async fn call(&self, tool: &str, operation: &str, params: Value) -> (Value, bool) {
        let (answer, is_error) = call(
            self.client.peer(),
            tool,
            json!({"operation": operation, "params": params}),
        )
        .await;
        assert_result(&answer);
        (answer, is_error)
    }

    /// Requests the upstream received since the last look.
    fn sent(&self) -> usize {
        self.api.take_requests().len()
    }
}

/// The tool, operation and params of one todo operation per danger level.
fn operation_of(danger: &str) -> (&'static str, &'static str, Value) {
    match danger {
        "safe" => ("mcp_aql_read", "list_todos", json!({})),
        "reversible" => ("mcp_aql_create", "create_todo", json!({"title": "Gate"})),
        "destructive" => (DELETE, "delete_todo", json!({"id": 1})),
        "dangerous" => (DELETE, "bulk_delete_todos", json!({"tag": "shopping"})),
        "forbidden" => (DELETE, "delete_all_todos", json!({})),
        other => unreachable!("no danger level {other}"),
    }
}

fn code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("")
}

/// The gating matrix of danger-levels §4.1, written out here so the test does not trust the
/// model crate it checks: rows by danger level, columns untested, generated, validated,
/// community_reviewed, certified.
const MATRIX: [(&str, [&str; 5]); 5] = [
    (
        "safe",
        ["introspect_only", "allow", "allow", "allow", "allow"],
    ),
    ("reversible", ["deny", "deny", "allow", "allow", "allow"]),
    ("destructive", ["deny", "deny", "confirm", "allow", "allow"]),
    ("dangerous", ["deny", "deny", "deny", "confirm", "allow"]),
    ("forbidden", ["deny", "deny", "deny", "deny", "confirm"]),
];
const TRUST: [&str; 5] = [
    "untested",
    "generated",
    "validated",
    "community_reviewed",
    "certified",
];

#[tokio::test]
async fn every_danger_level_at_every_trust_level() {
    for (column, trust) in TRUST.iter().enumerate() {
        let todo = Todo::start(&["--trust-level", trust]).await;
        // Introspection always answers, and says what the gate does.
        let (list, _) = todo
            .call("mcp_aql_read", "introspect", json!({"query": "operations"}))
            .await;
        assert_introspection(&list);
        let safety = &list["data"]["_protocol"]["safety"];
        assert_eq!(safety["trust_level"], *trust, "{safety}");
        assert_eq!(safety["trust_source"], "operator", "{safety}");
        for (danger, cells) in MATRIX {
            let expected = cells[column];
            assert_eq!(safety["decisions"][danger], expected, "{danger} at {trust}");
            let (tool, operation, params) = operation_of(danger);
            let (details, _) = todo
                .call(
                    "mcp_aql_read",
                    "introspect",
                    json!({"query": "operations", "name": operation}),
                )
                .await;
            assert_introspection(&details);
            let description = details["data"]["operation"]["description"]
                .as_str()
                .unwrap_or_default();
            assert!(
                description.contains(&format!("Danger level: {danger};")),
                "{operation} at {trust}: {description}"
            );
            let documents_token = details["data"]["operation"]["parameters"]
                .as_array()
                .is_some_and(|params| params.iter().any(|p| p["name"] == "confirmation_token"));
            assert_eq!(
                documents_token,
                expected == "confirm",
                "{operation} at {trust}: the token param is documented exactly when it is needed"
            );

            let (answer, is_error) = todo.call(tool, operation, params.clone()).await;
            let context = format!("{operation} ({danger}) at {trust}: {answer}");
            match expected {
                "allow" => {
                    assert_eq!(answer["success"], true, "{context}");
                    assert_eq!(todo.sent(), 1, "{context}");
                }
                "confirm" => {
                    assert_eq!(code(&answer), "CONFIRMATION_REQUIRED", "{context}");
                    assert!(!is_error, "recoverable: {context}");
                    assert_eq!(
                        todo.sent(),
                        0,
                        "nothing unconfirmed reaches the API: {context}"
                    );
                    let details = &answer["error"]["details"];
                    assert_eq!(details["danger_level"], danger, "{context}");
                    assert!(details["reasons"].as_array().is_some_and(|r| !r.is_empty()));
                    assert!(details["confirmation_message"].is_string(), "{context}");
                    let token = details["confirmation_token"].as_str().expect("token");
                    let mut confirmed = params.clone();
                    confirmed["confirmation_token"] = json!(token);
                    let (done, _) = todo.call(tool, operation, confirmed).await;
                    assert_eq!(done["success"], true, "confirmed {context}: {done}");
                    assert_eq!(todo.sent(), 1, "{context}");
                }
                "deny" => {
                    assert_eq!(code(&answer), "PERMISSION_DANGER_LEVEL_DENIED", "{context}");
                    assert!(is_error, "{context}");
                    let details = &answer["error"]["details"];
                    assert_eq!(details["danger_level"], danger, "{context}");
                    assert_eq!(details["adapter_trust"], *trust, "{context}");
                    let minimum = details["minimum_trust_required"].as_str().expect("minimum");
                    let first_allowed = cells
                        .iter()
                        .position(|cell| matches!(*cell, "allow" | "confirm"))
                        .expect("every level runs somewhere");
                    assert_eq!(minimum, TRUST[first_allowed], "{context}");
                    let message = answer["error"]["message"].as_str().unwrap_or_default();
                    assert!(
                        message.contains("--trust-level"),
                        "says what allows it: {context}"
                    );
                    assert_eq!(todo.sent(), 0, "nothing denied reaches the API: {context}");
                }
                "introspect_only" => {
                    assert_eq!(
                        code(&answer),
                        "PERMISSION_TRUST_LEVEL_INSUFFICIENT",
                        "{context}"
                    );
                    assert_eq!(answer["error"]["details"]["required_trust"], "generated");
                    assert_eq!(answer["error"]["details"]["danger_level"], 0);
                    assert_eq!(todo.sent(), 0, "{context}");
                }
                other => unreachable!("no outcome {other}"),
            }
        }
    }
}

#[tokio::test]
async fn the_schema_trust_level_applies_without_an_operator() {
    let todo = Todo::start(&[]).await;
    let tools = todo.client.list_all_tools().await.expect("tools/list");
    let delete = tools
        .iter()
        .find(|tool| tool.name == DELETE)
        .and_then(|tool| tool.description.as_deref())
        .expect("delete tool");
    assert!(
        delete.contains("delete_todo (destructive)")
            && delete.contains("Safety (trust level 'validated'): needs confirmation: delete_todo (destructive), clear_completed_todos (destructive)")
            && delete.contains("Refused: bulk_delete_todos (dangerous), delete_all_todos (forbidden)."),
        "{delete}"
    );
    let read = tools
        .iter()
        .find(|tool| tool.name == "mcp_aql_read")
        .and_then(|tool| tool.description.as_deref())
        .expect("read tool");
    assert!(
        !read.contains("Safety"),
        "nothing to say where all runs: {read}"
    );
    let (list, _) = todo
        .call("mcp_aql_read", "introspect", json!({"query": "operations"}))
        .await;
    let safety = &list["data"]["_protocol"]["safety"];
    assert_eq!(safety["trust_level"], "validated", "medium is validated");
    assert_eq!(safety["trust_source"], "schema");
    let (answer, _) = todo.call(DELETE, "delete_todo", json!({"id": 2})).await;
    assert_eq!(code(&answer), "CONFIRMATION_REQUIRED", "{answer}");
    // The official schema's `confirmation` object mirrors the details.
    assert_eq!(
        answer["confirmation"]["token"],
        answer["error"]["details"]["confirmation_token"]
    );
    assert!(
        answer["error"]["details"]["confirmation_message"]
            .as_str()
            .is_some_and(|message| message.contains("DELETE /todos/2")),
        "{answer}"
    );
}

#[tokio::test]
async fn operator_overrides_only_tighten() {
    // --confirm-at: a reversible create now asks first.
    let todo = Todo::start(&["--confirm-at", "reversible"]).await;
    let (answer, _) = todo
        .call("mcp_aql_create", "create_todo", json!({"title": "x"}))
        .await;
    assert_eq!(code(&answer), "CONFIRMATION_REQUIRED", "{answer}");
    assert!(
        answer["error"]["details"]["reasons"]
            .to_string()
            .contains("operator's policy"),
        "{answer}"
    );
    let (list, _) = todo.call("mcp_aql_read", "list_todos", json!({})).await;
    assert_eq!(list["success"], true, "safe still runs: {list}");
    assert_eq!(todo.sent(), 1);

    // --deny: refused at any trust level, with the operator named as the reason.
    let todo = Todo::start(&["--trust-level", "certified", "--deny", "destructive"]).await;
    let (answer, is_error) = todo.call(DELETE, "delete_todo", json!({"id": 1})).await;
    assert!(is_error);
    assert_eq!(code(&answer), "PERMISSION_DANGER_LEVEL_DENIED", "{answer}");
    assert_eq!(answer["error"]["details"]["policy"], "operator");
    assert_eq!(todo.sent(), 0);
    // The schema's requires_confirmation holds even at certified.
    let todo = Todo::start(&["--trust-level", "certified"]).await;
    let (answer, _) = todo.call(DELETE, "clear_completed_todos", json!({})).await;
    assert_eq!(code(&answer), "CONFIRMATION_REQUIRED", "{answer}");
    assert!(
        answer["error"]["details"]["reasons"]
            .to_string()
            .contains("requires_confirmation"),
        "{answer}"
    );
    let (answer, _) = todo.call(DELETE, "delete_all_todos", json!({})).await;
    assert_eq!(
        code(&answer),
        "CONFIRMATION_REQUIRED",
        "forbidden confirms at certified"
    );
    assert_eq!(todo.sent(), 0);

    // The environment sets the same, and a flag beats it.
    let todo = Todo::start_with_env(&[], &[("MCP_AQL_TRUST_LEVEL", "high")]).await;
    let (answer, _) = todo
        .call(DELETE, "bulk_delete_todos", json!({"tag": "home"}))
        .await;
    assert_eq!(
        code(&answer),
        "CONFIRMATION_REQUIRED",
        "high is community_reviewed: {answer}"
    );
    let todo = Todo::start_with_env(
        &["--trust-level", "generated"],
        &[
            ("MCP_AQL_TRUST_LEVEL", "certified"),
            ("MCP_AQL_DENY", "safe"),
        ],
    )
    .await;
    let (answer, _) = todo
        .call("mcp_aql_create", "create_todo", json!({"title": "x"}))
        .await;
    assert_eq!(code(&answer), "PERMISSION_DANGER_LEVEL_DENIED", "{answer}");
    let (answer, _) = todo.call("mcp_aql_read", "list_todos", json!({})).await;
    assert_eq!(answer["error"]["details"]["policy"], "operator", "{answer}");
    assert_eq!(todo.sent(), 0);
}

/// Flags, environment, and what the refusal says.
type StartUp<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

#[test]
fn bad_flags_stop_start_up_with_a_clear_message() {
    let cases: &[StartUp<'_>] = &[
        (&["--trust-level", "trusted"], &[], "not a trust level"),
        (&[], &[("MCP_AQL_TRUST_LEVEL", "root")], "not a trust level"),
        (&["--confirm-at", "risky"], &[], "not a danger level"),
        (&["--deny", "safe,everything"], &[], "not a danger level"),
        (
            &["--rate-limit", "week=5"],
            &[],
            "not one of second, minute, hour, day",
        ),
        (&["--rate-limit", "minute=0"], &[], "above 0"),
        (&["--quota", "requests_per_hour=9/3"], &[], "warn <= pause"),
        (
            &["--quota", "cost_per_day=1/2"],
            &[],
            "not one of requests_per_minute",
        ),
        (
            &[
                "--quota",
                "requests_per_day=1/2",
                "--quota",
                "requests_per_day=3/4",
            ],
            &[],
            "two quotas for requests_per_day",
        ),
        (&["--confirmation-ttl", "901"], &[], "1..=900"),
        (&["--forbidden-confirmation-ttl", "0"], &[], "1..=300"),
        (&["--clock-skew-tolerance", "999"], &[], "0..=300"),
        (
            &["--audit-log", "/nonexistent-dir/audit.jsonl"],
            &[],
            "cannot open the audit log",
        ),
    ];
    for (args, env, expected) in cases {
        let mut command = std::process::Command::new(TODO_BIN);
        command.args(*args).stdin(std::process::Stdio::null());
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("MCP_AQL_") {
                command.env_remove(key);
            }
        }
        for (key, value) in *env {
            command.env(key, value);
        }
        let output = command.output().expect("run the adapter");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} {env:?} must not start");
        assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout");
        assert!(stderr.contains(expected), "{args:?} {env:?}: {stderr}");
    }
}

/// Seconds between now and an RFC 3339 time with a `Z`.
fn seconds_until(time: &str) -> i64 {
    let parse = |part: &str| part.parse::<i64>().expect("a number");
    let (date, clock) = time
        .trim_end_matches('Z')
        .split_once('T')
        .expect("a date-time");
    let date: Vec<i64> = date.split('-').map(parse).collect();
    let clock: Vec<i64> = clock.split(':').map(parse).collect();
    // Days from civil (Howard Hinnant), then seconds.
    let (year, month, day) = (date[0] - i64::from(date[1] <= 2), date[1], date[2]);
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let then = days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2];
    let now = i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_secs(),
    )
    .expect("fits");
    then - now
}

#[tokio::test]
async fn token_lifetimes_follow_the_danger_level_and_expire() {
    // Defaults: 5 minutes below forbidden, 2 minutes for forbidden.
    let todo = Todo::start(&["--trust-level", "certified", "--confirm-at", "destructive"]).await;
    for (operation, params, ttl) in [
        ("delete_todo", json!({"id": 1}), 300),
        ("delete_all_todos", json!({}), 120),
    ] {
        let (answer, _) = todo.call(DELETE, operation, params).await;
        let details = &answer["error"]["details"];
        assert_eq!(details["ttl_seconds"], ttl, "{answer}");
        let left = seconds_until(details["expires_at"].as_str().expect("expiry"));
        assert!(
            (ttl - 2..=ttl).contains(&left),
            "{operation}: {left} s left"
        );
    }

    // A short lifetime and no skew tolerance: the token is refused once expired.
    let todo = Todo::start(&[
        "--confirmation-ttl",
        "1",
        "--forbidden-confirmation-ttl",
        "1",
        "--clock-skew-tolerance",
        "0",
        "--trust-level",
        "certified",
        "--confirm-at",
        "destructive",
    ])
    .await;
    for (operation, params) in [
        ("delete_todo", json!({"id": 1})),
        ("delete_all_todos", json!({})),
    ] {
        let (answer, _) = todo.call(DELETE, operation, params.clone()).await;
        let token = answer["error"]["details"]["confirmation_token"].clone();
        tokio::time::sleep(Duration::from_millis(1_300)).await;
        let mut retry = params;
        retry["confirmation_token"] = token;
        let (expired, is_error) = todo.call(DELETE, operation, retry).await;
        assert_eq!(code(&expired), "TOKEN_EXPIRED", "{operation}: {expired}");
        assert!(is_error);
        assert!(expired["error"]["details"]["current_time"].is_string());
    }
    assert_eq!(todo.sent(), 0, "nothing expired reaches the API");

    // The skew tolerance keeps an expired token good for that long.
    let todo = Todo::start(&["--confirmation-ttl", "1", "--clock-skew-tolerance", "5"]).await;
    let (answer, _) = todo.call(DELETE, "delete_todo", json!({"id": 1})).await;
    let token = answer["error"]["details"]["confirmation_token"].clone();
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let (done, _) = todo
        .call(
            DELETE,
            "delete_todo",
            json!({"id": 1, "confirmation_token": token}),
        )
        .await;
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(todo.sent(), 1);
}

#[tokio::test]
async fn tokens_are_single_use_bound_and_capped() {
    let todo = Todo::start(&[]).await;
    let (answer, _) = todo.call(DELETE, "delete_todo", json!({"id": 1})).await;
    let token = answer["error"]["details"]["confirmation_token"].clone();
    assert!(token.as_str().is_some_and(|t| t.starts_with("conf_")));
    let (other, _) = todo
        .call(
            DELETE,
            "delete_todo",
            json!({"id": 2, "confirmation_token": token}),
        )
        .await;
    assert_eq!(
        code(&other),
        "TOKEN_SCOPE_MISMATCH",
        "other params: {other}"
    );
    let (done, _) = todo
        .call(
            DELETE,
            "delete_todo",
            json!({"id": 1, "confirmation_token": token}),
        )
        .await;
    assert_eq!(done["success"], true, "{done}");
    let (again, _) = todo
        .call(
            DELETE,
            "delete_todo",
            json!({"id": 1, "confirmation_token": token}),
        )
        .await;
    assert_eq!(code(&again), "TOKEN_ALREADY_USED", "{again}");
    assert_eq!(todo.sent(), 1, "one confirmed call, one request");

    // 100 tokens an hour per session, then RATE_LIMIT_EXCEEDED.
    let todo = Todo::start(&[]).await;
    let mut issued = 0;
    let capped = loop {
        let (answer, _) = todo.call(DELETE, "delete_todo", json!({"id": 3})).await;
        if code(&answer) != "CONFIRMATION_REQUIRED" {
            break answer;
        }
        issued += 1;
    };
    assert_eq!(issued, 100);
    assert_eq!(code(&capped), "RATE_LIMIT_EXCEEDED", "{capped}");
    assert_eq!(capped["error"]["details"]["scope"], "confirmation_tokens");
    assert_eq!(capped["error"]["details"]["window"], "hour");

    // 20 failed redemptions an hour, then every redemption is refused, even a good token.
    let todo = Todo::start(&[]).await;
    let (answer, _) = todo.call(DELETE, "delete_todo", json!({"id": 3})).await;
    let good = answer["error"]["details"]["confirmation_token"].clone();
    for attempt in 0..20 {
        let (failed, _) = todo
            .call(
                DELETE,
                "delete_todo",
                json!({"id": 3, "confirmation_token": format!("conf_guess{attempt}")}),
            )
            .await;
        assert_eq!(code(&failed), "TOKEN_INVALID", "{failed}");
    }
    let (locked, _) = todo
        .call(
            DELETE,
            "delete_todo",
            json!({"id": 3, "confirmation_token": good}),
        )
        .await;
    assert_eq!(code(&locked), "RATE_LIMIT_EXCEEDED", "{locked}");
    assert_eq!(locked["error"]["details"]["scope"], "failed_confirmations");
    assert_eq!(todo.sent(), 0);
}

/// Waits out the last two seconds of a minute, so a short burst of calls stays inside one
/// minute (and so one hour and one day).
async fn away_from_a_minute_boundary() {
    let second = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
        % 60;
    if second >= 58 {
        tokio::time::sleep(Duration::from_secs(61 - second)).await;
    }
}

#[tokio::test]
async fn each_rate_limit_window_blocks_before_the_upstream() {
    for window in ["minute", "hour", "day"] {
        away_from_a_minute_boundary().await;
        let todo = Todo::start(&["--rate-limit", &format!("{window}=2")]).await;
        for _ in 0..2 {
            let (answer, _) = todo.call("mcp_aql_read", "list_todos", json!({})).await;
            assert_eq!(answer["success"], true, "{window}: {answer}");
        }
        let (blocked, is_error) = todo.call("mcp_aql_read", "list_todos", json!({})).await;
        assert!(!is_error, "recoverable");
        let details = &blocked["error"]["details"];
        assert_eq!(code(&blocked), "RATE_LIMIT_EXCEEDED", "{window}: {blocked}");
        assert_eq!(details["window"], window, "{blocked}");
        assert_eq!(details["limit"], 2);
        assert_eq!(details["scope"], "adapter");
        let retry = details["retry_after_seconds"].as_i64().expect("retry");
        let until = seconds_until(details["resets_at"].as_str().expect("reset"));
        assert!((until - 1..=until + 1).contains(&retry), "{blocked}");
        assert_eq!(todo.sent(), 2, "{window}: the blocked call never left");
    }
    // The per-second window (the schema's burst_limit): with one call a second, a quick
    // run of calls must meet it, whatever second it starts in.
    let todo = Todo::start(&["--rate-limit", "second=1"]).await;
    let mut answered = 0;
    let mut blocked = None;
    for _ in 0..50 {
        let (answer, _) = todo.call("mcp_aql_read", "list_todos", json!({})).await;
        if answer["success"] == true {
            answered += 1;
        } else {
            blocked = Some(answer);
            break;
        }
    }
    let blocked = blocked.expect("the second window blocks");
    assert_eq!(blocked["error"]["details"]["window"], "second", "{blocked}");
    assert_eq!(todo.sent(), answered);
}

#[tokio::test]
async fn the_schema_limit_and_the_upstream_headers_are_honoured() {
    let api = demo_upstream::spawn(demo_upstream::Options {
        bearer_token: Some(TOKEN.into()),
        github_rate_limit: Some(2),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream");
    let base_url = api.base_url();
    let client = support::stdio_client_for(
        GITHUB_BIN,
        &[],
        &[
            ("GITHUB_BASE_URL", base_url.as_str()),
            ("GITHUB_TOKEN", TOKEN),
        ],
    )
    .await;
    let get_repo =
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world"}});
    let (list, _) = call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    let protocol = &list["data"]["_protocol"];
    assert_eq!(
        protocol["rate_limits"]["limits"],
        json!([{"window": "hour", "limit": 5000}]),
        "the schema's requests_per_hour: {protocol}"
    );
    assert_eq!(protocol["quota_status"]["api_limits"][0]["remaining"], 5000);
    for _ in 0..2 {
        let (answer, _) = call(client.peer(), "mcp_aql_read", get_repo.clone()).await;
        assert_eq!(answer["success"], true, "{answer}");
    }
    // The second answer said `X-RateLimit-Remaining: 0`: the third call stays home.
    let (blocked, _) = call(client.peer(), "mcp_aql_read", get_repo.clone()).await;
    assert_result(&blocked);
    assert_eq!(code(&blocked), "RATE_LIMIT_EXCEEDED", "{blocked}");
    assert_eq!(blocked["error"]["details"]["scope"], "upstream");
    assert_eq!(blocked["error"]["details"]["limit"], 2);
    assert!(blocked["error"]["details"]["retry_after_seconds"].as_u64() > Some(3000));
    assert_eq!(api.take_requests().len(), 2, "the upstream saw two calls");
    let (list, _) = call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert!(list["data"]["_protocol"]["quota_status"]["upstream_blocked_until"].is_string());

    // A 429 with Retry-After: mapped with the upstream's wait, then honoured.
    let api = demo_upstream::spawn(demo_upstream::Options {
        bearer_token: Some(TOKEN.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream");
    let base_url = api.base_url();
    let client = support::stdio_client_for(
        GITHUB_BIN,
        &[],
        &[
            ("GITHUB_BASE_URL", base_url.as_str()),
            ("GITHUB_TOKEN", TOKEN),
        ],
    )
    .await;
    api.add_fault(
        Fault::new("/repos/octo/hello-world", StatusCode::TOO_MANY_REQUESTS)
            .header("retry-after", "17")
            .body(r#"{"message":"API rate limit exceeded"}"#),
    );
    let (limited, _) = call(client.peer(), "mcp_aql_read", get_repo.clone()).await;
    assert_eq!(code(&limited), "RATE_LIMIT_EXCEEDED", "{limited}");
    assert_eq!(limited["error"]["details"]["retry_after_seconds"], 17);
    api.clear_faults();
    let (held, _) = call(client.peer(), "mcp_aql_read", get_repo).await;
    assert_eq!(code(&held), "RATE_LIMIT_EXCEEDED", "{held}");
    assert_eq!(held["error"]["details"]["scope"], "upstream");
    let retry = held["error"]["details"]["retry_after_seconds"]
        .as_u64()
        .expect("retry");
    assert!((16..=17).contains(&retry), "{held}");
    assert_eq!(api.take_requests().len(), 1, "only the first call went out");
}

#[tokio::test]
async fn quota_stages_warn_pause_and_stop() {
    let todo = Todo::start(&["--quota", "requests_per_day=2/3/5"]).await;
    let list = || todo.call("mcp_aql_read", "list_todos", json!({}));
    let (first, _) = list().await;
    assert!(first.get("warnings").is_none(), "{first}");
    for _ in 0..2 {
        let (warned, _) = list().await;
        let warning = &warned["warnings"][0];
        assert_eq!(warning["code"], "RATE_LIMIT_QUOTA_WARNING", "{warned}");
        assert_eq!(warning["details"]["metric"], "requests_per_day");
        assert_eq!(warning["details"]["pause_threshold"], 3);
    }
    // Three calls ran: the fourth pauses and gets a continuation token.
    let (paused, is_error) = list().await;
    assert!(!is_error, "recoverable");
    assert_eq!(code(&paused), "RATE_LIMIT_QUOTA_PAUSE", "{paused}");
    assert_eq!(paused["error"]["details"]["current"], 3);
    assert_eq!(paused["error"]["details"]["hard_stop_threshold"], 5);
    let token = paused["error"]["details"]["confirmation_token"]
        .as_str()
        .expect("token")
        .to_owned();
    assert!(token.starts_with("quota_continue_"), "{token}");
    let left = seconds_until(
        paused["error"]["details"]["expires_at"]
            .as_str()
            .expect("expiry"),
    );
    assert!(
        (298..=300).contains(&left),
        "quota tokens live 5 minutes: {left}"
    );
    assert_eq!(todo.sent(), 3, "the paused call did not run");
    let (bad, _) = todo
        .call(
            "mcp_aql_read",
            "list_todos",
            json!({"_quota_continue": "quota_continue_forged"}),
        )
        .await;
    assert_eq!(code(&bad), "TOKEN_INVALID", "{bad}");
    let (continued, _) = todo
        .call(
            "mcp_aql_read",
            "list_todos",
            json!({"_quota_continue": token}),
        )
        .await;
    assert_eq!(continued["success"], true, "{continued}");
    // Continued for the rest of the window: the fifth call needs no token.
    let (fifth, _) = list().await;
    assert_eq!(fifth["success"], true, "{fifth}");
    let (stopped, is_error) = list().await;
    assert!(is_error, "exhausted is not recoverable by retrying");
    assert_eq!(code(&stopped), "RATE_LIMIT_QUOTA_EXHAUSTED", "{stopped}");
    assert_eq!(stopped["error"]["details"]["current"], 5);
    assert_eq!(todo.sent(), 2, "two more calls ran after the pause");
    let (status, _) = todo
        .call("mcp_aql_read", "introspect", json!({"query": "operations"}))
        .await;
    assert_eq!(
        status["data"]["_protocol"]["quota_status"]["quotas"][0]["status"],
        "exhausted"
    );
}

#[tokio::test]
async fn the_audit_log_holds_every_decision_and_no_secret() {
    let dir = std::env::temp_dir().join(format!("aqlgen-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&path);
    let path_text = path.to_string_lossy().into_owned();
    let todo = Todo::start(&["--audit-log", &path_text, "--rate-limit", "day=4"]).await;
    let mut tokens = Vec::new();
    todo.call("mcp_aql_read", "list_todos", json!({})).await;
    let (asked, _) = todo.call(DELETE, "delete_todo", json!({"id": 1})).await;
    let token = asked["error"]["details"]["confirmation_token"].clone();
    tokens.push(token.as_str().expect("token").to_owned());
    todo.call(
        DELETE,
        "delete_todo",
        json!({"id": 1, "confirmation_token": "conf_wrong"}),
    )
    .await;
    todo.call(
        DELETE,
        "delete_todo",
        json!({"id": 1, "confirmation_token": token}),
    )
    .await;
    todo.call(DELETE, "delete_all_todos", json!({})).await;
    todo.call("mcp_aql_read", "list_todos", json!({})).await;
    todo.call("mcp_aql_read", "list_todos", json!({})).await;
    let (limited, _) = todo.call("mcp_aql_read", "list_todos", json!({})).await;
    assert_eq!(code(&limited), "RATE_LIMIT_EXCEEDED", "{limited}");
    todo.client.cancel().await.expect("close");

    let text = std::fs::read_to_string(&path).expect("the audit log exists");
    let events: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|event| event["event"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "allowed",
            "confirmation_issued",
            "token_rejected",
            "token_accepted",
            "denied",
            "allowed",
            "allowed",
            "rate_limited"
        ]
    );
    let issued = &events[1];
    assert_eq!(issued["operation"], "delete_todo");
    assert_eq!(issued["danger_level"], "destructive");
    assert_eq!(issued["danger_rank"], 2);
    assert_eq!(issued["trust_level"], "validated");
    assert_eq!(issued["adapter"], "todo");
    assert!(
        issued["session_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("sess_"))
    );
    let token_id = issued["token_id"].as_str().expect("token id");
    assert!(token_id.starts_with("tok_"));
    assert_eq!(
        events[3]["token_id"], token_id,
        "accepted names the same token"
    );
    assert_eq!(events[2]["code"], "TOKEN_INVALID");
    assert_eq!(events[4]["code"], "PERMISSION_DANGER_LEVEL_DENIED");
    assert_eq!(events[7]["code"], "RATE_LIMIT_EXCEEDED");
    for secret in tokens.iter().map(String::as_str).chain([KEY, "conf_wrong"]) {
        assert!(!text.contains(secret), "the audit log holds '{secret}'");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn confirmation_tokens_gate_destructive_operations() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &[], &[]).await;
    let peer = client.peer();
    let delete = |id: &str, token: Option<&str>| {
        let mut params = json!({"id": id});
        if let Some(token) = token {
            params["confirmation_token"] = json!(token);
        }
        json!({"operation": "delete_item", "params": params})
    };
    let (required, is_error) = call(peer, "mcp_aql_delete", delete("1", None)).await;
    assert_result(&required);
    assert!(!is_error);
    assert_eq!(required["error"]["code"], "CONFIRMATION_REQUIRED");
    let token = required["error"]["details"]["confirmation_token"]
        .as_str()
        .expect("token")
        .to_owned();
    assert!(token.starts_with("conf_"));
    assert_eq!(required["confirmation"]["token"], json!(token));

    let (scope, _) = call(peer, "mcp_aql_delete", delete("2", Some(&token))).await;
    assert_result(&scope);
    assert_eq!(scope["error"]["code"], "TOKEN_SCOPE_MISMATCH");
    let (done, is_error) = call(peer, "mcp_aql_delete", delete("1", Some(&token))).await;
    assert_result(&done);
    assert!(!is_error);
    assert_eq!(done, json!({"success": true, "data": {"deleted": "1"}}));
    let (reused, is_error) = call(peer, "mcp_aql_delete", delete("1", Some(&token))).await;
    assert_eq!(reused["error"]["code"], "TOKEN_ALREADY_USED");
    assert!(is_error);
    let (invalid, _) = call(peer, "mcp_aql_delete", delete("1", Some("conf_forged"))).await;
    assert_eq!(invalid["error"]["code"], "TOKEN_INVALID");
    client.cancel().await.expect("close");

    // Tokens belong to the session that asked for them.
    let other = stdio_client(&upstream, &[], &[]).await;
    let (_, _) = call(other.peer(), "mcp_aql_delete", delete("1", None)).await;
    let (foreign, _) = call(other.peer(), "mcp_aql_delete", delete("1", Some(&token))).await;
    assert_eq!(foreign["error"]["code"], "TOKEN_INVALID");
    other.cancel().await.expect("close");
}
