//! `aqlgen import-openapi`: an OpenAPI 3.x document to an adapter schema `aqlgen` accepts.
//!
//! The document is read into a typed view ([`document`]) whose `$ref`s one [`Resolver`]
//! follows. One operation per path and method, named from its `operationId`, categorised by
//! [`classify`], with params from path, query and top-level JSON body properties
//! ([`operation`], [`body`], [`params`]); a READ gets field selection, presets and
//! pagination from its params and success response ([`shaping`]). Before anything is
//! written, the schema is held to the rules `check` uses and what they would refuse is left
//! out ([`settle`]); then an operation that starts work the document shows how to follow
//! gets a `lifecycle` ([`lifecycle`]). What the adapter format cannot carry becomes a [`Warning`] naming the
//! operation and the reason.

mod audit;
mod auth;
mod body;
mod classify;
mod document;
mod html;
mod lifecycle;
mod naming;
mod operation;
mod params;
mod refs;
mod settle;
mod shaping;
mod text;
mod wire;

use std::collections::BTreeMap;
use std::path::Path;

use aqlgen_model::{DangerLevel, TrustLevel};
use serde::Deserialize;
use serde_json::Value;

use crate::Error;
use crate::schema::{
    AdapterSchema, ElementType, Operations, Protocol, Serialization, Target, Transport, Trust,
};
use crate::validate::rules;
use document::Document;
use operation::{Context, Endpoint};
use refs::Resolver;
pub use text::reason_kind;

/// Something of the document the adapter does not carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// `METHOD /path` of the operation, or `document`.
    pub operation: String,
    /// Why, e.g. `header param `x-id` dropped`.
    pub reason: String,
}

/// The adapter text and what the import could not carry.
#[derive(Debug)]
pub struct Imported {
    /// Markdown with YAML front matter.
    pub text: String,
    /// Operations written, per category.
    pub categories: BTreeMap<&'static str, usize>,
    /// Everything dropped or changed, in document order.
    pub warnings: Vec<Warning>,
    /// What the operations written carry of their description.
    pub completeness: Completeness,
    /// Operations written with a `lifecycle`: they start work upstream the adapter follows
    /// until it ends.
    pub long_running: usize,
}

/// How many of the operations written carry everything their description asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Completeness {
    /// Operations written.
    pub kept: usize,
    /// Of those, the ones that lost nothing: no param, body property, body or credential
    /// of the document left out.
    pub complete: usize,
    /// Of those, the ones that lost something the document requires. Always 0: an
    /// operation that cannot carry what it requires is not written. Counted from the
    /// adapter as written, as a check of that promise.
    pub losing_required: usize,
}

/// Choices the document cannot make for itself.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Adapter name; by default derived from `info.title`. It also prefixes the environment
    /// variables (`<NAME>_BASE_URL`, `<NAME>_TOKEN`).
    pub name: Option<String>,
    /// Authenticate with a bearer token read from this environment variable, in place of
    /// whatever `securitySchemes` declares.
    pub bearer_env: Option<String>,
}

/// Reads an OpenAPI document (JSON, or YAML when the text is not JSON) and imports it.
///
/// # Errors
///
/// [`Error::Io`] when the file cannot be read; [`Error::Config`] when it is no OpenAPI 3.x
/// document.
pub fn import_file(path: &Path, options: &Options) -> Result<Imported, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        action: format!("reading {}", path.display()),
        source,
    })?;
    let document: Value = match serde_json::from_str(&text) {
        Ok(document) => document,
        Err(_) => serde_yaml::from_str(&text).map_err(|error| {
            Error::Config(format!(
                "{} is neither JSON nor YAML: {error}",
                path.display()
            ))
        })?,
    };
    import(&document, options)
}

