//! The MCP side of a generated server, as real clients meet it over a stdio pipe and over
//! streamable HTTP on 127.0.0.1: the handshake and the server's identity; the tools each
//! endpoint mode and tool prefix registers, from flags and from the environment, with their
//! annotations and input schemas (provider-strict ones too); configuration refused at start;
//! many concurrent calls on one connection; HTTP sessions, the `Origin` check and the rules of
//! each protocol revision; and what a session hears besides answers: log messages at the level
//! it chose, and progress around the upstream call. Run against the fixture adapter, and the
//! generated todo adapter for single mode and HTTP.

mod support;

use std::process::Stdio;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::Tool;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use support::{
    INITIALIZE, TODO_BIN, TODO_KEY, assert_introspection, assert_result, call, command, demo_api,
    http_server, start_upstream, stdio_client, todo_client,
};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

#[tokio::test]
async fn initialize_and_crude_tools() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &[], &[]).await;
    let info = client.peer_info().expect("server info after initialize");
    let server = info.server_info.as_ref().expect("server identity");
    assert_eq!(server.name, "fixture");
    assert_eq!(server.version, "0.3.0");
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.expect("tools/list");
    // All five families, execute too though the adapter has no EXECUTE operations.
    assert_eq!(
        names(&tools),
        [
            "mcp_aql_create",
            "mcp_aql_read",
            "mcp_aql_update",
            "mcp_aql_delete",
            "mcp_aql_execute"
        ]
    );
    let expected_hints = [
        (false, false),
        (true, false),
        (false, true),
        (false, true),
        (false, true),
    ];
    for (tool, (read_only, destructive)) in tools.iter().zip(expected_hints) {
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.read_only_hint, Some(read_only), "{}", tool.name);
        assert_eq!(
            annotations.destructive_hint,
            Some(destructive),
            "{}",
            tool.name
        );
        assert!(
            tool.description
                .as_deref()
                .unwrap_or("")
                .contains("introspect")
        );
        let schema = Value::Object((*tool.input_schema).clone());
        assert!(
            schema.get("required").is_none(),
            "a batch has no 'operation'"
        );
        assert_eq!(schema["properties"]["operation"]["type"], "string");
        assert_eq!(schema["properties"]["params"]["type"], "object");
        assert_eq!(schema["properties"]["operations"]["type"], "array");
    }
    client.cancel().await.expect("close");
}

