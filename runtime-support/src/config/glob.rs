//! The safety loop's glob patterns (`--loop-deny` and the like) and the one normal form both
//! a pattern and a reported action are read in, so that writing an action differently does
//! not change what it matches:
//!
//! 1. Unicode compatibility forms folded (NFKC: `ｄｒｏｐ` is `drop`);
//! 2. words split at case changes (`deleteAll` is `delete all`);
//! 3. look-alike characters folded (Unicode TS #39 skeletons: Cyrillic `ԁгор` is Latin
//!    `drop`), invisible characters and accents dropped, and case ignored;
//! 4. every run of white space and punctuation one space (`delete-all`, `delete__all` and
//!    `delete . all` are `delete all`);
//! 5. adjacent single-dash flags one sorted set (`rm -r -f`, `rm -fr` and `rm -rf` are one),
//!    in patterns and actions alike.
//!
//! A pattern matches when it matches the action from its start, or from the start of any of
//! its words, to its end; the whole action counts, however long.

use unicode_normalization::UnicodeNormalization as _;
use unicode_normalization::char::is_combining_mark;
use unicode_security::confusable_detection::skeleton;

/// A glob over a reported action: `*` any run of characters, `?` one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    /// As the operator wrote it.
    written: String,
    /// In the normal form, `*` and `?` kept.
    folded: Vec<char>,
}

/// A reported action in the normal form, folded once for every pattern it meets.
pub struct Action(Vec<char>);

impl Action {
    /// `text` in the normal form.
    pub fn new(text: &str) -> Self {
        Self(fold(text, false))
    }
}

impl Glob {
    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// Parses a pattern that keeps something to match once folded.
    ///
    /// # Errors
    ///
    /// A sentence for the operator.
    pub fn parse(text: &str) -> Result<Self, String> {
        let written = text.trim();
        let folded = fold(written, true);
        if folded.is_empty() {
            return Err(format!(
                "glob pattern '{written}' keeps nothing to match once white space and punctuation are set aside"
            ));
        }
        Ok(Self {
            written: written.to_owned(),
            folded,
        })
    }

    /// Whether `action` matches: from its start or the start of any of its words, to its
    /// end. One pass over the action, whatever the pattern's stars.
    pub fn matches(&self, action: &Action) -> bool {
        let pattern = &self.folded;
        let text = &action.0;
        let mut states = vec![false; pattern.len() + 1];
        let mut next = states.clone();
        for at in 0..=text.len() {
            if at == 0 || text[at - 1] == ' ' {
                states[0] = true;
            }
            // A star may match nothing: whoever stands before one stands after it too.
            for p in 0..pattern.len() {
                if states[p] && pattern[p] == '*' {
                    states[p + 1] = true;
                }
            }
            let Some(&c) = text.get(at) else { break };
            next.fill(false);
            for (p, &wanted) in pattern.iter().enumerate() {
                if states[p] {
                    match wanted {
                        '*' => next[p] = true,
                        '?' => next[p + 1] = true,
                        wanted if wanted == c => next[p + 1] = true,
                        _ => {}
                    }
                }
            }
            std::mem::swap(&mut states, &mut next);
        }
        states[pattern.len()]
    }
}

