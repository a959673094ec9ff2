//! Every text this crate can put in front of a client stays clear of the leak patterns the
//! MCP-AQL conformance runner applies to error messages (spec digest §9C, Error Quality): its
//! `/at\s+\S+/i` alone refuses ordinary words such as "that is" or "format 'uuid'".
//!
//! Messages are assembled from string literals, so the test holds every literal of the crate's
//! source against the patterns. Left out: `config/`, whose literals are the operator's
//! command-line help and never reach a client, and test code.

use std::path::{Path, PathBuf};

/// The runner's patterns, as plain predicates over lowercased text.
fn leak(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    for fixed in [
        "typeerror",
        "referenceerror",
        "syntaxerror",
        "/src/",
        "/node_modules/",
    ] {
        if lower.contains(fixed) {
            return Some(fixed);
        }
    }
    let bytes = lower.as_bytes();
    for (i, window) in bytes.windows(2).enumerate() {
        let rest = &bytes[i + 2..];
        let spaces = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let followed = spaces > 0 && rest.get(spaces).is_some_and(|b| !b.is_ascii_whitespace());
        if window == b"at" && followed {
            return Some("at\\s+\\S+");
        }
        let extension = match window {
            b".t" if rest.first() == Some(&b's') => Some(&rest[1..]),
            b".j" if rest.first() == Some(&b's') => Some(&rest[1..]),
            _ => None,
        };
        if let Some(after) = extension
            && after.first() == Some(&b':')
            && after.get(1).is_some_and(u8::is_ascii_digit)
        {
            return Some("\\.(ts|js):\\d+");
        }
    }
    None
}

/// The string literals of `source` outside comments and test modules, with each line
/// continuation (`\` then a newline) joined the way the compiler joins it.
fn literals(source: &str) -> Vec<(usize, String)> {
    let code = source.split("#[cfg(test)]").next().unwrap_or(source);
    let chars: Vec<char> = code.chars().collect();
    let line_of = |at: usize| chars[..at].iter().filter(|&&c| c == '\n').count() + 1;
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\'' => {
                // A char literal ('x', '\n', '"') or a lifetime ('a).
                i += match (chars.get(i + 1), chars.get(i + 2)) {
                    (Some('\\'), _) => {
                        let close = chars[i + 2..].iter().position(|&c| c == '\'');
                        close.map_or(1, |offset| offset + 3)
                    }
                    (Some(_), Some('\'')) => 3,
                    _ => 1,
                };
                continue;
            }
            'r' if chars.get(i + 1) == Some(&'#') || chars.get(i + 1) == Some(&'"') => {
                let start = i;
                let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
                let open = i + 1 + hashes;
                if chars.get(open) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let closing: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let body_start = open + 1;
                let end = (body_start..chars.len())
                    .find(|&j| chars[j..].starts_with(&closing))
                    .unwrap_or(chars.len());
                found.push((line_of(start), chars[body_start..end].iter().collect()));
                i = end + closing.len();
                continue;
            }
            '"' => {
                let start = i;
                let mut text = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        match chars.get(i + 1) {
                            Some('\n') => {
                                i += 2;
                                while i < chars.len() && chars[i].is_whitespace() {
                                    i += 1;
                                }
                                continue;
                            }
                            Some('n') => text.push('\n'),
                            Some(&other) => text.push(other),
                            None => {}
                        }
                        i += 2;
                        continue;
                    }
                    text.push(chars[i]);
                    i += 1;
                }
                found.push((line_of(start), text));
            }
            _ => {}
        }
        i += 1;
    }
    found
}

fn sources(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source directory is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

#[test]
fn no_literal_trips_the_runners_leak_patterns() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut trips = Vec::new();
    let mut scanned = 0;
    for file in &files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if file.starts_with(src.join("config")) || name.ends_with("_tests.rs") {
            continue;
        }
        let source = std::fs::read_to_string(file).expect("a readable source file");
        for (line, text) in literals(&source) {
            scanned += 1;
            if let Some(pattern) = leak(&text) {
                let shown = file.strip_prefix(&src).unwrap_or(file).display();
                trips.push(format!("src/{shown}:{line}: /{pattern}/ in {text:?}"));
            }
        }
    }
    assert!(
        scanned > 300,
        "only {scanned} literals found: is the scanner broken?"
    );
    assert!(trips.is_empty(), "{}", trips.join("\n"));
}

#[test]
fn the_patterns_catch_what_the_runner_catches() {
    for bad in [
        "the value that is wrong",
        "invalid format 'uuid'",
        "must be AT  least 1",
        "TypeError: x",
        "see /src/lib.rs",
        "at main.js:12",
        "index.ts:3",
    ] {
        assert!(leak(bad).is_some(), "{bad}");
    }
    for good in [
        "Missing required parameter 'owner'",
        "format: 'uuid'",
        "at",
        "what.",
    ] {
        assert_eq!(leak(good), None, "{good}");
    }
}

#[test]
fn literals_are_read_as_the_compiler_reads_them() {
    let source = "let a = \"one \\\n        two\"; // \"comment\"\nlet c = '\"'; fn f<'a>() {}\nlet r = r#\"raw \"quoted\"\"#;\n#[cfg(test)]\nlet t = \"test\";";
    let found: Vec<String> = literals(source).into_iter().map(|(_, text)| text).collect();
    assert_eq!(found, ["one two", "raw \"quoted\""]);
}
