//! Recognises a generator-format document and parses it: JSON when the text opens with `{`
//! (so a JSON file with a JSON mistake hears about JSON, not YAML), else YAML.

use regex::Regex;

use super::json_lines;
use crate::diagnostic::{Code, Diagnostic};
use crate::fingerprint;
use crate::validate::locate::Locator;

/// A parsed generator-format document.
pub struct Document<'a> {
    /// The file's text, without a byte order mark.
    pub text: &'a str,
    /// The document as YAML values, which the checks walk (JSON is read into the same shape).
    pub tree: serde_yaml::Value,
    /// The document as JSON values, which the fingerprint is taken of.
    pub json: serde_json::Value,
    /// Whether the file is JSON.
    pub is_json: bool,
}

/// Finds the line of a field path in the document's text.
pub enum Lines<'a> {
    /// Block or flow YAML.
    Yaml(Locator<'a>),
    /// JSON.
    Json(json_lines::Index),
}

impl Lines<'_> {
    /// The 1-based line of `path`, or of its deepest ancestor found.
    pub fn line_of(&self, path: &str) -> Option<usize> {
        match self {
            Self::Yaml(locator) => locator.line_of(path).map(|index| index + 1),
            Self::Json(index) => index.line_of(path),
        }
    }
}

impl<'a> Document<'a> {
    /// The line finder of the document's text.
    pub fn lines(&self) -> Lines<'a> {
        if self.is_json {
            Lines::Json(json_lines::Index::new(self.text))
        } else {
            Lines::Yaml(Locator::new(self.text))
        }
    }
}

/// Reads `text` as a generator-format document: `None` when it is not one (its top level has
/// no `schema_version`), else the document or why it cannot be read. Text that does not
/// parse counts as one when a line of it starts with the key `schema_version`.
pub fn read(text: &str) -> Option<Result<Document<'_>, Vec<Diagnostic>>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('{') {
        return match serde_json::from_str::<serde_json::Value>(text) {
            Ok(json) => {
                json.get("schema_version")?;
                Some(from_json(text, json))
            }
            Err(error) => mentions_schema_version(text).then(|| {
                let mut diagnostic =
                    Diagnostic::new(Code::YamlSyntax, "", "the file is not valid JSON")
                        .found(error.to_string());
                diagnostic.line = Some(error.line().max(1));
                Err(vec![diagnostic])
            }),
        };
    }
    match serde_yaml::from_str::<serde_yaml::Value>(text) {
        Ok(tree) => {
            tree.as_mapping()?.get("schema_version")?;
            let json = fingerprint::json_of(&tree);
            Some(Ok(Document {
                text,
                tree,
                json,
                is_json: false,
            }))
        }
        Err(error) => mentions_schema_version(text).then(|| {
            let mut diagnostic =
                Diagnostic::new(Code::YamlSyntax, "", "the file is not valid YAML")
                    .found(error.to_string());
            diagnostic.line = Some(error.location().map_or(1, |at| at.line()));
            Err(vec![diagnostic])
        }),
    }
}

/// Whether some line of `text` starts with the key `schema_version`, bare or quoted.
fn mentions_schema_version(text: &str) -> bool {
    Regex::new(r#"(?m)(?:^|[{,])[ \t]*["']?schema_version["']?[ \t]*:"#)
        .expect("a valid literal pattern")
        .is_match(text)
}

/// A JSON document, unless an object repeats a key: serde_json keeps the last one silently,
/// so the file is refused as YAML refuses a repeated key.
fn from_json(text: &str, json: serde_json::Value) -> Result<Document<'_>, Vec<Diagnostic>> {
    let duplicates = json_lines::Index::new(text).duplicates;
    if !duplicates.is_empty() {
        return Err(duplicates
            .into_iter()
            .map(|(path, line)| {
                let key = path.rsplit('.').next().unwrap_or(&path).to_owned();
                Diagnostic::new(
                    Code::YamlSyntax,
                    path,
                    format!("the key `{key}` appears twice in one object"),
                )
                .expected("each key once per object")
                .found(format!("a second `{key}`"))
                .at_line(line)
            })
            .collect());
    }
    Ok(Document {
        text,
        tree: yaml_of(&json),
        json,
        is_json: true,
    })
}

/// The YAML value a JSON value reads as.
fn yaml_of(json: &serde_json::Value) -> serde_yaml::Value {
    use serde_json::Value as Json;
    use serde_yaml::Value as Yaml;
    match json {
        Json::Null => Yaml::Null,
        Json::Bool(flag) => Yaml::Bool(*flag),
        Json::Number(number) => Yaml::Number(
            number
                .as_u64()
                .map(serde_yaml::Number::from)
                .or_else(|| number.as_i64().map(serde_yaml::Number::from))
                .unwrap_or_else(|| serde_yaml::Number::from(number.as_f64().unwrap_or(f64::NAN))),
        ),
        Json::String(text) => Yaml::String(text.clone()),
        Json::Array(items) => Yaml::Sequence(items.iter().map(yaml_of).collect()),
        Json::Object(members) => Yaml::Mapping(
            members
                .iter()
                .map(|(key, value)| (Yaml::String(key.clone()), yaml_of(value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::read;

    #[test]
    fn recognises_the_format_by_its_top_level_key() {
        for (text, generator_format, readable) in [
            ("schema_version: '1.0'\n", true, true),
            ("\u{feff}schema_version: '1.0'\n", true, true),
            ("---\nschema_version: '1.0'\n", true, true),
            ("{\"schema_version\": \"1.0\"}", true, true),
            ("{schema_version: '1.0'}", true, false),
            ("schema_version: '1.0'\nadapter: [\n", true, false),
            ("{\"schema_version\": \"1.0\",}", true, false),
            (
                "{\"a\": 1,\n\"a\": 2, \"schema_version\": \"1.0\"}",
                true,
                false,
            ),
            ("# Pets\n\nNo front matter here.\n", false, false),
            ("name: pets\n", false, false),
            ("{\"name\": \"pets\"}", false, false),
            ("adapter:\n  schema_version: '1.0'\n", false, false),
            ("[1, 2]", false, false),
            ("", false, false),
        ] {
            let read = read(text);
            assert_eq!(read.is_some(), generator_format, "{text:?}");
            assert_eq!(read.is_some_and(|read| read.is_ok()), readable, "{text:?}");
        }
    }
}
