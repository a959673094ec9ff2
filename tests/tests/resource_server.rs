//! The HTTP transport as an OAuth 2.1 resource server, against a real OpenID provider
//! (`oidc-provider`, `tests/ts/oidc_provider.mjs`) on 127.0.0.1: the generated todo adapter
//! serves `/mcp` only to bearer tokens that provider issued for it. A client finds the
//! provider from a 401; an expired token, one for another resource and one that is no JWT
//! are refused; a token without the scope an operation needs gets a 403 to step up with and
//! does not see the operation in `introspect`; the token's subject is the caller that
//! confirmation tokens are bound to; the provider's new keys are taken after it rotates
//! them; and with `--user-credentials`, each user reaches the upstream with their own key.
//! The upstream never sees an access token.

mod support;

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::oidc::{Behind, Provider, behind, kid, provider};
use support::{TODO_BIN, TODO_KEY, demo_api, stateless_post, tool_answer};
use tokio::process::Child;

/// The todo adapter behind `provider`, on a free port, stateless; its `/mcp` URL (which is
/// also its resource identifier).
struct Server {
    _child: Child,
    url: String,
    _api: Option<demo_upstream::Running>,
}

/// The server against demo-upstream, with the server's own API key.
async fn server(provider: &Provider) -> Server {
    let api = demo_api().await;
    let base_url = api.base_url();
    let mut server = server_with(provider, &base_url, &[], &[]).await;
    server._api = Some(api);
    server
}

/// The server against the API at `base_url`, stateless, with the todo scopes and `extra`
/// arguments and environment.
async fn server_with(
    provider: &Provider,
    base_url: &str,
    extra: &[&str],
    extra_env: &[(&str, &str)],
) -> Server {
    let mut args = vec![
        "--stateless",
        "--scope",
        "read=todo.read,create=todo.write,update=todo.write,delete=todo.write",
        "--scope",
        "destructive=todo.admin",
    ];
    args.extend_from_slice(extra);
    let mut env = vec![("TODO_BASE_URL", base_url), ("TODO_API_KEY", TODO_KEY)];
    env.extend_from_slice(extra_env);
    let behind = behind(&provider.issuer, TODO_BIN, &args, &env).await;
    Server {
        _child: behind.child,
        url: behind.url,
        _api: None,
    }
}

/// What a POST of one `tools/call` answered: status, `WWW-Authenticate`, and the body.
struct Answer {
    status: StatusCode,
    challenge: String,
    body: String,
}

impl Answer {
    /// The MCP-AQL answer of a 200, checked against the result schema.
    fn result(&self) -> Value {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        tool_answer(&self.body)
    }

    /// Asserts a 401 whose challenge says `invalid_token` and `why`.
    fn assert_invalid(&self, why: &str) {
        assert_eq!(
            self.status,
            StatusCode::UNAUTHORIZED,
            "{why}: {}",
            self.body
        );
        assert!(
            self.challenge.contains("error=\"invalid_token\"") && self.challenge.contains(why),
            "{why}: {}",
            self.challenge
        );
    }
}

async fn call(url: &str, token: Option<&str>, tool: &str, arguments: Value) -> Answer {
    let authorization = token.map(|token| format!("Bearer {token}"));
    let headers: Vec<(&str, &str)> = authorization
        .iter()
        .map(|value| ("authorization", value.as_str()))
        .collect();
    let response = stateless_post(url, &headers, tool, arguments).await;
    let status = response.status();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    Answer {
        status,
        challenge,
        body: response.text().await.expect("a body"),
    }
}

/// The read every token with `todo.read` may make.
fn list() -> (&'static str, Value) {
    (
        "mcp_aql_read",
        json!({"operation": "list_todos", "params": {}}),
    )
}

