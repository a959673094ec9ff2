//! Cursor pagination over whatever the upstream does (pagination §2-§6): `first` and `after`
//! become the upstream's page/offset/cursor params on the way out, and its answer becomes
//! `{items, pageInfo}` on the way back, whatever shape it came in (a bare array, or an object
//! holding the array) and wherever it said more pages exist (`Link: rel="next"`, a total, a
//! next cursor in the body).

use aqlgen_model::COLLECTION_MEMBERS;
use serde_json::{Map, Value};

use super::cursor::{Cursors, Position, Resume, invalid};
use crate::adapter::{PageStyle, Paging};
use crate::error::{AqlError, ErrorCode};
use crate::params::json_type;
use crate::warning::Warning;

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

/// The cursor-pagination params of one request (pagination §2.1), as given.
#[derive(Debug, Default)]
pub struct Window {
    /// Page size, forwards.
    pub first: Option<Value>,
    /// Where to resume forwards.
    pub after: Option<Value>,
    /// Page size, backwards.
    pub last: Option<Value>,
    /// Where to resume backwards.
    pub before: Option<Value>,
}

/// The page one request asks for, once its cursor params are resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRequest {
    style: PageStyle,
    size: u64,
    at: Position,
    /// Asked for the items before the first one: the page is empty without asking.
    before_start: bool,
    /// The params a cursor is bound to: the request's own, paging params left out.
    scope: Map<String, Value>,
}

impl PageRequest {
    /// Resolves the cursor params of `window` for an operation paged by `paging`, and puts
    /// the upstream paging params into `params`. Backwards paging is turned into the
    /// forward position of the items before the cursor.
    ///
    /// # Errors
    ///
    /// A combination pagination §2.3 forbids, `last` without `before`, cursor params and the
    /// upstream's own paging params together, a page size that is not a positive integer,
    /// or a cursor that is not ours or belongs to another request.
    pub fn resolve(
        paging: &Paging,
        operation: &str,
        params: &mut Map<String, Value>,
        window: Window,
        cursors: &Cursors,
        warnings: &mut Vec<Warning>,
    ) -> Result<Self, AqlError> {
        let style = paging.style;
        let [position_param, size_param] = style.upstream_params();
        let given = |value: Option<Value>| value.filter(|value| !value.is_null());
        let (first, after) = (given(window.first), given(window.after));
        let (last, before) = (given(window.last), given(window.before));
        let named: Vec<&str> = [
            ("first", &first),
            ("after", &after),
            ("last", &last),
            ("before", &before),
        ]
        .into_iter()
        .filter(|(_, value)| value.is_some())
        .map(|(name, _)| name)
        .collect();
        check_combination(&named, style, params)?;
        let given_size = given_number(params, size_param, 1)?;
        let size = match first
            .as_ref()
            .map(|v| ("first", v))
            .or(last.as_ref().map(|v| ("last", v)))
        {
            Some((name, value)) => clamp(name, page_size(name, value)?, paging.max_limit, warnings),
            None => given_size.unwrap_or(paging.default_limit),
        };
        let mut scope = params.clone();
        scope.retain(|name, _| name != position_param && name != size_param);
        let mut before_start = false;
        let (size, at) = match (after, before) {
            (Some(cursor), _) => {
                let resume = read(&cursor, "after", operation, &scope, cursors)?;
                resumed(style, size, resume, warnings)?
            }
            (None, Some(cursor)) => {
                let resume = read(&cursor, "before", operation, &scope, cursors)?;
                match preceding(style, size, resume, warnings)? {
                    Some(window) => window,
                    None => {
                        before_start = true;
                        (size, given_position(style, &Map::new())?)
                    }
                }
            }
            (None, None) => (size, given_position(style, params)?),
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
            before_start,
            scope,
        })
    }

    /// The answer when the page is known to be empty without asking the upstream: past the
    /// last item, or before the first.
    pub fn known_empty(&self) -> Option<Value> {
        let (next, previous) = if self.at == Position::End {
            (false, true)
        } else if self.before_start {
            (true, false)
        } else {
            return None;
        };
        Some(serde_json::json!({
            "items": [],
            "pageInfo": {"hasNextPage": next, "hasPreviousPage": previous}
        }))
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
            (Position::Page(page), _) => Position::Page(page.saturating_add(1)),
            (Position::Offset(offset), _) => Position::Offset(offset.saturating_add(returned)),
            (_, PageStyle::Cursor { cursor, .. }) => next_link
                .as_deref()
                .and_then(|url| query_value(url, cursor))
                .or_else(|| take_next_cursor(&mut rest))
                .map_or(Position::End, Position::Upstream),
            _ => Position::End,
        };
        let skipped = match self.at {
            Position::Page(page) => Some(page.saturating_sub(1).saturating_mul(self.size)),
            Position::Offset(offset) => Some(offset),
            _ => None,
        };
        let has_next = if link.is_some() {
            next_link.is_some()
        } else if matches!(self.style, PageStyle::Cursor { .. }) {
            next != Position::End
        } else if let (Some(total), Some(skipped)) = (total, skipped) {
            skipped.saturating_add(returned) < total
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
}

