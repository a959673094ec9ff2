//! The query language on an operation's collection (collection-querying, aggregations): a
//! request's `query`, `filter`, `sort`, `aggregate` and `include_items`, checked against the
//! operation's query fields before anything is sent. What the schema maps onto the upstream's
//! params goes there; the rest is done here, over a scan of the upstream's pages bounded by
//! the schema and the operator ([`Scan`]), and the answer says which was done where, how much
//! was read and whether all of it was.

pub mod aggregate;
pub mod filter;
pub mod values;

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::adapter::{FeatureParam, Query, Route, ScanLimits, SortOrder, TextQuery};
use crate::error::{AqlError, ErrorCode};
use crate::params::wrong_type;
use crate::text::shorten;
use crate::warning::{Severity, Warning};
use aggregate::Aggregation;
use filter::Condition;
use values::{Key, Scalar};

/// Longest text query.
const MAX_TEXT_BYTES: usize = 1024;

/// What one request asks of the operation's collection.
#[derive(Debug)]
pub struct Request {
    /// The text query, and where it goes.
    pub text: Option<Text>,
    /// Every condition of `filter`.
    pub conditions: Vec<Condition>,
    /// `sort`.
    pub sort: Option<Sort>,
    /// `aggregate`'s summaries.
    pub aggregations: Vec<Aggregation>,
    /// Whether the items come back beside the summaries.
    pub include_items: bool,
}

/// A text query.
#[derive(Debug)]
pub struct Text {
    /// As given.
    pub given: String,
    /// Where it goes.
    pub place: TextQuery,
}

/// `sort`.
#[derive(Debug, Clone, Copy)]
pub struct Sort {
    /// The key.
    pub key: Key,
    /// The order.
    pub order: SortOrder,
}

impl Sort {
    /// The upstream params that sort so, when the schema maps the key.
    fn upstream(&self) -> Option<crate::adapter::UpstreamSort> {
        match self.key {
            Key::Field(field) => field.sort,
            Key::Computed(_) => None,
        }
    }
}

/// `VALIDATION_INVALID_VALUE` about `param`.
pub(crate) fn invalid(param: &str, message: String) -> AqlError {
    AqlError::new(ErrorCode::ValidationInvalidValue, message).with_detail("param_name", param)
}

/// Takes the value of `route`'s feature param `param` out of `params`; `None` when the
/// operation has no such feature or the value is null.
pub(crate) fn take_feature(
    route: &Route,
    params: &mut Map<String, Value>,
    param: FeatureParam,
) -> Option<Value> {
    if !route.features.contains(&param) {
        return None;
    }
    params
        .remove(param.as_str())
        .filter(|value| !value.is_null())
}