/// Command-line flags, environment variables and the tool names they give.
type ModeCase<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a [&'a str]);

#[tokio::test]
async fn modes_and_prefixes_from_flags_and_environment() {
    let upstream = start_upstream().await;
    let cases: [ModeCase; 5] = [
        (&["--mode", "single"], &[], &["mcp_aql"]),
        (
            &[],
            &[
                ("MCP_AQL_ENDPOINT_MODE", "single"),
                ("MCP_AQL_TOOL_PREFIX", "fx_"),
            ],
            &["fx_mcp_aql"],
        ),
        (
            &["--tool-prefix", "flag_", "--mode", "semantic"],
            &[
                ("MCP_AQL_TOOL_PREFIX", "env_"),
                ("MCP_AQL_ENDPOINT_MODE", "single"),
            ],
            &[
                "flag_mcp_aql_create",
                "flag_mcp_aql_read",
                "flag_mcp_aql_update",
                "flag_mcp_aql_delete",
                "flag_mcp_aql_execute",
            ],
        ),
        (
            &[],
            &[("MCP_AQL_ENDPOINT_MODE", "all")],
            &[
                "mcp_aql_create",
                "mcp_aql_read",
                "mcp_aql_update",
                "mcp_aql_delete",
                "mcp_aql_execute",
                "mcp_aql",
            ],
        ),
        (
            &["--mode", "crude", "--tool-prefix", "gh_"],
            &[],
            &[
                "gh_mcp_aql_create",
                "gh_mcp_aql_read",
                "gh_mcp_aql_update",
                "gh_mcp_aql_delete",
                "gh_mcp_aql_execute",
            ],
        ),
    ];
    for (args, env, expected) in cases {
        let client = stdio_client(&upstream, args, env).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        assert_eq!(names(&tools), expected, "{args:?} {env:?}");
        let single = tools.iter().find(|t| t.name.ends_with("mcp_aql"));
        if let Some(single) = single {
            let annotations = single.annotations.as_ref().expect("annotations");
            assert_eq!(annotations.read_only_hint, Some(false));
            assert_eq!(annotations.destructive_hint, Some(true));
        }
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn bad_configuration_stops_start_up_with_a_clear_message() {
    for (args, env, needle) in [
        (vec![], vec![("MCP_AQL_TOOL_PREFIX", "GitHub")], "lowercase"),
        (
            vec![],
            vec![("MCP_AQL_TOOL_PREFIX", "github")],
            "must end with '_'",
        ),
        (
            vec![],
            vec![("MCP_AQL_ENDPOINT_MODE", "five")],
            "not an endpoint mode",
        ),
        (vec!["--max-nesting-depth", "99"], vec![], "allowed range"),
    ] {
        let output = support::command("http://127.0.0.1:9", &args, &env)
            .output()
            .await
            .expect("run the binary");
        assert!(!output.status.success(), "{args:?} {env:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
    let version = support::command("http://127.0.0.1:9", &["--version"], &[])
        .output()
        .await
        .expect("run the binary");
    assert!(version.status.success());
    assert!(String::from_utf8_lossy(&version.stdout).contains("0.3.0"));
    let help = support::command("http://127.0.0.1:9", &["--help"], &[])
        .output()
        .await
        .expect("run the binary");
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--transport",
        "--port",
        "--bind",
        "--mode",
        "--tool-prefix",
        "MCP_AQL_ENDPOINT_MODE",
        "MCP_AQL_TOOL_PREFIX",
        "--max-request-size",
    ] {
        assert!(help.contains(flag), "{flag} in --help:\n{help}");
    }
}

#[tokio::test]
async fn many_concurrent_calls_on_one_connection() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &[], &[]).await;
    let mut calls = tokio::task::JoinSet::new();
    for index in 0..64 {
        let peer = client.peer().clone();
        calls.spawn(async move {
            let id = format!("item-{index}");
            let (answer, is_error) = call(
                &peer,
                "mcp_aql_read",
                json!({"operation": "get_item", "params": {"id": id}}),
            )
            .await;
            assert!(!is_error);
            assert_eq!(answer["data"]["id"], json!(id));
            let (list, _) = call(
                &peer,
                "mcp_aql_read",
                json!({"operation": "introspect", "params": {"query": "operations"}}),
            )
            .await;
            assert_introspection(&list);
        });
    }
    let mut finished = 0;
    while let Some(outcome) = calls.join_next().await {
        outcome.expect("call task");
        finished += 1;
    }
    assert_eq!(finished, 64);
    client.cancel().await.expect("close");
}

/// `--tool-schema openai-strict`: tools a strict function-calling API accepts as they are,
/// and the calls a model makes through them (params as JSON text, unused members null)
/// answer as their MCP-AQL form does.
#[tokio::test]
async fn provider_tool_schemas_keep_calls_working() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &["--tool-schema", "openai-strict"], &[]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    for tool in &tools {
        let schema = Value::Object((*tool.input_schema).clone());
        assert_eq!(schema["additionalProperties"], false, "{}", tool.name);
        assert_eq!(
            schema["required"],
            json!(["operation", "params", "operations"])
        );
    }
    let peer = client.peer();
    let (one, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "get_item", "params": "{\"id\": \"1\"}", "operations": null}),
    )
    .await;
    let (plain, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "get_item", "params": {"id": "1"}}),
    )
    .await;
    assert_eq!(one, plain);
    let (batch, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": null, "params": null, "operations": [
            {"operation": "get_item", "params": "{\"id\": \"1\"}"},
            {"operation": "list_items", "params": null}
        ]}),
    )
    .await;
    assert_eq!(batch["summary"]["total"], 2, "{batch}");
    let (bad, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "get_item", "params": "id=1", "operations": null}),
    )
    .await;
    assert_eq!(bad["error"]["code"], "VALIDATION_INVALID_TYPE", "{bad}");
    client.cancel().await.expect("close");
}

// Streamable HTTP: sessions, origins, protocol revisions.

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

