//! Upstream HTTP execution: the one place requests leave the process.
//!
//! [`Upstream`] holds one `reqwest` client (rustls with bundled web PKI roots, so the binary
//! needs neither OpenSSL nor system certificates and links statically; connections are
//! pooled and reused), the checked base URL and the auth plan. [`Upstream::send`] joins an
//! [`UpstreamRequest`] onto the base URL, adds credentials read from the environment, sends
//! it, reads at most [`UpstreamConfig::max_response_bytes`] while the body streams in, and
//! maps the answer (see `response.rs` for the status table and where the seeds disagree).
//!
//! Guarantees:
//! * Requests only go to the configured origin: the path is appended to the base URL, never
//!   parsed as a URL of its own; `.`/`..` segments are refused; redirects are followed only
//!   within the same origin and below the base URL's path (at most [`MAX_REDIRECTS`]), so
//!   that another API on the same host (another member of a bundle) never gets the
//!   credential.
//! * Credentials go over HTTPS only, or plain HTTP to a loopback host (seed
//!   universal-adapter-runtime §11.2).
//! * No secret reaches a client-visible error or a log line: header values are marked
//!   sensitive, error text is redacted, and transport errors are described by kind. Those
//!   descriptions also leave out host names and addresses (seed §11.3 forbids exposing
//!   internal hosts, which overrides the `{host}:{port}` of the §8.3 message patterns).
//!
//! # Static binaries
//!
//! No OpenSSL and no system certificate store are involved, so a generated adapter links
//! statically with glibc's `crt-static` (the `--target` keeps the flag off build scripts and
//! proc macros, which cannot be static):
//!
//! ```text
//! RUSTFLAGS="-C target-feature=+crt-static" \
//!     cargo build --release --target x86_64-unknown-linux-gnu -p todo-adapter
//! file target/x86_64-unknown-linux-gnu/release/todo-adapter   # ... static-pie linked ...
//! ```

mod auth;
pub mod backoff;
#[cfg(test)]
mod http_tests;
mod multipart;
mod oauth;
mod response;
mod sigv4;
mod untrusted;
mod variables;

use std::borrow::Cow;
use std::error::Error as StdError;
use std::ffi::OsString;
use std::net::IpAddr;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{
    ACCEPT, CONTENT_TYPE, COOKIE, HeaderMap, HeaderName, HeaderValue, IF_MATCH, IF_MODIFIED_SINCE,
    IF_NONE_MATCH, LINK, LOCATION,
};
use reqwest::{Client, Url, redirect};
use tracing::debug;

use crate::adapter::{AdapterInfo, Body, Method, UpstreamRequest};
use crate::error::{AqlError, ErrorCode};
use crate::wire;
pub use auth::Credential;
use auth::{AuthPlan, Secrets};
pub use backoff::Backoff;
use response::UpstreamResponse;

/// An upstream answer and the headers shaping and caching use.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The HTTP status: a 2xx, or 304 to a request made conditional with
    /// [`Preconditions::if_none_match`] or [`Preconditions::if_modified_since`].
    pub status: u16,
    /// The body as compact JSON text (`null` when empty, and for a 304).
    pub body: String,
    /// The `ETag` header, when it is printable ASCII of sane length.
    pub etag: Option<String>,
    /// The `Link` header.
    pub link: Option<String>,
    /// Where the work the request started can be watched: `Operation-Location`, else
    /// `Location`.
    pub location: Option<String>,
    /// What the answer says about keeping it.
    pub freshness: FreshnessHeaders,
}

/// The headers that say whether and how long an answer may be kept (RFC 9111), as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FreshnessHeaders {
    /// `Cache-Control`.
    pub cache_control: Option<String>,
    /// `Expires`.
    pub expires: Option<String>,
    /// `Date`.
    pub date: Option<String>,
    /// `Age`.
    pub age: Option<String>,
    /// `Last-Modified`.
    pub last_modified: Option<String>,
    /// `Vary`.
    pub vary: Option<String>,
}

impl FreshnessHeaders {
    fn of(headers: &HeaderMap) -> Self {
        let value = |name: &str| response::header_str(headers, name).map(str::to_owned);
        Self {
            cache_control: value("cache-control"),
            expires: value("expires"),
            date: value("date"),
            age: value("age"),
            last_modified: value("last-modified"),
            vary: value("vary"),
        }
    }
}

