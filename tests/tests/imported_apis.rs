//! What `aqlgen import-openapi` makes of three real API shapes reaches the upstream as the
//! API expects it: `build.rs` imports `real-apis/*.yaml` and compiles the adapters, and each
//! test calls one through rmcp's stdio client against a recording upstream on 127.0.0.1.
//! Azure's `api-version` is a public `api_version` sent under its own name, in the query
//! of a PUT too; Stripe's form-encoded writes nest keys as its `encoding` says, and its
//! update by POST is an UPDATE; Slack's token is the bearer token of its OAuth2 scheme, not
//! a param, and its `chat.delete`, a POST, is a DELETE that asks first.

mod support;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Uri};
use serde_json::{Value, json};
use support::{Client, assert_result, call, serve, stdio_client_for};

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");

/// One request as the upstream received it: method, path, query, the headers asked for,
/// body.
type Seen = (String, String, Option<String>, HeaderMap, String);

/// Starts an upstream that records every request and answers `{"ok": true}`, and the
/// adapter imported from `real-apis/<api>` against it.
async fn adapter(api: &str, env: &[(&str, &str)]) -> (Client, Arc<Mutex<Vec<Seen>>>) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let router = axum::Router::new().fallback(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let log = log.clone();
            async move {
                log.lock().expect("the log").push((
                    method.to_string(),
                    uri.path().to_owned(),
                    uri.query().map(str::to_owned),
                    headers,
                    String::from_utf8_lossy(&body).into_owned(),
                ));
                axum::Json(json!({"ok": true}))
            }
        },
    );
    let base = serve(router).await;
    let base_url = format!("{}_BASE_URL", api.to_uppercase());
    let mut all = vec![("REAL_API", api), (base_url.as_str(), base.as_str())];
    all.extend_from_slice(env);
    let client = stdio_client_for(BIN, &["--trust-level", "validated"], &all).await;
    (client, seen)
}

/// Calls `operation` through `tool`; the answer must be a success.
async fn succeed(client: &Client, tool: &str, operation: &str, params: Value) {
    let (answer, is_error) = call(
        client,
        tool,
        json!({"operation": operation, "params": params}),
    )
    .await;
    assert_result(&answer);
    assert!(
        !is_error && answer["success"] == true,
        "{operation}: {answer}"
    );
}

/// The one request recorded since the last call.
fn only(seen: &Mutex<Vec<Seen>>) -> Seen {
    let mut seen = std::mem::take(&mut *seen.lock().expect("the log"));
    assert_eq!(seen.len(), 1, "{seen:?}");
    seen.remove(0)
}

#[tokio::test]
async fn azure_api_version_goes_in_the_query_under_its_own_name() {
    let (client, seen) = adapter("azure", &[("AZURE_TOKEN", "az-1")]).await;
    succeed(
        &client,
        "mcp_aql_read",
        "get_secret",
        json!({"secret_name": "db", "secret_version": "v2", "api_version": "7.4"}),
    )
    .await;
    let (method, path, query, headers, _) = only(&seen);
    assert_eq!((method.as_str(), path.as_str()), ("GET", "/secrets/db/v2"));
    assert_eq!(query.as_deref(), Some("api-version=7.4"));
    assert_eq!(headers["authorization"], "Bearer az-1");

    // A PUT sends its body, and still `api-version` in the query.
    succeed(
        &client,
        "mcp_aql_update",
        "set_secret",
        json!({"secret_name": "db", "api_version": "7.4", "input": {"value": "s3cret", "content_type": "text/plain"}}),
    )
    .await;
    let (method, path, query, _, body) = only(&seen);
    assert_eq!((method.as_str(), path.as_str()), ("PUT", "/secrets/db"));
    assert_eq!(query.as_deref(), Some("api-version=7.4"));
    let body: Value = serde_json::from_str(&body).expect("a JSON body");
    assert_eq!(
        body,
        json!({"value": "s3cret", "contentType": "text/plain"})
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn stripe_writes_are_forms_with_nested_keys() {
    let (client, seen) = adapter("stripe", &[("STRIPE_TOKEN", "sk_test_1")]).await;
    succeed(
        &client,
        "mcp_aql_create",
        "post_customers",
        json!({
            "email": "a@example.com",
            "address": {"city": "Paris", "line1": "1 rue"},
            "metadata": {"plan": "pro"},
            "expand": ["tax"],
        }),
    )
    .await;
    let (method, path, _, headers, body) = only(&seen);
    assert_eq!((method.as_str(), path.as_str()), ("POST", "/v1/customers"));
    assert_eq!(headers["content-type"], "application/x-www-form-urlencoded");
    let mut pairs: Vec<&str> = body.split('&').collect();
    pairs.sort_unstable();
    assert_eq!(
        pairs,
        [
            "address%5Bcity%5D=Paris",
            "address%5Bline1%5D=1+rue",
            "email=a%40example.com",
            "expand%5B0%5D=tax",
            "metadata%5Bplan%5D=pro",
        ],
        "{body}"
    );
    assert_eq!(headers["authorization"], "Bearer sk_test_1");

    succeed(
        &client,
        "mcp_aql_update",
        "post_customers_customer",
        json!({"customer": "cus_1", "input": {"metadata": {"tier": "gold"}}}),
    )
    .await;
    let (method, path, _, _, body) = only(&seen);
    assert_eq!(
        (method.as_str(), path.as_str()),
        ("POST", "/v1/customers/cus_1")
    );
    assert_eq!(body, "metadata%5Btier%5D=gold");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn slack_writes_are_forms_and_its_token_is_auth() {
    let (client, seen) = adapter("slack", &[("SLACK_TOKEN", "xoxb-1")]).await;
    succeed(
        &client,
        "mcp_aql_execute",
        "chat_post_message",
        json!({"channel": "C1", "text": "hi there"}),
    )
    .await;
    let (method, path, _, headers, body) = only(&seen);
    assert_eq!(
        (method.as_str(), path.as_str()),
        ("POST", "/chat.postMessage")
    );
    assert!(!headers.contains_key("token"), "the token is no param");
    assert_eq!(headers["authorization"], "Bearer xoxb-1");
    let mut pairs: Vec<&str> = body.split('&').collect();
    pairs.sort_unstable();
    assert_eq!(pairs, ["channel=C1", "text=hi+there"], "{body}");

    // `chat.delete` is a POST, but it deletes: a DELETE operation, confirmed first.
    let params = json!({"channel": "C1", "ts": "17.1"});
    let (asked, _) = call(
        &client,
        "mcp_aql_delete",
        json!({"operation": "chat_delete", "params": params}),
    )
    .await;
    assert_eq!(asked["error"]["code"], "CONFIRMATION_REQUIRED", "{asked}");
    assert!(
        seen.lock().expect("the log").is_empty(),
        "nothing sent before confirmation"
    );
    let mut confirmed = params.clone();
    confirmed["confirmation_token"] = asked["error"]["details"]["confirmation_token"].clone();
    succeed(&client, "mcp_aql_delete", "chat_delete", confirmed).await;
    let (_, path, _, _, body) = only(&seen);
    assert_eq!(path, "/chat.delete");
    let mut pairs: Vec<&str> = body.split('&').collect();
    pairs.sort_unstable();
    assert_eq!(pairs, ["channel=C1", "ts=17.1"], "{body}");
    client.cancel().await.expect("close");
}
