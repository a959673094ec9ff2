//! Cursor pagination over whatever the upstream does (pagination §2-§6): `first` and `after`
//! become the upstream's page/offset/cursor params on the way out, and its answer becomes
//! `{items, pageInfo}` on the way back, whatever shape it came in (a bare array, or an object
//! holding the array) and wherever it said more pages exist (`Link: rel="next"`, a total, a
//! next cursor in the body).

use serde_json::{Map, Value};

use super::cursor::{Cursors, Position, Resume};
use crate::adapter::{PageStyle, Paging};
use crate::error::{AqlError, ErrorCode};
use crate::params::json_type;
use crate::warning::Warning;

/// Members that hold a page's items, most likely first.
const ITEM_MEMBERS: &[&str] = &[
    "items", "data", "results", "values", "entries", "records", "nodes",
];
/// Members that hold the number of matching items.
const TOTAL_MEMBERS: &[&str] = &["total_count", "totalCount", "total", "total_items"];
/// Members that hold the upstream's next cursor, at the top level or in a [`CURSOR_HOLDERS`].
const CURSOR_MEMBERS: &[&str] = &[
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
    "cursor",
    "next",
];
/// Objects some APIs keep the next cursor in.
const CURSOR_HOLDERS: &[&str] = &["meta", "pagination", "response_metadata", "page_info"];

/// The page one request asks for, once `first` and `after` are resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRequest {
    style: PageStyle,
    size: u64,
    at: Position,
    /// The params a cursor is bound to: the request's own, paging params left out.
    scope: Map<String, Value>,
}

