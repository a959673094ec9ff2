//! Credentials never reach the logs, at any level, nor an answer: the github adapter runs at
//! `RUST_LOG=trace` (where rmcp logs whole messages) against an upstream that echoes the
//! bearer token back as sent, upper-cased and base64-encoded; JSON log lines keep it out too;
//! and a caller's own credential (`--credential-header`) is scrubbed like the server's.

mod support;

use axum::Json;
use axum::http::HeaderMap;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

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
    support::serve(axum::Router::new().fallback(echo)).await
}

#[tokio::test]
async fn trace_logs_hold_no_spelling_of_the_token() {
    let upstream = echo_upstream().await;
    let (client, stderr) = support::stdio_client_with_stderr(
        GITHUB_BIN,
        &[],
        &[
            ("GITHUB_BASE_URL", upstream.as_str()),
            ("GITHUB_TOKEN", TOKEN),
            ("RUST_LOG", "trace"),
        ],
    )
    .await;
    let (answer, is_error) = support::call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world"}}),
    )
    .await;
    assert!(!is_error, "{answer}");
    // The upstream really echoed it, and the model is not shown it.
    assert_eq!(answer["data"]["name"], "hello-world");
    for member in ["as_sent", "upper", "base64"] {
        assert_eq!(answer["data"][member], "[REDACTED]", "{answer}");
    }
    client.cancel().await.expect("close");
    let logs = stderr.text().await;
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

/// `--log-format json`: every line on stderr is one JSON object with a level and a message,
/// and the token stays out of those too.
#[tokio::test]
async fn json_log_lines_are_objects() {
    let upstream = echo_upstream().await;
    let output = support::command_for(
        GITHUB_BIN,
        &["--log-format", "json"],
        &[
            ("GITHUB_BASE_URL", upstream.as_str()),
            ("GITHUB_TOKEN", TOKEN),
            ("RUST_LOG", "debug"),
        ],
    )
    .stdin(std::process::Stdio::null())
    .output()
    .await
    .expect("the adapter runs and stops at the end of its input");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8 logs");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.len() >= 2, "{stderr}");
    for line in lines {
        let event: Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}"));
        assert!(
            event["level"].is_string() && event["message"].is_string(),
            "{line}"
        );
        assert!(!line.contains(TOKEN), "{line}");
    }
    assert!(
        stderr.contains("\"message\":\"starting MCP-AQL server\""),
        "{stderr}"
    );
}

/// A caller's own credential (`--credential-header`) is kept out of the answer and out of
/// the logs at `debug`, like the server's, when the upstream echoes it in a 200 answer.
#[tokio::test]
async fn a_callers_credential_is_scrubbed_like_the_servers() {
    use tokio::io::{AsyncBufReadExt, BufReader};

    const CALLER: &str = "caller_SecretKey_77aa";
    let upstream = echo_upstream().await;
    let mut server = support::command_for(
        GITHUB_BIN,
        &[
            "--transport",
            "http",
            "--port",
            "0",
            "--stateless",
            "--credential-header",
            "authorization",
        ],
        &[
            ("GITHUB_BASE_URL", upstream.as_str()),
            ("RUST_LOG", "debug"),
        ],
    )
    .stdin(std::process::Stdio::null())
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .expect("the adapter starts");
    let mut lines = BufReader::new(server.stderr.take().expect("piped")).lines();
    let mut logs = String::new();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .expect("stderr")
            .expect("the server prints its URL");
        logs.push_str(&line);
        if line.contains("endpoint listening")
            && let Some(start) = line.find("http://")
        {
            break line[start..]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .trim_matches('"')
                .to_owned();
        }
    };
    let collected = tokio::spawn(async move {
        let mut rest = String::new();
        while let Ok(Some(line)) = lines.next_line().await {
            rest.push_str(&line);
            rest.push('\n');
        }
        rest
    });
    let body = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {CALLER}"))
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "mcp_aql_read",
                "arguments": {"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world"}}
            }})
            .to_string(),
        )
        .send()
        .await
        .expect("an answer")
        .text()
        .await
        .expect("a body");
    assert!(body.contains("hello-world"), "{body}");
    assert!(body.contains("[REDACTED]"), "{body}");
    server.kill().await.expect("the server stops");
    logs.push_str(&collected.await.expect("logs"));
    for spelling in [
        CALLER.to_owned(),
        CALLER.to_ascii_uppercase(),
        STANDARD.encode(CALLER),
    ] {
        assert!(
            !body.contains(&spelling),
            "the answer holds '{spelling}': {body}"
        );
        assert!(!logs.contains(&spelling), "the logs hold '{spelling}'");
    }
}
