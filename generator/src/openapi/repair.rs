//! The importer's promise: what it writes passes `aqlgen check`. The imported schema is
//! checked like any other; each problem found is repaired where the fix is plain (a default
//! outside its enum or type is dropped, unusable bounds are dropped, a param that collides is
//! dropped) and otherwise the operation is dropped, each with a warning that names the
//! operation and the reason, until the schema passes. One odd operation never costs the whole
//! document.

use aqlgen_model::Category;

use super::Warning;
use crate::Error;
use crate::diagnostic::Diagnostic;
use crate::schema::{AdapterSchema, Operation};

/// Rounds of check and repair before giving up; each round removes something, and real
/// documents need two or three.
const MAX_ROUNDS: usize = 16;

/// Renders `schema` with `render` until its text passes `aqlgen check`, repairing it between
/// rounds; returns the text that passed.
///
/// # Errors
///
/// [`Error::Config`] when no operation is left, or a problem outside the operations remains.
pub fn until_valid(
    schema: &mut AdapterSchema,
    warnings: &mut Vec<Warning>,
    render: impl Fn(&AdapterSchema, &[Warning]) -> Result<String, Error>,
) -> Result<String, Error> {
    for _ in 0..MAX_ROUNDS {
        if schema
            .operations
            .families()
            .iter()
            .all(|(_, list)| list.is_empty())
        {
            return Err(Error::Config(format!(
                "none of the document's operations can be expressed as an adapter operation ({} warnings, e.g. {})",
                warnings.len(),
                warnings
                    .iter()
                    .rev()
                    .take(3)
                    .map(|w| format!("{}: {}", w.operation, w.reason))
                    .collect::<Vec<_>>()
                    .join("; ")
            )));
        }
        let text = render(schema, warnings)?;
        let diagnostics = match crate::check_text("imported-adapter.md", &text) {
            Ok(_) => return Ok(text),
            Err(Error::Schema { diagnostics, .. }) => diagnostics,
            Err(other) => return Err(other),
        };
        if !repair(schema, &diagnostics, warnings) {
            let unrepaired: Vec<String> = diagnostics
                .iter()
                .map(|d| format!("{} at {}", d.message, d.path))
                .collect();
            return Err(Error::Config(format!(
                "the imported adapter fails check in a way the importer cannot repair: {}",
                unrepaired.join("; ")
            )));
        }
        settle_features(schema, warnings);
    }
    Err(Error::Config(format!(
        "the imported adapter still fails check after {MAX_ROUNDS} rounds of repair"
    )))
}

/// Takes back a feature the importer gave an operation that a repair has since made
/// unavailable (a paging param dropped), so the adapter never asks for what `check` would
/// call unavailable. Presets go with the pagination: they may address the items of a page.
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

/// Where in the operations a diagnostic points.
struct Place<'a> {
    category: Category,
    index: usize,
    /// The param, and the key inside its definition, when the path goes that deep.
    param: Option<(&'a str, Option<&'a str>)>,
}

fn place(path: &str) -> Option<Place<'_>> {
    let rest = path.strip_prefix("operations.")?;
    let (family, rest) = rest.split_once('[')?;
    let (index, rest) = rest.split_once(']')?;
    let param = rest
        .strip_prefix(".params.")
        .map(|rest| match rest.split_once('.') {
            Some((name, key)) => (name, Some(key)),
            None => (rest, None),
        });
    Some(Place {
        category: Category::parse(family)?,
        index: index.parse().ok()?,
        param,
    })
}

/// Applies one round of repairs; `false` when nothing could be repaired.
fn repair(
    schema: &mut AdapterSchema,
    diagnostics: &[Diagnostic],
    warnings: &mut Vec<Warning>,
) -> bool {
    let mut dropped: Vec<(Category, usize, String)> = Vec::new();
    let mut changed = false;
    for diagnostic in diagnostics {
        let Some(place) = place(&diagnostic.path) else {
            return false;
        };
        let list = schema.operations.family_mut(place.category);
        let Some(operation) = list.get_mut(place.index) else {
            return false;
        };
        let label = operation.maps_to.clone();
        let mut warn = |reason: String| {
            warnings.push(Warning {
                operation: label.clone(),
                reason,
            })
        };
        let in_path = |name: &str| operation.maps_to.contains(&format!("{{{name}}}"));
        match place.param {
            Some((name, Some(key))) if !in_path(name) || key != "type" => {
                let Some(param) = operation.params.get_mut(name) else {
                    return false;
                };
                let what = match key.split('[').next().unwrap_or(key) {
                    "default" => param.default.take().map(|_| "its default"),
                    "minimum" | "maximum" => {
                        let had = param.minimum.is_some() || param.maximum.is_some();
                        param.minimum = None;
                        param.maximum = None;
                        had.then_some("its bounds")
                    }
                    "enum" => {
                        param.default = None;
                        param.allowed.take().map(|_| "its enum")
                    }
                    "pattern" => param.pattern.take().map(|_| "its pattern"),
                    _ => None,
                };
                match what {
                    Some(what) => {
                        warn(format!(
                            "param `{name}`: {what} dropped ({})",
                            diagnostic.message
                        ));
                        changed = true;
                    }
                    None => dropped.push((place.category, place.index, diagnostic.message.clone())),
                }
            }
            Some((name, None))
                if !in_path(name) && operation.params.shift_remove(name).is_some() =>
            {
                warn(format!("param `{name}` dropped ({})", diagnostic.message));
                changed = true;
            }
            _ => dropped.push((place.category, place.index, diagnostic.message.clone())),
        }
    }
    dropped.sort_by_key(|(category, index, _)| std::cmp::Reverse((*category, *index)));
    dropped.dedup_by(|a, b| (a.0, a.1) == (b.0, b.1));
    for (category, index, reason) in dropped {
        let removed = schema.operations.family_mut(category).remove(index);
        warnings.push(Warning {
            operation: removed.maps_to,
            reason: format!("{reason}; operation dropped"),
        });
        changed = true;
    }
    changed
}
