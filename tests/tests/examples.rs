//! The example project works as shipped: `examples/build-rs-example`, the project `aqlgen new`
//! scaffolds around the todo schema. The adapter its `build.rs` compiles routes every
//! operation by name and builds requests from params, and its introspection documents
//! validate against the spec's `introspection-response.schema.json` definitions.

use aqlgen_runtime::adapter::{Adapter, Body, Method};
use aqlgen_spec_schemas::{Schema, Validator};
use build_rs_example::adapter::TodoAdapter;
use serde_json::{Map, Value, json};

fn params(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

#[test]
fn routes_every_operation_by_name() {
    for route in TodoAdapter::ROUTES {
        let found = TodoAdapter::route(route.operation).expect("every route is found by name");
        assert_eq!(found.operation, route.operation);
    }
    assert!(TodoAdapter::route("no_such_operation").is_none());
    assert_eq!(TodoAdapter::SERVER.name, "todo");
    assert!(TodoAdapter::TOOLS.read.contains("introspect"));
}

#[test]
fn builds_requests_from_params() {
    let get = TodoAdapter::route("get_todo").expect("get_todo is defined");
    let request = (get.build)(&params(json!({"id": 7}))).expect("valid params");
    assert_eq!(
        (request.method, request.path.as_str()),
        (Method::Get, "/todos/7")
    );

    let create = TodoAdapter::route("create_todo").expect("create_todo is defined");
    let request = (create.build)(&params(json!({"title": "a/b"}))).expect("valid params");
    let Some(Body::Json(body)) = request.body else {
        panic!("a JSON body, not {:?}", request.body)
    };
    assert_eq!(body["title"], "a/b");

    let error = (get.build)(&params(json!({"id": "x", "bogus": 1}))).expect_err("unknown param");
    assert!(format!("{error:?}").contains("bogus"));
}

/// A validator for one `$defs` entry of the official introspection schema; `None` where the
/// official schemas are not found (the skip is reported).
fn validator_for(definition: &str) -> Option<Validator> {
    aqlgen_spec_schemas::definition(Schema::IntrospectionResponse, definition)
}

fn assert_valid(validator: &Option<Validator>, document: &Value, what: &str) {
    let Some(validator) = validator else { return };
    let errors: Vec<String> = validator
        .iter_errors(document)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:?}\n{document}");
}

#[test]
fn operation_documents_match_the_spec() {
    let (summary, details) = (
        validator_for("OperationInfo"),
        validator_for("OperationDetails"),
    );
    let type_names: Vec<&str> = TodoAdapter::INTROSPECTION
        .types
        .iter()
        .map(|t| t.name)
        .collect();
    for operation in TodoAdapter::INTROSPECTION.operations {
        let info: Value = serde_json::from_str(operation.summary_json).expect("summary is JSON");
        assert_valid(&summary, &info, operation.name);
        let with_tool = operation
            .details_json
            .replacen('{', "{\"mcpTool\":\"mcp_aql_read\",", 1);
        let document: Value = serde_json::from_str(&with_tool).expect("details are JSON");
        assert_valid(&details, &document, operation.name);
        let returns = document["returns"]["name"]
            .as_str()
            .expect("returns has a name");
        assert!(
            type_names.contains(&returns),
            "{}: returns {returns}",
            operation.name
        );
        assert!(
            document
                .get("examples")
                .is_some_and(|e| e.as_array().is_some_and(|a| !a.is_empty()))
        );
    }
}

#[test]
fn type_documents_match_the_spec() {
    let (summary, details) = (validator_for("TypeInfo"), validator_for("TypeDetails"));
    // Result types list their members (INTRO-12), as `response.fields` declares them.
    let todo = TodoAdapter::INTROSPECTION
        .types
        .iter()
        .find(|doc| doc.name == "Todo")
        .expect("the Todo type");
    let todo: Value = serde_json::from_str(todo.details_json).expect("JSON");
    let fields: Vec<&str> = todo["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|field| field["name"].as_str())
        .collect();
    assert!(
        fields.contains(&"id") && fields.contains(&"title"),
        "{todo}"
    );
    for doc in TodoAdapter::INTROSPECTION.types {
        assert_valid(
            &summary,
            &serde_json::from_str(doc.summary_json).expect("JSON"),
            doc.name,
        );
        assert_valid(
            &details,
            &serde_json::from_str(doc.details_json).expect("JSON"),
            doc.name,
        );
    }
}