/// Imports a parsed OpenAPI 3.x document.
///
/// # Errors
///
/// [`Error::Config`] when `document` is no OpenAPI 3.x document, or none of its operations
/// can be expressed.
pub fn import(document: &Value, options: &Options) -> Result<Imported, Error> {
    // Reading the typed view never fails on a JSON object; anything else is no document.
    let openapi = Document::deserialize(document).unwrap_or_default();
    let version = openapi.openapi.as_deref().unwrap_or_default();
    if !version.starts_with("3.") {
        return Err(Error::Config(
            "not an OpenAPI 3.x document: `openapi: 3.x` is missing".to_owned(),
        ));
    }
    let paths = openapi
        .paths
        .as_ref()
        .filter(|paths| !paths.is_empty())
        .ok_or_else(|| {
            // OpenAPI 3.1 allows a document of webhooks only: the API calls its clients.
            let webhooks = document
                .get("webhooks")
                .and_then(Value::as_object)
                .is_some_and(|webhooks| !webhooks.is_empty());
            Error::Config(if webhooks {
                "the document has no paths: it describes only webhooks, which the API sends \
                 and an adapter cannot call"
                    .to_owned()
            } else {
                "the document has no paths".to_owned()
            })
        })?;
    let refs = Resolver::new(document);
    let info = &openapi.info;
    let title = info.title.as_deref().unwrap_or("api");
    let mut warnings = Vec::new();
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| adapter_name(title, &mut warnings));
    let adapter_version = info
        .version
        .as_deref()
        .filter(|version| semver::Version::parse(version).is_ok())
        .unwrap_or_else(|| {
            warnings.push(document_warning(
                "`info.version` is not semantic; written as 1.0.0".to_owned(),
            ));
            "1.0.0"
        });
    let base_url = base_url(&openapi, &mut warnings);
    // APIs.guru marks Amazon's descriptions; their servers say so too.
    let aws = document
        .pointer("/info/x-providerName")
        .and_then(Value::as_str)
        == Some("amazonaws.com")
        || base_url.contains(".amazonaws.com");
    let auth = match &options.bearer_env {
        Some(variable) => auth::Outcome::chosen(auth::bearer(variable)),
        None => auth::auth(&refs, &openapi, &name, &base_url, aws, &mut |reason| {
            warnings.push(document_warning(reason))
        }),
    };
    let context = Context {
        refs: &refs,
        auth: &auth,
    };
    let mut operations = Operations::default();
    let mut names = naming::Names::default();
    let mut endpoints = BTreeMap::new();
    let mut readings = Vec::new();
    let mut declared = 0;
    for (path, item) in paths {
        let Ok(item) = refs.resolve(item) else {
            warnings.push(document_warning(format!(
                "path {path}: its `$ref` does not resolve"
            )));
            continue;
        };
        for (method, operation) in item.operations() {
            declared += 1;
            let label = format!("{} {path}", method.to_uppercase());
            let mut warn = |reason: String| {
                warnings.push(Warning {
                    operation: label.clone(),
                    reason,
                });
            };
            let Some(meaning) = classify::meaning(method, path, operation) else {
                warn(format!(
                    "method {} has no CRUDE category; operation dropped",
                    method.to_uppercase()
                ));
                continue;
            };
            let category = meaning.category;
            let endpoint = Endpoint {
                item,
                operation,
                method,
                path,
                category,
            };
            match operation::import(&context, &endpoint, &mut names, &mut warn) {
                Ok(mut imported) => {
                    endpoints.insert(imported.name.clone(), endpoint);
                    // The meaning decides the level, over the default `operation` gives a
                    // DELETE; from destructive up, every call is confirmed (danger-levels
                    // §7.1).
                    let level = meaning.declared_danger(&imported.name);
                    imported.danger_level = level;
                    imported.requires_confirmation = level
                        .filter(|level| level.rank() >= DangerLevel::Destructive.rank())
                        .map(|_| true);
                    if meaning.is_from_words(method) {
                        readings.push(text::Reading::new(&imported, category, &meaning));
                    }
                    operations.family_mut(category).push(imported);
                }
                Err(reason) => warn(format!("{reason}; operation dropped")),
            }
        }
    }
    if declared == 0 {
        return Err(Error::Config(match paths.len() {
            1 => "the document has no operations: its one path declares no method".to_owned(),
            count => format!("the document has no operations: its {count} paths declare no method"),
        }));
    }
    let description = info
        .description
        .as_deref()
        .map(params::shorten)
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| format!("{title}, imported from its OpenAPI description."));
    let mut schema = AdapterSchema {
        name,
        element_type: ElementType::Adapter,
        version: adapter_version.to_owned(),
        description,
        target: Target {
            base_url,
            transport: Transport::Http,
            protocol: Protocol::Rest,
            serialization: Serialization::Json,
        },
        auth: Some(auth.config.clone()),
        // Generated and schema-valid, never run against the API: trust-levels §2.2.2.
        trust: Some(Trust {
            level: Some(TrustLevel::Generated),
            verified_by: None,
            verification_date: None,
        }),
        rate_limits: None,
        operations,
        relationships: None,
        author: None,
        tags: None,
        triggers: None,
        created: None,
        modified: None,
        extensions: Vec::new(),
    };
    settle::settle(&mut schema, &mut warnings)?;
    let followed = lifecycle::recognise(
        &refs,
        &mut schema,
        &mut endpoints,
        &mut readings,
        &mut warnings,
    );
    let mut completeness = Completeness::default();
    for (_, list) in schema.operations.families() {
        for operation in list {
            let Some(endpoint) = endpoints.get(&operation.name) else {
                continue;
            };
            let losses = audit::audit(&context, endpoint, operation);
            completeness.kept += 1;
            completeness.complete += usize::from(losses.is_empty());
            if !losses.required.is_empty() {
                completeness.losing_required += 1;
                warnings.push(Warning {
                    operation: operation.maps_to.clone(),
                    reason: format!(
                        "internal error: kept without {}, which the document requires; \
                         please report this with the document",
                        losses.required.join(", ")
                    ),
                });
            }
        }
    }
    // The extensions the import used are declared once, so `check` warns only of what the
    // document itself asks to be looked at.
    schema.extensions = serde_yaml::to_value(&schema)
        .map(|document| crate::validate::used_extensions(&document))
        .map_err(|error| Error::Config(format!("writing the front matter: {error}")))?;
    let text = text::adapter(
        &schema,
        title,
        version,
        auth.notes.as_deref(),
        text::Review {
            readings: &readings,
            followed: &followed,
        },
        &warnings,
        &completeness,
    )?;
    // What `settle` accepted, `check` accepts: a refusal here is a bug of the importer.
    if let Err(error) = crate::check_text("imported-adapter.md", &text) {
        return Err(Error::Config(format!(
            "internal error: the imported adapter does not pass check, though the importer \
             checked it before writing; please report this with the document ({error})"
        )));
    }
    Ok(Imported {
        text,
        categories: text::counts(&schema.operations),
        warnings,
        completeness,
        long_running: followed.len(),
    })
}

