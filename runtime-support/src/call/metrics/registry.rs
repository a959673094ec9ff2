//! The Prometheus registry behind [`Metrics`] (feature `metrics`).

use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Metric, Registry};

use super::{CacheOutcome, CallOutcome};
use crate::call::gate::audit::Event;
use crate::call::gate::tokens::TokenKind;
use crate::call::upstream::Reached;

/// The content type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The `outcome` label of a call: `success`, or its error code.
const fn outcome_label(call: CallOutcome) -> &'static str {
    match call {
        CallOutcome::Success => "success",
        CallOutcome::Failed(code) => code.as_str(),
    }
}

/// The `outcome` label of a cache lookup.
const fn cache_label(outcome: CacheOutcome) -> &'static str {
    match outcome {
        CacheOutcome::Hit => "hit",
        CacheOutcome::Revalidated => "revalidated",
        CacheOutcome::Miss => "miss",
    }
}

/// The `class` label of an upstream answer: its status class, or `no_answer`.
const fn class(reached: Reached) -> &'static str {
    match reached {
        Reached::Status(100..=199) => "1xx",
        Reached::Status(200..=299) => "2xx",
        Reached::Status(300..=399) => "3xx",
        Reached::Status(400..=499) => "4xx",
        Reached::Status(_) => "5xx",
        Reached::NoAnswer => "no_answer",
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct CallLabels {
    operation: &'static str,
    outcome: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct OperationLabels {
    operation: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ClassLabels {
    class: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct DecisionLabels {
    decision: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

/// Latency buckets: 250 µs to about 8 s, doubling.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

/// The instance's metrics and the registry that renders them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    latency: Family<OperationLabels, Histogram, fn() -> Histogram>,
    upstream: Family<ClassLabels, Counter>,
    decisions: Family<DecisionLabels, Counter>,
    issued: Family<KindLabels, Counter>,
    redeemed: Family<KindLabels, Counter>,
    cache: Family<OutcomeLabels, Counter>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("mcp_aql");
        let calls = registered(
            &mut registry,
            "calls",
            "Operations run, by operation and outcome (success or the error code)",
            Family::default(),
        );
        let latency = registered(
            &mut registry,
            "call_duration_seconds",
            "Time from a call's arguments to its answer, by operation",
            Family::new_with_constructor(latency_histogram as fn() -> Histogram),
        );
        let upstream = registered(
            &mut registry,
            "upstream_responses",
            "Upstream requests by HTTP status class, or no_answer",
            Family::default(),
        );
        let decisions = registered(
            &mut registry,
            "gate_decisions",
            "Safety gate decisions, by the audit log's event name",
            Family::default(),
        );
        let issued = registered(
            &mut registry,
            "tokens_issued",
            "Confirmation and quota continuation tokens issued",
            Family::default(),
        );
        let redeemed = registered(
            &mut registry,
            "tokens_redeemed",
            "Confirmation and quota continuation tokens redeemed",
            Family::default(),
        );
        let cache = registered(
            &mut registry,
            "cache_lookups",
            "READ answers by how the response cache served them: hit, revalidated (a 304) or miss",
            Family::default(),
        );
        Self {
            registry,
            calls,
            latency,
            upstream,
            decisions,
            issued,
            redeemed,
            cache,
        }
    }
}

/// `metric`, registered in `registry` under `name` with `help`; the registry keeps a handle
/// on the same counters.
fn registered<T: Metric + Clone>(registry: &mut Registry, name: &str, help: &str, metric: T) -> T {
    registry.register(name, help, metric.clone());
    metric
}

impl Metrics {
    /// Counts one operation (`introspect`, a schema operation, or [`UNKNOWN_OPERATION`](super::UNKNOWN_OPERATION)) and
    /// how long it took.
    pub fn call(&self, operation: &'static str, outcome: CallOutcome, elapsed: Duration) {
        self.calls
            .get_or_create(&CallLabels {
                operation,
                outcome: outcome_label(outcome),
            })
            .inc();
        self.latency
            .get_or_create(&OperationLabels { operation })
            .observe(elapsed.as_secs_f64());
    }

    /// Counts one upstream request.
    pub fn upstream(&self, reached: Reached) {
        self.upstream
            .get_or_create(&ClassLabels {
                class: class(reached),
            })
            .inc();
    }

    /// Counts one gate decision, and the token it issued or redeemed.
    pub fn decision(&self, event: Event) {
        self.decisions
            .get_or_create(&DecisionLabels {
                decision: event.as_str(),
            })
            .inc();
        let (family, kind) = match event {
            Event::ConfirmationIssued => (&self.issued, TokenKind::Confirmation),
            Event::QuotaPaused => (&self.issued, TokenKind::QuotaContinue),
            Event::TokenAccepted => (&self.redeemed, TokenKind::Confirmation),
            Event::QuotaContinued => (&self.redeemed, TokenKind::QuotaContinue),
            Event::Allowed
            | Event::Denied
            | Event::TokenRejected
            | Event::RateLimited
            | Event::QuotaExhausted
            | Event::PersonAsked
            | Event::PersonConfirmed
            | Event::PersonDeclined
            | Event::PersonUnanswered
            | Event::ChallengeSent
            | Event::ChallengePassed
            | Event::ChallengeFailed => return,
        };
        family
            .get_or_create(&KindLabels {
                kind: kind.as_str(),
            })
            .inc();
    }

    /// Counts one READ the response cache looked up.
    pub fn cache(&self, outcome: CacheOutcome) {
        self.cache
            .get_or_create(&OutcomeLabels {
                outcome: cache_label(outcome),
            })
            .inc();
    }

    /// The OpenMetrics text exposition, as Prometheus scrapes it.
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::metrics::UNKNOWN_OPERATION;
    use crate::error::ErrorCode;

    #[test]
    fn renders_every_family_with_owned_label_values() {
        let metrics = Metrics::default();
        metrics.call("get_repo", CallOutcome::Success, Duration::from_millis(3));
        metrics.call(
            UNKNOWN_OPERATION,
            CallOutcome::Failed(ErrorCode::NotFoundOperation),
            Duration::from_micros(40),
        );
        metrics.upstream(Reached::Status(404));
        metrics.upstream(Reached::NoAnswer);
        metrics.decision(Event::ConfirmationIssued);
        metrics.decision(Event::TokenAccepted);
        metrics.decision(Event::Allowed);
        metrics.cache(CacheOutcome::Revalidated);
        let text = metrics.render();
        for line in [
            r#"mcp_aql_calls_total{operation="get_repo",outcome="success"} 1"#,
            r#"mcp_aql_calls_total{operation="(unknown)",outcome="NOT_FOUND_OPERATION"} 1"#,
            r#"mcp_aql_call_duration_seconds_bucket{le="0.004",operation="get_repo"} 1"#,
            r#"mcp_aql_upstream_responses_total{class="4xx"} 1"#,
            r#"mcp_aql_upstream_responses_total{class="no_answer"} 1"#,
            r#"mcp_aql_gate_decisions_total{decision="allowed"} 1"#,
            r#"mcp_aql_tokens_issued_total{kind="confirmation"} 1"#,
            r#"mcp_aql_tokens_redeemed_total{kind="confirmation"} 1"#,
            r#"mcp_aql_cache_lookups_total{outcome="revalidated"} 1"#,
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
        assert!(text.ends_with("# EOF\n"));
    }
}
