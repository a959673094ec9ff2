//! What a session hears besides answers, on the wire of a real stdio pipe: `logging/setLevel`
//! and the `notifications/message` that mirror the server's log events, and
//! `notifications/progress` around the upstream call of a call that carries a progress token.

mod support;

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::{INITIALIZE, command, start_upstream};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

struct Wire {
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Wire {
    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("write");
    }

    /// The notifications sent before the answer to `id`, and the answer.
    async fn until_answer(&mut self, id: u64) -> (Vec<Value>, Value) {
        let mut notifications = Vec::new();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .expect("an answer in time")
                .expect("read")
                .expect("the server is still there");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["id"] == json!(id) {
                return (notifications, message);
            }
            notifications.push(message);
        }
    }
}

/// The MCP-AQL answer a `tools/call` response's text content holds.
fn answer_of(response: &Value) -> Value {
    let text = response["result"]["content"][0]["text"]
        .as_str()
        .expect("text content");
    serde_json::from_str(text).expect("JSON text")
}

#[tokio::test]
async fn log_messages_follow_the_level_and_progress_brackets_the_upstream_call() {
    let upstream = start_upstream().await;
    let mut child = command(&upstream, &["--trust-level", "validated"], &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the adapter");
    let mut wire = Wire {
        stdin: child.stdin.take().expect("stdin"),
        lines: BufReader::new(child.stdout.take().expect("stdout")).lines(),
    };
    wire.send(&serde_json::from_str(INITIALIZE).expect("JSON"))
        .await;
    let (_, initialized) = wire.until_answer(1).await;
    assert_eq!(
        initialized["result"]["capabilities"]["logging"],
        json!({}),
        "{initialized}"
    );
    wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;

    let get = |id: u64, meta: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "mcp_aql_read", "_meta": meta,
            "arguments": {"operation": "get_item", "params": {"id": "1"}},
        }})
    };
    // No level chosen yet: no log messages.
    wire.send(&get(2, json!({}))).await;
    let (heard, answer) = wire.until_answer(2).await;
    assert!(heard.is_empty(), "{heard:?}");
    assert_eq!(answer_of(&answer)["success"], true);

    wire.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "debug"}}))
        .await;
    let (_, set) = wire.until_answer(3).await;
    assert_eq!(set["result"], json!({}), "{set}");

    wire.send(&get(4, json!({"progressToken": "p-4"}))).await;
    let (heard, answer) = wire.until_answer(4).await;
    assert_eq!(answer_of(&answer)["success"], true);
    let progress: Vec<&Value> = heard
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| &m["params"])
        .collect();
    assert_eq!(progress.len(), 2, "{heard:?}");
    assert!(progress.iter().all(|p| p["progressToken"] == "p-4"));
    assert_eq!(
        (&progress[0]["progress"], &progress[1]["progress"]),
        (&json!(0.0), &json!(1.0))
    );
    let events: Vec<&Value> = heard
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| &m["params"]["data"]["event"])
        .collect();
    assert_eq!(events, [&json!("allowed"), &json!("upstream_call")]);

    // At `warning`, routine events stay quiet; a failure is only debug.
    wire.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "logging/setLevel", "params": {"level": "warning"}}))
        .await;
    wire.until_answer(5).await;
    wire.send(&get(6, json!({}))).await;
    let (heard, _) = wire.until_answer(6).await;
    assert!(heard.is_empty(), "{heard:?}");
    child.kill().await.expect("stops");
}
