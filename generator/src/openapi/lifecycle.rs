//! Long-running operations, where the document shows them: an operation that starts work
//! upstream and answers before it ends gets a `lifecycle` (an aqlgen addition, SPEC §8.4)
//! saying how the runtime follows that work until it ends.
//!
//! Once the adapter is settled, an EXECUTE operation, a CREATE `POST`, or any other CREATE or
//! UPDATE that answers `202 Accepted` (an UPDATE without `If-Match`), is followed when the
//! document shows how:
//!
//! - through a status resource: its start answer (the `202`, else a `201` or `200` whose
//!   body has a job's state field: one still to come, one success, one failure) holds the
//!   work's id, and a `GET` of the document reads the work's state by that id: the one its
//!   response `links` name, else the direct child of the start path (`POST /exports` and
//!   `GET /exports/{export_id}`), whose answer has a state field. The id is the member named
//!   as the child's placeholder, else `id` when the placeholder is an id or names the
//!   resource (`/refunds/{refund}`), else `<resource>_id`, `job_id`, `run_id`, ...; of a type
//!   the placeholder takes. A `POST {status}/cancel` (or `:cancel`), or a `DELETE {status}`
//!   whose words say it cancels, aborts or stops, cancels it;
//! - else through the `Operation-Location` (else `Location`) header the `202` declares, with
//!   the state field of the `202` body or of the direct child's answer, or, for
//!   `Operation-Location`, the `status` of Microsoft's status monitor.
//!
//! A state field is a string member named `status`, `state`, `phase` or `conclusion`, or
//! ending so (`provisioningState`), with an `enum` or values its description lists, at the
//! top of the answer or in a member wrapping its object (`data`, `properties`, the resource's
//! name: `action.status`), which the start operation does not take as a param (a state the
//! caller sets is a record's). Its values are mapped onto the core states by meaning
//! ([`core_state`]); most must mean one, and one must be a success: an order's status
//! (open, shipped, invoiced, cancelled) is no work's. Values that mean none are left out, and
//! the runtime keeps the previous state on them. A CREATE or UPDATE followed becomes an
//! EXECUTE: only an execution is followed. Each lifecycle is resolved as `check` resolves it
//! before it is written, and the adapter is checked again once they are: what `check` would
//! refuse is never written.

use std::collections::BTreeMap;

use aqlgen_model::{Category, ExecutionOperation, ExecutionState};
use indexmap::IndexMap;

use super::document::{Link, Operation as Described, Response as Answered, Schema};
use super::operation::Endpoint;
use super::refs::Resolver;
use super::shaping::{self, Properties};
use super::text::{Followed, Reading};
use super::{Warning, naming};
use crate::schema::lifecycle::{self, Poll};
use crate::schema::{AdapterSchema, Lifecycle, LifecycleProgress, Operation, ParamType};
use crate::validate::rules;

/// Upstream state names, compared lowercase without separators, by the core state they
/// mean.
const MEANINGS: [(ExecutionState, &[&str]); 5] = [
    (
        ExecutionState::Pending,
        &[
            "queued",
            "pending",
            "waiting",
            "accepted",
            "notstarted",
            "scheduled",
            "submitted",
            "enqueued",
        ],
    ),
    (
        ExecutionState::Running,
        &[
            "running",
            "inprogress",
            "processing",
            "started",
            "starting",
            "active",
            "provisioning",
            "updating",
            "creating",
            "deleting",
            "executing",
            "initializing",
            "initialising",
        ],
    ),
    (
        ExecutionState::Completed,
        &[
            "succeeded",
            "success",
            "successful",
            "completed",
            "complete",
            "done",
            "finished",
            "ready",
        ],
    ),
    (
        ExecutionState::Failed,
        &["failed", "failure", "error", "errored", "timedout"],
    ),
    (
        ExecutionState::Cancelled,
        &["cancelled", "canceled", "aborted", "stopped"],
    ),
];

/// The states of the status monitor an `Operation-Location` points at, as Microsoft's REST
/// API guidelines and its services spell them.
const MONITOR_STATES: [&str; 11] = [
    "NotStarted",
    "notStarted",
    "notstarted",
    "Running",
    "running",
    "Succeeded",
    "succeeded",
    "Failed",
    "failed",
    "Canceled",
    "canceled",
];

/// The core state an upstream state means, compared case-insensitively and without
/// separators (`in_progress`, `InProgress` and `in-progress` are `inprogress`).
pub fn core_state(upstream: &str) -> Option<ExecutionState> {
    let key: String = upstream
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    MEANINGS
        .iter()
        .find(|(_, words)| words.contains(&key.as_str()))
        .map(|(state, _)| *state)
}

