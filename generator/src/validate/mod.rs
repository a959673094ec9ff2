//! Schema validation: every problem at once, each with code, field path and line.

pub mod finding;
pub mod locate;
pub mod names;
mod official;
pub mod query;
pub mod rules;
pub mod structure;

pub use official::used as used_extensions;

use crate::diagnostic::{Code, Diagnostic};
use crate::schema::AdapterSchema;
use crate::source::Source;

/// A schema that passed every check: the typed model, the front matter as parsed (for the
/// fingerprint), which no check had to repair, and what it uses beyond the official schema.
pub struct Valid {
    /// The typed model.
    pub schema: AdapterSchema,
    /// The front matter.
    pub document: serde_yaml::Value,
    /// Warnings (`SCHEMA_EXTENSION`, `SCHEMA_FEATURE_UNAVAILABLE`), located and sorted like
    /// errors.
    pub warnings: Vec<Diagnostic>,
}

/// Parses and checks the front matter of `source`.
///
/// # Errors
///
/// Every problem found, sorted by line. Shape problems (unknown keys, missing fields) are
/// reported before the typed model is built; semantic checks run on the typed model.
pub fn validate(source: &Source) -> Result<Valid, Vec<Diagnostic>> {
    let mut document = match serde_yaml::from_str::<serde_yaml::Value>(&source.front_matter) {
        Ok(document) => document,
        Err(error) => {
            let diagnostic = yaml_error(&error, source.first_line);
            return Err(locate_all(source, vec![diagnostic]));
        }
    };
    let mut diagnostics = structure::check(&mut document);
    // With unknown keys reported and removed, the typed model still gets built (unless a
    // required field is missing) so that semantic problems are reported in the same run.
    let shape_is_complete = diagnostics.iter().all(|d| d.code != Code::MissingField);
    let mut warnings = Vec::new();
    let schema = if shape_is_complete {
        match serde_path_to_error::deserialize::<_, AdapterSchema>(&document) {
            Ok(schema) => {
                let (warned, errors): (Vec<_>, Vec<_>) = rules::check(&schema)
                    .into_iter()
                    .partition(|diagnostic| diagnostic.code.is_warning());
                diagnostics.extend(errors);
                warnings = warned;
                Some(schema)
            }
            Err(error) => {
                let path = error.path().to_string();
                diagnostics.push(
                    Diagnostic::new(
                        Code::InvalidType,
                        clean_path(&path),
                        "a value has the wrong shape",
                    )
                    .found(error.inner().to_string()),
                );
                None
            }
        }
    } else {
        None
    };
    match schema {
        Some(schema) if diagnostics.is_empty() => {
            warnings.extend(official::extensions(&document));
            let warnings = locate_all(source, warnings);
            Ok(Valid {
                schema,
                document,
                warnings,
            })
        }
        _ => Err(locate_all(source, diagnostics)),
    }
}

/// The YAML parser's complaint, its line numbers turned from the front matter's into the
/// file's (`first_line` holds the front matter's first line), as the `-->` line counts.
fn yaml_error(error: &serde_yaml::Error, first_line: usize) -> Diagnostic {
    let in_file = regex::Regex::new(r"line (\d+) column").expect("a valid literal pattern");
    let message = error.to_string();
    let found = in_file.replace_all(&message, |found: &regex::Captures<'_>| {
        let line = found[1].parse::<usize>().unwrap_or(1);
        format!("line {} column", line + first_line - 1)
    });
    let mut diagnostic = Diagnostic::new(
        Code::YamlSyntax,
        "",
        "the front matter is not valid YAML",
    )
    .found(found.into_owned())
    .suggest("look for an unclosed bracket or quote, or a line indented differently from its neighbours, at or just before that line");
    if let Some(location) = error.location() {
        diagnostic.line = Some(location.line());
    }
    diagnostic
}

/// serde_path_to_error writes `.` for the root; we write nothing.
fn clean_path(path: &str) -> String {
    if path == "." {
        String::new()
    } else {
        path.to_owned()
    }
}

/// Turns front-matter lines into `.md` lines, finding the ones semantic checks left empty;
/// a field absent from the file (a missing top-level key) points at the opening `---`.
fn locate_all(source: &Source, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let locator = locate::Locator::new(&source.front_matter);
    let mut located: Vec<Diagnostic> = diagnostics
        .into_iter()
        .map(|mut diagnostic| {
            diagnostic.line = match diagnostic.line {
                Some(line) if diagnostic.code == Code::MissingFrontMatter => Some(line),
                Some(yaml_line) => Some(yaml_line + source.first_line - 1),
                None => locator
                    .line_of(&diagnostic.path)
                    .map_or(Some(1), |index| Some(index + source.first_line)),
            };
            diagnostic
        })
        .collect();
    located.sort_by(|a, b| (a.line, &a.path, a.code).cmp(&(b.line, &b.path, b.code)));
    located
}

/// The nearest of `known` to `wrong`, when it is close enough to be a likely typo.
pub fn nearest<'a>(wrong: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(wrong, candidate), candidate))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}
