//! One OpenAPI operation to one adapter operation: its name, its wire path, and its params
//! from the path, query, headers, cookies and body. An operation is kept only if it can be
//! called: a required param, a required body or required credentials the adapter cannot
//! send make it an `Err`.

use std::collections::BTreeMap;

use aqlgen_model::{Category, ContentType, DangerLevel};

use super::document::{Operation as Described, Parameter, PathItem};
use super::params::{self, Declared};
use super::refs::Resolver;
use super::wire::{self, Candidate, HeaderFate, Place};
use super::{auth, body, naming, shaping};
use crate::schema::maps_to;
use crate::schema::{Operation, Param, ParamType};

/// Where in the document an operation is.
#[derive(Clone, Copy)]
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

/// What every operation of a document shares.
#[derive(Clone, Copy)]
pub struct Context<'d> {
    /// Follows the document's `$ref`s.
    pub refs: &'d Resolver<'d>,
    /// The adapter's auth, and which params and operations it concerns.
    pub auth: &'d auth::Outcome,
}

/// One operation; `Err` says why the operation cannot be imported.
pub fn import(
    context: &Context<'_>,
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
    let mut template = Template::parse(path, warn)?;
    if let Some(reason) = missing_auth(context, operation) {
        return Err(reason);
    }
    let mut candidates = Vec::new();
    declared_params(context, endpoint, &template, &mut candidates, warn)?;
    template.pin(&mut candidates, warn)?;
    let sends_body = matches!(method, "post" | "put" | "patch");
    // A DELETE may take a body too; its params then say `in: body`.
    let takes_body = sends_body || method == "delete";
    let mut content_type = None;
    let mut requires_body = None;
    let mut one_of_members = Vec::new();
    let mut headers = indexmap::IndexMap::new();
    if let Some(request_body) = &operation.request_body
        && !takes_body
    {
        // A body of no properties (Stripe declares one on every GET) loses nothing.
        if !body::is_empty(context.refs, request_body) {
            let method = method.to_uppercase();
            if context.refs.resolve(request_body)?.required {
                return Err(format!(
                    "its required request body cannot go with a {method}"
                ));
            }
            warn(format!("request body dropped: a {method} sends none"));
        }
    } else if let Some(request_body) = &operation.request_body {
        let creates = category == Category::Create;
        let body = body::params(context.refs, request_body, creates, warn)?;
        content_type = body.content_type;
        one_of_members = body.requires_one_of;
        if let Some(media_type) = body.media_type {
            headers.insert("Content-Type".to_owned(), media_type);
        }
        let place = if body.whole {
            Place::WholeBody
        } else {
            Place::Body
        };
        // RPC-style APIs put their token among the fields of a form (Slack's `token`).
        let form = content_type.is_some_and(|media| media != ContentType::Json);
        // A required param the caller gives sends the body anyway; otherwise the operation
        // says it is sent, even empty (Slack's `users.deletePhoto`, whose only member is
        // the token the auth sends).
        let mut sent_anyway = false;
        for (upstream, param) in body.params {
            if form
                && context
                    .auth
                    .carries("body", &upstream, param.description.as_deref())
            {
                warn(format!(
                    "body param `{upstream}` is the credential the adapter's auth sends; not a \
                     param"
                ));
                continue;
            }
            sent_anyway |= param.required == Some(true);
            candidates.push(Candidate {
                upstream,
                place,
                param,
            });
        }
        requires_body = (body.required && !sent_anyway).then_some(true);
    }
    for (placeholder, place) in template.placeholders() {
        let declared = candidates
            .iter()
            .any(|candidate| candidate.place == place && candidate.upstream == placeholder);
        if !declared {
            warn(format!(
                "path placeholder `{{{placeholder}}}` is not declared; added as a required string"
            ));
            candidates.push(Candidate {
                upstream: placeholder,
                place,
                param: string_param(Some(true)),
            });
        }
    }
    let accept_param = candidates.iter().any(|candidate| {
        candidate.place == Place::Header && candidate.upstream.eq_ignore_ascii_case("accept")
    });
    if let Some(accept) = accept(context.refs, operation).filter(|_| !accept_param) {
        headers.insert("Accept".to_owned(), accept);
    }
    let assigned = wire::assign(category, sends_body, candidates);
    template.rename(&assigned.renames.into_iter().collect());
    // The members of each variant under their public names.
    let member = |upstream: &String| {
        assigned.params.iter().find_map(|(name, param)| {
            let in_body = param.location.map_or(sends_body, |location| {
                location == aqlgen_model::ParamLocation::Body
            });
            (in_body && param.wire_name.as_ref().unwrap_or(name) == upstream).then(|| name.clone())
        })
    };
    let mut requires_one_of: Vec<Vec<String>> = one_of_members
        .iter()
        .filter_map(|set| set.iter().map(member).collect())
        .collect();
    if requires_one_of.len() < 2 {
        requires_one_of.clear();
    }
    // Named only now: an operation dropped above leaves its name to the next one.
    let raw_name = operation
        .operation_id
        .clone()
        .unwrap_or_else(|| format!("{method}_{path}"));
    let name = names.unique(&naming::snake(&raw_name));
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
        maps_to: format!("{} {}", method.to_uppercase(), template.render()),
        description: Some(description),
        params: assigned.params,
        response: None,
        pagination: None,
        supports_fields: None,
        danger_level: deletes.then_some(DangerLevel::Destructive),
        requires_confirmation: deletes.then_some(true),
        non_idempotent: None,
        content_type,
        requires_body,
        requires_one_of,
        lifecycle: None,
        headers,
        query: None,
    };
    shaping::shape(context.refs, operation, category, &mut imported);
    Ok(imported)
}

