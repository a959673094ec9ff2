//! A query along the line: what the upstream does goes into the call's params; the rest is
//! done here over a scan, each upstream page fetched by a call of its own along the line (so
//! through the gate, the limits and the cache like any other), until the answer is known, the
//! upstream has no more, or a bound is reached.

use std::time::SystemTime;

use serde_json::{Map, Value, json};

use super::Line;
use crate::adapter::{FeatureParam, Query, Route};
use crate::call::query::{Request, Scan, aggregate, take_feature};
use crate::call::shape::cursor::{Position, Resume};
use crate::call::shape::fields::{self, Chosen};
use crate::call::trace::CallSpan;
use crate::call::{Context, Data, Observer};
use crate::clock;
use crate::error::{AqlError, ErrorCode};
use crate::params::wrong_type;
use crate::warning::Warning;

/// Page size of a query's answer when the request gives no `first` and the operation pages
/// by no default of its own (pagination §5.2).
const DEFAULT_FIRST: u64 = 20;
/// Largest `first` of a query's answer when the operation pages by no maximum of its own.
const MAX_FIRST: u64 = 100;

impl Line {
    /// Runs `route`, whose collection `query` describes, with `params`: a request that asks
    /// nothing of the query is a plain call; one the upstream answers alone is a plain call
    /// with the query's params put in; anything else is a scan.
    pub(super) async fn run_query<O: Observer>(
        &self,
        route: &'static Route,
        query: &'static Query,
        mut params: Map<String, Value>,
        quota_token: Option<Value>,
        context: &Context<'_, O>,
        span: Option<&mut CallSpan>,
    ) -> Result<(Data, Vec<Warning>), AqlError> {
        // What a cursor of the answer is bound to: the request as given, paging and field
        // selection aside.
        let mut scope = params.clone();
        for feature in [
            FeatureParam::First,
            FeatureParam::After,
            FeatureParam::Last,
            FeatureParam::Before,
            FeatureParam::Fields,
            FeatureParam::Preset,
        ] {
            scope.remove(feature.as_str());
        }
        let Some(request) = Request::take(route, query, &mut params)? else {
            return self
                .run_call(route, params, quota_token, context, span)
                .await;
        };
        request.apply_upstream(&mut params);
        // What the API does alone needs no report: the answer is the API's, exactly.
        if !request.is_local() {
            return self
                .run_call(route, params, quota_token, context, span)
                .await;
        }
        self.scan(
            route,
            query,
            request,
            params,
            scope,
            quota_token,
            context,
            span,
        )
        .await
    }

