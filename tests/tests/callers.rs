//! What a caller starts belongs to that caller: callers A and B (and M, whose name shares its
//! first 140 characters with A's) behind one server, each with its own credential or access
//! token, never reach into each other's sessions, executions or confirmations.
//!
//! * Sessions, with `--credential-header` and behind a real OpenID provider (`oidc-provider`
//!   on 127.0.0.1): B posting, listening or deleting on A's session, or answering a form sent
//!   to it, gets the 404 an unknown session gets; A's session goes on.
//! * Executions behind the provider, with the server's own upstream credential: B can neither
//!   read nor cancel the export A started, though both reach the upstream as the server.
//! * Subjects: M cannot redeem the confirmation A was asked for; a subject is one caller by all
//!   its characters, not its first 128.
//!
//! Safety-loop agents are each caller's own too (`safety_loop.rs`, through the Python SDK and
//! two instances on Redis), and so are the response cache's answers (`cache.rs`).

mod support;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::oidc::{Behind, Provider, behind, provider};
use support::{
    INITIALIZE, TODO_BIN, TODO_KEY, demo_api, http_server_for, rpc_message, stateless_post,
    tool_answer,
};

const JOBS_BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");
/// The key demo-upstream's job API wants.
const JOBS_KEY: &str = "jobs-test-key";
/// The subject both long-named clients of `tests/ts/oidc_provider.mjs` start with.
fn long_prefix() -> String {
    format!("{:t<140}", "tenants.example.com/users/")
}

// ---------------------------------------------------------------------------------------------
// Calls

/// One stateless `tools/call` of `tool` by the holder of access token `token`; the MCP-AQL
/// answer, checked against the result schema.
async fn as_holder(url: &str, token: &str, tool: &str, arguments: Value) -> Value {
    let authorization = format!("Bearer {token}");
    let response = stateless_post(url, &[("authorization", &authorization)], tool, arguments).await;
    assert_eq!(response.status(), StatusCode::OK);
    tool_answer(&response.text().await.expect("a body"))
}

/// The todo adapter behind `provider` with `extra` arguments, against demo-upstream with the
/// server's own key.
async fn todo_behind(provider: &Provider, extra: &[&str]) -> (Behind, demo_upstream::Running) {
    let api = demo_api().await;
    let base = api.base_url();
    let env = [("TODO_BASE_URL", base.as_str()), ("TODO_API_KEY", TODO_KEY)];
    (behind(&provider.issuer, TODO_BIN, extra, &env).await, api)
}

// ---------------------------------------------------------------------------------------------
// Raw session traffic

/// One caller's headers on every request.
struct Who<'a> {
    name: &'a str,
    headers: Vec<(&'static str, String)>,
}

impl Who<'_> {
    fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        let mut request = reqwest::Client::new()
            .request(method, url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json");
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        request
    }

    /// Opens a session: its id.
    async fn open(&self, url: &str) -> String {
        let response = self
            .request(reqwest::Method::POST, url)
            .body(INITIALIZE)
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status(), StatusCode::OK, "{} opens", self.name);
        let id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
            .expect("a session id")
            .to_owned();
        let initialized = self
            .on(reqwest::Method::POST, url, &id)
            .body(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .send()
            .await
            .expect("the server answers");
        assert_eq!(initialized.status(), StatusCode::ACCEPTED);
        id
    }

    fn on(&self, method: reqwest::Method, url: &str, session: &str) -> reqwest::RequestBuilder {
        self.request(method, url)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18")
    }
}

/// B tries everything a holder of A's session id could; each gets the 404 of a session the
/// server does not know, and A's session goes on.
async fn assert_session_is_owned(url: &str, a: &Who<'_>, b: &Who<'_>) {
    let session = a.open(url).await;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    // What a person's "yes" to the form A's client was sent would look like.
    let forged =
        r#"{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"confirm":true}}}"#;
    for (label, request) in [
        (
            "a request",
            b.on(reqwest::Method::POST, url, &session).body(list),
        ),
        (
            "a form's answer",
            b.on(reqwest::Method::POST, url, &session).body(forged),
        ),
        (
            "its event stream",
            b.on(reqwest::Method::GET, url, &session),
        ),
        ("its end", b.on(reqwest::Method::DELETE, url, &session)),
    ] {
        let response = request.send().await.expect("the server answers");
        assert_eq!(
            response.status(),
            StatusCode::NOT_FOUND,
            "{} sends {label} on {}'s session",
            b.name,
            a.name
        );
        let text = response.text().await.expect("a body");
        assert_eq!(
            text, "Not Found: Session not found",
            "as for any unknown session"
        );
    }
    let unknown = b
        .on(reqwest::Method::DELETE, url, "no-such-session")
        .send()
        .await
        .expect("the server answers");
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let own = a
        .on(reqwest::Method::POST, url, &session)
        .body(list)
        .send()
        .await
        .expect("the server answers");
    assert_eq!(own.status(), StatusCode::OK, "{}'s session goes on", a.name);
    let tools = rpc_message(&own.text().await.expect("a body"));
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    let ended = a
        .on(reqwest::Method::DELETE, url, &session)
        .send()
        .await
        .expect("the server answers");
    assert_eq!(ended.status(), StatusCode::OK, "{} ends it", a.name);
}

