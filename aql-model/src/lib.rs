//! The MCP-AQL vocabulary that the generator and the runtime share: semantic categories,
//! upstream methods, danger levels, trust levels and the gating matrix that combines the last
//! two. One definition on both sides, so the names a schema uses and the names a server
//! enforces cannot drift apart.
//!
//! ```
//! use aqlgen_model::{Category, DangerLevel, Outcome, TrustLevel, Vocabulary};
//!
//! assert_eq!(DangerLevel::parse("destructive"), Some(DangerLevel::Destructive));
//! assert_eq!(TrustLevel::parse("medium"), Some(TrustLevel::Validated));
//! assert_eq!(
//!     aqlgen_model::outcome(DangerLevel::Destructive, TrustLevel::Validated),
//!     Outcome::Confirm
//! );
//! assert_eq!(DangerLevel::default_for(Category::Delete), DangerLevel::Destructive);
//! ```
#![deny(missing_docs)]

mod features;
mod format;
mod gate;
mod lifecycle;
mod query;
mod vocabulary;
mod wire;

pub use features::{
    COLLECTION_MEMBERS, FeatureParam, IDENTIFYING_FIELDS, MAX_FIELD_PATH_BYTES, Offers, Preset,
};
pub use gate::{Outcome, minimum_trust, outcome};
pub use lifecycle::{ExecutionOperation, ExecutionState};
pub use query::{
    AggregateFunction, COMPUTED_MEMBER, DEFAULT_MAX_DEPTH, Direction, FieldKind, GraphSection,
    Operator, QUERY_RELATIONSHIPS, SortOrder, scan_defaults,
};
pub use vocabulary::Vocabulary;
pub use wire::{ContentType, OWNED_HEADERS, ParamLocation, ParamStyle, is_settable_header};

vocabulary! {
    /// The five semantic categories, which are also the CRUDE endpoint families. The wire
    /// spelling is the family (`read`), as the schema's `operations` keys, the `endpoint` of
    /// introspection and the tool names (`mcp_aql_read`) write it.
    pub enum Category ("category") {
        /// Additive, non-destructive.
        Create = "create",
        /// Read-only.
        Read = "read",
        /// Modifies existing state.
        Update = "update",
        /// Removes state.
        Delete = "delete",
        /// Side effects and lifecycle actions.
        Execute = "execute",
    }
}

impl Category {
    /// `semantic_category` as introspection spells it: `READ`.
    pub const fn semantic_name(self) -> &'static str {
        match self {
            Self::Create => "CREATE",
            Self::Read => "READ",
            Self::Update => "UPDATE",
            Self::Delete => "DELETE",
            Self::Execute => "EXECUTE",
        }
    }

    /// The endpoint family: `read`. The CRUDE tool is `mcp_aql_<family>`.
    pub const fn family(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Read => "read",
            Self::Update => "update",
            Self::Delete => "delete",
            Self::Execute => "execute",
        }
    }

    /// `{readOnly, destructive}` of SPEC §6.1 (REQ-ROUTE-4).
    pub const fn permissions(self) -> (bool, bool) {
        match self {
            Self::Create => (false, false),
            Self::Read => (true, false),
            Self::Update | Self::Delete | Self::Execute => (false, true),
        }
    }
}

vocabulary! {
    /// Upstream HTTP method of an operation's `maps_to`.
    pub enum Method ("method") {
        /// GET: non-path params go to the query string.
        Get = "GET",
        /// POST: non-path params go to a JSON body.
        Post = "POST",
        /// PUT: non-path params go to a JSON body.
        Put = "PUT",
        /// PATCH: non-path params go to a JSON body.
        Patch = "PATCH",
        /// DELETE: non-path params go to the query string.
        Delete = "DELETE",
    }
}

impl Method {
    /// Whether params that are not in the path travel in a JSON body (else in the query).
    pub const fn sends_body(self) -> bool {
        matches!(self, Self::Post | Self::Put | Self::Patch)
    }

