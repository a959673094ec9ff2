//! An operation's `lifecycle` resolved against the schema: the operations it polls and
//! cancels with, the param the execution's id goes in, the dot paths split, the upstream
//! states mapped onto the core ones. `check` reports what does not resolve; the IR takes what
//! does.

use aqlgen_model::{Category, ExecutionState, Vocabulary};

use super::{AdapterSchema, Lifecycle, Operation};
use crate::diagnostic::Code;

/// Seconds between polls when the schema says nothing.
pub const DEFAULT_POLL_INTERVAL: u64 = 2;
/// Seconds an execution may run when the schema says nothing.
pub const DEFAULT_TIMEOUT: u64 = 3600;
/// The longest an execution may be followed: a week.
const MAX_TIMEOUT: u64 = 7 * 86_400;

/// A dot path, split.
pub type Path = Vec<String>;

/// An operation called with the execution's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdCall {
    /// The operation.
    pub operation: String,
    /// Its param that takes the id.
    pub id_param: String,
    /// The start operation's params it takes too, called with the start call's values.
    pub params: Vec<String>,
}

/// Where the state is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// The start answer's `Operation-Location` or `Location`.
    Location,
    /// An operation of the adapter.
    Operation(IdCall),
}

/// A lifecycle every reference of which resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Where the state is read.
    pub poll: Poll,
    /// Where the start answer holds the id.
    pub id: Option<Path>,
    /// Where the status answer holds the state, first present wins.
    pub state: Vec<Path>,
    /// Upstream state to core state.
    pub states: Vec<(String, ExecutionState)>,
    /// Progress paths: current, total, percentage, message.
    pub progress: Option<[Option<Path>; 4]>,
    /// Where a failure's error is.
    pub error: Option<Path>,
    /// Where a completion's result is.
    pub result: Option<Path>,
    /// The cancelling operation.
    pub cancel: Option<IdCall>,
    /// Seconds between polls.
    pub poll_interval: u64,
    /// Seconds before a running execution is given up.
    pub timeout: u64,
}

/// Why a lifecycle does not resolve: where under `lifecycle`, and what to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The code of the diagnostic.
    pub code: Code,
    /// The key under `lifecycle` (empty for the whole).
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
    /// What was expected.
    pub expected: String,
}

impl Problem {
    fn new(code: Code, key: &'static str, message: String, expected: impl Into<String>) -> Self {
        Self {
            code,
            key,
            message,
            expected: expected.into(),
        }
    }
}

/// Resolves the lifecycle of `start`, an operation of `category`, in `schema`.
///
/// # Errors
///
/// Every problem found, so `check` reports them all at once.
pub fn resolve(
    schema: &AdapterSchema,
    category: Category,
    start: &Operation,
    lifecycle: &Lifecycle,
) -> Result<Resolved, Vec<Problem>> {
    let mut problems = Vec::new();
    if category != Category::Execute {
        problems.push(Problem::new(
            Code::CategoryMismatch,
            "",
            format!(
                "only an EXECUTE operation starts an execution to follow; `{}` is {}",
                start.name,
                category.semantic_name()
            ),
            "`lifecycle` on an operation under `execute`",
        ));
    }
    let poll = if lifecycle.poll == "location" {
        Some(Poll::Location)
    } else {
        id_call(
            schema,
            start,
            lifecycle,
            "poll",
            &lifecycle.poll,
            &[Category::Read],
            &mut problems,
        )
        .map(Poll::Operation)
    };
    let cancel = lifecycle.cancel.as_deref().and_then(|name| {
        let allowed = [Category::Execute, Category::Delete, Category::Update];
        id_call(
            schema,
            start,
            lifecycle,
            "cancel",
            name,
            &allowed,
            &mut problems,
        )
    });
    let needs_id = matches!(poll, Some(Poll::Operation(_))) || cancel.is_some();
    if needs_id && lifecycle.id.is_none() {
        problems.push(Problem::new(
            Code::MissingField,
            "id",
            "an operation polls or cancels the execution, so the start answer's id must be found"
                .to_owned(),
            "`id`: the dot path of the execution's id in the start answer, e.g. `id` or `run.id`",
        ));
    }
    let id = lifecycle
        .id
        .as_deref()
        .and_then(|id| path(id, "id", &mut problems));
    let state: Vec<Path> = lifecycle
        .state
        .split('|')
        .filter_map(|part| path(part, "state", &mut problems))
        .collect();
    let mut states = Vec::new();
    for (upstream, core) in &lifecycle.states {
        match ExecutionState::parse(core) {
            Some(core) => states.push((upstream.clone(), core)),
            None => problems.push(Problem::new(
                Code::InvalidValue,
                "states",
                format!("upstream state `{upstream}` maps to `{core}`, which is no core state"),
                format!(
                    "one of {}",
                    <ExecutionState as Vocabulary>::NAMES.join(", ")
                ),
            )),
        }
    }
    if !states.iter().any(|(_, core)| core.is_terminal()) {
        problems.push(Problem::new(
            Code::InvalidValue,
            "states",
            "no upstream state maps to a terminal state, so no execution would ever end".to_owned(),
            "at least one of completed, failed or cancelled among the values",
        ));
    }
    let progress = lifecycle.progress.as_ref().map(|progress| {
        [
            &progress.current,
            &progress.total,
            &progress.percentage,
            &progress.message,
        ]
        .map(|text| {
            text.as_deref()
                .and_then(|text| path(text, "progress", &mut problems))
        })
    });
    let error = lifecycle
        .error
        .as_deref()
        .and_then(|text| path(text, "error", &mut problems));
    let result = lifecycle
        .result
        .as_deref()
        .and_then(|text| path(text, "result", &mut problems));
    let poll_interval = lifecycle.poll_interval.unwrap_or(DEFAULT_POLL_INTERVAL);
    let timeout = lifecycle.timeout.unwrap_or(DEFAULT_TIMEOUT);
    if !(1..=3600).contains(&poll_interval) {
        problems.push(Problem::new(
            Code::InvalidValue,
            "poll_interval",
            format!("a poll interval of {poll_interval} s"),
            "1 to 3600 seconds",
        ));
    }
    if timeout < poll_interval || timeout > MAX_TIMEOUT {
        problems.push(Problem::new(
            Code::InvalidValue,
            "timeout",
            format!("a timeout of {timeout} s"),
            format!("from the poll interval ({poll_interval} s) to {MAX_TIMEOUT} s (a week)"),
        ));
    }
    match (problems.is_empty(), poll) {
        (true, Some(poll)) => Ok(Resolved {
            poll,
            id,
            state,
            states,
            progress,
            error,
            result,
            cancel,
            poll_interval,
            timeout,
        }),
        _ => Err(problems),
    }
}

