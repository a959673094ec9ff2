//! The `query` block of an imported READ, where the document's params say plainly what they
//! do, so an agent gets `query`, `filter` and `sort` instead of the API's own spellings:
//!
//! * a text search param (`q`, `query`, `search`, `term`, `keyword`, `keywords`) is `text`;
//! * a param named like a filter (`state`, `status`, `type`, `visibility`, `creator`,
//!   `assignee`, `author`, `labels`, ...) or written `filter[name]` is a filter key of that
//!   name, done by the API (`eq`, the default operator); where the items have a member of that
//!   name and the param has no default (which would filter anyway), the key also has a path,
//!   so the other operators of its type are done over a scan; a member that is a list (of
//!   scalars, or of objects with a `name`, as GitHub's `labels`) is filtered by `contains`;
//! * a sort param (`sort`, `sort_by`, `order_by`) with an `enum` gives a sort key per value,
//!   with the order param (`direction`, `order`, `sort_order`, `sort_direction`) whose values
//!   are `asc` and `desc` in any case; where the items have a scalar member of the value's name
//!   (or `<value>_at`), the key has its path.
//!
//! What `check` would refuse is never written: settling leaves out a `query` a finding names.

use aqlgen_model::FieldKind;

use aqlgen_model::Operator;

use super::Properties;
use super::document::Schema;
use crate::openapi::refs::Resolver;
use crate::schema::query::{Query, QueryField, TextQuery, UpstreamFilter, UpstreamSort};
use crate::schema::{Operation, ParamType};

/// Names of text search params.
const TEXT_PARAMS: &[&str] = &["q", "query", "search", "term", "keyword", "keywords"];
/// Names of params that filter by a value.
const FILTER_PARAMS: &[&str] = &[
    "state",
    "status",
    "type",
    "kind",
    "visibility",
    "creator",
    "assignee",
    "author",
    "owner_type",
    "labels",
    "label",
    "tag",
    "tags",
    "category",
    "language",
];
/// Names of params that name the sort key.
const SORT_PARAMS: &[&str] = &["sort", "sort_by", "order_by", "orderby", "sortby"];
/// Names of params that take the sort order.
const ORDER_PARAMS: &[&str] = &["direction", "order", "sort_order", "sort_direction", "dir"];

/// Where a query key `name` is in each item, with its type: a scalar member of that name (or
/// `<name>_at`, GitHub's `created` for `created_at`), or an array member whose elements are
/// scalars or objects with a `name` (GitHub's `labels`), then multi-valued.
fn member(
    refs: &Resolver<'_>,
    item: Option<&Properties<'_>>,
    name: &str,
) -> Option<(String, FieldKind, bool)> {
    let item = item?;
    for candidate in [name.to_owned(), format!("{name}_at")] {
        let Some((_, schema)) = item.iter().find(|(member, _)| *member == candidate) else {
            continue;
        };
        if let Some(kind) = kind_of(schema) {
            return Some((candidate, kind, false));
        }
        let element = super::array_items(schema).and_then(|items| refs.resolve(items).ok())?;
        if let Some(kind) = kind_of(element) {
            return Some((candidate, kind, true));
        }
        // The element itself, or one of its variants (GitHub's labels are a name or an object).
        let variants = element.one_of.iter().chain(&element.any_of);
        let named = std::iter::once(element)
            .chain(variants.filter_map(|variant| refs.resolve(variant).ok()))
            .find_map(|schema| {
                super::properties(refs, schema, 0)?
                    .into_iter()
                    .find(|(member, _)| *member == "name")
                    .and_then(|(_, schema)| kind_of(schema))
            })?;
        return Some((format!("{candidate}.name"), named, true));
    }
    None
}

