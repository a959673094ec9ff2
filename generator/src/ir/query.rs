//! The query language, lowered: each operation's query fields with their upstream mappings and
//! scan bounds, the computed fields of the items it answers, and the adapter's relationship
//! graph.

use aqlgen_model::{FieldKind, Operator};
use serde_json::Value;

use super::{ParamType, described};
use crate::computed;
use crate::ident;
use crate::schema::query::{Hop as HopSpec, Relationships};
use crate::schema::types::{self, Types};
use crate::schema::{self, AdapterSchema};
use crate::validate::query::{field_kind, scan_bounds, template_placeholders};

/// How an operation's collection is queried.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryPlan {
    /// The text query, if any.
    pub text: Option<TextPlan>,
    /// The query fields, in schema order; the item type's computed fields follow as
    /// `_computed.<name>`.
    pub fields: Vec<QueryField>,
    /// Scan bounds: pages, items, bytes, seconds.
    pub scan: [u64; 4],
    /// The introspection type of `filter`: `ListIssuesFilter`.
    pub filter_type: String,
    /// The introspection type of `sort`: `ListIssuesSort`.
    pub sort_type: String,
}

/// Where the text query goes.
#[derive(Debug, Clone, PartialEq)]
pub enum TextPlan {
    /// Into this param of the operation; `query` is required when the param is.
    Param {
        /// The param.
        name: String,
        /// Whether it is required.
        required: bool,
    },
    /// Matched against these item fields, each a dot path.
    Paths(Vec<String>),
}

/// One query field.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryField {
    /// Its name in `filter`, `sort` and `aggregate`.
    pub name: String,
    /// Its dot path in each item, when it can be evaluated here.
    pub path: Option<String>,
    /// What its values are compared as.
    pub kind: FieldKind,
    /// What it means; may be empty.
    pub description: String,
    /// The values it takes, when the schema lists them.
    pub allowed: Vec<Value>,
    /// The upstream param one operator goes to.
    pub filter: Option<UpstreamFilter>,
    /// The upstream params that sort by it.
    pub sort: Option<UpstreamSort>,
}

/// A filter the upstream does.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamFilter {
    /// The operation's param.
    pub param: String,
    /// The operator it applies.
    pub operator: Operator,
    /// The param's type: a list goes to a string param joined with commas.
    pub param_type: ParamType,
}

/// A sort the upstream does.
#[derive(Debug, Clone, PartialEq)]
pub struct UpstreamSort {
    /// The param naming the key.
    pub param: String,
    /// Its value for this field.
    pub value: String,
    /// The param taking the order, with its values for ascending and descending.
    pub order: Option<(String, String, String)>,
}

/// A computed field of the items an operation answers.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputedField {
    /// Its name, under `_computed`.
    pub name: String,
    /// Its type.
    pub kind: ParamType,
    /// The expression, as written.
    pub source: String,
    /// The expression compiled: Rust over `item` and `now`, as text.
    pub code: String,
    /// What it means; may be empty.
    pub description: String,
    /// The function that computes it: `issue_age_days`.
    pub fn_name: String,
}

impl ComputedField {
    /// Its query-field kind.
    pub fn field_kind(&self) -> FieldKind {
        match self.kind {
            ParamType::Integer => FieldKind::Integer,
            ParamType::Number => FieldKind::Number,
            ParamType::Boolean => FieldKind::Boolean,
            _ => FieldKind::String,
        }
    }
}

/// The adapter's relationship graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// The deepest query.
    pub max_depth: u64,
    /// Node types.
    pub nodes: Vec<Node>,
    /// Edge types.
    pub edges: Vec<Edge>,
}

/// A node type.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Its type name.
    pub name: String,
    /// Its name template: text and dot paths.
    pub template: Vec<NamePiece>,
    /// How one is read by its name's fields.
    pub get: Option<Hop>,
}

/// A piece of a node name template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamePiece {
    /// Text as written.
    Text(String),
    /// A field's value, by dot path.
    Field(String),
}

/// A call from an item.
#[derive(Debug, Clone, PartialEq)]
pub struct Hop {
    /// The operation.
    pub operation: String,
    /// Each param by the dot path of the item field it takes.
    pub params: Vec<(String, String)>,
}

/// An edge type.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Its relationship type.
    pub kind: String,
    /// Index of the source node type.
    pub from: usize,
    /// Index of the target node type.
    pub to: usize,
    /// From a source to its targets.
    pub forward: Option<Hop>,
    /// From a target back to its sources.
    pub inverse: Option<Hop>,
}

