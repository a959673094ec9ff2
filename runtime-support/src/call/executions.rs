//! Executions of long-running EXECUTE operations (SPEC §8.4): the start call's answer says
//! where the work can be watched; the execution is kept in the state store under an opaque id
//! and its state is read from the upstream on demand (at most once per poll interval, whichever
//! instance asks), mapped onto the core states, and answered in the §8.4.3 state response.
//! Terminal states stay terminal; a running execution past its timeout is given up as failed.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::upstream::{Answer, Credential, Preconditions, Upstream};
use crate::adapter::{
    Category, ExecutionOperation, ExecutionState, IdCall, JsonPath, Lifecycle, Poll, Route,
    UpstreamRequest,
};
use crate::call::gate::TOKEN_PARAM;
use crate::clock::rfc3339;
use crate::digest::random_hex;
use crate::error::{AqlError, ErrorCode};
use crate::state::{Store, unix_millis};

/// The endpoint of a runtime execution operation.
pub const fn execution_category(op: ExecutionOperation) -> Category {
    match op {
        ExecutionOperation::GetExecution => Category::Read,
        ExecutionOperation::CancelExecution => Category::Execute,
    }
}

/// What a runtime execution operation does, for introspection.
pub const fn execution_description(op: ExecutionOperation) -> &'static str {
    match op {
        ExecutionOperation::GetExecution => {
            "The state of an execution a long-running operation started: execution_id, status (pending, running, completed, failed or cancelled), started_at, finished_at, progress, and the error or result once it ended. Reads the upstream no more than once per poll interval."
        }
        ExecutionOperation::CancelExecution => {
            "Cancel an execution which has not ended, with the upstream's own cancel operation; an ended execution cannot be cancelled."
        }
    }
}

/// The introspection summary and details of a runtime execution operation served on `tool`.
pub fn execution_introspection(op: ExecutionOperation, tool: &str) -> (Value, Value) {
    let category = execution_category(op);
    let summary = json!({
        "name": op.as_str(),
        "semantic_category": category.semantic_name(),
        "endpoint": category.as_str(),
        "description": execution_description(op),
    });
    let details = json!({
        "mcpTool": tool,
        "name": op.as_str(),
        "semantic_category": category.semantic_name(),
        "endpoint": category.as_str(),
        "description": execution_description(op),
        "permissions": {"readOnly": category == Category::Read, "destructive": false},
        "parameters": execution_params(op),
        "returns": {"name": "OperationResult", "kind": "union"},
    });
    (summary, details)
}

/// The params of a runtime execution operation, for introspection.
fn execution_params(op: ExecutionOperation) -> Value {
    let id = json!({"name": "execution_id", "type": "string", "required": true, "description": "The execution_id the starting call answered."});
    match op {
        ExecutionOperation::GetExecution => json!([id]),
        ExecutionOperation::CancelExecution => json!([id, {
            "name": TOKEN_PARAM,
            "type": "string",
            "required": false,
            "description": "When the cancel operation needs confirmation by token: the token the first call answered.",
        }]),
    }
}

/// How long a finished execution stays answerable.
const KEPT_AFTER: Duration = Duration::from_secs(86_400);

/// How long an execution of `lifecycle` stays answerable after it started: its timeout, then
/// a day.
pub fn kept(lifecycle: &Lifecycle) -> Duration {
    Duration::from_secs(lifecycle.timeout) + KEPT_AFTER
}

/// An execution a call just started, as a task announces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// Its id.
    pub id: String,
    /// When it started, RFC 3339.
    pub created_at: String,
    /// How often it is worth asking about it.
    pub poll_interval: Duration,
    /// How long it stays answerable.
    pub kept: Duration,
}

/// When a refresh reads the upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// When the poll interval has passed since the last read, by any instance.
    WhenDue,
    /// Now: before a cancel, which must not act on a state the upstream has left.
    Now,
}

/// Where the upstream's work is watched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Handle {
    /// A URL below the base URL.
    Location(String),
    /// The upstream's id, for the poll and cancel operations.
    Id(Value),
}

