//! `components.securitySchemes` to the adapter's `auth`, and what the rest of the import
//! needs to know about credentials: which params carry one (and so are no params of the
//! adapter), and which operations need a scheme the adapter does not send.
//!
//! The adapter sends one credential on every call. Of the schemes the format supports and
//! `check` accepts, the importer takes the one the most operations accept on its own; on a
//! tie the simplest to provide (an http bearer token, an API key in a header, then in the
//! query, basic auth, an OAuth2 or OpenID Connect access token), then the first by name.
//! An OAuth2 scheme with a `clientCredentials` flow whose token URL is https is imported as
//! `oauth2` auth: the adapter obtains its tokens itself, with the client id and secret the
//! operator gives, asking for the scopes the operations ask for. Other OAuth2 flows and
//! OpenID Connect are imported as a bearer token the operator obtains: the adapter does not
//! run the flow, and says which flow and scopes the document names. A
//! scheme that signs each request (AWS Signature Version 4) cannot be stood in for by a
//! static key, and is skipped with a warning.

use std::collections::BTreeMap;

use super::document::{Document, OAuthFlow, Operation, PathItem, Requirement, SecurityScheme};
use super::naming::snake;
use super::refs::Resolver;
use crate::schema::{AuthConfig, AuthKind};
use crate::validate::rules;

/// The adapter's auth, and what it means for the operations and their params.
#[derive(Debug)]
pub struct Outcome {
    /// The `auth` to write.
    pub config: AuthConfig,
    /// The scheme `config` stands for, by name; `None` when none could be imported, or when
    /// the caller chose the auth.
    scheme: Option<String>,
    /// Whether the caller chose the auth (`--bearer-env`): every operation then has what it
    /// needs, as far as the import can tell.
    chosen: bool,
    /// The document's requirements, for operations that declare none.
    global: Option<Vec<Requirement>>,
    /// Where the adapter's API keys go, as `(place, name)`.
    keys: Vec<(String, String)>,
    /// Whether the adapter sends the token of the document's own scheme (http bearer,
    /// OAuth2, OpenID Connect), which params named `token` or `access_token` may carry.
    token: bool,
    /// Of `token` and `access_token`, the names the document declares a param of on at least
    /// half of its operations: it threads the credential through every call (Slack's
    /// `token`, Google's `access_token`).
    token_everywhere: Vec<&'static str>,
    /// The schemes the adapter's credential stands for, by name: the one imported, and with
    /// a token every scheme of the document that takes one (Google names an implicit and an
    /// authorization-code OAuth2 flow, and requires both together: one token meets both).
    satisfies: Vec<String>,
    /// Markdown for the adapter's body: how to obtain the credential.
    pub notes: Option<String>,
}

/// Names a param carrying an access token goes by.
const TOKEN_NAMES: [&str; 2] = ["token", "access_token"];

impl Outcome {
    /// Auth the caller chose, in place of the document's: only an `Authorization` header is
    /// taken for its credential, since the document does not say that its `token` params
    /// are the caller's (GitHub's `apps/check-token` takes the token it checks as
    /// `access_token`).
    pub fn chosen(config: AuthConfig) -> Self {
        Self {
            config,
            scheme: None,
            chosen: true,
            global: None,
            keys: Vec::new(),
            token: false,
            token_everywhere: Vec::new(),
            satisfies: Vec::new(),
            notes: None,
        }
    }

    /// The security scheme the adapter's auth stands for, by name; `None` when none could be
    /// imported or the caller chose the auth.
    pub fn scheme(&self) -> Option<&str> {
        self.scheme.as_deref()
    }

    /// The document's security requirements, for operations that declare none.
    pub fn global(&self) -> Option<&[Requirement]> {
        self.global.as_deref()
    }