impl PageRequest {
    /// Resolves `first` and `after` for an operation paged by `paging`, and puts the upstream
    /// paging params into `params`.
    ///
    /// # Errors
    ///
    /// A combination pagination §2.3 forbids, `first` and the upstream's own paging params
    /// together, a `first` that is not a positive integer, or a cursor that is not ours or
    /// belongs to another request.
    pub fn resolve(
        paging: &Paging,
        operation: &str,
        params: &mut Map<String, Value>,
        first: Option<Value>,
        after: Option<Value>,
        cursors: &Cursors,
        warnings: &mut Vec<Warning>,
    ) -> Result<Self, AqlError> {
        let style = paging.style;
        let [position_param, size_param] = style.upstream_params();
        let first = first.filter(|value| !value.is_null());
        let after = after.filter(|value| !value.is_null());
        if first.is_some() || after.is_some() {
            let mixed: Vec<&str> = style
                .upstream_params()
                .into_iter()
                .filter(|name| params.contains_key(*name))
                .collect();
            if !mixed.is_empty() {
                let mut provided: Vec<&str> = Vec::new();
                if first.is_some() {
                    provided.push("first");
                }
                if after.is_some() {
                    provided.push("after");
                }
                provided.extend(&mixed);
                return Err(combination(
                    format!(
                        "Cannot use 'first'/'after' together with {}: pick cursor pagination or the operation's own paging params",
                        quoted(&mixed)
                    ),
                    &provided,
                    "Use 'first' and 'after' alone; pass 'pageInfo.endCursor' as 'after' for the next page",
                ));
            }
        }
        if after.is_some() && first.is_none() {
            return Err(combination(
                "Cannot use 'after' without 'first'".to_owned(),
                &["after"],
                "Give 'first', the page size, with 'after'",
            ));
        }
        let first = first.map(|value| page_size(&value)).transpose()?;
        let size = match first {
            Some(first) if first > paging.max_limit => {
                warnings.push(
                    Warning::new(
                        "PAGINATION_LIMIT_CLAMPED",
                        format!(
                            "'first' was {first}; pages hold up to {}, so {} items were asked for",
                            paging.max_limit, paging.max_limit
                        ),
                    )
                    .with_detail("param_name", "first")
                    .with_detail("requested", first)
                    .with_detail("max_limit", paging.max_limit),
                );
                paging.max_limit
            }
            Some(first) => first,
            None => params
                .get(size_param)
                .and_then(Value::as_u64)
                .unwrap_or(paging.default_limit),
        };
        let mut scope = params.clone();
        scope.retain(|name, _| name != position_param && name != size_param);
        let (size, at) = match after {
            Some(Value::String(cursor)) => {
                let resume = cursors.read(&cursor, operation, &scope)?;
                resumed(style, size, resume, warnings)?
            }
            Some(other) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationInvalidType,
                    format!(
                        "Parameter 'after' expected 'string', got '{}'",
                        json_type(&other)
                    ),
                )
                .with_detail("param_name", "after")
                .with_detail("expected_type", "string")
                .with_detail("actual_type", json_type(&other)));
            }
            None => (size, given_position(style, params)),
        };
        params.insert(size_param.to_owned(), size.into());
        match &at {
            Position::Page(page) => {
                params.insert(position_param.to_owned(), (*page).into());
            }
            Position::Offset(offset) => {
                params.insert(position_param.to_owned(), (*offset).into());
            }
            Position::Upstream(token) => {
                params.insert(position_param.to_owned(), token.clone().into());
            }
            Position::Start | Position::End => {}
        }
        Ok(Self {
            style,
            size,
            at,
            scope,
        })
    }

    /// Whether the request resumes past the last item, so the page is empty without asking.
    pub fn is_past_end(&self) -> bool {
        self.at == Position::End
    }

    /// The upstream's `answer` as `{items, pageInfo, ...its other members}`. `link` is the
    /// upstream's `Link` header. An answer with no list in it is returned as it is.
    pub fn wrap(
        &self,
        answer: Value,
        link: Option<&str>,
        operation: &str,
        cursors: &Cursors,
    ) -> Value {
        let (items, mut rest) = match answer {
            Value::Array(items) => (items, Map::new()),
            Value::Object(mut object) => match items_member(&object) {
                Some(member) => match object.remove(&member) {
                    Some(Value::Array(items)) => (items, object),
                    _ => return Value::Object(object),
                },
                None => return Value::Object(object),
            },
            other => return other,
        };
        let returned = items.len() as u64;
        let total = TOTAL_MEMBERS
            .iter()
            .find_map(|name| rest.get(*name).and_then(Value::as_u64));
        let next_link = link.and_then(next_link);
        let next = match (&self.at, self.style) {
            (Position::Page(page), _) => Position::Page(page + 1),
            (Position::Offset(offset), _) => Position::Offset(offset + returned),
            (_, PageStyle::Cursor { cursor, .. }) => next_link
                .as_deref()
                .and_then(|url| query_value(url, cursor))
                .or_else(|| take_next_cursor(&mut rest))
                .map_or(Position::End, Position::Upstream),
            _ => Position::End,
        };
        let skipped = match self.at {
            Position::Page(page) => Some(page.saturating_sub(1) * self.size),
            Position::Offset(offset) => Some(offset),
            _ => None,
        };
        let has_next = if link.is_some() {
            next_link.is_some()
        } else if matches!(self.style, PageStyle::Cursor { .. }) {
            next != Position::End
        } else if let (Some(total), Some(skipped)) = (total, skipped) {
            skipped + returned < total
        } else {
            returned >= self.size && returned > 0
        };
        let has_previous = match self.at {
            Position::Page(page) => page > 1,
            Position::Offset(offset) => offset > 0,
            Position::Upstream(_) | Position::End => true,
            Position::Start => false,
        };
        let mut page_info = Map::new();
        page_info.insert("hasNextPage".into(), has_next.into());
        page_info.insert("hasPreviousPage".into(), has_previous.into());
        if returned > 0 {
            let cursor = |position: Position| {
                cursors.make(
                    operation,
                    &self.scope,
                    &Resume {
                        position,
                        size: self.size,
                    },
                )
            };
            page_info.insert("startCursor".into(), cursor(self.at.clone()).into());
            page_info.insert("endCursor".into(), cursor(next).into());
        }
        if let Some(total) = total {
            page_info.insert("totalCount".into(), total.into());
        }
        let mut connection = Map::new();
        connection.insert("items".into(), Value::Array(items));
        connection.extend(rest);
        connection.insert("pageInfo".into(), Value::Object(page_info));
        Value::Object(connection)
    }

    /// The empty page after the last one.
    pub fn past_end() -> Value {
        serde_json::json!({
            "items": [],
            "pageInfo": {"hasNextPage": false, "hasPreviousPage": true}
        })
    }
}

/// The page size `first` asks for.
fn page_size(value: &Value) -> Result<u64, AqlError> {
    match value.as_u64() {
        Some(size) if size >= 1 => Ok(size),
        _ if value.is_i64() || value.is_u64() => Err(AqlError::new(
            ErrorCode::ValidationInvalidValue,
            format!("Parameter 'first' must be >= 1, got {value}"),
        )
        .with_detail("param_name", "first")
        .with_detail("constraint", ">= 1")
        .with_detail("value", value.clone())),
        _ => Err(AqlError::new(
            ErrorCode::ValidationInvalidType,
            format!(
                "Parameter 'first' expected 'integer', got '{}'",
                json_type(value)
            ),
        )
        .with_detail("param_name", "first")
        .with_detail("expected_type", "integer")
        .with_detail("actual_type", json_type(value))),
    }
}

