//! `filter` (collection-querying §2.2): `{key: value}` for equality, `{key: {operator: value}}`
//! otherwise, every condition applying; each checked against the key's kind before anything is
//! sent, then done by the upstream where the schema maps it, or here on each scanned item.

use serde_json::Value;

use super::values::{Key, Scalar};
use super::{invalid, key_list};
use crate::adapter::{ComputedField, FieldKind, Operator, QueryField};
use crate::error::AqlError;
use crate::params::wrong_type;
use crate::text::shorten;

/// Most values an `in` or `contains` list holds.
pub const MAX_LIST: usize = 100;
/// Most conditions one filter holds.
pub const MAX_CONDITIONS: usize = 32;

/// What a condition compares with.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// One value.
    One(Scalar),
    /// A list (`in`, or `contains` of several).
    Many(Vec<Scalar>),
    /// `exists`.
    Flag(bool),
}

/// One condition of a filter.
#[derive(Debug, Clone)]
pub struct Condition {
    /// The key.
    pub key: Key,
    /// The operator.
    pub operator: Operator,
    /// The value, typed.
    pub operand: Operand,
    /// The value as given, for the upstream param.
    pub given: Value,
}

impl Condition {
    /// Whether the upstream does this condition: the key's upstream filter has its operator.
    pub fn upstream(&self) -> Option<&'static crate::adapter::UpstreamFilter> {
        match self.key {
            Key::Field(QueryField {
                filter: Some(filter),
                ..
            }) if filter.operator == self.operator => Some(filter),
            _ => None,
        }
    }

    /// The condition's name in the answer's report: `filter.comments.gte`.
    pub fn label(&self) -> String {
        format!("filter.{}.{}", self.key.name(), self.operator.as_str())
    }

    /// Whether `item` meets it.
    pub fn holds(&self, item: &Value) -> bool {
        let values = self.key.values(item);
        let scalars = &values.scalars;
        match (&self.operator, &self.operand) {
            (Operator::Exists, Operand::Flag(wanted)) => scalars.is_empty() != *wanted,
            (Operator::Eq, Operand::One(value)) => scalars.iter().any(|v| v.same(value)),
            (Operator::Ne, Operand::One(value)) => !scalars.iter().any(|v| v.same(value)),
            (Operator::In, Operand::Many(list)) => {
                scalars.iter().any(|v| list.iter().any(|w| v.same(w)))
            }
            (Operator::Contains, operand) => {
                let wanted: &[Scalar] = match operand {
                    Operand::One(value) => std::slice::from_ref(value),
                    Operand::Many(list) => list,
                    Operand::Flag(_) => return false,
                };
                if values.multi {
                    wanted.iter().all(|w| scalars.iter().any(|v| v.same(w)))
                } else {
                    wanted.iter().all(|w| {
                        scalars.iter().any(|v| match (v, w) {
                            (Scalar::Text(text), Scalar::Text(part)) => {
                                text.to_lowercase().contains(&part.to_lowercase())
                            }
                            _ => false,
                        })
                    })
                }
            }
            (op, Operand::One(value)) => scalars.iter().any(|v| {
                let order = v.compare(value);
                std::mem::discriminant(v) == std::mem::discriminant(value)
                    && match op {
                        Operator::Gt => order.is_gt(),
                        Operator::Gte => order.is_ge(),
                        Operator::Lt => order.is_lt(),
                        _ => order.is_le(),
                    }
            }),
            _ => false,
        }
    }
}

/// The conditions of `filter`, checked against `fields` and `computed`.
///
/// # Errors
///
/// `VALIDATION_INVALID_TYPE` for a filter that is not an object or a value of the wrong type,
/// `VALIDATION_INVALID_VALUE` for an unknown key or operator, or an operator the key's kind or
/// place does not take; each names what is accepted.
pub fn parse(
    filter: Value,
    fields: &'static [QueryField],
    computed: &'static [ComputedField],
) -> Result<Vec<Condition>, AqlError> {
    let Value::Object(filter) = filter else {
        return Err(wrong_type("filter", "object", &filter));
    };
    if filter.len() > MAX_CONDITIONS {
        return Err(invalid(
            "filter",
            format!(
                "Parameter 'filter' holds {} keys; the limit is {MAX_CONDITIONS}",
                filter.len()
            ),
        ));
    }
    let filterable: Vec<String> = fields
        .iter()
        .filter(|field| field.path.is_some() || field.filter.is_some())
        .map(|field| field.name.to_owned())
        .chain(computed.iter().map(|field| Key::Computed(field).name()))
        .collect();
    let mut conditions = Vec::new();
    for (name, value) in filter {
        let key = Key::find(&name, fields, computed)
            .filter(|key| filterable.contains(&key.name()))
            .ok_or_else(|| {
                invalid(
                    "filter",
                    format!(
                        "Parameter 'filter' has no key '{}'; its keys are {}",
                        shorten(&name, 64),
                        key_list(&filterable)
                    ),
                )
                .with_detail("valid_keys", filterable.clone())
            })?;
        match value {
            Value::Object(operators) if !operators.is_empty() => {
                for (operator, value) in operators {
                    conditions.push(condition(key, &name, &operator, value)?);
                }
            }
            Value::Object(_) => {
                return Err(invalid(
                    "filter",
                    format!(
                        "Parameter 'filter.{name}' is an empty object; give a value, or {{operator: value}}"
                    ),
                ));
            }
            value => conditions.push(condition(key, &name, "eq", value)?),
        }
    }
    Ok(conditions)
}