/// The adapter's name from the document's title: kebab-case, at most 64 characters, cut at a
/// word boundary.
fn adapter_name(title: &str, warnings: &mut Vec<Warning>) -> String {
    let full = naming::snake(title).replace('_', "-");
    if full.len() <= naming::MAX_NAME {
        return full;
    }
    let mut cut = &full[..naming::MAX_NAME];
    if let Some(boundary) = cut.rfind('-') {
        cut = &cut[..boundary];
    }
    warnings.push(document_warning(format!(
        "the title makes a name longer than {} characters; cut to `{cut}`",
        naming::MAX_NAME
    )));
    cut.to_owned()
}

/// The base URL: of the servers whose URL, its variables resolved, is an absolute http(s)
/// URL `check` accepts, the first `https` one, else the first; else `http://localhost`. A
/// choice the document did not make by itself (a variable resolved, `https` taken over an
/// `http` listed first) is reported, naming the URL chosen.
fn base_url(document: &Document, warnings: &mut Vec<Warning>) -> String {
    const FALLBACK: &str = "http://localhost";
    let mut usable: Vec<(usize, String, Vec<String>)> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    for (index, server) in document.servers.iter().enumerate() {
        match server_url(server) {
            Ok((url, resolved)) => usable.push((index, url, resolved)),
            Err(reason) => refused.push(format!("`servers[{index}]`: {reason}")),
        }
    }
    let Some(chosen) = usable
        .iter()
        .find(|(_, url, _)| url.starts_with("https://"))
        .or_else(|| usable.first())
    else {
        let why = if refused.is_empty() {
            "the document names no server".to_owned()
        } else {
            refused.join("; ")
        };
        warnings.push(document_warning(format!(
            "no server URL can be the base URL ({why}); base_url is {FALLBACK}"
        )));
        return FALLBACK.to_owned();
    };
    let (index, url, resolved) = chosen;
    let mut choices = resolved.clone();
    if let Some((_, first, _)) = usable.first().filter(|(first, _, _)| first != index) {
        choices.insert(0, format!("https preferred over `{first}`"));
    }
    if !choices.is_empty() {
        warnings.push(document_warning(format!(
            "base_url is `{url}` (`servers[{index}]`): {}",
            choices.join(", ")
        )));
    }
    url.clone()
}

