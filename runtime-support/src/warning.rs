//! Warnings on successful answers (warnings spec §2): `{code, message, details?}` objects in
//! the `warnings` array beside `data`.

use serde_json::{Map, Value};

/// Most warnings one answer carries (warnings §6.3).
pub const MAX_WARNINGS: usize = 10;

/// One warning.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// An upper-snake-case code, e.g. `RATE_LIMIT_QUOTA_WARNING`.
    pub code: &'static str,
    /// What the agent should know.
    pub message: String,
    /// Structured facts; empty means no `details` member.
    pub details: Map<String, Value>,
}

impl Warning {
    /// A warning with no details.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: Map::new(),
        }
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
        Value::Object(object)
    }
}

/// The `warnings` array of an answer: identical code and details once (warnings §6.4), at
/// most [`MAX_WARNINGS`], in the order they were raised.
pub fn collect(warnings: &[Warning]) -> Vec<Value> {
    let mut kept: Vec<&Warning> = Vec::new();
    for warning in warnings {
        let seen = kept
            .iter()
            .any(|other| other.code == warning.code && other.details == warning.details);
        if !seen && kept.len() < MAX_WARNINGS {
            kept.push(warning);
        }
    }
    kept.into_iter().map(Warning::to_json).collect()
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
        assert_eq!(collected[1]["message"], "two");
    }
}
