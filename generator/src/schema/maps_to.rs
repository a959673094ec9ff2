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
    /// The pairs of a query written after `?`, in order.
    pub query: Vec<QueryPair<'a>>,
}

/// One `name=value` of a query in the template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryPair<'a> {
    /// The name on the wire, as written (percent-escapes allowed).
    pub name: &'a str,
    /// What is sent.
    pub value: QueryValue<'a>,
}

/// The value of a query pair in the template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryValue<'a> {
    /// Sent as written on every call (percent-escapes allowed).
    Fixed(&'a str),
    /// `{name}`: the value of this param.
    Param(&'a str),
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
    let (path, query) = match path.split_once('?') {
        Some((path, query)) => (path, parse_query(query)?),
        None => (path, Vec::new()),
    };
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
        query,
    })
}

/// `name=value&name={param}`: names and fixed values in URL query characters, a param
/// placeholder as a whole value.
fn parse_query(query: &str) -> Result<Vec<QueryPair<'_>>, Refusal> {
    let mut pairs = Vec::new();
    for pair in query.split('&') {
        let Some((name, value)) = pair.split_once('=').filter(|(name, _)| !name.is_empty()) else {
            return Err(
                Refusal::new("`name=value` pairs joined by `&` after the `?`")
                    .help("write a name, `=` and a fixed value or a `{param}` for each pair"),
            );
        };
        check_query_text(name)?;
        let value = match value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
            Some(param) if !param.is_empty() && !param.contains(['{', '}']) => {
                QueryValue::Param(param)
            }
            _ if value.contains(['{', '}']) => {
                return Err(Refusal::new(
                    "a query value that is fixed text or one whole `{param}`",
                ));
            }
            _ => {
                check_query_text(value)?;
                QueryValue::Fixed(value)
            }
        };
        pairs.push(QueryPair { name, value });
    }
    Ok(pairs)
}

/// A query name or value must reach the upstream as written: URL characters other than the
/// pair separators.
fn check_query_text(text: &str) -> Result<(), Refusal> {
    if text.contains(['=', '#', '?']) {
        return Err(
            Refusal::new("query names and values without `=`, `#` or `?`")
                .help("percent-encode them: `=` as `%3D`, `#` as `%23`, `?` as `%3F`"),
        );
    }
    check_literal(text)
}

/// `text` with its `%XX` escapes decoded, for a fixed query name or value (checked, so every
/// `%` starts an escape). Bytes that are not UTF-8 are replaced.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = text
            .get(index + 1..index + 3)
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[index], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                index += 3;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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
            "GET /pets?x",
            "GET /pets?=1",
            "GET /pets?x={a}{b}",
            "GET /pets?x=a{b}",
            "GET /pets?x=1=2",
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
            "GET /pets?x=1",
            "GET /pets?format=json&station={station}",
        ] {
            assert!(parse(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn a_query_in_the_template_is_fixed_pairs_and_params() {
        let parsed = parse("GET /arrivals?format=json&stationName={station}").expect("valid");
        assert_eq!(parsed.path, "/arrivals");
        assert_eq!(
            parsed.query,
            [
                QueryPair {
                    name: "format",
                    value: QueryValue::Fixed("json"),
                },
                QueryPair {
                    name: "stationName",
                    value: QueryValue::Param("station"),
                },
            ]
        );
        assert_eq!(decode("a%20b%2Fc"), "a b/c");
    }

    #[test]
    fn refusals_say_how_to_fix() {
        let query = parse("GET /pets?kind").expect_err("no value");
        assert_eq!(
            query.help.as_deref(),
            Some("write a name, `=` and a fixed value or a `{param}` for each pair")
        );
        let unicode = parse("GET /pets/名").expect_err("non-ASCII");
        assert_eq!(
            unicode.help.as_deref(),
            Some("percent-encode `名` as `%E5%90%8D`")
        );
    }
}
