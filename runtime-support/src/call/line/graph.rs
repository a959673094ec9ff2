//! `query_relationships` (relationship-queries): from a root node, follow the schema's edges
//! outward, inward or both, to a depth, each hop a call of a READ operation along the line
//! (the gate, limits and cache apply to it like any other call). A node seen before is linked
//! again but not expanded (cycles end there), and the operator's bounds on nodes and calls
//! stop the walk with what it found and a warning.

use std::collections::{HashSet, VecDeque};

use serde_json::{Map, Value, json};

use super::Line;
use crate::adapter::{Direction, EdgeType, Graph, GraphSection, Hop, NamePiece, NodeType, Route};
use crate::call::query::invalid;
use crate::call::{Context, Observer};
use crate::error::{AqlError, ErrorCode};
use crate::params::wrong_type;
use crate::text::shorten;
use crate::warning::{Severity, Warning};
use aqlgen_model::{FeatureParam, QUERY_RELATIONSHIPS, Vocabulary};

/// The params `query_relationships` takes.
pub const PARAMS: &[&str] = &[
    "root",
    "direction",
    "relationship",
    "depth",
    "include",
    "first",
];
/// Targets taken from one list answer when the request gives no `first`.
const DEFAULT_FANOUT: u64 = 25;
/// Largest `first`.
const MAX_FANOUT: u64 = 100;

/// What `query_relationships` says of itself in introspection: `(summary, details)`.
pub fn introspection(graph: &Graph, tool: &str) -> (Value, Value) {
    let description = "Follow relationships between items from a root: which items a root leads to (outgoing), which lead to it (incoming), or both, to a depth. Answers 'root', 'relationships' (each edge's type, direction, target and depth) and 'graph' ('nodes' with id, element_type, element_name; 'edges' with source, target, type). A node reached twice is linked but not followed again, so cycles end.";
    let types: Vec<&str> = graph.nodes.iter().map(|node| node.name).collect();
    let mut kinds: Vec<&str> = graph.edges.iter().map(|edge| edge.kind).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let names: Vec<String> = graph
        .nodes
        .iter()
        .map(|node| format!("{} ({})", node.name, template_text(node.template)))
        .collect();
    let edges: Vec<String> = graph
        .edges
        .iter()
        .map(|edge| {
            format!(
                "{} -{}-> {}",
                graph.nodes[edge.from].name, edge.kind, graph.nodes[edge.to].name
            )
        })
        .collect();
    let summary = json!({
        "name": QUERY_RELATIONSHIPS,
        "semantic_category": "READ",
        "endpoint": "read",
        "description": description,
    });
    let details = json!({
        "mcpTool": tool,
        "name": QUERY_RELATIONSHIPS,
        "semantic_category": "READ",
        "endpoint": "read",
        "description": format!("{description} Edges: {}.", edges.join(", ")),
        "permissions": {"readOnly": true, "destructive": false},
        "parameters": [
            {"name": "root", "type": "object", "required": true,
             "description": format!("The start: {{element_type, element_name}}; element_type one of {}, element_name written as {}.", types.join(", "), names.join(", "))},
            {"name": "direction", "type": "string", "required": true, "enum": <Direction as Vocabulary>::NAMES,
             "description": "outgoing: the items the root leads to; incoming: the items leading to it; both."},
            {"name": "relationship", "type": "string", "required": false, "enum": kinds,
             "description": "Follow only edges of this type."},
            {"name": "depth", "type": "integer", "required": false, "minimum": 1, "maximum": graph.max_depth, "default": 1,
             "description": "How many edges away from the root to go."},
            {"name": "include", "type": "array", "required": false, "items": {"type": "string", "enum": <GraphSection as Vocabulary>::NAMES},
             "description": "The sections to answer; all by default. 'root' is always answered."},
            {"name": "first", "type": "integer", "required": false, "minimum": 1, "maximum": MAX_FANOUT, "default": DEFAULT_FANOUT,
             "description": "Most targets taken from one list each hop answers."}
        ],
        "returns": {"name": "OperationResult", "kind": "union"},
        "relationship_capabilities": {
            "supported": true,
            "directions": <Direction as Vocabulary>::NAMES,
            "relationship_types": kinds,
            "max_depth": graph.max_depth,
        },
        "examples": [{
            "description": "The items the root leads to, two edges deep",
            "request": {"operation": QUERY_RELATIONSHIPS, "params": {
                "root": {"element_type": graph.nodes.first().map_or("", |node| node.name), "element_name": graph.nodes.first().map_or(String::new(), |node| template_text(node.template))},
                "direction": "outgoing", "depth": 2.min(graph.max_depth)}}
        }]
    });
    (summary, details)
}

