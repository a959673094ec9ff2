//! MCP Tasks (`io.modelcontextprotocol/tasks`) for executions of long-running operations: a
//! client that declares the extension gets a task instead of a call that waits, and polls it
//! with `tasks/get`; `tasks/cancel` cancels the work upstream. The task id is the execution id,
//! so any instance on the same state store answers for it.

use std::sync::Mutex;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, JsonObject, Task, TaskPayload, TaskStatus,
};
use rmcp::service::RequestContext;

use crate::adapter::{ExecutionState, Lifecycle};
use crate::call::executions::{self, Record};
use crate::call::{Data, Started};
use crate::clock::rfc3339;
use crate::protocol::result;
use crate::sync::Unpoisoned as _;

/// Whether one `tools/call` may answer with a task, and the task it answered with.
#[derive(Debug, Default)]
pub struct TaskSlot {
    offered: bool,
    started: Mutex<Option<Started>>,
}

impl TaskSlot {
    /// The slot of a call from `context`: tasks are offered when the request (or, on a
    /// session, the client at `initialize`) declared the extension and the adapter starts
    /// executions.
    pub fn of(context: &RequestContext<RoleServer>, has_executions: bool) -> Self {
        let declared = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        Self {
            offered: has_executions && declared,
            started: Mutex::new(None),
        }
    }

    /// Takes `started` as the call's task, unless tasks are not offered or the call is an
    /// item of a batch (whose answer is the batch's).
    pub fn take(&self, started: &Started, in_batch: bool) -> bool {
        if !self.offered || in_batch {
            return false;
        }
        *self.started.locked() = Some(started.clone());
        true
    }

    /// The `CreateTaskResult` the call answers, when it started a task.
    pub fn created(&self) -> Option<CreateTaskResult> {
        let started = self.started.locked().take()?;
        let now = rfc3339(std::time::SystemTime::now());
        let task = Task::new(started.id, TaskStatus::Working, started.created_at, now)
            .with_ttl_ms(millis(started.kept))
            .with_poll_interval_ms(millis(started.poll_interval))
            .with_status_message("started upstream; poll tasks/get");
        Some(CreateTaskResult::new(task))
    }
}

/// The task of execution `id` as `tasks/get` answers it: working while it runs (with its
/// progress as the status message); completed with the MCP-AQL answer (the state response,
/// also when the execution failed, whose `error` it carries); cancelled.
pub fn detailed(id: &str, record: &Record, lifecycle: &Lifecycle) -> DetailedTask {
    let payload = match record.status() {
        ExecutionState::Pending | ExecutionState::Running => TaskPayload::Working,
        ExecutionState::Completed | ExecutionState::Failed => TaskPayload::Completed {
            result: call_result(result::success_with_warnings(
                Data::Value(record.response(id)),
                &[],
            )),
        },
        ExecutionState::Cancelled => TaskPayload::Cancelled,
    };
    let task = Task::new(
        id,
        TaskStatus::Working,
        record.started_at(),
        record.updated_at(),
    )
    .with_ttl_ms(millis(executions::kept(lifecycle)))
    .with_poll_interval_ms(lifecycle.poll_interval * 1000)
    .with_status_message(record.progress_message());
    DetailedTask::new(task, payload)
}

fn call_result(result: CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(serde_json::Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
