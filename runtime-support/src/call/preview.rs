//! The upstream request a call would send, as a dry run and a person's confirmation form
//! show it. Credentials are added only when the request is sent, so none is here.

use serde_json::{Map, Value, json};

use crate::adapter::{Body, ContentType, Part, UpstreamRequest};
use crate::wire;

/// `request` with its `If-Match` precondition: method, path, query, headers, body.
pub fn would_send(request: &UpstreamRequest, if_match: Option<&str>) -> Value {
    let query = wire::form_encoded(&request.query);
    let mut would_send = json!({"method": request.method.as_str(), "path": request.path});
    if !query.is_empty() {
        would_send["query"] = query.into();
    }
    let mut headers: Map<String, Value> = request
        .headers
        .iter()
        .map(|(name, value)| ((*name).to_owned(), Value::from(value.as_str())))
        .collect();
    if !request.cookies.is_empty() {
        let cookies = request
            .cookies
            .iter()
            .map(|(name, value)| format!("{name}={}", wire::encode_segment(value)));
        headers.insert(
            "Cookie".to_owned(),
            cookies.collect::<Vec<_>>().join("; ").into(),
        );
    }
    if let Some(etag) = if_match {
        headers.insert("If-Match".to_owned(), etag.into());
    }
    if !headers.is_empty() {
        would_send["headers"] = Value::Object(headers);
    }
    match &request.body {
        None => {}
        Some(Body::Json(body)) => would_send["body"] = body.clone(),
        Some(Body::Form(pairs)) => {
            would_send["content_type"] = ContentType::Form.as_str().into();
            would_send["body"] = wire::form_encoded(pairs).into();
        }
        Some(Body::Multipart(parts)) => {
            would_send["content_type"] = ContentType::Multipart.as_str().into();
            would_send["parts"] = parts.iter().map(part_preview).collect();
        }
        Some(Body::Bytes(bytes)) => {
            would_send["content_type"] = ContentType::OctetStream.as_str().into();
            would_send["body_bytes"] = bytes.len().into();
        }
    }
    would_send
}

/// A multipart part as a dry run shows it: a file by its size, not its bytes.
fn part_preview(part: &Part) -> Value {
    match part {
        Part::Text { name, text } => json!({"name": name, "text": text}),
        Part::Json { name, text } => json!({"name": name, "json": text}),
        Part::File { name, bytes } => json!({"name": name, "file_bytes": bytes.len()}),
    }
}