/// Why the operation cannot be called with the adapter's auth: it requires credentials
/// (every alternative of its `security` names a scheme) and the adapter sends none of them
/// alone.
pub fn missing_auth(context: &Context<'_>, operation: &Described) -> Option<String> {
    if !context.auth.missing_for(operation) {
        return None;
    }
    let requirements = operation
        .security
        .as_deref()
        .or(context.auth.global())
        .unwrap_or_default();
    // Each requirement's schemes together ("and"), the requirements as alternatives ("or").
    let mut alternatives: Vec<String> = Vec::new();
    for requirement in requirements {
        let together = requirement
            .keys()
            .map(|scheme| format!("`{scheme}`"))
            .collect::<Vec<_>>()
            .join(" and ");
        if !alternatives.contains(&together) {
            alternatives.push(together);
        }
    }
    let schemes = alternatives.join(" or ");
    Some(match context.auth.scheme() {
        None => format!(
            "it requires credentials ({schemes}) and the adapter sends none: no security \
             scheme of the document is supported (`--bearer-env` sends a bearer token)"
        ),
        Some(sent) => {
            format!("it requires credentials ({schemes}) other than the `{sent}` the adapter sends")
        }
    })
}

/// The `Accept` an operation sends when none of its successful answers is JSON (a PDF, a
/// CSV, an image): the media types they declare. `None` where one is JSON or any type, or
/// none is declared: the server asks for JSON.
fn accept(refs: &Resolver<'_>, operation: &Described) -> Option<String> {
    let mut media_types: Vec<&str> = Vec::new();
    let successes = operation
        .responses
        .iter()
        .flatten()
        .filter(|(status, _)| status.starts_with('2'));
    for (_, response) in successes {
        let Ok(response) = refs.resolve(response) else {
            continue;
        };
        for media in response.content.iter().flatten().map(|(media, _)| media) {
            let lower = body::essence(media);
            if body::is_json(&lower) || body::is_any(&lower) {
                return None;
            }
            // As the document spells it.
            let essence = media.split(';').next().unwrap_or_default().trim();
            if !media_types.contains(&essence) {
                media_types.push(essence);
            }
        }
    }
    (!media_types.is_empty()).then(|| media_types.join(", "))
}

/// A plain string param.
fn string_param(required: Option<bool>) -> Param {
    Param {
        required,
        ..Param::of(ParamType::String)
    }
}

