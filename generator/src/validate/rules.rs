//! Semantic checks on the typed model. Each check appends findings and never stops early.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use regex::Regex;
use serde_json::Value;

use aqlgen_model::{
    Category, ContentType, ExecutionOperation, ParamLocation, ParamStyle, StringFormat, Vocabulary,
};

use super::finding::{Finding, ParamPart, Subject, Within};
use super::names::check_snake_case;
use crate::diagnostic::{Code, Diagnostic};
use crate::schema::maps_to::{self, MapsTo, PathPiece, QueryValue};
use crate::schema::{
    AdapterSchema, AuthConfig, AuthKind, Operation, Param, ParamType, Protocol,
    RESERVED_OPERATIONS, ResponseField, Serialization, Transport, is_reserved_param,
};
use crate::schema::{lifecycle, placement};
use crate::{features, ident};

/// The longest adapter name: ET §2.1 allows 64 characters.
pub const MAX_NAME: usize = 64;

/// Every semantic problem in `schema`.
pub fn check(schema: &AdapterSchema) -> Vec<Diagnostic> {
    findings(schema)
        .into_iter()
        .map(|finding| finding.diagnostic)
        .collect()
}

/// Every semantic problem in `schema`, each with what it is about.
pub fn findings(schema: &AdapterSchema) -> Vec<Finding> {
    let mut out = Vec::new();
    check_header(schema, &mut out);
    if let Some(auth) = &schema.auth {
        check_auth(auth, &mut out);
    }
    if let Some(limits) = &schema.rate_limits {
        for (key, limit) in [
            ("requests_per_minute", limits.requests_per_minute),
            ("requests_per_hour", limits.requests_per_hour),
            ("requests_per_day", limits.requests_per_day),
            ("burst_limit", limits.burst_limit),
        ] {
            if limit == Some(0) {
                out.push(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("rate_limits.{key}"),
                        "a rate limit of 0 would refuse every call",
                    )
                    .expected("a whole number of calls, at least 1")
                    .found("0")
                    .suggest(format!("leave `{key}` out when the API sets no such limit")),
                );
            }
        }
    }
    let families = schema.operations.families();
    if families.iter().all(|(_, list)| list.is_empty()) {
        out.push(
            Diagnostic::new(
                Code::InvalidValue,
                "operations",
                "the adapter defines no operations",
            )
            .expected("at least one operation in create, read, update, delete or execute")
            .found("none"),
        );
    }
    let mut found: Vec<Finding> = out
        .into_iter()
        .map(|diagnostic| Finding {
            subject: Subject::Adapter,
            diagnostic,
        })
        .collect();
    let mut names: BTreeMap<&str, String> = BTreeMap::new();
    let mut idents: BTreeMap<String, String> = BTreeMap::new();
    let auth = schema.auth.as_ref();
    for (category, list) in families {
        for (index, operation) in list.iter().enumerate() {
            let path = format!("operations.{category}[{index}]");
            let mut out = Vec::new();
            if let Some(first) = names.insert(&operation.name, path.clone()) {
                out.push((
                    Within::Operation,
                    Diagnostic::new(
                        Code::DuplicateOperation,
                        format!("{path}.name"),
                        format!("operation `{}` is defined twice", operation.name),
                    )
                    .expected("operation names unique across all endpoints")
                    .found(format!(
                        "a second `{}` (the first is at {first})",
                        operation.name
                    )),
                ));
            } else if let Some(first) =
                idents.insert(ident::type_name(&operation.name, ""), path.clone())
            {
                out.push((
                    Within::Operation,
                    Diagnostic::new(
                        Code::IdentCollision,
                        format!("{path}.name"),
                        format!(
                            "operation `{}` gets the same Rust name as the one at {first}",
                            operation.name
                        ),
                    )
                    .expected("names that differ after case conversion")
                    .found(format!("{:?}", operation.name)),
                ));
            }
            check_operation(category, operation, &path, auth, &mut out);
            found.extend(out.into_iter().map(|(within, diagnostic)| Finding {
                subject: Subject::Operation {
                    category,
                    index,
                    within,
                },
                diagnostic,
            }));
        }
    }
    check_lifecycles(schema, &mut found);
    check_type_names(schema, &mut found);
    super::query::check(schema, &mut found);
    found
}

/// Each `lifecycle` resolves against the schema, and an adapter with one leaves the names of
/// the execution operations the runtime serves free.
fn check_lifecycles(schema: &AdapterSchema, found: &mut Vec<Finding>) {
    let families = schema.operations.families();
    let mut any = false;
    for (category, list) in families {
        for (index, operation) in list.iter().enumerate() {
            let Some(declared) = &operation.lifecycle else {
                continue;
            };
            any = true;
            let Err(problems) = lifecycle::resolve(schema, category, operation, declared) else {
                continue;
            };
            let path = format!("operations.{category}[{index}].lifecycle");
            found.extend(problems.into_iter().map(|problem| {
                let at = if problem.key.is_empty() {
                    path.clone()
                } else {
                    format!("{path}.{}", problem.key)
                };
                Finding {
                    subject: Subject::Operation {
                        category,
                        index,
                        within: Within::Operation,
                    },
                    diagnostic: Diagnostic::new(problem.code, at, problem.message)
                        .expected(problem.expected),
                }
            }));
        }
    }
    if !any {
        return;
    }
    for (category, list) in schema.operations.families() {
        for (index, operation) in list.iter().enumerate() {
            if ExecutionOperation::parse(&operation.name).is_none() {
                continue;
            }
            found.push(Finding {
                subject: Subject::Operation {
                    category,
                    index,
                    within: Within::Operation,
                },
                diagnostic: Diagnostic::new(
                    Code::ReservedName,
                    format!("operations.{category}[{index}].name"),
                    format!(
                        "`{}` is served by the runtime for adapters with long-running operations",
                        operation.name
                    ),
                )
                .expected(format!(
                    "a name other than {}",
                    <ExecutionOperation as Vocabulary>::NAMES.join(", ")
                )),
            });
        }
    }
}

/// What an introspection type name stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypeUse {
    /// The allowed values of one param.
    Enum,
    /// An UPDATE operation's `input`.
    Input,
    /// What operations return; several may share one.
    Returns,
}

