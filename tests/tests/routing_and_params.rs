//! Every operation of adapters/github-adapter.md, called through the generated github adapter
//! binary behind rmcp's stdio client, checked against the exact HTTP request demo-upstream
//! recorded; then the upstream error mappings, 200 concurrent calls on one connection, and a
//! guard that the token never reaches the client or the adapter's logs.

mod support;

use aqlgen_runtime::adapter::Adapter;
use axum::http::StatusCode;
use demo_upstream::{Fault, RecordedRequest, Running};
use github_adapter::GithubAdapter;
use serde_json::{Value, json};
use support::{
    Client, GITHUB_BIN, assert_result, call, demo_api, github_client, start_upstream, stdio_client,
    todo_client,
};

const TOKEN: &str = "ghp-operations-test-token-7f3a";

/// One operation call and the request it must produce.
struct Row {
    tool: &'static str,
    operation: &'static str,
    params: Value,
    method: &'static str,
    path: &'static str,
    query: &'static [(&'static str, &'static str)],
    body: Option<Value>,
}

fn row(
    tool: &'static str,
    operation: &'static str,
    params: Value,
    request: (&'static str, &'static str),
    query: &'static [(&'static str, &'static str)],
    body: Option<Value>,
) -> Row {
    Row {
        tool,
        operation,
        params,
        method: request.0,
        path: request.1,
        query,
        body,
    }
}

const CREATE: &str = "mcp_aql_create";
const READ: &str = "mcp_aql_read";
const UPDATE: &str = "mcp_aql_update";
const DELETE: &str = "mcp_aql_delete";
const EXECUTE: &str = "mcp_aql_execute";

