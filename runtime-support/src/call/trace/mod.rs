//! OpenTelemetry traces of calls (`--otlp-endpoint`, off by default): one span per call of a
//! schema operation, a child span for its upstream request, exported over OTLP/HTTP as JSON
//! (see [`otlp`]).
//!
//! A call continues the trace its client gives in the request's `_meta.traceparent` (W3C
//! Trace Context, as MCP carries it), and the upstream request carries a `traceparent` naming
//! its own span, so the upstream's spans join the same trace.
//!
//! Spans hold names the adapter owns (operation, category, danger level, the gate's decision,
//! the error code, the upstream's status, whether the cache answered): never a param, a
//! body, a header value or a credential.

mod otlp;

use std::sync::Arc;
use std::time::SystemTime;

use crate::adapter::{Method, Route, ServerInfo};
use crate::digest::{hex, random_key};
pub use otlp::Exporter;

/// The header and `_meta` key of W3C Trace Context.
pub const TRACEPARENT: &str = "traceparent";
/// The vendor part of W3C Trace Context.
pub const TRACESTATE: &str = "tracestate";

/// Where a span sits: its trace, and the span it continues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parent {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    sampled: bool,
    state: Option<String>,
}

impl Parent {
    /// The context a `traceparent` (and `tracestate`) value gives; `None` for a malformed
    /// or all-zero one, which W3C says to ignore.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        let mut parts = traceparent.trim().split('-');
        let (version, trace, span, flags) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if version.len() != 2 || version == "ff" || (version == "00" && parts.next().is_some()) {
            return None;
        }
        let trace_id: [u8; 16] = unhex(trace)?;
        let span_id: [u8; 8] = unhex(span)?;
        let [flags]: [u8; 1] = unhex(flags)?;
        if trace_id == [0; 16] || span_id == [0; 8] {
            return None;
        }
        Some(Self {
            trace_id,
            span_id,
            sampled: flags & 1 == 1,
            state: tracestate
                .map(str::trim)
                .filter(|state| !state.is_empty() && state.len() <= 512)
                .map(str::to_owned),
        })
    }
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != N * 2
        || !text
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return None;
    }
    let mut bytes = [0; N];
    for (byte, pair) in bytes.iter_mut().zip(text.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(bytes)
}

/// `N` (at most 32) random bytes, from the source signing keys come from.
fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0; N];
    bytes.copy_from_slice(&random_key()[..N]);
    bytes
}

/// The adapter's tracer: where spans go, and whose they are.
#[derive(Clone)]
pub struct Tracer {
    exporter: Arc<Exporter>,
}

impl Tracer {
    /// A tracer exporting to `endpoint` (an OTLP/HTTP base URL or its `/v1/traces`) for
    /// adapter `info`.
    ///
    /// # Errors
    ///
    /// A message for the operator when the endpoint is no `http(s)` URL.
    pub fn new(endpoint: &str, info: &'static ServerInfo) -> Result<Self, String> {
        Ok(Self {
            exporter: Arc::new(Exporter::start(endpoint, info)?),
        })
    }

    /// Starts the span of one call of `route`, in the trace of `parent` when the client gave
    /// one, else in a new trace.
    pub fn start(&self, route: &'static Route, parent: Option<&Parent>) -> CallSpan {
        let (trace_id, parent_span, sampled, state) = match parent {
            Some(parent) => (
                parent.trace_id,
                Some(parent.span_id),
                parent.sampled,
                parent.state.clone(),
            ),
            None => (random(), None, true, None),
        };
        CallSpan {
            exporter: self.exporter.clone(),
            route,
            trace_id,
            span_id: random(),
            parent_span,
            sampled,
            state,
            started: SystemTime::now(),
            decision: None,
            upstream: None,
        }
    }
}

/// The span of one call, filled in as the call goes and sent when it ends.
pub struct CallSpan {
    exporter: Arc<Exporter>,
    route: &'static Route,
    trace_id: [u8; 16],
    span_id: [u8; 8],
    parent_span: Option<[u8; 8]>,
    sampled: bool,
    state: Option<String>,
    started: SystemTime,
    decision: Option<&'static str>,
    upstream: Option<UpstreamSpan>,
}

