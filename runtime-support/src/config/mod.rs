//! The settings of one server process, as data: what the operator chose on the command line,
//! in the environment or in a config file ([`Config::from_env`] reads them), with the
//! specification's defaults. Every layer reads its part; nothing here acts on them.

mod cache;
mod client;
mod confirm;
mod file;
mod flags;
mod glob;
mod query;
mod resource;
mod safety;
mod safety_loop;
mod settings;
mod values;

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::adapter::Auth;

pub use cache::{CacheConfig, CacheTtl};
pub use confirm::{Channel, ConfirmBy, ConfirmConfig, Fallback};
pub use glob::{Action, Glob};
pub use query::QueryConfig;
pub use resource::{Introspection, ResourceConfig, ScopeRules, Scoped, Selector};
pub use safety::{Quota, SafetyConfig, TokenConfig, parse_rate_limit};
pub use safety_loop::{LoopConfig, LoopMode};

/// The server the configuration tests name.
#[cfg(test)]
static TEST_SERVER: crate::adapter::ServerInfo = crate::adapter::ServerInfo {
    name: "demo",
    version: "1.2.3",
    description: "Demo",
    schema_fingerprint: "sha256:00",
};

/// Which MCP tools the server registers (seed mcp-integration §2.2, endpoint modes §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointMode {
    /// The five CRUDE tools `mcp_aql_<family>` (`_protocol.mode` is `semantic`).
    Crude,
    /// One tool, `mcp_aql`.
    Single,
    /// Both surfaces.
    All,
}

impl EndpointMode {
    /// `_protocol.mode` as introspection spells it: `semantic`, `single` or `all`.
    pub const fn protocol_name(self) -> &'static str {
        match self {
            Self::Crude => "semantic",
            Self::Single => "single",
            Self::All => "all",
        }
    }

    /// Whether the CRUDE tools are registered.
    pub const fn has_crude(self) -> bool {
        matches!(self, Self::Crude | Self::All)
    }

    /// Whether `mcp_aql` is registered.
    pub const fn has_single(self) -> bool {
        matches!(self, Self::Single | Self::All)
    }
}

/// Which transport carries MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin and stdout.
    Stdio,
    /// Streamable HTTP on `http://<bind>:<port>/mcp`.
    Http,
}

impl Transport {
    /// Parses `--transport`: `stdio` or `http`.
    fn parse(text: &str) -> Result<Self, String> {
        match text {
            "stdio" => Ok(Self::Stdio),
            "http" => Ok(Self::Http),
            other => Err(format!("'{other}' is not a transport; use stdio or http")),
        }
    }
}

/// Payload limits with the specification's defaults and allowed ranges (SPEC §4.7.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Serialized size of the tool arguments, in bytes.
    pub max_request_size: usize,
    /// Size of an upstream answer, in bytes.
    pub max_response_size: usize,
    /// Length of any one string, in bytes.
    pub max_string_length: usize,
    /// Elements of any one array.
    pub max_array_elements: usize,
    /// Nesting depth; the arguments object is level 1.
    pub max_nesting_depth: usize,
    /// Operations in one batch (operations §7).
    pub max_batch_size: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_request_size: 1024 * 1024,
            max_response_size: 10 * 1024 * 1024,
            max_string_length: 1024 * 1024,
            max_array_elements: 10_000,
            max_nesting_depth: 32,
            max_batch_size: 25,
        }
    }
}

/// How the server's transports hold up under load (docs/operating.md "Reliability").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransportLimits {
    /// Open HTTP sessions; an `initialize` beyond them is refused with 503.
    pub max_sessions: u64,
    /// A session that sees no request for this long is closed.
    pub session_idle_timeout: Duration,
    /// Open HTTP connections; one beyond them is answered 503 and closed.
    pub max_connections: u64,
    /// Time a client has to send a request's headers.
    pub header_timeout: Duration,
    /// Time a client has to send a request's body.
    pub body_timeout: Duration,
    /// A connection that moves no byte for this long is closed.
    pub idle_timeout: Duration,
    /// Longest wait for the next piece of an upstream answer.
    pub upstream_read_timeout: Duration,
    /// How long calls in flight get to finish once the server stops accepting connections
    /// (on SIGTERM, or after handing its socket to a new binary).
    pub drain_timeout: Duration,
}