/// The transport's rules at the door, before any session or call is looked at: two `Host` or
/// two `Origin` headers are a 400 (RFC 9112), a foreign `Origin` or `Host` a 403 even for a
/// DELETE of an unknown session, an `MCP-Protocol-Version` the server does not speak a 400 on
/// a session; a page on a listed origin gets CORS (its preflight answered, the session id
/// exposed) and a loopback page none; a 2025-06-18 session's event streams open without the
/// priming event that revision does not know, a 2025-11-25 one's with it.
#[tokio::test]
async fn the_door_holds_to_the_transport_rules() {
    let upstream = start_upstream().await;
    let (mut server, url) = http_server(
        &upstream,
        &["--allowed-origin", "https://console.example.com"],
    )
    .await;
    let address = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("host:port")
        .to_owned();
    // Raw requests: an HTTP client would not send a header twice.
    let raw = |head: String| {
        let address = address.clone();
        async move {
            let mut stream = tokio::net::TcpStream::connect(&address)
                .await
                .expect("connect");
            let request = format!("{head}content-length: 2\r\nconnection: close\r\n\r\n{{}}");
            stream.write_all(request.as_bytes()).await.expect("send");
            let mut answer = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut answer)
                .await
                .expect("read");
            answer.lines().next().unwrap_or_default().to_owned()
        }
    };
    for (twice, label) in [
        (
            "host: 127.0.0.1\r\nhost: evil.example.com\r\n",
            "two Host headers",
        ),
        (
            "host: 127.0.0.1\r\norigin: http://localhost:3000\r\norigin: https://evil.example\r\n",
            "two Origin headers",
        ),
    ] {
        let status = raw(format!(
            "POST /mcp HTTP/1.1\r\n{twice}content-type: application/json\r\naccept: application/json, text/event-stream\r\n"
        ))
        .await;
        assert!(status.contains(" 400 "), "{label}: {status}");
    }
    let client = reqwest::Client::new();
    for (header, value) in [
        ("origin", "https://evil.example.com"),
        ("host", "evil.example.com"),
    ] {
        let response = client
            .delete(&url)
            .header("mcp-session-id", "never-issued")
            .header(header, value)
            .send()
            .await
            .expect("an answer");
        assert_eq!(
            response.status().as_u16(),
            403,
            "DELETE with {header} {value}"
        );
    }

    // CORS for the listed origin only.
    let preflight = |origin: &'static str| {
        client
            .request(reqwest::Method::OPTIONS, &url)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type, mcp-session-id",
            )
            .send()
    };
    let allowed = preflight("https://console.example.com")
        .await
        .expect("an answer");
    assert_eq!(allowed.status().as_u16(), 204);
    let header = |response: &reqwest::Response, name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(
        header(&allowed, "access-control-allow-origin"),
        "https://console.example.com"
    );
    assert!(header(&allowed, "access-control-allow-methods").contains("POST"));
    assert!(header(&allowed, "access-control-allow-headers").contains("mcp-session-id"));
    let refused = preflight("https://evil.example.com")
        .await
        .expect("an answer");
    assert_eq!(refused.status().as_u16(), 403);
    assert_eq!(header(&refused, "access-control-allow-origin"), "");
    let open = |origin: Option<&'static str>, version: &'static str| {
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(support::INITIALIZE.replace("2025-06-18", version));
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request.send()
    };
    let listed = open(Some("https://console.example.com"), "2025-06-18")
        .await
        .expect("an answer");
    assert_eq!(
        header(&listed, "access-control-allow-origin"),
        "https://console.example.com"
    );
    assert!(header(&listed, "access-control-expose-headers").contains("mcp-session-id"));
    let local = open(Some("http://localhost:5173"), "2025-06-18")
        .await
        .expect("an answer");
    assert_eq!(local.status().as_u16(), 200);
    assert_eq!(
        header(&local, "access-control-allow-origin"),
        "",
        "no CORS for loopback pages"
    );

    // Priming events by revision, and the revision held on a session.
    for (version, primed) in [("2025-06-18", false), ("2025-11-25", true)] {
        let opened = open(None, version).await.expect("an answer");
        let session = header(&opened, "mcp-session-id");
        let text = opened.text().await.expect("a body");
        assert_eq!(
            text.starts_with("data: \n") || text.contains("\ndata: \n"),
            primed,
            "{version}: {text}"
        );
        for (declared, status) in [("2024-11-05", 400), ("2025-03-26", 400), (version, 200)] {
            let response = client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-session-id", &session)
                .header("mcp-protocol-version", declared)
                .body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
                .send()
                .await
                .expect("an answer");
            assert_eq!(
                response.status().as_u16(),
                status,
                "{version} session, {declared}"
            );
        }
    }
    server.kill().await.expect("server stops");
}

