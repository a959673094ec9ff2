//! Support for generated parameter parsing: the checks every `from_params` calls, in the
//! order unknown -> missing -> types -> constraints -> defaults (spec digest §10, item 35).

use serde_json::Value;

use crate::error::{AqlError, ErrorCode};

/// Why a request's params were refused. Converted into the client-facing [`AqlError`].
#[derive(Debug, Clone, PartialEq)]
pub enum ParamError {
    /// Names not defined for the operation (`VALIDATION_UNKNOWN_PARAM`).
    Unknown {
        /// Operation name.
        operation: &'static str,
        /// Every unknown name, in request order.
        unknown: Vec<String>,
        /// The names the operation accepts.
        valid: &'static [&'static str],
    },
    /// Keys inside UPDATE `input` that are not updatable fields (`VALIDATION_UNKNOWN_FIELD`).
    UnknownField {
        /// Operation name.
        operation: &'static str,
        /// Every unknown key.
        unknown: Vec<String>,
        /// The fields `input` accepts.
        valid: &'static [&'static str],
    },
    /// A required param is absent (`VALIDATION_MISSING_PARAM`).
    Missing {
        /// Param name (or `input.<field>`).
        param: &'static str,
        /// Its schema type.
        expected: &'static str,
        /// Its schema description, if any.
        description: &'static str,
    },
    /// A value has the wrong JSON type (`VALIDATION_INVALID_TYPE`).
    InvalidType {
        /// Param name (or `input.<field>`, or `name[3]` for an array element).
        param: String,
        /// Schema type expected.
        expected: &'static str,
        /// JSON type found: string, integer, number, boolean, array, object or null.
        actual: &'static str,
    },
    /// A value breaks an enum, minimum, maximum or pattern constraint (`VALIDATION_INVALID_VALUE`).
    InvalidValue {
        /// Param name.
        param: String,
        /// What the value must satisfy, e.g. `one of 'open', 'closed'` or `>= 1`.
        constraint: String,
        /// The offending value.
        value: Value,
    },
}

/// The JSON type name of a value as clients know it.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn quoted_list<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("'{}'", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

impl From<ParamError> for AqlError {
    fn from(error: ParamError) -> Self {
        match error {
            ParamError::Unknown {
                operation,
                unknown,
                valid,
            } => AqlError::new(
                ErrorCode::ValidationUnknownParam,
                format!(
                    "Unknown parameter(s) for operation '{operation}': {}. Valid parameters: {}",
                    quoted_list(&unknown),
                    if valid.is_empty() { "none".to_owned() } else { quoted_list(valid) }
                ),
            )
            .with_detail("operation", operation)
            .with_detail("unknown_params", unknown)
            .with_detail("valid_params", valid.to_vec()),
            ParamError::UnknownField {
                operation,
                unknown,
                valid,
            } => AqlError::new(
                ErrorCode::ValidationUnknownField,
                format!(
                    "Unknown field(s) in 'input' for operation '{operation}': {}. Valid fields: {}",
                    quoted_list(&unknown),
                    quoted_list(valid)
                ),
            )
            .with_detail("operation", operation)
            .with_detail("unknown_fields", unknown)
            .with_detail("valid_fields", valid.to_vec()),
            ParamError::Missing {
                param,
                expected,
                description,
            } => {
                let mut message = format!("Missing required parameter '{param}'. Expected: {expected}");
                if !description.is_empty() {
                    message.push_str(&format!(" ({description})"));
                }
                AqlError::new(ErrorCode::ValidationMissingParam, message)
                    .with_detail("param_name", param)
                    .with_detail("expected_type", expected)
            }
            ParamError::InvalidType {
                param,
                expected,
                actual,
            } => AqlError::new(
                ErrorCode::ValidationInvalidType,
                format!("Parameter '{param}' expected '{expected}', got '{actual}'"),
            )
            .with_detail("param_name", param)
            .with_detail("expected_type", expected)
            .with_detail("actual_type", actual),
            ParamError::InvalidValue {
                param,
                constraint,
                value,
            } => AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!("Parameter '{param}' must be {constraint}, got {value}"),
            )
            .with_detail("param_name", param)
            .with_detail("constraint", constraint)
            .with_detail("value", value),
        }
    }
}
