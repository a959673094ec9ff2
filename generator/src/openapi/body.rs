//! A request body to params: one per top-level property of its JSON, form-encoded or
//! multipart form, JSON preferred.

use std::collections::BTreeMap;

use aqlgen_model::ContentType;

use super::document::{MediaType, RefOr, RequestBody, Schema, Types};
use super::params::{self, Declared};
use super::refs::Resolver;
use super::wire::{self, Place};
use crate::schema::{Param, ParamType};

/// The params of a body and how it is encoded.
#[derive(Debug, Default)]
pub struct Body {
    /// `None` for JSON, the default.
    pub content_type: Option<ContentType>,
    /// Each top-level property as `(its name, its param)`, in the document's order.
    pub params: Vec<(String, Param)>,
}

/// The form of `content` a body is sent in: JSON, else a form, else multipart, else JSON
/// where any media type is taken (`*/*`); `None` when it offers none of them.
pub fn choose(content: Option<&BTreeMap<String, MediaType>>) -> Option<(ContentType, &MediaType)> {
    let content = content?;
    let essence = |media: &str| {
        media
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase()
    };
    let find = |wanted: fn(&str) -> bool| {
        content
            .iter()
            .find(|(media, _)| wanted(&essence(media)))
            .map(|(_, form)| form)
    };
    let json = |media: &str| media == "application/json" || media.ends_with("+json");
    let form = |media: &str| media == "application/x-www-form-urlencoded";
    let multipart = |media: &str| media == "multipart/form-data";
    let any = |media: &str| media == "*/*" || media == "application/*";
    find(json)
        .map(|form| (ContentType::Json, form))
        .or_else(|| find(form).map(|found| (ContentType::Form, found)))
        .or_else(|| find(multipart).map(|found| (ContentType::Multipart, found)))
        .or_else(|| find(any).map(|found| (ContentType::Json, found)))
}

/// The top-level properties of a body schema, `allOf` merged and `oneOf`/`anyOf`
/// alternatives flattened.
#[derive(Debug, Default)]
pub struct Shape<'a> {
    /// Each property once, first declaration first.
    pub properties: Vec<(&'a str, &'a RefOr<Schema>)>,
    /// The properties required whichever alternative is taken.
    pub required: Vec<&'a str>,
    /// The types of alternatives that are no object, which params cannot carry.
    pub lost_forms: Vec<&'a str>,
    /// The body's type, when the body itself is no object.
    pub not_object: Option<&'a str>,
}

impl Shape<'_> {
    /// Whether the body has nothing to send: an object of no properties.
    pub fn is_empty(&self) -> bool {
        self.properties.is_empty() && self.lost_forms.is_empty() && self.not_object.is_none()
    }
}

/// Whether `body` has nothing to send, in the form it would be sent in: an object of no
/// properties (Stripe declares one on every GET and DELETE).
pub fn is_empty(refs: &Resolver<'_>, body: &RefOr<RequestBody>) -> bool {
    let Ok(body) = refs.resolve(body) else {
        return false;
    };
    let Some((_, form)) = choose(body.content.as_ref()) else {
        return false;
    };
    let schema = match &form.schema {
        Some(schema) => match refs.resolve(schema) {
            Ok(schema) => schema,
            Err(_) => return false,
        },
        None => return false,
    };
    shape(refs, schema).is_ok_and(|shape| shape.is_empty())
}

/// The [`Shape`] of `schema`; `Err` when a `$ref` of it leads nowhere.
pub fn shape<'a>(refs: &'a Resolver<'_>, schema: &'a Schema) -> Result<Shape<'a>, String> {
    // Each part with whether it is one of several oneOf/anyOf alternatives: their
    // properties are all optional (the caller picks the alternative), and an alternative
    // that is no object (an array or a scalar body) cannot be expressed as params.
    let mut parts = vec![(schema, false)];
    let mut found = Shape::default();
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
                found.not_object = Some(kind);
                return Ok(found);
            }
            if !found.lost_forms.contains(&kind) {
                found.lost_forms.push(kind);
            }
            continue;
        }
        for (name, property) in part.properties.iter().flatten() {
            if !found.properties.iter().any(|(seen, _)| *seen == name) {
                found.properties.push((name, property));
            }
        }
        if !alternative {
            found
                .required
                .extend(part.required.iter().map(String::as_str));
        }
    }
    Ok(found)
}

