//! Shape checks on the raw YAML: unknown keys and missing fields, all of them, before the
//! typed model (which would stop at the first) is built. Unknown keys are removed once
//! reported, so the semantic checks can still run on the rest of the document.

use serde_yaml::{Mapping, Value};

use super::{Code, Diagnostic, nearest};
use crate::schema::keys::{self, ObjectKeys};

const FAMILIES: [&str; 5] = ["create", "read", "update", "delete", "execute"];

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
    let Some(Value::Mapping(operations)) = root.get_mut("operations") else {
        return diagnostics;
    };
    for family in FAMILIES {
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
    ] {
        if let Some(Value::Mapping(object)) = operation.get_mut(key) {
            check_object(object, &format!("{path}.{key}"), object_keys, diagnostics);
        }
    }
    let Some(Value::Mapping(params)) = operation.get_mut("params") else {
        return;
    };
    for (name, param) in params.iter_mut() {
        if let (Some(name), Value::Mapping(param)) = (name.as_str(), param) {
            check_object(
                param,
                &format!("{path}.params.{name}"),
                &keys::PARAM,
                diagnostics,
            );
        }
    }
}

fn check_object(
    object: &mut Mapping,
    path: &str,
    keys: &ObjectKeys,
    diagnostics: &mut Vec<Diagnostic>,
) {
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
                "the front matter".to_owned()
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