/// A template as it reads: `{owner.login}/{name}`.
fn template_text(template: &[NamePiece]) -> String {
    template
        .iter()
        .map(|piece| match piece {
            NamePiece::Text(text) => (*text).to_owned(),
            NamePiece::Field(path) => format!("{{{}}}", path.join(".")),
        })
        .collect()
}

/// A node found.
struct Node {
    kind: usize,
    name: String,
    /// Its fields as far as they are known: an answer's item, or what its name says.
    item: Value,
    /// Whether `item` is a whole answer rather than what the name holds.
    whole: bool,
}

/// What one request asks.
struct Ask {
    root_kind: usize,
    root_name: String,
    direction: Direction,
    relationship: Option<&'static str>,
    depth: u64,
    include: Vec<GraphSection>,
    fanout: u64,
}

impl Line {
    /// Runs `query_relationships` over `graph`, whose operations `route` finds.
    ///
    /// # Errors
    ///
    /// Params that do not fit (each names what is accepted), a root that cannot be read, or
    /// a hop's call that fails for another reason than a missing item.
    pub async fn run_graph<O: Observer>(
        &self,
        graph: &'static Graph,
        route: fn(&str) -> Option<&'static Route>,
        params: &Map<String, Value>,
        context: &Context<'_, O>,
    ) -> Result<(Value, Vec<Warning>), AqlError> {
        let ask = Ask::parse(graph, params)?;
        let mut warnings = Vec::new();
        let mut calls = 0u64;
        let root_type = &graph.nodes[ask.root_kind];
        let root_item = read_name(root_type.template, &ask.root_name).ok_or_else(|| {
            invalid(
                "root.element_name",
                format!(
                    "'root.element_name' of a {} is written as {}, got '{}'",
                    root_type.name,
                    template_text(root_type.template),
                    shorten(&ask.root_name, 80)
                ),
            )
        })?;
        let mut nodes = vec![Node {
            kind: ask.root_kind,
            name: ask.root_name.clone(),
            item: root_item,
            whole: false,
        }];
        let mut seen: HashSet<(usize, String)> =
            HashSet::from([(ask.root_kind, ask.root_name.clone())]);
        let mut edges: Vec<(usize, usize, &'static str)> = Vec::new();
        let mut records: Vec<Value> = Vec::new();
        let mut frontier: VecDeque<(usize, u64)> = VecDeque::from([(0, 0)]);
        let mut stopped: Option<(&str, u64)> = None;
        'walk: while let Some((index, depth)) = frontier.pop_front() {
            if depth >= ask.depth {
                continue;
            }
            for edge in graph
                .edges
                .iter()
                .filter(|edge| ask.relationship.is_none_or(|kind| edge.kind == kind))
            {
                for (outgoing, hop, far) in hops(edge, nodes[index].kind, ask.direction) {
                    if calls >= self.query.graph_max_calls {
                        stopped = Some(("max_calls", self.query.graph_max_calls));
                        break 'walk;
                    }
                    let Some(params) = self
                        .hop_params(graph, route, &mut nodes[index], hop, context, &mut calls)
                        .await?
                    else {
                        continue;
                    };
                    calls += 1;
                    let Some(route) = route(hop.operation) else {
                        continue;
                    };
                    let answer = match Box::pin(self.run(route, params, None, context)).await {
                        Ok((data, _)) => data.into_value(),
                        Err(error) if error.code == ErrorCode::NotFoundResource => {
                            warnings.push(
                                Warning::new(
                                    "RELATIONSHIP_TARGET_NOT_FOUND",
                                    format!("{} answered 404 (not found) for an item; the edge is left out", hop.operation),
                                )
                                .with_detail("operation", hop.operation)
                                .with_detail("from", nodes[index].name.clone()),
                            );
                            continue;
                        }
                        Err(error) => return Err(error),
                    };
                    let far_type = &graph.nodes[far];
                    for item in items_of(answer, ask.fanout) {
                        let Some(name) = write_name(far_type.template, &item) else {
                            continue;
                        };
                        let key = (far, name.clone());
                        let target = match nodes
                            .iter()
                            .position(|node| node.kind == far && node.name == name)
                        {
                            Some(found) => found,
                            None => {
                                if nodes.len() as u64 >= self.query.graph_max_nodes {
                                    stopped = Some(("max_nodes", self.query.graph_max_nodes));
                                    break 'walk;
                                }
                                nodes.push(Node {
                                    kind: far,
                                    name,
                                    item,
                                    whole: true,
                                });
                                nodes.len() - 1
                            }
                        };
                        let (source, destination) = if outgoing {
                            (index, target)
                        } else {
                            (target, index)
                        };
                        if !edges.contains(&(source, destination, edge.kind)) {
                            edges.push((source, destination, edge.kind));
                            records.push(json!({
                                "type": edge.kind,
                                "direction": if outgoing { "outgoing" } else { "incoming" },
                                "target": reference(graph, &nodes[target]),
                                "depth": depth + 1,
                            }));
                        }
                        if seen.insert(key) {
                            frontier.push_back((target, depth + 1));
                        }
                    }
                }
            }
        }
        if let Some((bound, limit)) = stopped {
            warnings.push(
                Warning::new(
                    "VALIDATION_TRUNCATED_WARNING",
                    format!("The relationship query reached its bound {bound} ({limit}) and stopped; the graph holds the nodes found so far. Ask less deep, or for one relationship"),
                )
                .with_severity(Severity::Medium)
                .with_detail("field", "graph")
                .with_detail("bound", bound)
                .with_detail("limit", limit)
                .with_detail("truncated_count", nodes.len())
                .with_detail("complete", false),
            );
        }
        let mut data = Map::new();
        data.insert("root".into(), reference(graph, &nodes[0]));
        if ask.include.contains(&GraphSection::Relationships) {
            data.insert("relationships".into(), Value::Array(records));
        }
        let mut section = Map::new();
        if ask.include.contains(&GraphSection::Nodes) {
            let listed = nodes.iter().map(|node| {
                json!({
                    "id": node_id(graph, node),
                    "element_type": graph.nodes[node.kind].name,
                    "element_name": node.name,
                })
            });
            section.insert("nodes".into(), listed.collect());
        }
        if ask.include.contains(&GraphSection::Edges) {
            let listed = edges.iter().map(|(source, target, kind)| {
                json!({
                    "source": node_id(graph, &nodes[*source]),
                    "target": node_id(graph, &nodes[*target]),
                    "type": kind,
                })
            });
            section.insert("edges".into(), listed.collect());
        }
        if !section.is_empty() {
            data.insert("graph".into(), Value::Object(section));
        }
        Ok((Value::Object(data), warnings))
    }

