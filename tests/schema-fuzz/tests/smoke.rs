//! A smoke call through each hand-picked adapter and a few generated ones: the server binary
//! behind rmcp's client over stdio, against an echo upstream on 127.0.0.1. Every answer must
//! validate against the official schemas, none may be an internal error, and each
//! hand-picked adapter must complete a call.

use std::process::Stdio;

use aqlgen_runtime::adapter::Auth;
use aqlgen_spec_schemas::{Schema, assert_valid};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::process::Command;

const SERVER: &str = env!("CARGO_BIN_EXE_schema-fuzz-server");

/// Generated adapters smoked besides the hand-picked ones.
const GENERATED: usize = 4;

/// An upstream that answers every request with what it received.
async fn echo_upstream() -> String {
    async fn echo(request: axum::extract::Request) -> axum::response::Response {
        let body = json!({
            "method": request.method().as_str(),
            "path": request.uri().path(),
            "query": request.uri().query(),
        });
        axum::response::Response::builder()
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .expect("a response")
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let address = listener.local_addr().expect("an address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, axum::Router::new().fallback(echo)).await;
    });
    format!("http://{address}")
}

fn credentials(auth: &Auth) -> Vec<&'static str> {
    match *auth {
        Auth::None => Vec::new(),
        Auth::Bearer { token_env, .. } => vec![token_env],
        Auth::ApiKey { key_env, .. } => vec![key_env],
        Auth::Basic {
            username_env,
            password_env,
        } => vec![username_env, password_env],
        // The strategy draws no `oauth2`: the echo upstream hands out no tokens.
        Auth::OAuth2(oauth) => vec![oauth.client_id_env, oauth.client_secret_env],
        // Nor `aws_sigv4`; the echo upstream would take any signature.
        Auth::AwsSigV4(aws) => vec![aws.access_key_id_env, aws.secret_access_key_env],
        Auth::Combined(parts) => parts.iter().flat_map(credentials).collect(),
    }
}

/// Calls every operation of adapter `index` with the example its introspection gives;
/// returns how many calls succeeded.
async fn smoke(index: usize, upstream: &str) -> usize {
    let info = aqlgen_schema_fuzz::info(index).expect("an adapter");
    let schema = aqlgen_schema_fuzz::SCHEMAS[index];
    let mut command = Command::new(SERVER);
    command
        .args(["--trust-level", "certified"])
        .env("AQLGEN_FUZZ_ADAPTER", index.to_string())
        .env(info.base_url_env, upstream)
        .env("RUST_LOG", "error")
        .kill_on_drop(true);
    for variable in credentials(&info.auth) {
        command.env(variable, "smoke-secret");
    }
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the server");
    let client = ().serve(transport).await.expect("MCP initialize");
    let call = |tool: String, arguments: Value| {
        let peer = client.peer().clone();
        async move {
            let Value::Object(arguments) = arguments else {
                unreachable!("objects only")
            };
            let result = peer
                .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
                .await
                .expect("tools/call answers");
            let text = &result.content[0].as_text().expect("text").text;
            serde_json::from_str::<Value>(text).expect("JSON text")
        }
    };
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(!tools.is_empty(), "{schema}: tools");
    let list = call(
        "mcp_aql_read".into(),
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_valid(Schema::IntrospectionResponse, &list, schema);
    let mut succeeded = 0;
    for operation in list["data"]["operations"].as_array().expect("operations") {
        let name = operation["name"].as_str().expect("a name");
        if name == "introspect" {
            continue;
        }
        let details = call(
            "mcp_aql_read".into(),
            json!({"operation": "introspect", "params": {"query": "operations", "name": name}}),
        )
        .await;
        assert_valid(
            Schema::IntrospectionResponse,
            &details,
            &format!("{schema} {name}"),
        );
        let details = &details["data"]["operation"];
        let tool = details["mcpTool"].as_str().expect("mcpTool").to_owned();
        let mut params = details["examples"][0]["request"]["params"].clone();
        let mut answer = call(tool.clone(), json!({"operation": name, "params": params})).await;
        if answer["error"]["code"] == "CONFIRMATION_REQUIRED" {
            params["confirmation_token"] = answer["error"]["details"]["confirmation_token"].clone();
            answer = call(tool, json!({"operation": name, "params": params})).await;
        }
        assert_valid(
            Schema::OperationResult,
            &answer,
            &format!("{schema} {name}"),
        );
        assert_ne!(
            answer["error"]["code"], "INTERNAL_ERROR",
            "{schema} {name}: {answer}"
        );
        if answer["success"] == true {
            succeeded += 1;
        }
    }
    client.cancel().await.expect("close");
    succeeded
}

#[tokio::test]
async fn each_nasty_adapter_and_a_few_generated_ones_answer_a_call() {
    let upstream = echo_upstream().await;
    let total = aqlgen_schema_fuzz::SCHEMAS.len();
    let picked = (0..aqlgen_schema_fuzz::NASTY).chain(
        (aqlgen_schema_fuzz::NASTY..total)
            .step_by(((total - aqlgen_schema_fuzz::NASTY) / GENERATED).max(1))
            .take(GENERATED),
    );
    for index in picked {
        let succeeded = smoke(index, &upstream).await;
        if index < aqlgen_schema_fuzz::NASTY {
            assert!(
                succeeded > 0,
                "{}: no call succeeded",
                aqlgen_schema_fuzz::SCHEMAS[index]
            );
        }
    }
}