/// Introspection lists each type once: two enums (or an enum and an input, or either and a
/// returned type) that get one name would hide one of them, and a protocol type's name is
/// taken.
fn check_type_names(schema: &AdapterSchema, out: &mut Vec<Finding>) {
    let mut names: BTreeMap<String, (TypeUse, String)> = BTreeMap::new();
    // The first `response.fields` of each result type, and where.
    let mut described: BTreeMap<String, (&IndexMap<String, ResponseField>, String)> =
        BTreeMap::new();
    for (category, list) in schema.operations.families() {
        for (index, operation) in list.iter().enumerate() {
            let path = format!("operations.{category}[{index}]");
            let mut push = |within: Within, diagnostic: Diagnostic| {
                out.push(Finding {
                    subject: Subject::Operation {
                        category,
                        index,
                        within,
                    },
                    diagnostic,
                });
            };
            let mut uses = Vec::new();
            let mut has_input = false;
            let parsed = maps_to::parse(&operation.maps_to).ok();
            for (name, param) in &operation.params {
                if param
                    .allowed
                    .as_ref()
                    .is_some_and(|allowed| !allowed.is_empty())
                {
                    uses.push((
                        ident::enum_type_name(&operation.name, name),
                        TypeUse::Enum,
                        format!("{path}.params.{name}.enum"),
                        Within::ParamPart(name.clone(), ParamPart::Enum),
                    ));
                }
                has_input |= category == Category::Update
                    && parsed.as_ref().is_some_and(|parsed| {
                        placement::wraps_in_input(placement::place(parsed, name, param).location)
                    });
            }
            if has_input {
                uses.push((
                    ident::input_type_name(&operation.name),
                    TypeUse::Input,
                    format!("{path}.params"),
                    Within::Operation,
                ));
            }
            let response_type = operation.response.as_ref().and_then(|r| r.kind.as_deref());
            let returns = ident::returns_type_name(&operation.name, response_type);
            if let Some(fields) = operation.response.as_ref().and_then(|r| r.fields.as_ref()) {
                let at = format!("{path}.response.fields");
                match described.get(&returns) {
                    Some((first, first_at)) if *first != fields => push(
                        Within::Operation,
                        Diagnostic::new(
                            Code::InvalidValue,
                            at,
                            format!("type `{returns}` is described with other fields elsewhere"),
                        )
                        .expected(format!("the fields of {first_at}, or none here"))
                        .found("other fields")
                        .suggest("give each shape its own `response.type` name"),
                    ),
                    Some(_) => {}
                    None => {
                        described.insert(returns.clone(), (fields, at));
                    }
                }
            }
            uses.push((
                returns,
                TypeUse::Returns,
                format!("{path}.response.type"),
                Within::Operation,
            ));
            for (name, kind, at, within) in uses {
                if aqlgen_model::PROTOCOL_TYPES.contains(&name.as_str()) {
                    push(
                        within,
                        Diagnostic::new(
                            Code::ReservedName,
                            at,
                            format!("`{name}` is a protocol type of introspection"),
                        )
                        .expected(format!(
                            "a type name other than {}",
                            aqlgen_model::PROTOCOL_TYPES.join(", ")
                        ))
                        .found(format!("{name:?}")),
                    );
                    continue;
                }
                match names.get(&name) {
                    Some((first, _)) if *first == TypeUse::Returns && kind == TypeUse::Returns => {}
                    Some((_, first_at)) => push(
                        within,
                        Diagnostic::new(
                            Code::IdentCollision,
                            at,
                            format!("introspection type `{name}` would name two different types"),
                        )
                        .expected("names that stay apart after case conversion")
                        .found(format!("`{name}` also from {first_at}")),
                    ),
                    None => {
                        names.insert(name, (kind, at));
                    }
                }
            }
        }
    }
}

fn check_header(schema: &AdapterSchema, out: &mut Vec<Diagnostic>) {
    let name_pattern = Regex::new("^[a-z][a-z0-9-]*$").expect("a valid literal pattern");
    if schema.name.len() > MAX_NAME {
        out.push(
            Diagnostic::new(Code::InvalidName, "name", "the adapter name is too long")
                .expected(format!(
                    "at most {MAX_NAME} characters: it names the crate, its directory and its binary"
                ))
                .found(format!("{} characters", schema.name.len())),
        );
    } else if !name_pattern.is_match(&schema.name) {
        let kebab = heck::ToKebabCase::to_kebab_case(schema.name.as_str());
        out.push(
            Diagnostic::new(
                Code::InvalidName,
                "name",
                "the adapter name is not lowercase kebab-case",
            )
            .expected("lowercase letters, digits and `-`, starting with a letter")
            .found(format!("{:?}", schema.name))
            .suggest(format!("use `{kebab}`")),
        );
    }
    // The crate's version: whatever Cargo refuses (leading zeros, numbers past u64) is
    // refused here, with semver's own reason.
    if let Err(error) = semver::Version::parse(&schema.version) {
        out.push(
            Diagnostic::new(
                Code::InvalidVersion,
                "version",
                "the version is not semantic versioning",
            )
            .expected("MAJOR.MINOR.PATCH, e.g. 1.0.0, without leading zeros")
            .found(format!("{:?}: {error}", schema.version)),
        );
    }
    check_base_url(&schema.target.base_url, out);
    let target = &schema.target;
    check_generated("target.transport", target.transport, Transport::Http, out);
    check_generated("target.protocol", target.protocol, Protocol::Rest, out);
    check_generated(
        "target.serialization",
        target.serialization,
        Serialization::Json,
        out,
    );
}

/// `target.base_url`: what the server would refuse at start is refused here, and clear text
/// to another machine is warned about.
pub fn check_base_url(url: &str, out: &mut Vec<Diagnostic>) {
    let refuse = |message: &str, expected: &str, help: Option<&str>| {
        let diagnostic = Diagnostic::new(Code::InvalidUrl, "target.base_url", message)
            .expected(expected)
            .found(format!("{url:?}"));
        match help {
            Some(help) => diagnostic.suggest(help),
            None => diagnostic,
        }
    };
    let (secure, rest) = match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
        (Some(rest), _) => (true, rest),
        (_, Some(rest)) => (false, rest),
        _ => (false, ""),
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if rest.is_empty() || authority.is_empty() || rest.contains(char::is_whitespace) {
        out.push(refuse(
            "the base URL is not an http(s) URL",
            "http://host/... or https://host/...",
            None,
        ));
    } else if let Some((_, host)) = authority.rsplit_once('@') {
        // The credential itself is not repeated.
        let shown = url.replacen(authority, &format!("***@{host}"), 1);
        out.push(
            Diagnostic::new(
                Code::InvalidUrl,
                "target.base_url",
                "the base URL embeds credentials",
            )
            .expected("a URL without `user:password@`")
            .found(format!("{shown:?}"))
            .suggest("declare the credential under `auth`, read from an environment variable"),
        );
    } else if rest.contains(['?', '#']) {
        out.push(refuse(
            "the base URL has a query or a fragment",
            "a URL whose path every operation's `maps_to` path is appended to",
            Some("put fixed query params in each operation's params, with a `default`"),
        ));
    } else if !secure && !is_loopback(authority) {
        out.push(
            Diagnostic::new(
                Code::InsecureUrl,
                "target.base_url",
                "requests and their credentials travel in clear text to another machine",
            )
            .expected("https:// for a host other than this machine")
            .found(format!("{url:?}"))
            .suggest("use https:// if the API offers it"),
        );
    }
}

