//! The adapter file an import writes: YAML front matter, then a Markdown summary of what was
//! imported and what was not.

use std::collections::BTreeMap;

use aqlgen_model::{Category, DangerLevel, Vocabulary};

use super::classify::Meaning;
use super::{Completeness, Warning};
use crate::Error;
use crate::schema::{AdapterSchema, Operation, Operations};

/// What the adapter's Markdown lists for review.
#[derive(Debug, Clone, Copy)]
pub struct Review<'a> {
    /// The operations whose words decided their category or danger level.
    pub readings: &'a [Reading],
    /// The operations followed as long-running.
    pub followed: &'a [Followed],
}

/// The adapter file for `schema`, imported from the OpenAPI `version` description of the API
/// called `title`, with what the import left out, how to obtain the credential
/// (`auth_notes`, Markdown) and what to `review`.
///
/// # Errors
///
/// [`Error::Config`] when the schema cannot be written as YAML.
pub fn adapter(
    schema: &AdapterSchema,
    title: &str,
    version: &str,
    auth_notes: Option<&str>,
    review: Review<'_>,
    warnings: &[Warning],
    completeness: &Completeness,
) -> Result<String, Error> {
    let yaml = serde_yaml::to_string(schema)
        .map_err(|error| Error::Config(format!("writing the front matter: {error}")))?;
    let yaml = quote_yaml_1_1(&yaml);
    Ok(format!(
        "---\n{yaml}---\n\n{}{}{}{}",
        summary(
            title,
            version,
            &counts(&schema.operations),
            warnings,
            completeness
        ),
        auth_notes.unwrap_or_default(),
        decided_by_words(&schema.operations, review.readings),
        long_running(review.followed)
    ))
}

/// An operation the adapter follows as long-running, for the adapter's Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Followed {
    /// The operation.
    pub name: String,
    /// Its `maps_to`.
    pub maps_to: String,
    /// The category it was imported as, when that was not EXECUTE.
    pub was: Option<Category>,
    /// What is polled: `location` or an operation.
    pub poll: String,
    /// The upstream states, each with its core state.
    pub states: Vec<(String, String)>,
}

/// An operation whose verb, not its method, decided its category or raised its danger
/// level: listed in the adapter's Markdown for review.
#[derive(Debug, Clone)]
pub struct Reading {
    name: String,
    maps_to: String,
    category: Category,
    danger: DangerLevel,
    why: String,
}

impl Reading {
    /// What `meaning` made of `operation`, imported into `category`.
    pub fn new(operation: &Operation, category: Category, meaning: &Meaning) -> Self {
        let danger = operation.danger_level.unwrap_or_else(|| {
            aqlgen_model::implied_danger(category, &operation.name)
                .map_or_else(|| DangerLevel::default_for(category), |(level, _)| level)
        });
        let why = match meaning.verb {
            None => String::new(),
            Some((verb, source)) => {
                let mut why = format!("`{}` in its {}", verb.word, source.as_str());
                if let Some((_, reason)) = verb.danger.filter(|_| category != Category::Read) {
                    why.push_str(&format!(": {reason}"));
                }
                why
            }
        };
        Self {
            name: operation.name.clone(),
            maps_to: operation.maps_to.clone(),
            category,
            danger,
            why,
        }
    }

    /// Files the reading of `name` under `category`, where the operation now is.
    pub fn recategorise(&mut self, name: &str, category: Category) {
        if self.name == name {
            self.category = category;
        }
    }
}

/// The Markdown table of the operations followed as long-running, for review.
fn long_running(followed: &[Followed]) -> String {
    if followed.is_empty() {
        return String::new();
    }
    let cell = |text: &str| text.replace('|', "\\|");
    let count = match followed.len() {
        1 => "1 operation starts".to_owned(),
        count => format!("{count} operations start"),
    };
    let mut text = format!(
        "\n## Long-running operations\n\n{count} work upstream that goes on after the \
         call answers, as the description shows: the adapter follows it until it ends \
         (`lifecycle`, an aqlgen extension), mapping the upstream states onto pending, running, \
         completed, failed and cancelled by their names. Review them.\n\n\
         | Operation | Endpoint | Category | Followed through | States |\n|---|---|---|---|---|\n"
    );
    for operation in followed {
        let category = match operation.was {
            Some(was) => format!("execute (imported as {})", was.family()),
            None => "execute".to_owned(),
        };
        let poll = if operation.poll == "location" {
            "the `Operation-Location` or `Location` it answers".to_owned()
        } else {
            format!("`{}`", operation.poll)
        };
        let states: Vec<String> = operation
            .states
            .iter()
            .map(|(upstream, core)| format!("{upstream} → {core}"))
            .collect();
        text.push_str(&format!(
            "| {} | {} | {category} | {poll} | {} |\n",
            operation.name,
            cell(&operation.maps_to),
            cell(&states.join(", "))
        ));
    }
    text
}

