//! `aqlgen conformance export`: drives a built adapter over a real MCP connection against a
//! live upstream and writes the evidence bundle the specification's conformance runner scores
//! (spec digest §9B, §9E). Every response is stored as the server sent it.
//!
//! What it sends, per operation listed by `introspect`:
//! * its details (`operation_details`), and the names its handler accepts
//!   (`accepted_parameters`, from the schema the server was generated from);
//! * for every required param, a call with the other required params filled and that one
//!   left out (`missing_required`), and a call with an unknown param (`unknown_parameter`).
//!   Validation refuses both before any upstream call;
//! * an unknown operation, and a read of a resource that does not exist (`error_tests`);
//! * create → read round trips and update → read preservation checks wherever a CREATE
//!   (`POST /things`) has a READ of one item (`GET /things/{id}`), and an UPDATE of the same
//!   item, finding the new item's id in the create answer (`round_trip_tests`,
//!   `update_preservation_tests`).
//!
//! Level 2 fields are written only for what the live server reports: both endpoint modes when
//! it registers both, `capabilities` from `_protocol.capabilities`, and a live `batch_example`
//! when it supports batches.

mod client;

use std::ffi::OsString;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::Checked;
use crate::error::Error;
use crate::ir::{Category, Method, Operation, ParamType, Placement};
use client::Client;

/// The unknown param every probe sends.
pub const UNKNOWN_PARAM: &str = "zz_unknown_probe";

/// An operation name no adapter has.
const UNKNOWN_OPERATION: &str = "zz_no_such_operation";

/// How to run the export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The server command: program, then arguments. It serves MCP on stdio.
    pub server: Vec<OsString>,
    /// Values for params by name (ids and names that exist upstream, e.g. `owner`), used
    /// wherever a call needs a value for that param.
    pub values: Map<String, Value>,
    /// How long to wait for any one answer.
    pub timeout: Duration,
    /// Pass the server's log lines through to stderr.
    pub show_logs: bool,
}