/// The params of `body`; `Err` says why the operation cannot be imported: a body it
/// requires cannot be sent. A body it may leave out that cannot be sent is dropped, and
/// reported through `warn`.
pub fn params(
    refs: &Resolver<'_>,
    body: &RefOr<RequestBody>,
    warn: &mut dyn FnMut(String),
) -> Result<Body, String> {
    let body = refs.resolve(body)?;
    let mut lost = |reason: String| {
        if body.required {
            Err(format!("its required request body {reason}"))
        } else {
            warn(format!("request body {reason}; dropped"));
            Ok(Body::default())
        }
    };
    let Some((content_type, form)) = choose(body.content.as_ref()) else {
        let kinds: Vec<&str> = body
            .content
            .iter()
            .flatten()
            .map(|(media, _)| media.as_str())
            .collect();
        return lost(format!(
            "is neither JSON, form nor multipart ({})",
            kinds.join(", ")
        ));
    };
    let schema = match &form.schema {
        Some(schema) => refs.resolve(schema)?,
        None => &Schema::NOTHING,
    };
    let shape = shape(refs, schema)?;
    if let Some(kind) = shape.not_object {
        return lost(format!("is a JSON {kind}, not an object of params"));
    }
    if !shape.lost_forms.is_empty() {
        warn(format!(
            "oneOf/anyOf request body: its {} form cannot be sent; the object form's params are kept",
            shape.lost_forms.join(" and ")
        ));
    }
    let encoding = form.encoding.as_ref();
    let mut found = Body {
        content_type: (content_type != ContentType::Json).then_some(content_type),
        params: Vec::new(),
    };
    for (name, property) in shape.properties {
        let required = body.required && shape.required.contains(&name);
        let declared = Declared {
            name,
            required,
            description: None,
            // A form's values are text, as a query's are.
            in_body: content_type == ContentType::Json,
        };
        let mut param = match params::param(refs, Some(property), &declared, warn) {
            Ok(param) => param,
            Err(reason) if required => {
                return Err(format!("required body param `{name}`: {reason}"));
            }
            Err(reason) => {
                warn(format!("body param `{name}`: {reason}; dropped"));
                continue;
            }
        };
        if content_type == ContentType::Multipart {
            let schema = refs.resolve(property)?;
            if is_file(refs, schema) && param.kind == ParamType::Array {
                let reason = "a list of files cannot be sent";
                if required {
                    return Err(format!("required body param `{name}`: {reason}"));
                }
                warn(format!("body param `{name}`: {reason}; dropped"));
                continue;
            }
            if is_file(refs, schema) {
                param.format = Some("binary".to_owned());
                param.description = Some(match param.description.take() {
                    Some(text) => format!("{text} The file's content, base64-encoded."),
                    None => "The file's content, base64-encoded.".to_owned(),
                });
            }
        }
        if content_type != ContentType::Json {
            let declared = encoding.and_then(|encoding| encoding.get(name));
            wire::set_style(
                &mut param,
                name,
                Place::Body,
                declared.and_then(|declared| declared.style.as_deref()),
                declared.and_then(|declared| declared.explode),
                warn,
            );
        }
        found.params.push((name.to_owned(), param));
    }
    Ok(found)
}

/// Whether `schema` is a file's content (`format: binary`, or an OpenAPI 3.1
/// `contentMediaType` that is no text), or a list of them.
fn is_file(refs: &Resolver<'_>, schema: &Schema) -> bool {
    let binary = |schema: &Schema| {
        schema.format.as_deref() == Some("binary")
            || schema
                .content_media_type
                .as_deref()
                .is_some_and(|media| !media.starts_with("text/"))
    };
    binary(schema)
        || schema
            .items
            .as_deref()
            .and_then(|items| refs.resolve(items).ok())
            .is_some_and(binary)
}