/// The page size `first` or `last` (`name`) asks for.
fn page_size(name: &str, value: &Value) -> Result<u64, AqlError> {
    match value.as_u64() {
        Some(size) if size >= 1 => Ok(size),
        _ if value.is_i64() || value.is_u64() => Err(AqlError::new(
            ErrorCode::ValidationInvalidValue,
            format!("Parameter '{name}' must be >= 1, got {value}"),
        )
        .with_detail("param_name", name)
        .with_detail("constraint", ">= 1")
        .with_detail("value", value.clone())),
        _ => Err(AqlError::new(
            ErrorCode::ValidationInvalidType,
            format!(
                "Parameter '{name}' expected 'integer', got '{}'",
                json_type(value)
            ),
        )
        .with_detail("param_name", name)
        .with_detail("expected_type", "integer")
        .with_detail("actual_type", json_type(value))),
    }
}

/// `size` lowered to `max`, with a warning when it was above.
fn clamp(name: &str, size: u64, max: u64, warnings: &mut Vec<Warning>) -> u64 {
    if size <= max {
        return size;
    }
    warnings.push(
        Warning::new(
            "PAGINATION_LIMIT_CLAMPED",
            format!("'{name}' was {size}; pages hold up to {max}, so {max} items were asked for"),
        )
        .with_detail("param_name", name)
        .with_detail("requested", size)
        .with_detail("max_limit", max),
    );
    max
}

/// The cursor-param combinations pagination §2.3 refuses, `last` without `before` (this
/// adapter walks from the start), and cursor params mixed with the upstream's own.
fn check_combination(
    named: &[&str],
    style: PageStyle,
    params: &Map<String, Value>,
) -> Result<(), AqlError> {
    let has = |name: &str| named.contains(&name);
    // Mismatched directions first, then a cursor without its page size.
    let refusal = if has("first") && has("last") {
        Some((
            "Cannot use 'first' and 'last' together",
            vec!["first", "last"],
            "Use 'first' for forward pagination or 'last' for backward pagination",
        ))
    } else if has("first") && has("before") {
        Some((
            "Cannot use 'first' with 'before'",
            vec!["first", "before"],
            "Use 'first' with 'after', or 'last' with 'before'",
        ))
    } else if has("last") && has("after") {
        Some((
            "Cannot use 'last' with 'after'",
            vec!["last", "after"],
            "Use 'first' with 'after', or 'last' with 'before'",
        ))
    } else if has("after") && !has("first") {
        Some((
            "Cannot use 'after' without 'first'",
            vec!["after"],
            "Give 'first', the page size, with 'after'",
        ))
    } else if has("before") && !has("last") {
        Some((
            "Cannot use 'before' without 'last'",
            vec!["before"],
            "Give 'last', the page size, with 'before'",
        ))
    } else if has("last") && !has("before") {
        Some((
            "Cannot use 'last' without 'before' here: this operation is walked from its start",
            vec!["last"],
            "Pass a page's 'pageInfo.startCursor' as 'before' with 'last', or walk forward with 'first'",
        ))
    } else {
        None
    };
    if let Some((message, provided, hint)) = refusal {
        return Err(combination(message.to_owned(), &provided, hint));
    }
    let mixed: Vec<&str> = style
        .upstream_params()
        .into_iter()
        .filter(|name| params.contains_key(*name))
        .collect();
    if named.is_empty() || mixed.is_empty() {
        return Ok(());
    }
    let mut provided = named.to_vec();
    provided.extend(&mixed);
    Err(combination(
        format!(
            "Cannot use {} together with {}: pick cursor pagination or the operation's own paging params",
            quoted(named),
            quoted(&mixed)
        ),
        &provided,
        "Use the cursor params alone; pass 'pageInfo.endCursor' as 'after' for the next page",
    ))
}