/// The child span of the upstream request.
struct UpstreamSpan {
    span_id: [u8; 8],
    method: Method,
    started: SystemTime,
    ended: Option<SystemTime>,
    status: Option<u16>,
    cache_hit: Option<bool>,
}

impl CallSpan {
    /// Notes the gate's decision: `allowed`, `preview`, or the error code it refused with.
    pub fn decided(&mut self, decision: &'static str) {
        self.decision = Some(decision);
    }

    /// Starts the upstream request's span; the `traceparent` (and `tracestate`) the request
    /// carries to the upstream.
    pub fn upstream(&mut self, method: Method) -> Vec<(&'static str, String)> {
        let span_id = random();
        self.upstream = Some(UpstreamSpan {
            span_id,
            method,
            started: SystemTime::now(),
            ended: None,
            status: None,
            cache_hit: None,
        });
        let mut headers = vec![(
            TRACEPARENT,
            format!(
                "00-{}-{}-{:02x}",
                hex(&self.trace_id),
                hex(&span_id),
                u8::from(self.sampled)
            ),
        )];
        if let Some(state) = &self.state {
            headers.push((TRACESTATE, state.clone()));
        }
        headers
    }

    /// Ends the upstream request's span: the status that came back (none when no answer
    /// came), and whether the cache answered instead (`None` without a cache).
    pub fn answered(&mut self, status: Option<u16>, cache_hit: Option<bool>) {
        if let Some(upstream) = &mut self.upstream {
            upstream.ended = Some(SystemTime::now());
            upstream.status = status;
            upstream.cache_hit = cache_hit;
        }
    }

    /// Ends the call with `outcome` (`success` or the error code) and hands its spans to the
    /// exporter, unless the client's trace is not sampled.
    pub fn end(self, outcome: &'static str) {
        if !self.sampled {
            return;
        }
        let ended = SystemTime::now();
        let route = self.route;
        let mut attributes = vec![
            otlp::attribute("mcp.method.name", "tools/call"),
            otlp::attribute("mcp_aql.operation", route.operation),
            otlp::attribute("mcp_aql.category", route.category.as_str()),
            otlp::attribute("mcp_aql.danger_level", route.danger_level.as_str()),
            otlp::attribute("mcp_aql.outcome", outcome),
        ];
        if let Some(decision) = self.decision {
            attributes.push(otlp::attribute("mcp_aql.gate.decision", decision));
        }
        let mut spans = vec![otlp::Span {
            trace_id: self.trace_id,
            span_id: self.span_id,
            parent: self.parent_span,
            state: self.state.clone(),
            name: format!("tools/call {}", route.operation),
            kind: otlp::Kind::Server,
            started: self.started,
            ended,
            attributes,
            failed: outcome != "success",
        }];
        if let Some(upstream) = self.upstream {
            let mut attributes = vec![otlp::attribute(
                "http.request.method",
                upstream.method.as_str(),
            )];
            if let Some(status) = upstream.status {
                attributes.push(otlp::int_attribute(
                    "http.response.status_code",
                    status.into(),
                ));
            }
            if let Some(hit) = upstream.cache_hit {
                attributes.push(otlp::bool_attribute("mcp_aql.cache.hit", hit));
            }
            spans.push(otlp::Span {
                trace_id: self.trace_id,
                span_id: upstream.span_id,
                parent: Some(self.span_id),
                state: self.state,
                name: upstream.method.as_str().to_owned(),
                kind: otlp::Kind::Client,
                started: upstream.started,
                ended: upstream.ended.unwrap_or(ended),
                failed: upstream.status.is_none_or(|status| status >= 400),
                attributes,
            });
        }
        self.exporter.send(spans);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_is_read_as_w3c_says() {
        let parent = Parent::parse(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            Some("rojo=00f067aa0ba902b7"),
        )
        .expect("valid");
        assert_eq!(hex(&parent.trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(hex(&parent.span_id), "00f067aa0ba902b7");
        assert!(parent.sampled);
        assert_eq!(parent.state.as_deref(), Some("rojo=00f067aa0ba902b7"));
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-xyz-00f067aa0ba902b7-01",
        ] {
            assert_eq!(Parent::parse(bad, None), None, "{bad}");
        }
        let later = Parent::parse(
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-more",
            None,
        )
        .expect("a later version's extra fields are ignored");
        assert!(!later.sampled);
    }
}
