//! Checks of the query language's keys: each operation's `query`, each type's `computed`
//! fields and the adapter's `relationships`, against the operations and types they name.

use std::collections::BTreeMap;

use aqlgen_model::{Category, FieldKind, Operator, QUERY_RELATIONSHIPS, Vocabulary, scan_defaults};
use indexmap::IndexMap;
use serde_json::Value;

use super::finding::{Finding, Subject, Within};
use super::names::check_snake_case;
use super::nearest;
use crate::computed;
use crate::diagnostic::{Code, Diagnostic};
use crate::features;
use crate::schema::query::{Computed, Hop, Query, QueryField, Relationships};
use crate::schema::types::{self, Types};
use crate::schema::{AdapterSchema, Operation, Param, ParamType, maps_to};

/// The deepest relationship query a schema may allow.
pub const MAX_DEPTH: u64 = 10;

/// Every problem of the query keys of `schema`.
pub fn check(schema: &AdapterSchema, found: &mut Vec<Finding>) {
    let types = Types::of(schema);
    for (category, list) in schema.operations.families() {
        for (index, operation) in list.iter().enumerate() {
            let path = format!("operations.{category}[{index}]");
            let mut out = Vec::new();
            check_computed(operation, &path, &types, &mut out);
            if let Some(query) = &operation.query {
                check_query(category, operation, query, &path, &types, &mut out);
            }
            found.extend(out.into_iter().map(|diagnostic| Finding {
                subject: Subject::Operation {
                    category,
                    index,
                    within: Within::Query,
                },
                diagnostic,
            }));
        }
    }
    if let Some(relationships) = &schema.relationships {
        let mut out = Vec::new();
        check_relationships(schema, relationships, &types, &mut out);
        found.extend(out.into_iter().map(|diagnostic| Finding {
            subject: Subject::Adapter,
            diagnostic,
        }));
    }
}

/// `response.computed`: names, types, expressions that compile against the type's fields,
/// and one definition per type.
fn check_computed(operation: &Operation, path: &str, types: &Types<'_>, out: &mut Vec<Diagnostic>) {
    let Some(computed) = operation
        .response
        .as_ref()
        .and_then(|r| r.computed.as_ref())
    else {
        return;
    };
    let at = format!("{path}.response.computed");
    let returns = types::returns(operation);
    if let Some((first, first_at)) = types
        .get(&returns)
        .and_then(|facts| facts.computed.as_ref())
        && *first_at != at
    {
        if *first != computed {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    at,
                    format!("type `{returns}` has other computed fields at {first_at}"),
                )
                .expected(format!("the computed fields of {first_at}, or none here"))
                .found("other computed fields")
                .suggest("declare a type's computed fields once"),
            );
        }
        return;
    }
    let fields = types.fields_of(&returns);
    for (name, field) in computed {
        let field_at = format!("{at}.{name}");
        check_snake_case(&field_at, "computed field", name, out);
        if matches!(field.kind, ParamType::Array | ParamType::Object) {
            out.push(
                Diagnostic::new(
                    Code::InvalidType,
                    format!("{field_at}.type"),
                    format!("a computed field cannot be `{}`", field.kind.as_str()),
                )
                .expected("string, integer, number or boolean")
                .found(field.kind.as_str()),
            );
            continue;
        }
        compile_expr(field, &fields, &format!("{field_at}.expr"), out);
    }
}

fn compile_expr(
    field: &Computed,
    fields: &dyn computed::Fields,
    at: &str,
    out: &mut Vec<Diagnostic>,
) {
    let expr = match computed::parse(&field.expr) {
        Ok(expr) => expr,
        Err(error) => {
            out.push(
                Diagnostic::new(Code::InvalidValue, at, "the expression cannot be read")
                    .expected("an expression such as `days_since(created_at) > 30`")
                    .found(error.to_string()),
            );
            return;
        }
    };
    if let Err(reason) = computed::compile(&expr, field.kind, fields) {
        out.push(
            Diagnostic::new(
                Code::InvalidType,
                at,
                "the expression does not fit its type",
            )
            .expected(format!(
                "a `{}` from the type's fields",
                field.kind.as_str()
            ))
            .found(reason),
        );
    }
}

/// Whether `path` is a dot path: names separated by `.`, none empty.
fn is_dot_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= aqlgen_model::MAX_FIELD_PATH_BYTES
        && path.split('.').all(|member| {
            !member.is_empty()
                && !member
                    .chars()
                    .any(|c| c.is_whitespace() || c == '{' || c == '}')
        })
}

