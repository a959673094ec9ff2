//! Which protocol features an operation gets (operations §4.4.1), decided once for both
//! validation, which reports a feature the schema asks for but cannot have, and lowering,
//! which emits what is decided.
//!
//! * **Field selection** when `supports_fields: true`, with the presets of `response.presets`.
//! * **Cursor pagination** (`first`/`after`) when a `pagination` block is present: the
//!   upstream params its style needs are found among the operation's params by their usual
//!   names, and where the block names a style and the schema declares no such param, the
//!   style's conventional one is implied (`page` and `per_page`, `offset` and `limit`,
//!   `cursor` and `limit`); backwards too (`last`/`before`) over page numbers and offsets.
//! * **`if_match`** on UPDATE and DELETE, **`dry_run`** on every operation that is not a READ.
//!
//! A feature whose param name the operation already uses for one of its own params is off:
//! the schema's param goes to the upstream as before. Pagination's own upstream params are
//! the exception (an upstream cursor param called `after` is what `after` becomes).

use aqlgen_model::{Category, FeatureParam, Offers, Preset};
use serde_json::Value;

use crate::schema::{Operation, PaginationStyle, Param, ParamType};

/// Upstream page-number params, most likely first.
const PAGE_PARAMS: &[&str] = &["page", "page_number", "page_no"];
/// Upstream offset params.
const OFFSET_PARAMS: &[&str] = &["offset", "skip", "start"];
/// Upstream cursor params.
const CURSOR_PARAMS: &[&str] = &[
    "cursor",
    "after",
    "page_token",
    "next_token",
    "starting_after",
    "continuation_token",
    "marker",
    "next",
];
/// Upstream page-size params.
const SIZE_PARAMS: &[&str] = &[
    "per_page",
    "page_size",
    "limit",
    "max_results",
    "count",
    "size",
    "first",
];
/// Page size when neither the schema nor the size param says (pagination §5.2).
const DEFAULT_LIMIT: u64 = 20;
/// Largest page size when neither the schema nor the size param says (pagination §5.3).
const MAX_LIMIT: u64 = 100;

/// What an operation gets.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Features {
    /// Field selection, with the declared presets.
    pub fields: Option<Fields>,
    /// Cursor pagination.
    pub paging: Option<Paging>,
    /// The feature params offered, in introspection order.
    pub params: Vec<FeatureParam>,
    /// Why a feature the schema asks for is off: `(field path under the operation, reason)`.
    pub off: Vec<(&'static str, String)>,
}

/// Field selection of one operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields {
    /// Declared presets, by name.
    pub presets: Vec<(String, Vec<String>)>,
    /// The preset applied when none is named.
    pub default: Preset,
}

/// Cursor pagination of one operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Paging {
    /// The upstream params a page is addressed with.
    pub style: PageStyle,
    /// Page size without `first`.
    pub default_limit: u64,
    /// Largest page size.
    pub max_limit: u64,
    /// Upstream params of the style the schema does not declare, by their conventional
    /// names: the operation takes them as optional params of its own.
    pub implied: Vec<ImpliedParam>,
}

/// An upstream paging param implied by a `pagination` block's style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImpliedParam {
    /// Its conventional name.
    pub name: &'static str,
    /// What it carries.
    pub role: PageRole,
}

/// What an upstream paging param carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageRole {
    /// A page number, from 1.
    Page,
    /// Items to skip.
    Offset,
    /// The upstream's cursor.
    Cursor,
    /// Items per page.
    Size,
}

impl PaginationStyle {
    /// The upstream params a style conventionally uses (pagination §3): position, then size.
    const fn conventional(self) -> [ImpliedParam; 2] {
        let size = ImpliedParam {
            name: "limit",
            role: PageRole::Size,
        };
        match self {
            Self::Page => [
                ImpliedParam {
                    name: "page",
                    role: PageRole::Page,
                },
                ImpliedParam {
                    name: "per_page",
                    role: PageRole::Size,
                },
            ],
            Self::Offset => [
                ImpliedParam {
                    name: "offset",
                    role: PageRole::Offset,
                },
                size,
            ],
            Self::Cursor => [
                ImpliedParam {
                    name: "cursor",
                    role: PageRole::Cursor,
                },
                size,
            ],
        }
    }
}

