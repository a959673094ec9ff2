//! A small hand-written adapter in the shape `aqlgen` generates, used to test the runtime
//! end to end: four CRUD operations on items, one of them requiring confirmation, and no
//! EXECUTE family (so its tool is left out).

use aqlgen_runtime::adapter::{
    Adapter, AdapterInfo, Auth, Category, DangerLevel, Introspection, Method, OperationDoc, Route,
    ToolDocs, TrustLevel, TypeDoc, UpstreamRequest,
};
use aqlgen_runtime::params::{ParamError, json_type, reject_unknown, reject_unknown_fields};
use serde_json::{Map, Value};

/// The fixture adapter.
pub struct FixtureAdapter;

static INFO: AdapterInfo = AdapterInfo {
    name: "fixture",
    version: "0.3.0",
    description: "Items in a test store",
    base_url: "http://127.0.0.1:9",
    base_url_env: "FIXTURE_BASE_URL",
    auth: Auth::None,
    trust: Some(TrustLevel::Validated),
    rate_limits: &[],
    schema_fingerprint: "sha256:0000000000000000000000000000000000000000000000000000000000000000",
};

fn required_string(raw: &Map<String, Value>, param: &'static str) -> Result<String, ParamError> {
    match raw.get(param) {
        None => Err(ParamError::Missing {
            param,
            expected: "string",
        }),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(other) => Err(ParamError::InvalidType {
            param: param.to_owned(),
            expected: "string",
            actual: json_type(other),
        }),
    }
}

fn item_path(id: &str) -> String {
    let mut path = String::from("/items/");
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            path.push(char::from(byte));
        } else {
            path.push_str(&format!("%{byte:02X}"));
        }
    }
    path
}

const GET_ITEM_PARAMS: &[&str] = &["id"];
fn build_get_item(raw: &Map<String, Value>) -> Result<UpstreamRequest, ParamError> {
    reject_unknown("get_item", raw, GET_ITEM_PARAMS)?;
    let id = required_string(raw, "id")?;
    Ok(UpstreamRequest {
        method: Method::Get,
        path: item_path(&id),
        query: Vec::new(),
        body: None,
    })
}

const LIST_ITEMS_PARAMS: &[&str] = &["status"];
fn build_list_items(raw: &Map<String, Value>) -> Result<UpstreamRequest, ParamError> {
    reject_unknown("list_items", raw, LIST_ITEMS_PARAMS)?;
    let mut query = Vec::new();
    match raw.get("status") {
        None => {}
        Some(Value::String(status)) if status == "open" || status == "done" => {
            query.push(("status", status.clone()));
        }
        Some(Value::String(_)) => {
            return Err(ParamError::InvalidValue {
                param: "status".into(),
                constraint: "one of 'open', 'done'".into(),
                value: raw["status"].clone(),
            });
        }
        Some(other) => {
            return Err(ParamError::InvalidType {
                param: "status".into(),
                expected: "string",
                actual: json_type(other),
            });
        }
    }
    Ok(UpstreamRequest {
        method: Method::Get,
        path: "/items".into(),
        query,
        body: None,
    })
}

const CREATE_ITEM_PARAMS: &[&str] = &["title"];
fn build_create_item(raw: &Map<String, Value>) -> Result<UpstreamRequest, ParamError> {
    reject_unknown("create_item", raw, CREATE_ITEM_PARAMS)?;
    let title = required_string(raw, "title")?;
    let mut body = Map::new();
    body.insert("title".into(), Value::String(title));
    Ok(UpstreamRequest {
        method: Method::Post,
        path: "/items".into(),
        query: Vec::new(),
        body: Some(Value::Object(body)),
    })
}

