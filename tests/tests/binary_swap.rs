//! Replacing a running binary fails no call. Under a steady load of calls over kept-alive
//! HTTP connections, the server hands its listening socket to the binary now at its path
//! (SIGUSR2), or is restarted the way systemd restarts a socket-activated service; every call
//! is answered, the old process drains and exits, and readiness is reported through
//! `NOTIFY_SOCKET` as systemd expects it.

mod support;

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Json;
use axum::routing::get;
use serde_json::{Value, json};
use support::BIN;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// An item API that takes 40 ms per answer, so that calls are in flight at any moment.
async fn slow_upstream() -> String {
    async fn item(axum::extract::Path(id): axum::extract::Path<String>) -> Json<Value> {
        tokio::time::sleep(Duration::from_millis(40)).await;
        Json(json!({"id": id, "title": "Milk", "status": "open"}))
    }
    support::serve(axum::Router::new().route("/items/{id}", get(item))).await
}

/// Calls that keep coming, each worker on its own kept-alive connection, until stopped.
struct Load {
    stop: Arc<AtomicBool>,
    answered: Arc<AtomicUsize>,
    workers: Vec<JoinHandle<Vec<String>>>,
}

impl Load {
    fn start(url: &str, workers: usize) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicUsize::new(0));
        let workers = (0..workers)
            .map(|worker| {
                let (url, stop, answered) = (url.to_owned(), stop.clone(), answered.clone());
                tokio::spawn(async move {
                    let client = reqwest::Client::new();
                    let mut failures = Vec::new();
                    let mut n = 0;
                    while !stop.load(Ordering::Relaxed) {
                        n += 1;
                        let id = format!("{worker}-{n}");
                        match read_item(&client, &url, &id).await {
                            Ok(()) => {
                                answered.fetch_add(1, Ordering::Relaxed);
                            }
                            Err(failure) => failures.push(failure),
                        }
                    }
                    failures
                })
            })
            .collect();
        Self {
            stop,
            answered,
            workers,
        }
    }

    fn answered(&self) -> usize {
        self.answered.load(Ordering::Relaxed)
    }

    /// Stops the load; every failure seen.
    async fn finish(self) -> (usize, Vec<String>) {
        self.stop.store(true, Ordering::Relaxed);
        let mut failures = Vec::new();
        for worker in self.workers {
            failures.extend(worker.await.expect("load worker"));
        }
        (self.answered.load(Ordering::Relaxed), failures)
    }
}

/// One stateless `get_item` call; what went wrong, if anything.
async fn read_item(client: &reqwest::Client, url: &str, id: &str) -> Result<(), String> {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "mcp_aql_read", "arguments": {"operation": "get_item", "params": {"id": id}}},
    });
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .map_err(|error| format!("{id}: no answer: {error:?}"))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|error| format!("{id}: answer cut short: {error:?}"))?;
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&text);
    let message: Value =
        serde_json::from_str(json).map_err(|_| format!("{id}: {status} {text}"))?;
    let answer: Value = message["result"]["content"][0]["text"]
        .as_str()
        .and_then(|text| serde_json::from_str(text).ok())
        .ok_or_else(|| format!("{id}: {status} {message}"))?;
    if answer["success"] == true && answer["data"]["id"] == id {
        Ok(())
    } else {
        Err(format!("{id}: {answer}"))
    }
}

/// A server process and the lines it logs.
struct Server {
    child: Child,
    lines: mpsc::UnboundedReceiver<String>,
}

impl Server {
    fn start(mut command: Command) -> Self {
        let mut child = command
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn the adapter binary");
        let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let (sender, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(line)) = stderr.next_line().await {
                let _ = sender.send(line);
            }
        });
        Self { child, lines }
    }

    /// The first logged line containing `text`.
    async fn line(&mut self, text: &str) -> String {
        tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let line = self
                    .lines
                    .recv()
                    .await
                    .expect("the server logs until it exits");
                if line.contains(text) {
                    return line;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("the server logs '{text}' within 30 s"))
    }

    async fn url(&mut self) -> String {
        let line = self.line("streamable HTTP endpoint listening").await;
        let start = line.find("http://").expect("a URL");
        line[start..]
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_matches('"')
            .to_owned()
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    /// Waits for the process to exit by itself; whether it exited 0.
    async fn exited(&mut self) -> bool {
        tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .expect("the old process exits once drained")
            .expect("exit status")
            .success()
    }
}

