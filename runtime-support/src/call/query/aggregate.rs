//! `aggregate` (aggregations §2-§4): named summaries of the items that match, each a count, a
//! grouping, or a sum, mean, minimum or maximum of a key, computed here over the scanned items.
//!
//! A label's answer is the value of its one function, or an object of each function's value
//! when it asks for several; with `group_by`, one such answer per group, keyed by the group's
//! value (an item with several values counts in each of their groups; one with none, in
//! `null`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::values::{Key, Scalar, number};
use super::{invalid, key_list};
use crate::adapter::{AggregateFunction, ComputedField, QueryField};
use crate::error::AqlError;
use crate::params::wrong_type;
use crate::text::shorten;

/// Most labels one request asks for.
pub const MAX_LABELS: usize = 16;
/// Longest label.
const MAX_LABEL_BYTES: usize = 64;

/// One named summary.
#[derive(Debug, Clone)]
pub struct Aggregation {
    /// Its label in `aggregations`.
    pub label: String,
    /// The key its items are grouped by.
    pub group_by: Option<Key>,
    /// The functions asked for, with the key each reads (`count` reads none).
    pub functions: Vec<(AggregateFunction, Option<Key>)>,
}

/// The aggregations `aggregate` asks for, over `fields` and `computed`.
///
/// # Errors
///
/// `VALIDATION_INVALID_TYPE` or `VALIDATION_INVALID_VALUE` naming the label, the function and
/// what it takes: an unknown function or key, a key whose kind the function does not take.
pub fn parse(
    aggregate: Value,
    fields: &'static [QueryField],
    computed: &'static [ComputedField],
) -> Result<Vec<Aggregation>, AqlError> {
    let Value::Object(labels) = aggregate else {
        return Err(wrong_type("aggregate", "object", &aggregate));
    };
    if labels.is_empty() || labels.len() > MAX_LABELS {
        return Err(invalid(
            "aggregate",
            format!(
                "Parameter 'aggregate' holds 1 to {MAX_LABELS} named summaries, got {}",
                labels.len()
            ),
        ));
    }
    let keys: Vec<String> = fields
        .iter()
        .filter(|field| field.path.is_some())
        .map(|field| field.name.to_owned())
        .chain(computed.iter().map(|field| Key::Computed(field).name()))
        .collect();
    labels
        .into_iter()
        .map(|(label, expression)| {
            if label.is_empty() || label.len() > MAX_LABEL_BYTES {
                return Err(invalid(
                    "aggregate",
                    format!("An aggregation label is 1 to {MAX_LABEL_BYTES} bytes; got '{}'", shorten(&label, 80)),
                ));
            }
            let param = format!("aggregate.{label}");
            let Value::Object(expression) = expression else {
                return Err(wrong_type(&param, "object", &expression));
            };
            let key = |name: &str, value: &Value| -> Result<Key, AqlError> {
                let Value::String(key) = value else {
                    return Err(wrong_type(&format!("{param}.{name}"), "string", value));
                };
                Key::find(key, fields, computed)
                    .filter(|found| keys.contains(&found.name()))
                    .ok_or_else(|| {
                        invalid(
                            &param,
                            format!(
                                "'{param}.{name}' names no key: '{}'; the keys are {}",
                                shorten(key, 64),
                                key_list(&keys)
                            ),
                        )
                        .with_detail("valid_keys", keys.clone())
                    })
            };
            let mut aggregation = Aggregation {
                label: label.clone(),
                group_by: None,
                functions: Vec::new(),
            };
            for (name, value) in &expression {
                let Some(function) = AggregateFunction::parse(name) else {
                    return Err(invalid(
                        &param,
                        format!(
                            "'{param}' names no function '{}'; the functions are count, group_by, sum, avg, min, max",
                            shorten(name, 32)
                        ),
                    ));
                };
                match function {
                    AggregateFunction::Count => match value {
                        Value::Bool(true) => aggregation.functions.push((function, None)),
                        Value::Bool(false) => {}
                        other => return Err(wrong_type(&format!("{param}.count"), "boolean", other)),
                    },
                    AggregateFunction::GroupBy => aggregation.group_by = Some(key(name, value)?),
                    AggregateFunction::Sum | AggregateFunction::Avg => {
                        let key = key(name, value)?;
                        if !key.kind().is_numeric() {
                            return Err(invalid(
                                &param,
                                format!("'{param}.{name}' takes a number key; '{}' is {}", key.name(), key.kind().as_str()),
                            ));
                        }
                        aggregation.functions.push((function, Some(key)));
                    }
                    AggregateFunction::Min | AggregateFunction::Max => {
                        let key = key(name, value)?;
                        if !key.kind().is_ordered() {
                            return Err(invalid(
                                &param,
                                format!("'{param}.{name}' takes an ordered key; '{}' is {}", key.name(), key.kind().as_str()),
                            ));
                        }
                        aggregation.functions.push((function, Some(key)));
                    }
                }
            }
            if aggregation.functions.is_empty() {
                if aggregation.group_by.is_some() {
                    // A bare group_by counts its groups.
                    aggregation.functions.push((AggregateFunction::Count, None));
                } else {
                    return Err(invalid(
                        &param,
                        format!("'{param}' asks for nothing; give count: true, group_by, sum, avg, min or max"),
                    ));
                }
            }
            Ok(aggregation)
        })
        .collect()
}

