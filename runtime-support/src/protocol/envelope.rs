//! The MCP-AQL request envelope: `{operation, params?, ...top-level params}` (SPEC §4.1-4.2),
//! and the payload limits and encoding checks every request passes (SPEC §4.7).

use serde_json::{Map, Value};

use crate::call::gate::QUOTA_PARAM;
use crate::config::Limits;
use crate::error::{AqlError, ErrorCode};
use crate::params::json_type;
use crate::text::{serialized_len, shorten};

/// A parsed request: the operation name and its resolved params.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// The operation, a snake_case name.
    pub operation: String,
    /// `params` merged over the top-level params, `_`-prefixed keys left out.
    pub params: Map<String, Value>,
    /// `_quota_continue`, the token that continues past a quota's pause threshold, from
    /// `params` or the top level (rate-limiting §4.4).
    pub quota_continue: Option<Value>,
}

/// Whether `name` is snake_case: `^[a-z][a-z0-9_]*$`.
pub fn is_snake_case(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z'))
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

impl Envelope {
    /// Splits tool arguments into operation and params. Top-level keys other than
    /// `operation` and `params` are params too; a name in both places takes the value in
    /// `params`; keys starting with `_` are metadata and never reach the operation.
    pub fn parse(arguments: Option<Map<String, Value>>) -> Result<Self, AqlError> {
        let mut arguments = arguments.unwrap_or_default();
        let operation = match arguments.remove("operation") {
            None | Some(Value::Null) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationMissingParam,
                    "Missing required parameter 'operation'. Expected: string (an operation name; call 'introspect' with query 'operations' to list them)",
                )
                .with_detail("param_name", "operation")
                .with_detail("expected_type", "string"));
            }
            Some(Value::String(name)) => name,
            Some(other) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationInvalidType,
                    format!(
                        "Parameter 'operation' expected 'string', got '{}'",
                        json_type(&other)
                    ),
                )
                .with_detail("param_name", "operation")
                .with_detail("expected_type", "string")
                .with_detail("actual_type", json_type(&other)));
            }
        };
        if !is_snake_case(&operation) {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!(
                    "Parameter 'operation' must be a snake_case operation name (lowercase letters, digits and '_', starting with a letter), got '{}'",
                    shorten(&operation, 80)
                ),
            )
            .with_detail("param_name", "operation")
            .with_detail("constraint", "^[a-z][a-z0-9_]*$"));
        }
        let nested = match arguments.remove("params") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationInvalidType,
                    format!(
                        "Parameter 'params' expected 'object', got '{}'",
                        json_type(&other)
                    ),
                )
                .with_detail("param_name", "params")
                .with_detail("expected_type", "object")
                .with_detail("actual_type", json_type(&other)));
            }
        };
        let mut params = arguments;
        let mut quota_continue = params.remove(QUOTA_PARAM);
        params.retain(|key, _| !key.starts_with('_'));
        for (key, value) in nested {
            if key == QUOTA_PARAM {
                quota_continue = Some(value);
            } else if !key.starts_with('_') {
                params.insert(key, value);
            }
        }
        Ok(Self {
            operation,
            params,
            quota_continue: quota_continue.filter(|value| !value.is_null()),
        })
    }
}

/// Checks the request size, every string, array and nesting level against `limits`, and
/// rejects strings holding a NUL character.
pub fn check_payload(arguments: &Map<String, Value>, limits: &Limits) -> Result<(), AqlError> {
    let size = serialized_len(arguments);
    if size > limits.max_request_size {
        return Err(too_large(
            "request_size",
            limits.max_request_size,
            size,
            "bytes",
        ));
    }
    check_object(arguments, 1, limits, &mut Vec::new())
}

/// `VALIDATION_PAYLOAD_TOO_LARGE` with the details ERR §4.7 names.
pub fn too_large(limit_type: &str, limit: usize, actual: usize, unit: &str) -> AqlError {
    AqlError::new(
        ErrorCode::ValidationPayloadTooLarge,
        format!("Payload exceeds {limit_type} limit of {limit} {unit} (found {actual})"),
    )
    .with_detail("limit_type", limit_type)
    .with_detail("limit_value", limit)
    .with_detail("actual_value", actual)
    .with_detail("unit", unit)
}

/// One step of the path to a value, kept on a stack and rendered only when a check fails.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn render(path: &[Step<'_>]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    if text.is_empty() {
        text.push_str("arguments");
    }
    text
}

fn check_object<'a>(
    object: &'a Map<String, Value>,
    depth: usize,
    limits: &Limits,
    path: &mut Vec<Step<'a>>,
) -> Result<(), AqlError> {
    if depth > limits.max_nesting_depth {
        return Err(
            too_large("nesting_depth", limits.max_nesting_depth, depth, "levels")
                .with_detail("location", render(path)),
        );
    }
    for (key, value) in object {
        check_string(key, limits, path)?;
        path.push(Step::Key(key));
        check_value(value, depth, limits, path)?;
        path.pop();
    }
    Ok(())
}

