//! Wire names to Rust identifiers: case conversion and keyword escaping.

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::{Ident, Span};

/// Keywords that cannot be raw identifiers, so they get a trailing `_` instead.
const NOT_RAW: [&str; 5] = ["crate", "self", "Self", "super", "_"];

/// Strict and reserved keywords of edition 2024, escaped as `r#name`.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Whether `name` is a keyword of edition 2024, which no crate may be named.
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name) || NOT_RAW.contains(&name)
}

/// The Rust spelling of a field or function name: `per_page`, `r#type`, `self_`.
pub fn field_name(wire: &str) -> String {
    let snake = wire.to_snake_case();
    if NOT_RAW.contains(&snake.as_str()) {
        format!("{snake}_")
    } else if KEYWORDS.contains(&snake.as_str()) {
        format!("r#{snake}")
    } else {
        snake
    }
}

/// The Rust spelling of a type name: `get_repo` + `Params` -> `GetRepoParams`.
pub fn type_name(wire: &str, suffix: &str) -> String {
    format!("{}{suffix}", wire.to_upper_camel_case())
}

/// The Rust spelling of a static: `get_repo` -> `GET_REPO`.
pub fn static_name(wire: &str) -> String {
    wire.to_shouty_snake_case()
}

/// The introspection type of a param's enum: `create_todo` + `priority` -> `CreateTodoPriority`.
pub fn enum_type_name(operation: &str, param: &str) -> String {
    type_name(&format!("{}_{param}", type_name(operation, "")), "")
}

/// The struct and introspection type of an UPDATE `input`: `update_todo` -> `UpdateTodoInput`.
pub fn input_type_name(operation: &str) -> String {
    type_name(operation, "Input")
}

/// The introspection type an operation returns: its `response.type` when that is a type name
/// (not a JSON type), else `<Operation>Result`.
pub fn returns_type_name(operation: &str, response_type: Option<&str>) -> String {
    response_type
        .filter(|kind| {
            !matches!(
                *kind,
                "object" | "array" | "string" | "integer" | "number" | "boolean"
            )
        })
        .filter(|kind| {
            !kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .map_or_else(|| type_name(operation, "Result"), str::to_owned)
}

/// Turns a spelling from this module into an `Ident`.
pub fn ident(spelling: &str) -> Ident {
    match spelling.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(spelling, Span::call_site()),
    }
}

/// The snake_case spelling offered when a name is not snake_case: `userName` -> `user_name`.
pub fn snake_case_suggestion(name: &str) -> String {
    name.to_snake_case()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fields_types_and_statics() {
        for (wire, field, ty, stat) in [
            ("get_repo", "get_repo", "GetRepoParams", "GET_REPO"),
            ("type", "r#type", "TypeParams", "TYPE"),
            ("self", "self_", "SelfParams", "SELF"),
            ("crate", "crate_", "CrateParams", "CRATE"),
            ("per_page", "per_page", "PerPageParams", "PER_PAGE"),
            ("match", "r#match", "MatchParams", "MATCH"),
            ("gen", "r#gen", "GenParams", "GEN"),
            ("v2_items", "v2_items", "V2ItemsParams", "V2_ITEMS"),
        ] {
            assert_eq!(field_name(wire), field, "{wire}");
            assert_eq!(type_name(wire, "Params"), ty, "{wire}");
            assert_eq!(static_name(wire), stat, "{wire}");
        }
    }

    #[test]
    fn every_keyword_becomes_a_valid_ident() {
        for keyword in KEYWORDS.iter().chain(NOT_RAW.iter().filter(|k| **k != "_")) {
            let spelling = field_name(keyword);
            let ident = ident(&spelling);
            assert!(
                syn::parse_str::<syn::Ident>(&ident.to_string()).is_ok(),
                "{keyword}"
            );
        }
    }

    #[test]
    fn suggests_snake_case() {
        assert_eq!(snake_case_suggestion("userName"), "user_name");
        assert_eq!(snake_case_suggestion("Per-Page"), "per_page");
    }
}
