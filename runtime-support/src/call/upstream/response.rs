//! Turning an upstream HTTP answer into `data` or an [`AqlError`].
//!
//! Follows seed universal-adapter-runtime §7.3 and §8 with these choices:
//!
//! * **Status codes** use the MCP-integration table (spec digest §3D, §10 item 6), not the
//!   error-codes algorithm: 409 is `CONFLICT_ALREADY_EXISTS` and 429 is `RATE_LIMIT_EXCEEDED`.
//!   Other 4xx are `VALIDATION_INVALID_TYPE`, 5xx are `INTERNAL_ERROR`. A 403 whose
//!   `X-RateLimit-Remaining` is `0` is a rate limit (GitHub's primary limit answers that way).
//! * **Status wins over body:** a 502 HTML page is an `INTERNAL_ERROR` about HTTP 502 whose
//!   `details.upstream_message` quotes the page's text, not a parse error. Only a 2xx body that is not JSON is a
//!   parse error. The seed's `SERIALIZATION_PARSE_ERROR` is not a registered code, so the
//!   error is `INTERNAL_ERROR` with `details.upstream_error = "SERIALIZATION_PARSE_ERROR"`.
//! * **`retry_after_seconds` is always present on 429** (spec digest §11 item 13): from
//!   `Retry-After` (seconds or an HTTP date), else from `X-RateLimit-Reset` (epoch seconds),
//!   else [`DEFAULT_RETRY_AFTER_SECONDS`]. Other statuses (typically 503) carry it only when
//!   they send `Retry-After`.
//! * **Upstream text is untrusted:** it passes through `untrusted.rs` and goes only into
//!   `details` (`upstream_message`, `body_preview`); the `message` is ours alone, so nothing
//!   the upstream says can read as a leak or an instruction there.

use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, ETAG, HeaderMap, RETRY_AFTER};
use serde_json::Value;

use super::auth::Secrets;
use super::backoff::{MAX_UPSTREAM_BLOCK, retry_after_seconds};
use super::untrusted::{is_html, preview, safe_line};
use crate::error::{AqlError, ErrorCode};
use crate::json_scan::{self, Bounds};

/// What upstream JSON may be: nested at most 64 deep, so the answer wrapped around it stays
/// well inside every parser's depth limit (serde_json's is 128); any number of values (the
/// response size limit bounds them).
const UPSTREAM_BOUNDS: Bounds = Bounds {
    max_depth: 64,
    max_values: usize::MAX,
};

/// `retry_after_seconds` when the upstream gives no hint.
pub(crate) const DEFAULT_RETRY_AFTER_SECONDS: u64 = 60;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The upstream's answer, fully read.
pub(crate) struct UpstreamResponse<'a> {
    pub status: StatusCode,
    pub headers: &'a HeaderMap,
    pub body: &'a [u8],
}

/// Maps a complete upstream answer to `data`, as compact JSON text, or an error.
pub(crate) fn interpret(
    response: &UpstreamResponse<'_>,
    secrets: &Secrets,
    now: SystemTime,
) -> Result<String, AqlError> {
    let body = response.body.strip_prefix(BOM).unwrap_or(response.body);
    if response.status.is_success() {
        return parse_success(response, body, secrets);
    }
    Err(status_error(response, body, secrets, now))
}

