//! The command line and environment of a generated adapter binary.
//!
//! Flags beat environment variables (`MCP_AQL_ENDPOINT_MODE`, `MCP_AQL_TOOL_PREFIX`), which
//! beat the defaults: CRUDE tools, no prefix, stdio, the specification's payload limits.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use aqlgen_model::{DangerLevel, TrustLevel};
use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};

use super::cache::parse_bytes;
use super::resource::{Introspection, ResourceConfig, ScopeRules, Selector};
use super::values::{
    parse_danger, parse_header_name, parse_limit, parse_mode, parse_number, parse_oauth_url,
    parse_origin, parse_prefix, parse_trust,
};
use super::{
    Backend, CacheConfig, CacheTtl, Channel, Config, ConfirmConfig, EndpointMode, Fallback, Glob,
    Limits, LogFormat, LoopConfig, LoopMode, QueryConfig, Quota, SafetyConfig, TokenConfig,
    ToolSchema, Transport, TransportLimits, parse_rate_limit,
};
use crate::adapter::{RateLimit, ScanLimits, ServerInfo};

/// One configurable limit: flag name, allowed range, what it sets.
struct LimitFlag {
    flag: &'static str,
    min: usize,
    max: usize,
    help: &'static str,
    set: fn(&mut Limits, usize),
    get: fn(&Limits) -> usize,
}

const LIMIT_FLAGS: [LimitFlag; 6] = [
    LimitFlag {
        flag: "max-request-size",
        min: 64 * 1024,
        max: 10 * 1024 * 1024,
        help: "Largest accepted request, in bytes (65536..=10485760)",
        set: |l, v| l.max_request_size = v,
        get: |l| l.max_request_size,
    },
    LimitFlag {
        flag: "max-response-size",
        min: 1024 * 1024,
        max: 100 * 1024 * 1024,
        help: "Largest accepted upstream answer, in bytes (1048576..=104857600)",
        set: |l, v| l.max_response_size = v,
        get: |l| l.max_response_size,
    },
    LimitFlag {
        flag: "max-string-length",
        min: 64 * 1024,
        max: 10 * 1024 * 1024,
        help: "Longest accepted string, in bytes (65536..=10485760)",
        set: |l, v| l.max_string_length = v,
        get: |l| l.max_string_length,
    },
    LimitFlag {
        flag: "max-array-elements",
        min: 100,
        max: 100_000,
        help: "Most elements in one array (100..=100000)",
        set: |l, v| l.max_array_elements = v,
        get: |l| l.max_array_elements,
    },
    LimitFlag {
        flag: "max-nesting-depth",
        min: 8,
        max: 64,
        help: "Deepest accepted nesting; the arguments object is level 1 (8..=64)",
        set: |l, v| l.max_nesting_depth = v,
        get: |l| l.max_nesting_depth,
    },
    LimitFlag {
        flag: "max-batch-size",
        min: 1,
        max: 100,
        help: "Most operations in one batch request (1..=100)",
        set: |l, v| l.max_batch_size = v,
        get: |l| l.max_batch_size,
    },
];

/// One numeric setting: flag, environment variable, allowed range, unit, what it sets.
struct NumberFlag<T> {
    flag: &'static str,
    env: &'static str,
    min: u64,
    max: u64,
    seconds: bool,
    help: &'static str,
    set: fn(&mut T, u64),
}

impl<T> NumberFlag<T> {
    fn arg(&self) -> Arg {
        let (min, max, seconds) = (self.min, self.max, self.seconds);
        Arg::new(self.flag)
            .long(self.flag)
            .env(self.env)
            .value_parser(move |text: &str| parse_number(text, min, max, seconds))
            .help(self.help)
    }

    fn apply(&self, matches: &ArgMatches, target: &mut T) {
        if let Some(value) = matches.get_one::<u64>(self.flag) {
            (self.set)(target, *value);
        }
    }
}

const TTL_FLAGS: [NumberFlag<TokenConfig>; 4] = [
    NumberFlag {
        flag: "confirmation-ttl",
        env: "MCP_AQL_CONFIRMATION_TTL",
        min: 1,
        max: 900,
        help: "Seconds a confirmation token lives, for operations below forbidden (1..=900) [default: 300]",
        seconds: true,
        set: |c, v| c.confirmation_ttl = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "forbidden-confirmation-ttl",
        env: "MCP_AQL_FORBIDDEN_CONFIRMATION_TTL",
        min: 1,
        max: 300,
        help: "Seconds a confirmation token of a forbidden operation lives (1..=300) [default: 120]",
        seconds: true,
        set: |c, v| c.forbidden_ttl = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "quota-continue-ttl",
        env: "MCP_AQL_QUOTA_CONTINUE_TTL",
        min: 1,
        max: 600,
        help: "Seconds a quota continuation token lives (1..=600) [default: 300]",
        seconds: true,
        set: |c, v| c.quota_ttl = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "clock-skew-tolerance",
        env: "MCP_AQL_CLOCK_SKEW_TOLERANCE",
        min: 0,
        max: 300,
        help: "Seconds a token is still accepted past its expiry (0..=300) [default: 30]",
        seconds: true,
        set: |c, v| c.clock_skew = Duration::from_secs(v),
    },
];

