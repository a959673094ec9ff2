//! Introspection, MCP-AQL's discovery, as a client meets it: every operation and type
//! document the fixture, todo and github adapters answer validates against the official
//! introspection-response schema and names the tool to call in the server's mode and prefix;
//! the type list holds the adapter's named types and the protocol's; the `endpoint` and
//! `search` filters narrow the list; an unknown name answers `null` and a malformed query an
//! error in the introspection shape. The validators every test file uses are checked here to
//! refuse what the spec forbids.

mod support;

use serde_json::{Value, json};
use support::{
    GITHUB_TOKEN, assert_introspection, assert_result, call, demo_api, github_client,
    start_upstream, stdio_client, todo_client,
};

#[tokio::test]
async fn introspection_answers_validate_against_the_schema() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &["--tool-prefix", "fx_"], &[]).await;
    let peer = client.peer();
    let read = "fx_mcp_aql_read";

    let (list, is_error) = call(
        peer,
        read,
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert!(!is_error);
    assert_introspection(&list);
    let protocol = &list["data"]["_protocol"];
    assert_eq!(protocol["version"], "1.0.0-draft");
    assert_eq!(protocol["mode"], "semantic");
    // Every READ selects fields, so every adapter is Level 2.
    assert_eq!(protocol["conformance"], "level-2");
    assert_eq!(protocol["limits"]["max_nesting_depth"], 32);
    assert_eq!(protocol["tools"][1], read);
    assert!(
        protocol["session_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("sess_"))
    );
    let operations: Vec<&str> = list["data"]["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .filter_map(|op| op["name"].as_str())
        .collect();
    assert_eq!(
        operations,
        [
            "introspect",
            "create_item",
            "get_item",
            "list_items",
            "update_item",
            "delete_item"
        ]
    );

    for name in &operations {
        let (details, _) = call(
            peer,
            read,
            json!({"operation": "introspect", "query": "operations", "params": {"name": name}}),
        )
        .await;
        assert_introspection(&details);
        let tool = details["data"]["operation"]["mcpTool"]
            .as_str()
            .expect("mcpTool");
        assert!(tool.starts_with("fx_mcp_aql_"), "{tool}");
    }
    let (details, _) = call(peer, read, json!({"operation": "introspect", "params": {"query": "operations", "name": "delete_item"}})).await;
    assert_eq!(details["data"]["operation"]["mcpTool"], "fx_mcp_aql_delete");

    let (types, _) = call(
        peer,
        read,
        json!({"operation": "introspect", "params": {"query": "types"}}),
    )
    .await;
    assert_introspection(&types);
    let type_names: Vec<String> = types["data"]["types"]
        .as_array()
        .expect("types")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    // The adapter's types as the generator names them (returned types, the enum of each
    // param with one, update_item's `input`), then the protocol's.
    for expected in [
        "Item",
        "ItemList",
        "Deletion",
        "ListItemsStatus",
        "UpdateItemInput",
        "UpdateItemStatus",
        "SemanticCategory",
        "OperationInput",
        "OperationResult",
        "OperationSuccess",
        "OperationFailure",
        "EndpointPermissions",
    ] {
        assert!(
            type_names.iter().any(|n| n == expected),
            "{expected} in {type_names:?}"
        );
    }
    for name in &type_names {
        let (details, _) = call(
            peer,
            read,
            json!({"operation": "introspect", "params": {"query": "types", "name": name}}),
        )
        .await;
        assert_introspection(&details);
        assert_eq!(details["data"]["type"]["name"], json!(name));
    }

    for (params, key) in [
        (json!({"query": "operations", "name": "nope"}), "operation"),
        (json!({"query": "types", "name": "Nope"}), "type"),
    ] {
        let (answer, is_error) = call(
            peer,
            read,
            json!({"operation": "introspect", "params": params}),
        )
        .await;
        assert_introspection(&answer);
        assert!(!is_error);
        assert_eq!(answer, json!({"success": true, "data": {key: null}}));
    }

    let (filtered, _) = call(peer, read, json!({"operation": "introspect", "params": {"query": "operations", "endpoint": "read", "search": "ITEM"}})).await;
    assert_introspection(&filtered);
    let names: Vec<&str> = filtered["data"]["operations"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(names, ["get_item", "list_items"]);

    for params in [
        json!({"query": "everything"}),
        json!({}),
        json!({"query": 7}),
        json!({"query": "operations", "verbose": true}),
        json!({"query": "operations", "endpoint": "query"}),
        json!({"query": "types", "search": "x"}),
    ] {
        let (answer, _) = call(
            peer,
            read,
            json!({"operation": "introspect", "params": params}),
        )
        .await;
        assert_introspection(&answer);
        assert_eq!(answer["success"], false, "{params}");
        assert!(answer["error"].get("details").is_none());
    }
    let (bad_query, _) = call(
        peer,
        read,
        json!({"operation": "introspect", "params": {"query": "everything"}}),
    )
    .await;
    assert_eq!(bad_query["error"]["code"], "VALIDATION_INVALID_VALUE");
    let message = bad_query["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("'operations'") && message.contains("'types'"),
        "{message}"
    );

    // Introspect sent to the wrong family still answers in the introspection shape.
    let (wrong, _) = call(
        peer,
        "fx_mcp_aql_create",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_introspection(&wrong);
    assert_eq!(wrong["error"]["code"], "VALIDATION_ENDPOINT_MISMATCH");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn single_mode_introspection_names_the_single_tool() {
    let upstream = start_upstream().await;
    let client = stdio_client(&upstream, &["--mode", "single"], &[]).await;
    let peer = client.peer();
    let (list, _) = call(
        peer,
        "mcp_aql",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_introspection(&list);
    assert_eq!(list["data"]["_protocol"]["mode"], "single");
    let (details, _) = call(peer, "mcp_aql", json!({"operation": "introspect", "params": {"query": "operations", "name": "delete_item"}})).await;
    assert_eq!(details["data"]["operation"]["mcpTool"], "mcp_aql");
    // Every category goes through the one tool.
    let (created, is_error) = call(
        peer,
        "mcp_aql",
        json!({"operation": "create_item", "params": {"title": "Tea"}}),
    )
    .await;
    assert_result(&created);
    assert!(!is_error);
    assert_eq!(created["data"]["created"]["title"], "Tea");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn todo_tools_and_introspection() {
    let api = demo_api().await;
    let client = todo_client(&api, &[]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(
        names,
        [
            "mcp_aql_create",
            "mcp_aql_read",
            "mcp_aql_update",
            "mcp_aql_delete",
            "mcp_aql_execute"
        ]
    );
    for tool in &tools {
        assert!(
            tool.description
                .as_deref()
                .unwrap_or("")
                .contains("introspect"),
            "{}",
            tool.name
        );
    }
    let peer = client.peer();
    let (list, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_introspection(&list);
    let operations: Vec<String> = list["data"]["operations"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|o| o["name"].as_str().map(str::to_owned))
        .collect();
    for expected in [
        "introspect",
        "create_todo",
        "list_todos",
        "get_todo",
        "update_todo",
        "delete_todo",
        "clear_completed_todos",
        "complete_todo",
    ] {
        assert!(operations.iter().any(|o| o == expected), "{expected}");
    }
    for name in &operations {
        let (details, _) = call(
            peer,
            "mcp_aql_read",
            json!({"operation": "introspect", "params": {"query": "operations", "name": name}}),
        )
        .await;
        assert_introspection(&details);
        assert!(
            details["data"]["operation"]["mcpTool"]
                .as_str()
                .is_some_and(|t| t.starts_with("mcp_aql_"))
        );
    }
    let (types, _) = call(
        peer,
        "mcp_aql_read",
        json!({"operation": "introspect", "params": {"query": "types"}}),
    )
    .await;
    assert_introspection(&types);
    for entry in types["data"]["types"].as_array().expect("types") {
        let (details, _) = call(
            peer,
            "mcp_aql_read",
            json!({"operation": "introspect", "params": {"query": "types", "name": entry["name"]}}),
        )
        .await;
        assert_introspection(&details);
        assert_ne!(details["data"]["type"], Value::Null);
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn github_introspection_filters_and_calls() {
    let api = demo_api().await;
    let client = github_client(&api, &["--tool-prefix", "github_"]).await;
    let peer = client.peer();
    let read = "github_mcp_aql_read";

    let (list, _) = call(
        peer,
        read,
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )
    .await;
    assert_introspection(&list);
    let operations: Vec<String> = list["data"]["operations"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|o| o["name"].as_str().map(str::to_owned))
        .collect();
    assert!(operations.len() > 10, "{operations:?}");
    for name in &operations {
        let (details, _) = call(
            peer,
            read,
            json!({"operation": "introspect", "params": {"query": "operations", "name": name}}),
        )
        .await;
        assert_introspection(&details);
        let tool = details["data"]["operation"]["mcpTool"]
            .as_str()
            .expect("mcpTool");
        assert!(tool.starts_with("github_mcp_aql_"), "{tool}");
    }
    let (types, _) = call(
        peer,
        read,
        json!({"operation": "introspect", "params": {"query": "types"}}),
    )
    .await;
    assert_introspection(&types);
    for entry in types["data"]["types"].as_array().expect("types") {
        let (details, _) = call(
            peer,
            read,
            json!({"operation": "introspect", "params": {"query": "types", "name": entry["name"]}}),
        )
        .await;
        assert_introspection(&details);
        assert_ne!(details["data"]["type"], Value::Null);
    }

    // The filters find the issue readers without listing everything.
    let (issues, _) = call(peer, read, json!({"operation": "introspect", "params": {"query": "operations", "endpoint": "read", "search": "issue"}})).await;
    assert_introspection(&issues);
    let found: Vec<&str> = issues["data"]["operations"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert!(
        found.contains(&"get_issue") && found.contains(&"list_issues"),
        "{found:?}"
    );
    assert!(
        issues["data"]["operations"]
            .as_array()
            .expect("list")
            .iter()
            .all(|o| o["endpoint"] == "read")
    );

    let (repo, is_error) = call(
        peer,
        read,
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "hello-world"}}),
    )
    .await;
    assert_result(&repo);
    assert!(!is_error, "{repo}");
    assert_eq!(
        api.requests()[0].header("authorization"),
        Some(format!("Bearer {GITHUB_TOKEN}").as_str())
    );

    let (missing, _) = call(
        peer,
        read,
        json!({"operation": "get_repo", "params": {"owner": "octo", "repo": "nope"}}),
    )
    .await;
    assert_result(&missing);
    assert_eq!(missing["error"]["code"], "NOT_FOUND_RESOURCE");
    client.cancel().await.expect("close");
}

#[test]
fn the_schemas_reject_what_the_spec_forbids() {
    use aqlgen_spec_schemas::{Schema, errors};
    for bad in [
        json!({"success": false, "error": {"code": "X", "message": "m", "details": {}}}),
        json!({"success": true, "data": {"_protocol": {"version": "1.0.0", "mode": "crude"}, "operations": []}}),
        json!({"success": true, "data": {"operation": null}, "_meta": {}}),
    ] {
        if let Some(errors) = errors(Schema::IntrospectionResponse, &bad) {
            assert!(!errors.is_empty(), "{bad}");
        }
    }
    for bad in [
        json!({"success": true}),
        json!({"success": false, "error": {"code": "X", "message": "m"}, "_meta": {}}),
        json!({"success": false, "error": {"code": "lower", "message": "m"}}),
    ] {
        if let Some(errors) = errors(Schema::OperationResult, &bad) {
            assert!(!errors.is_empty(), "{bad}");
        }
    }
}