/// One execution as the store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The operation that started it.
    operation: String,
    /// Who started it ([`crate::call::Caller::owner`]): only they see it.
    owner: String,
    /// The start call's params, for the poll and cancel calls.
    params: Map<String, Value>,
    handle: Handle,
    status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    upstream_state: Option<String>,
    started_at: String,
    /// When its state or progress last changed, RFC 3339.
    #[serde(default)]
    updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    finished_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    progress: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    polled_ms: u64,
    deadline_ms: u64,
}

impl Record {
    /// The core state.
    pub fn status(&self) -> ExecutionState {
        ExecutionState::parse(&self.status).unwrap_or(ExecutionState::Pending)
    }

    fn set(&mut self, state: ExecutionState) {
        if self.status().is_terminal() || self.status() == state {
            return;
        }
        self.status = state.as_str().to_owned();
        self.updated_at = rfc3339(SystemTime::now());
        if state.is_terminal() {
            self.finished_at = Some(rfc3339(SystemTime::now()));
        }
    }

    /// When it started, RFC 3339.
    pub fn started_at(&self) -> &str {
        &self.started_at
    }

    /// When its state or progress last changed, RFC 3339.
    pub fn updated_at(&self) -> &str {
        if self.updated_at.is_empty() {
            &self.started_at
        } else {
            &self.updated_at
        }
    }

    /// The state response (SPEC §8.4.3) of execution `id`.
    pub fn response(&self, id: &str) -> Value {
        let mut response = json!({
            "execution_id": id,
            "operation": self.operation,
            "status": self.status,
            "started_at": self.started_at,
        });
        for (key, value) in [
            ("finished_at", self.finished_at.clone().map(Value::from)),
            ("progress", self.progress.clone()),
            ("error", self.error.clone()),
            ("result", self.result.clone()),
        ] {
            if let Some(value) = value {
                response[key] = value;
            }
        }
        response
    }

    /// How far the execution is, in percent (mcp-integration §5.4), after `reported` was last
    /// said: 10 while pending, 10 to 90 while running (by the upstream's progress, else
    /// creeping a tenth of the way to 90 at each read), 100 once ended.
    pub fn percent_done(&self, reported: f64) -> f64 {
        let progress = self.progress.as_ref();
        let number = |key: &str| progress.and_then(|p| p.get(key)).and_then(Value::as_f64);
        let fraction = match (number("current"), number("total"), number("percentage")) {
            (Some(current), Some(total), _) if total > 0.0 => Some(current / total),
            (_, _, Some(percentage)) => Some(percentage / 100.0),
            _ => None,
        };
        match self.status() {
            ExecutionState::Pending => 10.0,
            ExecutionState::Running => match fraction {
                Some(fraction) => 10.0 + 80.0 * fraction.clamp(0.0, 1.0),
                None => reported + (90.0 - reported).max(0.0) / 10.0,
            },
            ExecutionState::Completed | ExecutionState::Failed | ExecutionState::Cancelled => 100.0,
        }
    }

    /// A progress notification's message: the state and the upstream's progress.
    pub fn progress_message(&self) -> String {
        let progress = self.progress.as_ref();
        let get = |key: &str| progress.and_then(|p| p.get(key));
        let mut parts = Vec::new();
        if let (Some(current), Some(total)) = (get("current"), get("total")) {
            parts.push(format!("{current} of {total}"));
        }
        if let Some(percentage) = get("percentage") {
            parts.push(format!("{percentage}%"));
        }
        if let Some(message) = get("message").and_then(Value::as_str) {
            parts.push(message.to_owned());
        }
        if parts.is_empty() {
            format!("execution {}", self.status)
        } else {
            format!("execution {}: {}", self.status, parts.join(", "))
        }
    }
}

/// The executions of one server.
pub struct Executions {
    store: Arc<Store>,
    route: fn(&str) -> Option<&'static Route>,
}

impl std::fmt::Debug for Executions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Executions")
    }
}

impl Executions {
    /// Executions kept on `store`, their poll and cancel operations found with `route`.
    pub fn new(store: Arc<Store>, route: fn(&str) -> Option<&'static Route>) -> Self {
        Self { store, route }
    }

