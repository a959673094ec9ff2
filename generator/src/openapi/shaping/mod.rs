//! The answer-shaping features of a READ operation, from what the document says about it:
//! field selection with `minimal` and `standard` presets from the success response's JSON
//! schema, and cursor pagination from the page params (see [`crate::features`]).
//!
//! Nothing is written that `aqlgen check` would report as unavailable
//! (`SCHEMA_FEATURE_UNAVAILABLE`): each feature is confirmed with [`features::resolve`].

use aqlgen_model::{
    COLLECTION_MEMBERS, Category, FeatureParam, IDENTIFYING_FIELDS, MAX_FIELD_PATH_BYTES,
};
use serde_json::{Map, Value};

mod querying;

use super::document::{self, Operation as Described, RefOr, Response as Answered, Schema};
use super::refs::Resolver;
use crate::features::{self, PageStyle};
use crate::schema::{Operation, Pagination, PaginationStyle, Response};

/// Most paths of a `standard` preset taken from one item.
const MAX_STANDARD: usize = 12;
/// Deepest `allOf` nesting followed.
const MAX_DEPTH: usize = 16;

/// Properties of an object schema, each with its resolved schema, by name.
pub(super) type Properties<'a> = Vec<(&'a str, &'a Schema)>;

/// What a successful answer is, as far as shaping cares.
enum Answer<'a> {
    /// An array of objects with these properties.
    Items(Properties<'a>),
    /// An object with these properties.
    Object {
        properties: Properties<'a>,
        /// The array member the runtime would take a page's items from, with its items'
        /// properties when they are objects.
        collection: Option<(&'a str, Option<Properties<'a>>)>,
    },
}

/// Sets `supports_fields`, `response.presets` and `pagination` on `imported`, a READ imported
/// from `operation`; other categories are left as they are.
pub fn shape(
    refs: &Resolver<'_>,
    operation: &Described,
    category: Category,
    imported: &mut Operation,
) {
    if category != Category::Read {
        return;
    }
    let success = success_response(refs, operation);
    let link = success.is_some_and(declares_link);
    imported.pagination = pagination(category, imported, link);
    let answer = success
        .and_then(|response| json_schema(refs, response))
        .and_then(|schema| answer(refs, schema));
    let item = match &answer {
        Some(Answer::Items(item)) => Some(item),
        Some(Answer::Object {
            collection: Some((_, Some(item))),
            ..
        }) => Some(item),
        _ => None,
    };
    let paging: Vec<String> = features::resolve(category, imported)
        .paging
        .map(|paging| paging.style.params().map(str::to_owned).to_vec())
        .unwrap_or_default();
    let paging: Vec<&str> = paging.iter().map(String::as_str).collect();
    imported.query = querying::infer(refs, imported, item, &paging);
    if let Some(answer) = answer
        && !imported.params.contains_key(FeatureParam::Fields.as_str())
        && let Some(presets) = presets(&answer, imported.pagination.is_some())
    {
        imported.supports_fields = Some(true);
        if !presets.is_empty() {
            imported.response = Some(Response {
                kind: None,
                description: None,
                presets: Some(Value::Object(presets)),
                fields: None,
                items: None,
                computed: None,
            });
        }
    }
    // Belt and braces: whatever `check` would call unavailable is not written.
    for (key, _) in features::resolve(category, imported).off {
        match key {
            "pagination" => imported.pagination = None,
            "supports_fields" => {
                imported.supports_fields = None;
                imported.response = None;
            }
            "query" => imported.query = None,
            _ => {}
        }
    }
}

/// The `200` response, else the first `2XX` one (by status, `2XX` itself included).
pub(super) fn success_response<'a>(
    refs: &'a Resolver<'_>,
    operation: &'a Described,
) -> Option<&'a Answered> {
    let responses = operation.responses.as_ref()?;
    let response = responses.get("200").or_else(|| {
        responses
            .iter()
            .find(|(status, _)| status.len() == 3 && status.starts_with('2'))
            .map(|(_, response)| response)
    })?;
    refs.resolve(response).ok()
}

/// Whether the response declares a `Link` header (the name compared case-insensitively).
fn declares_link(response: &Answered) -> bool {
    response
        .headers
        .iter()
        .flatten()
        .any(|(name, _)| name.eq_ignore_ascii_case("link"))
}

/// The schema of the response's JSON content, resolved.
pub(super) fn json_schema<'a>(
    refs: &'a Resolver<'_>,
    response: &'a Answered,
) -> Option<&'a Schema> {
    let schema = document::json_form(response.content.as_ref())?
        .schema
        .as_ref()?;
    refs.resolve(schema).ok()
}

