//! `routes.rs`: one static `Route` per operation, its request builder, and `route()`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{doc_lines, variant};
use crate::ident::ident;
use crate::ir::{Adapter, Operation, PageStyle, Param, ParamType, PathSegment, Placement};

/// The items of `routes.rs`.
pub fn emit_routes(adapter: &Adapter) -> Vec<TokenStream> {
    // `params::` helpers place values in the request; an adapter whose operations take no
    // params at all has nothing to place.
    let helpers = adapter
        .operations
        .iter()
        .any(|operation| !operation.params.is_empty() || operation.input.is_some())
        .then(|| quote! { self, });
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
    let mut items = vec![quote! {
        use ::aqlgen_runtime::adapter::{Category, DangerLevel, #features #shaping Method, #paging Route, UpstreamRequest};
        use ::aqlgen_runtime::params::{#helpers ParamError};
        use ::aqlgen_runtime::serde_json::{Map, Value};

        use super::params as schema_params;
    }];
    for operation in &adapter.operations {
        items.push(emit_route(operation));
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

fn emit_route(operation: &Operation) -> TokenStream {
    let name = &operation.name;
    let doc = doc_lines(&format!(
        "`{name}`: {} `{}`.",
        operation.method.as_str(),
        operation.path_template
    ));
    let static_name = ident(&operation.route_static);
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
            quote! { Some(&FieldSelection { presets: &[#(#presets),*], default: Preset::#default }) }
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
            quote! { Some(&Paging { style: #style, default_limit: #default_limit, max_limit: #max_limit }) }
        }
        None => quote! { None },
    };
    quote! {
        #doc
        pub static #static_name: Route = Route {
            operation: #name,
            description: #description,
            category: Category::#category,
            danger_level: DangerLevel::#danger,
            requires_confirmation: #requires_confirmation,
            build: #build,
            features: &[#(#features),*],
            fields: #fields,
            paging: #paging,
        };
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
                let param = &operation.params[*index];
                let field = ident(&param.field);
                match param.ty {
                    ParamType::String => quote! { &params::encode_segment(&parsed.#field) },
                    _ => quote! { &params::encode_segment(&parsed.#field.to_string()) },
                }
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
    let query: Vec<_> = placed
        .iter()
        .filter(|(param, _)| param.placement == Placement::Query)
        .map(|(param, owner)| {
            let (name, value) = (&param.name, value_of(param, owner));
            quote! { params::push_query(&mut query, #name, #value); }
        })
        .collect();
    let body: Vec<_> = placed
        .iter()
        .filter(|(param, _)| param.placement == Placement::Body)
        .map(|(param, owner)| {
            let (name, value) = (&param.name, value_of(param, owner));
            quote! { params::insert_body(&mut body, #name, #value); }
        })
        .collect();
    let query_init = if query.is_empty() {
        quote! { let query = Vec::new(); }
    } else {
        quote! { let mut query = Vec::new(); }
    };
    let body_expr = if body.is_empty() {
        quote! { None }
    } else {
        quote! { params::body(body) }
    };
    let body_init = (!body.is_empty()).then(|| quote! { let mut body = Map::new(); });
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
            #query_init
            #(#query)*
            #body_init
            #(#body)*
            Ok(UpstreamRequest { method: Method::#method, path, query, body: #body_expr })
        }
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
