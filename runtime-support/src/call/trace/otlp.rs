//! Sending spans over OTLP/HTTP with JSON bodies (`POST <endpoint>/v1/traces`), batched: a
//! background task sends what gathered every second, or at once past [`BATCH`] spans. A batch
//! the receiver does not take is dropped with a log line; spans never hold up a call, and
//! past [`QUEUE`] waiting spans new ones are dropped.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::adapter::ServerInfo;
use crate::digest::hex;

/// Spans sent in one request at most.
const BATCH: usize = 512;
/// Spans waiting to be sent at most.
const QUEUE: usize = 8_192;
/// How often what gathered is sent.
const EVERY: Duration = Duration::from_secs(1);

/// The span kinds the adapter sends (OTLP's `SpanKind` numbers).
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Serving a request: a call.
    Server = 2,
    /// Making one: the upstream request.
    Client = 3,
}

/// One finished span.
#[derive(Debug)]
pub struct Span {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
    pub parent: Option<[u8; 8]>,
    pub state: Option<String>,
    pub name: String,
    pub kind: Kind,
    pub started: SystemTime,
    pub ended: SystemTime,
    pub attributes: Vec<Value>,
    pub failed: bool,
}

impl Span {
    fn to_json(&self) -> Value {
        let mut span = json!({
            "traceId": hex(&self.trace_id),
            "spanId": hex(&self.span_id),
            "name": self.name,
            "kind": self.kind as u8,
            "startTimeUnixNano": nanos(self.started),
            "endTimeUnixNano": nanos(self.ended),
            "attributes": self.attributes,
            // OTLP's `StatusCode`: 1 ok, 2 error.
            "status": {"code": if self.failed { 2 } else { 1 }},
        });
        if let Some(parent) = self.parent {
            span["parentSpanId"] = hex(&parent).into();
        }
        if let Some(state) = &self.state {
            span["traceState"] = state.clone().into();
        }
        span
    }
}

/// A string attribute.
pub fn attribute(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

/// An integer attribute (OTLP JSON writes 64-bit integers as strings).
pub fn int_attribute(key: &str, value: i64) -> Value {
    json!({"key": key, "value": {"intValue": value.to_string()}})
}

/// A boolean attribute.
pub fn bool_attribute(key: &str, value: bool) -> Value {
    json!({"key": key, "value": {"boolValue": value}})
}

fn nanos(time: SystemTime) -> String {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos())
        .to_string()
}

/// The queue to the task that sends spans.
pub struct Exporter {
    queue: mpsc::Sender<Vec<Span>>,
}

impl Exporter {
    /// Starts the sending task for adapter `info` on the current runtime.
    ///
    /// # Errors
    ///
    /// A message for the operator when `endpoint` is no `http(s)` URL.
    pub fn start(endpoint: &str, info: &'static ServerInfo) -> Result<Self, String> {
        let url = traces_url(endpoint)?;
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|_| "the OTLP exporter's HTTP client could not start".to_owned())?;
        let (queue, spans) = mpsc::channel(QUEUE);
        tokio::spawn(send_batches(spans, client, url, resource(info)));
        Ok(Self { queue })
    }

    /// Queues `spans`; dropped when the queue is full.
    pub fn send(&self, spans: Vec<Span>) {
        if self.queue.try_send(spans).is_err() {
            tracing::debug!("the OTLP queue is full: spans dropped");
        }
    }
}

/// `<endpoint>/v1/traces`, unless `endpoint` already names it.
fn traces_url(endpoint: &str) -> Result<reqwest::Url, String> {
    let trimmed = endpoint.trim().trim_end_matches('/');
    let full = if trimmed.ends_with("/v1/traces") {
        trimmed.to_owned()
    } else {
        format!("{trimmed}/v1/traces")
    };
    reqwest::Url::parse(&full)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .ok_or_else(|| {
            format!(
                "--otlp-endpoint '{endpoint}': expected an http(s) URL of an OTLP/HTTP receiver"
            )
        })
}

fn resource(info: &ServerInfo) -> Value {
    let service = std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|name| !name.trim().is_empty())
        .unwrap_or_else(|| info.name.to_owned());
    json!({"attributes": [
        attribute("service.name", &service),
        attribute("service.version", info.version),
        attribute("telemetry.sdk.name", "aqlgen-runtime"),
        attribute("telemetry.sdk.language", "rust"),
    ]})
}

async fn send_batches(
    mut spans: mpsc::Receiver<Vec<Span>>,
    client: reqwest::Client,
    url: reqwest::Url,
    resource: Value,
) {
    let mut batch: Vec<Span> = Vec::new();
    let mut tick = tokio::time::interval(EVERY);
    loop {
        let closed = tokio::select! {
            received = spans.recv() => match received {
                Some(more) => {
                    batch.extend(more);
                    if batch.len() < BATCH {
                        continue;
                    }
                    false
                }
                None => true,
            },
            _ = tick.tick() => false,
        };
        if !batch.is_empty() {
            let body = json!({"resourceSpans": [{
                "resource": resource,
                "scopeSpans": [{
                    "scope": {"name": "aqlgen-runtime", "version": env!("CARGO_PKG_VERSION")},
                    "spans": batch.drain(..).map(|span| span.to_json()).collect::<Vec<_>>(),
                }],
            }]});
            match client.post(url.clone()).json(&body).send().await {
                Ok(response) if response.status().is_success() => {}
                Ok(response) => {
                    tracing::warn!(
                        status = response.status().as_u16(),
                        "the OTLP receiver refused spans"
                    );
                }
                Err(error) => {
                    tracing::warn!(error = %error.without_url(), "spans could not reach the OTLP receiver");
                }
            }
        }
        if closed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_a_base_or_the_traces_url() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318").map(String::from),
            Ok("http://127.0.0.1:4318/v1/traces".to_owned())
        );
        assert_eq!(
            traces_url("https://otel.example/v1/traces/").map(String::from),
            Ok("https://otel.example/v1/traces".to_owned())
        );
        assert!(traces_url("grpc://127.0.0.1:4317").is_err());
        assert!(traces_url("not a url").is_err());
    }
}
