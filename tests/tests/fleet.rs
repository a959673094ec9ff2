//! Adapter instances as a fleet keep their promises across instances and restarts: a token
//! is redeemed once, a rate limit or quota continuation is shared, a lost store fails closed
//! and recovers, callers' credentials never cross, SIGTERM drains calls in flight, and
//! `/metrics` counts what happened. Stateless streamable HTTP, state on a real `redis-server`
//! started here on 127.0.0.1 (`scripts/setup` installs it) or in a file, requests sent with
//! reqwest the way a load balancer would spread them.

mod support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::Path;
use serde_json::{Value, json};
use support::{Redis, http_server, start_upstream, stateless_call as call};
use tokio::process::{Child, Command};

/// Two stateless instances of the fixture adapter on `upstream`, sharing `redis`, with
/// `extra` flags: each process (stopped on drop) and its endpoint.
async fn pair(upstream: &str, redis: &Redis, extra: &[&str]) -> [(Child, String); 2] {
    let url = redis.url();
    let mut args = vec!["--stateless", "--state", &url];
    args.extend_from_slice(extra);
    [
        http_server(upstream, &args).await,
        http_server(upstream, &args).await,
    ]
}

async fn delete(url: &str, caller: &str, id: &str, token: Option<&str>) -> Value {
    let mut params = json!({"id": id});
    if let Some(token) = token {
        params["confirmation_token"] = token.into();
    }
    call(
        url,
        caller,
        "mcp_aql_delete",
        json!({"operation": "delete_item", "params": params}),
    )
    .await
}

/// Alice reads item 1.
async fn get_item(url: &str) -> Value {
    call(
        url,
        "alice",
        "mcp_aql_read",
        json!({"operation": "get_item", "params": {"id": "1"}}),
    )
    .await
}

/// The confirmation token a `CONFIRMATION_REQUIRED` answer carries.
fn token_of(asked: &Value) -> String {
    asked["error"]["details"]["confirmation_token"]
        .as_str()
        .unwrap_or_else(|| panic!("a token: {asked}"))
        .to_owned()
}

fn code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("success")
}

async fn ready(url: &str) -> u16 {
    let probe = url.replace("/mcp", "/readyz");
    reqwest::get(&probe)
        .await
        .expect("the probe answers")
        .status()
        .as_u16()
}

/// A token issued by one instance is redeemed on another exactly once, however many
/// redemptions race on both; another caller cannot redeem it at all.
#[tokio::test]
async fn a_token_is_redeemed_once_across_instances() {
    let redis = Redis::start().await;
    let upstream = start_upstream().await;
    let [(_a, a), (_b, b)] = pair(&upstream, &redis, &[]).await;
    assert_eq!((ready(&a).await, ready(&b).await), (200, 200));

    let asked = delete(&a, "alice", "7", None).await;
    assert_eq!(code(&asked), "CONFIRMATION_REQUIRED", "{asked}");
    let token = token_of(&asked);

    let stolen = delete(&b, "mallory", "7", Some(&token)).await;
    assert_eq!(code(&stolen), "TOKEN_INVALID", "{stolen}");

    let mut attempts = tokio::task::JoinSet::new();
    for index in 0..12 {
        let url = if index % 2 == 0 { a.clone() } else { b.clone() };
        let token = token.clone();
        attempts.spawn(async move { delete(&url, "alice", "7", Some(&token)).await });
    }
    let mut codes = Vec::new();
    while let Some(answer) = attempts.join_next().await {
        codes.push(code(&answer.expect("attempt")).to_owned());
    }
    codes.sort();
    let mut expected = vec!["TOKEN_ALREADY_USED".to_owned(); 11];
    expected.push("success".to_owned());
    assert_eq!(codes, expected);
}

