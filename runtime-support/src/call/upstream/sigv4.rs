//! AWS Signature Version 4: each request signed with the operator's access key for one region
//! and service, as AWS documents it (canonical request, string to sign, derived key).
//! Signed: `host`, `content-type` when present, and every `x-amz-*` header (the date and the
//! session token this adds, an `X-Amz-Target` the operation sends).

use std::fmt::Write as _;
use std::time::SystemTime;

use hmac::{Hmac, Mac};
use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};
use sha2::{Digest, Sha256};

use crate::error::{AqlError, ErrorCode};

/// What one request is signed with.
#[derive(Clone)]
pub struct SigningKey {
    /// The access key id, sent in the clear in the credential scope.
    pub access_key_id: String,
    /// The secret access key, never sent.
    pub secret_access_key: String,
    /// A session token of temporary credentials, sent as `X-Amz-Security-Token`.
    pub session_token: Option<String>,
    /// The region signed for.
    pub region: String,
    /// The service's signing name.
    pub service: &'static str,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("region", &self.region)
            .field("service", &self.service)
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// Signs `request` as of `now`: adds `X-Amz-Date` (and `X-Amz-Security-Token`) and the
    /// `Authorization` header.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` when the request has no host or a header cannot be written.
    pub fn sign(&self, request: &mut reqwest::Request, now: SystemTime) -> Result<(), AqlError> {
        let stamp = crate::clock::rfc3339(now).replace(['-', ':'], "");
        let date = &stamp[..8];
        let url = request.url().clone();
        let host = match (url.host_str(), url.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            (None, _) => return Err(unsignable("the upstream URL has no host")),
        };
        let headers = request.headers_mut();
        headers.insert(HeaderName::from_static("x-amz-date"), value(&stamp)?);
        if let Some(token) = &self.session_token {
            let mut token = value(token)?;
            token.set_sensitive(true);
            headers.insert(HeaderName::from_static("x-amz-security-token"), token);
        }
        let mut signed: Vec<(String, String)> = vec![("host".to_owned(), host)];
        for (name, value) in headers.iter() {
            let name = name.as_str();
            if name == "content-type" || name.starts_with("x-amz-") {
                let value = value
                    .to_str()
                    .map_err(|_| unsignable("a header is not text"))?;
                signed.push((name.to_owned(), collapse(value)));
            }
        }
        signed.sort();
        let signed_names: Vec<&str> = signed.iter().map(|(name, _)| name.as_str()).collect();
        let signed_names = signed_names.join(";");
        let body: &[u8] = request
            .body()
            .and_then(reqwest::Body::as_bytes)
            .unwrap_or_default();
        let mut canonical = format!(
            "{}\n{}\n{}\n",
            request.method().as_str(),
            canonical_path(url.path()),
            canonical_query(&url)
        );
        for (name, value) in &signed {
            let _ = writeln!(canonical, "{name}:{value}");
        }
        let _ = write!(
            canonical,
            "\n{signed_names}\n{}",
            hex(&Sha256::digest(body))
        );
        let scope = format!("{date}/{}/{}/aws4_request", self.region, self.service);
        let to_sign = format!(
            "AWS4-HMAC-SHA256\n{stamp}\n{scope}\n{}",
            hex(&Sha256::digest(canonical.as_bytes()))
        );
        let key = [date, &self.region, self.service, "aws4_request"]
            .iter()
            .fold(
                format!("AWS4{}", self.secret_access_key).into_bytes(),
                |key, part| hmac(&key, part.as_bytes()),
            );
        let signature = hex(&hmac(&key, to_sign.as_bytes()));
        let mut authorization = value(&format!(
            "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed_names}, Signature={signature}",
            self.access_key_id
        ))?;
        authorization.set_sensitive(true);
        request.headers_mut().insert(AUTHORIZATION, authorization);
        Ok(())
    }
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

fn value(text: &str) -> Result<HeaderValue, AqlError> {
    HeaderValue::from_str(text).map_err(|_| unsignable("a signing header cannot be written"))
}

fn unsignable(why: &str) -> AqlError {
    AqlError::new(
        ErrorCode::InternalError,
        format!("The request could not be signed for AWS: {why}"),
    )
}

/// A header value trimmed, its runs of spaces made one.
fn collapse(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// RFC 3986 percent-encoding of everything but the unreserved characters.
fn uri_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// The path as sent, each segment encoded once more (every service but S3 signs it so).
fn canonical_path(path: &str) -> String {
    if path.is_empty() {
        return "/".to_owned();
    }
    let segments: Vec<String> = path.split('/').map(uri_encode).collect();
    segments.join("/")
}

/// The query's pairs, decoded, encoded again the one way AWS signs, sorted.
fn canonical_query(url: &reqwest::Url) -> String {
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(key, value)| (uri_encode(&key), uri_encode(&value)))
        .collect();
    pairs.sort();
    let pairs: Vec<String> = pairs
        .into_iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    pairs.join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The credentials of AWS's Signature Version 4 test suite.
    fn suite_key() -> SigningKey {
        SigningKey {
            access_key_id: "AKIDEXAMPLE".to_owned(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".to_owned(),
            session_token: None,
            region: "us-east-1".to_owned(),
            service: "service",
        }
    }

    /// 2015-08-30T12:36:00Z, the suite's time.
    fn suite_time() -> SystemTime {
        crate::clock::from_unix_seconds(1_440_938_160)
    }

    fn signed(method: reqwest::Method, url: &str) -> String {
        let mut request = reqwest::Request::new(method, url.parse().expect("a URL"));
        suite_key().sign(&mut request, suite_time()).expect("signs");
        request.headers()[AUTHORIZATION]
            .to_str()
            .expect("text")
            .to_owned()
    }

    #[test]
    fn the_test_suite_s_requests_get_its_signatures() {
        assert_eq!(
            signed(reqwest::Method::GET, "https://example.amazonaws.com/"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
        assert_eq!(
            signed(
                reqwest::Method::GET,
                "https://example.amazonaws.com/?Param2=value2&Param1=value1"
            ),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
        );
    }

    #[test]
    fn a_session_token_is_sent_and_signed_and_the_secret_never_shows() {
        let mut key = suite_key();
        key.session_token = Some("session-token".to_owned());
        let mut request = reqwest::Request::new(
            reqwest::Method::POST,
            "https://dynamodb.us-east-1.amazonaws.com/"
                .parse()
                .expect("a URL"),
        );
        key.sign(&mut request, suite_time()).expect("signs");
        let authorization = request.headers()[AUTHORIZATION].to_str().expect("text");
        assert!(authorization.contains("SignedHeaders=host;x-amz-date;x-amz-security-token"));
        assert!(!authorization.contains(&key.secret_access_key));
        assert!(!format!("{key:?}").contains("EXAMPLEKEY"));
        assert!(request.headers()["x-amz-security-token"].is_sensitive());
    }
}
