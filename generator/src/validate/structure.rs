//! Shape checks on the raw YAML: unknown keys, missing fields and values outside their
//! closed set of names, all of them, before the typed model (which would stop at the first) is
//! built. What is reported is then repaired so the semantic checks still run on the rest of the
//! document (the schema is refused either way): an unknown key is removed, as is an optional
//! value outside its set; a required one is replaced by its set's first name, and a param of
//! an unknown type keeps only `required` and `description`.

use aqlgen_model::{Category, Vocabulary};
use serde_yaml::{Mapping, Value};

use super::nearest;
use crate::diagnostic::{Code, Diagnostic};
use crate::schema::keys::{self, Choice, ObjectKeys};

/// Every unknown key and missing required field in `document`; unknown keys are removed.
pub fn check(document: &mut Value) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let kind = kind_of(document);
    let Some(root) = document.as_mapping_mut() else {
        diagnostics.push(
            Diagnostic::new(Code::InvalidType, "", "the front matter is not a mapping")
                .expected("a YAML mapping of adapter fields")
                .found(kind),
        );
        return diagnostics;
    };
    check_object(root, "", &keys::ADAPTER, &mut diagnostics);
    for (key, object_keys) in [
        ("target", &keys::TARGET),
        ("auth", &keys::AUTH),
        ("trust", &keys::TRUST),
        ("rate_limits", &keys::RATE_LIMITS),
        ("operations", &keys::OPERATIONS),
    ] {
        if let Some(Value::Mapping(object)) = root.get_mut(key) {
            check_object(object, key, object_keys, &mut diagnostics);
        }
    }
    if let Some(Value::Sequence(credentials)) = root
        .get_mut("auth")
        .and_then(|auth| auth.get_mut("credentials"))
    {
        for (index, credential) in credentials.iter_mut().enumerate() {
            if let Value::Mapping(credential) = credential {
                let path = format!("auth.credentials[{index}]");
                check_object(credential, &path, &keys::AUTH, &mut diagnostics);
            }
        }
    }
    if let Some(Value::Mapping(relationships)) = root.get_mut("relationships") {
        check_relationships(relationships, &mut diagnostics);
    }
    let Some(Value::Mapping(operations)) = root.get_mut("operations") else {
        return diagnostics;
    };
    for family in <Category as Vocabulary>::NAMES {
        let Some(Value::Sequence(list)) = operations.get_mut(family) else {
            continue;
        };
        for (index, operation) in list.iter_mut().enumerate() {
            let path = format!("operations.{family}[{index}]");
            if let Value::Mapping(operation) = operation {
                check_operation(operation, &path, &mut diagnostics);
            }
        }
    }
    diagnostics
}

fn check_operation(operation: &mut Mapping, path: &str, diagnostics: &mut Vec<Diagnostic>) {
    check_object(operation, path, &keys::OPERATION, diagnostics);
    for (key, object_keys) in [
        ("response", &keys::RESPONSE),
        ("pagination", &keys::PAGINATION),
        ("lifecycle", &keys::LIFECYCLE),
        ("query", &keys::QUERY),
    ] {
        if let Some(Value::Mapping(object)) = operation.get_mut(key) {
            check_object(object, &format!("{path}.{key}"), object_keys, diagnostics);
        }
    }
    if let Some(Value::Mapping(query)) = operation.get_mut("query") {
        check_query(query, &format!("{path}.query"), diagnostics);
    }
    if let Some(Value::Mapping(lifecycle)) = operation.get_mut("lifecycle")
        && let Some(Value::Mapping(progress)) = lifecycle.get_mut("progress")
    {
        let progress_path = format!("{path}.lifecycle.progress");
        check_object(
            progress,
            &progress_path,
            &keys::LIFECYCLE_PROGRESS,
            diagnostics,
        );
    }
    if let Some(Value::Mapping(response)) = operation.get_mut("response") {
        for (key, object_keys) in [
            ("fields", &keys::RESPONSE_FIELD),
            ("computed", &keys::COMPUTED),
        ] {
            check_members(
                response,
                key,
                &format!("{path}.response"),
                object_keys,
                diagnostics,
            );
        }
    }
    let Some(Value::Mapping(params)) = operation.get_mut("params") else {
        return;
    };
    for (name, param) in params.iter_mut() {
        if let (Some(name), Value::Mapping(param)) = (name.as_str(), param) {
            let repaired = check_object(
                param,
                &format!("{path}.params.{name}"),
                &keys::PARAM,
                diagnostics,
            );
            if repaired.contains(&"type") {
                // Its other checks depend on the type: keep only what does not.
                param.retain(|key, _| {
                    matches!(key.as_str(), Some("type" | "required" | "description"))
                });
            }
        }
    }
}

