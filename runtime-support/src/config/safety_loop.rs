//! The operator's settings of the execution safety loop (SPEC §8.6-8.7): whether it runs and
//! how, the step limit, and the glob patterns matched against each reported action.

use super::glob::Glob;

/// How the loop runs (`_protocol.capabilities.execution_safety_loop`, SPEC §8.6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopMode {
    /// Directives are authoritative: a pause or a stop holds until a person lifts it.
    Enforcing,
    /// Actions are evaluated, but `continue` is always true (advisory).
    Monitoring,
    /// Actions are recorded, never evaluated.
    Logging,
    /// The loop's operations are not served.
    Disabled,
}

impl LoopMode {
    /// The capability value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Enforcing => "enforcing",
            Self::Monitoring => "monitoring",
            Self::Logging => "logging",
            Self::Disabled => "disabled",
        }
    }

    /// Parses a capability value.
    ///
    /// # Errors
    ///
    /// A sentence for the operator.
    pub fn parse(text: &str) -> Result<Self, String> {
        [
            Self::Enforcing,
            Self::Monitoring,
            Self::Logging,
            Self::Disabled,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == text)
        .ok_or_else(|| {
            format!(
                "safety loop mode '{text}' is not one of enforcing, monitoring, logging, disabled"
            )
        })
    }
}

/// The loop's settings, with the specification's example patterns as defaults (§8.7.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopConfig {
    /// Whether and how the loop runs.
    pub mode: LoopMode,
    /// Steps an agent takes before a mandatory pause (`maxAutonomousSteps`).
    pub max_steps: u64,
    /// Actions that hard-block the agent until a person verifies a code.
    pub deny: Vec<Glob>,
    /// Actions that pause the agent for a person's approval.
    pub requires_approval: Vec<Glob>,
    /// Actions that continue without further evaluation.
    pub auto_approve: Vec<Glob>,
}

impl Default for LoopConfig {
    fn default() -> Self {
        let globs = |patterns: &[&str]| {
            patterns
                .iter()
                .filter_map(|pattern| Glob::parse(pattern).ok())
                .collect()
        };
        Self {
            mode: LoopMode::Disabled,
            max_steps: 20,
            deny: globs(&["drop_*", "delete_all*", "rm -rf*"]),
            requires_approval: globs(&["delete_*", "*force*", "deploy_*", "git push*"]),
            auto_approve: globs(&["read_*", "list_*", "get_*", "search_*"]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_the_default_patterns_hold() {
        assert_eq!(LoopMode::parse("monitoring"), Ok(LoopMode::Monitoring));
        assert!(LoopMode::parse("on").is_err());
        let config = LoopConfig::default();
        assert_eq!(
            (
                config.deny.len(),
                config.requires_approval.len(),
                config.auto_approve.len()
            ),
            (3, 4, 4),
            "every default pattern parses"
        );
    }
}
