//! What a semantic check found, and what it is about in the typed model's terms.
//!
//! A [`Diagnostic`] says where a problem is as a field path, for people; a [`Finding`] also
//! says it as a [`Subject`], for code that acts on problems instead of reporting them (the
//! OpenAPI importer leaves out what `check` would refuse) and so never reads a path.

use aqlgen_model::Category;

use crate::diagnostic::Diagnostic;

/// A diagnostic and what it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// What the problem is about.
    pub subject: Subject,
    /// The problem, as `check` reports it.
    pub diagnostic: Diagnostic,
}

/// What a [`Finding`] is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// The adapter's own fields (name, version, target, auth, rate limits), or its operations
    /// as a whole.
    Adapter,
    /// Something of one operation, by family and position in it.
    Operation {
        /// The operation's family.
        category: Category,
        /// Its position in the family.
        index: usize,
        /// What of the operation.
        within: Within,
    },
}

/// What of an operation a [`Finding`] is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Within {
    /// The operation itself: its name, `maps_to`, params as a whole, response or features.
    Operation,
    /// A param, by name: its name or its place among the others.
    Param(String),
    /// One part of a param's definition.
    ParamPart(String, ParamPart),
    /// Its `query` block, or the computed fields of its `response`: what the query language
    /// adds, which can be left out without the operation.
    Query,
}

/// A part of a param's definition that can be left out on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ParamPart {
    /// `enum`, and with it the default, which must be one of its values.
    Enum,
    /// `default`.
    Default,
    /// `minimum` and `maximum`, which are checked together.
    Bounds,
    /// `pattern`.
    Pattern,
    /// `min_length` and `max_length`, which are checked together.
    Lengths,
}
