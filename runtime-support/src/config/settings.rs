//! Every setting of a generated server, stated once: its flag (also its key in a config file),
//! environment variable, default, accepted values, help and the heading it is listed under.
//! [`command`] builds the clap command from this table; `--help` shows each default and range
//! from here, and the readers in `flags.rs` take what clap resolved.

use std::ffi::OsString;
use std::ops::Range;
use std::path::PathBuf;

use clap::builder::ValueParser;
use clap::{Arg, ArgAction, Command, value_parser};

use super::cache::parse_bytes;
use super::client::Client;
use super::resource::ScopeRules;
use super::values::{
    parse_danger, parse_header_name, parse_mode, parse_number, parse_oauth_url, parse_on_off,
    parse_origin, parse_prefix, parse_trust,
};
use super::{
    Backend, CacheTtl, Channel, Fallback, Glob, LogFormat, LoopMode, Quota, ToolSchema, Transport,
    parse_rate_limit,
};
use crate::adapter::{AdapterInfo, ServerInfo};

/// The flag naming a config file, and its environment variable.
pub(super) const CONFIG_FLAG: &str = "config";
/// The flag that prints a client's configuration instead of serving.
pub(super) const PRINT_CONFIG_FLAG: &str = "print-config";
pub(super) const CONFIG_ENV: &str = "MCP_AQL_CONFIG";

/// The flag that lists every setting: `-h` lists those a first run needs.
pub(super) const HELP_FLAG: &str = "help";

/// One setting.
pub(super) struct Setting {
    /// The long flag without its dashes: also clap's id and the config file's key.
    pub flag: &'static str,
    pub env: &'static str,
    /// What a process takes when neither flag, environment nor config file sets it; `None`
    /// for settings that are off or empty unless given. A list's default is comma-separated.
    pub default: Option<&'static str>,
    pub value: Value,
    pub help: &'static str,
    /// Listed by `-h` as well as `--help`.
    pub essential: bool,
}

