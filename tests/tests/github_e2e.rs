//! The generated github adapter (generated/github), served by runtime-support, driven by
//! rmcp's client over stdio against demo-upstream's GitHub-like API on 127.0.0.1.

mod support;

use serde_json::{Value, json};
use support::{assert_result, call};

const GITHUB_BIN: &str = env!("CARGO_BIN_EXE_github-adapter-server");
const TOKEN: &str = "gh-test-token";

/// A declared `format` is checked: a `since` that is no RFC 3339 date-time, or a `page`
/// that is no page number, never reaches the upstream; well-formed values do.
#[tokio::test]
async fn formats_and_page_numbers_are_checked_before_the_upstream() {
    let api = demo_upstream::spawn(demo_upstream::Options {
        bearer_token: Some(TOKEN.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream");
    let base_url = api.base_url();
    let client = support::stdio_client_for(
        GITHUB_BIN,
        &[],
        &[("GITHUB_BASE_URL", &base_url), ("GITHUB_TOKEN", TOKEN)],
    )
    .await;
    let peer = client.peer();
    let list = |params: Value| {
        let mut params = params;
        params["owner"] = json!("octo");
        params["repo"] = json!("hello-world");
        json!({"operation": "list_issues", "params": params})
    };
    let before = api.requests().len();
    for (params, code) in [
        (json!({"since": "not-a-date"}), "VALIDATION_INVALID_VALUE"),
        (
            json!({"since": "2026-02-30T00:00:00Z"}),
            "VALIDATION_INVALID_VALUE",
        ),
        (json!({"page": "2"}), "VALIDATION_INVALID_TYPE"),
        (json!({"page": 0}), "VALIDATION_INVALID_VALUE"),
        (json!({"page": 1.5}), "VALIDATION_INVALID_TYPE"),
        (json!({"page": u64::MAX}), "VALIDATION_INVALID_VALUE"),
        (json!({"per_page": "x"}), "VALIDATION_INVALID_TYPE"),
    ] {
        let (answer, _) = call(peer, "mcp_aql_read", list(params.clone())).await;
        assert_result(&answer);
        assert_eq!(answer["error"]["code"], code, "{params}: {answer}");
    }
    assert_eq!(
        api.requests().len(),
        before,
        "nothing refused reached the upstream"
    );
    let (answer, _) = call(
        peer,
        "mcp_aql_read",
        list(json!({"since": "2026-01-01T00:00:00Z", "page": 4611686018427387904_u64})),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
    client.cancel().await.expect("close");
}