/// The `query` of `operation`, whose items have `item` members, when its params say enough.
pub fn infer(
    refs: &Resolver<'_>,
    operation: &Operation,
    item: Option<&Properties<'_>>,
    paging: &[&str],
) -> Option<Query> {
    let usable = |name: &str| {
        operation.params.get(name).is_some_and(|param| {
            param.required != Some(true)
                && !operation.maps_to.contains(&format!("{{{name}}}"))
                && !paging.contains(&name)
        })
    };
    let mut query = Query::default();
    if let Some(name) = TEXT_PARAMS.iter().find(|name| {
        operation.params.get(**name).is_some_and(|param| {
            param.kind == ParamType::String && !operation.maps_to.contains(&format!("{{{name}}}"))
        })
    }) {
        query.text = Some(TextQuery {
            param: Some((*name).to_owned()),
            paths: None,
        });
    }
    for (name, param) in &operation.params {
        let wire = param.wire_name.as_deref().unwrap_or(name);
        let key = match wire
            .strip_prefix("filter[")
            .and_then(|rest| rest.strip_suffix(']'))
        {
            Some(inner) => crate::openapi::naming::param(inner),
            None if FILTER_PARAMS.contains(&name.as_str()) => name.clone(),
            None => continue,
        };
        if !usable(name)
            || !matches!(
                param.kind,
                ParamType::String | ParamType::Integer | ParamType::Boolean
            )
            || query.fields.contains_key(&key)
            || !is_snake(&key)
        {
            continue;
        }
        // A default filters anyway, so the key is the API's alone; a list member is filtered
        // by what it holds.
        let found = member(refs, item, &key).filter(|_| param.default.is_none());
        let operator = found
            .as_ref()
            .filter(|(_, _, multi)| *multi && param.kind == ParamType::String)
            .map(|_| Operator::Contains);
        query.fields.insert(
            key,
            QueryField {
                path: found.as_ref().map(|(path, _, _)| path.clone()),
                kind: found.map(|(_, kind, _)| kind),
                description: param.description.clone(),
                filter: Some(UpstreamFilter {
                    param: name.clone(),
                    operator,
                }),
                ..QueryField::default()
            },
        );
    }
    let order = ORDER_PARAMS.iter().find_map(|name| {
        let param = operation.params.get(*name).filter(|_| usable(name))?;
        let values: Vec<&str> = param
            .allowed
            .iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .collect();
        if values.is_empty() {
            return Some(((*name).to_owned(), "asc".to_owned(), "desc".to_owned()));
        }
        let find = |wanted: &str| {
            values
                .iter()
                .find(|value| value.eq_ignore_ascii_case(wanted))
                .map(|value| (*value).to_owned())
        };
        Some(((*name).to_owned(), find("asc")?, find("desc")?))
    });
    if let Some(sort) = SORT_PARAMS.iter().find(|name| usable(name)) {
        let values = operation.params[*sort]
            .allowed
            .iter()
            .flatten()
            .filter_map(|value| value.as_str());
        for value in values {
            let key = crate::openapi::naming::param(value);
            if !is_snake(&key) || query.fields.contains_key(&key) || key == "_" {
                continue;
            }
            let found = member(refs, item, &key).filter(|(_, _, multi)| !multi);
            query.fields.insert(
                key,
                QueryField {
                    path: found.as_ref().map(|(path, _, _)| path.clone()),
                    kind: found.map(|(_, kind, _)| kind),
                    sort: Some(UpstreamSort {
                        param: (*sort).to_owned(),
                        value: Some(value.to_owned()),
                        order: order.as_ref().map(|(param, _, _)| param.clone()),
                        asc: order
                            .as_ref()
                            .map(|(_, asc, _)| asc.clone())
                            .filter(|asc| asc != "asc"),
                        desc: order
                            .as_ref()
                            .map(|(_, _, desc)| desc.clone())
                            .filter(|desc| desc != "desc"),
                    }),
                    ..QueryField::default()
                },
            );
        }
    }
    (query.text.is_some() || !query.fields.is_empty()).then_some(query)
}

fn is_snake(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// What a member's schema holds, as a query field's type.
fn kind_of(schema: &Schema) -> Option<FieldKind> {
    let types = schema.types.non_null();
    let [kind] = types.as_slice() else {
        return None;
    };
    match (*kind, schema.format.as_deref()) {
        ("string", Some("date-time" | "date")) => Some(FieldKind::DateTime),
        ("string", _) => Some(FieldKind::String),
        ("integer", _) => Some(FieldKind::Integer),
        ("number", _) => Some(FieldKind::Number),
        ("boolean", _) => Some(FieldKind::Boolean),
        _ => None,
    }
}