/// The kind of a query field: declared, else that of the param its upstream filter goes to,
/// else that of the member of the item type its path names.
pub fn field_kind(
    field: &QueryField,
    operation: &Operation,
    fields: types::DeclaredFields<'_>,
) -> Option<FieldKind> {
    if let Some(kind) = field.kind {
        return Some(kind);
    }
    let from_param = field
        .filter
        .as_ref()
        .and_then(|filter| operation.params.get(&filter.param))
        .and_then(param_kind);
    let from_type = || {
        let path = field.path.as_deref()?;
        (!path.contains('.'))
            .then(|| fields.kind(path))
            .flatten()
            .and_then(|kind| kind_of_type(kind, None))
    };
    from_param.or_else(from_type)
}

fn param_kind(param: &Param) -> Option<FieldKind> {
    kind_of_type(param.kind, param.format.as_deref())
}

fn kind_of_type(kind: ParamType, format: Option<&str>) -> Option<FieldKind> {
    match kind {
        ParamType::String if matches!(format, Some("date-time" | "date")) => {
            Some(FieldKind::DateTime)
        }
        ParamType::String | ParamType::Array => Some(FieldKind::String),
        ParamType::Integer => Some(FieldKind::Integer),
        ParamType::Number => Some(FieldKind::Number),
        ParamType::Boolean => Some(FieldKind::Boolean),
        ParamType::Object => None,
    }
}

/// Whether `value` is a value of `kind`.
fn admits(kind: FieldKind, value: &Value) -> bool {
    match kind {
        FieldKind::String | FieldKind::DateTime => value.is_string(),
        FieldKind::Integer => value.is_i64() || value.is_u64(),
        FieldKind::Number => value.is_number(),
        FieldKind::Boolean => value.is_boolean(),
    }
}