/// Gives the operations of `schema` that start work the document shows how to follow their
/// `lifecycle`, moving each that is not an EXECUTE there (with its `endpoints` entry and its
/// `readings` row); what it followed. The adapter passes `check` before and after: if the
/// lifecycles would make it fail, none is given and the reason is a warning.
pub fn recognise(
    refs: &Resolver<'_>,
    schema: &mut AdapterSchema,
    endpoints: &mut BTreeMap<String, Endpoint<'_>>,
    readings: &mut [Reading],
    warnings: &mut Vec<Warning>,
) -> Vec<Followed> {
    let mut found: Vec<(Category, Lifecycle)> = Vec::new();
    let mut names = Vec::new();
    for (category, list) in schema.operations.families() {
        for operation in list {
            let Some(endpoint) = endpoints.get(&operation.name) else {
                continue;
            };
            let Some(lifecycle) = propose(refs, schema, endpoints, category, operation, endpoint)
            else {
                continue;
            };
            names.push(operation.name.clone());
            found.push((category, lifecycle));
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    let all = schema.operations.families();
    let reserved = all
        .iter()
        .flat_map(|(_, list)| list.iter())
        .find(|operation| ExecutionOperation::parse(&operation.name).is_some());
    if let Some(reserved) = reserved {
        warnings.push(Warning {
            operation: reserved.maps_to.clone(),
            reason: format!(
                "{} operations start work the document shows how to follow, but the runtime \
                 serves `{}` for that and this operation has the name; none is followed",
                found.len(),
                reserved.name
            ),
        });
        return Vec::new();
    }
    let before = (schema.clone(), endpoints.clone(), readings.to_vec());
    let mut followed = Vec::new();
    for (name, (category, lifecycle)) in names.into_iter().zip(found) {
        let list = schema.operations.family_mut(category);
        let Some(index) = list.iter().position(|operation| operation.name == name) else {
            continue;
        };
        followed.push(Followed {
            name: name.clone(),
            maps_to: list[index].maps_to.clone(),
            was: (category != Category::Execute).then_some(category),
            poll: lifecycle.poll.clone(),
            states: lifecycle
                .states
                .iter()
                .map(|(upstream, core)| (upstream.clone(), core.clone()))
                .collect(),
        });
        list[index].lifecycle = Some(lifecycle);
        if category != Category::Execute {
            let operation = list.remove(index);
            schema.operations.execute.push(operation);
            if let Some(endpoint) = endpoints.get_mut(&name) {
                endpoint.category = Category::Execute;
            }
            for reading in readings.iter_mut() {
                reading.recategorise(&name, Category::Execute);
            }
        }
    }
    let refused: Vec<String> = rules::findings(schema)
        .into_iter()
        .filter(|finding| !finding.diagnostic.code.is_warning())
        .map(|finding| {
            format!(
                "{} at {}",
                finding.diagnostic.message, finding.diagnostic.path
            )
        })
        .collect();
    if refused.is_empty() {
        // In the order the adapter lists them.
        let position = |name: &str| {
            let execute = &schema.operations.execute;
            execute.iter().position(|operation| operation.name == name)
        };
        followed.sort_by_key(|operation| position(&operation.name));
        return followed;
    }
    let (schema_before, endpoints_before, readings_before) = before;
    *schema = schema_before;
    *endpoints = endpoints_before;
    readings.clone_from_slice(&readings_before);
    warnings.push(Warning {
        operation: "document".to_owned(),
        reason: format!(
            "internal error: following {} long-running operations would not pass check ({}); \
             none is followed; please report this with the document",
            followed.len(),
            refused.join("; ")
        ),
    });
    Vec::new()
}

/// The lifecycle of `operation` (of `category`, imported from `endpoint`), when it starts
/// work the document shows how to follow and the lifecycle resolves.
fn propose(
    refs: &Resolver<'_>,
    schema: &AdapterSchema,
    endpoints: &BTreeMap<String, Endpoint<'_>>,
    category: Category,
    operation: &Operation,
    endpoint: &Endpoint<'_>,
) -> Option<Lifecycle> {
    let accepted = response(refs, endpoint.operation, "202");
    let may = match (category, endpoint.method) {
        (Category::Execute, _) | (Category::Create, "post") => true,
        (Category::Update, _) => accepted.is_some() && !sends_if_match(refs, endpoint),
        (Category::Create, _) => accepted.is_some(),
        _ => false,
    };
    if !may {
        return None;
    }
    let start = match accepted {
        Some(accepted) => accepted,
        None => ["201", "200"]
            .iter()
            .find_map(|code| response(refs, endpoint.operation, code))
            .filter(|answer| {
                shaping::json_schema(refs, answer)
                    .and_then(|schema| state_field(refs, schema, operation))
                    .is_some_and(|field| field.is_a_job())
            })?,
    };
    let start_schema = shaping::json_schema(refs, start);
    let start_path = path_of(&operation.maps_to);
    let status = linked(refs, schema, endpoints, start)
        .or_else(|| child(schema, start_path, start_schema.map(|s| (refs, s))));
    if let Some(status) = &status
        && let Some(lifecycle) = through_operation(refs, schema, endpoints, operation, status)
        && let Some(lifecycle) = verified(schema, operation, lifecycle, &status.id_param)
    {
        return Some(lifecycle);
    }
    let header = accepted.and_then(location_header)?;
    let monitor = accepted
        .and_then(|answer| shaping::json_schema(refs, answer))
        .and_then(|schema| Some((state_field(refs, schema, operation)?, schema)))
        .or_else(|| {
            let schema = status_schema(refs, endpoints, &status.as_ref()?.poll)?;
            Some((state_field(refs, schema, operation)?, schema))
        });
    let lifecycle = match monitor {
        Some((field, monitor)) => {
            let properties = shaping::properties(refs, monitor, 0).unwrap_or_default();
            Lifecycle {
                poll: "location".to_owned(),
                id: None,
                id_param: None,
                state: field.path,
                states: field.states,
                progress: progress(refs, &properties),
                error: error(&properties),
                result: None,
                cancel: None,
                poll_interval: None,
                timeout: None,
            }
        }
        None if header == "Operation-Location" => Lifecycle {
            poll: "location".to_owned(),
            id: None,
            id_param: None,
            state: "status".to_owned(),
            states: MONITOR_STATES
                .iter()
                .filter_map(|state| Some(((*state).to_owned(), core_name(state)?)))
                .collect(),
            progress: None,
            error: Some("error".to_owned()),
            result: None,
            cancel: None,
            poll_interval: None,
            timeout: None,
        },
        None => return None,
    };
    verified(schema, operation, lifecycle, "")
}

/// A status resource: the READ operation that answers the state, the param of it the id goes
/// in, and where the start answer has the id (when a link says so).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Status {
    poll: String,
    id_param: String,
    id: Option<String>,
    /// The start answer's id, its JSON type, when the status resource was found by its path.
    id_type: Option<Vec<String>>,
}

/// The lifecycle that follows the work through `status`, when its answer has a state field
/// and the start answer an id of the type the status resource takes.
fn through_operation(
    refs: &Resolver<'_>,
    schema: &AdapterSchema,
    endpoints: &BTreeMap<String, Endpoint<'_>>,
    start: &Operation,
    status: &Status,
) -> Option<Lifecycle> {
    let id = status.id.clone()?;
    let monitor = status_schema(refs, endpoints, &status.poll)?;
    let field = state_field(refs, monitor, start)?;
    let poll = find(schema, &status.poll)?;
    let param = poll.params.get(&status.id_param)?;
    if let Some(types) = &status.id_type
        && !fits(param.kind, types)
    {
        return None;
    }
    let properties = shaping::properties(refs, monitor, 0).unwrap_or_default();
    let status_path = path_of(&poll.maps_to);
    Some(Lifecycle {
        poll: status.poll.clone(),
        id: Some(id),
        id_param: None,
        state: field.path,
        states: field.states,
        progress: progress(refs, &properties),
        error: error(&properties),
        result: None,
        cancel: cancel(schema, endpoints, status_path),
        poll_interval: None,
        timeout: None,
    })
}

/// `lifecycle` as it resolves for `start`: with the default id param when that is
/// `id_param`, else naming it; without `cancel` when that does not resolve; `None` when
/// nothing resolves.
fn verified(
    schema: &AdapterSchema,
    start: &Operation,
    lifecycle: Lifecycle,
    id_param: &str,
) -> Option<Lifecycle> {
    let mut tries = vec![lifecycle.clone()];
    if !id_param.is_empty() {
        tries.push(Lifecycle {
            id_param: Some(id_param.to_owned()),
            ..lifecycle.clone()
        });
    }
    if lifecycle.cancel.is_some() {
        let without: Vec<Lifecycle> = tries
            .iter()
            .map(|lifecycle| Lifecycle {
                cancel: None,
                ..lifecycle.clone()
            })
            .collect();
        tries.extend(without);
    }
    tries.into_iter().find(|lifecycle| {
        let Ok(resolved) = lifecycle::resolve(schema, Category::Execute, start, lifecycle) else {
            return false;
        };
        let goes = |param: &str| id_param.is_empty() || param == id_param;
        let polled = match &resolved.poll {
            Poll::Location => true,
            Poll::Operation(call) => goes(&call.id_param),
        };
        polled
            && resolved
                .cancel
                .as_ref()
                .is_none_or(|call| goes(&call.id_param))
    })
}

/// The status resource a link of the start answer names: a READ operation of the adapter
/// (by `operationId` or `operationRef`) with a param the link fills from the answer's body.
fn linked(
    refs: &Resolver<'_>,
    schema: &AdapterSchema,
    endpoints: &BTreeMap<String, Endpoint<'_>>,
    start: &Answered,
) -> Option<Status> {
    start.links.iter().flatten().find_map(|(_, link)| {
        let link: &Link = refs.resolve(link).ok()?;
        let referenced = link
            .operation_ref
            .as_deref()
            .and_then(|reference| reference.strip_prefix("#/paths/"))
            .and_then(|rest| rest.rsplit_once('/'))
            .map(|(path, method)| (unescape(path), method));
        let (name, _) = endpoints.iter().find(|(_, endpoint)| {
            endpoint.method == "get"
                && match (&link.operation_id, &referenced) {
                    (Some(id), _) => endpoint.operation.operation_id.as_ref() == Some(id),
                    (None, Some((path, method))) => path == endpoint.path && *method == "get",
                    (None, None) => false,
                }
        })?;
        let poll = schema
            .operations
            .read
            .iter()
            .find(|operation| operation.name == *name)?;
        link.parameters.iter().flatten().find_map(|(key, value)| {
            let pointer = value.as_str()?.strip_prefix("$response.body#")?;
            let id = dot_path(pointer)?;
            let key = key.rsplit_once('.').map_or(key.as_str(), |(_, key)| key);
            let (id_param, _) = poll.params.iter().find(|(public, param)| {
                param.wire_name.as_deref() == Some(key)
                    || *public == key
                    || **public == naming::param(key)
            })?;
            Some(Status {
                poll: name.clone(),
                id_param: id_param.clone(),
                id: Some(id),
                id_type: None,
            })
        })
    })
}

/// The status resource that is the direct child of `start_path`: a READ `GET
/// {start_path}/{placeholder}`, with where the start answer (`start`: its resolver and
/// schema) has the id it takes.
fn child(
    schema: &AdapterSchema,
    start_path: &str,
    start: Option<(&Resolver<'_>, &Schema)>,
) -> Option<Status> {
    schema.operations.read.iter().find_map(|operation| {
        let (method, _) = operation.maps_to.split_once(' ')?;
        if method != "GET" {
            return None;
        }
        let placeholder = child_placeholder(start_path, path_of(&operation.maps_to))?;
        let found = start.and_then(|(refs, start)| find_id(refs, start, placeholder, start_path));
        Some(Status {
            poll: operation.name.clone(),
            id_param: placeholder.to_owned(),
            id_type: found.as_ref().map(|(_, types)| types.clone()),
            id: found.map(|(path, _)| path),
        })
    })
}

/// The placeholder `status_path` adds to `start_path` as its one last segment:
/// `/exports/{export_id}` adds `export_id` to `/exports`.
pub fn child_placeholder<'a>(start_path: &str, status_path: &'a str) -> Option<&'a str> {
    let prefix = start_path.trim_end_matches('/');
    let rest = status_path.strip_prefix(prefix)?.strip_prefix('/')?;
    let name = rest.strip_prefix('{')?.strip_suffix('}')?;
    (!name.is_empty() && !name.contains(['{', '}', '/'])).then_some(name)
}

