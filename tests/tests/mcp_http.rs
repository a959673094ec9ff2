//! rmcp's client over streamable HTTP on 127.0.0.1 to the fixture adapter binary.

mod support;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use support::{assert_introspection, assert_result, call, http_server, start_upstream};

#[tokio::test]
async fn streamable_http_serves_sessions_and_concurrent_calls() {
    let upstream = start_upstream().await;
    let (mut server, url) =
        http_server(&upstream, &["--mode", "all", "--tool-prefix", "fx_"]).await;
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let first =
        ().serve(StreamableHttpClientTransport::from_uri(url.clone()))
            .await
            .expect("initialize over HTTP");
    let second =
        ().serve(StreamableHttpClientTransport::from_uri(url.clone()))
            .await
            .expect("second session");
    let tools = first.list_all_tools().await.expect("tools/list");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(
        names,
        [
            "fx_mcp_aql_create",
            "fx_mcp_aql_read",
            "fx_mcp_aql_update",
            "fx_mcp_aql_delete",
            "fx_mcp_aql_execute",
            "fx_mcp_aql"
        ]
    );

    let (a, _) = call(
        first.peer(),
        "fx_mcp_aql",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    let (b, _) = call(
        second.peer(),
        "fx_mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_introspection(&a);
    assert_introspection(&b);
    assert_eq!(a["data"]["_protocol"]["mode"], "all");
    assert_ne!(
        a["data"]["_protocol"]["session_id"],
        b["data"]["_protocol"]["session_id"]
    );

    let mut calls = tokio::task::JoinSet::new();
    for index in 0..32 {
        let peer = first.peer().clone();
        calls.spawn(async move {
            let id = format!("h{index}");
            let (answer, is_error) = call(
                &peer,
                "fx_mcp_aql_read",
                json!({"operation": "get_item", "id": id}),
            )
            .await;
            assert_result(&answer);
            assert!(!is_error);
            assert_eq!(answer["data"]["id"], json!(id));
        });
    }
    while let Some(outcome) = calls.join_next().await {
        outcome.expect("call task");
    }

    let (mismatch, _) = call(
        first.peer(),
        "fx_mcp_aql_create",
        json!({"operation": "get_item", "id": "1"}),
    )
    .await;
    assert_result(&mismatch);
    assert_eq!(
        mismatch["error"]["details"]["expected_tool"],
        "fx_mcp_aql_read"
    );

    // A batch travels the HTTP intake like any call, top-level params and all.
    let (batch, _) = call(
        first.peer(),
        "fx_mcp_aql_read",
        json!({"operations": [
            {"operation": "get_item", "id": "b1"},
            {"operation": "list_items", "params": {"status": "open"}},
        ]}),
    )
    .await;
    assert_result(&batch);
    assert_eq!(
        batch["summary"],
        json!({"total": 2, "succeeded": 2, "failed": 0})
    );
    assert_eq!(batch["results"][0]["result"]["data"]["id"], "b1");

    first.cancel().await.expect("close first");
    second.cancel().await.expect("close second");
    server.kill().await.expect("stop the server");
}

/// A browser page from another site cannot drive the server (DNS rebinding): requests with a
/// foreign `Origin` get 403 unless the operator listed it; loopback pages and clients that
/// send no `Origin` are served.
#[tokio::test]
async fn origins_are_checked_and_unknown_sessions_are_not_found() {
    let upstream = start_upstream().await;
    let (mut server, url) = http_server(
        &upstream,
        &["--allowed-origin", "https://console.example.com"],
    )
    .await;
    let client = reqwest::Client::new();
    let initialize = |origin: Option<&'static str>| {
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(support::INITIALIZE);
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    for (origin, status) in [
        (None, 200),
        (Some("http://localhost:5173"), 200),
        (Some("http://127.0.0.1"), 200),
        (Some("https://console.example.com"), 200),
        (Some("https://evil.example.com"), 403),
        (Some("http://console.example.com"), 403),
        (Some("https://console.example.com:8443"), 403),
        (Some("null"), 403),
    ] {
        let response = initialize(origin).await.expect("an answer");
        assert_eq!(response.status().as_u16(), status, "Origin {origin:?}");
    }

    // DELETE ends a session once (200: the Python SDK takes anything else for a failure);
    // after that, and for an id never issued, it is 404.
    let opened = initialize(None).await.expect("an answer");
    let session = opened
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .expect("ASCII")
        .to_owned();
    for (id, status) in [
        (session.as_str(), 200),
        (session.as_str(), 404),
        ("never-issued", 404),
    ] {
        let response = client
            .delete(&url)
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-06-18")
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status().as_u16(), status, "DELETE {id}");
    }
    server.kill().await.expect("server stops");
}

/// 2025-03-26 let clients send JSON-RPC batches, which the server refuses: a client asking for
/// it is offered 2025-11-25, and requests without an `MCP-Protocol-Version` header still work.
#[tokio::test]
async fn revisions_with_batches_are_not_offered() {
    let upstream = start_upstream().await;
    let (mut server, url) = http_server(&upstream, &[]).await;
    let client = reqwest::Client::new();
    let post = |body: String, session: Option<String>| {
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let old = support::INITIALIZE.replace("2025-06-18", "2025-03-26");
    let opened = post(old, None).await.expect("an answer");
    assert_eq!(opened.status().as_u16(), 200);
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    let text = opened.text().await.expect("a body");
    assert!(text.contains(r#""protocolVersion":"2025-11-25""#), "{text}");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    post(initialized.to_owned(), session.clone())
        .await
        .expect("an answer");
    let listed = post(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_owned(),
        session,
    )
    .await
    .expect("an answer");
    assert_eq!(listed.status().as_u16(), 200);
    let text = listed.text().await.expect("a body");
    assert!(text.contains("mcp_aql_read"), "{text}");
    server.kill().await.expect("server stops");
}

/// What is not a request of the revision it claims is refused as that revision says: a
/// `jsonrpc` other than "2.0" is a 400; on 2026-07-28 requests `initialize` and
/// `logging/setLevel`, which that revision dropped, are 404 with -32601; a `tools/list`
/// cursor this server never gave is -32602.
#[tokio::test]
async fn requests_are_held_to_their_revision() {
    let upstream = start_upstream().await;
    let (mut server, url) = http_server(&upstream, &[]).await;
    let client = reqwest::Client::new();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    let post = |method: &'static str, body: String| {
        client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .body(body)
            .send()
    };
    for (method, body, status, code) in [
        (
            "tools/list",
            format!(r#"{{"jsonrpc":"1.0","id":1,"method":"tools/list","params":{{{meta}}}}}"#),
            400,
            -32600,
        ),
        (
            "initialize",
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"initialize","params":{{"protocolVersion":"2026-07-28","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}},{meta}}}}}"#
            ),
            404,
            -32601,
        ),
        (
            "logging/setLevel",
            format!(
                r#"{{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{{"level":"debug",{meta}}}}}"#
            ),
            404,
            -32601,
        ),
        (
            "tools/list",
            format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{"cursor":"bogus",{meta}}}}}"#
            ),
            200,
            -32602,
        ),
    ] {
        let response = post(method, body).await.expect("an answer");
        assert_eq!(response.status().as_u16(), status, "{method}");
        let text = response.text().await.expect("a body");
        let json = text
            .lines()
            .find_map(|line| {
                line.strip_prefix("data: ")
                    .or(Some(line))
                    .filter(|l| l.starts_with('{'))
            })
            .unwrap_or_default();
        let answer: serde_json::Value = serde_json::from_str(json).expect("a JSON-RPC answer");
        assert_eq!(answer["error"]["code"], code, "{method}: {text}");
    }
    server.kill().await.expect("server stops");
}
