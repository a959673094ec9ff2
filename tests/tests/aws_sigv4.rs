//! Calls signed with AWS Signature Version 4 (`dynamodb-adapter.md` and `iam-adapter.md`),
//! through rmcp's client over stdio: against moto, an AWS emulator started on 127.0.0.1,
//! a table is created, written and read through DynamoDB's JSON protocol, each operation a
//! `POST /` told apart by the `X-Amz-Target` header it fixes, and an IAM user is created and
//! listed through the query protocol, each action a fixed query value (IAM answers XML,
//! passed on as text); against a recording API, what
//! goes on the wire: the signature's scope and signed headers, the session token, the region
//! override, and no secret anywhere. (The signatures themselves are held to AWS's own test
//! suite in the runtime's unit tests.)

mod support;

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::HeaderMap;
use serde_json::json;
use support::sdk::workspace;
use support::{call, serve, stdio_client_for};

const BIN: &str = env!("CARGO_BIN_EXE_real-api-adapter");
const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

/// moto's server on a free port of 127.0.0.1, stopped with the test; its base URL.
async fn moto() -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let venv = std::env::var_os("AQLGEN_PY_VENV")
        .map_or_else(|| workspace().join("target/py-mcp"), Into::into);
    let child = tokio::process::Command::new(venv.join("bin/moto_server"))
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("moto_server runs (scripts/setup installs it)");
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        if reqwest::get(format!("{url}/moto-api/")).await.is_ok() {
            return (child, url);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("moto did not listen within 10 s");
}

/// A call whose answer quotes upstream text freely: IAM's ARNs hold `::`, which
/// [`support::parse`] takes for a leaked Rust path.
async fn raw_call(
    client: &support::Client,
    tool: &str,
    arguments: serde_json::Value,
) -> serde_json::Value {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let result = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments),
        )
        .await
        .expect("tools/call answers");
    let text = &result.content[0].as_text().expect("text content").text;
    serde_json::from_str(text).expect("MCP-AQL JSON")
}

fn env(base_url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("REAL_API", "dynamodb".to_owned()),
        ("DYNAMODB_BASE_URL", base_url.to_owned()),
        ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE".to_owned()),
        ("AWS_SECRET_ACCESS_KEY", SECRET.to_owned()),
    ]
}

async fn client(env: &[(&'static str, String)]) -> support::Client {
    let env: Vec<(&str, &str)> = env
        .iter()
        .map(|(key, value)| (*key, value.as_str()))
        .collect();
    stdio_client_for(BIN, &[], &env).await
}

#[tokio::test]
async fn a_table_is_created_written_and_read_on_the_emulator() {
    let (_moto, url) = moto().await;
    let client = client(&env(&url)).await;
    let (created, _) = call(
        &client,
        "mcp_aql_create",
        json!({"operation": "create_table", "params": {
            "table_name": "notes",
            "key_schema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "attribute_definitions": [{"AttributeName": "id", "AttributeType": "S"}]
        }}),
    )
    .await;
    assert_eq!(created["success"], true, "{created}");
    assert_eq!(created["data"]["TableDescription"]["TableName"], "notes");
    let (put, _) = call(
        &client,
        "mcp_aql_create",
        json!({"operation": "put_item", "params": {
            "table_name": "notes", "item": {"id": {"S": "1"}, "text": {"S": "signed"}}
        }}),
    )
    .await;
    assert_eq!(put["success"], true, "{put}");
    let (item, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "get_item", "params": {"table_name": "notes", "key": {"id": {"S": "1"}}}}),
    )
    .await;
    assert_eq!(item["data"]["Item"]["text"]["S"], "signed", "{item}");
    let (tables, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "list_tables", "params": {}}),
    )
    .await;
    assert_eq!(tables["data"]["TableNames"], json!(["notes"]), "{tables}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_user_is_created_and_listed_through_the_query_protocol() {
    let (_moto, url) = moto().await;
    let mut env = env(&url);
    env[0].1 = "iam".to_owned();
    env.push(("IAM_BASE_URL", url.clone()));
    let client = client(&env).await;
    let created = raw_call(
        &client,
        "mcp_aql_create",
        json!({"operation": "create_user", "params": {"user_name": "agent-7"}}),
    )
    .await;
    assert_eq!(created["success"], true, "{created}");
    let users = raw_call(
        &client,
        "mcp_aql_read",
        json!({"operation": "list_users", "params": {}}),
    )
    .await;
    let xml = users["data"]["content"].as_str().unwrap_or_default();
    assert!(xml.contains("<UserName>agent-7</UserName>"), "{users}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn what_goes_on_the_wire_is_signed_and_holds_no_secret() {
    let seen: Arc<Mutex<Vec<HeaderMap>>> = Arc::default();
    let recorded = seen.clone();
    let router = axum::Router::new().route(
        "/",
        axum::routing::post(move |headers: HeaderMap| {
            let recorded = recorded.clone();
            async move {
                recorded.lock().expect("headers").push(headers);
                axum::Json(json!({"TableNames": []}))
            }
        }),
    );
    let api = serve(router).await;
    let mut with_session = env(&api);
    with_session.push(("AWS_SESSION_TOKEN", "session-token-7f".to_owned()));
    with_session.push(("DYNAMODB_REGION", "eu-west-1".to_owned()));
    let client = client(&with_session).await;
    let (answer, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "list_tables", "params": {}}),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
    assert!(!answer.to_string().contains(SECRET));
    client.cancel().await.expect("close");

    let headers = seen.lock().expect("headers")[0].clone();
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(header("x-amz-target"), "DynamoDB_20120810.ListTables");
    assert_eq!(header("content-type"), "application/x-amz-json-1.0");
    assert_eq!(header("x-amz-security-token"), "session-token-7f");
    let authorization = header("authorization");
    let date = &header("x-amz-date")[..8];
    assert!(
        authorization.starts_with(&format!(
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/{date}/eu-west-1/dynamodb/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature="
        )),
        "{authorization}"
    );
    let signature = authorization.rsplit('=').next().unwrap_or_default();
    assert_eq!(signature.len(), 64, "a hex SHA-256 HMAC: {authorization}");
    assert!(
        !headers
            .values()
            .any(|value| value.as_bytes() == SECRET.as_bytes())
    );
}

#[tokio::test]
async fn a_missing_secret_is_named_and_nothing_is_sent() {
    let (_moto, url) = moto().await;
    let mut without = env(&url);
    without.retain(|(key, _)| *key != "AWS_SECRET_ACCESS_KEY");
    let client = client(&without).await;
    let (refused, _) = call(
        &client,
        "mcp_aql_read",
        json!({"operation": "list_tables", "params": {}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], "PERMISSION_DENIED", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("AWS_SECRET_ACCESS_KEY"), "{message}");
    client.cancel().await.expect("close");
}