/// A rate limit counts the calls of every instance on the store.
#[tokio::test]
async fn a_rate_limit_is_shared() {
    let redis = Redis::start().await;
    let upstream = start_upstream().await;
    let [(_a, a), (_b, b)] = pair(&upstream, &redis, &["--rate-limit", "day=3"]).await;
    for url in [&a, &b, &a] {
        assert_eq!(code(&get_item(url).await), "success");
    }
    for url in [&b, &a] {
        let refused = get_item(url).await;
        assert_eq!(code(&refused), "RATE_LIMIT_EXCEEDED", "{refused}");
        assert_eq!(refused["error"]["details"]["limit"], 3);
    }
}

/// Without its store an instance refuses what needs it (tokens, counted calls) with a
/// retryable error, reports not ready, keeps serving, and recovers when Redis returns.
#[tokio::test]
async fn losing_redis_fails_closed_and_recovers() {
    let redis = Redis::start().await;
    let upstream = start_upstream().await;
    let fleet = [
        "--stateless",
        "--state",
        &redis.url(),
        "--rate-limit",
        "day=100",
    ];
    let (mut server, url) = http_server(&upstream, &fleet).await;
    let asked = delete(&url, "alice", "1", None).await;
    let token = token_of(&asked);

    let port = redis.stop().await;
    assert_eq!(ready(&url).await, 503);
    for answer in [
        delete(&url, "alice", "1", Some(&token)).await,
        delete(&url, "alice", "2", None).await,
        get_item(&url).await,
    ] {
        assert_eq!(code(&answer), "INTERNAL_ERROR", "{answer}");
        assert_eq!(answer["error"]["details"]["reason"], "state_unavailable");
        assert_eq!(answer["error"]["details"]["retryable"], true);
    }
    // Introspection needs no state and still answers.
    let listed = call(
        &url,
        "alice",
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "types"}}),
    )
    .await;
    assert_eq!(code(&listed), "success");

    let _back = Redis::start_on(port).await;
    let mut status = 0;
    for _ in 0..50 {
        status = ready(&url).await;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, 200, "ready again once Redis is back");
    let again = delete(&url, "alice", "3", None).await;
    assert_eq!(code(&again), "CONFIRMATION_REQUIRED", "{again}");
    assert!(
        server.try_wait().expect("status").is_none(),
        "the instance kept running"
    );
}

/// Stateless HTTP on the default in-process store: the token one request is given is
/// redeemed by the next, which lands on a fresh handler.
#[tokio::test]
async fn stateless_requests_confirm_on_the_memory_store() {
    let upstream = start_upstream().await;
    let (_server, url) = http_server(&upstream, &["--stateless"]).await;
    let asked = delete(&url, "alice", "5", None).await;
    let token = token_of(&asked);
    let done = delete(&url, "alice", "5", Some(&token)).await;
    assert_eq!(code(&done), "success", "{done}");
    assert_eq!(done["data"]["deleted"], "5");
    assert_eq!(ready(&url).await, 200);
}

const TODO_BIN: &str = env!("CARGO_BIN_EXE_todo-adapter-server");

