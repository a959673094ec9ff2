//! `introspection.rs`: the operations and types lists and details as JSON literals.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value, json};

use super::json;
use aqlgen_model::{
    AggregateFunction, COMPUTED_MEMBER, ExecutionState, FeatureParam, FieldKind,
    IDENTIFYING_FIELDS, Preset, Vocabulary,
};

use crate::ir::{
    Adapter, Operation, Param, ParamLocation, QueryField, QueryPlan, ResultField, TextPlan,
};

/// The items of `introspection.rs`: the documents of every adapter in `adapters` (one, or a
/// bundle's members).
pub fn emit_introspection(adapters: &[Adapter]) -> Vec<TokenStream> {
    let operations = adapters.iter().flat_map(operation_docs);
    let types = adapters.iter().flat_map(type_docs);
    vec![
        quote! { use ::aqlgen_runtime::adapter::{Category, OperationDoc, TypeDoc}; },
        quote! {
            /// Every operation's introspection documents, in schema order.
            pub static OPERATIONS: &[OperationDoc] = &[#(#operations),*];
        },
        quote! {
            /// The named types: enums, UPDATE inputs and results.
            pub static TYPES: &[TypeDoc] = &[#(#types),*];
        },
    ]
}

/// An `OperationDoc` literal per operation of `adapter`.
fn operation_docs(adapter: &Adapter) -> Vec<TokenStream> {
    adapter
        .operations
        .iter()
        .map(|operation| {
            let (name, description) = (&operation.name, &operation.description);
            let category = super::variant(operation.category);
            let summary = json::compact(&operation_summary(operation));
            let details = json::raw_literal(&json::pretty(&operation_details(operation)));
            quote! {
                OperationDoc {
                    name: #name,
                    category: Category::#category,
                    description: #description,
                    summary_json: #summary,
                    details_json: #details,
                    ..OperationDoc::DEFAULT
                }
            }
        })
        .collect()
}

/// A `TypeDoc` literal per named type of `adapter`.
fn type_docs(adapter: &Adapter) -> Vec<TokenStream> {
    let member = proc_macro2::Literal::usize_unsuffixed(adapter.member);
    types(adapter)
        .into_iter()
        .map(|(summary, details)| {
            let name = summary["name"]
                .as_str()
                .expect("types have names")
                .to_owned();
            let (summary, details) = (
                json::compact(&summary),
                json::raw_literal(&json::pretty(&details)),
            );
            quote! { TypeDoc { name: #name, member: #member, summary_json: #summary, details_json: #details, ..TypeDoc::DEFAULT } }
        })
        .collect()
}

fn operation_summary(operation: &Operation) -> Value {
    json!({
        "name": operation.name,
        "semantic_category": operation.category.semantic_name(),
        "endpoint": operation.category.family(),
        "description": operation.description,
    })
}

/// `OperationDetails` without `mcpTool`, which the runtime inserts.
fn operation_details(operation: &Operation) -> Value {
    let (read_only, destructive) = operation.category.permissions();
    let mut parameters: Vec<Value> = operation
        .params
        .iter()
        .filter(|param| !param.hidden)
        .map(parameter_info)
        .collect();
    if let Some(input) = &operation.input {
        parameters.push(json!({
            "name": "input",
            "type": input.struct_name,
            "required": true,
            "description": INPUT_DESCRIPTION,
        }));
    }
    parameters.extend(
        operation
            .features
            .params
            .iter()
            .map(|param| feature_param_info(operation, *param)),
    );
    let mut details = json!({
        "name": operation.name,
        "semantic_category": operation.category.semantic_name(),
        "endpoint": operation.category.family(),
        "description": operation.described(),
        "permissions": {"readOnly": read_only, "destructive": destructive},
        "parameters": parameters,
        "returns": returns_summary(operation),
        "examples": [{
            "description": format!("Call {}", operation.name),
            "request": {"operation": operation.name, "params": example_params(operation)},
        }],
    });
    if !operation.computed.is_empty() {
        let queried = operation.query.is_some();
        details["computed_fields"] = operation
            .computed
            .iter()
            .map(|field| {
                let mut info = json!({
                    "name": field.name,
                    "type": field.kind.as_str(),
                    "filterable": queried,
                    "sortable": queried,
                });
                let description = if field.description.is_empty() {
                    format!("= {}", field.source)
                } else {
                    format!("{} (= {})", field.description, field.source)
                };
                info["description"] = description.into();
                info
            })
            .collect::<Vec<Value>>()
            .into();
    }
    if operation.features.params.contains(&FeatureParam::Aggregate) {
        details["aggregation_support"] = aggregation_support(operation);
    }
    if let Some(lifecycle) = &operation.lifecycle {
        // The runtime answers core states only: upstream states are mapped onto them.
        details["lifecycle"] = json!({
            "states": <ExecutionState as Vocabulary>::NAMES,
            "supports_cancel": lifecycle.cancel.is_some(),
            "supports_retry": false,
            "progress_reporting": lifecycle.progress.is_some(),
        });
    }
    details
}

/// What `input` means on every UPDATE operation (SPEC §4.5, §4.7.6).
const INPUT_DESCRIPTION: &str = "The fields to change. A field left out keeps its value; a field set to null is sent as null, which clears it where the API allows (JSON merge patch on PATCH).";

/// `aggregation_support` of an operation that aggregates (aggregations §5).
fn aggregation_support(operation: &Operation) -> Value {
    let fields = query_fields(operation);
    let groupable: Vec<&str> = fields.iter().map(|(name, _)| name.as_str()).collect();
    let numeric: Vec<&str> = fields
        .iter()
        .filter(|(_, kind)| kind.is_numeric())
        .map(|(name, _)| name.as_str())
        .collect();
    json!({
        "supported": true,
        "default_mode": "summary_only",
        "functions": <AggregateFunction as Vocabulary>::NAMES,
        "groupable_fields": groupable,
        "numeric_fields": numeric,
    })
}

/// The fields evaluated here over a scan, with their kinds: the query fields with a path,
/// then the computed ones as `_computed.<name>`.
fn query_fields(operation: &Operation) -> Vec<(String, FieldKind)> {
    let Some(query) = &operation.query else {
        return Vec::new();
    };
    query
        .fields
        .iter()
        .filter(|field| field.path.is_some())
        .map(|field| (field.name.clone(), field.kind))
        .chain(operation.computed.iter().map(|field| {
            (
                format!("{COMPUTED_MEMBER}.{}", field.name),
                field.field_kind(),
            )
        }))
        .collect()
}

/// What a query field's key says in the filter type: how it compares and where it is done.
fn filter_key_info(field: &QueryField) -> Value {
    let local = field.path.is_some();
    let mut operators: Vec<String> = Vec::new();
    if let Some(filter) = &field.filter {
        operators.push(format!("{} (by the API)", filter.operator.as_str()));
    }
    if local {
        operators.extend(
            field
                .kind
                .operators()
                .iter()
                .filter(|op| field.filter.as_ref().is_none_or(|f| f.operator != **op))
                .map(|op| op.as_str().to_owned()),
        );
    }
    let mut description = String::new();
    if !field.description.is_empty() {
        description.push_str(&field.description);
        description.push(' ');
    }
    description.push_str(&format!("Operators: {}.", operators.join(", ")));
    let mut info = json!({
        "name": field.name,
        "type": field_type(field.kind),
        "required": false,
        "description": description,
    });
    if field.kind == FieldKind::DateTime {
        info["format"] = "date-time".into();
    }
    if !field.allowed.is_empty() {
        info["enum"] = field.allowed.clone().into();
    }
    info
}

/// The JSON type of a query field's values.
fn field_type(kind: FieldKind) -> &'static str {
    match kind {
        FieldKind::String | FieldKind::DateTime => "string",
        FieldKind::Integer => "integer",
        FieldKind::Number => "number",
        FieldKind::Boolean => "boolean",
    }
}

/// The sortable keys of an operation: by the API, then here.
fn sort_keys(operation: &Operation) -> Vec<String> {
    let Some(query) = &operation.query else {
        return Vec::new();
    };
    query
        .fields
        .iter()
        .filter(|field| field.sort.is_some() || (field.path.is_some() && field.kind.is_ordered()))
        .map(|field| field.name.clone())
        .chain(
            operation
                .computed
                .iter()
                .filter(|field| field.field_kind().is_ordered())
                .map(|field| format!("{COMPUTED_MEMBER}.{}", field.name)),
        )
        .collect()
}

/// The filterable keys of an operation.
fn filter_keys(operation: &Operation) -> Vec<Value> {
    let Some(query) = &operation.query else {
        return Vec::new();
    };
    query
        .fields
        .iter()
        .filter(|field| field.path.is_some() || field.filter.is_some())
        .map(filter_key_info)
        .chain(operation.computed.iter().map(|field| {
            let operators: Vec<&str> = field
                .field_kind()
                .operators()
                .iter()
                .map(|op| op.as_str())
                .collect();
            json!({
                "name": format!("{COMPUTED_MEMBER}.{}", field.name),
                "type": field_type(field.field_kind()),
                "required": false,
                "description": format!("= {}. Operators: {}.", field.source, operators.join(", ")),
            })
        }))
        .collect()
}

/// Where the query's upstream work ends and the scan's begins, in words.
fn scan_note(query: &QueryPlan) -> String {
    let [pages, items, _, seconds] = query.scan;
    format!(
        "What the API cannot do is done here over up to {pages} pages, {items} items or {seconds} s of its answers; the answer's 'query' says what was done where, and 'complete' whether all was seen."
    )
}

/// The `ParameterInfo` of a feature param (operations §4.4.1).
fn feature_param_info(operation: &Operation, param: FeatureParam) -> Value {
    match param {
        FeatureParam::Query => {
            let query = operation.query.as_ref();
            let (required, where_) = match query.and_then(|query| query.text.as_ref()) {
                Some(TextPlan::Param { required, .. }) => {
                    (*required, "in the API's own search syntax".to_owned())
                }
                Some(TextPlan::Paths(paths)) => (
                    false,
                    format!(
                        "matched here: an item matches when any word (ignoring case) is in {}",
                        paths.join(", ")
                    ),
                ),
                None => (false, String::new()),
            };
            json!({
                "name": "query",
                "type": "string",
                "required": required,
                "description": format!("Text search, {where_}. Composes with filter, sort, fields and paging."),
            })
        }
        FeatureParam::Filter => {
            let query = operation
                .query
                .as_ref()
                .expect("filter is offered with a query");
            let keys: Vec<String> = filter_keys(operation)
                .iter()
                .filter_map(|key| key["name"].as_str().map(str::to_owned))
                .collect();
            json!({
                "name": "filter",
                "type": query.filter_type,
                "required": false,
                "description": format!(
                    "Conditions every item must meet: {{key: value}} for equality, or {{key: {{operator: value}}}}; keys {}. See type {} for each key's operators. {}",
                    keys.join(", "),
                    query.filter_type,
                    scan_note(query)
                ),
            })
        }
        FeatureParam::Sort => {
            let query = operation
                .query
                .as_ref()
                .expect("sort is offered with a query");
            json!({
                "name": "sort",
                "type": query.sort_type,
                "required": false,
                "description": format!(
                    "{{field, order}}: order 'asc' (default) or 'desc'; field one of {}.",
                    sort_keys(operation).join(", ")
                ),
            })
        }
        FeatureParam::Aggregate => json!({
            "name": "aggregate",
            "type": "object",
            "required": false,
            "description": "Named summaries of the matching items, answered in 'aggregations': {label: {count: true}}, {label: {group_by: key, count: true}}, {label: {sum|avg|min|max: key}} (one group_by with any of the others). Keys: see aggregation_support. Items are left out unless include_items is true.",
        }),
        FeatureParam::IncludeItems => json!({
            "name": "include_items",
            "type": "boolean",
            "required": false,
            "default": false,
            "description": "With aggregate: answer the matching items too, paged like a list.",
        }),
        FeatureParam::Preset => json!({
            "name": "preset",
            "type": "string",
            "required": false,
            "enum": <Preset as Vocabulary>::NAMES,
            "description": "Deprecated alias of a preset name in 'fields'; a list in 'fields' adds to it.",
        }),
        FeatureParam::Fields => {
            let fields = operation.features.fields.as_ref();
            let declared = |name: &str| {
                fields
                    .and_then(|fields| fields.presets.iter().find(|(preset, _)| preset == name))
                    .map(|(_, paths)| paths.join(", "))
            };
            let mut presets = vec![
                format!(
                    "'minimal' ({})",
                    declared("minimal").unwrap_or_else(|| format!(
                        "whichever of {} an item has",
                        IDENTIFYING_FIELDS.join(", ")
                    ))
                ),
                format!(
                    "'standard' ({})",
                    declared("standard").unwrap_or_else(|| "every field".to_owned())
                ),
                "'full' (every field)".to_owned(),
            ];
            for (name, paths) in fields
                .map(|fields| fields.presets.as_slice())
                .unwrap_or_default()
            {
                if Preset::parse(name).is_none() {
                    presets.push(format!("'{name}' ({})", paths.join(", ")));
                }
            }
            let default = fields.map_or(Preset::Full, |fields| fields.default);
            json!({
                "name": "fields",
                "type": "string | string[]",
                "required": false,
                "default": default.as_str(),
                "description": format!(
                    "Field selection: a preset, {}, or a list of dot paths such as [\"id\", \"owner.login\"]; applies to each item of a list. A path no item has is left out with a warning.{}",
                    presets.join(", "),
                    computed_note(operation)
                ),
            })
        }
        FeatureParam::First => {
            let paging = operation.features.paging.as_ref();
            json!({
                "name": "first",
                "type": "integer",
                "required": false,
                "minimum": 1,
                "maximum": paging.map_or(1, |paging| paging.max_limit),
                "default": paging.map_or(1, |paging| paging.default_limit),
                "description": "Cursor pagination: items per page. A larger value is lowered to the maximum, with a warning. Not with the operation's own paging params.",
            })
        }
        FeatureParam::Last => {
            let paging = operation.features.paging.as_ref();
            json!({
                "name": "last",
                "type": "integer",
                "required": false,
                "minimum": 1,
                "maximum": paging.map_or(1, |paging| paging.max_limit),
                "description": "Cursor pagination backwards: items per page, with 'before'.",
            })
        }
        FeatureParam::Before => json!({
            "name": "before",
            "type": "string",
            "required": false,
            "description": "Cursor pagination backwards: 'pageInfo.startCursor' of a page, to get the items before it; give 'last' with it.",
        }),
        FeatureParam::After => json!({
            "name": "after",
            "type": "string",
            "required": false,
            "description": "Cursor pagination: 'pageInfo.endCursor' of the previous page, to get the next one; give 'first' with it. A cursor works only with the operation and params it came from.",
        }),
        FeatureParam::IfMatch => json!({
            "name": "if_match",
            "type": "string",
            "required": false,
            "description": "Optimistic concurrency: the '_etag' a read returned. The change is sent with If-Match and fails with CONFLICT_VERSION_MISMATCH when the resource changed since.",
        }),
        FeatureParam::DryRun => json!({
            "name": "dry_run",
            "type": "boolean",
            "required": false,
            "default": false,
            "description": "Check the params and the safety gate, then answer with the request that would be sent, without sending it, counting it or issuing a confirmation token.",
        }),
    }
}

/// What `fields`' description says of the computed fields, when the items have some.
fn computed_note(operation: &Operation) -> String {
    if operation.computed.is_empty() {
        return String::new();
    }
    let names: Vec<String> = operation
        .computed
        .iter()
        .map(|field| format!("{COMPUTED_MEMBER}.{}", field.name))
        .collect();
    format!(
        " Computed fields, answered under '{COMPUTED_MEMBER}' when listed: {}.",
        names.join(", ")
    )
}

/// A result member as a `ParameterInfo` of the type's details.
fn result_field_info(field: &ResultField) -> Value {
    let mut info = Map::new();
    info.insert("name".into(), field.name.clone().into());
    info.insert("type".into(), field.ty.as_str().into());
    info.insert("required".into(), field.required.into());
    if !field.description.is_empty() {
        info.insert("description".into(), field.description.clone().into());
    }
    Value::Object(info)
}

fn parameter_info(param: &Param) -> Value {
    let mut info = Map::new();
    info.insert("name".into(), param.name.clone().into());
    let ty = param
        .enum_type
        .clone()
        .unwrap_or_else(|| param.ty.as_str().to_owned());
    info.insert("type".into(), ty.into());
    info.insert("required".into(), param.required.into());
    let mut description = param.description.clone();
    if let Some(note) = param.upstream_default_note() {
        if !description.is_empty() {
            description.push(' ');
        }
        description.push_str(&note);
    }
    if !description.is_empty() {
        info.insert("description".into(), description.into());
    }
    if let Some(default) = param.filled_default() {
        info.insert("default".into(), default.clone());
    }
    if !param.allowed.is_empty() {
        info.insert("enum".into(), param.allowed.clone().into());
    }
    for (key, bound) in [("minimum", param.minimum), ("maximum", param.maximum)] {
        if let Some(bound) = bound {
            info.insert(key.into(), number(bound));
        }
    }
    for (key, length) in [
        ("minLength", param.lengths.0),
        ("maxLength", param.lengths.1),
    ] {
        if let Some(length) = length {
            info.insert(key.into(), length.into());
        }
    }
    if let Some(pattern) = &param.pattern {
        info.insert("pattern".into(), pattern.clone().into());
    }
    if let Some(format) = &param.format {
        info.insert("format".into(), format.clone().into());
    }
    Value::Object(info)
}

fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        Value::from(value as i64)
    } else {
        Value::from(value)
    }
}

fn returns_summary(operation: &Operation) -> Value {
    let mut info = json!({"name": operation.returns, "kind": "object"});
    let mut description = operation.returns_description.clone();
    if operation.features.paging.is_some() {
        if !description.is_empty() {
            description.push(' ');
        }
        description.push_str("Answered as one page: 'items', and 'pageInfo' (hasNextPage, hasPreviousPage, startCursor, endCursor, totalCount when known); pass 'pageInfo.endCursor' as 'after', with 'first', for the next page.");
    }
    if !description.is_empty() {
        info["description"] = description.into();
    }
    info
}

/// A request that passes validation: required params with placeholder values.
fn example_params(operation: &Operation) -> Value {
    let sample = |param: &Param| param.example.clone();
    // The first of the sets one of which a call must give.
    let first_set = |param: &Param| {
        operation
            .requires_one_of
            .first()
            .is_some_and(|set| set.contains(&param.name))
    };
    let mut params: Map<String, Value> = operation
        .params
        .iter()
        .filter(|param| {
            param.required || param.placement == ParamLocation::Path || first_set(param)
        })
        .map(|param| (param.name.clone(), sample(param)))
        .collect();
    if let Some(input) = &operation.input {
        let fields: Map<String, Value> = input
            .fields
            .iter()
            .filter(|param| param.required || first_set(param))
            .chain(input.fields.iter().filter(|param| !param.required).take(1))
            .map(|param| (param.name.clone(), sample(param)))
            .collect();
        params.insert("input".into(), fields.into());
    }
    Value::Object(params)
}

/// `(TypeInfo, TypeDetails)` of every named type, sorted by name.
fn types(adapter: &Adapter) -> Vec<(Value, Value)> {
    let mut types: std::collections::BTreeMap<String, (Value, Value)> =
        std::collections::BTreeMap::new();
    for operation in &adapter.operations {
        for param in operation.all_params() {
            if let Some(name) = &param.enum_type {
                let description = format!(
                    "Allowed values of `{}` in `{}`.",
                    param.label, operation.name
                );
                let values: Vec<String> = param
                    .allowed
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                    .collect();
                types.insert(
                    name.clone(),
                    (
                        json!({"name": name, "kind": "enum", "description": description}),
                        json!({"name": name, "kind": "enum", "description": description, "values": values}),
                    ),
                );
            }
        }
        if let Some(input) = &operation.input {
            let description = format!(
                "The `input` object of `{}`: the fields it may change.",
                operation.name
            );
            let fields: Vec<Value> = input.fields.iter().map(parameter_info).collect();
            types.insert(
                input.struct_name.clone(),
                (
                    json!({"name": input.struct_name, "kind": "object", "description": description}),
                    json!({"name": input.struct_name, "kind": "object", "description": description, "fields": fields}),
                ),
            );
        }
        if let Some(query) = &operation.query {
            let description = format!(
                "The keys of `filter` in `{}`, each with its operators.",
                operation.name
            );
            types.insert(
                query.filter_type.clone(),
                (
                    json!({"name": query.filter_type, "kind": "object", "description": description}),
                    json!({"name": query.filter_type, "kind": "object", "description": description, "fields": filter_keys(operation)}),
                ),
            );
            let description = format!("The `sort` of `{}`.", operation.name);
            let fields = json!([
                {"name": "field", "type": "string", "required": true, "enum": sort_keys(operation)},
                {"name": "order", "type": "string", "required": false, "enum": ["asc", "desc"], "default": "asc"},
            ]);
            types.insert(
                query.sort_type.clone(),
                (
                    json!({"name": query.sort_type, "kind": "object", "description": description}),
                    json!({"name": query.sort_type, "kind": "object", "description": description, "fields": fields}),
                ),
            );
        }
        // The first operation that describes the type's fields describes it; validation
        // holds every other description of it to the same fields.
        let described = types.get(&operation.returns).is_some_and(|(_, details)| {
            details["fields"].as_array().is_some_and(|f| !f.is_empty())
        });
        if !described {
            let summary = returns_summary(operation);
            let mut details = summary.clone();
            details["fields"] = operation
                .returns_fields
                .iter()
                .map(result_field_info)
                .collect::<Vec<Value>>()
                .into();
            types.insert(operation.returns.clone(), (summary, details));
        }
    }
    types.into_values().collect()
}
