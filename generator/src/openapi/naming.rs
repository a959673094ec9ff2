//! Operation and parameter names: OpenAPI spellings to the adapter's snake_case.

use std::collections::BTreeSet;

/// The longest operation name the importer writes.
pub const MAX_NAME: usize = 64;

/// `issues/list-for-repo` -> `issues_list_for_repo`: lowercase ASCII letters and digits,
/// every other run of characters one `_`, camelCase split, never starting with a digit.
pub fn snake(raw: &str) -> String {
    snake_or(raw, "op")
}

/// A param's public name from the upstream's (`api-version` -> `api_version`, `$filter` ->
/// `filter`, `X-Request-Id` -> `x_request_id`), as [`snake`] but prefixed `p_` where it
/// would start with a digit.
pub fn param(raw: &str) -> String {
    snake_or(raw, "p")
}

/// [`snake`] with `prefix` for a name that would start with a digit or be empty.
fn snake_or(raw: &str, prefix: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for character in raw.chars() {
        if character.is_ascii_alphanumeric() {
            if character.is_ascii_uppercase() && previous_lower {
                out.push('_');
            }
            previous_lower = character.is_ascii_lowercase() || character.is_ascii_digit();
            out.push(character.to_ascii_lowercase());
        } else {
            previous_lower = false;
            if !out.ends_with('_') {
                out.push('_');
            }
        }
    }
    let trimmed = out.trim_matches('_');
    if trimmed.starts_with(|c: char| c.is_ascii_digit()) || trimmed.is_empty() {
        format!("{prefix}_{trimmed}")
            .trim_end_matches('_')
            .to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// Hands out names unique within one import, cut to [`MAX_NAME`] characters; the protocol's
/// reserved operation names count as taken.
#[derive(Debug)]
pub struct Names {
    taken: BTreeSet<String>,
}

impl Default for Names {
    fn default() -> Self {
        Self {
            taken: crate::schema::RESERVED_OPERATIONS
                .iter()
                .map(|name| (*name).to_owned())
                .collect(),
        }
    }
}

impl Names {
    /// `base` cut to fit, or with `_2`, `_3`, ... appended when already taken.
    pub fn unique(&mut self, base: &str) -> String {
        let cut = |text: &str, room: usize| {
            text[..text.len().min(room)]
                .trim_end_matches('_')
                .to_owned()
        };
        let mut candidate = cut(base, MAX_NAME);
        let mut counter = 2;
        while self.taken.contains(&candidate) {
            let suffix = format!("_{counter}");
            candidate = format!("{}{suffix}", cut(base, MAX_NAME - suffix.len()));
            counter += 1;
        }
        self.taken.insert(candidate.clone());
        candidate
    }
}

/// Whether `name` can be an adapter parameter name as it is.
pub fn is_param_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_cases_operation_ids() {
        let table = [
            ("issues/list-for-repo", "issues_list_for_repo"),
            ("listPets", "list_pets"),
            ("getHTTPStatus", "get_httpstatus"),
            ("repos/get", "repos_get"),
            ("  weird--name__", "weird_name"),
            ("2fa/enable", "op_2fa_enable"),
            ("", "op"),
        ];
        for (raw, expected) in table {
            assert_eq!(snake(raw), expected, "{raw}");
        }
    }

    #[test]
    fn snake_cases_param_names() {
        let table = [
            ("api-version", "api_version"),
            ("page[size]", "page_size"),
            ("$filter", "filter"),
            ("X-Request-Id", "x_request_id"),
            ("pageSize", "page_size"),
            ("2fa", "p_2fa"),
            ("per_page", "per_page"),
        ];
        for (raw, expected) in table {
            assert_eq!(param(raw), expected, "{raw}");
        }
    }

    #[test]
    fn deduplicates_and_cuts() {
        let mut names = Names::default();
        assert_eq!(names.unique("a"), "a");
        assert_eq!(names.unique("a"), "a_2");
        assert_eq!(names.unique("a"), "a_3");
        let long = "x".repeat(80);
        assert_eq!(names.unique(&long).len(), MAX_NAME);
        let second = names.unique(&long);
        assert_eq!(second.len(), MAX_NAME);
        assert!(second.ends_with("_2"));
        assert_eq!(names.unique("introspect"), "introspect_2", "reserved");
    }
}