/// One row per operation of the schema (delete_repo is checked separately: it needs the
/// confirmation round trip).
fn rows() -> Vec<Row> {
    vec![
        row(
            CREATE,
            "create_repo",
            json!({"name": "new-repo", "description": "A test", "topics": ["rust", "mcp"]}),
            ("POST", "/user/repos"),
            &[],
            Some(
                json!({"name": "new-repo", "description": "A test", "topics": ["rust", "mcp"], "private": false, "auto_init": false}),
            ),
        ),
        row(
            CREATE,
            "create_issue",
            json!({"owner": "octo", "repo": "hello-world", "title": "Crash", "body": "On start", "labels": ["bug"], "assignees": ["octo"], "milestone": 2}),
            ("POST", "/repos/octo/hello-world/issues"),
            &[],
            Some(
                json!({"title": "Crash", "body": "On start", "labels": ["bug"], "assignees": ["octo"], "milestone": 2}),
            ),
        ),
        row(
            CREATE,
            "create_issue_comment",
            json!({"owner": "octo", "repo": "hello-world", "issue_number": 1, "body": "Same here"}),
            ("POST", "/repos/octo/hello-world/issues/1/comments"),
            &[],
            Some(json!({"body": "Same here"})),
        ),
        row(
            CREATE,
            "create_pull_request",
            json!({"owner": "octo", "repo": "hello-world", "title": "Fix", "head": "fix-1", "base": "main"}),
            ("POST", "/repos/octo/hello-world/pulls"),
            &[],
            Some(json!({"title": "Fix", "head": "fix-1", "base": "main", "draft": false})),
        ),
        row(
            CREATE,
            "create_label",
            json!({"owner": "octo", "repo": "hello-world", "name": "needs review", "color": "00ff00", "description": "Look"}),
            ("POST", "/repos/octo/hello-world/labels"),
            &[],
            Some(json!({"name": "needs review", "color": "00ff00", "description": "Look"})),
        ),
        row(
            READ,
            "get_repo",
            json!({"owner": "octo", "repo": "hello-world"}),
            ("GET", "/repos/octo/hello-world"),
            &[],
            None,
        ),
        row(
            READ,
            "list_repos",
            json!({"username": "octo", "sort": {"field": "full_name", "order": "asc"}}),
            ("GET", "/users/octo/repos"),
            &[
                ("direction", "asc"),
                ("page", "1"),
                ("per_page", "30"),
                ("sort", "full_name"),
                ("type", "owner"),
            ],
            None,
        ),
        row(
            READ,
            "list_issues",
            json!({"owner": "octo", "repo": "hello-world", "filter": {"label": {"contains": ["bug", "ui"]}, "updated_at": {"gte": "2026-01-01T00:00:00Z"}}, "per_page": 5}),
            ("GET", "/repos/octo/hello-world/issues"),
            &[
                ("direction", "desc"),
                ("labels", "bug,ui"),
                ("page", "1"),
                ("per_page", "5"),
                ("since", "2026-01-01T00:00:00Z"),
                ("sort", "created"),
                ("state", "open"),
            ],
            None,
        ),
        row(
            READ,
            "get_issue",
            json!({"owner": "octo", "repo": "hello-world", "issue_number": 1}),
            ("GET", "/repos/octo/hello-world/issues/1"),
            &[],
            None,
        ),
        row(
            READ,
            "list_issue_comments",
            json!({"owner": "octo", "repo": "hello-world", "issue_number": 1, "page": 2}),
            ("GET", "/repos/octo/hello-world/issues/1/comments"),
            &[("page", "2"), ("per_page", "30")],
            None,
        ),
        row(
            READ,
            "list_pull_requests",
            json!({"owner": "octo", "repo": "hello-world", "filter": {"state": "all", "base": "main"}}),
            ("GET", "/repos/octo/hello-world/pulls"),
            &[
                ("base", "main"),
                ("page", "1"),
                ("per_page", "30"),
                ("state", "all"),
            ],
            None,
        ),
        row(
            READ,
            "get_pull_request",
            json!({"owner": "octo", "repo": "hello-world", "pull_number": 3}),
            ("GET", "/repos/octo/hello-world/pulls/3"),
            &[],
            None,
        ),
        row(
            READ,
            "search_issues",
            json!({"query": "crash repo:octo/hello-world is:open", "sort": {"field": "comments", "order": "desc"}}),
            ("GET", "/search/issues"),
            &[
                ("order", "desc"),
                ("page", "1"),
                ("per_page", "30"),
                ("q", "crash repo:octo/hello-world is:open"),
                ("sort", "comments"),
            ],
            None,
        ),
        row(
            READ,
            "get_user",
            json!({"username": "hubot"}),
            ("GET", "/users/hubot"),
            &[],
            None,
        ),
        row(
            READ,
            "get_team",
            json!({"org": "acme", "team_slug": "platform"}),
            ("GET", "/orgs/acme/teams/platform"),
            &[],
            None,
        ),
        row(
            READ,
            "list_team_repos",
            json!({"org": "acme", "team_slug": "platform", "first": 2}),
            ("GET", "/orgs/acme/teams/platform/repos"),
            &[("page", "1"), ("per_page", "2")],
            None,
        ),
        row(
            READ,
            "list_team_members",
            json!({"org": "acme", "team_slug": "platform"}),
            ("GET", "/orgs/acme/teams/platform/members"),
            &[("page", "1"), ("per_page", "30")],
            None,
        ),
        row(
            READ,
            "list_repo_teams",
            json!({"owner": "acme", "repo": "web"}),
            ("GET", "/repos/acme/web/teams"),
            &[("page", "1"), ("per_page", "30")],
            None,
        ),
        row(
            READ,
            "list_workflow_runs",
            json!({"owner": "octo", "repo": "hello-world", "branch": "main", "status": "failure"}),
            ("GET", "/repos/octo/hello-world/actions/runs"),
            &[
                ("branch", "main"),
                ("page", "1"),
                ("per_page", "30"),
                ("status", "failure"),
            ],
            None,
        ),
        row(
            READ,
            "get_workflow_run",
            json!({"owner": "octo", "repo": "hello-world", "run_id": 9}),
            ("GET", "/repos/octo/hello-world/actions/runs/9"),
            &[],
            None,
        ),
        row(
            UPDATE,
            "update_repo",
            json!({"owner": "octo", "repo": "hello-world", "input": {"description": "Renamed", "has_issues": true}}),
            ("PATCH", "/repos/octo/hello-world"),
            &[],
            Some(json!({"description": "Renamed", "has_issues": true})),
        ),
        row(
            UPDATE,
            "update_issue",
            json!({"owner": "octo", "repo": "hello-world", "issue_number": 1, "input": {"state": "closed", "labels": ["done"]}}),
            ("PATCH", "/repos/octo/hello-world/issues/1"),
            &[],
            Some(json!({"state": "closed", "labels": ["done"]})),
        ),
        row(
            UPDATE,
            "update_pull_request",
            json!({"owner": "octo", "repo": "hello-world", "pull_number": 3, "input": {"title": "Fix it", "base": "dev"}}),
            ("PATCH", "/repos/octo/hello-world/pulls/3"),
            &[],
            Some(json!({"title": "Fix it", "base": "dev"})),
        ),
        row(
            UPDATE,
            "replace_repo_topics",
            json!({"owner": "octo", "repo": "hello-world", "input": {"names": ["rust", "cli"]}}),
            ("PUT", "/repos/octo/hello-world/topics"),
            &[],
            Some(json!({"names": ["rust", "cli"]})),
        ),
        row(
            DELETE,
            "delete_issue_comment",
            json!({"owner": "octo", "repo": "hello-world", "comment_id": 42}),
            ("DELETE", "/repos/octo/hello-world/issues/comments/42"),
            &[],
            None,
        ),
        row(
            DELETE,
            "delete_label",
            json!({"owner": "octo", "repo": "hello-world", "name": "needs review/ui"}),
            (
                "DELETE",
                "/repos/octo/hello-world/labels/needs%20review%2Fui",
            ),
            &[],
            None,
        ),
        row(
            EXECUTE,
            "merge_pull_request",
            json!({"owner": "octo", "repo": "hello-world", "pull_number": 3, "commit_title": "Merge fix"}),
            ("PUT", "/repos/octo/hello-world/pulls/3/merge"),
            &[],
            Some(json!({"commit_title": "Merge fix", "merge_method": "merge"})),
        ),
        row(
            EXECUTE,
            "rerun_workflow",
            json!({"owner": "octo", "repo": "hello-world", "run_id": 10}),
            ("POST", "/repos/octo/hello-world/actions/runs/10/rerun"),
            &[],
            Some(json!({"enable_debug_logging": false})),
        ),
        row(
            EXECUTE,
            "cancel_workflow_run",
            json!({"owner": "octo", "repo": "hello-world", "run_id": 10}),
            ("POST", "/repos/octo/hello-world/actions/runs/10/cancel"),
            &[],
            None,
        ),
        row(
            EXECUTE,
            "dispatch_workflow",
            json!({"owner": "octo", "repo": "hello-world", "workflow_id": "ci.yml", "ref": "main", "inputs": {"level": "full"}}),
            (
                "POST",
                "/repos/octo/hello-world/actions/workflows/ci.yml/dispatches",
            ),
            &[],
            Some(json!({"ref": "main", "inputs": {"level": "full"}, "return_run_details": true})),
        ),
    ]
}