    /// Keeps the execution `route` started with `params`, whose start `answer` says where to
    /// watch it; its id, and the record.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` (with `details.started: true`) when the answer says nowhere to watch
    /// it, or the store does not answer.
    pub async fn start(
        &self,
        route: &'static Route,
        lifecycle: &Lifecycle,
        params: &Map<String, Value>,
        answer: &Answer,
        owner: String,
    ) -> Result<(String, Record), AqlError> {
        let body: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
        let handle = match lifecycle.poll {
            Poll::Location => answer.location.clone().map(Handle::Location),
            Poll::Operation(_) => lifecycle
                .id
                .and_then(|path| at(&body, path))
                .filter(|id| !id.is_null())
                .cloned()
                .map(Handle::Id),
        };
        let Some(handle) = handle else {
            return Err(AqlError::new(
                ErrorCode::InternalError,
                format!(
                    "'{}' started its work upstream, but the upstream's answer does not say where to follow it, so its state cannot be reported; do not start it again before checking the upstream",
                    route.operation
                ),
            )
            .with_detail("started", true)
            .with_detail("answer", body));
        };
        let now = SystemTime::now();
        let record = Record {
            operation: route.operation.to_owned(),
            owner,
            params: params.clone(),
            handle,
            status: ExecutionState::Pending.as_str().to_owned(),
            upstream_state: None,
            started_at: rfc3339(now),
            updated_at: rfc3339(now),
            finished_at: None,
            progress: None,
            error: None,
            result: None,
            polled_ms: 0,
            deadline_ms: unix_millis(now + Duration::from_secs(lifecycle.timeout)),
        };
        let id = random_hex(16)
            .map(|hex| format!("exec_{hex}"))
            .ok_or_else(|| {
                AqlError::new(
                    ErrorCode::InternalError,
                    "Internal error: no randomness for an execution id",
                )
            })?;
        self.save(&id, &record, lifecycle).await?;
        Ok((id, record))
    }

    /// Execution `id`, when the credential its operation is called with (`credential` of
    /// its route) may see it; that credential comes back with it.
    ///
    /// # Errors
    ///
    /// `NOT_FOUND_RESOURCE` for an id that is unknown, expired or another credential's;
    /// `INTERNAL_ERROR` when the store does not answer; the error of `credential`.
    pub async fn load<'c>(
        &self,
        id: &str,
        owner: &str,
        credential: impl FnOnce(&'static Route) -> Result<Credential<'c>, AqlError>,
    ) -> Result<(&'static Route, &'static Lifecycle, Record, Credential<'c>), AqlError> {
        let not_found = || {
            AqlError::new(
                ErrorCode::NotFoundResource,
                "No execution has this id for this caller: it never existed, ended more than a day ago, or another caller started it",
            )
            .with_detail("execution_id", crate::text::shorten(id, 80).into_owned())
        };
        let kept = self.store.get(&key(id)).await?;
        let found = kept
            .and_then(|text| serde_json::from_str::<Record>(&text).ok())
            .and_then(|record| {
                let route = (self.route)(&record.operation)?;
                Some((route, route.lifecycle?, record))
            });
        let (route, lifecycle, record) = found.ok_or_else(not_found)?;
        let credential = credential(route)?;
        if record.owner != owner {
            return Err(not_found());
        }
        Ok((route, lifecycle, record, credential))
    }

    /// Reads the state from the upstream when the poll interval has passed since the last
    /// read (by any instance), and keeps what it says; gives a running execution up past its
    /// timeout. A failed read leaves the state as it was.
    pub async fn refresh(
        &self,
        id: &str,
        lifecycle: &Lifecycle,
        record: &mut Record,
        upstream: &Upstream,
        credential: &Credential<'_>,
        read: Read,
    ) -> Result<(), AqlError> {
        let now = unix_millis(SystemTime::now());
        let due = read == Read::Now || now >= record.polled_ms + lifecycle.poll_interval * 1000;
        if record.status().is_terminal() || !due {
            return Ok(());
        }
        record.polled_ms = now;
        if let Some(request) = self.status_request(lifecycle, record, upstream)
            && let Ok(answer) = upstream
                .send(request, Preconditions::default(), credential)
                .await
                .answer
        {
            let body: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
            read_state(lifecycle, record, &body);
        }
        if !record.status().is_terminal() && now > record.deadline_ms {
            record.error = Some(json!({
                "code": ErrorCode::InternalError.as_str(),
                "message": format!("The execution did not end within {} s, so the adapter stopped following it; it may still run upstream", lifecycle.timeout),
                "details": {"reason": "timeout"},
            }));
            record.set(ExecutionState::Failed);
        }
        self.save(id, record, lifecycle).await
    }