    /// Whether the method changes what it addresses by definition (RFC 9110 §9.3): PUT,
    /// PATCH and DELETE, which no READ operation may map to (ROUTE-5).
    pub const fn changes_data(self) -> bool {
        matches!(self, Self::Put | Self::Patch | Self::Delete)
    }
}

/// The danger level of an operation of `category` named `name` that declares none, when its
/// name implies more than the category's default ([`DangerLevel::implied_by_name`]), with
/// the pattern that says so.
pub fn implied_danger(category: Category, name: &str) -> Option<(DangerLevel, &'static str)> {
    DangerLevel::implied_by_name(name)
        .filter(|(level, _)| level.rank() > DangerLevel::default_for(category).rank())
}

vocabulary! {
    /// How much harm an operation can do (danger-levels §2), in rank order.
    pub enum DangerLevel ("danger level") {
        /// 0: no side effects.
        Safe = "safe",
        /// 1: changes state that can be undone.
        Reversible = "reversible",
        /// 2: removes or overwrites data.
        Destructive = "destructive",
        /// 3: wide or irreversible effects.
        Dangerous = "dangerous",
        /// 4: catastrophic; blocked below the highest trust.
        Forbidden = "forbidden",
    }
}

impl DangerLevel {
    /// The numeric level: safe 0 ... forbidden 4.
    pub const fn rank(self) -> u8 {
        self as u8
    }

    /// The level of an operation that declares none (danger-levels §3.3): READ `safe`,
    /// DELETE `destructive`, the others `reversible`, so an unlabelled operation that
    /// changes anything is never below `reversible` (§7.1).
    pub const fn default_for(category: Category) -> Self {
        match category {
            Category::Read => Self::Safe,
            Category::Delete => Self::Destructive,
            Category::Create | Category::Update | Category::Execute => Self::Reversible,
        }
    }

    /// The level an operation's name implies (danger-levels §5.1, §6.1-6.2), with the
    /// pattern that says so: `force_push` is `dangerous` by `force_*`, `drop_table`
    /// `forbidden` by `drop_*`. A pattern matches whole words of the name, wherever they are,
    /// as §5.1's own example has `force_delete_all` match `delete_all*`; the highest matching
    /// level wins, and a name no pattern matches implies nothing. (The safe patterns of §6.3
    /// only confirm what READ already is.)
    pub fn implied_by_name(name: &str) -> Option<(Self, &'static str)> {
        const PATTERNS: [(&str, DangerLevel); 14] = [
            ("drop_*", DangerLevel::Forbidden),
            ("delete_all*", DangerLevel::Forbidden),
            ("truncate_*", DangerLevel::Forbidden),
            ("reset_*", DangerLevel::Forbidden),
            ("destroy_*", DangerLevel::Forbidden),
            ("wipe_*", DangerLevel::Forbidden),
            ("*_production", DangerLevel::Forbidden),
            ("force_*", DangerLevel::Dangerous),
            ("*_permanently", DangerLevel::Dangerous),
            ("bulk_delete*", DangerLevel::Dangerous),
            ("override_*", DangerLevel::Dangerous),
            ("bypass_*", DangerLevel::Dangerous),
            ("*_without_backup", DangerLevel::Dangerous),
            ("purge_*", DangerLevel::Dangerous),
        ];
        let words = format!("_{name}_");
        PATTERNS
            .into_iter()
            .filter(|(pattern, _)| {
                let fixed = pattern.trim_matches('*').trim_matches('_');
                // `drop_*` needs a word after `drop`; `delete_all*` may run on into a plural
                // (`delete_alls`), not into another word (`delete_allowed_groups`).
                let needles = match (pattern.starts_with('*'), pattern.ends_with("_*")) {
                    (false, false) => vec![format!("_{fixed}_"), format!("_{fixed}s_")],
                    _ => vec![format!("_{fixed}_")],
                };
                let word_after = pattern.ends_with("_*");
                needles.iter().any(|needle| {
                    words.contains(needle.as_str()) && (!word_after || words.len() > needle.len())
                })
            })
            .max_by_key(|(_, level)| level.rank())
            .map(|(pattern, level)| (level, pattern))
    }
}

