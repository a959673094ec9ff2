//! `aqlgen import-openapi`: an OpenAPI 3.x document to an adapter schema `aqlgen` accepts.
//!
//! One operation per path and method, named from its `operationId`, categorised by
//! [`classify`], with params from path, query and top-level JSON body properties; a READ gets
//! field selection, presets and pagination from its params and success response
//! ([`shaping`]). What the adapter format cannot carry becomes a [`Warning`] naming the
//! operation and the reason.

mod auth;
mod classify;
mod naming;
mod params;
mod refs;
mod repair;
mod shaping;

use std::collections::BTreeMap;
use std::path::Path;

use aqlgen_model::{Category, DangerLevel, TrustLevel, Vocabulary};
use indexmap::IndexMap;
use serde_json::Value;

use crate::Error;
use crate::schema::{
    AdapterSchema, ElementType, Operation, Operations, Param, ParamType, Protocol, Serialization,
    Target, Transport, Trust, is_reserved_param,
};
use refs::resolve;

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

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "patch", "head", "options", "trace",
];

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
    let version = document
        .get("openapi")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !version.starts_with("3.") {
        return Err(Error::Config(
            "not an OpenAPI 3.x document: `openapi: 3.x` is missing".to_owned(),
        ));
    }
    let paths = document
        .get("paths")
        .and_then(Value::as_object)
        .ok_or_else(|| Error::Config("the document has no `paths` object".to_owned()))?;
    let info = document.get("info").cloned().unwrap_or(Value::Null);
    let title = info.get("title").and_then(Value::as_str).unwrap_or("api");
    let mut warnings = Vec::new();
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| adapter_name(title, &mut warnings));
    let adapter_version = info
        .get("version")
        .and_then(Value::as_str)
        .filter(|version| semver::Version::parse(version).is_ok())
        .unwrap_or_else(|| {
            warnings.push(document_warning(
                "`info.version` is not semantic; written as 1.0.0".to_owned(),
            ));
            "1.0.0"
        });
    let base_url = document
        .pointer("/servers/0/url")
        .and_then(Value::as_str)
        .filter(|url| url.starts_with("http://") || url.starts_with("https://"))
        .filter(|url| !url.contains(char::is_whitespace))
        .unwrap_or_else(|| {
            warnings.push(document_warning(
                "no absolute `servers[0].url`; base_url is http://localhost".to_owned(),
            ));
            "http://localhost"
        });
    let auth = match &options.bearer_env {
        Some(variable) => auth::bearer(variable),
        None => auth::auth(document, &name, &mut |reason| {
            warnings.push(document_warning(reason))
        }),
    };

    let mut operations = Operations::default();
    let mut names = naming::Names::default();
    for (path, item) in paths {
        let Ok(item) = resolve(document, item) else {
            warnings.push(document_warning(format!(
                "path {path}: its `$ref` does not resolve"
            )));
            continue;
        };
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let label = format!("{} {path}", method.to_uppercase());
            let mut warn = |reason: String| {
                warnings.push(Warning {
                    operation: label.clone(),
                    reason,
                });
            };
            let Some(category) = classify::category(method, path) else {
                warn(format!(
                    "method {} has no CRUDE category; operation dropped",
                    method.to_uppercase()
                ));
                continue;
            };
            match import_operation(
                document, item, operation, method, path, category, &mut names, &mut warn,
            ) {
                Ok(imported) => operations.family_mut(category).push(imported),
                Err(reason) => warn(format!("{reason}; operation dropped")),
            }
        }
    }

    let description = info
        .get("description")
        .and_then(Value::as_str)
        .map(params::shorten)
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| format!("{title}, imported from its OpenAPI description."));
    let mut schema = AdapterSchema {
        name,
        element_type: ElementType::Adapter,
        version: adapter_version.to_owned(),
        description,
        target: Target {
            base_url: base_url.trim_end_matches('/').to_owned(),
            transport: Transport::Http,
            protocol: Protocol::Rest,
            serialization: Serialization::Json,
        },
        auth: Some(auth),
        // Generated and schema-valid, never run against the API: trust-levels §2.2.2.
        trust: Some(Trust {
            level: Some(TrustLevel::Generated),
            verified_by: None,
            verification_date: None,
        }),
        rate_limits: None,
        operations,
        author: None,
        tags: None,
        triggers: None,
        created: None,
        modified: None,
    };
    let text = repair::until_valid(&mut schema, &mut warnings, |schema, warnings| {
        let categories = counts(&schema.operations);
        front_matter(schema).map(|yaml| {
            format!(
                "---\n{yaml}---\n\n{}",
                body(title, version, &categories, warnings)
            )
        })
    })?;
    Ok(Imported {
        text,
        categories: counts(&schema.operations),
        warnings,
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

/// Operations per category, for the summary.
fn counts(operations: &Operations) -> BTreeMap<&'static str, usize> {
    operations
        .families()
        .into_iter()
        .filter(|(_, list)| !list.is_empty())
        .map(|(category, list)| (category.family(), list.len()))
        .collect()
}

/// The front matter of `schema` as YAML.
fn front_matter(schema: &AdapterSchema) -> Result<String, Error> {
    serde_yaml::to_string(schema)
        .map_err(|error| Error::Config(format!("writing the front matter: {error}")))
}

fn document_warning(reason: String) -> Warning {
    Warning {
        operation: "document".to_owned(),
        reason,
    }
}

/// Renames the param `from` to `to` where it stands, so the written order stays the
/// document's.
fn rename_key(params: &mut IndexMap<String, Param>, from: &str, to: &str) {
    *params = std::mem::take(params)
        .into_iter()
        .map(|(key, value)| {
            if key == from {
                (to.to_owned(), value)
            } else {
                (key, value)
            }
        })
        .collect();
}

/// The path as it goes on the wire, with what the document folds into it handled: a
/// `#fragment` (AWS documents disambiguate paths with one) is never sent, so it is dropped
/// when it only names things and refused when it fixes a value; a `?query` of fixed values
/// becomes params that always send them (GET and DELETE only, whose params go in the query);
/// literal characters a URL path cannot carry are percent-encoded.
fn wire_path(
    method: &str,
    path: &str,
    warn: &mut dyn FnMut(String),
) -> Result<(String, Vec<(String, String)>), String> {
    let (path, fragment) = path.split_once('#').unwrap_or((path, ""));
    if fragment.contains('=') {
        return Err(format!(
            "the path fixes `{fragment}` after its `#`, a value the adapter cannot send"
        ));
    }
    if !fragment.is_empty() {
        warn(format!(
            "`#{fragment}` dropped from the path: it is never sent"
        ));
    }
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let mut fixed = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(format!("the path's query holds `{pair}` without a value"));
        };
        if !matches!(method, "get" | "delete") {
            return Err(format!(
                "the path fixes the query value `{pair}`, which a {} cannot send beside its body",
                method.to_uppercase()
            ));
        }
        fixed.push((name.to_owned(), value.to_owned()));
    }
    let mut wire = String::with_capacity(path.len());
    let mut in_placeholder = false;
    for character in path.chars() {
        let keep = in_placeholder
            || character.is_ascii_alphanumeric()
            || "-._~!$&'()*+,;=:@/%{}".contains(character);
        match character {
            '{' => in_placeholder = true,
            '}' => in_placeholder = false,
            _ => {}
        }
        if keep {
            wire.push(character);
        } else {
            for byte in character.to_string().bytes() {
                wire.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    if wire != path {
        warn(format!("path characters percent-encoded: `{wire}`"));
    }
    Ok((wire, fixed))
}

/// One operation; `Err` says why the operation cannot be imported.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site; the pieces are independent"
)]
fn import_operation(
    document: &Value,
    item: &Value,
    operation: &Value,
    method: &str,
    path: &str,
    category: Category,
    names: &mut naming::Names,
    warn: &mut dyn FnMut(String),
) -> Result<Operation, String> {
    let raw_name = operation
        .get("operationId")
        .and_then(Value::as_str)
        .map_or_else(|| format!("{method}_{path}"), str::to_owned);
    let name = names.unique(&naming::snake(&raw_name));
    let (wire, fixed_query) = wire_path(method, path, warn)?;
    let mut params: IndexMap<String, Param> = IndexMap::new();
    let mut origin: BTreeMap<String, &str> = BTreeMap::new();
    // Path params renamed to make way for a query or body param of the same name: the
    // other one's name goes on the wire, a path param's is only a template placeholder.
    let mut moved: Vec<(String, String)> = Vec::new();
    let mut add = |params: &mut IndexMap<String, Param>,
                   name: &str,
                   place: &'static str,
                   param: Param,
                   warn: &mut dyn FnMut(String)| {
        let mut fresh = format!("path_{name}");
        while origin.contains_key(&fresh) {
            fresh.push('_');
        }
        let first = origin.get(name).copied();
        if first == Some("path") && place != "path" {
            rename_key(params, name, &fresh);
            origin.insert(fresh.clone(), "path");
            origin.remove(name);
            moved.push((name.to_owned(), fresh.clone()));
        }
        let name = if first.is_some_and(|first| first != "path") && place == "path" {
            moved.push((name.to_owned(), fresh.clone()));
            fresh.as_str()
        } else {
            name
        };
        if let Some(first) = origin.get(name) {
            warn(format!(
                "{place} param `{name}` collides with the {first} param of that name; dropped"
            ));
            return;
        }
        if is_reserved_param(category, name) || !naming::is_param_name(name) {
            warn(format!(
                "{place} param `{name}` is not a usable adapter param name; dropped"
            ));
            return;
        }
        origin.insert(name.to_owned(), place);
        params.insert(name.to_owned(), param);
    };

    let declared: Vec<&Value> = item
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(
            operation
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        )
        .collect();
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut resolved: Vec<&Value> = Vec::new();
    for parameter in declared {
        let parameter = resolve(document, parameter)?;
        let identity = |p: &Value| (p.get("name").cloned(), p.get("in").cloned());
        resolved.retain(|earlier| identity(earlier) != identity(parameter));
        resolved.push(parameter);
    }
    for parameter in resolved {
        let param_name = parameter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let place = parameter
            .get("in")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let place: &'static str = match place {
            "path" => "path",
            "query" => "query",
            other => {
                let need = if parameter.get("required") == Some(&Value::Bool(true)) {
                    "required "
                } else {
                    ""
                };
                warn(format!(
                    "{need}{other} param `{param_name}` cannot be expressed; dropped"
                ));
                continue;
            }
        };
        let required = place == "path" || parameter.get("required") == Some(&Value::Bool(true));
        let schema = parameter.get("schema").unwrap_or(&Value::Null);
        let description = parameter.get("description").and_then(Value::as_str);
        // A path param's name appears only in the template, so `{org-id}` can become
        // `{org_id}` without changing the URL; query names go on the wire as they are.
        let local = if place == "path" && !naming::is_param_name(param_name) {
            let renamed = naming::snake(param_name);
            renames.push((param_name.to_owned(), renamed.clone()));
            renamed
        } else {
            param_name.to_owned()
        };
        match params::param(
            document,
            schema,
            required,
            description,
            warn,
            param_name,
            false,
        ) {
            Ok(mut param) if place == "path" => {
                // Every path param fills a placeholder, so the caller must give it.
                if param.required != Some(true) {
                    warn(format!(
                        "path param `{param_name}` is optional or defaulted in the document; made required"
                    ));
                    param.required = Some(true);
                    param.default = None;
                }
                add(&mut params, &local, place, param, warn);
            }
            Ok(param) => add(&mut params, &local, place, param, warn),
            Err(reason) => warn(format!("{place} param `{param_name}`: {reason}; dropped")),
        }
    }
    for (name, value) in fixed_query {
        if params.contains_key(&name) || !naming::is_param_name(&name) {
            return Err(format!(
                "the path fixes the query value `{name}={value}`, which no param can carry"
            ));
        }
        params.insert(
            name,
            Param {
                kind: ParamType::String,
                required: None,
                description: Some("Fixed by the API's path; always sent.".to_owned()),
                default: Some(Value::from(value.clone())),
                allowed: Some(vec![Value::from(value)]),
                minimum: None,
                maximum: None,
                pattern: None,
                format: None,
            },
        );
    }
    if let Some(body) = operation.get("requestBody") {
        body_params(document, body, warn, &mut |name, param, warn| {
            add(&mut params, name, "body", param, warn)
        })?;
    }
    let mut template = wire;
    for (wire, local) in renames.iter().chain(&moved) {
        template = template.replace(&format!("{{{wire}}}"), &format!("{{{local}}}"));
    }
    for placeholder in template
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
        .map(|(name, _)| name)
    {
        if !params.contains_key(placeholder) {
            if !naming::is_param_name(placeholder) {
                return Err(format!(
                    "path placeholder `{{{placeholder}}}` has no usable path param"
                ));
            }
            warn(format!(
                "path placeholder `{{{placeholder}}}` is not declared; added as a required string"
            ));
            params.insert(
                placeholder.to_owned(),
                Param {
                    kind: ParamType::String,
                    required: Some(true),
                    description: None,
                    default: None,
                    allowed: None,
                    minimum: None,
                    maximum: None,
                    pattern: None,
                    format: None,
                },
            );
        }
    }
    let description = operation
        .get("summary")
        .or_else(|| operation.get("description"))
        .and_then(Value::as_str)
        .map(params::shorten)
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| format!("{} {path}", method.to_uppercase()));
    let deletes = category == Category::Delete;
    let mut imported = Operation {
        name,
        maps_to: format!("{} {template}", method.to_uppercase()),
        description: Some(description),
        params,
        response: None,
        pagination: None,
        supports_fields: None,
        danger_level: deletes.then_some(DangerLevel::Destructive),
        requires_confirmation: deletes.then_some(true),
        non_idempotent: None,
    };
    shaping::shape(document, operation, category, &mut imported);
    Ok(imported)
}