/// `auth.token_url` and `auth.scopes` of `oauth2`: the client secret goes to the token
/// endpoint, so it must be https (or this machine), without embedded credentials; each scope
/// is one RFC 6749 scope token.
fn check_token_url(auth: &AuthConfig, out: &mut Vec<Diagnostic>) {
    if let Some(url) = &auth.token_url {
        let (secure, rest) = match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
            (Some(rest), _) => (true, rest),
            (_, Some(rest)) => (false, rest),
            _ => (false, ""),
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let problem = if authority.is_empty() || rest.contains(char::is_whitespace) {
            Some("the token URL is not an http(s) URL")
        } else if authority.contains('@') || rest.contains('#') {
            Some("the token URL embeds credentials or a fragment")
        } else if !secure && !is_loopback(authority) {
            Some("the client secret would travel in clear text to another machine")
        } else {
            None
        };
        if let Some(problem) = problem {
            out.push(
                Diagnostic::new(Code::InvalidUrl, "auth.token_url", problem)
                    .expected("https://host/path of the authorization server's token endpoint (http only to this machine)")
                    .found(format!("{url:?}")),
            );
        }
    }
    let scope_char = |c: char| c.is_ascii_graphic() && c != '"' && c != '\\';
    for (index, scope) in auth.scopes.iter().flatten().enumerate() {
        if scope.is_empty() || !scope.chars().all(scope_char) {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("auth.scopes[{index}]"),
                    "this is not an OAuth scope",
                )
                .expected("one scope per item: printable ASCII without spaces, `\"` or `\\`")
                .found(format!("{scope:?}")),
            );
        }
    }
}

/// Whether the host of `authority` (`host[:port]`) is this machine.
fn is_loopback(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
    };
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A known value of which only `generated` is generated yet.
fn check_generated<T: Vocabulary>(path: &str, value: T, generated: T, out: &mut Vec<Diagnostic>) {
    if value != generated {
        out.push(
            Diagnostic::new(
                Code::Unsupported,
                path,
                format!("`{}` is not supported yet", value.as_str()),
            )
            .expected(format!(
                "\"{}\" (the only value aqlgen generates today)",
                generated.as_str()
            ))
            .found(format!("{:?}", value.as_str())),
        );
    }
}

/// `auth`: a kind aqlgen generates, with the names it needs, each one the server can use.
pub fn check_auth(auth: &AuthConfig, out: &mut Vec<Diagnostic>) {
    check_auth_at(auth, "auth", out);
}

/// [`check_auth`] of the `auth` at `at`: the adapter's, or one of its `combined` credentials.
fn check_auth_at(auth: &AuthConfig, at: &str, out: &mut Vec<Diagnostic>) {
    let needs: &[(&str, bool)] = match auth.kind {
        AuthKind::Oauth2 => {
            check_token_url(auth, out);
            &[
                ("token_url", auth.token_url.is_some()),
                ("client_id_env", auth.client_id_env.is_some()),
                ("client_secret_env", auth.client_secret_env.is_some()),
            ]
        }
        AuthKind::None => &[],
        AuthKind::Bearer => &[("token_env", auth.token_env.is_some())],
        AuthKind::ApiKey => &[
            ("key_env", auth.key_env.is_some()),
            (
                "header_name",
                auth.header_name.is_some() || auth.header.is_some() || auth.query_param.is_some(),
            ),
        ],
        AuthKind::Basic => &[
            ("username_env", auth.username_env.is_some()),
            ("password_env", auth.password_env.is_some()),
        ],
        AuthKind::AwsSigv4 => {
            check_signing_scope(auth, out);
            &[
                ("region", auth.region.is_some()),
                ("service", auth.service.is_some()),
            ]
        }
        AuthKind::Combined => {
            check_combined(auth, out);
            &[]
        }
    };
    check_auth_names(auth, at, out);
    for (key, present) in needs {
        if !present {
            let expected = if *key == "header_name" {
                "`header_name` (or `header`) or `query_param` saying where the key goes".to_owned()
            } else if *key == "token_url" {
                "`token_url`: the authorization server's token endpoint, an https URL".to_owned()
            } else if *key == "region" {
                "`region`: the AWS region requests are signed for, e.g. `us-east-1`".to_owned()
            } else if *key == "service" {
                "`service`: the AWS service's signing name, e.g. `dynamodb`".to_owned()
            } else {
                format!("`{key}` naming an environment variable")
            };
            out.push(
                Diagnostic::new(
                    Code::MissingField,
                    format!("{at}.{key}"),
                    format!("`{}` auth needs `{key}`", auth.kind),
                )
                .expected(expected)
                .found("nothing"),
            );
        }
    }
}

/// `combined` auth: two credentials or more, each a bearer token or an API key checked as
/// such, no header or variable named twice.
fn check_combined(auth: &AuthConfig, out: &mut Vec<Diagnostic>) {
    if auth.credentials.len() < 2 {
        out.push(
            Diagnostic::new(
                Code::MissingField,
                "auth.credentials",
                "`combined` auth needs the credentials it sends together",
            )
            .expected("two `credentials` or more, each a `bearer` or `api_key` auth")
            .found(format!("{}", auth.credentials.len())),
        );
    }
    let mut headers: Vec<String> = Vec::new();
    let mut variables: Vec<&str> = Vec::new();
    for (index, credential) in auth.credentials.iter().enumerate() {
        let at = format!("auth.credentials[{index}]");
        if !matches!(credential.kind, AuthKind::Bearer | AuthKind::ApiKey) {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{at}.type"),
                    "credentials sent together are bearer tokens and API keys",
                )
                .expected("`bearer` or `api_key`")
                .found(format!("{:?}", credential.kind.as_str())),
            );
            continue;
        }
        check_auth_at(credential, &at, out);
        for header in credential.headers() {
            if headers.iter().any(|seen| seen.eq_ignore_ascii_case(header)) {
                out.push(
                    Diagnostic::new(
                        Code::DuplicateName,
                        at.clone(),
                        format!("two credentials go in the header `{header}`"),
                    )
                    .expected("one header per credential"),
                );
            }
            headers.push(header.to_owned());
        }
        for variable in [&credential.token_env, &credential.key_env]
            .into_iter()
            .flatten()
        {
            if variables.contains(&variable.as_str()) {
                out.push(
                    Diagnostic::new(
                        Code::DuplicateName,
                        at.clone(),
                        format!("two credentials are read from `{variable}`"),
                    )
                    .expected("one environment variable per credential"),
                );
            }
            variables.push(variable);
        }
    }
}