/// The adapter binary behind rmcp's client, with its stderr collected.
async fn client_with_stderr(base_url: &str) -> (Client, support::Stderr) {
    // The operator vouches for the highest trust level, so the gate stops only the operation
    // the schema itself marks `requires_confirmation` (safety_gate covers the matrix).
    support::stdio_client_with_stderr(
        GITHUB_BIN,
        &["--trust-level", "certified"],
        &[
            ("GITHUB_BASE_URL", base_url),
            ("GITHUB_TOKEN", TOKEN),
            ("RUST_LOG", "debug"),
        ],
    )
    .await
}

/// Checks the one request the last call sent.
fn assert_request(request: &RecordedRequest, row: &Row) {
    let name = row.operation;
    assert_eq!(request.method, row.method, "{name}: method");
    assert_eq!(request.path, row.path, "{name}: path");
    let mut query = request.query_pairs();
    query.sort();
    let expected: Vec<(String, String)> = row
        .query
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect();
    assert_eq!(query, expected, "{name}: query pairs");
    match &row.body {
        Some(body) => assert_eq!(request.body_json().as_ref(), Some(body), "{name}: body"),
        None => assert!(request.body.is_empty(), "{name}: no body expected"),
    }
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str()),
        "{name}: authorization"
    );
}

/// Everything the client was shown, for the token guard.
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    async fn call(&mut self, client: &Client, tool: &str, arguments: Value) -> (Value, bool) {
        let (answer, is_error) = call(client.peer(), tool, arguments).await;
        assert_result(&answer);
        self.0.push(answer.to_string());
        (answer, is_error)
    }
}