/// The pagination block of an operation with page-size and page, offset or cursor params
/// (by the names [`features`] knows), or `None`.
///
/// A declared `Link` header with `per_page` and `page` is GitHub's page-numbered style (the
/// runtime follows the header's `rel="next"` itself); otherwise the style is the one the
/// params name, page before offset before cursor. `default_limit` and `max_limit` come from
/// the size param's `default` and `maximum`.
fn pagination(category: Category, operation: &mut Operation, link: bool) -> Option<Pagination> {
    let github = link
        && ["per_page", "page"]
            .iter()
            .all(|name| operation.params.contains_key(*name));
    operation.pagination = Some(Pagination {
        style: github.then_some(PaginationStyle::Page),
        default_limit: None,
        max_limit: None,
    });
    let paging = features::resolve(category, operation).paging;
    operation.pagination = None;
    let paging = paging?;
    let (style, size) = match &paging.style {
        PageStyle::Page { size, .. } => (PaginationStyle::Page, size),
        PageStyle::Offset { size, .. } => (PaginationStyle::Offset, size),
        PageStyle::Cursor { size, .. } => (PaginationStyle::Cursor, size),
    };
    let size = &operation.params[size.as_str()];
    let max_limit = size
        .maximum
        .filter(|max| max.is_finite() && *max >= 1.0 && *max <= u64::MAX as f64)
        .map(|max| max.floor() as u64);
    let default_limit = size
        .default
        .as_ref()
        .and_then(Value::as_u64)
        .filter(|default| *default >= 1 && max_limit.is_none_or(|max| *default <= max));
    Some(Pagination {
        style: Some(style),
        default_limit,
        max_limit,
    })
}

/// What the answer is: an array of objects, or an object; `None` for anything else.
fn answer<'a>(refs: &'a Resolver<'_>, schema: &'a Schema) -> Option<Answer<'a>> {
    if let Some(items) = array_items(schema) {
        return properties(refs, refs.resolve(items).ok()?, 0).map(Answer::Items);
    }
    let properties = properties(refs, schema, 0)?;
    let arrays: Vec<(&str, &RefOr<Schema>)> = properties
        .iter()
        .filter_map(|(name, schema)| Some((*name, array_items(schema)?)))
        .collect();
    // As the runtime picks it: the first collection name that is an array, else the only array.
    let member = COLLECTION_MEMBERS
        .iter()
        .find_map(|member| arrays.iter().find(|(name, _)| name == member))
        .or(match arrays.as_slice() {
            [only] => Some(only),
            _ => None,
        });
    let collection = member.map(|(name, items)| {
        let items = refs.resolve(items).ok();
        (
            *name,
            items.and_then(|items| self::properties(refs, items, 0)),
        )
    });
    Some(Answer::Object {
        properties,
        collection,
    })
}

/// The presets of `answer`, by name (possibly none); `None` when field selection would have
/// nothing to select. `paged`: whether the runtime unwraps an object's collection member
/// into `items` before selecting.
fn presets(answer: &Answer<'_>, paged: bool) -> Option<Map<String, Value>> {
    let (minimal, standard) = match answer {
        Answer::Items(item) => item_presets(item),
        Answer::Object {
            collection: Some((_, None)),
            ..
        } if paged => return None,
        Answer::Object {
            collection: Some((_, Some(item))),
            ..
        } if paged => item_presets(item),
        // Unpaged, selection applies to the object itself: a wrapper of items (an object
        // that identifies nothing itself) reaches them through its member.
        Answer::Object {
            properties,
            collection: Some((member, Some(item))),
        } if !identifies(properties) => wrapper_presets(properties, member, item),
        Answer::Object { properties, .. } => item_presets(properties),
    };
    let mut presets = Map::new();
    if !minimal.is_empty() {
        presets.insert("minimal".to_owned(), Value::from(minimal));
    }
    if let Some(standard) = standard.filter(|standard| !standard.is_empty()) {
        presets.insert("standard".to_owned(), Value::from(standard));
    }
    Some(presets)
}

