//! JSON text for generated string literals: keys in the order a reader expects (`name` first),
//! and every character that a raw string literal or a reviewer's terminal would show wrongly
//! (controls, bidirectional overrides, invisible formatting) escaped as `\u` sequences.

use serde_json::Value;

use crate::text;

/// Keys in reading order; any other key follows them, alphabetically.
const KEY_ORDER: &[&str] = &[
    "name",
    "semantic_category",
    "endpoint",
    "kind",
    "type",
    "required",
    "description",
    "permissions",
    "readOnly",
    "destructive",
    "parameters",
    "fields",
    "values",
    "returns",
    "examples",
    "request",
    "operation",
    "params",
];

fn rank(key: &str) -> usize {
    KEY_ORDER
        .iter()
        .position(|known| *known == key)
        .unwrap_or(KEY_ORDER.len())
}

/// `value` on one line.
pub fn compact(value: &Value) -> String {
    let mut text = String::new();
    write(&mut text, value, None);
    text
}

/// `value` with one member per line, indented by two spaces.
pub fn pretty(value: &Value) -> String {
    let mut text = String::new();
    write(&mut text, value, Some(0));
    text
}

fn write(text: &mut String, value: &Value, indent: Option<usize>) {
    match value {
        Value::Object(object) if !object.is_empty() => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort_by_key(|key| (rank(key), key.as_str()));
            text.push('{');
            for (index, key) in keys.iter().enumerate() {
                separate(text, index, indent.map(|level| level + 1));
                text::quoted(text, key);
                text.push(':');
                if indent.is_some() {
                    text.push(' ');
                }
                write(text, &object[key.as_str()], indent.map(|level| level + 1));
            }
            close(text, indent);
            text.push('}');
        }
        Value::Array(items) if !items.is_empty() => {
            text.push('[');
            for (index, item) in items.iter().enumerate() {
                separate(text, index, indent.map(|level| level + 1));
                write(text, item, indent.map(|level| level + 1));
            }
            close(text, indent);
            text.push(']');
        }
        Value::String(value) => text::quoted(text, value),
        other => text.push_str(&other.to_string()),
    }
}

fn separate(text: &mut String, index: usize, indent: Option<usize>) {
    if index > 0 {
        text.push(',');
    }
    if let Some(level) = indent {
        text.push('\n');
        text.push_str(&"  ".repeat(level));
    }
}

fn close(text: &mut String, indent: Option<usize>) {
    if let Some(level) = indent {
        text.push('\n');
        text.push_str(&"  ".repeat(level));
    }
}

/// A raw string literal holding `text`, with enough `#`s that nothing in it ends the literal.
pub fn raw_literal(text: &str) -> proc_macro2::Literal {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let fence = "#".repeat(hashes);
    format!("r{fence}\"{text}\"{fence}")
        .parse()
        .expect("a raw string literal parses")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_come_first_and_nothing_invisible_survives() {
        let value = json!({"type": "x", "description": "a\u{202e}b\r\"c\"", "name": "n", "zeta": [1, {}], "alpha": []});
        assert_eq!(
            compact(&value),
            r#"{"name":"n","type":"x","description":"a\u202eb\u000d\"c\"","alpha":[],"zeta":[1,{}]}"#
        );
        let round: Value = serde_json::from_str(&pretty(&value)).expect("valid JSON");
        assert_eq!(round, value);
        assert!(pretty(&value).starts_with("{\n  \"name\": \"n\",\n"));
    }

    #[test]
    fn raw_literals_outlast_their_content() {
        let literal = raw_literal("say \"#hi\"## there").to_string();
        assert!(literal.starts_with("r###\""), "{literal}");
        let parsed: syn::LitStr = syn::parse_str(&literal).expect("a string literal");
        assert_eq!(parsed.value(), "say \"#hi\"## there");
    }
}
