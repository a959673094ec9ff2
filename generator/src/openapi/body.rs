//! A JSON request body to params: one per top-level property.

use super::document::{self, RefOr, RequestBody, Schema, Types};
use super::params::{self, Declared};
use super::refs::Resolver;
use crate::schema::Param;

/// Receives one param: its name, its definition and where to report a problem.
pub type AddParam<'a> = dyn FnMut(&str, Param, &mut dyn FnMut(String)) + 'a;

/// The top-level properties of a JSON request body, each through `add`; `Err` says why the
/// operation cannot be imported.
pub fn params(
    refs: &Resolver<'_>,
    body: &RefOr<RequestBody>,
    warn: &mut dyn FnMut(String),
    add: &mut AddParam<'_>,
) -> Result<(), String> {
    let body = refs.resolve(body)?;
    let Some(json) = document::json_form(body.content.as_ref()) else {
        let kinds: Vec<&str> = body
            .content
            .iter()
            .flatten()
            .map(|(media, _)| media.as_str())
            .collect();
        warn(format!(
            "request body without JSON ({}) dropped",
            kinds.join(", ")
        ));
        return Ok(());
    };
    let schema = match &json.schema {
        Some(schema) => refs.resolve(schema)?,
        None => &Schema::NOTHING,
    };
    // Each part with whether it is one of several oneOf/anyOf alternatives: their
    // properties are all optional (the caller picks the alternative), and an alternative
    // that is no object (an array or a scalar body) cannot be expressed as params.
    let mut parts = vec![(schema, false)];
    let mut properties: Vec<(&String, &RefOr<Schema>)> = Vec::new();
    let mut required: Vec<&str> = Vec::new();
    let mut lost_forms: Vec<&str> = Vec::new();
    while let Some((part, alternative)) = parts.pop() {
        for subs in [&part.one_of, &part.any_of] {
            // A single alternative is no choice: its required properties stay required.
            let choice = alternative || subs.len() > 1;
            for sub in subs.iter().rev() {
                parts.push((refs.resolve(sub)?, choice));
            }
        }
        for sub in part.all_of.iter().rev() {
            parts.push((refs.resolve(sub)?, alternative));
        }
        // No `type` (or a list of them) reads as an object, as most bodies are.
        let kind = match &part.types {
            Types::One(kind) => kind.as_str(),
            Types::Absent | Types::Many(_) => "object",
        };
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
        properties.extend(part.properties.iter().flatten());
        if !alternative {
            required.extend(part.required.iter().map(String::as_str));
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
        let declared = Declared {
            name,
            required: body.required && required.contains(&name.as_str()),
            description: None,
            in_body: true,
        };
        match params::param(refs, Some(property), &declared, warn) {
            Ok(param) => add(name, param, warn),
            Err(reason) => warn(format!("body param `{name}`: {reason}; dropped")),
        }
    }
    Ok(())
}
