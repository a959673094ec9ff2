//! The Level 2 claims of the evidence, each measured: field selection by a call that asks for
//! one field and gets only that one, batches by a live batch, and each endpoint mode by a
//! server started in it that registers that mode's tools and answers through them.

use aqlgen_model::Vocabulary;
use serde_json::{Map, Value, json};

use super::client::Client;
use super::{ExportOptions, Mode, UNKNOWN_OPERATION};
use crate::error::Error;
use crate::ir::{Adapter, Category};

/// Whether field selection works: a READ that offers `fields`, called with its required params
/// and one field, answers with that field and nothing else (each item of a list). `Err` says
/// why it could not be shown.
pub fn field_selection(
    client: &mut Client,
    adapter: &Adapter,
    details: &[Value],
    values: &Map<String, Value>,
) -> Result<Result<(), String>, Error> {
    let mut tried = Vec::new();
    for operation in adapter
        .operations
        .iter()
        .filter(|operation| operation.category == Category::Read)
    {
        let Some(detail) = details
            .iter()
            .find(|d| d["name"] == operation.name.as_str())
        else {
            continue;
        };
        let offers_fields = detail["parameters"]
            .as_array()
            .is_some_and(|params| params.iter().any(|param| param["name"] == "fields"));
        if !offers_fields {
            continue;
        }
        // A member the type declares, else the identifying field most APIs have.
        let field = operation
            .returns_fields
            .first()
            .map_or_else(|| "id".to_owned(), |field| field.name.clone());
        let mut params: Map<String, Value> = operation
            .params
            .iter()
            .filter(|param| param.required)
            .map(|param| {
                let value = values
                    .get(&param.name)
                    .cloned()
                    .unwrap_or_else(|| param.example.clone());
                (param.name.clone(), value)
            })
            .collect();
        params.insert("fields".to_owned(), json!([field]));
        let tool = detail["mcpTool"].as_str().unwrap_or_default();
        let answer = client.call(tool, json!({"operation": operation.name, "params": params}))?;
        if answer["success"] != true {
            tried.push(format!(
                "'{}' failed: {}",
                operation.name, answer["error"]["code"]
            ));
            continue;
        }
        let data = &answer["data"];
        let items: Vec<&Value> = match data.get("items").and_then(Value::as_array) {
            Some(items) => items.iter().collect(),
            None => match data {
                Value::Array(items) => items.iter().collect(),
                item => vec![item],
            },
        };
        let objects: Vec<&Map<String, Value>> =
            items.iter().filter_map(|item| item.as_object()).collect();
        if objects.is_empty() {
            tried.push(format!("'{}' answered no item to look at", operation.name));
            continue;
        }
        let extra: Vec<&String> = objects
            .iter()
            .flat_map(|object| object.keys())
            .filter(|key| **key != field)
            .collect();
        if extra.is_empty() {
            return Ok(Ok(()));
        }
        return Ok(Err(format!(
            "'{}' asked for ['{field}'] answered more: {extra:?}",
            operation.name
        )));
    }
    Ok(Err(if tried.is_empty() {
        "no read operation offers `fields`".to_owned()
    } else {
        format!(
            "no read with `fields` answered an item: {}",
            tried.join("; ")
        )
    }))
}

/// A live batch on `tool`: the details of the first operation, then an unknown operation,
/// so the example shows a success and an independent failure; with whether it shows that.
pub fn batch(
    client: &mut Client,
    tool: &str,
    details: &[Value],
) -> Result<(Value, Result<(), String>), Error> {
    let first = details
        .first()
        .and_then(|details| details["name"].as_str())
        .unwrap_or("introspect");
    let answer = client.call(
        tool,
        json!({"operations": [
            {"operation": "introspect", "params": {"query": "operations", "name": first}},
            {"operation": UNKNOWN_OPERATION},
        ]}),
    )?;
    let results = answer["results"].as_array().map_or(0, Vec::len);
    let verdict = if answer["success"] == true
        && results == 2
        && answer["results"][0]["result"]["success"] == true
        && answer["results"][1]["result"]["success"] == false
    {
        Ok(())
    } else {
        Err(format!("a batch of two did not answer both: {answer}"))
    };
    Ok((answer, verdict))
}

/// Whether a server started in `mode` (by `MCP_AQL_ENDPOINT_MODE`) registers exactly that
/// mode's tools and answers `introspect` and an operation through them. `Err` says why not.
pub fn endpoint_mode(
    options: &ExportOptions,
    mode: Mode,
    adapter: &Adapter,
) -> Result<Result<(), String>, Error> {
    let mut client = Client::start(
        &options.server,
        &[(Mode::ENV, mode.as_str())],
        options.timeout,
        options.show_logs,
    )?;
    let tools = client.tool_names()?;
    let families = <Category as Vocabulary>::NAMES;
    let family_tools = tools
        .iter()
        .filter(|name| {
            families
                .iter()
                .any(|f| name.ends_with(&format!("mcp_aql_{f}")))
        })
        .count();
    let single = tools.iter().find(|name| name.ends_with("mcp_aql"));
    let registered = match mode {
        Mode::Crude => family_tools == families.len() && single.is_none(),
        Mode::Single => family_tools == 0 && single.is_some(),
    };
    if !registered {
        return Ok(Err(format!(
            "a server started with {}={} registered {tools:?}",
            Mode::ENV,
            mode.as_str()
        )));
    }
    let read_tool = match mode {
        Mode::Crude => tools.iter().find(|name| name.ends_with("mcp_aql_read")),
        Mode::Single => single,
    }
    .cloned()
    .unwrap_or_default();
    let listed = client.call(
        &read_tool,
        json!({"operation": "introspect", "params": {"query": "operations"}}),
    )?;
    if listed["success"] != true {
        return Ok(Err(format!(
            "in {} mode, introspect answered {listed}",
            mode.as_str()
        )));
    }
    // One operation through its tool in this mode: an unknown param is refused by the
    // operation itself, which shows the call was routed to it.
    let Some(operation) = adapter.operations.first() else {
        return Ok(Ok(()));
    };
    let tool = match mode {
        Mode::Crude => tools
            .iter()
            .find(|name| name.ends_with(&format!("mcp_aql_{}", operation.category.family())))
            .cloned()
            .unwrap_or_default(),
        Mode::Single => read_tool,
    };
    let answer = client.call(
        &tool,
        json!({"operation": operation.name, "params": {super::UNKNOWN_PARAM: 1}}),
    )?;
    if answer["error"]["code"] == "VALIDATION_UNKNOWN_PARAM" {
        Ok(Ok(()))
    } else {
        Ok(Err(format!(
            "in {} mode, '{}' on '{tool}' answered {answer}",
            mode.as_str(),
            operation.name
        )))
    }
}
