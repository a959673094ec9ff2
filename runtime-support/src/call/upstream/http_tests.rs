//! `Upstream` against a real HTTP server on 127.0.0.1 that records what it receives.
//!
//! The server is a few dozen lines over `tokio::net::TcpListener` so each test controls the
//! bytes on the wire (chunked endless bodies, non-HTTP replies to a TLS handshake). It runs on
//! the test's runtime and stops when the test returns.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, SystemTime};

use crate::adapter::{AdapterInfo, ApiKeyLocation, Auth, Body, Method, Part, UpstreamRequest};
use crate::call::upstream::{Credential, Preconditions, Upstream, UpstreamConfig};
use crate::error::{AqlError, ErrorCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const TOKEN: &str = "tok-SECRET-7f3a9c2e";
const API_KEY: &str = "key-SECRET-b81e4d";
const USER: &str = "alice";
const PASSWORD: &str = "pw-SECRET-55d1";

impl Upstream {
    /// `send` with no precondition, for the answer's body.
    async fn send_plain(&self, request: UpstreamRequest) -> Result<String, AqlError> {
        self.send(request, Preconditions::default(), &Credential::Environment)
            .await
            .answer
            .map(|answer| answer.body)
    }
}

/// Parses an answer's `data` text.
fn json(text: String) -> Value {
    serde_json::from_str(&text).expect("data is JSON text")
}

/// Sets every variable the tests read, once, before any test reads the environment.
fn init_env() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let vars = [
            ("UPSTREAM_TEST_TOKEN", TOKEN),
            ("UPSTREAM_TEST_KEY", API_KEY),
            ("UPSTREAM_TEST_USER", USER),
            ("UPSTREAM_TEST_PASSWORD", PASSWORD),
            ("UPSTREAM_TEST_CRLF", "abc\r\nX-Injected: yes"),
            (
                "UPSTREAM_TEST_OVERRIDE_BASE",
                "http://127.0.0.1:9/override/",
            ),
            ("UPSTREAM_TEST_BAD_BASE", "ftp://files.example/"),
        ];
        for (name, value) in vars {
            // SAFETY: every test calls `init_env` first and `Once` blocks them until this
            // returns, so no other thread reads the environment while it is written.
            unsafe { std::env::set_var(name, value) };
        }
    });
}

fn bearer() -> Auth {
    Auth::Bearer {
        token_env: "UPSTREAM_TEST_TOKEN",
        header: "Authorization",
        prefix: "Bearer ",
    }
}

fn info(base_url: String, auth: Auth) -> &'static AdapterInfo {
    info_with_env(base_url, "UPSTREAM_TEST_NEVER_SET_BASE", auth)
}

fn info_with_env(base_url: String, base_url_env: &'static str, auth: Auth) -> &'static AdapterInfo {
    Box::leak(Box::new(AdapterInfo {
        name: "test",
        version: "1.2.3",
        description: "test adapter",
        base_url: Box::leak(base_url.into_boxed_str()),
        base_url_env,
        auth,
        trust: None,
        rate_limits: &[],
        schema_fingerprint: "sha256:00",
    }))
}

fn client(base_url: String, auth: Auth) -> Upstream {
    init_env();
    Upstream::new(info(base_url, auth), UpstreamConfig::default()).expect("valid config")
}

fn get(path: &str) -> UpstreamRequest {
    UpstreamRequest {
        method: Method::Get,
        path: path.to_owned(),
        query: Vec::new(),
        headers: Vec::new(),
        cookies: Vec::new(),
        body: None,
    }
}

/// What every client-visible error must satisfy: no Rust or library names, no file paths,
/// no local address, and no "at <word>" (the conformance runner reads that as a stack frame).
#[track_caller]
fn assert_client_safe(err: &AqlError) {
    let text = err.to_json().to_string();
    for marker in [
        "::",
        ".rs",
        "serde",
        "panicked",
        "reqwest",
        "hyper",
        "rustls",
        "127.0.0.1",
    ] {
        assert!(!text.contains(marker), "{marker:?} in {text}");
    }
    let lower = err.message.to_ascii_lowercase();
    let at_word = lower
        .match_indices("at")
        .any(|(i, _)| lower[i + 2..].starts_with(char::is_whitespace));
    assert!(!at_word, "runner-unsafe message: {}", err.message);
}

// ---------------------------------------------------------------------------------------
// The recording server.

#[derive(Debug, Clone)]
struct Recorded {
    method: String,
    target: String,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

enum Reply {
    Full {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    },
    /// Waits this long, then answers `200 {}`.
    Slow(Duration),
    /// A chunked 200 body that never ends.
    Endless,
    /// A 200 whose body stops short of its `Content-Length`; the connection is then closed,
    /// or held open with nothing more sent.
    Short { hold: bool },
}

fn reply(status: u16, body: &str) -> Reply {
    Reply::Full {
        status,
        headers: vec![("Content-Type", "application/json".to_owned())],
        body: body.as_bytes().to_vec(),
    }
}

type Handler = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

struct Server {
    base: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    connections: Arc<AtomicUsize>,
}

impl Server {
    async fn start(handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let handler: Handler = Arc::new(handler);
        let (log, count) = (requests.clone(), connections.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve_connection(stream, handler.clone(), log.clone()));
            }
        });
        Server {
            base,
            requests,
            connections,
        }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().expect("lock").clone()
    }

    fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "{requests:?}");
        requests.into_iter().next().expect("one")
    }
}