/// One operation's `query`.
fn check_query(
    category: Category,
    operation: &Operation,
    query: &Query,
    path: &str,
    types: &Types<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let at = format!("{path}.query");
    if category != Category::Read {
        out.push(
            Diagnostic::new(
                Code::CategoryMismatch,
                &at,
                "only a read operation's answer can be queried",
            )
            .expected("`query` on an operation under `read`")
            .found(format!("an operation under `{category}`")),
        );
        return;
    }
    let parsed = maps_to::parse(&operation.maps_to).ok();
    let in_path = |name: &str| {
        parsed.as_ref().is_some_and(|parsed| {
            parsed
                .pieces
                .contains(&maps_to::PathPiece::Placeholder(name))
        })
    };
    let paging: Vec<String> = features::resolve(category, operation)
        .paging
        .map(|paging| paging.style.params().map(str::to_owned).to_vec())
        .unwrap_or_default();
    // Each upstream param the query sends: the key that sends it, and whether a sort key
    // (sort keys share their params; nothing else does).
    let mut owners: BTreeMap<String, (String, bool)> = BTreeMap::new();
    let mut own = |param: &str,
                   owner: String,
                   required_ok: bool,
                   what: &str,
                   out: &mut Vec<Diagnostic>|
     -> Option<&Param> {
        let declared = operation.params.get(param);
        let problem = match declared {
            None => Some(format!("`{param}` is no param of the operation")),
            Some(_) if in_path(param) => Some(format!("`{param}` is a path placeholder")),
            Some(_) if paging.iter().any(|name| name == param) => {
                Some(format!("`{param}` pages the operation"))
            }
            Some(declared) if declared.required == Some(true) && !required_ok => {
                Some(format!("`{param}` is required"))
            }
            _ => None,
        };
        if let Some(problem) = problem {
            let mut diagnostic = Diagnostic::new(
                Code::InvalidValue,
                &owner,
                format!("{what} cannot be sent in `{param}`: {problem}"),
            )
            .expected("an optional query, header or body param of the operation")
            .found(format!("{param:?}"));
            if declared.is_none()
                && let Some(candidate) = nearest(param, operation.params.keys().map(String::as_str))
            {
                diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
            }
            out.push(diagnostic);
            return None;
        }
        let sorts = owner.contains(".sort.");
        match owners.get(param) {
            Some((first, first_sorts)) if !(sorts && *first_sorts) => {
                out.push(
                    Diagnostic::new(
                        Code::DuplicateName,
                        &owner,
                        format!("`{param}` is already sent by {first}"),
                    )
                    .expected("each param sent by one query key (sort keys may share theirs)")
                    .found(format!("{param:?}")),
                );
                None
            }
            Some(_) => declared,
            None => {
                owners.insert(param.to_owned(), (owner, sorts));
                declared
            }
        }
    };
    if let Some(text) = &query.text {
        let text_at = format!("{at}.text");
        match (&text.param, &text.paths) {
            (Some(param), None) => {
                if let Some(declared) = own(
                    param,
                    format!("{text_at}.param"),
                    true,
                    "the text query",
                    out,
                ) && declared.kind != ParamType::String
                {
                    out.push(
                        Diagnostic::new(
                            Code::InvalidType,
                            format!("{text_at}.param"),
                            format!("the text query goes to `{param}`, which is not a string"),
                        )
                        .expected("a string param")
                        .found(declared.kind.as_str()),
                    );
                }
            }
            (None, Some(paths)) => {
                if paths.is_empty() {
                    out.push(
                        Diagnostic::new(
                            Code::InvalidValue,
                            format!("{text_at}.paths"),
                            "no field to search",
                        )
                        .expected("one dot path or more, such as [title, body]")
                        .found("[]"),
                    );
                }
                for (index, path) in paths.iter().enumerate() {
                    if !is_dot_path(path) {
                        out.push(
                            Diagnostic::new(
                                Code::InvalidValue,
                                format!("{text_at}.paths[{index}]"),
                                "not a dot path",
                            )
                            .expected("member names separated by `.`, such as `user.login`")
                            .found(format!("{path:?}")),
                        );
                    }
                }
            }
            _ => out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    &text_at,
                    "the text query needs one place to go",
                )
                .expected("either `param` (sent upstream) or `paths` (matched here), not both")
                .found(if text.param.is_some() {
                    "both"
                } else {
                    "neither"
                }),
            ),
        }
    }
    if let Some(scan) = &query.scan {
        for (key, bound) in [
            ("max_pages", scan.max_pages),
            ("max_items", scan.max_items),
            ("max_bytes", scan.max_bytes),
            ("max_seconds", scan.max_seconds),
        ] {
            if bound == Some(0) {
                out.push(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("{at}.scan.{key}"),
                        "a bound of 0 would refuse every scan",
                    )
                    .expected("a whole number, at least 1")
                    .found("0"),
                );
            }
        }
    }
    let subject = types::subject_type(operation);
    let fields = types.fields_of(&subject);
    for (name, field) in &query.fields {
        let field_at = format!("{at}.fields.{name}");
        check_snake_case(&field_at, "query field", name, out);
        if field.path.is_none() && field.filter.is_none() && field.sort.is_none() {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    &field_at,
                    format!("query field `{name}` does nothing"),
                )
                .expected("a `path` in each item, or a `filter` or `sort` the upstream does")
                .found("none of them"),
            );
            continue;
        }
        if let Some(path) = &field.path
            && !is_dot_path(path)
        {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{field_at}.path"),
                    "not a dot path",
                )
                .expected("member names separated by `.`, such as `user.login`")
                .found(format!("{path:?}")),
            );
        }
        // A key only the API sorts by has no values here to type.
        let sort_only = field.path.is_none() && field.filter.is_none();
        let Some(kind) =
            field_kind(field, operation, fields).or(sort_only.then_some(FieldKind::String))
        else {
            out.push(
                Diagnostic::new(
                    Code::MissingField,
                    format!("{field_at}.type"),
                    format!("the type of query field `{name}` is not known"),
                )
                .expected(format!(
                    "`type`: one of {}",
                    <FieldKind as Vocabulary>::NAMES.join(", ")
                ))
                .found("nothing to infer it from")
                .suggest("give `type`; it is inferred only from a filter's param or a declared field of the item type"),
            );
            continue;
        };
        for (index, value) in field.allowed.iter().flatten().enumerate() {
            if !admits(kind, value) {
                out.push(
                    Diagnostic::new(
                        Code::InvalidEnum,
                        format!("{field_at}.enum[{index}]"),
                        format!("`{value}` is not a {}", kind.as_str()),
                    )
                    .expected(format!("values of type {}", kind.as_str()))
                    .found(value.to_string()),
                );
            }
        }
        if let Some(filter) = &field.filter {
            let operator = filter.operator.unwrap_or(Operator::Eq);
            let filter_at = format!("{field_at}.filter");
            if !kind.operators().contains(&operator) {
                out.push(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("{filter_at}.operator"),
                        format!(
                            "`{}` does not apply to a {}",
                            operator.as_str(),
                            kind.as_str()
                        ),
                    )
                    .expected(format!(
                        "one of {}",
                        kind.operators()
                            .iter()
                            .map(|op| op.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .found(operator.as_str()),
                );
            } else if let Some(param) = own(
                &filter.param,
                format!("{filter_at}.param"),
                false,
                "the filter",
                out,
            ) {
                check_filter_param(kind, operator, param, &filter.param, &filter_at, out);
            }
        }
        if let Some(sort) = &field.sort {
            let sort_at = format!("{field_at}.sort");
            if let Some(param) = own(
                &sort.param,
                format!("{sort_at}.param"),
                false,
                "the sort",
                out,
            ) {
                let value = sort.value.as_deref().unwrap_or(name);
                check_value_in(param, value, &format!("{sort_at}.value"), out);
            }
            if let Some(order) = &sort.order {
                if *order == sort.param {
                    out.push(
                        Diagnostic::new(
                            Code::InvalidValue,
                            format!("{sort_at}.order"),
                            "the order goes to the sort key's own param",
                        )
                        .expected("the param that takes asc/desc, or no `order`")
                        .found(format!("{order:?}")),
                    );
                } else if let Some(param) = own(
                    order,
                    format!("{sort_at}.order"),
                    false,
                    "the sort order",
                    out,
                ) {
                    for (key, value) in [
                        ("asc", sort.asc.as_deref().unwrap_or("asc")),
                        ("desc", sort.desc.as_deref().unwrap_or("desc")),
                    ] {
                        check_value_in(param, value, &format!("{sort_at}.{key}"), out);
                    }
                }
            } else if sort.asc.is_some() || sort.desc.is_some() {
                out.push(
                    Diagnostic::new(
                        Code::InvalidValue,
                        &sort_at,
                        "`asc`/`desc` need the `order` param they go to",
                    )
                    .expected("`order` beside them")
                    .found("no `order`"),
                );
            }
        }
    }
}

