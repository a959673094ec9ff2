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
mod gate;
mod vocabulary;

pub use features::{
    COLLECTION_MEMBERS, FeatureParam, IDENTIFYING_FIELDS, MAX_FIELD_PATH_BYTES, Preset,
};
pub use gate::{Outcome, minimum_trust, outcome};
pub use vocabulary::Vocabulary;

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
}
