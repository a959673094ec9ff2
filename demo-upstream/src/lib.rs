//! A small in-memory HTTP server that plays the two APIs of `adapters/`: the GitHub-like API of
//! `github-adapter.md` and the todo API of `todo-adapter.md`.
//!
//! It serves the README's quick start (`demo-upstream --port 4010`) and the end-to-end tests,
//! which start it in-process, point a generated adapter at it and then read back exactly what
//! the adapter sent:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use demo_upstream::{Fault, Options, StatusCode};
//!
//! let server = demo_upstream::spawn(Options {
//!     bearer_token: Some("test-token".into()),
//!     ..Options::default()
//! })
//! .await?;
//! server.add_fault(
//!     Fault::new("/repos/octo/busy", StatusCode::TOO_MANY_REQUESTS).header("retry-after", "7"),
//! );
//! // ... point GITHUB_BASE_URL at server.base_url() and call the adapter ...
//! let sent = server.requests();
//! assert_eq!(sent[0].header("authorization"), Some("Bearer test-token"));
//! # Ok(())
//! # }
//! ```
//!
//! State lives in memory and starts from the same seed every time, so a create followed by a
//! get round-trips and tests can rely on the seed:
//!
//! - GitHub-like: users `octo` and `hubot`; `octo/hello-world` with open issue #1 (label `bug`,
//!   comment id 5), closed issue #2, open pull request #3, label `bug`, workflow runs 9
//!   (success) and 10 (failure), both completed. Errors look like GitHub's: `{"message": ...}`,
//!   422 with `errors[]`.
//! - Todo: items 1 "Buy milk", 2 "Write the report" (open) and 3 "Call the plumber"
//!   (completed), and `GET /activity?limit=&cursor=`, a cursor-paginated log of what happened
//!   to them (`{"entries": [...], "next_cursor": ...}`; four seeded entries). Errors look like
//!   `{"error": ...}`.
//!
//! Two kinds of work outlive the request that starts them, for clients that start something
//! and then poll it. Their state follows the wall-clock time since they started (no task runs
//! them), and their times are wall-clock RFC 3339 UTC, where everything else uses a logical
//! clock from 2026-01-01:
//!
//! - Jobs, behind the todo API's key and in its error shape: `POST /jobs`
//!   `{"kind", "steps"?, "step_ms"?, "fail_at"?, "start_after_ms"?}` answers 202 with
//!   `Location` and `Operation-Location: /jobs/job_<n>`; `GET /jobs/{id}` shows the state
//!   (`queued`, `running`, `succeeded`, `failed` or `canceled`) and progress;
//!   `POST /jobs/{id}/cancel` answers 202, or 409 once the job finished.
//! - GitHub workflow runs: `POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches`
//!   (204, or 200 `{"workflow_run_id", "run_url", "html_url"}` with `"return_run_details":
//!   true`) starts a run that is `queued` for 100 ms, `in_progress` until 600 ms (input
//!   `duration_ms` changes that), then `completed` with conclusion `success` (`failure` for
//!   workflow `fail.yml`); `GET .../actions/runs/{run_id}` shows it and
//!   `POST .../actions/runs/{run_id}/cancel` completes it as `cancelled` (202 `{}`, or 409 once
//!   completed). A rerun starts a new attempt the same way.
//!
//! Like GitHub, the GitHub-like list routes send a `Link` header (`rel="next"`, `"last"`,
//! `"prev"`, `"first"`, absolute URLs from the request's `Host`) when there is more than one
//! page. One repository, issue, pull request or todo comes with an `ETag: W/"..."`; a `PATCH`
//! of one, or a `DELETE` of a todo, whose `If-Match` names another version answers 412 and
//! changes nothing. A `PATCH` field sent as `null` clears it.
//!
//! With [`Options::bearer_token`] or [`Options::api_key`] unset, any credential is accepted.

mod api;
mod call;
mod github;
mod jobs;
mod todo;

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use axum::http::StatusCode;

use crate::api::Api;

/// Request bodies above this size are refused with 413 and not recorded in full.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// Chunk size of a [`Fault::streamed`] body.
const STREAM_CHUNK_BYTES: usize = 64 * 1024;

/// How to start the server.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Port on 127.0.0.1; 0 picks any free port.
    pub port: u16,
    /// When set, every GitHub-like route wants `Authorization: Bearer <token>` and answers 401
    /// `{"message": "Bad credentials"}` otherwise. When unset, any or no credential passes.
    pub bearer_token: Option<String>,
    /// When set, every todo route (`/todos...`, `/activity`, `/jobs...`) wants
    /// `X-Api-Key: <key>` and answers 401 `{"error": "..."}` otherwise. When unset, any or no
    /// key passes.
    pub api_key: Option<String>,
    /// Canned answers that replace the normal one, checked before auth and routing.
    pub faults: Vec<Fault>,
    /// Calls the GitHub-like API allows per hour (default 5000). Like GitHub, every answer of
    /// its routes carries `X-RateLimit-Limit`, `-Remaining`, `-Used` and `-Reset` (Unix
    /// seconds); past the budget it answers 403 "API rate limit exceeded" until the hour ends.
    pub github_rate_limit: Option<u64>,
    /// When set, the GitHub-like API answers about caching as GitHub does: every `GET` it
    /// answers 200 says `Cache-Control: private, max-age=60, s-maxage=60`, and a `GET` whose
    /// `If-None-Match` names the resource's current `ETag` gets 304 with no body.
    pub github_caching: bool,
    /// How long every answer waits before it is sent, as a remote API's round trip would.
    pub latency: Duration,
}