/// The presets of an unpaged object that wraps a list of items in `member`: `minimal` the
/// item's identifying fields and `standard` the object's own scalar properties then the
/// item's `standard` fields, all under `member.` (`member` alone when the item's `standard`
/// would be all of it); no `standard` when that would be everything.
fn wrapper_presets(
    properties: &Properties<'_>,
    member: &str,
    item: &Properties<'_>,
) -> (Vec<String>, Option<Vec<String>>) {
    let (minimal, standard) = item_presets(item);
    let minimal = minimal
        .iter()
        .map(|path| format!("{member}.{path}"))
        .collect();
    let mut paths: Vec<String> = properties
        .iter()
        .filter(|(name, schema)| usable(name) && is_scalar(schema) && !is_link(name))
        .map(|(name, _)| (*name).to_owned())
        .take(MAX_STANDARD)
        .collect();
    let everything = standard.is_none() && paths.len() + 1 == properties.len();
    match standard {
        Some(standard) => paths.extend(
            standard
                .iter()
                .map(|path| format!("{member}.{path}"))
                .filter(|path| path.len() <= MAX_FIELD_PATH_BYTES),
        ),
        None => paths.push(member.to_owned()),
    }
    (minimal, (!everything).then_some(paths))
}

/// Whether an object has one of the [`IDENTIFYING_FIELDS`].
fn identifies(properties: &Properties<'_>) -> bool {
    properties
        .iter()
        .any(|(name, _)| IDENTIFYING_FIELDS.contains(name))
}

/// `minimal`: the identifying fields the item has, in [`IDENTIFYING_FIELDS`] order.
/// `standard`: those, then its other scalar properties in [`Properties`] order, at most
/// [`MAX_STANDARD`] in all; `None` when that would be every property.
fn item_presets(item: &Properties<'_>) -> (Vec<String>, Option<Vec<String>>) {
    let minimal: Vec<String> = IDENTIFYING_FIELDS
        .iter()
        .filter(|field| item.iter().any(|(name, _)| name == *field))
        .map(|field| (*field).to_owned())
        .collect();
    let mut standard = minimal.clone();
    for (name, schema) in item {
        if standard.len() >= MAX_STANDARD {
            break;
        }
        if usable(name)
            && is_scalar(schema)
            && !is_link(name)
            && !standard.iter().any(|kept| kept == name)
        {
            standard.push((*name).to_owned());
        }
    }
    let every = standard.len() == item.len();
    (minimal, (!every).then_some(standard))
}

/// Whether a property name can be a member of a dot path.
/// Whether a property is a hypermedia link (`*_url`, as GitHub's `archive_url`): left out of
/// `standard`, which is for what an item is, not where its parts live. `html_url`, the
/// page a person opens, stays.
fn is_link(name: &str) -> bool {
    name.ends_with("_url") && name != "html_url"
}

fn usable(name: &str) -> bool {
    !name.is_empty() && !name.contains('.') && name.len() <= MAX_FIELD_PATH_BYTES
}

/// Whether `schema` (resolved) is a string, integer, number or boolean.
fn is_scalar(schema: &Schema) -> bool {
    matches!(
        schema.types.non_null().as_slice(),
        ["string" | "integer" | "number" | "boolean"]
    )
}

/// The `items` schema of an array schema (resolved), unresolved.
pub(super) fn array_items(schema: &Schema) -> Option<&RefOr<Schema>> {
    match schema.types.non_null().as_slice() {
        ["array"] => schema.items.as_deref(),
        [] if schema.properties.is_none() => schema.items.as_deref(),
        _ => None,
    }
}

/// The properties of an object schema (resolved), its `allOf` parts' first, the first of a
/// name kept; `None` when the schema is no object. A property whose `$ref` leads nowhere
/// counts as a schema that says nothing.
pub(super) fn properties<'a>(
    refs: &'a Resolver<'_>,
    schema: &'a Schema,
    depth: usize,
) -> Option<Properties<'a>> {
    /// What a property whose `$ref` leads nowhere is taken for.
    static NOTHING: Schema = Schema::NOTHING;
    if depth > MAX_DEPTH {
        return None;
    }
    let declared = schema.types.non_null();
    if !matches!(declared.as_slice(), [] | ["object"]) {
        return None;
    }
    let own = schema.properties.as_ref();
    let mut object = !declared.is_empty() || own.is_some();
    let mut found: Properties<'a> = Vec::new();
    for part in &schema.all_of {
        if let Some(part) = refs
            .resolve(part)
            .ok()
            .and_then(|part| properties(refs, part, depth + 1))
        {
            object = true;
            found.extend(part);
        }
    }
    for (name, property) in own.into_iter().flatten() {
        found.push((name.as_str(), refs.resolve(property).unwrap_or(&NOTHING)));
    }
    if !object {
        return None;
    }
    let mut seen: Vec<&str> = Vec::new();
    found.retain(|(name, _)| {
        let fresh = !seen.contains(name);
        seen.push(name);
        fresh
    });
    Some(found)
}

#[cfg(test)]
mod tests;