/// Names for a message: `a, b, c`, or `none`.
pub(crate) fn key_list(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

impl Request {
    /// Takes the query params of `route` (which `query` describes) out of `params` and checks
    /// them; `None` when the request gives none. The operation's params the query sends are
    /// refused here, named after the query key that sends them.
    ///
    /// # Errors
    ///
    /// A hidden param given, a required text query missing, or a malformed query param.
    pub fn take(
        route: &Route,
        query: &'static Query,
        params: &mut Map<String, Value>,
    ) -> Result<Option<Self>, AqlError> {
        // A hidden param whose name a feature param takes (`sort`) arrives as the feature.
        let feature = |key: &str| route.features.iter().any(|param| param.as_str() == key);
        if let Some(hidden) = params
            .keys()
            .find(|key| query.hidden.contains(&key.as_str()) && !feature(key))
        {
            return Err(hidden_param(route, query, hidden));
        }
        let mut take = |param: FeatureParam| take_feature(route, params, param);
        let text = take(FeatureParam::Query);
        let filter = take(FeatureParam::Filter);
        let sort = take(FeatureParam::Sort);
        let aggregate = take(FeatureParam::Aggregate);
        let include_items = take(FeatureParam::IncludeItems);
        let text = match (text, query.text) {
            (Some(Value::String(given)), Some(place)) => {
                if given.trim().is_empty() || given.len() > MAX_TEXT_BYTES {
                    return Err(invalid(
                        "query",
                        format!(
                            "Parameter 'query' is text of 1 to {MAX_TEXT_BYTES} bytes, not blank"
                        ),
                    ));
                }
                Some(Text { given, place })
            }
            (Some(other), Some(_)) => return Err(wrong_type("query", "string", &other)),
            (None, Some(TextQuery::Param { required: true, .. })) => {
                return Err(AqlError::new(
                    ErrorCode::ValidationMissingParam,
                    format!("Missing required parameter 'query' for operation '{}': the text to search for", route.operation),
                )
                .with_detail("param_name", "query")
                .with_detail("expected_type", "string"));
            }
            (_, _) => None,
        };
        let conditions = match filter {
            Some(filter) => filter::parse(filter, query.fields, route.computed)?,
            None => Vec::new(),
        };
        let sort = sort
            .map(|sort| parse_sort(sort, query, route))
            .transpose()?;
        let aggregations = match aggregate {
            Some(aggregate) => aggregate::parse(aggregate, query.fields, route.computed)?,
            None => Vec::new(),
        };
        let include_items = match include_items {
            None => false,
            Some(Value::Bool(flag)) => flag,
            Some(other) => return Err(wrong_type("include_items", "boolean", &other)),
        };
        if include_items && aggregations.is_empty() {
            return Err(invalid(
                "include_items",
                "Parameter 'include_items' goes with 'aggregate': the items come back anyway without it".to_owned(),
            ));
        }
        let request = Self {
            text,
            conditions,
            sort,
            aggregations,
            include_items,
        };
        Ok(request.asks_anything().then_some(request))
    }

    fn asks_anything(&self) -> bool {
        self.text.is_some()
            || !self.conditions.is_empty()
            || self.sort.is_some()
            || !self.aggregations.is_empty()
    }

    /// Whether something must be done here, over a scan: a condition, text query or sort the
    /// upstream does not do, or an aggregation.
    pub fn is_local(&self) -> bool {
        !self.aggregations.is_empty() || self.filters_here() || self.sorts_here()
    }

    /// Whether a condition or the text query is done here.
    pub fn filters_here(&self) -> bool {
        self.conditions.iter().any(|c| c.upstream().is_none())
            || matches!(
                self.text,
                Some(Text {
                    place: TextQuery::Paths(_),
                    ..
                })
            )
    }

    /// Whether the sort is done here.
    pub fn sorts_here(&self) -> bool {
        self.sort.is_some_and(|sort| sort.upstream().is_none())
    }

    /// Whether computed fields must be computed on the scanned items.
    pub fn reads_computed(&self) -> bool {
        self.conditions.iter().any(|c| c.key.is_computed())
            || self.sort.is_some_and(|sort| sort.key.is_computed())
            || self.aggregations.iter().any(|a| {
                a.group_by.is_some_and(|key| key.is_computed())
                    || a.functions
                        .iter()
                        .any(|(_, key)| key.is_some_and(|k| k.is_computed()))
            })
    }

    /// Puts what the upstream does into `params`, under the operation's params.
    pub fn apply_upstream(&self, params: &mut Map<String, Value>) {
        if let Some(Text {
            given,
            place: TextQuery::Param { param, .. },
        }) = &self.text
        {
            params.insert((*param).to_owned(), given.clone().into());
        }
        for condition in &self.conditions {
            if let Some(filter) = condition.upstream() {
                params.insert(
                    filter.param.to_owned(),
                    filter::upstream_value(condition, filter.list),
                );
            }
        }
        if let Some(sort) = &self.sort
            && let Some(upstream) = sort.upstream()
        {
            params.insert(upstream.param.to_owned(), upstream.value.into());
            if let Some((param, asc, desc)) = upstream.order {
                let order = match sort.order {
                    SortOrder::Asc => asc,
                    SortOrder::Desc => desc,
                };
                params.insert(param.to_owned(), order.into());
            }
        }
    }

    /// Whether `item` meets every condition and the text query done here.
    pub fn matches(&self, item: &Value) -> bool {
        let text = match &self.text {
            Some(Text {
                given,
                place: TextQuery::Paths(paths),
            }) => text_matches(given, paths, item),
            _ => true,
        };
        text && self
            .conditions
            .iter()
            .filter(|c| c.upstream().is_none())
            .all(|c| c.holds(item))
    }

    /// Sorts `items` here, when the upstream does not: stably, items without a value last.
    pub fn sort_here(&self, items: &mut [Value]) {
        let Some(sort) = self.sort.filter(|_| self.sorts_here()) else {
            return;
        };
        let first = |item: &Value| -> Option<Scalar> {
            let scalars = sort.key.values(item).scalars;
            match sort.order {
                SortOrder::Asc => scalars.into_iter().min_by(Scalar::compare),
                SortOrder::Desc => scalars.into_iter().max_by(Scalar::compare),
            }
        };
        let mut keyed: Vec<(Option<Scalar>, Value)> = items
            .iter_mut()
            .map(|item| (first(item), std::mem::take(item)))
            .collect();
        keyed.sort_by(|(a, _), (b, _)| match (a, b) {
            (Some(a), Some(b)) => match sort.order {
                SortOrder::Asc => a.compare(b),
                SortOrder::Desc => b.compare(a),
            },
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        for (slot, (_, item)) in items.iter_mut().zip(keyed) {
            *slot = item;
        }
    }

    /// What was done by the upstream and what here, as the answer's `query` reports it.
    pub fn applied(&self) -> (Vec<String>, Vec<String>) {
        let (mut upstream, mut here) = (Vec::new(), Vec::new());
        if let Some(text) = &self.text {
            match text.place {
                TextQuery::Param { .. } => upstream.push("query".to_owned()),
                TextQuery::Paths(_) => here.push("query".to_owned()),
            }
        }
        for condition in &self.conditions {
            match condition.upstream() {
                Some(_) => upstream.push(condition.label()),
                None => here.push(condition.label()),
            }
        }
        if let Some(sort) = &self.sort {
            let label = format!("sort.{}", sort.key.name());
            if self.sorts_here() {
                here.push(label);
            } else {
                upstream.push(label);
            }
        }
        for aggregation in &self.aggregations {
            here.push(format!("aggregate.{}", aggregation.label));
        }
        (upstream, here)
    }
}

/// `VALIDATION_UNKNOWN_PARAM` for an operation param the query sends, given by a caller.
fn hidden_param(route: &Route, query: &Query, hidden: &str) -> AqlError {
    let through = query
        .fields
        .iter()
        .find_map(|field| {
            if field.filter.is_some_and(|f| f.param == hidden) {
                Some(format!("filter: {{{}: ...}}", field.name))
            } else if field
                .sort
                .is_some_and(|s| s.param == hidden || s.order.is_some_and(|o| o.0 == hidden))
            {
                Some(format!("sort: {{field: \"{}\", order}}", field.name))
            } else {
                None
            }
        })
        .unwrap_or_else(|| "query".to_owned());
    AqlError::new(
        ErrorCode::ValidationUnknownParam,
        format!(
            "Unknown parameter(s) for operation '{}': '{}'. It is set through {through}. Valid parameters: {}",
            route.operation,
            shorten(hidden, 64),
            query
                .valid
                .iter()
                .map(|name| format!("'{name}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
    .with_detail("operation", route.operation)
    .with_detail("unknown_params", vec![hidden.to_owned()])
    .with_detail("valid_params", query.valid.to_vec())
}

fn parse_sort(sort: Value, query: &'static Query, route: &Route) -> Result<Sort, AqlError> {
    let sortable: Vec<String> = query
        .fields
        .iter()
        .filter(|field| field.sort.is_some() || (field.path.is_some() && field.kind.is_ordered()))
        .map(|field| field.name.to_owned())
        .chain(
            route
                .computed
                .iter()
                .filter(|field| field.kind.is_ordered())
                .map(|field| Key::Computed(field).name()),
        )
        .collect();
    let Value::Object(mut sort) = sort else {
        return Err(wrong_type("sort", "object {field, order}", &sort));
    };
    if let Some(extra) = sort
        .keys()
        .find(|key| !matches!(key.as_str(), "field" | "order"))
    {
        return Err(invalid(
            "sort",
            format!(
                "Parameter 'sort' takes 'field' and 'order'; got '{}'",
                shorten(extra, 32)
            ),
        ));
    }
    let field = match sort.remove("field") {
        Some(Value::String(field)) => field,
        Some(other) => return Err(wrong_type("sort.field", "string", &other)),
        None => {
            return Err(AqlError::new(
                ErrorCode::ValidationMissingParam,
                format!(
                    "Parameter 'sort' needs 'field': one of {}",
                    key_list(&sortable)
                ),
            )
            .with_detail("param_name", "sort.field"));
        }
    };
    let key = Key::find(&field, query.fields, route.computed)
        .filter(|key| sortable.contains(&key.name()))
        .ok_or_else(|| {
            invalid(
                "sort.field",
                format!(
                    "Parameter 'sort.field' cannot sort by '{}'; it sorts by {}",
                    shorten(&field, 64),
                    key_list(&sortable)
                ),
            )
            .with_detail("valid_fields", sortable.clone())
        })?;
    let order = match sort.remove("order") {
        None | Some(Value::Null) => SortOrder::Asc,
        Some(Value::String(order)) => SortOrder::parse(&order).ok_or_else(|| {
            invalid(
                "sort.order",
                format!(
                    "Parameter 'sort.order' is 'asc' or 'desc', got '{}'",
                    shorten(&order, 32)
                ),
            )
        })?,
        Some(other) => return Err(wrong_type("sort.order", "string", &other)),
    };
    Ok(Sort { key, order })
}

/// Whether any word of `text` is found, ignoring case, in the text at one of `paths`.
fn text_matches(text: &str, paths: &[crate::adapter::JsonPath], item: &Value) -> bool {
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let mut haystack = String::new();
    for path in paths {
        let field = crate::computed::field(item, path);
        collect_text(field.as_ref(), &mut haystack);
    }
    let haystack = haystack.to_lowercase();
    words.iter().any(|word| haystack.contains(word.as_str()))
}

fn collect_text(value: Option<&Value>, out: &mut String) {
    match value {
        Some(Value::String(text)) => {
            out.push_str(text);
            out.push('\n');
        }
        Some(Value::Array(items)) => items.iter().for_each(|item| collect_text(Some(item), out)),
        _ => {}
    }
}

/// Which bound stopped a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Pages read.
    Pages,
    /// Items read.
    Items,
    /// Bytes read.
    Bytes,
    /// Time spent.
    Time,
}

impl Bound {
    fn name(self) -> &'static str {
        match self {
            Self::Pages => "max_pages",
            Self::Items => "max_items",
            Self::Bytes => "max_bytes",
            Self::Time => "max_seconds",
        }
    }
}

/// A scan of upstream pages under its bounds: what it read so far.
#[derive(Debug)]
pub struct Scan {
    limits: ScanLimits,
    started: Instant,
    /// Pages read.
    pub pages: u64,
    /// Items read.
    pub items: u64,
    /// Bytes read.
    pub bytes: u64,
    /// The bound that stopped it, if one did.
    pub stopped: Option<Bound>,
}

impl Scan {
    /// A scan under `limits`, starting now.
    pub fn new(limits: ScanLimits) -> Self {
        Self {
            limits,
            started: Instant::now(),
            pages: 0,
            items: 0,
            bytes: 0,
            stopped: None,
        }
    }

    /// Counts one page of `items` items and `bytes` bytes.
    pub fn read(&mut self, items: usize, bytes: usize) {
        self.pages += 1;
        self.items = self.items.saturating_add(items as u64);
        self.bytes = self.bytes.saturating_add(bytes as u64);
    }

    /// The bound the scan has reached, if any: no next page is read past it.
    pub fn reached(&self) -> Option<Bound> {
        if self.pages >= self.limits.max_pages {
            Some(Bound::Pages)
        } else if self.items >= self.limits.max_items {
            Some(Bound::Items)
        } else if self.bytes >= self.limits.max_bytes {
            Some(Bound::Bytes)
        } else if self.started.elapsed() >= Duration::from_secs(self.limits.max_seconds) {
            Some(Bound::Time)
        } else {
            None
        }
    }

    /// The page size to ask for: never more items than the bound leaves.
    pub fn page_size(&self, max_limit: u64) -> u64 {
        max_limit
            .min(self.limits.max_items.saturating_sub(self.items))
            .max(1)
    }

    /// The bound's value.
    fn limit(&self, bound: Bound) -> u64 {
        match bound {
            Bound::Pages => self.limits.max_pages,
            Bound::Items => self.limits.max_items,
            Bound::Bytes => self.limits.max_bytes,
            Bound::Time => self.limits.max_seconds,
        }
    }

    /// The answer's `query` report.
    pub fn report(&self, request: &Request, complete: bool) -> Value {
        let (upstream, here) = request.applied();
        json!({
            "upstream": upstream,
            "local": here,
            "scanned": {"pages": self.pages, "items": self.items, "bytes": self.bytes},
            "complete": complete,
        })
    }

    /// The warning that a bound cut the scan short (warnings §4.3).
    pub fn truncated(&self, operation: &str) -> Option<Warning> {
        let bound = self.stopped?;
        let limit = self.limit(bound);
        Some(
            Warning::new(
                "VALIDATION_TRUNCATED_WARNING",
                format!(
                    "The query read {} items in {} pages before reaching its bound {} ({limit}); the answer covers those only. Narrow the filter, or let the API filter more",
                    self.items,
                    self.pages,
                    bound.name()
                ),
            )
            .with_severity(Severity::Medium)
            .with_detail("field", "items")
            .with_detail("operation", operation)
            .with_detail("truncated_count", self.items)
            .with_detail("limit", limit)
            .with_detail("bound", bound.name())
            .with_detail("complete", false),
        )
    }
}

/// What the tests of the query's parts run on.
#[cfg(test)]
pub(super) mod fixtures {
    use crate::adapter::{FieldKind, Operator, QueryField, UpstreamFilter};

    /// The query fields of an issue list: `state` only the API filters by, `label` filtered
    /// there and found in `labels[].name`, and two fields of the items themselves.
    pub static ISSUE_FIELDS: &[QueryField] = &[
        QueryField {
            name: "state",
            path: None,
            kind: FieldKind::String,
            filter: Some(UpstreamFilter {
                param: "state",
                operator: Operator::Eq,
                list: false,
            }),
            sort: None,
        },
        QueryField {
            name: "label",
            path: Some(&["labels", "name"]),
            kind: FieldKind::String,
            filter: Some(UpstreamFilter {
                param: "labels",
                operator: Operator::Contains,
                list: false,
            }),
            sort: None,
        },
        QueryField {
            name: "comments",
            path: Some(&["comments"]),
            kind: FieldKind::Integer,
            filter: None,
            sort: None,
        },
        QueryField {
            name: "title",
            path: Some(&["title"]),
            kind: FieldKind::String,
            filter: None,
            sort: None,
        },
    ];
}