/// Runs every probe against the server and returns the evidence bundle.
///
/// # Errors
///
/// [`Error::Conformance`] when the server does not start, answer or speak MCP-AQL;
/// [`Error::Io`] when it cannot be started.
pub fn export(checked: &Checked, options: &ExportOptions) -> Result<Value, Error> {
    let adapter = &checked.lowered;
    let mut client = Client::start(&options.server, options.timeout, options.show_logs)?;
    let tools = client.tool_names()?;
    let read_tool = tools
        .iter()
        .find(|name| name.ends_with("mcp_aql_read"))
        .or_else(|| tools.iter().find(|name| name.ends_with("mcp_aql")))
        .cloned()
        .ok_or_else(|| {
            Error::Conformance(format!(
                "the server registers no MCP-AQL read tool; its tools: {tools:?}"
            ))
        })?;
    let introspect = |client: &mut Client, params: Value| {
        client.call(
            &read_tool,
            json!({"operation": "introspect", "params": params}),
        )
    };
    let operations_list = introspect(&mut client, json!({"query": "operations"}))?;
    let types_list = introspect(&mut client, json!({"query": "types"}))?;
    let listed: Vec<String> = operations_list["data"]["operations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| entry["name"].as_str().map(str::to_owned))
        .collect();
    if listed.is_empty() {
        return Err(Error::Conformance(format!(
            "introspect listed no operations: {operations_list}"
        )));
    }

    let mut probes = Probes {
        client: &mut client,
        values: &options.values,
        details: Vec::new(),
        accepted: Map::new(),
        missing: Vec::new(),
        unknown: Vec::new(),
        errors: Vec::new(),
    };
    for name in &listed {
        let answer = introspect(probes.client, json!({"query": "operations", "name": name}))?;
        let details = answer["data"]["operation"].clone();
        if !details.is_object() {
            return Err(Error::Conformance(format!(
                "introspect has no details for listed operation '{name}': {answer}"
            )));
        }
        let operation = adapter.operations.iter().find(|op| &op.name == name);
        probes.operation(name, &details, operation)?;
        probes.details.push(details);
    }
    let missing_operation = probes.client.call(
        &read_tool,
        json!({"operation": UNKNOWN_OPERATION, "params": {}}),
    )?;
    probes.errors.push(json!({
        "name": "unknown operation",
        "must_mention": [UNKNOWN_OPERATION],
        "response": missing_operation,
    }));

    let tool_of = |details: &[Value], name: &str| {
        details
            .iter()
            .find(|details| details["name"] == name)
            .and_then(|details| details["mcpTool"].as_str())
            .map(str::to_owned)
    };
    let mut round_trips = Vec::new();
    let mut preservation = Vec::new();
    for pair in pairs(&adapter.operations) {
        let (Some(create_tool), Some(read_tool)) = (
            tool_of(&probes.details, &pair.create.name),
            tool_of(&probes.details, &pair.read.name),
        ) else {
            continue;
        };
        let update_tool = pair
            .update
            .and_then(|update| tool_of(&probes.details, &update.name));
        let trip = RoundTrip {
            pair: &pair,
            create_tool,
            read_tool,
            values: &options.values,
        };
        if let Some(case) = trip.create_then_read(probes.client)? {
            round_trips.push(case);
        }
        if let Some(case) = trip.not_found(probes.client)? {
            probes.errors.push(case);
        }
        if let Some(update_tool) = update_tool
            && let Some(case) = trip.update_then_read(probes.client, &update_tool)?
        {
            preservation.push(case);
        }
    }

    let protocol = &operations_list["data"]["_protocol"];
    let capabilities = &protocol["capabilities"];
    let batch = match tools
        .iter()
        .find(|name| name.ends_with("mcp_aql_read") || name.ends_with("mcp_aql"))
    {
        Some(tool) if capabilities["batch"] == true => {
            Some(batch_example(probes.client, tool, &probes.details)?)
        }
        _ => None,
    };
    let mut bundle = json!({
        "implementation": adapter.package,
        "version": adapter.version,
        "spec_version": protocol["spec_version"].as_str().unwrap_or("1.0.0-draft"),
        "introspection": {
            "operations_list": operations_list,
            "types_list": types_list,
            "operation_details": probes.details,
        },
        "accepted_parameters": probes.accepted,
        "parameter_tests": {
            "missing_required": probes.missing,
            "unknown_parameter": probes.unknown,
        },
        "error_tests": probes.errors,
        "round_trip_tests": round_trips,
        "update_preservation_tests": preservation,
        "capabilities": {
            "field_selection": capabilities["field_selection"] == true,
            "batch_operations": capabilities["batch"] == true,
        },
    });
    let single = tools.iter().any(|name| name.ends_with("mcp_aql"));
    let crude = tools.iter().any(|name| name.ends_with("mcp_aql_read"));
    if single && crude {
        bundle["endpoint_modes"] = json!(["crude", "single"]);
    }
    if let Some(example) = batch {
        bundle["batch_example"] = example;
    }
    Ok(bundle)
}

/// A live batch on the READ tool: the details of the first operation, then an unknown
/// operation, so the example shows a success and an independent failure.
fn batch_example(client: &mut Client, tool: &str, details: &[Value]) -> Result<Value, Error> {
    let first = details
        .first()
        .and_then(|details| details["name"].as_str())
        .unwrap_or("introspect");
    client.call(
        tool,
        json!({"operations": [
            {"operation": "introspect", "params": {"query": "operations", "name": first}},
            {"operation": UNKNOWN_OPERATION},
        ]}),
    )
}

/// The per-operation probes and what they gathered.
struct Probes<'a> {
    client: &'a mut Client,
    values: &'a Map<String, Value>,
    details: Vec<Value>,
    accepted: Map<String, Value>,
    missing: Vec<Value>,
    unknown: Vec<Value>,
    errors: Vec<Value>,
}

