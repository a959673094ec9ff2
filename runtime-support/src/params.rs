//! Support for generated parameter parsing: the checks every `from_params` calls, in the
//! order unknown -> missing -> types -> constraints -> defaults (spec digest §10, item 35).

use std::sync::OnceLock;

pub use aqlgen_model::StringFormat;

use regex::Regex;
use serde_json::{Map, Value};

use crate::error::{AqlError, ErrorCode};

/// Why a request's params were refused; the runtime turns it into the client's error.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamError {
    /// Names not defined for the operation (`VALIDATION_UNKNOWN_PARAM`).
    Unknown {
        /// Operation name.
        operation: &'static str,
        /// The first [`MAX_LISTED`] unknown names, in request order, each cut to 80 characters.
        unknown: Vec<String>,
        /// How many more there are.
        more: usize,
        /// The names the operation accepts.
        valid: &'static [&'static str],
    },
    /// Keys inside UPDATE `input` that are not updatable fields (`VALIDATION_UNKNOWN_FIELD`).
    UnknownField {
        /// Operation name.
        operation: &'static str,
        /// The first [`MAX_LISTED`] unknown keys, each cut to 80 characters.
        unknown: Vec<String>,
        /// How many more there are.
        more: usize,
        /// The fields `input` accepts.
        valid: &'static [&'static str],
    },
    /// A required param is absent (`VALIDATION_MISSING_PARAM`).
    Missing {
        /// Param name (or `input.<field>`).
        param: &'static str,
        /// Its schema type.
        expected: &'static str,
    },
    /// No set of params one of which the operation requires is given in full: a body's
    /// `oneOf`/`anyOf` variants (`VALIDATION_MISSING_PARAM`).
    MissingAlternative {
        /// The sets, by label; each alone would do.
        alternatives: &'static [&'static [&'static str]],
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

/// `VALIDATION_INVALID_TYPE` for `value`, given as `param`, which takes `expected`.
pub fn wrong_type(param: &str, expected: &'static str, value: &Value) -> AqlError {
    ParamError::InvalidType {
        param: param.to_owned(),
        expected,
        actual: json_type(value),
    }
    .into()
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

/// Most unknown names an answer lists: a request with thousands of them gets an answer of a
/// few hundred bytes, not one larger than itself.
pub const MAX_LISTED: usize = 10;

/// `names` quoted, with "and N more" when some were left out.
fn listed(names: &[String], more: usize) -> String {
    let mut text = quoted_list(names);
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

impl From<ParamError> for AqlError {
    fn from(error: ParamError) -> Self {
        match error {
            ParamError::Unknown {
                operation,
                unknown,
                more,
                valid,
            } => AqlError::new(
                ErrorCode::ValidationUnknownParam,
                format!(
                    "Unknown parameter(s) for operation '{operation}': {}. Valid parameters: {}",
                    listed(&unknown, more),
                    if valid.is_empty() {
                        "none".to_owned()
                    } else {
                        quoted_list(valid)
                    }
                ),
            )
            .with_detail("operation", operation)
            .with_detail("unknown_params", unknown)
            .with_detail("valid_params", valid.to_vec()),
            ParamError::UnknownField {
                operation,
                unknown,
                more,
                valid,
            } => AqlError::new(
                ErrorCode::ValidationUnknownField,
                format!(
                    "Unknown field(s) in 'input' for operation '{operation}': {}. Valid fields: {}",
                    listed(&unknown, more),
                    quoted_list(valid)
                ),
            )
            .with_detail("operation", operation)
            .with_detail("unknown_fields", unknown)
            .with_detail("valid_fields", valid.to_vec()),
            ParamError::Missing { param, expected } => AqlError::new(
                ErrorCode::ValidationMissingParam,
                format!("Missing required parameter '{param}'. Expected: {expected}"),
            )
            .with_detail("param_name", param)
            .with_detail("expected_type", expected),
            ParamError::MissingAlternative { alternatives } => {
                let sets: Vec<String> = alternatives
                    .iter()
                    .map(|set| format!("{{{}}}", quoted_list(set)))
                    .collect();
                AqlError::new(
                    ErrorCode::ValidationMissingParam,
                    format!(
                        "Missing required parameters: give every one of {}",
                        sets.join(" or ")
                    ),
                )
                .with_detail("param_name", alternatives[0][0])
                .with_detail(
                    "alternatives",
                    alternatives
                        .iter()
                        .map(|set| set.to_vec())
                        .collect::<Vec<_>>(),
                )
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

/// A Rust type a schema param type parses into.
pub trait ParamValue: Sized {
    /// The schema type name, e.g. `integer`.
    const EXPECTED: &'static str;
    /// The value, when its JSON type fits.
    fn from_json(value: &Value) -> Option<Self>;
    /// Why `value`, which [`ParamValue::from_json`] refused, is not one of these.
    fn refusal(label: &str, value: &Value) -> ParamError {
        ParamError::InvalidType {
            param: label.to_owned(),
            expected: Self::EXPECTED,
            actual: json_type(value),
        }
    }
}

impl ParamValue for String {
    const EXPECTED: &'static str = "string";
    fn from_json(value: &Value) -> Option<Self> {
        value.as_str().map(str::to_owned)
    }
}

impl ParamValue for i64 {
    const EXPECTED: &'static str = "integer";
    fn from_json(value: &Value) -> Option<Self> {
        value.as_i64()
    }
    /// An integer above `i64::MAX` is of the right type and out of range.
    fn refusal(label: &str, value: &Value) -> ParamError {
        if value.is_u64() {
            ParamError::InvalidValue {
                param: label.to_owned(),
                constraint: format!("<= {}", i64::MAX),
                value: value.clone(),
            }
        } else {
            ParamError::InvalidType {
                param: label.to_owned(),
                expected: Self::EXPECTED,
                actual: json_type(value),
            }
        }
    }
}

impl ParamValue for f64 {
    const EXPECTED: &'static str = "number";
    fn from_json(value: &Value) -> Option<Self> {
        value.as_f64()
    }
}

impl ParamValue for bool {
    const EXPECTED: &'static str = "boolean";
    fn from_json(value: &Value) -> Option<Self> {
        value.as_bool()
    }
}

impl ParamValue for Vec<Value> {
    const EXPECTED: &'static str = "array";
    fn from_json(value: &Value) -> Option<Self> {
        value.as_array().cloned()
    }
}

impl ParamValue for Map<String, Value> {
    const EXPECTED: &'static str = "object";
    fn from_json(value: &Value) -> Option<Self> {
        value.as_object().cloned()
    }
}

/// The map key of a param label: `input.title` -> `title`, `owner` -> `owner`.
fn key_of(label: &'static str) -> &'static str {
    label.rsplit('.').next().unwrap_or(label)
}

/// The value under `label`'s key, treating JSON `null` as absent.
fn present<'a>(raw: &'a Map<String, Value>, label: &'static str) -> Option<&'a Value> {
    raw.get(key_of(label)).filter(|value| !value.is_null())
}

/// Refuses every key of `raw` not in `valid` (`VALIDATION_UNKNOWN_PARAM`).
pub fn reject_unknown(
    operation: &'static str,
    raw: &Map<String, Value>,
    valid: &'static [&'static str],
) -> Result<(), ParamError> {
    let mut unknown = raw.keys().filter(|key| !valid.contains(&key.as_str()));
    let listed: Vec<String> = unknown
        .by_ref()
        .take(MAX_LISTED)
        .map(|key| crate::text::shorten(key, 80).into_owned())
        .collect();
    if listed.is_empty() {
        return Ok(());
    }
    Err(ParamError::Unknown {
        operation,
        unknown: listed,
        more: unknown.count(),
        valid,
    })
}

/// [`reject_unknown`] for an operation whose query sends some of its params (`sent`): the
/// runtime puts them in from `query`, `filter` and `sort`, having refused them from callers.
pub fn reject_unknown_but(
    operation: &'static str,
    raw: &Map<String, Value>,
    valid: &'static [&'static str],
    sent: &'static [&'static str],
) -> Result<(), ParamError> {
    if raw
        .keys()
        .all(|key| sent.contains(&key.as_str()) || valid.contains(&key.as_str()))
    {
        return Ok(());
    }
    let given: Map<String, Value> = raw
        .iter()
        .filter(|(key, _)| !sent.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    reject_unknown(operation, &given, valid)
}

/// Refuses every key of an UPDATE `input` not in `valid` (`VALIDATION_UNKNOWN_FIELD`).
pub fn reject_unknown_fields(
    operation: &'static str,
    input: &Map<String, Value>,
    valid: &'static [&'static str],
) -> Result<(), ParamError> {
    reject_unknown(operation, input, valid).map_err(|error| match error {
        ParamError::Unknown {
            operation,
            unknown,
            more,
            valid,
        } => ParamError::UnknownField {
            operation,
            unknown,
            more,
            valid,
        },
        other => other,
    })
}

/// Refuses an absent (or `null`) required param (`VALIDATION_MISSING_PARAM`).
pub fn require(
    raw: &Map<String, Value>,
    label: &'static str,
    expected: &'static str,
) -> Result<(), ParamError> {
    match present(raw, label) {
        Some(_) => Ok(()),
        None => Err(ParamError::Missing {
            param: label,
            expected,
        }),
    }
}

/// Refuses `raw` unless it gives every param of at least one of `alternatives`
/// (`VALIDATION_MISSING_PARAM`), each set a variant of the body the operation sends.
pub fn require_one_of(
    raw: &Map<String, Value>,
    alternatives: &'static [&'static [&'static str]],
) -> Result<(), ParamError> {
    let given = |set: &&[&'static str]| set.iter().all(|label| present(raw, label).is_some());
    if alternatives.iter().any(given) {
        Ok(())
    } else {
        Err(ParamError::MissingAlternative { alternatives })
    }
}

/// The param under `label` as `T`, or `None` when absent (`VALIDATION_INVALID_TYPE`).
pub fn optional<T: ParamValue>(
    raw: &Map<String, Value>,
    label: &'static str,
) -> Result<Option<T>, ParamError> {
    let Some(value) = present(raw, label) else {
        return Ok(None);
    };
    T::from_json(value)
        .map(Some)
        .ok_or_else(|| T::refusal(label, value))
}

/// An optional field of UPDATE `input` (SPEC §4.5.2): left out, which keeps the upstream's
/// value; `null`, which clears it; or a new value.
#[derive(Debug, Clone, PartialEq)]
pub enum Patch<T> {
    /// Not in `input`: not sent.
    Keep,
    /// `null` in `input`: sent as `null`.
    Clear,
    /// A value: sent.
    Set(T),
}

impl<T> Patch<T> {
    /// The new value, when there is one (what constraints are checked against).
    pub fn value(&self) -> Option<&T> {
        match self {
            Self::Set(value) => Some(value),
            Self::Keep | Self::Clear => None,
        }
    }

    /// The body member to send: none to keep, `null` to clear, else the value.
    pub fn into_body(self) -> Option<Value>
    where
        T: Into<Value>,
    {
        match self {
            Self::Keep => None,
            Self::Clear => Some(Value::Null),
            Self::Set(value) => Some(value.into()),
        }
    }
}

/// The `input` field under `label` as a [`Patch`] of `T` (`VALIDATION_INVALID_TYPE`).
pub fn patch<T: ParamValue>(
    input: &Map<String, Value>,
    label: &'static str,
) -> Result<Patch<T>, ParamError> {
    match input.get(key_of(label)) {
        None => Ok(Patch::Keep),
        Some(Value::Null) => Ok(Patch::Clear),
        Some(_) => Ok(optional(input, label)?.map_or(Patch::Keep, Patch::Set)),
    }
}

/// The param under `label` as `T`; call [`require`] first so a missing param is reported
/// before any type error.
pub fn required<T: ParamValue>(
    raw: &Map<String, Value>,
    label: &'static str,
) -> Result<T, ParamError> {
    optional(raw, label)?.ok_or(ParamError::Missing {
        param: label,
        expected: T::EXPECTED,
    })
}

/// Refuses a value outside `allowed` (`VALIDATION_INVALID_VALUE`).
pub fn one_of<T>(label: &'static str, value: Option<T>, allowed: &[T]) -> Result<(), ParamError>
where
    T: PartialEq + Copy + Into<Value> + std::fmt::Display,
{
    match value {
        Some(value) if !allowed.contains(&value) => Err(ParamError::InvalidValue {
            param: label.to_owned(),
            constraint: format!(
                "one of {}",
                allowed
                    .iter()
                    .map(|a| format!("'{a}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            value: value.into(),
        }),
        _ => Ok(()),
    }
}

/// Refuses a string of fewer than `min` or more than `max` characters
/// (`VALIDATION_INVALID_VALUE`).
pub fn length_within(
    label: &'static str,
    value: Option<&str>,
    min: Option<u64>,
    max: Option<u64>,
) -> Result<(), ParamError> {
    let Some(value) = value.filter(|value| !aqlgen_model::length_within(value, (min, max))) else {
        return Ok(());
    };
    let constraint = match (min, max) {
        (Some(min), Some(max)) if min == max => format!("{min} characters long"),
        (Some(min), Some(max)) => format!("{min} to {max} characters long"),
        (Some(min), None) => format!("no fewer than {min} characters long"),
        // Without bounds every length passes, above.
        (None, max) => format!("no more than {} characters long", max.unwrap_or(u64::MAX)),
    };
    Err(ParamError::InvalidValue {
        param: label.to_owned(),
        constraint,
        value: Value::String(crate::text::shorten(value, 80).into_owned()),
    })
}

/// Refuses a value below `minimum` (`VALIDATION_INVALID_VALUE`).
pub fn at_least<T>(label: &'static str, value: Option<T>, minimum: T) -> Result<(), ParamError>
where
    T: PartialOrd + Copy + Into<Value> + std::fmt::Display,
{
    match value {
        Some(value) if value < minimum => Err(ParamError::InvalidValue {
            param: label.to_owned(),
            constraint: format!(">= {minimum}"),
            value: value.into(),
        }),
        _ => Ok(()),
    }
}

/// Refuses a value above `maximum` (`VALIDATION_INVALID_VALUE`).
pub fn at_most<T>(label: &'static str, value: Option<T>, maximum: T) -> Result<(), ParamError>
where
    T: PartialOrd + Copy + Into<Value> + std::fmt::Display,
{
    match value {
        Some(value) if value > maximum => Err(ParamError::InvalidValue {
            param: label.to_owned(),
            constraint: format!("<= {maximum}"),
            value: value.into(),
        }),
        _ => Ok(()),
    }
}

/// A param's `pattern`, compiled the first time a value is checked against it.
///
/// Generated code declares one per patterned param as a `static`, so the regex is built once
/// per process and never for an operation nobody calls.
#[derive(Debug)]
pub struct Pattern {
    source: &'static str,
    compiled: OnceLock<Regex>,
}

impl Pattern {
    /// The pattern `source`, as the schema declares it.
    pub const fn new(source: &'static str) -> Self {
        Self {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// Whether `text` matches.
    pub fn is_match(&self, text: &str) -> bool {
        self.compiled
            .get_or_init(|| {
                Regex::new(self.source).expect("validated: `aqlgen check` compiles every pattern")
            })
            .is_match(text)
    }
}

/// Refuses a string that does not match `pattern` (`VALIDATION_INVALID_VALUE`).
pub fn matching(
    label: &'static str,
    value: Option<&str>,
    pattern: &Pattern,
) -> Result<(), ParamError> {
    match value {
        Some(value) if !pattern.is_match(value) => Err(ParamError::InvalidValue {
            param: label.to_owned(),
            constraint: format!("a string matching the pattern '{}'", pattern.source),
            value: value.into(),
        }),
        _ => Ok(()),
    }
}

/// Refuses a string that is not of its param's `format` (`VALIDATION_INVALID_VALUE`).
pub fn formatted(
    label: &'static str,
    value: Option<&str>,
    format: StringFormat,
) -> Result<(), ParamError> {
    match value {
        Some(value) if !format.matches(value) => Err(ParamError::InvalidValue {
            param: label.to_owned(),
            // No "format 'x'": the spec's runner takes "at" before a space for a leaked path.
            constraint: format!("a '{}' value, {}", format.as_str(), format.shape()),
            value: value.into(),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod helper_tests {
    use serde_json::json;

    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn reports_unknown_then_types() {
        let raw = map(json!({"x": 1, "n": "1"}));
        assert!(matches!(
            reject_unknown("op", &raw, &["n"]),
            Err(ParamError::Unknown { .. })
        ));
        assert!(matches!(
            optional::<i64>(&raw, "n"),
            Err(ParamError::InvalidType {
                actual: "string",
                ..
            })
        ));
        assert_eq!(optional::<String>(&map(json!({"n": null})), "n"), Ok(None));
        assert!(matches!(
            require(&raw, "input.title", "string"),
            Err(ParamError::Missing {
                param: "input.title",
                ..
            })
        ));
    }

    #[test]
    fn lengths_count_characters() {
        assert_eq!(length_within("sid", Some("AC12"), Some(4), Some(4)), Ok(()));
        assert_eq!(length_within("sid", None, Some(4), None), Ok(()));
        assert_eq!(length_within("name", Some("żółw"), None, Some(4)), Ok(()));
        let error = AqlError::from(
            length_within("sid", Some("AC1"), Some(34), Some(34)).expect_err("too short"),
        );
        assert_eq!(
            error.message,
            "Parameter 'sid' must be 34 characters long, got \"AC1\""
        );
    }

    #[test]
    fn one_whole_set_of_alternatives_is_enough() {
        const SETS: &[&[&str]] = &[&["droplet_ids"], &["tag", "tag_scope"]];
        assert_eq!(
            require_one_of(&map(json!({"droplet_ids": [1]})), SETS),
            Ok(())
        );
        assert_eq!(
            require_one_of(&map(json!({"tag": "web", "tag_scope": "all"})), SETS),
            Ok(())
        );
        let error = require_one_of(&map(json!({"tag": "web", "droplet_ids": null})), SETS)
            .expect_err("no set is whole");
        let error = AqlError::from(error);
        assert_eq!(error.code, ErrorCode::ValidationMissingParam);
        assert_eq!(
            error.message,
            "Missing required parameters: give every one of {'droplet_ids'} or {'tag', 'tag_scope'}"
        );
    }

    #[test]
    fn patches_keep_clear_or_set() {
        let input = map(json!({"a": null, "b": "x", "c": 1}));
        assert_eq!(patch::<String>(&input, "input.a"), Ok(Patch::Clear));
        assert_eq!(
            patch::<String>(&input, "input.b"),
            Ok(Patch::Set("x".to_owned()))
        );
        assert_eq!(patch::<String>(&input, "input.z"), Ok(Patch::Keep));
        assert!(patch::<String>(&input, "input.c").is_err());
        assert_eq!(Patch::<String>::Clear.into_body(), Some(Value::Null));
        assert_eq!(Patch::<String>::Keep.into_body(), None);
    }

    #[test]
    fn checks_constraints() {
        assert!(one_of("s", Some("x"), &["a", "b"]).is_err());
        assert!(one_of("s", Some("a"), &["a", "b"]).is_ok());
        assert!(at_least("n", Some(0_i64), 1).is_err());
        assert!(at_most("n", Some(2.5_f64), 2.0).is_err());
        static PATTERN: Pattern = Pattern::new("^a$");
        assert!(matching("p", Some("ab"), &PATTERN).is_err());
        assert!(matching("p", Some("a"), &PATTERN).is_ok());
        assert!(matching("p", None, &PATTERN).is_ok());
    }

    #[test]
    fn an_integer_beyond_range_is_out_of_range_not_of_another_type() {
        let raw = map(json!({"page": u64::MAX, "per_page": -1, "n": 1.5}));
        assert!(matches!(
            optional::<i64>(&raw, "page"),
            Err(ParamError::InvalidValue { ref constraint, .. }) if constraint == "<= 9223372036854775807"
        ));
        assert_eq!(optional::<i64>(&raw, "per_page"), Ok(Some(-1)));
        assert!(matches!(
            optional::<i64>(&raw, "n"),
            Err(ParamError::InvalidType {
                actual: "number",
                ..
            })
        ));
    }
}