    /// Whether a param of `place` (`query`, `header`, `cookie`, or `body` for a field of a
    /// form body) named `name`, described by `description`, carries the credential the
    /// adapter's auth sends, and so must not be an ordinary param: the API key of the
    /// scheme imported, in its place; an `Authorization` header; and, when the adapter sends
    /// the token of the document's own bearer, OAuth2 or OpenID Connect scheme, a `token` or
    /// `access_token` that the document declares on most operations or describes as auth
    /// ("Authentication token", "OAuth access token"). A token param that is data (a report
    /// token, a login token to verify) stays. Nothing does when the adapter has no auth.
    pub fn carries(&self, place: &str, name: &str, description: Option<&str>) -> bool {
        if self.config.kind == AuthKind::None {
            return false;
        }
        let header = place == "header";
        let is_key = self.keys.iter().any(|(key_place, key_name)| {
            key_place == place
                && if header {
                    key_name.eq_ignore_ascii_case(name)
                } else {
                    key_name == name
                }
        });
        let token = TOKEN_NAMES
            .into_iter()
            .find(|token| token.eq_ignore_ascii_case(name));
        let is_token = self.token
            && token.is_some_and(|token| {
                self.token_everywhere.contains(&token)
                    || description.is_some_and(|text| text.to_ascii_lowercase().contains("auth"))
            });
        // `Authorization` is the credential only where the auth writes it: an API key in
        // `Ocp-Apim-Subscription-Key` leaves a required `Authorization` unsent.
        let is_authorization =
            header && name.eq_ignore_ascii_case("authorization") && self.config.writes_header(name);
        is_key || is_authorization || is_token
    }

    /// Whether `operation` needs auth the adapter does not send: the document requires
    /// security for it (its own `security`, else the document's, non-empty and without an
    /// empty, optional, requirement) and no requirement names only schemes the adapter's
    /// credential stands for. Never when the caller chose the auth.
    pub fn missing_for(&self, operation: &Operation) -> bool {
        if self.chosen {
            return false;
        }
        let Some(requirements) = operation.security.as_ref().or(self.global.as_ref()) else {
            return false;
        };
        if requirements.is_empty() || requirements.iter().any(BTreeMap::is_empty) {
            return false;
        }
        !requirements.iter().any(|requirement| {
            requirement
                .keys()
                .all(|scheme| self.satisfies.contains(scheme))
        })
    }
}

/// The params `operation` on `item` declares in the query, a header, a cookie or a form
/// body, as `(place, name, description)`.
fn declared_params<'r>(
    refs: &'r Resolver<'_>,
    item: &'r PathItem,
    operation: &'r Operation,
) -> Vec<(&'static str, &'r str, Option<&'r str>)> {
    let mut declared = Vec::new();
    for parameter in item.parameters.iter().chain(&operation.parameters) {
        let Ok(parameter) = refs.resolve(parameter) else {
            continue;
        };
        let place = match parameter.location.as_deref() {
            Some("query") => "query",
            Some("header") => "header",
            Some("cookie") => "cookie",
            _ => continue,
        };
        let description = parameter.description.as_deref().or_else(|| {
            parameter
                .schema
                .as_ref()
                .and_then(|schema| refs.resolve(schema).ok())
                .and_then(|schema| schema.description.as_deref())
        });
        declared.push((
            place,
            parameter.name.as_deref().unwrap_or_default(),
            description,
        ));
    }
    let body = operation
        .request_body
        .as_ref()
        .and_then(|body| refs.resolve(body).ok());
    let forms = body
        .and_then(|body| body.content.as_ref())
        .into_iter()
        .flatten()
        .filter(|(media, _)| {
            media.starts_with("application/x-www-form-urlencoded")
                || media.starts_with("multipart/form-data")
        });
    for (_, form) in forms {
        let Some(schema) = form
            .schema
            .as_ref()
            .and_then(|schema| refs.resolve(schema).ok())
        else {
            continue;
        };
        for (name, property) in schema.properties.iter().flatten() {
            let description = refs
                .resolve(property)
                .ok()
                .and_then(|property| property.description.as_deref());
            declared.push(("body", name.as_str(), description));
        }
    }
    declared
}