/// The names `auth` gives: environment variables that can exist, a header name HTTP can
/// carry and a prefix without control characters, as the server checks them at start.
/// `auth.region` and `auth.service` of `aws_sigv4`: the names AWS signs with.
fn check_signing_scope(auth: &AuthConfig, out: &mut Vec<Diagnostic>) {
    for (key, value, example) in [
        ("region", &auth.region, "us-east-1"),
        ("service", &auth.service, "dynamodb"),
    ] {
        if let Some(value) = value
            && (value.is_empty()
                || !value
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
        {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("auth.{key}"),
                    format!("this is not an AWS {key} name"),
                )
                .expected(format!(
                    "lowercase letters, digits and `-`, e.g. `{example}`"
                ))
                .found(format!("{value:?}")),
            );
        }
    }
}

fn check_auth_names(auth: &AuthConfig, at: &str, out: &mut Vec<Diagnostic>) {
    for (key, name) in [
        ("token_env", &auth.token_env),
        ("key_env", &auth.key_env),
        ("username_env", &auth.username_env),
        ("password_env", &auth.password_env),
        ("client_id_env", &auth.client_id_env),
        ("client_secret_env", &auth.client_secret_env),
        ("refresh_token_env", &auth.refresh_token_env),
        ("access_key_id_env", &auth.access_key_id_env),
        ("secret_access_key_env", &auth.secret_access_key_env),
        ("session_token_env", &auth.session_token_env),
    ] {
        if let Some(name) = name
            && (name.is_empty() || name.contains(['=', '\0']))
        {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{at}.{key}"),
                    "this is not the name of an environment variable",
                )
                .expected("a non-empty name without `=`, e.g. `GITHUB_TOKEN`")
                .found(format!("{name:?}")),
            );
        }
    }
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    for (key, name) in [("header", &auth.header), ("header_name", &auth.header_name)] {
        if let Some(name) = name
            && (name.is_empty() || !name.chars().all(token))
        {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{at}.{key}"),
                    "this is not an HTTP header name",
                )
                .expected("letters, digits and `-` (an RFC 9110 token), e.g. `X-Api-Key`")
                .found(format!("{name:?}")),
            );
        }
    }
    if let Some(name) = &auth.query_param
        && name.is_empty()
    {
        out.push(
            Diagnostic::new(
                Code::InvalidValue,
                format!("{at}.query_param"),
                "the query parameter name is empty",
            )
            .expected("the name the API reads the key from, e.g. `api_key`")
            .found("\"\""),
        );
    }
    if let Some(prefix) = &auth.prefix
        && prefix.contains(char::is_control)
    {
        out.push(
            Diagnostic::new(
                Code::InvalidValue,
                format!("{at}.prefix"),
                "the prefix holds a control character",
            )
            .expected("printable text such as `Bearer` or `token`")
            .found(format!("{prefix:?}")),
        );
    }
}

/// An operation's fixed `headers`: names a request may set (a `Content-Type` too, which
/// replaces the body's), not the auth scheme's and not a header param's, with values that
/// fit in a header.
fn check_fixed_headers(
    operation: &Operation,
    path: &str,
    auth: Option<&AuthConfig>,
    out: &mut Vec<Diagnostic>,
) {
    for (name, value) in &operation.headers {
        let at = format!("{path}.headers.{name}");
        let params = operation.params.iter().filter(|(param_name, param)| {
            param.location == Some(ParamLocation::Header)
                && param
                    .wire_name
                    .as_deref()
                    .unwrap_or(param_name)
                    .eq_ignore_ascii_case(name)
        });
        let settable = name.eq_ignore_ascii_case("content-type")
            || (aqlgen_model::is_settable_header(name)
                && !auth.is_some_and(|auth| auth.writes_header(name)));
        if !settable || params.count() > 0 {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    at.clone(),
                    format!("header `{name}` is not one an operation may fix"),
                )
                .expected("a header name that HTTP, auth and the operation's params leave free (Content-Type is allowed)")
                .found(format!("{name:?}")),
            );
        }
        if value.is_empty()
            || !value
                .bytes()
                .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
        {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    at,
                    "this value cannot be sent in a header",
                )
                .expected("printable ASCII without line breaks")
                .found(format!("{value:?}")),
            );
        }
    }
}

