//! Three real API shapes, end to end: `build.rs` imports `real-apis/*.yaml` (Azure Key
//! Vault's `api-version`, Stripe's form-encoded writes with nested keys, Slack's form-encoded
//! RPC methods and OAuth token) as `aqlgen import-openapi` does and compiles the adapters;
//! each test calls one through rmcp's stdio client and checks the exact request a recording
//! upstream on 127.0.0.1 received: method, path, query, headers and body.

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, Uri};
use serde_json::{Value, json};
use support::{Client, assert_result, call, prism, serve, stdio_client_for};

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");

/// One request as the upstream received it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    query: Option<String>,
    headers: BTreeMap<String, String>,
    body: String,
}

/// An upstream on 127.0.0.1 that records every request and answers `answer`.
struct Recorder {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Recorder {
    async fn start(answer: Value) -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let router = axum::Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let log = log.clone();
                let answer = answer.clone();
                async move {
                    log.lock().expect("the log").push(Seen {
                        method: method.to_string(),
                        path: uri.path().to_owned(),
                        query: uri.query().map(str::to_owned),
                        headers: headers
                            .iter()
                            .map(|(name, value)| {
                                let value = String::from_utf8_lossy(value.as_bytes());
                                (name.as_str().to_owned(), value.into_owned())
                            })
                            .collect(),
                        body: String::from_utf8_lossy(&body).into_owned(),
                    });
                    axum::Json(answer)
                }
            },
        );
        Self {
            base: serve(router).await,
            seen,
        }
    }

    /// The requests received since the last call, oldest first.
    fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.seen.lock().expect("the log"))
    }
}

/// The adapter imported from `real-apis/<api>`, served over stdio, its base URL `base`,
/// trusted enough to write (imports are stamped `generated`).
async fn adapter(api: &str, base: &str, env: &[(&str, &str)]) -> Client {
    let base_url = format!("{}_BASE_URL", api.to_uppercase());
    let mut all = vec![("REAL_API", api), (base_url.as_str(), base)];
    all.extend_from_slice(env);
    stdio_client_for(BIN, &["--trust-level", "validated"], &all).await
}

/// Calls `operation` with `params` through `tool` and returns the answer, which must be a
/// success.
async fn succeed(client: &Client, tool: &str, operation: &str, params: Value) -> Value {
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
    answer
}

#[tokio::test]
async fn every_place_and_style_a_param_can_take() {
    let upstream = Recorder::start(json!({"ok": true})).await;
    let client = adapter("wire", &upstream.base, &[("WIRE_KEY", "wire-key-1")]).await;

    succeed(
        &client,
        "mcp_aql_read",
        "find_stops",
        json!({
            "lines": ["1", "N 2"],
            "near": {"lat": 51.5, "lon": -0.1},
            "mode": "bus",
            "filter": {"zone": "1"},
            "ids": ["a", "b"],
            "request_id": "r-7",
            "tags": ["x", "y"],
            "session": "s 1",
            "page_size": 5,
        }),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].path, "/lines/1,N%202/stops;lat=51.5;lon=-0.1");
    assert_eq!(
        seen[0].query.as_deref(),
        Some("format=json&mode=bus&filter%5Bzone%5D=1&ids=a%7Cb&%24top=5")
    );
    assert_eq!(seen[0].headers["x-request-id"], "r-7");
    assert_eq!(seen[0].headers["x-tags"], "x,y");
    assert_eq!(seen[0].headers["cookie"], "session=s%201");
    assert_eq!(seen[0].headers["x-api-key"], "wire-key-1");

    let (refused, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "find_stops", "params": {
            "lines": ["1"], "near": {"lat": 1}, "request_id": "r\r\nX-Evil: 1"}}),
    )
    .await;
    assert_eq!(
        refused["error"]["code"], "VALIDATION_INVALID_VALUE",
        "{refused}"
    );
    assert!(
        upstream.take().is_empty(),
        "no request with a broken header"
    );

    use base64::Engine as _;
    let photo = base64::engine::general_purpose::STANDARD.encode(b"\x89PNG\x00\xff");
    succeed(
        &client,
        "mcp_aql_create",
        "upload_photo",
        json!({"stop_id": "s1", "photo": photo, "caption": "hi", "labels": ["a"]}),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("POST", "/stops/s1/photos")
    );
    assert_eq!(seen[0].query.as_deref(), Some("api-version=2024-01"));
    let content_type = &seen[0].headers["content-type"];
    let boundary = content_type
        .strip_prefix("multipart/form-data; boundary=")
        .expect("a multipart body");
    let parts: Vec<&str> = seen[0].body.split(&format!("--{boundary}")).collect();
    assert!(
        parts[1].contains("name=\"photo\"; filename=\"photo\""),
        "{}",
        seen[0].body
    );
    assert!(parts[2].ends_with("\r\n\r\nhi\r\n"), "{}", parts[2]);
    assert!(
        parts[3].contains("Content-Type: application/json\r\n\r\n[\"a\"]"),
        "{}",
        parts[3]
    );

    let (refused, _) = call(
        &client,
        "mcp_aql_create",
        json!({"operation": "upload_photo", "params": {"stop_id": "s1", "photo": "not base64!"}}),
    )
    .await;
    assert_eq!(
        refused["error"]["code"], "VALIDATION_INVALID_VALUE",
        "{refused}"
    );
    assert!(upstream.take().is_empty());

    // A DELETE whose params say `in: body` sends them as a JSON body, once confirmed.
    let params = json!({"stop_id": "s1", "message": "Remove old photo", "sha": "abc"});
    let (asked, _) = call(
        &client,
        "mcp_aql_delete",
        json!({"operation": "delete_stop_file", "params": params}),
    )
    .await;
    assert_eq!(asked["error"]["code"], "CONFIRMATION_REQUIRED", "{asked}");
    let mut confirmed = params.clone();
    confirmed["confirmation_token"] = asked["error"]["details"]["confirmation_token"].clone();
    succeed(&client, "mcp_aql_delete", "delete_stop_file", confirmed).await;
    let seen = upstream.take();
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("DELETE", "/stops/s1/files")
    );
    assert_eq!(
        serde_json::from_str::<Value>(&seen[0].body).expect("a JSON body"),
        json!({"message": "Remove old photo", "sha": "abc"})
    );
    client.cancel().await.expect("close");
}