/// Checks each member of the mapping under `key` of `parent` against `object_keys`.
fn check_members(
    parent: &mut Mapping,
    key: &str,
    path: &str,
    object_keys: &ObjectKeys,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(Value::Mapping(members)) = parent.get_mut(key) else {
        return;
    };
    for (name, member) in members.iter_mut() {
        if let (Some(name), Value::Mapping(member)) = (name.as_str(), member) {
            check_object(
                member,
                &format!("{path}.{key}.{name}"),
                object_keys,
                diagnostics,
            );
        }
    }
}

/// An operation's `query`: its text, each field and its upstream mappings, its scan.
fn check_query(query: &mut Mapping, path: &str, diagnostics: &mut Vec<Diagnostic>) {
    for (key, object_keys) in [("text", &keys::QUERY_TEXT), ("scan", &keys::QUERY_SCAN)] {
        if let Some(Value::Mapping(object)) = query.get_mut(key) {
            check_object(object, &format!("{path}.{key}"), object_keys, diagnostics);
        }
    }
    check_members(query, "fields", path, &keys::QUERY_FIELD, diagnostics);
    let Some(Value::Mapping(fields)) = query.get_mut("fields") else {
        return;
    };
    for (name, field) in fields.iter_mut() {
        let (Some(name), Value::Mapping(field)) = (name.as_str(), field) else {
            continue;
        };
        for (key, object_keys) in [("filter", &keys::QUERY_FILTER), ("sort", &keys::QUERY_SORT)] {
            if let Some(Value::Mapping(object)) = field.get_mut(key) {
                let at = format!("{path}.fields.{name}.{key}");
                check_object(object, &at, object_keys, diagnostics);
            }
        }
    }
}

/// The adapter's `relationships`: its node types, its edges and their calls.
fn check_relationships(relationships: &mut Mapping, diagnostics: &mut Vec<Diagnostic>) {
    let path = "relationships";
    check_object(relationships, path, &keys::RELATIONSHIPS, diagnostics);
    check_members(relationships, "nodes", path, &keys::NODE, diagnostics);
    if let Some(Value::Mapping(nodes)) = relationships.get_mut("nodes") {
        for (name, node) in nodes.iter_mut() {
            if let (Some(name), Value::Mapping(node)) = (name.as_str(), node)
                && let Some(Value::Mapping(get)) = node.get_mut("get")
            {
                let at = format!("{path}.nodes.{name}.get");
                check_object(get, &at, &keys::HOP, diagnostics);
            }
        }
    }
    if let Some(Value::Sequence(edges)) = relationships.get_mut("edges") {
        for (index, edge) in edges.iter_mut().enumerate() {
            let Value::Mapping(edge) = edge else { continue };
            let at = format!("{path}.edges[{index}]");
            check_object(edge, &at, &keys::EDGE, diagnostics);
            if let Some(Value::Mapping(inverse)) = edge.get_mut("inverse") {
                check_object(inverse, &format!("{at}.inverse"), &keys::HOP, diagnostics);
            }
        }
    }
}

/// Checks one object's keys and closed-set values; returns the keys whose value was repaired.
fn check_object(
    object: &mut Mapping,
    path: &str,
    keys: &ObjectKeys,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<&'static str> {
    check_keys(object, path, keys, "the front matter", diagnostics)
}

