//! The `introspect` operation: answers built once from the generated documents, plus
//! `introspect` itself, the protocol types and `_protocol` metadata (INTRO §3-5).
//!
//! Every answer validates against the root of the introspection response schema, which is
//! closed: failures carry only `code` and `message`, and extra list facts live in `_protocol`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::SystemTime;

use aqlgen_model::{QUERY_RELATIONSHIPS, Vocabulary};
use serde_json::{Map, Value, json};

use crate::adapter::{Adapter, Category, ExecutionOperation, FeatureParam, Route};
use crate::call::executions::{execution_category, execution_description, execution_introspection};
use crate::call::gate::limits::Limiter;
use crate::call::gate::{self, Decision, Gate, Policy, TOKEN_PARAM};
use crate::call::graph;
use crate::call::safety_loop::{LoopOp, SafetyLoop};
use crate::config::{Config, LoopMode};
use crate::error::{AqlError, ErrorCode};
use crate::params::json_type;
use crate::protocol::tools::ToolSet;

/// The specification version this runtime implements.
pub const SPEC_VERSION: &str = "1.0.0-draft";

/// The name of the one operation every adapter has.
pub const INTROSPECT: &str = "introspect";

/// Parameter names `introspect` accepts.
pub const PARAMS: &[&str] = &["query", "name", "endpoint", "search"];

/// Parameter names `introspect` accepts on a bundle, which can narrow a list to one adapter.
const BUNDLE_PARAMS: &[&str] = &["query", "name", "endpoint", "search", "adapter"];

/// What `introspect`'s description adds on a bundle.
const BUNDLE_DESCRIPTION: &str = " This server bundles several adapters: operation and type names start with their adapter's name and '__' (e.g. 'github__list_issues'), '_protocol.adapters' lists each adapter with its safety and limits, and 'adapter' narrows either list to one of them.";

const INTROSPECT_DESCRIPTION: &str = "Discover the operations and types of this adapter. With query 'operations' and no name: every operation with its category and endpoint, plus '_protocol' metadata (spec version, endpoint mode, tools, limits, session). Narrow the list with 'endpoint' (a family: create, read, update, delete, execute) and/or 'search' (words separated by spaces: an operation is kept when every word appears, case-insensitive, in its name or description); a narrowed list's '_protocol' holds only version, conformance, mode and session. With a name: the full details of one operation or type (parameters, permissions, return type, examples), or null when no such name exists. With query 'types': the named types.";

struct OperationEntry {
    name: &'static str,
    /// Its adapter ([`Route::member`]); `None` for the runtime's own operations.
    member: Option<usize>,
    category: Category,
    description: &'static str,
    summary: Cow<'static, str>,
    details: Details,
}