/// A filter's operator against the type of the param it goes to.
fn check_filter_param(
    kind: FieldKind,
    operator: Operator,
    param: &Param,
    name: &str,
    at: &str,
    out: &mut Vec<Diagnostic>,
) {
    let fits = match (operator, param.kind) {
        // A list goes to an array param, or to a string one joined with commas.
        (Operator::In | Operator::Contains, ParamType::Array | ParamType::String) => true,
        (Operator::Exists, ParamType::Boolean) => true,
        (_, ParamType::String) => matches!(kind, FieldKind::String | FieldKind::DateTime),
        (_, ParamType::Integer) => kind == FieldKind::Integer,
        (_, ParamType::Number) => kind.is_numeric(),
        (_, ParamType::Boolean) => kind == FieldKind::Boolean,
        _ => false,
    };
    if !fits {
        out.push(
            Diagnostic::new(
                Code::InvalidType,
                format!("{at}.param"),
                format!(
                    "`{name}` is `{}`, which cannot carry a {} filter's `{}` value",
                    param.kind.as_str(),
                    kind.as_str(),
                    operator.as_str()
                ),
            )
            .expected(match operator {
                Operator::In | Operator::Contains => "an array or string param".to_owned(),
                Operator::Exists => "a boolean param".to_owned(),
                _ => format!("a param of the field's type, {}", kind.as_str()),
            })
            .found(param.kind.as_str()),
        );
    }
}

/// `value` among the `enum` of `param`, when it has one.
fn check_value_in(param: &Param, value: &str, at: &str, out: &mut Vec<Diagnostic>) {
    let Some(allowed) = param.allowed.as_ref().filter(|allowed| !allowed.is_empty()) else {
        return;
    };
    if !allowed
        .iter()
        .any(|allowed| allowed.as_str() == Some(value))
    {
        let names: Vec<String> = allowed
            .iter()
            .map(|value| {
                value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned)
            })
            .collect();
        out.push(
            Diagnostic::new(
                Code::InvalidEnum,
                at,
                format!("`{value}` is not a value of its param"),
            )
            .expected(format!("one of {}", names.join(", ")))
            .found(format!("{value:?}")),
        );
    }
}

