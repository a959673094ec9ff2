//! The adapter file an import writes: YAML front matter, then a Markdown summary of what was
//! imported and what was not.

use std::collections::BTreeMap;

use aqlgen_model::{Category, Vocabulary};

use super::{Completeness, Warning};
use crate::Error;
use crate::schema::{AdapterSchema, Operations};

/// The adapter file for `schema`, imported from the OpenAPI `version` description of the API
/// called `title`, with what the import left out.
///
/// # Errors
///
/// [`Error::Config`] when the schema cannot be written as YAML.
pub fn adapter(
    schema: &AdapterSchema,
    title: &str,
    version: &str,
    warnings: &[Warning],
    completeness: &Completeness,
) -> Result<String, Error> {
    let yaml = serde_yaml::to_string(schema)
        .map_err(|error| Error::Config(format!("writing the front matter: {error}")))?;
    Ok(format!(
        "---\n{yaml}---\n\n{}",
        summary(
            title,
            version,
            &counts(&schema.operations),
            warnings,
            completeness
        )
    ))
}

/// Operations per category, for the summary.
pub fn counts(operations: &Operations) -> BTreeMap<&'static str, usize> {
    operations
        .families()
        .into_iter()
        .filter(|(_, list)| !list.is_empty())
        .map(|(category, list)| (category.family(), list.len()))
        .collect()
}

/// The Markdown body: what was imported, per category, and the warnings per reason.
fn summary(
    title: &str,
    version: &str,
    categories: &BTreeMap<&'static str, usize>,
    warnings: &[Warning],
    completeness: &Completeness,
) -> String {
    let mut text = format!(
        "# {title}\n\nImported by `aqlgen import-openapi` from an OpenAPI {version} description.\n\n\
         | Category | Operations |\n|---|---|\n"
    );
    for category in Category::NAMES {
        text.push_str(&format!(
            "| {category} | {} |\n",
            categories.get(category).copied().unwrap_or(0)
        ));
    }
    text.push_str(&format!(
        "\n{} of the {} operations are complete: they carry every param, body and credential \
         their description has.\n",
        completeness.complete, completeness.kept
    ));
    text.push_str(&format!("\n{} warnings", warnings.len()));
    if warnings.is_empty() {
        text.push_str(".\n");
        return text;
    }
    text.push_str(", by reason:\n\n");
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    for warning in warnings {
        *by_reason.entry(reason_kind(&warning.reason)).or_default() += 1;
    }
    for (reason, count) in by_reason {
        text.push_str(&format!("- {reason}: {count}\n"));
    }
    text
}

/// A warning's reason with backquoted names removed, for counting by kind.
pub fn reason_kind(reason: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for character in reason.chars() {
        if character == '`' {
            inside = !inside;
            if inside {
                out.push('…');
            }
        } else if !inside {
            out.push(character);
        }
    }
    out
}