    /// Scans the upstream's pages for `request` and answers from what it read.
    #[allow(clippy::too_many_arguments)]
    async fn scan<O: Observer>(
        &self,
        route: &'static Route,
        query: &'static Query,
        request: Request,
        mut params: Map<String, Value>,
        scope: Map<String, Value>,
        quota_token: Option<Value>,
        context: &Context<'_, O>,
        mut span: Option<&mut CallSpan>,
    ) -> Result<(Data, Vec<Warning>), AqlError> {
        let mut warnings = Vec::new();
        let chosen = match route.fields {
            Some(presets) => Some(Chosen::parse(
                params.remove(FeatureParam::Fields.as_str()),
                params.remove(FeatureParam::Preset.as_str()),
                presets,
                route.computed,
                &mut warnings,
            )?),
            None => None,
        };
        let window = Window::take(route, &mut params, &scope, &self.cursors, &mut warnings)?;
        // Every param is checked before anything is sent.
        (route.build)(&params)?;
        let now = i64::try_from(clock::unix_seconds(SystemTime::now())).unwrap_or(i64::MAX);
        let mut scan = Scan::new(self.query.scan_limits(query.scan));
        let computed: Vec<_> = if request.reads_computed() {
            route.computed.iter().collect()
        } else {
            Vec::new()
        };
        let summaries_only = !request.aggregations.is_empty() && !request.include_items;
        // Without a sort or an aggregation here, the scan stops once the page is full and
        // one more item tells whether another page follows.
        let enough = (!request.sorts_here() && request.aggregations.is_empty())
            .then(|| window.offset.saturating_add(window.size).saturating_add(1));
        let counts_only = aggregate::counts_only(&request.aggregations)
            && !request.filters_here()
            && summaries_only;
        let mut matched: Vec<Value> = Vec::new();
        let mut after: Option<Value> = None;
        let mut exhausted = false;
        let mut quota_token = quota_token;
        loop {
            let mut page = params.clone();
            if let Some(paging) = route.paging {
                page.insert(
                    FeatureParam::First.as_str().to_owned(),
                    scan.page_size(paging.max_limit).into(),
                );
                if let Some(cursor) = &after {
                    page.insert(FeatureParam::After.as_str().to_owned(), cursor.clone());
                }
            }
            let (data, page_warnings) = Box::pin(self.run_call(
                route,
                page,
                quota_token.take(),
                context,
                span.as_deref_mut(),
            ))
            .await?;
            warnings.extend(page_warnings);
            let bytes = data.json_len();
            let Page { items, next, total } = Page::of(data.into_value(), route.paging.is_some());
            scan.read(items.len(), bytes);
            if counts_only && let Some(total) = total {
                let aggregations = aggregate::from_total(&request.aggregations, total);
                let data = json!({
                    "aggregations": aggregations,
                    "query": scan.report(&request, true),
                });
                return Ok((Data::Value(data), warnings));
            }
            for mut item in items {
                fields::add_computed(&mut item, &computed, now);
                if request.matches(&item) {
                    matched.push(item);
                }
            }
            match next {
                Some(cursor) => after = Some(cursor),
                None => {
                    exhausted = true;
                    break;
                }
            }
            if enough.is_some_and(|enough| matched.len() as u64 >= enough) {
                break;
            }
            if let Some(bound) = scan.reached() {
                scan.stopped = Some(bound);
                break;
            }
        }
        request.sort_here(&mut matched);
        let complete = scan.stopped.is_none();
        let mut data = Map::new();
        if !request.aggregations.is_empty() {
            data.insert(
                "aggregations".into(),
                aggregate::evaluate(&request.aggregations, &matched),
            );
        }
        if !summaries_only {
            let total = matched.len() as u64;
            let start = window.offset.min(total) as usize;
            let end = window.offset.saturating_add(window.size).min(total) as usize;
            let mut items = Value::Array(matched.drain(start..end).collect());
            if let Some(chosen) = &chosen {
                fields::add_computed(&mut items, &chosen.computed, now);
                chosen.selection.apply(&mut items, &mut warnings);
            }
            if chosen
                .as_ref()
                .is_none_or(|chosen| chosen.computed.is_empty())
            {
                strip_computed(&mut items);
            }
            let returned = (end - start) as u64;
            let mut page_info = Map::new();
            let more = window.offset.saturating_add(window.size) < total;
            page_info.insert("hasNextPage".into(), more.into());
            page_info.insert("hasPreviousPage".into(), (window.offset > 0).into());
            if returned > 0 {
                let cursor = |offset: u64| {
                    self.cursors.make(
                        &window.operation,
                        &scope,
                        &Resume {
                            position: Position::Offset(offset),
                            size: window.size,
                        },
                    )
                };
                page_info.insert("startCursor".into(), cursor(window.offset).into());
                page_info.insert("endCursor".into(), cursor(window.offset + returned).into());
            }
            if exhausted {
                page_info.insert("totalCount".into(), total.into());
            }
            data.insert("items".into(), items);
            data.insert("pageInfo".into(), Value::Object(page_info));
        }
        data.insert("query".into(), scan.report(&request, complete));
        warnings.extend(scan.truncated(route.operation));
        Ok((Data::Value(Value::Object(data)), warnings))
    }
}

/// The window of a scanned answer a request asks for: `first` items from an offset.
struct Window {
    offset: u64,
    size: u64,
    /// The name cursors of this answer are made for.
    operation: String,
}

