//! MCP-AQL Level 2 end to end: batches, field selection, cursor pagination, warnings, and
//! UPDATE semantics (null clears, ETags, dry runs), through rmcp's client over stdio against
//! the generated adapters and demo-upstream on 127.0.0.1. Every answer is held against the
//! official operation-result schema; batch answers also against batch-operation, except
//! where the two schemas disagree (see `runtime-support/src/batch.rs`).

mod support;

use serde_json::{Value, json};
use support::{TODO_KEY, assert_batch, assert_result, call, demo_api, github_client, todo_client};

/// Calls and checks the answer against operation-result; returns it.
async fn answer(client: &support::Client, tool: &str, arguments: Value) -> Value {
    let (value, _) = call(client.peer(), tool, arguments).await;
    assert_result(&value);
    value
}

#[tokio::test]
async fn protocol_capabilities_tell_the_truth() {
    let api = demo_api().await;
    let client = github_client(&api, &["--max-batch-size", "7"]).await;
    let list = answer(
        &client,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    let protocol = &list["data"]["_protocol"];
    for feature in ["batch", "field_selection", "pagination", "warnings"] {
        assert_eq!(protocol["capabilities"][feature], true, "{feature}");
    }
    assert_eq!(protocol["limits"]["max_batch_size"], 7);
    assert_eq!(protocol["supports_etag"], true);
    let details = answer(
        &client,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations", "name": "list_issues"}}),
    )
    .await;
    support::assert_introspection(&details);
    let params: Vec<&str> = details["data"]["operation"]["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    for name in ["fields", "first", "after"] {
        assert!(params.contains(&name), "{params:?}");
    }
}

#[tokio::test]
async fn batches_run_in_order_with_independent_results() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let batch = answer(
        &client,
        "mcp_aql_read",
        json!({"operations": [
            {"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world", "fields": "minimal"}},
            {"operation": "get_repo", "params": {"owner": "octo", "repo": "nope"}},
            {"operation": "introspect", "params": {"query": "types"}},
            {"operation": "create_issue", "params": {"owner": "octo", "repo": "hello-world", "title": "x"}},
            {"operation": "get_issue", "params": {"owner": "octo", "repo": "hello-world", "issue_number": 1, "fields": ["number", "title"]}}
        ]}),
    )
    .await;
    assert_batch(&batch);
    assert_eq!(batch["success"], true);
    assert_eq!(batch["data"], Value::Null);
    assert_eq!(
        batch["summary"],
        json!({"total": 5, "succeeded": 3, "failed": 2})
    );
    let results = batch["results"].as_array().expect("results");
    let indexes: Vec<u64> = results.iter().filter_map(|r| r["index"].as_u64()).collect();
    assert_eq!(indexes, [0, 1, 2, 3, 4]);
    let repo = &results[0]["result"]["data"];
    assert_eq!(repo["full_name"], "octo/hello-world");
    assert!(repo.get("topics").is_none(), "minimal preset: {repo}");
    assert_eq!(results[1]["result"]["error"]["code"], "NOT_FOUND_RESOURCE");
    assert_eq!(
        results[3]["result"]["error"]["code"], "VALIDATION_ENDPOINT_MISMATCH",
        "a CREATE item on the READ tool fails as it would alone"
    );
    assert_eq!(
        results[4]["result"]["data"],
        json!({"number": 1, "title": "Found a bug"}),
        "only the fields asked for: no `_etag` unless it is listed"
    );
    assert!(
        !api.requests().iter().any(|r| r.method == "POST"),
        "the mismatched create never reached the upstream"
    );
}