/// An operation's `OperationDetails`, completed when asked for.
enum Details {
    /// Complete JSON text (`introspect`'s own).
    Ready(String),
    /// The generated details, without what the runtime adds: `mcpTool`, the gate's sentence
    /// at the end of `description`, and the `confirmation_token` param when the gate confirms
    /// the operation.
    Generated(&'static str),
}

/// Generated details with what the runtime adds (see [`Details::Generated`]).
fn with_gate(json: &str, tool: &str, gate_note: &str, confirms: bool) -> String {
    let mut details: Map<String, Value> = match serde_json::from_str(json) {
        Ok(Value::Object(details)) => details,
        _ => return json.to_owned(),
    };
    details.insert("mcpTool".into(), tool.into());
    let description = details
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let description = if description.is_empty() {
        gate_note.to_owned()
    } else {
        format!("{description}\n\n{gate_note}")
    };
    details.insert("description".into(), description.into());
    if confirms && let Some(Value::Array(parameters)) = details.get_mut("parameters") {
        parameters.push(json!({
            "name": TOKEN_PARAM,
            "type": "string",
            "required": false,
            "description": "The token of the CONFIRMATION_REQUIRED error a first call of this operation answers; call again with the same params and this token to run it. Single use, bound to the operation and params.",
        }));
    }
    Value::Object(details).to_string()
}

struct TypeEntry {
    /// Its adapter; `None` for the protocol's types.
    member: Option<usize>,
    summary: Cow<'static, str>,
    details: Cow<'static, str>,
}

/// Introspection answers for one server. Start-up only indexes the generated documents, which
/// stay where the binary holds them; what depends on the configuration is added per answer.
pub struct Catalog {
    /// `_protocol` as JSON text without its closing brace; the session id is appended.
    protocol_open: String,
    /// The same for a filtered list: only what INTRO §4.1.1 asks of every list (version,
    /// conformance, mode), since an agent narrowing the list already has the rest.
    brief_protocol_open: String,
    operations: Vec<OperationEntry>,
    operation_index: HashMap<&'static str, usize>,
    /// Every operation summary, comma-joined, once the whole list is first asked for.
    operations_joined: OnceLock<String>,
    types: Vec<TypeEntry>,
    type_index: HashMap<&'static str, usize>,
    /// `{"types":[...]}`, once first asked for.
    types_list: OnceLock<String>,
    /// The routes the details' gate sentences come from.
    route: fn(&str) -> Option<&'static Route>,
    /// The gate's policy of each adapter, by member.
    policies: Vec<Policy>,
    /// The adapters' names, by member, when the server bundles several; empty otherwise.
    bundled: Vec<&'static str>,
    /// The tool serving each category, by [`Category::ALL`] order.
    tool_names: Vec<(Category, String)>,
}

/// The introspection documents of the protocol types every adapter shares (INTRO §7.3).
fn protocol_types() -> Vec<(&'static str, Value)> {
    let field = |name: &str, ty: &str, required: bool, description: &str| json!({"name": name, "type": ty, "required": required, "description": description});
    vec![
        (
            "SemanticCategory",
            json!({"name": "SemanticCategory", "kind": "enum",
                "description": "The standard category of an operation; in the CRUDE profile also its endpoint family.",
                "values": ["CREATE", "READ", "UPDATE", "DELETE", "EXECUTE"]}),
        ),
        (
            "OperationInput",
            json!({"name": "OperationInput", "kind": "object",
            "description": "The arguments of every MCP-AQL tool call.",
            "fields": [
                field("operation", "string", true, "Operation name in snake_case."),
                field("params", "object", false, "Operation parameters; they may also be given next to 'operation', and 'params' wins when a name is in both places. Keys starting with '_' are metadata and are ignored."),
            ]}),
        ),
        (
            "OperationResult",
            json!({"name": "OperationResult", "kind": "union",
                "description": "Every answer: a success or a failure, told apart by 'success'.",
                "members": ["OperationSuccess", "OperationFailure"]}),
        ),
        (
            "OperationSuccess",
            json!({"name": "OperationSuccess", "kind": "object",
            "description": "A successful answer.",
            "fields": [
                field("success", "boolean", true, "Always true."),
                field("data", "any", true, "The operation's result; may be null."),
            ]}),
        ),
        (
            "OperationFailure",
            json!({"name": "OperationFailure", "kind": "object",
            "description": "A failed answer.",
            "fields": [
                field("success", "boolean", true, "Always false."),
                field("error", "object", true, "'code' (an MCP-AQL error code), 'message' and optional 'details'."),
            ]}),
        ),
        (
            "EndpointPermissions",
            json!({"name": "EndpointPermissions", "kind": "object",
            "description": "The effects an operation may have.",
            "fields": [
                field("readOnly", "boolean", true, "True when the operation never changes state."),
                field("destructive", "boolean", true, "True when the operation may change or remove existing state."),
            ]}),
        ),
    ]
}

/// `introspect`'s own parameters, as its details list them.
fn introspect_parameters() -> Vec<Value> {
    vec![
        json!({"name": "query", "type": "string", "required": true, "enum": ["operations", "types"],
         "description": "The list to return, or where to look up 'name'."}),
        json!({"name": "name", "type": "string", "required": false,
         "description": "An operation or type name: returns its details, or null when unknown."}),
        json!({"name": "endpoint", "type": "string", "required": false,
         "enum": <Category as Vocabulary>::NAMES,
         "description": "Only with query 'operations' and no name: keep operations of this endpoint family."}),
        json!({"name": "search", "type": "string", "required": false,
         "description": "Only with query 'operations' and no name: words separated by spaces; keep operations whose name or description holds every word (case-insensitive), e.g. 'issues list'."}),
    ]
}

/// The safety and rate limits `_protocol` reports of one adapter.
fn adapter_rules(policy: &Policy, limiter: &Limiter) -> (Value, Value) {
    let config = limiter.config();
    let limits = json!({
        "limits": config.rates.iter().map(|limit| json!({"window": limit.window.as_str(), "limit": limit.limit})).collect::<Vec<_>>(),
        "quotas": config.quotas.iter().map(|quota| json!({"metric": quota.metric(), "warn": quota.warn, "pause": quota.pause, "hard_stop": quota.hard_stop})).collect::<Vec<_>>(),
    });
    (policy.describe(), limits)
}

fn type_summary(details: &Value) -> Value {
    let mut summary = Map::new();
    for key in ["name", "kind", "description"] {
        if let Some(value) = details.get(key) {
            summary.insert(key.to_owned(), value.clone());
        }
    }
    Value::Object(summary)
}

impl Catalog {
    /// Builds every answer for `A` under `config`, whose tools are `tools`, with the
    /// policies and limits of `gate`.
    pub fn new<A: Adapter>(
        config: &Config,
        tools: &ToolSet,
        gate: &Gate,
        safety_loop: &SafetyLoop,
    ) -> Self {
        let bundled: Vec<&'static str> = match A::MEMBERS {
            [_] => Vec::new(),
            members => members.iter().map(|member| member.name).collect(),
        };
        let description = if bundled.is_empty() {
            Cow::Borrowed(INTROSPECT_DESCRIPTION)
        } else {
            Cow::Owned(format!("{INTROSPECT_DESCRIPTION}{BUNDLE_DESCRIPTION}"))
        };
        let mut parameters = introspect_parameters();
        if !bundled.is_empty() {
            parameters.push(json!({"name": "adapter", "type": "string", "required": false,
                "enum": bundled,
                "description": "Keep the operations (or types) of this adapter only; combines with 'endpoint' and 'search'."}));
        }
        let mut operations = Vec::with_capacity(A::INTROSPECTION.operations.len() + 1);
        let read_tool = tools.tool_for(Category::Read);
        let introspect_details = json!({
            "mcpTool": read_tool,
            "name": INTROSPECT,
            "semantic_category": "READ",
            "endpoint": "read",
            "description": description,
            "permissions": {"readOnly": true, "destructive": false},
            "parameters": parameters,
            "returns": {"name": "OperationResult", "kind": "union"},
            "examples": [
                {"description": "List every operation", "request": {"operation": INTROSPECT, "params": {"query": "operations"}}},
                {"description": "Find read operations whose name or description has both words", "request": {"operation": INTROSPECT, "params": {"query": "operations", "endpoint": "read", "search": "issues list"}}},
                {"description": "Details of one operation", "request": {"operation": INTROSPECT, "params": {"query": "operations", "name": INTROSPECT}}}
            ]
        });
        let introspect_summary = json!({
            "name": INTROSPECT,
            "semantic_category": "READ",
            "endpoint": "read",
            "description": description,
        });
        operations.push(OperationEntry {
            name: INTROSPECT,
            member: None,
            category: Category::Read,
            description: INTROSPECT_DESCRIPTION,
            summary: Cow::Owned(introspect_summary.to_string()),
            details: Details::Ready(introspect_details.to_string()),
        });
        operations.extend(
            A::INTROSPECTION
                .operations
                .iter()
                .map(|doc| OperationEntry {
                    name: doc.name,
                    member: A::route(doc.name).map(|route| route.member),
                    category: doc.category,
                    description: doc.description,
                    summary: Cow::Borrowed(doc.summary_json),
                    details: Details::Generated(doc.details_json),
                }),
        );
        if A::ROUTES.iter().any(|route| route.lifecycle.is_some()) {
            operations.extend(ExecutionOperation::ALL.iter().map(|op| {
                let category = execution_category(*op);
                let (summary, details) = execution_introspection(*op, &tools.tool_for(category));
                OperationEntry {
                    name: op.as_str(),
                    member: None,
                    category,
                    description: execution_description(*op),
                    summary: Cow::Owned(summary.to_string()),
                    details: Details::Ready(details.to_string()),
                }
            }));
        }
        if let Some(graph) = A::GRAPH {
            let (summary, details) = graph::introspection(graph, &tools.tool_for(Category::Read));
            operations.push(OperationEntry {
                name: QUERY_RELATIONSHIPS,
                member: None,
                category: Category::Read,
                description: "Follow relationships between items from a root.",
                summary: Cow::Owned(summary.to_string()),
                details: Details::Ready(details.to_string()),
            });
        }
        if safety_loop.mode() != LoopMode::Disabled {
            operations.extend(LoopOp::ALL.into_iter().map(|op| {
                let (summary, details) = op.introspection(&tools.tool_for(op.category()));
                OperationEntry {
                    name: op.name(),
                    member: None,
                    category: op.category(),
                    description: op.description(),
                    summary: Cow::Owned(summary.to_string()),
                    details: Details::Ready(details.to_string()),
                }
            }));
        }
        let operation_index = operations
            .iter()
            .enumerate()
            .map(|(index, entry)| (entry.name, index))
            .collect();

