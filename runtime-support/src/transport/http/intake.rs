//! The streamable HTTP transport's front: every POST body read under a byte cap and a
//! deadline, judged, and answered here when broken; new sessions refused at the cap.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use rmcp::model::{CallToolRequestMethod, ClientJsonRpcMessage, ClientRequest, ConstString};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::authorize::Authorizer;
use super::idle::{self, Activity};
use crate::call::Principal;
use crate::json_scan::Scanner;
use crate::protocol::front::{CarriedArguments, is_stateless_revision};
use crate::transport::frame::{
    FrameLimits, PlainCall, Reply, RpcCode, Verdict, judge, judge_oversize,
};

/// Most bytes of an oversize body read and dropped before the connection is closed instead.
const MAX_DRAINED: usize = 64 * 1024 * 1024;

/// Seconds a client refused for capacity is told to wait.
pub const RETRY_AFTER_SECONDS: u64 = 5;

/// What the front of the HTTP transport needs.
pub struct HttpIntake {
    /// The resource server every request's access token is checked by, when the operator
    /// configured one.
    pub authorizer: Option<Arc<Authorizer>>,
    pub limits: FrameLimits,
    pub sessions: Arc<LocalSessionManager>,
    pub max_sessions: usize,
    pub body_timeout: Duration,
    /// Held while a session opens, so the cap is not overrun by a burst of `initialize`.
    pub opening: tokio::sync::Mutex<()>,
    /// When each session was last heard from, and its requests in flight.
    pub activity: Arc<Activity>,
}

enum Received {
    Whole(Vec<u8>),
    Oversize(Box<Scanner>),
}

/// Axum middleware in front of rmcp's streamable HTTP service: screens the request, and
/// keeps its session from going idle until its answer has been sent.
pub async fn guard(
    State(intake): State<Arc<HttpIntake>>,
    request: Request,
    next: Next,
) -> Response {
    let session = request
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let busy = match (session, request.method()) {
        (Some(id), &Method::POST) => Some(intake.activity.begin(&id)),
        (Some(id), _) => {
            intake.activity.touch(&id);
            None
        }
        (None, _) => None,
    };
    let response = screen(&intake, request, next).await;
    // A session just opened counts from its first answer.
    if let Some(opened) = response
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|value| value.to_str().ok())
    {
        intake.activity.touch(opened);
    }
    match busy {
        Some(busy) => response.map(|body| idle::hold(body, busy)),
        None => response,
    }
}

/// Screens one request before rmcp sees it: bodies read under the caps and judged, broken
/// ones answered here, sessions refused at the cap.
async fn screen(intake: &HttpIntake, mut request: Request, next: Next) -> Response {
    if let Some(authorizer) = &intake.authorizer
        && request.method() != Method::OPTIONS
    {
        match authorizer.authenticate(request.headers()).await {
            Ok(principal) => {
                request.extensions_mut().insert(principal);
            }
            Err(challenge) => return challenge,
        }
    }
    if request.method() == Method::DELETE {
        if !session_is_open(intake, request.headers()).await {
            // rmcp answers 202 whatever the id; the transport spec wants 404 for a session
            // the server does not know (or no longer knows), so a client knows to start over.
            return (StatusCode::NOT_FOUND, "Not Found: no such session").into_response();
        }
        // The session is ended when rmcp answers: 200, which clients take for done (the
        // Python SDK logs "Session termination failed" for rmcp's 202).
        let mut response = next.run(request).await;
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::OK;
        }
        return response;
    }
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let limits = &intake.limits;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<usize>().ok());
    let (parts, body) = request.into_parts();
    let capacity = declared.unwrap_or(0).min(limits.max_bytes);
    let read = read(body, limits, capacity);
    let body = match tokio::time::timeout(intake.body_timeout, read).await {
        Ok(Ok(body)) => body,
        Ok(Err(())) => {
            let reply = Reply::error(
                None,
                RpcCode::InvalidRequest,
                "Invalid request: the request body could not be read",
            );
            return respond(StatusCode::BAD_REQUEST, Verdict::Reply(reply));
        }
        Err(_) => {
            let reply = Reply::error(
                None,
                RpcCode::InvalidRequest,
                format!(
                    "Request timeout: the body did not arrive within {} s",
                    intake.body_timeout.as_secs()
                ),
            );
            return respond(StatusCode::REQUEST_TIMEOUT, Verdict::Reply(reply));
        }
    };
    let bytes = match body {
        Received::Whole(bytes) => bytes,
        Received::Oversize(scanner) => {
            let verdict = judge_oversize(scanner.top(), limits, declared);
            return respond(StatusCode::PAYLOAD_TOO_LARGE, verdict);
        }
    };
    // The id of an `initialize`, which opens a session.
    let opening = match judge(&bytes, limits) {
        Verdict::Call(call) => {
            if let (Some(authorizer), Some(principal), Some(arguments)) = (
                &intake.authorizer,
                parts.extensions.get::<Principal>(),
                &call.params.arguments,
            ) && let Some(step_up) = authorizer.step_up(principal, arguments)
            {
                return step_up;
            }
            drop(bytes);
            let (parts, body) = carry(parts, call);
            return next.run(Request::from_parts(parts, body)).await;
        }
        Verdict::Pass(message) => match *message {
            ClientJsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::InitializeRequest(_)) =>
            {
                let id = serde_json::to_string(&request.id).ok();
                if is_stateless_revision(&parts.headers) {
                    // 2026-07-28 has no handshake: its clients discover with server/discover.
                    let reply = Reply::error(
                        id,
                        RpcCode::MethodNotFound,
                        "Method not found: 'initialize' is not part of protocol revision 2026-07-28; use 'server/discover'",
                    );
                    return respond(StatusCode::NOT_FOUND, Verdict::Reply(reply));
                }
                id
            }
            _ => None,
        },
        verdict => return respond(StatusCode::BAD_REQUEST, verdict),
    };
    let request = Request::from_parts(parts, Body::from(bytes));
    let Some(id) = opening else {
        return next.run(request).await;
    };
    let _opening = intake.opening.lock().await;
    let open = intake.sessions.sessions.read().await.len();
    if open >= intake.max_sessions {
        tracing::warn!(open, "refused a new session: the session cap is reached");
        let reply = Reply::error(
            Some(id),
            RpcCode::ServerBusy,
            format!(
                "Server busy: {open} sessions are open, the most this server allows; retry in {RETRY_AFTER_SECONDS} s or end an idle session"
            ),
        );
        let mut response = respond(StatusCode::SERVICE_UNAVAILABLE, Verdict::Reply(reply));
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
        return response;
    }
    next.run(request).await
}