const TRANSPORT_FLAGS: [NumberFlag<TransportLimits>; 8] = [
    NumberFlag {
        flag: "max-sessions",
        env: "MCP_AQL_MAX_SESSIONS",
        min: 1,
        max: 100_000,
        seconds: false,
        help: "Open HTTP sessions at most; more initialize requests get 503 (1..=100000) [default: 256]",
        set: |t, v| t.max_sessions = v,
    },
    NumberFlag {
        flag: "session-idle-timeout",
        env: "MCP_AQL_SESSION_IDLE_TIMEOUT",
        min: 10,
        max: 86_400,
        seconds: true,
        help: "Seconds an HTTP session may sit without a request before it is closed (10..=86400) [default: 300]",
        set: |t, v| t.session_idle_timeout = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "max-connections",
        env: "MCP_AQL_MAX_CONNECTIONS",
        min: 1,
        max: 65_536,
        seconds: false,
        help: "Open HTTP connections at most; more are answered 503 and closed (1..=65536) [default: 512]",
        set: |t, v| t.max_connections = v,
    },
    NumberFlag {
        flag: "header-timeout",
        env: "MCP_AQL_HEADER_TIMEOUT",
        min: 1,
        max: 300,
        seconds: true,
        help: "Seconds a client has to send a request's headers (1..=300) [default: 10]",
        set: |t, v| t.header_timeout = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "body-timeout",
        env: "MCP_AQL_BODY_TIMEOUT",
        min: 1,
        max: 600,
        seconds: true,
        help: "Seconds a client has to send a request's body (1..=600) [default: 30]",
        set: |t, v| t.body_timeout = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "idle-timeout",
        env: "MCP_AQL_IDLE_TIMEOUT",
        min: 1,
        max: 3_600,
        seconds: true,
        help: "Seconds an HTTP connection may move no byte before it is closed; keep it above 15, the SSE keep-alive interval (1..=3600) [default: 60]",
        set: |t, v| t.idle_timeout = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "upstream-read-timeout",
        env: "MCP_AQL_UPSTREAM_READ_TIMEOUT",
        min: 1,
        max: 300,
        seconds: true,
        help: "Seconds to wait for the next piece of an upstream answer (1..=300) [default: 10]",
        set: |t, v| t.upstream_read_timeout = Duration::from_secs(v),
    },
    NumberFlag {
        flag: "drain-timeout",
        env: "MCP_AQL_DRAIN_TIMEOUT",
        min: 0,
        max: 3_600,
        seconds: true,
        help: "Seconds calls in flight get to finish once the server stops taking connections, on SIGTERM or after handing over to a new binary (0..=3600) [default: 30]",
        set: |t, v| t.drain_timeout = Duration::from_secs(v),
    },
];