fn check_operation(
    category: Category,
    operation: &Operation,
    path: &str,
    auth: Option<&AuthConfig>,
    out: &mut Vec<(Within, Diagnostic)>,
) {
    let mut whole = Vec::new();
    check_snake_case(
        &format!("{path}.name"),
        "operation",
        &operation.name,
        &mut whole,
    );
    check_fixed_headers(operation, path, auth, &mut whole);
    if RESERVED_OPERATIONS.contains(&operation.name.as_str()) {
        whole.push(
            Diagnostic::new(
                Code::ReservedName,
                format!("{path}.name"),
                format!(
                    "`{}` is a protocol operation and cannot be redefined",
                    operation.name
                ),
            )
            .expected(format!(
                "a name other than {}",
                RESERVED_OPERATIONS.join(", ")
            ))
            .found(format!("{:?}", operation.name)),
        );
    }
    match maps_to::parse(&operation.maps_to) {
        Err(refusal) => {
            let mut diagnostic = Diagnostic::new(
                Code::InvalidMapsTo,
                format!("{path}.maps_to"),
                "`maps_to` is not a `METHOD /path` every request can be built from",
            )
            .expected(refusal.expected)
            .found(format!("{:?}", operation.maps_to));
            if let Some(help) = refusal.help {
                diagnostic = diagnostic.suggest(help);
            }
            whole.push(diagnostic);
        }
        Ok(parsed) => {
            if category == Category::Read && parsed.method.changes_data() {
                whole.push(
                    Diagnostic::new(
                        Code::CategoryMismatch,
                        format!("{path}.maps_to"),
                        format!(
                            "a read operation cannot be a `{}`, which changes data",
                            parsed.method.as_str()
                        ),
                    )
                    .expected("GET (or POST for a query that changes nothing) under `read`")
                    .found(format!("{:?}", operation.maps_to))
                    .suggest(format!(
                        "move `{}` to the category of what it does ({})",
                        operation.name,
                        if parsed.method == aqlgen_model::Method::Delete {
                            "delete"
                        } else {
                            "update"
                        }
                    )),
                );
            }
            check_placement(operation, &parsed, path, auth, out, &mut whole);
            check_one_of(category, operation, &parsed, path, &mut whole);
            whole.extend(check_method_fits(category, parsed.method, operation, path));
            for piece in &parsed.pieces {
                let PathPiece::Placeholder(name) = piece else {
                    continue;
                };
                let declared = operation.params.get(*name);
                if declared.is_none_or(|param| param.required != Some(true)) {
                    let found = if declared.is_some() {
                        "an optional param"
                    } else {
                        "no such param"
                    };
                    let suggestion = match renamed(operation, &parsed, name) {
                        Some(param) if declared.is_none() => format!(
                            "rename the param `{param}` to `{name}`, or write the placeholder as `{{{param}}}`"
                        ),
                        _ => format!(
                            "declare `{name}: {{type: string, required: true}}` under params"
                        ),
                    };
                    whole.push(
                        Diagnostic::new(
                            Code::InvalidPlaceholder,
                            format!("{path}.maps_to"),
                            format!("path placeholder `{{{name}}}` is not a required param"),
                        )
                        .expected(format!("a param `{name}` with `required: true`"))
                        .found(found)
                        .suggest(suggestion),
                    );
                }
            }
        }
    }
    let mut field_idents: BTreeMap<String, &str> = BTreeMap::new();
    for (name, param) in &operation.params {
        let param_path = format!("{path}.params.{name}");
        let mut named = Vec::new();
        check_snake_case(&param_path, "parameter", name, &mut named);
        if let Some(first) = field_idents.insert(ident::field_name(name), name) {
            named.push(
                Diagnostic::new(
                    Code::IdentCollision,
                    param_path.clone(),
                    format!("parameter `{name}` gets the same Rust name as `{first}`"),
                )
                .expected("names that differ after case conversion")
                .found(format!("{name:?}")),
            );
        }
        if is_reserved_param(category, name) {
            named.push(
                Diagnostic::new(Code::ReservedName, param_path.clone(), format!("parameter name `{name}` is reserved by the protocol here"))
                    .expected("another name (`input` wraps UPDATE fields; `confirmation_token` carries confirmations)")
                    .found(format!("{name:?}")),
            );
        }
        out.extend(
            named
                .into_iter()
                .map(|diagnostic| (Within::Param(name.clone()), diagnostic)),
        );
        let mut parts = Vec::new();
        check_param(param, &param_path, &mut parts);
        out.extend(
            parts
                .into_iter()
                .map(|(part, diagnostic)| (Within::ParamPart(name.clone(), part), diagnostic)),
        );
    }
    check_features(category, operation, path, &mut whole);
    if operation.danger_level.is_none()
        && let Some((implied, pattern)) = aqlgen_model::implied_danger(category, &operation.name)
    {
        whole.push(
            Diagnostic::new(
                Code::DangerInferred,
                format!("{path}.name"),
                format!(
                    "`{}` declares no danger level, and its name matches `{pattern}`: it is `{}` (danger-levels §5)",
                    operation.name,
                    implied.as_str()
                ),
            )
            .suggest("declare `danger_level` if the name says more than the operation does"),
        );
    }
    out.extend(
        whole
            .into_iter()
            .map(|diagnostic| (Within::Operation, diagnostic)),
    );
}

/// The param the placeholder `{name}` most likely meant: one no placeholder of the path
/// names whose name is a part of `name` or close to it (`id` for `{note_id}`).
fn renamed<'a>(operation: &'a Operation, parsed: &MapsTo<'_>, name: &str) -> Option<&'a str> {
    let placeholders: Vec<&str> = parsed
        .pieces
        .iter()
        .filter_map(|piece| match piece {
            PathPiece::Placeholder(placeholder) => Some(*placeholder),
            PathPiece::Literal(_) => None,
        })
        .collect();
    let unused = operation
        .params
        .keys()
        .map(String::as_str)
        .filter(|param| !placeholders.contains(param));
    let (parts, others): (Vec<&str>, Vec<&str>) = unused.partition(|param| {
        name.starts_with(&format!("{param}_")) || name.ends_with(&format!("_{param}"))
    });
    parts
        .first()
        .copied()
        .or_else(|| super::nearest(name, others))
}