fn check_value<'a>(
    value: &'a Value,
    depth: usize,
    limits: &Limits,
    path: &mut Vec<Step<'a>>,
) -> Result<(), AqlError> {
    match value {
        Value::String(text) => check_string(text, limits, path),
        Value::Object(object) => check_object(object, depth + 1, limits, path),
        Value::Array(items) => {
            if depth + 1 > limits.max_nesting_depth {
                return Err(too_large(
                    "nesting_depth",
                    limits.max_nesting_depth,
                    depth + 1,
                    "levels",
                )
                .with_detail("location", render(path)));
            }
            if items.len() > limits.max_array_elements {
                return Err(too_large(
                    "array_elements",
                    limits.max_array_elements,
                    items.len(),
                    "elements",
                )
                .with_detail("location", render(path)));
            }
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Index(index));
                check_value(item, depth + 1, limits, path)?;
                path.pop();
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(()),
    }
}

fn check_string(text: &str, limits: &Limits, path: &[Step<'_>]) -> Result<(), AqlError> {
    if text.len() > limits.max_string_length {
        return Err(too_large(
            "string_length",
            limits.max_string_length,
            text.len(),
            "bytes",
        )
        .with_detail("location", render(path)));
    }
    if let Some(offset) = text.bytes().position(|b| b == 0) {
        let location = render(path);
        return Err(AqlError::new(
            ErrorCode::ValidationInvalidEncoding,
            format!("Invalid character encoding in request: NUL character in '{location}'"),
        )
        .with_detail("location", location)
        .with_detail("byte_offset", offset));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(value: Value) -> Option<Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    #[test]
    fn params_win_over_top_level_and_metadata_is_dropped() {
        let envelope = Envelope::parse(args(json!({
            "operation": "get_repo",
            "owner": "top",
            "repo": "r",
            "_meta": {"x": 1},
            "params": {"owner": "inner", "_confirmation": "c", "_quota_continue": "quota_continue_x"}
        })))
        .expect("valid");
        assert_eq!(envelope.operation, "get_repo");
        assert_eq!(envelope.quota_continue, Some(json!("quota_continue_x")));
        assert_eq!(
            Value::Object(envelope.params),
            json!({"owner": "inner", "repo": "r"})
        );
    }

    #[test]
    fn envelope_errors_use_the_taxonomy() {
        let table = [
            (json!({}), ErrorCode::ValidationMissingParam),
            (json!({"operation": 3}), ErrorCode::ValidationInvalidType),
            (json!({"operation": ""}), ErrorCode::ValidationInvalidValue),
            (
                json!({"operation": "GetRepo"}),
                ErrorCode::ValidationInvalidValue,
            ),
            (
                json!({"operation": "a", "params": []}),
                ErrorCode::ValidationInvalidType,
            ),
        ];
        for (input, code) in table {
            let error = Envelope::parse(args(input.clone())).expect_err("invalid");
            assert_eq!(error.code, code, "{input}");
        }
    }

    #[test]
    fn limits_name_the_limit() {
        let limits = Limits {
            max_request_size: 120,
            max_response_size: 1000,
            max_string_length: 10,
            max_array_elements: 3,
            max_nesting_depth: 3,
            max_batch_size: 2,
        };
        let table = [
            (json!({"s": "x".repeat(11)}), "string_length"),
            (json!({"a": [1, 2, 3, 4]}), "array_elements"),
            (json!({"a": {"b": {"c": {}}}}), "nesting_depth"),
            (json!({"a": [[[]]]}), "nesting_depth"),
            (
                json!({"a": "x".repeat(9), "b": "x".repeat(9), "c": "x".repeat(9), "d": [ "x".repeat(9), "x".repeat(9), "x".repeat(9)], "e": ["x".repeat(9), "x".repeat(9), "x".repeat(9)], "f": ["x".repeat(9), "x".repeat(9), "x".repeat(9)]}),
                "request_size",
            ),
        ];
        for (input, limit_type) in table {
            let error = check_payload(&args(input.clone()).expect("object"), &limits)
                .expect_err("over the limit");
            assert_eq!(error.code, ErrorCode::ValidationPayloadTooLarge);
            assert_eq!(error.details["limit_type"], limit_type, "{input}");
        }
        assert!(check_payload(&args(json!({"a": {"b": [1]}})).expect("object"), &limits).is_ok());
    }

    #[test]
    fn nul_bytes_are_an_encoding_error() {
        let error = check_payload(
            &args(json!({"params": {"title": "a\u{0}b"}})).expect("object"),
            &Limits::default(),
        )
        .expect_err("NUL");
        assert_eq!(error.code, ErrorCode::ValidationInvalidEncoding);
        assert_eq!(error.details["location"], "params.title");
        assert_eq!(error.details["byte_offset"], 1);
    }
}