async fn serve_connection(mut stream: TcpStream, handler: Handler, log: Arc<Mutex<Vec<Recorded>>>) {
    let mut buffer = Vec::new();
    loop {
        let head_end = loop {
            if let Some(end) = find(&buffer, b"\r\n\r\n") {
                break end;
            }
            // Not HTTP (a TLS ClientHello, say): answer like a plain server and hang up.
            if buffer.first().is_some_and(|b| !b.is_ascii_uppercase()) {
                let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n").await;
                return;
            }
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let mut request_line = lines.next().unwrap_or("").split(' ');
        let method = request_line.next().unwrap_or("").to_owned();
        let target = request_line.next().unwrap_or("").to_owned();
        let headers: BTreeMap<String, String> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length: usize = headers
            .get("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        buffer.drain(..head_end + 4);
        while buffer.len() < length {
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        let body: Vec<u8> = buffer.drain(..length).collect();
        let recorded = Recorded {
            method,
            target,
            headers,
            body,
        };
        log.lock().expect("lock").push(recorded.clone());
        let ok = match handler(&recorded) {
            Reply::Full {
                status,
                headers,
                body,
            } => {
                let mut head = format!("HTTP/1.1 {status} Whatever\r\n");
                for (name, value) in headers {
                    head.push_str(&format!("{name}: {value}\r\n"));
                }
                if !head.to_ascii_lowercase().contains("content-length") {
                    head.push_str(&format!("Content-Length: {}\r\n", body.len()));
                }
                head.push_str("\r\n");
                stream.write_all(head.as_bytes()).await.is_ok()
                    && stream.write_all(&body).await.is_ok()
            }
            Reply::Slow(delay) => {
                tokio::time::sleep(delay).await;
                stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                    .await
                    .is_ok()
            }
            Reply::Short { hold } => {
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"a\":")
                    .await;
                if hold {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                }
                return;
            }
            Reply::Endless => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                            Transfer-Encoding: chunked\r\n\r\n";
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, " ".repeat(64 * 1024));
                // Ends when the client hangs up.
                while stream.write_all(chunk.as_bytes()).await.is_ok() {}
                return;
            }
        };
        if !ok {
            return;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

// ---------------------------------------------------------------------------------------
// Requests as sent.

#[tokio::test]
async fn get_sends_path_query_and_bearer_token_to_the_base_url() {
    let server = Server::start(|_| reply(200, r#"{"id":1,"name":"r"}"#)).await;
    let upstream = client(format!("{}/api/v3/", server.base), bearer());
    let data = upstream
        .send_plain(UpstreamRequest {
            query: vec![
                ("per_page".into(), "5".to_owned()),
                ("labels".into(), "bug".to_owned()),
                ("labels".into(), "a&b=c".to_owned()),
            ],
            ..get("/repos/octo%20cat/hello")
        })
        .await
        .expect("ok");
    assert_eq!(
        data, r#"{"id":1,"name":"r"}"#,
        "the upstream's JSON, passed through"
    );
    let seen = server.only_request();
    assert_eq!(seen.method, "GET");
    assert_eq!(
        seen.target,
        "/api/v3/repos/octo%20cat/hello?per_page=5&labels=bug&labels=a%26b%3Dc"
    );
    assert_eq!(seen.headers["authorization"], format!("Bearer {TOKEN}"));
    assert_eq!(seen.headers["accept"], "application/json");
    assert_eq!(seen.headers["user-agent"], "test-adapter/1.2.3 (aqlgen)");
    assert!(seen.body.is_empty());
}

#[tokio::test]
async fn every_method_sends_its_body_as_json() {
    let server = Server::start(|_| reply(200, r#"{"ok":true}"#)).await;
    let upstream = client(server.base.clone(), Auth::None);
    let body = json!({"title": "Hi", "labels": ["x"], "nested": {"n": 1}});
    for method in [Method::Post, Method::Put, Method::Patch, Method::Delete] {
        let with_body = !matches!(method, Method::Delete);
        upstream
            .send_plain(UpstreamRequest {
                method,
                body: with_body.then(|| Body::Json(body.clone())),
                ..get("/items/7")
            })
            .await
            .expect("ok");
    }
    let seen = server.requests();
    let methods: Vec<&str> = seen.iter().map(|r| r.method.as_str()).collect();
    assert_eq!(methods, ["POST", "PUT", "PATCH", "DELETE"]);
    for request in &seen[..3] {
        assert_eq!(request.headers["content-type"], "application/json");
        let sent: Value = serde_json::from_slice(&request.body).expect("json body");
        assert_eq!(sent, body);
        assert!(!request.headers.contains_key("authorization"));
    }
    assert!(seen[3].body.is_empty());
}

#[tokio::test]
async fn header_and_cookie_params_and_form_and_multipart_bodies() {
    let server = Server::start(|_| reply(200, "{}")).await;
    let upstream = client(server.base.clone(), Auth::None);
    let form = Body::Form(vec![
        ("metadata[plan]".into(), "pro & co".to_owned()),
        ("expand[0]".into(), "customer".to_owned()),
    ]);
    let multipart = Body::Multipart(vec![Part::File {
        name: "file",
        bytes: b"hello".to_vec(),
    }]);
    for body in [form, multipart] {
        upstream
            .send_plain(UpstreamRequest {
                method: Method::Post,
                headers: vec![
                    ("X-Request-Id", "r-1".to_owned()),
                    ("Accept", "text/csv".to_owned()),
                ],
                cookies: vec![("session".into(), "a b".to_owned())],
                body: Some(body),
                ..get("/v1/customers")
            })
            .await
            .expect("ok");
    }
    let seen = server.requests();
    assert_eq!(seen[0].headers["x-request-id"], "r-1");
    assert_eq!(
        seen[0].headers["accept"], "text/csv",
        "a header param replaces the default"
    );
    assert_eq!(seen[0].headers["cookie"], "session=a%20b");
    assert_eq!(
        seen[0].headers["content-type"],
        "application/x-www-form-urlencoded"
    );
    assert_eq!(
        String::from_utf8_lossy(&seen[0].body),
        "metadata%5Bplan%5D=pro+%26+co&expand%5B0%5D=customer"
    );
    let content_type = &seen[1].headers["content-type"];
    assert!(
        content_type.starts_with("multipart/form-data; boundary="),
        "{content_type}"
    );
    let body = String::from_utf8_lossy(&seen[1].body);
    assert!(
        body.contains("name=\"file\"; filename=\"file\"\r\nContent-Type: application/octet-stream\r\n\r\nhello\r\n"),
        "{body}"
    );
}

#[tokio::test]
async fn api_key_header_api_key_query_and_basic_auth() {
    let server = Server::start(|_| reply(200, "{}")).await;
    let cases = [
        Auth::ApiKey {
            key_env: "UPSTREAM_TEST_KEY",
            location: ApiKeyLocation::Header("X-Api-Key"),
        },
        Auth::ApiKey {
            key_env: "UPSTREAM_TEST_KEY",
            location: ApiKeyLocation::Query("api_key"),
        },
        Auth::Basic {
            username_env: "UPSTREAM_TEST_USER",
            password_env: "UPSTREAM_TEST_PASSWORD",
        },
        Auth::Bearer {
            token_env: "UPSTREAM_TEST_TOKEN",
            header: "X-Auth",
            prefix: "token ",
        },
    ];
    for auth in cases {
        let request = UpstreamRequest {
            query: vec![("q".into(), "1".to_owned())],
            ..get("/me")
        };
        client(server.base.clone(), auth)
            .send_plain(request)
            .await
            .expect("ok");
    }
    let seen = server.requests();
    assert_eq!(seen[0].headers["x-api-key"], API_KEY);
    assert_eq!(seen[0].target, "/me?q=1");
    assert_eq!(seen[1].target, format!("/me?q=1&api_key={API_KEY}"));
    assert!(!seen[1].headers.contains_key("authorization"));
    use base64::Engine as _;
    let expected = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    assert_eq!(
        seen[2].headers["authorization"],
        format!("Basic {expected}")
    );
    assert_eq!(seen[3].headers["x-auth"], format!("token {TOKEN}"));
    assert!(!seen[3].headers.contains_key("authorization"));
}

#[tokio::test]
async fn connections_are_reused() {
    let server = Server::start(|_| reply(200, "{}")).await;
    let upstream = client(server.base.clone(), Auth::None);
    for _ in 0..5 {
        upstream.send_plain(get("/ping")).await.expect("ok");
    }
    assert_eq!(server.requests().len(), 5);
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_each_get_their_own_answer() {
    let server = Server::start(|r| {
        let id = r.target.trim_start_matches("/echo/").to_owned();
        reply(200, &format!(r#"{{"id":"{id}"}}"#))
    })
    .await;
    let upstream = Arc::new(client(server.base.clone(), Auth::None));
    let calls = (0..200).map(|i| {
        let upstream = upstream.clone();
        tokio::spawn(async move { (i, upstream.send_plain(get(&format!("/echo/{i}"))).await) })
    });
    for call in calls {
        let (i, result) = call.await.expect("task");
        assert_eq!(json(result.expect("ok"))["id"], i.to_string());
    }
    assert_eq!(server.requests().len(), 200);
}

// ---------------------------------------------------------------------------------------
// Paths and the base URL.

#[tokio::test]
async fn encoded_traversal_stays_encoded_and_dot_segments_are_refused() {
    let server = Server::start(|_| reply(200, "{}")).await;
    let upstream = client(format!("{}/api", server.base), Auth::None);
    upstream
        .send_plain(get("/files/..%2F..%2Fetc%2Fpasswd"))
        .await
        .expect("ok");
    assert_eq!(
        server.only_request().target,
        "/api/files/..%2F..%2Fetc%2Fpasswd"
    );

    for path in ["/files/..", "/files/%2e%2E", "/files/./x", "/a/../../b"] {
        let err = upstream.send_plain(get(path)).await.expect_err(path);
        assert_client_safe(&err);
        assert_eq!(err.code, ErrorCode::ValidationInvalidValue, "{path}");
    }
    for path in ["files", "/a?b=c", "/a#frag", "/a\\..\\b", "/a b"] {
        let err = upstream.send_plain(get(path)).await.expect_err(path);
        assert_client_safe(&err);
        assert_eq!(err.code, ErrorCode::InternalError, "{path}");
    }
    assert_eq!(
        server.requests().len(),
        1,
        "refused paths never reach the server"
    );

    // A path that looks like a network-path reference is still only a path on our host.
    let root = client(server.base.clone(), Auth::None);
    root.send_plain(get("//evil.example/x"))
        .await
        .expect("same host");
    assert_eq!(server.requests()[1].target, "//evil.example/x");
}

#[tokio::test]
async fn base_url_comes_from_the_environment_when_set() {
    init_env();
    let from_env = info_with_env(
        "https://api.example.com".to_owned(),
        "UPSTREAM_TEST_OVERRIDE_BASE",
        Auth::None,
    );
    let upstream = Upstream::new(from_env, UpstreamConfig::default()).expect("valid");
    assert_eq!(upstream.base_url(), "http://127.0.0.1:9/override/");

    let unset = info("https://api.example.com/v1".to_owned(), Auth::None);
    let upstream = Upstream::new(unset, UpstreamConfig::default()).expect("valid");
    assert_eq!(upstream.base_url(), "https://api.example.com/v1");

    let bad = info_with_env(
        "https://api.example.com".to_owned(),
        "UPSTREAM_TEST_BAD_BASE",
        Auth::None,
    );
    let err = Upstream::new(bad, UpstreamConfig::default()).expect_err("ftp refused");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::InternalError);
    assert!(
        err.message.contains("'UPSTREAM_TEST_BAD_BASE'"),
        "{}",
        err.message
    );

    for base in [
        "not a url",
        "https://user:pw@api.example.com",
        "https://api.example.com/?x=1",
        "mailto:a@b.c",
    ] {
        let err = Upstream::new(info(base.to_owned(), Auth::None), UpstreamConfig::default())
            .expect_err(base);
        assert!(!err.message.contains("pw"), "{}", err.message);
    }
}

#[tokio::test]
async fn credentials_never_go_over_plain_http_to_a_remote_host() {
    let upstream = client("http://api.example.invalid".to_owned(), bearer());
    let err = upstream.send_plain(get("/x")).await.expect_err("refused");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::PermissionDenied);
    assert_eq!(err.details["reason"], "INSECURE_TRANSPORT");
}

#[tokio::test]
async fn redirects_are_followed_only_within_the_origin() {
    let server = Server::start(|r| match r.target.as_str() {
        "/old" => Reply::Full {
            status: 301,
            headers: vec![("Location", "/new".to_owned())],
            body: Vec::new(),
        },
        "/away" => Reply::Full {
            status: 302,
            headers: vec![("Location", "http://127.0.0.2:1/steal".to_owned())],
            body: Vec::new(),
        },
        _ => reply(200, r#"{"moved":true}"#),
    })
    .await;
    let upstream = client(server.base.clone(), Auth::None);
    assert_eq!(
        json(upstream.send_plain(get("/old")).await.expect("ok"))["moved"],
        true
    );
    let err = upstream
        .send_plain(get("/away"))
        .await
        .expect_err("not followed");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::InternalError);
    assert_eq!(err.details["http_status"], 302);
}

#[tokio::test]
async fn redirects_are_followed_only_below_the_base_path() {
    let server = Server::start(|r| match r.target.as_str() {
        "/api/old" => Reply::Full {
            status: 301,
            headers: vec![("Location", "/api/new".to_owned())],
            body: Vec::new(),
        },
        "/api/sideways" => Reply::Full {
            status: 307,
            headers: vec![("Location", "/other-api/steal".to_owned())],
            body: Vec::new(),
        },
        "/api/prefix" => Reply::Full {
            status: 307,
            headers: vec![("Location", "/api2/steal".to_owned())],
            body: Vec::new(),
        },
        "/api/new" => reply(200, r#"{"moved":true}"#),
        _ => reply(200, r#"{"stolen":true}"#),
    })
    .await;
    let upstream = client(format!("{}/api", server.base), Auth::None);
    assert_eq!(
        json(upstream.send_plain(get("/old")).await.expect("ok"))["moved"],
        true
    );
    for elsewhere in ["/sideways", "/prefix"] {
        let err = upstream
            .send_plain(get(elsewhere))
            .await
            .expect_err("another API on the same origin is not followed");
        assert_eq!(err.details["http_status"], 307, "{elsewhere}");
    }
    assert!(upstream.request_to("/other-api/poll/1").is_none());
    assert!(upstream.request_to("/api2/poll/1").is_none());
    assert_eq!(
        upstream
            .request_to("/api/poll/1")
            .map(|request| request.path),
        Some("/poll/1".to_owned())
    );
}

// ---------------------------------------------------------------------------------------
// Credentials from the environment.

#[tokio::test]
async fn missing_credential_is_permission_denied_naming_the_variable() {
    let server = Server::start(|_| reply(200, "{}")).await;
    let auth = Auth::Bearer {
        token_env: "UPSTREAM_TEST_NEVER_SET_TOKEN",
        header: "Authorization",
        prefix: "Bearer ",
    };
    let upstream = client(server.base.clone(), auth);
    let err = upstream.send_plain(get("/x")).await.expect_err("missing");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::PermissionDenied);
    assert!(
        err.message.contains("'UPSTREAM_TEST_NEVER_SET_TOKEN'"),
        "{}",
        err.message
    );
    assert_eq!(err.details["env_var"], "UPSTREAM_TEST_NEVER_SET_TOKEN");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn credential_with_cr_or_lf_is_refused() {
    let server = Server::start(|_| reply(200, "{}")).await;
    let auth = Auth::ApiKey {
        key_env: "UPSTREAM_TEST_CRLF",
        location: ApiKeyLocation::Header("X-Api-Key"),
    };
    let err = client(server.base.clone(), auth)
        .send_plain(get("/x"))
        .await
        .expect_err("refused");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::PermissionDenied);
    assert_eq!(err.details["env_var"], "UPSTREAM_TEST_CRLF");
    assert!(!err.to_json().to_string().contains("Injected"));
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------
// Response mapping.

#[tokio::test]
async fn status_codes_map_to_the_spec_codes_with_the_upstream_message() {
    let server = Server::start(|r| {
        let status: u16 = r
            .target
            .trim_start_matches("/status/")
            .parse()
            .expect("status");
        reply(
            status,
            &format!(r#"{{"message":"upstream says {status}"}}"#),
        )
    })
    .await;
    let upstream = client(server.base.clone(), Auth::None);
    let cases = [
        (400, ErrorCode::ValidationInvalidType),
        (401, ErrorCode::PermissionDenied),
        (403, ErrorCode::PermissionDenied),
        (404, ErrorCode::NotFoundResource),
        (405, ErrorCode::ValidationInvalidType),
        (409, ErrorCode::ConflictAlreadyExists),
        (418, ErrorCode::ValidationInvalidType),
        (422, ErrorCode::ValidationInvalidType),
        (429, ErrorCode::RateLimitExceeded),
        (500, ErrorCode::InternalError),
        (502, ErrorCode::InternalError),
        (503, ErrorCode::InternalError),
        (504, ErrorCode::InternalError),
    ];
    for (status, code) in cases {
        let err = upstream
            .send_plain(get(&format!("/status/{status}")))
            .await
            .expect_err("error status");
        assert_client_safe(&err);
        assert_eq!(err.code, code, "HTTP {status}");
        assert_eq!(err.details["http_status"], status);
        let said = format!("upstream says {status}");
        assert_eq!(err.details["upstream_message"], said.as_str());
        assert!(!err.message.contains(&said), "{}", err.message);
    }
}

#[tokio::test]
async fn upstream_message_shapes_are_extracted() {
    let server = Server::start(|r| {
        let body = match r.target.as_str() {
            "/message" => r#"{"message":"Validation Failed"}"#,
            "/error" => r#"{"error":"invalid_request"}"#,
            "/error-object" => r#"{"error":{"message":"Field 'title' is required","code":12}}"#,
            "/errors" => r#"{"errors":[{"message":"a is bad"},{"message":"b is bad"}]}"#,
            _ => r#"{"nothing":"useful"}"#,
        };
        reply(422, body)
    })
    .await;
    let upstream = client(server.base.clone(), Auth::None);
    let cases = [
        ("/message", Some("Validation Failed")),
        ("/error", Some("invalid_request")),
        ("/error-object", Some("Field 'title' is required")),
        ("/errors", Some("a is bad; b is bad")),
        ("/other", None),
    ];
    for (path, expected) in cases {
        let err = upstream.send_plain(get(path)).await.expect_err("422");
        assert_eq!(err.code, ErrorCode::ValidationInvalidType);
        assert_eq!(
            err.details.get("upstream_message").and_then(Value::as_str),
            expected
        );
    }
}

#[tokio::test]
async fn rate_limit_carries_retry_after_seconds_from_seconds_or_date() {
    let in_two_minutes = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
    let server = Server::start(move |r| {
        let retry_after = match r.target.as_str() {
            "/seconds" => Some("7".to_owned()),
            "/date" => Some(in_two_minutes.clone()),
            _ => None,
        };
        let mut headers = vec![("Content-Type", "application/json".to_owned())];
        headers.extend(retry_after.map(|value| ("Retry-After", value)));
        Reply::Full {
            status: 429,
            headers,
            body: br#"{"message":"slow down"}"#.to_vec(),
        }
    })
    .await;
    let upstream = client(server.base.clone(), Auth::None);
    let err = upstream.send_plain(get("/seconds")).await.expect_err("429");
    assert_eq!(err.code, ErrorCode::RateLimitExceeded);
    assert_eq!(err.details["retry_after_seconds"], 7);
    let err = upstream.send_plain(get("/date")).await.expect_err("429");
    let seconds = err.details["retry_after_seconds"].as_u64().expect("number");
    assert!((110..=121).contains(&seconds), "{seconds}");
    let err = upstream.send_plain(get("/none")).await.expect_err("429");
    assert_eq!(err.details["retry_after_seconds"], 60);
}

#[tokio::test]
async fn empty_bom_html_and_binary_bodies() {
    let server = Server::start(|r| match r.target.as_str() {
        "/no-content" => Reply::Full {
            status: 204,
            headers: Vec::new(),
            body: Vec::new(),
        },
        "/empty" => reply(200, ""),
        "/bom" => Reply::Full {
            status: 200,
            headers: vec![("Content-Type", "application/json".to_owned())],
            body: b"\xEF\xBB\xBF{\"bom\":true}".to_vec(),
        },
        "/html" => Reply::Full {
            status: 200,
            headers: vec![("Content-Type", "text/html".to_owned())],
            body: b"<!DOCTYPE html><html><body><h1>Maintenance</h1><p>Back soon</p></body></html>"
                .to_vec(),
        },
        "/binary" => Reply::Full {
            status: 200,
            headers: vec![("Content-Type", "application/octet-stream".to_owned())],
            body: vec![0xff, 0xfe, 0x00, 0x01],
        },
        _ => Reply::Full {
            status: 502,
            headers: vec![("Content-Type", "text/html".to_owned())],
            body: b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
                .to_vec(),
        },
    })
    .await;
    let upstream = client(server.base.clone(), Auth::None);
    assert_eq!(
        json(upstream.send_plain(get("/no-content")).await.expect("ok")),
        Value::Null
    );
    assert_eq!(
        json(upstream.send_plain(get("/empty")).await.expect("ok")),
        Value::Null
    );
    assert_eq!(
        json(upstream.send_plain(get("/bom")).await.expect("ok")),
        json!({"bom": true})
    );

    let err = upstream.send_plain(get("/html")).await.expect_err("html");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::InternalError);
    assert_eq!(err.details["upstream_error"], "SERIALIZATION_PARSE_ERROR");
    assert_eq!(err.details["content_type"], "text/html");
    assert_eq!(err.details["body_preview"], "Maintenance Back soon");
    assert!(err.message.contains("HTML"), "{}", err.message);

    assert_eq!(
        json(upstream.send_plain(get("/binary")).await.expect("binary")),
        json!({
            "file_content": "//4AAQ==",
            "file_encoding": "base64",
            "file_mime_type": "application/octet-stream",
        }),
        "a declared binary answer comes back as base64"
    );

    let err = upstream.send_plain(get("/gateway")).await.expect_err("502");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::InternalError);
    assert_eq!(err.details["http_status"], 502);
    assert_eq!(err.details["upstream_message"], "502 Bad Gateway nginx");
}

#[tokio::test]
async fn response_size_cap_is_enforced_while_streaming() {
    let server = Server::start(|r| match r.target.as_str() {
        "/endless" => Reply::Endless,
        "/declared" => Reply::Full {
            status: 200,
            headers: vec![("Content-Length", "20000000".to_owned())],
            body: Vec::new(),
        },
        _ => reply(200, &format!("\"{}\"", "x".repeat(2000))),
    })
    .await;
    init_env();
    let config = UpstreamConfig {
        max_response_bytes: 1024 * 1024,
        ..UpstreamConfig::default()
    };
    let upstream =
        Upstream::new(info(server.base.clone(), Auth::None), config).expect("valid config");
    // An endless body can only end in this error if the cap is checked as bytes arrive.
    let err = upstream
        .send_plain(get("/endless"))
        .await
        .expect_err("too large");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::ValidationPayloadTooLarge);
    assert_eq!(err.details["limit_type"], "response_size");
    assert_eq!(err.details["limit_value"], 1024 * 1024);

    let err = upstream
        .send_plain(get("/declared"))
        .await
        .expect_err("too large");
    assert_eq!(err.code, ErrorCode::ValidationPayloadTooLarge);
    assert_eq!(err.details["actual_value"], 20_000_000);

    let small = UpstreamConfig {
        max_response_bytes: 100,
        ..UpstreamConfig::default()
    };
    let upstream =
        Upstream::new(info(server.base.clone(), Auth::None), small).expect("valid config");
    let err = upstream
        .send_plain(get("/small"))
        .await
        .expect_err("2002 > 100");
    assert_eq!(err.code, ErrorCode::ValidationPayloadTooLarge);
}

// ---------------------------------------------------------------------------------------
// Transport failures.

#[tokio::test]
async fn timeout_is_reported_with_its_duration() {
    let server = Server::start(|_| Reply::Slow(Duration::from_secs(30))).await;
    init_env();
    let config = UpstreamConfig {
        timeout: Duration::from_millis(300),
        ..UpstreamConfig::default()
    };
    let upstream = Upstream::new(info(server.base.clone(), Auth::None), config).expect("valid");
    let err = upstream
        .send_plain(get("/slow"))
        .await
        .expect_err("timeout");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::InternalError);
    assert_eq!(err.details["upstream_error"], "TRANSPORT_TIMEOUT");
    assert_eq!(err.details["timeout_ms"], 300);
    assert!(
        err.message.contains("timed out after 300ms"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_body_cut_short_fails_fast() {
    let server = Server::start(|r| Reply::Short {
        hold: r.target == "/held",
    })
    .await;
    init_env();
    let config = UpstreamConfig {
        read_timeout: Duration::from_millis(300),
        ..UpstreamConfig::default()
    };
    let upstream = Upstream::new(info(server.base.clone(), Auth::None), config).expect("valid");
    // Closed early: a network error, not a wait for the 30 s timeout.
    let err = upstream
        .send_plain(get("/closed"))
        .await
        .expect_err("cut short");
    assert_client_safe(&err);
    assert_eq!(err.details["upstream_error"], "TRANSPORT_NETWORK_ERROR");
    // Held open with nothing more: the read timeout ends it, not the whole-request timeout.
    let started = std::time::Instant::now();
    let err = upstream
        .send_plain(get("/held"))
        .await
        .expect_err("stalled");
    assert_client_safe(&err);
    assert_eq!(err.details["upstream_error"], "TRANSPORT_TIMEOUT");
    assert!(
        err.message.contains("sent nothing for 300ms"),
        "{}",
        err.message
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "ended by the read timeout"
    );
}

#[tokio::test]
async fn connection_refused_names_no_host() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let upstream = client(format!("http://{addr}"), Auth::None);
    let err = upstream.send_plain(get("/x")).await.expect_err("refused");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::InternalError);
    assert_eq!(
        err.details["upstream_error"],
        "TRANSPORT_CONNECTION_REFUSED"
    );
    assert!(
        err.message.contains("UPSTREAM_TEST_NEVER_SET_BASE"),
        "{}",
        err.message
    );
    assert!(!err.to_json().to_string().contains("127.0.0.1"));
}

#[tokio::test]
async fn tls_failure_is_reported_as_tls() {
    let server = Server::start(|_| reply(200, "{}")).await;
    let https = server.base.replace("http://", "https://");
    let err = client(https, bearer())
        .send_plain(get("/x"))
        .await
        .expect_err("not TLS");
    assert_client_safe(&err);
    assert_eq!(err.code, ErrorCode::InternalError);
    assert_eq!(err.details["upstream_error"], "TRANSPORT_TLS_ERROR");
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------
// Secrets.

/// Collects log lines written while a test runs.
#[derive(Clone, Default)]
struct LogSink(Arc<Mutex<Vec<u8>>>);

impl Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every log line this test binary writes, from all tests: one global subscriber at TRACE,
/// installed on first use, so no test's logs escape the secret check below.
fn captured_logs() -> &'static LogSink {
    static SINK: std::sync::OnceLock<LogSink> = std::sync::OnceLock::new();
    SINK.get_or_init(|| {
        let sink = LogSink::default();
        let writer = sink.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
        sink
    })
}

#[tokio::test]
async fn secrets_never_appear_in_errors_or_logs_even_when_the_upstream_echoes_them() {
    let sink = captured_logs();

    // The upstream quotes back everything secret it received.
    let server = Server::start(|r| {
        let echo = format!(
            "you sent {} {} {}",
            r.target,
            r.headers.get("authorization").map_or("", String::as_str),
            r.headers.get("x-api-key").map_or("", String::as_str),
        );
        let status: u16 = r.target[1..4].parse().unwrap_or(500);
        match status {
            200 => Reply::Full {
                status,
                headers: vec![("Content-Type", "text/html".to_owned())],
                body: format!("<p>{echo}</p>").into_bytes(),
            },
            _ => reply(status, &json!({ "message": echo }).to_string()),
        }
    })
    .await;
    let auths = [
        bearer(),
        Auth::ApiKey {
            key_env: "UPSTREAM_TEST_KEY",
            location: ApiKeyLocation::Query("api_key"),
        },
        Auth::ApiKey {
            key_env: "UPSTREAM_TEST_KEY",
            location: ApiKeyLocation::Header("X-Api-Key"),
        },
        Auth::Basic {
            username_env: "UPSTREAM_TEST_USER",
            password_env: "UPSTREAM_TEST_PASSWORD",
        },
    ];
    let mut errors: Vec<AqlError> = Vec::new();
    for auth in auths {
        let upstream = client(server.base.clone(), auth);
        for path in ["/200/x", "/401/x", "/403/x", "/422/x", "/429/x", "/500/x"] {
            errors.push(upstream.send_plain(get(path)).await.expect_err(path));
        }
        // Transport failures too.
        let refused = {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().expect("addr");
            drop(listener);
            format!("http://{addr}")
        };
        errors.push(
            client(refused, auth)
                .send_plain(get("/x"))
                .await
                .expect_err("refused"),
        );
    }
    assert!(server.requests().len() >= 24, "the server got the secrets");
    let basic = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"))
    };
    let logs = String::from_utf8(sink.0.lock().expect("lock").clone()).expect("utf8");
    assert!(
        logs.contains("upstream request"),
        "logs were captured: {logs}"
    );
    for secret in [TOKEN, API_KEY, PASSWORD, basic.as_str()] {
        for error in &errors {
            assert_client_safe(error);
            let text = format!("{} {}", error, error.to_json());
            assert!(!text.contains(secret), "{secret} leaked in {text}");
        }
        assert!(!logs.contains(secret), "{secret} leaked in the logs");
    }
    assert!(
        errors
            .iter()
            .any(|e| e.to_json().to_string().contains("[REDACTED]")),
        "the echo was redacted, not just absent"
    );
}