/// The operation that cancels the work at `status_path`: `POST {status_path}/cancel` (or
/// `:cancel`), else a `DELETE {status_path}` whose words say it cancels, aborts or stops.
fn cancel(
    schema: &AdapterSchema,
    endpoints: &BTreeMap<String, Endpoint<'_>>,
    status_path: &str,
) -> Option<String> {
    let all = schema.operations.families();
    let operations = || all.iter().flat_map(|(_, list)| list.iter());
    let posted = operations().find(|operation| {
        cancel_path(&operation.maps_to, status_path) && operation.maps_to.starts_with("POST ")
    });
    let deleted = || {
        operations().find(|operation| {
            operation.maps_to.starts_with("DELETE ")
                && path_of(&operation.maps_to) == status_path
                && endpoints
                    .get(&operation.name)
                    .is_some_and(|endpoint| says_cancel(endpoint.operation))
        })
    };
    posted
        .or_else(deleted)
        .map(|operation| operation.name.clone())
}

/// Whether `maps_to` is `METHOD {status_path}/cancel` or `METHOD {status_path}:cancel`.
pub fn cancel_path(maps_to: &str, status_path: &str) -> bool {
    let path = path_of(maps_to);
    path.strip_prefix(status_path)
        .is_some_and(|rest| rest == "/cancel" || rest == ":cancel")
}