/// The conditions a request is sent under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Preconditions<'a> {
    /// `If-Match`: change the resource only in this version (the agent's `if_match`).
    pub if_match: Option<&'a str>,
    /// `If-None-Match`: answer 304 while the resource has this `ETag`.
    pub if_none_match: Option<&'a str>,
    /// `If-Modified-Since`: answer 304 while the resource is unchanged since then.
    pub if_modified_since: Option<&'a str>,
}

impl Preconditions<'_> {
    /// Whether a 304 is an answer, not an error: the request asked whether it changed.
    fn revalidates(&self) -> bool {
        self.if_none_match.is_some() || self.if_modified_since.is_some()
    }
}

/// One request's course: the answer (or the error a client is told), whether the upstream
/// answered at all, and the wait it asked for. The call line hands the last two to the
/// metrics and the rate limiter.
#[derive(Debug)]
pub struct Exchange {
    /// The answer, or the error it maps to.
    pub answer: Result<Answer, AqlError>,
    /// What came back, when a request went out.
    pub reached: Option<Reached>,
    /// The wait the upstream asked for (`X-RateLimit-*`, `Retry-After`).
    pub backoff: Option<Backoff>,
}

impl Exchange {
    /// An exchange that ended before a request went out.
    fn unsent(error: AqlError) -> Self {
        Self {
            answer: Err(error),
            reached: None,
            backoff: None,
        }
    }
}

/// What came back to a request that went out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reached {
    /// The upstream answered with this HTTP status.
    Status(u16),
    /// No answer came: refused, timed out, DNS, TLS or network.
    NoAnswer,
}

/// Same-origin redirects followed before giving up.
pub const MAX_REDIRECTS: usize = 5;

/// Tunables of the upstream client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamConfig {
    /// Whole-request timeout, connect to last body byte. Default 30 s.
    pub timeout: Duration,
    /// Largest upstream body accepted, checked while it streams in. Default 10 MiB (the
    /// spec's response limit).
    pub max_response_bytes: usize,
    /// Longest wait for the next piece of the answer: a body cut short on a connection the
    /// upstream keeps open fails after this, not after `timeout`. Default 10 s.
    pub read_timeout: Duration,
}

impl Default for UpstreamConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            max_response_bytes: 10 * 1024 * 1024,
            read_timeout: Duration::from_secs(10),
        }
    }
}

/// The HTTP client of one adapter.
#[derive(Debug)]
pub struct Upstream {
    info: &'static AdapterInfo,
    client: Client,
    /// The checked base URL, e.g. `https://api.github.com/` or `https://host/api/v3`.
    base: Url,
    auth: AuthPlan,
    /// HTTPS, or HTTP to a loopback host.
    credentials_allowed: bool,
    config: UpstreamConfig,
}

impl Upstream {
    /// Builds the client. The base URL is `$<info.base_url_env>` when that variable is set and
    /// not empty, else `info.base_url`. Credentials are not read here: a server starts without
    /// them.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when the base URL is not an absolute `http`/`https` URL without user
    /// info, query or fragment (naming the environment variable when it came from there), when
    /// an auth header name from the schema is invalid, or when the TLS client cannot start.
    pub fn new(info: &'static AdapterInfo, config: UpstreamConfig) -> Result<Upstream, AqlError> {
        Self::with_env(info, config, &|name| std::env::var_os(name))
    }