impl Config {
    /// The clap command of an adapter binary, named and versioned after the adapter (or the
    /// bundle).
    pub fn command(info: &'static ServerInfo) -> Command {
        let mut command = Command::new(info.name)
            .version(info.version)
            .about(format!(
                "MCP-AQL server for the {} API: {}",
                info.name, info.description
            ))
            .arg(
                Arg::new("transport")
                    .long("transport")
                    .value_parser(["stdio", "http"])
                    .default_value("stdio")
                    .help("MCP transport: stdio, or streamable HTTP on /mcp"),
            )
            .arg(
                Arg::new("port")
                    .long("port")
                    .value_parser(value_parser!(u16))
                    .default_value("8080")
                    .help("Port of the HTTP transport (0 picks a free port)"),
            )
            .arg(
                Arg::new("bind")
                    .long("bind")
                    .value_parser(value_parser!(IpAddr))
                    .default_value("127.0.0.1")
                    .help("Address the HTTP transport listens on"),
            )
            .arg(
                Arg::new("allow-unauthenticated-remote")
                    .long("allow-unauthenticated-remote")
                    .env("MCP_AQL_ALLOW_UNAUTHENTICATED_REMOTE")
                    .action(ArgAction::SetTrue)
                    .help("Serve callers beyond loopback with this server's own upstream credential, unauthenticated (say so only behind a proxy that authenticates them); without it, a --bind beyond loopback needs --credential-header"),
            )
            .arg(
                Arg::new("log-format")
                    .long("log-format")
                    .env("MCP_AQL_LOG_FORMAT")
                    .value_parser(LogFormat::parse)
                    .help("Log lines on stderr: text (the default) or json, one object per line"),
            )
            .arg(
                Arg::new("state")
                    .long("state")
                    .env("MCP_AQL_STATE")
                    .hide_env_values(true)
                    .value_parser(Backend::parse)
                    .help(
                        "Where confirmation tokens, rate-limit and quota counters live: memory \
                         (this process, the default), file:PATH (this process, kept in PATH \
                         across restarts) or redis://[:password@]host:port[/db], shared by \
                         every instance on it",
                    ),
            )
            .arg(
                Arg::new("authorization-server")
                    .long("authorization-server")
                    .env("MCP_AQL_AUTHORIZATION_SERVERS")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(parse_oauth_url)
                    .help("HTTP only: serve /mcp only to bearer access tokens (JWTs) this authorization server issued for --resource, exactly as its issuer identifier reads (comma-separated, repeatable) [default: no tokens asked for]"),
            )
            .arg(
                Arg::new("resource")
                    .long("resource")
                    .env("MCP_AQL_RESOURCE")
                    .value_parser(parse_oauth_url)
                    .help("This server's resource identifier: the audience access tokens must name, e.g. https://mcp.example.com/mcp"),
            )
            .arg(
                Arg::new("scope")
                    .long("scope")
                    .env("MCP_AQL_SCOPES")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(ScopeRules::parse_item)
                    .help("SELECTOR=SCOPE: the operations the selector picks (a category such as read, a danger level such as destructive, or an operation name) need this scope of the access token (comma-separated, repeatable)"),
            )
            .arg(
                Arg::new("user-credentials")
                    .long("user-credentials")
                    .env("MCP_AQL_USER_CREDENTIALS")
                    .value_parser(value_parser!(PathBuf))
                    .help("With --authorization-server: a JSON file from token subject to that user's upstream credential, sent in place of the server's; a caller without an entry is refused [default: the server's credential]"),
            )
            .arg(
                Arg::new("introspection-client-id")
                    .long("introspection-client-id")
                    .env("MCP_AQL_INTROSPECTION_CLIENT_ID")
                    .help("With --authorization-server: take opaque access tokens too, checked at the authorization server's introspection endpoint (RFC 7662) as this client, its secret in MCP_AQL_INTROSPECTION_CLIENT_SECRET [default: JWTs only]"),
            )
            .arg(
                Arg::new("introspection-issuer")
                    .long("introspection-issuer")
                    .env("MCP_AQL_INTROSPECTION_ISSUER")
                    .value_parser(parse_oauth_url)
                    .help("With --introspection-client-id and several --authorization-server: the one whose introspection endpoint checks opaque tokens; no other ever sees them or the client secret [default: the only authorization server]"),
            )
            .arg(
                Arg::new("jwks-max-age")
                    .long("jwks-max-age")
                    .env("MCP_AQL_JWKS_MAX_AGE")
                    .value_parser(|text: &str| parse_number(text, 2, 86_400, true))
                    .help("Seconds the authorization servers' signing keys are kept at most before they are read again, whatever their Cache-Control says (2..=86400); a removed key stops verifying within twice this [default: 600]"),
            )
            .arg(
                Arg::new("token-clock-skew")
                    .long("token-clock-skew")
                    .env("MCP_AQL_TOKEN_CLOCK_SKEW")
                    .value_parser(|text: &str| parse_number(text, 0, 300, true))
                    .help("Seconds an access token's exp and nbf may be off this server's clock (0..=300) [default: 60]"),
            )
            .arg(
                Arg::new("otlp-endpoint")
                    .long("otlp-endpoint")
                    .env("OTEL_EXPORTER_OTLP_ENDPOINT")
                    .help("Send a span of each call and of its upstream request to this OTLP/HTTP receiver (JSON, <URL>/v1/traces), continuing the client's _meta.traceparent; spans hold operation names, decisions and statuses, never params or credentials [default: no traces]"),
            )
            .arg(
                Arg::new("cache")
                    .long("cache")
                    .env("MCP_AQL_CACHE")
                    .value_parser(["on", "off"])
                    .help("Keep READ answers the upstream lets be kept (Cache-Control, Expires, ETag), per upstream credential, revalidated with If-None-Match / If-Modified-Since and dropped when a mutation touches their path [default: on]"),
            )
            .arg(
                Arg::new("cache-max-bytes")
                    .long("cache-max-bytes")
                    .env("MCP_AQL_CACHE_MAX_BYTES")
                    .value_parser(parse_bytes)
                    .help("Bytes of answers one instance keeps, least recently used dropped first; bytes or with a KiB, MiB or GiB suffix [default: 16MiB]"),
            )
            .arg(
                Arg::new("cache-ttl")
                    .long("cache-ttl")
                    .env("MCP_AQL_CACHE_TTL")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(CacheTtl::parse_item)
                    .help("Seconds answers stay fresh: OPERATION=SECONDS for one operation (wins over the upstream's freshness, never over its no-store), SECONDS alone for answers whose upstream gives none (0..=86400) [default: the upstream's only]"),
            )
            .arg(
                Arg::new("stateless")
                    .long("stateless")
                    .env("MCP_AQL_STATELESS")
                    .action(ArgAction::SetTrue)
                    .help(
                        "HTTP without sessions: any instance behind a load balancer serves any \
                         request, and tokens are bound to the caller's Authorization header",
                    ),
            )
            .arg(
                Arg::new("credential-header")
                    .long("credential-header")
                    .env("MCP_AQL_CREDENTIAL_HEADER")
                    .value_parser(parse_header_name)
                    .help(
                        "HTTP only: each request brings its own upstream credential in this \
                         header (authorization: the token after its scheme word), in place of \
                         the server's environment; a request without it is refused",
                    ),
            )
            .arg(
                Arg::new("allowed-origin")
                    .long("allowed-origin")
                    .env("MCP_AQL_ALLOWED_ORIGINS")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(parse_origin)
                    .help(
                        "A browser origin the HTTP transport accepts besides loopback ones, \
                         e.g. https://app.example.com or http://intranet:* (comma-separated, repeatable)",
                    ),
            )
            .arg(
                Arg::new("mode")
                    .long("mode")
                    .env("MCP_AQL_ENDPOINT_MODE")
                    .value_parser(parse_mode)
                    .help("Endpoint mode: crude (alias semantic), single or all [default: crude]"),
            )
            .arg(
                Arg::new("tool-prefix")
                    .long("tool-prefix")
                    .env("MCP_AQL_TOOL_PREFIX")
                    .value_parser(parse_prefix)
                    .help(
                        "Prefix for every tool name: lowercase letters, digits, '_', ending in '_'",
                    ),
            )
            .arg(
                Arg::new("tool-schema")
                    .long("tool-schema")
                    .env("MCP_AQL_TOOL_SCHEMA")
                    .value_parser(ToolSchema::parse)
                    .help(
                        "The tools' input schema: mcp (the default), or openai-strict or gemini \
                         for hosts that hand tools to those function-calling APIs unchanged \
                         (params then travel as JSON text)",
                    ),
            );
        for limit in &LIMIT_FLAGS {
            let (min, max) = (limit.min, limit.max);
            command = command.arg(
                Arg::new(limit.flag)
                    .long(limit.flag)
                    .action(ArgAction::Set)
                    .value_parser(move |text: &str| parse_limit(text, min, max))
                    .help(limit.help),
            );
        }
        command = command
            .arg(
                Arg::new("trust-level")
                    .long("trust-level")
                    .env("MCP_AQL_TRUST_LEVEL")
                    .value_parser(parse_trust)
                    .help("Trust level you vouch for, over the schema's: untested, generated, validated, community_reviewed or certified (or untrusted, low, medium, high, verified)"),
            )
            .arg(
                Arg::new("confirm-at")
                    .long("confirm-at")
                    .env("MCP_AQL_CONFIRM_AT")
                    .value_parser(parse_danger)
                    .help("Confirm every operation at or above this danger level: safe, reversible, destructive, dangerous or forbidden"),
            )
            .arg(
                Arg::new("deny")
                    .long("deny")
                    .env("MCP_AQL_DENY")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(parse_danger)
                    .help("Refuse operations of these danger levels outright (comma-separated, repeatable)"),
            )
            .arg(
                Arg::new("rate-limit")
                    .long("rate-limit")
                    .env("MCP_AQL_RATE_LIMITS")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(parse_rate_limit)
                    .help("Call limit WINDOW=CALLS (window second, minute, hour or day), over the schema's; the lower wins (comma-separated, repeatable)"),
            )
            .arg(
                Arg::new("quota")
                    .long("quota")
                    .env("MCP_AQL_QUOTAS")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(Quota::parse)
                    .help("Request quota METRIC=WARN/PAUSE[/HARD_STOP], metric requests_per_minute, requests_per_hour or requests_per_day (comma-separated, repeatable)"),
            )
            .arg(
                Arg::new("confirm-by")
                    .long("confirm-by")
                    .env("MCP_AQL_CONFIRM_BY")
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .help("Who confirms operations of a danger level that need confirmation: LEVEL=person (the client's user, through an elicitation form), LEVEL=verify (the user, with a code sent on --verify-channel) or LEVEL=token (the model brings back a token); LEVEL may be all (comma-separated, repeatable) [default: all=person]"),
            )
            .arg(
                Arg::new("confirm-fallback")
                    .long("confirm-fallback")
                    .env("MCP_AQL_CONFIRM_FALLBACK")
                    .value_parser(Fallback::parse)
                    .help("When a person should confirm and the client cannot show a form: token (the token flow) or refuse [default: token]"),
            )
            .arg(
                Arg::new("confirm-timeout")
                    .long("confirm-timeout")
                    .env("MCP_AQL_CONFIRM_TIMEOUT")
                    .value_parser(|text: &str| parse_limit(text, 1, 3600))
                    .help("Seconds a person has to answer a confirmation form on a session (1..=3600) [default: 120]"),
            )
            .arg(
                Arg::new("verify-channel")
                    .long("verify-channel")
                    .env("MCP_AQL_VERIFY_CHANNEL")
                    .value_parser(Channel::parse)
                    .help("Where verification codes are sent, out of the model's sight: terminal (the adapter's terminal), file:PATH or an http(s):// webhook URL"),
            )
            .arg(
                Arg::new("verify-ttl")
                    .long("verify-ttl")
                    .env("MCP_AQL_VERIFY_TTL")
                    .value_parser(|text: &str| parse_limit(text, 1, 3600))
                    .help("Seconds a verification code stays valid (1..=3600) [default: 300]"),
            )
            .arg(
                Arg::new("scan-max-pages")
                    .long("scan-max-pages")
                    .env("MCP_AQL_SCAN_MAX_PAGES")
                    .value_parser(|text: &str| parse_limit(text, 1, 1000))
                    .help("Most upstream pages one query reads to filter, sort or aggregate what the API cannot; caps each operation's own bound (1..=1000) [default: 20]"),
            )
            .arg(
                Arg::new("scan-max-items")
                    .long("scan-max-items")
                    .env("MCP_AQL_SCAN_MAX_ITEMS")
                    .value_parser(|text: &str| parse_limit(text, 1, 1_000_000))
                    .help("Most items one query reads (1..=1000000) [default: 5000]"),
            )
            .arg(
                Arg::new("scan-max-bytes")
                    .long("scan-max-bytes")
                    .env("MCP_AQL_SCAN_MAX_BYTES")
                    .value_parser(parse_bytes)
                    .help("Most bytes of upstream answers one query reads; bytes or with a KiB, MiB or GiB suffix [default: 32MiB]"),
            )
            .arg(
                Arg::new("scan-max-seconds")
                    .long("scan-max-seconds")
                    .env("MCP_AQL_SCAN_MAX_SECONDS")
                    .value_parser(|text: &str| parse_limit(text, 1, 600))
                    .help("Most seconds one query reads for (1..=600) [default: 30]"),
            )
            .arg(
                Arg::new("graph-max-nodes")
                    .long("graph-max-nodes")
                    .env("MCP_AQL_GRAPH_MAX_NODES")
                    .value_parser(|text: &str| parse_limit(text, 1, 10_000))
                    .help("Most nodes one relationship query visits (1..=10000) [default: 100]"),
            )
            .arg(
                Arg::new("graph-max-calls")
                    .long("graph-max-calls")
                    .env("MCP_AQL_GRAPH_MAX_CALLS")
                    .value_parser(|text: &str| parse_limit(text, 1, 10_000))
                    .help("Most upstream calls one relationship query makes (1..=10000) [default: 50]"),
            )
            .arg(
                Arg::new("slow-query-ms")
                    .long("slow-query-ms")
                    .env("MCP_AQL_SLOW_QUERY_MS")
                    .value_parser(|text: &str| parse_limit(text, 1, 3_600_000))
                    .help("An answer that takes longer than this many milliseconds says so with PERFORMANCE_SLOW_QUERY_WARNING (1..=3600000) [default: 5000]"),
            )
            .arg(
                Arg::new("execution-wait")
                    .long("execution-wait")
                    .env("MCP_AQL_EXECUTION_WAIT")
                    .value_parser(|text: &str| parse_limit(text, 0, 600))
                    .help("Seconds a call that starts a long-running execution follows it (with progress notifications) before answering its state; get_execution follows it after (0..=600) [default: 20]"),
            )
            .arg(
                Arg::new("safety-loop")
                    .long("safety-loop")
                    .env("MCP_AQL_SAFETY_LOOP")
                    .value_parser(LoopMode::parse)
                    .help("Serve the execution safety loop (execute_agent, record_execution_step, ...): enforcing, monitoring, logging or disabled; enforcing keeps hard blocks in the state store and sends codes out of band, so it needs --state file:PATH or redis:// and --verify-channel [default: disabled]"),
            )
            .arg(
                Arg::new("max-autonomous-steps")
                    .long("max-autonomous-steps")
                    .env("MCP_AQL_MAX_AUTONOMOUS_STEPS")
                    .value_parser(|text: &str| parse_limit(text, 1, 100_000))
                    .help("Steps an agent of the safety loop takes before a mandatory pause for a person (1..=100000) [default: 20]"),
            );
        for (id, env, help) in LOOP_PATTERN_FLAGS {
            command = command.arg(
                Arg::new(id)
                    .long(id)
                    .env(env)
                    .action(ArgAction::Append)
                    .value_delimiter(',')
                    .value_parser(Glob::parse)
                    .help(help),
            );
        }
        command = command.arg(
            Arg::new("audit-log")
                .long("audit-log")
                .env("MCP_AQL_AUDIT_LOG")
                .value_parser(value_parser!(PathBuf))
                .help("Append one JSON line per gate decision to this file"),
        );
        for ttl in &TTL_FLAGS {
            command = command.arg(ttl.arg());
        }
        for flag in &TRANSPORT_FLAGS {
            command = command.arg(flag.arg());
        }
        command
    }