/// Whether the summary or description of `operation` says it cancels, aborts or stops.
fn says_cancel(operation: &Described) -> bool {
    [&operation.summary, &operation.description]
        .into_iter()
        .flatten()
        .flat_map(|text| text.split(|c: char| !c.is_ascii_alphabetic()))
        .map(str::to_ascii_lowercase)
        .any(|word| {
            ["cancel", "abort", "stop"]
                .iter()
                .any(|verb| word.starts_with(verb))
        })
}

/// The JSON schema of the success answer of the operation named `name`.
fn status_schema<'a>(
    refs: &'a Resolver<'_>,
    endpoints: &'a BTreeMap<String, Endpoint<'_>>,
    name: &str,
) -> Option<&'a Schema> {
    let endpoint = endpoints.get(name)?;
    let answer = shaping::success_response(refs, endpoint.operation)?;
    shaping::json_schema(refs, answer)
}

/// The response of `operation` for the status `code`, resolved.
fn response<'a>(
    refs: &'a Resolver<'_>,
    operation: &'a Described,
    code: &str,
) -> Option<&'a Answered> {
    let response = operation.responses.as_ref()?.get(code)?;
    refs.resolve(response).ok()
}

/// The header `answer` declares that says where to watch the work: `Operation-Location`,
/// else `Location`.
fn location_header(answer: &Answered) -> Option<&'static str> {
    let declares = |wanted: &str| {
        answer
            .headers
            .iter()
            .flatten()
            .any(|(name, _)| name.eq_ignore_ascii_case(wanted))
    };
    ["Operation-Location", "Location"]
        .into_iter()
        .find(|header| declares(header))
}