    /// The params of `hop` from `node`'s fields; when its item lacks one and the node is
    /// only known by name, the node is read first with its type's `get`. `None` when a param
    /// cannot be had.
    async fn hop_params<O: Observer>(
        &self,
        graph: &'static Graph,
        route: fn(&str) -> Option<&'static Route>,
        node: &mut Node,
        hop: &Hop,
        context: &Context<'_, O>,
        calls: &mut u64,
    ) -> Result<Option<Map<String, Value>>, AqlError> {
        if let Some(params) = params_of(hop, &node.item) {
            return Ok(Some(params));
        }
        let node_type: &NodeType = &graph.nodes[node.kind];
        let (Some(get), false) = (node_type.get, node.whole) else {
            return Ok(None);
        };
        let (Some(params), Some(get_route)) = (params_of(&get, &node.item), route(get.operation))
        else {
            return Ok(None);
        };
        *calls += 1;
        let (data, _) = Box::pin(self.run(get_route, params, None, context)).await?;
        node.item = data.into_value();
        node.whole = true;
        Ok(params_of(hop, &node.item))
    }
}

/// The hops of `edge` from a node of type `kind` in `direction`: whether each goes outward,
/// the call, and the type of the node at its far end.
fn hops(
    edge: &'static EdgeType,
    kind: usize,
    direction: Direction,
) -> Vec<(bool, &'static Hop, usize)> {
    let mut hops = Vec::new();
    if matches!(direction, Direction::Outgoing | Direction::Both)
        && edge.from == kind
        && let Some(hop) = &edge.forward
    {
        hops.push((true, hop, edge.to));
    }
    if matches!(direction, Direction::Incoming | Direction::Both)
        && edge.to == kind
        && let Some(hop) = &edge.inverse
    {
        hops.push((false, hop, edge.from));
    }
    hops
}

/// The params of `hop`, each from a field of `item`; `None` when one is missing.
fn params_of(hop: &Hop, item: &Value) -> Option<Map<String, Value>> {
    hop.params
        .iter()
        .map(|(param, path)| {
            let value = path
                .iter()
                .try_fold(item, |value, member| value.get(member))?;
            matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
                .then(|| ((*param).to_owned(), value.clone()))
        })
        .collect()
}

