//! Where a param's value travels in the upstream request and how it is written there: the
//! location, OpenAPI's serialization `style` (with `explode`), and the body's media type.

use crate::vocabulary;

vocabulary! {
    /// Where a param goes: a schema param's `in`.
    pub enum ParamLocation ("param location") {
        /// A `{placeholder}` of the path.
        Path = "path",
        /// The query string.
        Query = "query",
        /// A request header.
        Header = "header",
        /// The `Cookie` header.
        Cookie = "cookie",
        /// A member of the request body.
        Body = "body",
        /// The whole request body: the param's value, of any JSON type, is the body.
        WholeBody = "whole_body",
    }
}

vocabulary! {
    /// How an array or object is written (OpenAPI 3 `style`); a scalar is written as text in
    /// every style.
    pub enum ParamStyle ("param style") {
        /// `a,b,c`; an object `k,v` (or `k=v` exploded). Path and header.
        Simple = "simple",
        /// `.a.b.c` in a path.
        Label = "label",
        /// `;name=a,b` in a path.
        Matrix = "matrix",
        /// `name=a&name=b` exploded, `name=a,b` not. Query, cookie and form bodies.
        Form = "form",
        /// `name=a b c` in a query.
        SpaceDelimited = "spaceDelimited",
        /// `name=a|b|c` in a query.
        PipeDelimited = "pipeDelimited",
        /// `name[key]=v` nested, arrays indexed `name[0]`. Query and form bodies.
        DeepObject = "deepObject",
    }
}

impl ParamStyle {
    /// The style of a param at `location` that names none.
    pub const fn default_for(location: ParamLocation) -> Self {
        match location {
            ParamLocation::Path | ParamLocation::Header => Self::Simple,
            ParamLocation::Query
            | ParamLocation::Cookie
            | ParamLocation::Body
            | ParamLocation::WholeBody => Self::Form,
        }
    }

    /// `explode` of a param that sets none: true for `form`, false otherwise.
    pub const fn default_explode(self) -> bool {
        matches!(self, Self::Form)
    }

    /// The styles a param at `location` may take. A body's styles apply to form-encoded and
    /// multipart bodies only; JSON, and so a whole body, carries values as they are.
    pub const fn allowed_at(location: ParamLocation) -> &'static [Self] {
        match location {
            ParamLocation::Path => &[Self::Simple, Self::Label, Self::Matrix],
            ParamLocation::Query => &[
                Self::Form,
                Self::SpaceDelimited,
                Self::PipeDelimited,
                Self::DeepObject,
            ],
            ParamLocation::Header => &[Self::Simple],
            ParamLocation::Cookie => &[Self::Form],
            ParamLocation::Body => &[Self::Form, Self::DeepObject],
            ParamLocation::WholeBody => &[],
        }
    }
}

vocabulary! {
    /// The media type of an operation's request body.
    pub enum ContentType ("content type") {
        /// A JSON object of the body params.
        Json = "application/json",
        /// `name=value&...`, nested keys per `deepObject`.
        Form = "application/x-www-form-urlencoded",
        /// One part per body param; `format: binary` params are file parts.
        Multipart = "multipart/form-data",
        /// The bytes of the one whole-body param, as they are (text) or base64-decoded
        /// (`format: binary`); a fixed `Content-Type` names another media type.
        OctetStream = "application/octet-stream",
    }
}

/// Request headers a param may not set, lower-case: HTTP owns them, the body's media type
/// sets them, or the runtime does (`Authorization` for auth, `If-Match` for preconditions,
/// `Cookie` from `in: cookie` params). The auth scheme's own header is refused besides.
pub const OWNED_HEADERS: &[&str] = &[
    "authorization",
    "connection",
    "content-length",
    "content-type",
    "cookie",
    "host",
    "if-match",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Whether a param may set the header `name` (any case): a valid HTTP token that
/// [`OWNED_HEADERS`] does not list.
pub fn is_settable_header(name: &str) -> bool {
    let token = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    token && !OWNED_HEADERS.contains(&name.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_openapi() {
        assert_eq!(
            ParamStyle::default_for(ParamLocation::Header),
            ParamStyle::Simple
        );
        assert!(ParamStyle::Form.default_explode());
        assert!(!ParamStyle::DeepObject.default_explode());
        for location in ParamLocation::ALL {
            let default = ParamStyle::default_for(*location);
            let allowed = ParamStyle::allowed_at(*location);
            // A whole body is written as it is: it takes no style.
            assert!(allowed.contains(&default) || *location == ParamLocation::WholeBody);
        }
        assert!(ParamStyle::allowed_at(ParamLocation::WholeBody).is_empty());
    }

    #[test]
    fn headers_a_param_may_set() {
        assert!(is_settable_header("X-Request-Id"));
        assert!(is_settable_header("Accept"));
        assert!(!is_settable_header("Content-Type"));
        assert!(!is_settable_header("authorization"));
        assert!(!is_settable_header("X Bad"));
        assert!(!is_settable_header(""));
    }
}
