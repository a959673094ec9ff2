//! Finds the line of a field path (`endpoints.read[0].params[2].name`) in JSON text, as
//! `validate::locate` does for block YAML, and the keys an object repeats (serde_json keeps
//! the last of them without a word, where YAML refuses the file).

use std::collections::HashMap;

/// The deepest nesting indexed; serde_json refuses deeper documents before they get here.
const MAX_DEPTH: usize = 256;

/// Every member and item of a JSON document, by field path, with the 1-based line it starts.
#[derive(Debug, Default)]
pub struct Index {
    lines: HashMap<String, usize>,
    /// Members whose key an earlier member of the same object has: path and line.
    pub duplicates: Vec<(String, usize)>,
}

impl Index {
    /// Indexes `text`, a document serde_json parsed; any other text gives a partial index and
    /// never a panic.
    pub fn new(text: &str) -> Self {
        let mut scanner = Scanner {
            text,
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
            index: Self::default(),
        };
        scanner.value("", 0);
        scanner.index
    }

    /// The line of `path`, or of its deepest ancestor found.
    pub fn line_of(&self, path: &str) -> Option<usize> {
        let mut path = path;
        loop {
            if let Some(line) = self.lines.get(path) {
                return Some(*line);
            }
            path = parent(path)?;
        }
    }
}

/// `a.b[2]` for `a.b[2].c`, `a.b` for `a.b[2]`, `None` for the root.
fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let cut = if path.ends_with(']') {
        path.rfind('[')
    } else {
        path.rfind('.')
    };
    Some(cut.map_or("", |at| &path[..at]))
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    line: usize,
    index: Index,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(byte) = self.peek() {
            match byte {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => break,
            }
            self.at += 1;
        }
    }

    /// Every step consumes a byte or ends the loop, so malformed text ends the scan.
    fn value(&mut self, path: &str, depth: usize) {
        self.skip_space();
        match self.peek() {
            Some(b'{') if depth < MAX_DEPTH => {
                self.at += 1;
                loop {
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b'"') => {
                            let line = self.line;
                            let key = self.string();
                            let child = if path.is_empty() {
                                key
                            } else {
                                format!("{path}.{key}")
                            };
                            if self.index.lines.insert(child.clone(), line).is_some() {
                                self.index.duplicates.push((child.clone(), line));
                            }
                            self.skip_space();
                            if self.peek() == Some(b':') {
                                self.at += 1;
                            }
                            self.value(&child, depth + 1);
                        }
                        Some(b'}') => {
                            self.at += 1;
                            break;
                        }
                        _ => break,
                    }
                }
            }
            Some(b'[') if depth < MAX_DEPTH => {
                self.at += 1;
                let mut item = 0;
                loop {
                    self.skip_space();
                    match self.peek() {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            break;
                        }
                        None => break,
                        Some(_) => {
                            let child = format!("{path}[{item}]");
                            self.index.lines.insert(child.clone(), self.line);
                            self.value(&child, depth + 1);
                            item += 1;
                        }
                    }
                }
            }
            Some(b'"') => {
                self.string();
            }
            Some(_) => {
                self.at += 1;
                while self
                    .peek()
                    .is_some_and(|byte| !b",:{}[]\" \t\r\n".contains(&byte))
                {
                    self.at += 1;
                }
            }
            None => {}
        }
    }

    /// Reads a string from its opening quote and returns its value.
    fn string(&mut self) -> String {
        let start = self.at;
        self.at += 1;
        while let Some(byte) = self.peek() {
            self.at += 1;
            match byte {
                b'\\' => self.at += 1,
                b'"' => break,
                b'\n' => self.line += 1,
                _ => {}
            }
        }
        self.text
            .get(start..self.at.min(self.bytes.len()))
            .and_then(|raw| serde_json::from_str(raw).ok())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::Index;

    const JSON: &str = r#"{
  "schema_version": "1.0",
  "endpoints": {
    "read": [
      {
        "name": "get_item",
        "params": [{"name": "id"},
          {"name": "a\"b", "ty\u0070e": {"array": "string"}}]
      }
    ]
  }
}"#;

    #[test]
    fn finds_members_and_items() {
        let index = Index::new(JSON);
        for (path, line) in [
            ("schema_version", 2),
            ("endpoints", 3),
            ("endpoints.read[0]", 5),
            ("endpoints.read[0].name", 6),
            ("endpoints.read[0].params[0].name", 7),
            ("endpoints.read[0].params[1]", 8),
            ("endpoints.read[0].params[1].type.array", 8),
            ("endpoints.read[0].http.method", 5),
            ("types[0]", 1),
        ] {
            let found = index.line_of(path).unwrap_or(1);
            assert_eq!(found, line, "{path}");
        }
        assert!(index.duplicates.is_empty());
    }

    #[test]
    fn reports_repeated_keys_and_survives_any_text() {
        let index = Index::new("{\"a\": 1,\n \"a\": 2}");
        assert_eq!(index.duplicates, [("a".to_owned(), 2)]);
        for text in ["", "{", "[[[", "{\"a\"", "\"\\", "{]}", "{\"é\\", "[1 2 }"] {
            Index::new(text);
        }
    }
}
