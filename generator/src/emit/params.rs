//! `params.rs`: one struct per operation, and its `from_params`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::doc_lines;
use crate::ident::ident;
use crate::ir::{Adapter, Operation, Param, ParamType};

/// The items of `params.rs`.
pub fn emit_params(adapter: &Adapter) -> Vec<TokenStream> {
    let regex = adapter
        .uses_patterns()
        .then(|| quote! { use ::std::sync::LazyLock; use ::regex::Regex; });
    let mut items = vec![quote! {
        use ::runtime_support::params::{self, ParamError};
        use ::serde_json::{Map, Value};
        #regex
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
    if param.is_optional() {
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
    if let Some(default) = &param.default {
        text.push_str(&format!("\n\nDefault: `{default}`."));
    }
    doc_lines(&text)
}

fn emit_operation(operation: &Operation) -> Vec<TokenStream> {
    let struct_name = ident(&operation.struct_name);
    let summary = if operation.description.is_empty() {
        format!("Params of `{}`.", operation.name)
    } else {
        operation.description.clone()
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
            /// The fields to change; only the fields given are sent.
            pub input: #ty,
        }
    });
    let names = operation.top_level_names();
    let name_doc = format!(
        " Parameter names `{}` accepts, in schema order.",
        operation.name
    );
    let wire = &operation.name;
    let body = emit_parsing(&operation.params, quote! { raw });
    let input_parse = operation.input.as_ref().map(|input| {
        let ty = ident(&input.struct_name);
        quote! {
            let input = #ty::from_input(&params::required::<Map<String, Value>>(raw, "input")?)?;
        }
    });
    let require_input = operation.input.as_ref().map(|_| {
        quote! { params::require(raw, "input", "object", "The fields to change.")?; }
    });
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
    items.push(quote! {
        impl #struct_name {
            #[doc = #name_doc]
            pub const NAMES: &'static [&'static str] = &[#(#names),*];

            /// Checks `raw` against the schema (unknown, missing, types, constraints, then
            /// defaults) and returns the typed params.
            ///
            /// # Errors
            ///
            /// The first failing check, as the client will see it.
            pub fn from_params(raw: &Map<String, Value>) -> Result<Self, ParamError> {
                params::reject_unknown(#wire, raw, Self::NAMES)?;
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
        let body = emit_parsing(&input.fields, quote! { input });
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
    items.extend(operation.all_params().filter_map(emit_pattern_static));
    items
}

fn pattern_static(param: &Param) -> proc_macro2::Ident {
    format_ident!("{}_PATTERN", param.label.replace('.', "_").to_uppercase())
}

fn emit_pattern_static(param: &Param) -> Option<TokenStream> {
    let pattern = param.pattern.as_ref()?;
    let name = pattern_static(param);
    let doc = format!(" The `pattern` of `{}`.", param.label);
    Some(quote! {
        #[doc = #doc]
        static #name: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(#pattern).expect("validated: the pattern compiles"));
    })
}

/// Straight-line checks over `map`: missing, types, constraints, defaults.
fn emit_parsing(fields: &[Param], map: TokenStream) -> TokenStream {
    let missing = fields.iter().filter(|param| param.required).map(|param| {
        let (label, expected, description) = (&param.label, param.ty.as_str(), &param.description);
        quote! { params::require(#map, #label, #expected, #description)?; }
    });
    let types = fields.iter().map(|param| {
        let (field, label, ty) = (ident(&param.field), &param.label, rust_type(param.ty));
        if param.required {
            quote! { let #field = params::required::<#ty>(#map, #label)?; }
        } else {
            quote! { let #field = params::optional::<#ty>(#map, #label)?; }
        }
    });
    let constraints = fields.iter().map(emit_constraints);
    let defaults = fields.iter().filter_map(|param| {
        let default = param.default.as_ref()?;
        let field = ident(&param.field);
        Some(match default {
            Value::String(text) => {
                quote! { let #field = #field.unwrap_or_else(|| #text.to_owned()); }
            }
            Value::Bool(flag) => quote! { let #field = #field.unwrap_or(#flag); },
            Value::Number(number) if param.ty == ParamType::Integer => {
                let value = number.as_i64().expect("validated: integer default");
                quote! { let #field = #field.unwrap_or(#value); }
            }
            Value::Number(number) => {
                let value = number.as_f64().expect("validated: number default");
                quote! { let #field = #field.unwrap_or(#value); }
            }
            _ => unreachable!("validated: array and object defaults are refused"),
        })
    });
    quote! { #(#missing)* #(#types)* #(#constraints)* #(#defaults)* }
}

fn emit_constraints(param: &Param) -> TokenStream {
    let (field, label) = (ident(&param.field), &param.label);
    let borrowed = match (param.ty, param.required) {
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
    if let Some(pattern) = &param.pattern {
        let name = pattern_static(param);
        checks.push(
            quote! { params::matching(#label, #borrowed, #pattern, |text| #name.is_match(text))?; },
        );
    }
    quote! { #(#checks)* }
}

/// A schema value as a literal of the param's Rust type.
fn literal(ty: ParamType, value: &Value) -> TokenStream {
    match ty {
        ParamType::Integer => {
            let number = value.as_f64().expect("validated: numeric") as i64;
            quote! { #number }
        }
        ParamType::Number => {
            let number = value.as_f64().expect("validated: numeric");
            quote! { #number }
        }
        _ => {
            let text = value
                .as_str()
                .expect("validated: enum values match the type");
            quote! { #text }
        }
    }
}
