//! The result types of a schema, gathered from every operation that names one: the fields and
//! computed fields each is described with, and the type of each operation's items. Validation
//! and lowering both read a type's description from here, so an operation that returns a type
//! without describing it gets the description given elsewhere.

use std::collections::BTreeMap;

use indexmap::IndexMap;

use super::query::Computed;
use super::{AdapterSchema, Operation, ParamType, ResponseField};
use crate::computed;
use crate::ident;

/// What the schema says of one type, as first described.
#[derive(Debug, Default)]
pub struct TypeFacts<'a> {
    /// Its members, from the first `response.fields` describing it.
    pub fields: Option<&'a IndexMap<String, ResponseField>>,
    /// Its computed fields, from the first `response.computed` describing it, and where.
    pub computed: Option<(&'a IndexMap<String, Computed>, String)>,
}

/// Every result type of a schema.
#[derive(Debug, Default)]
pub struct Types<'a> {
    types: BTreeMap<String, TypeFacts<'a>>,
}

impl<'a> Types<'a> {
    /// The types of `schema`, each with its first description.
    pub fn of(schema: &'a AdapterSchema) -> Self {
        let mut types = Self::default();
        for (category, list) in schema.operations.families() {
            for (index, operation) in list.iter().enumerate() {
                let Some(response) = &operation.response else {
                    continue;
                };
                let facts = types.types.entry(returns(operation)).or_default();
                if facts.fields.is_none() {
                    facts.fields = response.fields.as_ref();
                }
                if facts.computed.is_none()
                    && let Some(computed) = &response.computed
                {
                    let at = format!("operations.{category}[{index}].response.computed");
                    facts.computed = Some((computed, at));
                }
            }
        }
        types
    }

    /// What is known of type `name`.
    pub fn get(&self, name: &str) -> Option<&TypeFacts<'a>> {
        self.types.get(name)
    }

    /// Whether some operation returns type `name`, or lists items of it.
    pub fn is_known(&self, name: &str, schema: &AdapterSchema) -> bool {
        self.types.contains_key(name)
            || schema
                .operations
                .families()
                .iter()
                .flat_map(|(_, list)| list.iter())
                .any(|operation| item_type(operation) == Some(name))
    }

    /// The computed fields of type `name`.
    pub fn computed(&self, name: &str) -> Option<&'a IndexMap<String, Computed>> {
        self.get(name)
            .and_then(|facts| facts.computed.as_ref())
            .map(|(computed, _)| *computed)
    }

    /// The fields of type `name`, for compiling its computed fields.
    pub fn fields_of(&self, name: &str) -> DeclaredFields<'a> {
        DeclaredFields(self.get(name).and_then(|facts| facts.fields))
    }
}

/// The declared fields of one type, as computed-field expressions see them.
#[derive(Debug, Clone, Copy)]
pub struct DeclaredFields<'a>(Option<&'a IndexMap<String, ResponseField>>);

impl DeclaredFields<'_> {
    /// The declared type of the top-level member `name`.
    pub fn kind(&self, name: &str) -> Option<ParamType> {
        self.0
            .and_then(|fields| fields.get(name))
            .map(|field| field.kind)
    }

    /// The declared member names; empty when the type declares none (and then no name is
    /// checked against them).
    pub fn names(&self) -> Vec<&str> {
        self.0
            .map(|fields| fields.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }
}

impl computed::Fields for DeclaredFields<'_> {
    fn kind_of(&self, name: &str) -> Option<ParamType> {
        self.kind(name)
    }

    fn names(&self) -> Vec<String> {
        DeclaredFields::names(self)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }
}

/// The introspection name of the type `operation` returns.
pub fn returns(operation: &Operation) -> String {
    let declared = operation.response.as_ref().and_then(|r| r.kind.as_deref());
    ident::returns_type_name(&operation.name, declared)
}

/// The type of each item of `operation`'s answer, when it says it answers a list of them.
pub fn item_type(operation: &Operation) -> Option<&str> {
    operation.response.as_ref()?.items.as_deref()
}

/// The type whose fields and computed fields the items of `operation`'s answer have: the item
/// type of a list, else the answer's own type.
pub fn subject_type(operation: &Operation) -> String {
    item_type(operation).map_or_else(|| returns(operation), str::to_owned)
}