/// Of `token` and `access_token`, the names the document declares a param of (in any
/// place) on at least half of its operations.
fn token_everywhere(refs: &Resolver<'_>, document: &Document) -> Vec<&'static str> {
    let mut operations = 0;
    let mut with = [0; TOKEN_NAMES.len()];
    for item in document.paths.iter().flat_map(BTreeMap::values) {
        let Ok(item) = refs.resolve(item) else {
            continue;
        };
        for (_, operation) in item.operations() {
            operations += 1;
            let declared = declared_params(refs, item, operation);
            for (count, token) in with.iter_mut().zip(TOKEN_NAMES) {
                if declared
                    .iter()
                    .any(|(_, name, _)| token.eq_ignore_ascii_case(name))
                {
                    *count += 1;
                }
            }
        }
    }
    TOKEN_NAMES
        .into_iter()
        .zip(with)
        .filter(|(_, count)| operations > 0 && count * 2 >= operations)
        .map(|(token, _)| token)
        .collect()
}

/// A scheme the adapter could send.
struct Candidate<'d> {
    name: &'d str,
    config: AuthConfig,
    /// How simple its credential is to provide: lower is simpler.
    rank: u8,
    /// Whether it sends a token.
    token: bool,
    scheme: &'d SecurityScheme,
}

