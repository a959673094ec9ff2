//! A minimal MCP client, cheap enough to sit in the measured path: JSON-RPC over a child's
//! stdio (one writer task, one reader task, answers matched to requests by id) or over
//! streamable HTTP (JSON or SSE answers, `mcp-session-id` kept from initialize).
//!
//! Every answer comes back with the exact request and response texts, so callers can count
//! their tokens. A `Client` is a handle: clone it to call from many tasks at once.

use std::collections::HashMap;
use std::process::Stdio as StdStdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{mpsc, oneshot};

/// The protocol version the client asks for; servers answer with the one they speak.
const PROTOCOL_VERSION: &str = "2025-06-18";

/// How long [`Client::close`] waits for a stdio server to exit after its stdin closes.
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// One answered request.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The JSON-RPC request text as sent.
    pub request: String,
    /// The JSON-RPC response text as received.
    pub text: String,
    /// `text`, parsed.
    pub value: Value,
}

impl Reply {
    /// The `result` member of the answer (`Null` if absent).
    pub fn result(&self) -> &Value {
        &self.value["result"]
    }

    /// The tool names a `tools/list` answer registers, in its order.
    pub fn tool_names(&self) -> anyhow::Result<Vec<String>> {
        Ok(self.result()["tools"]
            .as_array()
            .context("tools/list without tools")?
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect())
    }

    /// The text of the first content block of a `tools/call` answer, parsed as JSON when it
    /// is JSON (MCP-AQL answers are), otherwise as a JSON string.
    pub fn tool_json(&self) -> Value {
        let text = self.result()["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
    }

    /// Fails when a `tools/call` answer reports an error: `isError`, or an MCP-AQL envelope
    /// with `"success": false`.
    pub fn ensure_tool_success(&self) -> anyhow::Result<()> {
        let result = self.result();
        let envelope_failed = self.tool_json().get("success") == Some(&Value::Bool(false));
        if result["isError"] == Value::Bool(true) || envelope_failed {
            bail!("tool call failed: {}", truncate(&self.text, 400));
        }
        Ok(())
    }
}

/// A connection to one MCP server.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    next_id: AtomicU64,
    transport: Transport,
}

enum Transport {
    Stdio(StdioPipe),
    Http(HttpSession),
}

/// What the writer task is asked to do.
enum Outgoing {
    Line(String),
    Close,
}

/// Answers awaited, by request id.
type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<(String, Value)>>>>;

struct StdioPipe {
    outgoing: mpsc::UnboundedSender<Outgoing>,
    pending: Pending,
    child: Mutex<Option<Child>>,
    pid: Option<u32>,
}

struct HttpSession {
    http: reqwest::Client,
    url: String,
    session_id: RwLock<Option<String>>,
    protocol_version: RwLock<Option<String>>,
}