vocabulary! {
    /// Who vouches for an adapter (trust-levels §2), in promotion order.
    ///
    /// The official adapter schema spells the same ladder `untrusted`, `low`, `medium`,
    /// `high`, `verified`; [`TrustLevel::parse`] accepts both, one onto the other in order.
    pub enum TrustLevel ("trust level") {
        /// Nothing is validated: only `introspect` runs.
        Untested = "untested",
        /// Generated and schema-valid; no run against the API.
        Generated = "generated",
        /// Passed a test harness against the target API.
        Validated = "validated",
        /// Validated and reviewed by people.
        CommunityReviewed = "community_reviewed",
        /// Certified by the API's vendor or an authority.
        Certified = "certified",
    }
    aliases {
        Untested = "untrusted",
        Generated = "low",
        Validated = "medium",
        CommunityReviewed = "high",
        Certified = "verified",
    }
}

impl TrustLevel {
    /// The official adapter schema's spelling of this level: `medium` for `validated`.
    pub const fn official_name(self) -> &'static str {
        match self {
            Self::Untested => "untrusted",
            Self::Generated => "low",
            Self::Validated => "medium",
            Self::CommunityReviewed => "high",
            Self::Certified => "verified",
        }
    }
}

/// The protocol types every adapter's introspection lists (introspection §7.3); an adapter's
/// own types may not take their names.
pub const PROTOCOL_TYPES: [&str; 6] = [
    "SemanticCategory",
    "OperationInput",
    "OperationResult",
    "OperationSuccess",
    "OperationFailure",
    "EndpointPermissions",
];

vocabulary! {
    /// A string param's `format` that the server checks (JSON Schema's format names); any
    /// other `format` is documentation only.
    pub enum StringFormat ("string format") {
        /// RFC 3339 date and time: `2026-11-25T18:00:00Z`.
        DateTime = "date-time",
        /// RFC 3339 full date: `2026-11-25`.
        Date = "date",
        /// An e-mail address: `someone@example.com`.
        Email = "email",
        /// An absolute URI (RFC 3986): `https://example.com/x`.
        Uri = "uri",
        /// An RFC 9562 UUID: `0b5a3e52-6d2f-4b2c-9a6f-2b1f3c4d5e6f`.
        Uuid = "uuid",
    }
}

impl StringFormat {
    /// What a value must look like, for an error message.
    pub const fn shape(self) -> &'static str {
        match self {
            Self::DateTime => "an RFC 3339 date and time such as '2026-11-25T18:00:00Z'",
            Self::Date => "a date such as '2026-11-25'",
            Self::Email => "an e-mail address such as 'someone@example.com'",
            Self::Uri => "an absolute URI such as 'https://example.com/x'",
            Self::Uuid => "a UUID such as '0b5a3e52-6d2f-4b2c-9a6f-2b1f3c4d5e6f'",
        }
    }

    /// A value of the format, for examples.
    pub const fn sample(self) -> &'static str {
        match self {
            Self::DateTime => "2026-01-01T00:00:00Z",
            Self::Date => "2026-01-01",
            Self::Email => "someone@example.com",
            Self::Uri => "https://example.com/",
            Self::Uuid => "0b5a3e52-6d2f-4b2c-9a6f-2b1f3c4d5e6f",
        }
    }
}

/// Whether `text` has at least `min` and at most `max` characters (Unicode scalar values): a
/// string param's `min_length` and `max_length`, as the server checks them.
pub fn length_within(text: &str, (min, max): (Option<u64>, Option<u64>)) -> bool {
    let count = text.chars().count() as u64;
    min.is_none_or(|min| count >= min) && max.is_none_or(|max| count <= max)
}

vocabulary! {
    /// The window of a rate limit or quota (rate-limiting §2.2).
    pub enum Window ("window") {
        /// One second: the schema's `burst_limit`.
        Second = "second",
        /// One minute.
        Minute = "minute",
        /// One hour.
        Hour = "hour",
        /// One day.
        Day = "day",
    }
}

impl Window {
    /// The window's length in seconds.
    pub const fn seconds(self) -> u64 {
        match self {
            Self::Second => 1,
            Self::Minute => 60,
            Self::Hour => 3_600,
            Self::Day => 86_400,
        }
    }

