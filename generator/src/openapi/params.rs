//! OpenAPI parameter and property schemas to adapter params.

use serde_json::Value;

use super::document::{RefOr, Schema, Types};
use super::refs::Resolver;
use crate::schema::{Param, ParamType};

/// Longest description kept, in characters.
const MAX_DESCRIPTION: usize = 160;

/// How a param is written: its wire name, whether it is required, its description (over
/// the schema's) and whether it goes in a JSON body (where its value's type matters) rather
/// than a path or query (where every value is text).
pub struct Declared<'a> {
    /// The wire name, for warnings.
    pub name: &'a str,
    /// Whether the document requires it.
    pub required: bool,
    /// The parameter's own description, which wins over its schema's.
    pub description: Option<&'a str>,
    /// Whether it is a property of a JSON body.
    pub in_body: bool,
}

/// A param built from `schema`; `Err` holds why it cannot be expressed at all. Parts that
/// cannot be expressed are dropped from the param and reported through `warn`.
pub fn param(
    refs: &Resolver<'_>,
    schema: Option<&RefOr<Schema>>,
    declared: &Declared<'_>,
    warn: &mut dyn FnMut(String),
) -> Result<Param, String> {
    let outer = match schema {
        Some(schema) => refs.resolve(schema)?,
        None => &Schema::default(),
    };
    // `allOf: [{$ref: Kind}, {description: ...}]` (AWS writes every property so) is the
    // part that says what the value is, described by whichever part describes it.
    let schema = typed_part(refs, outer);
    let name = declared.name;
    let kind = match kind_of(schema) {
        Some(kind) => kind,
        None => {
            let mut kinds = alternative_kinds(refs, schema);
            // `anyOf: [{type: object, ...}, {type: string, enum: [""]}]`: the empty string
            // unsets the value (Stripe). The structured form is the one worth keeping.
            if kinds.len() > 1 && unsets_with_empty_string(refs, schema) {
                kinds.retain(|kind| *kind != "string");
                warn(format!(
                    "param `{name}`: its empty-string form (which unsets it) cannot be sent"
                ));
            }
            // A value outside a JSON body is text whatever its type.
            let kind = widest(&kinds)
                .or((!declared.in_body).then_some("string"))
                .ok_or_else(|| "its schema has no type".to_owned())?;
            // Path and query values travel as text, so a scalar written as a string loses
            // nothing there; in a JSON body it changes the value's type, and an array or
            // object cannot be written as one string anywhere.
            let lossy = kinds.iter().any(|other| match *other {
                "string" => false,
                "array" | "object" => true,
                _ => declared.in_body,
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
        .default
        .as_ref()
        .filter(|default| ty.admits(default))
        .filter(|_| !matches!(ty, ParamType::Array | ParamType::Object))
        .cloned();
    if default.is_none() && schema.default.is_some() {
        warn(format!(
            "param `{name}`: `default` on an {kind} param is not accepted; dropped"
        ));
    }
    let mut allowed = None;
    if let Some(values) = &schema.values {
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
    let bound = |bound: Option<f64>| {
        matches!(ty, ParamType::Integer | ParamType::Number)
            .then_some(bound)
            .flatten()
    };
    let text = declared
        .description
        .or(outer.description.as_deref())
        .or_else(|| {
            outer
                .all_of
                .iter()
                .filter_map(|part| refs.resolve(part).ok())
                .find_map(|part| part.description.as_deref())
        })
        .or(schema.description.as_deref());
    let checks = if ty == ParamType::String {
        string_checks(schema, default.as_ref(), allowed.as_deref(), name, warn)
    } else {
        StringChecks::default()
    };
    Ok(Param {
        kind: ty,
        required: (declared.required && default.is_none()).then_some(true),
        description: text.map(shorten).filter(|text| !text.is_empty()),
        default,
        allowed,
        minimum: bound(schema.minimum),
        maximum: bound(schema.maximum),
        min_length: checks.lengths.0,
        max_length: checks.lengths.1,
        pattern: checks.pattern,
        format: checks.format,
        location: None,
        wire_name: None,
        style: None,
        explode: None,
    })
}

/// What the server checks of a string param's value.
#[derive(Default)]
struct StringChecks {
    pattern: Option<String>,
    format: Option<String>,
    /// `(min_length, max_length)`.
    lengths: (Option<u64>, Option<u64>),
}

/// The checks a string param keeps, so that the server makes them and introspection's
/// example passes them (Twilio's `^AC[0-9a-f]{32}$`): a pattern the Rust `regex` crate
/// compiles, a format, and lengths in order; each only when the document's own default and
/// enum values pass it. A pattern that does not compile is reported through `warn`.
fn string_checks(
    schema: &Schema,
    default: Option<&Value>,
    allowed: Option<&[Value]>,
    name: &str,
    warn: &mut dyn FnMut(String),
) -> StringChecks {
    let values: Vec<&str> = default
        .into_iter()
        .chain(allowed.into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    let pattern = schema.pattern.as_deref().and_then(|pattern| {
        let Ok(regex) = regex::Regex::new(pattern) else {
            warn(format!(
                "param `{name}`: its pattern is no regular expression the server can check; dropped"
            ));
            return None;
        };
        values
            .iter()
            .all(|value| regex.is_match(value))
            .then(|| pattern.to_owned())
    });
    let format = schema.format.as_deref().filter(|format| {
        aqlgen_model::StringFormat::parse(format)
            .is_none_or(|checked| values.iter().all(|value| checked.matches(value)))
    });
    let lengths = (schema.min_length, schema.max_length);
    let keeps_lengths = lengths.0.zip(lengths.1).is_none_or(|(min, max)| min <= max)
        && values
            .iter()
            .all(|value| aqlgen_model::length_within(value, lengths));
    StringChecks {
        pattern,
        format: format.map(str::to_owned),
        lengths: if keeps_lengths { lengths } else { (None, None) },
    }
}

/// Whether the only string among the `oneOf`/`anyOf` alternatives of `schema` is the empty
/// string alone.
fn unsets_with_empty_string(refs: &Resolver<'_>, schema: &Schema) -> bool {
    let strings: Vec<&Schema> = schema
        .one_of
        .iter()
        .chain(&schema.any_of)
        .filter_map(|alternative| refs.resolve(alternative).ok())
        .filter(|alternative| alternative.types == Types::One("string".to_owned()))
        .collect();
    !strings.is_empty()
        && strings
            .iter()
            .all(|string| string.values.as_deref() == Some(&[Value::from("")][..]))
}

/// `schema`, or when it says nothing of its type but has `allOf` parts, the first part
/// (through nested `allOf`s) that does.
fn typed_part<'a>(refs: &'a Resolver<'_>, schema: &'a Schema) -> &'a Schema {
    let mut current = schema;
    // A cycle of `allOf`s ends at the depth limit, at a part with no type.
    for _ in 0..16 {
        let untyped = kind_of(current).is_none()
            && current.one_of.is_empty()
            && current.any_of.is_empty()
            && !matches!(current.types, Types::Many(_));
        if !untyped {
            return current;
        }
        let next = current
            .all_of
            .iter()
            .filter_map(|part| refs.resolve(part).ok())
            .find(|part| {
                kind_of(part).is_some()
                    || !part.one_of.is_empty()
                    || !part.any_of.is_empty()
                    || !part.all_of.is_empty()
            });
        match next {
            Some(part) => current = part,
            None => return current,
        }
    }
    current
}

/// The distinct non-null types a schema allows through a `type` list or `oneOf`/`anyOf`
/// alternatives, in order of appearance.
fn alternative_kinds(refs: &Resolver<'_>, schema: &Schema) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    let mut push = |kind: Option<&'static str>| {
        if let Some(kind) = kind
            && !kinds.contains(&kind)
        {
            kinds.push(kind);
        }
    };
    if let Types::Many(listed) = &schema.types {
        for kind in listed {
            push(known_kind(kind));
        }
    }
    for alternative in schema.one_of.iter().chain(&schema.any_of) {
        let Ok(alternative) = refs.resolve(alternative) else {
            continue;
        };
        match kind_of(alternative) {
            Some(kind) => push(Some(kind)),
            None => alternative_kinds(refs, alternative)
                .into_iter()
                .for_each(|kind| push(Some(kind))),
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

/// The adapter type of `schema`: its `type` (the only non-null one of an OpenAPI 3.1 list),
/// else `object` with `properties` and `array` with `items`.
fn kind_of(schema: &Schema) -> Option<&'static str> {
    let named = match &schema.types {
        Types::One(kind) => Some(kind.as_str()),
        Types::Many(_) => match schema.types.non_null().as_slice() {
            [only] => Some(*only),
            _ => None,
        },
        Types::Absent => None,
    };
    match named {
        Some(kind) => known_kind(kind),
        None if schema.properties.is_some() => Some("object"),
        None if schema.items.is_some() => Some("array"),
        None => None,
    }
}

/// The adapter type named `kind`, if any.
fn known_kind(kind: &str) -> Option<&'static str> {
    ["string", "integer", "number", "boolean", "array", "object"]
        .into_iter()
        .find(|known| *known == kind)
}

/// The first line or sentence of `text`, HTML and Markdown links reduced to their text, at
/// most [`MAX_DESCRIPTION`] characters.
pub fn shorten(text: &str) -> String {
    let text = super::html::plain(text);
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