async fn start_api() -> Running {
    demo_upstream::spawn(demo_upstream::Options {
        bearer_token: Some(TOKEN.into()),
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream")
}

#[tokio::test]
async fn every_operation_errors_concurrency_and_no_token_leak() {
    let api = start_api().await;
    let (client, stderr) = client_with_stderr(&api.base_url()).await;
    let mut seen = Seen::default();

    // 1. Every operation sends exactly the request its schema describes.
    let rows = rows();
    for row in &rows {
        let (answer, _) = seen
            .call(
                &client,
                row.tool,
                json!({"operation": row.operation, "params": row.params}),
            )
            .await;
        let requests = api.take_requests();
        // An operation that starts a run follows it: the reads of the run come after.
        let follows = requests
            .iter()
            .skip(1)
            .all(|request| request.method == "GET" && request.path.contains("/actions/runs/"));
        assert!(
            requests.len() == 1 || (row.operation == "dispatch_workflow" && follows),
            "{}: one request; answer {answer}",
            row.operation
        );
        assert_request(&requests[0], row);
    }

    // delete_repo: the first call asks for confirmation and sends nothing upstream.
    let delete = row(
        DELETE,
        "delete_repo",
        json!({"owner": "octo", "repo": "hello-world"}),
        ("DELETE", "/repos/octo/hello-world"),
        &[],
        None,
    );
    let (first, is_error) = seen
        .call(
            &client,
            DELETE,
            json!({"operation": "delete_repo", "params": delete.params}),
        )
        .await;
    // CONFIRMATION_REQUIRED is recoverable, so it is not an MCP error (spec digest §3C).
    assert!(!is_error, "{first}");
    assert_eq!(first["error"]["code"], "CONFIRMATION_REQUIRED", "{first}");
    assert!(
        api.take_requests().is_empty(),
        "no request before confirmation"
    );
    let token = first["error"]["details"]["confirmation_token"]
        .as_str()
        .expect("confirmation token")
        .to_owned();
    let (second, is_error) = seen
        .call(
            &client,
            DELETE,
            json!({"operation": "delete_repo", "params": {"owner": "octo", "repo": "hello-world", "confirmation_token": token}}),
        )
        .await;
    assert!(!is_error, "{second}");
    let requests = api.take_requests();
    assert_eq!(requests.len(), 1, "delete_repo: one request");
    assert_request(&requests[0], &delete);
    let mut covered: Vec<&str> = rows.iter().map(|row| row.operation).collect();
    covered.push("delete_repo");
    covered.sort_unstable();
    let mut all: Vec<&str> = <GithubAdapter as Adapter>::ROUTES
        .iter()
        .map(|route| route.operation)
        .collect();
    all.sort_unstable();
    assert_eq!(covered, all, "every operation of the schema has a row");

    // 2. Upstream failures map onto MCP-AQL errors that carry the upstream's own words.
    let faults = [
        (
            StatusCode::BAD_REQUEST,
            "Problems parsing JSON",
            "VALIDATION_INVALID_TYPE",
        ),
        (
            StatusCode::UNAUTHORIZED,
            "Bad credentials",
            "PERMISSION_DENIED",
        ),
        (
            StatusCode::FORBIDDEN,
            "Resource not accessible by integration",
            "PERMISSION_DENIED",
        ),
        (
            StatusCode::NOT_FOUND,
            "Not Found here",
            "NOT_FOUND_RESOURCE",
        ),
        (
            StatusCode::CONFLICT,
            "Repository is archived",
            "CONFLICT_ALREADY_EXISTS",
        ),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "Validation Failed: title missing",
            "VALIDATION_INVALID_TYPE",
        ),
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "Server exploded quietly",
            "INTERNAL_ERROR",
        ),
    ];
    let issue = json!({"operation": "get_issue", "params": {"owner": "octo", "repo": "hello-world", "issue_number": 7}});
    for (status, message, code) in faults {
        api.add_fault(
            Fault::new("/repos/octo/hello-world/issues/7", status)
                .body(json!({"message": message}).to_string()),
        );
        let (answer, is_error) = seen.call(&client, READ, issue.clone()).await;
        // Only INTERNAL_ERROR is unrecoverable, so only it sets isError (spec digest §3C).
        assert_eq!(
            is_error,
            code == "INTERNAL_ERROR",
            "{status}: isError of {answer}"
        );
        assert_eq!(answer["success"], false, "{status}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{status}: {answer}");
        // The upstream's words travel in details only; the message is the adapter's.
        assert_eq!(
            answer["error"]["details"]["upstream_message"], message,
            "{status}: {answer}"
        );
        let text = answer["error"]["message"].as_str().expect("message");
        assert!(!text.contains(message), "{status}: {answer}");
        api.clear_faults();
    }
    api.add_fault(
        Fault::new("/repos/octo/hello-world/issues/7", StatusCode::OK)
            .header("content-type", "text/html")
            .body("<html><body>Unicorn! Something went wrong</body></html>"),
    );
    let (html, is_error) = seen.call(&client, READ, issue.clone()).await;
    assert!(is_error, "{html}");
    assert_eq!(html["error"]["code"], "INTERNAL_ERROR", "{html}");
    assert!(
        html["error"]["message"]
            .as_str()
            .expect("message")
            .contains("HTML"),
        "{html}"
    );
    assert!(
        html.to_string().contains("Unicorn"),
        "the page text is quoted: {html}"
    );
    api.clear_faults();
    api.add_fault(Fault::new(
        "/repos/octo/hello-world/issues/comments/5",
        StatusCode::NO_CONTENT,
    ));
    let (empty, is_error) = seen
        .call(
            &client,
            DELETE,
            json!({"operation": "delete_issue_comment", "params": {"owner": "octo", "repo": "hello-world", "comment_id": 5}}),
        )
        .await;
    assert!(!is_error, "{empty}");
    assert_eq!(empty["success"], true, "{empty}");
    assert_eq!(empty["data"], Value::Null, "{empty}");
    api.clear_faults();
    api.take_requests();

    // 3. 200 calls in flight on one connection; each answer belongs to its own request.
    for index in 0..200 {
        api.add_fault(
            Fault::new(format!("/users/user-{index}"), StatusCode::OK)
                .body(json!({"login": format!("user-{index}"), "id": index}).to_string()),
        );
    }
    let peer = client.peer().clone();
    let calls = (0..200).map(|index| {
        let peer = peer.clone();
        tokio::spawn(async move {
            let (answer, is_error) = call(
                &peer,
                READ,
                json!({"operation": "get_user", "params": {"username": format!("user-{index}")}}),
            )
            .await;
            (index, answer, is_error)
        })
    });
    let mut answers = Vec::new();
    for handle in calls.collect::<Vec<_>>() {
        answers.push(handle.await.expect("call task"));
    }
    for (index, answer, is_error) in answers {
        assert_result(&answer);
        assert!(!is_error, "{answer}");
        assert_eq!(answer["data"]["login"], format!("user-{index}"), "{answer}");
        assert_eq!(answer["data"]["id"], index, "{answer}");
        seen.0.push(answer.to_string());
    }
    let mut paths: Vec<String> = api.take_requests().into_iter().map(|r| r.path).collect();
    paths.sort();
    let mut expected: Vec<String> = (0..200)
        .map(|index| format!("/users/user-{index}"))
        .collect();
    expected.sort();
    assert_eq!(paths, expected, "one upstream request per call");
    api.clear_faults();

    // 4. The token reached the upstream only: not the client, not the logs.
    client.cancel().await.expect("close");
    for text in &seen.0 {
        assert!(!text.contains(TOKEN), "the client saw the token: {text}");
    }
    let logs = stderr.text().await;
    assert!(
        logs.contains("DEBUG"),
        "debug logs were captured, so the guard looked at something:\n{logs}"
    );
    assert!(
        !logs.contains(TOKEN),
        "the adapter logged the token:\n{logs}"
    );
}