/// The parameters of the path item and the operation (the operation's win over the item's
/// of the same name and place), added to `candidates`. What cannot be sent is dropped with a
/// warning, or makes the operation an `Err` when it is required.
fn declared_params(
    context: &Context<'_>,
    endpoint: &Endpoint<'_>,
    template: &Template,
    candidates: &mut Vec<Candidate>,
    warn: &mut dyn FnMut(String),
) -> Result<(), String> {
    let mut resolved: Vec<&Parameter> = Vec::new();
    for parameter in endpoint
        .item
        .parameters
        .iter()
        .chain(&endpoint.operation.parameters)
    {
        let parameter = context.refs.resolve(parameter)?;
        resolved.retain(|earlier| {
            (&earlier.name, &earlier.location) != (&parameter.name, &parameter.location)
        });
        resolved.push(parameter);
    }
    for parameter in resolved {
        let name = parameter.name.as_deref().unwrap_or_default();
        let location = parameter.location.as_deref().unwrap_or_default();
        let required = parameter.required;
        // Drops the parameter with a warning, or the operation when it is required.
        let lose = |reason: &str, warn: &mut dyn FnMut(String)| {
            if required {
                Err(format!("required {location} param `{name}`{reason}"))
            } else {
                warn(format!("{location} param `{name}`{reason}; dropped"));
                Ok(())
            }
        };
        let place = match location {
            _ if name.is_empty() => None,
            "path" if template.has_path_placeholder(name) => Some(Place::Path),
            "path" | "query" if template.has_query_placeholder(name) => Some(Place::TemplateQuery),
            "path" => {
                warn(format!(
                    "path param `{name}` has no `{{{name}}}` in the path; dropped"
                ));
                continue;
            }
            "query" if template.sets_query_key(name) => {
                warn(format!(
                    "query param `{name}` is set by the path's own query; dropped"
                ));
                continue;
            }
            "query" | "header" | "cookie"
                if context
                    .auth
                    .carries(location, name, parameter.description.as_deref()) =>
            {
                warn(format!(
                    "{location} param `{name}` is the credential the adapter's auth sends; \
                     not a param"
                ));
                continue;
            }
            "query" => Some(Place::Query),
            "header" => match wire::header_fate(name, endpoint.category, &context.auth.config) {
                HeaderFate::Param => Some(Place::Header),
                HeaderFate::Sent(why) => {
                    warn(format!("header param `{name}`: {why}; not a param"));
                    continue;
                }
                HeaderFate::Refused(why) => {
                    lose(&format!(" cannot be sent: {why}"), warn)?;
                    continue;
                }
            },
            "cookie" => Some(Place::Cookie),
            _ => None,
        };
        let Some(place) = place else {
            lose(" cannot be expressed", warn)?;
            continue;
        };
        let declared = Declared {
            name,
            required: location == "path" || required,
            description: parameter.description.as_deref(),
            in_body: false,
        };
        // A parameter described by `content` is that media type's value: a scalar's is its
        // text, but an array or object would have to go JSON-encoded.
        let in_content = parameter.schema.is_none();
        let schema = parameter.schema.as_ref().or_else(|| {
            let content = parameter.content.as_ref()?;
            content.values().next()?.schema.as_ref()
        });
        let mut param = match params::param(context.refs, schema, &declared, warn) {
            Ok(param)
                if in_content && matches!(param.kind, ParamType::Array | ParamType::Object) =>
            {
                let reason = format!(
                    ": its {} value goes JSON-encoded, which no param style writes",
                    param.kind
                );
                lose(&reason, warn)?;
                continue;
            }
            Ok(param) => param,
            Err(reason) => {
                lose(&format!(": {reason}"), warn)?;
                continue;
            }
        };
        // A path placeholder is filled on every call, so the caller must give it.
        if location == "path" && param.required != Some(true) {
            warn(format!(
                "{location} param `{name}` is optional or defaulted in the document; made required"
            ));
            param.required = Some(true);
            param.default = None;
        }
        wire::set_style(
            &mut param,
            name,
            place,
            parameter.style.as_deref(),
            parameter.explode,
            warn,
        );
        candidates.push(Candidate {
            upstream: name.to_owned(),
            place,
            param,
        });
    }
    Ok(())
}

/// One `key=value` of the query a path carries.
#[derive(Debug, Clone, PartialEq, Eq)]
enum QueryPart {
    /// `format=json`: sent as written.
    Fixed(String, String),
    /// `flag`: a key alone, sent as written.
    Bare(String),
    /// `station={station}`: the key, and the param whose value goes there.
    Placeholder(String, String),
}

/// A path as it goes on the wire: the path with its `{placeholder}`s, and the query it
/// carries, if any.
#[derive(Debug)]
pub struct Template {
    path: String,
    query: Vec<QueryPart>,
    /// The `#fragment`, never sent.
    fragment: String,
    /// The `key=value` pairs of the fragment: values the params of those names must take.
    pinned: Vec<(String, String)>,
}

/// `path` with Express-style `:name` segments (`/webhooks/:id`) written as the `{name}`
/// placeholders they mean, with a warning.
fn express_placeholders(path: &str, warn: &mut dyn FnMut(String)) -> String {
    let is_name = |name: &str| {
        name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| match segment.strip_prefix(':') {
            Some(name) if is_name(name) => {
                warn(format!(
                    "path segment `{segment}` is a placeholder: written as `{{{name}}}`"
                ));
                format!("{{{name}}}")
            }
            _ => segment.to_owned(),
        })
        .collect();
    segments.join("/")
}

