//! The protocol features an operation can carry beside its schema params (operations §4.4.1):
//! the params that switch them on and the field-selection presets. The generator lists these
//! params in each operation's introspection; the runtime takes them out of a request before
//! the operation's own params are checked.

use crate::{Category, vocabulary};

vocabulary! {
    /// A param the protocol adds to an operation.
    pub enum FeatureParam ("feature param") {
        /// Collection querying: a text query (collection-querying §2.1).
        Query = "query",
        /// Collection querying: conditions on the query fields (collection-querying §2.2).
        Filter = "filter",
        /// Collection querying: `{field, order}` (collection-querying §2.3).
        Sort = "sort",
        /// Aggregations: named summaries of the matching items (aggregations §2).
        Aggregate = "aggregate",
        /// Aggregations: the matching items beside the summaries (aggregations §3).
        IncludeItems = "include_items",
        /// Field selection: a preset name or a list of dot paths (field-selection §2).
        Fields = "fields",
        /// Field selection's compatibility alias of a preset name (field-selection §2.3).
        Preset = "preset",
        /// Cursor pagination: the page size (pagination §2).
        First = "first",
        /// Cursor pagination: resume after this cursor.
        After = "after",
        /// Cursor pagination backwards: the page size.
        Last = "last",
        /// Cursor pagination backwards: the items before this cursor.
        Before = "before",
        /// Optimistic concurrency: the ETag the change is conditional on (SPEC §9.3.2).
        IfMatch = "if_match",
        /// Validate and pass the gate, show the request, send nothing (operations §4.4.1).
        DryRun = "dry_run",
    }
}

/// What an operation offers beside its own params, from which its feature params follow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offers {
    /// Field selection.
    pub fields: bool,
    /// Cursor pagination.
    pub paginated: bool,
    /// A text query.
    pub text: bool,
    /// Filtering by query fields.
    pub filter: bool,
    /// Sorting by query fields.
    pub sort: bool,
    /// Aggregations over query fields.
    pub aggregate: bool,
}

impl FeatureParam {
    /// The feature params of an operation of `category` that offers `offers`, in the order
    /// introspection lists them.
    pub fn for_operation(category: Category, offers: Offers) -> Vec<Self> {
        let mut params = Vec::new();
        if offers.text {
            params.push(Self::Query);
        }
        if offers.filter {
            params.push(Self::Filter);
        }
        if offers.sort {
            params.push(Self::Sort);
        }
        if offers.aggregate {
            params.extend([Self::Aggregate, Self::IncludeItems]);
        }
        if offers.fields {
            params.extend([Self::Fields, Self::Preset]);
        }
        if offers.paginated {
            params.extend([Self::First, Self::After, Self::Last, Self::Before]);
        }
        if matches!(category, Category::Update | Category::Delete) {
            params.push(Self::IfMatch);
        }
        if category != Category::Read {
            params.push(Self::DryRun);
        }
        params
    }
}

vocabulary! {
    /// The field-selection presets every operation with `fields` knows (field-selection §3.1).
    pub enum Preset ("field preset") {
        /// Identifying fields only.
        Minimal = "minimal",
        /// The fields of a typical listing.
        Standard = "standard",
        /// Every field.
        Full = "full",
    }
}

/// Members of an answer object that hold a list's items, most likely first: where the
/// runtime unwraps a page from, and what the importer derives a list's presets from.
pub const COLLECTION_MEMBERS: &[&str] = &[
    "items", "data", "results", "values", "entries", "records", "nodes",
];

/// Longest dot path field selection accepts.
pub const MAX_FIELD_PATH_BYTES: usize = 256;

/// The fields an undeclared `minimal` preset keeps, when an item has them.
pub const IDENTIFYING_FIELDS: &[&str] = &[
    "id",
    "uuid",
    "key",
    "number",
    "name",
    "title",
    "login",
    "full_name",
    "slug",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_params_follow_the_category() {
        use FeatureParam::*;
        let read = Offers {
            fields: true,
            paginated: true,
            ..Offers::default()
        };
        assert_eq!(
            FeatureParam::for_operation(Category::Read, read),
            [Fields, Preset, First, After, Last, Before]
        );
        let query = Offers {
            text: true,
            filter: true,
            sort: true,
            aggregate: true,
            ..read
        };
        assert_eq!(
            FeatureParam::for_operation(Category::Read, query)[..5],
            [Query, Filter, Sort, Aggregate, IncludeItems]
        );
        assert_eq!(
            FeatureParam::for_operation(Category::Update, Offers::default()),
            [IfMatch, DryRun]
        );
        assert_eq!(
            FeatureParam::for_operation(Category::Create, Offers::default()),
            [DryRun]
        );
        assert!(FeatureParam::for_operation(Category::Read, Offers::default()).is_empty());
    }
}