/// The items a hop's answer holds: a page's, an array's, or the one item; at most `first`.
fn items_of(answer: Value, first: u64) -> Vec<Value> {
    let items = match answer {
        Value::Array(items) => items,
        Value::Object(mut object) => match object.remove("items") {
            Some(Value::Array(items)) => items,
            Some(other) => {
                object.insert("items".into(), other);
                vec![Value::Object(object)]
            }
            None => vec![Value::Object(object)],
        },
        _ => Vec::new(),
    };
    items.into_iter().take(first as usize).collect()
}

/// An item's `element_name` by `template`; `None` when a field is missing or not a scalar.
fn write_name(template: &[NamePiece], item: &Value) -> Option<String> {
    let mut name = String::new();
    for piece in template {
        match piece {
            NamePiece::Text(text) => name.push_str(text),
            NamePiece::Field(path) => {
                match path
                    .iter()
                    .try_fold(item, |value, member| value.get(member))?
                {
                    Value::String(text) => name.push_str(text),
                    Value::Number(number) => name.push_str(&number.to_string()),
                    _ => return None,
                }
            }
        }
    }
    Some(name)
}

/// The fields a name written by `template` holds, as an item; `None` when it does not read.
fn read_name(template: &[NamePiece], name: &str) -> Option<Value> {
    let mut item = Value::Object(Map::new());
    let mut rest = name;
    for (index, piece) in template.iter().enumerate() {
        match piece {
            NamePiece::Text(text) => rest = rest.strip_prefix(text)?,
            NamePiece::Field(path) => {
                let end = match template.get(index + 1) {
                    Some(NamePiece::Text(next)) => rest.find(next)?,
                    _ => rest.len(),
                };
                let value = &rest[..end];
                if value.is_empty() {
                    return None;
                }
                let mut at = &mut item;
                for member in &path[..path.len() - 1] {
                    at = at
                        .as_object_mut()?
                        .entry((*member).to_owned())
                        .or_insert_with(|| Value::Object(Map::new()));
                }
                at.as_object_mut()?
                    .insert(path[path.len() - 1].to_owned(), value.to_owned().into());
                rest = &rest[end..];
            }
        }
    }
    rest.is_empty().then_some(item)
}

fn node_id(graph: &Graph, node: &Node) -> String {
    format!("{}:{}", graph.nodes[node.kind].name, node.name)
}

fn reference(graph: &Graph, node: &Node) -> Value {
    json!({"element_type": graph.nodes[node.kind].name, "element_name": node.name})
}