/// A to-do API on 127.0.0.1 that records the key each request carried, by item id; ids from
/// 1000 up answer after a second.
async fn recording_upstream() -> (String, Arc<Mutex<Vec<(String, String)>>>) {
    let seen: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let log = seen.clone();
    let router = axum::Router::new().route(
        "/todos/{id}",
        axum::routing::get(
            move |Path(id): Path<u64>, headers: axum::http::HeaderMap| async move {
                let key = headers
                    .get("x-api-key")
                    .and_then(|value| value.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                log.lock().expect("log").push((id.to_string(), key));
                if id >= 1000 {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                axum::Json(json!({"id": id, "title": "t", "completed": false}))
            },
        ),
    );
    (support::serve(router).await, seen)
}

fn get_todo(id: u64) -> Value {
    json!({"operation": "get_todo", "params": {"id": id}})
}

/// With `--credential-header`, each caller's upstream requests carry that caller's own key,
/// never another's and never the server's; a request without one is refused before anything
/// is sent, and no key shows in an answer.
#[tokio::test]
async fn per_request_credentials_never_cross() {
    let (upstream, seen) = recording_upstream().await;
    let env = [
        ("TODO_BASE_URL", upstream.as_str()),
        ("TODO_API_KEY", "server-key"),
    ];
    let args = ["--stateless", "--credential-header", "authorization"];
    let (_server, url) = support::http_server_for(TODO_BIN, &args, &env).await;

    let mut calls = tokio::task::JoinSet::new();
    for index in 0..20u64 {
        let (url, caller) = (
            url.clone(),
            if index % 2 == 0 {
                "alice-key"
            } else {
                "bob-key"
            },
        );
        calls.spawn(async move {
            let answer = call(&url, caller, "mcp_aql_read", get_todo(index + 1)).await;
            assert_eq!(code(&answer), "success", "{answer}");
            assert!(!answer.to_string().contains("-key"), "{answer}");
        });
    }
    while let Some(done) = calls.join_next().await {
        done.expect("call");
    }
    let bare = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "mcp_aql_read", "arguments": get_todo(99)}})
            .to_string(),
        )
        .send()
        .await
        .expect("an answer")
        .text()
        .await
        .expect("a body");
    assert!(bare.contains("CREDENTIAL_REQUIRED"), "{bare}");

    let seen = seen.lock().expect("log").clone();
    assert_eq!(seen.len(), 20, "the call without a key sent nothing");
    for (id, key) in seen {
        let id: u64 = id.parse().expect("an id");
        let expected = if (id - 1).is_multiple_of(2) {
            "alice-key"
        } else {
            "bob-key"
        };
        assert_eq!(key, expected, "item {id}");
    }
}