/// The GitHub-like API's hourly call budget.
#[derive(Debug)]
struct RateBudget {
    limit: u64,
    used: u64,
    /// When the hour ends, in Unix seconds.
    reset: u64,
}

impl RateBudget {
    fn new(limit: u64) -> Self {
        Self {
            limit,
            used: 0,
            reset: unix_now() + 3600,
        }
    }

    /// Counts one call; `false` when the budget was already spent.
    fn spend(&mut self) -> bool {
        let now = unix_now();
        if now >= self.reset {
            self.used = 0;
            self.reset = now + 3600;
        }
        if self.used >= self.limit {
            return false;
        }
        self.used += 1;
        true
    }

    fn headers(&self, response: &mut Response) {
        let headers = response.headers_mut();
        for (name, value) in [
            ("x-ratelimit-limit", self.limit),
            ("x-ratelimit-remaining", self.limit - self.used),
            ("x-ratelimit-used", self.used),
            ("x-ratelimit-reset", self.reset),
        ] {
            headers.insert(name, HeaderValue::from(value));
        }
        headers.insert("x-ratelimit-resource", HeaderValue::from_static("core"));
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// A canned answer for one path: the server records the request, waits `delay`, then answers
/// with `status`, `body` and `headers` instead of running the API.
#[derive(Debug, Clone)]
pub struct Fault {
    path: String,
    status: StatusCode,
    body: Bytes,
    headers: Vec<(String, String)>,
    delay: Duration,
    streamed: bool,
}

impl Fault {
    /// A fault for requests whose path (as sent, still percent-encoded, without the query) is
    /// exactly `path`, answering `status` with an empty body.
    pub fn new(path: impl Into<String>, status: StatusCode) -> Self {
        Self {
            path: path.into(),
            status,
            body: Bytes::new(),
            headers: Vec::new(),
            delay: Duration::ZERO,
            streamed: false,
        }
    }

    /// Answers with these bytes. Without a `content-type` header the answer is sent as
    /// `application/json`, whatever the bytes are.
    #[must_use]
    pub fn body(mut self, body: impl Into<Bytes>) -> Self {
        self.body = body.into();
        self
    }

    /// Adds a response header, e.g. `("retry-after", "7")` or `("content-type", "text/html")`.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits this long before answering: a slow upstream.
    #[must_use]
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sends the body in chunks with no `Content-Length`, so a client learns its size only by
    /// reading it: the case a response size cap must catch while streaming.
    #[must_use]
    pub fn streamed(mut self) -> Self {
        self.streamed = true;
        self
    }

    fn response(&self) -> Response {
        let body = if self.streamed {
            let body = self.body.clone();
            let chunks = (0..body.len())
                .step_by(STREAM_CHUNK_BYTES)
                .map(move |start| {
                    let end = body.len().min(start + STREAM_CHUNK_BYTES);
                    Ok::<_, Infallible>(body.slice(start..end))
                });
            Body::from_stream(futures_util::stream::iter(chunks))
        } else {
            Body::from(self.body.clone())
        };
        let mut response = Response::new(body);
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        for (name, value) in &self.headers {
            // A name or value HTTP cannot carry is a mistake in the test; answering without
            // that header makes the test fail on its own assertion.
            if let (Ok(name), Ok(value)) = (
                HeaderName::try_from(name.as_str()),
                HeaderValue::try_from(value.as_str()),
            ) {
                headers.append(name, value);
            }
        }
        if !headers.contains_key(header::CONTENT_TYPE) {
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
        }
        response
    }
}

/// One request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path as sent, still percent-encoded.
    pub path: String,
    /// The raw query string without `?`, if the URL had one.
    pub query: Option<String>,
    /// The body bytes (empty when there was none).
    pub body: Vec<u8>,
    /// Every header in arrival order; names are lowercase.
    pub headers: Vec<(String, String)>,
}

impl RecordedRequest {
    fn new(parts: &Parts, body: &[u8]) -> Self {
        Self {
            method: parts.method.to_string(),
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().map(str::to_owned),
            body: body.to_vec(),
            headers: parts
                .headers
                .iter()
                .map(|(name, value)| {
                    let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                    (name.as_str().to_owned(), value)
                })
                .collect(),
        }
    }

    /// The first value of the header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The decoded query pairs, in order; repeated keys appear once per value.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        let query = self.query.as_deref().unwrap_or_default();
        form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect()
    }