fn condition(key: Key, name: &str, operator: &str, given: Value) -> Result<Condition, AqlError> {
    let param = format!("filter.{name}");
    let kind = key.kind();
    let upstream = match key {
        Key::Field(field) => field.filter.map(|filter| filter.operator),
        Key::Computed(_) => None,
    };
    // Here, every operator of the kind; only at the upstream, only its one.
    let offered: Vec<Operator> = if key.is_local() {
        kind.operators().to_vec()
    } else {
        upstream.into_iter().collect()
    };
    let names: Vec<&str> = offered.iter().map(|op| op.as_str()).collect();
    let Some(operator) = Operator::parse(operator).filter(|op| offered.contains(op)) else {
        return Err(invalid(
            &param,
            format!(
                "Parameter '{param}' takes the operators {}; got '{}'",
                names.join(", "),
                shorten(operator, 32)
            ),
        )
        .with_detail("operators", names));
    };
    let one =
        |value: &Value| Scalar::of(kind, value).ok_or_else(|| value_error(&param, kind, value));
    let operand = match operator {
        Operator::Exists => match given {
            Value::Bool(flag) => Operand::Flag(flag),
            ref other => {
                return Err(wrong_type(&format!("{param}.exists"), "boolean", other));
            }
        },
        Operator::In | Operator::Contains if given.is_array() => {
            let list = given.as_array().map(Vec::as_slice).unwrap_or_default();
            if list.is_empty() || list.len() > MAX_LIST {
                return Err(invalid(
                    &param,
                    format!(
                        "Parameter '{param}' takes a list of 1 to {MAX_LIST} values, got {}",
                        list.len()
                    ),
                ));
            }
            Operand::Many(list.iter().map(one).collect::<Result<_, _>>()?)
        }
        Operator::In => {
            return Err(wrong_type(&format!("{param}.in"), "array", &given));
        }
        _ => Operand::One(one(&given)?),
    };
    Ok(Condition {
        key,
        operator,
        operand,
        given,
    })
}

fn value_error(param: &str, kind: FieldKind, value: &Value) -> AqlError {
    let expected = match kind {
        FieldKind::DateTime => "date-time (RFC 3339, or a date YYYY-MM-DD)",
        other => other.as_str(),
    };
    if kind == FieldKind::DateTime && value.is_string() {
        return invalid(
            param,
            format!(
                "Parameter '{param}' expected a date-time such as 2026-11-29T05:00:00Z or 2026-11-29, got '{}'",
                shorten(value.as_str().unwrap_or_default(), 64)
            ),
        );
    }
    wrong_type(param, expected, value)
}

/// The value an upstream filter param gets: as given, or a list joined with commas when the
/// param takes text.
pub fn upstream_value(condition: &Condition, list: bool) -> Value {
    match &condition.given {
        Value::Array(items) if !list => Value::String(
            items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map_or_else(|| item.to_string(), str::to_owned)
                })
                .collect::<Vec<_>>()
                .join(","),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::call::query::fixtures::ISSUE_FIELDS;

    fn conditions(filter: Value) -> Result<Vec<Condition>, AqlError> {
        parse(filter, ISSUE_FIELDS, &[])
    }

    #[test]
    fn conditions_hold_where_they_should() {
        let item = json!({"labels": [{"name": "bug"}, {"name": "ui"}], "comments": 4, "title": "Crash on start"});
        let holds = |filter: Value| conditions(filter).unwrap().iter().all(|c| c.holds(&item));
        assert!(holds(json!({"comments": 4})));
        assert!(holds(json!({"comments": {"gte": 2, "lt": 5}})));
        assert!(!holds(json!({"comments": {"gt": 4}})));
        assert!(holds(json!({"comments": {"in": [1, 4]}})));
        assert!(holds(json!({"label": {"contains": ["bug", "ui"]}})));
        assert!(!holds(json!({"label": {"contains": ["bug", "docs"]}})));
        assert!(holds(json!({"label": "ui"})));
        assert!(holds(json!({"label": {"ne": "docs"}})));
        assert!(holds(json!({"title": {"contains": "CRASH"}})));
        assert!(holds(
            json!({"title": {"exists": true}, "comments": {"exists": true}})
        ));
        assert!(!holds(json!({"comments": {"exists": false}})));
    }

    #[test]
    fn bad_filters_name_what_is_accepted() {
        let message = |filter: Value| conditions(filter).unwrap_err().message;
        assert_eq!(
            message(json!({"colour": "red"})),
            "Parameter 'filter' has no key 'colour'; its keys are state, label, comments, title"
        );
        assert_eq!(
            message(json!({"state": {"ne": "open"}})),
            "Parameter 'filter.state' takes the operators eq; got 'ne'"
        );
        assert_eq!(
            message(json!({"comments": {"near": 3}})),
            "Parameter 'filter.comments' takes the operators eq, ne, in, gt, gte, lt, lte, exists; got 'near'"
        );
        assert!(message(json!({"comments": "many"})).contains("expected 'integer', got 'string'"));
        assert!(message(json!({"comments": {"in": []}})).contains("1 to 100 values"));
        assert!(message(json!([1])).contains("expected 'object'"));
        assert!(message(json!({"comments": {}})).contains("empty object"));
        let upstream = &conditions(json!({"label": {"contains": ["a", "b"]}})).unwrap()[0];
        assert!(upstream.upstream().is_some());
        assert_eq!(upstream_value(upstream, false), json!("a,b"));
    }
}
