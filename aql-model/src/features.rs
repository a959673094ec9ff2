//! The protocol features an operation can carry beside its schema params (operations §4.4.1):
//! the params that switch them on and the field-selection presets. The generator lists these
//! params in each operation's introspection; the runtime takes them out of a request before
//! the operation's own params are checked.

use crate::{Category, vocabulary};

vocabulary! {
    /// A param the protocol adds to an operation.
    pub enum FeatureParam ("feature param") {
        /// Field selection: a preset name or a list of dot paths (field-selection §2).
        Fields = "fields",
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

impl FeatureParam {
    /// The feature params of an operation of `category` that supports field selection
    /// and pagination as given, in the order introspection lists them.
    pub fn for_operation(category: Category, fields: bool, paginated: bool) -> Vec<Self> {
        let mut params = Vec::new();
        if fields {
            params.push(Self::Fields);
        }
        if paginated {
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
        assert_eq!(
            FeatureParam::for_operation(Category::Read, true, true),
            [Fields, First, After, Last, Before]
        );
        assert_eq!(
            FeatureParam::for_operation(Category::Update, false, false),
            [IfMatch, DryRun]
        );
        assert_eq!(
            FeatureParam::for_operation(Category::Create, false, false),
            [DryRun]
        );
        assert!(FeatureParam::for_operation(Category::Read, false, false).is_empty());
    }
}