/// Receives one param: its name, its definition and where to report a problem.
type AddParam<'a> = dyn FnMut(&str, Param, &mut dyn FnMut(String)) + 'a;

/// The top-level properties of a JSON request body, each through `add`.
fn body_params(
    document: &Value,
    body: &Value,
    warn: &mut dyn FnMut(String),
    add: &mut AddParam<'_>,
) -> Result<(), String> {
    let body = resolve(document, body)?;
    let content = body.get("content").and_then(Value::as_object);
    let json = content.and_then(|content| {
        content
            .iter()
            .find(|(media, _)| media.starts_with("application/json") || media.ends_with("+json"))
    });
    let Some((_, media)) = json else {
        let kinds: Vec<&str> = content
            .into_iter()
            .flatten()
            .map(|(media, _)| media.as_str())
            .collect();
        warn(format!(
            "request body without JSON ({}) dropped",
            kinds.join(", ")
        ));
        return Ok(());
    };
    let body_required = body.get("required") == Some(&Value::Bool(true));
    let schema = resolve(document, media.get("schema").unwrap_or(&Value::Null))?;
    // Each part with whether it is one of several oneOf/anyOf alternatives: their
    // properties are all optional (the caller picks the alternative), and an alternative
    // that is no object (an array or a scalar body) cannot be expressed as params.
    let mut parts = vec![(schema, false)];
    let mut properties: Vec<(&String, &Value)> = Vec::new();
    let mut required: Vec<&str> = Vec::new();
    let mut lost_forms: Vec<&str> = Vec::new();
    while let Some((part, alternative)) = parts.pop() {
        for key in ["oneOf", "anyOf"] {
            let subs = part.get(key).and_then(Value::as_array);
            // A single alternative is no choice: its required properties stay required.
            let choice = alternative || subs.is_some_and(|subs| subs.len() > 1);
            for sub in subs.into_iter().flatten().rev() {
                parts.push((resolve(document, sub)?, choice));
            }
        }
        if let Some(all) = part.get("allOf").and_then(Value::as_array) {
            for sub in all.iter().rev() {
                parts.push((resolve(document, sub)?, alternative));
            }
        }
        let kind = part.get("type").and_then(Value::as_str).unwrap_or("object");
        if kind != "object" {
            if !alternative {
                warn("request body is not a JSON object; body dropped".to_owned());
                return Ok(());
            }
            if !lost_forms.contains(&kind) {
                lost_forms.push(kind);
            }
            continue;
        }
        properties.extend(
            part.get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten(),
        );
        if !alternative {
            required.extend(
                part.get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str),
            );
        }
    }
    if !lost_forms.is_empty() {
        warn(format!(
            "oneOf/anyOf request body: its {} form cannot be sent; the object form's params are kept",
            lost_forms.join(" and ")
        ));
    }
    let mut seen: Vec<&str> = Vec::new();
    properties.retain(|(name, _)| {
        let fresh = !seen.contains(&name.as_str());
        seen.push(name.as_str());
        fresh
    });
    for (name, property) in properties {
        let is_required = body_required && required.contains(&name.as_str());
        match params::param(document, property, is_required, None, warn, name, true) {
            Ok(param) => add(name, param, warn),
            Err(reason) => warn(format!("body param `{name}`: {reason}; dropped")),
        }
    }
    Ok(())
}