/// The Markdown table of the `readings` whose operations are still in `operations`.
fn decided_by_words(operations: &Operations, readings: &[Reading]) -> String {
    let kept: Vec<&Reading> = readings
        .iter()
        .filter(|reading| {
            operations.families().iter().any(|(category, list)| {
                *category == reading.category
                    && list.iter().any(|operation| operation.name == reading.name)
            })
        })
        .collect();
    if kept.is_empty() {
        return String::new();
    }
    let cell = |text: &str| text.replace('|', "\\|");
    let mut text = format!(
        "\n## Decided by their words\n\n{} operations have a category or danger level their \
         method alone would not give: their verb decided. Review them.\n\n\
         | Operation | Endpoint | Category | Danger | Why |\n|---|---|---|---|---|\n",
        kept.len()
    );
    for reading in kept {
        text.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            reading.name,
            cell(&reading.maps_to),
            reading.category.family(),
            reading.danger.as_str(),
            cell(&reading.why)
        ));
    }
    text
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
    text.push_str(&format!(
        "\n{}",
        aqlgen_model::counted(warnings.len(), "warning")
    ));
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

/// Plain scalars a YAML 1.1 reader (PyYAML, older js-yaml, Ruby's Psych) takes for a boolean
/// or null, compared case-insensitively.
const YAML_1_1_WORDS: &str = "y n yes no on off true false null ~";

/// `yaml` as serde_yaml writes it (YAML 1.2, which quotes the strings `true`, `false`,
/// `null` and `~` but not `yes` or `on`), with every plain key or scalar value that a YAML
/// 1.1 reader would take for a boolean or null single-quoted: `on:` becomes `'on':`, `- no`
/// becomes `- 'no'`. A plain `true`, `false` or `null` is a real boolean or null and stays;
/// block scalars (`|-` text) are left as they are.
pub fn quote_yaml_1_1(yaml: &str) -> String {
    let ambiguous = |token: &str| {
        !matches!(token, "true" | "false" | "null" | "~")
            && YAML_1_1_WORDS
                .split_whitespace()
                .any(|word| word.eq_ignore_ascii_case(token))
    };
    let mut out = String::with_capacity(yaml.len());
    // The indentation of the key that opened a block scalar, while inside one.
    let mut block: Option<usize> = None;
    for line in yaml.split_inclusive('\n') {
        let content = line.trim_end_matches('\n');
        let indent = content.len() - content.trim_start().len();
        if let Some(opened) = block {
            if content.trim().is_empty() || indent > opened {
                out.push_str(line);
                continue;
            }
            block = None;
        }
        let mut rewritten = String::with_capacity(line.len() + 4);
        rewritten.push_str(&content[..indent]);
        let mut rest = &content[indent..];
        while let Some(after) = rest.strip_prefix("- ") {
            rewritten.push_str("- ");
            rest = after;
        }
        let (key, value) = match rest.find(": ") {
            Some(colon) => (Some(&rest[..colon]), Some(&rest[colon + 2..])),
            None => match rest.strip_suffix(':') {
                Some(key) => (Some(key), None),
                None => (None, Some(rest)),
            },
        };
        if let Some(key) = key {
            if ambiguous(key) {
                rewritten.push_str(&format!("'{key}':"));
            } else {
                rewritten.push_str(key);
                rewritten.push(':');
            }
            if value.is_some() {
                rewritten.push(' ');
            }
        }
        if let Some(value) = value {
            if ambiguous(value) {
                rewritten.push_str(&format!("'{value}'"));
            } else {
                if value.starts_with(['|', '>']) {
                    block = Some(indent);
                }
                rewritten.push_str(value);
            }
        }
        out.push_str(&rewritten);
        out.push_str(&line[content.len()..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::quote_yaml_1_1;

    #[test]
    fn yaml_1_1_booleans_are_quoted() {
        let written = "params:\n  on:\n    type: string\n    required: true\n    enum:\n    - yes\n    - No\n    - maybe\n    - NULL\n    default: off\n  y: 1\ndescription: |-\n  on\n  no\nnext: N\nlast: null\n";
        assert_eq!(
            quote_yaml_1_1(written),
            "params:\n  'on':\n    type: string\n    required: true\n    enum:\n    - 'yes'\n    - 'No'\n    - maybe\n    - 'NULL'\n    default: 'off'\n  'y': 1\ndescription: |-\n  on\n  no\nnext: 'N'\nlast: null\n"
        );
    }
}