impl Default for TransportLimits {
    fn default() -> Self {
        Self {
            max_sessions: 256,
            session_idle_timeout: Duration::from_secs(300),
            max_connections: 512,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            upstream_read_timeout: Duration::from_secs(10),
            drain_timeout: Duration::from_secs(30),
        }
    }
}

/// How log lines are written to stderr (`--log-format`, `MCP_AQL_LOG_FORMAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

impl LogFormat {
    pub(super) fn parse(value: &str) -> Result<Self, String> {
        match value {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            other => Err(format!("'{other}' is not a log format; use text or json")),
        }
    }
}

/// Which input schema the tools declare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolSchema {
    /// MCP-AQL's: `operation` and a free-form `params` object, or `operations`.
    #[default]
    Mcp,
    /// OpenAI's strict function calling: closed objects, every member required (null when
    /// unused), `params` as JSON text.
    OpenAiStrict,
    /// Gemini's `parameters` (an OpenAPI 3.0 subset): `params` as JSON text.
    Gemini,
}

impl ToolSchema {
    /// Every spelling, for help and errors.
    pub const NAMES: &'static str = "mcp, openai-strict, gemini";

    /// The schema named `name`.
    ///
    /// # Errors
    ///
    /// A sentence naming the schemas when `name` is none of them.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "mcp" => Ok(Self::Mcp),
            "openai-strict" => Ok(Self::OpenAiStrict),
            "gemini" => Ok(Self::Gemini),
            other => Err(format!(
                "'{other}' is not a tool schema; use one of: {}",
                Self::NAMES
            )),
        }
    }
}

/// Where state lives, as the operator chose it (`--state`, `MCP_AQL_STATE`).
#[derive(Clone, PartialEq, Eq)]
pub enum Backend {
    /// In this process only.
    Memory,
    /// In this process, kept in a journal file so it survives restarts.
    File(PathBuf),
    /// A Redis server; the URL may carry a password, so it is never logged whole.
    Redis(String),
}

impl Backend {
    /// Parses `memory`, `file:PATH` or a `redis://` / `rediss://` URL.
    ///
    /// # Errors
    ///
    /// A sentence for the operator.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() || text == "memory" {
            Ok(Self::Memory)
        } else if text.starts_with("redis://") || text.starts_with("rediss://") {
            Ok(Self::Redis(text.to_owned()))
        } else if let Some(path) = text.strip_prefix("file:") {
            // `file:///var/lib/x` and `file:/var/lib/x` name the same file.
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                Err(
                    "state backend: 'file:' needs a path, e.g. file:/var/lib/aqlgen/state.jsonl"
                        .to_owned(),
                )
            } else {
                Ok(Self::File(PathBuf::from(path)))
            }
        } else {
            Err("state backend: expected 'memory', file:PATH or a redis:// URL".to_owned())
        }
    }

    /// How the logs and `/readyz` name it, without credentials.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Memory => "memory",
            Self::File(_) => "file",
            Self::Redis(_) => "redis",
        }
    }
}

/// Never prints the URL, which may carry a password.
impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