/// Whether a DELETE names an open session; one without a session id is left to rmcp, which
/// answers it 400.
async fn session_is_open(intake: &HttpIntake, headers: &HeaderMap) -> bool {
    let Some(id) = headers
        .get(HEADER_SESSION_ID)
        .and_then(|value| value.to_str().ok())
    else {
        return true;
    };
    intake.sessions.sessions.read().await.contains_key(id)
}

/// The request rmcp gets for a plain call: its arguments in the extensions, a body without.
fn carry(
    mut parts: axum::http::request::Parts,
    call: PlainCall,
) -> (axum::http::request::Parts, Body) {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": call.id,
        "method": CallToolRequestMethod::VALUE,
        "params": {"name": call.params.name},
    });
    if let Some(arguments) = call.params.arguments {
        parts.extensions.insert(CarriedArguments::new(arguments));
    }
    (parts, Body::from(body.to_string()))
}

/// Reads a body, keeping at most `limits.max_bytes`; past that, what was read is scanned for
/// its id and reading stops. (An oversize `Content-Length` is read this far too, so that the
/// answer can carry the id.)
async fn read(mut body: Body, limits: &FrameLimits, capacity: usize) -> Result<Received, ()> {
    let mut kept = Vec::with_capacity(capacity);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| tracing::debug!(%error, "request body failed"))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if kept.len() + data.len() > limits.max_bytes {
            let mut scanner = Box::new(Scanner::new(limits.bounds));
            scanner.feed(&kept);
            scanner.feed(&data);
            drain(body, kept.len() + data.len()).await;
            return Ok(Received::Oversize(scanner));
        }
        kept.extend_from_slice(&data);
    }
    Ok(Received::Whole(kept))
}

/// Reads the rest of an oversize body without keeping it, up to [`MAX_DRAINED`] bytes, so the
/// client, still sending, gets to read the answer.
async fn drain(mut body: Body, mut read: usize) {
    while read <= MAX_DRAINED
        && let Some(Ok(frame)) = body.frame().await
    {
        read += frame.data_ref().map_or(0, |data| data.len());
    }
}

/// The HTTP answer for a verdict made here. A request answered by its id gets 200 with the
/// JSON-RPC error (the client matches it like any answer); the rest get `status`.
fn respond(status: StatusCode, verdict: Verdict) -> Response {
    let reply = match verdict {
        Verdict::Reply(reply) => reply,
        Verdict::Ignore(why) => Reply::error(None, RpcCode::InvalidRequest, why),
        Verdict::Pass(_) | Verdict::Call(_) => {
            Reply::error(None, RpcCode::InvalidRequest, "Invalid request")
        }
    };
    // A request that is a request, with params its method cannot take, is answered like
    // any other (200, the error in the body); one that is no valid JSON-RPC 2.0 request at
    // all gets 400 (JSON-RPC 2.0 §5.1 over HTTP).
    let status = match (&reply.id, reply.code()) {
        (Some(_), Some(RpcCode::InvalidParams)) | (Some(_), None)
            if status == StatusCode::BAD_REQUEST =>
        {
            StatusCode::OK
        }
        _ => status,
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        reply.to_json(),
    )
        .into_response()
}
