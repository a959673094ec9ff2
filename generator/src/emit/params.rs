//! `params.rs`: one struct per operation, and its `from_params`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use super::doc_lines;
use crate::ident::ident;
use crate::ir::{Adapter, Operation, Param, ParamType};

/// The items of `params.rs`.
pub fn emit_params(adapter: &Adapter) -> Vec<TokenStream> {
    let pattern = adapter.uses_patterns().then(|| quote! { , Pattern });
    let format = adapter.uses_formats().then(|| quote! { , StringFormat });
    let mut items = vec![quote! {
        use ::aqlgen_runtime::params::{self, ParamError #pattern #format};
        use ::aqlgen_runtime::serde_json::{Map, Value};
    }];
    for operation in &adapter.operations {
        items.extend(emit_operation(operation));
    }
    items
}

/// The Rust type of a param's field, before any `Option`.
pub fn rust_type(ty: ParamType) -> TokenStream {
    match ty {
        ParamType::String => quote! { String },
        ParamType::Integer => quote! { i64 },
        ParamType::Number => quote! { f64 },
        ParamType::Boolean => quote! { bool },
        ParamType::Array => quote! { Vec<Value> },
        ParamType::Object => quote! { Map<String, Value> },
    }
}

fn field_type(param: &Param) -> TokenStream {
    let ty = rust_type(param.ty);
    if param.clearable {
        quote! { params::Patch<#ty> }
    } else if param.is_optional() {
        quote! { Option<#ty> }
    } else {
        ty
    }
}

fn field_doc(param: &Param) -> TokenStream {
    let mut text = if param.description.is_empty() {
        format!("`{}`.", param.name)
    } else {
        param.description.clone()
    };
    if let Some(default) = param.filled_default() {
        text.push_str(&format!("\n\nDefault: `{default}`."));
    }
    if let Some(note) = param.upstream_default_note() {
        text.push_str(&format!("\n\n{note}"));
    }
    doc_lines(&text)
}

fn emit_operation(operation: &Operation) -> Vec<TokenStream> {
    let struct_name = ident(&operation.struct_name);
    let summary = if operation.description.is_empty() {
        format!("Params of `{}`.", operation.name)
    } else {
        operation.described()
    };
    let doc = doc_lines(&format!(
        "{summary}\n\nOperation `{}` ({}): sends `{} {}`.",
        operation.name,
        operation.category.family(),
        operation.method.as_str(),
        operation.path_template
    ));
    let fields = operation.params.iter().map(|param| {
        let (doc, field, ty) = (field_doc(param), ident(&param.field), field_type(param));
        quote! { #doc pub #field: #ty, }
    });
    let input_field = operation.input.as_ref().map(|input| {
        let ty = ident(&input.struct_name);
        quote! {
            /// The fields to change: those left out are not sent, those set to `null` are
            /// sent as `null`.
            pub input: #ty,
        }
    });
    let names = operation.top_level_names();
    let name_doc = format!(
        " Parameter names `{}` accepts, in schema order.",
        operation.name
    );
    let wire = &operation.name;
    let raw = ident(&operation.raw_arg);
    let body = emit_parsing(&operation.params, &operation.requires_one_of, &raw);
    let input_parse = operation.input.as_ref().map(|input| {
        let ty = ident(&input.struct_name);
        quote! {
            let input = #ty::from_input(&params::required::<Map<String, Value>>(#raw, "input")?)?;
        }
    });
    let require_input = operation
        .input
        .as_ref()
        .map(|_| quote! { params::require(#raw, "input", "object")?; });
    let field_names = operation.params.iter().map(|param| ident(&param.field));
    let input_name = operation.input.as_ref().map(|_| quote! { input });
    let mut items = vec![quote! {
        #doc
        #[derive(Debug, Clone, PartialEq)]
        pub struct #struct_name {
            #(#fields)*
            #input_field
        }
    }];
    let raw_doc =
        format!(" Checks `{raw}` against the schema (unknown, missing, types, constraints, then");
    let hidden: Vec<&str> = operation
        .params
        .iter()
        .filter(|param| param.hidden)
        .map(|param| param.name.as_str())
        .collect();
    let (sent, reject) = if hidden.is_empty() {
        (
            quote! {},
            quote! { params::reject_unknown(#wire, #raw, Self::NAMES)?; },
        )
    } else {
        (
            quote! {
                /// The params its query sends from `query`, `filter` and `sort`, which callers
                /// do not give.
                pub const SENT_BY_QUERY: &'static [&'static str] = &[#(#hidden),*];
            },
            quote! { params::reject_unknown_but(#wire, #raw, Self::NAMES, Self::SENT_BY_QUERY)?; },
        )
    };
    items.push(quote! {
        impl #struct_name {
            #[doc = #name_doc]
            pub const NAMES: &'static [&'static str] = &[#(#names),*];
            #sent

            #[doc = #raw_doc]
            /// defaults) and returns the typed params.
            ///
            /// # Errors
            ///
            /// The first failing check, as the client will see it.
            pub fn from_params(#raw: &Map<String, Value>) -> Result<Self, ParamError> {
                #reject
                #require_input
                #body
                #input_parse
                Ok(Self { #(#field_names,)* #input_name })
            }
        }
    });
    if let Some(input) = &operation.input {
        let ty = ident(&input.struct_name);
        let doc = doc_lines(&format!(
            "The `input` object of `{}`: the fields it may change (SPEC §4.5).",
            operation.name
        ));
        let fields = input.fields.iter().map(|param| {
            let (doc, field, ty) = (field_doc(param), ident(&param.field), field_type(param));
            quote! { #doc pub #field: #ty, }
        });
        let names: Vec<&str> = input.fields.iter().map(|p| p.name.as_str()).collect();
        let input_arg = format_ident!("input");
        let body = emit_parsing(&input.fields, &operation.requires_one_of, &input_arg);
        let field_names = input.fields.iter().map(|param| ident(&param.field));
        items.push(quote! {
            #doc
            #[derive(Debug, Clone, PartialEq)]
            pub struct #ty {
                #(#fields)*
            }
        });
        items.push(quote! {
            impl #ty {
                /// Field names `input` accepts, in schema order.
                pub const NAMES: &'static [&'static str] = &[#(#names),*];

                fn from_input(input: &Map<String, Value>) -> Result<Self, ParamError> {
                    params::reject_unknown_fields(#wire, input, Self::NAMES)?;
                    #body
                    Ok(Self { #(#field_names),* })
                }
            }
        });
    }
    items
}

/// Straight-line checks over the map `map`: missing (a required param, then a whole set of
/// those `one_of` names among `fields`), types, constraints, defaults. Every read of `map`
/// comes before the first local named after a field, so a field called like the map cannot
/// shadow it.
fn emit_parsing(fields: &[Param], one_of: &[Vec<String>], map: &proc_macro2::Ident) -> TokenStream {
    let missing = fields.iter().filter(|param| param.required).map(|param| {
        let (label, expected) = (&param.label, param.ty.as_str());
        quote! { params::require(#map, #label, #expected)?; }
    });
    let label_of = |name: &String| {
        fields
            .iter()
            .find(|param| param.name == *name)
            .map(|param| param.label.as_str())
    };
    // Validated: the sets' names are all among these fields, or none is.
    let sets: Option<Vec<Vec<&str>>> = one_of
        .iter()
        .map(|set| set.iter().map(label_of).collect())
        .collect();
    let alternatives = sets.filter(|sets| !sets.is_empty()).map(|sets| {
        let sets = sets.iter().map(|set| quote! { &[#(#set),*] });
        quote! { params::require_one_of(#map, &[#(#sets),*])?; }
    });
    let types = fields.iter().map(|param| {
        let (field, label, ty) = (ident(&param.field), &param.label, rust_type(param.ty));
        if param.required {
            quote! { let #field = params::required::<#ty>(#map, #label)?; }
        } else if param.clearable {
            quote! { let #field = params::patch::<#ty>(#map, #label)?; }
        } else {
            quote! { let #field = params::optional::<#ty>(#map, #label)?; }
        }
    });
    let constraints = fields.iter().map(emit_constraints);
    let defaults = fields.iter().filter_map(|param| {
        let default = param.filled_default()?;
        let field = ident(&param.field);
        Some(match default {
            Value::String(text) => {
                quote! { let #field = #field.unwrap_or_else(|| #text.to_owned()); }
            }
            Value::Bool(flag) => quote! { let #field = #field.unwrap_or(#flag); },
            number => {
                let value = literal(param.ty, number);
                quote! { let #field = #field.unwrap_or(#value); }
            }
        })
    });
    quote! { #(#missing)* #alternatives #(#types)* #(#constraints)* #(#defaults)* }
}

fn emit_constraints(param: &Param) -> TokenStream {
    let (field, label) = (ident(&param.field), &param.label);
    let borrowed = match (param.ty, param.required) {
        (ParamType::String, _) if param.clearable => {
            quote! { #field.value().map(String::as_str) }
        }
        (_, _) if param.clearable => quote! { #field.value().copied() },
        (ParamType::String, true) => quote! { Some(#field.as_str()) },
        (ParamType::String, false) => quote! { #field.as_deref() },
        (_, true) => quote! { Some(#field) },
        (_, false) => quote! { #field },
    };
    let mut checks = Vec::new();
    if !param.allowed.is_empty() {
        let allowed = param.allowed.iter().map(|value| literal(param.ty, value));
        checks.push(quote! { params::one_of(#label, #borrowed, &[#(#allowed),*])?; });
    }
    for (bound, check) in [
        (param.minimum, quote! { at_least }),
        (param.maximum, quote! { at_most }),
    ] {
        if let Some(bound) = bound {
            let bound = literal(param.ty, &Value::from(bound));
            checks.push(quote! { params::#check(#label, #borrowed, #bound)?; });
        }
    }
    let (min, max) = param.lengths;
    if min.is_some() || max.is_some() {
        let bound = |bound: Option<u64>| match bound.map(Literal::u64_unsuffixed) {
            Some(bound) => quote! { Some(#bound) },
            None => quote! { None },
        };
        let (min, max) = (bound(min), bound(max));
        checks.push(quote! { params::length_within(#label, #borrowed, #min, #max)?; });
    }
    if let Some(pattern) = &param.pattern {
        // The regex lives in the function that checks it, so two operations (or a param and
        // an `input` field) with the same name never declare the same item.
        let name = format_ident!(
            "{}_PATTERN",
            param.field.trim_start_matches("r#").to_uppercase()
        );
        checks.push(quote! {
            static #name: Pattern = Pattern::new(#pattern);
            params::matching(#label, #borrowed, &#name)?;
        });
    }
    if let Some(format) = param.checked_format {
        let variant = format_ident!("{}", format!("{format:?}"));
        checks.push(quote! {
            params::formatted(#label, #borrowed, StringFormat::#variant)?;
        });
    }
    quote! { #(#checks)* }
}

/// A schema value as an unsuffixed literal of the param's Rust type.
fn literal(ty: ParamType, value: &Value) -> TokenStream {
    match ty {
        ParamType::Integer => {
            let number = value
                .as_i64()
                .or_else(|| value.as_f64().map(|number| number as i64))
                .expect("validated: integer values are whole and in range");
            let literal = Literal::i64_unsuffixed(number);
            quote! { #literal }
        }
        ParamType::Number => {
            let number = value.as_f64().expect("validated: numeric");
            let literal = Literal::f64_unsuffixed(number);
            quote! { #literal }
        }
        _ => {
            let text = value
                .as_str()
                .expect("validated: enum values match the type");
            quote! { #text }
        }
    }
}