    /// The cancel call of `record`: its operation and params.
    ///
    /// # Errors
    ///
    /// `VALIDATION_INVALID_VALUE` when the execution has ended (terminal states stay terminal)
    /// or the upstream offers no way to cancel it.
    pub fn cancel_call(
        &self,
        id: &str,
        lifecycle: &Lifecycle,
        record: &Record,
    ) -> Result<(&'static Route, Map<String, Value>), AqlError> {
        let status = record.status();
        if status.is_terminal() {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!(
                    "Execution '{id}' has already ended ({status}); an ended execution cannot be cancelled"
                ),
            )
            .with_detail("execution_id", id)
            .with_detail("status", status.as_str()));
        }
        let call = lifecycle.cancel.and_then(|call| {
            let route = (self.route)(call.operation)?;
            Some((route, id_params(call, record)?))
        });
        call.ok_or_else(|| {
            AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!(
                    "Execution '{id}' of '{}' cannot be cancelled: the upstream offers no way to",
                    record.operation
                ),
            )
            .with_detail("execution_id", id)
        })
    }

    /// Marks `record` cancelled after its cancel call succeeded.
    pub async fn cancelled(
        &self,
        id: &str,
        lifecycle: &Lifecycle,
        record: &mut Record,
    ) -> Result<(), AqlError> {
        record.set(ExecutionState::Cancelled);
        self.save(id, record, lifecycle).await
    }

    /// The request that reads `record`'s state.
    fn status_request(
        &self,
        lifecycle: &Lifecycle,
        record: &Record,
        upstream: &Upstream,
    ) -> Option<UpstreamRequest> {
        match (&lifecycle.poll, &record.handle) {
            (Poll::Location, Handle::Location(location)) => upstream.request_to(location),
            (Poll::Operation(call), Handle::Id(_)) => {
                let route = (self.route)(call.operation)?;
                (route.build)(&id_params(*call, record)?).ok()
            }
            _ => None,
        }
    }

    async fn save(&self, id: &str, record: &Record, lifecycle: &Lifecycle) -> Result<(), AqlError> {
        let text = serde_json::to_string(record).unwrap_or_default();
        let until = SystemTime::UNIX_EPOCH
            + Duration::from_millis(record.deadline_ms)
            + KEPT_AFTER
            + Duration::from_secs(lifecycle.poll_interval);
        Ok(self.store.set(&key(id), &text, until).await?)
    }
}

/// The params of a call with the execution's id: the start call's params it takes, and the
/// id.
fn id_params(call: IdCall, record: &Record) -> Option<Map<String, Value>> {
    let Handle::Id(id) = &record.handle else {
        return None;
    };
    let mut params: Map<String, Value> = call
        .params
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), record.params.get(*name)?.clone())))
        .collect();
    params.insert(call.id_param.to_owned(), id.clone());
    Some(params)
}

/// Maps the status answer `body` onto `record`: its state, progress, and error or result.
fn read_state(lifecycle: &Lifecycle, record: &mut Record, body: &Value) {
    let upstream_state = lifecycle
        .state
        .iter()
        .filter_map(|path| at(body, path))
        .find_map(|value| match value {
            Value::String(text) => Some(text.clone()),
            Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
            _ => None,
        });
    if let Some(progress) = lifecycle.progress {
        let mut found = Map::new();
        for (key, path) in [
            ("current", progress.current),
            ("total", progress.total),
            ("percentage", progress.percentage),
            ("message", progress.message),
        ] {
            if let Some(value) = path
                .and_then(|path| at(body, path))
                .filter(|v| !v.is_null())
            {
                found.insert(key.to_owned(), value.clone());
            }
        }
        let found = Some(Value::Object(found)).filter(|found| found != &json!({}));
        if found.is_some() && found != record.progress {
            record.progress = found;
            record.updated_at = rfc3339(SystemTime::now());
        }
    }
    let Some(upstream_state) = upstream_state else {
        return;
    };
    let core = lifecycle
        .states
        .iter()
        .find(|(name, _)| *name == upstream_state)
        .map(|(_, core)| *core);
    record.upstream_state = Some(upstream_state);
    let Some(core) = core else {
        return;
    };
    match core {
        ExecutionState::Completed => {
            let result = lifecycle.result.map_or(Some(body), |path| at(body, path));
            record.result = result.cloned();
        }
        ExecutionState::Failed => {
            let upstream_error = lifecycle.error.and_then(|path| at(body, path)).cloned();
            let message = upstream_error
                .as_ref()
                .and_then(|error| error.get("message").or(Some(error)))
                .and_then(Value::as_str)
                .map_or_else(
                    || "The execution failed upstream".to_owned(),
                    |text| format!("The execution failed upstream: {text}"),
                );
            let mut error = json!({"code": ErrorCode::InternalError.as_str(), "message": message});
            if let Some(upstream_error) = upstream_error {
                error["details"] = json!({"upstream_error": upstream_error});
            }
            record.error = Some(error);
        }
        ExecutionState::Pending | ExecutionState::Running | ExecutionState::Cancelled => {}
    }
    record.set(core);
}