impl Client {
    /// Spawns `command` with piped stdin and stdout (stderr discarded) and speaks
    /// newline-delimited JSON-RPC to it. Call [`Client::initialize`] next.
    pub fn stdio(mut command: Command) -> anyhow::Result<Client> {
        command
            .stdin(StdStdio::piped())
            .stdout(StdStdio::piped())
            .stderr(StdStdio::null())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .with_context(|| format!("spawning {:?}", command.as_std().get_program()))?;
        let stdin = child.stdin.take().context("child stdin")?;
        let stdout = child.stdout.take().context("child stdout")?;
        let pending: Pending = Arc::default();
        let (outgoing, queue) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(stdin, queue));
        tokio::spawn(read_lines(stdout, pending.clone(), outgoing.clone()));
        Ok(Client::with(Transport::Stdio(StdioPipe {
            outgoing,
            pending,
            pid: child.id(),
            child: Mutex::new(Some(child)),
        })))
    }

    /// A client of the streamable HTTP endpoint at `url` (e.g. `http://127.0.0.1:8000/mcp`).
    pub async fn http(url: &str) -> anyhow::Result<Client> {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .tcp_nodelay(true)
            .build()?;
        Ok(Client::with(Transport::Http(HttpSession {
            http,
            url: url.to_owned(),
            session_id: RwLock::new(None),
            protocol_version: RwLock::new(None),
        })))
    }

    fn with(transport: Transport) -> Client {
        Client {
            inner: Arc::new(Inner {
                next_id: AtomicU64::new(1),
                transport,
            }),
        }
    }

    /// Sends `initialize`, then the `notifications/initialized` notification.
    pub async fn initialize(&self) -> anyhow::Result<Reply> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "aqlgen-bench", "version": env!("CARGO_PKG_VERSION")},
        });
        let reply = self.request("initialize", params).await?;
        if let Transport::Http(session) = &self.inner.transport
            && let Some(version) = reply.result()["protocolVersion"].as_str()
        {
            *write(&session.protocol_version) = Some(version.to_owned());
        }
        self.notify("notifications/initialized").await?;
        Ok(reply)
    }

    /// Sends one request and waits for its answer; a JSON-RPC error answer is an error.
    pub async fn request(&self, method: &str, params: Value) -> anyhow::Result<Reply> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":{},"params":{params}}}"#,
            Value::from(method)
        );
        let (text, value) = match &self.inner.transport {
            Transport::Stdio(pipe) => pipe.exchange(id, &request).await?,
            Transport::Http(session) => session
                .post(&request, Some(id))
                .await?
                .context("server answered a request with no message")?,
        };
        if let Some(error) = value.get("error") {
            bail!("{method} failed: {error}");
        }
        Ok(Reply {
            request,
            text,
            value,
        })
    }

    /// `tools/call` of `name` with `arguments`. Tool-level failures come back as a `Reply`;
    /// check them with [`Reply::ensure_tool_success`].
    pub async fn call_tool(&self, name: &str, arguments: Value) -> anyhow::Result<Reply> {
        self.request("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// The server's process id, for a stdio server.
    pub fn pid(&self) -> Option<u32> {
        match &self.inner.transport {
            Transport::Stdio(pipe) => pipe.pid,
            Transport::Http(_) => None,
        }
    }

    /// Ends the session: a stdio server gets end-of-file on stdin and is killed if it has not
    /// exited within three seconds; an HTTP session is deleted.
    pub async fn close(self) -> anyhow::Result<()> {
        match &self.inner.transport {
            Transport::Stdio(pipe) => {
                let _ = pipe.outgoing.send(Outgoing::Close);
                let child = lock(&pipe.child).take();
                if let Some(mut child) = child
                    && tokio::time::timeout(EXIT_GRACE, child.wait())
                        .await
                        .is_err()
                {
                    child.kill().await?;
                }
            }
            Transport::Http(session) => {
                let id = read(&session.session_id).clone();
                if let Some(id) = id {
                    // Servers may refuse DELETE (405); the session ends with the process.
                    let _ = session
                        .http
                        .delete(&session.url)
                        .header("mcp-session-id", id)
                        .send()
                        .await;
                }
            }
        }
        Ok(())
    }

    async fn notify(&self, method: &str) -> anyhow::Result<()> {
        let text = format!(r#"{{"jsonrpc":"2.0","method":{}}}"#, Value::from(method));
        match &self.inner.transport {
            Transport::Stdio(pipe) => pipe.send(text),
            Transport::Http(session) => session.post(&text, None).await.map(drop),
        }
    }
}

impl StdioPipe {
    fn send(&self, line: String) -> anyhow::Result<()> {
        self.outgoing
            .send(Outgoing::Line(line))
            .map_err(|_| anyhow!("server stdin is closed"))
    }

    async fn exchange(&self, id: u64, request: &str) -> anyhow::Result<(String, Value)> {
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, answer);
        self.send(request.to_owned())?;
        answered
            .await
            .map_err(|_| anyhow!("server closed stdout before answering request {id}"))
    }
}

/// Writes queued lines, flushing whenever the queue runs dry, so pipelined requests share
/// system calls.
async fn write_lines(stdin: ChildStdin, mut queue: mpsc::UnboundedReceiver<Outgoing>) {
    let mut stdin = BufWriter::new(stdin);
    while let Some(message) = queue.recv().await {
        let Outgoing::Line(line) = message else { break };
        let mut failed = stdin.write_all(line.as_bytes()).await.is_err()
            || stdin.write_all(b"\n").await.is_err();
        if queue.is_empty() {
            failed |= stdin.flush().await.is_err();
        }
        if failed {
            break;
        }
    }
    let _ = stdin.shutdown().await;
}

/// Hands each answer to its waiter; answers a server's `ping` and refuses its other requests.
async fn read_lines(
    stdout: ChildStdout,
    pending: Pending,
    outgoing: mpsc::UnboundedSender<Outgoing>,
) {
    let mut lines = BufReader::with_capacity(1 << 16, stdout);
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(value) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match (value.get("id"), value.get("method")) {
            (Some(id), None) => {
                let waiter = id.as_u64().and_then(|id| lock(&pending).remove(&id));
                if let Some(waiter) = waiter {
                    let text = line.trim_end().to_owned();
                    let _ = waiter.send((text, value));
                }
            }
            (Some(id), Some(method)) => {
                let answer = if method == "ping" {
                    json!({"jsonrpc": "2.0", "id": id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id,
                           "error": {"code": -32601, "message": "not supported by this client"}})
                };
                let _ = outgoing.send(Outgoing::Line(answer.to_string()));
            }
            _ => {}
        }
    }
    // Waiters still pending learn that no answer is coming.
    lock(&pending).clear();
}