const UPDATE_ITEM_PARAMS: &[&str] = &["id", "input"];
const UPDATE_ITEM_FIELDS: &[&str] = &["title", "status"];
fn build_update_item(raw: &Map<String, Value>) -> Result<UpstreamRequest, ParamError> {
    reject_unknown("update_item", raw, UPDATE_ITEM_PARAMS)?;
    let id = required_string(raw, "id")?;
    let input = match raw.get("input") {
        None => {
            return Err(ParamError::Missing {
                param: "input",
                expected: "object",
            });
        }
        Some(Value::Object(input)) => input,
        Some(other) => {
            return Err(ParamError::InvalidType {
                param: "input".into(),
                expected: "object",
                actual: json_type(other),
            });
        }
    };
    reject_unknown_fields("update_item", input, UPDATE_ITEM_FIELDS)?;
    Ok(UpstreamRequest {
        method: Method::Patch,
        path: item_path(&id),
        query: Vec::new(),
        body: Some(Value::Object(input.clone())),
    })
}

const DELETE_ITEM_PARAMS: &[&str] = &["id"];
fn build_delete_item(raw: &Map<String, Value>) -> Result<UpstreamRequest, ParamError> {
    reject_unknown("delete_item", raw, DELETE_ITEM_PARAMS)?;
    let id = required_string(raw, "id")?;
    Ok(UpstreamRequest {
        method: Method::Delete,
        path: item_path(&id),
        query: Vec::new(),
        body: None,
    })
}

static GET_ITEM: Route = Route {
    operation: "get_item",
    description: "Get one item.",
    category: Category::Read,
    danger_level: DangerLevel::Safe,
    requires_confirmation: false,
    build: build_get_item,
    features: &[],
    fields: None,
    paging: None,
};
static LIST_ITEMS: Route = Route {
    operation: "list_items",
    description: "List items.",
    category: Category::Read,
    danger_level: DangerLevel::Safe,
    requires_confirmation: false,
    build: build_list_items,
    features: &[],
    fields: None,
    paging: None,
};
static CREATE_ITEM: Route = Route {
    operation: "create_item",
    description: "Add an item.",
    category: Category::Create,
    danger_level: DangerLevel::Reversible,
    requires_confirmation: false,
    build: build_create_item,
    features: &[],
    fields: None,
    paging: None,
};
static UPDATE_ITEM: Route = Route {
    operation: "update_item",
    description: "Change an item.",
    category: Category::Update,
    danger_level: DangerLevel::Reversible,
    requires_confirmation: false,
    build: build_update_item,
    features: &[],
    fields: None,
    paging: None,
};
static DELETE_ITEM: Route = Route {
    operation: "delete_item",
    description: "Delete an item.",
    category: Category::Delete,
    danger_level: DangerLevel::Destructive,
    requires_confirmation: true,
    build: build_delete_item,
    features: &[],
    fields: None,
    paging: None,
};

static ROUTES: [&Route; 5] = [
    &CREATE_ITEM,
    &GET_ITEM,
    &LIST_ITEMS,
    &UPDATE_ITEM,
    &DELETE_ITEM,
];

