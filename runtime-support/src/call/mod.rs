//! One call along the request line, from its route to its answer's data:
//!
//! ```text
//! route + params -> query::Request::take the query's params (query, filter, sort, aggregate)
//!                                       out; what the upstream cannot do makes it a scan of
//!                                       calls along this same line
//!                -> shape::Plan::take   the feature params (fields, paging, dry run) out
//!                -> Route::build        typed params, the upstream request (generated)
//!                -> gate::Gate::admit   policy, limits and quotas, confirmation
//!                -> cache::Cache::fetch a kept answer, or upstream::Upstream::send
//!                -> Plan::shape         pagination, field selection, warnings
//! ```
//!
//! [`Line`] runs it; the protocol layer above gives it the route and hears of what happens
//! through an [`Observer`].

pub mod cache;
mod caller;
pub mod executions;
pub mod gate;
mod line;
pub mod metrics;
pub mod person;
mod preview;
pub mod query;
pub mod safety_loop;
pub mod shape;
pub mod trace;
pub mod upstream;
pub mod users;

use std::future::Future;

use serde_json::Value;

pub use caller::{Caller, Principal, UpstreamCredential};
pub use executions::Started;
pub use line::{Line, graph};
pub use person::{Answer, Form, Reach, Retry};

use crate::text::serialized_len;

/// An answer's `data`: JSON text as it came (pre-serialized introspection answers, the
/// upstream's answer), or a value shaping rebuilt; neither is parsed or printed twice.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// Compact JSON text.
    Text(String),
    /// A value.
    Value(serde_json::Value),
}

impl Data {
    /// The data as a value (`null` for text that is not JSON, which never reaches here).
    pub fn into_value(self) -> serde_json::Value {
        match self {
            Self::Text(text) => serde_json::from_str(&text).unwrap_or_default(),
            Self::Value(value) => value,
        }
    }

    /// Byte length of its compact JSON text.
    pub fn json_len(&self) -> usize {
        match self {
            Self::Text(text) => text.len(),
            Self::Value(value) => serialized_len(value),
        }
    }
}

/// Who a call runs for and who hears of it.
pub struct Context<'a, O> {
    /// The identity tokens are bound to, and the upstream credential.
    pub caller: &'a Caller,
    /// The session the call belongs to, for the audit log.
    pub session: &'a str,
    /// Hears what the call does, and asks the person at the client.
    pub observer: &'a O,
    /// What a stateless retry brought back after an `input_required` answer.
    pub retry: Option<&'a Retry>,
    /// The trace the client's call belongs to (`_meta.traceparent`).
    pub trace: Option<&'a trace::Parent>,
}

/// What the layer above hears while a call runs (its gate decisions and upstream calls, and
/// its progress), and how the gate reaches the person at the client.
pub trait Observer: Sync {
    /// One event for the session's log; a `routine` one is logged at debug level.
    fn event(&self, routine: bool, data: Value);

    /// How far the call is: `progress` (increasing from one report to the next) of `total`,
    /// when the total is known.
    fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: &str,
    ) -> impl Future<Output = ()> + Send;

    /// How the client lets the gate ask its user.
    fn reach(&self) -> Reach;

    /// Shows `form` to the person now and waits for the answer ([`Reach::Now`]).
    fn ask(&self, form: &Form) -> impl Future<Output = Answer> + Send;

    /// Answers the call with `form` and the sealed `state` for the client's retry
    /// ([`Reach::Later`]).
    fn defer(&self, form: Form, state: String);

    /// Whether the client takes the execution the call `started` as a task it polls itself
    /// (MCP Tasks); the call then answers at once instead of following it.
    fn task(&self, started: &Started) -> bool;

    /// Resolves when the client cancelled the call (`notifications/cancelled`); never, when
    /// it cannot.
    fn cancelled(&self) -> impl Future<Output = ()> + Send;
}
