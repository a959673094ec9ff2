//! OpenTelemetry traces, end to end: the to-do adapter over stateless streamable HTTP with
//! `--otlp-endpoint` pointing at an OTLP/HTTP receiver on 127.0.0.1. A call that brings a
//! `traceparent` in its `_meta` produces a call span in the caller's trace and a child span
//! of the upstream request, and the upstream request carries a `traceparent` naming that
//! child; no param value or credential is in any span.

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use serde_json::{Value, json};
use support::{TODO_BIN, http_server_for};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";
const KEY: &str = "server-secret-key";
const TITLE: &str = "private-title-text";

/// The receiver: every span of every export, flattened.
async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let spans: Arc<Mutex<Vec<Value>>> = Arc::default();
    async fn export(State(spans): State<Arc<Mutex<Vec<Value>>>>, body: String) -> &'static str {
        let export: Value = serde_json::from_str(&body).expect("OTLP JSON");
        let mut kept = spans.lock().expect("spans");
        for resource in export["resourceSpans"].as_array().expect("resourceSpans") {
            for scope in resource["scopeSpans"].as_array().expect("scopeSpans") {
                for span in scope["spans"].as_array().expect("spans") {
                    let mut span = span.clone();
                    span["resource"] = resource["resource"].clone();
                    kept.push(span);
                }
            }
        }
        "{}"
    }
    let router = axum::Router::new()
        .route("/v1/traces", post(export))
        .with_state(spans.clone());
    (support::serve(router).await, spans)
}

/// A to-do API that records the `traceparent` of each request.
async fn upstream() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    async fn todo(
        State(seen): State<Arc<Mutex<Vec<String>>>>,
        Path(id): Path<u64>,
        headers: HeaderMap,
    ) -> axum::Json<Value> {
        let traceparent = headers
            .get("traceparent")
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default();
        seen.lock().expect("seen").push(traceparent.to_owned());
        axum::Json(json!({"id": id, "title": TITLE, "completed": false}))
    }
    let router = axum::Router::new()
        .route("/todos/{id}", get(todo))
        .with_state(seen.clone());
    (support::serve(router).await, seen)
}

/// One stateless `get_todo` call whose request `_meta` carries the caller's trace context.
async fn traced_call(url: &str) -> Value {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "mcp_aql_read",
            "arguments": {"operation": "get_todo", "params": {"id": 4242}},
            "_meta": {
                "traceparent": format!("00-{TRACE_ID}-{CALLER_SPAN}-01"),
                "tracestate": "vendor=opaque",
            },
        },
    });
    let text = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .expect("an answer")
        .text()
        .await
        .expect("a body");
    support::rpc_message(&text)
}

fn attribute<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    span["attributes"]
        .as_array()?
        .iter()
        .find(|attribute| attribute["key"] == key)
        .map(|attribute| &attribute["value"])
}

#[tokio::test]
async fn a_call_continues_the_callers_trace_to_the_upstream() {
    let (otlp, spans) = receiver().await;
    let (api, seen) = upstream().await;
    let (_server, url) = http_server_for(
        TODO_BIN,
        &["--stateless", "--otlp-endpoint", &otlp],
        &[("TODO_BASE_URL", api.as_str()), ("TODO_API_KEY", KEY)],
    )
    .await;

    let answer = traced_call(&url).await;
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("\"success\":true")),
        "{answer}"
    );
    let exported = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if spans.lock().expect("spans").len() >= 2 {
                return spans.lock().expect("spans").clone();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("spans within 10 s");

    let call = exported
        .iter()
        .find(|span| span["name"] == "tools/call get_todo")
        .unwrap_or_else(|| panic!("a call span: {exported:#?}"));
    assert_eq!(call["traceId"], TRACE_ID);
    assert_eq!(call["parentSpanId"], CALLER_SPAN);
    assert_eq!(call["traceState"], "vendor=opaque");
    assert_eq!(call["kind"], 2);
    assert_eq!(call["status"]["code"], 1);
    for (key, value) in [
        ("mcp_aql.operation", "get_todo"),
        ("mcp_aql.category", "read"),
        ("mcp_aql.danger_level", "safe"),
        ("mcp_aql.gate.decision", "allowed"),
        ("mcp_aql.outcome", "success"),
    ] {
        assert_eq!(
            attribute(call, key),
            Some(&json!({"stringValue": value})),
            "{key}"
        );
    }
    assert_eq!(
        call["resource"]["attributes"][0]["value"]["stringValue"],
        "todo"
    );

    let request = exported
        .iter()
        .find(|span| span["name"] == "GET")
        .unwrap_or_else(|| panic!("an upstream span: {exported:#?}"));
    assert_eq!(request["traceId"], TRACE_ID);
    assert_eq!(request["parentSpanId"], call["spanId"]);
    assert_eq!(request["kind"], 3);
    assert_eq!(
        attribute(request, "http.response.status_code"),
        Some(&json!({"intValue": "200"}))
    );
    let span_id = request["spanId"].as_str().expect("a span id");
    assert_eq!(
        *seen.lock().expect("seen"),
        [format!("00-{TRACE_ID}-{span_id}-01")],
        "the upstream request names its span"
    );

    let text = serde_json::to_string(&exported).expect("JSON");
    for secret in [KEY, "4242", TITLE] {
        assert!(!text.contains(secret), "{secret} in spans: {text}");
    }
}
