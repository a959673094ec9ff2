//! Where a request to `/mcp` may come from, judged before anything else reads it.
//!
//! * One `Host` header and at most one `Origin` (RFC 9112 §3.2: a request with two `Host`
//!   headers is answered 400, whatever the first says).
//! * Bound to loopback, the `Host` must be a loopback name (DNS rebinding); bound beyond,
//!   the names are the deployment's and are left to its proxy.
//! * A request with an `Origin` is served only from a loopback page or an origin the operator
//!   listed (`--allowed-origin`); any other gets 403, whatever it asks for.
//! * Listed origins get CORS, so that a page there can call the server from a browser: a
//!   preflight is answered here, and every answer names the origin and exposes the headers a
//!   client reads (`Mcp-Session-Id` among them). Loopback pages and other origins get no CORS
//!   headers: the server is theirs to reach, not to read from a browser.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Host names a loopback server answers to.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// What a browser may send to a listed origin's server, beyond the simple headers.
const ALLOWED_HEADERS: &str =
    "authorization, content-type, accept, last-event-id, mcp-session-id, mcp-protocol-version";

/// What a page may read of an answer.
const EXPOSED_HEADERS: &str = "mcp-session-id, mcp-protocol-version, www-authenticate, retry-after";

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: &str = "600";

/// The operator's origins and whether `Host` is checked.
pub struct Origins {
    listed: Vec<Pattern>,
    check_host: bool,
    /// [`ALLOWED_HEADERS`] and the operator's credential header.
    allowed_headers: HeaderValue,
}

/// What becomes of a request.
pub enum Admission {
    /// Answered here: refused, or a preflight.
    Answered(Response),
    /// Served; the CORS origin to name in its answer, for a listed origin.
    Served(Option<HeaderValue>),
}

/// An origin the operator listed: `scheme://host:port`, or any port for `scheme://host:*`.
#[derive(Debug, PartialEq, Eq)]
struct Pattern {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origins {
    /// The origins `listed` (as `--allowed-origin` normalizes them), the `Host` checked when
    /// `loopback`, browsers allowed to send `credential_header`.
    pub fn new(listed: &[String], loopback: bool, credential_header: Option<&str>) -> Self {
        let mut allowed = ALLOWED_HEADERS.to_owned();
        if let Some(name) = credential_header
            && !allowed
                .split(", ")
                .any(|known| known.eq_ignore_ascii_case(name))
        {
            allowed.push_str(", ");
            allowed.push_str(&name.to_ascii_lowercase());
        }
        Self {
            listed: listed
                .iter()
                .filter_map(|text| Pattern::parse(text))
                .collect(),
            check_host: loopback,
            allowed_headers: HeaderValue::from_str(&allowed)
                .unwrap_or(HeaderValue::from_static(ALLOWED_HEADERS)),
        }
    }

    /// Judges where `request` comes from.
    pub fn admit(&self, request: &Request) -> Admission {
        let headers = request.headers();
        for name in [header::HOST, header::ORIGIN] {
            if repeated(headers, &name) {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    format!("Bad Request: more than one {name} header"),
                );
            }
        }
        if self.check_host && !loopback_host(request) {
            tracing::warn!("refused a request whose Host is no loopback name (DNS rebinding?)");
            return refuse(
                StatusCode::FORBIDDEN,
                "Forbidden: Host header is not allowed",
            );
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Admission::Served(None);
        };
        let parsed = origin.to_str().ok().and_then(parse_origin);
        let listed = parsed
            .as_ref()
            .is_some_and(|origin| self.listed.iter().any(|pattern| pattern.matches(origin)));
        if !listed && !parsed.as_ref().is_some_and(is_loopback) {
            tracing::warn!("refused a request from an origin not allowed (cross-origin?)");
            return refuse(
                StatusCode::FORBIDDEN,
                "Forbidden: Origin header is not allowed",
            );
        }
        if !listed {
            return Admission::Served(None);
        }
        if request.method() == Method::OPTIONS
            && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
        {
            return Admission::Answered(self.preflight(origin.clone()));
        }
        Admission::Served(Some(origin.clone()))
    }

    fn preflight(&self, origin: HeaderValue) -> Response {
        let mut response = StatusCode::NO_CONTENT.into_response();
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, DELETE"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            self.allowed_headers.clone(),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(PREFLIGHT_MAX_AGE),
        );
        headers.insert(header::VARY, HeaderValue::from_static("origin"));
        response
    }
}

/// Names `origin` in `response`'s CORS headers.
pub fn allow(origin: HeaderValue, response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
    headers.append(header::VARY, HeaderValue::from_static("origin"));
}

fn refuse(status: StatusCode, message: impl Into<String>) -> Admission {
    Admission::Answered((status, message.into()).into_response())
}

/// Whether the request names a loopback host: its `Host`, or HTTP/2's `:authority`.
fn loopback_host(request: &Request) -> bool {
    let authority = match request.headers().get(header::HOST) {
        Some(value) => value
            .to_str()
            .ok()
            .and_then(|text| http::uri::Authority::try_from(text).ok()),
        None => request.uri().authority().cloned(),
    };
    authority.is_some_and(|authority| {
        LOOPBACK_HOSTS
            .iter()
            .any(|host| authority.host().eq_ignore_ascii_case(host))
    })
}

