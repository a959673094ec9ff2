//! What a session hears besides its answers:
//!
//! * `notifications/message`: the server's own log events about the session's calls (gate
//!   decisions, failures, upstream calls), at or above the level the client chose with
//!   `logging/setLevel`; nothing before it chose one. Events carry operation names, codes and
//!   danger levels, never params, credentials or upstream text.
//! * `notifications/progress`: for a call whose `_meta` carries a `progressToken`
//!   (mcp-integration §5), one before the upstream call and one after it.
//!
//! rmcp marks MCP logging deprecated (SEP-2577); the 2025-06-18 and 2025-11-25 revisions the
//! server speaks still define it, so it is served.
#![allow(deprecated)]

use std::sync::Mutex;

use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
    SetLevelRequestParams,
};
use rmcp::service::Peer;
use serde_json::Value;

use tokio_util::sync::CancellationToken;

use crate::call::{Answer, Form, Observer, Reach, Started};
use crate::protocol::person::Person;
use crate::protocol::tasks::TaskSlot;
use crate::sync::Unpoisoned as _;

/// The logger name events are sent under.
const LOGGER: &str = "mcp-aql";

/// A session's chosen log level and the events waiting to be sent to it.
#[derive(Debug, Default)]
pub struct SessionLog {
    level: Mutex<Option<LoggingLevel>>,
    pending: Mutex<Vec<LoggingMessageNotificationParam>>,
}

impl SessionLog {
    /// `logging/setLevel`: events at its level and above are sent from now on.
    pub fn set_level(&self, request: &SetLevelRequestParams) {
        *self.level.locked() = Some(request.level);
    }

    /// A debug event, or an info one when it is not `routine`.
    pub fn event(&self, routine: bool, data: Value) {
        let level = if routine {
            LoggingLevel::Debug
        } else {
            LoggingLevel::Info
        };
        self.keep(level, data);
    }

    /// A debug event.
    pub fn debug(&self, data: Value) {
        self.keep(LoggingLevel::Debug, data);
    }

    /// Keeps `data` for the session when `level` is one it asked for.
    fn keep(&self, level: LoggingLevel, data: Value) {
        let wanted = self
            .level
            .locked()
            .is_some_and(|chosen| rank(level) >= rank(chosen));
        if wanted {
            self.pending
                .locked()
                .push(LoggingMessageNotificationParam::new(level, data).with_logger(LOGGER));
        }
    }

    /// Sends the kept events, in order, before the answer they belong to.
    pub async fn flush(&self, peer: &Peer<RoleServer>) {
        let pending = std::mem::take(&mut *self.pending.locked());
        for message in pending {
            if let Err(error) = peer.notify_logging_message(message).await {
                tracing::debug!(%error, "a log notification could not be sent");
                return;
            }
        }
    }
}

/// Where a call's progress goes: the client's token and its session.
pub struct Progress {
    /// The session.
    pub peer: Peer<RoleServer>,
    /// The call's `progressToken`.
    pub token: ProgressToken,
}

impl Progress {
    /// Reports `done` of `total` steps, or `done` alone when the total is unknown.
    pub async fn report(&self, done: f64, total: Option<f64>, message: &str) {
        let mut param =
            ProgressNotificationParam::new(self.token.clone(), done).with_message(message);
        if let Some(total) = total {
            param = param.with_total(total);
        }
        if let Err(error) = self.peer.notify_progress(param).await {
            tracing::debug!(%error, "a progress notification could not be sent");
        }
    }
}

/// What a call's [`Observer`] is in a session: its log, the client's progress token when it
/// sent one, and the way to its user.
pub struct Listener<'a> {
    /// The session's log.
    pub log: &'a SessionLog,
    /// Where progress goes, when the client asked for it.
    pub progress: Option<&'a Progress>,
    /// How the person at the client is asked.
    pub person: &'a Person,
    /// Whether the call is an item of a batch.
    pub in_batch: bool,
    /// Whether the call may answer with a task, and the task it answered with.
    pub task: &'a TaskSlot,
    /// Cancelled when the client cancels the call.
    pub cancel: Option<&'a CancellationToken>,
}

impl Observer for Listener<'_> {
    fn event(&self, routine: bool, data: Value) {
        self.log.event(routine, data);
    }

    async fn progress(&self, progress: f64, total: Option<f64>, message: &str) {
        if let Some(to) = self.progress {
            to.report(progress, total, message).await;
        }
    }

    fn reach(&self) -> Reach {
        self.person.reach(self.in_batch)
    }

    async fn ask(&self, form: &Form) -> Answer {
        self.person.ask(form).await
    }

    fn defer(&self, form: Form, state: String) {
        self.person.defer(form, state);
    }

    fn task(&self, started: &Started) -> bool {
        self.task.take(started, self.in_batch)
    }

    async fn cancelled(&self) {
        match self.cancel {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    }
}

/// Syslog severity order, lowest first (RFC 5424 as MCP uses it).
const fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_wait_for_a_level_and_respect_it() {
        let log = SessionLog::default();
        log.keep(LoggingLevel::Error, json!("before setLevel"));
        assert!(log.pending.locked().is_empty());
        log.set_level(&SetLevelRequestParams::new(LoggingLevel::Info));
        log.debug(json!("too low"));
        log.event(true, json!("routine, so debug: too low"));
        log.event(false, json!("kept"));
        log.keep(LoggingLevel::Warning, json!("kept too"));
        let kept: Vec<Value> = log
            .pending
            .locked()
            .iter()
            .map(|m| m.data.clone())
            .collect();
        assert_eq!(kept, [json!("kept"), json!("kept too")]);
    }
}
