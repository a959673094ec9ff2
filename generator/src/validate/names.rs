//! Checks of names that several parts of validation share.

use regex::Regex;

use crate::diagnostic::{Code, Diagnostic};
use crate::ident;

/// A `what` name (operation, parameter, ...) that is not snake_case, with its snake_case spelling.
pub fn check_snake_case(path: &str, what: &str, name: &str, out: &mut Vec<Diagnostic>) {
    let snake = Regex::new("^[a-z][a-z0-9_]*$").expect("a valid literal pattern");
    if !snake.is_match(name) {
        out.push(
            Diagnostic::new(
                Code::InvalidName,
                path,
                format!("{what} name `{name}` is not snake_case"),
            )
            .expected("lowercase letters, digits and `_`, starting with a letter")
            .found(format!("{name:?}"))
            .suggest(format!("use `{}`", ident::snake_case_suggestion(name))),
        );
    }
}