impl Probes<'_> {
    fn operation(
        &mut self,
        name: &str,
        details: &Value,
        operation: Option<&Operation>,
    ) -> Result<(), Error> {
        let documented: Vec<(&str, bool)> = details["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|param| Some((param["name"].as_str()?, param["required"] == true)))
            .collect();
        let tool = details["mcpTool"].as_str().unwrap_or_default().to_owned();
        let required: Map<String, Value> = documented
            .iter()
            .filter(|(_, required)| *required)
            .map(|(param, _)| ((*param).to_owned(), self.value_for(operation, param)))
            .collect();
        // The handler's truth is the schema the server was generated from; `introspect`
        // belongs to the runtime, whose parameters are the documented ones. A documented
        // param the schema lacks (the gate's token) counts once a live call shows the handler
        // takes it: the call fails on the token, not on an unknown param, and never reaches
        // the upstream.
        let mut accepted: Vec<&str> = match operation {
            Some(operation) => operation.top_level_names(),
            None => documented.iter().map(|(name, _)| *name).collect(),
        };
        for (param, _) in &documented {
            if accepted.contains(param) {
                continue;
            }
            let mut params = required.clone();
            params.insert((*param).to_owned(), json!("zz-probe"));
            let response = self
                .client
                .call(&tool, json!({"operation": name, "params": params}))?;
            if response["success"] == false
                && response["error"]["code"] != "VALIDATION_UNKNOWN_PARAM"
            {
                accepted.push(param);
            }
        }
        self.accepted.insert(name.to_owned(), json!(accepted));
        for param in required.keys() {
            let mut params = required.clone();
            params.remove(param);
            let response = self
                .client
                .call(&tool, json!({"operation": name, "params": params}))?;
            self.missing.push(json!({
                "operation": name,
                "parameter": param,
                "response": response.clone(),
            }));
            self.errors.push(json!({
                "name": format!("{name}: missing required '{param}'"),
                "must_mention": [param],
                "response": response,
            }));
        }
        let mut params = required;
        params.insert(UNKNOWN_PARAM.to_owned(), json!(1));
        let response = self
            .client
            .call(&tool, json!({"operation": name, "params": params}))?;
        self.unknown.push(json!({
            "operation": name,
            "parameter": UNKNOWN_PARAM,
            "response": response.clone(),
        }));
        if response["success"] == false {
            self.errors.push(json!({
                "name": format!("{name}: unknown param"),
                "must_mention": [UNKNOWN_PARAM],
                "response": response,
            }));
        }
        Ok(())
    }

    /// A value for `param`: the one given on the command line, else one its checks accept.
    fn value_for(&self, operation: Option<&Operation>, param: &str) -> Value {
        if let Some(value) = self.values.get(param) {
            return value.clone();
        }
        let declared = operation.and_then(|operation| {
            operation
                .params
                .iter()
                .find(|candidate| candidate.name == param)
        });
        match (declared, param) {
            (Some(declared), _) => declared.example.clone(),
            (None, "input") => json!({}),
            (None, "query") => json!("operations"),
            (None, _) => json!("probe"),
        }
    }
}

/// A CREATE of a collection, the READ of one of its items, and maybe an UPDATE of it.
struct Pair<'a> {
    create: &'a Operation,
    read: &'a Operation,
    update: Option<&'a Operation>,
    /// The READ's last path param: the item's id.
    id_param: &'a str,
}

