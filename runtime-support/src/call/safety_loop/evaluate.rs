//! The autonomy evaluation of one reported action (SPEC §8.7.2), stages in order, the first
//! that pauses or stops ending it: the step limit (MUST), the previous step's outcome
//! (SHOULD), then the glob patterns, deny before requires-approval before auto-approve
//! (SHOULD). Risk scoring (stages 4 and 5, MAY) is not done: an action no pattern matches is
//! `advisory`.

use crate::config::{Action, Glob, LoopConfig};

/// A safety tier (SPEC §8.7.1 `SafetyTier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Continue; logged only.
    Advisory,
    /// Pause for a person's approval.
    Confirm,
    /// Hard stop until a person verifies a code.
    DangerZone,
}

impl Tier {
    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Advisory => "advisory",
            Self::Confirm => "confirm",
            Self::DangerZone => "danger_zone",
        }
    }
}

/// Why an agent is paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseKind {
    /// It took `maxAutonomousSteps` steps.
    StepLimit,
    /// Its previous step failed.
    Failure,
    /// The action matches a requires-approval pattern.
    Approval,
}

/// What the evaluation decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The agent may take the action.
    Continue {
        /// Why.
        factors: Vec<String>,
    },
    /// The agent must wait for a person.
    Pause {
        /// Which stage paused it.
        kind: PauseKind,
        /// Why, in a sentence.
        reason: String,
        /// The stages' findings.
        factors: Vec<String>,
    },
    /// The agent is hard-blocked until a person verifies a code.
    Stop {
        /// Why, in a sentence.
        reason: String,
        /// The stages' findings.
        factors: Vec<String>,
    },
}

impl Verdict {
    /// The safety tier the action was given.
    pub fn tier(&self) -> Tier {
        match self {
            Self::Continue { .. } => Tier::Advisory,
            Self::Pause { .. } => Tier::Confirm,
            Self::Stop { .. } => Tier::DangerZone,
        }
    }
}

/// Evaluates step number `step` (from 1) reporting `outcome` of the previous step and the
/// intended `action`.
pub fn evaluate(config: &LoopConfig, step: u64, outcome: Option<&str>, action: &str) -> Verdict {
    let mut factors = vec![format!("step {step} of no more than {}", config.max_steps)];
    if step > config.max_steps {
        return Verdict::Pause {
            kind: PauseKind::StepLimit,
            reason: "Step limit exceeded".to_owned(),
            factors,
        };
    }
    if outcome == Some("failure") {
        factors.push("the previous step failed".to_owned());
        return Verdict::Pause {
            kind: PauseKind::Failure,
            reason: "The previous step failed: report it before trying again".to_owned(),
            factors,
        };
    }
    let action = Action::new(action);
    if let Some(glob) = first_match(&config.deny, &action) {
        factors.push(format!(
            "the action matches deny pattern '{}'",
            glob.as_str()
        ));
        return Verdict::Stop {
            reason: format!(
                "The action matches deny pattern '{}': a person must verify a code sent to them out of band",
                glob.as_str()
            ),
            factors,
        };
    }
    if let Some(glob) = first_match(&config.requires_approval, &action) {
        factors.push(format!(
            "the action matches requires-approval pattern '{}'",
            glob.as_str()
        ));
        return Verdict::Pause {
            kind: PauseKind::Approval,
            reason: format!(
                "The action matches requires-approval pattern '{}'",
                glob.as_str()
            ),
            factors,
        };
    }
    match first_match(&config.auto_approve, &action) {
        Some(glob) => factors.push(format!(
            "the action matches auto-approve pattern '{}'",
            glob.as_str()
        )),
        None => factors.push("no pattern matches the action: advisory".to_owned()),
    }
    Verdict::Continue { factors }
}

fn first_match<'a>(globs: &'a [Glob], action: &Action) -> Option<&'a Glob> {
    globs.iter().find(|glob| glob.matches(action))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_stage_that_objects_decides() {
        let config = LoopConfig {
            max_steps: 3,
            ..LoopConfig::default()
        };
        let over = evaluate(&config, 4, Some("failure"), "drop_table users");
        assert!(matches!(
            over,
            Verdict::Pause {
                kind: PauseKind::StepLimit,
                ..
            }
        ));
        let failed = evaluate(&config, 2, Some("failure"), "drop_table users");
        assert!(matches!(
            failed,
            Verdict::Pause {
                kind: PauseKind::Failure,
                ..
            }
        ));
        let denied = evaluate(&config, 2, Some("success"), "calling delete_all_todos");
        assert_eq!(
            denied.tier(),
            Tier::DangerZone,
            "deny beats requires-approval"
        );
        let approval = evaluate(&config, 2, None, "calling delete_todo on 4");
        assert_eq!(approval.tier(), Tier::Confirm);
        let read = evaluate(
            &config,
            1,
            Some("skipped"),
            "list_todos to see what is open",
        );
        assert_eq!(read.tier(), Tier::Advisory);
        let Verdict::Continue { factors } = evaluate(&config, 1, None, "thinking hard") else {
            panic!("an unmatched action continues");
        };
        assert!(factors.iter().any(|factor| factor.contains("advisory")));
    }
}