/// The adapter's auth from the document's security schemes, with environment variable names
/// derived from the adapter `name`; `type: none` when no scheme can be imported. A token URL
/// given as an absolute path is taken on the origin of `base_url`. `aws` says
/// the document describes an Amazon API, whose `Authorization` API keys stand for request
/// signatures. Skipped schemes, and what the chosen one asks of the operator, are reported
/// through `warn`.
pub fn auth(
    refs: &Resolver<'_>,
    document: &Document,
    name: &str,
    base_url: &str,
    aws: bool,
    warn: &mut dyn FnMut(String),
) -> Outcome {
    let prefix = snake(name).to_uppercase();
    let security_schemes = &document.components.security_schemes;
    // What a scheme whose `$ref` leads nowhere is taken for: one of no kind.
    let unknown = SecurityScheme::default();
    let text = |field: &Option<String>| field.as_deref().unwrap_or_default().to_owned();
    let mut candidates = Vec::new();
    for (scheme_name, scheme) in security_schemes.iter().flatten() {
        let scheme = refs.resolve(scheme).unwrap_or(&unknown);
        let kind = text(&scheme.kind);
        let key_name = text(&scheme.name);
        let place = text(&scheme.location);
        let signature = scheme
            .amazon_authtype
            .as_deref()
            .filter(|authtype| authtype.starts_with("aws"))
            .or_else(|| {
                (aws && kind == "apiKey" && key_name.eq_ignore_ascii_case("authorization"))
                    .then_some("awsSigv4")
            });
        let (config, rank, token) = match (
            kind.as_str(),
            text(&scheme.scheme).to_ascii_lowercase().as_str(),
            place.as_str(),
        ) {
            ("apiKey", _, _) if signature == Some("awsSigv4") => {
                let Some((region, service)) = signing_scope(base_url) else {
                    warn(format!(
                        "security scheme `{scheme_name}` (apiKey): AWS Signature Version 4 \
                         needs a region and a service, and `{base_url}` is no \
                         <service>.<region>.amazonaws.com host to read them from; skipped"
                    ));
                    continue;
                };
                let config = AuthConfig {
                    region: Some(region),
                    service: Some(service),
                    ..AuthConfig::of(AuthKind::AwsSigv4)
                };
                (config, 0, false)
            }
            ("apiKey", _, _) if signature.is_some() => {
                let version = match signature {
                    Some("awsSigv2") => "AWS Signature Version 2",
                    _ => "AWS S3 request signing",
                };
                warn(format!(
                    "security scheme `{scheme_name}` (apiKey): {version} is not supported \
                     (every request must be signed; a static key cannot stand for it); skipped"
                ));
                continue;
            }
            ("http", "bearer", _) => (bearer(&format!("{prefix}_TOKEN")), 0, true),
            ("http", "basic", _) => (
                AuthConfig {
                    username_env: Some(format!("{prefix}_USERNAME")),
                    password_env: Some(format!("{prefix}_PASSWORD")),
                    ..AuthConfig::of(AuthKind::Basic)
                },
                3,
                false,
            ),
            ("apiKey", _, location @ ("header" | "query")) => {
                let (header_name, query_param) = if location == "header" {
                    (Some(key_name.clone()), None)
                } else {
                    (None, Some(key_name.clone()))
                };
                let config = AuthConfig {
                    key_env: Some(format!("{prefix}_API_KEY")),
                    header_name,
                    query_param,
                    ..AuthConfig::of(AuthKind::ApiKey)
                };
                (config, if location == "header" { 1 } else { 2 }, false)
            }
            ("oauth2", _, _) => match client_credentials(scheme, &prefix, base_url) {
                Some(config) => (config, 4, true),
                None => (bearer(&format!("{prefix}_TOKEN")), 4, true),
            },
            ("openIdConnect", _, _) => (bearer(&format!("{prefix}_TOKEN")), 5, true),
            (kind, _, _) => {
                warn(format!(
                    "security scheme `{scheme_name}` ({kind}) is not supported; skipped"
                ));
                continue;
            }
        };
        let mut refused = Vec::new();
        rules::check_auth(&config, &mut refused);
        if let Some(refusal) = refused.first() {
            warn(format!(
                "security scheme `{scheme_name}` ({kind}): {}; skipped",
                refusal.message
            ));
            continue;
        }
        candidates.push(Candidate {
            name: scheme_name,
            config,
            rank,
            token,
            scheme,
        });
    }
    let accepted = accepted_by(refs, document);
    let token_schemes: Vec<String> = candidates
        .iter()
        .filter(|candidate| candidate.token)
        .map(|candidate| candidate.name.to_owned())
        .collect();
    let combined = combined(refs, document, &candidates, &prefix);
    let best_single = candidates
        .iter()
        .map(|candidate| accepted.get(candidate.name).map_or(0, |(count, _)| *count))
        .max()
        .unwrap_or(0);
    if let Some((names, config, count)) = combined
        && count > best_single
    {
        let keys = config
            .credentials
            .iter()
            .filter_map(
                |credential| match (&credential.header_name, &credential.query_param) {
                    (Some(header), _) => Some(("header".to_owned(), header.clone())),
                    (None, Some(query)) => Some(("query".to_owned(), query.clone())),
                    (None, None) => None,
                },
            )
            .collect();
        warn(format!(
            "security schemes `{}` are required together: the adapter sends all of them",
            names.join("` and `")
        ));
        return Outcome {
            config,
            scheme: Some(names.join("` and `")),
            chosen: false,
            global: document.security.clone(),
            keys,
            token: false,
            token_everywhere: Vec::new(),
            satisfies: names,
            notes: None,
        };
    }
    let chosen = candidates
        .into_iter()
        .enumerate()
        .min_by_key(|(order, candidate)| {
            let operations = accepted.get(candidate.name).map_or(0, |(count, _)| *count);
            (std::cmp::Reverse(operations), candidate.rank, *order)
        })
        .map(|(_, candidate)| candidate);
    let mut outcome = Outcome {
        config: AuthConfig::of(AuthKind::None),
        scheme: None,
        chosen: false,
        global: document.security.clone(),
        keys: Vec::new(),
        token: false,
        token_everywhere: Vec::new(),
        satisfies: Vec::new(),
        notes: None,
    };
    if let Some(candidate) = chosen {
        outcome.satisfies = if candidate.token {
            token_schemes
        } else {
            vec![candidate.name.to_owned()]
        };
        let asked: Vec<&str> = accepted
            .get(candidate.name)
            .into_iter()
            .flat_map(|(_, scopes)| scopes.iter().map(String::as_str))
            .collect();
        outcome.notes = obtaining(&candidate, &asked, warn);
        let mut candidate = candidate;
        if candidate.config.kind == AuthKind::Oauth2 && !asked.is_empty() {
            candidate.config.scopes = Some(asked.iter().map(|scope| (*scope).to_owned()).collect());
            // Scopes `check` would refuse are left to the client's default.
            let mut refused = Vec::new();
            rules::check_auth(&candidate.config, &mut refused);
            if !refused.is_empty() {
                candidate.config.scopes = None;
            }
        }
        outcome.keys = match (&candidate.config.header_name, &candidate.config.query_param) {
            (Some(header), _) => vec![("header".to_owned(), header.clone())],
            (None, Some(query)) => vec![("query".to_owned(), query.clone())],
            (None, None) => Vec::new(),
        };
        outcome.token = candidate.token;
        if candidate.token {
            outcome.token_everywhere = token_everywhere(refs, document);
        }
        outcome.scheme = Some(candidate.name.to_owned());
        outcome.config = candidate.config;
    }
    outcome
}