    /// The window's length.
    pub const fn length(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.seconds())
    }

    /// The shortest window at least `seconds` long (a day for anything longer).
    pub fn covering(seconds: u64) -> Self {
        Self::ALL
            .iter()
            .copied()
            .find(|window| window.seconds() >= seconds)
            .unwrap_or(Self::Day)
    }
}

/// `count` of a regular `noun`, as a sentence says it: `1 warning`, `2 warnings`.
pub fn counted(count: usize, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip() {
        for category in Category::ALL {
            assert_eq!(Category::parse(category.as_str()), Some(*category));
        }
        for method in Method::ALL {
            assert_eq!(Method::parse(method.as_str()), Some(*method));
        }
        for level in DangerLevel::ALL {
            assert_eq!(DangerLevel::parse(level.as_str()), Some(*level));
        }
        for level in TrustLevel::ALL {
            assert_eq!(TrustLevel::parse(level.as_str()), Some(*level));
            assert_eq!(TrustLevel::parse(level.official_name()), Some(*level));
        }
        assert_eq!(Method::parse("get"), None);
        assert_eq!(DangerLevel::parse("Safe"), None);
    }

    #[test]
    fn the_official_trust_enum_maps_onto_the_ladder_in_order() {
        let official = ["untrusted", "low", "medium", "high", "verified"];
        let ladder: Vec<TrustLevel> = official
            .iter()
            .map(|name| TrustLevel::parse(name).expect("official name"))
            .collect();
        assert_eq!(ladder, TrustLevel::ALL);
        assert!(ladder.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn category_facts() {
        let table = [
            (
                Category::Create,
                "CREATE",
                (false, false),
                DangerLevel::Reversible,
            ),
            (Category::Read, "READ", (true, false), DangerLevel::Safe),
            (
                Category::Update,
                "UPDATE",
                (false, true),
                DangerLevel::Reversible,
            ),
            (
                Category::Delete,
                "DELETE",
                (false, true),
                DangerLevel::Destructive,
            ),
            (
                Category::Execute,
                "EXECUTE",
                (false, true),
                DangerLevel::Reversible,
            ),
        ];
        for (category, semantic, permissions, danger) in table {
            assert_eq!(category.semantic_name(), semantic);
            assert_eq!(category.family(), category.as_str());
            assert_eq!(category.permissions(), permissions);
            assert_eq!(DangerLevel::default_for(category), danger);
        }
        assert_eq!(DangerLevel::Forbidden.rank(), 4);
    }

    #[test]
    fn windows_cover_durations() {
        assert_eq!(Window::covering(0), Window::Second);
        assert_eq!(Window::covering(59), Window::Minute);
        assert_eq!(Window::covering(61), Window::Hour);
        assert_eq!(Window::covering(10 * 86_400), Window::Day);
    }

    #[test]
    fn names_imply_danger_levels() {
        for (name, implied) in [
            ("force_push", Some(DangerLevel::Dangerous)),
            ("remove_permanently", Some(DangerLevel::Dangerous)),
            ("bulk_delete_users", Some(DangerLevel::Dangerous)),
            ("purge_cache", Some(DangerLevel::Dangerous)),
            ("force_delete_all", Some(DangerLevel::Forbidden)),
            ("repos_force_push", Some(DangerLevel::Dangerous)),
            ("drop", None),
            ("delete_all_users", Some(DangerLevel::Forbidden)),
            ("drop_table", Some(DangerLevel::Forbidden)),
            ("deploy_production", Some(DangerLevel::Forbidden)),
            ("get_user", None),
            ("delete_user", None),
            ("redrop_x", None),
            ("delete_alls", Some(DangerLevel::Forbidden)),
            ("delete_all", Some(DangerLevel::Forbidden)),
            ("bulk_delete", Some(DangerLevel::Dangerous)),
            ("delete_allowed_reviewer_group", None),
        ] {
            assert_eq!(
                DangerLevel::implied_by_name(name).map(|(level, _)| level),
                implied,
                "{name}"
            );
        }
    }
}