        let mut types: Vec<TypeEntry> = A::INTROSPECTION
            .types
            .iter()
            .map(|doc| TypeEntry {
                member: Some(doc.member),
                summary: Cow::Borrowed(doc.summary_json),
                details: Cow::Borrowed(doc.details_json),
            })
            .collect();
        let mut type_index: HashMap<&'static str, usize> = A::INTROSPECTION
            .types
            .iter()
            .enumerate()
            .map(|(index, doc)| (doc.name, index))
            .collect();
        for (name, details) in protocol_types() {
            if type_index.contains_key(name) {
                continue;
            }
            type_index.insert(name, types.len());
            types.push(TypeEntry {
                member: None,
                summary: Cow::Owned(type_summary(&details).to_string()),
                details: Cow::Owned(details.to_string()),
            });
        }

        let limits = &config.limits;
        let field_selection = A::ROUTES.iter().any(|route| route.fields.is_some());
        // Level 2 needs both endpoint modes (always served), batch (always) and field
        // selection (SPEC §10.1), which only the schema can switch on.
        let conformance = if field_selection {
            "level-2"
        } else {
            "level-1"
        };
        let mode = config.mode.protocol_name();
        let mut protocol = json!({
            "version": SPEC_VERSION,
            "conformance": conformance,
            "mode": mode,
            "capabilities": {
                "batch": true,
                "field_selection": field_selection,
                "aggregations": A::ROUTES
                    .iter()
                    .any(|route| route.features.contains(&FeatureParam::Aggregate)),
                "computed_fields": A::ROUTES.iter().any(|route| !route.computed.is_empty()),
                "pagination": A::ROUTES.iter().any(|route| route.paging.is_some()),
                "relationship_queries": A::GRAPH.is_some(),
                "warnings": true,
                "confirmation": true,
                "dangerous_operations": true,
                "rate_limiting": true,
                "operation_filters": true,
                "execution_safety_loop": safety_loop.mode().as_str()
            },
            "safety_loop": safety_loop.describe(),
            "adapter": {
                "name": A::SERVER.name,
                "version": A::SERVER.version,
                "schema_fingerprint": A::SERVER.schema_fingerprint
            },
            "tools": tools.names(),
            "limits": {
                "max_request_size": limits.max_request_size,
                "max_response_size": limits.max_response_size,
                "max_string_length": limits.max_string_length,
                "max_array_elements": limits.max_array_elements,
                "max_nesting_depth": limits.max_nesting_depth,
                "max_batch_size": limits.max_batch_size
            },
            "concurrency": "fully-concurrent",
            "supports_etag": true
        });
        if let (Value::Object(protocol), [_]) = (&mut protocol, A::MEMBERS) {
            let (safety, rate_limits) = adapter_rules(gate.policy(0), gate.limiter(0));
            protocol.insert("safety".into(), safety);
            protocol.insert("rate_limits".into(), rate_limits);
        } else if let Value::Object(protocol) = &mut protocol {
            let adapters = A::MEMBERS.iter().enumerate().map(|(member, info)| {
                let (safety, rate_limits) =
                    adapter_rules(gate.policy(member), gate.limiter(member));
                json!({
                    "name": info.name,
                    "version": info.version,
                    "description": info.description,
                    "schema_fingerprint": info.schema_fingerprint,
                    "operations": A::ROUTES.iter().filter(|route| route.member == member).count(),
                    "safety": safety,
                    "rate_limits": rate_limits,
                })
            });
            protocol.insert("adapters".into(), adapters.collect());
        }
        let brief_protocol =
            json!({"version": SPEC_VERSION, "conformance": conformance, "mode": mode});
        let open = |protocol: &Value| {
            let text = protocol.to_string();
            text.strip_suffix('}').map(str::to_owned).unwrap_or(text)
        };
        let (protocol_open, brief_protocol_open) = (open(&protocol), open(&brief_protocol));

