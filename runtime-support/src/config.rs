//! The command line and environment of a generated adapter binary.
//!
//! Flags beat environment variables (`MCP_AQL_ENDPOINT_MODE`, `MCP_AQL_TOOL_PREFIX`), which
//! beat the defaults: CRUDE tools, no prefix, stdio, the specification's payload limits.

use std::net::IpAddr;

use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};

use crate::adapter::AdapterInfo;

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

fn parse_mode(value: &str) -> Result<EndpointMode, String> {
    match value {
        "crude" | "semantic" => Ok(EndpointMode::Crude),
        "single" => Ok(EndpointMode::Single),
        "all" => Ok(EndpointMode::All),
        other => Err(format!(
            "'{other}' is not an endpoint mode; use one of: crude, semantic, single, all"
        )),
    }
}

/// Checks a tool-name prefix (seed mcp-integration §6.4): lowercase letters, digits and
/// underscores, ending in `_`. An empty value means no prefix.
pub fn parse_prefix(value: &str) -> Result<String, String> {
    if value.is_empty() {
        return Ok(String::new());
    }
    if !value
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return Err(format!(
            "tool prefix '{value}' may contain only lowercase letters, digits and underscores"
        ));
    }
    if !value.ends_with('_') {
        return Err(format!(
            "tool prefix '{value}' must end with '_', e.g. '{value}_'"
        ));
    }
    if value.len() >= 20 {
        tracing::warn!(prefix = value, "tool prefix is 20 characters or longer");
    }
    Ok(value.to_owned())
}

/// Which transport carries MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin and stdout.
    Stdio,
    /// Streamable HTTP on `http://<bind>:<port>/mcp`.
    Http,
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
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_request_size: 1024 * 1024,
            max_response_size: 10 * 1024 * 1024,
            max_string_length: 1024 * 1024,
            max_array_elements: 10_000,
            max_nesting_depth: 32,
        }
    }
}

/// One configurable limit: flag name, allowed range, what it sets.
struct LimitFlag {
    flag: &'static str,
    min: usize,
    max: usize,
    help: &'static str,
    set: fn(&mut Limits, usize),
    get: fn(&Limits) -> usize,
}

const LIMIT_FLAGS: [LimitFlag; 5] = [
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
];

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
    /// Payload limits.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            transport: Transport::Stdio,
            bind: IpAddr::from([127, 0, 0, 1]),
            port: 8080,
            mode: EndpointMode::Crude,
            tool_prefix: String::new(),
            limits: Limits::default(),
        }
    }
}

impl Config {
    /// The clap command of an adapter binary, named and versioned after the adapter.
    pub fn command(info: &'static AdapterInfo) -> Command {
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
        command
    }

    /// Parses the process arguments; on a usage error, `--help` or `--version` clap prints and
    /// exits.
    pub fn from_env(info: &'static AdapterInfo) -> Self {
        let matches = Self::command(info).get_matches();
        Self::from_matches(&matches)
    }

    /// Builds a configuration from parsed arguments.
    pub fn from_matches(matches: &ArgMatches) -> Self {
        let defaults = Self::default();
        let mut limits = Limits::default();
        for limit in &LIMIT_FLAGS {
            let value = matches
                .get_one::<usize>(limit.flag)
                .copied()
                .unwrap_or((limit.get)(&limits));
            (limit.set)(&mut limits, value);
        }
        Self {
            transport: match matches.get_one::<String>("transport").map(String::as_str) {
                Some("http") => Transport::Http,
                _ => Transport::Stdio,
            },
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
            limits,
        }
    }
}

fn parse_limit(text: &str, min: usize, max: usize) -> Result<usize, String> {
    let value: usize = text
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number"))?;
    if !(min..=max).contains(&value) {
        return Err(format!(
            "{value} is outside the allowed range {min}..={max}"
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    static INFO: AdapterInfo = AdapterInfo {
        name: "demo",
        version: "1.2.3",
        description: "Demo",
        base_url: "http://127.0.0.1:1",
        base_url_env: "DEMO_BASE_URL",
        auth: crate::adapter::Auth::None,
        schema_fingerprint: "sha256:00",
    };

    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        let matches = Config::command(&INFO)
            .try_get_matches_from(std::iter::once("demo").chain(args.iter().copied()))?;
        Ok(Config::from_matches(&matches))
    }

    #[test]
    fn prefixes_follow_the_format_rules() {
        let table = [
            ("", Ok("")),
            ("github_", Ok("github_")),
            ("db2_", Ok("db2_")),
            ("GitHub_", Err(())),
            ("github", Err(())),
            ("git-hub_", Err(())),
        ];
        for (input, expected) in table {
            let got = parse_prefix(input).map_err(|_| ());
            assert_eq!(got.as_deref(), expected.as_ref().map(|s| *s), "{input}");
        }
    }

    #[test]
    fn modes_accept_semantic_as_crude() {
        assert_eq!(parse_mode("semantic"), Ok(EndpointMode::Crude));
        assert_eq!(parse_mode("crude"), Ok(EndpointMode::Crude));
        assert_eq!(parse_mode("single"), Ok(EndpointMode::Single));
        assert_eq!(parse_mode("all"), Ok(EndpointMode::All));
        assert!(parse_mode("CRUDE").is_err());
    }

    #[test]
    fn flags_parse_and_limits_are_range_checked() {
        let config = parse(&[
            "--transport",
            "http",
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
        assert_eq!(config.transport, Transport::Http);
        assert_eq!(config.port, 0);
        assert_eq!(config.mode, EndpointMode::Single);
        assert_eq!(config.tool_prefix, "gh_");
        assert_eq!(config.limits.max_nesting_depth, 8);
        assert_eq!(config.bind, IpAddr::from([127, 0, 0, 1]));
        assert!(parse(&["--max-nesting-depth", "7"]).is_err());
        assert!(parse(&["--tool-prefix", "Bad"]).is_err());
        assert_eq!(parse(&[]).expect("defaults"), Config::default());
    }
}
