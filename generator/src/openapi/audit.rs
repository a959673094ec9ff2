//! What each kept operation still carries of its description, checked against the document
//! after the adapter is settled: every parameter, body property and credential the document
//! asks for is looked up in the operation as written, by where it goes on the wire and
//! under which name. Kept-and-complete counts those that lost nothing; one that lost
//! something its document requires would be an importer bug, and is reported as such.

use aqlgen_model::{Category, ContentType, ParamLocation};

use super::document::{Parameter, Schema};
use super::operation::{self, Context, Endpoint};
use super::{body, wire};
use crate::schema::{AuthConfig, Operation};

/// The schema of a body form that declares none.
static NOTHING: Schema = Schema::NOTHING;

/// What a kept operation lost of what its document describes.
#[derive(Debug, Default)]
pub struct Losses {
    /// Things the document requires: the operation cannot be called as described.
    pub required: Vec<String>,
    /// Things the caller could have given.
    pub optional: Vec<String>,
}

impl Losses {
    fn lose(&mut self, required: bool, what: String) {
        if required {
            self.required.push(what);
        } else {
            self.optional.push(what);
        }
    }

    /// Whether nothing was lost.
    pub fn is_empty(&self) -> bool {
        self.required.is_empty() && self.optional.is_empty()
    }
}

/// Where a param of `operation` goes, under which name, and whether every call gives it:
/// `(location, wire name, required)`.
fn placements(operation: &Operation) -> Vec<(ParamLocation, String, bool)> {
    let (method, target) = operation
        .maps_to
        .split_once(' ')
        .unwrap_or(("", &operation.maps_to));
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let sends_body = matches!(method, "POST" | "PUT" | "PATCH");
    let mut found = Vec::new();
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let key = pair.split_once('=').map_or(pair, |(key, _)| key);
        found.push((ParamLocation::Query, key.to_owned(), true));
    }
    for (name, param) in &operation.params {
        let placeholder = format!("{{{name}}}");
        if path.contains(&placeholder) || query.contains(&placeholder) {
            continue;
        }
        let location = param.location.unwrap_or(if sends_body {
            ParamLocation::Body
        } else {
            ParamLocation::Query
        });
        found.push((
            location,
            param.wire_name.clone().unwrap_or_else(|| name.clone()),
            param.required == Some(true),
        ));
    }
    found
}