/// Where a cursor resumes, in the style and page size of this request. A page-numbered
/// upstream can change page size only where the new size divides the items already passed.
fn resumed(
    style: PageStyle,
    size: u64,
    resume: Resume,
    warnings: &mut Vec<Warning>,
) -> Result<(u64, Position), AqlError> {
    match (style, resume.position) {
        (PageStyle::Page { .. }, Position::Page(page)) => {
            let passed = page.saturating_sub(1) * resume.size;
            if size == resume.size {
                Ok((size, Position::Page(page)))
            } else if passed.is_multiple_of(size) {
                Ok((size, Position::Page(passed / size + 1)))
            } else {
                warnings.push(
                    Warning::new(
                        "PAGINATION_SIZE_KEPT",
                        format!(
                            "This API numbers its pages, so the walk goes on with pages of {} items; 'first' {size} applies from a new walk",
                            resume.size
                        ),
                    )
                    .with_detail("param_name", "first")
                    .with_detail("page_size", resume.size),
                );
                Ok((resume.size, Position::Page(page)))
            }
        }
        (PageStyle::Offset { .. }, Position::Offset(offset)) => Ok((size, Position::Offset(offset))),
        (PageStyle::Cursor { .. }, position @ (Position::Upstream(_) | Position::Start)) => {
            Ok((size, position))
        }
        (_, Position::End) => Ok((size, Position::End)),
        _ => Err(AqlError::new(
            ErrorCode::ValidationInvalidValue,
            "Parameter 'after' is not a cursor this server made: pass 'pageInfo.endCursor' of the previous page unchanged",
        )
        .with_detail("param_name", "after")
        .with_detail("reason", "invalid_cursor")),
    }
}

/// Where a request without `after` starts: the upstream paging params it gave, else the start.
fn given_position(style: PageStyle, params: &Map<String, Value>) -> Position {
    match style {
        PageStyle::Page { page, .. } => {
            Position::Page(params.get(page).and_then(Value::as_u64).unwrap_or(1).max(1))
        }
        PageStyle::Offset { offset, .. } => {
            Position::Offset(params.get(offset).and_then(Value::as_u64).unwrap_or(0))
        }
        PageStyle::Cursor { cursor, .. } => match params.get(cursor).and_then(Value::as_str) {
            Some(token) if !token.is_empty() => Position::Upstream(token.to_owned()),
            _ => Position::Start,
        },
    }
}

/// The member of an upstream object holding the page's items.
fn items_member(object: &Map<String, Value>) -> Option<String> {
    ITEM_MEMBERS
        .iter()
        .find(|name| object.get(**name).is_some_and(Value::is_array))
        .map(|name| (*name).to_owned())
        .or_else(|| {
            let mut arrays = object.iter().filter(|(_, value)| value.is_array());
            match (arrays.next(), arrays.next()) {
                (Some((name, _)), None) => Some(name.clone()),
                _ => None,
            }
        })
}

/// Removes the upstream's next cursor from its answer and returns it.
fn take_next_cursor(rest: &mut Map<String, Value>) -> Option<String> {
    let mut found = None;
    for name in CURSOR_MEMBERS {
        if let Some(value) = rest.remove(*name) {
            found = found.or_else(|| value.as_str().filter(|t| !t.is_empty()).map(str::to_owned));
        }
    }
    for holder in CURSOR_HOLDERS {
        if let Some(Value::Object(inner)) = rest.get(*holder) {
            found = found.or_else(|| {
                CURSOR_MEMBERS.iter().find_map(|name| {
                    inner
                        .get(*name)
                        .and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned)
                })
            });
        }
    }
    found
}

/// The `rel="next"` URL of a `Link` header (RFC 8288).
fn next_link(header: &str) -> Option<String> {
    header.split(',').find_map(|link| {
        let (target, params) = link.split_once(';')?;
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        params
            .split(';')
            .filter_map(|param| param.split_once('='))
            .any(|(name, value)| {
                name.trim().eq_ignore_ascii_case("rel")
                    && value
                        .trim()
                        .trim_matches('"')
                        .split_ascii_whitespace()
                        .any(|rel| rel.eq_ignore_ascii_case("next"))
            })
            .then(|| target.to_owned())
    })
}

/// The value of query param `name` in `url`.
fn query_value(url: &str, name: &str) -> Option<String> {
    let url = url::Url::parse(url).ok()?;
    url.query_pairs()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
        .filter(|value| !value.is_empty())
}