        Self {
            protocol_open,
            brief_protocol_open,
            operations,
            operation_index,
            operations_joined: OnceLock::new(),
            types,
            type_index,
            types_list: OnceLock::new(),
            route: A::route,
            policies: gate.policies().cloned().collect(),
            bundled,
            tool_names: Category::ALL
                .iter()
                .map(|&category| (category, tools.tool_for(category)))
                .collect(),
        }
    }

    /// Every operation name, `introspect` first.
    pub fn operation_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.operations.iter().map(|entry| entry.name)
    }

    /// Answers an `introspect` call: the `data` member as JSON text. The operations list's
    /// `_protocol` carries the session id and the limits' counters now.
    pub async fn answer(
        &self,
        params: &Map<String, Value>,
        session_id: &str,
        gate: &Gate,
        visible: &(dyn Fn(&str) -> bool + Sync),
    ) -> Result<String, AqlError> {
        let known = if self.bundled.is_empty() {
            PARAMS
        } else {
            BUNDLE_PARAMS
        };
        crate::params::reject_unknown(INTROSPECT, params, known)?;
        let query = match params.get("query") {
            None => {
                return Err(AqlError::new(
                    ErrorCode::ValidationMissingParam,
                    "Missing required parameter 'query'. Expected: string (one of 'operations', 'types')",
                ));
            }
            Some(value) => string_param("query", value)?,
        };
        let name = params
            .get("name")
            .map(|v| string_param("name", v))
            .transpose()?;
        let endpoint = params
            .get("endpoint")
            .map(|v| string_param("endpoint", v))
            .transpose()?;
        let search = params
            .get("search")
            .map(|v| string_param("search", v))
            .transpose()?;
        if let Some(endpoint) = endpoint
            && !Category::ALL.iter().any(|c| c.family() == endpoint)
        {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!(
                    "Parameter 'endpoint' must be one of 'create', 'read', 'update', 'delete', 'execute', got '{endpoint}'"
                ),
            ));
        }
        let adapter = params
            .get("adapter")
            .map(|v| self.adapter_param(v))
            .transpose()?;
        let filtered = endpoint.is_some() || search.is_some() || adapter.is_some();
        match (query, name) {
            ("operations", None) => Ok(self
                .operations_list(
                    Filter {
                        endpoint,
                        search,
                        adapter,
                    },
                    session_id,
                    gate,
                    visible,
                )
                .await),
            ("operations", Some(name)) if !filtered => Ok(match self.operation_index.get(name) {
                Some(&index) if visible(name) => {
                    format!(
                        "{{\"operation\":{}}}",
                        self.details(&self.operations[index])
                    )
                }
                _ => "{\"operation\":null}".to_owned(),
            }),
            ("types", None) if adapter.is_some() && endpoint.is_none() && search.is_none() => {
                let own = self.types.iter().filter(|entry| entry.member == adapter);
                Ok(format!(
                    "{{\"types\":[{}]}}",
                    join(own.map(|entry| entry.summary.as_ref()))
                ))
            }
            ("types", None) if !filtered => Ok(self
                .types_list
                .get_or_init(|| {
                    format!(
                        "{{\"types\":[{}]}}",
                        join(self.types.iter().map(|entry| entry.summary.as_ref()))
                    )
                })
                .clone()),
            ("types", Some(name)) if !filtered => Ok(match self.type_index.get(name) {
                Some(&index) => format!("{{\"type\":{}}}", self.types[index].details),
                None => "{\"type\":null}".to_owned(),
            }),
            ("operations" | "types", _) => Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                "Parameters 'endpoint', 'search' and 'adapter' filter a list: 'endpoint' and 'search' only with query 'operations', and none of them with 'name'",
            )),
            (other, _) => Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!("Parameter 'query' must be one of 'operations', 'types', got '{other}'"),
            )),
        }
    }

    /// An operation's details as served: the generated text completed with its tool and what
    /// the gate does to it under this server's policy.
    fn details(&self, entry: &OperationEntry) -> String {
        match &entry.details {
            Details::Ready(text) => text.clone(),
            Details::Generated(json) => {
                let tool = self
                    .tool_names
                    .iter()
                    .find(|(category, _)| *category == entry.category)
                    .map_or("", |(_, tool)| tool.as_str());
                let (gate_note, confirms) = (self.route)(entry.name).map_or_else(
                    || (String::new(), false),
                    |route| {
                        let policy = &self.policies[route.member];
                        let decision =
                            policy.decide(route.danger_level, route.requires_confirmation);
                        (
                            gate::policy::describe(route, policy),
                            matches!(decision, Decision::Confirm(_)),
                        )
                    },
                );
                with_gate(json, tool, &gate_note, confirms)
            }
        }
    }

    /// The member an `adapter` param names.
    fn adapter_param(&self, value: &Value) -> Result<usize, AqlError> {
        let name = string_param("adapter", value)?;
        self.bundled
            .iter()
            .position(|adapter| *adapter == name)
            .ok_or_else(|| {
                AqlError::new(
                    ErrorCode::ValidationInvalidValue,
                    format!(
                        "Parameter 'adapter' must be one of '{}', got '{}'",
                        self.bundled.join("', '"),
                        crate::text::shorten(name, 64)
                    ),
                )
            })
    }

    /// The operations list narrowed by `filter`, of the operations `visible` to the caller.
    async fn operations_list(
        &self,
        filter: Filter<'_>,
        session_id: &str,
        gate: &Gate,
        visible: &(dyn Fn(&str) -> bool + Sync),
    ) -> String {
        let Filter {
            endpoint,
            search,
            adapter,
        } = filter;
        let filtered = endpoint.is_some() || search.is_some() || adapter.is_some();
        let hidden = self.operations.iter().any(|entry| !visible(entry.name));
        let protocol_open = if filtered {
            &self.brief_protocol_open
        } else {
            &self.protocol_open
        };
        let mut text = String::with_capacity(protocol_open.len() + 96);
        text.push_str("{\"_protocol\":");
        text.push_str(protocol_open);
        text.push_str(",\"session_id\":");
        text.push_str(&Value::String(session_id.to_owned()).to_string());
        self.quota_status(&mut text, gate).await;
        text.push_str("},\"operations\":[");
        if !filtered && !hidden {
            text.push_str(
                self.operations_joined.get_or_init(|| {
                    join(self.operations.iter().map(|entry| entry.summary.as_ref()))
                }),
            );
        } else {
            let terms = search.map(search_terms).unwrap_or_default();
            let matching = self.operations.iter().filter(|entry| {
                visible(entry.name)
                    && adapter.is_none_or(|member| entry.member == Some(member))
                    && endpoint.is_none_or(|family| entry.category.family() == family)
                    && matches_terms(&search_text(entry.name, entry.description), &terms)
            });
            text.push_str(&join(matching.map(|entry| entry.summary.as_ref())));
        }
        text.push_str("]}");
        text
    }
}