/// SIGTERM: the instance stops taking connections, answers the call in flight, and exits 0.
#[tokio::test]
async fn sigterm_drains_calls_in_flight() {
    let (upstream, _seen) = recording_upstream().await;
    let env = [("TODO_BASE_URL", upstream.as_str()), ("TODO_API_KEY", "k")];
    let (mut server, url) = support::http_server_for(TODO_BIN, &["--stateless"], &env).await;
    let slow = tokio::spawn({
        let url = url.clone();
        async move { call(&url, "alice", "mcp_aql_read", get_todo(1000)).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = server.id().expect("running").to_string();
    let killed = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .await
        .expect("kill runs");
    assert!(killed.success());

    let answer = slow.await.expect("the call in flight");
    assert_eq!(code(&answer), "success", "{answer}");
    assert_eq!(answer["data"]["id"], 1000);
    let status = tokio::time::timeout(Duration::from_secs(10), server.wait())
        .await
        .expect("exits within the drain bound")
        .expect("exit status");
    assert!(status.success(), "{status}");
    assert!(
        reqwest::get(url.replace("/mcp", "/healthz")).await.is_err(),
        "nothing listens any more"
    );
}

/// `/metrics` counts calls by operation and outcome, upstream answers by status class, gate
/// decisions and tokens; a name the client made up is counted as `(unknown)`, never echoed.
#[tokio::test]
async fn metrics_count_calls_answers_and_tokens() {
    let upstream = start_upstream().await;
    let (_server, url) = http_server(&upstream, &["--stateless"]).await;
    assert_eq!(code(&get_item(&url).await), "success");
    let missing = call(
        &url,
        "alice",
        "mcp_aql_read",
        json!({"operation": "get_item", "params": {"id": "missing"}}),
    )
    .await;
    assert_eq!(code(&missing), "NOT_FOUND_RESOURCE", "{missing}");
    let token = token_of(&delete(&url, "alice", "6", None).await);
    assert_eq!(
        code(&delete(&url, "alice", "6", Some(&token)).await),
        "success"
    );
    let made_up = call(
        &url,
        "alice",
        "mcp_aql_read",
        json!({"operation": "drop_tables_now", "params": {}}),
    )
    .await;
    assert_eq!(code(&made_up), "NOT_FOUND_OPERATION");

    let scraped = reqwest::get(url.replace("/mcp", "/metrics"))
        .await
        .expect("the metrics answer");
    assert_eq!(scraped.status().as_u16(), 200);
    assert!(
        scraped.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("application/openmetrics-text")
    );
    let text = scraped.text().await.expect("a body");
    for line in [
        r#"mcp_aql_calls_total{operation="get_item",outcome="success"} 1"#.to_owned(),
        r#"mcp_aql_calls_total{operation="get_item",outcome="NOT_FOUND_RESOURCE"} 1"#.to_owned(),
        r#"mcp_aql_calls_total{operation="delete_item",outcome="CONFIRMATION_REQUIRED"} 1"#
            .to_owned(),
        r#"mcp_aql_calls_total{operation="delete_item",outcome="success"} 1"#.to_owned(),
        r#"mcp_aql_calls_total{operation="(unknown)",outcome="NOT_FOUND_OPERATION"} 1"#.to_owned(),
        r#"mcp_aql_call_duration_seconds_count{operation="get_item"} 2"#.to_owned(),
        r#"mcp_aql_upstream_responses_total{class="2xx"} 2"#.to_owned(),
        r#"mcp_aql_upstream_responses_total{class="4xx"} 1"#.to_owned(),
        r#"mcp_aql_gate_decisions_total{decision="confirmation_issued"} 1"#.to_owned(),
        r#"mcp_aql_gate_decisions_total{decision="token_accepted"} 1"#.to_owned(),
        r#"mcp_aql_tokens_issued_total{kind="confirmation"} 1"#.to_owned(),
        r#"mcp_aql_tokens_redeemed_total{kind="confirmation"} 1"#.to_owned(),
    ] {
        assert!(text.contains(&line), "{line} missing from:\n{text}");
    }
    assert!(!text.contains("drop_tables_now"), "{text}");
}

/// `--state file:PATH` keeps tokens and counters across a killed process: a redeemed token
/// stays spent, an unredeemed one still works, a rate limit keeps its count, and a second
/// process cannot take the same file.
#[tokio::test]
async fn the_file_store_survives_a_killed_process() {
    let dir = std::env::temp_dir().join(format!("aqlgen-state-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let state = format!("file:{}", dir.join("state.jsonl").display());
    let upstream = start_upstream().await;
    let args = ["--stateless", "--state", &state, "--rate-limit", "day=4"];

    let (mut first, url) = http_server(&upstream, &args).await;
    assert_eq!(code(&get_item(&url).await), "success");
    assert_eq!(code(&get_item(&url).await), "success");
    let kept = token_of(&delete(&url, "alice", "7", None).await);
    let spent = token_of(&delete(&url, "alice", "8", None).await);
    assert_eq!(
        code(&delete(&url, "alice", "8", Some(&spent)).await),
        "success"
    );
    first.kill().await.expect("SIGKILL");

    let (_second, url) = http_server(&upstream, &args).await;
    let again = delete(&url, "alice", "8", Some(&spent)).await;
    assert_eq!(code(&again), "TOKEN_ALREADY_USED", "{again}");
    let redeemed = delete(&url, "alice", "7", Some(&kept)).await;
    assert_eq!(code(&redeemed), "success", "{redeemed}");
    let over = get_item(&url).await;
    assert_eq!(code(&over), "RATE_LIMIT_EXCEEDED", "{over}");

    let mut all = vec!["--transport", "http", "--port", "0"];
    all.extend_from_slice(&args);
    let refused = support::command_for(support::BIN, &all, &[("FIXTURE_BASE_URL", &upstream)])
        .stdin(Stdio::null())
        .output()
        .await
        .expect("the third process runs");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("another process"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A quota continuation is the caller's, on every instance: once Alice continues past the
/// pause on one, her next calls run on either without a token, while Bob is still paused.
#[tokio::test]
async fn a_quota_continuation_holds_across_instances_for_its_caller() {
    let redis = Redis::start().await;
    let upstream = start_upstream().await;
    let quota = ["--quota", "requests_per_day=1/2"];
    let [(_a, a), (_b, b)] = pair(&upstream, &redis, &quota).await;
    let read = |url: String, caller: &'static str, token: Option<String>| async move {
        let mut params = json!({"id": "1"});
        if let Some(token) = token {
            params["_quota_continue"] = token.into();
        }
        call(
            &url,
            caller,
            "mcp_aql_read",
            json!({"operation": "get_item", "params": params}),
        )
        .await
    };
    assert_eq!(code(&read(a.clone(), "alice", None).await), "success");
    assert_eq!(code(&read(b.clone(), "alice", None).await), "success");
    let paused = read(a.clone(), "alice", None).await;
    assert_eq!(code(&paused), "RATE_LIMIT_QUOTA_PAUSE", "{paused}");
    let token = paused["error"]["details"]["confirmation_token"]
        .as_str()
        .expect("a continuation token")
        .to_owned();
    let continued = read(b.clone(), "alice", Some(token)).await;
    assert_eq!(code(&continued), "success", "{continued}");
    for url in [&a, &b] {
        let next = read(url.clone(), "alice", None).await;
        assert_eq!(code(&next), "success", "{next}");
    }
    let bob = read(b.clone(), "bob", None).await;
    assert_eq!(code(&bob), "RATE_LIMIT_QUOTA_PAUSE", "{bob}");
}

/// A session is its opener's: a second caller who holds the session's id (and its first
/// caller's confirmation token) gets the 404 of an unknown session, and the token still works
/// for the first caller.
#[tokio::test]
async fn a_session_id_does_not_carry_another_callers_token() {
    let api = demo_upstream::spawn(demo_upstream::Options::default())
        .await
        .expect("demo-upstream");
    let base_url = api.base_url();
    let (_server, url) = support::http_server_for(
        TODO_BIN,
        &["--credential-header", "authorization"],
        &[("TODO_BASE_URL", base_url.as_str())],
    )
    .await;
    let client = reqwest::Client::new();
    let opened = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", "Bearer alice")
        .body(support::INITIALIZE)
        .send()
        .await
        .expect("an answer");
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|id| id.to_str().ok())
        .expect("a session")
        .to_owned();
    let in_session = |caller: &'static str, token: Option<String>| {
        let mut params = json!({"id": 1});
        if let Some(token) = token {
            params["confirmation_token"] = token.into();
        }
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "mcp_aql_delete",
            "arguments": {"operation": "delete_todo", "params": params}
        }});
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .header("authorization", format!("Bearer {caller}"))
            .body(body.to_string())
            .send()
    };
    let answer = |text: String| -> Value {
        // An event stream: the first event is a priming one without a message.
        let message = support::rpc_message(&text);
        serde_json::from_str(
            message["result"]["content"][0]["text"]
                .as_str()
                .expect("text"),
        )
        .expect("MCP-AQL JSON")
    };
    let read =
        |response: reqwest::Response| async move { answer(response.text().await.expect("a body")) };
    let asked = read(in_session("alice", None).await.expect("an answer")).await;
    assert_eq!(code(&asked), "CONFIRMATION_REQUIRED", "{asked}");
    let token = token_of(&asked);
    let stolen = in_session("mallory", Some(token.clone()))
        .await
        .expect("an answer");
    assert_eq!(stolen.status().as_u16(), 404);
    assert_eq!(
        stolen.text().await.expect("a body"),
        "Not Found: Session not found"
    );
    let confirmed = read(in_session("alice", Some(token)).await.expect("an answer")).await;
    assert_eq!(code(&confirmed), "success", "{confirmed}");
}

/// Bound beyond loopback without per-request credentials, the server would hand its own
/// upstream key to anyone who reaches the port: it refuses to start, says why and how to
/// choose, and never listens.
#[tokio::test]
async fn a_server_credential_is_not_served_beyond_loopback_unasked() {
    let output = support::command_for(
        TODO_BIN,
        &["--transport", "http", "--bind", "0.0.0.0", "--port", "0"],
        &[("TODO_API_KEY", "server-key")],
    )
    .stdin(Stdio::null())
    .output();
    let output = tokio::time::timeout(Duration::from_secs(30), output)
        .await
        .expect("exits at once")
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("refusing to serve on 0.0.0.0")
            && stderr.contains("--credential-header")
            && stderr.contains("--allow-unauthenticated-remote"),
        "{stderr}"
    );
    assert!(!stderr.contains("server-key"), "{stderr}");
}
