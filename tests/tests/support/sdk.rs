//! The third-party MCP clients the end-to-end tests drive: the Python `mcp` SDK and the
//! TypeScript `@modelcontextprotocol/client`, installed by `scripts/setup` (run once here when
//! either is missing), each behind a harness that takes one JSON plan
//! (`tests/python/elicit_client.py`, `tests/ts/elicit_client.mjs`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tokio::process::Command;

/// One of the two SDKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// The Python `mcp` package.
    Python,
    /// The TypeScript client.
    Ts,
}

/// Both SDKs.
pub const SDKS: [Sdk; 2] = [Sdk::Python, Sdk::Ts];

impl Sdk {
    /// The SDK's harness, ready for its plan argument. The harness hands its environment to
    /// a stdio server: none of this process's operator settings (`MCP_AQL_*`) go with it.
    pub fn command(self) -> Command {
        clients_ready();
        let mut command = match self {
            Self::Python => {
                let mut command = Command::new(venv().join("bin/python"));
                command.arg(workspace().join("tests/python/elicit_client.py"));
                command
            }
            Self::Ts => {
                let mut command = Command::new("node");
                command
                    .arg(workspace().join("tests/ts/elicit_client.mjs"))
                    .env("AQLGEN_TS_DIR", ts_dir());
                command
            }
        };
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("MCP_AQL_") {
                command.env_remove(key);
            }
        }
        command
    }
}

/// The Python venv's interpreter, with the `mcp` package installed.
pub fn python() -> PathBuf {
    clients_ready();
    venv().join("bin/python")
}

/// The repository checkout.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn absolute(path: PathBuf) -> PathBuf {
    if path.is_absolute() {
        path
    } else {
        workspace().join(path)
    }
}

fn venv() -> PathBuf {
    absolute(
        std::env::var_os("AQLGEN_PY_VENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/py-mcp")),
    )
}

/// Where `scripts/setup` installs the TypeScript SDK and oidc-provider.
pub fn ts_dir() -> PathBuf {
    absolute(
        std::env::var_os("AQLGEN_TS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target/ts-mcp")),
    )
}

/// Runs `scripts/setup` once when either SDK is missing.
fn clients_ready() {
    static READY: OnceLock<()> = OnceLock::new();
    READY.get_or_init(|| {
        let python = std::process::Command::new(venv().join("bin/python"))
            .args(["-c", "import mcp"])
            .output()
            .is_ok_and(|output| output.status.success());
        let ts = ts_dir()
            .join("node_modules/@modelcontextprotocol/client/package.json")
            .is_file();
        if !(python && ts) {
            let status = std::process::Command::new(workspace().join("scripts/setup"))
                .env("AQLGEN_PY_VENV", venv())
                .env("AQLGEN_TS_DIR", ts_dir())
                .status()
                .expect("run scripts/setup");
            assert!(
                status.success(),
                "scripts/setup failed: the Python and TypeScript MCP clients are needed"
            );
        }
    });
}
