//! How param values are written into the upstream request: path segments, query pairs,
//! headers, cookies and form or multipart body members, per OpenAPI's serialization styles.
//!
//! Generated request builders call one function per param, with the param's wire name and
//! [`Style`]. A scalar is its text in every style (strings as they are, numbers and booleans
//! as JSON writes them); `null` or an absent value writes nothing. Arrays and objects follow
//! the style:
//!
//! | style | array `[a, b]` | object `{k: v}` |
//! |---|---|---|
//! | simple | `a,b` | `k,v` (exploded `k=v`) |
//! | label | `.a.b` exploded, `.a,b` not | `.k=v` exploded, `.k,v` not |
//! | matrix | `;n=a;n=b` exploded, `;n=a,b` not | `;k=v` exploded, `;n=k,v` not |
//! | form | `n=a&n=b` exploded, `n=a,b` not | `k=v` exploded, `n=k,v` not |
//! | spaceDelimited, pipeDelimited | `n=a b`, `n=a\|b` | `n=k v`, `n=k\|v` |
//! | deepObject | `n[0]=a&n[1]=b` | `n[k]=v`, nested as deep as the value |

use std::borrow::Cow;

use base64::Engine;
use serde_json::{Map, Value};

use crate::adapter::{Body, Part};
use crate::params::ParamError;

/// A param's serialization: OpenAPI's `style`, with `explode` where it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Comma-separated.
    Simple {
        /// Objects as `k=v` pairs.
        explode: bool,
    },
    /// Each value after a `.`.
    Label {
        /// One `.` per value.
        explode: bool,
    },
    /// `;name=value` path parameters.
    Matrix {
        /// One `;name=` per value.
        explode: bool,
    },
    /// Query-string pairs.
    Form {
        /// One pair per value.
        explode: bool,
    },
    /// Array values joined by a space.
    SpaceDelimited,
    /// Array values joined by `|`.
    PipeDelimited,
    /// Bracketed keys, `name[key][0]=value`.
    DeepObject,
}

/// The text of a scalar: strings as they are, others as JSON writes them.
fn scalar(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(text) => Cow::Borrowed(text),
        Value::Null => Cow::Borrowed(""),
        other => Cow::Owned(other.to_string()),
    }
}

/// The values of an array or the key-value pairs of an object, flattened one level, each
/// as text; `None` for a scalar.
fn members(value: &Value) -> Option<Vec<(Option<&str>, Cow<'_, str>)>> {
    match value {
        Value::Array(items) => Some(items.iter().map(|item| (None, scalar(item))).collect()),
        Value::Object(map) => Some(
            map.iter()
                .map(|(key, item)| (Some(key.as_str()), scalar(item)))
                .collect(),
        ),
        _ => None,
    }
}

/// Percent-encodes one path segment: everything but RFC 3986 unreserved characters, so a `/`
/// in a value never becomes a separator.
pub fn encode_segment(value: &str) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// A path placeholder's text, refused when it is empty or only white space: a path value
/// names one resource, and an empty one would name the collection above it (`GET /entries/`
/// lists every entry; `DELETE /entries/` could remove them all).
///
/// # Errors
///
/// `VALIDATION_INVALID_VALUE` naming the param `label`.
pub fn path_text<'a>(label: &str, value: &'a str) -> Result<&'a str, ParamError> {
    if value.trim().is_empty() {
        return Err(empty_path_value(label, Value::from(value)));
    }
    Ok(value)
}

/// [`path_text`] for an array or object path value: refused when it is empty, or when one of
/// its values is.
///
/// # Errors
///
/// `VALIDATION_INVALID_VALUE` naming the param `label`.
pub fn path_value(label: &str, value: Value) -> Result<Value, ParamError> {
    let blank = |value: &Value| match value {
        Value::String(text) => text.trim().is_empty(),
        Value::Null => true,
        _ => false,
    };
    let empty = match &value {
        Value::Array(items) => items.is_empty() || items.iter().any(blank),
        Value::Object(members) => members.is_empty() || members.values().any(blank),
        other => blank(other),
    };
    if empty {
        return Err(empty_path_value(label, value));
    }
    Ok(value)
}

fn empty_path_value(label: &str, value: Value) -> ParamError {
    ParamError::InvalidValue {
        param: label.to_owned(),
        constraint: "non-empty (a path value names one resource, not the collection above it)"
            .to_owned(),
        value,
    }
}