#[tokio::test]
async fn a_client_finds_the_provider_from_a_401_and_its_token_works() {
    let provider = provider(0).await;
    let server = server(&provider).await;
    let (tool, arguments) = list();
    let refused = call(&server.url, None, tool, arguments.clone()).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED, "{}", refused.body);
    let metadata_url = refused
        .challenge
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("a resource_metadata in '{}'", refused.challenge));
    assert_eq!(
        metadata_url,
        server
            .url
            .replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    );
    let metadata: Value = reqwest::get(metadata_url)
        .await
        .expect("the metadata answers")
        .json()
        .await
        .expect("JSON metadata");
    assert_eq!(metadata["resource"], server.url.as_str());
    assert_eq!(metadata["authorization_servers"], json!([provider.issuer]));
    assert_eq!(
        metadata["scopes_supported"],
        json!(["todo.read", "todo.write", "todo.admin"])
    );

    let token = provider
        .token("alice", "todo.read", Some(&server.url))
        .await;
    let listed = call(&server.url, Some(&token), tool, arguments)
        .await
        .result();
    assert_eq!(listed["success"], true, "{listed}");
    // Only the operations the token's scopes cover are introspected.
    let operations = call(
        &server.url,
        Some(&token),
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await
    .result();
    let names: Vec<&str> = operations["data"]["operations"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|op| op["name"].as_str())
        .collect();
    assert!(
        names.contains(&"list_todos") && names.contains(&"introspect"),
        "{names:?}"
    );
    assert!(
        !names.contains(&"delete_todo") && !names.contains(&"create_todo"),
        "{names:?}"
    );
}

#[tokio::test]
async fn tokens_that_do_not_hold_are_refused_with_why() {
    let provider = provider(0).await;
    let server = server(&provider).await;
    let (tool, arguments) = list();
    let brief = provider
        .token("brief", "todo.read", Some(&server.url))
        .await;
    let other = provider
        .token("alice", "todo.read", Some("http://127.0.0.1:1/other"))
        .await;
    let opaque = provider.token("alice", "todo.read", None).await;
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    for (token, why) in [
        (brief.as_str(), "expired"),
        (other.as_str(), "another resource"),
        (opaque.as_str(), "not a well-formed JWT"),
        ("a.b.c", "not a well-formed JWT"),
    ] {
        let refused = call(&server.url, Some(token), tool, arguments.clone()).await;
        refused.assert_invalid(why);
        assert!(!refused.body.contains(token), "the token is not echoed");
    }
}

#[tokio::test]
async fn a_missing_scope_is_a_403_and_a_new_token_steps_up() {
    let provider = provider(0).await;
    let server = server(&provider).await;
    let reader = provider
        .token("alice", "todo.read", Some(&server.url))
        .await;
    let delete = json!({"operation": "delete_todo", "params": {"id": 1}});
    let refused = call(&server.url, Some(&reader), "mcp_aql_delete", delete.clone()).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    assert!(
        refused.challenge.contains("error=\"insufficient_scope\"")
            && refused
                .challenge
                .contains("scope=\"todo.read todo.write todo.admin\""),
        "{}",
        refused.challenge
    );
    // A batch that holds the operation is refused as well.
    let batch = json!({"operations": [
        {"operation": "list_todos", "params": {}},
        {"operation": "delete_todo", "params": {"id": 1}}
    ]});
    let refused = call(&server.url, Some(&reader), "mcp_aql_read", batch).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);

    let admin = provider
        .token(
            "alice",
            "todo.read todo.write todo.admin",
            Some(&server.url),
        )
        .await;
    let asked = call(&server.url, Some(&admin), "mcp_aql_delete", delete.clone())
        .await
        .result();
    assert_eq!(asked["error"]["code"], "CONFIRMATION_REQUIRED", "{asked}");
    let confirmation = asked["error"]["details"]["confirmation_token"].clone();

    // The subject is the caller: bob's token cannot redeem what alice was asked to confirm.
    let bob = provider
        .token("bob", "todo.read todo.write todo.admin", Some(&server.url))
        .await;
    let mut confirmed = delete.clone();
    confirmed["params"]["confirmation_token"] = confirmation;
    let stolen = call(&server.url, Some(&bob), "mcp_aql_delete", confirmed.clone())
        .await
        .result();
    assert_eq!(stolen["success"], false, "{stolen}");
    let deleted = call(&server.url, Some(&admin), "mcp_aql_delete", confirmed)
        .await
        .result();
    assert_eq!(deleted["success"], true, "{deleted}");
}