/// Whether the operation sends an `If-Match` header, which only an UPDATE or DELETE carries.
fn sends_if_match(refs: &Resolver<'_>, endpoint: &Endpoint<'_>) -> bool {
    endpoint
        .item
        .parameters
        .iter()
        .chain(&endpoint.operation.parameters)
        .filter_map(|parameter| refs.resolve(parameter).ok())
        .any(|parameter| {
            parameter.location.as_deref() == Some("header")
                && parameter
                    .name
                    .as_deref()
                    .is_some_and(|name| name.eq_ignore_ascii_case("if-match"))
        })
}

/// Where an answer holds the work's state, and what its values mean.
#[derive(Debug, Clone, PartialEq, Eq)]
struct StateField {
    /// Its dot path.
    path: String,
    /// The values that mean a core state, each with it.
    states: IndexMap<String, String>,
    /// How many values it lists.
    values: usize,
}

impl StateField {
    fn cores(&self) -> impl Iterator<Item = ExecutionState> + '_ {
        self.states
            .values()
            .filter_map(|core| ExecutionState::parse(core))
    }

    /// Whether these can be the states of work that ends: one of them ends it in success
    /// (without one, work could only end failing or timing out), and most of the values are
    /// understood (a record's status, such as an order's, lists many that mean none).
    fn is_work(&self) -> bool {
        self.cores().any(|core| core == ExecutionState::Completed)
            && self.states.len() * 2 >= self.values
    }

    /// Whether these are a job's states: work's, with one still to come and one that ends
    /// it in failure too.
    fn is_a_job(&self) -> bool {
        self.is_work()
            && self.cores().any(|core| !core.is_terminal())
            && self.cores().any(|core| core == ExecutionState::Failed)
    }
}

/// The state field of an answer of `schema`: a string member named like a state (`status`,
/// `state`, `phase`, `conclusion`, or ending so: `provisioningState`), at the top or in a
/// member that wraps the answer's object ([`is_wrapper`]), whose values are work's
/// ([`StateField::is_work`]), and which `start` does not take as a param: a state the caller
/// sets is a record's, not work's. The top before below, an exact name before a suffix, then
/// the most values understood.
fn state_field(refs: &Resolver<'_>, schema: &Schema, start: &Operation) -> Option<StateField> {
    let set_by_caller = |field: &StateField| {
        !field.path.contains('.')
            && start.params.iter().any(|(name, param)| {
                *name == naming::param(&field.path)
                    || param.wire_name.as_deref() == Some(field.path.as_str())
            })
    };
    let resource = resource(path_of(&start.maps_to));
    let properties = shaping::properties(refs, schema, 0)?;
    let mut candidates: Vec<(usize, bool, StateField)> = Vec::new();
    for (name, property) in &properties {
        if let Some((exact, field)) = state_member(refs, name, property, "") {
            candidates.push((0, exact, field));
        }
        if name.contains('.') || !is_wrapper(name, &resource) {
            continue;
        }
        for (inner, nested) in shaping::properties(refs, property, 0).into_iter().flatten() {
            if let Some((exact, field)) = state_member(refs, inner, nested, name) {
                candidates.push((1, exact, field));
            }
        }
    }
    candidates
        .into_iter()
        .filter(|(_, _, field)| field.is_work() && !set_by_caller(field))
        .min_by_key(|(depth, exact, field)| (*depth, !exact, std::cmp::Reverse(field.states.len())))
        .map(|(_, _, field)| field)
}

/// `name` (under `parent`) as a state field: whether its name is exactly a state word, and
/// the field.
fn state_member(
    refs: &Resolver<'_>,
    name: &str,
    property: &Schema,
    parent: &str,
) -> Option<(bool, StateField)> {
    const WORDS: [&str; 4] = ["status", "state", "phase", "conclusion"];
    if name.is_empty() || name.contains('.') {
        return None;
    }
    let snake = naming::snake(name);
    let last = snake.rsplit('_').next().unwrap_or_default();
    if !WORDS.contains(&last) {
        return None;
    }
    let (values, documented) = listed(refs, property, 0)?;
    let mut states = IndexMap::new();
    for value in &values {
        if let Some(core) = core_name(value) {
            states.entry(value.clone()).or_insert(core);
        }
    }
    let field = StateField {
        path: if parent.is_empty() {
            name.to_owned()
        } else {
            format!("{parent}.{name}")
        },
        values: if documented {
            states.len()
        } else {
            values.len()
        },
        states,
    };
    // Values read from prose are trusted only when they tell a start from an end.
    if documented && !field.is_a_job() {
        return None;
    }
    Some((WORDS.contains(&snake.as_str()), field))
}

