//! Auth and the dispatch between the two fake APIs.

use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;
use serde_json::json;

use crate::call::{Call, Reply};
use crate::github::Github;
use crate::jobs::Jobs;
use crate::todo::Todos;

/// The credentials the server wants; `None` accepts anything.
pub(crate) struct Credentials<'a> {
    pub(crate) bearer_token: Option<&'a str>,
    pub(crate) api_key: Option<&'a str>,
}

/// The state of both APIs.
#[derive(Debug)]
pub(crate) struct Api {
    github: Github,
    todos: Todos,
    /// Behind the todo API's key, with its error shape.
    jobs: Jobs,
}

impl Api {
    pub(crate) fn seeded() -> Self {
        Self {
            github: Github::seeded(),
            todos: Todos::seeded(),
            jobs: Jobs::default(),
        }
    }

    /// Checks auth for the API the path belongs to, then lets that API answer.
    pub(crate) fn answer(
        &mut self,
        credentials: &Credentials<'_>,
        parts: &Parts,
        body: &[u8],
    ) -> Response {
        let call = match Call::parse(parts, body) {
            Ok(call) => call,
            Err(reply) => return reply.into_response(),
        };
        let segments: Vec<&str> = call.segments.iter().map(String::as_str).collect();
        let reply = if is_todo_path(parts.uri.path()) {
            let sent = parts.headers.get("x-api-key").map(HeaderValue::as_bytes);
            match credentials.api_key {
                Some(key) if sent != Some(key.as_bytes()) => Reply::json(
                    StatusCode::UNAUTHORIZED,
                    json!({ "error": "missing or invalid API key" }),
                ),
                _ => match segments.as_slice() {
                    ["jobs", rest @ ..] => self.jobs.answer(&call, rest),
                    _ => self.todos.answer(&call, &segments),
                },
            }
        } else {
            let sent = parts
                .headers
                .get(header::AUTHORIZATION)
                .map(HeaderValue::as_bytes);
            match credentials.bearer_token {
                Some(token) if sent != Some(format!("Bearer {token}").as_bytes()) => Reply::json(
                    StatusCode::UNAUTHORIZED,
                    json!({
                        "message": "Bad credentials",
                        "documentation_url": "https://docs.github.com/rest",
                    }),
                ),
                _ => self.github.answer(&call, &segments),
            }
        };
        reply.into_response()
    }
}

/// Whether `path` (as sent, still percent-encoded) belongs to the todo API rather than the
/// GitHub-like one: its first segment decodes to `todos`, `activity` or `jobs`.
pub(crate) fn is_todo_path(path: &str) -> bool {
    let first = path.split('/').find(|segment| !segment.is_empty());
    first.is_some_and(|segment| {
        matches!(
            &*percent_decode_str(segment).decode_utf8_lossy(),
            "todos" | "activity" | "jobs"
        )
    })
}
