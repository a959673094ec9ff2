//! `maps_to: "GET /repos/{owner}/{repo}"`, taken apart.

use aqlgen_model::{Method, Vocabulary};

/// A parsed `maps_to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapsTo<'a> {
    /// The upstream method.
    pub method: Method,
    /// The path template, starting with `/`.
    pub path: &'a str,
    /// The path split into literal text and `{placeholder}` names, in order.
    pub pieces: Vec<PathPiece<'a>>,
}

/// Part of a path template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathPiece<'a> {
    /// Text sent as written.
    Literal(&'a str),
    /// A `{name}` replaced by a param's percent-encoded value.
    Placeholder(&'a str),
}

/// Why a `maps_to` was refused: what the format wants there, and a fix when one is obvious.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What was expected, in words.
    pub expected: String,
    /// A concrete fix.
    pub help: Option<String>,
}

impl Refusal {
    fn new(expected: impl Into<String>) -> Self {
        Self {
            expected: expected.into(),
            help: None,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Parses `METHOD /path`. Literal path text must be what a URL path can carry as written
/// (ASCII letters, digits, `-._~!$&'()*+,;=:@/` and `%XX` escapes), with no `.` or `..`
/// segment, so that every request the operation builds stays under the base URL.
pub fn parse(maps_to: &str) -> Result<MapsTo<'_>, Refusal> {
    let Some((method, path)) = maps_to.trim().split_once(' ') else {
        return Err(Refusal::new("`METHOD /path`, separated by one space"));
    };
    let path = path.trim();
    let Some(method) = Method::parse(method) else {
        return Err(Refusal::new(format!(
            "a method among {}",
            Method::NAMES.join(", ")
        )));
    };
    if !path.starts_with('/') || path.contains(char::is_whitespace) {
        return Err(Refusal::new("a path starting with `/` and without spaces"));
    }
    if let Some((before, query)) = path.split_once('?') {
        let names: Vec<&str> = query
            .split('&')
            .filter_map(|pair| pair.split('=').next())
            .filter(|name| !name.is_empty())
            .collect();
        return Err(Refusal::new("a path without a query string").help(format!(
            "write `{before}` and declare {} as params: {} sends them in the query string",
            if names.is_empty() {
                "the query's names".to_owned()
            } else {
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            if method.sends_body() {
                "only GET and DELETE"
            } else {
                method.as_str()
            }
        )));
    }
    let mut pieces = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            None => {
                pieces.push(PathPiece::Literal(rest));
                rest = "";
            }
            Some(open) if rest[open..].starts_with('{') => {
                if open > 0 {
                    pieces.push(PathPiece::Literal(&rest[..open]));
                }
                let Some(close) = rest[open..].find('}') else {
                    return Err(Refusal::new("every `{` in the path closed by `}`"));
                };
                let name = &rest[open + 1..open + close];
                if name.is_empty() || name.contains('{') {
                    return Err(Refusal::new("a placeholder name between `{` and `}`"));
                }
                pieces.push(PathPiece::Placeholder(name));
                rest = &rest[open + close + 1..];
            }
            Some(_) => return Err(Refusal::new("every `}` in the path opened by `{`")),
        }
    }
    for piece in &pieces {
        if let PathPiece::Literal(text) = piece {
            check_literal(text)?;
        }
    }
    let has_dot_segment = path.split('/').any(|segment| {
        matches!(
            segment.to_ascii_lowercase().replace("%2e", ".").as_str(),
            "." | ".."
        )
    });
    if has_dot_segment {
        return Err(Refusal::new("a path without `.` or `..` segments")
            .help("write the path the upstream resolves it to"));
    }
    Ok(MapsTo {
        method,
        path,
        pieces,
    })
}

/// Literal path text must reach the upstream byte for byte: URL path characters only.
fn check_literal(text: &str) -> Result<(), Refusal> {
    let bytes = text.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        if byte == b'%' {
            let escape = bytes.get(index + 1..index + 3);
            if !escape.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) {
                return Err(Refusal::new("`%` followed by two hex digits in the path")
                    .help("write a literal `%` as `%25`"));
            }
            index += 3;
            continue;
        }
        let allowed = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte);
        if !allowed {
            let character = text[index..].chars().next().unwrap_or_default();
            let mut encoded = String::new();
            for byte in character.to_string().bytes() {
                encoded.push_str(&format!("%{byte:02X}"));
            }
            return Err(Refusal::new(
                "ASCII letters, digits, `-._~!$&'()*+,;=:@/` and `%XX` escapes in the path",
            )
            .help(format!("percent-encode `{character}` as `{encoded}`")));
        }
        index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_methods_paths_and_placeholders() {
        let parsed = parse("GET /repos/{owner}/{repo}/issues").expect("valid");
        assert_eq!(parsed.method, Method::Get);
        assert_eq!(
            parsed.pieces,
            [
                PathPiece::Literal("/repos/"),
                PathPiece::Placeholder("owner"),
                PathPiece::Literal("/"),
                PathPiece::Placeholder("repo"),
                PathPiece::Literal("/issues"),
            ]
        );
        for bad in [
            "GET",
            "FETCH /a",
            "GET a",
            "GET /a/{b",
            "GET /a/}",
            "GET /a/{}",
            "GET /pets/名前",
            "GET /pets?x=1",
            "GET /a#b",
            "GET /a/../b",
            "GET /a/%2e",
            "GET /a%zz",
            "GET /a\\b",
            "GET /a\"b",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        for good in [
            "GET /",
            "GET /a/%E5%90%8D",
            "GET /v1:run",
            "GET /a/{b}.json",
            "GET /a/.../b",
        ] {
            assert!(parse(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn refusals_say_how_to_fix() {
        let query = parse("GET /pets?kind=cat&limit=2").expect_err("query");
        assert_eq!(
            query.help.as_deref(),
            Some(
                "write `/pets` and declare `kind`, `limit` as params: GET sends them in the query string"
            )
        );
        let unicode = parse("GET /pets/名").expect_err("non-ASCII");
        assert_eq!(
            unicode.help.as_deref(),
            Some("percent-encode `名` as `%E5%90%8D`")
        );
    }
}