    fn with_env(
        info: &'static AdapterInfo,
        config: UpstreamConfig,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<Upstream, AqlError> {
        let base = base_url(info, env)?;
        let credentials_allowed = base.scheme() == "https" || is_loopback(&base);
        let user_agent = format!("{}-adapter/{} (aqlgen)", info.name, info.version);
        let auth = AuthPlan::new(&info.auth, &user_agent)?;
        let within = base.clone();
        let policy = redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                attempt.error("too many redirects")
            } else if path_under(&within, attempt.url()).is_some() {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let client = Client::builder()
            .user_agent(user_agent)
            .timeout(config.timeout)
            .read_timeout(config.read_timeout.min(config.timeout))
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .redirect(policy)
            .build()
            .map_err(|err| {
                debug!(error = %error_chain(&err), "upstream client could not start");
                AqlError::new(
                    ErrorCode::InternalError,
                    "Internal error: the upstream HTTP client could not start",
                )
            })?;
        debug!(adapter = info.name, base_url = %base, "upstream client ready");
        Ok(Upstream {
            info,
            client,
            base,
            auth,
            credentials_allowed,
            config,
        })
    }

    /// Whether a request can bring the whole credential: the schema's auth is one bearer
    /// token or API key.
    pub fn takes_request_credential(&self) -> bool {
        self.auth.takes_one_value()
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    /// A `GET` of `location` (a `Location` or `Operation-Location` the upstream answered), as
    /// a request under the base URL: only on the upstream's own origin and below its base
    /// path, so polling never sends the credential elsewhere.
    pub fn request_to(&self, location: &str) -> Option<UpstreamRequest> {
        let url = self.base.join(location).ok()?;
        let path = path_under(&self.base, &url)?;
        if check_path(path).is_err() {
            return None;
        }
        let query = url
            .query_pairs()
            .map(|(name, value)| (Cow::Owned(name.into_owned()), value.into_owned()))
            .collect();
        Some(UpstreamRequest {
            method: Method::Get,
            path: path.to_owned(),
            query,
            headers: Vec::new(),
            cookies: Vec::new(),
            body: None,
        })
    }

    /// Sends `request` under `preconditions`, and returns the upstream's JSON as compact
    /// text (`null` for an empty 2xx body, and for a 304 to a revalidation) with the headers
    /// shaping and caching need.
    ///
    /// # Errors
    ///
    /// * `PERMISSION_DENIED`: a credential variable is missing or unusable (the error names
    ///   it), credentials would go over plain HTTP to a remote host, or the upstream said
    ///   401/403.
    /// * `VALIDATION_INVALID_VALUE`: a path value is `.` or `..`.
    /// * `VALIDATION_PAYLOAD_TOO_LARGE`: the body exceeds `max_response_bytes`.
    /// * `CONFLICT_VERSION_MISMATCH`: the upstream answered 412 to a conditional request.
    /// * The status table of `response.rs` for non-2xx answers; `INTERNAL_ERROR` for a 2xx
    ///   body that is not JSON and for transport failures (refused, DNS, timeout, TLS,
    ///   network), with `details.upstream_error` naming the kind.
    pub async fn send(
        &self,
        request: UpstreamRequest,
        preconditions: Preconditions<'_>,
        credential: &Credential<'_>,
    ) -> Exchange {
        let source = match credential {
            Credential::Environment => self.auth.token_source(),
            Credential::Request(_) => None,
        };
        let Some(source) = source else {
            return self
                .send_once(request, preconditions, credential, None)
                .await;
        };
        let token = match source.token(None).await {
            Ok(token) => token,
            Err(error) => return Exchange::unsent(error),
        };
        let again = request.clone();
        let exchange = self
            .send_once(request, preconditions, credential, Some(&token))
            .await;
        if exchange.reached != Some(Reached::Status(401)) {
            return exchange;
        }
        // The upstream refused the token (revoked, or expired early): one new token, one
        // more try.
        match source.token(Some(&token)).await {
            Ok(renewed) if renewed != token => {
                self.send_once(again, preconditions, credential, Some(&renewed))
                    .await
            }
            Ok(_) => exchange,
            Err(error) => Exchange::unsent(error),
        }
    }

    /// Sends `request` once, with the OAuth 2 `token` when the adapter uses one.
    async fn send_once(
        &self,
        request: UpstreamRequest,
        preconditions: Preconditions<'_>,
        credential: &Credential<'_>,
        token: Option<&str>,
    ) -> Exchange {
        let (built, secrets) = match self.prepare(&request, preconditions, credential, token) {
            Ok(prepared) => prepared,
            Err(error) => return Exchange::unsent(error),
        };
        debug!(
            method = request.method.as_str(),
            path = %request.path,
            query_pairs = request.query.len(),
            "upstream request"
        );
        let started = Instant::now();
        let response = match self.client.execute(built).await {
            Ok(response) => response,
            Err(err) => {
                return Exchange {
                    answer: Err(self.transport_error(&err, &secrets)),
                    reached: Some(Reached::NoAnswer),
                    backoff: None,
                };
            }
        };
        let status = response.status();
        let headers = response.headers().clone();
        let backoff = backoff::backoff(status.as_u16(), &headers, SystemTime::now());
        let answer = if status == reqwest::StatusCode::NOT_MODIFIED && preconditions.revalidates() {
            Ok(Answer {
                status: status.as_u16(),
                body: "null".to_owned(),
                etag: response::etag(&headers),
                link: None,
                location: None,
                freshness: FreshnessHeaders::of(&headers),
            })
        } else {
            self.receive(response, &headers, &secrets, started).await
        };
        Exchange {
            answer,
            reached: Some(Reached::Status(status.as_u16())),
            backoff,
        }
    }

    /// The request, ready to go, and the secrets it carries: credentials checked and
    /// resolved, the URL joined, the body and precondition set, and signed when the API
    /// wants signed requests.
    fn prepare(
        &self,
        request: &UpstreamRequest,
        preconditions: Preconditions<'_>,
        credential: &Credential<'_>,
        token: Option<&str>,
    ) -> Result<(reqwest::Request, Secrets), AqlError> {
        let credentials = if self.auth.sends_credentials() {
            if !self.credentials_allowed {
                return Err(AqlError::new(
                    ErrorCode::PermissionDenied,
                    format!(
                        "Permission denied: credentials are only sent over HTTPS or to \
                         localhost, and the upstream base URL uses plain HTTP. Set '{}' to an \
                         https URL",
                        self.info.base_url_env
                    ),
                )
                .with_detail("reason", "INSECURE_TRANSPORT"));
            }
            match token {
                Some(token) => auth::Credentials::bearer(token)?,
                None => self.auth.resolve_for(credential)?,
            }
        } else {
            auth::Credentials::default()
        };
        // The server's own credentials join every log line's scrub list. A request's are
        // never logged, and are kept out of that list, which would otherwise grow with
        // every caller.
        if matches!(credential, Credential::Environment) {
            credentials.secrets.keep_out_of_logs();
        }
        let url = self.url_for(request, &credentials.query)?;
        let mut builder = self
            .client
            .request(http_method(request.method), url)
            .headers(param_headers(request)?);
        for (name, value) in credentials.headers {
            builder = builder.header(name, value);
        }
        builder = match &request.body {
            None => builder,
            Some(Body::Json(body)) => builder.json(body),
            // A `Content-Type` the operation fixes stands (see `param_headers`).
            Some(Body::Form(pairs)) if fixes_content_type(request) => {
                builder.body(wire::form_encoded(pairs))
            }
            Some(Body::Form(pairs)) => builder
                .header(
                    CONTENT_TYPE,
                    HeaderValue::from_static("application/x-www-form-urlencoded"),
                )
                .body(wire::form_encoded(pairs)),
            Some(Body::Multipart(parts)) => {
                let (content_type, bytes) = multipart::encode(parts);
                builder.header(CONTENT_TYPE, content_type).body(bytes)
            }
            Some(Body::Bytes(bytes)) if fixes_content_type(request) => builder.body(bytes.clone()),
            Some(Body::Bytes(bytes)) => builder
                .header(
                    CONTENT_TYPE,
                    HeaderValue::from_static("application/octet-stream"),
                )
                .body(bytes.clone()),
        };
        for (name, value) in [
            (IF_MATCH, preconditions.if_match),
            (IF_NONE_MATCH, preconditions.if_none_match),
            (IF_MODIFIED_SINCE, preconditions.if_modified_since),
        ] {
            if let Some(value) = value.and_then(|value| HeaderValue::from_str(value).ok()) {
                builder = builder.header(name, value);
            }
        }
        let mut built = builder.build().map_err(|error| {
            AqlError::new(
                ErrorCode::InternalError,
                "The upstream request could not be built",
            )
            .with_detail(
                "upstream_error",
                if error.is_builder() {
                    "request"
                } else {
                    "other"
                },
            )
        })?;
        if let Some(key) = &credentials.signing {
            key.sign(&mut built, SystemTime::now())?;
        }
        Ok((built, credentials.secrets))
    }

    /// Reads and maps the answer to a request that went out.
    async fn receive(
        &self,
        response: reqwest::Response,
        headers: &HeaderMap,
        secrets: &Secrets,
        started: Instant,
    ) -> Result<Answer, AqlError> {
        let status = response.status();
        let body = self.read_body(response, secrets).await?;
        debug!(
            status = status.as_u16(),
            bytes = body.len(),
            elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            "upstream response"
        );
        let body = response::interpret(
            &UpstreamResponse {
                status,
                headers,
                body: &body,
            },
            secrets,
            SystemTime::now(),
        )?;
        Ok(Answer {
            status: status.as_u16(),
            body,
            etag: response::etag(headers),
            link: response::header_str(headers, LINK.as_str()).map(str::to_owned),
            location: response::header_str(headers, "operation-location")
                .or_else(|| response::header_str(headers, LOCATION.as_str()))
                .map(str::to_owned),
            freshness: FreshnessHeaders::of(headers),
        })
    }

    /// The full URL of `request`: the base URL, the path appended, then the query pairs.
    fn url_for(
        &self,
        request: &UpstreamRequest,
        credential_query: &[(&'static str, String)],
    ) -> Result<Url, AqlError> {
        check_path(&request.path)?;
        // The parsed base keeps its scheme and host; only the path is parsed per call.
        let mut url = self.base.clone();
        let base_path = self.base.path().trim_end_matches('/');
        let mut path = String::with_capacity(base_path.len() + request.path.len());
        path.push_str(base_path);
        path.push_str(&request.path);
        url.set_path(&path);
        let stays_under_base = url.path() == base_path
            || url
                .path()
                .strip_prefix(base_path)
                .is_some_and(|rest| rest.starts_with('/'));
        if !stays_under_base {
            return Err(bad_path());
        }
        if !request.query.is_empty() || !credential_query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for (name, value) in &request.query {
                pairs.append_pair(name, value);
            }
            for (name, value) in credential_query {
                pairs.append_pair(name, value);
            }
        }
        Ok(url)
    }

    /// Reads the body, failing as soon as it grows past the cap.
    async fn read_body(
        &self,
        mut response: reqwest::Response,
        secrets: &Secrets,
    ) -> Result<Vec<u8>, AqlError> {
        let limit = self.config.max_response_bytes;
        let declared = response.content_length();
        if let Some(length) = declared.filter(|&length| length > limit as u64) {
            return Err(too_large(limit).with_detail("actual_value", length));
        }
        let initial = declared.map_or(0, |length| length as usize).min(64 * 1024);
        let mut body = Vec::with_capacity(initial);
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|err| self.transport_error(&err, secrets))?
        {
            if body.len() + chunk.len() > limit {
                return Err(too_large(limit));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    fn timeout_message(&self) -> String {
        format!(
            "Internal error: the upstream request timed out after {}ms (or sent nothing for {}ms)",
            self.config.timeout.as_millis(),
            self.config
                .read_timeout
                .min(self.config.timeout)
                .as_millis()
        )
    }

    /// A client-safe description of a transport failure; the redacted detail goes to the log.
    fn transport_error(&self, err: &reqwest::Error, secrets: &Secrets) -> AqlError {
        debug!(error = %secrets.redact(&error_chain(err)), "upstream transport failure");
        let env = self.info.base_url_env;
        let (kind, message) = if err.is_timeout() {
            ("TRANSPORT_TIMEOUT", self.timeout_message())
        } else if err.is_redirect() {
            (
                "TRANSPORT_NETWORK_ERROR",
                format!(
                    "Internal error: the upstream API redirected more than {MAX_REDIRECTS} times"
                ),
            )
        } else {
            match classify(err) {
                Failure::Timeout => ("TRANSPORT_TIMEOUT", self.timeout_message()),
                Failure::Dns => (
                    "TRANSPORT_DNS_ERROR",
                    format!(
                        "Internal error: could not resolve the upstream host; check the base \
                         URL ('{env}') and DNS"
                    ),
                ),
                Failure::Refused => (
                    "TRANSPORT_CONNECTION_REFUSED",
                    format!(
                        "Internal error: connection refused by the upstream API; is it running? \
                         Check the base URL ('{env}')"
                    ),
                ),
                Failure::Tls => (
                    "TRANSPORT_TLS_ERROR",
                    "Internal error: TLS error connecting to the upstream API (certificate or \
                     handshake rejected)"
                        .to_owned(),
                ),
                Failure::Network => (
                    "TRANSPORT_NETWORK_ERROR",
                    "Internal error: network error talking to the upstream API (the connection \
                     failed or closed early)"
                        .to_owned(),
                ),
            }
        };
        let mut error =
            AqlError::new(ErrorCode::InternalError, message).with_detail("upstream_error", kind);
        if kind == "TRANSPORT_TIMEOUT" {
            let ms = u64::try_from(self.config.timeout.as_millis()).unwrap_or(u64::MAX);
            error = error.with_detail("timeout_ms", ms);
        }
        error
    }
}

/// Transport failure kinds (plugin contracts' `TRANSPORT_*` codes).
#[derive(Debug, PartialEq, Eq)]
enum Failure {
    Timeout,
    Dns,
    Refused,
    Tls,
    Network,
}

/// Walks the error chain for the first recognizable cause.
fn classify(err: &(dyn StdError + 'static)) -> Failure {
    let mut current = Some(err);
    while let Some(cause) = current {
        if cause.is::<rustls::Error>() {
            return Failure::Tls;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => return Failure::Refused,
                std::io::ErrorKind::TimedOut => return Failure::Timeout,
                _ => {}
            }
            // `io::Error::source` skips the error it wraps, and the TLS stack wraps rustls
            // errors in one or two layers of `io::Error`: look inside.
            let mut wrapped = io.get_ref();
            while let Some(inner) = wrapped {
                if inner.is::<rustls::Error>() {
                    return Failure::Tls;
                }
                wrapped = inner
                    .downcast_ref::<std::io::Error>()
                    .and_then(std::io::Error::get_ref);
            }
        }
        // hyper-util's connector names resolver failures this way.
        if cause.to_string() == "dns error" {
            return Failure::Dns;
        }
        current = cause.source();
    }
    Failure::Network
}

/// `Display` of an error and all its causes, for debug logs only.
fn error_chain(err: &(dyn StdError + 'static)) -> String {
    let mut text = err.to_string();
    let mut current = err.source();
    while let Some(cause) = current {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        current = cause.source();
    }
    text
}

/// Reads and checks the base URL.
/// The path of `url` below `base`'s path (starting with `/`), when `url` is on `base`'s
/// origin and under that path at a segment boundary: `/api/v1/x` is under `/api/v1`,
/// `/api/v10` and `/other` are not.
fn path_under<'u>(base: &Url, url: &'u Url) -> Option<&'u str> {
    if url.origin() != base.origin() {
        return None;
    }
    let path = url.path().strip_prefix(base.path().trim_end_matches('/'))?;
    path.starts_with('/').then_some(path)
}

fn base_url(
    info: &'static AdapterInfo,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Url, AqlError> {
    let from_env = env(info.base_url_env).filter(|value| !value.is_empty());
    let (text, source) = match &from_env {
        Some(value) => (
            value.to_str().map(str::to_owned),
            format!("the environment variable '{}'", info.base_url_env),
        ),
        None => (
            Some(info.base_url.to_owned()),
            "the schema's target base URL".to_owned(),
        ),
    };
    let invalid = |why: &str| {
        AqlError::new(
            ErrorCode::InternalError,
            format!("Internal error: {source} is not a usable upstream base URL: {why}"),
        )
        .with_detail("env_var", info.base_url_env)
    };
    let text = text.ok_or_else(|| invalid("it is not valid UTF-8"))?;
    let url =
        Url::parse(text.trim()).map_err(|_| invalid("expected an absolute http or https URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("only http and https are supported"));
    }
    if url.cannot_be_a_base() || url.host().is_none() {
        return Err(invalid("it has no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            "it must not embed credentials; use the auth environment variables",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("it must not have a query or fragment"));
    }
    Ok(url)
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => {
            domain.eq_ignore_ascii_case("localhost") || domain.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// The path must be the encoded form generated code builds: absolute, ASCII, no query,
/// fragment, backslash or whitespace, and no `.`/`..` segment (the URL parser would resolve
/// one, so a value of `..` could climb out of its place; `%2E` counts as a dot there too).
fn check_path(path: &str) -> Result<(), AqlError> {
    let well_formed = path.starts_with('/')
        && path
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'?' | b'#' | b'\\'));
    if !well_formed {
        return Err(bad_path());
    }
    for segment in path.split('/') {
        let dots = segment.to_ascii_lowercase().replace("%2e", ".");
        if dots == "." || dots == ".." {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                "Invalid value: a path parameter cannot be '.' or '..'",
            ));
        }
    }
    Ok(())
}

fn bad_path() -> AqlError {
    AqlError::new(
        ErrorCode::InternalError,
        "Internal error: the operation built an upstream path outside the base URL",
    )
}

fn too_large(limit: usize) -> AqlError {
    AqlError::new(
        ErrorCode::ValidationPayloadTooLarge,
        format!("Payload exceeds response_size limit of {limit} bytes (upstream response)"),
    )
    .with_detail("limit_type", "response_size")
    .with_detail("limit_value", limit)
    .with_detail("unit", "bytes")
}

/// The headers of a request before auth: `Accept: application/json` unless a header param
/// names another, then the header params, then the cookies as one `Cookie` header.
fn param_headers(request: &UpstreamRequest) -> Result<HeaderMap, AqlError> {
    let mut headers = HeaderMap::with_capacity(request.headers.len() + 2);
    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    let mut accept_given = false;
    for (name, value) in &request.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad_header())?;
        let mut value = HeaderValue::from_str(value).map_err(|_| bad_header())?;
        value.set_sensitive(true);
        if name == ACCEPT && !accept_given {
            accept_given = true;
            headers.insert(name, value);
        } else {
            headers.append(name, value);
        }
    }
    if !request.cookies.is_empty() {
        let cookie = request
            .cookies
            .iter()
            .map(|(name, value)| format!("{name}={}", wire::encode_segment(value)))
            .collect::<Vec<_>>()
            .join("; ");
        let mut value = HeaderValue::from_str(&cookie).map_err(|_| bad_header())?;
        value.set_sensitive(true);
        headers.insert(COOKIE, value);
    }
    Ok(headers)
}

/// Whether the operation sends a `Content-Type` of its own, which replaces the body's.
fn fixes_content_type(request: &UpstreamRequest) -> bool {
    request
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case(CONTENT_TYPE.as_str()))
}

fn bad_header() -> AqlError {
    AqlError::new(
        ErrorCode::ValidationInvalidValue,
        "Invalid value: a header param holds text no HTTP header can carry",
    )
}

fn http_method(method: Method) -> reqwest::Method {
    match method {
        Method::Get => reqwest::Method::GET,
        Method::Post => reqwest::Method::POST,
        Method::Put => reqwest::Method::PUT,
        Method::Patch => reqwest::Method::PATCH,
        Method::Delete => reqwest::Method::DELETE,
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;
    use std::io;

    use super::*;

    /// Stands in for hyper-util's private connector error.
    #[derive(Debug)]
    struct Connect(&'static str, io::Error);

    impl fmt::Display for Connect {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl StdError for Connect {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&self.1)
        }
    }

    #[test]
    fn transport_failures_are_classified_from_the_cause_chain() {
        let lookup = io::Error::other("failed to lookup address information");
        assert_eq!(classify(&Connect("dns error", lookup)), Failure::Dns);
        let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(
            classify(&Connect("tcp connect error", refused)),
            Failure::Refused
        );
        let tls = io::Error::other(io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::Expired),
        ));
        assert_eq!(classify(&Connect("tls", tls)), Failure::Tls);
        let reset = io::Error::from(io::ErrorKind::ConnectionReset);
        assert_eq!(classify(&Connect("io", reset)), Failure::Network);
    }

    #[test]
    fn default_config_is_the_spec_default() {
        let config = UpstreamConfig::default();
        assert_eq!(config.timeout, Duration::from_secs(30));
        assert_eq!(config.max_response_bytes, 10 * 1024 * 1024);
    }

    #[test]
    fn path_checks() {
        for ok in [
            "/",
            "/repos/a%2Fb/c",
            "/x/..%2F..",
            "/a/.../b",
            "/a//b",
            "/%E5%90%8D",
        ] {
            assert!(check_path(ok).is_ok(), "{ok}");
        }
        for dots in ["/..", "/a/.", "/a/%2E%2e/b", "/a/.%2e"] {
            let err = check_path(dots).expect_err(dots);
            assert_eq!(err.code, ErrorCode::ValidationInvalidValue, "{dots}");
        }
        for bad in ["", "a/b", "/a?x", "/a#x", "/a\\b", "/a b", "/名前", "/a\n"] {
            let err = check_path(bad).expect_err(bad);
            assert_eq!(err.code, ErrorCode::InternalError, "{bad}");
        }
    }
}