/// Where each param goes: `in`, `wire_name`, `style` and `explode` agree with the template
/// and with each other, headers are ones a param may set, the body's media type fits the
/// method, and no two params (or a param and a fixed query pair) share a name on the wire.
fn check_placement(
    operation: &Operation,
    parsed: &MapsTo<'_>,
    path: &str,
    auth: Option<&AuthConfig>,
    params_out: &mut Vec<(Within, Diagnostic)>,
    whole: &mut Vec<Diagnostic>,
) {
    let method = parsed.method.as_str();
    if let Some(content_type) = operation.content_type
        && !placement::takes_body(parsed.method)
    {
        whole.push(
            Diagnostic::new(
                Code::InvalidValue,
                format!("{path}.content_type"),
                format!("a `{method}` sends no body, so it has no content type"),
            )
            .expected("`content_type` only on POST, PUT, PATCH or DELETE")
            .found(format!("{:?}", content_type.as_str()))
            .suggest("leave `content_type` out"),
        );
    }
    if operation.requires_body == Some(true) && !placement::takes_body(parsed.method) {
        whole.push(
            Diagnostic::new(
                Code::InvalidValue,
                format!("{path}.requires_body"),
                format!("a `{method}` sends no body"),
            )
            .expected("`requires_body` only on POST, PUT, PATCH or DELETE")
            .suggest("leave `requires_body` out"),
        );
    }
    let content_type = placement::content_type(operation.content_type);
    check_whole_body(operation, parsed, path, content_type, whole);
    for pair in &parsed.query {
        if let QueryValue::Param(name) = pair.value
            && !operation.params.contains_key(name)
        {
            whole.push(
                Diagnostic::new(
                    Code::InvalidPlaceholder,
                    format!("{path}.maps_to"),
                    format!("query placeholder `{{{name}}}` is not a declared param"),
                )
                .expected(format!("a param `{name}`"))
                .found("no such param")
                .suggest(format!("declare `{name}: {{type: string}}` under params")),
            );
        }
    }
    let mut taken: BTreeMap<(ParamLocation, String), String> = parsed
        .query
        .iter()
        .filter(|pair| matches!(pair.value, QueryValue::Fixed(_)))
        .map(|pair| {
            (
                (ParamLocation::Query, maps_to::decode(pair.name)),
                "the fixed query pair of `maps_to`".to_owned(),
            )
        })
        .collect();
    for (name, param) in &operation.params {
        let param_path = format!("{path}.params.{name}");
        let placed = placement::place(parsed, name, param);
        let mut found = Vec::new();
        let mut refuse = |key: &str, message: String, expected: String, fix: Option<String>| {
            let mut diagnostic =
                Diagnostic::new(Code::InvalidValue, format!("{param_path}{key}"), message)
                    .expected(expected);
            if let Some(fix) = fix {
                diagnostic = diagnostic.suggest(fix);
            }
            found.push(diagnostic);
        };
        let declared = param.location;
        if declared.is_some_and(|location| location != placed.location) {
            let (why, fix) = match placed.location {
                ParamLocation::Path => ("it fills the path placeholder", "in: path"),
                _ => ("the query of `maps_to` places it", "in: query"),
            };
            refuse(
                ".in",
                format!(
                    "`{name}` is `in: {}`, but {why}",
                    declared.map_or("", |l| l.as_str())
                ),
                format!("`{fix}`, or no `in`"),
                Some("leave `in` out".to_owned()),
            );
        } else if declared == Some(ParamLocation::Path) {
            refuse(
                ".in",
                format!("`{name}` is `in: path`, but `maps_to` has no `{{{name}}}`"),
                format!(
                    "a `{{{name}}}` placeholder in the path of {:?}",
                    operation.maps_to
                ),
                Some(format!(
                    "write `{{{name}}}` where the value goes in the path"
                )),
            );
        }
        if !placement::method_allows(parsed.method, placed.location) {
            refuse(
                ".in",
                format!("a `{method}` sends no body, so `{name}` cannot go in one"),
                "`in: query`, `header` or `cookie`".to_owned(),
                None,
            );
        }
        if let Some(wire_name) = &param.wire_name {
            let fixed_by = match placed.location {
                ParamLocation::Path => Some("its placeholder"),
                _ if placed.wire_name != wire_name => Some("the query of `maps_to`"),
                _ => None,
            };
            if let Some(fixed_by) = fixed_by {
                refuse(
                    ".wire_name",
                    format!("`{name}` is named on the wire by {fixed_by}"),
                    "no `wire_name`".to_owned(),
                    Some("leave `wire_name` out".to_owned()),
                );
            } else if wire_name.is_empty() || wire_name.chars().any(char::is_control) {
                refuse(
                    ".wire_name",
                    format!("`{name}` has a `wire_name` no request can carry"),
                    "the upstream's name for it: not empty, no control characters".to_owned(),
                    None,
                );
            }
        }
        if placed.location == ParamLocation::Header {
            let owned_by_auth = auth.is_some_and(|auth| auth.writes_header(placed.wire_name));
            if !aqlgen_model::is_settable_header(placed.wire_name) || owned_by_auth {
                refuse(
                    "",
                    format!("header `{}` is not one a param may set", placed.wire_name),
                    "a header name (letters, digits, `-`...) that HTTP, the body and auth leave \
                     free: not Host, Content-Type, Content-Length, Cookie, Authorization, \
                     If-Match or the auth scheme's header"
                        .to_owned(),
                    Some(if owned_by_auth {
                        "leave it out: `auth` sends that header".to_owned()
                    } else if aqlgen_model::OWNED_HEADERS
                        .contains(&placed.wire_name.to_ascii_lowercase().as_str())
                    {
                        "leave it out: HTTP, the body or the server sets that header".to_owned()
                    } else {
                        "set `wire_name` to the header's exact name".to_owned()
                    }),
                );
            }
        }
        let json_body = placed.location == ParamLocation::WholeBody
            || (placed.location == ParamLocation::Body && content_type == ContentType::Json);
        if json_body {
            if param.style.is_some() || param.explode.is_some() {
                refuse(
                    if param.style.is_some() {
                        ".style"
                    } else {
                        ".explode"
                    },
                    format!("`{name}` goes in a JSON body, where values are written as they are"),
                    "no `style` or `explode` on a JSON body param".to_owned(),
                    Some(
                        "leave them out, or set the operation's `content_type` to a form"
                            .to_owned(),
                    ),
                );
            }
        } else if !ParamStyle::allowed_at(placed.location).contains(&placed.style) {
            refuse(
                ".style",
                format!(
                    "a {} param cannot be written in style `{}`",
                    placed.location, placed.style
                ),
                format!(
                    "one of: {}",
                    ParamStyle::allowed_at(placed.location)
                        .iter()
                        .map(|style| style.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            );
        }
        if placed.location != ParamLocation::Path {
            let key = match placed.location {
                ParamLocation::Header => placed.wire_name.to_ascii_lowercase(),
                _ => placed.wire_name.to_owned(),
            };
            if let Some(first) = taken.insert((placed.location, key), format!("`{name}`")) {
                params_out.push((
                    Within::Param(name.clone()),
                    Diagnostic::new(
                        Code::DuplicateName,
                        param_path.clone(),
                        format!(
                            "`{name}` and {first} both go to {} `{}`",
                            placed.location, placed.wire_name
                        ),
                    )
                    .expected("one param per name on the wire")
                    .suggest("give one of them another `wire_name`, or drop it"),
                ));
            }
        }
        params_out.extend(
            found
                .into_iter()
                .map(|diagnostic| (Within::Param(name.clone()), diagnostic)),
        );
    }
}

/// `requires_one_of`: two sets or more, none empty, of declared params that the caller
/// gives side by side (all at the top level, or all inside an UPDATE's `input`).
fn check_one_of(
    category: Category,
    operation: &Operation,
    parsed: &MapsTo<'_>,
    path: &str,
    whole: &mut Vec<Diagnostic>,
) {
    let sets = &operation.requires_one_of;
    if sets.is_empty() {
        return;
    }
    let at = format!("{path}.requires_one_of");
    let refuse = |message: String, expected: &str| {
        Diagnostic::new(Code::InvalidValue, at.clone(), message).expected(expected.to_owned())
    };
    if sets.len() < 2 || sets.iter().any(Vec::is_empty) {
        whole.push(refuse(
            "`requires_one_of` needs two sets of params or more, none of them empty".to_owned(),
            "a list of lists of param names, e.g. `[[droplet_ids], [tag]]`",
        ));
    }
    let mut levels = std::collections::BTreeSet::new();
    for name in sets.iter().flatten() {
        let Some(param) = operation.params.get(name) else {
            whole.push(
                refuse(
                    format!("`requires_one_of` names `{name}`, which is no param of the operation"),
                    "names of the operation's params",
                )
                .suggest(format!("declare `{name}` under params, or drop it here")),
            );
            continue;
        };
        let location = placement::place(parsed, name, param).location;
        levels.insert(category == Category::Update && placement::wraps_in_input(location));
    }
    if levels.len() > 1 {
        whole.push(refuse(
            "`requires_one_of` mixes fields of `input` with params beside it".to_owned(),
            "only body params, or only params outside the body, in an `update`",
        ));
    }
}

/// A param that is the whole body is the operation's only body param, one at most, in a JSON
/// body, under no `wire_name` (it has no name on the wire).
fn check_whole_body(
    operation: &Operation,
    parsed: &MapsTo<'_>,
    path: &str,
    content_type: ContentType,
    whole: &mut Vec<Diagnostic>,
) {
    let placed: Vec<(&String, ParamLocation)> = operation
        .params
        .iter()
        .map(|(name, param)| (name, placement::place(parsed, name, param).location))
        .collect();
    let wholes: Vec<&String> = placed
        .iter()
        .filter(|(_, location)| *location == ParamLocation::WholeBody)
        .map(|(name, _)| *name)
        .collect();
    if content_type == ContentType::OctetStream {
        let members = placed
            .iter()
            .filter(|(_, location)| *location == ParamLocation::Body);
        for (name, _) in members {
            whole.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{path}.params.{name}.in"),
                    format!("an `application/octet-stream` body has no members, so `{name}` cannot be one"),
                )
                .expected("one `in: whole_body` string param for the bytes")
                .suggest(format!("write `in: whole_body` and `type: string` on `{name}`")),
            );
        }
    }
    let Some(first) = wholes.first() else {
        return;
    };
    let at = format!("{path}.params.{first}.in");
    let members: Vec<&str> = placed
        .iter()
        .filter(|(_, location)| *location == ParamLocation::Body)
        .map(|(name, _)| name.as_str())
        .collect();
    if let Some(second) = wholes.get(1) {
        whole.push(
            Diagnostic::new(
                Code::InvalidValue,
                at.clone(),
                format!("`{first}` and `{second}` are both the whole body"),
            )
            .expected("one `in: whole_body` param at most")
            .suggest(format!("make `{second}` a member of the body: `in: body`")),
        );
    }
    if !members.is_empty() {
        whole.push(
            Diagnostic::new(
                Code::InvalidValue,
                at.clone(),
                format!(
                    "`{first}` is the whole body, so `{}` cannot be members of it",
                    members.join("`, `")
                ),
            )
            .expected("a whole-body param and no `in: body` params")
            .suggest(format!(
                "make `{first}` `in: body`, or put the others in the query"
            )),
        );
    }
    match content_type {
        ContentType::Json => {}
        ContentType::OctetStream => {
            let ty = operation.params[first.as_str()].kind;
            if ty != ParamType::String {
                whole.push(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("{path}.params.{first}.type"),
                        format!("`{first}` is the bytes of the body, which take a string"),
                    )
                    .expected("`type: string` (with `format: binary` for base64)")
                    .found(format!("{:?}", ty.as_str())),
                );
            }
        }
        ContentType::Form | ContentType::Multipart => whole.push(
            Diagnostic::new(
                Code::InvalidValue,
                at.clone(),
                format!(
                    "`{first}` is the whole body, but a `{}` body is made of members",
                    content_type.as_str()
                ),
            )
            .expected("`in: whole_body` with a JSON or `application/octet-stream` body")
            .suggest("leave `content_type` out"),
        ),
    }
    for name in &wholes {
        if operation.params[name.as_str()].wire_name.is_some() {
            whole.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{path}.params.{name}.wire_name"),
                    format!("`{name}` is the whole body, which has no name on the wire"),
                )
                .expected("no `wire_name`")
                .suggest("leave `wire_name` out"),
            );
        }
    }
}