/// The cursor in `value`, given as `param`.
fn read(
    value: &Value,
    param: &str,
    operation: &str,
    scope: &Map<String, Value>,
    cursors: &Cursors,
) -> Result<Resume, AqlError> {
    match value {
        Value::String(cursor) => cursors.read(cursor, param, operation, scope),
        other => Err(AqlError::new(
            ErrorCode::ValidationInvalidType,
            format!(
                "Parameter '{param}' expected 'string', got '{}'",
                json_type(other)
            ),
        )
        .with_detail("param_name", param)
        .with_detail("expected_type", "string")
        .with_detail("actual_type", json_type(other))),
    }
}

/// The forward position and size of the `size` items before a cursor's position; `None`
/// when nothing comes before it. Page numbers keep the walk's page size unless the new
/// one lines up with them.
fn preceding(
    style: PageStyle,
    size: u64,
    resume: Resume,
    warnings: &mut Vec<Warning>,
) -> Result<Option<(u64, Position)>, AqlError> {
    match (style, resume.position) {
        (PageStyle::Offset { .. }, Position::Offset(offset)) => Ok((offset > 0).then(|| {
            let take = size.min(offset);
            (take, Position::Offset(offset - take))
        })),
        (PageStyle::Page { .. }, Position::Page(page)) => {
            let passed = page.saturating_sub(1).saturating_mul(resume.size);
            if passed == 0 {
                return Ok(None);
            }
            let take = size.min(passed);
            let start = passed - take;
            if start.is_multiple_of(take) {
                return Ok(Some((
                    take,
                    Position::Page((start / take).saturating_add(1)),
                )));
            }
            warnings.push(kept_size(resume.size, "last", size));
            Ok(Some((resume.size, Position::Page(page - 1))))
        }
        _ => Err(invalid("before")),
    }
}

/// The warning that a page-numbered walk keeps its page size.
fn kept_size(walk: u64, param: &str, asked: u64) -> Warning {
    Warning::new(
        "PAGINATION_SIZE_KEPT",
        format!(
            "This API numbers its pages, so the walk goes on with pages of {walk} items; '{param}' {asked} applies from a new walk"
        ),
    )
    .with_detail("param_name", param)
    .with_detail("page_size", walk)
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
            let passed = page.saturating_sub(1).saturating_mul(resume.size);
            if size == resume.size {
                Ok((size, Position::Page(page)))
            } else if passed.is_multiple_of(size) {
                Ok((size, Position::Page((passed / size).saturating_add(1))))
            } else {
                warnings.push(kept_size(resume.size, "first", size));
                Ok((resume.size, Position::Page(page)))
            }
        }
        (PageStyle::Offset { .. }, Position::Offset(offset)) => {
            Ok((size, Position::Offset(offset)))
        }
        (PageStyle::Cursor { .. }, position @ (Position::Upstream(_) | Position::Start)) => {
            Ok((size, position))
        }
        (_, Position::End) => Ok((size, Position::End)),
        _ => Err(invalid("after")),
    }
}

/// Where a request without `after` starts: the upstream paging params it gave, else the start.
fn given_position(style: PageStyle, params: &Map<String, Value>) -> Result<Position, AqlError> {
    Ok(match style {
        PageStyle::Page { page, .. } => Position::Page(given_number(params, page, 1)?.unwrap_or(1)),
        PageStyle::Offset { offset, .. } => {
            Position::Offset(given_number(params, offset, 0)?.unwrap_or(0))
        }
        PageStyle::Cursor { cursor, .. } => match params.get(cursor).and_then(Value::as_str) {
            Some(token) if !token.is_empty() => Position::Upstream(token.to_owned()),
            _ => Position::Start,
        },
    })
}

