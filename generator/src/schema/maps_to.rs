//! `maps_to: "GET /repos/{owner}/{repo}"`, taken apart.

/// A parsed `maps_to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapsTo<'a> {
    /// `GET`, `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: &'a str,
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

/// The methods an operation may map to.
pub const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// Parses `METHOD /path`; the error says what is wrong in words.
pub fn parse(maps_to: &str) -> Result<MapsTo<'_>, String> {
    let Some((method, path)) = maps_to.trim().split_once(' ') else {
        return Err("`METHOD /path`, separated by one space".to_owned());
    };
    let path = path.trim();
    if !METHODS.contains(&method) {
        return Err(format!("a method among {}", METHODS.join(", ")));
    }
    if !path.starts_with('/') || path.contains(char::is_whitespace) {
        return Err("a path starting with `/` and without spaces".to_owned());
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
                    return Err("every `{` in the path closed by `}`".to_owned());
                };
                let name = &rest[open + 1..open + close];
                if name.is_empty() || name.contains('{') {
                    return Err("a placeholder name between `{` and `}`".to_owned());
                }
                pieces.push(PathPiece::Placeholder(name));
                rest = &rest[open + close + 1..];
            }
            Some(_) => return Err("every `}` in the path opened by `{`".to_owned()),
        }
    }
    Ok(MapsTo {
        method,
        path,
        pieces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_methods_paths_and_placeholders() {
        let parsed = parse("GET /repos/{owner}/{repo}/issues").expect("valid");
        assert_eq!(parsed.method, "GET");
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
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
