//! The command line, environment and config file of a generated adapter binary, read into a
//! [`Config`]. What each setting is, its variable and its default are stated once, in
//! [`settings`](super::settings); here clap's resolved values become typed settings, and
//! settings that only make sense together are checked together.

use std::ffi::OsString;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use aqlgen_model::{DangerLevel, TrustLevel};
use clap::{ArgMatches, Command};

use super::client::{Client, Launch};
use super::resource::{Introspection, ResourceConfig, ScopeRules, Selector};
use super::{
    Backend, CacheConfig, CacheTtl, Channel, Config, ConfirmConfig, EndpointMode, Fallback, Glob,
    Limits, LogFormat, LoopConfig, LoopMode, QueryConfig, Quota, SafetyConfig, TokenConfig,
    ToolSchema, Transport, TransportLimits, file, settings,
};
use crate::adapter::{AdapterInfo, RateLimit, ScanLimits, ServerInfo};

impl Config {
    /// The clap command of an adapter binary: see [`settings`](super::settings).
    pub(crate) fn command(info: &'static ServerInfo, members: &[&AdapterInfo]) -> Command {
        settings::command(info, members)
    }

    /// Reads the process's arguments, environment and config file; on a usage error, a bad
    /// config file, `--help` or `--version` it prints and exits, so nothing starts
    /// half-configured.
    pub fn from_env(info: &'static ServerInfo, members: &[&AdapterInfo]) -> Self {
        let args: Vec<OsString> = std::env::args_os().collect();
        let mut command = Self::command(info, members);
        if let Some(name) = args.first().map(Path::new).and_then(Path::file_name) {
            command = command.bin_name(name.to_string_lossy());
        }
        if let Some(path) = file::path(&args) {
            command = file::load(command.clone(), &path).unwrap_or_else(|message| {
                command
                    .error(clap::error::ErrorKind::InvalidValue, message)
                    .exit()
            });
        }
        // `--help` lists every setting, with what the config file made of their defaults.
        let help = format!("--{}", settings::HELP_FLAG);
        if args.iter().skip(1).any(|arg| *arg == *help) {
            print!("{}", settings::full_help(&command));
            std::process::exit(0);
        }
        let matches = command
            .try_get_matches_from_mut(&args)
            .unwrap_or_else(|error| error.exit());
        let config = Self::from_matches(&matches).unwrap_or_else(|message| {
            command
                .error(clap::error::ErrorKind::ArgumentConflict, message)
                .exit()
        });
        if let Some(client) = matches.get_one::<Client>(settings::PRINT_CONFIG_FLAG) {
            if config.transport == Transport::Http {
                command
                    .error(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!(
                            "--print-config writes how a client starts this server over stdio; a client reaches a server over HTTP by its URL, http://{}:{}/mcp here",
                            config.bind, config.port
                        ),
                    )
                    .exit()
            }
            print_client_config(*client, info, members, &args, &config);
            std::process::exit(0);
        }
        config
    }