/// A process this test did not start but must stop: killed when dropped.
struct Stray(u32);

impl Drop for Stray {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &self.0.to_string()])
            .status();
    }
}

fn signal(name: &str, pid: u32) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} {pid}");
}

/// A fresh directory under the temporary directory, removed with its contents when dropped.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("scratch directory")
}

/// Puts a copy of the adapter binary at `path` the way an operator replaces a file: written
/// beside it, then renamed over it.
fn install(path: &Path) {
    let next = path.with_extension("next");
    std::fs::copy(BIN, &next).expect("copy the binary");
    std::fs::rename(&next, path).expect("replace the binary");
}

/// The next datagram on `socket`, as text.
async fn notified(socket: &UnixDatagram) -> String {
    let socket = socket.try_clone().expect("clone the notify socket");
    tokio::task::spawn_blocking(move || {
        socket
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut buffer = [0_u8; 512];
        let length = socket
            .recv(&mut buffer)
            .expect("a notification within 30 s");
        String::from_utf8_lossy(&buffer[..length]).into_owned()
    })
    .await
    .expect("notify reader")
}

/// SIGUSR2 after the file is replaced: the new binary takes the socket, the old one drains
/// and exits 0, no call of a steady load fails, and the supervisor's notify socket learns the
/// new main process.
#[tokio::test]
async fn sigusr2_hands_the_socket_to_the_new_binary_without_failing_a_call() {
    let upstream = slow_upstream().await;
    let dir = scratch();
    let binary = dir.path().join("fixture-adapter");
    install(&binary);
    let supervisor_path = dir.path().join("notify.sock");
    let supervisor = UnixDatagram::bind(&supervisor_path).expect("notify socket");
    let mut command = support::command_for(
        binary.to_str().expect("UTF-8 path"),
        &["--transport", "http", "--port", "0", "--stateless"],
        &[("FIXTURE_BASE_URL", upstream.as_str())],
    );
    command.env("NOTIFY_SOCKET", &supervisor_path);
    let mut old = Server::start(command);
    let url = old.url().await;
    assert_eq!(notified(&supervisor).await, "READY=1");

    let load = Load::start(&url, 8);
    tokio::time::sleep(Duration::from_millis(800)).await;
    install(&binary);
    signal("USR2", old.pid());
    let handed = notified(&supervisor).await;
    let new_pid: u32 = handed
        .strip_prefix("MAINPID=")
        .and_then(|rest| rest.strip_suffix("\nREADY=1"))
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("MAINPID and READY=1 for systemd: {handed:?}"));
    let _new = Stray(new_pid);
    assert_ne!(new_pid, old.pid());
    assert!(old.exited().await, "the old process exits 0 once drained");
    let before = load.answered();
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (answered, failures) = load.finish().await;

    assert!(
        failures.is_empty(),
        "{} failed: {failures:#?}",
        failures.len()
    );
    assert!(
        answered > before && before > 50,
        "calls answered before ({before}) and after ({answered}) the old process left"
    );
    #[cfg(target_os = "linux")]
    assert_eq!(
        std::fs::read_link(format!("/proc/{new_pid}/exe")).expect("the new process runs"),
        binary,
        "the new process runs the file now at the path"
    );
    signal("TERM", new_pid);
}