    /// Parses the process arguments; on a usage error, `--help` or `--version` clap prints and
    /// exits, so nothing starts half-configured.
    pub fn from_env(info: &'static ServerInfo) -> Self {
        let mut command = Self::command(info);
        let matches = command.get_matches_mut();
        Self::from_matches(&matches).unwrap_or_else(|message| {
            command
                .error(clap::error::ErrorKind::ArgumentConflict, message)
                .exit()
        })
    }

    /// Builds a configuration from parsed arguments.
    ///
    /// # Errors
    ///
    /// A sentence for the operator when settings conflict (two quotas for one window).
    pub fn from_matches(matches: &ArgMatches) -> Result<Self, String> {
        let defaults = Self::default();
        let mut limits = Limits::default();
        for limit in &LIMIT_FLAGS {
            let value = matches
                .get_one::<usize>(limit.flag)
                .copied()
                .unwrap_or((limit.get)(&limits));
            (limit.set)(&mut limits, value);
        }
        let transport = match matches.get_one::<String>("transport").map(String::as_str) {
            Some("http") => Transport::Http,
            _ => Transport::Stdio,
        };
        let credential_header = matches.get_one::<String>("credential-header").cloned();
        if credential_header.is_some() && transport != Transport::Http {
            return Err(
                "--credential-header needs --transport http: requests bring credentials in HTTP headers"
                    .to_owned(),
            );
        }
        let resource = resource(matches, transport)?;
        let config = Self {
            transport,
            bind: matches
                .get_one::<IpAddr>("bind")
                .copied()
                .unwrap_or(defaults.bind),
            port: matches
                .get_one::<u16>("port")
                .copied()
                .unwrap_or(defaults.port),
            mode: matches
                .get_one::<EndpointMode>("mode")
                .copied()
                .unwrap_or(defaults.mode),
            tool_prefix: matches
                .get_one::<String>("tool-prefix")
                .cloned()
                .unwrap_or_default(),
            tool_schema: matches
                .get_one::<ToolSchema>("tool-schema")
                .copied()
                .unwrap_or_default(),
            limits,
            safety: safety(matches)?,
            transport_limits: {
                let mut transport = TransportLimits::default();
                for flag in &TRANSPORT_FLAGS {
                    flag.apply(matches, &mut transport);
                }
                transport
            },
            allowed_origins: matches
                .get_many::<String>("allowed-origin")
                .map(|values| values.cloned().collect())
                .unwrap_or_default(),
            state: matches
                .get_one::<Backend>("state")
                .cloned()
                .unwrap_or(Backend::Memory),
            stateless: matches.get_flag("stateless"),
            allow_unauthenticated_remote: matches.get_flag("allow-unauthenticated-remote"),
            otlp_endpoint: matches
                .get_one::<String>("otlp-endpoint")
                .filter(|endpoint| !endpoint.trim().is_empty())
                .cloned(),
            cache: CacheConfig {
                enabled: matches
                    .get_one::<String>("cache")
                    .is_none_or(|on| on == "on"),
                max_bytes: matches
                    .get_one::<u64>("cache-max-bytes")
                    .copied()
                    .unwrap_or(defaults.cache.max_bytes),
                ttl: CacheTtl::from_items(
                    matches
                        .get_many::<(Option<String>, Duration)>("cache-ttl")
                        .into_iter()
                        .flatten()
                        .cloned(),
                ),
            },
            credential_header,
            resource,
            execution_wait: matches
                .get_one::<usize>("execution-wait")
                .map_or(defaults.execution_wait, |seconds| {
                    Duration::from_secs(*seconds as u64)
                }),
            query: {
                let limit = |id: &str, default: u64| {
                    matches
                        .get_one::<usize>(id)
                        .map_or(default, |value| *value as u64)
                };
                let scan = defaults.query.scan;
                QueryConfig {
                    scan: ScanLimits {
                        max_pages: limit("scan-max-pages", scan.max_pages),
                        max_items: limit("scan-max-items", scan.max_items),
                        max_bytes: matches
                            .get_one::<u64>("scan-max-bytes")
                            .copied()
                            .unwrap_or(scan.max_bytes),
                        max_seconds: limit("scan-max-seconds", scan.max_seconds),
                    },
                    graph_max_nodes: limit("graph-max-nodes", defaults.query.graph_max_nodes),
                    graph_max_calls: limit("graph-max-calls", defaults.query.graph_max_calls),
                    slow: Duration::from_millis(limit(
                        "slow-query-ms",
                        defaults.query.slow.as_millis() as u64,
                    )),
                }
            },
        };
        if config.safety.safety_loop.mode == LoopMode::Enforcing
            && config.safety.confirm.channel.is_none()
        {
            return Err("--safety-loop enforcing hard-blocks an agent on a deny match until a person types a code sent out of band (SPEC §8.8): give --verify-channel (terminal, file:PATH or a webhook URL)".to_owned());
        }
        if config.safety.safety_loop.mode == LoopMode::Enforcing && config.state == Backend::Memory
        {
            return Err("--safety-loop enforcing keeps hard blocks across restarts (SPEC §8.8.3): give --state file:PATH or --state redis://...".to_owned());
        }
        match config.unbuilt() {
            Some(missing) => Err(missing.to_owned()),
            None => Ok(config),
        }
    }
}