#[tokio::test]
async fn a_batch_halts_at_the_item_that_needs_confirmation() {
    let api = demo_api().await;
    let client = todo_client(&api, &["--mode", "single"]).await;
    api.take_requests();
    // A halted batch follows the batch schema; the operation-result schema has no
    // `halted_at` or `pending_operations` (spec digest §10, item 25).
    let (batch, _) = call(
        client.peer(),
        "mcp_aql",
        json!({"operations": [
            {"operation": "create_todo", "params": {"title": "before"}},
            {"operation": "delete_todo", "params": {"id": 1}},
            {"operation": "create_todo", "params": {"title": "after"}}
        ]}),
    )
    .await;
    assert_batch(&batch);
    assert_eq!(
        batch["summary"],
        json!({"total": 3, "succeeded": 1, "failed": 0, "halted": 1, "pending": 1})
    );
    let halted = &batch["halted_at"];
    assert_eq!(
        (halted["index"].clone(), halted["operation"].clone()),
        (json!(1), json!("delete_todo"))
    );
    assert_eq!(halted["result"]["error"]["code"], "CONFIRMATION_REQUIRED");
    assert_eq!(
        batch["pending_operations"],
        json!([{"index": 2, "operation": "create_todo", "params": {"title": "after"}}])
    );
    let sent: Vec<(String, String)> = api
        .take_requests()
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        sent,
        [("POST".to_owned(), "/todos".to_owned())],
        "nothing after the halt ran"
    );

    let token = halted["result"]["error"]["details"]["confirmation_token"].clone();
    let continued = answer(
        &client,
        "mcp_aql",
        json!({"operations": [
            {"operation": "delete_todo", "params": {"id": 1, "confirmation_token": token}},
            {"operation": "create_todo", "params": {"title": "after"}}
        ]}),
    )
    .await;
    assert_batch(&continued);
    assert_eq!(
        continued["summary"],
        json!({"total": 2, "succeeded": 2, "failed": 0})
    );
}

#[tokio::test]
async fn malformed_batches_fail_as_a_whole() {
    let api = demo_api().await;
    let client = todo_client(&api, &["--max-batch-size", "2"]).await;
    for (arguments, code) in [
        (json!({"operations": []}), "VALIDATION_INVALID_VALUE"),
        (
            json!({"operations": "list_todos"}),
            "VALIDATION_INVALID_TYPE",
        ),
        (
            json!({"operations": [{}, {}, {}]}),
            "VALIDATION_PAYLOAD_TOO_LARGE",
        ),
        (
            json!({"operations": [{"operation": "list_todos"}], "operation": "list_todos"}),
            "VALIDATION_UNKNOWN_PARAM",
        ),
    ] {
        let value = answer(&client, "mcp_aql_read", arguments.clone()).await;
        assert_batch(&value);
        assert_eq!(value["error"]["code"], code, "{arguments}");
    }
    let item = answer(
        &client,
        "mcp_aql_read",
        json!({"operations": [7, {"operation": "list_todos"}]}),
    )
    .await;
    assert_batch(&item);
    assert_eq!(
        item["results"][0]["result"]["error"]["code"],
        "VALIDATION_INVALID_TYPE"
    );
    assert_eq!(item["results"][1]["result"]["success"], true);
}