impl Ask {
    fn parse(graph: &'static Graph, params: &Map<String, Value>) -> Result<Self, AqlError> {
        let unknown: Vec<&String> = params
            .keys()
            .filter(|key| !PARAMS.contains(&key.as_str()))
            .collect();
        if !unknown.is_empty() {
            let listed: Vec<String> = unknown
                .iter()
                .take(10)
                .map(|key| shorten(key, 80).into_owned())
                .collect();
            return Err(AqlError::new(
                ErrorCode::ValidationUnknownParam,
                format!(
                    "Unknown parameter(s) for operation '{QUERY_RELATIONSHIPS}': {}. Valid parameters: {}",
                    listed.iter().map(|key| format!("'{key}'")).collect::<Vec<_>>().join(", "),
                    PARAMS.iter().map(|key| format!("'{key}'")).collect::<Vec<_>>().join(", ")
                ),
            )
            .with_detail("operation", QUERY_RELATIONSHIPS)
            .with_detail("unknown_params", listed)
            .with_detail("valid_params", PARAMS.to_vec()));
        }
        let missing = |param: &str, expected: &str| {
            AqlError::new(
                ErrorCode::ValidationMissingParam,
                format!(
                    "Missing required parameter '{param}' for operation '{QUERY_RELATIONSHIPS}'"
                ),
            )
            .with_detail("param_name", param)
            .with_detail("expected_type", expected)
        };
        let types: Vec<&str> = graph.nodes.iter().map(|node| node.name).collect();
        let root = match params.get("root") {
            None | Some(Value::Null) => return Err(missing("root", "object")),
            Some(Value::Object(root)) => root,
            Some(other) => return Err(wrong_type("root", "object", other)),
        };
        let root_kind = match root.get("element_type") {
            Some(Value::String(kind)) => {
                types.iter().position(|name| name == kind).ok_or_else(|| {
                    invalid(
                        "root.element_type",
                        format!(
                            "'root.element_type' is one of {}, got '{}'",
                            types.join(", "),
                            shorten(kind, 64)
                        ),
                    )
                    .with_detail("valid_values", types.clone())
                })?
            }
            None | Some(Value::Null) => return Err(missing("root.element_type", "string")),
            Some(other) => return Err(wrong_type("root.element_type", "string", other)),
        };
        let root_name = match root.get("element_name") {
            Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
            Some(Value::String(_)) => {
                return Err(invalid(
                    "root.element_name",
                    "'root.element_name' is empty".to_owned(),
                ));
            }
            None | Some(Value::Null) => return Err(missing("root.element_name", "string")),
            Some(other) => return Err(wrong_type("root.element_name", "string", other)),
        };
        let direction = match params.get("direction") {
            Some(Value::String(direction)) => Direction::parse(direction).ok_or_else(|| {
                invalid(
                    "direction",
                    format!(
                        "'direction' is incoming, outgoing or both, got '{}'",
                        shorten(direction, 32)
                    ),
                )
            })?,
            None | Some(Value::Null) => return Err(missing("direction", "string")),
            Some(other) => return Err(wrong_type("direction", "string", other)),
        };
        let relationship = match params.get("relationship") {
            None | Some(Value::Null) => None,
            Some(Value::String(kind)) => Some(
                graph
                    .edges
                    .iter()
                    .map(|edge| edge.kind)
                    .find(|known| known == kind)
                    .ok_or_else(|| {
                        let mut kinds: Vec<&str> =
                            graph.edges.iter().map(|edge| edge.kind).collect();
                        kinds.sort_unstable();
                        kinds.dedup();
                        invalid(
                            "relationship",
                            format!(
                                "'relationship' is one of {}, got '{}'",
                                kinds.join(", "),
                                shorten(kind, 64)
                            ),
                        )
                        .with_detail("valid_values", kinds)
                    })?,
            ),
            Some(other) => return Err(wrong_type("relationship", "string", other)),
        };
        let number = |param: &str, default: u64, max: u64| -> Result<u64, AqlError> {
            match params.get(param) {
                None | Some(Value::Null) => Ok(default),
                Some(value) => match value.as_u64() {
                    Some(n) if (1..=max).contains(&n) => Ok(n),
                    _ if value.is_i64() || value.is_u64() => Err(invalid(
                        param,
                        format!("'{param}' is 1 to {max}, got {value}"),
                    )
                    .with_detail("minimum", 1)
                    .with_detail("maximum", max)),
                    _ => Err(wrong_type(param, "integer", value)),
                },
            }
        };
        let depth = number("depth", 1, graph.max_depth)?;
        let fanout = number(FeatureParam::First.as_str(), DEFAULT_FANOUT, MAX_FANOUT)?;
        let include = match params.get("include") {
            None | Some(Value::Null) => GraphSection::ALL.to_vec(),
            Some(Value::Array(sections)) => sections
                .iter()
                .map(|section| {
                    section
                        .as_str()
                        .and_then(GraphSection::parse)
                        .ok_or_else(|| {
                            invalid(
                                "include",
                                format!(
                                    "'include' holds section names: {}; got {section}",
                                    <GraphSection as Vocabulary>::NAMES.join(", ")
                                ),
                            )
                        })
                })
                .collect::<Result<Vec<_>, _>>()?,
            Some(other) => return Err(wrong_type("include", "array", other)),
        };
        Ok(Self {
            root_kind,
            root_name,
            direction,
            relationship,
            depth,
            include,
            fanout,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPO: &[NamePiece] = &[
        NamePiece::Field(&["owner", "login"]),
        NamePiece::Text("/"),
        NamePiece::Field(&["name"]),
    ];

    #[test]
    fn names_are_written_and_read_back() {
        let item = json!({"owner": {"login": "octo"}, "name": "hello"});
        assert_eq!(write_name(REPO, &item).as_deref(), Some("octo/hello"));
        assert_eq!(read_name(REPO, "octo/hello"), Some(item));
        assert_eq!(read_name(REPO, "octo"), None);
        assert_eq!(read_name(REPO, "/hello"), None);
        assert_eq!(write_name(REPO, &json!({"name": "x"})), None);
        let hop = Hop {
            operation: "get_repo",
            params: &[("owner", &["owner", "login"]), ("repo", &["name"])],
        };
        assert_eq!(
            params_of(&hop, &json!({"owner": {"login": "o"}, "name": "r"})),
            Some(
                json!({"owner": "o", "repo": "r"})
                    .as_object()
                    .cloned()
                    .unwrap()
            )
        );
        assert_eq!(params_of(&hop, &json!({"name": "r"})), None);
    }
}