/// A line that is no request and no notification (`{}`) is answered over stdio as JSON-RPC
/// says, with -32600 and `id: null`.
#[tokio::test]
async fn an_object_that_is_no_request_is_answered_with_a_null_id_over_stdio() {
    let upstream = start_upstream().await;
    let mut child = support::command(&upstream, &[], &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the adapter starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    stdin.write_all(b"{}\n").await.expect("write");
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("answered within 10 s")
        .expect("read")
        .expect("a line");
    let answer: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
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
/// `jsonrpc` other than "2.0" is a 400; on 2026-07-28 requests `initialize`, `ping`,
/// `logging/setLevel` and `resources/subscribe` / `unsubscribe`, which that revision dropped,
/// are 404 with -32601, whatever their params; a `tools/list` cursor this server never gave
/// is -32602.
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
        // Removed methods are not found whatever their params hold, as a test suite sends them.
        (
            "initialize",
            format!(r#"{{"jsonrpc":"2.0","id":5,"method":"initialize","params":{{{meta}}}}}"#),
            404,
            -32601,
        ),
        (
            "logging/setLevel",
            format!(
                r#"{{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{{{meta}}}}}"#
            ),
            404,
            -32601,
        ),
        (
            "resources/subscribe",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{{"uri":"x://y",{meta}}}}}"#
            ),
            404,
            -32601,
        ),
        (
            "resources/unsubscribe",
            format!(
                r#"{{"jsonrpc":"2.0","id":8,"method":"resources/unsubscribe","params":{{{meta}}}}}"#
            ),
            404,
            -32601,
        ),
        (
            "ping",
            format!(r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{{meta}}}}}"#),
            404,
            -32601,
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

// The generated todo adapter in single mode with a prefix, and over streamable HTTP.

#[tokio::test]
async fn todo_in_single_mode_with_prefix_and_concurrent_calls() {
    let api = demo_api().await;
    let client = todo_client(&api, &["--mode", "single", "--tool-prefix", "todo_"]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["todo_mcp_aql"]);
    let (details, _) = call(
        client.peer(),
        "todo_mcp_aql",
        json!({"operation": "introspect", "params": {"query": "operations", "name": "complete_todo"}}),
    )
    .await;
    assert_introspection(&details);
    assert_eq!(details["data"]["operation"]["mcpTool"], "todo_mcp_aql");

    let mut calls = tokio::task::JoinSet::new();
    for index in 0..48 {
        let peer = client.peer().clone();
        calls.spawn(async move {
            let id = 1 + index % 3;
            let (answer, is_error) = call(
                &peer,
                "todo_mcp_aql",
                json!({"operation": "get_todo", "params": {"id": id}}),
            )
            .await;
            assert_result(&answer);
            assert!(!is_error, "{answer}");
            assert_eq!(answer["data"]["id"], json!(id));
        });
    }
    while let Some(outcome) = calls.join_next().await {
        outcome.expect("call task");
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn todo_over_streamable_http() {
    let api = demo_api().await;
    let base_url = api.base_url();
    let (mut server, url) = support::http_server_for(
        TODO_BIN,
        &[],
        &[("TODO_BASE_URL", &base_url), ("TODO_API_KEY", TODO_KEY)],
    )
    .await;
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("initialize over HTTP");
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 5);
    let (list, _) = call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_introspection(&list);
    let (got, is_error) = call(
        client.peer(),
        "mcp_aql_read",
        json!({"operation": "get_todo", "params": {"id": 1}}),
    )
    .await;
    assert_result(&got);
    assert!(!is_error);
    assert_eq!(got["data"]["title"], "Buy milk");
    client.cancel().await.expect("close");
    server.kill().await.expect("stop the server");
}

// What a session hears besides answers, on the wire of a real stdio pipe.

/// The server's stdin and stdout, spoken as raw JSON-RPC lines.
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

/// `logging/setLevel` and the `notifications/message` that mirror the server's log events,
/// and `notifications/progress` around the upstream call of a call that carries a progress
/// token.
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