/// How the upstream addresses a page, by param names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageStyle {
    /// Page number and size.
    Page {
        /// Page-number param.
        page: String,
        /// Page-size param.
        size: String,
    },
    /// Offset and size.
    Offset {
        /// Offset param.
        offset: String,
        /// Page-size param.
        size: String,
    },
    /// Upstream cursor and size.
    Cursor {
        /// Cursor param.
        cursor: String,
        /// Page-size param.
        size: String,
    },
}

impl PageStyle {
    /// The upstream params a page is addressed with: position, then size.
    pub fn params(&self) -> [&str; 2] {
        match self {
            Self::Page { page, size } => [page, size],
            Self::Offset { offset, size } => [offset, size],
            Self::Cursor { cursor, size } => [cursor, size],
        }
    }
}

/// The features of `operation`, a valid operation of `category`.
pub fn resolve(category: Category, operation: &Operation) -> Features {
    let mut features = Features::default();
    let paging = operation.pagination.as_ref().map(|pagination| {
        let (style, implied) = page_style(pagination.style, operation)?;
        let size = operation.params.get(style.params()[1]);
        let max = [
            pagination.max_limit,
            size.and_then(|size| size.maximum).map(|max| max as u64),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(MAX_LIMIT)
        .max(1);
        let default = pagination
            .default_limit
            .or_else(|| size.and_then(|size| size.default.as_ref()?.as_u64()))
            .unwrap_or(DEFAULT_LIMIT)
            .clamp(1, max);
        let taken: Vec<&str> = [FeatureParam::First, FeatureParam::After]
            .iter()
            .map(|param| param.as_str())
            .filter(|name| operation.params.contains_key(*name) && !style.params().contains(name))
            .collect();
        if !taken.is_empty() {
            return Err(format!(
                "the operation's own param `{}` takes a name cursor pagination needs, so `first`/`after` are not offered",
                taken.join("`, `")
            ));
        }
        Ok(Paging {
            style,
            default_limit: default,
            max_limit: max,
            implied,
        })
    });
    match paging {
        Some(Ok(paging)) => features.paging = Some(paging),
        Some(Err(reason)) => features.off.push(("pagination", reason)),
        None => {}
    }
    let wants_fields = category == Category::Read || operation.supports_fields == Some(true);
    if wants_fields {
        if operation.params.contains_key(FeatureParam::Fields.as_str()) {
            if operation.supports_fields == Some(true) {
                features.off.push((
                    "supports_fields",
                    "the operation's own param `fields` takes the name field selection needs, so selection is not offered".to_owned(),
                ));
            }
        } else {
            let collection = features.paging.is_some()
                || ["list_", "search_"]
                    .iter()
                    .any(|prefix| operation.name.starts_with(prefix));
            features.fields = Some(Fields {
                presets: operation
                    .response
                    .as_ref()
                    .and_then(|response| response.presets.as_ref())
                    .map(declared_presets)
                    .unwrap_or_default(),
                // field-selection §3.2: a search answers `minimal`, a list `standard`, one
                // item `full`.
                default: if operation.name.starts_with("search_") {
                    Preset::Minimal
                } else if collection {
                    Preset::Standard
                } else {
                    Preset::Full
                },
            });
        }
    }
    let query = operation
        .query
        .as_ref()
        .filter(|_| category == Category::Read);
    let offers = Offers {
        fields: features.fields.is_some(),
        paginated: features.paging.is_some(),
        text: query.is_some_and(|query| query.text.is_some()),
        filter: query.is_some_and(|query| {
            query
                .fields
                .values()
                .any(|field| field.path.is_some() || field.filter.is_some())
        }),
        sort: query.is_some_and(|query| {
            query
                .fields
                .values()
                .any(|field| field.path.is_some() || field.sort.is_some())
        }),
        aggregate: query
            .is_some_and(|query| query.fields.values().any(|field| field.path.is_some())),
    };
    let hidden = hidden_params(operation);
    features.params = FeatureParam::for_operation(category, offers)
        .into_iter()
        .filter(|param| match param {
            FeatureParam::IfMatch | FeatureParam::DryRun | FeatureParam::Preset => {
                !operation.params.contains_key(param.as_str())
            }
            // The query's keys take their names from the operation's own params only where
            // the query sends those params itself.
            FeatureParam::Query
            | FeatureParam::Filter
            | FeatureParam::Sort
            | FeatureParam::Aggregate
            | FeatureParam::IncludeItems => {
                let name = param.as_str();
                let free = !operation.params.contains_key(name) || hidden.contains(&name);
                if !free {
                    features.off.push((
                        "query",
                        format!("the operation's own param `{name}` takes the name the query's `{name}` needs, so `{name}` is not offered"),
                    ));
                }
                free
            }
            // Backward paging needs an upstream that can be addressed by position, and names
            // the operation's own params leave free.
            FeatureParam::Last | FeatureParam::Before => {
                features.paging.as_ref().is_some_and(|paging| {
                    !matches!(paging.style, PageStyle::Cursor { .. })
                        && !operation.params.contains_key(param.as_str())
                })
            }
            _ => true,
        })
        .collect();
    features
}

/// The operation's params its `query` sends (the text's, each filter's and sort's): callers
/// reach them through `query`, `filter` and `sort` only.
pub fn hidden_params(operation: &Operation) -> Vec<&str> {
    let Some(query) = &operation.query else {
        return Vec::new();
    };
    let mut hidden: Vec<&str> = query
        .text
        .iter()
        .filter_map(|text| text.param.as_deref())
        .collect();
    for field in query.fields.values() {
        hidden.extend(field.filter.iter().map(|filter| filter.param.as_str()));
        if let Some(sort) = &field.sort {
            hidden.push(&sort.param);
            hidden.extend(sort.order.as_deref());
        }
    }
    hidden.sort_unstable();
    hidden.dedup();
    hidden
}

/// The upstream params of a `pagination` block's style (inferred from the params when the
/// block names none) and those of them implied by the style's convention, or why there are
/// none.
fn page_style(
    style: Option<PaginationStyle>,
    operation: &Operation,
) -> Result<(PageStyle, Vec<ImpliedParam>), String> {
    let find = |names: &[&str], want: fn(ParamType) -> bool| {
        names
            .iter()
            .find(|name| {
                operation
                    .params
                    .get(**name)
                    .is_some_and(|param: &Param| want(param.kind) && param.required != Some(true))
            })
            .map(|name| (*name).to_owned())
    };
    let whole = |ty: ParamType| matches!(ty, ParamType::Integer | ParamType::Number);
    let text = |ty: ParamType| ty == ParamType::String;
    let size = find(SIZE_PARAMS, whole);
    let page = || find(PAGE_PARAMS, whole);
    let offset = || find(OFFSET_PARAMS, whole);
    let cursor = || find(CURSOR_PARAMS, text);
    let declared = style;
    let style = style.or_else(|| {
        if page().is_some() {
            Some(PaginationStyle::Page)
        } else if offset().is_some() {
            Some(PaginationStyle::Offset)
        } else if cursor().is_some() {
            Some(PaginationStyle::Cursor)
        } else {
            None
        }
    });
    let Some(style) = style else {
        return Err(format!(
            "no `style` and no optional page ({}), offset ({}) or cursor ({}) param to tell \
             how the API pages, so `first`/`after` are not offered; give `style: page`, \
             `offset` or `cursor`",
            PAGE_PARAMS.join(", "),
            OFFSET_PARAMS.join(", "),
            CURSOR_PARAMS.join(", ")
        ));
    };
    let found_position = match style {
        PaginationStyle::Page => page(),
        PaginationStyle::Offset => offset(),
        PaginationStyle::Cursor => cursor(),
    };
    let [position_convention, size_convention] = style.conventional();
    let mut implied = Vec::new();
    // Only a style the block names implies params: inferred from params, it found them.
    let mut take = |found: Option<String>, convention: ImpliedParam| match found {
        Some(name) => Ok(name),
        None if declared.is_some() => {
            let clashes = operation
                .params
                .keys()
                .any(|name| crate::ident::field_name(name) == convention.name);
            if clashes {
                Err(format!(
                    "`style: {style}` pages with the param `{}`, which the operation declares as \
                     something else (required, of another type, or a name that spells the same \
                     in Rust), so `first`/`after` are not offered",
                    convention.name
                ))
            } else {
                implied.push(convention);
                Ok(convention.name.to_owned())
            }
        }
        None => Err(format!(
            "no optional integer page-size param ({}), so `first`/`after` are not offered",
            SIZE_PARAMS.join(", ")
        )),
    };
    let position = take(found_position, position_convention)?;
    let size = take(size, size_convention)?;
    let style = match style {
        PaginationStyle::Page => PageStyle::Page {
            page: position,
            size,
        },
        PaginationStyle::Offset => PageStyle::Offset {
            offset: position,
            size,
        },
        PaginationStyle::Cursor => PageStyle::Cursor {
            cursor: position,
            size,
        },
    };
    Ok((style, implied))
}

/// `response.presets` of a valid schema.
fn declared_presets(presets: &Value) -> Vec<(String, Vec<String>)> {
    presets
        .as_object()
        .map(|presets| {
            presets
                .iter()
                .map(|(name, paths)| {
                    let paths = paths
                        .as_array()
                        .map(|paths| {
                            paths
                                .iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default();
                    (name.clone(), paths)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What is wrong with a `response.presets` value, if anything: `(path suffix, message,
/// expected)`.
pub fn check_presets(presets: &Value) -> Option<(String, String, &'static str)> {
    let Some(presets) = presets.as_object() else {
        return Some((
            String::new(),
            "`presets` is not a map of preset names to lists of fields".to_owned(),
            "a map such as `minimal: [id, name]`",
        ));
    };
    for (name, paths) in presets {
        let valid_name = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !valid_name || name == Preset::Full.as_str() {
            return Some((
                format!(".{name}"),
                format!("`{name}` cannot name a preset"),
                "a snake_case name other than `full`, which is always every field",
            ));
        }
        let Some(paths) = paths.as_array().filter(|paths| !paths.is_empty()) else {
            return Some((
                format!(".{name}"),
                format!("preset `{name}` is not a non-empty list of fields"),
                "a list of dot paths such as [id, owner.login]",
            ));
        };
        for path in paths {
            let valid = path.as_str().is_some_and(|path| {
                !path.is_empty() && path.split('.').all(|member| !member.is_empty())
            });
            if !valid {
                return Some((
                    format!(".{name}"),
                    format!("preset `{name}` holds {path}, which is not a dot path"),
                    "dot paths such as `owner.login`: members separated by `.`, none empty",
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operation(yaml: &str) -> Operation {
        serde_yaml::from_str(yaml).expect("an operation")
    }

    #[test]
    fn pagination_styles_are_found_by_param_names() {
        let github = operation(
            "{name: list_issues, maps_to: GET /issues, pagination: {style: page, default_limit: 30, max_limit: 100},
              params: {per_page: {type: integer, maximum: 50}, page: {type: integer}}, supports_fields: true}",
        );
        let features = resolve(Category::Read, &github);
        assert_eq!(
            features.paging,
            Some(Paging {
                style: PageStyle::Page {
                    page: "page".into(),
                    size: "per_page".into()
                },
                default_limit: 30,
                max_limit: 50,
                implied: Vec::new(),
            })
        );
        assert_eq!(
            features.params,
            [
                FeatureParam::Fields,
                FeatureParam::Preset,
                FeatureParam::First,
                FeatureParam::After,
                FeatureParam::Last,
                FeatureParam::Before
            ]
        );
        assert_eq!(features.fields.expect("fields").default, Preset::Standard);

        let cursor = operation(
            "{name: activity, maps_to: GET /a, pagination: {}, params: {after: {type: string}, limit: {type: integer, default: 2}}}",
        );
        let features = resolve(Category::Read, &cursor);
        assert_eq!(
            features.params,
            [
                FeatureParam::Fields,
                FeatureParam::Preset,
                FeatureParam::First,
                FeatureParam::After
            ],
            "every read selects fields; an upstream cursor goes forward only"
        );
        let paging = features.paging.expect("paged");
        assert_eq!(
            paging.style,
            PageStyle::Cursor {
                cursor: "after".into(),
                size: "limit".into()
            }
        );
        assert_eq!((paging.default_limit, paging.max_limit), (2, 100));
    }

    #[test]
    fn features_give_way_to_the_operations_own_params() {
        let taken = operation(
            "{name: list_x, maps_to: GET /x, pagination: {style: offset}, supports_fields: true,
              params: {offset: {type: integer}, limit: {type: integer}, first: {type: string}, fields: {type: string}}}",
        );
        let features = resolve(Category::Read, &taken);
        assert!(features.paging.is_none() && features.fields.is_none());
        assert_eq!(features.off.len(), 2);
        let unpageable = operation("{name: list_y, maps_to: GET /y, pagination: {}}");
        assert_eq!(resolve(Category::Read, &unpageable).off[0].0, "pagination");
        let dry = operation("{name: make, maps_to: POST /m, params: {dry_run: {type: boolean}}}");
        assert!(resolve(Category::Create, &dry).params.is_empty());
        let update = operation("{name: edit, maps_to: PATCH /e}");
        assert_eq!(
            resolve(Category::Update, &update).params,
            [FeatureParam::IfMatch, FeatureParam::DryRun]
        );
    }

    /// A block that names a style pages whatever the schema declares: the style's
    /// conventional upstream params fill in what is not declared.
    #[test]
    fn a_style_implies_its_conventional_params() {
        // The official adapter schema's own example: a block, no params.
        let bare = operation(
            "{name: list_items, maps_to: GET /items, pagination: {style: offset, default_limit: 25, max_limit: 100}}",
        );
        let paging = resolve(Category::Read, &bare).paging.expect("paged");
        assert_eq!(
            paging.style,
            PageStyle::Offset {
                offset: "offset".into(),
                size: "limit".into()
            }
        );
        assert_eq!((paging.default_limit, paging.max_limit), (25, 100));
        assert_eq!(
            paging.implied,
            [
                ImpliedParam {
                    name: "offset",
                    role: PageRole::Offset
                },
                ImpliedParam {
                    name: "limit",
                    role: PageRole::Size
                }
            ]
        );
        // A forge whose list takes `page` and `limit` but declares only `limit`.
        let forge = operation(
            "{name: list_issues, maps_to: GET /issues, pagination: {style: page}, params: {limit: {type: integer, maximum: 50}}}",
        );
        let paging = resolve(Category::Read, &forge).paging.expect("paged");
        assert_eq!(
            paging.style,
            PageStyle::Page {
                page: "page".into(),
                size: "limit".into()
            }
        );
        assert_eq!(paging.implied.len(), 1);
        assert_eq!(paging.max_limit, 50);
        // The conventional name declared as something else: nothing sensible to infer.
        let clash = operation(
            "{name: list_z, maps_to: GET /z, pagination: {style: cursor}, params: {cursor: {type: integer}}}",
        );
        assert_eq!(resolve(Category::Read, &clash).off[0].0, "pagination");
    }

    #[test]
    fn presets_are_checked() {
        let check = |yaml: &str| check_presets(&serde_yaml::from_str(yaml).expect("yaml"));
        assert!(check("{minimal: [id, owner.login], contact: [email]}").is_none());
        assert!(check("[id]").is_some());
        assert!(check("{full: [id]}").is_some());
        assert!(check("{Minimal: [id]}").is_some());
        assert!(check("{minimal: []}").is_some());
        assert!(check("{minimal: [a..b]}").is_some());
        assert!(check("{minimal: [1]}").is_some());
    }
}