#[tokio::test]
async fn a_session_is_its_openers_with_credential_header() {
    let api = demo_api().await;
    let base = api.base_url();
    let (_server, url) = http_server_for(
        TODO_BIN,
        &["--credential-header", "x-upstream-key"],
        &[("TODO_BASE_URL", &base)],
    )
    .await;
    let a = Who {
        name: "A",
        headers: vec![("x-upstream-key", TODO_KEY.to_owned())],
    };
    let b = Who {
        name: "B",
        headers: vec![("x-upstream-key", "b-own-key".to_owned())],
    };
    assert_session_is_owned(&url, &a, &b).await;
    // No credential at all is another caller too.
    let nobody = Who {
        name: "a caller without a key",
        headers: Vec::new(),
    };
    assert_session_is_owned(&url, &a, &nobody).await;
}

#[tokio::test]
async fn a_session_is_its_openers_behind_an_authorization_server() {
    let provider = provider(0).await;
    let (server, _api) = todo_behind(&provider, &[]).await;
    let bearer = |token: String| vec![("authorization", format!("Bearer {token}"))];
    let scope = "todo.read todo.write todo.admin";
    let a = Who {
        name: "alice",
        headers: bearer(provider.token("alice", scope, Some(&server.url)).await),
    };
    let b = Who {
        name: "bob",
        headers: bearer(provider.token("bob", scope, Some(&server.url)).await),
    };
    assert_session_is_owned(&server.url, &a, &b).await;
    // alice with another token is still alice.
    let again = Who {
        name: "alice, another token",
        headers: bearer(provider.token("alice", scope, Some(&server.url)).await),
    };
    let session = a.open(&server.url).await;
    let answer = again
        .on(reqwest::Method::POST, &server.url, &session)
        .body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .send()
        .await
        .expect("the server answers");
    assert_eq!(answer.status(), StatusCode::OK, "the subject is the caller");
}

// ---------------------------------------------------------------------------------------------
// Executions

#[tokio::test]
async fn an_execution_is_its_starters_behind_an_authorization_server() {
    let provider = provider(0).await;
    let api = demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(JOBS_KEY.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream");
    let base = api.base_url();
    // Both callers reach the upstream with the server's own key.
    let server = behind(
        &provider.issuer,
        JOBS_BIN,
        &["--stateless", "--mode", "single", "--execution-wait", "0"],
        &[
            ("REAL_API", "jobs"),
            ("JOBS_BASE_URL", &base),
            ("JOBS_API_KEY", JOBS_KEY),
        ],
    )
    .await;
    let alice = provider
        .token("alice", "todo.read", Some(&server.url))
        .await;
    let bob = provider.token("bob", "todo.read", Some(&server.url)).await;
    let tool = "mcp_aql";
    let export = json!({"operation": "start_export",
                        "params": {"kind": "orders", "steps": 100, "step_ms": 300}});
    let started = as_holder(&server.url, &alice, tool, export).await;
    assert_eq!(started["success"], true, "{started}");
    let id = started["data"]["execution_id"]
        .as_str()
        .expect("an execution id")
        .to_owned();
    for operation in ["get_execution", "cancel_execution"] {
        let foreign = as_holder(
            &server.url,
            &bob,
            tool,
            json!({"operation": operation, "params": {"execution_id": id}}),
        )
        .await;
        assert_eq!(
            foreign["error"]["code"], "NOT_FOUND_RESOURCE",
            "bob's {operation}: {foreign}"
        );
    }
    let own = as_holder(
        &server.url,
        &alice,
        tool,
        json!({"operation": "get_execution", "params": {"execution_id": id}}),
    )
    .await;
    assert_eq!(own["success"], true, "{own}");
    assert_ne!(
        own["data"]["status"], "cancelled",
        "bob's cancel did nothing"
    );
    assert!(
        !api.requests()
            .iter()
            .any(|request| request.method == "DELETE" || request.path.ends_with("/cancel")),
        "no cancel reached the upstream"
    );
}

// ---------------------------------------------------------------------------------------------
// Subjects

#[tokio::test]
async fn a_subject_is_one_caller_by_all_its_characters() {
    let provider = provider(0).await;
    let (server, api) = todo_behind(&provider, &["--stateless"]).await;
    let scope = "todo.read todo.write todo.admin";
    let a = provider
        .token(&format!("{}alice", long_prefix()), scope, Some(&server.url))
        .await;
    let m = provider
        .token(
            &format!("{}mallory", long_prefix()),
            scope,
            Some(&server.url),
        )
        .await;
    let tool = "mcp_aql_delete";
    let delete = json!({"operation": "delete_todo", "params": {"id": 1}});
    let asked = as_holder(&server.url, &a, tool, delete.clone()).await;
    assert_eq!(asked["error"]["code"], "CONFIRMATION_REQUIRED", "{asked}");
    let mut confirmed = delete;
    confirmed["params"]["confirmation_token"] =
        asked["error"]["details"]["confirmation_token"].clone();
    let stolen = as_holder(&server.url, &m, tool, confirmed.clone()).await;
    assert_eq!(
        stolen["success"], false,
        "M redeems nothing of A's: {stolen}"
    );
    assert!(
        !api.requests()
            .iter()
            .any(|request| request.method == "DELETE"),
        "nothing was deleted for M"
    );
    let deleted = as_holder(&server.url, &a, tool, confirmed).await;
    assert_eq!(
        deleted["success"], true,
        "A's own confirmation holds: {deleted}"
    );
}