/// The upstream paging param `name` (a page number, an offset or a page size) as the request
/// gave it: a whole number from `min` up to the largest the operation's integer params take,
/// or absent. Anything else is refused as a generated `from_params` would refuse it, since
/// the value the upstream gets is computed from this one.
fn given_number(
    params: &Map<String, Value>,
    name: &str,
    min: u64,
) -> Result<Option<u64>, AqlError> {
    let Some(value) = params.get(name).filter(|value| !value.is_null()) else {
        return Ok(None);
    };
    let out_of_range = |constraint: String| {
        AqlError::new(
            ErrorCode::ValidationInvalidValue,
            format!("Parameter '{name}' must be {constraint}, got {value}"),
        )
        .with_detail("param_name", name)
        .with_detail("constraint", constraint)
        .with_detail("value", value.clone())
    };
    match (value.as_i64(), value.as_u64()) {
        (Some(number), _) if number >= 0 && number as u64 >= min => Ok(Some(number as u64)),
        (Some(_), _) => Err(out_of_range(format!(">= {min}"))),
        (None, Some(_)) => Err(out_of_range(format!("<= {}", i64::MAX))),
        (None, None) => Err(AqlError::new(
            ErrorCode::ValidationInvalidType,
            format!(
                "Parameter '{name}' expected 'integer', got '{}'",
                json_type(value)
            ),
        )
        .with_detail("param_name", name)
        .with_detail("expected_type", "integer")
        .with_detail("actual_type", json_type(value))),
    }
}

