//! The values of a query key in one item, typed by the key's kind, and how they compare.

use std::cmp::Ordering;

use serde_json::Value;

use crate::adapter::{ComputedField, FieldKind, JsonPath, QueryField};
use crate::clock;
use aqlgen_model::COMPUTED_MEMBER;

/// What `filter`, `sort` and `aggregate` name: a query field, or a computed one.
#[derive(Debug, Clone, Copy)]
pub enum Key {
    /// A query field with a path (or only an upstream filter or sort).
    Field(&'static QueryField),
    /// A computed field, read from the item's `_computed` once computed.
    Computed(&'static ComputedField),
}

impl Key {
    /// The key `name` among `fields` and `computed` (as `_computed.<name>`).
    pub fn find(
        name: &str,
        fields: &'static [QueryField],
        computed: &'static [ComputedField],
    ) -> Option<Self> {
        match name
            .strip_prefix(COMPUTED_MEMBER)
            .and_then(|rest| rest.strip_prefix('.'))
        {
            Some(computed_name) => computed
                .iter()
                .find(|field| field.name == computed_name)
                .map(Self::Computed),
            None => fields
                .iter()
                .find(|field| field.name == name)
                .map(Self::Field),
        }
    }

    /// Its name as requests write it.
    pub fn name(&self) -> String {
        match self {
            Self::Field(field) => field.name.to_owned(),
            Self::Computed(field) => format!("{COMPUTED_MEMBER}.{}", field.name),
        }
    }

    /// What its values are compared as.
    pub fn kind(&self) -> FieldKind {
        match self {
            Self::Field(field) => field.kind,
            Self::Computed(field) => field.kind,
        }
    }

    /// Whether it can be evaluated here, on the items.
    pub fn is_local(&self) -> bool {
        match self {
            Self::Field(field) => field.path.is_some(),
            Self::Computed(_) => true,
        }
    }

    /// Whether it is a computed field.
    pub fn is_computed(&self) -> bool {
        matches!(self, Self::Computed(_))
    }

    /// Its values in `item`, typed; `multi` when they come through an array (several or
    /// none are normal).
    pub fn values(&self, item: &Value) -> Values {
        let mut values = Values::default();
        match self {
            Self::Field(field) => {
                if let Some(path) = field.path {
                    collect(item, path, field.kind, &mut values);
                }
            }
            Self::Computed(field) => {
                if let Some(value) = item.get(COMPUTED_MEMBER).and_then(|c| c.get(field.name)) {
                    push(value, field.kind, &mut values);
                }
            }
        }
        values
    }
}

/// The values one item has for one key.
#[derive(Debug, Default)]
pub struct Values {
    /// Each value, typed; nulls and values of another type are left out.
    pub scalars: Vec<Scalar>,
    /// Whether the path went through an array: the key has several values, not one.
    pub multi: bool,
}

fn collect(value: &Value, path: JsonPath, kind: FieldKind, out: &mut Values) {
    match (value, path.split_first()) {
        (Value::Array(elements), _) => {
            out.multi = true;
            for element in elements {
                collect(element, path, kind, out);
            }
        }
        (Value::Object(object), Some((first, rest))) => {
            if let Some(member) = object.get(*first) {
                collect(member, rest, kind, out);
            }
        }
        (_, None) => push(value, kind, out),
        _ => {}
    }
}

fn push(value: &Value, kind: FieldKind, out: &mut Values) {
    match value {
        Value::Array(elements) => {
            out.multi = true;
            for element in elements {
                push(element, kind, out);
            }
        }
        _ => out.scalars.extend(Scalar::of(kind, value)),
    }
}

/// One typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// Text.
    Text(String),
    /// A number.
    Number(f64),
    /// A boolean.
    Bool(bool),
    /// An instant, in Unix seconds, with the text it was read from.
    Instant(i64, String),
}

impl Scalar {
    /// `value` as a value of `kind`; `None` when it is not one.
    pub fn of(kind: FieldKind, value: &Value) -> Option<Self> {
        match (kind, value) {
            (FieldKind::String, Value::String(text)) => Some(Self::Text(text.clone())),
            (FieldKind::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => {
                n.as_f64().map(Self::Number)
            }
            (FieldKind::Number, Value::Number(n)) => n.as_f64().map(Self::Number),
            (FieldKind::Boolean, Value::Bool(b)) => Some(Self::Bool(*b)),
            (FieldKind::DateTime, Value::String(text)) => {
                clock::parse_instant(text).map(|at| Self::Instant(at, text.clone()))
            }
            _ => None,
        }
    }

    /// The value as JSON.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Text(text) | Self::Instant(_, text) => text.clone().into(),
            Self::Number(n) => number(*n),
            Self::Bool(b) => (*b).into(),
        }
    }

    /// The text a group is keyed by.
    pub fn group_key(&self) -> String {
        match self {
            Self::Text(text) | Self::Instant(_, text) => text.clone(),
            Self::Number(n) => number(*n).to_string(),
            Self::Bool(b) => b.to_string(),
        }
    }

    /// The number, for `sum` and `avg`.
    pub fn as_number(&self) -> Option<f64> {
        match self {
            Self::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// How two values of one kind order; values of different kinds are equal.
    pub fn compare(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Text(a), Self::Text(b)) => a.cmp(b),
            (Self::Number(a), Self::Number(b)) => a.total_cmp(b),
            (Self::Bool(a), Self::Bool(b)) => a.cmp(b),
            (Self::Instant(a, _), Self::Instant(b, _)) => a.cmp(b),
            _ => Ordering::Equal,
        }
    }

    /// Whether two values are the same value.
    pub fn same(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Equal
            && std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// A number as JSON: whole numbers as integers.
pub fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    static LABELS: QueryField = QueryField {
        name: "label",
        path: Some(&["labels", "name"]),
        kind: FieldKind::String,
        filter: None,
        sort: None,
    };
    static CREATED: QueryField = QueryField {
        name: "created_at",
        path: Some(&["created_at"]),
        kind: FieldKind::DateTime,
        filter: None,
        sort: None,
    };

    #[test]
    fn values_come_through_arrays() {
        let item =
            json!({"labels": [{"name": "bug"}, {"name": "ui"}, {}], "created_at": "2026-01-01"});
        let values = Key::Field(&LABELS).values(&item);
        assert!(values.multi);
        assert_eq!(
            values.scalars,
            [Scalar::Text("bug".into()), Scalar::Text("ui".into())]
        );
        let values = Key::Field(&CREATED).values(&item);
        assert!(!values.multi);
        assert_eq!(values.scalars.len(), 1);
        assert!(
            Key::Field(&CREATED)
                .values(&json!({"created_at": "soon"}))
                .scalars
                .is_empty()
        );
    }

    #[test]
    fn numbers_print_whole_when_whole() {
        assert_eq!(number(3.0), json!(3));
        assert_eq!(number(2.5), json!(2.5));
        assert_eq!(Scalar::Number(4.0).group_key(), "4");
    }
}