/// What `operation`, kept for `endpoint`, lost of what the document describes.
pub fn audit(context: &Context<'_>, endpoint: &Endpoint<'_>, operation: &Operation) -> Losses {
    let mut losses = Losses::default();
    let placed = placements(operation);
    let carries = |location: ParamLocation, name: &str| {
        placed.iter().any(|(placed_at, wire, _)| {
            *placed_at == location
                && if location == ParamLocation::Header {
                    wire.eq_ignore_ascii_case(name)
                } else {
                    wire == name
                }
        })
    };
    let refs = context.refs;
    let mut parameters: Vec<&Parameter> = Vec::new();
    for parameter in endpoint
        .item
        .parameters
        .iter()
        .chain(&endpoint.operation.parameters)
    {
        let Ok(parameter) = refs.resolve(parameter) else {
            continue;
        };
        parameters.retain(|earlier| {
            (&earlier.name, &earlier.location) != (&parameter.name, &parameter.location)
        });
        parameters.push(parameter);
    }
    let document_path = endpoint.path.split('#').next().unwrap_or_default();
    let (document_path, document_query) =
        document_path.split_once('?').unwrap_or((document_path, ""));
    let written_path = operation.maps_to.split_once(' ').map_or("", |(_, target)| {
        target.split('?').next().unwrap_or_default()
    });
    for parameter in parameters {
        let name = parameter.name.as_deref().unwrap_or_default();
        let location = parameter.location.as_deref().unwrap_or_default();
        // The auth sends it: no param carries a credential.
        let credential = |place: &str| {
            context
                .auth
                .carries(place, name, parameter.description.as_deref())
        };
        let carried = match location {
            "path" => {
                let placeholder = format!("{{{name}}}");
                if let Some(index) = placeholder_index(document_path, name) {
                    // The importer renames placeholders, never adds or reorders them.
                    placeholder_names(written_path)
                        .get(index)
                        .is_some_and(|written| operation.params.contains_key(*written))
                } else if let Some(key) = query_key_of(document_query, &placeholder) {
                    carries(ParamLocation::Query, key)
                } else {
                    // Declared for a placeholder the path does not have: it goes nowhere.
                    continue;
                }
            }
            "query" => carries(ParamLocation::Query, name) || credential("query"),
            "header" => {
                carries(ParamLocation::Header, name)
                    || header_sent_without_param(name, endpoint.category, &context.auth.config)
                    || credential("header")
            }
            "cookie" => carries(ParamLocation::Cookie, name) || credential("cookie"),
            _ => false,
        };
        if !carried {
            let required = parameter.required || location == "path";
            losses.lose(required, format!("{location} param `{name}`"));
        }
    }
    if let Some(request_body) = &endpoint.operation.request_body
        && let Ok(request_body) = refs.resolve(request_body)
    {
        let required = request_body.required;
        // A required body must go out on every call, even one that gives none of its
        // members: the operation says so, or a param that is always given carries it.
        let always_sent = operation.requires_body == Some(true)
            || placed.iter().any(|(location, _, required)| {
                *required && matches!(location, ParamLocation::Body | ParamLocation::WholeBody)
            });
        if required && !always_sent {
            losses.lose(true, "the request body, when no member is given".to_owned());
        }
        let whole = placed
            .iter()
            .any(|(location, _, _)| *location == ParamLocation::WholeBody);
        let chosen = body::choose(request_body.content.as_ref());
        let shape = chosen.and_then(|(content_type, form)| {
            let schema = match &form.schema {
                Some(schema) => refs.resolve(schema).ok()?,
                None => &NOTHING,
            };
            Some((content_type, body::shape(refs, schema).ok()?))
        });
        match shape {
            // One param carries the whole body, whatever its shape or media type.
            _ if whole => {}
            // A body of no properties carries nothing, whatever its media type.
            Some((_, shape)) if shape.is_empty() => {}
            Some((content_type, shape))
                if shape.not_object.is_none()
                    && operation.content_type.unwrap_or(ContentType::Json) == content_type =>
            {
                if !shape.lost_forms.is_empty() {
                    losses.lose(false, "a request body form".to_owned());
                }
                let form = content_type != ContentType::Json;
                for (property, schema) in shape.properties {
                    let description = refs
                        .resolve(schema)
                        .ok()
                        .and_then(|schema| schema.description.as_deref());
                    let credential = form && context.auth.carries("body", property, description);
                    if !carries(ParamLocation::Body, property) && !credential {
                        let required = required && shape.required.contains(&property);
                        losses.lose(required, format!("body param `{property}`"));
                    }
                }
            }
            _ => losses.lose(required, "the request body".to_owned()),
        }
    }
    if operation::missing_auth(context, endpoint.operation).is_some() {
        losses.lose(true, "credentials".to_owned());
    }
    losses
}

/// The position of `{name}` among the placeholders of `path`.
fn placeholder_index(path: &str, name: &str) -> Option<usize> {
    placeholder_names(path)
        .iter()
        .position(|found| *found == name)
}

/// The `{placeholder}` names of `path`, in order.
fn placeholder_names(path: &str) -> Vec<&str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
        .map(|(name, _)| name)
        .collect()
}

/// The key of the pair of `query` whose value is `value`.
fn query_key_of<'q>(query: &'q str, value: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(_, found)| *found == value)
        .map(|(key, _)| key)
}

/// Whether the header `name` is sent without a param: by HTTP, the auth or `if_match`.
fn header_sent_without_param(name: &str, category: Category, auth: &AuthConfig) -> bool {
    matches!(
        wire::header_fate(name, category, auth),
        wire::HeaderFate::Sent(_)
    )
}
