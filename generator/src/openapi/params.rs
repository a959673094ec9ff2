//! OpenAPI parameter and property schemas to adapter params.

use serde_json::Value;

use super::refs::resolve;
use crate::schema::{Param, ParamType};

/// Longest description kept, in characters.
const MAX_DESCRIPTION: usize = 160;

/// A param built from `schema`; `Err` holds why it cannot be expressed at all. Parts that
/// cannot be expressed are dropped from the param and reported through `warn`.
pub fn param(
    document: &Value,
    schema: &Value,
    required: bool,
    description: Option<&str>,
    warn: &mut dyn FnMut(String),
    name: &str,
    in_body: bool,
) -> Result<Param, String> {
    let schema = resolve(document, schema)?;
    let kind = match kind_of(schema) {
        Some(kind) => kind,
        None => {
            let kinds = alternative_kinds(document, schema);
            let kind = widest(&kinds).ok_or_else(|| "its schema has no type".to_owned())?;
            // Path and query values travel as text, so a scalar written as a string loses
            // nothing there; in a JSON body it changes the value's type, and an array or
            // object cannot be written as one string anywhere.
            let lossy = kinds.iter().any(|other| match *other {
                "string" => false,
                "array" | "object" => true,
                _ => in_body,
            });
            if kind == "string" && lossy {
                warn(format!(
                    "param `{name}`: accepts {}; written as string",
                    kinds.join(" or ")
                ));
            }
            kind
        }
    };
    let ty = ParamType::parse(kind).expect("kind_of and widest name param types");
    // A default makes a param optional to the caller, whatever the document says.
    let default = schema
        .get("default")
        .filter(|default| ty.admits(default))
        .filter(|_| !matches!(ty, ParamType::Array | ParamType::Object))
        .cloned();
    if default.is_none() && schema.get("default").is_some() {
        warn(format!(
            "param `{name}`: `default` on an {kind} param is not accepted; dropped"
        ));
    }
    let mut allowed = None;
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let strings: Option<Vec<Value>> = values
            .iter()
            .map(|value| value.as_str().map(Value::from))
            .collect();
        match strings {
            Some(strings) if ty == ParamType::String && !strings.is_empty() => {
                allowed = Some(strings);
            }
            _ => warn(format!("param `{name}`: non-string enum dropped")),
        }
    }
    let bound = |key: &str| {
        matches!(ty, ParamType::Integer | ParamType::Number)
            .then(|| schema.get(key).and_then(Value::as_f64))
            .flatten()
    };
    let text = description.or_else(|| schema.get("description").and_then(Value::as_str));
    Ok(Param {
        kind: ty,
        required: (required && default.is_none()).then_some(true),
        description: text.map(shorten).filter(|text| !text.is_empty()),
        default,
        allowed,
        minimum: bound("minimum"),
        maximum: bound("maximum"),
        pattern: None,
        format: None,
    })
}

/// The distinct non-null types a schema allows through a `type` list or `oneOf`/`anyOf`
/// alternatives, in order of appearance.
fn alternative_kinds(document: &Value, schema: &Value) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    let mut push = |kind: Option<&'static str>| {
        if let Some(kind) = kind
            && !kinds.contains(&kind)
        {
            kinds.push(kind);
        }
    };
    if let Some(Value::Array(listed)) = schema.get("type") {
        for kind in listed.iter().filter_map(Value::as_str) {
            push(kind_of(&serde_json::json!({ "type": kind })));
        }
    }
    for key in ["oneOf", "anyOf"] {
        for alternative in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let alternative = resolve(document, alternative).unwrap_or(&Value::Null);
            match kind_of(alternative) {
                Some(kind) => push(Some(kind)),
                None => alternative_kinds(document, alternative)
                    .into_iter()
                    .for_each(|kind| push(Some(kind))),
            }
        }
    }
    kinds
}

/// One adapter type for several: itself when there is one, `number` for integer and
/// number, else `string`, which every scalar can be written as on the wire.
fn widest(kinds: &[&'static str]) -> Option<&'static str> {
    match kinds {
        [] => None,
        [kind] => Some(kind),
        _ if kinds
            .iter()
            .all(|kind| matches!(*kind, "integer" | "number")) =>
        {
            Some("number")
        }
        _ => Some("string"),
    }
}

/// The adapter type of `schema`: its `type` (the first non-null one of an OpenAPI 3.1 list),
/// else `object` with `properties` and `array` with `items`.
fn kind_of(schema: &Value) -> Option<&'static str> {
    let named = match schema.get("type") {
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(Value::Array(kinds)) => {
            let mut real = kinds
                .iter()
                .filter_map(Value::as_str)
                .filter(|kind| *kind != "null");
            let first = real.next();
            if real.next().is_some() { None } else { first }
        }
        _ => None,
    };
    match named {
        Some("string") => Some("string"),
        Some("integer") => Some("integer"),
        Some("number") => Some("number"),
        Some("boolean") => Some("boolean"),
        Some("array") => Some("array"),
        Some("object") => Some("object"),
        Some(_) => None,
        None if schema.get("properties").is_some() => Some("object"),
        None if schema.get("items").is_some() => Some("array"),
        None => None,
    }
}

/// The first line or sentence of `text`, Markdown links reduced to their text, at most
/// [`MAX_DESCRIPTION`] characters.
pub fn shorten(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    let sentence = match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    };
    let mut plain = String::new();
    let mut chars = sentence.chars().peekable();
    while let Some(character) = chars.next() {
        if character == ']' && chars.peek() == Some(&'(') {
            for skipped in chars.by_ref() {
                if skipped == ')' {
                    break;
                }
            }
        } else if character != '[' && character != '*' {
            plain.push(character);
        }
    }
    let plain = plain.trim();
    if plain.chars().count() <= MAX_DESCRIPTION {
        return plain.to_owned();
    }
    let cut: String = plain.chars().take(MAX_DESCRIPTION - 3).collect();
    format!("{}...", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn shortens_descriptions() {
        assert_eq!(shorten("One. Two."), "One.");
        assert_eq!(shorten("\n  See [docs](https://x.y).\nMore"), "See docs.");
        assert_eq!(shorten(&"a".repeat(300)).chars().count(), 160);
    }
}