/// What narrows an operations list.
struct Filter<'a> {
    endpoint: Option<&'a str>,
    search: Option<&'a str>,
    adapter: Option<usize>,
}

impl Catalog {
    /// Appends `"quota_status"` with the counters now: the adapter's, or on a bundle, those of
    /// each adapter with limits, by name. Nothing when there are no limits.
    async fn quota_status(&self, text: &mut String, gate: &Gate) {
        let limited = |member: usize| {
            let config = gate.limiter(member).config();
            !config.rates.is_empty() || !config.quotas.is_empty()
        };
        if self.bundled.is_empty() {
            if limited(0) {
                text.push_str(",\"quota_status\":");
                text.push_str(&gate.limiter(0).status(SystemTime::now()).await.to_string());
            }
            return;
        }
        let mut status = Map::new();
        for (member, name) in self.bundled.iter().enumerate() {
            if limited(member) {
                let now = gate.limiter(member).status(SystemTime::now()).await;
                status.insert((*name).to_owned(), now);
            }
        }
        if !status.is_empty() {
            text.push_str(",\"quota_status\":");
            text.push_str(&Value::Object(status).to_string());
        }
    }
}

/// What `search` looks in: the name and description, lowercased, one per line.
fn search_text(name: &str, description: &str) -> String {
    format!("{}\n{}", name.to_lowercase(), description.to_lowercase())
}

