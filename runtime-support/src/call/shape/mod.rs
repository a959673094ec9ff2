//! The protocol features that shape a request and its answer (operations §4.4.1): field
//! selection, cursor pagination, conditional updates and dry runs. [`Plan::take`] takes their
//! params out of a request before the operation's own params are checked; [`Plan::shape`]
//! turns the upstream's answer into what the request asked for.

pub mod cursor;
pub mod fields;
pub mod pages;

use serde_json::{Map, Value};

use crate::adapter::{ComputedField, FeatureParam, Route};
use crate::call::Data;
use crate::call::upstream::Answer;
use crate::error::{AqlError, ErrorCode};
use crate::params::wrong_type;
use crate::warning::Warning;
use cursor::Cursors;
use fields::{Chosen, ETAG_MEMBER, Selection};
use pages::PageRequest;

/// Longest `if_match` accepted.
const MAX_ETAG_BYTES: usize = 512;

/// What one request's feature params ask for.
#[derive(Debug, Default)]
pub struct Plan {
    /// The fields to keep, on operations with field selection.
    pub selection: Option<Selection>,
    /// Whether the request named its fields (`fields`), rather than taking the default.
    pub fields_given: bool,
    /// The computed fields it asked for, added to each item before selecting.
    pub computed: Vec<&'static ComputedField>,
    /// The page asked for, on paginated operations.
    pub page: Option<PageRequest>,
    /// The `If-Match` precondition of a conditional change.
    pub if_match: Option<String>,
    /// Whether to stop before the upstream call and show the request instead.
    pub dry_run: bool,
    /// Warnings raised while reading the params (a clamped page size).
    pub warnings: Vec<Warning>,
}

impl Plan {
    /// Takes the feature params of `route` out of `params` and checks them; for a paginated
    /// operation, puts the upstream's paging params in.
    ///
    /// # Errors
    ///
    /// The first feature param that is malformed, as the client will see it.
    pub fn take(
        route: &Route,
        params: &mut Map<String, Value>,
        cursors: &Cursors,
    ) -> Result<Self, AqlError> {
        let mut plan = Self::default();
        let mut window = pages::Window::default();
        let (mut fields, mut preset) = (None, None);
        for &feature in route.features {
            let mut take = || params.remove(feature.as_str());
            match feature {
                // Taken before, by the query: what is left under one of these names is an
                // upstream param the query put in (GitHub's own `sort`).
                FeatureParam::Query
                | FeatureParam::Filter
                | FeatureParam::Sort
                | FeatureParam::Aggregate
                | FeatureParam::IncludeItems => {}
                FeatureParam::Fields => fields = take(),
                FeatureParam::Preset => preset = take(),
                FeatureParam::First => window.first = take(),
                FeatureParam::After => window.after = take(),
                FeatureParam::Last => window.last = take(),
                FeatureParam::Before => window.before = take(),
                FeatureParam::IfMatch => plan.if_match = if_match(take())?,
                FeatureParam::DryRun => plan.dry_run = flag(take(), "dry_run")?,
            }
        }
        if let Some(presets) = route.fields {
            let chosen =
                Chosen::parse(fields, preset, presets, route.computed, &mut plan.warnings)?;
            plan.fields_given = chosen.given;
            plan.computed = chosen.computed;
            plan.selection = Some(chosen.selection);
        }
        if let Some(paging) = route.paging {
            plan.page = Some(PageRequest::resolve(
                paging,
                route.operation,
                params,
                window,
                cursors,
                &mut plan.warnings,
            )?);
        }
        Ok(plan)
    }

    /// Whether the answer is needed as a value, not only as text.
    fn reshapes(&self, answer: &Answer) -> bool {
        self.page.is_some()
            || matches!(self.selection, Some(Selection::Paths { .. }))
            || !self.computed.is_empty()
            || answer.etag.is_some()
    }

    /// The answer the request asked for: paged, its fields selected, its ETag as `_etag`.
    /// A request that names its fields gets only those (field-selection §2): `_etag` among
    /// them when it lists `_etag`.
    pub fn shape(
        &mut self,
        answer: Answer,
        operation: &str,
        cursors: &Cursors,
    ) -> (Data, Vec<Warning>) {
        let mut warnings = std::mem::take(&mut self.warnings);
        if !self.reshapes(&answer) {
            return (Data::Text(answer.body), warnings);
        }
        let Ok(mut data) = serde_json::from_str::<Value>(&answer.body) else {
            return (Data::Text(answer.body), warnings);
        };
        if let Some(page) = &self.page {
            data = page.wrap(data, answer.link.as_deref(), operation, cursors);
        }
        let mut etag = answer.etag.filter(|_| self.page.is_none());
        if self.fields_given {
            add_etag(&mut data, etag.take());
        }
        let now = i64::try_from(crate::clock::unix_seconds(std::time::SystemTime::now()))
            .unwrap_or(i64::MAX);
        if let Some(selection) = &self.selection {
            let items = match data.get_mut("items").filter(|_| self.page.is_some()) {
                Some(items) => items,
                None => &mut data,
            };
            fields::add_computed(items, &self.computed, now);
            selection.apply(items, &mut warnings);
        }
        add_etag(&mut data, etag);
        (Data::Value(data), warnings)
    }
}

/// Puts `etag` in `data`, a single item, as `_etag` (SPEC §9.3.2).
fn add_etag(data: &mut Value, etag: Option<String>) {
    if let (Some(etag), Value::Object(object)) = (etag, data) {
        object.insert(ETAG_MEMBER.to_owned(), etag.into());
    }
}

/// `if_match`: an ETag as the upstream sent it.
fn if_match(value: Option<Value>) -> Result<Option<String>, AqlError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(etag))
            if !etag.is_empty()
                && etag.len() <= MAX_ETAG_BYTES
                && etag.bytes().all(|b| (0x20..0x7f).contains(&b)) =>
        {
            Ok(Some(etag))
        }
        Some(Value::String(_)) => Err(AqlError::new(
            ErrorCode::ValidationInvalidValue,
            format!(
                "Parameter 'if_match' must be an ETag as a read returned it in '_etag' (printable ASCII, up to {MAX_ETAG_BYTES} bytes)"
            ),
        )
        .with_detail("param_name", "if_match")),
        Some(other) => Err(wrong_type("if_match", "string", &other)),
    }
}

fn flag(value: Option<Value>, name: &'static str) -> Result<bool, AqlError> {
    match value {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(flag)) => Ok(flag),
        Some(other) => Err(wrong_type(name, "boolean", &other)),
    }
}