/// The resolved configuration of one server process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Transport.
    pub transport: Transport,
    /// Address the HTTP transport binds.
    pub bind: IpAddr,
    /// Port of the HTTP transport; 0 picks a free one.
    pub port: u16,
    /// Endpoint mode.
    pub mode: EndpointMode,
    /// Tool-name prefix, possibly empty.
    pub tool_prefix: String,
    /// The input schema the tools declare.
    pub tool_schema: ToolSchema,
    /// Payload limits.
    pub limits: Limits,
    /// The safety gate's operator settings.
    pub safety: SafetyConfig,
    /// Transport limits and timeouts.
    pub transport_limits: TransportLimits,
    /// Browser origins the HTTP transport accepts beyond the loopback ones.
    pub allowed_origins: Vec<String>,
    /// Where tokens and counters are kept.
    pub state: Backend,
    /// Whether HTTP serves every request on its own, without sessions, for any protocol
    /// revision (2026-07-28 requests always are).
    pub stateless: bool,
    /// Whether callers beyond loopback may use the server's own upstream credential without
    /// bringing their own.
    pub allow_unauthenticated_remote: bool,
    /// How log lines are written to stderr.
    pub log_format: LogFormat,
    /// How READ answers are kept.
    pub cache: CacheConfig,
    /// The OTLP/HTTP receiver spans of calls go to; none means no traces.
    pub otlp_endpoint: Option<String>,
    /// The HTTP request header (lowercase) whose value is the upstream credential, in place
    /// of the server's environment; none means the environment's.
    pub credential_header: Option<String>,
    /// How long a call that starts a long-running execution follows it before answering its
    /// state.
    pub execution_wait: Duration,
    /// The OAuth 2.1 resource server in front of `/mcp`; none means no access token is asked
    /// for.
    pub resource: Option<ResourceConfig>,
    /// How far the query language may go on one request.
    pub query: QueryConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            transport: Transport::Stdio,
            bind: IpAddr::from([127, 0, 0, 1]),
            port: 8080,
            mode: EndpointMode::Crude,
            tool_prefix: String::new(),
            tool_schema: ToolSchema::Mcp,
            limits: Limits::default(),
            safety: SafetyConfig::default(),
            transport_limits: TransportLimits::default(),
            allowed_origins: Vec::new(),
            state: Backend::Memory,
            stateless: false,
            allow_unauthenticated_remote: false,
            log_format: LogFormat::Text,
            cache: CacheConfig::default(),
            otlp_endpoint: None,
            execution_wait: Duration::from_secs(20),
            credential_header: None,
            resource: None,
            query: QueryConfig::default(),
        }
    }
}

/// Why a build without the Cargo feature `http` cannot serve `--transport http`.
pub(crate) const NO_HTTP: &str = "this adapter was built without the HTTP transport: serve it \
     over stdio, or rebuild it with the Cargo feature 'http'";

/// Why a build without the Cargo feature `redis` cannot keep state in Redis.
pub(crate) const NO_REDIS: &str = "this adapter was built without Redis support: use --state \
     memory or file:PATH, or rebuild it with the Cargo feature 'redis'";

impl Config {
    /// Why this configuration must not start for adapters authenticating with `auths`: it
    /// listens beyond loopback and would call an upstream with the server's own credential for
    /// anyone who reaches the port, and the operator did not say that is intended. A caller's
    /// own credential (`--credential-header`) covers one adapter.
    pub fn exposure(&self, auths: &[Auth]) -> Option<String> {
        let authenticated = auths.iter().filter(|auth| **auth != Auth::None).count();
        let covered = usize::from(self.credential_header.is_some());
        let exposed = self.transport == Transport::Http
            && !self.bind.is_loopback()
            && self.resource.is_none()
            && authenticated > covered
            && !self.allow_unauthenticated_remote;
        exposed.then(|| {
            format!(
                "refusing to serve on {}: beyond loopback, anyone who can reach the port would                  call the upstream API with this server's own credential. Make each caller                  bring theirs with --credential-header NAME, or, behind a proxy that                  authenticates callers, say so with --allow-unauthenticated-remote",
                self.bind
            )
        })
    }

    /// What of this configuration the build cannot serve: a transport or state store whose
    /// Cargo feature is off.
    pub fn unbuilt(&self) -> Option<&'static str> {
        if self.transport == Transport::Http && !cfg!(feature = "http") {
            Some(NO_HTTP)
        } else if matches!(self.state, Backend::Redis(_)) && !cfg!(feature = "redis") {
            Some(NO_REDIS)
        } else {
            None
        }
    }
}