/// A warning when the category contradicts the method in a clear way that the rules above
/// do not refuse: a create or update mapped to `DELETE`, a delete mapped to `GET`. POST is
/// neutral (RPC-style APIs do everything with it), and a read that changes data is refused
/// on its own.
fn check_method_fits(
    category: Category,
    method: aqlgen_model::Method,
    operation: &Operation,
    path: &str,
) -> Option<Diagnostic> {
    use aqlgen_model::Method;
    let (does, fits) = match (category, method) {
        (Category::Create | Category::Update, Method::Delete) => {
            ("removes what it addresses", "delete")
        }
        (Category::Delete, Method::Get) => ("only reads what it addresses", "read"),
        _ => return None,
    };
    Some(
        Diagnostic::new(
            Code::UnlikelyMethod,
            format!("{path}.maps_to"),
            format!(
                "{} {} operation mapped to `{}`, which {does}",
                if category == Category::Update {
                    "an"
                } else {
                    "a"
                },
                category.family(),
                method.as_str()
            ),
        )
        .expected(format!(
            "a method that does what `{}` does",
            category.family()
        ))
        .found(format!("{:?}", operation.maps_to))
        .suggest(format!(
            "check the method, or move `{}` to `{fits}` if that is what it does",
            operation.name
        )),
    )
}

/// `response.presets`, and the features asked for that the operation cannot have.
fn check_features(
    category: Category,
    operation: &Operation,
    path: &str,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(presets) = operation.response.as_ref().and_then(|r| r.presets.as_ref()) {
        let presets_path = format!("{path}.response.presets");
        if let Some((suffix, message, expected)) = features::check_presets(presets) {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{presets_path}{suffix}"),
                    message,
                )
                .expected(expected),
            );
        } else if operation.supports_fields != Some(true) {
            out.push(
                Diagnostic::new(
                    Code::FeatureUnavailable,
                    presets_path,
                    "presets apply only to an operation with field selection",
                )
                .expected("`supports_fields: true` beside them")
                .suggest("add `supports_fields: true` to the operation"),
            );
        }
    }
    for (key, reason) in features::resolve(category, operation).off {
        out.push(Diagnostic::new(
            Code::FeatureUnavailable,
            format!("{path}.{key}"),
            reason,
        ));
    }
}

