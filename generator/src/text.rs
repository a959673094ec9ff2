//! Schema text on its way into generated source: what may appear as itself, and how the rest
//! is shown.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_become_visible() {
        assert_eq!(visible("plain"), "plain");
        assert_eq!(visible("a\rb\u{202e}c"), "a\\u{d}b\\u{202e}c");
        assert_eq!(visible("two\nlines"), "two\nlines");
    }
}
