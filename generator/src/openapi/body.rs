//! A request body to params: one per top-level property of its JSON, form-encoded or
//! multipart form, JSON preferred; a JSON body that is no object of properties (free-form,
//! an array, a scalar) is one param that is the whole body.

use std::collections::BTreeMap;

use aqlgen_model::{ContentType, ParamLocation};

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
    /// The JSON media type the document names when it is not `application/json`
    /// (`application/merge-patch+json`): the operation's `Content-Type`.
    pub media_type: Option<String>,
    /// Whether the document requires the body, so that every call sends one.
    pub required: bool,
    /// Each top-level property as `(its name, its param)`, in the document's order; or the
    /// one param that is the whole body, named [`WHOLE_BODY`].
    pub params: Vec<(String, Param)>,
    /// Whether `params` is the whole body rather than its members.
    pub whole: bool,
    /// Sets of members, by upstream name, one of which a call must give in full: the
    /// variants of a `oneOf`/`anyOf` body.
    pub requires_one_of: Vec<Vec<String>>,
}

/// The name of the param that is a whole body.
pub const WHOLE_BODY: &str = "body";

/// The form of `content` a body is sent in: JSON (`application/json`, else a merge patch,
/// else another `+json` type), else a form, else multipart, else JSON where any media type
/// is taken (`*/*`); `None` when it offers none of them.
pub fn choose(content: Option<&BTreeMap<String, MediaType>>) -> Option<(ContentType, &MediaType)> {
    chosen(content).map(|(content_type, _, form)| (content_type, form))
}

/// [`choose`], with the JSON media type chosen when it is not plain `application/json`.
fn chosen<'a>(
    content: Option<&'a BTreeMap<String, MediaType>>,
) -> Option<(ContentType, Option<&'a str>, &'a MediaType)> {
    let content = content?;
    let find = |wanted: fn(&str) -> bool| content.iter().find(|(media, _)| wanted(&essence(media)));
    let plain_json = |media: &str| media == "application/json";
    // Of Kubernetes' patch types, the merge patch is the one whose body is an object.
    let merge_patch = |media: &str| media == "application/merge-patch+json";
    let form = |media: &str| media == "application/x-www-form-urlencoded";
    let multipart = |media: &str| media == "multipart/form-data";
    let named = |(media, form): (&'a String, &'a MediaType)| {
        (ContentType::Json, Some(media.as_str()), form)
    };
    let unnamed = |content_type: ContentType| {
        move |(_, form): (&'a String, &'a MediaType)| (content_type, None, form)
    };
    find(plain_json)
        .map(unnamed(ContentType::Json))
        .or_else(|| find(merge_patch).map(named))
        .or_else(|| find(is_json).map(named))
        .or_else(|| find(form).map(unnamed(ContentType::Form)))
        .or_else(|| find(multipart).map(unnamed(ContentType::Multipart)))
        .or_else(|| find(is_any).map(unnamed(ContentType::Json)))
}

/// A media type without its parameters, in lower case: `application/json` of
/// `Application/JSON; charset=utf-8`.
pub fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type's [`essence`] is JSON: `application/json` or a `+json` type.
pub fn is_json(essence: &str) -> bool {
    essence == "application/json" || essence.ends_with("+json")
}

/// Whether a media type's [`essence`] takes any type: `*/*` or `application/*`.
pub fn is_any(essence: &str) -> bool {
    essence == "*/*" || essence == "application/*"
}

/// The top-level properties of a body schema, `allOf` merged and `oneOf`/`anyOf`
/// alternatives flattened, read-only ones left out.
#[derive(Debug, Default)]
pub struct Shape<'a> {
    /// Each property once, first declaration first.
    pub properties: Vec<(&'a str, &'a RefOr<Schema>)>,
    /// The properties required whichever alternative is taken.
    pub required: Vec<&'a str>,
    /// The body's `oneOf`/`anyOf` variants, each as the properties it requires beyond
    /// `required`; empty when the body has no such choice, or one variant requires nothing
    /// more.
    pub variants: Vec<Vec<&'a str>>,
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
    shape_within(refs, schema, 0)
}

