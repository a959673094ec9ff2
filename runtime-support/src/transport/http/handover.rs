//! Replacing a running binary without failing a call: the listening socket passes to the new
//! process and is never closed, so connections wait in it while one process gives way to the
//! next.
//!
//! * systemd socket activation: the socket arrives as fd 3 (`LISTEN_FDS=1`, `LISTEN_PID` this
//!   process). `systemctl restart` drains the old process while new connections queue in the
//!   socket systemd holds.
//! * In place, on `SIGUSR2`: the server starts the file it was started from again (a replaced
//!   file starts the new version), with the same arguments and environment and the socket as
//!   fd 3. When the new process reports ready, the old one stops accepting, answers its calls
//!   in flight and exits. A new process that exits, or is not ready within [`READY_WITHIN`], is
//!   stopped, and the old one keeps serving.
//!
//! Readiness is systemd's notify protocol, `READY=1` sent to `$NOTIFY_SOCKET`: the new process
//! tells the old one, and a server run as `Type=notify` tells systemd, with `MAINPID` after a
//! handover so that systemd follows the new process.

use std::ffi::OsString;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::net::UnixDatagram;

/// The descriptor a handed-over socket has in the new process, as in systemd's protocol.
const LISTEN_FD: RawFd = 3;

/// Names the process that handed its socket over; the new process takes fd 3 only from its
/// parent, so the variable means nothing to any other process that inherits it.
const HANDOVER_FROM: &str = "MCP_AQL_HANDOVER_FROM";

/// Where readiness is reported (systemd's `sd_notify` protocol).
const NOTIFY_SOCKET: &str = "NOTIFY_SOCKET";

/// How long a new binary has to report ready before it is stopped.
pub const READY_WITHIN: Duration = Duration::from_secs(60);

/// The listening socket this process was handed: by the server it replaces, or by systemd.
///
/// # Errors
///
/// A message for the operator when a socket was announced but fd 3 is not a TCP listener, or
/// when systemd passed more than one socket.
pub fn inherited() -> Result<Option<std::net::TcpListener>, String> {
    let from_parent = env_number(HANDOVER_FROM) == Some(std::os::unix::process::parent_id());
    let from_systemd = env_number("LISTEN_PID") == Some(std::process::id());
    if !from_parent && !from_systemd {
        return Ok(None);
    }
    if from_systemd && !from_parent && env_number("LISTEN_FDS") != Some(1) {
        return Err(
            "systemd passed a number of sockets other than one (LISTEN_FDS); the server listens on exactly one"
                .to_owned(),
        );
    }
    // SAFETY: `fcntl(F_GETFD)` only reads the descriptor's flags.
    if unsafe { libc::fcntl(LISTEN_FD, libc::F_GETFD) } == -1 {
        return Err(
            "a listening socket was announced, but file descriptor 3 is not open".to_owned(),
        );
    }
    // SAFETY: fd 3 is open, and was handed to this process to listen on by the protocol
    // checked above; nothing else in the process owns it.
    let listener = std::net::TcpListener::from(unsafe { OwnedFd::from_raw_fd(LISTEN_FD) });
    listener
        .local_addr()
        .and_then(|_| listener.set_nonblocking(true))
        .map_err(|error| format!("file descriptor 3 is not a listening TCP socket: {error}"))?;
    Ok(Some(listener))
}

/// Tells whoever started this process that it serves, when one asked (`$NOTIFY_SOCKET`).
pub async fn notify_ready() {
    if let Some(socket) = std::env::var_os(NOTIFY_SOCKET)
        && let Err(error) = notify(Path::new(&socket), "READY=1").await
    {
        tracing::warn!(%error, "could not report readiness to NOTIFY_SOCKET");
    }
}

async fn notify(socket: &Path, message: &str) -> std::io::Result<()> {
    let sender = UnixDatagram::unbound()?;
    #[cfg(target_os = "linux")]
    if let Some(name) = socket.as_os_str().as_encoded_bytes().strip_prefix(b"@") {
        use std::os::linux::net::SocketAddrExt;
        let address = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
        let std_sender = sender.into_std()?;
        std_sender.send_to_addr(message.as_bytes(), &address)?;
        return Ok(());
    }
    sender.send_to(message.as_bytes(), socket).await.map(|_| ())
}

