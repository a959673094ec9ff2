//! What compiled computed fields are built from (computed-fields §2). `aqlgen` turns each
//! expression of a schema into one Rust expression over these helpers; nothing here reads an
//! expression. Every value is an `Option`: a missing field, a null, a value of another type,
//! an overflow or a division by zero is `None`, and so is whatever is computed from it.

use serde_json::Value;

use crate::clock;

/// The member at `path` of `item`; through an array, the list of each element's member.
pub fn field(item: &Value, path: &[&str]) -> Option<Value> {
    let Some((first, rest)) = path.split_first() else {
        return Some(item.clone()).filter(|value| !value.is_null());
    };
    match item {
        Value::Object(object) => field(object.get(*first)?, rest),
        Value::Array(elements) => Some(Value::Array(
            elements
                .iter()
                .filter_map(|element| field(element, path))
                .collect(),
        )),
        _ => None,
    }
}

/// Text, if `value` is text.
pub fn text(value: Option<Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// A whole number, if `value` is one that fits.
pub fn int(value: Option<Value>) -> Option<i64> {
    value?.as_i64()
}

/// A number, if `value` is one.
pub fn num(value: Option<Value>) -> Option<f64> {
    value?.as_f64()
}

/// A boolean, if `value` is one.
pub fn boolean(value: Option<Value>) -> Option<bool> {
    value?.as_bool()
}

/// A whole number as a number.
pub fn float(value: Option<i64>) -> Option<f64> {
    value.map(|value| value as f64)
}

/// The elements of an array, or the characters of text.
pub fn len(value: Option<Value>) -> Option<i64> {
    match value? {
        Value::Array(elements) => i64::try_from(elements.len()).ok(),
        Value::String(text) => text_len(Some(text)),
        _ => None,
    }
}

/// The characters of text.
pub fn text_len(value: Option<String>) -> Option<i64> {
    i64::try_from(value?.chars().count()).ok()
}

/// Whether `value` is there and not null.
pub fn present<T>(value: &Option<T>) -> bool {
    value.is_some()
}

/// `f(a, b)` when both are there.
pub fn zip_with<A, B, T>(a: Option<A>, b: Option<B>, f: impl FnOnce(A, B) -> T) -> Option<T> {
    Some(f(a?, b?))
}

/// Integer arithmetic that gives `None` rather than overflow.
pub fn checked(a: Option<i64>, b: Option<i64>, f: fn(i64, i64) -> Option<i64>) -> Option<i64> {
    f(a?, b?)
}

/// `a / b`; `None` for a division by zero.
pub fn divide(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    let (a, b) = (a?, b?);
    (b != 0.0).then(|| a / b)
}

/// `a && b` in three values: false wins over unknown.
pub fn and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// `a || b` in three values: true wins over unknown.
pub fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// The nearest whole number, if it fits.
pub fn round(value: Option<f64>) -> Option<i64> {
    let rounded = value?.round();
    (rounded.is_finite() && rounded.abs() < 9.2e18).then_some(rounded as i64)
}

/// Text joined; `None` when a part is missing.
pub fn concat<const N: usize>(parts: [Option<String>; N]) -> Option<String> {
    let mut joined = String::new();
    for part in parts {
        joined.push_str(&part?);
    }
    Some(joined)
}

/// Whole days from the instant `from` to `now` (Unix seconds), rounded down.
pub fn days_since(from: Option<String>, now: i64) -> Option<i64> {
    let from = clock::parse_instant(&from?)?;
    Some(now.checked_sub(from)?.div_euclid(86_400))
}

/// Hours from the instant `from` to `now`.
pub fn hours_since(from: Option<String>, now: i64) -> Option<f64> {
    let from = clock::parse_instant(&from?)?;
    Some(now.checked_sub(from)? as f64 / 3600.0)
}

/// Whole days from the instant `from` to the instant `to`, rounded down.
pub fn days_between(from: Option<String>, to: Option<String>) -> Option<i64> {
    let (from, to) = (clock::parse_instant(&from?)?, clock::parse_instant(&to?)?);
    Some(to.checked_sub(from)?.div_euclid(86_400))
}

/// A computed value as JSON: null when there is none.
pub fn json<T: IntoJson>(value: Option<T>) -> Value {
    value.map_or(Value::Null, IntoJson::into_json)
}

/// What a computed value is as JSON.
pub trait IntoJson {
    /// The JSON value.
    fn into_json(self) -> Value;
}

impl IntoJson for i64 {
    fn into_json(self) -> Value {
        self.into()
    }
}

impl IntoJson for f64 {
    fn into_json(self) -> Value {
        serde_json::Number::from_f64(self).map_or(Value::Null, Value::Number)
    }
}

impl IntoJson for String {
    fn into_json(self) -> Value {
        self.into()
    }
}

impl IntoJson for bool {
    fn into_json(self) -> Value {
        self.into()
    }
}

impl IntoJson for Value {
    fn into_json(self) -> Value {
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn missing_and_mistyped_values_are_none() {
        let item = json!({"title": "a", "comments": 3, "labels": [{"name": "bug"}, {"name": "ui"}], "user": null});
        assert_eq!(
            field(&item, &["labels", "name"]),
            Some(json!(["bug", "ui"]))
        );
        assert_eq!(field(&item, &["user", "login"]), None);
        assert_eq!(len(field(&item, &["labels"])), Some(2));
        assert_eq!(int(field(&item, &["title"])), None);
        assert_eq!(checked(Some(i64::MAX), Some(1), i64::checked_add), None);
        assert_eq!(divide(Some(1.0), Some(0.0)), None);
        assert_eq!(and(Some(false), None), Some(false));
        assert_eq!(or(None, Some(false)), None);
        assert_eq!(json::<f64>(Some(f64::NAN)), Value::Null);
        assert_eq!(concat([Some("a".into()), None]), None);
        assert_eq!(round(Some(1e300)), None);
    }

    #[test]
    fn dates_count_whole_days() {
        let now = clock::parse_instant("2026-11-29T12:00:00Z").unwrap();
        assert_eq!(
            days_since(Some("2026-11-27T13:00:00Z".into()), now),
            Some(1)
        );
        assert_eq!(days_since(Some("2026-11-29".into()), now), Some(0));
        assert_eq!(days_since(Some("yesterday".into()), now), None);
        assert_eq!(
            hours_since(Some("2026-11-29T09:00:00+01:00".into()), now),
            Some(4.0)
        );
        assert_eq!(
            days_between(Some("2026-01-01".into()), Some("2026-03-01".into())),
            Some(59)
        );
    }
}