/// The resource server's settings, when `--authorization-server` is given.
fn resource(matches: &ArgMatches, transport: Transport) -> Result<Option<ResourceConfig>, String> {
    let issuers: Vec<String> = matches
        .get_many::<String>("authorization-server")
        .map(|values| values.cloned().collect())
        .unwrap_or_default();
    let rules: Vec<(Selector, String)> = matches
        .get_many::<(Selector, String)>("scope")
        .map(|values| values.cloned().collect())
        .unwrap_or_default();
    let resource = matches.get_one::<String>("resource").cloned();
    let user_credentials = matches.get_one::<PathBuf>("user-credentials").cloned();
    let introspection_client = matches
        .get_one::<String>("introspection-client-id")
        .cloned();
    let introspection_issuer = matches.get_one::<String>("introspection-issuer").cloned();
    if issuers.is_empty() {
        let configured = resource.is_some()
            || user_credentials.is_some()
            || introspection_client.is_some()
            || introspection_issuer.is_some();
        return match (configured, rules.is_empty()) {
            (false, true) => Ok(None),
            _ => Err("--resource, --scope, --user-credentials, --introspection-client-id and --introspection-issuer configure the resource server: give --authorization-server too".to_owned()),
        };
    }
    if transport != Transport::Http {
        return Err("--authorization-server needs --transport http: over stdio the client that starts the server is its only caller".to_owned());
    }
    let resource = resource.ok_or(
        "--authorization-server needs --resource: the identifier access tokens must name as their audience, e.g. https://mcp.example.com/mcp",
    )?;
    if user_credentials.is_some() && matches.get_one::<String>("credential-header").is_some() {
        return Err("--user-credentials and --credential-header both say where a caller's upstream credential comes from: give one".to_owned());
    }
    Ok(Some(ResourceConfig {
        resource,
        scopes: ScopeRules { rules },
        clock_skew: Duration::from_secs(
            matches
                .get_one::<u64>("token-clock-skew")
                .copied()
                .unwrap_or(60),
        ),
        user_credentials,
        introspection: introspection(&issuers, introspection_client, introspection_issuer)?,
        keys_max_age: Duration::from_secs(
            matches
                .get_one::<u64>("jwks-max-age")
                .copied()
                .unwrap_or(600),
        ),
        issuers,
    }))
}