impl Template {
    /// The template of a document's path, with what the document folds into it handled: a
    /// `#fragment` (AWS documents disambiguate paths with one) is never sent, so it is
    /// dropped, and the values it fixes (`#X-Amz-Target=...`) are kept for the params of
    /// their names ([`Template::pin`]); a path that goes on after the `#` is `Err`, since
    /// nothing of it would be sent. Express-style `:name` segments become
    /// placeholders; literal characters a URL cannot carry are percent-encoded.
    pub fn parse(path: &str, warn: &mut dyn FnMut(String)) -> Result<Self, String> {
        let (path, fragment) = path.split_once('#').unwrap_or((path, ""));
        let pinned: Vec<(String, String)> = fragment
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect();
        if fragment.contains('/') {
            // The path goes on after the `#` (`/send/#env/v1/partners/{partnerId}/...`):
            // nothing of it would reach the API, which could not tell the operations apart.
            return Err(format!(
                "its path goes on after a `#` (`#{fragment}`), and nothing after a `#` is sent"
            ));
        }
        if !fragment.is_empty() && pinned.is_empty() {
            // AWS and Box name what tells the operation apart (`#x-amz-chime-bearer`,
            // `#add_shared_link`): a header or body it sends anyway.
            warn(format!(
                "`#{fragment}` dropped from the path: it is never sent"
            ));
        }
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let path = express_placeholders(path, warn);
        let mut parts = Vec::new();
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let part = match pair.split_once('=') {
                None => {
                    warn(format!(
                        "the path's query `{pair}` is sent as `{pair}=`, with an empty value"
                    ));
                    QueryPart::Bare(encoded(pair, QUERY_SAFE))
                }
                Some((key, value)) => {
                    let key = encoded(key, QUERY_SAFE);
                    match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
                        Some(name) if !name.contains(['{', '}']) => {
                            QueryPart::Placeholder(key, name.to_owned())
                        }
                        _ if value.contains(['{', '}']) => {
                            return Err(format!(
                                "the path's query `{pair}` mixes fixed text and a placeholder"
                            ));
                        }
                        _ => QueryPart::Fixed(key, encoded(value, QUERY_SAFE)),
                    }
                }
            };
            parts.push(part);
        }
        let wire = encoded(&path, PATH_SAFE);
        if wire != path {
            warn(format!("path characters percent-encoded: `{wire}`"));
        }
        Ok(Self {
            path: wire,
            query: parts,
            fragment: fragment.to_owned(),
            pinned,
        })
    }

    /// Gives each value the fragment fixes to the declared param of its name, as its only
    /// value and default: the fragment is never sent, the param is. `Err` when no query,
    /// header or cookie string param has the name.
    fn pin(
        &self,
        candidates: &mut [Candidate],
        warn: &mut dyn FnMut(String),
    ) -> Result<(), String> {
        if self.pinned.is_empty() {
            return Ok(());
        }
        for (key, value) in &self.pinned {
            let Some(candidate) = candidates.iter_mut().find(|candidate| {
                candidate.upstream == *key
                    && matches!(
                        candidate.place,
                        Place::Query | Place::Header | Place::Cookie
                    )
                    && candidate.param.kind == ParamType::String
            }) else {
                return Err(format!(
                    "the path fixes `{}` after its `#`, a value no param of the operation sends",
                    self.fragment
                ));
            };
            let value = serde_json::Value::from(value.as_str());
            candidate.param.allowed = Some(vec![value.clone()]);
            candidate.param.default = Some(value);
            candidate.param.required = None;
        }
        warn(format!(
            "`#{}` dropped from the path: the params it names send its values",
            self.fragment
        ));
        Ok(())
    }

    /// The placeholders, each once, with whether they are in the path or its query.
    fn placeholders(&self) -> Vec<(String, Place)> {
        let mut found: Vec<(String, Place)> = placeholders(&self.path)
            .into_iter()
            .map(|name| (name.to_owned(), Place::Path))
            .collect();
        for part in &self.query {
            if let QueryPart::Placeholder(_, name) = part
                && !found.iter().any(|(seen, _)| seen == name)
            {
                found.push((name.clone(), Place::TemplateQuery));
            }
        }
        found
    }

    fn has_path_placeholder(&self, name: &str) -> bool {
        placeholders(&self.path).contains(&name)
    }

    fn has_query_placeholder(&self, name: &str) -> bool {
        !self.has_path_placeholder(name)
            && self
                .query
                .iter()
                .any(|part| matches!(part, QueryPart::Placeholder(_, n) if n == name))
    }

    /// Whether the path's query sends `key` of itself.
    fn sets_query_key(&self, key: &str) -> bool {
        self.query.iter().any(|part| match part {
            QueryPart::Fixed(k, _) | QueryPart::Bare(k) | QueryPart::Placeholder(k, _) => {
                maps_to::decode(k) == key
            }
        })
    }

    /// Renames placeholders, all at once.
    fn rename(&mut self, renames: &BTreeMap<String, String>) {
        let mut path = String::with_capacity(self.path.len());
        let mut rest = self.path.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let name = &rest[open + 1..open + close];
            path.push_str(&rest[..=open]);
            path.push_str(renames.get(name).map_or(name, String::as_str));
            path.push('}');
            rest = &rest[open + close + 1..];
        }
        path.push_str(rest);
        self.path = path;
        for part in &mut self.query {
            if let QueryPart::Placeholder(_, name) = part
                && let Some(renamed) = renames.get(name.as_str())
            {
                *name = renamed.clone();
            }
        }
    }

    /// The template as `maps_to` writes it.
    fn render(&self) -> String {
        let mut text = self.path.clone();
        for (index, part) in self.query.iter().enumerate() {
            text.push(if index == 0 { '?' } else { '&' });
            match part {
                QueryPart::Fixed(key, value) => text.push_str(&format!("{key}={value}")),
                QueryPart::Bare(key) => text.push_str(&format!("{key}=")),
                QueryPart::Placeholder(key, name) => text.push_str(&format!("{key}={{{name}}}")),
            }
        }
        text
    }
}