/// The URL of `server` with its variables resolved (each to its default, else its first
/// value; one that stands for the scheme to `https` when that is allowed), and what was
/// resolved; `Err` says why it cannot be the base URL.
fn server_url(server: &document::Server) -> Result<(String, Vec<String>), String> {
    let template = server.url.as_deref().ok_or("no `url`")?;
    let mut url = String::with_capacity(template.len());
    let mut resolved = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        url.push_str(&rest[..start]);
        let (name, after) = rest[start + 1..]
            .split_once('}')
            .ok_or_else(|| format!("an unclosed `{{` in `{template}`"))?;
        let variable = server
            .variables
            .as_ref()
            .and_then(|variables| variables.get(name));
        let allowed = variable.map_or(&[][..], |variable| variable.values.as_slice());
        let is_scheme = url.is_empty() && after.starts_with("://");
        let value = if is_scheme && (allowed.is_empty() || allowed.iter().any(|v| v == "https")) {
            "https"
        } else {
            variable
                .and_then(|variable| {
                    variable
                        .default
                        .as_deref()
                        .or(allowed.first().map(String::as_str))
                })
                .ok_or_else(|| format!("`{{{name}}}` has no default"))?
        };
        let default = variable.and_then(|variable| variable.default.as_deref());
        resolved.push(match default {
            Some(default) if default != value => {
                format!("`{{{name}}}` is `{value}` (over its default `{default}`)")
            }
            _ => format!("`{{{name}}}` is `{value}`"),
        });
        url.push_str(value);
        rest = after;
    }
    url.push_str(rest);
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!("`{url}` is no absolute http(s) URL"));
    }
    // A variable that starts with `/` after a URL that ends with one (Red Hat's
    // `https://console.redhat.com/{basePath}`, `/api/catalog/v1.0`) makes no empty segment.
    let (scheme, after_scheme) = url.split_once("://").expect("checked above");
    let mut rest = after_scheme.to_owned();
    while rest.contains("//") {
        rest = rest.replace("//", "/");
    }
    let url = format!("{scheme}://{rest}");
    if url.contains(char::is_whitespace) {
        return Err(format!("white space in `{url}`"));
    }
    let url = url.trim_end_matches('/').to_owned();
    let mut found = Vec::new();
    rules::check_base_url(&url, &mut found);
    match found.iter().find(|finding| !finding.code.is_warning()) {
        None => Ok((url, resolved)),
        Some(refusal) => Err(refusal.message.clone()),
    }
}

fn document_warning(reason: String) -> Warning {
    Warning {
        operation: "document".to_owned(),
        reason,
    }
}
