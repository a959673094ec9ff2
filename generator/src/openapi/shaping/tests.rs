//! Shaping as an import shows it: each test imports a small document and reads the adapter.

use serde_json::{Value, json};

use super::super::{Options, import};
use crate::diagnostic::Code;
use crate::schema::{AdapterSchema, PaginationStyle};

/// Imports `paths` (with `components`), checks the result and returns its schema.
fn imported(paths: Value, components: Value) -> AdapterSchema {
    let document = json!({
        "openapi": "3.0.3",
        "info": {"title": "Shapes", "version": "1.0.0"},
        "servers": [{"url": "https://api.example.com"}],
        "components": components,
        "paths": paths,
    });
    let imported = import(&document, &Options::default()).expect("it imports");
    let checked = crate::check_text("shapes.md", &imported.text).expect("it passes check");
    assert!(
        checked
            .warnings
            .iter()
            .all(|warning| warning.code != Code::FeatureUnavailable),
        "{:#?}",
        checked.warnings
    );
    let front = imported
        .text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("---\n"))
        .map(|(front, _)| front)
        .expect("front matter");
    serde_yaml::from_str(front).expect("the front matter")
}

fn presets(operation: &crate::schema::Operation) -> Value {
    operation
        .response
        .as_ref()
        .and_then(|response| response.presets.clone())
        .unwrap_or(Value::Null)
}

fn limits(
    operation: &crate::schema::Operation,
) -> (Option<PaginationStyle>, Option<u64>, Option<u64>) {
    let pagination = operation.pagination.as_ref().expect("a pagination block");
    (
        pagination.style,
        pagination.default_limit,
        pagination.max_limit,
    )
}

fn repository() -> Value {
    json!({"schemas": {"Repository": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "full_name": {"type": "string"},
            "name": {"type": "string"},
            "owner": {"$ref": "#/components/schemas/Owner"},
            "private": {"type": "boolean"},
            "description": {"type": ["string", "null"]},
            "stargazers_count": {"type": "integer"},
            "topics": {"type": "array", "items": {"type": "string"}},
            "a.b": {"type": "string"}
        }
    }, "Owner": {"type": "object", "properties": {"login": {"type": "string"}}}}})
}

#[test]
fn an_array_with_a_link_header_gets_fields_presets_and_page_pagination() {
    let schema = imported(
        json!({"/user/repos": {"get": {
            "operationId": "repos/list-for-user",
            "parameters": [
                {"name": "per_page", "in": "query", "schema": {"type": "integer", "default": 30, "maximum": 100}},
                {"name": "page", "in": "query", "schema": {"type": "integer", "default": 1}}
            ],
            "responses": {"200": {
                "description": "ok",
                "headers": {"Link": {"schema": {"type": "string"}}},
                "content": {"application/json": {"schema": {
                    "type": "array", "items": {"$ref": "#/components/schemas/Repository"}
                }}}
            }}
        }}}),
        repository(),
    );
    let list = &schema.operations.read[0];
    assert_eq!(list.supports_fields, Some(true));
    assert_eq!(
        limits(list),
        (Some(PaginationStyle::Page), Some(30), Some(100))
    );
    // serde_json orders properties by name; `a.b` is no dot-path member.
    assert_eq!(
        presets(list),
        json!({
            "minimal": ["id", "name", "full_name"],
            "standard": ["id", "name", "full_name", "description", "private", "stargazers_count"]
        })
    );
}

#[test]
fn limit_and_offset_page_by_offset() {
    let schema = imported(
        json!({"/things": {"get": {
            "operationId": "listThings",
            "parameters": [
                {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 50}},
                {"name": "offset", "in": "query", "schema": {"type": "integer"}}
            ],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "array",
                "items": {"type": "object", "properties": {"uuid": {"type": "string"}, "label": {"type": "string"}}}
            }}}}}
        }}}),
        json!({}),
    );
    let list = &schema.operations.read[0];
    assert_eq!(
        limits(list),
        (Some(PaginationStyle::Offset), None, Some(50))
    );
    assert_eq!(list.supports_fields, Some(true));
    // `standard` would be every property: not written.
    assert_eq!(presets(list), json!({"minimal": ["uuid"]}));
}

#[test]
fn cursor_and_limit_page_by_cursor() {
    let schema = imported(
        json!({"/events": {"get": {
            "operationId": "listEvents",
            "parameters": [
                {"name": "cursor", "in": "query", "schema": {"type": "string"}},
                {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 25}}
            ],
            "responses": {"2XX": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object",
                "properties": {
                    "data": {"type": "array", "items": {"allOf": [
                        {"type": "object", "properties": {"id": {"type": "string"}, "kind": {"type": "string"}}},
                        {"properties": {"payload": {"type": "object"}}}
                    ]}},
                    "next_cursor": {"type": ["string", "null"]}
                }
            }}}}}
        }}}),
        json!({}),
    );
    let list = &schema.operations.read[0];
    assert_eq!(
        limits(list),
        (Some(PaginationStyle::Cursor), Some(25), None)
    );
    // Paged, the runtime unwraps `data` into `items` and selects there.
    assert_eq!(
        presets(list),
        json!({"minimal": ["id"], "standard": ["id", "kind"]})
    );
}