/// The `{placeholder}` names of a path, in order.
fn placeholders(path: &str) -> Vec<&str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}'))
        .map(|(name, _)| name)
        .collect()
}

/// What a path carries as written, besides letters and digits.
const PATH_SAFE: &str = "-._~!$&'()*+,;=:@/%";
/// What a query key or value carries as written, besides letters and digits: not the `&`,
/// `=`, `?` and `#` that delimit them.
const QUERY_SAFE: &str = "-._~!$'()*+,;:@/%";

/// `text` with each character neither alphanumeric nor in `safe` percent-encoded, outside
/// `{placeholders}`; a `%` is kept only where it starts an escape.
fn encoded(text: &str, safe: &str) -> String {
    let mut wire = String::with_capacity(text.len());
    let mut in_placeholder = false;
    for (index, character) in text.char_indices() {
        let escape = character != '%'
            || text
                .get(index + 1..index + 3)
                .is_some_and(|hex| hex.chars().all(|c| c.is_ascii_hexdigit()));
        let keep = in_placeholder
            || (character.is_ascii_alphanumeric() || safe.contains(character)) && escape
            || "{}".contains(character);
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
    wire
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_keeps_its_query_and_renames_placeholders_at_once() {
        let mut warnings = Vec::new();
        let mut template = Template::parse(
            "/stations/{id}/{path_id}?station={station-name}&format=json",
            &mut |reason| warnings.push(reason),
        )
        .expect("parses");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            template.placeholders(),
            [
                ("id".to_owned(), Place::Path),
                ("path_id".to_owned(), Place::Path),
                ("station-name".to_owned(), Place::TemplateQuery)
            ]
        );
        assert!(template.sets_query_key("format"));
        assert!(template.has_query_placeholder("station-name"));
        let renames = [
            ("id", "path_id"),
            ("path_id", "path_path_id"),
            ("station-name", "station_name"),
        ]
        .into_iter()
        .map(|(from, to)| (from.to_owned(), to.to_owned()))
        .collect();
        template.rename(&renames);
        assert_eq!(
            template.render(),
            "/stations/{path_id}/{path_path_id}?station={station_name}&format=json"
        );
    }

    #[test]
    fn a_query_value_mixing_text_and_a_placeholder_is_refused() {
        let error = Template::parse("/search?q=name:{name}", &mut |_| {}).expect_err("refused");
        assert!(error.contains("mixes fixed text"), "{error}");
        let mut warnings = Vec::new();
        let odd = Template::parse("/x/100%/y?filter=a b&acl&q=%2F", &mut |reason| {
            warnings.push(reason)
        })
        .expect("parses");
        assert_eq!(odd.render(), "/x/100%25/y?filter=a%20b&acl=&q=%2F");
        assert_eq!(
            warnings,
            [
                "the path's query `acl` is sent as `acl=`, with an empty value",
                "path characters percent-encoded: `/x/100%25/y`"
            ]
        );
    }
}
