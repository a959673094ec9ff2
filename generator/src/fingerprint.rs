//! The schema fingerprint (REQ-GEN-6): `sha256:` of the front matter as canonical JSON.
//!
//! The YAML front matter is converted to JSON (comments and layout vanish), then written in
//! the style of RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace,
//! integral numbers without a fraction, strings as serde_json escapes them. The Markdown body
//! is not included, so editing documentation keeps the fingerprint. A generator-format
//! document (YAML or JSON) is taken whole, so both spellings of one document agree.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sha256:<hex>` of the front matter, as JSON ([`json_of`]) in canonical form.
pub fn of_yaml(front_matter: &serde_yaml::Value) -> String {
    fingerprint(&json_of(front_matter))
}

/// The JSON a YAML document reads as: mapping keys that are not strings become their text,
/// numbers JSON cannot hold (`.inf`, `.nan`) become `null`, tags are dropped.
pub fn json_of(yaml: &serde_yaml::Value) -> Value {
    use serde_yaml::Value as Yaml;
    match yaml {
        Yaml::Null => Value::Null,
        Yaml::Bool(flag) => Value::Bool(*flag),
        Yaml::Number(number) => number
            .as_i64()
            .map(Value::from)
            .or_else(|| number.as_u64().map(Value::from))
            .or_else(|| {
                number
                    .as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
            })
            .unwrap_or(Value::Null),
        Yaml::String(text) => Value::String(text.clone()),
        Yaml::Sequence(items) => Value::Array(items.iter().map(json_of).collect()),
        Yaml::Mapping(mapping) => Value::Object(
            mapping
                .iter()
                .map(|(key, value)| {
                    let key = match key {
                        Yaml::String(text) => text.clone(),
                        other => serde_yaml::to_string(other)
                            .map(|text| text.trim_end().to_owned())
                            .unwrap_or_default(),
                    };
                    (key, json_of(value))
                })
                .collect(),
        ),
        Yaml::Tagged(tagged) => json_of(&tagged.value),
    }
}

/// `sha256:<hex>` of the canonical JSON form of `document`.
pub fn fingerprint(document: &Value) -> String {
    let mut canonical = String::new();
    write_canonical(document, &mut canonical);
    let digest = Sha256::digest(canonical.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (index, (key, member)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                write_canonical(member, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 1e15 => {
                out.push_str(&format!("{float:.0}"));
            }
            _ => out.push_str(&number.to_string()),
        },
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_ignores_key_order_and_layout() {
        for (a, b, same) in [
            (
                r#"{"b":1,"a":[true,null]}"#,
                r#"{ "a": [true, null], "b": 1 }"#,
                true,
            ),
            (r#"{"n":1.0}"#, r#"{"n":1}"#, true),
            (r#"{"n":1}"#, r#"{"n":2}"#, false),
            (r#"{"s":"é"}"#, r#"{"s":"\u00e9"}"#, true),
        ] {
            let a: Value = serde_json::from_str(a).expect("json");
            let b: Value = serde_json::from_str(b).expect("json");
            assert_eq!(fingerprint(&a) == fingerprint(&b), same, "{a} vs {b}");
        }
    }

    #[test]
    fn fingerprint_of_an_empty_object_is_fixed() {
        assert_eq!(
            fingerprint(&Value::Object(serde_json::Map::new())),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }
}