#[tokio::test]
async fn field_selection_presets_paths_and_warnings() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let read = "mcp_aql_read";
    let repo = json!({"owner": "octo", "repo": "hello-world"});
    let full = answer(
        &client,
        read,
        json!({"operation": "get_repo", "params": repo}),
    )
    .await;
    assert!(
        full["data"]["topics"].is_array(),
        "a single item is full by default"
    );
    let minimal = answer(&client, read, json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world", "fields": "minimal"}})).await;
    let mut keys: Vec<&String> = minimal["data"]
        .as_object()
        .expect("object")
        .keys()
        .collect();
    keys.sort();
    assert_eq!(keys, ["full_name", "id"]);
    let with_etag = answer(&client, read, json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world", "fields": ["id", "_etag"]}})).await;
    assert!(
        with_etag["data"]["_etag"].is_string()
            && with_etag["data"].as_object().map(|o| o.len()) == Some(2),
        "{with_etag}"
    );
    let nested = answer(
        &client,
        read,
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world", "fields": ["owner.login", "owner.nope"]}}),
    )
    .await;
    assert_eq!(nested["data"]["owner"], json!({"login": "octo"}));
    assert_eq!(nested["warnings"][0]["code"], "FIELD_SELECTION_UNMATCHED");
    assert_eq!(
        nested["warnings"][0]["details"]["fields"],
        json!(["owner.nope"])
    );
    // A member the type does not declare is refused, with the ones it does.
    let unknown = answer(
        &client,
        read,
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world", "fields": ["nope.deeper"]}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], "VALIDATION_INVALID_VALUE");
    assert!(
        unknown["error"]["details"]["valid_fields"]
            .as_array()
            .is_some_and(|fields| fields.contains(&json!("full_name"))),
        "{unknown}"
    );

    let issues = answer(&client, read, json!({"operation": "list_issues", "params": {"owner": "octo", "repo": "hello-world", "filter": {"state": "all"}}})).await;
    let first = &issues["data"]["items"][0];
    assert_eq!(
        first["user"],
        json!({"login": "octo"}),
        "lists default to the standard preset"
    );
    assert!(first.get("body").is_none());
    let bad = answer(&client, read, json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world", "fields": "everything"}})).await;
    assert_eq!(bad["error"]["code"], "VALIDATION_INVALID_VALUE");
    assert_eq!(
        bad["error"]["details"]["presets"],
        json!(["minimal", "standard", "full"])
    );
}

#[tokio::test]
async fn cursor_pagination_over_link_headers() {
    let api = demo_api().await;
    let client = github_client(&api, &[]).await;
    let read = "mcp_aql_read";
    let page = |after: Option<Value>| {
        let mut params = json!({"owner": "octo", "repo": "hello-world", "filter": {"state": "all"}, "first": 1, "fields": "minimal"});
        if let Some(after) = after {
            params["after"] = after;
        }
        json!({"operation": "list_issues", "params": params})
    };
    let one = answer(&client, read, page(None)).await;
    // Newest first, as GitHub lists issues by default.
    assert_eq!(
        one["data"]["items"],
        json!([{"number": 2, "title": "Add a README"}])
    );
    let info = &one["data"]["pageInfo"];
    assert_eq!(
        (info["hasNextPage"].clone(), info["hasPreviousPage"].clone()),
        (json!(true), json!(false))
    );
    let end = info["endCursor"].clone();
    assert!(
        end.as_str()
            .expect("cursor")
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    );
    let two = answer(&client, read, page(Some(end.clone()))).await;
    assert_eq!(
        two["data"]["items"],
        json!([{"number": 1, "title": "Found a bug"}])
    );
    assert_eq!(two["data"]["pageInfo"]["hasNextPage"], false);
    let sent = api.requests();
    let last = sent
        .iter()
        .rev()
        .find(|r| r.path.ends_with("/issues"))
        .expect("a list call");
    assert!(
        last.query.as_deref().unwrap_or("").contains("page=2"),
        "{:?}",
        last.query
    );

    let moved = answer(&client, read, json!({"operation": "list_issues", "params": {"owner": "octo", "repo": "hello-world", "filter": {"state": "open"}, "first": 1, "after": end}})).await;
    assert_eq!(moved["error"]["details"]["reason"], "cursor_mismatch");
    let forged = answer(&client, read, json!({"operation": "list_issues", "params": {"owner": "octo", "repo": "hello-world", "first": 1, "after": "bm9wZQ.AAAA"}})).await;
    assert_eq!(forged["error"]["details"]["reason"], "invalid_cursor");
    let mixed = answer(&client, read, json!({"operation": "list_issues", "params": {"owner": "octo", "repo": "hello-world", "first": 1, "page": 2}})).await;
    assert_eq!(mixed["error"]["details"]["param_name"], "pagination");
    let clamped = answer(&client, read, json!({"operation": "list_issues", "params": {"owner": "octo", "repo": "hello-world", "first": 5000}})).await;
    assert_eq!(clamped["warnings"][0]["code"], "PAGINATION_LIMIT_CLAMPED");
}

#[tokio::test]
async fn cursor_pagination_over_upstream_cursors_and_offsets() {
    let api = demo_api().await;
    let client = todo_client(&api, &[]).await;
    let read = "mcp_aql_read";
    let mut after: Option<Value> = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let mut params = json!({"first": 3});
        if let Some(after) = &after {
            params["after"] = after.clone();
        }
        let page = answer(
            &client,
            read,
            json!({"operation": "list_activity", "params": params}),
        )
        .await;
        pages += 1;
        for entry in page["data"]["items"].as_array().expect("items") {
            seen.push(entry["kind"].as_str().expect("kind").to_owned());
        }
        assert!(
            page["data"].get("next_cursor").is_none(),
            "the upstream's cursor is folded into ours"
        );
        if page["data"]["pageInfo"]["hasNextPage"] == false {
            break;
        }
        after = Some(page["data"]["pageInfo"]["endCursor"].clone());
        assert!(pages < 5, "the walk ends");
    }
    assert_eq!(seen, ["created", "created", "created", "completed"]);
    assert_eq!(pages, 2);

    let todos = answer(
        &client,
        read,
        json!({"operation": "list_todos", "params": {"first": 2}}),
    )
    .await;
    let info = &todos["data"]["pageInfo"];
    assert_eq!(
        (info["totalCount"].clone(), info["hasNextPage"].clone()),
        (json!(3), json!(true))
    );
    let rest = answer(&client, read, json!({"operation": "list_todos", "params": {"first": 2, "after": info["endCursor"].clone()}})).await;
    assert_eq!(rest["data"]["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(rest["data"]["pageInfo"]["hasNextPage"], false);

    // Backwards from the second page's start: the first page again.
    let back = answer(
        &client,
        read,
        json!({"operation": "list_todos", "params": {"last": 2, "before": rest["data"]["pageInfo"]["startCursor"].clone()}}),
    )
    .await;
    assert_eq!(back["data"]["items"], todos["data"]["items"]);
    assert_eq!(back["data"]["pageInfo"]["hasPreviousPage"], false);
    let alone = answer(
        &client,
        read,
        json!({"operation": "list_todos", "params": {"last": 2}}),
    )
    .await;
    assert_eq!(alone["error"]["details"]["provided"], json!(["last"]));
    let forward_only = answer(
        &client,
        read,
        json!({"operation": "list_activity", "params": {"last": 2, "before": "x"}}),
    )
    .await;
    assert_eq!(
        forward_only["error"]["code"], "VALIDATION_UNKNOWN_PARAM",
        "an upstream cursor pages forward only"
    );
}

#[tokio::test]
async fn updates_clear_fields_and_respect_etags() {
    let api = demo_api().await;
    let client = todo_client(&api, &[]).await;
    let created = answer(
        &client,
        "mcp_aql_create",
        json!({"operation": "create_todo", "params": {"title": "t", "notes": "n", "tags": ["a"]}}),
    )
    .await;
    let id = created["data"]["id"].clone();
    let read = answer(
        &client,
        "mcp_aql_read",
        json!({"operation": "get_todo", "params": {"id": id}}),
    )
    .await;
    let etag = read["data"]["_etag"].clone();
    assert!(
        etag.as_str().is_some_and(|tag| tag.starts_with("W/")),
        "{read}"
    );

    api.take_requests();
    let preview = answer(&client, "mcp_aql_update", json!({"operation": "update_todo", "params": {"id": id, "input": {"notes": null}, "dry_run": true, "if_match": etag}})).await;
    assert_eq!(preview["data"]["dry_run"], true);
    assert_eq!(preview["data"]["would_send"]["method"], "PATCH");
    assert_eq!(
        preview["data"]["would_send"]["body"],
        json!({"notes": null})
    );
    assert_eq!(preview["data"]["would_send"]["headers"]["If-Match"], etag);
    assert!(api.take_requests().is_empty(), "a dry run sends nothing");

    let stale = answer(&client, "mcp_aql_update", json!({"operation": "update_todo", "params": {"id": id, "input": {"title": "x"}, "if_match": "W/\"0000000000000000\""}})).await;
    assert_eq!(stale["error"]["code"], "CONFLICT_VERSION_MISMATCH");
    let cleared = answer(&client, "mcp_aql_update", json!({"operation": "update_todo", "params": {"id": id, "input": {"notes": null, "tags": null}, "if_match": etag}})).await;
    assert_eq!(cleared["success"], true, "{cleared}");
    let patch = api
        .take_requests()
        .into_iter()
        .rfind(|r| r.method == "PATCH")
        .expect("a PATCH");
    assert_eq!(
        patch.body_json(),
        Some(json!({"notes": null, "tags": null}))
    );
    assert_eq!(patch.header("if-match"), etag.as_str());
    let after = answer(
        &client,
        "mcp_aql_read",
        json!({"operation": "get_todo", "params": {"id": id}}),
    )
    .await;
    assert_eq!(
        (
            after["data"]["notes"].clone(),
            after["data"]["tags"].clone()
        ),
        (Value::Null, Value::Null)
    );
    assert_eq!(
        after["data"]["title"], "t",
        "fields left out keep their value"
    );
    assert_result(&after);
}

#[tokio::test]
async fn a_batch_answer_stays_bounded() {
    // Each read answers 700 kB: with a 1 MB response limit, the batch runs items until its
    // answer holds 1 MB, then answers the rest without running them.
    let big = format!("{{\"id\":1,\"title\":\"{}\"}}", "x".repeat(700 * 1024));
    let api = demo_upstream::spawn(demo_upstream::Options {
        api_key: Some(TODO_KEY.into()),
        faults: vec![demo_upstream::Fault::new("/todos/1", axum::http::StatusCode::OK).body(big)],
        ..demo_upstream::Options::default()
    })
    .await
    .expect("start demo-upstream");
    let client = todo_client(&api, &["--max-response-size", "1048576"]).await;
    api.take_requests();
    let get = json!({"operation": "get_todo", "params": {"id": 1}});
    let batch = answer(
        &client,
        "mcp_aql_read",
        json!({"operations": [get, get, get, get]}),
    )
    .await;
    assert_batch(&batch);
    assert_eq!(
        batch["summary"],
        json!({"total": 4, "succeeded": 2, "failed": 2})
    );
    let refused = &batch["results"][2]["result"]["error"];
    assert_eq!(refused["code"], "VALIDATION_PAYLOAD_TOO_LARGE");
    assert_eq!(refused["details"]["limit_type"], "response_size");
    assert_eq!(
        api.take_requests().len(),
        2,
        "the items past the limit never ran"
    );
}

/// A confirmation covers the precondition too: a token issued for a delete with one
/// `if_match` does not confirm the same delete with another.
#[tokio::test]
async fn a_confirmation_covers_the_precondition() {
    let api = demo_api().await;
    let client = todo_client(&api, &[]).await;
    let delete = |etag: &str, token: Option<&str>| {
        let mut params = json!({"id": 1, "if_match": etag});
        if let Some(token) = token {
            params["confirmation_token"] = token.into();
        }
        json!({"operation": "delete_todo", "params": params})
    };
    let asked = answer(&client, "mcp_aql_delete", delete("\"v1\"", None)).await;
    assert_eq!(asked["error"]["code"], "CONFIRMATION_REQUIRED", "{asked}");
    let token = asked["error"]["details"]["confirmation_token"]
        .as_str()
        .expect("a token")
        .to_owned();
    let other = answer(&client, "mcp_aql_delete", delete("\"v2\"", Some(&token))).await;
    assert_eq!(other["error"]["code"], "TOKEN_SCOPE_MISMATCH", "{other}");
    assert!(
        !api.requests().iter().any(|r| r.method == "DELETE"),
        "nothing was deleted"
    );
}