/// A new binary that cannot serve (here: it exits at once) is reported, and the old process
/// keeps serving on its socket.
#[tokio::test]
async fn a_failed_handover_leaves_the_old_binary_serving() {
    let upstream = slow_upstream().await;
    let dir = scratch();
    let binary = dir.path().join("fixture-adapter");
    install(&binary);
    let mut old = Server::start(support::command_for(
        binary.to_str().expect("UTF-8 path"),
        &["--transport", "http", "--port", "0", "--stateless"],
        &[("FIXTURE_BASE_URL", upstream.as_str())],
    ));
    let url = old.url().await;
    let broken = binary.with_extension("broken");
    std::fs::write(&broken, "#!/bin/sh\nexit 3\n").expect("a broken binary");
    std::fs::set_permissions(&broken, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("executable");
    std::fs::rename(&broken, &binary).expect("replace the binary");
    signal("USR2", old.pid());
    let line = old.line("the handover failed").await;
    assert!(line.contains("exited before it was ready"), "{line}");
    let client = reqwest::Client::new();
    read_item(&client, &url, "still-here")
        .await
        .expect("the old process still answers");
    signal("TERM", old.pid());
    assert!(old.exited().await);
}

/// A server keeping state in a file, which it holds locked, cannot hand over: it says so
/// and keeps serving.
#[tokio::test]
async fn a_server_with_a_state_file_ignores_sigusr2_and_says_why() {
    let upstream = slow_upstream().await;
    let dir = scratch();
    let state = format!("file:{}", dir.path().join("state.jsonl").display());
    let mut server = Server::start(support::command_for(
        BIN,
        &[
            "--transport",
            "http",
            "--port",
            "0",
            "--stateless",
            "--state",
            &state,
        ],
        &[("FIXTURE_BASE_URL", upstream.as_str())],
    ));
    let url = server.url().await;
    signal("USR2", server.pid());
    let line = server.line("SIGUSR2 ignored").await;
    assert!(line.contains("restart the server instead"), "{line}");
    read_item(&reqwest::Client::new(), &url, "still-here")
        .await
        .expect("still serving");
    signal("TERM", server.pid());
    assert!(server.exited().await);
}

/// systemd socket activation: the socket arrives as fd 3. Restarting the service (stop, then
/// start) keeps the socket open in the supervisor, so calls arriving between the two
/// processes wait and none fails.
#[tokio::test]
async fn a_socket_activated_restart_fails_no_call() {
    let upstream = slow_upstream().await;
    let socket = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let url = format!("http://{}/mcp", socket.local_addr().expect("address"));
    let dir = scratch();
    let notify_path = dir.path().join("notify.sock");
    let notify = UnixDatagram::bind(&notify_path).expect("notify socket");
    let activated = |fd: i32| {
        // As systemd starts a unit: LISTEN_PID is the service's own process id, which `sh`
        // has before it `exec`s the binary.
        let mut command = Command::new("sh");
        command
            .args(["-c", "LISTEN_PID=$$ exec \"$0\" \"$@\"", BIN])
            .args(["--transport", "http", "--stateless"])
            .env("LISTEN_FDS", "1")
            .env("NOTIFY_SOCKET", &notify_path)
            .env("FIXTURE_BASE_URL", &upstream);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("MCP_AQL_") {
                command.env_remove(key);
            }
        }
        // SAFETY: `dup2` is async-signal-safe and touches no memory of this process.
        unsafe {
            command.pre_exec(move || {
                if dup2(fd, 3) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Server::start(command)
    };
    let fd = socket.as_raw_fd();
    let mut first = activated(fd);
    let line = first.line("streamable HTTP endpoint listening").await;
    assert!(line.contains("inherited"), "{line}");
    assert_eq!(notified(&notify).await, "READY=1");

    let load = Load::start(&url, 8);
    tokio::time::sleep(Duration::from_millis(800)).await;
    signal("TERM", first.pid());
    assert!(first.exited().await);
    let between = load.answered();
    let mut second = activated(fd);
    assert_eq!(notified(&notify).await, "READY=1");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (answered, failures) = load.finish().await;

    assert!(
        failures.is_empty(),
        "{} failed: {failures:#?}",
        failures.len()
    );
    assert!(
        answered > between && between > 50,
        "calls answered by the first ({between}) and the second ({answered}) process"
    );
    signal("TERM", second.pid());
    assert!(second.exited().await);
}

unsafe extern "C" {
    fn dup2(old: i32, new: i32) -> i32;
}