/// The string values a string schema lists: its `enum`, that of its one `allOf` part, else
/// those its description documents (`true` then).
fn listed(refs: &Resolver<'_>, schema: &Schema, depth: usize) -> Option<(Vec<String>, bool)> {
    if !matches!(schema.types.non_null().as_slice(), [] | ["string"]) || depth > 4 {
        return None;
    }
    if let Some(values) = &schema.values {
        let values: Vec<String> = values
            .iter()
            .filter_map(|value| value.as_str().map(str::to_owned))
            .collect();
        return (!values.is_empty()).then_some((values, false));
    }
    if let [part] = schema.all_of.as_slice()
        && let Some(found) = refs
            .resolve(part)
            .ok()
            .and_then(|part| listed(refs, part, depth + 1))
    {
        return Some(found);
    }
    if schema.properties.is_some() || !schema.types.non_null().contains(&"string") {
        return None;
    }
    let values = documented(schema.description.as_deref()?);
    (!values.is_empty()).then_some((values, true))
}

/// The state names a description lists: its words in backquotes or double quotes, else,
/// when it says it lists values (`one of`, `values`, `possible`, `can be`, `either`), its
/// words; only those that mean a core state, each once.
pub fn documented(description: &str) -> Vec<String> {
    let mut quoted: Vec<&str> = Vec::new();
    for mark in ['`', '"'] {
        quoted.extend(description.split(mark).skip(1).step_by(2));
    }
    let word = |token: &&str| {
        !token.is_empty()
            && token.len() <= 40
            && token
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    let lower = description.to_ascii_lowercase();
    let lists = ["one of", "values", "possible", "can be", "either"]
        .iter()
        .any(|phrase| lower.contains(phrase));
    let words: Vec<&str> = if quoted.iter().any(word) {
        quoted.into_iter().filter(word).collect()
    } else if lists {
        description
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .filter(word)
            .collect()
    } else {
        Vec::new()
    };
    let mut found: Vec<String> = Vec::new();
    for word in words {
        if core_state(word).is_some() && !found.iter().any(|seen| seen == word) {
            found.push(word.to_owned());
        }
    }
    found
}

/// The core state `upstream` means, by its wire name.
fn core_name(upstream: &str) -> Option<String> {
    core_state(upstream).map(|core| core.as_str().to_owned())
}

/// Where an answer of `schema` holds the id of the work `start_path` started, to fill the
/// status resource's `placeholder`, with its JSON types: a member named as the placeholder,
/// else `id` (when the placeholder is an id or names the resource), else the id of the
/// resource the path names (`export_id` for `/exports`) or of a job, run, operation, task or
/// execution; at the top, else in a member that wraps the answer's object ([`is_wrapper`]).
fn find_id(
    refs: &Resolver<'_>,
    schema: &Schema,
    placeholder: &str,
    start_path: &str,
) -> Option<(String, Vec<String>)> {
    let resource = resource(start_path);
    let kinds = [
        resource.as_str(),
        "job",
        "run",
        "operation",
        "task",
        "execution",
    ];
    let ids: Vec<String> = kinds
        .iter()
        .filter(|kind| !kind.is_empty())
        .map(|kind| format!("{kind}_id"))
        .chain(["workflow_run_id".to_owned()])
        .collect();
    let properties = shaping::properties(refs, schema, 0)?;
    let pick = |properties: &Properties<'_>, loose: bool| -> Option<(String, Vec<String>)> {
        // `id` is taken for an id or the resource itself (`/v1/refunds/{refund}`), not for
        // a number or a name (`/salesorder/{order_nbr}`).
        let id_like = placeholder == resource
            || ["id", "uuid"]
                .iter()
                .any(|id| placeholder == *id || placeholder.ends_with(&format!("_{id}")));
        let mut wanted: Vec<&str> = vec![placeholder];
        if id_like {
            wanted.push("id");
        }
        if loose {
            wanted.extend(ids.iter().map(String::as_str));
        }
        wanted.into_iter().find_map(|wanted| {
            properties.iter().find_map(|(name, property)| {
                let matches = *name == wanted || naming::param(name) == wanted;
                let types: Vec<String> = property
                    .types
                    .non_null()
                    .iter()
                    .map(|kind| (*kind).to_owned())
                    .collect();
                let scalar = match types.as_slice() {
                    [] => property.properties.is_none() && property.items.is_none(),
                    [kind] => matches!(kind.as_str(), "string" | "integer" | "number"),
                    _ => false,
                };
                (matches && scalar && !name.contains('.')).then(|| ((*name).to_owned(), types))
            })
        })
    };
    if let Some(found) = pick(&properties, true) {
        return Some(found);
    }
    properties.iter().find_map(|(name, property)| {
        if !is_wrapper(name, &resource) {
            return None;
        }
        let inner = shaping::properties(refs, property, 0)?;
        let (path, types) = pick(&inner, false)?;
        Some((format!("{name}.{path}"), types))
    })
}