/// The region and the service an AWS API at `base_url` signs for, from its host:
/// `<service>.<region>.amazonaws.com` or `.api.aws` (the label before the region, so
/// `runtime.sagemaker.us-east-1` signs for `sagemaker`), or a global
/// `<service>.amazonaws.com`, which signs for `us-east-1`.
fn signing_scope(base_url: &str) -> Option<(String, String)> {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = host.split(':').next()?.to_ascii_lowercase();
    let labels: Vec<&str> = host
        .strip_suffix(".amazonaws.com")
        .or_else(|| host.strip_suffix(".amazonaws.com.cn"))
        .or_else(|| host.strip_suffix(".api.aws"))?
        .split('.')
        .collect();
    let is_region = |label: &str| {
        let parts: Vec<&str> = label.split('-').collect();
        parts.len() >= 3
            && parts[0].len() == 2
            && parts
                .last()
                .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
    };
    match labels.iter().position(|label| is_region(label)) {
        None if labels.len() == 1 => Some(("us-east-1".to_owned(), labels[0].to_owned())),
        Some(index) if index > 0 => Some((labels[index].to_owned(), labels[index - 1].to_owned())),
        _ => None,
    }
}

/// Per scheme name, how many operations accept it on its own (a requirement naming only
/// it), and the scopes they ask of it, in order of first appearance.
fn accepted_by(refs: &Resolver<'_>, document: &Document) -> BTreeMap<String, (usize, Vec<String>)> {
    let mut accepted: BTreeMap<String, (usize, Vec<String>)> = BTreeMap::new();
    for requirement in requirements(refs, document) {
        let [(scheme, scopes)] = requirement.iter().collect::<Vec<_>>()[..] else {
            continue;
        };
        let (count, asked) = accepted.entry(scheme.clone()).or_default();
        *count += 1;
        for scope in scopes {
            if !asked.contains(scope) {
                asked.push(scope.clone());
            }
        }
    }
    accepted
}

/// Every security requirement of every operation: its own, else the document's.
fn requirements<'d>(
    refs: &'d Resolver<'_>,
    document: &'d Document,
) -> impl Iterator<Item = &'d Requirement> {
    document
        .paths
        .iter()
        .flat_map(BTreeMap::values)
        .filter_map(|item| refs.resolve(item).ok())
        .flat_map(|item| item.operations().map(|(_, operation)| operation))
        .flat_map(|operation| {
            operation
                .security
                .as_ref()
                .or(document.security.as_ref())
                .into_iter()
                .flatten()
        })
}

