//! Where each param of an operation goes on the wire, and the public name it gets.
//!
//! A param's public name is what the agent sends and `introspect` shows: always snake_case.
//! The upstream's own name (`api-version`, `page[size]`, `X-Request-Id`) goes in `wire_name`
//! when it differs, and `in` says where the param goes when its operation would put it
//! elsewhere by default (a `{placeholder}` of the path, else the body of a POST, PUT or
//! PATCH, else the query). Names that collide once snake_cased are told apart, never
//! dropped.

use std::collections::BTreeSet;

use aqlgen_model::{Category, ParamLocation, ParamStyle};
use indexmap::IndexMap;

use super::naming;
use crate::schema::{AuthConfig, AuthKind, Param, ParamType, is_reserved_param};

/// Where a param comes from in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A `{placeholder}` of the path.
    Path,
    /// A `{placeholder}` of the query the path itself carries (`?station={station}`): the
    /// key is written in the template.
    TemplateQuery,
    /// The query string.
    Query,
    /// A request header.
    Header,
    /// A cookie.
    Cookie,
    /// A property of the request body.
    Body,
    /// The whole request body.
    WholeBody,
}

impl Place {
    /// The word for warnings: `query param ...`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::TemplateQuery | Self::Query => "query",
            Self::Header => "header",
            Self::Cookie => "cookie",
            Self::Body | Self::WholeBody => "body",
        }
    }

    /// The schema's `in` for the place.
    fn location(self) -> ParamLocation {
        match self {
            Self::Path => ParamLocation::Path,
            Self::TemplateQuery | Self::Query => ParamLocation::Query,
            Self::Header => ParamLocation::Header,
            Self::Cookie => ParamLocation::Cookie,
            Self::Body => ParamLocation::Body,
            Self::WholeBody => ParamLocation::WholeBody,
        }
    }

    /// Whether the param's upstream name is no name on the wire: a placeholder of the
    /// template (renamed there instead of getting a `wire_name`), or the whole body.
    fn in_template(self) -> bool {
        matches!(self, Self::Path | Self::TemplateQuery | Self::WholeBody)
    }
}

/// A param as the document declares it, before it is named.
#[derive(Debug)]
pub struct Candidate {
    /// The upstream's name: a placeholder, query key, header or cookie name, or body property.
    pub upstream: String,
    /// Where it goes.
    pub place: Place,
    /// Its definition; `location` and `wire_name` are set by [`assign`].
    pub param: Param,
}

/// The params of one operation with their public names, in the document's order, and the
/// template placeholders renamed, as `(upstream placeholder, public name)`.
pub struct Assigned {
    /// The params by public name.
    pub params: IndexMap<String, Param>,
    /// Placeholders of the template to rename.
    pub renames: Vec<(String, String)>,
}

/// Names every candidate and sets where it goes. A candidate whose upstream name is already
/// snake_case keeps it when it can, since it needs no `wire_name`; a path placeholder yields
/// to a query or body param of its name (it only names a placeholder). Others get the
/// snake_case of their name, else that with the place as a suffix (`path_id`, `filter_header`),
/// else a number.
pub fn assign(category: Category, sends_body: bool, candidates: Vec<Candidate>) -> Assigned {
    let mut names: Vec<Option<String>> = vec![None; candidates.len()];
    let mut taken = Taken::new(category);
    for (index, candidate) in candidates.iter().enumerate() {
        let base = naming::param(&candidate.upstream);
        if !candidate.place.in_template() && base == candidate.upstream && taken.claim(&base) {
            names[index] = Some(base);
        }
    }
    for (index, candidate) in candidates.iter().enumerate() {
        if names[index].is_some() {
            continue;
        }
        let base = naming::param(&candidate.upstream);
        let suffixed = match candidate.place {
            Place::Path => format!("path_{base}"),
            other => format!("{base}_{}", other.word()),
        };
        let mut chosen = [base.clone(), suffixed.clone()]
            .into_iter()
            .find(|name| taken.claim(name));
        let mut counter = 2;
        while chosen.is_none() {
            let numbered = format!("{suffixed}_{counter}");
            if taken.claim(&numbered) {
                chosen = Some(numbered);
            }
            counter += 1;
        }
        names[index] = chosen;
    }
    let mut params = IndexMap::new();
    let mut renames = Vec::new();
    for (candidate, name) in candidates.into_iter().zip(names) {
        let name = name.expect("every candidate is named");
        let Candidate {
            upstream,
            place,
            mut param,
        } = candidate;
        if place == Place::WholeBody {
            param.location = Some(ParamLocation::WholeBody);
        } else if place.in_template() {
            if upstream != name {
                renames.push((upstream, name.clone()));
            }
        } else {
            if upstream != name {
                param.wire_name = Some(upstream);
            }
            let default = if sends_body {
                ParamLocation::Body
            } else {
                ParamLocation::Query
            };
            if place.location() != default {
                param.location = Some(place.location());
            }
        }
        params.insert(name, param);
    }
    Assigned { params, renames }
}

/// The names taken in one operation, and the Rust field names they make.
struct Taken {
    category: Category,
    names: BTreeSet<String>,
    fields: BTreeSet<String>,
}