/// Pairs `POST /things` with `GET /things/{id}` (and `PATCH|PUT /things/{id}`).
fn pairs(operations: &[Operation]) -> Vec<Pair<'_>> {
    let item_of = |template: &str| -> Option<(String, String)> {
        let (collection, last) = template.rsplit_once('/')?;
        let id = last.strip_prefix('{')?.strip_suffix('}')?;
        Some((collection.to_owned(), id.to_owned()))
    };
    let mut found = Vec::new();
    for create in operations
        .iter()
        .filter(|op| op.category == Category::Create && op.method == Method::Post)
    {
        let Some(read) = operations.iter().find(|op| {
            op.category == Category::Read
                && op.method == Method::Get
                && item_of(&op.path_template)
                    .is_some_and(|(collection, _)| collection == create.path_template)
        }) else {
            continue;
        };
        let Some(id_param) = read
            .params
            .iter()
            .rev()
            .find(|param| param.placement == Placement::Path)
        else {
            continue;
        };
        let update = operations.iter().find(|op| {
            op.category == Category::Update
                && matches!(op.method, Method::Patch | Method::Put)
                && op.path_template == read.path_template
                && op.input.is_some()
        });
        found.push(Pair {
            create,
            read,
            update,
            id_param: &id_param.name,
        });
    }
    found
}

/// Whether a param's values come back unchanged in a read: a scalar sent in the body.
fn echoed(ty: ParamType) -> bool {
    matches!(
        ty,
        ParamType::String | ParamType::Integer | ParamType::Number | ParamType::Boolean
    )
}

/// The sent fields as runner dot paths into the read answer, leaving out those the API
/// answers with an object or array (a branch name sent as `base` read back as
/// `base: {ref, ...}`): the API's own shape for that field, not a scalar to compare with.
fn comparable(read: &str, sent: Map<String, Value>, read_response: &Value) -> Map<String, Value> {
    let mut fields = Map::new();
    for (name, value) in sent {
        if matches!(
            read_response["data"].get(&name),
            Some(Value::Object(_) | Value::Array(_))
        ) {
            eprintln!("note: '{read}' answers '{name}' as a structure; it is not compared");
            continue;
        }
        fields.insert(format!("data.{name}"), value);
    }
    fields
}

/// Whether a param takes any string, so a recognisable text can be sent in it.
fn free_text(param: &crate::ir::Param) -> bool {
    param.ty == ParamType::String
        && param.allowed.is_empty()
        && param.pattern.is_none()
        && param.format.is_none()
        && param.minimum.is_none()
        && param.maximum.is_none()
}

/// An item a CREATE made: the body fields sent and the item's id.
struct Created {
    sent: Map<String, Value>,
    id: Value,
}

struct RoundTrip<'a> {
    pair: &'a Pair<'a>,
    create_tool: String,
    read_tool: String,
    values: &'a Map<String, Value>,
}

