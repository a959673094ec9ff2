//! A minimal MCP client over a child process's stdio: newline-delimited JSON-RPC, one request
//! in flight at a time, which is all the evidence exporter needs.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::error::Error;

/// The protocol revision the exporter asks for.
const PROTOCOL_VERSION: &str = "2025-06-18";

/// An initialized MCP session with a server process.
pub struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
    timeout: Duration,
}

impl Client {
    /// Starts `command` with `env` added to its environment and runs the MCP handshake.
    pub fn start(
        command: &[OsString],
        env: &[(&str, &str)],
        timeout: Duration,
        show_logs: bool,
    ) -> Result<Self, Error> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| Error::Config("no server command given".to_owned()))?;
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if show_logs {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .map_err(|source| Error::Io {
                action: format!("starting {}", program.to_string_lossy()),
                source,
            })?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => (stdin, stdout),
            _ => {
                return Err(Error::Conformance(
                    "the server's stdio is unavailable".into(),
                ));
            }
        };
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut client = Self {
            child,
            stdin,
            lines,
            next_id: 1,
            timeout,
        };
        let info = client.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "aqlgen-conformance", "version": env!("CARGO_PKG_VERSION")},
            }),
        )?;
        if info.get("serverInfo").is_none() {
            return Err(Error::Conformance(format!(
                "the server's initialize answer has no serverInfo: {info}"
            )));
        }
        client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(client)
    }

    /// The names of the server's tools.
    pub fn tool_names(&mut self) -> Result<Vec<String>, Error> {
        let listed = self.request("tools/list", json!({}))?;
        Ok(listed["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect())
    }

    /// Calls `tool` with `arguments` and returns the MCP-AQL answer: the JSON of the result's
    /// text content, verbatim.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, Error> {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}))?;
        let text = result["content"][0]["text"].as_str().ok_or_else(|| {
            Error::Conformance(format!(
                "tool '{tool}' answered without text content: {result}"
            ))
        })?;
        serde_json::from_str(text).map_err(|error| {
            Error::Conformance(format!(
                "tool '{tool}' answered text that is not JSON ({error}): {text}"
            ))
        })
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let line = match self.lines.recv_timeout(self.timeout) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Error::Conformance(format!(
                        "the server did not answer '{method}' within {} s",
                        self.timeout.as_secs()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Error::Conformance(format!(
                        "the server exited before answering '{method}'"
                    )));
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                return Err(Error::Conformance(format!(
                    "the server wrote a line that is not JSON: {line}"
                )));
            };
            if message["id"] != json!(id) {
                continue; // a notification, or a request the exporter does not serve
            }
            if let Some(error) = message.get("error") {
                return Err(Error::Conformance(format!(
                    "the server refused '{method}': {error}"
                )));
            }
            return Ok(message["result"].clone());
        }
    }

    fn send(&mut self, message: &Value) -> Result<(), Error> {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|source| Error::Io {
                action: "writing to the server".to_owned(),
                source,
            })
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