/// The resource a path names, singular: `export` for `/v1/exports`, `action` for
/// `/droplets/{id}/actions`.
fn resource(path: &str) -> String {
    path.rsplit('/')
        .find(|segment| !segment.is_empty() && !segment.starts_with('{'))
        .map(|segment| naming::param(segment.trim_end_matches('s')))
        .unwrap_or_default()
}

/// Whether the member `name` wraps the answer's own object: `data`, `properties` (Azure's),
/// `result`, or named for the `resource`, a job, run, operation, task or execution.
fn is_wrapper(name: &str, resource: &str) -> bool {
    let name = naming::param(name);
    [
        "data",
        "properties",
        "result",
        resource,
        "job",
        "run",
        "operation",
        "task",
        "execution",
    ]
    .contains(&name.as_str())
        && !name.is_empty()
}

/// Whether an id of JSON `types` (none declared: any) can be sent as a param of `kind`.
fn fits(kind: ParamType, types: &[String]) -> bool {
    let allowed: &[&str] = match kind {
        ParamType::String => &["string"],
        ParamType::Integer => &["integer"],
        ParamType::Number => &["integer", "number"],
        _ => &[],
    };
    match types {
        [] => matches!(
            kind,
            ParamType::String | ParamType::Integer | ParamType::Number
        ),
        [only] => allowed.contains(&only.as_str()),
        _ => false,
    }
}

/// Where the status answer reports progress, when its names say so plainly: a number named
/// `percentComplete`, `percent_complete`, `percentage`, ..., or `progress` when it is in
/// percent, or a `progress` object with such a number or with `current`/`done` and `total`.
fn progress(refs: &Resolver<'_>, properties: &Properties<'_>) -> Option<LifecycleProgress> {
    const PERCENT: [&str; 8] = [
        "percentcomplete",
        "percentcompleted",
        "percentdone",
        "percentage",
        "progresspercent",
        "progresspercentage",
        "completionpercentage",
        "percent",
    ];
    let key = |name: &str| -> String {
        name.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let numeric =
        |schema: &Schema| matches!(schema.types.non_null().as_slice(), ["integer"] | ["number"]);
    let percent = |properties: &Properties<'_>, progress_too: bool| {
        properties.iter().find_map(|(name, schema)| {
            let key = key(name);
            let named = PERCENT.contains(&key.as_str())
                || (progress_too && key == "progress" && in_percent(schema));
            (named && numeric(schema) && !name.contains('.')).then(|| (*name).to_owned())
        })
    };
    if let Some(name) = percent(properties, true) {
        return Some(LifecycleProgress {
            percentage: Some(name),
            ..LifecycleProgress::default()
        });
    }
    let (name, object) = properties
        .iter()
        .find(|(name, _)| key(name) == "progress" && !name.contains('.'))?;
    let inner = shaping::properties(refs, object, 0)?;
    let member = |names: &[&str]| {
        inner.iter().find_map(|(inner, schema)| {
            (names.contains(&key(inner).as_str()) && numeric(schema) && !inner.contains('.'))
                .then(|| format!("{name}.{inner}"))
        })
    };
    let percentage = percent(&inner, false).map(|inner| format!("{name}.{inner}"));
    let current = member(&["current", "done", "completed", "processed"]);
    let total = member(&["total"]);
    let (current, total) = match (current, total) {
        (Some(current), Some(total)) => (Some(current), Some(total)),
        _ => (None, None),
    };
    (percentage.is_some() || current.is_some()).then_some(LifecycleProgress {
        current,
        total,
        percentage,
        message: None,
    })
}

/// Whether a number named `progress` says it is in percent (its maximum is 100, or its
/// description says percent): it may as well be a fraction of 1.
fn in_percent(schema: &Schema) -> bool {
    let said = schema.description.as_deref().is_some_and(|text| {
        let text = text.to_ascii_lowercase();
        text.contains("percent") || text.contains('%')
    });
    schema.maximum == Some(100.0) || said
}

/// Where the status answer holds a failure's error: a member named `error`.
fn error(properties: &Properties<'_>) -> Option<String> {
    properties
        .iter()
        .find(|(name, schema)| {
            *name == "error" && !matches!(schema.types.non_null().as_slice(), ["array"])
        })
        .map(|(name, _)| (*name).to_owned())
}

/// The operation of `schema` named `name`.
fn find<'a>(schema: &'a AdapterSchema, name: &str) -> Option<&'a Operation> {
    schema
        .operations
        .families()
        .into_iter()
        .flat_map(|(_, list)| list.iter())
        .find(|operation| operation.name == name)
}

/// The path of a `maps_to`, without its method and query.
fn path_of(maps_to: &str) -> &str {
    let path = maps_to.split_once(' ').map_or(maps_to, |(_, path)| path);
    path.split_once('?').map_or(path, |(path, _)| path)
}