/// The member of `value` at `path`.
fn at(value: &Value, path: JsonPath) -> Option<&Value> {
    path.iter().try_fold(value, |value, key| value.get(*key))
}

/// The store key of execution `id`.
fn key(id: &str) -> String {
    format!("execution:{id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::ProgressPaths;

    static PROGRESS: ProgressPaths = ProgressPaths {
        current: Some(&["progress", "done"]),
        total: Some(&["progress", "total"]),
        percentage: None,
        message: Some(&["message"]),
    };
    static LIFECYCLE: Lifecycle = Lifecycle {
        poll: Poll::Location,
        id: None,
        state: &[&["conclusion"], &["status"]],
        states: &[
            ("queued", ExecutionState::Pending),
            ("in_progress", ExecutionState::Running),
            ("success", ExecutionState::Completed),
            ("failure", ExecutionState::Failed),
        ],
        progress: Some(&PROGRESS),
        error: Some(&["error"]),
        result: Some(&["result"]),
        cancel: None,
        poll_interval: 1,
        timeout: 60,
    };

    fn record() -> Record {
        Record {
            operation: "run".into(),
            owner: "server".into(),
            params: Map::new(),
            handle: Handle::Location("/jobs/1".into()),
            status: "pending".into(),
            upstream_state: None,
            started_at: "2026-11-26T00:00:00Z".into(),
            updated_at: "2026-11-26T00:00:00Z".into(),
            finished_at: None,
            progress: None,
            error: None,
            result: None,
            polled_ms: 0,
            deadline_ms: u64::MAX,
        }
    }

    #[test]
    fn states_map_onto_the_core_ones_and_terminal_ones_stay() {
        let mut record = record();
        read_state(
            &LIFECYCLE,
            &mut record,
            &json!({"status": "in_progress", "conclusion": null, "progress": {"done": 2, "total": 5}, "message": "step 2"}),
        );
        assert_eq!(record.status(), ExecutionState::Running);
        assert_eq!(
            record.progress_message(),
            "execution running: 2 of 5, step 2"
        );
        assert_eq!(record.percent_done(10.0), 42.0);
        read_state(
            &LIFECYCLE,
            &mut record,
            &json!({"status": "completed", "conclusion": "failure", "error": {"message": "boom"}}),
        );
        assert_eq!(record.status(), ExecutionState::Failed);
        assert_eq!(
            record.error.as_ref().unwrap()["message"],
            "The execution failed upstream: boom"
        );
        assert!(record.finished_at.is_some());
        read_state(&LIFECYCLE, &mut record, &json!({"conclusion": "success"}));
        assert_eq!(
            record.status(),
            ExecutionState::Failed,
            "terminal stays terminal"
        );
        let response = record.response("exec_1");
        assert_eq!(response["status"], "failed");
        assert_eq!(response["execution_id"], "exec_1");
    }

    #[test]
    fn a_completed_execution_carries_its_result_and_unknown_states_change_nothing() {
        let mut record = record();
        read_state(&LIFECYCLE, &mut record, &json!({"status": "mystery"}));
        assert_eq!(record.status(), ExecutionState::Pending);
        read_state(
            &LIFECYCLE,
            &mut record,
            &json!({"conclusion": "success", "result": {"rows": 3}}),
        );
        assert_eq!(record.status(), ExecutionState::Completed);
        assert_eq!(record.result, Some(json!({"rows": 3})));
    }
}