static OPERATIONS: [OperationDoc; 5] = [
    OperationDoc {
        name: "create_item",
        category: Category::Create,
        description: "Create an item",
        summary_json: r#"{"name":"create_item","semantic_category":"CREATE","endpoint":"create","description":"Create an item"}"#,
        details_json: r#"{"name":"create_item","semantic_category":"CREATE","endpoint":"create","description":"Create an item","permissions":{"readOnly":false,"destructive":false},"parameters":[{"name":"title","type":"string","required":true,"description":"Item title"}],"returns":{"name":"Item","kind":"object"},"examples":[{"request":{"operation":"create_item","params":{"title":"Milk"}}}]}"#,
    },
    OperationDoc {
        name: "get_item",
        category: Category::Read,
        description: "Get one item",
        summary_json: r#"{"name":"get_item","semantic_category":"READ","endpoint":"read","description":"Get one item"}"#,
        details_json: concat!(
            r#"{"name":"get_item","semantic_category":"READ","endpoint":"read","description":"Get one item","permissions":{"readOnly":true,"destructive":false},"parameters":["#,
            r#"{"name":"id","type":"string","required":true,"description":"Item id"}"#,
            r#"],"returns":{"name":"Item","kind":"object"}}"#
        ),
    },
    OperationDoc {
        name: "list_items",
        category: Category::Read,
        description: "List items, optionally by status",
        summary_json: r#"{"name":"list_items","semantic_category":"READ","endpoint":"read","description":"List items, optionally by status"}"#,
        details_json: r#"{"name":"list_items","semantic_category":"READ","endpoint":"read","description":"List items, optionally by status","permissions":{"readOnly":true,"destructive":false},"parameters":[{"name":"status","type":"Status","required":false,"enum":["open","done"]}],"returns":{"name":"Item","kind":"object"}}"#,
    },
    OperationDoc {
        name: "update_item",
        category: Category::Update,
        description: "Change an item",
        summary_json: r#"{"name":"update_item","semantic_category":"UPDATE","endpoint":"update","description":"Change an item"}"#,
        details_json: r#"{"name":"update_item","semantic_category":"UPDATE","endpoint":"update","description":"Change an item","permissions":{"readOnly":false,"destructive":true},"parameters":[{"name":"id","type":"string","required":true},{"name":"input","type":"object","required":true,"description":"Fields to change: title, status"}],"returns":{"name":"Item","kind":"object"}}"#,
    },
    OperationDoc {
        name: "delete_item",
        category: Category::Delete,
        description: "Delete an item (needs confirmation)",
        summary_json: r#"{"name":"delete_item","semantic_category":"DELETE","endpoint":"delete","description":"Delete an item (needs confirmation)"}"#,
        details_json: r#"{"name":"delete_item","semantic_category":"DELETE","endpoint":"delete","description":"Delete an item","permissions":{"readOnly":false,"destructive":true},"parameters":[{"name":"id","type":"string","required":true}],"returns":{"name":"Item","kind":"object"}}"#,
    },
];

static TYPES: [TypeDoc; 2] = [
    TypeDoc {
        name: "Item",
        summary_json: r#"{"name":"Item","kind":"object","description":"A stored item"}"#,
        details_json: r#"{"name":"Item","kind":"object","description":"A stored item","fields":[{"name":"id","type":"string","required":true},{"name":"title","type":"string","required":true},{"name":"status","type":"Status","required":true}]}"#,
    },
    TypeDoc {
        name: "Status",
        summary_json: r#"{"name":"Status","kind":"enum"}"#,
        details_json: r#"{"name":"Status","kind":"enum","values":["open","done"]}"#,
    },
];

static INTROSPECTION: Introspection = Introspection {
    operations: &OPERATIONS,
    types: &TYPES,
};

static TOOLS: ToolDocs = ToolDocs {
    create: "Additive operations: create_item. Call 'introspect' on mcp_aql_read for details.",
    read: "Safe, read-only operations: introspect, get_item, list_items. Quick start: {\"operation\": \"introspect\", \"params\": {\"query\": \"operations\"}}",
    update: "Modifying operations: update_item. Call 'introspect' for details.",
    delete: "Destructive operations: delete_item. Use with caution; call 'introspect' for details.",
    execute: "This adapter has no execute operations, so every call here is refused. Call 'introspect' on mcp_aql_read for the operations it has.",
    single: "MCP-AQL fixture adapter: every operation through one tool. Quick start: {\"operation\": \"introspect\", \"params\": {\"query\": \"operations\"}}",
};

impl Adapter for FixtureAdapter {
    const INFO: &'static AdapterInfo = &INFO;
    const ROUTES: &'static [&'static Route] = &ROUTES;
    const INTROSPECTION: &'static Introspection = &INTROSPECTION;
    const TOOLS: &'static ToolDocs = &TOOLS;

    fn route(operation: &str) -> Option<&'static Route> {
        match operation {
            "create_item" => Some(&CREATE_ITEM),
            "get_item" => Some(&GET_ITEM),
            "list_items" => Some(&LIST_ITEMS),
            "update_item" => Some(&UPDATE_ITEM),
            "delete_item" => Some(&DELETE_ITEM),
            _ => None,
        }
    }
}