fn parse_success(
    response: &UpstreamResponse<'_>,
    body: &[u8],
    secrets: &Secrets,
) -> Result<String, AqlError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok("null".to_owned());
    }
    let status = response.status.as_u16();
    match json_scan::check(body, UPSTREAM_BOUNDS) {
        Ok(()) => {
            if let Some(text) = compact_json(body) {
                // An API that echoes the credential it was sent (a token-info endpoint, a
                // debug echo) must not hand it to the model, whoever's it is.
                return Ok(secrets.redact(&text));
            }
        }
        Err(fault) if !fault.is_syntax() => {
            return Err(AqlError::new(
                ErrorCode::InternalError,
                format!(
                    "Internal error: the upstream API answered HTTP {status} with JSON which \
                     strict JSON parsers refuse ({}), so it is not passed on",
                    fault.describe()
                ),
            )
            .with_detail("upstream_error", "SERIALIZATION_PARSE_ERROR")
            .with_detail("http_status", status));
        }
        Err(_) => {}
    }
    let content_type = content_type(response.headers);
    let text = std::str::from_utf8(body).ok();
    if let Some(media) = content_type.as_deref().and_then(NonJson::of) {
        return Ok(media.answer(body, secrets).to_string());
    }
    let message = match (&content_type, text) {
        (_, None) => format!(
            "Internal error: the upstream API answered HTTP {status} with binary content \
             (content type '{}') where JSON was expected",
            content_type.as_deref().unwrap_or("none")
        ),
        (Some(ct), Some(_)) if is_html(ct) => format!(
            "Internal error: the upstream API answered HTTP {status} with an HTML page \
             instead of JSON"
        ),
        (ct, Some(_)) => format!(
            "Internal error: the upstream API answered HTTP {status} with a body which is not \
             valid JSON (content type '{}')",
            ct.as_deref().unwrap_or("none")
        ),
    };
    let mut error = AqlError::new(ErrorCode::InternalError, message)
        .with_detail("upstream_error", "SERIALIZATION_PARSE_ERROR")
        .with_detail("http_status", status);
    if let Some(ct) = &content_type {
        error = error.with_detail("content_type", secrets.redact(ct));
    }
    if let Some(text) = text {
        let preview = preview(text, content_type.as_deref(), secrets);
        if !preview.is_empty() {
            error = error.with_detail("body_preview", preview);
        }
    }
    Err(error)
}