    /// Builds a configuration from parsed arguments.
    ///
    /// # Errors
    ///
    /// A sentence for the operator when settings conflict (two quotas for one window).
    pub(crate) fn from_matches(matches: &ArgMatches) -> Result<Self, String> {
        let transport = one::<Transport>(matches, "transport")?;
        let credential_header = maybe::<String>(matches, "credential-header");
        if credential_header.is_some() && transport != Transport::Http {
            return Err(
                "--credential-header needs --transport http: requests bring credentials in HTTP headers"
                    .to_owned(),
            );
        }
        let size = |id| -> Result<usize, String> {
            usize::try_from(one::<u64>(matches, id)?).map_err(|_| format!("--{id} is too large"))
        };
        let config = Self {
            transport,
            bind: one::<IpAddr>(matches, "bind")?,
            port: one::<u16>(matches, "port")?,
            mode: one::<EndpointMode>(matches, "mode")?,
            tool_prefix: maybe::<String>(matches, "tool-prefix").unwrap_or_default(),
            tool_schema: one::<ToolSchema>(matches, "tool-schema")?,
            limits: Limits {
                max_request_size: size("max-request-size")?,
                max_response_size: size("max-response-size")?,
                max_string_length: size("max-string-length")?,
                max_array_elements: size("max-array-elements")?,
                max_nesting_depth: size("max-nesting-depth")?,
                max_batch_size: size("max-batch-size")?,
            },
            safety: safety(matches)?,
            transport_limits: TransportLimits {
                max_sessions: one(matches, "max-sessions")?,
                session_idle_timeout: seconds(matches, "session-idle-timeout")?,
                max_connections: one(matches, "max-connections")?,
                header_timeout: seconds(matches, "header-timeout")?,
                body_timeout: seconds(matches, "body-timeout")?,
                idle_timeout: seconds(matches, "idle-timeout")?,
                upstream_read_timeout: seconds(matches, "upstream-read-timeout")?,
                drain_timeout: seconds(matches, "drain-timeout")?,
            },
            allowed_origins: many(matches, "allowed-origin"),
            state: one::<Backend>(matches, "state")?,
            stateless: matches.get_flag("stateless"),
            allow_unauthenticated_remote: matches.get_flag("allow-unauthenticated-remote"),
            log_format: one::<LogFormat>(matches, "log-format")?,
            otlp_endpoint: maybe::<String>(matches, "otlp-endpoint")
                .filter(|endpoint| !endpoint.trim().is_empty()),
            cache: CacheConfig {
                enabled: one::<bool>(matches, "cache")?,
                max_bytes: one(matches, "cache-max-bytes")?,
                ttl: CacheTtl::from_items(many(matches, "cache-ttl")),
            },
            resource: resource(matches, transport, credential_header.is_some())?,
            credential_header,
            execution_wait: seconds(matches, "execution-wait")?,
            query: QueryConfig {
                scan: ScanLimits {
                    max_pages: one(matches, "scan-max-pages")?,
                    max_items: one(matches, "scan-max-items")?,
                    max_bytes: one(matches, "scan-max-bytes")?,
                    max_seconds: one(matches, "scan-max-seconds")?,
                },
                graph_max_nodes: one(matches, "graph-max-nodes")?,
                graph_max_calls: one(matches, "graph-max-calls")?,
                slow: Duration::from_millis(one(matches, "slow-query-ms")?),
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

/// Prints `client`'s configuration for this server started with `args` (less
/// `--print-config`); says on stderr when it would run at a trust level that lets it do little,
/// so that a snippet never vouches for an adapter unless the operator asked it to.
fn print_client_config(
    client: Client,
    info: &ServerInfo,
    members: &[&AdapterInfo],
    args: &[OsString],
    config: &Config,
) {
    let taken = settings::given(args, settings::PRINT_CONFIG_FLAG).map(|(taken, _)| taken);
    let kept: Vec<String> = args
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(index, _)| !taken.as_ref().is_some_and(|taken| taken.contains(index)))
        .map(|(_, arg)| arg.to_string_lossy().into_owned())
        .collect();
    let command = std::env::current_exe()
        .ok()
        .and_then(|path| path.canonicalize().ok())
        .map_or_else(
            || {
                args.first()
                    .map(|arg| arg.to_string_lossy().into_owned())
                    .unwrap_or_default()
            },
            |path| path.display().to_string(),
        );
    let launch = Launch::new(info.name, command, kept, members, |env| {
        std::env::var(env).ok().filter(|value| !value.is_empty())
    });
    print!("{}", launch.snippet(client));
    let vouched = config.safety.trust_level.is_some();
    let untested = members.iter().any(|member| {
        member
            .trust
            .is_none_or(|level| level < TrustLevel::Validated)
    });
    if untested && !vouched {
        eprintln!(
            "note: this configuration runs the server at its schema's trust level, which lets it run only some operations; to vouch for it, give --trust-level LEVEL before --print-config"
        );
    }
}

/// The value clap resolved for a setting that has a default: given, from its variable or the
/// config file, or the default itself.
fn one<T: Clone + Send + Sync + 'static>(matches: &ArgMatches, id: &str) -> Result<T, String> {
    maybe(matches, id).ok_or_else(|| format!("--{id} has no value"))
}

/// The value of a setting that has none unless it is given.
fn maybe<T: Clone + Send + Sync + 'static>(matches: &ArgMatches, id: &str) -> Option<T> {
    matches.get_one::<T>(id).cloned()
}

/// Every value of a list setting.
fn many<T: Clone + Send + Sync + 'static>(matches: &ArgMatches, id: &str) -> Vec<T> {
    matches
        .get_many::<T>(id)
        .map(|values| values.cloned().collect())
        .unwrap_or_default()
}

fn seconds(matches: &ArgMatches, id: &str) -> Result<Duration, String> {
    one::<u64>(matches, id).map(Duration::from_secs)
}