/// Whether every aggregation is a plain count, which an upstream total can answer.
pub fn counts_only(aggregations: &[Aggregation]) -> bool {
    aggregations.iter().all(|aggregation| {
        aggregation.group_by.is_none()
            && aggregation
                .functions
                .iter()
                .all(|(function, _)| *function == AggregateFunction::Count)
    })
}

/// The `aggregations` object when the upstream's total answers every (count-only) label.
pub fn from_total(aggregations: &[Aggregation], total: u64) -> Value {
    aggregations
        .iter()
        .map(|aggregation| (aggregation.label.clone(), Value::from(total)))
        .collect::<Map<_, _>>()
        .into()
}

/// The `aggregations` object over `items`.
pub fn evaluate(aggregations: &[Aggregation], items: &[Value]) -> Value {
    aggregations
        .iter()
        .map(|aggregation| {
            let value = match &aggregation.group_by {
                None => summary(&aggregation.functions, items.iter()),
                Some(key) => {
                    let mut groups: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
                    for item in items {
                        let values = key.values(item);
                        if values.scalars.is_empty() {
                            groups.entry("null".to_owned()).or_default().push(item);
                        }
                        let mut seen = Vec::new();
                        for value in values.scalars {
                            let group = value.group_key();
                            if !seen.contains(&group) {
                                groups.entry(group.clone()).or_default().push(item);
                                seen.push(group);
                            }
                        }
                    }
                    groups
                        .into_iter()
                        .map(|(group, members)| {
                            (group, summary(&aggregation.functions, members.into_iter()))
                        })
                        .collect::<Map<_, _>>()
                        .into()
                }
            };
            (aggregation.label.clone(), value)
        })
        .collect::<Map<_, _>>()
        .into()
}

/// The functions over `items`: one value, or an object when there are several.
fn summary<'a>(
    functions: &[(AggregateFunction, Option<Key>)],
    items: impl Iterator<Item = &'a Value> + Clone,
) -> Value {
    let mut values: Vec<(&'static str, Value)> = Vec::new();
    for (function, key) in functions {
        let scalars = || {
            items
                .clone()
                .flat_map(|item| key.map(|key| key.values(item).scalars).unwrap_or_default())
        };
        let value = match function {
            AggregateFunction::Count => Value::from(items.clone().count()),
            AggregateFunction::Sum => number(scalars().filter_map(|s| s.as_number()).sum()),
            AggregateFunction::Avg => {
                let numbers: Vec<f64> = scalars().filter_map(|s| s.as_number()).collect();
                if numbers.is_empty() {
                    Value::Null
                } else {
                    number(numbers.iter().sum::<f64>() / numbers.len() as f64)
                }
            }
            AggregateFunction::Min => scalars()
                .min_by(Scalar::compare)
                .map_or(Value::Null, |s| s.to_json()),
            AggregateFunction::Max => scalars()
                .max_by(Scalar::compare)
                .map_or(Value::Null, |s| s.to_json()),
            AggregateFunction::GroupBy => continue,
        };
        values.push((function.as_str(), value));
    }
    match values.as_slice() {
        [(_, value)] => value.clone(),
        _ => values
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect::<Map<_, _>>()
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::call::query::fixtures::ISSUE_FIELDS;

    #[test]
    fn counts_groups_and_means() {
        let items = vec![
            json!({"labels": [{"name": "bug"}, {"name": "ui"}], "comments": 2}),
            json!({"labels": [{"name": "bug"}], "comments": 4}),
            json!({"labels": [], "comments": 3}),
        ];
        let aggregations = parse(
            json!({
                "total": {"count": true},
                "per_label": {"group_by": "label", "count": true},
                "mean": {"avg": "comments"},
                "by_label_stats": {"group_by": "label", "count": true, "max": "comments"}
            }),
            ISSUE_FIELDS,
            &[],
        )
        .unwrap();
        assert!(!counts_only(&aggregations));
        assert_eq!(
            evaluate(&aggregations, &items),
            json!({
                "total": 3,
                "per_label": {"bug": 2, "ui": 1, "null": 1},
                "mean": 3,
                "by_label_stats": {"bug": {"count": 2, "max": 4}, "ui": {"count": 1, "max": 2}, "null": {"count": 1, "max": 3}}
            })
        );
    }

    #[test]
    fn bad_aggregations_say_what_is_accepted() {
        let message = |aggregate: Value| parse(aggregate, ISSUE_FIELDS, &[]).unwrap_err().message;
        assert!(message(json!({"x": {"median": "comments"}})).contains("the functions are count"));
        assert!(message(json!({"x": {"sum": "title"}})).contains("takes a number key"));
        assert!(
            message(json!({"x": {"group_by": "colour"}}))
                .contains("the keys are label, comments, title")
        );
        assert!(message(json!({"x": {}})).contains("asks for nothing"));
        assert!(message(json!({"x": {"count": "yes"}})).contains("expected 'boolean'"));
        assert!(message(json!({})).contains("1 to 16"));
    }
}
