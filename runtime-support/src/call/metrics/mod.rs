//! Prometheus metrics of one instance, served at `/metrics` over HTTP: calls by operation and
//! outcome with their latency, upstream answers by status class, gate decisions, tokens
//! issued and redeemed, and what the response cache did. Each instance counts its own; a fleet's totals are sums in the query.
//!
//! Every label value is a name the adapter or the runtime owns (an operation of the schema,
//! an error code, a gate event), never text a client sent, so a hostile client cannot grow
//! the number of series.

#[cfg(feature = "metrics")]
mod registry;

#[cfg(not(feature = "metrics"))]
use std::time::Duration;

#[cfg(feature = "metrics")]
pub use registry::{CONTENT_TYPE, Metrics};

#[cfg(not(feature = "metrics"))]
use crate::call::gate::audit::Event;
#[cfg(not(feature = "metrics"))]
use crate::call::upstream::Reached;
use crate::error::ErrorCode;

/// The `operation` label of a call that named no operation of the schema.
pub const UNKNOWN_OPERATION: &str = "(unknown)";

/// How a call ended: `success`, or the error code it failed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallOutcome {
    /// The call answered `success: true`.
    Success,
    /// The call failed with this code.
    Failed(ErrorCode),
}

/// What the response cache did for a READ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CacheOutcome {
    /// Answered from the cache, fresh.
    Hit,
    /// Answered from the cache after the upstream said it is unchanged (304).
    Revalidated,
    /// Answered by the upstream.
    Miss,
}

/// Without the `metrics` feature nothing is counted, and nothing serves `/metrics`.
#[cfg(not(feature = "metrics"))]
#[derive(Debug, Default)]
pub struct Metrics {}

#[cfg(not(feature = "metrics"))]
impl Metrics {
    /// Counts nothing.
    pub fn call(&self, _operation: &'static str, _outcome: CallOutcome, _elapsed: Duration) {}

    /// Counts nothing.
    pub fn upstream(&self, _reached: Reached) {}

    /// Counts nothing.
    pub fn decision(&self, _event: Event) {}

    /// Counts nothing.
    pub fn cache(&self, _outcome: CacheOutcome) {}
}
