//! Schema text on its way into generated source: what may appear as itself, and how the rest
//! is shown.

use std::fmt::Write as _;

/// Characters that must not appear as themselves in generated source: controls (including
/// CR, which no Rust literal or comment may hold bare), bidirectional controls (refused by
/// rustc's `text_direction_codepoint_in_literal`) and other invisible format characters.
pub fn needs_escape(character: char) -> bool {
    matches!(
        character,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// `text` with every character of [`needs_escape`] written as `\u{…}`, for doc comments and
/// other comments, where a bare CR or a bidirectional control would break the file or hide
/// what it says.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for character in text.chars() {
        if needs_escape(character) && character != '\n' {
            shown.push_str(&format!("\\u{{{:x}}}", u32::from(character)));
        } else {
            shown.push(character);
        }
    }
    std::borrow::Cow::Owned(shown)
}

/// Schema text made safe to place in doc comments: rustdoc reads them as Markdown, so text
/// that was never meant as Markdown must not turn into broken intra-doc links (`[x]`), HTML
/// tags (`<id>`), bare-URL warnings, or doctests (an indented block or a fenced block, which
/// `cargo test` would compile). Outside code spans and fences `[`, `]` and `<` are escaped
/// and URLs put in angle brackets; lines lose their leading indentation; fences become
/// `text` blocks. Characters of [`needs_escape`] become `\u{…}`.
pub fn doc_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let line = visible(line);
        let trimmed = line.trim_start();
        let fence = ["```", "~~~"]
            .into_iter()
            .find(|fence| trimmed.starts_with(fence));
        if let Some(fence) = fence {
            out.push_str(fence);
            if !fenced {
                out.push_str("text");
            }
            fenced = !fenced;
            continue;
        }
        if fenced {
            out.push_str(&line);
            continue;
        }
        let mut in_code = false;
        let mut rest = trimmed;
        while let Some(character) = rest.chars().next() {
            let url = !in_code && (rest.starts_with("https://") || rest.starts_with("http://"));
            if url {
                let end = rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '`' | '"'))
                    .unwrap_or(rest.len());
                let mut link = rest[..end].trim_end_matches(['.', ',', ';', ':']);
                // A closing parenthesis belongs to the sentence when the link opened none.
                while link.ends_with([')', ']'])
                    && link.matches(['(', '[']).count() < link.matches([')', ']']).count()
                {
                    link = &link[..link.len() - 1];
                }
                out.push('<');
                out.push_str(link);
                out.push('>');
                rest = &rest[link.len()..];
                continue;
            }
            match character {
                '`' => in_code = !in_code,
                '[' | ']' | '<' | '\\' if !in_code => out.push('\\'),
                _ => {}
            }
            out.push(character);
            rest = &rest[character.len_utf8()..];
        }
    }
    out
}

/// A JSON string: `"` and `\` escaped, and every control or invisible formatting character
/// (see [`needs_escape`]) as `\u` escapes.
pub fn quoted(text: &mut String, value: &str) {
    text.push('"');
    for character in value.chars() {
        match character {
            '"' => text.push_str("\\\""),
            '\\' => text.push_str("\\\\"),
            '\n' => text.push_str("\\n"),
            '\t' => text.push_str("\\t"),
            character if needs_escape(character) => {
                let mut units = [0_u16; 2];
                for unit in character.encode_utf16(&mut units) {
                    let _ = write!(text, "\\u{unit:04x}");
                }
            }
            character => text.push(character),
        }
    }
    text.push('"');
}

/// `value` as a quoted string both JSON and TOML read the same way: a TOML basic string
/// allows the escapes a JSON string uses, and refuses the controls this escapes.
pub fn toml_string(value: &str) -> String {
    let mut text = String::new();
    quoted(&mut text, value);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_text_is_plain_to_rustdoc() {
        let table = [
            ("See [doc] and <title>.", "See \\[doc\\] and \\<title>."),
            ("Keep `[x] <y>` as code.", "Keep `[x] <y>` as code."),
            (
                "Go to https://example.com/a(b).",
                "Go to <https://example.com/a(b)>.",
            ),
            (
                "(see https://example.com/x)",
                "(see <https://example.com/x>)",
            ),
            ("    indented code", "indented code"),
            ("```json\n{\"a\": [1]}\n```", "```text\n{\"a\": [1]}\n```"),
            ("a \\ b", "a \\\\ b"),
        ];
        for (text, expected) in table {
            assert_eq!(doc_markdown(text), expected, "{text}");
        }
    }

    #[test]
    fn invisible_characters_become_visible() {
        assert_eq!(visible("plain"), "plain");
        assert_eq!(visible("a\rb\u{202e}c"), "a\\u{d}b\\u{202e}c");
        assert_eq!(visible("two\nlines"), "two\nlines");
    }
}
