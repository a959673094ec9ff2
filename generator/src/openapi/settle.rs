//! The importer's promise: what it writes passes `aqlgen check`.
//!
//! Before anything is written, the schema built from the document is checked with the rules
//! `check` itself uses ([`rules::findings`]), and what they would refuse is left out of the
//! typed schema, going by what each finding is about: a part of a param (a default outside
//! its enum or type, bounds that do not suit it), an optional param (a name that collides in
//! Rust), or else the operation: one that cannot be called is not written. Each gets a warning naming the operation and the reason. Leaving
//! something out can change what another rule says (a paging param gone takes pagination
//! with it), so the rules run again until they accept the schema. One odd operation never
//! costs the whole document.

use std::collections::BTreeSet;

use aqlgen_model::Category;

use super::Warning;
use crate::Error;
use crate::schema::{AdapterSchema, Operation};
use crate::validate::finding::{Finding, ParamPart, Subject, Within};
use crate::validate::rules;

/// Leaves out of `schema` whatever `check` would refuse, reporting each thing left out in
/// `warnings`.
///
/// # Errors
///
/// [`Error::Config`] when no operation is left, or the adapter's own fields (a name or a
/// bearer variable given as an option) would be refused.
pub fn settle(schema: &mut AdapterSchema, warnings: &mut Vec<Warning>) -> Result<(), Error> {
    loop {
        if schema
            .operations
            .families()
            .iter()
            .all(|(_, list)| list.is_empty())
        {
            return Err(Error::Config(format!(
                "none of the document's operations can be expressed as an adapter operation{} ({}, e.g. {})",
                most_common_drop(warnings),
                aqlgen_model::counted(warnings.len(), "warning"),
                warnings
                    .iter()
                    .rev()
                    .take(3)
                    .map(|w| format!("{}: {}", w.operation, w.reason))
                    .collect::<Vec<_>>()
                    .join("; ")
            )));
        }
        let findings: Vec<Finding> = rules::findings(schema)
            .into_iter()
            .filter(|finding| !finding.diagnostic.code.is_warning())
            .collect();
        if findings.is_empty() {
            return Ok(());
        }
        let adapter: Vec<String> = findings
            .iter()
            .filter(|finding| finding.subject == Subject::Adapter)
            .map(|finding| {
                format!(
                    "{} at {}",
                    finding.diagnostic.message, finding.diagnostic.path
                )
            })
            .collect();
        if !adapter.is_empty() {
            return Err(Error::Config(format!(
                "the imported adapter would not pass check: {}",
                adapter.join("; ")
            )));
        }
        leave_out(schema, &findings, warnings);
        settle_features(schema, warnings);
    }
}

/// `, most of them because <reason>` for the reason operations were dropped most often, by
/// its kind (names left out), with how many; nothing when none was dropped.
fn most_common_drop(warnings: &[Warning]) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut dropped = 0;
    for warning in warnings {
        if let Some(reason) = warning.reason.strip_suffix("; operation dropped") {
            *counts.entry(super::reason_kind(reason)).or_default() += 1;
            dropped += 1;
        }
    }
    // The first of the most frequent, by kind: deterministic.
    let Some((kind, count)) = counts.into_iter().fold(
        None,
        |best: Option<(String, usize)>, (kind, count)| match best {
            Some((_, most)) if most >= count => best,
            _ => Some((kind, count)),
        },
    ) else {
        return String::new();
    };
    format!(", most of them because {kind} ({count} of {dropped} dropped)")
}