/// How deep variants are looked into: a variant's own variants are, a document's cycle is
/// not followed forever.
const VARIANT_DEPTH: usize = 4;

fn shape_within<'a>(
    refs: &'a Resolver<'_>,
    schema: &'a Schema,
    depth: usize,
) -> Result<Shape<'a>, String> {
    // Each part with whether it is one of several oneOf/anyOf alternatives: their
    // properties are all optional (the caller picks the alternative), and an alternative
    // that is no object (an array or a scalar body) cannot be expressed as params.
    let mut parts = vec![(schema, false)];
    let mut found = Shape::default();
    let mut choices: Vec<Vec<Vec<&'a str>>> = Vec::new();
    while let Some((part, alternative)) = parts.pop() {
        for subs in [&part.one_of, &part.any_of] {
            // A single alternative is no choice: its required properties stay required.
            let choice = alternative || subs.len() > 1;
            if !alternative && subs.len() > 1 && depth < VARIANT_DEPTH {
                // What each variant requires; one that is no object requires no property.
                let mut sets = Vec::new();
                for sub in subs {
                    let variant = shape_within(refs, refs.resolve(sub)?, depth + 1)?;
                    sets.push(if variant.not_object.is_some() {
                        Vec::new()
                    } else {
                        variant.required
                    });
                }
                choices.push(sets);
            }
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
            // Only answers carry a read-only property: it is no input.
            let read_only = refs.resolve(property).is_ok_and(|schema| schema.read_only);
            if !read_only && !found.properties.iter().any(|(seen, _)| *seen == name) {
                found.properties.push((name, property));
            }
        }
        if !alternative {
            found
                .required
                .extend(part.required.iter().map(String::as_str));
        }
    }
    // What every variant requires is required; what is left is a choice, when there is
    // one choice and each of its variants asks for something.
    for sets in &choices {
        for name in sets.first().into_iter().flatten() {
            if sets.iter().all(|set| set.contains(name)) && !found.required.contains(name) {
                found.required.push(name);
            }
        }
    }
    if let [sets] = choices.as_slice() {
        let rest: Vec<Vec<&str>> = sets
            .iter()
            .map(|set| {
                let mut rest: Vec<&str> = Vec::new();
                for name in set {
                    if !found.required.contains(name) && !rest.contains(name) {
                        rest.push(name);
                    }
                }
                rest
            })
            .collect();
        if rest.iter().all(|set| !set.is_empty()) {
            found.variants = rest;
        }
    }
    Ok(found)
}