/// An answer the upstream declares to be something other than JSON or HTML: passed on as
/// text, or as base64 with its media type (SPEC §4.7.4), instead of failing. An HTML page in
/// answer to an API call is kept an error: it is nearly always a login or proxy page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NonJson<'a> {
    /// Text, XML, CSV, YAML and the like.
    Text(&'a str),
    /// Anything else: images, PDFs, archives, octet streams.
    Binary(&'a str),
}

impl<'a> NonJson<'a> {
    /// What a declared `Content-Type` makes of the answer; `None` for JSON and HTML.
    fn of(content_type: &'a str) -> Option<Self> {
        let media = content_type.split(';').next().unwrap_or_default().trim();
        let lower = media.to_ascii_lowercase();
        let json = lower == "application/json" || lower.ends_with("+json") || lower.is_empty();
        if json || is_html(&lower) {
            return None;
        }
        let textual = lower.starts_with("text/")
            || lower.ends_with("+xml")
            || [
                "application/xml",
                "application/yaml",
                "application/x-yaml",
                "application/csv",
                "application/javascript",
                "application/x-www-form-urlencoded",
                "application/x-ndjson",
            ]
            .contains(&lower.as_str());
        Some(if textual {
            Self::Text(media)
        } else {
            Self::Binary(media)
        })
    }

    /// The answer's `data`: `{"content", "mime_type"}` for UTF-8 text (secrets redacted),
    /// `{"file_content", "file_encoding": "base64", "file_mime_type"}` otherwise.
    fn answer(self, body: &[u8], secrets: &Secrets) -> Value {
        use base64::Engine as _;
        match (self, std::str::from_utf8(body)) {
            (Self::Text(media), Ok(text)) => serde_json::json!({
                "content": secrets.redact(text),
                "mime_type": media,
            }),
            (Self::Text(media) | Self::Binary(media), _) => serde_json::json!({
                "file_content": base64::engine::general_purpose::STANDARD.encode(body),
                "file_encoding": "base64",
                "file_mime_type": media,
            }),
        }
    }
}

fn status_error(
    response: &UpstreamResponse<'_>,
    body: &[u8],
    secrets: &Secrets,
    now: SystemTime,
) -> AqlError {
    let status = response.status;
    let code = status_code(status, response.headers);
    let label = match (code, status.as_u16()) {
        (ErrorCode::RateLimitExceeded, _) => "Rate limit exceeded",
        (_, 400) => "Invalid request",
        (_, 401) => "Authentication required",
        (_, 403) => "Permission denied",
        (_, 404) => "Not found",
        (_, 409) => "Conflict",
        (_, 412) => {
            "Version conflict: the resource changed since the ETag given in 'if_match' was read; read it again and retry"
        }
        (_, 422) => "Validation failed",
        (_, 502) => "Bad gateway",
        (_, 503) => "Service unavailable",
        (_, 504) => "Gateway timeout",
        (_, 500..=599) => "Server error",
        (_, 300..=399) => "Redirect to another origin not followed",
        _ => "Request failed",
    };
    let upstream_message = upstream_message(body, response.headers, secrets);
    // The upstream's own words are untrusted text: they go in `details`, never in `message`.
    let reason = status
        .canonical_reason()
        .map(|reason| format!(" {reason}"))
        .unwrap_or_default();
    let mut message = format!("{label} (upstream HTTP {}{reason})", status.as_u16());
    if upstream_message.is_some() {
        message.push_str("; the upstream's own message is in details 'upstream_message'");
    }
    let mut error = AqlError::new(code, message).with_detail("http_status", status.as_u16());
    if let Some(text) = upstream_message {
        error = error.with_detail("upstream_message", text);
    }
    if code == ErrorCode::RateLimitExceeded {
        error = rate_limit_details(error, response.headers, now);
    } else if let Some(seconds) = header_str(response.headers, RETRY_AFTER.as_str())
        .and_then(|value| retry_after_seconds(value, now))
    {
        // A 503 (or any other status) that says when to come back.
        error = error.with_detail("retry_after_seconds", seconds);
    }
    error
}

/// The `ETag` of an answer, when it is printable ASCII of sane length: it goes to the client
/// as `_etag` and comes back as `if_match`.
pub(crate) fn etag(headers: &HeaderMap) -> Option<String> {
    header_str(headers, ETAG.as_str())
        .filter(|etag| !etag.is_empty() && etag.len() <= 512)
        .filter(|etag| etag.bytes().all(|b| (0x20..0x7f).contains(&b)))
        .map(str::to_owned)
}

/// The MCP-integration status table (spec digest §3D).
fn status_code(status: StatusCode, headers: &HeaderMap) -> ErrorCode {
    match status.as_u16() {
        401 => ErrorCode::PermissionDenied,
        403 if header_str(headers, "x-ratelimit-remaining") == Some("0") => {
            ErrorCode::RateLimitExceeded
        }
        403 => ErrorCode::PermissionDenied,
        404 => ErrorCode::NotFoundResource,
        409 => ErrorCode::ConflictAlreadyExists,
        412 => ErrorCode::ConflictVersionMismatch,
        429 => ErrorCode::RateLimitExceeded,
        400..=499 => ErrorCode::ValidationInvalidType,
        // 5xx, and the 1xx/3xx that should never reach here (redirects to other origins are
        // not followed, so their 3xx arrives as is).
        _ => ErrorCode::InternalError,
    }
}

/// The upstream's own explanation: `message`, `error`, `error.message` or `errors[]` of a
/// JSON body (seed §7.3 `extractErrorMessage`), else the text of a textual body.
fn upstream_message(body: &[u8], headers: &HeaderMap, secrets: &Secrets) -> Option<String> {
    let text = std::str::from_utf8(body).ok()?;
    let extracted = match serde_json::from_str::<Value>(text) {
        Ok(json) => json_message(&json)?,
        Err(_) => preview(text, content_type(headers).as_deref(), secrets),
    };
    let safe = safe_line(&extracted, secrets);
    (!safe.is_empty()).then_some(safe)
}

fn json_message(body: &Value) -> Option<String> {
    let object = body.as_object()?;
    if let Some(message) = object.get("message").and_then(scalar_text) {
        return Some(message);
    }
    match object.get("error") {
        Some(Value::Object(error)) => {
            if let Some(message) = error.get("message").and_then(scalar_text) {
                return Some(message);
            }
        }
        Some(error) => {
            if let Some(message) = scalar_text(error) {
                return Some(message);
            }
        }
        None => {}
    }
    let errors = object.get("errors")?.as_array()?;
    let parts: Vec<String> = errors
        .iter()
        .filter_map(|item| match item {
            Value::Object(entry) => entry.get("message").and_then(scalar_text),
            other => scalar_text(other),
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// `retry_after_seconds` always; `limit` and `remaining` when the upstream sends them.
fn rate_limit_details(mut error: AqlError, headers: &HeaderMap, now: SystemTime) -> AqlError {
    let retry_after = header_str(headers, RETRY_AFTER.as_str())
        .and_then(|value| retry_after_seconds(value, now))
        .or_else(|| {
            let reset: u64 = header_str(headers, "x-ratelimit-reset")?
                .trim()
                .parse()
                .ok()?;
            let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
            Some(reset.saturating_sub(now))
        })
        .unwrap_or(DEFAULT_RETRY_AFTER_SECONDS)
        .min(MAX_UPSTREAM_BLOCK.as_secs());
    error = error.with_detail("retry_after_seconds", retry_after);
    for (header, key) in [
        ("x-ratelimit-limit", "limit"),
        ("x-ratelimit-remaining", "remaining"),
    ] {
        if let Some(value) = header_str(headers, header).and_then(|v| v.trim().parse::<u64>().ok())
        {
            error = error.with_detail(key, value);
        }
    }
    error
}

pub(crate) fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name)?.to_str().ok()
}

fn content_type(headers: &HeaderMap) -> Option<String> {
    let value = header_str(headers, CONTENT_TYPE.as_str())?;
    let clean: String = value
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    Some(clean)
}

/// `body`, already checked to be one JSON value, as compact JSON text; `None` when it is
/// not UTF-8. Keys keep the upstream's order and a large answer costs one copy.
fn compact_json(body: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(body.len());
    let (mut in_string, mut escaped) = (false, false);
    for &byte in body {
        if in_string {
            out.push(byte);
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if !byte.is_ascii_whitespace() {
            in_string = byte == b'"';
            out.push(byte);
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use reqwest::header::HeaderValue;

    use super::*;
    use crate::call::upstream::untrusted::PREVIEW_CHARS;

    fn run(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Result<Value, AqlError> {
        let text = answer(status, headers, body)?;
        Ok(serde_json::from_str(&text).expect("data is JSON text"))
    }

    fn answer(status: u16, headers: &[(&str, &str)], body: &[u8]) -> Result<String, AqlError> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.insert(
                reqwest::header::HeaderName::from_bytes(name.as_bytes()).expect("name"),
                HeaderValue::from_str(value).expect("value"),
            );
        }
        let response = UpstreamResponse {
            status: StatusCode::from_u16(status).expect("status"),
            headers: &map,
            body,
        };
        interpret(
            &response,
            &Secrets::default(),
            UNIX_EPOCH + Duration::from_secs(1_000),
        )
    }

    #[test]
    fn json_strict_parsers_refuse_is_not_passed_on() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let fits = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(answer(200, &[], fits.as_bytes()).is_ok());
        for (body, why) in [
            (deep.as_bytes(), "nesting deeper than 64 levels"),
            (br#"{"n":1e400}"#.as_slice(), "64-bit floating-point range"),
            (br#"["\ud800"]"#.as_slice(), "surrogate"),
        ] {
            let error = answer(200, &[], body).expect_err("refused");
            assert_eq!(error.details["upstream_error"], "SERIALIZATION_PARSE_ERROR");
            assert!(error.message.contains(why), "{}", error.message);
        }
    }

    #[test]
    fn no_wait_the_upstream_asks_for_is_longer_than_a_day() {
        let far = "98204510718";
        let error = answer(503, &[("retry-after", far)], b"").expect_err("503");
        assert_eq!(error.details["retry_after_seconds"], 3_600);
        let error = answer(429, &[("x-ratelimit-reset", far)], b"").expect_err("429");
        assert_eq!(error.details["retry_after_seconds"], 3_600);
    }

    #[test]
    fn success_bodies_pass_through_compacted_in_their_order() {
        let pretty = b"{\n  \"z\": \"a \\\" b\",\n  \"a\": [1, 2.50, \"\\u00e9\"]\n}\n";
        assert_eq!(
            answer(200, &[], pretty).expect("ok"),
            r#"{"z":"a \" b","a":[1,2.50,"\u00e9"]}"#
        );
        assert_eq!(answer(204, &[], b"  ").expect("ok"), "null");
        let trailing = answer(200, &[], b"{} {}").expect_err("two values");
        assert_eq!(trailing.code, ErrorCode::InternalError);
    }

    #[test]
    fn status_table() {
        let cases = [
            (400, ErrorCode::ValidationInvalidType),
            (401, ErrorCode::PermissionDenied),
            (403, ErrorCode::PermissionDenied),
            (404, ErrorCode::NotFoundResource),
            (405, ErrorCode::ValidationInvalidType),
            (409, ErrorCode::ConflictAlreadyExists),
            (412, ErrorCode::ConflictVersionMismatch),
            (410, ErrorCode::ValidationInvalidType),
            (422, ErrorCode::ValidationInvalidType),
            (429, ErrorCode::RateLimitExceeded),
            (500, ErrorCode::InternalError),
            (502, ErrorCode::InternalError),
            (503, ErrorCode::InternalError),
            (504, ErrorCode::InternalError),
            (302, ErrorCode::InternalError),
        ];
        for (status, code) in cases {
            let err = run(status, &[], b"{}").expect_err("error status");
            assert_eq!(err.code, code, "HTTP {status}");
            assert_eq!(err.details["http_status"], status, "HTTP {status}");
        }
    }

    #[test]
    fn message_extraction_table() {
        let cases: [(&str, &str); 7] = [
            (r#"{"message":"Bad credentials"}"#, "Bad credentials"),
            (r#"{"error":"invalid_grant"}"#, "invalid_grant"),
            (r#"{"error":{"message":"Nope","code":7}}"#, "Nope"),
            (r#"{"errors":[{"message":"a"},{"message":"b"}]}"#, "a; b"),
            (r#"{"errors":["x","y"]}"#, "x; y"),
            (r#"{"message":"first","error":"second"}"#, "first"),
            ("plain text reason", "plain text reason"),
        ];
        for (body, expected) in cases {
            let err = run(400, &[], body.as_bytes()).expect_err("400");
            assert_eq!(err.details["upstream_message"], expected, "{body}");
            assert_eq!(
                err.message,
                "Invalid request (upstream HTTP 400 Bad Request); the upstream's own message is \
                 in details 'upstream_message'"
            );
        }
        let err = run(404, &[], br#"{"id":1}"#).expect_err("404");
        assert_eq!(err.message, "Not found (upstream HTTP 404 Not Found)");
        assert!(!err.details.contains_key("upstream_message"));
    }

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(retry_after_seconds("120", now), Some(120));
        assert_eq!(
            retry_after_seconds("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(30)
        );
        assert_eq!(
            retry_after_seconds("Wed, 21 Oct 2015 07:20:00 GMT", now),
            Some(0)
        );
        assert_eq!(retry_after_seconds("soon", now), None);
    }

    #[test]
    fn retry_after_is_passed_on_for_other_statuses_too() {
        let err = run(503, &[("retry-after", "15")], b"").expect_err("503");
        assert_eq!(err.code, ErrorCode::InternalError);
        assert_eq!(err.details["retry_after_seconds"], 15);
        let err = run(500, &[], b"").expect_err("500");
        assert!(!err.details.contains_key("retry_after_seconds"));
    }

    #[test]
    fn rate_limit_always_carries_retry_after_seconds() {
        let err = run(429, &[], b"").expect_err("429");
        assert_eq!(
            err.details["retry_after_seconds"],
            DEFAULT_RETRY_AFTER_SECONDS
        );
        let err = run(429, &[("x-ratelimit-reset", "1030")], b"").expect_err("429");
        assert_eq!(err.details["retry_after_seconds"], 30);
        let err = run(
            403,
            &[("x-ratelimit-remaining", "0"), ("x-ratelimit-limit", "60")],
            br#"{"message":"API rate limit exceeded"}"#,
        )
        .expect_err("403");
        assert_eq!(err.code, ErrorCode::RateLimitExceeded);
        assert_eq!(err.details["limit"], 60);
        assert_eq!(err.details["remaining"], 0);
    }

    #[test]
    fn success_bodies() {
        assert_eq!(run(200, &[], b"").expect("ok"), Value::Null);
        assert_eq!(run(204, &[], b"  \n").expect("ok"), Value::Null);
        assert_eq!(run(200, &[], b"\xEF\xBB\xBF{\"a\":1}").expect("ok")["a"], 1);
        assert_eq!(run(201, &[], b"[1,2]").expect("ok")[1], 2);
    }

    #[test]
    fn unparsable_success_bodies() {
        let err = run(
            200,
            &[("content-type", "text/html; charset=utf-8")],
            b"<html><head><title>Oops</title><style>p{}</style></head><body><p>Gateway &amp; friends</p></body></html>",
        )
        .expect_err("html");
        assert_eq!(err.code, ErrorCode::InternalError);
        assert!(err.message.contains("HTML"), "{}", err.message);
        assert_eq!(err.details["upstream_error"], "SERIALIZATION_PARSE_ERROR");
        assert_eq!(err.details["content_type"], "text/html; charset=utf-8");
        assert_eq!(err.details["body_preview"], "Oops Gateway & friends");

        let err = run(200, &[("content-type", "application/json")], b"{\"trunc").expect_err("bad");
        assert!(err.message.contains("not valid JSON"), "{}", err.message);
        assert_eq!(err.details["body_preview"], "{\"trunc");

        let err = run(200, &[], b"\x89PNG\xff\xfe").expect_err("undeclared binary");
        assert!(err.message.contains("binary"), "{}", err.message);
        assert!(!err.details.contains_key("body_preview"));
    }

    #[test]
    fn declared_text_and_binary_answers_are_passed_on() {
        let png = run(200, &[("content-type", "image/png")], b"\x89PNG\xff\xfe").expect("png");
        assert_eq!(
            png,
            serde_json::json!({
                "file_content": "iVBOR//+",
                "file_encoding": "base64",
                "file_mime_type": "image/png",
            })
        );
        let csv = run(
            200,
            &[("content-type", "text/csv; charset=utf-8")],
            b"a,b\n1,2\n",
        )
        .expect("csv");
        assert_eq!(
            csv,
            serde_json::json!({"content": "a,b\n1,2\n", "mime_type": "text/csv"})
        );
    }

    #[test]
    fn upstream_text_is_cut_and_scrubbed() {
        let long = "x".repeat(1000);
        let err = run(500, &[], long.as_bytes()).expect_err("500");
        let shown = err.details["upstream_message"].as_str().expect("text");
        assert_eq!(shown.chars().count(), PREVIEW_CHARS + 1);

        let trace = "Error: boom\n    at Object.<anonymous> (/srv/app/index.js:10:5)";
        let err = run(500, &[], trace.as_bytes()).expect_err("500");
        let shown = err.details["upstream_message"].as_str().expect("text");
        assert!(!shown.contains("/srv"), "{shown}");
        assert!(shown.contains("withheld"), "{shown}");

        let html502 = b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";
        let err = run(502, &[("content-type", "text/html")], html502).expect_err("502");
        assert_eq!(err.code, ErrorCode::InternalError);
        assert_eq!(
            err.details["upstream_message"],
            "502 Bad Gateway 502 Bad Gateway nginx"
        );
    }
}
