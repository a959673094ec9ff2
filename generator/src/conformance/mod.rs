//! `aqlgen conformance export`: drives a built adapter over a real MCP connection against a
//! live upstream and writes the evidence bundle the specification's conformance runner scores
//! (spec digest §9B, §9E). Every response is stored as the server sent it, and every claim
//! is measured, never taken from the schema or from what the server says of itself:
//!
//! * per operation `introspect` lists: its details, the params it accepts (each sent beside
//!   the required ones; accepted unless refused as unknown), a call without each required
//!   param and one with an unknown param (`probes`);
//! * an unknown operation, and a read of a resource that does not exist (`error_tests`);
//! * create → read round trips and update → read preservation checks wherever the schema has
//!   such pairs (`round_trip`);
//! * field selection from a call that asks for one field, batches from a live batch, and each
//!   endpoint mode from a server started in it (`capabilities`).
//!
//! What could not be measured is said in [`Export::untested`]; the bundle claims nothing of it.

mod capabilities;
mod client;
mod probes;
mod round_trip;

use std::ffi::OsString;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::Checked;
use crate::error::Error;
use client::Client;
use probes::Probes;
use round_trip::{RoundTrip, pairs};

/// The unknown param every probe sends.
pub const UNKNOWN_PARAM: &str = "zz_unknown_probe";

/// An operation name no adapter has.
const UNKNOWN_OPERATION: &str = "zz_no_such_operation";

/// An endpoint mode a server can be started in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The five CRUDE family tools.
    Crude,
    /// The single `mcp_aql` tool.
    Single,
}

impl Mode {
    /// The environment variable that picks a generated server's mode.
    pub const ENV: &'static str = "MCP_AQL_ENDPOINT_MODE";

    /// Its name, as the evidence and the environment variable spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Crude => "crude",
            Self::Single => "single",
        }
    }
}

/// How to run the export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The server command: program, then arguments. It serves MCP on stdio.
    pub server: Vec<OsString>,
    /// The mode the probes run the server in (by [`Mode::ENV`]); `None` leaves it to the
    /// command.
    pub mode: Option<Mode>,
    /// Values for params by name (ids and names that exist upstream, e.g. `owner`), used
    /// wherever a call needs a value for that param.
    pub values: Map<String, Value>,
    /// How long to wait for any one answer.
    pub timeout: Duration,
    /// Pass the server's log lines through to stderr.
    pub show_logs: bool,
}

/// The evidence, and what could not be measured.
#[derive(Debug)]
pub struct Export {
    /// The bundle the runner scores.
    pub bundle: Value,
    /// What was not tested, one sentence each; the bundle claims none of it.
    pub untested: Vec<String>,
}

/// Runs every probe against the server and returns the evidence bundle.
///
/// # Errors
///
/// [`Error::Conformance`] when the server does not start, answer or speak MCP-AQL;
/// [`Error::Io`] when it cannot be started.
pub fn export(checked: &Checked, options: &ExportOptions) -> Result<Export, Error> {
    let adapter = &checked.lowered;
    let env: Vec<(&str, &str)> = options
        .mode
        .map(|mode| (Mode::ENV, mode.as_str()))
        .into_iter()
        .collect();
    let mut client = Client::start(&options.server, &env, options.timeout, options.show_logs)?;
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
        untested: Vec::new(),
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
    let mut untested = std::mem::take(&mut probes.untested);
    let mut round_trips = Vec::new();
    let mut preservation = Vec::new();
    let pairs = pairs(&adapter.operations);
    if pairs.is_empty() {
        untested.push(
            "round trips: no CREATE (POST /things) with a READ of one item (GET /things/{id})"
                .to_owned(),
        );
    }
    for pair in &pairs {
        let (Some(create_tool), Some(read_tool)) = (
            tool_of(&probes.details, &pair.create.name),
            tool_of(&probes.details, &pair.read.name),
        ) else {
            untested.push(format!(
                "round trip '{}' then '{}': one of them is not listed by introspect",
                pair.create.name, pair.read.name
            ));
            continue;
        };
        let update_tool = pair
            .update
            .and_then(|update| tool_of(&probes.details, &update.name));
        let trip = RoundTrip {
            pair,
            create_tool,
            read_tool,
            values: &options.values,
        };
        if let Some(case) = trip.create_then_read(probes.client, &mut untested)? {
            round_trips.push(case);
        }
        if let Some(case) = trip.not_found(probes.client)? {
            probes.errors.push(case);
        }
        if let Some(update_tool) = update_tool
            && let Some(case) = trip.update_then_read(probes.client, &update_tool, &mut untested)?
        {
            preservation.push(case);
        }
    }

    let field_selection =
        capabilities::field_selection(probes.client, adapter, &probes.details, &options.values)?;
    let (batch_example, batch) = capabilities::batch(probes.client, &read_tool, &probes.details)?;
    let mut modes = Vec::new();
    for mode in [Mode::Crude, Mode::Single] {
        match capabilities::endpoint_mode(options, mode, adapter)? {
            Ok(()) => modes.push(mode.as_str()),
            Err(why) => untested.push(format!("endpoint mode {}: {why}", mode.as_str())),
        }
    }
    if let Err(why) = &field_selection {
        untested.push(format!("field selection: {why}"));
    }
    if let Err(why) = &batch {
        untested.push(format!("batches: {why}"));
    }
    let protocol = &operations_list["data"]["_protocol"];
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
            "field_selection": field_selection.is_ok(),
            "batch_operations": batch.is_ok(),
        },
        "endpoint_modes": modes,
    });
    if batch.is_ok() {
        bundle["batch_example"] = batch_example;
    }
    Ok(Export { bundle, untested })
}