/// How to start this server again: the file it was started from, its arguments, and where
/// its own readiness goes.
#[derive(Debug)]
pub struct Relaunch {
    executable: PathBuf,
    arguments: Vec<OsString>,
    supervisor: Option<OsString>,
}

impl Relaunch {
    /// This process's start, noted before anyone replaces its file.
    ///
    /// # Errors
    ///
    /// When the path of the running executable cannot be read.
    pub fn capture() -> std::io::Result<Self> {
        Ok(Self {
            executable: std::env::current_exe()?,
            arguments: std::env::args_os().skip(1).collect(),
            supervisor: std::env::var_os(NOTIFY_SOCKET),
        })
    }

    /// Starts the new binary on `socket` and waits for it to report ready; its process id.
    ///
    /// # Errors
    ///
    /// A message for the operator when the new binary cannot start, exits, or is not ready
    /// within [`READY_WITHIN`]; it is stopped then, and this server keeps serving.
    pub async fn start(&self, socket: RawFd) -> Result<u32, String> {
        let path = std::env::temp_dir().join(format!(
            "aqlgen-handover-{}-{}.sock",
            std::process::id(),
            crate::digest::random_hex(8).unwrap_or_default(),
        ));
        let ready = UnixDatagram::bind(&path)
            .map_err(|error| format!("cannot open the handover socket: {error}"))?;
        let result = self.spawn_and_wait(socket, &path, &ready).await;
        let _ = std::fs::remove_file(&path);
        let pid = result?;
        if let Some(supervisor) = &self.supervisor {
            let message = format!("MAINPID={pid}\nREADY=1");
            if let Err(error) = notify(Path::new(supervisor), &message).await {
                tracing::warn!(%error, "could not tell NOTIFY_SOCKET of the new process");
            }
        }
        Ok(pid)
    }

    async fn spawn_and_wait(
        &self,
        socket: RawFd,
        ready_path: &Path,
        ready: &UnixDatagram,
    ) -> Result<u32, String> {
        let mut command = tokio::process::Command::new(&self.executable);
        command
            .args(&self.arguments)
            .env(HANDOVER_FROM, std::process::id().to_string())
            .env(NOTIFY_SOCKET, ready_path)
            .env_remove("LISTEN_PID")
            .env_remove("LISTEN_FDS")
            .env_remove("LISTEN_FDNAMES")
            .stdin(Stdio::null());
        // SAFETY: between fork and exec the closure only calls `dup2` and `fcntl`, which are
        // async-signal-safe, and touches no memory of the parent.
        unsafe {
            command.pre_exec(move || {
                let kept = if socket == LISTEN_FD {
                    libc::fcntl(LISTEN_FD, libc::F_SETFD, 0)
                } else {
                    libc::dup2(socket, LISTEN_FD)
                };
                if kept == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|error| {
            format!(
                "cannot start {}: {error}",
                self.executable.to_string_lossy()
            )
        })?;
        let pid = child.id().unwrap_or_default();
        tracing::info!(pid, "started the new binary; waiting until it is ready");
        let mut buffer = [0_u8; 512];
        let outcome = tokio::time::timeout(READY_WITHIN, async {
            loop {
                tokio::select! {
                    received = ready.recv(&mut buffer) => {
                        let Ok(length) = received else { continue };
                        let message = String::from_utf8_lossy(&buffer[..length]);
                        if message.lines().any(|line| line == "READY=1") {
                            return Ok(());
                        }
                    }
                    status = child.wait() => {
                        return Err(match status {
                            Ok(status) => format!("the new binary exited before it was ready ({status})"),
                            Err(error) => format!("the new binary could not be watched: {error}"),
                        });
                    }
                }
            }
        })
        .await;
        match outcome {
            Ok(Ok(())) => Ok(pid),
            Ok(Err(message)) => Err(message),
            Err(_) => {
                let _ = child.kill().await;
                Err(format!(
                    "the new binary was not ready within {} s and was stopped",
                    READY_WITHIN.as_secs()
                ))
            }
        }
    }
}

fn env_number(name: &str) -> Option<u32> {
    std::env::var(name).ok()?.trim().parse().ok()
}
