//! The credential never reaches the logs, at any level: the github adapter runs at
//! `RUST_LOG=trace` (where rmcp logs whole messages) against an upstream that echoes the
//! bearer token back as sent, upper-cased and base64-encoded.

mod support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

const GITHUB_BIN: &str = env!("CARGO_BIN_EXE_github-adapter-server");
const TOKEN: &str = "ghp_traceLeakCheck_9Qz4";

async fn echo_upstream() -> String {
    async fn echo(headers: HeaderMap) -> Json<Value> {
        let sent = headers
            .get("authorization")
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .trim_start_matches("Bearer ")
            .to_owned();
        Json(json!({
            "name": "hello-world",
            "as_sent": sent,
            "upper": sent.to_ascii_uppercase(),
            "base64": STANDARD.encode(&sent),
        }))
    }
    let router = axum::Router::new().fallback(echo);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{address}")
}

#[tokio::test]
async fn trace_logs_hold_no_spelling_of_the_token() {
    let upstream = echo_upstream().await;
    let command = support::command_for(
        GITHUB_BIN,
        &[],
        &[
            ("GITHUB_BASE_URL", upstream.as_str()),
            ("GITHUB_TOKEN", TOKEN),
            ("RUST_LOG", "trace"),
        ],
    );
    let (transport, stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the github adapter");
    let logs = Arc::new(Mutex::new(Vec::new()));
    let mut stderr = stderr.expect("piped stderr");
    let sink = logs.clone();
    let reader = tokio::spawn(async move {
        let mut buffer = [0u8; 8192];
        while let Ok(read) = stderr.read(&mut buffer).await {
            if read == 0 {
                break;
            }
            sink.lock()
                .expect("logs")
                .extend_from_slice(&buffer[..read]);
        }
    });
    let client = ().serve(transport).await.expect("initialize");
    let (answer, is_error) = support::call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world"}}),
    )
    .await;
    assert!(!is_error, "{answer}");
    // The upstream really echoed it: the client sees the upstream's data as it is.
    assert_eq!(answer["data"]["as_sent"], TOKEN);
    client.cancel().await.expect("close");
    reader.await.expect("stderr reader");

    let logs = String::from_utf8_lossy(&logs.lock().expect("logs")).into_owned();
    assert!(logs.contains("TRACE"), "trace logging was on");
    assert!(logs.contains("[REDACTED]"), "the echo was logged, redacted");
    for spelling in [
        TOKEN.to_owned(),
        TOKEN.to_ascii_uppercase(),
        TOKEN.to_ascii_lowercase(),
        STANDARD.encode(TOKEN),
    ] {
        assert!(
            !logs.contains(&spelling),
            "the logs hold the token as '{spelling}'"
        );
    }
}