impl RoundTrip<'_> {
    fn value(&self, param: &crate::ir::Param) -> Value {
        self.values
            .get(&param.name)
            .cloned()
            .unwrap_or_else(|| param.example.clone())
    }

    /// Creates an item with every required param and every echoed body param; returns the
    /// body fields sent and the id of the new item.
    fn create(&self, client: &mut Client) -> Result<Option<Created>, Error> {
        let create = self.pair.create;
        let mut params = Map::new();
        let mut sent = Map::new();
        for param in &create.params {
            let body = param.placement == Placement::Body && echoed(param.ty);
            if param.required || body {
                let mut value = self.value(param);
                if body && free_text(param) {
                    value = self.values.get(&param.name).cloned().unwrap_or_else(|| {
                        json!(format!("conformance {} {}", create.name, param.name))
                    });
                }
                if body {
                    sent.insert(param.name.clone(), value.clone());
                }
                params.insert(param.name.clone(), value);
            }
        }
        let created = client.call(
            &self.create_tool,
            json!({"operation": create.name, "params": params}),
        )?;
        if created["success"] != true {
            eprintln!(
                "note: no round trip through '{}': it failed: {}",
                create.name, created["error"]
            );
            return Ok(None);
        }
        let id_param = self.pair.id_param;
        let short = id_param.rsplit('_').next().unwrap_or(id_param);
        let id = [id_param, short, "id"]
            .iter()
            .find_map(|key| created["data"].get(*key).filter(|value| !value.is_null()))
            .cloned();
        let Some(id) = id else {
            eprintln!(
                "note: no round trip through '{}': its answer has no '{id_param}', '{short}' or 'id'",
                create.name
            );
            return Ok(None);
        };
        Ok(Some(Created { sent, id }))
    }

    /// The required params of `operation` (the READ or the UPDATE) for the item `id`.
    fn item_params(&self, operation: &Operation, id: &Value) -> Map<String, Value> {
        let mut params = Map::new();
        for param in operation.params.iter().filter(|param| param.required) {
            let value = if param.name == self.pair.id_param {
                id.clone()
            } else {
                self.value(param)
            };
            params.insert(param.name.clone(), value);
        }
        params
    }

    fn read(&self, client: &mut Client, id: &Value) -> Result<Value, Error> {
        client.call(
            &self.read_tool,
            json!({"operation": self.pair.read.name, "params": self.item_params(self.pair.read, id)}),
        )
    }

    fn create_then_read(&self, client: &mut Client) -> Result<Option<Value>, Error> {
        let Some(Created { sent, id }) = self.create(client)? else {
            return Ok(None);
        };
        let read_response = self.read(client, &id)?;
        let expected = comparable(&self.pair.read.name, sent, &read_response);
        Ok(Some(json!({
            "name": format!("{} then {}", self.pair.create.name, self.pair.read.name),
            "expected_fields": expected,
            "read_response": read_response,
        })))
    }

    fn update_then_read(
        &self,
        client: &mut Client,
        update_tool: &str,
    ) -> Result<Option<Value>, Error> {
        let Some(update) = self.pair.update else {
            return Ok(None);
        };
        let Some(input) = &update.input else {
            return Ok(None);
        };
        // Change one field the create sends; every other one must survive. Found before
        // anything is created, so no item is made for a check that cannot run.
        let sends = |name: &str| {
            self.pair.create.params.iter().any(|param| {
                param.name == name && param.placement == Placement::Body && echoed(param.ty)
            })
        };
        let Some(changed) = input
            .fields
            .iter()
            .find(|field| sends(&field.name) && free_text(field))
        else {
            return Ok(None);
        };
        let Some(Created { sent, id }) = self.create(client)? else {
            return Ok(None);
        };
        let mut params = self.item_params(update, &id);
        params.insert(
            "input".to_owned(),
            json!({ changed.name.clone(): format!("conformance {} {}", update.name, changed.name) }),
        );
        let updated = client.call(
            update_tool,
            json!({"operation": update.name, "params": params}),
        )?;
        if updated["success"] != true {
            eprintln!(
                "note: no preservation check through '{}': it failed: {}",
                update.name, updated["error"]
            );
            return Ok(None);
        }
        let read_response = self.read(client, &id)?;
        let kept = sent
            .into_iter()
            .filter(|(name, _)| name != &changed.name)
            .collect();
        let preserved = comparable(&self.pair.read.name, kept, &read_response);
        Ok(Some(json!({
            "name": format!("{} keeps what it was not given", update.name),
            "preserved_fields": preserved,
            "read_response": read_response,
        })))
    }

    /// A read of an item that does not exist, when the upstream says so.
    fn not_found(&self, client: &mut Client) -> Result<Option<Value>, Error> {
        let id_param = self
            .pair
            .read
            .params
            .iter()
            .find(|param| param.name == self.pair.id_param);
        let missing = match id_param.map(|param| param.ty) {
            Some(ParamType::Integer) => json!(987_654_321),
            _ => json!("zz-no-such-item"),
        };
        let response = self.read(client, &missing)?;
        if response["success"] != false || response["error"]["code"] != "NOT_FOUND_RESOURCE" {
            return Ok(None);
        }
        Ok(Some(json!({
            "name": format!("{}: no such item", self.pair.read.name),
            "must_mention": [],
            "response": response,
        })))
    }
}