/// The bodies real documents require, through the importer, the generator and the runtime:
/// each request carries its body as the document means it, and nothing the caller left out.
#[tokio::test]
async fn every_required_body_goes_out_as_the_document_means_it() {
    let upstream = Recorder::start(json!({"ok": true})).await;
    let client = adapter("bodies", &upstream.base, &[]).await;
    let body = |seen: &Seen| serde_json::from_str::<Value>(&seen.body).expect("a JSON body");

    // Kubernetes: the merge patch, an object the caller writes as it likes.
    let patch =
        json!({"metadata": {"labels": {"tier": "web"}}, "spec": {"activeDeadlineSeconds": 30}});
    succeed(
        &client,
        "mcp_aql_update",
        "patch_core_v1_namespaced_pod",
        json!({"namespace": "default", "name": "web-1", "body": patch}),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(
        (seen[0].method.as_str(), seen[0].path.as_str()),
        ("PATCH", "/api/v1/namespaces/default/pods/web-1")
    );
    assert_eq!(
        seen[0].headers["content-type"],
        "application/merge-patch+json"
    );
    assert_eq!(body(&seen[0]), patch);

    // Azure: tags, whatever their names.
    succeed(
        &client,
        "mcp_aql_update",
        "vaults_update_tags",
        json!({"subscription_id": "s-1", "body": {"env": "prod", "Cost Centre": "42"}}),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(seen[0].headers["content-type"], "application/json");
    assert_eq!(body(&seen[0]), json!({"env": "prod", "Cost Centre": "42"}));

    // An empty object, and a body none of whose members is given: `{}` goes out.
    succeed(
        &client,
        "mcp_aql_create",
        "create_queue_snapshot",
        json!({"queue": "q1"}),
    )
    .await;
    succeed(
        &client,
        "mcp_aql_update",
        "dependabot_create_or_update_repo_secret",
        json!({"owner": "o", "repo": "r", "secret_name": "S", "input": {}}),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(seen.len(), 2);
    for request in &seen {
        assert_eq!(request.headers["content-type"], "application/json");
        assert_eq!(body(request), json!({}), "{request:?}");
    }

    // DigitalOcean: an update that mentions nothing changes nothing, `ttl`'s default aside.
    succeed(
        &client,
        "mcp_aql_update",
        "cdn_update_endpoints",
        json!({"cdn_id": "c1", "input": {}}),
    )
    .await;
    succeed(
        &client,
        "mcp_aql_update",
        "cdn_update_endpoints",
        json!({"cdn_id": "c1", "input": {"certificate_id": "cert-9"}}),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(seen[0].method, "PUT");
    assert_eq!(body(&seen[0]), json!({}));
    assert_eq!(body(&seen[1]), json!({"certificate_id": "cert-9"}));

    // A body of variants: what each requires is asked for, and one variant whole.
    let balancer =
        json!({"region": "ams3", "forwarding_rules": [{"entry_port": 80}], "tag": "web"});
    succeed(
        &client,
        "mcp_aql_create",
        "load_balancers_create",
        balancer.clone(),
    )
    .await;
    assert_eq!(body(&upstream.take()[0]), balancer);
    let (refused, _) = call(
        &client,
        "mcp_aql_create",
        json!({"operation": "load_balancers_create", "params": {"region": "ams3", "forwarding_rules": []}}),
    )
    .await;
    assert_eq!(
        refused["error"]["code"], "VALIDATION_MISSING_PARAM",
        "{refused}"
    );
    assert_eq!(
        refused["error"]["details"]["alternatives"],
        json!([["droplet_ids"], ["tag"]])
    );
    assert!(upstream.take().is_empty());

    // pdfblocks: a list of files, one file part each.
    succeed(
        &client,
        "mcp_aql_create",
        "create_combined_document_v1",
        json!({"file": ["JVBERi0xLjQK", "JVBERi0xLjcK"]}),
    )
    .await;
    let seen = upstream.take();
    assert!(
        seen[0].headers["content-type"].starts_with("multipart/form-data; boundary="),
        "{seen:?}"
    );
    assert_eq!(seen[0].headers["accept"], "application/pdf");
    assert_eq!(
        seen[0].body.matches("form-data; name=\"file\"").count(),
        2,
        "{}",
        seen[0].body
    );
    assert!(seen[0].body.contains("%PDF-1.4") && seen[0].body.contains("%PDF-1.7"));

    // The document's lengths and pattern are checked before anything leaves.
    for name in ["x".repeat(256), "a/b".to_owned()] {
        let (refused, _) = call(
            &client,
            "mcp_aql_update",
            json!({"operation": "upload_file_content", "params": {"name": name, "body": ""}}),
        )
        .await;
        assert_eq!(
            refused["error"]["code"], "VALIDATION_INVALID_VALUE",
            "{refused}"
        );
    }
    assert!(upstream.take().is_empty());

    // Twilio: the body is optional, but a configuration is made of what it requires.
    let (refused, _) = call(
        &client,
        "mcp_aql_create",
        json!({"operation": "create_configuration_address", "params": {"type": "sms"}}),
    )
    .await;
    assert_eq!(
        refused["error"]["code"], "VALIDATION_MISSING_PARAM",
        "{refused}"
    );
    succeed(
        &client,
        "mcp_aql_create",
        "create_configuration_address",
        json!({"type": "sms", "address": "+15005550006"}),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].body, "Address=%2B15005550006&Type=sms");

    // Raw bodies: a file's bytes from base64, a CSV's text as it is.
    succeed(
        &client,
        "mcp_aql_update",
        "upload_file_content",
        json!({"name": "logo.png", "body": "iVBORw0KGgo="}),
    )
    .await;
    succeed(
        &client,
        "mcp_aql_create",
        "create_import",
        json!({"body": "name,email\nAda,ada@example.com\n"}),
    )
    .await;
    let seen = upstream.take();
    assert_eq!(seen[0].headers["content-type"], "application/octet-stream");
    // The recorder keeps text: the PNG signature's first byte is no UTF-8.
    assert_eq!(seen[0].headers["content-length"], "8");
    assert_eq!(seen[0].body, String::from_utf8_lossy(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(seen[1].headers["content-type"], "text/csv");
    assert_eq!(seen[1].body, "name,email\nAda,ada@example.com\n");

    // A JSON array is the body as it is.
    let records = json!([{"name": "a"}, {"name": "b"}]);
    succeed(
        &client,
        "mcp_aql_create",
        "create_batch",
        json!({"body": records}),
    )
    .await;
    assert_eq!(body(&upstream.take()[0]), records);

    // An answer that is only a PDF is asked for as one.
    succeed(
        &client,
        "mcp_aql_read",
        "get_invoice_pdf",
        json!({"id": "in_1"}),
    )
    .await;
    assert_eq!(upstream.take()[0].headers["accept"], "application/pdf");

    // A whole body of the wrong type is refused before anything leaves.
    let (refused, _) = call(
        &client,
        "mcp_aql_create",
        json!({"operation": "create_batch", "params": {"body": {"name": "a"}}}),
    )
    .await;
    assert_eq!(
        refused["error"]["code"], "VALIDATION_INVALID_TYPE",
        "{refused}"
    );
    assert!(upstream.take().is_empty());
    client.cancel().await.expect("close");
}

/// The same calls with Prism as the upstream, mocking `real-apis/bodies.yaml`: it accepts
/// each request only if the document allows it, so the bodies, their media types and `Accept`
/// are checked by something that did not produce them.
#[tokio::test]
async fn prism_accepts_every_body_and_accept_header() {
    let document = support::sdk::workspace().join("tests/real-apis/bodies.yaml");
    let prism = prism::mock(&document).await;

    // Prism refuses what the document does not allow: a required body left out, a PDF
    // asked for as JSON.
    let http = reqwest::Client::new();
    let without_body = http
        .put(format!("{}/repos/o/r/dependabot/secrets/S", prism.base))
        .send()
        .await
        .expect("prism answers");
    assert_eq!(without_body.status(), 422);
    let as_json = http
        .get(format!("{}/invoices/in_1/pdf", prism.base))
        .header("accept", "application/json")
        .send()
        .await
        .expect("prism answers");
    assert_eq!(as_json.status(), 406);

    let client = adapter("bodies", &prism.base, &[]).await;
    let calls = [
        (
            "mcp_aql_update",
            "patch_core_v1_namespaced_pod",
            json!({"namespace": "default", "name": "web-1", "body": {"metadata": {"labels": {"tier": "web"}}}}),
        ),
        (
            "mcp_aql_update",
            "vaults_update_tags",
            json!({"subscription_id": "s-1", "body": {"env": "prod"}}),
        ),
        (
            "mcp_aql_create",
            "create_queue_snapshot",
            json!({"queue": "q1"}),
        ),
        (
            "mcp_aql_update",
            "dependabot_create_or_update_repo_secret",
            json!({"owner": "o", "repo": "r", "secret_name": "S", "input": {}}),
        ),
        (
            "mcp_aql_update",
            "cdn_update_endpoints",
            json!({"cdn_id": "c1", "input": {}}),
        ),
        (
            "mcp_aql_create",
            "create_batch",
            json!({"body": [{"name": "a"}]}),
        ),
        (
            "mcp_aql_create",
            "load_balancers_create",
            json!({"region": "ams3", "forwarding_rules": [], "droplet_ids": [3164444]}),
        ),
        // Not the list of files: Prism 5.16 keeps only the last of the parts that share a
        // name (its pull request 2654, open, reads them as the array OpenAPI means), and
        // answers 422 to a list sent as OpenAPI sends it. The recording test above checks
        // those parts.
        ("mcp_aql_read", "get_invoice_pdf", json!({"id": "in_1"})),
        (
            "mcp_aql_create",
            "create_configuration_address",
            json!({"type": "sms", "address": "+15005550006"}),
        ),
        (
            "mcp_aql_update",
            "upload_file_content",
            json!({"name": "logo.png", "body": "iVBORw0KGgo="}),
        ),
        (
            "mcp_aql_create",
            "create_import",
            json!({"body": "name,email\nAda,ada@example.com\n"}),
        ),
    ];
    for (tool, operation, params) in calls {
        succeed(&client, tool, operation, params).await;
    }
    client.cancel().await.expect("close");
}

/// Two API keys required together (VTEX's app key and app token): both go out on every
/// call, each from its own variable; without one the call is refused naming it, and Prism
/// accepts the pair where its document requires both.
#[tokio::test]
async fn credentials_required_together_are_all_sent() {
    let upstream = Recorder::start(json!({"ok": true})).await;
    let keys = [
        ("CREDENTIALS_APP_KEY", "vtexappkey-1"),
        ("CREDENTIALS_APP_TOKEN", "token-2"),
    ];
    let client = adapter("credentials", &upstream.base, &keys).await;
    succeed(&client, "mcp_aql_read", "list_orders", json!({})).await;
    let seen = upstream.take();
    assert_eq!(seen[0].headers["x-vtex-api-appkey"], "vtexappkey-1");
    assert_eq!(seen[0].headers["x-vtex-api-apptoken"], "token-2");
    client.cancel().await.expect("close");

    let half = adapter("credentials", &upstream.base, &keys[..1]).await;
    let (refused, _) = call(
        &half,
        "mcp_aql_read",
        json!({"operation": "list_orders", "params": {}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], "PERMISSION_DENIED", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("CREDENTIALS_APP_TOKEN"), "{refused}");
    assert!(!refused.to_string().contains("vtexappkey-1"), "{refused}");
    assert!(upstream.take().is_empty());
    half.cancel().await.expect("close");

    let document = support::sdk::workspace().join("tests/real-apis/credentials.yaml");
    let prism = prism::mock(&document).await;
    let unauthenticated = reqwest::get(format!("{}/api/oms/pvt/orders", prism.base))
        .await
        .expect("prism answers");
    assert_eq!(
        unauthenticated.status(),
        401,
        "prism checks the credentials"
    );
    let client = adapter("credentials", &prism.base, &keys).await;
    succeed(&client, "mcp_aql_read", "list_orders", json!({})).await;
    client.cancel().await.expect("close");
}
