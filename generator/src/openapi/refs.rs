//! `$ref` resolution inside one document.

use serde_json::Value;

/// `value`, or what its `$ref` chain points at (`#/...` pointers only).
pub fn resolve<'a>(document: &'a Value, mut value: &'a Value) -> Result<&'a Value, String> {
    for _ in 0..32 {
        let Some(target) = value.get("$ref").and_then(Value::as_str) else {
            return Ok(value);
        };
        let pointer = target
            .strip_prefix('#')
            .ok_or_else(|| format!("`$ref` {target} points outside the document"))?;
        value = document
            .pointer(pointer)
            .ok_or_else(|| format!("`$ref` {target} points at nothing"))?;
    }
    Err("a `$ref` chain is longer than 32 links".to_owned())
}
