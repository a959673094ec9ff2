//! `$ref` resolution inside one document.

use serde_json::Value;

/// `text` with `%XX` escapes decoded; invalid escapes and invalid UTF-8 stay as written.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes
            .get(index + 1..index + 3)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[index], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                index += 3;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// `value`, or what its `$ref` chain points at (`#/...` pointers only).
pub fn resolve<'a>(document: &'a Value, mut value: &'a Value) -> Result<&'a Value, String> {
    for _ in 0..32 {
        let Some(target) = value.get("$ref").and_then(Value::as_str) else {
            return Ok(value);
        };
        let pointer = target
            .strip_prefix('#')
            .ok_or_else(|| format!("`$ref` {target} points outside the document"))?;
        // A `$ref` is a URI: its fragment may percent-encode the pointer (`%7Bid%7D`).
        let pointer = percent_decoded(pointer);
        value = document
            .pointer(&pointer)
            .ok_or_else(|| format!("`$ref` {target} points at nothing"))?;
    }
    Err("a `$ref` chain is longer than 32 links".to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn resolves_percent_encoded_pointers() {
        let document = json!({"paths": {"/a/{id}": {"parameters": [{"name": "id"}]}}});
        let reference = json!({"$ref": "#/paths/~1a~1%7Bid%7D/parameters/0"});
        assert_eq!(resolve(&document, &reference), Ok(&json!({"name": "id"})));
        assert_eq!(percent_decoded("%zz%41"), "%zzA");
    }
}