/// The provider's keys are kept at most `--jwks-max-age` (here 2 s): after a rotation its new
/// key is taken, and the key it no longer publishes stops verifying, though tokens it signed
/// have not expired. A valid caller is never held up by the read.
#[tokio::test]
async fn rotated_keys_are_taken_and_removed_ones_stop_verifying() {
    let first = provider(0).await;
    let port = first.port();
    let api = demo_api().await;
    let server = server_with(&first, &api.base_url(), &["--jwks-max-age", "2"], &[]).await;
    let (tool, arguments) = list();
    let before = first.token("alice", "todo.read", Some(&server.url)).await;
    let read = std::time::Instant::now();
    let answer = call(&server.url, Some(&before), tool, arguments.clone()).await;
    assert_eq!(answer.result()["success"], true);
    // The same issuer comes back with a new signing key, as after a rotation.
    drop(first);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = provider(port).await;
    let after = second.token("alice", "todo.read", Some(&server.url)).await;
    assert_ne!(kid(&before), kid(&after), "a new key signs");
    // Past the keys' lifetime, the old token is still served while they are read again...
    tokio::time::sleep(Duration::from_millis(2_300).saturating_sub(read.elapsed())).await;
    let answer = call(&server.url, Some(&before), tool, arguments.clone()).await;
    assert_eq!(answer.result()["success"], true, "{}", answer.body);
    // ...and once they are, the removed key verifies nothing more.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let refused = call(&server.url, Some(&before), tool, arguments.clone()).await;
    refused.assert_invalid("a key its issuer does not publish");
    let answer = call(&server.url, Some(&after), tool, arguments).await;
    assert_eq!(answer.result()["success"], true, "{}", answer.body);
}