/// Where opaque tokens are checked: at `issuer`, which must be one of `issuers`, or at the
/// only one.
fn introspection(
    issuers: &[String],
    client: Option<String>,
    issuer: Option<String>,
) -> Result<Option<Introspection>, String> {
    let Some(client) = client else {
        return match issuer {
            Some(_) => Err("--introspection-issuer names where --introspection-client-id checks opaque tokens: give --introspection-client-id too".to_owned()),
            None => Ok(None),
        };
    };
    let issuer = match (issuer, issuers) {
        (Some(issuer), _) if issuers.contains(&issuer) => issuer,
        (Some(issuer), _) => {
            return Err(format!(
                "--introspection-issuer '{issuer}' is none of the --authorization-server values ({})",
                issuers.join(", ")
            ));
        }
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err("--introspection-client-id with several --authorization-server: give --introspection-issuer, the one whose introspection endpoint checks opaque tokens (an opaque token and the client secret go to that one only)".to_owned());
        }
    };
    Ok(Some(Introspection { issuer, client }))
}

fn safety(matches: &ArgMatches) -> Result<SafetyConfig, String> {
    let all = |id: &str| -> Vec<DangerLevel> {
        matches
            .get_many::<DangerLevel>(id)
            .map(|values| values.copied().collect())
            .unwrap_or_default()
    };
    let mut deny = all("deny");
    deny.sort();
    deny.dedup();
    let quotas: Vec<Quota> = matches
        .get_many::<Quota>("quota")
        .map(|values| values.copied().collect())
        .unwrap_or_default();
    for (index, quota) in quotas.iter().enumerate() {
        if quotas[..index]
            .iter()
            .any(|other| other.window == quota.window)
        {
            return Err(format!(
                "two quotas for {}: give each metric once",
                quota.metric()
            ));
        }
    }
    let mut tokens = TokenConfig::default();
    for ttl in &TTL_FLAGS {
        ttl.apply(matches, &mut tokens);
    }
    let mut confirm = ConfirmConfig::default();
    for text in matches
        .get_many::<String>("confirm-by")
        .into_iter()
        .flatten()
    {
        confirm.apply(text)?;
    }
    if let Some(fallback) = matches.get_one::<Fallback>("confirm-fallback") {
        confirm.fallback = *fallback;
    }
    if let Some(seconds) = matches.get_one::<usize>("confirm-timeout") {
        confirm.answer_timeout = Duration::from_secs(*seconds as u64);
    }
    if let Some(seconds) = matches.get_one::<usize>("verify-ttl") {
        confirm.challenge_ttl = Duration::from_secs(*seconds as u64);
    }
    confirm.channel = matches.get_one::<Channel>("verify-channel").cloned();
    let mut safety_loop = LoopConfig::default();
    if let Some(mode) = matches.get_one::<LoopMode>("safety-loop") {
        safety_loop.mode = *mode;
    }
    if let Some(steps) = matches.get_one::<usize>("max-autonomous-steps") {
        safety_loop.max_steps = *steps as u64;
    }
    let patterns = |id: &str| -> Option<Vec<Glob>> {
        matches
            .get_many::<Glob>(id)
            .map(|values| values.cloned().collect())
    };
    if let Some(deny) = patterns(LOOP_PATTERN_FLAGS[0].0) {
        safety_loop.deny = deny;
    }
    if let Some(approval) = patterns(LOOP_PATTERN_FLAGS[1].0) {
        safety_loop.requires_approval = approval;
    }
    if let Some(auto) = patterns(LOOP_PATTERN_FLAGS[2].0) {
        safety_loop.auto_approve = auto;
    }
    if let Some(problem) = confirm.problem() {
        return Err(problem);
    }
    Ok(SafetyConfig {
        trust_level: matches.get_one::<TrustLevel>("trust-level").copied(),
        confirm_at: matches.get_one::<DangerLevel>("confirm-at").copied(),
        deny,
        tokens,
        rate_limits: matches
            .get_many::<RateLimit>("rate-limit")
            .map(|values| values.copied().collect())
            .unwrap_or_default(),
        quotas,
        audit_log: matches.get_one::<PathBuf>("audit-log").cloned(),
        confirm,
        safety_loop,
    })
}

