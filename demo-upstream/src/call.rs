//! What both fake APIs work with: the parsed call, the reply, and small shared helpers.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value, json};

/// A request reduced to what the fake APIs look at.
pub(crate) struct Call {
    pub(crate) method: Method,
    /// Path segments, percent-decoded, without empty ones.
    pub(crate) segments: Vec<String>,
    query: Vec<(String, String)>,
    /// The query string as sent, without `?`.
    raw_query: String,
    /// The path as sent, still percent-encoded.
    path: String,
    /// `http://{Host}`; `None` without a readable `Host` header.
    origin: Option<String>,
    /// The `If-Match` header; an unreadable one is empty, so it matches nothing.
    if_match: Option<String>,
    /// The JSON body; an empty object when the request had no body.
    pub(crate) body: Map<String, Value>,
}

impl Call {
    pub(crate) fn parse(parts: &Parts, body: &[u8]) -> Result<Self, Reply> {
        let segments = parts
            .uri
            .path()
            .split('/')
            .filter(|segment| !segment.is_empty())
            .map(|segment| percent_decode_str(segment).decode_utf8_lossy().into_owned())
            .collect();
        let raw_query = parts.uri.query().unwrap_or_default().to_owned();
        let query = form_urlencoded::parse(raw_query.as_bytes())
            .into_owned()
            .collect();
        let origin = parts
            .headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .map(|host| format!("http://{host}"));
        let if_match = parts
            .headers
            .get(header::IF_MATCH)
            .map(|value| value.to_str().unwrap_or_default().to_owned());
        let body = if body.is_empty() {
            Map::new()
        } else {
            match serde_json::from_slice(body) {
                Ok(Value::Object(map)) => map,
                _ => {
                    return Err(Reply::json(
                        StatusCode::BAD_REQUEST,
                        json!({ "message": "Problems parsing JSON", "error": "body must be a JSON object" }),
                    ));
                }
            }
        };
        Ok(Self {
            method: parts.method.clone(),
            segments,
            query,
            raw_query,
            path: parts.uri.path().to_owned(),
            origin,
            if_match,
            body,
        })
    }

    /// The first query value for `name`.
    pub(crate) fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The query value for `name` as a number, or `default` when absent or not a number.
    pub(crate) fn query_number(&self, name: &str, default: u64) -> u64 {
        self.query(name)
            .and_then(|value| value.parse().ok())
            .unwrap_or(default)
    }

    /// `http://{Host}`, where this server is as the client sees it; `None` without a `Host`.
    pub(crate) fn origin(&self) -> Option<&str> {
        self.origin.as_deref()
    }

    /// The body field `name` when it is a string.
    pub(crate) fn body_str(&self, name: &str) -> Option<&str> {
        self.body.get(name).and_then(Value::as_str)
    }

    /// This request's absolute URL with the query param `name` set to `value`, in its place or
    /// appended; the other params keep their order and encoding. `None` without a `Host`.
    pub(crate) fn url_with(&self, name: &str, value: &str) -> Option<String> {
        let url = format!("{}{}", self.origin()?, self.path);
        let pair = form_urlencoded::Serializer::new(String::new())
            .append_pair(name, value)
            .finish();
        let mut pairs = Vec::new();
        let mut placed = false;
        for raw in self.raw_query.split('&').filter(|raw| !raw.is_empty()) {
            let key = form_urlencoded::parse(raw.as_bytes()).next();
            if key.is_none_or(|(key, _)| key != name) {
                pairs.push(raw);
            } else if !placed {
                pairs.push(&pair);
                placed = true;
            }
        }
        if !placed {
            pairs.push(&pair);
        }
        Some(format!("{url}?{}", pairs.join("&")))
    }

    /// Whether the request may change a resource whose ETag is `etag`: it sent no `If-Match`,
    /// or one that is `*` or lists `etag`.
    pub(crate) fn if_match(&self, etag: &str) -> bool {
        self.if_match.as_deref().is_none_or(|wanted| {
            wanted
                .split(',')
                .map(str::trim)
                .any(|tag| tag == "*" || tag == etag)
        })
    }
}

/// An answer before it becomes an HTTP response.
pub(crate) struct Reply {
    status: StatusCode,
    body: Option<Value>,
    headers: Vec<(HeaderName, String)>,
}

impl Reply {
    pub(crate) fn json(status: StatusCode, body: Value) -> Self {
        Self {
            status,
            body: Some(body),
            headers: Vec::new(),
        }
    }

    pub(crate) fn ok(body: Value) -> Self {
        Self::json(StatusCode::OK, body)
    }

    pub(crate) fn created(body: Value) -> Self {
        Self::json(StatusCode::CREATED, body)
    }