/// One path placeholder's value, percent-encoded: separators the style adds stay literal,
/// so a value never adds a path segment.
pub fn path_segment(name: &str, value: &Value, style: Style) -> String {
    let Some(members) = members(value) else {
        let text = encode_segment(&scalar(value));
        return match style {
            Style::Label { .. } => format!(".{text}"),
            Style::Matrix { .. } => format!(";{name}={text}"),
            _ => text,
        };
    };
    let pairs = |joiner: &str, explode: bool| {
        members
            .iter()
            .map(|(key, text)| match key {
                Some(key) if explode => format!("{}={}", encode_segment(key), encode_segment(text)),
                Some(key) => format!("{}{joiner}{}", encode_segment(key), encode_segment(text)),
                None => encode_segment(text),
            })
            .collect::<Vec<_>>()
    };
    match style {
        Style::Label { explode: true } => format!(".{}", pairs(".", true).join(".")),
        Style::Label { explode: false } => format!(".{}", pairs(",", false).join(",")),
        Style::Matrix { explode: true } => match value {
            Value::Array(_) => pairs(",", true)
                .iter()
                .map(|text| format!(";{name}={text}"))
                .collect(),
            _ => pairs(",", true)
                .iter()
                .map(|text| format!(";{text}"))
                .collect(),
        },
        Style::Matrix { explode: false } => format!(";{name}={}", pairs(",", false).join(",")),
        Style::Simple { explode } | Style::Form { explode } => pairs(",", explode).join(","),
        Style::SpaceDelimited | Style::PipeDelimited | Style::DeepObject => {
            pairs(",", false).join(",")
        }
    }
}

/// Pairs of `name` and `value` as a form (query string, cookie or form-encoded body) writes
/// them in `style`.
fn form_pairs(name: &str, value: &Value, style: Style) -> Vec<(Cow<'static, str>, String)> {
    let owned = |text: &str| Cow::Owned(text.to_owned());
    if style == Style::DeepObject {
        let mut pairs = Vec::new();
        deep_pairs(name.to_owned(), value, &mut pairs);
        return pairs;
    }
    let Some(members) = members(value) else {
        return vec![(owned(name), scalar(value).into_owned())];
    };
    let joined = |separator: &str| {
        members
            .iter()
            .flat_map(|(key, text)| key.map(str::to_owned).into_iter().chain([text.to_string()]))
            .collect::<Vec<_>>()
            .join(separator)
    };
    match style {
        Style::SpaceDelimited => vec![(owned(name), joined(" "))],
        Style::PipeDelimited => vec![(owned(name), joined("|"))],
        Style::Form { explode: true }
        | Style::Simple { explode: true }
        | Style::Label { explode: true }
        | Style::Matrix { explode: true } => members
            .into_iter()
            .map(|(key, text)| (owned(key.unwrap_or(name)), text.into_owned()))
            .collect(),
        _ => vec![(owned(name), joined(","))],
    }
}

/// `name[key][0]=value` pairs, as deep as `value` goes.
fn deep_pairs(name: String, value: &Value, pairs: &mut Vec<(Cow<'static, str>, String)>) {
    match value {
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                deep_pairs(format!("{name}[{index}]"), item, pairs);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                deep_pairs(format!("{name}[{key}]"), item, pairs);
            }
        }
        scalar_value => pairs.push((Cow::Owned(name), scalar(scalar_value).into_owned())),
    }
}

/// Adds a member of a JSON body; `None` adds nothing (an explicit `null` is a value).
pub fn insert_json(body: &mut Map<String, Value>, name: &str, value: Option<Value>) {
    if let Some(value) = value {
        body.insert(name.to_owned(), value);
    }
}