fn check_param(param: &Param, path: &str, out: &mut Vec<(ParamPart, Diagnostic)>) {
    let kind = param.kind;
    let allowed = param.allowed.as_deref().unwrap_or_default();
    for (index, value) in allowed.iter().enumerate() {
        if !kind.admits(value) {
            out.push((
                ParamPart::Enum,
                Diagnostic::new(
                    Code::InvalidEnum,
                    format!("{path}.enum[{index}]"),
                    format!("enum value does not match the parameter type `{kind}`"),
                )
                .expected(format!("a {kind}"))
                .found(value.to_string()),
            ));
        }
    }
    if matches!(
        kind,
        ParamType::Array | ParamType::Object | ParamType::Boolean
    ) && !allowed.is_empty()
    {
        out.push((
            ParamPart::Enum,
            Diagnostic::new(
                Code::InvalidEnum,
                format!("{path}.enum"),
                format!("`enum` does not apply to `{kind}` parameters"),
            )
            .expected("`enum` on string, integer or number parameters")
            .found(format!("an enum on a {kind}")),
        ));
    }
    if param.default.is_some() && matches!(kind, ParamType::Array | ParamType::Object) {
        out.push((
            ParamPart::Default,
            Diagnostic::new(
                Code::Unsupported,
                format!("{path}.default"),
                format!("a default on an `{kind}` parameter is not supported yet"),
            )
            .expected("`default` on string, integer, number or boolean parameters")
            .found(format!("a default on an {kind}")),
        ));
    } else if let Some(default) = &param.default {
        if param.required == Some(true) {
            out.push((
                ParamPart::Default,
                Diagnostic::new(
                    Code::InvalidDefault,
                    format!("{path}.default"),
                    "a required parameter never falls back to its default",
                )
                .expected("either `required: true` or a `default`, not both")
                .found(format!("required: true and default: {default}"))
                .suggest("drop `required: true`: a parameter with a default is optional"),
            ));
        } else if !kind.admits(default) {
            out.push((
                ParamPart::Default,
                Diagnostic::new(
                    Code::InvalidDefault,
                    format!("{path}.default"),
                    format!("the default does not match the parameter type `{kind}`"),
                )
                .expected(format!("a {kind}"))
                .found(default.to_string()),
            ));
        } else if !allowed.is_empty() && !allowed.contains(default) {
            out.push((
                ParamPart::Default,
                Diagnostic::new(
                    Code::InvalidDefault,
                    format!("{path}.default"),
                    "the default is not one of the enum values",
                )
                .expected(format!(
                    "one of: {}",
                    allowed
                        .iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .found(default.to_string()),
            ));
        } else if let (Some(format), Some(text)) = (
            param.format.as_deref().and_then(StringFormat::parse),
            default.as_str(),
        ) && !format.matches(text)
        {
            out.push((
                ParamPart::Default,
                Diagnostic::new(
                    Code::InvalidDefault,
                    format!("{path}.default"),
                    format!(
                        "the default is not a `{}` value, which the server checks",
                        format.as_str()
                    ),
                )
                .expected(format.shape())
                .found(default.to_string()),
            ));
        }
    }
    check_range(param, path, out);
    check_lengths(param, path, out);
    if let Some(pattern) = &param.pattern {
        if kind != ParamType::String {
            out.push((
                ParamPart::Pattern,
                Diagnostic::new(
                    Code::InvalidPattern,
                    format!("{path}.pattern"),
                    format!("`pattern` does not apply to `{kind}` parameters"),
                )
                .expected("`pattern` on string parameters")
                .found(format!("a pattern on a {kind}")),
            ));
        } else if let Err(error) = Regex::new(pattern) {
            out.push((
                ParamPart::Pattern,
                Diagnostic::new(
                    Code::InvalidPattern,
                    format!("{path}.pattern"),
                    "the pattern is not a valid regular expression",
                )
                .expected("a regular expression")
                .found(format!(
                    "{pattern:?}: {}",
                    error.to_string().lines().last().unwrap_or_default().trim()
                )),
            ));
        }
    }
}

/// `min_length` and `max_length`: on string params, in order, kept by the default.
fn check_lengths(param: &Param, path: &str, out: &mut Vec<(ParamPart, Diagnostic)>) {
    let (min, max) = (param.min_length, param.max_length);
    if min.is_none() && max.is_none() {
        return;
    }
    let key = if min.is_some() {
        "min_length"
    } else {
        "max_length"
    };
    let mut refuse = |key: &str, message: String, expected: &str, found: String| {
        out.push((
            ParamPart::Lengths,
            Diagnostic::new(Code::InvalidRange, format!("{path}.{key}"), message)
                .expected(expected.to_owned())
                .found(found),
        ));
    };
    if param.kind != ParamType::String {
        refuse(
            key,
            format!("`{key}` does not apply to `{}` parameters", param.kind),
            "`min_length`/`max_length` on string parameters",
            format!("a length on a {}", param.kind),
        );
        return;
    }
    if let (Some(min), Some(max)) = (min, max)
        && min > max
    {
        refuse(
            "min_length",
            "`min_length` is greater than `max_length`".to_owned(),
            &format!("min_length <= max_length ({max})"),
            min.to_string(),
        );
    }
    if let Some(default) = param.default.as_ref().and_then(Value::as_str)
        && !aqlgen_model::length_within(default, (min, max))
    {
        refuse(
            "default",
            "the default's length lies outside min_length..max_length".to_owned(),
            "a default of an allowed length",
            format!("{default:?} ({} characters)", default.chars().count()),
        );
    }
}

fn check_range(param: &Param, path: &str, out: &mut Vec<(ParamPart, Diagnostic)>) {
    let kind = param.kind;
    for (key, bound) in [("minimum", param.minimum), ("maximum", param.maximum)] {
        let Some(bound) = bound else { continue };
        // i64::MIN is -2^63 exactly; i64::MAX rounds up to 2^63 as an f64, so it is excluded.
        let in_i64 = (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&bound);
        let problem = match kind {
            _ if !bound.is_finite() => Some("a finite number"),
            ParamType::Integer if bound.fract() != 0.0 => {
                Some("a whole number for an integer parameter")
            }
            ParamType::Integer if !in_i64 => Some("a whole number within the 64-bit integer range"),
            ParamType::Integer | ParamType::Number => None,
            _ => Some("`minimum`/`maximum` only on integer or number parameters"),
        };
        if let Some(expected) = problem {
            out.push((
                ParamPart::Bounds,
                Diagnostic::new(
                    Code::InvalidRange,
                    format!("{path}.{key}"),
                    format!("`{key}` does not suit the parameter type `{kind}`"),
                )
                .expected(expected)
                .found(bound.to_string()),
            ));
        }
    }
    if let (Some(minimum), Some(maximum)) = (param.minimum, param.maximum)
        && minimum > maximum
    {
        out.push((
            ParamPart::Bounds,
            Diagnostic::new(
                Code::InvalidRange,
                format!("{path}.minimum"),
                "`minimum` is greater than `maximum`",
            )
            .expected(format!("minimum <= maximum ({maximum})"))
            .found(minimum.to_string()),
        ));
    }
    let out_of_range = |value: &Value| {
        value.as_f64().is_some_and(|number| {
            param.minimum.is_some_and(|m| number < m) || param.maximum.is_some_and(|m| number > m)
        })
    };
    if let Some(default) = &param.default
        && matches!(kind, ParamType::Integer | ParamType::Number)
        && out_of_range(default)
    {
        out.push((
            ParamPart::Default,
            Diagnostic::new(
                Code::InvalidDefault,
                format!("{path}.default"),
                "the default lies outside minimum..maximum",
            )
            .expected("a default within the bounds")
            .found(default.to_string()),
        ));
    }
}