/// Leaves out what each finding is about, once per thing. The first finding of a round
/// always names something present, so each round leaves out at least one thing and
/// [`settle`] ends.
fn leave_out(schema: &mut AdapterSchema, findings: &[Finding], warnings: &mut Vec<Warning>) {
    let mut done: BTreeSet<(Category, usize, Within)> = BTreeSet::new();
    let mut dropped: Vec<(Category, usize, String)> = Vec::new();
    for finding in findings {
        let Subject::Operation {
            category,
            index,
            within,
        } = &finding.subject
        else {
            continue;
        };
        if !done.insert((*category, *index, within.clone())) {
            continue;
        }
        let message = &finding.diagnostic.message;
        let operation = &mut schema.operations.family_mut(*category)[*index];
        let in_path = |name: &str| operation.maps_to.contains(&format!("{{{name}}}"));
        let warning = match within {
            Within::ParamPart(name, part) => {
                // The param, or this part of it, may have gone with an earlier finding.
                let Some(param) = operation.params.get_mut(name) else {
                    continue;
                };
                let (had, what) = match part {
                    ParamPart::Default => (param.default.take().is_some(), "its default"),
                    ParamPart::Bounds => (
                        param.minimum.take().is_some() | param.maximum.take().is_some(),
                        "its bounds",
                    ),
                    ParamPart::Enum => {
                        param.default = None;
                        (param.allowed.take().is_some(), "its enum")
                    }
                    ParamPart::Pattern => (param.pattern.take().is_some(), "its pattern"),
                    ParamPart::Lengths => (
                        param.min_length.take().is_some() | param.max_length.take().is_some(),
                        "its lengths",
                    ),
                };
                if !had {
                    continue;
                }
                format!("param `{name}`: {what} dropped ({message})")
            }
            // A required param cannot go: the operation could not be called without it.
            Within::Param(name)
                if !in_path(name)
                    && operation
                        .params
                        .get(name)
                        .is_none_or(|param| param.required != Some(true)) =>
            {
                if operation.params.shift_remove(name).is_none() {
                    continue;
                }
                format!("param `{name}` dropped ({message})")
            }
            Within::Query => {
                let had = operation.query.take().is_some()
                    | operation
                        .response
                        .as_mut()
                        .is_some_and(|response| response.computed.take().is_some());
                if !had {
                    continue;
                }
                format!("query dropped ({message})")
            }
            Within::Param(_) | Within::Operation => {
                dropped.push((*category, *index, message.clone()));
                continue;
            }
        };
        warnings.push(Warning {
            operation: operation.maps_to.clone(),
            reason: warning,
        });
    }
    // Last first, so the positions of the others stay good; the first reason of each.
    dropped.sort_by_key(|(category, index, _)| std::cmp::Reverse((*category, *index)));
    dropped.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
    for (category, index, reason) in dropped {
        let removed = schema.operations.family_mut(category).remove(index);
        warnings.push(Warning {
            operation: removed.maps_to,
            reason: format!("{reason}; operation dropped"),
        });
    }
}

/// Takes back a feature the importer gave an operation that something left out has since
/// made unavailable (a paging param dropped), so the adapter never asks for what `check`
/// would call unavailable. Presets go with the pagination: they may address the items of a
/// page.
fn settle_features(schema: &mut AdapterSchema, warnings: &mut Vec<Warning>) {
    for &category in Category::ALL {
        for operation in schema.operations.family_mut(category) {
            for (key, reason) in crate::features::resolve(category, operation).off {
                let what = match key {
                    "pagination" if operation.pagination.take().is_some() => {
                        drop_presets(operation);
                        "pagination and its presets"
                    }
                    "supports_fields" if operation.supports_fields.take().is_some() => {
                        drop_presets(operation);
                        "field selection"
                    }
                    "query" if operation.query.take().is_some() => "query",
                    _ => continue,
                };
                warnings.push(Warning {
                    operation: operation.maps_to.clone(),
                    reason: format!("{what} dropped ({reason})"),
                });
            }
        }
    }
}

/// Removes `response.presets`, and `response` when nothing else is left in it.
fn drop_presets(operation: &mut Operation) {
    if let Some(response) = &mut operation.response {
        response.presets = None;
        if response.kind.is_none() && response.description.is_none() {
            operation.response = None;
        }
    }
}