#[tokio::test]
async fn each_user_reaches_the_upstream_as_themselves() {
    use axum::http::HeaderMap;
    use std::sync::{Arc, Mutex};
    // An API that answers the list and notes the key each request brought.
    let keys: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
    let seen = keys.clone();
    let router = axum::Router::new().route(
        "/todos",
        axum::routing::get(move |headers: HeaderMap| {
            let seen = seen.clone();
            async move {
                let key = headers
                    .get("x-api-key")
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned);
                seen.lock().expect("keys").push(key);
                axum::Json(json!({"items": [], "total": 0}))
            }
        }),
    );
    let api = support::serve(router).await;
    let dir = std::env::temp_dir().join(format!("aqlgen-users-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let file = dir.join("users.json");
    std::fs::write(&file, r#"{"alice": "key-of-alice", "bob": "key-of-bob"}"#).expect("write");
    let provider = provider(0).await;
    let file_arg = file.to_str().expect("a UTF-8 path");
    let audit = dir.join("audit.jsonl");
    let audit_arg = audit.to_str().expect("a UTF-8 path");
    let server = server_with(
        &provider,
        &api,
        &["--user-credentials", file_arg, "--audit-log", audit_arg],
        &[],
    )
    .await;
    let (tool, arguments) = list();
    for client in ["alice", "bob"] {
        let token = provider.token(client, "todo.read", Some(&server.url)).await;
        let answer = call(&server.url, Some(&token), tool, arguments.clone()).await;
        assert_eq!(
            answer.result()["success"],
            true,
            "{client}: {}",
            answer.body
        );
    }
    let carol = provider
        .token("carol", "todo.read", Some(&server.url))
        .await;
    let refused = call(&server.url, Some(&carol), tool, arguments)
        .await
        .result();
    assert_eq!(refused["error"]["code"], "PERMISSION_DENIED", "{refused}");
    assert_eq!(
        refused["error"]["details"]["reason"],
        "CREDENTIAL_NOT_ON_FILE"
    );
    let keys = keys.lock().expect("keys").clone();
    assert_eq!(
        keys,
        [
            Some("key-of-alice".to_owned()),
            Some("key-of-bob".to_owned())
        ],
        "each user's own key, never the server's, never a token; carol's call never went out"
    );
    // The audit log says whose calls they were.
    let subjects: Vec<String> = std::fs::read_to_string(&audit)
        .expect("an audit log")
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| line["subject"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        subjects,
        ["alice", "bob"],
        "one decision each; carol was refused before the gate"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn opaque_tokens_are_checked_at_the_introspection_endpoint() {
    let provider = provider(0).await;
    let api = demo_api().await;
    let server = server_with(
        &provider,
        &api.base_url(),
        &["--introspection-client-id", "mcp-server"],
        &[("MCP_AQL_INTROSPECTION_CLIENT_SECRET", "mcp-server-secret")],
    )
    .await;
    let (tool, arguments) = list();
    let opaque = provider
        .token("opaque", "todo.read", Some(&server.url))
        .await;
    assert_eq!(opaque.split('.').count(), 1, "an opaque token: {opaque}");
    let answer = call(&server.url, Some(&opaque), tool, arguments.clone()).await;
    assert_eq!(answer.result()["success"], true, "{}", answer.body);
    // Its scopes count as a JWT's do.
    let delete = json!({"operation": "delete_todo", "params": {"id": 1}});
    let refused = call(&server.url, Some(&opaque), "mcp_aql_delete", delete).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.body);
    let elsewhere = provider
        .token("opaque", "todo.read", Some("http://127.0.0.1:1/other"))
        .await;
    for (token, why) in [
        (elsewhere.as_str(), "another resource"),
        ("not-a-token-anyone-issued", "not active"),
    ] {
        let refused = call(&server.url, Some(token), tool, arguments.clone()).await;
        refused.assert_invalid(why);
    }
    // JWTs are still taken beside them.
    let jwt = provider
        .token("alice", "todo.read", Some(&server.url))
        .await;
    let answer = call(&server.url, Some(&jwt), tool, arguments).await;
    assert_eq!(answer.result()["success"], true, "{}", answer.body);
}

/// An authorization server stand-in on 127.0.0.1: its metadata, and an introspection endpoint
/// that counts the requests it gets and knows no token as active.
async fn counting_issuer() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = Arc::new(AtomicUsize::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let issuer = format!("http://{}", listener.local_addr().expect("an address"));
    let metadata = json!({
        "issuer": issuer,
        "jwks_uri": format!("{issuer}/jwks"),
        "introspection_endpoint": format!("{issuer}/introspect"),
    });
    let counter = asked.clone();
    let router = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(move || async move { axum::Json(metadata) }),
        )
        .route(
            "/introspect",
            axum::routing::post(move || {
                let counter = counter.clone();
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    axum::Json(json!({"active": false}))
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, router).await });
    (issuer, asked)
}

/// Opaque tokens and the client secret go to the one issuer named for introspection, never
/// to the others; an answer is kept, inactive ones too, so a token asked about again costs
/// nothing; and a flood of made-up tokens is asked about at a bounded rate, the rest told to
/// retry (503) rather than refused as invalid.
#[tokio::test]
async fn opaque_tokens_go_to_one_issuer_at_a_bounded_rate() {
    use std::sync::atomic::Ordering;
    let (first, first_asked) = counting_issuer().await;
    let (second, second_asked) = counting_issuer().await;
    let issuers = format!("{first},{second}");
    let api = demo_api().await;
    let base = api.base_url();
    let Behind { mut child, url } = behind(
        &issuers,
        TODO_BIN,
        &[
            "--stateless",
            "--introspection-client-id",
            "mcp-server",
            "--introspection-issuer",
            &second,
        ],
        &[
            ("TODO_BASE_URL", &base),
            ("TODO_API_KEY", TODO_KEY),
            ("MCP_AQL_INTROSPECTION_CLIENT_SECRET", "mcp-server-secret"),
        ],
    )
    .await;
    let (tool, arguments) = list();

    for _ in 0..30 {
        call(
            &url,
            Some("the-same-made-up-token"),
            tool,
            arguments.clone(),
        )
        .await
        .assert_invalid("not active");
    }
    assert_eq!(
        second_asked.load(Ordering::SeqCst),
        1,
        "asked once, then kept"
    );
    let began = std::time::Instant::now();
    let mut throttled = 0;
    for n in 0..120 {
        let answer = call(&url, Some(&format!("made-up-{n}")), tool, arguments.clone()).await;
        match answer.status {
            StatusCode::SERVICE_UNAVAILABLE => throttled += 1,
            _ => answer.assert_invalid("not active"),
        }
    }
    let asked = second_asked.load(Ordering::SeqCst) - 1;
    let allowed = 20.0 + 10.0 * began.elapsed().as_secs_f64() + 1.0;
    assert!(
        (asked as f64) <= allowed,
        "{asked} introspection requests in {:?}: at most a burst of 20 and 10 a second",
        began.elapsed()
    );
    assert!(throttled > 0, "past the rate, callers are told to retry");
    assert_eq!(
        first_asked.load(Ordering::SeqCst),
        0,
        "the other issuer never sees a token or the secret"
    );
    child.kill().await.expect("stop the server");
}