/// An `Origin` value's scheme, host and port (the scheme's default when it names none);
/// `None` for `null` and anything that is no origin.
fn parse_origin(text: &str) -> Option<(String, String, u16)> {
    let url = url::Url::parse(text).ok()?;
    let port = url.port_or_known_default()?;
    let host = url.host_str()?.to_ascii_lowercase();
    matches!(url.scheme(), "http" | "https").then(|| (url.scheme().to_owned(), host, port))
}

fn is_loopback((_, host, _): &(String, String, u16)) -> bool {
    LOOPBACK_HOSTS.contains(&host.as_str())
}

impl Pattern {
    /// Parses `scheme://host:port` or `scheme://host:*`, as `--allowed-origin` leaves them.
    fn parse(text: &str) -> Option<Self> {
        let (base, port) = match text.strip_suffix(":*") {
            Some(base) => (base, None),
            None => {
                let (scheme, host, port) = parse_origin(text)?;
                return Some(Self {
                    scheme,
                    host,
                    port: Some(port),
                });
            }
        };
        let (scheme, host, _) = parse_origin(base)?;
        Some(Self { scheme, host, port })
    }

    fn matches(&self, (scheme, host, port): &(String, String, u16)) -> bool {
        *scheme == self.scheme
            && *host == self.host
            && self.port.is_none_or(|wanted| wanted == *port)
    }
}

/// Whether the request has header `name` more than once.
fn repeated(headers: &HeaderMap, name: &header::HeaderName) -> bool {
    headers.get_all(name).iter().nth(1).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn request(method: Method, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().method(method).uri("/mcp");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(Body::empty()).expect("a request")
    }

    fn status(admission: &Admission) -> Option<StatusCode> {
        match admission {
            Admission::Answered(response) => Some(response.status()),
            Admission::Served(_) => None,
        }
    }

    #[test]
    fn hosts_and_origins_are_judged_before_anything_else() {
        let origins = Origins::new(
            &[
                "https://app.example.com:443".to_owned(),
                "http://intranet:*".to_owned(),
            ],
            true,
            Some("X-Upstream-Key"),
        );
        let host = ("host", "127.0.0.1:8080");
        let judge =
            |headers: &[(&str, &str)]| status(&origins.admit(&request(Method::POST, headers)));
        assert_eq!(judge(&[host]), None);
        assert_eq!(
            judge(&[("host", "evil.example.com")]),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            judge(&[host, ("host", "evil.example.com")]),
            Some(StatusCode::BAD_REQUEST),
            "two Host headers, the first loopback"
        );
        assert_eq!(
            judge(&[
                host,
                ("origin", "http://localhost:3000"),
                ("origin", "https://evil.example")
            ]),
            Some(StatusCode::BAD_REQUEST)
        );
        assert_eq!(judge(&[host, ("origin", "http://localhost:3000")]), None);
        assert_eq!(judge(&[host, ("origin", "https://app.example.com")]), None);
        assert_eq!(judge(&[host, ("origin", "http://intranet:8443")]), None);
        for other in [
            "https://evil.example",
            "null",
            "https://app.example.com:8443",
            "file://x",
        ] {
            assert_eq!(
                judge(&[host, ("origin", other)]),
                Some(StatusCode::FORBIDDEN),
                "{other}"
            );
        }
    }

    #[test]
    fn listed_origins_get_cors_and_others_none() {
        let origins = Origins::new(
            &["https://app.example.com:443".to_owned()],
            true,
            Some("X-Upstream-Key"),
        );
        let preflight = request(
            Method::OPTIONS,
            &[
                ("host", "localhost:8080"),
                ("origin", "https://app.example.com"),
                ("access-control-request-method", "POST"),
            ],
        );
        let Admission::Answered(answer) = origins.admit(&preflight) else {
            panic!("a preflight of a listed origin is answered here");
        };
        assert_eq!(answer.status(), StatusCode::NO_CONTENT);
        let allowed = answer.headers()[header::ACCESS_CONTROL_ALLOW_HEADERS]
            .to_str()
            .expect("text");
        assert!(
            allowed.contains("mcp-session-id") && allowed.contains("x-upstream-key"),
            "{allowed}"
        );
        assert_eq!(
            answer.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "https://app.example.com"
        );
        let local = request(
            Method::OPTIONS,
            &[
                ("host", "localhost:8080"),
                ("origin", "http://localhost:3000"),
                ("access-control-request-method", "POST"),
            ],
        );
        assert!(
            matches!(origins.admit(&local), Admission::Served(None)),
            "no CORS for loopback pages"
        );
        let post = request(
            Method::POST,
            &[
                ("host", "localhost:8080"),
                ("origin", "https://app.example.com"),
            ],
        );
        let Admission::Served(Some(origin)) = origins.admit(&post) else {
            panic!("a listed origin's request is served with CORS");
        };
        let mut response = StatusCode::OK.into_response();
        allow(origin, &mut response);
        assert_eq!(
            response.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "https://app.example.com"
        );
        assert!(
            response.headers()[header::ACCESS_CONTROL_EXPOSE_HEADERS]
                .to_str()
                .is_ok_and(|exposed| exposed.contains("mcp-session-id"))
        );
    }
}