    /// The body parsed as JSON; `None` when it is empty or not JSON.
    pub fn body_json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

/// A server started by [`spawn`]. Dropping it stops the server.
#[derive(Debug)]
pub struct Running {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl Running {
    /// The bound address, always on 127.0.0.1.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>`, the value for `GITHUB_BASE_URL` or `TODO_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.log).clone()
    }

    /// Every request received so far, emptying the log.
    pub fn take_requests(&self) -> Vec<RecordedRequest> {
        std::mem::take(&mut *lock(&self.shared.log))
    }

    /// Adds a fault; it wins over earlier faults for the same path.
    pub fn add_fault(&self, fault: Fault) {
        lock(&self.shared.faults).insert(0, fault);
    }

    /// Removes every fault, so all paths answer normally again.
    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // The server task may already be gone with its runtime; then there is nothing to stop.
            let _ = stop.send(());
        }
    }
}

#[derive(Debug)]
struct Shared {
    bearer_token: Option<String>,
    api_key: Option<String>,
    faults: Mutex<Vec<Fault>>,
    log: Mutex<Vec<RecordedRequest>>,
    api: Mutex<Api>,
    github_budget: Mutex<RateBudget>,
    github_caching: bool,
    latency: Duration,
}

/// Binds 127.0.0.1 on `options.port` and serves in a task of the current tokio runtime until
/// the returned [`Running`] is dropped.
///
/// # Errors
///
/// Fails when the port cannot be bound.
pub async fn spawn(options: Options) -> std::io::Result<Running> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, options.port)).await?;
    let addr = listener.local_addr()?;
    let shared = Arc::new(Shared {
        bearer_token: options.bearer_token,
        api_key: options.api_key,
        faults: Mutex::new(options.faults.into_iter().rev().collect()),
        log: Mutex::new(Vec::new()),
        api: Mutex::new(Api::seeded()),
        github_budget: Mutex::new(RateBudget::new(options.github_rate_limit.unwrap_or(5000))),
        github_caching: options.github_caching,
        latency: options.latency,
    });
    let router = Router::new()
        .fallback(answer)
        .with_state(Arc::clone(&shared));
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let shutdown = async {
            // Either a stop message or the sender's drop ends the server.
            let _ = stopped.await;
        };
        if let Err(error) = axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::warn!(%error, "demo upstream stopped with an error");
        }
    });
    tracing::debug!(%addr, "demo upstream listening");
    Ok(Running {
        addr,
        shared,
        stop: Some(stop),
    })
}

async fn answer(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(body) = to_bytes(body, MAX_REQUEST_BYTES).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "request body too large").into_response();
    };
    tracing::debug!(method = %parts.method, path = parts.uri.path(), "request");
    lock(&shared.log).push(RecordedRequest::new(&parts, &body));
    if !shared.latency.is_zero() {
        tokio::time::sleep(shared.latency).await;
    }

    let fault = lock(&shared.faults)
        .iter()
        .find(|fault| fault.path == parts.uri.path())
        .cloned();
    if let Some(fault) = fault {
        tokio::time::sleep(fault.delay).await;
        return fault.response();
    }

    let credentials = api::Credentials {
        bearer_token: shared.bearer_token.as_deref(),
        api_key: shared.api_key.as_deref(),
    };
    if api::is_todo_path(parts.uri.path()) {
        return lock(&shared.api).answer(&credentials, &parts, &body);
    }
    let mut budget = lock(&shared.github_budget);
    let mut response = if budget.spend() {
        lock(&shared.api).answer(&credentials, &parts, &body)
    } else {
        (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"message":"API rate limit exceeded","documentation_url":"https://docs.github.com/rest/rate-limit"}"#,
        )
            .into_response()
    };
    budget.headers(&mut response);
    if shared.github_caching && parts.method == axum::http::Method::GET {
        response = as_github_caches(&parts, response);
    }
    response
}

/// `response` to a `GET` with GitHub's caching headers, or 304 when the request's
/// `If-None-Match` names its `ETag`.
fn as_github_caches(parts: &axum::http::request::Parts, mut response: Response) -> Response {
    if response.status() != StatusCode::OK {
        return response;
    }
    let cache_control = header::HeaderValue::from_static("private, max-age=60, s-maxage=60");
    let etag = response.headers().get(header::ETAG).cloned();
    let unchanged = etag.as_ref().is_some_and(|etag| {
        parts
            .headers
            .get(header::IF_NONE_MATCH)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|tags| {
                tags.split(',')
                    .any(|tag| tag.trim().as_bytes() == etag.as_bytes())
            })
    });
    if unchanged {
        let mut not_modified = StatusCode::NOT_MODIFIED.into_response();
        let headers = not_modified.headers_mut();
        headers.insert(header::CACHE_CONTROL, cache_control);
        if let Some(etag) = etag {
            headers.insert(header::ETAG, etag);
        }
        return not_modified;
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, cache_control);
    response
}

/// Locks `mutex`; a panic elsewhere while holding it leaves plain data behind, still usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