#[test]
fn a_search_wrapper_is_shaped_by_its_items() {
    let search = |page: bool| {
        let mut parameters = vec![
            json!({"name": "q", "in": "query", "required": true, "schema": {"type": "string"}}),
        ];
        if page {
            parameters
                .push(json!({"name": "per_page", "in": "query", "schema": {"type": "integer"}}));
            parameters.push(json!({"name": "page", "in": "query", "schema": {"type": "integer"}}));
        }
        imported(
            json!({"/search/repositories": {"get": {
                "operationId": "search/repos",
                "parameters": parameters,
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                    "type": "object",
                    "properties": {
                        "total_count": {"type": "integer"},
                        "incomplete_results": {"type": "boolean"},
                        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Repository"}}
                    }
                }}}}}
            }}}),
            repository(),
        )
    };
    let paged = search(true);
    let paged = &paged.operations.read[0];
    assert_eq!(limits(paged), (Some(PaginationStyle::Page), None, None));
    assert_eq!(
        presets(paged)["minimal"],
        json!(["id", "name", "full_name"])
    );
    let whole = search(false);
    let whole = &whole.operations.read[0];
    assert!(whole.pagination.is_none());
    assert_eq!(whole.supports_fields, Some(true));
    // Unpaged, selection applies to the wrapper: the items are reached through `items`.
    assert_eq!(
        presets(whole),
        json!({
            "minimal": ["items.id", "items.name", "items.full_name"],
            "standard": [
                "incomplete_results", "total_count", "items.id", "items.name", "items.full_name",
                "items.description", "items.private", "items.stargazers_count"
            ]
        })
    );
}

#[test]
fn an_object_that_identifies_itself_is_no_wrapper() {
    let schema = imported(
        json!({"/issues/{number}": {"get": {
            "operationId": "getIssue",
            "parameters": [{"name": "number", "in": "path", "required": true, "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object",
                "properties": {
                    "number": {"type": "integer"},
                    "title": {"type": "string"},
                    "state": {"type": "string"},
                    "labels": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}
                }
            }}}}}
        }}}),
        json!({}),
    );
    let issue = &schema.operations.read[0];
    assert_eq!(
        presets(issue),
        json!({"minimal": ["number", "title"], "standard": ["number", "title", "state"]})
    );
}

#[test]
fn an_own_fields_param_keeps_field_selection_off() {
    let schema = imported(
        json!({"/items/{id}": {"get": {
            "operationId": "getItem",
            "parameters": [
                {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                {"name": "fields", "in": "query", "schema": {"type": "string"}}
            ],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}
            }}}}}
        }}}),
        json!({}),
    );
    let item = &schema.operations.read[0];
    assert!(item.supports_fields.is_none() && item.response.is_none());
}

#[test]
fn only_reads_are_shaped() {
    let schema = imported(
        json!({"/things": {"post": {
            "operationId": "makeThing",
            "parameters": [
                {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                {"name": "offset", "in": "query", "schema": {"type": "integer"}}
            ],
            "responses": {"201": {"description": "made", "content": {"application/json": {"schema": {
                "type": "object", "properties": {"id": {"type": "string"}, "extra": {"type": "string"}}
            }}}}}
        }}}),
        json!({}),
    );
    let make = &schema.operations.create[0];
    assert!(make.supports_fields.is_none() && make.response.is_none() && make.pagination.is_none());
}

/// Names are chosen so that `check` has nothing to say about them; should it still refuse
/// a paging param, `settle` takes the pagination (and its presets) away with it.
#[test]
fn pagination_a_repair_takes_away_goes_with_its_presets() {
    let mut schema = imported(
        json!({"/things": {"get": {
            "operationId": "listThings",
            "parameters": [
                {"name": "per_page", "in": "query", "schema": {"type": "integer"}},
                {"name": "page", "in": "query", "schema": {"type": "integer"}}
            ],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "array",
                "items": {"type": "object", "properties": {"id": {"type": "integer"}, "tags": {"type": "array"}}}
            }}}}}
        }}}),
        json!({}),
    );
    let list = &mut schema.operations.read[0];
    assert!(list.pagination.is_some());
    // `page_` and `page` make the same Rust field: `check` refuses the later one, `page`.
    let taken = list.params["per_page"].clone();
    list.params = std::iter::once(("page_".to_owned(), taken))
        .chain(std::mem::take(&mut list.params))
        .collect();
    let mut warnings = Vec::new();
    super::super::settle::settle(&mut schema, &mut warnings).expect("settles");
    let reasons: Vec<&str> = warnings.iter().map(|w| w.reason.as_str()).collect();
    assert!(
        reasons
            .iter()
            .any(|reason| reason.starts_with("param `page` dropped"))
            && reasons
                .iter()
                .any(|reason| reason.starts_with("pagination and its presets dropped")),
        "{reasons:#?}"
    );
    let list = &schema.operations.read[0];
    assert_eq!(list.supports_fields, Some(true));
    assert!(list.pagination.is_none() && list.response.is_none());
}

#[test]
fn features_the_operation_cannot_have_are_not_written() {
    let schema = imported(
        json!({"/log": {"get": {
            "operationId": "getLog",
            "parameters": [
                {"name": "per_page", "in": "query", "schema": {"type": "integer"}},
                {"name": "page", "in": "query", "schema": {"type": "integer"}},
                {"name": "after", "in": "query", "schema": {"type": "string"}}
            ],
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "array", "items": {"type": "string"}
            }}}}}
        }}, "/required": {"get": {
            "operationId": "getRequired",
            "parameters": [
                {"name": "per_page", "in": "query", "required": true, "schema": {"type": "integer"}},
                {"name": "page", "in": "query", "schema": {"type": "integer"}}
            ]
        }}}),
        json!({}),
    );
    for operation in &schema.operations.read {
        assert!(operation.pagination.is_none(), "{}", operation.name);
        assert!(operation.supports_fields.is_none(), "{}", operation.name);
    }
}