/// The distinct lowercased words of a `search` value; no words keep every operation. Each
/// word is looked for once: a search repeating one word 100,000 times cost a second of CPU.
fn search_terms(search: &str) -> Vec<String> {
    let mut terms: Vec<String> = search.split_whitespace().map(str::to_lowercase).collect();
    terms.sort_unstable();
    terms.dedup();
    terms
}

/// Whether every term appears in `text` (see [`search_text`]). A term holds no whitespace, so
/// it matches within the name or within the description, never across the two. A term
/// spelled with `_` (`pull_request`) also matches those words with spaces in a description.
fn matches_terms(text: &str, terms: &[String]) -> bool {
    terms.iter().all(|term| {
        text.contains(term.as_str())
            || (term.contains('_') && text.contains(&term.replace('_', " ")))
    })
}

fn string_param<'a>(name: &'static str, value: &'a Value) -> Result<&'a str, AqlError> {
    value.as_str().ok_or_else(|| {
        AqlError::new(
            ErrorCode::ValidationInvalidType,
            format!(
                "Parameter '{name}' expected 'string', got '{}'",
                json_type(value)
            ),
        )
    })
}

fn join<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    for (index, part) in parts.enumerate() {
        if index > 0 {
            text.push(',');
        }
        text.push_str(part);
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::{Catalog, matches_terms, search_terms, search_text};
    use crate::adapter::TrustLevel;
    use crate::adapter::{
        Adapter, AdapterInfo, Auth, Category, Introspection, OperationDoc, Route, ServerInfo,
        ToolDocs,
    };
    use crate::call::gate::Gate;
    use crate::call::safety_loop::SafetyLoop;
    use crate::config::{Config, EndpointMode, LoopConfig};
    use crate::protocol::tools::ToolSet;
    use crate::state::Store;
    use std::sync::Arc;

    struct Sample;

    macro_rules! doc {
        ($name:literal, $category:ident, $description:literal) => {
            OperationDoc {
                name: $name,
                category: Category::$category,
                description: $description,
                summary_json: concat!("{\"name\":\"", $name, "\"}"),
                details_json: concat!("{\"name\":\"", $name, "\"}"),
            }
        };
    }

    impl Adapter for Sample {
        const SERVER: &'static ServerInfo = &ServerInfo {
            name: "sample",
            version: "1.0.0",
            description: "A sample adapter.",
            schema_fingerprint: "sha256:0",
        };
        const MEMBERS: &'static [&'static AdapterInfo] = &[&AdapterInfo {
            name: "sample",
            version: "1.0.0",
            description: "A sample adapter.",
            base_url: "http://127.0.0.1:9",
            base_url_env: "SAMPLE_BASE_URL",
            auth: Auth::None,
            trust: Some(TrustLevel::Validated),
            rate_limits: &[],
            schema_fingerprint: "sha256:0",
        }];
        const ROUTES: &'static [&'static Route] = &[];
        const INTROSPECTION: &'static Introspection = &Introspection {
            operations: &[
                doc!("issues_create", Create, "Create an issue"),
                doc!("issues_list_for_repo", Read, "List repository issues"),
                doc!("issues_get", Read, "Get an issue"),
                doc!("repos_get", Read, "Get a repository"),
                doc!("pulls_list", Read, "List pull requests"),
                doc!(
                    "search_issues_and_pull_requests",
                    Read,
                    "Search Issues and Pull Requests"
                ),
            ],
            types: &[],
        };
        const TOOLS: &'static ToolDocs = &ToolDocs {
            create: "create",
            read: "read",
            update: "update",
            delete: "delete",
            execute: "execute",
            single: "single",
        };

        fn route(_: &str) -> Option<&'static Route> {
            None
        }
    }

    /// Operation names `introspect` lists for these params.
    fn listed(params: Value) -> Vec<String> {
        answer_of(params)["operations"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|op| op["name"].as_str().expect("a name").to_owned())
            .collect()
    }

    fn answer_of(params: Value) -> Value {
        let config = Config::default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let gate = runtime
            .block_on(Gate::new(
                "sample",
                Sample::MEMBERS,
                &config.safety,
                Arc::new(Store::memory()),
                Arc::default(),
            ))
            .expect("a gate");
        let tools = ToolSet::new::<Sample>(
            EndpointMode::Crude,
            "",
            &gate,
            crate::protocol::tool_schema::ToolSchema::Mcp.input_schema(25),
        );
        let safety_loop = SafetyLoop::new(LoopConfig::default(), Arc::new(Store::memory()));
        let catalog = Catalog::new::<Sample>(&config, &tools, &gate, &safety_loop);
        let params: Map<String, Value> = match params {
            Value::Object(map) => map,
            _ => unreachable!("the tests pass objects"),
        };
        let answer = runtime
            .block_on(catalog.answer(&params, "s", &gate, &|_| true))
            .expect("a valid query");
        serde_json::from_str(&answer).expect("JSON")
    }

    #[test]
    fn a_narrowed_list_carries_only_the_protocol_basics() {
        let keys = |params: Value| -> Vec<String> {
            let answer = answer_of(params);
            let protocol = answer["_protocol"].as_object().expect("_protocol");
            protocol.keys().cloned().collect()
        };
        let whole = keys(json!({"query": "operations"}));
        for key in [
            "version",
            "mode",
            "limits",
            "capabilities",
            "safety",
            "session_id",
        ] {
            assert!(whole.contains(&key.to_owned()), "{key} in {whole:?}");
        }
        for narrowed in [
            json!({"query": "operations", "endpoint": "read"}),
            json!({"query": "operations", "search": "issues"}),
        ] {
            assert_eq!(
                keys(narrowed),
                ["conformance", "mode", "session_id", "version"]
            );
        }
    }

    #[test]
    fn search_keeps_operations_holding_every_word() {
        let cases: &[(&str, &[&str])] = &[
            // One word, as before: in the name or the description.
            (
                "issue",
                &[
                    "issues_list_for_repo",
                    "issues_get",
                    "search_issues_and_pull_requests",
                ],
            ),
            ("repository", &["issues_list_for_repo", "repos_get"]),
            // Several words: all of them, each in the name or the description.
            ("issues list", &["issues_list_for_repo"]),
            ("list issues", &["issues_list_for_repo"]),
            ("LIST  Issues\t", &["issues_list_for_repo"]),
            ("issues list for repo", &["issues_list_for_repo"]),
            ("pulls requests", &["pulls_list"]),
            ("issues pull", &["search_issues_and_pull_requests"]),
            // A term written with `_` matches the name, or the words in a description.
            ("issues_list", &["issues_list_for_repo"]),
            (
                "pull_request",
                &["pulls_list", "search_issues_and_pull_requests"],
            ),
            ("issues nothing", &[]),
        ];
        for (search, expected) in cases {
            let names =
                listed(json!({"query": "operations", "endpoint": "read", "search": search}));
            assert_eq!(names, *expected, "search {search:?}");
        }
    }

    #[test]
    fn blank_search_and_endpoint_filter() {
        let every = listed(json!({"query": "operations"}));
        assert_eq!(every.len(), 7);
        assert_eq!(every[0], "introspect");
        assert_eq!(
            listed(json!({"query": "operations", "search": "  "})),
            every
        );
        assert_eq!(
            listed(json!({"query": "operations", "endpoint": "create", "search": "issue"})),
            ["issues_create"]
        );
        assert_eq!(
            listed(json!({"query": "operations", "search": "introspect"})),
            ["introspect"]
        );
    }

    #[test]
    fn terms_match_within_name_or_description() {
        let text = search_text("issues_list_for_repo", "List repository issues");
        let table: &[(&str, bool)] = &[
            ("", true),
            ("issues", true),
            ("ISSUES list", true),
            ("repo_issues", false),
            ("list_for", true),
            ("repository issues", true),
            ("repository_issues", true),
            ("repo\nlist", true),
            ("labels", false),
        ];
        for (search, expected) in table {
            assert_eq!(
                matches_terms(&text, &search_terms(search)),
                *expected,
                "search {search:?}"
            );
        }
    }

    #[test]
    fn a_word_repeated_is_looked_for_once() {
        let repeated = "Issue ".repeat(100_000);
        assert_eq!(search_terms(&repeated), ["issue"]);
        assert_eq!(search_terms("list Issues ISSUES list"), ["issues", "list"]);
    }
}