/// The placeholders of a node name template, in order; `Err` says what is wrong.
pub fn template_placeholders(template: &str) -> Result<Vec<&str>, String> {
    let mut placeholders = Vec::new();
    let mut rest = template;
    let mut literal_before = true;
    while let Some(open) = rest.find('{') {
        if open == 0 && !literal_before {
            return Err(
                "two placeholders with no text between them cannot be read back".to_owned(),
            );
        }
        let Some(close) = rest[open..].find('}') else {
            return Err("a `{` that is never closed".to_owned());
        };
        let path = &rest[open + 1..open + close];
        if !is_dot_path(path) {
            return Err(format!("`{{{path}}}` is not a dot path in braces"));
        }
        placeholders.push(path);
        rest = &rest[open + close + 1..];
        literal_before = false;
        if !rest.starts_with('{') {
            literal_before = true;
        }
    }
    if rest.contains('}') {
        return Err("a `}` with no `{`".to_owned());
    }
    if placeholders.is_empty() {
        return Err("no `{field}` placeholder".to_owned());
    }
    Ok(placeholders)
}

/// The operation of `schema` named `name`, with its category.
fn operation<'a>(schema: &'a AdapterSchema, name: &str) -> Option<(Category, &'a Operation)> {
    schema
        .operations
        .families()
        .into_iter()
        .flat_map(|(category, list)| list.iter().map(move |op| (category, op)))
        .find(|(_, op)| op.name == name)
}

fn check_hop(
    schema: &AdapterSchema,
    hop: &Hop,
    answers: &str,
    at: &str,
    out: &mut Vec<Diagnostic>,
) -> bool {
    let Some((category, op)) = operation(schema, &hop.operation) else {
        let names = schema
            .operations
            .families()
            .into_iter()
            .flat_map(|(_, list)| list.iter().map(|op| op.name.as_str()));
        let mut diagnostic = Diagnostic::new(
            Code::UnresolvedRef,
            format!("{at}.operation"),
            format!("`{}` is no operation of this adapter", hop.operation),
        )
        .expected("the name of a read operation")
        .found(format!("{:?}", hop.operation));
        if let Some(candidate) = nearest(&hop.operation, names) {
            diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
        }
        out.push(diagnostic);
        return false;
    };
    if category != Category::Read {
        out.push(
            Diagnostic::new(
                Code::CategoryMismatch,
                format!("{at}.operation"),
                format!("`{}` is no read operation", hop.operation),
            )
            .expected("a read operation: a relationship query only reads")
            .found(format!("an operation under `{category}`")),
        );
        return false;
    }
    if types::subject_type(op) != answers {
        out.push(
            Diagnostic::new(
                Code::InvalidValue,
                format!("{at}.operation"),
                format!("`{}` does not answer `{answers}`", hop.operation),
            )
            .expected(format!(
                "an operation returning `{answers}`, or a list with `response.items: {answers}`"
            ))
            .found(format!("one answering `{}`", types::subject_type(op))),
        );
    }
    for (param, path) in &hop.params {
        if !op.params.contains_key(param) {
            out.push(
                Diagnostic::new(
                    Code::UnresolvedRef,
                    format!("{at}.params.{param}"),
                    format!("`{param}` is no param of `{}`", op.name),
                )
                .expected(format!(
                    "one of {}",
                    op.params.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
                .found(format!("{param:?}")),
            );
        } else if !is_dot_path(path) {
            out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{at}.params.{param}"),
                    "not a dot path of the item",
                )
                .expected("member names separated by `.`, such as `owner.login`")
                .found(format!("{path:?}")),
            );
        }
    }
    for (name, param) in &op.params {
        if param.required == Some(true) && !hop.params.contains_key(name) {
            out.push(
                Diagnostic::new(
                    Code::MissingField,
                    format!("{at}.params"),
                    format!(
                        "`{}` requires `{name}`, which `params` does not give",
                        op.name
                    ),
                )
                .expected(format!("`{name}: <dot path of the item>`"))
                .found("nothing"),
            );
        }
    }
    true
}

