//! `routes.rs`: one static `Route` per operation, its request builder, and `route()`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{doc_lines, variant};
use crate::ident::ident;
use crate::ir::{
    Adapter, ComputedField, ContentType, IdCall, Lifecycle, Operation, PageStyle, Param,
    ParamLocation, ParamStyle, ParamType, PathSegment, Poll, QueryPlan, TextPlan,
};

/// The items of `routes.rs`.
pub fn emit_routes(adapter: &Adapter) -> Vec<TokenStream> {
    // `wire::` writes values into the request; an adapter whose operations take no params
    // at all has nothing to write, and `Style` is named only where a call takes one.
    let params = || {
        adapter.operations.iter().flat_map(|operation| {
            operation
                .all_params()
                .map(|param| (param, operation.content_type))
        })
    };
    let wire = params()
        .next()
        .is_some()
        .then(|| quote! { use ::aqlgen_runtime::wire; });
    let style = params()
        .any(|(param, content_type)| takes_style(param, content_type))
        .then(|| quote! { use ::aqlgen_runtime::wire::Style; });
    let body = adapter
        .operations
        .iter()
        .any(names_body)
        .then(|| quote! { Body, });
    let features = adapter
        .operations
        .iter()
        .any(|operation| !operation.features.params.is_empty())
        .then(|| quote! { FeatureParam, });
    let shaping = adapter
        .operations
        .iter()
        .any(|operation| operation.features.fields.is_some())
        .then(|| quote! { FieldSelection, Preset, });
    let paging = adapter
        .operations
        .iter()
        .any(|operation| operation.features.paging.is_some())
        .then(|| quote! { PageStyle, Paging, });
    let lifecycles = || {
        adapter
            .operations
            .iter()
            .filter_map(|operation| operation.lifecycle.as_ref())
    };
    let lifecycle = lifecycles()
        .next()
        .is_some()
        .then(|| quote! { ExecutionState, Lifecycle, Poll, });
    let id_call = lifecycles()
        .any(|lifecycle| matches!(lifecycle.poll, Poll::Operation(_)) || lifecycle.cancel.is_some())
        .then(|| quote! { IdCall, });
    let progress = lifecycles()
        .any(|lifecycle| lifecycle.progress.is_some())
        .then(|| quote! { ProgressPaths, });
    let queries = || {
        adapter
            .operations
            .iter()
            .filter_map(|operation| operation.query.as_ref())
    };
    let queried = queries().next().is_some();
    // A query of text alone lists no fields.
    let fielded = queries().any(|query| !query.fields.is_empty());
    let query = queried.then(|| {
        let field = fielded.then(|| quote! { QueryField, });
        quote! { Query, #field ScanLimits, }
    });
    let text = queries()
        .any(|query| query.text.is_some())
        .then(|| quote! { TextQuery, });
    let upstream_filter = queries()
        .any(|query| query.fields.iter().any(|field| field.filter.is_some()))
        .then(|| quote! { Operator, UpstreamFilter, });
    let upstream_sort = queries()
        .any(|query| query.fields.iter().any(|field| field.sort.is_some()))
        .then(|| quote! { UpstreamSort, });
    let computed = adapter
        .operations
        .iter()
        .any(|operation| !operation.computed.is_empty());
    let computed_use = computed.then(|| quote! { ComputedField, });
    let field_kind = (fielded || computed).then(|| quote! { FieldKind, });
    let evaluate = computed.then(|| quote! { use ::aqlgen_runtime::computed as ev; });
    let mut items = vec![quote! {
        use ::aqlgen_runtime::adapter::{#body Category, #computed_use DangerLevel, #lifecycle #id_call #features #shaping #field_kind Method, #upstream_filter #paging #progress #query Route, #text UpstreamRequest, #upstream_sort};
        use ::aqlgen_runtime::params::ParamError;
        #wire
        #style
        #evaluate
        use ::aqlgen_runtime::serde_json::{Map, Value};

        use super::params as schema_params;
    }];
    let mut emitted = std::collections::BTreeSet::new();
    for operation in &adapter.operations {
        for field in &operation.computed {
            if emitted.insert(field.fn_name.clone()) {
                items.push(emit_computed(field));
            }
        }
    }
    for operation in &adapter.operations {
        if let Some(query) = &operation.query {
            items.push(emit_query(operation, query));
        }
        items.push(emit_route(operation, adapter.member));
        items.push(emit_builder(operation));
    }
    let statics: Vec<_> = adapter
        .operations
        .iter()
        .map(|op| ident(&op.route_static))
        .collect();
    let names = adapter.operations.iter().map(|op| &op.name);
    items.push(quote! {
        /// Every route, in schema order (CREATE, READ, UPDATE, DELETE, EXECUTE).
        pub static ROUTES: &[&Route] = &[#(&#statics),*];
    });
    items.push(quote! {
        /// The route of an operation, by wire name.
        pub fn route(operation: &str) -> Option<&'static Route> {
            match operation {
                #(#names => Some(&#statics),)*
                _ => None,
            }
        }
    });
    items
}

fn emit_route(operation: &Operation, member: usize) -> TokenStream {
    let name = &operation.name;
    let doc = doc_lines(&format!(
        "`{name}`: {} `{}`.",
        operation.method.as_str(),
        operation.path_template
    ));
    let static_name = ident(&operation.route_static);
    let member = proc_macro2::Literal::usize_unsuffixed(member);
    let category = variant(operation.category);
    let danger = variant(operation.danger);
    let requires_confirmation = operation.requires_confirmation;
    let description = &operation.description;
    let build = ident(&operation.build_fn);
    let features = operation.features.params.iter().map(|param| {
        let param = variant(*param);
        quote! { FeatureParam::#param }
    });
    let fields = match &operation.features.fields {
        Some(fields) => {
            let presets = fields
                .presets
                .iter()
                .map(|(name, paths)| quote! { (#name, &[#(#paths),*]) });
            let default = variant(fields.default);
            let known = &operation.known_fields;
            quote! { Some(&FieldSelection { presets: &[#(#presets),*], default: Preset::#default, known: &[#(#known),*], ..FieldSelection::DEFAULT }) }
        }
        None => quote! { None },
    };
    let paging = match &operation.features.paging {
        Some(paging) => {
            let style = match &paging.style {
                PageStyle::Page { page, size } => {
                    quote! { PageStyle::Page { page: #page, size: #size } }
                }
                PageStyle::Offset { offset, size } => {
                    quote! { PageStyle::Offset { offset: #offset, size: #size } }
                }
                PageStyle::Cursor { cursor, size } => {
                    quote! { PageStyle::Cursor { cursor: #cursor, size: #size } }
                }
            };
            let default_limit = proc_macro2::Literal::u64_unsuffixed(paging.default_limit);
            let max_limit = proc_macro2::Literal::u64_unsuffixed(paging.max_limit);
            quote! { Some(&Paging { style: #style, default_limit: #default_limit, max_limit: #max_limit, ..Paging::DEFAULT }) }
        }
        None => quote! { None },
    };
    let lifecycle = match &operation.lifecycle {
        Some(lifecycle) => {
            let lifecycle = emit_lifecycle(lifecycle);
            quote! { Some(&#lifecycle) }
        }
        None => quote! { None },
    };
    let query = match &operation.query {
        Some(_) => {
            let query = ident(&query_static(operation));
            quote! { Some(&#query) }
        }
        None => quote! { None },
    };
    let computed = operation.computed.iter().map(|field| {
        let (name, compute) = (&field.name, ident(&field.fn_name));
        let kind = variant(field.field_kind());
        quote! { ComputedField { name: #name, kind: FieldKind::#kind, compute: #compute, ..ComputedField::DEFAULT } }
    });
    quote! {
        #doc
        pub static #static_name: Route = Route {
            operation: #name,
            member: #member,
            description: #description,
            category: Category::#category,
            danger_level: DangerLevel::#danger,
            requires_confirmation: #requires_confirmation,
            build: #build,
            features: &[#(#features),*],
            fields: #fields,
            paging: #paging,
            lifecycle: #lifecycle,
            query: #query,
            computed: &[#(#computed),*],
            ..Route::DEFAULT
        };
    }
}

/// The static holding an operation's `Query`: `LIST_ISSUES_QUERY`.
fn query_static(operation: &Operation) -> String {
    operation.route_static.replace("_ROUTE", "_QUERY")
}

/// A dot path as a `JsonPath` literal.
fn json_path(path: &str) -> TokenStream {
    let members = path.split('.');
    quote! { &[#(#members),*] }
}

/// The function computing one computed field of an item at `now`.
fn emit_computed(field: &ComputedField) -> TokenStream {
    let name = ident(&field.fn_name);
    let code: TokenStream = field
        .code
        .parse()
        .expect("a compiled expression is Rust tokens");
    let mut text = format!("`_computed.{}`: `{}`.", field.name, field.source);
    if !field.description.is_empty() {
        text = format!("{}\n\n{text}", field.description);
    }
    let doc = doc_lines(&text);
    // Only the date functions read the time.
    let reads_now = field
        .code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == "now");
    let now = if reads_now {
        ident("now")
    } else {
        ident("_now")
    };
    quote! {
        #doc
        fn #name(item: &Value, #now: i64) -> Value {
            #code
        }
    }
}

/// The `Query` static of an operation.
fn emit_query(operation: &Operation, query: &QueryPlan) -> TokenStream {
    let name = ident(&query_static(operation));
    let doc = format!(" How `{}` is queried.", operation.name);
    let text = match &query.text {
        Some(TextPlan::Param { name, required }) => {
            quote! { Some(TextQuery::Param { param: #name, required: #required }) }
        }
        Some(TextPlan::Paths(paths)) => {
            let paths = paths.iter().map(|path| json_path(path));
            quote! { Some(TextQuery::Paths(&[#(#paths),*])) }
        }
        None => quote! { None },
    };
    let fields = query.fields.iter().map(|field| {
        let name = &field.name;
        let path = match &field.path {
            Some(path) => {
                let path = json_path(path);
                quote! { Some(#path) }
            }
            None => quote! { None },
        };
        let kind = variant(field.kind);
        let filter = match &field.filter {
            Some(filter) => {
                let (param, operator) = (&filter.param, variant(filter.operator));
                let list = filter.param_type == ParamType::Array;
                quote! { Some(UpstreamFilter { param: #param, operator: Operator::#operator, list: #list, ..UpstreamFilter::DEFAULT }) }
            }
            None => quote! { None },
        };
        let sort = match &field.sort {
            Some(sort) => {
                let (param, value) = (&sort.param, &sort.value);
                let order = match &sort.order {
                    Some((param, asc, desc)) => quote! { Some((#param, #asc, #desc)) },
                    None => quote! { None },
                };
                quote! { Some(UpstreamSort { param: #param, value: #value, order: #order, ..UpstreamSort::DEFAULT }) }
            }
            None => quote! { None },
        };
        quote! {
            QueryField { name: #name, path: #path, kind: FieldKind::#kind, filter: #filter, sort: #sort, ..QueryField::DEFAULT }
        }
    });
    let [max_pages, max_items, max_bytes, max_seconds] =
        query.scan.map(proc_macro2::Literal::u64_unsuffixed);
    let struct_name = ident(&operation.struct_name);
    let hidden = operation
        .params
        .iter()
        .filter(|param| param.hidden)
        .map(|param| &param.name);
    quote! {
        #[doc = #doc]
        static #name: Query = Query {
            text: #text,
            fields: &[#(#fields),*],
            scan: ScanLimits { max_pages: #max_pages, max_items: #max_items, max_bytes: #max_bytes, max_seconds: #max_seconds, ..ScanLimits::DEFAULT },
            valid: schema_params::#struct_name::NAMES,
            hidden: &[#(#hidden),*],
            ..Query::DEFAULT
        };
    }
}

/// A `Lifecycle` literal.
fn emit_lifecycle(lifecycle: &Lifecycle) -> TokenStream {
    let path = |path: &Vec<String>| quote! { &[#(#path),*] };
    let optional = |found: &Option<Vec<String>>| match found {
        Some(found) => {
            let found = path(found);
            quote! { Some(#found) }
        }
        None => quote! { None },
    };
    let id_call = |call: &IdCall| {
        let (operation, id_param, params) = (&call.operation, &call.id_param, &call.params);
        quote! { IdCall { operation: #operation, id_param: #id_param, params: &[#(#params),*], ..IdCall::DEFAULT } }
    };
    let poll = match &lifecycle.poll {
        Poll::Location => quote! { Poll::Location },
        Poll::Operation(call) => {
            let call = id_call(call);
            quote! { Poll::Operation(#call) }
        }
    };
    let id = optional(&lifecycle.id);
    let state = lifecycle.state.iter().map(path);
    let states = lifecycle.states.iter().map(|(upstream, core)| {
        let core = variant(*core);
        quote! { (#upstream, ExecutionState::#core) }
    });
    let progress = match &lifecycle.progress {
        Some([current, total, percentage, message]) => {
            let [current, total, percentage, message] =
                [current, total, percentage, message].map(optional);
            quote! {
                Some(&ProgressPaths { current: #current, total: #total, percentage: #percentage, message: #message, ..ProgressPaths::DEFAULT })
            }
        }
        None => quote! { None },
    };
    let error = optional(&lifecycle.error);
    let result = optional(&lifecycle.result);
    let cancel = match &lifecycle.cancel {
        Some(call) => {
            let call = id_call(call);
            quote! { Some(#call) }
        }
        None => quote! { None },
    };
    let poll_interval = proc_macro2::Literal::u64_unsuffixed(lifecycle.poll_interval);
    let timeout = proc_macro2::Literal::u64_unsuffixed(lifecycle.timeout);
    quote! {
        Lifecycle {
            poll: #poll,
            id: #id,
            state: &[#(#state),*],
            states: &[#(#states),*],
            progress: #progress,
            error: #error,
            result: #result,
            cancel: #cancel,
            poll_interval: #poll_interval,
            timeout: #timeout,
            ..Lifecycle::DEFAULT
        }
    }
}

fn emit_builder(operation: &Operation) -> TokenStream {
    let build = ident(&operation.build_fn);
    let struct_name = ident(&operation.struct_name);
    let method = variant(operation.method);
    let pieces: Vec<TokenStream> = operation
        .path
        .iter()
        .map(|segment| match segment {
            PathSegment::Literal(text) => quote! { #text },
            PathSegment::Param(index) => {
                path_piece(&operation.params[*index], operation.content_type)
            }
        })
        .collect();
    let path = match operation.path.as_slice() {
        [PathSegment::Literal(text)] => quote! { #text.to_owned() },
        _ => quote! { [#(#pieces),*].concat() },
    };
    let top = operation
        .params
        .iter()
        .map(|param| (param, quote! { parsed }));
    let input = operation.input.iter().flat_map(|input| {
        input
            .fields
            .iter()
            .map(|param| (param, quote! { parsed.input }))
    });
    let placed: Vec<(&Param, TokenStream)> = top.chain(input).collect();
    let at = |location: ParamLocation| {
        placed
            .iter()
            .filter(move |(param, _)| param.placement == location)
    };
    let fixed_query: Vec<_> = operation
        .fixed_query
        .iter()
        .map(|(name, value)| quote! { (#name.into(), #value.to_owned()) })
        .collect();
    let query: Vec<_> = at(ParamLocation::Query)
        .map(|(param, owner)| {
            let (name, value, style) = (&param.wire_name, value_of(param, owner), style_of(param));
            quote! { wire::push_pairs(&mut query, #name, #value, #style); }
        })
        .collect();
    let fixed_headers: Vec<_> = operation
        .fixed_headers
        .iter()
        .map(|(name, value)| quote! { (#name, #value.to_owned()) })
        .collect();
    let headers: Vec<_> = at(ParamLocation::Header)
        .map(|(param, owner)| {
            let (label, name) = (&param.label, &param.wire_name);
            let (value, style) = (value_of(param, owner), style_of(param));
            quote! { wire::push_header(&mut headers, #label, #name, #value, #style)?; }
        })
        .collect();
    let cookies: Vec<_> = at(ParamLocation::Cookie)
        .map(|(param, owner)| {
            let (name, value, style) = (&param.wire_name, value_of(param, owner), style_of(param));
            quote! { wire::push_pairs(&mut cookies, #name, #value, #style); }
        })
        .collect();
    let body: Vec<_> = at(ParamLocation::Body)
        .map(|(param, owner)| {
            let (label, name, value) = (&param.label, &param.wire_name, value_of(param, owner));
            match operation.content_type {
                ContentType::Json => quote! { wire::insert_json(&mut body, #name, #value); },
                ContentType::Form => {
                    let style = style_of(param);
                    quote! { wire::push_pairs(&mut body, #name, #value, #style); }
                }
                ContentType::Multipart => {
                    let file = param.is_file();
                    quote! { wire::push_part(&mut body, #label, #name, #value, #file)?; }
                }
                ContentType::OctetStream => {
                    unreachable!("validated: an octet-stream body is its whole-body param alone")
                }
            }
        })
        .collect();
    let list = |name: &str, items: &[TokenStream]| {
        let name = ident(name);
        if items.is_empty() {
            quote! { let #name = Vec::new(); }
        } else {
            quote! { let mut #name = Vec::new(); #(#items)* }
        }
    };
    // The values the operation fixes start their lists; its params follow.
    let fixed_then = |name: &str, fixed: &[TokenStream], items: &[TokenStream]| {
        let name = ident(name);
        match (fixed.is_empty(), items.is_empty()) {
            (true, _) => list(&name.to_string(), items),
            (false, true) => quote! { let #name = vec![#(#fixed),*]; },
            (false, false) => quote! { let mut #name = vec![#(#fixed),*]; #(#items)* },
        }
    };
    let query = fixed_then("query", &fixed_query, &query);
    let headers = fixed_then("headers", &fixed_headers, &headers);
    let cookies = list("cookies", &cookies);
    let (body_init, body_expr) = body_of(operation, at(ParamLocation::WholeBody).next(), &body);
    let doc = format!(
        " Parses `{}` params and builds its upstream request.",
        operation.name
    );
    let parse = if operation.params.is_empty() && operation.input.is_none() {
        quote! { schema_params::#struct_name::from_params(raw)?; }
    } else {
        quote! { let parsed = schema_params::#struct_name::from_params(raw)?; }
    };
    quote! {
        #[doc = #doc]
        fn #build(raw: &Map<String, Value>) -> Result<UpstreamRequest, ParamError> {
            #parse
            let path = #path;
            #query
            #headers
            #cookies
            #body_init
            #(#body)*
            Ok(UpstreamRequest { method: Method::#method, path, query, headers, cookies, body: #body_expr, ..UpstreamRequest::DEFAULT })
        }
    }
}

/// Whether the request builder [`body_of`] writes for `operation` names `Body`: all but one
/// that only hands a raw whole-body param, given or not, to the runtime.
fn names_body(operation: &Operation) -> bool {
    let whole = operation
        .all_params()
        .find(|param| param.placement == ParamLocation::WholeBody);
    match whole {
        Some(param) if operation.content_type == ContentType::OctetStream => {
            param.is_optional() && operation.requires_body
        }
        Some(_) => true,
        None => {
            operation.requires_body
                || operation
                    .all_params()
                    .any(|param| param.placement == ParamLocation::Body)
        }
    }
}

/// The statement that starts the body, and the `Option<Body>` expression of the request: the
/// whole-body param's value, or the body members `members` write. A body the operation
/// requires is sent empty when the caller gives nothing for it.
fn body_of(
    operation: &Operation,
    whole: Option<&(&Param, TokenStream)>,
    members: &[TokenStream],
) -> (TokenStream, TokenStream) {
    let required = operation.requires_body;
    if let Some((param, owner)) = whole {
        // Validated: a whole body is JSON or raw bytes, and the only body param.
        let field = ident(&param.field);
        if operation.content_type == ContentType::OctetStream {
            let (label, binary) = (&param.label, param.is_file());
            let raw = |value: TokenStream| quote! { wire::raw_body(#label, #value, #binary)? };
            let expr = match (param.is_optional(), required) {
                (false, _) => {
                    let body = raw(quote! { Value::from(#owner.#field) });
                    quote! { Some(#body) }
                }
                (true, false) => {
                    let body = raw(quote! { Value::from(value) });
                    quote! { match #owner.#field { Some(value) => Some(#body), None => None } }
                }
                (true, true) => {
                    let body = raw(quote! { Value::from(value) });
                    quote! { Some(match #owner.#field { Some(value) => #body, None => Body::Bytes(Vec::new()) }) }
                }
            };
            return (quote! {}, expr);
        }
        let expr = match (param.is_optional(), required) {
            (false, _) => quote! { Some(Body::Json(Value::from(#owner.#field))) },
            (true, false) => quote! { #owner.#field.map(|value| Body::Json(Value::from(value))) },
            (true, true) => quote! {
                Some(Body::Json(#owner.#field.map_or_else(|| Value::Object(Map::new()), Value::from)))
            },
        };
        return (quote! {}, expr);
    }
    let (start, empty, some, filled) = match operation.content_type {
        ContentType::Json => (
            quote! { let mut body = Map::new(); },
            quote! { Body::Json(Value::Object(Map::new())) },
            quote! { Body::Json(Value::Object(body)) },
            quote! { Body::json(body) },
        ),
        ContentType::Form => (
            quote! { let mut body = Vec::new(); },
            quote! { Body::Form(Vec::new()) },
            quote! { Body::Form(body) },
            quote! { Body::form(body) },
        ),
        ContentType::Multipart => (
            quote! { let mut body = Vec::new(); },
            quote! { Body::Multipart(Vec::new()) },
            quote! { Body::Multipart(body) },
            quote! { Body::multipart(body) },
        ),
        // Validated: raw bytes come only from a whole-body param; without one the body is
        // empty, and sent only when required.
        ContentType::OctetStream => (
            quote! {},
            quote! { Body::Bytes(Vec::new()) },
            quote! { Body::Bytes(Vec::new()) },
            quote! { None },
        ),
    };
    match (members.is_empty(), required) {
        (true, false) => (quote! {}, quote! { None }),
        (true, true) => (quote! {}, quote! { Some(#empty) }),
        (false, false) => (start, filled),
        (false, true) => (start, quote! { Some(#some) }),
    }
}

/// A path param's value, percent-encoded: a scalar in the simple style as its text, else
/// through the runtime's styles.
fn path_piece(param: &Param, content_type: ContentType) -> TokenStream {
    let field = ident(&param.field);
    let name = &param.name;
    if takes_style(param, content_type) {
        let style = style_of(param);
        let value = match param.ty {
            ParamType::String | ParamType::Array | ParamType::Object => {
                quote! { &wire::path_value(#name, Value::from(parsed.#field))? }
            }
            _ => quote! { &Value::from(parsed.#field) },
        };
        return quote! { &wire::path_segment(#name, #value, #style) };
    }
    match param.ty {
        ParamType::String => {
            quote! { &wire::encode_segment(wire::path_text(#name, &parsed.#field)?) }
        }
        _ => quote! { &wire::encode_segment(&parsed.#field.to_string()) },
    }
}

/// Whether the runtime call that writes `param` takes a `Style`: every one but a JSON body
/// member, a multipart part, and a scalar path param in the simple style.
fn takes_style(param: &Param, content_type: ContentType) -> bool {
    match param.placement {
        ParamLocation::Path => {
            param.style != ParamStyle::Simple
                || matches!(param.ty, ParamType::Array | ParamType::Object)
        }
        ParamLocation::Body => content_type == ContentType::Form,
        ParamLocation::WholeBody => false,
        ParamLocation::Query | ParamLocation::Header | ParamLocation::Cookie => true,
    }
}

/// The runtime's `Style` of a param.
fn style_of(param: &Param) -> TokenStream {
    let explode = param.explode;
    match param.style {
        ParamStyle::Simple => quote! { Style::Simple { explode: #explode } },
        ParamStyle::Label => quote! { Style::Label { explode: #explode } },
        ParamStyle::Matrix => quote! { Style::Matrix { explode: #explode } },
        ParamStyle::Form => quote! { Style::Form { explode: #explode } },
        ParamStyle::SpaceDelimited => quote! { Style::SpaceDelimited },
        ParamStyle::PipeDelimited => quote! { Style::PipeDelimited },
        ParamStyle::DeepObject => quote! { Style::DeepObject },
    }
}

/// `Option<Value>` of a parsed field, moving it out of `owner`; `Some(null)` clears.
fn value_of(param: &Param, owner: &TokenStream) -> TokenStream {
    let field = ident(&param.field);
    if param.clearable {
        quote! { #owner.#field.into_body() }
    } else if param.is_optional() {
        quote! { #owner.#field.map(Value::from) }
    } else {
        quote! { Some(Value::from(#owner.#field)) }
    }
}