/// The safety loop's pattern lists: flag, environment variable, help. Each flag replaces its
/// list's defaults (the specification's examples, §8.7.2).
const LOOP_PATTERN_FLAGS: [(&str, &str, &str); 3] = [
    (
        "loop-deny",
        "MCP_AQL_LOOP_DENY",
        "Glob patterns of reported actions that hard-block the agent until a person verifies a code (comma-separated, repeatable) [default: drop_*,delete_all*,rm -rf*]",
    ),
    (
        "loop-requires-approval",
        "MCP_AQL_LOOP_REQUIRES_APPROVAL",
        "Glob patterns of reported actions that pause the agent for a person's approval (comma-separated, repeatable) [default: delete_*,*force*,deploy_*,git push*]",
    ),
    (
        "loop-auto-approve",
        "MCP_AQL_LOOP_AUTO_APPROVE",
        "Glob patterns of reported actions that continue without further evaluation (comma-separated, repeatable) [default: read_*,list_*,get_*,search_*]",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    static INFO: ServerInfo = ServerInfo {
        name: "demo",
        version: "1.2.3",
        description: "Demo",
        schema_fingerprint: "sha256:00",
    };

    fn parse(args: &[&str]) -> Result<Config, String> {
        let matches = Config::command(&INFO)
            .try_get_matches_from(std::iter::once("demo").chain(args.iter().copied()))
            .map_err(|error| error.to_string())?;
        Config::from_matches(&matches)
    }

    /// Beyond loopback, the server's own credential is served only to callers who bring
    /// their own, or when the operator says unauthenticated callers are intended.
    #[test]
    fn a_server_credential_is_not_served_beyond_loopback_by_default() {
        use crate::adapter::Auth;
        let bearer = Auth::Bearer {
            token_env: "DEMO_TOKEN",
            header: "authorization",
            prefix: "Bearer ",
        };
        let http = |bind: [u8; 4]| Config {
            transport: Transport::Http,
            bind: IpAddr::from(bind),
            ..Config::default()
        };
        let refusal = http([0, 0, 0, 0]).exposure(&[bearer]).expect("refused");
        assert!(refusal.contains("--credential-header"), "{refusal}");
        assert!(
            refusal.contains("--allow-unauthenticated-remote"),
            "{refusal}"
        );
        assert_eq!(http([127, 0, 0, 1]).exposure(&[bearer]), None);
        assert_eq!(
            http([0, 0, 0, 0]).exposure(&[Auth::None]),
            None,
            "no credential to serve"
        );
        let own = Config {
            credential_header: Some("authorization".to_owned()),
            ..http([0, 0, 0, 0])
        };
        assert_eq!(own.exposure(&[bearer]), None);
        let said = parse(&["--allow-unauthenticated-remote"]).expect("parses");
        assert!(said.allow_unauthenticated_remote);
        let said = Config {
            allow_unauthenticated_remote: true,
            ..http([0, 0, 0, 0])
        };
        assert_eq!(said.exposure(&[bearer]), None);
        let stdio = Config {
            bind: IpAddr::from([0, 0, 0, 0]),
            ..Config::default()
        };
        assert_eq!(stdio.exposure(&[bearer]), None, "stdio listens nowhere");
        let bundle = [bearer, Auth::None, bearer];
        assert!(
            own.exposure(&bundle).is_some(),
            "a caller's credential covers one adapter of a bundle, not two"
        );
        let behind = Config {
            resource: Some(super::ResourceConfig {
                issuers: vec!["https://login.example.com".to_owned()],
                resource: "https://mcp.example.com/mcp".to_owned(),
                scopes: super::ScopeRules::default(),
                clock_skew: Duration::from_secs(60),
                user_credentials: None,
                introspection: None,
                keys_max_age: Duration::from_secs(600),
            }),
            ..http([0, 0, 0, 0])
        };
        assert_eq!(
            behind.exposure(&bundle),
            None,
            "callers bring access tokens"
        );
    }

    #[test]
    fn the_resource_server_is_configured_whole_and_over_http() {
        let stdio = parse(&["--authorization-server", "https://login.example.com"]);
        assert!(stdio.is_err_and(|error| error.contains("--transport http")));
        let alone = parse(&["--resource", "https://mcp.example.com/mcp"]);
        assert!(alone.is_err_and(|error| error.contains("--authorization-server")));
        for bad in [
            "http://login.example.com",
            "https://login.example.com/?x=1",
            "login",
        ] {
            assert!(
                parse(&["--authorization-server", bad]).is_err(),
                "{bad} is no issuer to trust"
            );
        }
        assert!(parse(&["--scope", "read"]).is_err());
    }

    #[cfg(feature = "http")]
    #[test]
    fn opaque_tokens_go_to_one_authorization_server() {
        let base = [
            "--transport",
            "http",
            "--resource",
            "https://mcp.example.com/mcp",
            "--introspection-client-id",
            "mcp",
        ];
        let with = |extra: &[&str]| {
            let mut args: Vec<&str> = base.to_vec();
            args.extend_from_slice(extra);
            parse(&args)
        };
        let one = with(&["--authorization-server", "https://a.example.com"]).expect("parses");
        let introspection = one.resource.and_then(|resource| resource.introspection);
        assert_eq!(
            introspection.map(|introspection| introspection.issuer),
            Some("https://a.example.com".to_owned())
        );
        let two = |named: Option<&'static str>| {
            let mut args = vec![
                "--authorization-server",
                "https://a.example.com,https://b.example.com",
            ];
            args.extend(
                named
                    .map(|issuer| ["--introspection-issuer", issuer])
                    .into_iter()
                    .flatten(),
            );
            with(&args)
        };
        let unnamed = two(None).expect_err("which one is asked");
        assert!(unnamed.contains("--introspection-issuer"), "{unnamed}");
        let stranger = two(Some("https://c.example.com"));
        assert!(stranger.is_err_and(|error| error.contains("none of")));
        let named = two(Some("https://b.example.com")).expect("parses");
        let introspection = named.resource.and_then(|resource| resource.introspection);
        assert_eq!(
            introspection.map(|introspection| introspection.issuer),
            Some("https://b.example.com".to_owned())
        );
    }

    #[test]
    fn flags_parse_and_limits_are_range_checked() {
        let config = parse(&[
            "--port",
            "0",
            "--mode",
            "single",
            "--tool-prefix",
            "gh_",
            "--max-nesting-depth",
            "8",
        ])
        .expect("valid flags");
        assert_eq!(config.port, 0);
        assert_eq!(config.mode, EndpointMode::Single);
        assert_eq!(config.tool_prefix, "gh_");
        assert_eq!(config.limits.max_nesting_depth, 8);
        assert_eq!(config.bind, IpAddr::from([127, 0, 0, 1]));
        assert!(parse(&["--max-nesting-depth", "7"]).is_err());
        assert!(parse(&["--tool-prefix", "Bad"]).is_err());
        assert_eq!(parse(&[]).expect("defaults"), Config::default());
    }

    #[test]
    fn allowed_origins_are_checked_and_pinned_to_a_port() {
        let config = parse(&[
            "--allowed-origin",
            "https://app.example.com,http://intranet:*",
            "--allowed-origin",
            "http://[::1]:3000",
        ])
        .expect("parses");
        assert_eq!(
            config.allowed_origins,
            [
                "https://app.example.com:443",
                "http://intranet:*",
                "http://[::1]:3000"
            ]
        );
        for bad in [
            "app.example.com",
            "ftp://x",
            "https://x/path",
            "https://x:99999",
            "https://",
        ] {
            assert!(parse(&["--allowed-origin", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn safety_flags_parse_and_bad_values_stop_start_up() {
        let config = parse(&[
            "--trust-level",
            "medium",
            "--confirm-at",
            "reversible",
            "--deny",
            "forbidden,dangerous",
            "--deny",
            "forbidden",
            "--rate-limit",
            "minute=3,day=100",
            "--quota",
            "requests_per_hour=1/2/3",
            "--confirmation-ttl",
            "2",
            "--clock-skew-tolerance",
            "0",
        ])
        .expect("valid flags");
        let safety = config.safety;
        assert_eq!(safety.trust_level, Some(TrustLevel::Validated));
        assert_eq!(safety.confirm_at, Some(DangerLevel::Reversible));
        assert_eq!(
            safety.deny,
            [DangerLevel::Dangerous, DangerLevel::Forbidden]
        );
        assert_eq!(safety.rate_limits.len(), 2);
        assert_eq!(safety.quotas.len(), 1);
        assert_eq!(safety.tokens.confirmation_ttl, Duration::from_secs(2));
        assert_eq!(safety.tokens.clock_skew, Duration::ZERO);
        assert_eq!(safety.tokens.forbidden_ttl, Duration::from_secs(120));
        for bad in [
            &["--trust-level", "trusted"][..],
            &["--confirm-at", "risky"],
            &["--deny", "safe,nope"],
            &["--rate-limit", "week=3"],
            &["--quota", "requests_per_hour=5/1"],
            &[
                "--quota",
                "requests_per_hour=1/2",
                "--quota",
                "requests_per_hour=3/4",
            ],
            &["--confirmation-ttl", "901"],
            &["--forbidden-confirmation-ttl", "301"],
            &["--clock-skew-tolerance", "301"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_build_refuses_what_it_leaves_out() {
        let http = parse(&["--transport", "http"]);
        assert_eq!(
            http.map(|config| config.transport).ok(),
            cfg!(feature = "http").then_some(Transport::Http)
        );
        let redis = parse(&["--state", "redis://127.0.0.1:6379"]);
        assert_eq!(redis.is_ok(), cfg!(feature = "redis"), "{redis:?}");
    }
}
