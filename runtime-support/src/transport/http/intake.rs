//! The streamable HTTP transport's front: every POST body read under a byte cap and a
//! deadline, judged, and answered here when broken; new sessions refused at the cap; every
//! request on a session held to the caller who opened it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use rmcp::model::{
    CallToolRequestMethod, ClientJsonRpcMessage, ClientRequest, ConstString, ProtocolVersion,
};
use rmcp::transport::common::http_header::HEADER_SESSION_ID;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use super::authorize::Authorizer;
use super::idle::{self, Activity};
use super::origins::{self, Admission, Origins};
use super::priming;
use crate::call::Principal;
use crate::json_scan::Scanner;
use crate::protocol::front::{CarriedArguments, PROTOCOL_VERSION_HEADER, is_stateless_revision};
use crate::protocol::server::SUPPORTED_VERSIONS;
use crate::protocol::session::requester;
use crate::sync::Unpoisoned as _;
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
    /// The header whose value is each request's upstream credential, when the operator asks
    /// callers to bring theirs: part of who a caller is.
    pub credential_header: Option<String>,
    /// Who opened each session ([`requester`]): only they may use it.
    pub owners: std::sync::Mutex<HashMap<String, String>>,
    /// Where requests may come from; CORS for the operator's origins.
    pub origins: Origins,
}

impl HttpIntake {
    /// Whether `requester` may use session `id`: the one who opened it, or anyone for a
    /// session this front did not see open (rmcp answers an unknown one).
    fn admits(&self, id: &str, requester: &str) -> bool {
        self.owners
            .locked()
            .get(id)
            .is_none_or(|owner| owner == requester)
    }

    /// Notes that `requester` opened session `id`, and forgets the owners of sessions that
    /// ended since.
    async fn opened(&self, id: &str, requester: String) {
        let open: Vec<Arc<str>> = self
            .sessions
            .sessions
            .read()
            .await
            .keys()
            .cloned()
            .collect();
        let mut owners = self.owners.locked();
        owners.retain(|session, _| open.iter().any(|open| **open == **session));
        owners.insert(id.to_owned(), requester);
    }
}

/// The answer for a session that is not the requester's: the one rmcp gives a session it
/// does not know, so that holding an id tells nothing of whether it is live.
fn no_such_session() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

enum Received {
    Whole(Vec<u8>),
    Oversize(Box<Scanner>),
}

/// Axum middleware in front of rmcp's streamable HTTP service: judges where the request
/// comes from, screens it, and keeps its session from going idle until its answer has been
/// sent.
pub async fn guard(
    State(intake): State<Arc<HttpIntake>>,
    request: Request,
    next: Next,
) -> Response {
    let cors = match intake.origins.admit(&request) {
        Admission::Answered(response) => return response,
        Admission::Served(cors) => cors,
    };
    let mut response = held(&intake, request, next).await;
    if let Some(origin) = cors {
        origins::allow(origin, &mut response);
    }
    response
}

/// Screens `request` and holds its session busy while its answer is sent.
async fn held(intake: &HttpIntake, mut request: Request, next: Next) -> Response {
    let requester = match identify(intake, &mut request).await {
        Ok(requester) => requester,
        Err(refusal) => return refusal,
    };
    let unprimed = priming::declared_unprimed(request.headers());
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
    let mut response = screen(intake, request, requester, next).await;
    if unprimed {
        response = priming::strip(response);
    }
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

/// Who sent `request` ([`requester`]), its access token checked first behind an
/// authorization server; refused when it names a session another caller opened, before
/// anything of that session is touched.
async fn identify(intake: &HttpIntake, request: &mut Request) -> Result<String, Response> {
    if let Some(authorizer) = &intake.authorizer
        && request.method() != Method::OPTIONS
    {
        let principal = authorizer.authenticate(request.headers()).await?;
        request.extensions_mut().insert(principal);
    }
    let requester = requester(
        request.headers(),
        request.extensions().get::<Principal>(),
        intake.credential_header.as_deref(),
    );
    if let Some(id) = request
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|value| value.to_str().ok())
        && !intake.admits(id, &requester)
    {
        tracing::warn!("refused a request on a session another caller opened");
        return Err(no_such_session());
    }
    Ok(requester)
}

/// Screens one request before rmcp sees it: bodies read under the caps and judged, broken
/// ones answered here, sessions refused at the cap.
async fn screen(intake: &HttpIntake, request: Request, requester: String, next: Next) -> Response {
    if let Some(refusal) = unsupported_revision(request.headers()) {
        return refusal;
    }
    if request.method() == Method::DELETE {
        if !session_is_open(intake, request.headers()).await {
            // rmcp answers 202 whatever the id; the transport spec wants 404 for a session
            // the server does not know (or no longer knows), so a client knows to start over.
            return no_such_session();
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
    let opening = match judge(&bytes, limits, is_stateless_revision(&parts.headers)) {
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
            ClientJsonRpcMessage::Request(request) => match &request.request {
                ClientRequest::InitializeRequest(initialize) => Some((
                    serde_json::to_string(&request.id).ok(),
                    priming::unprimed(initialize.params.protocol_version.as_str()),
                )),
                _ => None,
            },
            _ => None,
        },
        verdict => return respond(StatusCode::BAD_REQUEST, verdict),
    };
    let request = Request::from_parts(parts, Body::from(bytes));
    let Some((id, unprimed)) = opening else {
        return next.run(request).await;
    };
    let _opening = intake.opening.lock().await;
    let open = intake.sessions.sessions.read().await.len();
    if open >= intake.max_sessions {
        tracing::warn!(open, "refused a new session: the session cap is reached");
        let reply = Reply::error(
            id,
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
    let response = next.run(request).await;
    if let Some(opened) = response
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|value| value.to_str().ok())
    {
        intake.opened(opened, requester).await;
    }
    if unprimed {
        return priming::strip(response);
    }
    response
}

/// The 400 for a request on a session that declares a protocol revision this server does not
/// speak (the transport spec: an unsupported `MCP-Protocol-Version` is a bad request).
/// Requests outside a session are left to rmcp, which answers an unknown revision itself.
fn unsupported_revision(headers: &HeaderMap) -> Option<Response> {
    headers.get(HEADER_SESSION_ID)?;
    let declared = headers.get(PROTOCOL_VERSION_HEADER)?;
    let spoken = declared.to_str().is_ok_and(|declared| {
        SUPPORTED_VERSIONS
            .iter()
            .any(|version| version.as_str() == declared)
    });
    if spoken {
        return None;
    }
    tracing::info!(
        "refused a request on a session declaring a protocol revision this server does not speak"
    );
    let supported: Vec<&str> = SUPPORTED_VERSIONS
        .iter()
        .map(ProtocolVersion::as_str)
        .collect();
    let message = format!(
        "Bad Request: Unsupported MCP-Protocol-Version: {}; this server speaks {}",
        crate::text::shorten(&String::from_utf8_lossy(declared.as_bytes()), 40),
        supported.join(", ")
    );
    Some((StatusCode::BAD_REQUEST, message).into_response())
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
    // all gets 400 (JSON-RPC 2.0 §5.1 over HTTP); a method its revision does not have, 404.
    let status = match (&reply.id, reply.code()) {
        (_, Some(RpcCode::MethodNotFound)) => StatusCode::NOT_FOUND,
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