impl Taken {
    fn new(category: Category) -> Self {
        Self {
            category,
            names: BTreeSet::new(),
            fields: BTreeSet::new(),
        }
    }

    /// Takes `name` if it is free, usable and makes a Rust field no other name makes.
    fn claim(&mut self, name: &str) -> bool {
        let field = crate::ident::field_name(name);
        if !naming::is_param_name(name)
            || is_reserved_param(self.category, name)
            || self.names.contains(name)
            || self.fields.contains(&field)
        {
            return false;
        }
        self.names.insert(name.to_owned());
        self.fields.insert(field);
        true
    }
}

/// What becomes of a header param.
#[derive(Debug, PartialEq, Eq)]
pub enum HeaderFate {
    /// A param like any other.
    Param,
    /// Sent without a param: by HTTP itself, the adapter's auth or a feature param. Why.
    Sent(&'static str),
    /// A header only HTTP or the runtime may set, which the adapter cannot send. Why.
    Refused(&'static str),
}

/// Headers HTTP itself writes for every request.
const HTTP_OWNED: [&str; 9] = [
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
];

/// The headers of AWS Signature Version 4, which the signing adapter writes itself (AWS's
/// descriptions declare them as params of every operation).
const SIGNING_HEADERS: [&str; 7] = [
    "x-amz-algorithm",
    "x-amz-content-sha256",
    "x-amz-credential",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-signature",
    "x-amz-signedheaders",
];

/// What becomes of the header `name` of an operation of `category` under `auth`.
pub fn header_fate(name: &str, category: Category, auth: &AuthConfig) -> HeaderFate {
    let lower = name.to_ascii_lowercase();
    if HTTP_OWNED.contains(&lower.as_str()) {
        return HeaderFate::Sent("HTTP sends it from the request itself");
    }
    // OAuth 2's `Authorization` is left out: its token endpoint's own params may name it.
    let written = auth.kind != AuthKind::Oauth2 && auth.writes_header(name);
    if written || (auth.kind == AuthKind::AwsSigv4 && SIGNING_HEADERS.contains(&lower.as_str())) {
        return HeaderFate::Sent("the adapter's auth sends it");
    }
    match lower.as_str() {
        "authorization" if auth.kind == AuthKind::None => HeaderFate::Refused(
            "only the adapter's auth can send `Authorization`, and it has none \
             (`--bearer-env` gives it a bearer token)",
        ),
        "authorization" => HeaderFate::Refused("only the adapter's auth can send `Authorization`"),
        "cookie" => HeaderFate::Refused("the runtime owns `Cookie`"),
        "if-match" if matches!(category, Category::Update | Category::Delete) => {
            HeaderFate::Sent("the `if_match` feature param sends it")
        }
        "if-match" => HeaderFate::Refused("the runtime owns `If-Match`"),
        _ if lower.starts_with("proxy-") => HeaderFate::Refused("proxy headers are HTTP's"),
        _ if !aqlgen_model::is_settable_header(name) => HeaderFate::Refused("no param may set it"),
        _ => HeaderFate::Param,
    }
}

/// Sets `param`'s `style` and `explode` from what the document declares for it at `place`,
/// writing only what differs from the default there; a style the place does not allow is
/// reported through `warn` and the default kept.
pub fn set_style(
    param: &mut Param,
    name: &str,
    place: Place,
    style: Option<&str>,
    explode: Option<bool>,
    warn: &mut dyn FnMut(String),
) {
    if place == Place::TemplateQuery {
        return;
    }
    let location = place.location();
    let default = ParamStyle::default_for(location);
    let allowed = ParamStyle::allowed_at(location);
    let declared = match style {
        None => default,
        Some(text) => match ParamStyle::parse(text).filter(|style| allowed.contains(style)) {
            Some(style) => style,
            None => {
                warn(format!(
                    "{} param `{name}`: style `{text}` cannot be used there; written as `{}`",
                    place.word(),
                    default.as_str()
                ));
                default
            }
        },
    };
    // A scalar is written the same in every style but a path's label and matrix.
    let structured = matches!(param.kind, ParamType::Array | ParamType::Object);
    if declared != default && (structured || place == Place::Path) {
        param.style = Some(declared);
    }
    if structured
        && let Some(explode) = explode.filter(|explode| *explode != declared.default_explode())
    {
        param.explode = Some(explode);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string() -> Param {
        Param::of(ParamType::String)
    }

    fn candidate(upstream: &str, place: Place) -> Candidate {
        Candidate {
            upstream: upstream.to_owned(),
            place,
            param: string(),
        }
    }

    #[test]
    fn names_collide_into_suffixes_never_into_drops() {
        let assigned = assign(
            Category::Update,
            true,
            vec![
                candidate("id", Place::Path),
                candidate("api-version", Place::Query),
                candidate("$filter", Place::Query),
                candidate("Filter", Place::Header),
                candidate("filter", Place::Body),
                candidate("id", Place::Body),
                candidate("input", Place::Body),
                candidate("X-Request-Id", Place::Header),
            ],
        );
        let names: Vec<&str> = assigned.params.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "path_id",
                "api_version",
                "filter_query",
                "filter_header",
                "filter",
                "id",
                "input_body",
                "x_request_id"
            ]
        );
        assert_eq!(assigned.renames, [("id".to_owned(), "path_id".to_owned())]);
        let params = &assigned.params;
        assert_eq!(
            params["api_version"].wire_name.as_deref(),
            Some("api-version")
        );
        assert_eq!(params["api_version"].location, Some(ParamLocation::Query));
        assert_eq!(params["filter_query"].wire_name.as_deref(), Some("$filter"));
        assert_eq!(
            params["filter_header"].location,
            Some(ParamLocation::Header)
        );
        assert_eq!(params["filter"].wire_name, None);
        assert_eq!(
            params["filter"].location, None,
            "a POST sends its body by default"
        );
        assert_eq!(params["input_body"].wire_name.as_deref(), Some("input"));
        assert_eq!(params["path_id"].location, None);
    }

    #[test]
    fn a_get_says_where_only_what_is_not_in_its_query() {
        let assigned = assign(
            Category::Read,
            false,
            vec![
                candidate("q", Place::Query),
                candidate("Accept", Place::Header),
                candidate("session", Place::Cookie),
            ],
        );
        let params = &assigned.params;
        assert_eq!(
            (params["q"].location, &params["q"].wire_name),
            (None, &None)
        );
        assert_eq!(params["accept"].location, Some(ParamLocation::Header));
        assert_eq!(params["accept"].wire_name.as_deref(), Some("Accept"));
        assert_eq!(params["session"].location, Some(ParamLocation::Cookie));
    }

    #[test]
    fn headers_http_or_the_runtime_owns_are_not_params() {
        let none = AuthConfig::of(AuthKind::None);
        let key = AuthConfig {
            header_name: Some("X-Api-Key".to_owned()),
            ..AuthConfig::of(AuthKind::ApiKey)
        };
        let table = [
            ("Accept", Category::Read, &none, HeaderFate::Param),
            ("X-Request-Id", Category::Read, &none, HeaderFate::Param),
            (
                "Content-Type",
                Category::Create,
                &none,
                HeaderFate::Sent("HTTP sends it from the request itself"),
            ),
            (
                "x-api-key",
                Category::Read,
                &key,
                HeaderFate::Sent("the adapter's auth sends it"),
            ),
            (
                "Authorization",
                Category::Read,
                &key,
                HeaderFate::Refused("only the adapter's auth can send `Authorization`"),
            ),
            (
                "Authorization",
                Category::Read,
                &none,
                HeaderFate::Refused(
                    "only the adapter's auth can send `Authorization`, and it has none \
                     (`--bearer-env` gives it a bearer token)",
                ),
            ),
            (
                "If-Match",
                Category::Update,
                &none,
                HeaderFate::Sent("the `if_match` feature param sends it"),
            ),
            (
                "If-Match",
                Category::Create,
                &none,
                HeaderFate::Refused("the runtime owns `If-Match`"),
            ),
            (
                "Proxy-Authorization",
                Category::Read,
                &none,
                HeaderFate::Refused("proxy headers are HTTP's"),
            ),
        ];
        for (name, category, auth, fate) in table {
            assert_eq!(header_fate(name, category, auth), fate, "{name}");
        }
    }

    #[test]
    fn only_styles_other_than_the_default_are_written() {
        let mut warnings = Vec::new();
        let mut warn = |reason: String| warnings.push(reason);
        let array = || Param {
            kind: ParamType::Array,
            ..string()
        };
        let mut plain = array();
        set_style(
            &mut plain,
            "ids",
            Place::Query,
            Some("form"),
            Some(true),
            &mut warn,
        );
        assert_eq!((plain.style, plain.explode), (None, None));
        let mut csv = array();
        set_style(
            &mut csv,
            "ids",
            Place::Query,
            Some("form"),
            Some(false),
            &mut warn,
        );
        assert_eq!((csv.style, csv.explode), (None, Some(false)));
        let mut deep = Param {
            kind: ParamType::Object,
            ..string()
        };
        set_style(
            &mut deep,
            "metadata",
            Place::Body,
            Some("deepObject"),
            Some(true),
            &mut warn,
        );
        assert_eq!(
            (deep.style, deep.explode),
            (Some(ParamStyle::DeepObject), Some(true))
        );
        let mut path = array();
        set_style(
            &mut path,
            "ids",
            Place::Path,
            Some("simple"),
            None,
            &mut warn,
        );
        assert_eq!((path.style, path.explode), (None, None));
        let mut label = string();
        set_style(
            &mut label,
            "id",
            Place::Path,
            Some("label"),
            None,
            &mut warn,
        );
        assert_eq!(label.style, Some(ParamStyle::Label));
        let mut odd = array();
        set_style(&mut odd, "ids", Place::Path, Some("form"), None, &mut warn);
        assert_eq!(odd.style, None);
        assert_eq!(
            warnings,
            ["path param `ids`: style `form` cannot be used there; written as `simple`"]
        );
    }
}
