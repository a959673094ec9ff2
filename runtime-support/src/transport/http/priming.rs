//! Event streams for clients of protocol revision 2025-06-18, which knows no priming event.
//!
//! From 2025-11-25 a server may open each event stream with an event of empty data, an id and
//! a `retry` (SEP-1699), which lets a client resume it; rmcp sends one on every stream. A
//! 2025-06-18 client takes it for a message and fails to parse its empty data (the
//! TypeScript SDK logs "Unexpected end of JSON input"), so its streams go without.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};
use axum::response::Response;
use http_body::Frame;
use rmcp::model::ProtocolVersion;

use crate::protocol::front::declared_revision;

/// How rmcp writes a priming event: empty data first.
const PRIMING: &[u8] = b"data: \n";

/// Whether a client speaking `version` wants no priming events.
pub fn unprimed(version: &str) -> bool {
    version < ProtocolVersion::V_2025_11_25.as_str()
}

/// Whether `headers` declare a revision that wants no priming events.
pub fn declared_unprimed(headers: &HeaderMap) -> bool {
    declared_revision(headers).is_some_and(unprimed)
}

/// `response`, its event stream without priming events.
pub fn strip(response: Response) -> Response {
    let stream = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.starts_with("text/event-stream"));
    if !stream {
        return response;
    }
    response.map(|body| Body::new(Unprimed(body)))
}

/// An event stream whose priming events are dropped: rmcp writes each event as one frame.
struct Unprimed(Body);

impl http_body::Body for Unprimed {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        loop {
            match ready!(Pin::new(&mut self.0).poll_frame(cx)) {
                Some(Ok(frame))
                    if frame
                        .data_ref()
                        .is_some_and(|data| data.starts_with(PRIMING)) => {}
                other => return Poll::Ready(other),
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt as _;
    use std::collections::VecDeque;

    /// Events as rmcp sends them: one frame each.
    struct Events(VecDeque<&'static str>);

    impl http_body::Body for Events {
        type Data = Bytes;
        type Error = axum::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
            let event = self.0.pop_front();
            Poll::Ready(event.map(|event| Ok(Frame::data(Bytes::from_static(event.as_bytes())))))
        }
    }

    #[tokio::test]
    async fn only_priming_events_are_dropped() {
        let events = [
            "data: \nid: 0\nretry: 3000\n\n",
            ":\n\n",
            "data: {\"jsonrpc\":\"2.0\"}\nid: 1\n\n",
        ];
        let response = Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::new(Events(events.into())))
            .expect("a response");
        let text = strip(response)
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        assert_eq!(text, ":\n\ndata: {\"jsonrpc\":\"2.0\"}\nid: 1\n\n");
        assert!(unprimed("2025-06-18") && !unprimed("2025-11-25") && !unprimed("2026-07-28"));
    }
}