#[tokio::test]
async fn operations_reach_the_upstream() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &[], &[]).await;
    let peer = client.peer();
    let cases = [
        (
            "mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": "a b/c"}}),
            json!({"id": "a b/c", "title": "Milk", "status": "open"}),
        ),
        (
            "mcp_aql_read",
            json!({"operation": "get_item", "id": "top", "params": {"id": "inner"}, "_meta": {"trace": 1}}),
            json!({"id": "inner", "title": "Milk", "status": "open"}),
        ),
        (
            "mcp_aql_read",
            json!({"operation": "list_items", "params": {"status": "done"}}),
            json!({"items": [{"id": "1", "title": "Milk", "status": "open"}], "query": [["status", "done"]]}),
        ),
        (
            "mcp_aql_create",
            json!({"operation": "create_item", "title": "Tea"}),
            json!({"id": "2", "created": {"title": "Tea"}}),
        ),
        (
            "mcp_aql_update",
            json!({"operation": "update_item", "params": {"id": "1", "input": {"status": "done"}}}),
            json!({"id": "1", "changed": {"status": "done"}}),
        ),
        (
            // `status` has a default, and this update leaves it out: it is not sent, so the
            // item keeps its status.
            "mcp_aql_update",
            json!({"operation": "update_item", "params": {"id": "1", "input": {"title": "Tea"}}}),
            json!({"id": "1", "changed": {"title": "Tea"}}),
        ),
    ];
    for (tool, arguments, data) in cases {
        let (answer, is_error) = call(peer, tool, arguments.clone()).await;
        assert_result(&answer);
        assert!(!is_error, "{arguments}");
        assert_eq!(
            answer,
            json!({"success": true, "data": data}),
            "{arguments}"
        );
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn every_error_path_answers_with_its_code() {
    let upstream = start_upstream().await;
    let client = stdio_client(
        &upstream,
        &[
            "--tool-prefix",
            "fx_",
            "--max-string-length",
            "65536",
            "--max-array-elements",
            "100",
            "--max-nesting-depth",
            "8",
        ],
        &[],
    )
    .await;
    let peer = client.peer();
    let long = "x".repeat(70_000);
    let many: Vec<u32> = (0..101).collect();
    let deep = json!({"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": 1}}}}}}}});
    let cases: Vec<(&str, Value, &str, bool)> = vec![
        (
            "fx_mcp_aql_read",
            json!({"params": {"id": "1"}}),
            "VALIDATION_MISSING_PARAM",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "GetItem"}),
            "VALIDATION_INVALID_VALUE",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": ""}),
            "VALIDATION_INVALID_VALUE",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": 5}),
            "VALIDATION_INVALID_TYPE",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": "id=1"}),
            "VALIDATION_INVALID_TYPE",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_itme", "params": {"id": "1"}}),
            "NOT_FOUND_OPERATION",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "delete_item", "params": {"id": "1"}}),
            "VALIDATION_ENDPOINT_MISMATCH",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": long}}),
            "VALIDATION_PAYLOAD_TOO_LARGE",
            true,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": "1", "tags": many}}),
            "VALIDATION_PAYLOAD_TOO_LARGE",
            true,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": "1", "deep": deep}}),
            "VALIDATION_PAYLOAD_TOO_LARGE",
            true,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": "a\u{0}b"}}),
            "VALIDATION_INVALID_ENCODING",
            true,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": "1", "idd": "2"}}),
            "VALIDATION_UNKNOWN_PARAM",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {}}),
            "VALIDATION_MISSING_PARAM",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": 1}}),
            "VALIDATION_INVALID_TYPE",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "list_items", "params": {"status": "closed"}}),
            "VALIDATION_INVALID_VALUE",
            false,
        ),
        (
            "fx_mcp_aql_update",
            json!({"operation": "update_item", "params": {"id": "1", "input": {"colour": "red"}}}),
            "VALIDATION_UNKNOWN_FIELD",
            false,
        ),
        (
            "fx_mcp_aql_read",
            json!({"operation": "get_item", "params": {"id": "missing"}}),
            "NOT_FOUND_RESOURCE",
            false,
        ),
    ];
    for (tool, arguments, code, is_error_expected) in cases {
        let (answer, is_error) = call(peer, tool, arguments.clone()).await;
        assert_result(&answer);
        assert_eq!(answer["success"], false, "{arguments}");
        assert_eq!(answer["error"]["code"], code, "{arguments}: {answer}");
        assert_eq!(is_error, is_error_expected, "isError for {code}");
    }

    let (not_found, _) = call(peer, "fx_mcp_aql_read", json!({"operation": "get_itme"})).await;
    assert_eq!(not_found["error"]["details"]["suggestions"][0], "get_item");
    assert!(
        not_found["error"]["details"]["session_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("sess_"))
    );
    let (mismatch, _) = call(
        peer,
        "fx_mcp_aql_read",
        json!({"operation": "delete_item", "params": {"id": "1"}}),
    )
    .await;
    assert!(
        mismatch["error"]["message"]
            .as_str()
            .expect("message")
            .contains("'fx_mcp_aql_delete'")
    );
    assert_eq!(
        mismatch["error"]["details"]["expected_tool"],
        "fx_mcp_aql_delete"
    );
    let (too_long, _) = call(
        peer,
        "fx_mcp_aql_read",
        json!({"operation": "get_item", "params": {"id": "x".repeat(70_000)}}),
    )
    .await;
    assert_eq!(too_long["error"]["details"]["limit_type"], "string_length");
    assert_eq!(too_long["error"]["details"]["limit_value"], 65536);

    // Crude mode registers all five families, one without operations too; a call there is
    // an MCP-AQL answer.
    let (no_executes, _) = call(peer, "fx_mcp_aql_execute", json!({"operation": "x"})).await;
    assert_eq!(no_executes["success"], false, "{no_executes}");
    // A tool that is not registered is a protocol error, not an MCP-AQL answer.
    let unknown_tool = peer
        .call_tool(
            rmcp::model::CallToolRequestParams::new("fx_mcp_aql_nothing")
                .with_arguments(support::object(json!({"operation": "x"}))),
        )
        .await;
    assert!(unknown_tool.is_err());
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn todo_operations_round_trip() {
    let api = demo_api().await;
    let client = todo_client(&api, &[]).await;
    let peer = client.peer();
    let (created, is_error) = call(peer, "mcp_aql_create", json!({"operation": "create_todo", "params": {"title": "Water plants", "priority": "high"}})).await;
    assert_result(&created);
    assert!(!is_error, "{created}");
    let id = created["data"]["id"].as_i64().expect("new id");
    let (got, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "get_todo", "params": {"id": id}}),
    )
    .await;
    assert_result(&got);
    assert_eq!(got["data"]["title"], "Water plants");
    let (updated, _) = call(
        peer,
        "mcp_aql_update",
        json!({"operation": "update_todo", "params": {"id": id, "input": {"priority": "low"}}}),
    )
    .await;
    assert_result(&updated);
    assert_eq!(updated["data"]["priority"], "low", "{updated}");
    let (completed, _) = call(
        peer,
        "mcp_aql_execute",
        json!({"operation": "complete_todo", "params": {"id": id}}),
    )
    .await;
    assert_result(&completed);
    assert_eq!(completed["success"], true, "{completed}");
    let (listed, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "list_todos", "params": {"limit": 2}}),
    )
    .await;
    assert_result(&listed);
    assert_eq!(listed["success"], true, "{listed}");

    let (required, _) = call(
        peer,
        "mcp_aql_delete",
        json!({"operation": "clear_completed_todos"}),
    )
    .await;
    assert_result(&required);
    assert_eq!(required["error"]["code"], "CONFIRMATION_REQUIRED");
    let token = required["error"]["details"]["confirmation_token"].clone();
    let (cleared, _) = call(
        peer,
        "mcp_aql_delete",
        json!({"operation": "clear_completed_todos", "params": {"confirmation_token": token}}),
    )
    .await;
    assert_result(&cleared);
    assert_eq!(cleared["success"], true, "{cleared}");

    for (tool, arguments, code) in [
        (
            "mcp_aql_read",
            json!({"operation": "get_todo", "params": {"id": 0}}),
            "VALIDATION_INVALID_VALUE",
        ),
        (
            "mcp_aql_read",
            json!({"operation": "get_todo", "params": {"id": "one"}}),
            "VALIDATION_INVALID_TYPE",
        ),
        (
            "mcp_aql_read",
            json!({"operation": "get_todo", "params": {"id": 999}}),
            "NOT_FOUND_RESOURCE",
        ),
        (
            "mcp_aql_read",
            json!({"operation": "get_todo", "params": {"idd": 1}}),
            "VALIDATION_UNKNOWN_PARAM",
        ),
        (
            "mcp_aql_update",
            json!({"operation": "update_todo", "params": {"id": 1}}),
            "VALIDATION_MISSING_PARAM",
        ),
        (
            "mcp_aql_update",
            json!({"operation": "update_todo", "params": {"id": 1, "input": {"colour": "red"}}}),
            "VALIDATION_UNKNOWN_FIELD",
        ),
        (
            "mcp_aql_read",
            json!({"operation": "delete_todo", "params": {"id": 1}}),
            "VALIDATION_ENDPOINT_MISMATCH",
        ),
        (
            "mcp_aql_read",
            json!({"operation": "get_todos"}),
            "NOT_FOUND_OPERATION",
        ),
    ] {
        let (answer, _) = call(peer, tool, arguments.clone()).await;
        assert_result(&answer);
        assert_eq!(answer["error"]["code"], code, "{arguments}: {answer}");
    }
    client.cancel().await.expect("close");
}