    /// 200 with one resource and its [`etag`].
    pub(crate) fn tagged(body: Value) -> Self {
        let etag = etag(&body);
        Self::ok(body).header(header::ETAG, etag)
    }

    /// A status with an empty body, like 204 No Content.
    pub(crate) fn empty(status: StatusCode) -> Self {
        Self {
            status,
            body: None,
            headers: Vec::new(),
        }
    }

    /// Adds a response header.
    pub(crate) fn header(mut self, name: HeaderName, value: String) -> Self {
        self.headers.push((name, value));
        self
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let mut response = match self.body {
            Some(body) => {
                let headers = [(header::CONTENT_TYPE, "application/json; charset=utf-8")];
                (self.status, headers, body.to_string()).into_response()
            }
            None => self.status.into_response(),
        };
        for (name, value) in self.headers {
            // Values are hex digits or URLs made of the request's own Host, path and query, so
            // they are valid; one that is not would leave its header out, not the answer.
            if let Ok(value) = HeaderValue::try_from(value) {
                response.headers_mut().append(name, value);
            }
        }
        response
    }
}

/// A weak ETag for one resource: `W/"` and 16 hex digits of a hash of its JSON text, `"`.
pub(crate) fn etag(resource: &Value) -> String {
    let mut hasher = DefaultHasher::new();
    resource.to_string().hash(&mut hasher);
    format!("W/\"{:016x}\"", hasher.finish())
}

/// Every answer carries a creation time; a logical clock keeps them distinct, ordered and the
/// same from one run to the next: tick `n` is `n` seconds after 2026-01-01T00:00:00Z. (A demo
/// stays far below the 2.6 million ticks after which the day of month would wrap.)
pub(crate) fn timestamp(tick: u64) -> String {
    let (days, seconds) = (tick / 86_400, tick % 86_400);
    format!(
        "2026-01-{:02}T{:02}:{:02}:{:02}Z",
        1 + days % 31,
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// `time` in RFC 3339, UTC, to the second, as GitHub writes times: `2026-03-01T09:30:05Z`.
/// Unlike [`timestamp`], a wall-clock time: for things that change as time passes.
pub(crate) fn utc_seconds(time: SystemTime) -> String {
    let millis = unix_millis(time);
    format!("{}Z", utc(millis / 1000))
}

/// `time` in RFC 3339, UTC, to the millisecond: `2026-03-01T09:30:05.250Z`.
pub(crate) fn utc_millis(time: SystemTime) -> String {
    let millis = unix_millis(time);
    format!("{}.{:03}Z", utc(millis / 1000), millis % 1000)
}

/// Milliseconds since the Unix epoch; 0 for a time before it.
fn unix_millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    })
}

/// `YYYY-MM-DDTHH:MM:SS` of `seconds` since the Unix epoch, by Howard Hinnant's
/// `civil_from_days` (proleptic Gregorian calendar).
fn utc(seconds: u64) -> String {
    let (days, second_of_day) = (seconds / 86_400, seconds % 86_400);
    let shifted = days + 719_468; // days since 0000-03-01
    let era = shifted / 146_097;
    let day_of_era = shifted % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

/// Splits `items` into pages of `per_page` and returns page `page` (1-based).
pub(crate) fn page_of(items: Vec<Value>, page: u64, per_page: u64) -> Vec<Value> {
    let skip = page.saturating_sub(1).saturating_mul(per_page);
    items
        .into_iter()
        .skip(usize::try_from(skip).unwrap_or(usize::MAX))
        .take(usize::try_from(per_page).unwrap_or(usize::MAX))
        .collect()
}

/// Copies the fields of `changes` named in `allowed` onto `target`; others are ignored, as
/// GitHub ignores them. A field sent as `null` is stored as `null`: cleared, as in JSON merge
/// patch (RFC 7396), not left as it was.
pub(crate) fn apply(target: &mut Value, changes: &Map<String, Value>, allowed: &[&str]) {
    if let Some(target) = target.as_object_mut() {
        for name in allowed {
            if let Some(value) = changes.get(*name) {
                target.insert((*name).to_owned(), value.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn wall_clock_times_are_rfc_3339_utc() {
        let at = |millis| UNIX_EPOCH + Duration::from_millis(millis);
        assert_eq!(utc_seconds(at(0)), "1970-01-01T00:00:00Z");
        assert_eq!(utc_millis(at(951_782_400_007)), "2000-02-29T00:00:00.007Z");
        assert_eq!(utc_seconds(at(1_772_358_605_250)), "2026-03-01T09:50:05Z");
        assert_eq!(
            utc_millis(at(1_798_761_599_999)),
            "2026-12-31T23:59:59.999Z"
        );
    }
}
