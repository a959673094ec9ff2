//! The query language's vocabulary (collection-querying, aggregations, relationship queries):
//! the types of the fields a collection is queried by, the filter operators, sort orders,
//! aggregation functions and traversal directions. The generator checks schemas against these;
//! the runtime parses requests with them.

use crate::vocabulary;

vocabulary! {
    /// The type of a query field: what its values are compared as.
    pub enum FieldKind ("query field type") {
        /// Text, compared as it is (`contains` ignores case).
        String = "string",
        /// A whole number.
        Integer = "integer",
        /// Any number.
        Number = "number",
        /// `true` or `false`.
        Boolean = "boolean",
        /// An instant, written as RFC 3339 text (`2026-11-29T05:00:00Z`) or a date
        /// (`2026-11-29`, midnight UTC); compared as instants.
        DateTime = "date-time",
    }
}

impl FieldKind {
    /// Whether values of this kind are ordered (`gt`, `min`, sorting by them).
    pub const fn is_ordered(self) -> bool {
        !matches!(self, Self::Boolean)
    }

    /// Whether values of this kind are numbers (`sum`, `avg`).
    pub const fn is_numeric(self) -> bool {
        matches!(self, Self::Integer | Self::Number)
    }

    /// The filter operators a value of this kind takes.
    pub fn operators(self) -> &'static [Operator] {
        use Operator::*;
        match self {
            Self::String => &[Eq, Ne, In, Contains, Exists],
            Self::Boolean => &[Eq, Ne, Exists],
            Self::Integer | Self::Number | Self::DateTime => {
                &[Eq, Ne, In, Gt, Gte, Lt, Lte, Exists]
            }
        }
    }
}

vocabulary! {
    /// A filter operator: `filter: {key: {operator: value}}`; a bare value means `eq`.
    pub enum Operator ("filter operator") {
        /// Equal to the value (any of a multi-valued field's values).
        Eq = "eq",
        /// Not equal to the value (none of a multi-valued field's values).
        Ne = "ne",
        /// Equal to one of a list of values.
        In = "in",
        /// Greater than.
        Gt = "gt",
        /// Greater than or equal to.
        Gte = "gte",
        /// Less than.
        Lt = "lt",
        /// Less than or equal to.
        Lte = "lte",
        /// For a multi-valued field, holds the value (each of a list of values); for text,
        /// contains it, ignoring case.
        Contains = "contains",
        /// `true`: the field is present and not null; `false`: it is absent or null.
        Exists = "exists",
    }
}

vocabulary! {
    /// A sort order (collection-querying §2.3).
    pub enum SortOrder ("sort order") {
        /// Smallest first.
        Asc = "asc",
        /// Largest first.
        Desc = "desc",
    }
}

vocabulary! {
    /// An aggregation function (aggregations §2).
    pub enum AggregateFunction ("aggregation function") {
        /// How many items (`count: true`).
        Count = "count",
        /// One result per distinct value of a field.
        GroupBy = "group_by",
        /// The sum of a numeric field.
        Sum = "sum",
        /// The mean of a numeric field.
        Avg = "avg",
        /// The smallest value of an ordered field.
        Min = "min",
        /// The largest value of an ordered field.
        Max = "max",
    }
}

vocabulary! {
    /// Which way a relationship query follows edges (relationship-queries §2).
    pub enum Direction ("relationship direction") {
        /// Edges that lead to the root.
        Incoming = "incoming",
        /// Edges that leave the root.
        Outgoing = "outgoing",
        /// Both.
        Both = "both",
    }
}

vocabulary! {
    /// A section of a relationship query's answer (`include`).
    pub enum GraphSection ("relationship section") {
        /// The root reference.
        Root = "root",
        /// The relationship records.
        Relationships = "relationships",
        /// The graph's nodes.
        Nodes = "graph.nodes",
        /// The graph's edges.
        Edges = "graph.edges",
    }
}

/// The name relationship queries are served under.
pub const QUERY_RELATIONSHIPS: &str = "query_relationships";

/// The member computed fields are answered under and `fields` names them with
/// (`_computed.age_days`).
pub const COMPUTED_MEMBER: &str = "_computed";

/// Bounds of one local scan (collection-querying §5.5), unless the schema or the operator
/// says otherwise.
pub mod scan_defaults {
    /// Upstream pages one request reads.
    pub const MAX_PAGES: u64 = 10;
    /// Items one request reads.
    pub const MAX_ITEMS: u64 = 1000;
    /// Bytes of upstream answers one request reads.
    pub const MAX_BYTES: u64 = 8 * 1024 * 1024;
    /// Seconds one request scans for.
    pub const MAX_SECONDS: u64 = 20;
}

/// The deepest relationship query, unless the schema says otherwise.
pub const DEFAULT_MAX_DEPTH: u64 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_follow_the_kind() {
        assert!(FieldKind::String.operators().contains(&Operator::Contains));
        assert!(!FieldKind::Boolean.operators().contains(&Operator::Gt));
        assert!(FieldKind::DateTime.is_ordered());
        assert!(!FieldKind::DateTime.is_numeric());
        assert_eq!(FieldKind::parse("date-time"), Some(FieldKind::DateTime));
        assert_eq!(
            GraphSection::parse("graph.edges"),
            Some(GraphSection::Edges)
        );
    }
}