/// What a setting accepts.
pub(super) enum Value {
    /// A switch: given or not (`true` or `false` in the environment and a config file).
    Switch,
    /// A whole number within `min..=max`, in `unit`.
    Number { min: u64, max: u64, unit: Unit },
    /// A size in bytes, or with a KiB, MiB or GiB suffix.
    Size,
    /// One value, checked by the parser.
    One(&'static str, fn() -> ValueParser),
    /// Several values, comma-separated or the flag repeated, each checked by the parser.
    List(&'static str, fn() -> ValueParser),
}

/// The unit of a [`Value::Number`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Count,
    Bytes,
    Seconds,
    Milliseconds,
}

/// Settings listed together under one heading.
pub(super) struct Group {
    pub heading: &'static str,
    pub settings: &'static [Setting],
}

const fn number(min: u64, max: u64, unit: Unit) -> Value {
    Value::Number { min, max, unit }
}

/// Every setting, by group, in the order `--help` lists them.
pub(super) const GROUPS: &[Group] = &[
    Group {
        heading: "Transport",
        settings: &[
            Setting {
                flag: "transport",
                env: "MCP_AQL_TRANSPORT",
                default: Some("stdio"),
                value: Value::One("stdio|http", || ValueParser::new(Transport::parse)),
                help: "MCP transport: stdio, or streamable HTTP on /mcp",
                essential: true,
            },
            Setting {
                flag: "port",
                env: "MCP_AQL_PORT",
                default: Some("8080"),
                value: Value::One("PORT", || value_parser!(u16).into()),
                help: "Port of the HTTP transport (0 picks a free port)",
                essential: true,
            },
            Setting {
                flag: "bind",
                env: "MCP_AQL_BIND",
                default: Some("127.0.0.1"),
                value: Value::One("ADDR", || value_parser!(std::net::IpAddr).into()),
                help: "Address the HTTP transport listens on",
                essential: true,
            },
            Setting {
                flag: "stateless",
                env: "MCP_AQL_STATELESS",
                default: None,
                value: Value::Switch,
                help: "HTTP without sessions: any instance behind a load balancer serves any request, and tokens are bound to the caller's Authorization header",
                essential: false,
            },
            Setting {
                flag: "allowed-origin",
                env: "MCP_AQL_ALLOWED_ORIGINS",
                default: None,
                value: Value::List("ORIGIN", || ValueParser::new(parse_origin)),
                help: "A browser origin the HTTP transport accepts besides loopback ones, e.g. https://app.example.com or http://intranet:*",
                essential: false,
            },
            Setting {
                flag: "credential-header",
                env: "MCP_AQL_CREDENTIAL_HEADER",
                default: None,
                value: Value::One("NAME", || ValueParser::new(parse_header_name)),
                help: "HTTP only: each request brings its own upstream credential in this header (authorization: the token after its scheme word), in place of the server's environment; a request without it is refused",
                essential: false,
            },
            Setting {
                flag: "allow-unauthenticated-remote",
                env: "MCP_AQL_ALLOW_UNAUTHENTICATED_REMOTE",
                default: None,
                value: Value::Switch,
                help: "Serve callers beyond loopback with this server's own upstream credential, unauthenticated (say so only behind a proxy that authenticates them); without it, a --bind beyond loopback needs --credential-header",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Tools",
        settings: &[
            Setting {
                flag: "mode",
                env: "MCP_AQL_ENDPOINT_MODE",
                default: Some("crude"),
                value: Value::One("crude|single|all", || ValueParser::new(parse_mode)),
                help: "Endpoint mode: the five CRUDE tools (crude, alias semantic), the one tool mcp_aql (single), or both (all)",
                essential: false,
            },
            Setting {
                flag: "tool-prefix",
                env: "MCP_AQL_TOOL_PREFIX",
                default: None,
                value: Value::One("PREFIX", || ValueParser::new(parse_prefix)),
                help: "Prefix for every tool name: lowercase letters, digits, '_', ending in '_'",
                essential: false,
            },
            Setting {
                flag: "tool-schema",
                env: "MCP_AQL_TOOL_SCHEMA",
                default: Some("mcp"),
                value: Value::One("mcp|openai-strict|gemini", || {
                    ValueParser::new(ToolSchema::parse)
                }),
                help: "The tools' input schema: mcp, or openai-strict or gemini for hosts that hand tools to those function-calling APIs unchanged (params then travel as JSON text)",
                essential: false,
            },
        ],
    },
    Group {
        heading: "HTTP limits",
        settings: &[
            Setting {
                flag: "max-sessions",
                env: "MCP_AQL_MAX_SESSIONS",
                default: Some("256"),
                value: number(1, 100_000, Unit::Count),
                help: "Open HTTP sessions at most; more initialize requests get 503",
                essential: false,
            },
            Setting {
                flag: "session-idle-timeout",
                env: "MCP_AQL_SESSION_IDLE_TIMEOUT",
                default: Some("300"),
                value: number(10, 86_400, Unit::Seconds),
                help: "Seconds an HTTP session may sit without a request before it is closed",
                essential: false,
            },
            Setting {
                flag: "max-connections",
                env: "MCP_AQL_MAX_CONNECTIONS",
                default: Some("512"),
                value: number(1, 65_536, Unit::Count),
                help: "Open HTTP connections at most; more are answered 503 and closed",
                essential: false,
            },
            Setting {
                flag: "header-timeout",
                env: "MCP_AQL_HEADER_TIMEOUT",
                default: Some("10"),
                value: number(1, 300, Unit::Seconds),
                help: "Seconds a client has to send a request's headers",
                essential: false,
            },
            Setting {
                flag: "body-timeout",
                env: "MCP_AQL_BODY_TIMEOUT",
                default: Some("30"),
                value: number(1, 600, Unit::Seconds),
                help: "Seconds a client has to send a request's body",
                essential: false,
            },
            Setting {
                flag: "idle-timeout",
                env: "MCP_AQL_IDLE_TIMEOUT",
                default: Some("60"),
                value: number(1, 3_600, Unit::Seconds),
                help: "Seconds an HTTP connection may move no byte before it is closed; keep it above 15, the SSE keep-alive interval",
                essential: false,
            },
            Setting {
                flag: "upstream-read-timeout",
                env: "MCP_AQL_UPSTREAM_READ_TIMEOUT",
                default: Some("10"),
                value: number(1, 300, Unit::Seconds),
                help: "Seconds to wait for the next piece of an upstream answer",
                essential: false,
            },
            Setting {
                flag: "drain-timeout",
                env: "MCP_AQL_DRAIN_TIMEOUT",
                default: Some("30"),
                value: number(0, 3_600, Unit::Seconds),
                help: "Seconds calls in flight get to finish once the server stops taking connections, on SIGTERM or after handing over to a new binary",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Payload limits",
        settings: &[
            Setting {
                flag: "max-request-size",
                env: "MCP_AQL_MAX_REQUEST_SIZE",
                default: Some("1048576"),
                value: number(64 * 1024, 10 * 1024 * 1024, Unit::Bytes),
                help: "Largest accepted request",
                essential: false,
            },
            Setting {
                flag: "max-response-size",
                env: "MCP_AQL_MAX_RESPONSE_SIZE",
                default: Some("10485760"),
                value: number(1024 * 1024, 100 * 1024 * 1024, Unit::Bytes),
                help: "Largest accepted upstream answer",
                essential: false,
            },
            Setting {
                flag: "max-string-length",
                env: "MCP_AQL_MAX_STRING_LENGTH",
                default: Some("1048576"),
                value: number(64 * 1024, 10 * 1024 * 1024, Unit::Bytes),
                help: "Longest accepted string",
                essential: false,
            },
            Setting {
                flag: "max-array-elements",
                env: "MCP_AQL_MAX_ARRAY_ELEMENTS",
                default: Some("10000"),
                value: number(100, 100_000, Unit::Count),
                help: "Most elements in one array",
                essential: false,
            },
            Setting {
                flag: "max-nesting-depth",
                env: "MCP_AQL_MAX_NESTING_DEPTH",
                default: Some("32"),
                value: number(8, 64, Unit::Count),
                help: "Deepest accepted nesting; the arguments object is level 1",
                essential: false,
            },
            Setting {
                flag: "max-batch-size",
                env: "MCP_AQL_MAX_BATCH_SIZE",
                default: Some("25"),
                value: number(1, 100, Unit::Count),
                help: "Most operations in one batch request",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Queries",
        settings: &[
            Setting {
                flag: "scan-max-pages",
                env: "MCP_AQL_SCAN_MAX_PAGES",
                default: Some("20"),
                value: number(1, 1000, Unit::Count),
                help: "Most upstream pages one query reads to filter, sort or aggregate what the API cannot; caps each operation's own bound",
                essential: false,
            },
            Setting {
                flag: "scan-max-items",
                env: "MCP_AQL_SCAN_MAX_ITEMS",
                default: Some("5000"),
                value: number(1, 1_000_000, Unit::Count),
                help: "Most items one query reads",
                essential: false,
            },
            Setting {
                flag: "scan-max-bytes",
                env: "MCP_AQL_SCAN_MAX_BYTES",
                default: Some("32MiB"),
                value: Value::Size,
                help: "Most bytes of upstream answers one query reads",
                essential: false,
            },
            Setting {
                flag: "scan-max-seconds",
                env: "MCP_AQL_SCAN_MAX_SECONDS",
                default: Some("30"),
                value: number(1, 600, Unit::Seconds),
                help: "Most seconds one query reads for",
                essential: false,
            },
            Setting {
                flag: "graph-max-nodes",
                env: "MCP_AQL_GRAPH_MAX_NODES",
                default: Some("100"),
                value: number(1, 10_000, Unit::Count),
                help: "Most nodes one relationship query visits",
                essential: false,
            },
            Setting {
                flag: "graph-max-calls",
                env: "MCP_AQL_GRAPH_MAX_CALLS",
                default: Some("50"),
                value: number(1, 10_000, Unit::Count),
                help: "Most upstream calls one relationship query makes",
                essential: false,
            },
            Setting {
                flag: "slow-query-ms",
                env: "MCP_AQL_SLOW_QUERY_MS",
                default: Some("5000"),
                value: number(1, 3_600_000, Unit::Milliseconds),
                help: "An answer that takes longer than this says so with PERFORMANCE_SLOW_QUERY_WARNING",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Authorization",
        settings: &[
            Setting {
                flag: "authorization-server",
                env: "MCP_AQL_AUTHORIZATION_SERVERS",
                default: None,
                value: Value::List("ISSUER", || ValueParser::new(parse_oauth_url)),
                help: "HTTP only: serve /mcp only to bearer access tokens (JWTs) this authorization server issued for --resource, exactly as its issuer identifier reads; unset, no tokens asked for",
                essential: false,
            },
            Setting {
                flag: "resource",
                env: "MCP_AQL_RESOURCE",
                default: None,
                value: Value::One("URL", || ValueParser::new(parse_oauth_url)),
                help: "This server's resource identifier: the audience access tokens must name, e.g. https://mcp.example.com/mcp",
                essential: false,
            },
            Setting {
                flag: "scope",
                env: "MCP_AQL_SCOPES",
                default: None,
                value: Value::List("SELECTOR=SCOPE", || {
                    ValueParser::new(ScopeRules::parse_item)
                }),
                help: "The operations the selector picks (a category such as read, a danger level such as destructive, or an operation name) need this scope of the access token",
                essential: false,
            },
            Setting {
                flag: "user-credentials",
                env: "MCP_AQL_USER_CREDENTIALS",
                default: None,
                value: Value::One("FILE", || value_parser!(PathBuf)),
                help: "With --authorization-server: a JSON file from token subject to that user's upstream credential, sent in place of the server's; a caller without an entry is refused; unset, the server's credential",
                essential: false,
            },
            Setting {
                flag: "introspection-client-id",
                env: "MCP_AQL_INTROSPECTION_CLIENT_ID",
                default: None,
                value: Value::One("ID", || value_parser!(String)),
                help: "With --authorization-server: take opaque access tokens too, checked at the authorization server's introspection endpoint (RFC 7662) as this client, its secret in MCP_AQL_INTROSPECTION_CLIENT_SECRET; unset, JWTs only",
                essential: false,
            },
            Setting {
                flag: "introspection-issuer",
                env: "MCP_AQL_INTROSPECTION_ISSUER",
                default: None,
                value: Value::One("ISSUER", || ValueParser::new(parse_oauth_url)),
                help: "With --introspection-client-id and several --authorization-server: the one whose introspection endpoint checks opaque tokens; no other ever sees them or the client secret; unset, the only authorization server",
                essential: false,
            },
            Setting {
                flag: "jwks-max-age",
                env: "MCP_AQL_JWKS_MAX_AGE",
                default: Some("600"),
                value: number(2, 86_400, Unit::Seconds),
                help: "Seconds the authorization servers' signing keys are kept at most before they are read again, whatever their Cache-Control says; a removed key stops verifying within twice this",
                essential: false,
            },
            Setting {
                flag: "token-clock-skew",
                env: "MCP_AQL_TOKEN_CLOCK_SKEW",
                default: Some("60"),
                value: number(0, 300, Unit::Seconds),
                help: "Seconds an access token's exp and nbf may be off this server's clock",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Safety gate",
        settings: &[
            Setting {
                flag: "trust-level",
                env: "MCP_AQL_TRUST_LEVEL",
                default: None,
                value: Value::One("LEVEL", || ValueParser::new(parse_trust)),
                help: "Trust level you vouch for, over the schema's: untested, generated, validated, community_reviewed or certified (or untrusted, low, medium, high, verified); unset, the schema's, else untested",
                essential: false,
            },
            Setting {
                flag: "confirm-at",
                env: "MCP_AQL_CONFIRM_AT",
                default: None,
                value: Value::One("LEVEL", || ValueParser::new(parse_danger)),
                help: "Confirm every operation at or above this danger level: safe, reversible, destructive, dangerous or forbidden",
                essential: false,
            },
            Setting {
                flag: "deny",
                env: "MCP_AQL_DENY",
                default: None,
                value: Value::List("LEVEL", || ValueParser::new(parse_danger)),
                help: "Refuse operations of these danger levels outright",
                essential: false,
            },
            Setting {
                flag: "rate-limit",
                env: "MCP_AQL_RATE_LIMITS",
                default: None,
                value: Value::List("WINDOW=CALLS", || ValueParser::new(parse_rate_limit)),
                help: "Call limit per window (second, minute, hour or day), over the schema's; the lower wins; unset, the schema's rate_limits",
                essential: false,
            },
            Setting {
                flag: "quota",
                env: "MCP_AQL_QUOTAS",
                default: None,
                value: Value::List("METRIC=WARN/PAUSE[/HARD_STOP]", || {
                    ValueParser::new(Quota::parse)
                }),
                help: "Request quota; metric requests_per_minute, requests_per_hour or requests_per_day",
                essential: false,
            },
            Setting {
                flag: "audit-log",
                env: "MCP_AQL_AUDIT_LOG",
                default: None,
                value: Value::One("FILE", || value_parser!(PathBuf)),
                help: "Append one JSON line per gate decision to this file; unset, the log only",
                essential: false,
            },
            Setting {
                flag: "confirmation-ttl",
                env: "MCP_AQL_CONFIRMATION_TTL",
                default: Some("300"),
                value: number(1, 900, Unit::Seconds),
                help: "Seconds a confirmation token lives, for operations below forbidden",
                essential: false,
            },
            Setting {
                flag: "forbidden-confirmation-ttl",
                env: "MCP_AQL_FORBIDDEN_CONFIRMATION_TTL",
                default: Some("120"),
                value: number(1, 300, Unit::Seconds),
                help: "Seconds a confirmation token of a forbidden operation lives",
                essential: false,
            },
            Setting {
                flag: "quota-continue-ttl",
                env: "MCP_AQL_QUOTA_CONTINUE_TTL",
                default: Some("300"),
                value: number(1, 600, Unit::Seconds),
                help: "Seconds a quota continuation token lives",
                essential: false,
            },
            Setting {
                flag: "clock-skew-tolerance",
                env: "MCP_AQL_CLOCK_SKEW_TOLERANCE",
                default: Some("30"),
                value: number(0, 300, Unit::Seconds),
                help: "Seconds a token is still accepted past its expiry; above 60 logs a warning",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Confirmation",
        settings: &[
            Setting {
                flag: "confirm-by",
                env: "MCP_AQL_CONFIRM_BY",
                default: Some("all=person"),
                value: Value::List("LEVEL=person|verify|token", || value_parser!(String)),
                help: "Who confirms operations of a danger level that need confirmation: person (the client's user, through an elicitation form), verify (the user, with a code sent on --verify-channel) or token (the model brings back a token); LEVEL may be all",
                essential: false,
            },
            Setting {
                flag: "confirm-fallback",
                env: "MCP_AQL_CONFIRM_FALLBACK",
                default: Some("token"),
                value: Value::One("token|refuse", || ValueParser::new(Fallback::parse)),
                help: "When a person should confirm and the client cannot show a form: the token flow, or refuse",
                essential: false,
            },
            Setting {
                flag: "confirm-timeout",
                env: "MCP_AQL_CONFIRM_TIMEOUT",
                default: Some("120"),
                value: number(1, 3_600, Unit::Seconds),
                help: "Seconds a person has to answer a confirmation form on a session",
                essential: false,
            },
            Setting {
                flag: "verify-channel",
                env: "MCP_AQL_VERIFY_CHANNEL",
                default: None,
                value: Value::One("terminal|file:PATH|URL", || {
                    ValueParser::new(Channel::parse)
                }),
                help: "Where verification codes are sent, out of the model's sight: the adapter's terminal, a file, or an http(s):// webhook",
                essential: false,
            },
            Setting {
                flag: "verify-ttl",
                env: "MCP_AQL_VERIFY_TTL",
                default: Some("300"),
                value: number(1, 3_600, Unit::Seconds),
                help: "Seconds a verification code stays valid",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Safety loop",
        settings: &[
            Setting {
                flag: "safety-loop",
                env: "MCP_AQL_SAFETY_LOOP",
                default: Some("disabled"),
                value: Value::One("enforcing|monitoring|logging|disabled", || {
                    ValueParser::new(LoopMode::parse)
                }),
                help: "Serve the execution safety loop (execute_agent, record_execution_step, ...); enforcing keeps hard blocks in the state store and sends codes out of band, so it needs --state file:PATH or redis:// and --verify-channel",
                essential: false,
            },
            Setting {
                flag: "max-autonomous-steps",
                env: "MCP_AQL_MAX_AUTONOMOUS_STEPS",
                default: Some("20"),
                value: number(1, 100_000, Unit::Count),
                help: "Steps an agent of the safety loop takes before a mandatory pause for a person",
                essential: false,
            },
            Setting {
                flag: "loop-deny",
                env: "MCP_AQL_LOOP_DENY",
                default: Some("drop_*,delete_all*,rm -rf*"),
                value: Value::List("GLOB", || ValueParser::new(Glob::parse)),
                help: "Reported actions that hard-block the agent until a person verifies a code",
                essential: false,
            },
            Setting {
                flag: "loop-requires-approval",
                env: "MCP_AQL_LOOP_REQUIRES_APPROVAL",
                default: Some("delete_*,*force*,deploy_*,git push*"),
                value: Value::List("GLOB", || ValueParser::new(Glob::parse)),
                help: "Reported actions that pause the agent for a person's approval",
                essential: false,
            },
            Setting {
                flag: "loop-auto-approve",
                env: "MCP_AQL_LOOP_AUTO_APPROVE",
                default: Some("read_*,list_*,get_*,search_*"),
                value: Value::List("GLOB", || ValueParser::new(Glob::parse)),
                help: "Reported actions that continue without further evaluation",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Cache",
        settings: &[
            Setting {
                flag: "cache",
                env: "MCP_AQL_CACHE",
                default: Some("on"),
                value: Value::One("on|off", || ValueParser::new(parse_on_off)),
                help: "Keep READ answers the upstream lets be kept (Cache-Control, Expires, ETag), per upstream credential, revalidated with If-None-Match / If-Modified-Since and dropped when a mutation touches their path",
                essential: false,
            },
            Setting {
                flag: "cache-max-bytes",
                env: "MCP_AQL_CACHE_MAX_BYTES",
                default: Some("16MiB"),
                value: Value::Size,
                help: "Bytes of answers one instance keeps, least recently used dropped first",
                essential: false,
            },
            Setting {
                flag: "cache-ttl",
                env: "MCP_AQL_CACHE_TTL",
                default: None,
                value: Value::List("[OPERATION=]SECONDS", || {
                    ValueParser::new(CacheTtl::parse_item)
                }),
                help: "Seconds answers stay fresh: for one operation (wins over the upstream's freshness, never over its no-store), or alone for answers whose upstream gives none (0..=86400); unset, the upstream's only",
                essential: false,
            },
        ],
    },
    Group {
        heading: "State and executions",
        settings: &[
            Setting {
                flag: "state",
                env: "MCP_AQL_STATE",
                default: Some("memory"),
                value: Value::One("memory|file:PATH|redis://...", || {
                    ValueParser::new(Backend::parse)
                }),
                help: "Where confirmation tokens and rate-limit and quota counters live: this process, a file that keeps them across restarts, or redis://[:password@]host:port[/db], shared by a fleet",
                essential: true,
            },
            Setting {
                flag: "execution-wait",
                env: "MCP_AQL_EXECUTION_WAIT",
                default: Some("20"),
                value: number(0, 600, Unit::Seconds),
                help: "Seconds a call that starts a long-running execution follows it (with progress notifications) before answering its state; get_execution follows it after",
                essential: false,
            },
        ],
    },
    Group {
        heading: "Telemetry",
        settings: &[
            Setting {
                flag: "log-format",
                env: "MCP_AQL_LOG_FORMAT",
                default: Some("text"),
                value: Value::One("text|json", || ValueParser::new(LogFormat::parse)),
                help: "Log lines on stderr: text, or json with one object per line (RUST_LOG picks the level)",
                essential: false,
            },
            Setting {
                flag: "otlp-endpoint",
                env: "OTEL_EXPORTER_OTLP_ENDPOINT",
                default: None,
                value: Value::One("URL", || value_parser!(String)),
                help: "Send a span of each call and of its upstream request to this OTLP/HTTP receiver (JSON, <URL>/v1/traces), continuing the client's _meta.traceparent; spans hold operation names, decisions and statuses, never params or credentials; unset, no traces",
                essential: false,
            },
        ],
    },
];

/// Where `--flag VALUE` or `--flag=VALUE` stands among `args` (the program first), read before
/// clap parses them: the arguments it takes up, and its value.
pub(super) fn given(args: &[OsString], flag: &str) -> Option<(Range<usize>, OsString)> {
    let flag = format!("--{flag}");
    args.iter().enumerate().skip(1).find_map(|(index, arg)| {
        let arg = arg.to_str()?;
        if arg == flag {
            args.get(index + 1)
                .map(|value| (index..index + 2, value.clone()))
        } else {
            let value = arg.strip_prefix(&flag)?.strip_prefix('=')?;
            Some((index..index + 1, OsString::from(value)))
        }
    })
}

/// Every setting, group by group.
pub(super) fn all() -> impl Iterator<Item = &'static Setting> {
    GROUPS.iter().flat_map(|group| group.settings)
}

/// The setting whose flag (and config file key) is `flag`.
pub(super) fn find(flag: &str) -> Option<&'static Setting> {
    all().find(|setting| setting.flag == flag)
}

impl Setting {
    /// The clap argument: flag, variable, default, parser and help with its range.
    fn arg(&self, heading: &'static str) -> Arg {
        let arg = Arg::new(self.flag)
            .long(self.flag)
            .env(self.env)
            .help_heading(heading)
            .hide_short_help(!self.essential);
        let (arg, help) = match self.value {
            Value::Switch => (arg.action(ArgAction::SetTrue), self.help.to_owned()),
            Value::Number { min, max, unit } => {
                let seconds = unit == Unit::Seconds;
                let arg = arg
                    .value_name(unit.placeholder())
                    .value_parser(move |text: &str| parse_number(text, min, max, seconds));
                (arg, format!("{} ({min}..={max})", self.help))
            }
            Value::Size => (
                arg.value_name("SIZE").value_parser(parse_bytes),
                format!("{}: bytes, or with a KiB, MiB or GiB suffix", self.help),
            ),
            Value::One(name, parser) => (
                arg.value_name(name)
                    .value_parser(parser())
                    .hide_possible_values(true),
                self.help.to_owned(),
            ),
            Value::List(name, parser) => (
                arg.value_name(name)
                    .value_parser(parser())
                    .action(ArgAction::Append)
                    .value_delimiter(','),
                format!("{}; comma-separated, or the flag repeated", self.help),
            ),
        };
        let arg = arg.help(help);
        match self.default {
            Some(default) => arg.default_value(default),
            None => arg,
        }
    }
}

impl Unit {
    fn placeholder(self) -> &'static str {
        match self {
            Self::Count => "N",
            Self::Bytes => "BYTES",
            Self::Seconds => "SECONDS",
            Self::Milliseconds => "MS",
        }
    }
}

/// The clap command of a server: named and versioned after the adapter (or the bundle),
/// opening with the adapter's own environment variables; `-h` lists the settings a first run
/// needs, `--help` every one under its heading.
pub(super) fn command(info: &'static ServerInfo, members: &[&AdapterInfo]) -> Command {
    let count = all().count();
    let mut command = Command::new(info.name)
        .version(info.version)
        .about(format!(
            "MCP-AQL server for the {} API: {}",
            info.name, info.description
        ))
        .max_term_width(100)
        .before_help(variables(members))
        .after_help(format!(
            "--help lists all {count} settings by group. A flag beats its environment variable, \
             which beats the config file, which beats the default."
        ))
        .disable_help_flag(true)
        .arg(
            Arg::new("summary")
                .short('h')
                .action(ArgAction::HelpShort)
                .help("Print this adapter's variables and the settings a first run needs"),
        )
        .arg(
            Arg::new(HELP_FLAG)
                .long(HELP_FLAG)
                .action(ArgAction::SetTrue)
                .help("Print every setting, by group"),
        )
        .arg(
            Arg::new(PRINT_CONFIG_FLAG)
                .long(PRINT_CONFIG_FLAG)
                .value_name("CLIENT")
                .value_parser(Client::parse_flag)
                .help("Print what installs this server, with the other arguments given, in an MCP client (claude-desktop, claude-code, cursor, vscode, codex, windsurf), and exit"),
        )
        .arg(
            Arg::new(CONFIG_FLAG)
                .long(CONFIG_FLAG)
                .env(CONFIG_ENV)
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .help("TOML file of settings, each `flag-name = value` (a list as an array)"),
        );
    for group in GROUPS {
        for setting in group.settings {
            command = command.arg(setting.arg(group.heading));
        }
    }
    command
}

/// What `--help` prints: every setting, compactly, under its group's heading.
pub(super) fn full_help(command: &Command) -> String {
    command
        .clone()
        .mut_args(|arg| arg.hide_short_help(false))
        .render_help()
        .to_string()
}

/// The "this adapter" section: the variables the adapter itself reads, member by member.
fn variables(members: &[&AdapterInfo]) -> String {
    let rows: Vec<_> = members
        .iter()
        .flat_map(|member| member.variables())
        .collect();
    let width = rows.iter().map(|row| row.env.len()).max().unwrap_or(0);
    let mut text = String::from("This adapter:");
    for row in rows {
        text.push_str(&format!("\n  {:width$}  {}", row.env, row.holds));
    }
    text
}