/// The Markdown body: what was imported, per category, and the warnings per reason.
fn body(
    title: &str,
    version: &str,
    categories: &BTreeMap<&'static str, usize>,
    warnings: &[Warning],
) -> String {
    let mut text = format!(
        "# {title}\n\nImported by `aqlgen import-openapi` from an OpenAPI {version} description.\n\n\
         | Category | Operations |\n|---|---|\n"
    );
    for category in Category::NAMES {
        text.push_str(&format!(
            "| {category} | {} |\n",
            categories.get(category).copied().unwrap_or(0)
        ));
    }
    text.push_str(&format!("\n{} warnings", warnings.len()));
    if warnings.is_empty() {
        text.push_str(".\n");
        return text;
    }
    text.push_str(", by reason:\n\n");
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    for warning in warnings {
        *by_reason.entry(reason_kind(&warning.reason)).or_default() += 1;
    }
    for (reason, count) in by_reason {
        text.push_str(&format!("- {reason}: {count}\n"));
    }
    text
}

/// A warning's reason with backquoted names removed, for counting by kind.
pub fn reason_kind(reason: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for character in reason.chars() {
        if character == '`' {
            inside = !inside;
            if inside {
                out.push('…');
            }
        } else if !inside {
            out.push(character);
        }
    }
    out
}
