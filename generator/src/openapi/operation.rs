//! One OpenAPI operation to one adapter operation: its name, its wire path, and its params
//! from path, query and a JSON body.

use std::collections::BTreeMap;

use aqlgen_model::{Category, DangerLevel};
use indexmap::IndexMap;
use serde_json::Value;

use super::document::{Operation as Described, Parameter, PathItem};
use super::params::{self, Declared};
use super::refs::Resolver;
use super::{body, naming, shaping};
use crate::schema::{Operation, Param, ParamType, is_reserved_param};

/// Where in the document an operation is.
pub struct Endpoint<'d> {
    /// The path item, whose parameters every operation on the path shares.
    pub item: &'d PathItem,
    /// The operation.
    pub operation: &'d Described,
    /// Its lowercase method.
    pub method: &'static str,
    /// Its path template as the document writes it.
    pub path: &'d str,
    /// Its category.
    pub category: Category,
}

/// One operation; `Err` says why the operation cannot be imported.
pub fn import(
    refs: &Resolver<'_>,
    endpoint: &Endpoint<'_>,
    names: &mut naming::Names,
    warn: &mut dyn FnMut(String),
) -> Result<Operation, String> {
    let Endpoint {
        operation,
        method,
        path,
        category,
        ..
    } = *endpoint;
    let raw_name = operation
        .operation_id
        .clone()
        .unwrap_or_else(|| format!("{method}_{path}"));
    let name = names.unique(&naming::snake(&raw_name));
    let (wire, fixed_query) = wire_path(method, path, warn)?;
    let mut collected = Collected::new(category);
    let renames = declared_params(refs, endpoint, &mut collected, warn)?;
    for (name, value) in fixed_query {
        if collected.params.contains_key(&name) || !naming::is_param_name(&name) {
            return Err(format!(
                "the path fixes the query value `{name}={value}`, which no param can carry"
            ));
        }
        collected.params.insert(
            name,
            Param {
                description: Some("Fixed by the API's path; always sent.".to_owned()),
                default: Some(Value::from(value.clone())),
                allowed: Some(vec![Value::from(value)]),
                ..string_param(None)
            },
        );
    }
    if let Some(request_body) = &operation.request_body {
        body::params(refs, request_body, warn, &mut |name, param, warn| {
            collected.add(name, "body", param, warn)
        })?;
    }
    let Collected {
        mut params, moved, ..
    } = collected;
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
            params.insert(placeholder.to_owned(), string_param(Some(true)));
        }
    }
    let description = operation
        .summary
        .as_deref()
        .or(operation.description.as_deref())
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
        content_type: None,
    };
    shaping::shape(refs, operation, category, &mut imported);
    Ok(imported)
}

/// A plain string param.
fn string_param(required: Option<bool>) -> Param {
    Param {
        kind: ParamType::String,
        required,
        description: None,
        default: None,
        allowed: None,
        minimum: None,
        maximum: None,
        pattern: None,
        format: None,
        location: None,
        wire_name: None,
        style: None,
        explode: None,
    }
}

/// The path and query parameters of the path item and the operation (the operation's win
/// over the item's of the same name and place), added to `collected`; returns the path
/// params renamed to be usable names, as `(wire name, param name)`.
fn declared_params(
    refs: &Resolver<'_>,
    endpoint: &Endpoint<'_>,
    collected: &mut Collected,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<(String, String)>, String> {
    let mut resolved: Vec<&Parameter> = Vec::new();
    for parameter in endpoint
        .item
        .parameters
        .iter()
        .chain(&endpoint.operation.parameters)
    {
        let parameter = refs.resolve(parameter)?;
        resolved.retain(|earlier| {
            (&earlier.name, &earlier.location) != (&parameter.name, &parameter.location)
        });
        resolved.push(parameter);
    }
    let mut renames = Vec::new();
    for parameter in resolved {
        let param_name = parameter.name.as_deref().unwrap_or_default();
        let place: &'static str = match parameter.location.as_deref().unwrap_or_default() {
            "path" => "path",
            "query" => "query",
            other => {
                let need = if parameter.required { "required " } else { "" };
                warn(format!(
                    "{need}{other} param `{param_name}` cannot be expressed; dropped"
                ));
                continue;
            }
        };
        let declared = Declared {
            name: param_name,
            required: place == "path" || parameter.required,
            description: parameter.description.as_deref(),
            in_body: false,
        };
        // A path param's name appears only in the template, so `{org-id}` can become
        // `{org_id}` without changing the URL; query names go on the wire as they are.
        let local = if place == "path" && !naming::is_param_name(param_name) {
            let renamed = naming::snake(param_name);
            renames.push((param_name.to_owned(), renamed.clone()));
            renamed
        } else {
            param_name.to_owned()
        };
        match params::param(refs, parameter.schema.as_ref(), &declared, warn) {
            Ok(mut param) if place == "path" => {
                // Every path param fills a placeholder, so the caller must give it.
                if param.required != Some(true) {
                    warn(format!(
                        "path param `{param_name}` is optional or defaulted in the document; made required"
                    ));
                    param.required = Some(true);
                    param.default = None;
                }
                collected.add(&local, place, param, warn);
            }
            Ok(param) => collected.add(&local, place, param, warn),
            Err(reason) => warn(format!("{place} param `{param_name}`: {reason}; dropped")),
        }
    }
    Ok(renames)
}

/// The params of one operation as they are gathered, with where each came from.
struct Collected {
    category: Category,
    params: IndexMap<String, Param>,
    /// Where each param came from: `path`, `query` or `body`.
    origin: BTreeMap<String, &'static str>,
    /// Path params renamed to make way for a query or body param of the same name, as
    /// `(placeholder, param name)`: the other one's name goes on the wire, a path param's is
    /// only a template placeholder.
    moved: Vec<(String, String)>,
}

impl Collected {
    fn new(category: Category) -> Self {
        Self {
            category,
            params: IndexMap::new(),
            origin: BTreeMap::new(),
            moved: Vec::new(),
        }
    }

    /// Adds `param` from `place` as `name`, unless the name is taken or unusable, which
    /// `warn` reports.
    fn add(&mut self, name: &str, place: &'static str, param: Param, warn: &mut dyn FnMut(String)) {
        let mut fresh = format!("path_{name}");
        while self.origin.contains_key(&fresh) {
            fresh.push('_');
        }
        let first = self.origin.get(name).copied();
        if first == Some("path") && place != "path" {
            rename_key(&mut self.params, name, &fresh);
            self.origin.insert(fresh.clone(), "path");
            self.origin.remove(name);
            self.moved.push((name.to_owned(), fresh.clone()));
        }
        let name = if first.is_some_and(|first| first != "path") && place == "path" {
            self.moved.push((name.to_owned(), fresh.clone()));
            fresh.as_str()
        } else {
            name
        };
        if let Some(first) = self.origin.get(name) {
            warn(format!(
                "{place} param `{name}` collides with the {first} param of that name; dropped"
            ));
            return;
        }
        if is_reserved_param(self.category, name) || !naming::is_param_name(name) {
            warn(format!(
                "{place} param `{name}` is not a usable adapter param name; dropped"
            ));
            return;
        }
        self.origin.insert(name.to_owned(), place);
        self.params.insert(name.to_owned(), param);
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