/// The adapter's `relationships`.
fn check_relationships(
    schema: &AdapterSchema,
    relationships: &Relationships,
    types: &Types<'_>,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(depth) = relationships.max_depth
        && !(1..=MAX_DEPTH).contains(&depth)
    {
        out.push(
            Diagnostic::new(
                Code::InvalidValue,
                "relationships.max_depth",
                "a relationship depth out of range",
            )
            .expected(format!("1 to {MAX_DEPTH}"))
            .found(depth.to_string()),
        );
    }
    if let Some((category, _)) = operation(schema, QUERY_RELATIONSHIPS) {
        out.push(
            Diagnostic::new(
                Code::ReservedName,
                format!("operations.{category}"),
                format!("`{QUERY_RELATIONSHIPS}` is served for `relationships`"),
            )
            .expected("another name for this operation")
            .found(format!("{QUERY_RELATIONSHIPS:?}")),
        );
    }
    if relationships.nodes.is_empty() {
        out.push(
            Diagnostic::new(Code::InvalidValue, "relationships.nodes", "no node types")
                .expected("one type or more")
                .found("none"),
        );
    }
    let mut placeholders: IndexMap<&str, Vec<&str>> = IndexMap::new();
    for (name, node) in &relationships.nodes {
        let at = format!("relationships.nodes.{name}");
        if !types.is_known(name, schema) {
            out.push(
                Diagnostic::new(
                    Code::UnresolvedRef,
                    &at,
                    format!("no operation answers type `{name}`"),
                )
                .expected("a `response.type` or `response.items` of an operation")
                .found(format!("{name:?}")),
            );
        }
        match template_placeholders(&node.name) {
            Ok(found) => {
                placeholders.insert(name, found);
            }
            Err(problem) => out.push(
                Diagnostic::new(Code::InvalidValue, format!("{at}.name"), "a name template that cannot be read back")
                    .expected("text with `{field}` placeholders apart from each other, such as \"{owner.login}/{name}\"")
                    .found(problem),
            ),
        }
        if let Some(get) = &node.get {
            let get_at = format!("{at}.get");
            check_hop(schema, get, name, &get_at, out);
            if let Some(found) = placeholders.get(name.as_str()) {
                for (param, path) in &get.params {
                    if !found.contains(&path.as_str()) {
                        out.push(
                            Diagnostic::new(
                                Code::InvalidValue,
                                format!("{get_at}.params.{param}"),
                                format!("`{path}` is not in the name, so a root named only by it cannot be read"),
                            )
                            .expected(format!("one of the name's placeholders: {}", found.join(", ")))
                            .found(format!("{path:?}")),
                        );
                    }
                }
            }
        }
    }
    for (index, edge) in relationships.edges.iter().enumerate() {
        let at = format!("relationships.edges[{index}]");
        check_snake_case(&format!("{at}.type"), "relationship type", &edge.kind, out);
        for (key, node) in [("from", &edge.from), ("to", &edge.to)] {
            if !relationships.nodes.contains_key(node) {
                out.push(
                    Diagnostic::new(
                        Code::UnresolvedRef,
                        format!("{at}.{key}"),
                        format!("`{node}` is no node type"),
                    )
                    .expected(format!(
                        "one of {}",
                        relationships
                            .nodes
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .found(format!("{node:?}")),
                );
            }
        }
        match &edge.operation {
            Some(operation) => {
                let forward = Hop {
                    operation: operation.clone(),
                    params: edge.params.clone(),
                };
                check_hop(schema, &forward, &edge.to, &at, out);
            }
            None if edge.inverse.is_none() => out.push(
                Diagnostic::new(Code::MissingField, &at, "the edge has no call to follow")
                    .expected(
                        "`operation` (from a source to its targets), `inverse` (back), or both",
                    )
                    .found("neither"),
            ),
            None if !edge.params.is_empty() => out.push(
                Diagnostic::new(
                    Code::InvalidValue,
                    format!("{at}.params"),
                    "`params` without `operation`",
                )
                .expected("`operation` beside them")
                .found("no `operation`"),
            ),
            None => {}
        }
        if let Some(inverse) = &edge.inverse {
            check_hop(schema, inverse, &edge.from, &format!("{at}.inverse"), out);
        }
    }
}

/// The bounds of a scan, the schema's or the defaults.
pub fn scan_bounds(query: &Query) -> [u64; 4] {
    let scan = query.scan.clone().unwrap_or_default();
    [
        scan.max_pages.unwrap_or(scan_defaults::MAX_PAGES),
        scan.max_items.unwrap_or(scan_defaults::MAX_ITEMS),
        scan.max_bytes.unwrap_or(scan_defaults::MAX_BYTES),
        scan.max_seconds.unwrap_or(scan_defaults::MAX_SECONDS),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_templates_read_back() {
        assert_eq!(
            template_placeholders("{owner.login}/{name}").unwrap(),
            ["owner.login", "name"]
        );
        assert_eq!(template_placeholders("{login}").unwrap(), ["login"]);
        assert!(
            template_placeholders("{a}{b}")
                .unwrap_err()
                .contains("no text between")
        );
        assert!(
            template_placeholders("plain")
                .unwrap_err()
                .contains("no `{field}`")
        );
        assert!(
            template_placeholders("{a")
                .unwrap_err()
                .contains("never closed")
        );
        assert!(template_placeholders("{a b}").is_err());
    }
}