/// The params of `body`; `Err` says why the operation cannot be imported: a body it
/// requires cannot be sent. A body it may leave out that cannot be sent is dropped, and
/// reported through `warn`.
///
/// The members a body's schema requires are required params when the body is, and also
/// when the operation `creates`: a record made from an optional body still needs what the
/// body requires (Twilio's `create_configuration_address` declares its body optional, and
/// requires `Address` and `Type` in it). Elsewhere they are optional, as the body is.
pub fn params(
    refs: &Resolver<'_>,
    body: &RefOr<RequestBody>,
    creates: bool,
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
    let Some((content_type, media_type, form)) = chosen(body.content.as_ref()) else {
        return match raw_media(body.content.as_ref()) {
            Some(media) => Ok(raw_body(media, body)),
            None => lost("declares no media type".to_owned()),
        };
    };
    let schema = match &form.schema {
        Some(schema) => refs.resolve(schema)?,
        None => &Schema::NOTHING,
    };
    let shape = shape(refs, schema)?;
    let whole_body = |kind: ParamType| Body {
        content_type: None,
        media_type: media_type.map(str::to_owned),
        required: body.required,
        params: vec![(WHOLE_BODY.to_owned(), whole_param(kind, body, schema))],
        whole: true,
        requires_one_of: Vec::new(),
    };
    if let Some(kind) = shape.not_object {
        return match ParamType::parse(kind) {
            Some(kind) if content_type == ContentType::Json => Ok(whole_body(kind)),
            _ => lost(format!("is a {kind}, not an object of params")),
        };
    }
    if content_type == ContentType::Json && is_free_form(schema, form.schema.is_none()) {
        return Ok(whole_body(ParamType::Object));
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
        media_type: media_type.map(str::to_owned),
        required: body.required,
        params: Vec::new(),
        whole: false,
        requires_one_of: Vec::new(),
    };
    for (name, property) in shape.properties {
        let required = (body.required || creates) && shape.required.contains(&name);
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
            if is_file(refs, schema) {
                // A list of files is sent as one file part per file, under one name.
                param.format = Some("binary".to_owned());
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
    if body.required || creates {
        // A variant one of whose members was dropped cannot be given; the others still can.
        let kept = |name: &&str| found.params.iter().any(|(kept, _)| kept == name);
        let sets: Vec<Vec<String>> = shape
            .variants
            .iter()
            .filter(|set| set.iter().all(kept))
            .map(|set| set.iter().map(|name| (*name).to_owned()).collect())
            .collect();
        if sets.len() > 1 {
            found.requires_one_of = sets;
        }
    }
    Ok(found)
}

/// The media type of a body sent as bytes, where `content` offers no JSON, form or
/// multipart form: `application/octet-stream`, else plain text, else XML, else the first.
fn raw_media(content: Option<&BTreeMap<String, MediaType>>) -> Option<&str> {
    let content = content?;
    let find = |wanted: &str| {
        content
            .keys()
            .find(|media| media.to_ascii_lowercase().starts_with(wanted))
    };
    find("application/octet-stream")
        .or_else(|| find("text/plain"))
        .or_else(|| find("application/xml"))
        .or_else(|| find("text/xml"))
        .or_else(|| content.keys().next())
        .map(String::as_str)
}

/// A body of `media` sent as the bytes of one string param [`WHOLE_BODY`]: text as it is,
/// anything else (a PDF, an image, a zip) in base64. A media type other than
/// `application/octet-stream` is the operation's `Content-Type`.
fn raw_body(media: &str, body: &RequestBody) -> Body {
    let essence = essence(media);
    let text = essence.starts_with("text/")
        || ["xml", "json", "yaml", "csv", "jwt", "javascript", "graphql"]
            .iter()
            .any(|kind| essence.ends_with(kind));
    let what = if text {
        format!("The request body: its `{essence}` text.")
    } else {
        format!("The request body: its `{essence}` bytes in base64.")
    };
    let param = Param {
        required: body.required.then_some(true),
        description: Some(match body.description.as_deref() {
            Some(description) => format!("{} {what}", params::shorten(description)),
            None => what,
        }),
        format: (!text).then(|| "binary".to_owned()),
        location: Some(ParamLocation::WholeBody),
        ..Param::of(ParamType::String)
    };
    Body {
        content_type: Some(ContentType::OctetStream),
        media_type: (essence != "application/octet-stream").then(|| media.to_owned()),
        required: body.required,
        params: vec![(WHOLE_BODY.to_owned(), param)],
        whole: true,
        requires_one_of: Vec::new(),
    }
}

/// Whether a JSON body of `schema` is an object whose members the document leaves open: no
/// schema at all (`untyped`), or an object (or no `type`) with no `properties` and no
/// composition, such as Kubernetes' `Patch` or Azure's tags.
fn is_free_form(schema: &Schema, untyped: bool) -> bool {
    let object = matches!(&schema.types, Types::Absent)
        || matches!(&schema.types, Types::One(kind) if kind == "object");
    untyped
        || (object
            && schema.properties.is_none()
            && schema.all_of.is_empty()
            && schema.one_of.is_empty()
            && schema.any_of.is_empty())
}

/// The param that is the whole body: `kind`, required when the body is, described as the
/// document describes the body.
fn whole_param(kind: ParamType, body: &RequestBody, schema: &Schema) -> Param {
    let description = body
        .description
        .as_deref()
        .or(schema.description.as_deref())
        .map(params::shorten)
        .unwrap_or_else(|| format!("The request body: a JSON {}.", kind.as_str()));
    Param {
        required: body.required.then_some(true),
        description: Some(description),
        location: Some(ParamLocation::WholeBody),
        ..Param::of(kind)
    }
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
