//! Reads an adapter `.md` file and splits its YAML front matter from the Markdown body.

use crate::diagnostic::{Code, Diagnostic};

/// An adapter schema file, split into its two parts.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as given, with `/` separators, for headers and diagnostics.
    pub path: String,
    /// The YAML between the `---` fences.
    pub front_matter: String,
    /// 1-based line of the `.md` holding the first front-matter line.
    pub first_line: usize,
    /// The Markdown after the closing fence: documentation for the README.
    pub body: String,
}

impl Source {
    /// Splits `text`; a file without a `---` fenced block at its top is a schema error.
    pub fn parse(path: &str, text: &str) -> Result<Self, Vec<Diagnostic>> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text.split_inclusive('\n');
        let opens = lines.next().is_some_and(|line| line.trim_end() == "---");
        let mut front_matter = String::new();
        let mut closed = false;
        if opens {
            for line in lines.by_ref() {
                if line.trim_end() == "---" {
                    closed = true;
                    break;
                }
                front_matter.push_str(line);
            }
        }
        if !closed {
            return Err(vec![
                Diagnostic::new(
                    Code::MissingFrontMatter,
                    "",
                    "the file has no YAML front matter",
                )
                .expected("a first line `---`, the YAML, then a closing `---`")
                .found(if opens {
                    "no closing `---`"
                } else {
                    "no opening `---`"
                })
                .at_line(1),
            ]);
        }
        Ok(Self {
            path: path.replace('\\', "/"),
            front_matter,
            first_line: 2,
            body: lines.collect::<String>().trim().to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_front_matter_and_body() {
        let source = Source::parse("a.md", "---\nname: x\n---\n\n# Title\n").expect("valid");
        assert_eq!(source.front_matter, "name: x\n");
        assert_eq!(source.body, "# Title");
        assert_eq!(source.first_line, 2);
    }

    #[test]
    fn refuses_a_file_without_closing_fence() {
        let error = Source::parse("a.md", "---\nname: x\n").expect_err("unclosed");
        assert_eq!(error[0].code, Code::MissingFrontMatter);
    }
}