/// The operation `name` named under `key`, of one of `allowed` categories, with the param its
/// id goes in: `id_param`, or its one required param the start operation does not have. Its
/// other required params must be the start operation's, whose values it is called with.
fn id_call(
    schema: &AdapterSchema,
    start: &Operation,
    lifecycle: &Lifecycle,
    key: &'static str,
    name: &str,
    allowed: &[Category],
    problems: &mut Vec<Problem>,
) -> Option<IdCall> {
    let found = schema
        .operations
        .families()
        .into_iter()
        .find_map(|(category, list)| {
            list.iter()
                .find(|operation| operation.name == name)
                .map(|operation| (category, operation))
        });
    let Some((category, target)) = found else {
        let expected = if key == "poll" {
            "`location`, or the name of a READ operation of this adapter"
        } else {
            "the name of an operation of this adapter"
        };
        problems.push(Problem::new(
            Code::UnresolvedRef,
            key,
            format!("no operation is named `{name}`"),
            expected,
        ));
        return None;
    };
    if !allowed.contains(&category) {
        let names: Vec<&str> = allowed.iter().map(|c| c.semantic_name()).collect();
        problems.push(Problem::new(
            Code::CategoryMismatch,
            key,
            format!("`{name}` is {}", category.semantic_name()),
            format!("an operation that is {}", names.join(" or ")),
        ));
        return None;
    }
    let required: Vec<&String> = target
        .params
        .iter()
        .filter(|(_, param)| param.required == Some(true))
        .map(|(name, _)| name)
        .collect();
    let id_param = match &lifecycle.id_param {
        Some(id_param) if target.params.contains_key(id_param) => id_param.clone(),
        Some(id_param) => {
            problems.push(Problem::new(
                Code::UnresolvedRef,
                "id_param",
                format!("`{name}` has no param `{id_param}`"),
                format!("one of {}", join(target.params.keys())),
            ));
            return None;
        }
        None => {
            let fresh: Vec<&&String> = required
                .iter()
                .filter(|param| !start.params.contains_key(param.as_str()))
                .collect();
            match fresh.as_slice() {
                [only] => (**only).clone(),
                _ => {
                    problems.push(Problem::new(
                        Code::MissingField,
                        "id_param",
                        format!(
                            "which param of `{name}` takes the execution's id is not clear: it has {} required params `{}` does not",
                            fresh.len(),
                            start.name
                        ),
                        format!("`id_param`: one of {}", join(target.params.keys())),
                    ));
                    return None;
                }
            }
        }
    };
    for param in required {
        if *param != id_param && !start.params.contains_key(param.as_str()) {
            problems.push(Problem::new(
                Code::UnresolvedRef,
                key,
                format!(
                    "`{name}` requires `{param}`, which `{}` does not take, so it cannot be called with the start call's params",
                    start.name
                ),
                format!("an operation whose required params are `{}`'s and the id", start.name),
            ));
        }
    }
    let params = target
        .params
        .keys()
        .filter(|param| **param != id_param && start.params.contains_key(param.as_str()))
        .cloned()
        .collect();
    Some(IdCall {
        operation: name.to_owned(),
        id_param,
        params,
    })
}

/// `text` split at dots, each segment non-empty.
fn path(text: &str, key: &'static str, problems: &mut Vec<Problem>) -> Option<Path> {
    let segments: Path = text.trim().split('.').map(str::to_owned).collect();
    if segments.iter().any(|segment| segment.is_empty()) {
        problems.push(Problem::new(
            Code::InvalidValue,
            key,
            format!("`{text}` is not a dot path"),
            "member names joined by dots, e.g. `status` or `progress.done`",
        ));
        return None;
    }
    Some(segments)
}

fn join<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<String> = names.map(|name| format!("`{name}`")).collect();
    if names.is_empty() {
        "(none)".to_owned()
    } else {
        names.join(", ")
    }
}