/// The lowered `query` of a valid operation.
pub fn lower_query(operation: &schema::Operation, types: &Types<'_>) -> Option<QueryPlan> {
    let query = operation.query.as_ref()?;
    let subject = types::subject_type(operation);
    let fields = types.fields_of(&subject);
    let text = query
        .text
        .as_ref()
        .map(|text| match (&text.param, &text.paths) {
            (Some(param), _) => TextPlan::Param {
                name: param.clone(),
                required: operation
                    .params
                    .get(param)
                    .is_some_and(|param| param.required == Some(true)),
            },
            (None, paths) => TextPlan::Paths(paths.clone().unwrap_or_default()),
        });
    let fields = query
        .fields
        .iter()
        .map(|(name, field)| QueryField {
            name: name.clone(),
            path: field.path.clone(),
            // Validation knows the kind of every key but those only the API sorts by.
            kind: field_kind(field, operation, fields).unwrap_or(FieldKind::String),
            description: described(field.description.as_deref()),
            allowed: field.allowed.clone().unwrap_or_default(),
            filter: field.filter.as_ref().map(|filter| UpstreamFilter {
                param: filter.param.clone(),
                operator: filter.operator.unwrap_or(Operator::Eq),
                param_type: operation.params[&filter.param].kind,
            }),
            sort: field.sort.as_ref().map(|sort| UpstreamSort {
                param: sort.param.clone(),
                value: sort.value.clone().unwrap_or_else(|| name.clone()),
                order: sort.order.as_ref().map(|order| {
                    (
                        order.clone(),
                        sort.asc.clone().unwrap_or_else(|| "asc".to_owned()),
                        sort.desc.clone().unwrap_or_else(|| "desc".to_owned()),
                    )
                }),
            }),
        })
        .collect();
    Some(QueryPlan {
        text,
        fields,
        scan: scan_bounds(query),
        filter_type: ident::type_name(&operation.name, "Filter"),
        sort_type: ident::type_name(&operation.name, "Sort"),
    })
}

/// The computed fields of the items `operation` answers.
pub fn lower_computed(operation: &schema::Operation, types: &Types<'_>) -> Vec<ComputedField> {
    let subject = types::subject_type(operation);
    let Some(computed) = types.computed(&subject) else {
        return Vec::new();
    };
    computed
        .iter()
        .map(|(name, field)| {
            let expr = computed::parse(&field.expr).expect("validated: the expression parses");
            let code = computed::compile(&expr, field.kind, &types.fields_of(&subject))
                .expect("validated: the expression compiles");
            ComputedField {
                name: name.clone(),
                kind: field.kind,
                source: field.expr.clone(),
                code: code.to_string(),
                description: described(field.description.as_deref()),
                fn_name: format!("{}_{name}", subject_snake(&subject)),
            }
        })
        .collect()
}

fn subject_snake(type_name: &str) -> String {
    use heck::ToSnakeCase;
    type_name.to_snake_case()
}

/// The declared field names of the items `operation` answers, which `fields` is checked
/// against; empty when its type declares none.
pub fn known_fields(operation: &schema::Operation, types: &Types<'_>) -> Vec<String> {
    types
        .fields_of(&types::subject_type(operation))
        .names()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The lowered `relationships` of a valid schema.
pub fn lower_graph(schema: &AdapterSchema) -> Option<Graph> {
    let relationships: &Relationships = schema.relationships.as_ref()?;
    let index = |name: &str| {
        relationships
            .nodes
            .get_index_of(name)
            .expect("validated: edges name node types")
    };
    let hop = |hop: &HopSpec| Hop {
        operation: hop.operation.clone(),
        params: hop
            .params
            .iter()
            .map(|(param, path)| (param.clone(), path.clone()))
            .collect(),
    };
    Some(Graph {
        max_depth: relationships
            .max_depth
            .unwrap_or(aqlgen_model::DEFAULT_MAX_DEPTH),
        nodes: relationships
            .nodes
            .iter()
            .map(|(name, node)| Node {
                name: name.clone(),
                template: name_pieces(&node.name),
                get: node.get.as_ref().map(hop),
            })
            .collect(),
        edges: relationships
            .edges
            .iter()
            .map(|edge| Edge {
                kind: edge.kind.clone(),
                from: index(&edge.from),
                to: index(&edge.to),
                forward: edge.operation.as_ref().map(|operation| Hop {
                    operation: operation.clone(),
                    params: edge
                        .params
                        .iter()
                        .map(|(param, path)| (param.clone(), path.clone()))
                        .collect(),
                }),
                inverse: edge.inverse.as_ref().map(hop),
            })
            .collect(),
    })
}

/// A valid name template in pieces.
fn name_pieces(template: &str) -> Vec<NamePiece> {
    let fields = template_placeholders(template).expect("validated: the template reads back");
    let mut pieces = Vec::new();
    let mut rest = template;
    for field in fields {
        let open = rest.find('{').expect("a placeholder follows");
        if open > 0 {
            pieces.push(NamePiece::Text(rest[..open].to_owned()));
        }
        pieces.push(NamePiece::Field(field.to_owned()));
        rest = &rest[open + field.len() + 2..];
    }
    if !rest.is_empty() {
        pieces.push(NamePiece::Text(rest.to_owned()));
    }
    pieces
}