/// The requirement of several schemes together (VTEX's app key and app token, an API key and
/// a client id) that the most operations accept, when each of its schemes is a bearer token
/// or an API key the adapter can send: its scheme names, the `combined` auth that sends
/// them all (each read from `<PREFIX>_<SCHEME>`), and how many operations accept it.
fn combined(
    refs: &Resolver<'_>,
    document: &Document,
    candidates: &[Candidate<'_>],
    prefix: &str,
) -> Option<(Vec<String>, AuthConfig, usize)> {
    let mut counts: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    let together = requirements(refs, document).filter(|requirement| requirement.len() > 1);
    for requirement in together {
        *counts
            .entry(requirement.keys().cloned().collect())
            .or_default() += 1;
    }
    let sendable = |name: &String| {
        candidates.iter().find(|candidate| {
            candidate.name == name
                && matches!(candidate.config.kind, AuthKind::ApiKey | AuthKind::Bearer)
        })
    };
    let (names, count) = counts
        .into_iter()
        .filter(|(names, _)| names.iter().all(|name| sendable(name).is_some()))
        .max_by_key(|(names, count)| (*count, std::cmp::Reverse(names.clone())))?;
    let credentials = names
        .iter()
        .filter_map(sendable)
        .map(|candidate| {
            let variable = format!("{prefix}_{}", snake(candidate.name).to_uppercase());
            let mut credential = candidate.config.clone();
            match credential.kind {
                AuthKind::Bearer => credential.token_env = Some(variable),
                _ => credential.key_env = Some(variable),
            }
            credential
        })
        .collect();
    let config = AuthConfig {
        credentials,
        ..AuthConfig::of(AuthKind::Combined)
    };
    let mut refused = Vec::new();
    rules::check_auth(&config, &mut refused);
    refused.is_empty().then_some((names, config, count))
}

/// What the operator must do to provide an OAuth2 or OpenID Connect token, as a warning and
/// as Markdown for the adapter's body: the flows the document names and the scopes its
/// operations ask for (`asked`, else every scope the flows offer). `None` for the other
/// kinds, whose credential needs no explaining.
fn obtaining(
    candidate: &Candidate<'_>,
    asked: &[&str],
    warn: &mut dyn FnMut(String),
) -> Option<String> {
    let variable = candidate.config.token_env.as_deref().unwrap_or_default();
    let name = candidate.name;
    let scheme = candidate.scheme;
    if let (Some(token_url), Some(id), Some(secret)) = (
        candidate.config.token_url.as_deref(),
        candidate.config.client_id_env.as_deref(),
        candidate.config.client_secret_env.as_deref(),
    ) {
        warn(format!(
            "security scheme `{name}` (oauth2) is imported as its clientCredentials flow: the \
             server obtains tokens from {token_url}; set `{id}` and `{secret}`"
        ));
        let mut text = format!(
            "\n## Auth\n\nThe document's OAuth2 scheme `{name}` is imported as its \
             clientCredentials flow: the server obtains access tokens from <{token_url}> itself, \
             as the client whose id and secret are in `${id}` and `${secret}`.\n"
        );
        if !asked.is_empty() {
            let listed: Vec<String> = asked.iter().map(|scope| format!("`{scope}`")).collect();
            text.push_str(&format!(
                "\nIt asks for the scopes {}.\n",
                listed.join(", ")
            ));
        }
        return Some(text);
    }
    let (kind, from) = match scheme.kind.as_deref() {
        Some("oauth2") => {
            let flows: Vec<String> = scheme
                .flows
                .iter()
                .flatten()
                .map(|(kind, flow)| describe_flow(kind, flow))
                .collect();
            ("OAuth2", flows)
        }
        Some("openIdConnect") => (
            "OpenID Connect",
            scheme
                .open_id_connect_url
                .iter()
                .map(|url| format!("the provider described at <{url}>"))
                .collect(),
        ),
        _ => return None,
    };
    let offered: BTreeMap<&str, &str> = scheme
        .flows
        .iter()
        .flatten()
        .flat_map(|(_, flow)| flow.scopes.iter().flatten())
        .map(|(scope, what)| (scope.as_str(), what.as_str()))
        .collect();
    let scopes: Vec<&str> = if asked.is_empty() {
        offered.keys().copied().collect()
    } else {
        asked.to_vec()
    };
    let from_text = if from.is_empty() {
        "the provider".to_owned()
    } else {
        from.join("; ")
    };
    let mut listed: Vec<String> = scopes
        .iter()
        .take(5)
        .map(|scope| format!("`{scope}`"))
        .collect();
    if scopes.len() > 5 {
        listed.push(format!(
            "and {} more, listed in the adapter",
            scopes.len() - 5
        ));
    }
    warn(format!(
        "security scheme `{name}` ({}) is imported as a bearer token read from `{variable}`; \
         obtain it through {from_text}{}",
        scheme.kind.as_deref().unwrap_or_default(),
        if scopes.is_empty() {
            String::new()
        } else {
            format!(" with the scopes {}", listed.join(", "))
        }
    ));
    let mut text = format!(
        "\n## Auth\n\nThe document's {kind} scheme `{name}` is imported as a bearer token: the \
         server sends `Authorization: Bearer ${variable}` and does not run the flow itself. \
         Obtain a token through {from_text}.\n",
    );
    if !scopes.is_empty() {
        text.push_str(&format!(
            "\nThe operations ask for {} scopes:\n\n",
            scopes.len()
        ));
        for scope in scopes {
            match offered
                .get(scope)
                .filter(|what| !what.is_empty() && **what != scope)
            {
                Some(what) => {
                    text.push_str(&format!("- `{scope}`: {}\n", super::params::shorten(what)))
                }
                None => text.push_str(&format!("- `{scope}`\n")),
            }
        }
    }
    Some(text)
}

/// One OAuth2 flow in words: `the authorizationCode flow (authorize at <url>, tokens from
/// <url>)`.
fn describe_flow(kind: &str, flow: &OAuthFlow) -> String {
    let places: Vec<String> = [
        flow.authorization_url
            .as_deref()
            .map(|url| format!("authorize at <{url}>")),
        flow.token_url
            .as_deref()
            .map(|url| format!("tokens from <{url}>")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if places.is_empty() {
        format!("its {kind} flow")
    } else {
        format!("its {kind} flow ({})", places.join(", "))
    }
}

/// `oauth2` auth by the client credentials flow of `scheme`, when it has one whose token URL
/// `check` accepts (https, or http to this machine), with `<PREFIX>_CLIENT_ID` and
/// `<PREFIX>_CLIENT_SECRET` for the client. A token URL that is an absolute path (Sakari's
/// `/oauth2/token`) is taken on the origin of `base_url`.
fn client_credentials(scheme: &SecurityScheme, prefix: &str, base_url: &str) -> Option<AuthConfig> {
    let given = scheme
        .flows
        .as_ref()?
        .get("clientCredentials")?
        .token_url
        .as_deref()?;
    let token_url = match given.strip_prefix('/') {
        Some(path) if !path.starts_with('/') => {
            let (scheme, rest) = base_url.split_once("://")?;
            let authority = rest.split('/').next()?;
            format!("{scheme}://{authority}/{path}")
        }
        _ => given.to_owned(),
    };
    let config = AuthConfig {
        token_url: Some(token_url),
        client_id_env: Some(format!("{prefix}_CLIENT_ID")),
        client_secret_env: Some(format!("{prefix}_CLIENT_SECRET")),
        ..AuthConfig::of(AuthKind::Oauth2)
    };
    let mut refused = Vec::new();
    rules::check_auth(&config, &mut refused);
    refused.is_empty().then_some(config)
}

/// Bearer auth with the token in `variable`.
pub fn bearer(variable: &str) -> AuthConfig {
    AuthConfig {
        token_env: Some(variable.to_owned()),
        ..AuthConfig::of(AuthKind::Bearer)
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::{Document, Resolver, auth, declared_params, signing_scope};

    #[test]
    fn an_aws_host_names_the_region_and_the_service_it_signs_for() {
        let scope = |url: &str| signing_scope(url);
        let pair = |region: &str, service: &str| Some((region.to_owned(), service.to_owned()));
        assert_eq!(
            scope("https://dynamodb.us-east-1.amazonaws.com"),
            pair("us-east-1", "dynamodb")
        );
        assert_eq!(
            scope("https://runtime.sagemaker.eu-west-1.amazonaws.com/"),
            pair("eu-west-1", "sagemaker")
        );
        assert_eq!(
            scope("https://streams.dynamodb.us-gov-west-1.amazonaws.com"),
            pair("us-gov-west-1", "dynamodb")
        );
        assert_eq!(scope("https://iam.amazonaws.com"), pair("us-east-1", "iam"));
        assert_eq!(
            scope("https://kendra-ranking.us-west-2.api.aws"),
            pair("us-west-2", "kendra-ranking")
        );
        assert_eq!(scope("https://api.example.com"), None);
        assert_eq!(scope("https://us-east-1.amazonaws.com"), None);
    }

    /// The credential params of every operation of `document`, as `METHOD name: place name`.
    fn credentials(document: &serde_json::Value) -> Vec<String> {
        let refs = Resolver::new(document);
        let openapi = Document::deserialize(document).expect("a document");
        let outcome = auth(
            &refs,
            &openapi,
            "api",
            "https://api.example.com",
            false,
            &mut |_| {},
        );
        let mut found = Vec::new();
        for item in openapi.paths.iter().flat_map(|paths| paths.values()) {
            let item = refs.resolve(item).expect("inline");
            for (method, operation) in item.operations() {
                let id = operation.operation_id.as_deref().unwrap_or_default();
                let mut seen = Vec::new();
                for (place, name, description) in declared_params(&refs, item, operation) {
                    if outcome.carries(place, name, description) && !seen.contains(&(place, name)) {
                        seen.push((place, name));
                        found.push(format!("{method} {id}: {place} {name}"));
                    }
                }
            }
        }
        found
    }

    /// A client credentials flow becomes `oauth2` auth with the scopes the operations ask
    /// for; an authorization code flow stays a bearer token the operator obtains.
    #[test]
    fn a_client_credentials_flow_is_run_by_the_adapter() {
        let document = |flows: serde_json::Value| {
            json!({
                "openapi": "3.0.0",
                "components": {"securitySchemes": {"oauth": {"type": "oauth2", "flows": flows}}},
                "security": [{"oauth": ["notes.read"]}],
                "paths": {"/notes": {"get": {"operationId": "list"}}}
            })
        };
        let outcome = |document: serde_json::Value| {
            let refs = Resolver::new(&document);
            let openapi = Document::deserialize(&document).expect("a document");
            let mut warnings = Vec::new();
            let outcome = auth(
                &refs,
                &openapi,
                "notes",
                "https://api.example.com/v1",
                false,
                &mut |warning| warnings.push(warning),
            );
            (outcome, warnings)
        };
        let (client, warnings) = outcome(document(json!({"clientCredentials": {
            "tokenUrl": "https://auth.example.com/token", "scopes": {"notes.read": "Read notes"}
        }})));
        assert_eq!(client.config.kind, crate::schema::AuthKind::Oauth2);
        assert_eq!(
            client.config.token_url.as_deref(),
            Some("https://auth.example.com/token")
        );
        assert_eq!(
            client.config.client_id_env.as_deref(),
            Some("NOTES_CLIENT_ID")
        );
        assert_eq!(client.config.scopes, Some(vec!["notes.read".to_owned()]));
        assert!(warnings[0].contains("NOTES_CLIENT_SECRET"), "{warnings:?}");
        let (code, _) = outcome(document(json!({"authorizationCode": {
            "authorizationUrl": "https://auth.example.com/authorize",
            "tokenUrl": "https://auth.example.com/token", "scopes": {}
        }})));
        assert_eq!(code.config.kind, crate::schema::AuthKind::Bearer);
        let (insecure, _) = outcome(document(json!({"clientCredentials": {
            "tokenUrl": "http://auth.example.com/token", "scopes": {}
        }})));
        assert_eq!(
            insecure.config.kind,
            crate::schema::AuthKind::Bearer,
            "http elsewhere"
        );
        let (relative, _) = outcome(document(json!({"clientCredentials": {
            "tokenUrl": "/oauth2/token", "scopes": {}
        }})));
        assert_eq!(
            relative.config.token_url.as_deref(),
            Some("https://api.example.com/oauth2/token"),
            "an absolute path is on the API's origin"
        );
    }

    #[test]
    fn token_params_are_the_credential_only_when_the_document_says_so() {
        let token = |place: &str, description: &str| json!({"name": "token", "in": place, "description": description, "schema": {"type": "string"}});
        let document = json!({
            "openapi": "3.0.0",
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
            "paths": {
                "/a": {"get": {"operationId": "auth", "parameters": [token("query", "Authentication token.")]}},
                "/b": {"get": {"operationId": "report", "parameters": [token("query", "Received from the report endpoint.")]}},
                "/c": {"post": {"operationId": "form", "requestBody": {"content": {
                    "application/x-www-form-urlencoded": {"schema": {"properties": {
                        "token": {"type": "string", "description": "OAuth token"}, "text": {"type": "string"}
                    }}}
                }}}},
                "/d": {"post": {"operationId": "json", "requestBody": {"content": {
                    "application/json": {"schema": {"properties": {"token": {"type": "string", "description": "Auth"}}}}
                }}}},
                "/e": {"get": {"operationId": "other", "parameters": [
                    {"name": "Authorization", "in": "header", "schema": {"type": "string"}}
                ]}},
                "/f": {"get": {"operationId": "paged", "parameters": [
                    token("query", "Pagination token."),
                    {"name": "access_token", "in": "query", "description": "OAuth access token.", "schema": {"type": "string"}}
                ]}},
                "/g": {"get": {"operationId": "plain2"}},
                "/h": {"get": {"operationId": "plain3"}},
                "/i": {"get": {"operationId": "plain4"}},
                "/j": {"get": {"operationId": "plain5"}}
            }
        });
        assert_eq!(
            credentials(&document),
            [
                "get auth: query token",
                "post form: body token",
                "get other: header Authorization",
                "get paged: query access_token"
            ]
        );
    }
}