/// The resource server's settings, when `--authorization-server` is given.
fn resource(
    matches: &ArgMatches,
    transport: Transport,
    credential_header: bool,
) -> Result<Option<ResourceConfig>, String> {
    let issuers: Vec<String> = many(matches, "authorization-server");
    let rules: Vec<(Selector, String)> = many(matches, "scope");
    let resource = maybe::<String>(matches, "resource");
    let user_credentials = maybe::<PathBuf>(matches, "user-credentials");
    let introspection_client = maybe::<String>(matches, "introspection-client-id");
    let introspection_issuer = maybe::<String>(matches, "introspection-issuer");
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
    if user_credentials.is_some() && credential_header {
        return Err("--user-credentials and --credential-header both say where a caller's upstream credential comes from: give one".to_owned());
    }
    Ok(Some(ResourceConfig {
        resource,
        scopes: ScopeRules { rules },
        clock_skew: seconds(matches, "token-clock-skew")?,
        user_credentials,
        introspection: introspection(&issuers, introspection_client, introspection_issuer)?,
        keys_max_age: seconds(matches, "jwks-max-age")?,
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
    let mut deny: Vec<DangerLevel> = many(matches, "deny");
    deny.sort();
    deny.dedup();
    let quotas: Vec<Quota> = many(matches, "quota");
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
    let tokens = TokenConfig {
        confirmation_ttl: seconds(matches, "confirmation-ttl")?,
        forbidden_ttl: seconds(matches, "forbidden-confirmation-ttl")?,
        quota_ttl: seconds(matches, "quota-continue-ttl")?,
        clock_skew: seconds(matches, "clock-skew-tolerance")?,
    };
    let mut confirm = ConfirmConfig::default();
    confirm.fallback = one::<Fallback>(matches, "confirm-fallback")?;
    confirm.answer_timeout = seconds(matches, "confirm-timeout")?;
    confirm.channel = maybe::<Channel>(matches, "verify-channel");
    confirm.challenge_ttl = seconds(matches, "verify-ttl")?;
    for text in many::<String>(matches, "confirm-by") {
        confirm.apply(&text)?;
    }
    if let Some(problem) = confirm.problem() {
        return Err(problem);
    }
    let safety_loop = LoopConfig {
        mode: one::<LoopMode>(matches, "safety-loop")?,
        max_steps: one(matches, "max-autonomous-steps")?,
        deny: many::<Glob>(matches, "loop-deny"),
        requires_approval: many::<Glob>(matches, "loop-requires-approval"),
        auto_approve: many::<Glob>(matches, "loop-auto-approve"),
    };
    Ok(SafetyConfig {
        trust_level: maybe::<TrustLevel>(matches, "trust-level"),
        confirm_at: maybe::<DangerLevel>(matches, "confirm-at"),
        deny,
        tokens,
        rate_limits: many::<RateLimit>(matches, "rate-limit"),
        quotas,
        audit_log: maybe::<PathBuf>(matches, "audit-log"),
        confirm,
        safety_loop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TEST_SERVER as INFO;

    fn parse(args: &[&str]) -> Result<Config, String> {
        let matches = Config::command(&INFO, &[])
            .try_get_matches_from(std::iter::once("demo").chain(args.iter().copied()))
            .map_err(|error| error.to_string())?;
        Config::from_matches(&matches)
    }

    /// A process given nothing runs on the defaults the settings table states, and those are
    /// the ones the rest of the runtime assumes (`Config::default`).
    #[test]
    fn nothing_given_is_the_default_config() {
        assert_eq!(parse(&[]), Ok(Config::default()));
    }

    /// `-h` opens with the adapter's own variables and keeps to one screen; `--help` lists
    /// every setting under its group's heading.
    #[test]
    fn short_help_fits_a_screen_and_long_help_is_grouped() {
        use crate::adapter::{AdapterInfo, Auth};
        static MEMBER: AdapterInfo = AdapterInfo {
            name: "demo",
            version: "1.2.3",
            description: "Demo",
            base_url: "https://api.example.com",
            base_url_env: "DEMO_BASE_URL",
            auth: Auth::Bearer {
                token_env: "DEMO_TOKEN",
                header: "Authorization",
                prefix: "Bearer ",
            },
            trust: None,
            rate_limits: &[],
            schema_fingerprint: "sha256:00",
        };
        let mut command = Config::command(&INFO, &[&MEMBER]);
        let short = command.render_help().to_string();
        assert!(
            short.starts_with("This adapter:\n  DEMO_BASE_URL"),
            "{short}"
        );
        assert!(short.contains("DEMO_TOKEN     demo API token"), "{short}");
        assert!(short.lines().count() <= 35, "{short}");
        let long = command.render_long_help().to_string();
        for group in settings::GROUPS {
            assert!(
                long.contains(&format!("\n{}:\n", group.heading)),
                "{}",
                group.heading
            );
            for setting in group.settings {
                let listed = [" ", "\n"]
                    .iter()
                    .any(|end| long.contains(&format!("--{}{end}", setting.flag)));
                assert!(listed, "{}", setting.flag);
                assert!(long.contains(setting.env), "{}", setting.env);
            }
        }
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
