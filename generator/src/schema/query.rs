//! The query language's keys (aqlgen additions): an operation's `query` block, a result
//! type's `computed` fields, and the adapter's `relationships`.

use aqlgen_model::{FieldKind, Operator};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ParamType;

/// An operation's `query`: how its collection can be searched, filtered, sorted and
/// aggregated.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    /// The text query `query`: sent in an upstream param, or matched against item fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<TextQuery>,
    /// The query fields, by the name `filter`, `sort` and `aggregate` call them.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub fields: IndexMap<String, QueryField>,
    /// Bounds of a scan over upstream pages for what the upstream cannot do itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scan: Option<Scan>,
}

/// `query.text`: exactly one of `param` and `paths`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TextQuery {
    /// The operation's param the text goes to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// Dot paths of item fields the words are looked for in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
}

/// One query field.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueryField {
    /// Dot path of the field in each item; through an array, every element's. Without it,
    /// the field is only sent upstream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What its values are compared as; from the param it is sent in when left out.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<FieldKind>,
    /// What it means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The values it takes, when they are few.
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Vec<Value>>,
    /// How the upstream filters by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<UpstreamFilter>,
    /// How the upstream sorts by it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<UpstreamSort>,
}

/// `filter` of a query field: the upstream param one operator goes to.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamFilter {
    /// The operation's param.
    pub param: String,
    /// The operator the param applies; `eq` when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operator: Option<Operator>,
}

/// `sort` of a query field: the upstream params that sort by it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSort {
    /// The operation's param that names the sort key.
    pub param: String,
    /// The value it takes for this field; the field's name when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The operation's param that takes the order, if the upstream has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// What the order param says for ascending; `asc` when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asc: Option<String>,
    /// What the order param says for descending; `desc` when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desc: Option<String>,
}

/// `query.scan`: how much one request reads upstream to do what the upstream cannot.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scan {
    /// Upstream pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_pages: Option<u64>,
    /// Items.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// Bytes of upstream answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// Seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_seconds: Option<u64>,
}

/// A computed field of a result type, under `response.computed`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Computed {
    /// The type of its value: `string`, `integer`, `number` or `boolean`.
    #[serde(rename = "type")]
    pub kind: ParamType,
    /// The expression over the item's fields.
    pub expr: String,
    /// What it means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The adapter's `relationships`: the types a relationship query visits and the edges
/// between them.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Relationships {
    /// The deepest query; 3 when left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u64>,
    /// Each type a node can have, by its introspection name.
    pub nodes: IndexMap<String, Node>,
    /// The edges.
    pub edges: Vec<Edge>,
}

/// A node type.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Node {
    /// Its `element_name`: text with `{dot.path}` placeholders of the item's fields, e.g.
    /// `"{owner.login}/{name}"`; a name given as a root is read back through it.
    pub name: String,
    /// The operation that reads one, and its params from the item's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub get: Option<Hop>,
}

/// A call from an item: an operation and each of its params from a dot path of the item.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Hop {
    /// A READ operation of this adapter.
    pub operation: String,
    /// Each param of the operation, by the dot path of the item field it takes.
    #[serde(default)]
    pub params: IndexMap<String, String>,
}

/// An edge type: from a node of one type to nodes of another.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    /// The relationship's type, e.g. `owns`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The source node type.
    pub from: String,
    /// The target node type.
    pub to: String,
    /// The operation that answers the targets of a source (one item or a list), and its
    /// params from the source's fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The forward operation's params, by the dot path of the source field each takes.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub params: IndexMap<String, String>,
    /// The call that answers the sources of a target, for incoming edges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inverse: Option<Hop>,
}