fn combination(message: String, provided: &[&str], hint: &str) -> AqlError {
    AqlError::new(ErrorCode::ValidationInvalidType, message)
        .with_detail("param_name", "pagination")
        .with_detail("expected_type", "valid pagination combination")
        .with_detail("actual_type", "conflicting parameters")
        .with_detail("provided", provided.to_vec())
        .with_detail("hint", hint)
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    static PAGED: Paging = Paging {
        style: PageStyle::Page {
            page: "page",
            size: "per_page",
        },
        default_limit: 30,
        max_limit: 100,
    };
    static CURSORED: Paging = Paging {
        style: PageStyle::Cursor {
            cursor: "cursor",
            size: "limit",
        },
        default_limit: 2,
        max_limit: 50,
    };

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    fn resolve(
        paging: &Paging,
        params: &mut Map<String, Value>,
        first: Option<Value>,
        after: Option<Value>,
        cursors: &Cursors,
    ) -> Result<(PageRequest, Vec<Warning>), AqlError> {
        let mut warnings = Vec::new();
        PageRequest::resolve(
            paging,
            "list_issues",
            params,
            first,
            after,
            cursors,
            &mut warnings,
        )
        .map(|page| (page, warnings))
    }

    #[test]
    fn pages_walk_over_link_headers() {
        let cursors = Cursors::new();
        let mut p = params(json!({"owner": "o"}));
        let (page, warnings) =
            resolve(&PAGED, &mut p, Some(json!(2)), None, &cursors).expect("valid");
        assert!(warnings.is_empty());
        assert_eq!(p, params(json!({"owner": "o", "per_page": 2, "page": 1})));
        let link = r#"<http://h/x?page=2&per_page=2>; rel="next", <http://h/x?page=3&per_page=2>; rel="last""#;
        let data = page.wrap(
            json!([{"id": 1}, {"id": 2}]),
            Some(link),
            "list_issues",
            &cursors,
        );
        assert_eq!(data["items"], json!([{"id": 1}, {"id": 2}]));
        assert_eq!(data["pageInfo"]["hasNextPage"], true);
        assert_eq!(data["pageInfo"]["hasPreviousPage"], false);
        let end = data["pageInfo"]["endCursor"]
            .as_str()
            .expect("a cursor")
            .to_owned();

        let mut p = params(json!({"owner": "o"}));
        let (page, _) =
            resolve(&PAGED, &mut p, Some(json!(2)), Some(json!(end)), &cursors).expect("valid");
        assert_eq!(p["page"], 2);
        let last = page.wrap(
            json!([{"id": 3}]),
            Some(r#"<http://h/x?page=1>; rel="prev""#),
            "list_issues",
            &cursors,
        );
        assert_eq!(last["pageInfo"]["hasNextPage"], false);
        assert_eq!(last["pageInfo"]["hasPreviousPage"], true);

        let mut other = params(json!({"owner": "someone-else"}));
        let error = resolve(
            &PAGED,
            &mut other,
            Some(json!(2)),
            Some(json!(end)),
            &cursors,
        )
        .expect_err("misbound");
        assert_eq!(error.details["reason"], "cursor_mismatch");
    }

    #[test]
    fn upstream_cursors_come_from_the_body_and_objects_keep_their_members() {
        let cursors = Cursors::new();
        let mut p = Map::new();
        let (page, _) = resolve(&CURSORED, &mut p, None, None, &cursors).expect("valid");
        assert_eq!(p, params(json!({"limit": 2})));
        let data = page.wrap(
            json!({"entries": [{"id": 1}, {"id": 2}], "next_cursor": "c3", "note": "kept"}),
            None,
            "list_issues",
            &cursors,
        );
        assert_eq!(data["note"], "kept");
        assert!(data.get("next_cursor").is_none());
        assert_eq!(data["pageInfo"]["hasNextPage"], true);
        let end = data["pageInfo"]["endCursor"].clone();
        let mut p = Map::new();
        resolve(&CURSORED, &mut p, Some(json!(5)), Some(end), &cursors).expect("valid");
        assert_eq!(p, params(json!({"limit": 5, "cursor": "c3"})));

        let last = page.wrap(
            json!({"entries": [{"id": 9}], "next_cursor": null}),
            None,
            "list_issues",
            &cursors,
        );
        assert_eq!(last["pageInfo"]["hasNextPage"], false);
        let past = last["pageInfo"]["endCursor"].clone();
        let (page, _) = resolve(
            &CURSORED,
            &mut Map::new(),
            Some(json!(2)),
            Some(past),
            &cursors,
        )
        .expect("valid");
        assert!(page.is_past_end());
    }

    #[test]
    fn totals_and_full_pages_tell_whether_more_exist() {
        let cursors = Cursors::new();
        let offset = Paging {
            style: PageStyle::Offset {
                offset: "offset",
                size: "limit",
            },
            default_limit: 2,
            max_limit: 10,
        };
        let (page, _) = resolve(&offset, &mut Map::new(), None, None, &cursors).expect("valid");
        let data = page.wrap(
            json!({"items": [1, 2], "total": 3}),
            None,
            "list_todos",
            &cursors,
        );
        assert_eq!(data["pageInfo"]["hasNextPage"], true);
        assert_eq!(data["pageInfo"]["totalCount"], 3);
        let data = page.wrap(
            json!({"items": [1, 2], "total": 2}),
            None,
            "list_todos",
            &cursors,
        );
        assert_eq!(data["pageInfo"]["hasNextPage"], false);
        let empty = page.wrap(json!([]), None, "list_todos", &cursors);
        assert_eq!(
            empty["pageInfo"],
            json!({"hasNextPage": false, "hasPreviousPage": false})
        );
        assert_eq!(
            page.wrap(json!({"a": 1}), None, "list_todos", &cursors),
            json!({"a": 1})
        );
    }

    #[test]
    fn forbidden_combinations_and_clamping() {
        let cursors = Cursors::new();
        let mut mixed = params(json!({"page": 2}));
        let error = resolve(&PAGED, &mut mixed, Some(json!(5)), None, &cursors).expect_err("mixed");
        assert_eq!(error.details["param_name"], "pagination");
        assert_eq!(error.details["provided"], json!(["first", "page"]));
        let error = resolve(&PAGED, &mut Map::new(), None, Some(json!("x")), &cursors)
            .expect_err("after alone");
        assert_eq!(error.code, ErrorCode::ValidationInvalidType);
        for (first, code) in [
            (json!(0), ErrorCode::ValidationInvalidValue),
            (json!(-3), ErrorCode::ValidationInvalidValue),
            (json!("5"), ErrorCode::ValidationInvalidType),
            (json!(2.5), ErrorCode::ValidationInvalidType),
        ] {
            let error = resolve(&PAGED, &mut Map::new(), Some(first), None, &cursors)
                .expect_err("bad first");
            assert_eq!(error.code, code);
        }
        let mut p = Map::new();
        let (_, warnings) =
            resolve(&PAGED, &mut p, Some(json!(1000)), None, &cursors).expect("clamped");
        assert_eq!(p["per_page"], 100);
        assert_eq!(warnings[0].code, "PAGINATION_LIMIT_CLAMPED");
    }

    #[test]
    fn page_sizes_change_where_they_divide_the_items_passed() {
        let cursors = Cursors::new();
        let (page, _) =
            resolve(&PAGED, &mut Map::new(), Some(json!(10)), None, &cursors).expect("valid");
        let data = page.wrap(json!(vec![json!({}); 10]), None, "list_issues", &cursors);
        let end = data["pageInfo"]["endCursor"].clone();
        let mut p = Map::new();
        resolve(&PAGED, &mut p, Some(json!(5)), Some(end.clone()), &cursors).expect("valid");
        assert_eq!(
            (p["page"].clone(), p["per_page"].clone()),
            (json!(3), json!(5))
        );
        let mut p = Map::new();
        let (_, warnings) =
            resolve(&PAGED, &mut p, Some(json!(3)), Some(end), &cursors).expect("valid");
        assert_eq!(
            (p["page"].clone(), p["per_page"].clone()),
            (json!(2), json!(10))
        );
        assert_eq!(warnings[0].code, "PAGINATION_SIZE_KEPT");
    }

    #[test]
    fn link_headers_are_parsed_loosely() {
        assert_eq!(
            next_link(r#"<https://a/b?page=2>; rel="next", <https://a/b?page=9>; rel="last""#),
            Some("https://a/b?page=2".into())
        );
        assert_eq!(
            next_link(r#"<https://a/b?x=1>; REL=next"#),
            Some("https://a/b?x=1".into())
        );
        assert_eq!(next_link(r#"<https://a/b>; rel="prev""#), None);
        assert_eq!(next_link("garbage"), None);
        assert_eq!(
            query_value("https://a/b?after=Y3Vy&x=1", "after"),
            Some("Y3Vy".into())
        );
    }
}
