//! Warnings on successful answers (warnings spec §2): `{code, message, details?, severity?}`
//! objects in the `warnings` array beside `data`. The specification's standard codes are used
//! where they apply (`RATE_LIMIT_QUOTA_WARNING`, `DEPRECATION_WARNING`,
//! `VALIDATION_TRUNCATED_WARNING`, `PERFORMANCE_SLOW_QUERY_WARNING`); the others are aqlgen's
//! own, documented in docs/querying.md "Warnings".

use serde_json::{Map, Value};

/// Most warnings one answer carries (warnings §6.3).
pub const MAX_WARNINGS: usize = 10;

/// How much a warning matters (warnings §3); absent means medium.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Worth knowing.
    Low,
    /// Worth acting on.
    Medium,
    /// Act now.
    High,
}

impl Severity {
    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

/// One warning.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// An upper-snake-case code, e.g. `RATE_LIMIT_QUOTA_WARNING`.
    pub code: &'static str,
    /// What the agent should know.
    pub message: String,
    /// Structured facts; empty means no `details` member.
    pub details: Map<String, Value>,
    /// How much it matters, when said.
    pub severity: Option<Severity>,
}

impl Warning {
    /// A warning with no details.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Map::new(),
            severity: None,
        }
    }

    /// Says how much it matters.
    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = Some(severity);
        self
    }

    /// Adds one `details` member.
    #[must_use]
    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// The warning object.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("code".into(), self.code.into());
        object.insert("message".into(), self.message.clone().into());
        if !self.details.is_empty() {
            object.insert("details".into(), Value::Object(self.details.clone()));
        }
        if let Some(severity) = self.severity {
            object.insert("severity".into(), severity.as_str().into());
        }
        Value::Object(object)
    }
}

/// The `warnings` array of an answer, in the order they were raised: identical code and
/// details once, with how often they were raised as `details.occurrence_count` (warnings
/// §6.4-§6.5), and at most [`MAX_WARNINGS`].
pub fn collect(warnings: &[Warning]) -> Vec<Value> {
    let mut kept: Vec<(&Warning, usize)> = Vec::new();
    for warning in warnings {
        let seen = kept
            .iter()
            .position(|(other, _)| other.code == warning.code && other.details == warning.details);
        match seen {
            Some(index) => kept[index].1 += 1,
            None if kept.len() < MAX_WARNINGS => kept.push((warning, 1)),
            None => {}
        }
    }
    kept.into_iter()
        .map(|(warning, count)| {
            let mut json = warning.to_json();
            if count > 1 {
                json["details"]["occurrence_count"] = count.into();
            }
            json
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_dropped_and_the_list_is_capped() {
        let mut warnings = vec![
            Warning::new("A", "one").with_detail("n", 1),
            Warning::new("A", "again").with_detail("n", 1),
            Warning::new("A", "two").with_detail("n", 2),
        ];
        for n in 0..20 {
            warnings.push(Warning::new("B", "many").with_detail("n", n));
        }
        let collected = collect(&warnings);
        assert_eq!(collected.len(), MAX_WARNINGS);
        assert_eq!(collected[0]["message"], "one");
        assert_eq!(collected[0]["details"]["occurrence_count"], 2);
        assert_eq!(collected[1]["message"], "two");
        assert!(collected[1]["details"].get("occurrence_count").is_none());
    }
}
