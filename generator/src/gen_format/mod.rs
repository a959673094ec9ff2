//! The generator document's input format (GEN §2, REQ-GSF-1..4): a plain YAML or JSON file
//! whose top level has `schema_version`, beside the primary Markdown-with-front-matter format.
//!
//! A document is checked in two rounds:
//!
//! 1. [`version`], then [`structure`]: what only this format has (its keys and required
//!    fields, type references, `types`, unique and snake_case names, `auth.config`, an `http`
//!    request for every operation), on the raw document, with paths and wording of the format.
//! 2. Only a document that passes is converted ([`convert`]) into the front-matter model, and
//!    the shared checks run on that; [`paths`] translates their paths back.
//!
//! Why checks come before conversion rather than a map from every converted path: a
//! document with a missing or ill-typed field has no faithful conversion (an operation
//! without `http` has no `maps_to`), so converting first would mean guessing values and then
//! hiding what the guesses provoke. Checked first, conversion is total and keeps every
//! operation and param where it was, so the translation of the shared checks' paths is a
//! small pure function of the converted model. The cost: a document with problems of both
//! rounds hears about the second round once the first is fixed, as a front-matter schema
//! missing a required field does.

mod convert;
mod document;
mod json_lines;
mod keys;
mod model;
mod paths;
mod structure;
mod version;

use crate::diagnostic::{Code, Diagnostic};
use crate::fingerprint;
use crate::schema::AdapterSchema;
use crate::validate::rules;
use document::{Document, Lines};

/// A generator-format document that passed every check.
pub struct Valid {
    /// The front-matter model of the document.
    pub schema: AdapterSchema,
    /// `sha256:` of the whole document as canonical JSON, the same for its YAML and JSON forms.
    pub fingerprint: String,
    /// Markdown for the generated README: display name, target API and types.
    pub documentation: String,
    /// Warnings of the shared checks, in the document's terms.
    pub warnings: Vec<Diagnostic>,
}

/// Checks `text` as a generator-format document: `None` when it is not one, else the checked
/// schema or every problem found, sorted by line.
pub fn check(text: &str) -> Option<Result<Valid, Vec<Diagnostic>>> {
    Some(document::read(text)?.and_then(|document| check_document(&document)))
}

fn check_document(document: &Document<'_>) -> Result<Valid, Vec<Diagnostic>> {
    let lines = document.lines();
    let refused = |diagnostics| Err(locate(&lines, diagnostics));
    if let Some(version) = document.tree.get("schema_version")
        && let Some(refusal) = version::refusal(version)
    {
        return refused(vec![refusal]);
    }
    let mut tree = document.tree.clone();
    let problems = structure::check(&mut tree);
    if !problems.is_empty() {
        return refused(problems);
    }
    let gen_schema = match serde_path_to_error::deserialize(&document.tree) {
        Ok(gen_schema) => gen_schema,
        // The checks above admit only what deserializes; this is a backstop, not a path.
        Err(error) => {
            return refused(vec![
                Diagnostic::new(
                    Code::InvalidType,
                    error.path().to_string(),
                    "a value has the wrong shape",
                )
                .found(error.inner().to_string()),
            ]);
        }
    };
    let converted = convert::convert(&gen_schema);
    let translator = paths::Translator::new(&converted.schema);
    let (warnings, errors): (Vec<_>, Vec<_>) = rules::check(&converted.schema)
        .into_iter()
        .map(|diagnostic| translator.translate(diagnostic))
        .partition(|diagnostic| diagnostic.code.is_warning());
    if !errors.is_empty() {
        return refused(errors);
    }
    Ok(Valid {
        warnings: locate(&lines, warnings),
        schema: converted.schema,
        fingerprint: fingerprint::fingerprint(&document.json),
        documentation: converted.documentation,
    })
}

/// Gives each diagnostic without a line the line of its path (of the document itself when
/// the path is not found), and sorts them by line.
fn locate(lines: &Lines<'_>, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut located: Vec<Diagnostic> = diagnostics
        .into_iter()
        .map(|mut diagnostic| {
            if diagnostic.line.is_none() {
                diagnostic.line = Some(lines.line_of(&diagnostic.path).unwrap_or(1));
            }
            diagnostic
        })
        .collect();
    located.sort_by(|a, b| (a.line, &a.path, a.code).cmp(&(b.line, &b.path, b.code)));
    located
}

/// A value as one line of JSON, for `found:`; long values are cut short.
fn text_of(value: &serde_yaml::Value) -> String {
    const LONGEST: usize = 80;
    let text = fingerprint::json_of(value).to_string();
    match text.char_indices().nth(LONGEST) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}