/// A JSON pointer (`/run/id`) as a dot path (`run.id`); `None` for the whole document or a
/// member name with a dot.
fn dot_path(pointer: &str) -> Option<String> {
    let segments: Vec<String> = pointer
        .strip_prefix('/')?
        .split('/')
        .map(unescape)
        .collect();
    segments
        .iter()
        .all(|segment| !segment.is_empty() && !segment.contains('.'))
        .then(|| segments.join("."))
}

/// A JSON pointer segment unescaped: `~1` is `/`, `~0` is `~`.
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_states_map_by_meaning() {
        for (upstream, core) in [
            ("queued", ExecutionState::Pending),
            ("NotStarted", ExecutionState::Pending),
            ("WAITING", ExecutionState::Pending),
            ("in_progress", ExecutionState::Running),
            ("InProgress", ExecutionState::Running),
            ("in-progress", ExecutionState::Running),
            ("Provisioning", ExecutionState::Running),
            ("succeeded", ExecutionState::Completed),
            ("Success", ExecutionState::Completed),
            ("complete", ExecutionState::Completed),
            ("DONE", ExecutionState::Completed),
            ("failure", ExecutionState::Failed),
            ("timed_out", ExecutionState::Failed),
            ("TimedOut", ExecutionState::Failed),
            ("canceled", ExecutionState::Cancelled),
            ("Cancelled", ExecutionState::Cancelled),
            ("aborted", ExecutionState::Cancelled),
        ] {
            assert_eq!(core_state(upstream), Some(core), "{upstream}");
        }
        for unknown in [
            "skipped",
            "neutral",
            "paused",
            "archived",
            "",
            "in progress?!x",
        ] {
            assert_eq!(core_state(unknown), None, "{unknown}");
        }
        // Every spelling of the monitor's states means something.
        assert!(
            MONITOR_STATES
                .iter()
                .all(|state| core_state(state).is_some())
        );
    }

    #[test]
    fn a_status_resource_is_the_direct_child_of_the_start_path() {
        assert_eq!(
            child_placeholder("/exports", "/exports/{export_id}"),
            Some("export_id")
        );
        assert_eq!(
            child_placeholder(
                "/projects/{project}/builds/",
                "/projects/{project}/builds/{id}"
            ),
            Some("id")
        );
        assert_eq!(child_placeholder("/", "/{id}"), Some("id"));
        for (start, status) in [
            ("/exports", "/exports"),
            ("/exports", "/exports/latest"),
            ("/exports", "/exports/{id}/parts"),
            ("/exports", "/exports/{id}/{part}"),
            ("/exports", "/exportsx/{id}"),
            ("/exports", "/export/{id}"),
            ("/projects/{project}/builds", "/projects/{p}/builds/{id}"),
            (
                "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
                "/repos/{owner}/{repo}/actions/runs/{run_id}",
            ),
        ] {
            assert_eq!(child_placeholder(start, status), None, "{start} {status}");
        }
        assert!(cancel_path("POST /exports/{id}/cancel", "/exports/{id}"));
        assert!(cancel_path("POST /exports/{id}:cancel", "/exports/{id}"));
        assert!(!cancel_path(
            "POST /exports/{id}/cancel/all",
            "/exports/{id}"
        ));
        assert!(!cancel_path(
            "POST /exports/{id}/cancellation",
            "/exports/{id}"
        ));
        assert_eq!(path_of("GET /a/{b}?x=1"), "/a/{b}");
    }

    #[test]
    fn documented_values_are_read_from_quotes_or_a_list() {
        assert_eq!(
            documented("The state: `queued`, `in_progress`, `done` or `failed`."),
            ["queued", "in_progress", "done", "failed"]
        );
        assert_eq!(
            documented("Possible values are Pending, Running, Succeeded and Failed."),
            ["Pending", "Running", "Succeeded", "Failed"]
        );
        assert!(documented("Whether the job is done.").is_empty());
    }

    #[test]
    fn a_progress_number_is_a_percentage_only_when_it_says_so() {
        let schema = |value: serde_json::Value| -> Schema {
            serde::Deserialize::deserialize(value).expect("a schema")
        };
        let fraction = schema(serde_json::json!({
            "type": "number",
            "description": "How far the training has progressed, between 0 and 1."
        }));
        assert!(!in_percent(&fraction));
        assert!(in_percent(&schema(
            serde_json::json!({"type": "integer", "maximum": 100})
        )));
        assert!(in_percent(&schema(
            serde_json::json!({"type": "number", "description": "Percent done."})
        )));
    }

    #[test]
    fn pointers_become_dot_paths() {
        assert_eq!(dot_path("/run/id").as_deref(), Some("run.id"));
        assert_eq!(dot_path("/a~1b").as_deref(), Some("a/b"));
        assert_eq!(dot_path(""), None);
        assert_eq!(dot_path("/a.b"), None);
    }
}
