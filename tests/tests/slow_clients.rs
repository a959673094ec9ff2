//! Slow and idle clients against the real binary over HTTP: a client that trickles its
//! headers or its body is cut off at the timeout, connections over the cap are answered 503,
//! an idle connection is closed, and a well-behaved client is served throughout.

mod support;

use std::time::Duration;

use support::{INITIALIZE, http_server, post_initialize, start_upstream};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const FLAGS: [&str; 8] = [
    "--header-timeout",
    "1",
    "--body-timeout",
    "1",
    "--idle-timeout",
    "2",
    "--max-connections",
    "8",
];

/// The `host:port` of a `http://host:port/mcp` URL.
fn address(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// Reads until the server closes the connection (or 10 s pass) and returns what it sent.
async fn read_to_close(stream: &mut TcpStream) -> Option<String> {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 1024];
    let read = async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buffer[..n]),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .ok()?;
    Some(String::from_utf8_lossy(&seen).into_owned())
}

/// Sends `bytes` one at a time, 200 ms apart, until the server hangs up; returns whether it
/// did within `limit` bytes.
async fn trickle(stream: &mut TcpStream, bytes: &[u8]) -> bool {
    for byte in bytes {
        if stream.write_all(&[*byte]).await.is_err() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    false
}

async fn initialize(url: &str) -> u16 {
    post_initialize(&reqwest::Client::new(), url)
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn slow_clients_are_cut_off_and_others_are_served() {
    let upstream = start_upstream().await;
    let (_child, url) = http_server(&upstream, &FLAGS).await;
    let address = address(&url);

    // Five clients trickle a request head a byte at a time: each is cut off by the header
    // timeout long before its 60 bytes are out.
    let head =
        format!("POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n");
    let mut trickling = Vec::new();
    for _ in 0..5 {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        let head = head.clone();
        trickling.push(tokio::spawn(async move {
            let cut = trickle(&mut stream, head.as_bytes()).await
                || read_to_close(&mut stream).await.is_some();
            assert!(cut, "the server hung up on a client trickling its headers");
        }));
    }
    // Meanwhile a normal client is served.
    assert_eq!(initialize(&url).await, 200);
    for task in trickling {
        task.await.expect("trickling client");
    }

    // A client that sends its head and then trickles the body gets 408.
    let mut stream = TcpStream::connect(&address).await.expect("connect");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n",
        INITIALIZE.len()
    );
    stream.write_all(request.as_bytes()).await.expect("head");
    let _ = trickle(&mut stream, &INITIALIZE.as_bytes()[..15]).await;
    let answer = read_to_close(&mut stream)
        .await
        .expect("the server answers and hangs up");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("\"id\":null") && answer.contains("Request timeout"),
        "{answer}"
    );

    // An idle keep-alive connection is closed.
    let mut stream = TcpStream::connect(&address).await.expect("connect");
    stream
        .write_all(format!("GET /mcp HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes())
        .await
        .expect("request");
    let answer = read_to_close(&mut stream).await.expect("closed while idle");
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");

    // Connections over the cap are answered 503 with Retry-After, and the server recovers.
    let mut held = Vec::new();
    for _ in 0..8 {
        held.push(TcpStream::connect(&address).await.expect("connect"));
    }
    let mut over = TcpStream::connect(&address).await.expect("connect");
    let answer = read_to_close(&mut over).await.expect("refused at once");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: 5"),
        "{answer}"
    );
    drop(held);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(initialize(&url).await, 200);
}

#[tokio::test]
async fn sessions_over_the_cap_are_refused_by_id() {
    let upstream = start_upstream().await;
    let (_child, url) = http_server(&upstream, &["--max-sessions", "2"]).await;
    assert_eq!(initialize(&url).await, 200);
    assert_eq!(initialize(&url).await, 200);
    let response = post_initialize(&reqwest::Client::new(), &url).await;
    assert_eq!(response.status().as_u16(), 503);
    assert_eq!(
        response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("5")
    );
    let answer: serde_json::Value = response.json().await.expect("a JSON-RPC error");
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32000);
}

/// A session is idle only with nothing in flight: a call that waits on the upstream longer
/// than `--session-idle-timeout` is answered, while a session that sent nothing is ended.
#[tokio::test]
async fn a_call_in_flight_keeps_its_session() {
    let slow = support::serve(axum::Router::new().route(
        "/items/{id}",
        axum::routing::get(|| async {
            tokio::time::sleep(Duration::from_secs(12)).await;
            axum::Json(serde_json::json!({"id": "slow", "title": "late", "status": "open"}))
        }),
    ))
    .await;
    let (mut server, url) = http_server(
        &slow,
        &[
            "--session-idle-timeout",
            "10",
            "--upstream-read-timeout",
            "30",
        ],
    )
    .await;
    let client = reqwest::Client::new();
    let open = || async {
        let opened = post_initialize(&client, &url).await;
        let id = opened
            .headers()
            .get("mcp-session-id")
            .and_then(|id| id.to_str().ok())
            .expect("a session")
            .to_owned();
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &id)
            .header("mcp-protocol-version", "2025-06-18")
            .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .send()
            .await
            .expect("an answer");
        id
    };
    let busy = open().await;
    let quiet = open().await;
    let call = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &busy)
        .header("mcp-protocol-version", "2025-06-18")
        .body(
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp_aql_read","arguments":{"operation":"get_item","params":{"id":"slow"}}}}"#,
        )
        .send()
        .await
        .expect("an answer")
        .text()
        .await
        .expect("the whole answer");
    assert!(call.contains("late"), "the slow call was answered: {call}");
    // Sessions are ended within a second of their timeout.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let delete = |id: String| {
        client
            .delete(&url)
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
    };
    assert_eq!(
        delete(quiet).await.expect("an answer").status().as_u16(),
        404,
        "the quiet session was ended"
    );
    assert_eq!(
        delete(busy).await.expect("an answer").status().as_u16(),
        200,
        "the busy one lives"
    );
    server.kill().await.expect("server stops");
}