/// [`check_object`] for any document: `root` names the object at the empty path in messages
/// ("the front matter", "the document").
pub fn check_keys(
    object: &mut Mapping,
    path: &str,
    keys: &ObjectKeys,
    root: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<&'static str> {
    let child = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    if let Some(known) = keys.known {
        let unknown: Vec<String> = object
            .keys()
            .filter_map(Value::as_str)
            .filter(|key| !known.contains(key))
            .map(str::to_owned)
            .collect();
        for key in &unknown {
            object.remove(key.as_str());
            let mut diagnostic =
                Diagnostic::new(Code::UnknownKey, child(key), format!("unknown key `{key}`"))
                    .expected(format!("one of: {}", known.join(", ")))
                    .found(format!("{key:?}"));
            if let Some(candidate) = nearest(key, known.iter().copied()) {
                diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
            }
            diagnostics.push(diagnostic);
        }
    }
    for required in keys.required {
        if !object.contains_key(*required) {
            let where_ = if path.is_empty() {
                root.to_owned()
            } else {
                format!("`{path}`")
            };
            diagnostics.push(
                Diagnostic::new(
                    Code::MissingField,
                    child(required),
                    format!("required field `{required}` is missing from {where_}"),
                )
                .expected(format!("a `{required}` key"))
                .found("nothing"),
            );
        }
    }
    let mut repaired = Vec::new();
    for (key, choice) in keys.choices {
        let Some(value) = object.get(*key) else {
            continue;
        };
        let Some(diagnostic) = check_choice(&child(key), value, choice) else {
            continue;
        };
        diagnostics.push(diagnostic);
        repaired.push(*key);
        if keys.required.contains(key) {
            object.insert(Value::from(*key), Value::from(choice.names[0]));
        } else {
            object.remove(*key);
        }
    }
    repaired
}

/// The diagnostic for a value that names nothing in `choice`, if it does not.
fn check_choice(path: &str, value: &Value, choice: &Choice) -> Option<Diagnostic> {
    let mut expected = match (choice.generated, choice.names) {
        (Some([only]), _) | (None, [only]) => format!("\"{only}\""),
        (Some(generated), _) | (None, generated) => format!("one of: {}", generated.join(", ")),
    };
    if let Some(generated) = choice.generated {
        let others: Vec<&str> = choice
            .names
            .iter()
            .filter(|name| !generated.contains(name))
            .copied()
            .collect();
        expected.push_str(&format!(
            " (the format also names {}, which aqlgen does not generate)",
            others.join(", ")
        ));
    }
    if !choice.aliases.is_empty() {
        expected.push_str(&format!(
            " (or the official adapter schema's {})",
            choice.aliases.join(", ")
        ));
    }
    let Some(text) = value.as_str() else {
        return Some(
            Diagnostic::new(
                choice.code,
                path,
                format!("the {} must be a name, not {}", choice.what, kind_of(value)),
            )
            .expected(expected)
            .found(yaml_text(value)),
        );
    };
    if (choice.accepts)(text) {
        return None;
    }
    let mut diagnostic = Diagnostic::new(
        choice.code,
        path,
        format!("`{text}` is not a known {}", choice.what),
    )
    .expected(expected)
    .found(format!("{text:?}"));
    let synonym = choice
        .synonyms
        .iter()
        .find(|(other, _)| *other == text)
        .map(|(_, name)| *name);
    let candidate = match choice.generated {
        Some(generated) => synonym.or_else(|| nearest(text, generated.iter().copied())),
        None => {
            synonym.or_else(|| nearest(text, choice.names.iter().chain(choice.aliases).copied()))
        }
    };
    if let Some(candidate) = candidate {
        diagnostic = diagnostic.suggest(format!("did you mean `{candidate}`?"));
    } else if let Some([only]) = choice.generated {
        diagnostic = diagnostic.suggest(format!("use `{only}`"));
    }
    Some(diagnostic)
}

/// A YAML value as one line of text, for `found:`.
fn yaml_text(value: &Value) -> String {
    serde_yaml::to_string(value)
        .map(|text| text.trim_end().replace('\n', " "))
        .unwrap_or_else(|_| kind_of(value).to_owned())
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}
