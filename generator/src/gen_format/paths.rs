//! Diagnostics of the shared checks, which speak of the converted front-matter model, in the
//! generator document's own terms: `operations.read[0].params.owner` becomes
//! `endpoints.read[0].params[0].name`, `name` becomes `adapter.name`.
//!
//! Only the paths those checks can report on a converted document are translated (the
//! format's own checks have already refused the rest: `maps_to`, placeholders, auth, a
//! required param with a default). A path some check quotes in its text (the first of two
//! colliding names) is translated too.

use aqlgen_model::Category;
use regex::{Captures, Regex};

use crate::diagnostic::Diagnostic;
use crate::schema::AdapterSchema;

/// Translates diagnostics about `schema`, the conversion of one document.
pub struct Translator<'a> {
    schema: &'a AdapterSchema,
    quoted: Regex,
}

impl<'a> Translator<'a> {
    /// A translator for the diagnostics of `schema`.
    pub fn new(schema: &'a AdapterSchema) -> Self {
        Self {
            schema,
            quoted: Regex::new(
                r"operations\.(?:create|read|update|delete|execute)\[\d+\](?:\.[a-z_][a-z0-9_]*)*",
            )
            .expect("a valid literal pattern"),
        }
    }

    /// `diagnostic` with its path, and the paths its text quotes, in the document's terms.
    pub fn translate(&self, mut diagnostic: Diagnostic) -> Diagnostic {
        diagnostic.path = self.path(&diagnostic.path);
        diagnostic.message = self.text(&diagnostic.message);
        for text in [
            &mut diagnostic.expected,
            &mut diagnostic.found,
            &mut diagnostic.suggestion,
        ]
        .into_iter()
        .flatten()
        {
            *text = self.text(text);
        }
        diagnostic
    }

    fn text(&self, text: &str) -> String {
        self.quoted
            .replace_all(text, |found: &Captures<'_>| self.path(&found[0]))
            .into_owned()
    }

    /// A path of the converted model as a path of the document.
    fn path(&self, path: &str) -> String {
        match path {
            "name" | "version" | "description" => format!("adapter.{path}"),
            "target.base_url" => "adapter.target_api.base_url".to_owned(),
            "operations" => "endpoints".to_owned(),
            _ => self.operation_path(path).unwrap_or_else(|| path.to_owned()),
        }
    }

    /// `operations.<family>[<i>]...`: the operation keeps its index, a param's name becomes
    /// its position, `response.type` is `returns`.
    fn operation_path(&self, path: &str) -> Option<String> {
        let (family, rest) = path.strip_prefix("operations.")?.split_once('[')?;
        let (index, rest) = rest.split_once(']')?;
        let category = Category::parse(family)?;
        let operations = self
            .schema
            .operations
            .families()
            .into_iter()
            .find_map(|(each, list)| (each == category).then_some(list))?;
        let operation = operations.get(index.parse::<usize>().ok()?)?;
        let tail = if rest == ".response.type" {
            ".returns".to_owned()
        } else if let Some(param) = rest.strip_prefix(".params.") {
            let (name, after) = param.split_at(param.find(['.', '[']).unwrap_or(param.len()));
            let position = operation.params.get_index_of(name)?;
            if after.is_empty() {
                format!(".params[{position}].name")
            } else {
                format!(".params[{position}]{after}")
            }
        } else {
            rest.to_owned()
        };
        Some(format!("endpoints.{family}[{index}]{tail}"))
    }
}

#[cfg(test)]
mod tests {
    use super::Translator;
    use crate::diagnostic::{Code, Diagnostic};
    use crate::schema::AdapterSchema;

    const SCHEMA: &str = "
name: shop
type: adapter
version: 1.0.0
description: A shop.
target: {base_url: 'https://shop.example', transport: http, protocol: rest, serialization: json}
operations:
  read:
    - name: get_item
      maps_to: GET /items/{id}
      params:
        id: {type: string, required: true}
        with_price: {type: boolean, default: 3}
";

    #[test]
    fn converted_paths_become_document_paths() {
        let schema: AdapterSchema = serde_yaml::from_str(SCHEMA).expect("a schema");
        let translator = Translator::new(&schema);
        for (converted, document) in [
            ("name", "adapter.name"),
            ("version", "adapter.version"),
            ("target.base_url", "adapter.target_api.base_url"),
            ("operations", "endpoints"),
            ("operations.read[0]", "endpoints.read[0]"),
            ("operations.read[0].name", "endpoints.read[0].name"),
            (
                "operations.read[0].response.type",
                "endpoints.read[0].returns",
            ),
            ("operations.read[0].params", "endpoints.read[0].params"),
            (
                "operations.read[0].params.id",
                "endpoints.read[0].params[0].name",
            ),
            (
                "operations.read[0].params.with_price.default",
                "endpoints.read[0].params[1].default",
            ),
            ("operations.read[1].name", "operations.read[1].name"),
        ] {
            let diagnostic = Diagnostic::new(Code::InvalidValue, converted, "m");
            assert_eq!(
                translator.translate(diagnostic).path,
                document,
                "{converted}"
            );
        }
        let quoting = Diagnostic::new(Code::IdentCollision, "", "like operations.read[0].")
            .found("also from operations.read[0].params.with_price, and version");
        let translated = translator.translate(quoting);
        assert_eq!(translated.message, "like endpoints.read[0].");
        assert_eq!(
            translated.found.as_deref(),
            Some("also from endpoints.read[0].params[1].name, and version")
        );
    }
}