/// The member of an upstream object holding the page's items.
fn items_member(object: &Map<String, Value>) -> Option<String> {
    COLLECTION_MEMBERS
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
        let window = Window {
            first,
            after,
            ..Window::default()
        };
        backwards(paging, params, window, cursors)
    }

    /// Any window, backwards ones included.
    fn backwards(
        paging: &Paging,
        params: &mut Map<String, Value>,
        window: Window,
        cursors: &Cursors,
    ) -> Result<(PageRequest, Vec<Warning>), AqlError> {
        let mut warnings = Vec::new();
        PageRequest::resolve(
            paging,
            "list_issues",
            params,
            window,
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
        assert_eq!(
            page.known_empty().expect("empty")["pageInfo"]["hasNextPage"],
            false
        );
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
    fn last_and_before_page_back_from_a_start_cursor() {
        let cursors = Cursors::new();
        let (page, _) =
            resolve(&PAGED, &mut Map::new(), Some(json!(10)), None, &cursors).expect("valid");
        let first = page.wrap(json!(vec![json!({}); 10]), None, "list_issues", &cursors);
        let mut p = Map::new();
        let (third, _) = resolve(
            &PAGED,
            &mut p,
            Some(json!(10)),
            Some(first["pageInfo"]["endCursor"].clone()),
            &cursors,
        )
        .expect("valid");
        let page3 = third.wrap(json!(vec![json!({}); 10]), None, "list_issues", &cursors);
        let back = |last: u64| {
            let mut p = Map::new();
            let window = Window {
                last: Some(json!(last)),
                before: Some(page3["pageInfo"]["startCursor"].clone()),
                ..Window::default()
            };
            let (_, warnings) = backwards(&PAGED, &mut p, window, &cursors).expect("valid");
            (p["page"].clone(), p["per_page"].clone(), warnings.len())
        };
        assert_eq!(back(10), (json!(1), json!(10), 0));
        assert_eq!(back(5), (json!(2), json!(5), 0));
        assert_eq!(
            back(3),
            (json!(1), json!(10), 1),
            "3 does not divide 10: the walk's size"
        );
        let window = Window {
            last: Some(json!(5)),
            before: Some(first["pageInfo"]["startCursor"].clone()),
            ..Window::default()
        };
        let (start, _) = backwards(&PAGED, &mut Map::new(), window, &cursors).expect("valid");
        assert_eq!(
            start.known_empty(),
            Some(json!({"items": [], "pageInfo": {"hasNextPage": true, "hasPreviousPage": false}}))
        );
        for (window, provided) in [
            (
                Window {
                    first: Some(json!(1)),
                    last: Some(json!(1)),
                    ..Window::default()
                },
                json!(["first", "last"]),
            ),
            (
                Window {
                    before: Some(json!("x")),
                    ..Window::default()
                },
                json!(["before"]),
            ),
            (
                Window {
                    first: Some(json!(1)),
                    before: Some(json!("x")),
                    last: None,
                    after: None,
                },
                json!(["first", "before"]),
            ),
            (
                Window {
                    last: Some(json!(1)),
                    after: Some(json!("x")),
                    before: Some(json!("y")),
                    first: None,
                },
                json!(["last", "after"]),
            ),
            (
                Window {
                    last: Some(json!(1)),
                    ..Window::default()
                },
                json!(["last"]),
            ),
        ] {
            let error = backwards(&PAGED, &mut Map::new(), window, &cursors).expect_err("refused");
            assert_eq!(error.details["provided"], provided);
        }
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

    static OFFSET: Paging = Paging {
        style: PageStyle::Offset {
            offset: "offset",
            size: "limit",
        },
        default_limit: 20,
        max_limit: 100,
    };

    /// The upstream's own paging params are checked before a page is computed from them:
    /// a bad value is refused, never replaced by the default.
    #[test]
    fn paging_params_are_checked_not_replaced() {
        let cursors = Cursors::new();
        let refused = |paging: &Paging, given: Value| {
            let mut p = params(given);
            resolve(paging, &mut p, None, None, &cursors)
                .map(|_| p)
                .expect_err("refused")
        };
        for (paging, given, code) in [
            (
                &OFFSET,
                json!({"limit": "abc"}),
                ErrorCode::ValidationInvalidType,
            ),
            (
                &OFFSET,
                json!({"limit": {}}),
                ErrorCode::ValidationInvalidType,
            ),
            (
                &OFFSET,
                json!({"limit": 1.5}),
                ErrorCode::ValidationInvalidType,
            ),
            (
                &OFFSET,
                json!({"limit": 0}),
                ErrorCode::ValidationInvalidValue,
            ),
            (
                &OFFSET,
                json!({"offset": -1}),
                ErrorCode::ValidationInvalidValue,
            ),
            (
                &OFFSET,
                json!({"offset": "3"}),
                ErrorCode::ValidationInvalidType,
            ),
            (
                &PAGED,
                json!({"page": 0}),
                ErrorCode::ValidationInvalidValue,
            ),
            (
                &PAGED,
                json!({"page": -1}),
                ErrorCode::ValidationInvalidValue,
            ),
            (
                &PAGED,
                json!({"page": "2"}),
                ErrorCode::ValidationInvalidType,
            ),
            (
                &PAGED,
                json!({"page": true}),
                ErrorCode::ValidationInvalidType,
            ),
            (
                &PAGED,
                json!({"page": u64::MAX}),
                ErrorCode::ValidationInvalidValue,
            ),
            (
                &PAGED,
                json!({"per_page": -5}),
                ErrorCode::ValidationInvalidValue,
            ),
            (
                &PAGED,
                json!({"per_page": "x"}),
                ErrorCode::ValidationInvalidType,
            ),
        ] {
            let error = refused(paging, given.clone());
            assert_eq!(error.code, code, "{given}: {}", error.message);
            assert!(
                !error.message.contains("got 'integer'")
                    || code != ErrorCode::ValidationInvalidType,
                "{given}: {}",
                error.message
            );
        }
        let mut p = params(json!({"page": 3, "per_page": 10}));
        resolve(&PAGED, &mut p, None, None, &cursors).expect("valid");
        assert_eq!(p, params(json!({"page": 3, "per_page": 10})));
        let mut p = params(json!({"limit": null, "offset": null}));
        resolve(&OFFSET, &mut p, None, None, &cursors).expect("null is left out");
        assert_eq!(p, params(json!({"limit": 20, "offset": 0})));
    }

    proptest::proptest! {
        /// No page number, offset, size or answer length makes the arithmetic of a page
        /// overflow: every request is answered, with a page size within the operation's.
        #[test]
        fn no_number_overflows_a_page(
            page in proptest::prelude::any::<i64>(),
            offset in proptest::prelude::any::<i64>(),
            size in proptest::prelude::any::<u64>(),
            first in proptest::option::of(proptest::prelude::any::<u64>()),
            returned in 0usize..4,
            total in proptest::option::of(proptest::prelude::any::<u64>()),
            follow in proptest::prelude::any::<bool>(),
        ) {
            let cursors = Cursors::new();
            for (paging, given) in [
                (&PAGED, json!({"page": page, "per_page": size})),
                (&OFFSET, json!({"offset": offset, "limit": size})),
                (&CURSORED, json!({"limit": size})),
            ] {
                let mut p = params(given);
                let Ok((request, _)) = resolve(paging, &mut p, first.map(Value::from), None, &cursors)
                else {
                    continue;
                };
                let items: Vec<Value> = (0..returned).map(|i| json!({"id": i})).collect();
                let mut answer = json!({"items": items});
                if let Some(total) = total {
                    answer["total_count"] = total.into();
                }
                let data = request.wrap(answer, None, "list_issues", &cursors);
                let Some(end) = data["pageInfo"]["endCursor"].as_str().map(str::to_owned) else {
                    continue;
                };
                if follow {
                    let mut p = Map::new();
                    let _ = resolve(paging, &mut p, Some(json!(size.max(1))), Some(json!(end)), &cursors);
                }
            }
        }
    }
}