impl Window {
    /// `first` and `after` of a query's answer, taken out of `params`; `last` and `before`
    /// are refused, since the answer is computed from its start.
    fn take(
        route: &Route,
        params: &mut Map<String, Value>,
        scope: &Map<String, Value>,
        cursors: &crate::call::shape::cursor::Cursors,
        warnings: &mut Vec<Warning>,
    ) -> Result<Self, AqlError> {
        let mut take = |param: FeatureParam| take_feature(route, params, param);
        let (first, after) = (take(FeatureParam::First), take(FeatureParam::After));
        let backwards: Vec<&str> = [FeatureParam::Last, FeatureParam::Before]
            .into_iter()
            .filter(|param| take(*param).is_some())
            .map(FeatureParam::as_str)
            .collect();
        if !backwards.is_empty() {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidType,
                format!(
                    "Cannot use '{}' with a query done here: its answer is paged forward only",
                    backwards.join("', '")
                ),
            )
            .with_detail("param_name", "pagination")
            .with_detail("expected_type", "valid pagination combination")
            .with_detail("actual_type", "conflicting parameters")
            .with_detail("provided", backwards)
            .with_detail(
                "hint",
                "Use 'first', and 'after' with the previous page's 'pageInfo.endCursor'",
            ));
        }
        let (default, max) = route.paging.map_or((DEFAULT_FIRST, MAX_FIRST), |paging| {
            (paging.default_limit, paging.max_limit)
        });
        let operation = format!("{}#query", route.operation);
        let size = match first {
            None => default,
            Some(first) => match first.as_u64() {
                Some(size) if size >= 1 && size <= max => size,
                Some(size) if size > max => {
                    warnings.push(
                        Warning::new(
                            "PAGINATION_LIMIT_CLAMPED",
                            format!("'first' was {size}; pages hold up to {max}, so {max} items were asked for"),
                        )
                        .with_detail("param_name", "first")
                        .with_detail("requested", size)
                        .with_detail("max_limit", max),
                    );
                    max
                }
                _ if first.is_i64() => {
                    return Err(AqlError::new(
                        ErrorCode::ValidationInvalidValue,
                        format!("Parameter 'first' must be >= 1, got {first}"),
                    )
                    .with_detail("param_name", "first")
                    .with_detail("constraint", ">= 1"));
                }
                _ => return Err(wrong_type("first", "integer", &first)),
            },
        };
        let offset = match after {
            None => 0,
            Some(Value::String(cursor)) => {
                match cursors.read(&cursor, "after", &operation, scope)?.position {
                    Position::Offset(offset) => offset,
                    _ => return Err(crate::call::shape::cursor::invalid("after")),
                }
            }
            Some(other) => return Err(wrong_type("after", "string", &other)),
        };
        Ok(Self {
            offset,
            size,
            operation,
        })
    }
}

/// One upstream page as a call along the line answered it.
struct Page {
    items: Vec<Value>,
    /// The cursor of the next page, when there is one.
    next: Option<Value>,
    /// The number of matching items the upstream reported, when it did.
    total: Option<u64>,
}

impl Page {
    /// The items of `data`: a page (`{items, pageInfo}`) of a paginated operation, else the
    /// whole answer (an array, or an object holding one).
    fn of(data: Value, paginated: bool) -> Self {
        let mut data = data;
        if paginated {
            let info = data.get("pageInfo");
            let next = info
                .filter(|info| info["hasNextPage"] == true)
                .and_then(|info| info.get("endCursor"))
                .cloned();
            let total = info
                .and_then(|info| info.get("totalCount"))
                .and_then(Value::as_u64);
            let items = match data.get_mut("items").map(Value::take) {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            };
            return Self { items, next, total };
        }
        let items = match data {
            Value::Array(items) => items,
            Value::Object(mut object) => aqlgen_model::COLLECTION_MEMBERS
                .iter()
                .find_map(|name| match object.remove(*name) {
                    Some(Value::Array(items)) => Some(items),
                    _ => None,
                })
                .unwrap_or_else(|| vec![Value::Object(object)]),
            other => vec![other],
        };
        Self {
            items,
            next: None,
            total: None,
        }
    }
}

/// Removes the `_computed` members a scan computed for filtering or sorting from items that
/// did not ask for them.
fn strip_computed(items: &mut Value) {
    if let Value::Array(items) = items {
        for item in items {
            if let Value::Object(object) = item {
                object.remove(aqlgen_model::COMPUTED_MEMBER);
            }
        }
    }
}
