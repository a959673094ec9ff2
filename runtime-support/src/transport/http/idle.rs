//! Which HTTP sessions are idle: no request for the idle timeout and none in flight. rmcp's
//! own keep-alive counts only the events it sees, so a call that waits on a slow upstream
//! longer than the timeout lost its session, and its answer, half way; here a request holds
//! its session open until its answer has been sent.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::sync::Unpoisoned as _;
use axum::body::Body;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

/// When each session was last heard from, and how many of its requests are being answered.
#[derive(Debug, Default)]
pub struct Activity {
    sessions: Mutex<HashMap<String, Seen>>,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    last: Instant,
    in_flight: usize,
}

impl Activity {
    /// Notes a request of session `id`.
    pub fn touch(&self, id: &str) {
        self.sessions
            .locked()
            .entry(id.to_owned())
            .and_modify(|seen| seen.last = Instant::now())
            .or_insert(Seen {
                last: Instant::now(),
                in_flight: 0,
            });
    }

    /// A request of session `id` whose answer is on its way: the session is not idle until
    /// the guard is dropped.
    pub fn begin(self: &Arc<Self>, id: &str) -> InFlight {
        self.touch(id);
        if let Some(seen) = self.sessions.locked().get_mut(id) {
            seen.in_flight += 1;
        }
        InFlight {
            activity: self.clone(),
            id: id.to_owned(),
        }
    }

    /// Whether session `id` has had no request for `timeout` and has none in flight; a
    /// session never heard from counts from when it is first asked about.
    fn idle(&self, id: &str, timeout: Duration, now: Instant) -> bool {
        let mut sessions = self.sessions.locked();
        let seen = sessions.entry(id.to_owned()).or_insert(Seen {
            last: now,
            in_flight: 0,
        });
        seen.in_flight == 0 && now.duration_since(seen.last) >= timeout
    }

    fn forget(&self, id: &str) {
        self.sessions.locked().remove(id);
    }
}

/// One request being answered; see [`Activity::begin`].
#[derive(Debug)]
pub struct InFlight {
    activity: Arc<Activity>,
    id: String,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(seen) = self.activity.sessions.locked().get_mut(&self.id) {
            seen.in_flight = seen.in_flight.saturating_sub(1);
            seen.last = Instant::now();
        }
    }
}

/// `body` that keeps `guard` until it has been sent to the end (or dropped): an event
/// stream's answer comes after its headers.
pub fn hold(body: Body, guard: InFlight) -> Body {
    Body::new(Held {
        body,
        _guard: guard,
    })
}

struct Held {
    body: Body,
    _guard: InFlight,
}

impl http_body::Body for Held {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Ends every session of `sessions` idle for `timeout`, until `stop`.
pub async fn reap(
    sessions: Arc<LocalSessionManager>,
    activity: Arc<Activity>,
    timeout: Duration,
    stop: CancellationToken,
) {
    // A session is ended within a second of its timeout.
    let tick = (timeout / 10).clamp(Duration::from_millis(50), Duration::from_secs(1));
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(tick) => {}
        }
        let open: Vec<String> = sessions
            .sessions
            .read()
            .await
            .keys()
            .map(|id| id.to_string())
            .collect();
        let now = Instant::now();
        for id in open {
            if activity.idle(&id, timeout, now) {
                tracing::debug!(session = %id, "ended an idle session");
                let _ = sessions.close_session(&id.clone().into()).await;
                activity.forget(&id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_in_flight_keeps_its_session() {
        let activity = Arc::new(Activity::default());
        let timeout = Duration::from_millis(20);
        let busy = activity.begin("s1");
        activity.touch("s2");
        std::thread::sleep(Duration::from_millis(30));
        let now = Instant::now();
        assert!(!activity.idle("s1", timeout, now), "in flight");
        assert!(activity.idle("s2", timeout, now), "idle");
        drop(busy);
        assert!(
            !activity.idle("s1", timeout, Instant::now()),
            "just answered"
        );
        std::thread::sleep(Duration::from_millis(30));
        assert!(activity.idle("s1", timeout, Instant::now()));
    }
}