/// `text` in the normal form; with `glob`, `*` and `?` stay wildcards rather than
/// punctuation.
fn fold(text: &str, glob: bool) -> Vec<char> {
    // Words split where a lower-case letter or digit meets an upper-case one, before look-alikes
    // are folded (which may turn `0` into `O`).
    let mut split = String::with_capacity(text.len());
    let mut previous: Option<char> = None;
    for c in text.nfkc() {
        if c.is_uppercase() && previous.is_some_and(|p| p.is_lowercase() || p.is_numeric()) {
            split.push(' ');
        }
        split.push(c);
        previous = Some(c);
    }
    let plain: String = skeleton(&split)
        .filter(|c| !is_combining_mark(*c))
        .collect();
    let lower = plain.to_lowercase();
    let kept = |c: char| c.is_alphanumeric() || (glob && (c == '*' || c == '?'));
    let mut words: Vec<String> = Vec::new();
    let mut flags: Option<(Vec<char>, bool)> = None;
    for token in lower.split_whitespace() {
        if let Some((letters, star)) = flag(token, glob) {
            let (set, any_star) = flags.get_or_insert_with(Default::default);
            set.extend(letters);
            *any_star |= star;
            continue;
        }
        if let Some(set) = flags.take() {
            words.push(flag_word(set));
        }
        words.push(token.to_owned());
    }
    if let Some(set) = flags.take() {
        words.push(flag_word(set));
    }
    let mut folded = Vec::new();
    for c in words.join(" ").chars() {
        if kept(c) {
            folded.push(c);
        } else if folded.last().is_some_and(|last| *last != ' ') {
            folded.push(' ');
        }
    }
    if folded.last() == Some(&' ') {
        folded.pop();
    }
    folded
}

/// The letters of a single-dash flag token (`-rf`, in a pattern `-rf*` too), and whether a
/// star ends it.
fn flag(token: &str, glob: bool) -> Option<(Vec<char>, bool)> {
    let letters = token.strip_prefix('-')?;
    let (letters, star) = match letters.strip_suffix('*') {
        Some(letters) if glob => (letters, true),
        _ => (letters, false),
    };
    (!letters.is_empty() && letters.chars().all(|c| c.is_ascii_alphabetic()))
        .then(|| (letters.chars().collect(), star))
}

/// Flag letters as one word: sorted, each once, a star after when one ended a flag.
fn flag_word((mut letters, star): (Vec<char>, bool)) -> String {
    letters.sort_unstable();
    letters.dedup();
    let mut word: String = letters.into_iter().collect();
    if star {
        word.push('*');
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, action: &str) -> bool {
        Glob::parse(pattern)
            .expect("a pattern")
            .matches(&Action::new(action))
    }

    #[test]
    fn patterns_match_the_action_or_a_word_start_to_its_end() {
        assert!(matches("delete_*", "delete_todo 4"));
        assert!(matches("delete_*", "calling DELETE_todo on item 4"));
        assert!(!matches("delete_*", "undelete_todo"));
        assert!(matches("rm -rf*", "executing shell command: rm -rf /tmp/x"));
        assert!(matches("*force*", "git push --force origin main"));
        assert!(matches("get_?ssue", "get_issue"));
        assert!(!matches("get_?ssue", "get_isue"));
        assert!(!matches("get_?ssue", "get_issue now"), "to the end");
        assert!(Glob::parse("  ").is_err());
        assert!(Glob::parse("-_- .").is_err());
    }

    #[test]
    fn writing_an_action_differently_does_not_evade_a_pattern() {
        for action in [
            "delete-all todos",
            "delete__all",
            "delete . all",
            "deleteAll",
            "DeleteAllTodos",
            "delete\u{200b}_all",
            "dеlеtе_аll",
            "ｄｅｌｅｔｅ＿ａｌｌ",
            "délète_all",
            "now\tdelete_all",
        ] {
            assert!(matches("delete_all*", action), "{action:?}");
        }
        for action in [
            "rm -fr /",
            "rm -r -f /",
            "rm -Rf /",
            "rm -f -r -v /",
            "sudo rm -rf",
        ] {
            assert!(matches("rm -rf*", action), "{action:?}");
        }
        assert!(!matches("rm -rf*", "rm -r /tmp/x"), "one flag is not both");
        assert!(!matches("drop_*", "airdrop_campaign"));
    }

    #[test]
    fn padding_does_not_push_a_match_out_of_view() {
        let padded = format!("{} delete_all", "harmless ".repeat(100_000));
        assert!(matches("delete_all*", &padded));
        let stars = Glob::parse("*a*a*a*a*a*a*a*b").expect("a pattern");
        assert!(!stars.matches(&Action::new(&"a ".repeat(50_000))));
    }
}