/// A declared `format` is checked: a `since` that is no RFC 3339 date-time, or a `page`
/// that is no page number, never reaches the upstream; well-formed values do.
#[tokio::test]
async fn formats_and_page_numbers_are_checked_before_the_upstream() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let peer = client.peer();
    let list = |params: Value| {
        let mut params = params;
        params["owner"] = json!("octo");
        params["repo"] = json!("hello-world");
        json!({"operation": "list_issues", "params": params})
    };
    let before = api.requests().len();
    for (params, code) in [
        (
            json!({"filter": {"updated_at": {"gte": "not-a-date"}}}),
            "VALIDATION_INVALID_VALUE",
        ),
        (
            json!({"filter": {"updated_at": {"gte": "2026-02-30T00:00:00Z"}}}),
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
        list(json!({"filter": {"updated_at": {"gte": "2026-01-01T00:00:00Z"}}, "page": 4611686018427387904_u64})),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
    client.cancel().await.expect("close");
}

/// An empty or blank path value would name the collection above its resource (`GET
/// /repos//`, `DELETE /todos/tagged/`): it is refused before anything is sent, whatever
/// the operation's danger.
#[tokio::test]
async fn empty_path_values_are_refused_before_the_upstream() {
    let api = demo_api().await;
    let github = github_client(&api, &[]).await;
    let todo = todo_client(&api, &["--trust-level", "validated"]).await;
    let before = api.requests().len();
    for (client, tool, operation, params, param) in [
        (
            &github,
            "mcp_aql_read",
            "get_repo",
            json!({"owner": "", "repo": "hello-world"}),
            "owner",
        ),
        (
            &github,
            "mcp_aql_read",
            "get_repo",
            json!({"owner": "octo", "repo": " \t"}),
            "repo",
        ),
        (
            &todo,
            "mcp_aql_delete",
            "bulk_delete_todos",
            json!({"tag": ""}),
            "tag",
        ),
    ] {
        let (answer, _) = call(
            client.peer(),
            tool,
            json!({"operation": operation, "params": params}),
        )
        .await;
        assert_result(&answer);
        assert_eq!(
            answer["error"]["code"], "VALIDATION_INVALID_VALUE",
            "{operation} {params}: {answer}"
        );
        assert_eq!(answer["error"]["details"]["param_name"], param, "{answer}");
    }
    assert_eq!(
        api.requests().len(),
        before,
        "nothing refused reached the upstream"
    );
    github.cancel().await.expect("close");
    todo.cancel().await.expect("close");
}

/// A crate aqlgen 0.1 generated, kept unchanged in `tests/compat/github-0.1`, builds against
/// the current runtime and serves as the freshly generated one does: the same introspection,
/// a plain read and a compiled query.
#[tokio::test]
async fn a_crate_generated_by_an_earlier_aqlgen_serves_on_the_current_runtime() {
    let api = demo_api().await;
    let base_url = api.base_url();
    let env = [
        ("GITHUB_BASE_URL", base_url.as_str()),
        ("GITHUB_TOKEN", support::GITHUB_TOKEN),
    ];
    let earlier =
        support::stdio_client_for(env!("CARGO_BIN_EXE_github-adapter-0-1-server"), &[], &env).await;
    let current = github_client(&api, &[]).await;
    for arguments in [
        json!({"operation": "introspect", "params": {"query": "operations"}}),
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world"}}),
        json!({"operation": "list_issues", "params": {
            "owner": "octo", "repo": "hello-world",
            "filter": {"state": {"eq": "open"}}, "sort": {"field": "created_at", "order": "desc"}
        }}),
    ] {
        let (mut then, then_error) = call(earlier.peer(), "mcp_aql_read", arguments.clone()).await;
        let (mut now, now_error) = call(current.peer(), "mcp_aql_read", arguments.clone()).await;
        assert!(!then_error && !now_error, "{arguments}: {then}");
        assert_eq!(then["success"], true, "{arguments}: {then}");
        // Each connection has a session of its own, and each process seals its cursors with a
        // key of its own.
        for answer in [&mut then, &mut now] {
            if let Some(data) = answer.get_mut("data").and_then(Value::as_object_mut) {
                data.remove("pageInfo");
                if let Some(protocol) = data.get_mut("_protocol").and_then(Value::as_object_mut) {
                    protocol.remove("session_id");
                }
            }
        }
        assert!(then == now, "{arguments}: {then}\nagainst {now}");
    }
}