/// Adds the pairs of a query param, a form-encoded body member or a cookie, not yet
/// percent-encoded. `None` and `null` add nothing.
pub fn push_pairs(
    pairs: &mut Vec<(Cow<'static, str>, String)>,
    name: &'static str,
    value: Option<Value>,
    style: Style,
) {
    match value {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => pairs.push((Cow::Borrowed(name), text)),
        Some(value) => pairs.extend(form_pairs(name, &value, style)),
    }
}

/// `pairs` as `application/x-www-form-urlencoded` text: a form body, or a query string.
pub fn form_encoded(pairs: &[(Cow<'static, str>, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(
            pairs
                .iter()
                .map(|(name, value)| (name.as_ref(), value.as_str())),
        )
        .finish()
}

/// Adds a request header, simple style.
///
/// # Errors
///
/// `VALIDATION_INVALID_VALUE` naming the param `label` when the text has a line break or
/// another control character, which no header value may carry.
pub fn push_header(
    headers: &mut Vec<(&'static str, String)>,
    label: &'static str,
    name: &'static str,
    value: Option<Value>,
    style: Style,
) -> Result<(), ParamError> {
    let Some(value) = value.filter(|value| !value.is_null()) else {
        return Ok(());
    };
    let text = match members(&value) {
        None => scalar(&value).into_owned(),
        Some(members) => {
            let explode = matches!(style, Style::Simple { explode: true });
            members
                .iter()
                .map(|(key, text)| match key {
                    Some(key) if explode => format!("{key}={text}"),
                    Some(key) => format!("{key},{text}"),
                    None => text.to_string(),
                })
                .collect::<Vec<_>>()
                .join(",")
        }
    };
    if text.chars().any(|c| c.is_control() && c != '\t') {
        return Err(ParamError::InvalidValue {
            param: label.to_owned(),
            constraint: "text without line breaks or control characters (it is sent in a header)"
                .to_owned(),
            value,
        });
    }
    headers.push((name, text));
    Ok(())
}

/// Adds a multipart part: text for a scalar, JSON text for an array or object, and for a
/// `file` param the bytes of its base64 value (SPEC §4.7.4: standard alphabet, padded), one
/// part per file when it is a list of them.
///
/// # Errors
///
/// `VALIDATION_INVALID_VALUE` naming the param `label` when a file's value is not base64.
pub fn push_part(
    parts: &mut Vec<Part>,
    label: &'static str,
    name: &'static str,
    value: Option<Value>,
    file: bool,
) -> Result<(), ParamError> {
    let Some(value) = value.filter(|value| !value.is_null()) else {
        return Ok(());
    };
    let part = match (&value, file) {
        (Value::String(text), true) => Part::File {
            name,
            bytes: file_bytes(label, text)?,
        },
        (Value::Array(files), true) => {
            for (index, file) in files.iter().enumerate() {
                let Value::String(text) = file else {
                    return Err(ParamError::InvalidType {
                        param: format!("{label}[{index}]"),
                        expected: "string",
                        actual: crate::params::json_type(file),
                    });
                };
                let bytes = file_bytes(&format!("{label}[{index}]"), text)?;
                parts.push(Part::File { name, bytes });
            }
            return Ok(());
        }
        (Value::Array(_) | Value::Object(_), _) => Part::Json {
            name,
            text: value.to_string(),
        },
        (scalar_value, _) => Part::Text {
            name,
            text: scalar(scalar_value).into_owned(),
        },
    };
    parts.push(part);
    Ok(())
}

/// The body that is the whole-body param `label`'s `value`: a string's text as it is, or,
/// when the param is `binary`, the bytes its base64 stands for.
///
/// # Errors
///
/// `VALIDATION_INVALID_VALUE` when a binary value is not base64.
pub fn raw_body(label: &'static str, value: Value, binary: bool) -> Result<Body, ParamError> {
    match value {
        Value::String(text) if binary => Ok(Body::Bytes(file_bytes(label, &text)?)),
        Value::String(text) => Ok(Body::Bytes(text.into_bytes())),
        other => Err(ParamError::InvalidType {
            param: label.to_owned(),
            expected: "string",
            actual: crate::params::json_type(&other),
        }),
    }
}

/// The bytes of a file given in base64, as `label`.
fn file_bytes(label: &str, text: &str) -> Result<Vec<u8>, ParamError> {
    base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|_| ParamError::InvalidValue {
            param: label.to_owned(),
            constraint: "base64 (RFC 4648, standard alphabet, padded)".to_owned(),
            value: Value::String(text.chars().take(80).collect()),
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn query(value: Value, style: Style) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        push_pairs(&mut pairs, "n", Some(value), style);
        pairs
            .into_iter()
            .map(|(name, text)| (name.into_owned(), text))
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn encodes_path_segments() {
        assert_eq!(encode_segment("a/b c%"), "a%2Fb%20c%25");
        assert_eq!(encode_segment("héllo"), "h%C3%A9llo");
        assert_eq!(encode_segment("A-z_0.~"), "A-z_0.~");
    }

    #[test]
    fn query_styles() {
        let form = Style::Form { explode: true };
        assert_eq!(query(json!(3), form), pairs(&[("n", "3")]));
        assert_eq!(
            query(json!(["a", 1]), form),
            pairs(&[("n", "a"), ("n", "1")])
        );
        assert_eq!(
            query(json!(["a", "b"]), Style::Form { explode: false }),
            pairs(&[("n", "a,b")])
        );
        assert_eq!(query(json!({"k": "v"}), form), pairs(&[("k", "v")]));
        assert_eq!(
            query(json!({"k": "v", "j": true}), Style::Form { explode: false }),
            pairs(&[("n", "j,true,k,v")])
        );
        assert_eq!(
            query(json!(["a", "b"]), Style::PipeDelimited),
            pairs(&[("n", "a|b")])
        );
        assert_eq!(
            query(json!(["a", "b"]), Style::SpaceDelimited),
            pairs(&[("n", "a b")])
        );
        assert_eq!(
            query(
                json!({"meta": {"plan": "pro"}, "items": [{"price": "p_1"}, "x"]}),
                Style::DeepObject
            ),
            pairs(&[
                ("n[items][0][price]", "p_1"),
                ("n[items][1]", "x"),
                ("n[meta][plan]", "pro"),
            ])
        );
        assert!(query(Value::Null, form).is_empty());
    }

    #[test]
    fn path_styles() {
        let list = json!(["a b", "c/d"]);
        let object = json!({"x": 1, "y": "z"});
        let cases = [
            (json!("a/b"), Style::Simple { explode: false }, "a%2Fb"),
            (
                list.clone(),
                Style::Simple { explode: false },
                "a%20b,c%2Fd",
            ),
            (object.clone(), Style::Simple { explode: false }, "x,1,y,z"),
            (object.clone(), Style::Simple { explode: true }, "x=1,y=z"),
            (
                list.clone(),
                Style::Label { explode: false },
                ".a%20b,c%2Fd",
            ),
            (list.clone(), Style::Label { explode: true }, ".a%20b.c%2Fd"),
            (json!(5), Style::Matrix { explode: false }, ";id=5"),
            (
                list.clone(),
                Style::Matrix { explode: true },
                ";id=a%20b;id=c%2Fd",
            ),
            (list, Style::Matrix { explode: false }, ";id=a%20b,c%2Fd"),
            (object, Style::Matrix { explode: true }, ";x=1;y=z"),
        ];
        for (value, style, expected) in cases {
            assert_eq!(
                path_segment("id", &value, style),
                expected,
                "{value} {style:?}"
            );
        }
    }

    #[test]
    fn headers_refuse_line_breaks() {
        let mut headers = Vec::new();
        let simple = Style::Simple { explode: false };
        push_header(&mut headers, "ids", "X-Ids", Some(json!([1, 2])), simple).expect("fine");
        push_header(&mut headers, "trace", "X-Trace", None, simple).expect("fine");
        assert_eq!(headers, [("X-Ids", "1,2".to_owned())]);
        let error = push_header(
            &mut headers,
            "trace",
            "X-Trace",
            Some(json!("a\r\nb: c")),
            simple,
        )
        .expect_err("a line break");
        assert!(matches!(error, ParamError::InvalidValue { param, .. } if param == "trace"));
    }

    #[test]
    fn multipart_parts() {
        let mut parts = Vec::new();
        push_part(&mut parts, "file", "file", Some(json!("aGk=")), true).expect("base64");
        push_part(&mut parts, "meta", "meta", Some(json!({"a": 1})), false).expect("json");
        push_part(&mut parts, "title", "title", Some(json!("hi")), false).expect("text");
        assert_eq!(
            parts,
            [
                Part::File {
                    name: "file",
                    bytes: b"hi".to_vec()
                },
                Part::Json {
                    name: "meta",
                    text: r#"{"a":1}"#.to_owned()
                },
                Part::Text {
                    name: "title",
                    text: "hi".to_owned()
                },
            ]
        );
        let error = push_part(&mut parts, "file", "file", Some(json!("not base64!")), true)
            .expect_err("not base64");
        assert!(matches!(error, ParamError::InvalidValue { .. }));
    }
}