impl HttpSession {
    /// POSTs one message; returns the answer with id `id` (`None` for a notification).
    async fn post(&self, body: &str, id: Option<u64>) -> anyhow::Result<Option<(String, Value)>> {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_owned());
        if let Some(session) = read(&self.session_id).as_deref() {
            request = request.header("mcp-session-id", session);
        }
        if let Some(version) = read(&self.protocol_version).as_deref() {
            request = request.header("mcp-protocol-version", version);
        }
        let mut response = request.send().await?;
        if let Some(session) = response.headers().get("mcp-session-id") {
            *write(&self.session_id) = Some(session.to_str()?.to_owned());
        }
        let status = response.status();
        if !status.is_success() {
            let text = response.text().await.unwrap_or_default();
            bail!("HTTP {status}: {}", truncate(&text, 400));
        }
        let Some(id) = id else { return Ok(None) };
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        if !is_sse {
            let text = response.text().await?;
            let value = serde_json::from_str(&text)?;
            return Ok(Some((text, value)));
        }
        // Read events until the one answering `id`; the stream may stay open after it.
        let mut buffer = String::new();
        let mut event_start = 0;
        while let Some(chunk) = response.chunk().await? {
            // JSON text escapes carriage returns, so dropping them only unifies line ends.
            buffer.extend(
                String::from_utf8_lossy(&chunk)
                    .chars()
                    .filter(|&c| c != '\r'),
            );
            while let Some(end) = buffer[event_start..].find("\n\n") {
                let event = &buffer[event_start..event_start + end];
                if let Some(answer) = answer_in_event(event, id) {
                    return Ok(Some(answer));
                }
                event_start += end + 2;
            }
        }
        bail!("event stream ended without the answer to request {id}")
    }
}

/// The event's data, if it is the JSON-RPC answer with id `id`.
fn answer_in_event(event: &str, id: u64) -> Option<(String, Value)> {
    let data: Vec<&str> = event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect();
    let text = data.join("\n");
    let value: Value = serde_json::from_str(&text).ok()?;
    (value.get("id").and_then(Value::as_u64) == Some(id) && value.get("method").is_none())
        .then_some((text, value))
}

/// At most `max` bytes of `text`, cut on a character boundary.
pub fn truncate(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_answer_event() {
        let notification =
            "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}";
        assert!(answer_in_event(notification, 7).is_none());
        let (text, value) =
            answer_in_event("data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}", 7)
                .expect("answer");
        assert_eq!(text, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        assert_eq!(value["result"], json!({}));
        assert!(answer_in_event("data: {\"id\":8,\"result\":{}}", 7).is_none());
    }
}
