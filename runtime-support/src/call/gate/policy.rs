//! The gate's policy: from an operation's danger level and `requires_confirmation` (fixed by
//! the schema), the adapter's trust level (the schema's, or the operator's when they vouch for
//! it) and the operator's tightening, whether it runs, needs confirmation first, or is
//! refused. The defaults follow the gating matrix of danger-levels §4
//! ([`aqlgen_model::outcome`]); the operator can only tighten them.

use aqlgen_model::{DangerLevel, Outcome, TrustLevel, minimum_trust, outcome};
use serde_json::{Value, json};

use super::TOKEN_PARAM;
use crate::adapter::{Route, UpstreamRequest};
use crate::config::{Channel, ConfirmBy, ConfirmConfig, Fallback};
use crate::error::{AqlError, ErrorCode};

/// Where the effective trust level comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustSource {
    /// The schema's `trust.level`.
    Schema,
    /// The schema declares none: `untested` (trust-levels §6.1).
    Default,
    /// The operator's `--trust-level` / `MCP_AQL_TRUST_LEVEL`.
    Operator,
}

impl TrustSource {
    /// How `_protocol` and the logs name it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Schema => "schema",
            Self::Default => "default",
            Self::Operator => "operator",
        }
    }
}

/// The operator's policy, fixed at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The trust level decisions are made at.
    pub trust: TrustLevel,
    /// Where `trust` comes from.
    pub trust_source: TrustSource,
    /// Operations at or above this level need confirmation even where the matrix allows them.
    pub confirm_at: Option<DangerLevel>,
    /// Levels refused outright, whatever the trust level.
    pub deny: Vec<DangerLevel>,
    /// Who confirms what needs confirmation.
    pub confirm: ConfirmConfig,
}

impl Policy {
    /// The matrix at `trust`, with no operator tightening.
    pub fn at(trust: TrustLevel, trust_source: TrustSource) -> Self {
        Self {
            trust,
            trust_source,
            confirm_at: None,
            deny: Vec::new(),
            confirm: ConfirmConfig::default(),
        }
    }

    /// What happens to an operation of `danger` (with the schema's `requires_confirmation`).
    pub fn decide(&self, danger: DangerLevel, requires_confirmation: bool) -> Decision {
        if self.deny.contains(&danger) {
            return Decision::Deny(Denial::Operator);
        }
        let mut reasons = Vec::new();
        match outcome(danger, self.trust) {
            Outcome::IntrospectOnly => return Decision::Deny(Denial::Untested),
            Outcome::Deny => {
                return Decision::Deny(Denial::Matrix {
                    minimum: minimum_trust(danger),
                });
            }
            Outcome::Confirm => reasons.push(ConfirmReason::Matrix),
            Outcome::Allow => {}
        }
        if requires_confirmation {
            reasons.push(ConfirmReason::Schema);
        }
        if self.confirm_at.is_some_and(|level| danger >= level) {
            reasons.push(ConfirmReason::Operator);
        }
        if reasons.is_empty() {
            Decision::Allow
        } else {
            Decision::Confirm(reasons)
        }
    }

    /// The decision for each danger level, for `_protocol` and the start-up log.
    pub fn table(&self) -> Value {
        let mut table = serde_json::Map::new();
        for &level in DangerLevel::ALL {
            let decision = match self.decide(level, false) {
                Decision::Allow => "allow",
                Decision::Confirm(_) => "confirm",
                Decision::Deny(Denial::Untested) => "introspect_only",
                Decision::Deny(_) => "deny",
            };
            table.insert(level.as_str().to_owned(), decision.into());
        }
        Value::Object(table)
    }

    /// The policy as `_protocol.safety` shows it.
    pub fn describe(&self) -> Value {
        json!({
            "trust_level": self.trust.as_str(),
            "trust_source": self.trust_source.as_str(),
            "confirm_at": self.confirm_at.map(DangerLevel::as_str),
            "denied_levels": self.deny.iter().map(|level| level.as_str()).collect::<Vec<_>>(),
            "decisions": self.table(),
            "confirmation_param": TOKEN_PARAM,
            "confirmation": {
                "by": DangerLevel::ALL
                    .iter()
                    .map(|level| (level.as_str().to_owned(), self.confirm.by(*level).as_str().into()))
                    .collect::<serde_json::Map<String, Value>>(),
                "without_elicitation": self.confirm.fallback.as_str(),
                "answer_timeout_seconds": self.confirm.answer_timeout.as_secs(),
                "verify_channel": self.confirm.channel.as_ref().map(|channel| match channel {
                    Channel::Terminal => "terminal",
                    Channel::File(_) => "file",
                    Channel::Webhook(_) => "webhook",
                }),
                "verify_ttl_seconds": self.confirm.challenge_ttl.as_secs(),
            },
        })
    }

    /// How operations of `levels` that need confirmation get it, in one sentence for an agent.
    pub fn confirmation_note(&self, levels: &[DangerLevel]) -> String {
        let token = format!(
            "the first call answers CONFIRMATION_REQUIRED with a token; call again with the same params and '{TOKEN_PARAM}' set to it"
        );
        let by: Vec<ConfirmBy> = levels.iter().map(|level| self.confirm.by(*level)).collect();
        if by.iter().all(|by| *by == ConfirmBy::Token) {
            return token;
        }
        let mut note =
            "the client's user confirms it in a form their client shows them (MCP elicitation)"
                .to_owned();
        if by.contains(&ConfirmBy::Verify) {
            note.push_str(", typing a code sent to them out of band where the level is verified");
        }
        if by.contains(&ConfirmBy::Token) {
            note.push_str(&format!(
                "; for levels the operator leaves to tokens, {token}"
            ));
        }
        match self.confirm.fallback {
            Fallback::Token => note.push_str(&format!(
                "; a client without elicitation gets the token flow: {token}"
            )),
            Fallback::Refuse => {
                note.push_str("; a client without elicitation cannot run it");
            }
        }
        note
    }
}

/// The gate's verdict on one operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Runs.
    Allow,
    /// Runs once confirmed, for these reasons (never empty).
    Confirm(Vec<ConfirmReason>),
    /// Refused.
    Deny(Denial),
}

/// Why an operation needs confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmReason {
    /// The matrix confirms this danger level at this trust level.
    Matrix,
    /// The schema says `requires_confirmation: true`.
    Schema,
    /// The operator's `--confirm-at`.
    Operator,
}

/// Why an operation is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial {
    /// The adapter is `untested`: only `introspect` runs.
    Untested,
    /// The matrix refuses this danger level below `minimum`.
    Matrix {
        /// The lowest trust level at which it runs.
        minimum: TrustLevel,
    },
    /// The operator's `--deny`.
    Operator,
}

/// What a danger level means, in the words a reason uses.
fn danger_meaning(danger: DangerLevel) -> &'static str {
    match danger {
        DangerLevel::Safe => "it only reads",
        DangerLevel::Reversible => "it changes data in a way which can be undone",
        DangerLevel::Destructive => "it removes or overwrites data",
        DangerLevel::Dangerous => "its effects are wide or cannot be undone",
        DangerLevel::Forbidden => "it can cause damage no one can undo",
    }
}

/// The `PERMISSION_*` error of a refusal, saying what would allow the call.
pub fn denial_error(route: &Route, policy: &Policy, denial: Denial) -> AqlError {
    let (operation, danger) = (route.operation, route.danger_level);
    let trust = policy.trust.as_str();
    let vouch = "the operator vouches for an adapter with --trust-level or MCP_AQL_TRUST_LEVEL";
    match denial {
        Denial::Untested => AqlError::new(
            ErrorCode::PermissionTrustLevelInsufficient,
            format!(
                "Operation '{operation}' requires trust level '{}', adapter has '{trust}': an \
                 untested adapter answers only 'introspect'. It runs once the schema declares a \
                 trust level or {vouch}",
                TrustLevel::Generated.as_str()
            ),
        )
        .with_detail("operation", operation)
        .with_detail("required_trust", TrustLevel::Generated.as_str())
        .with_detail("actual_trust", trust)
        .with_detail("danger_level", danger.rank()),
        Denial::Matrix { minimum } => AqlError::new(
            ErrorCode::PermissionDangerLevelDenied,
            format!(
                "Operation '{operation}' (danger: {danger}) denied for adapter trust level \
                 '{trust}'. {} operations run from trust level '{minimum}' up; {vouch}",
                capitalized(danger.as_str())
            ),
        )
        .with_detail("operation", operation)
        .with_detail("danger_level", danger.as_str())
        .with_detail("adapter_trust", trust)
        .with_detail("minimum_trust_required", minimum.as_str())
        .with_detail("reasons", vec![reason_of_danger(route)]),
        Denial::Operator => AqlError::new(
            ErrorCode::PermissionDangerLevelDenied,
            format!(
                "Operation '{operation}' (danger: {danger}) denied by the operator's policy, \
                 which refuses '{danger}' operations whatever the trust level; only the \
                 operator can lift it (--deny or MCP_AQL_DENY)"
            ),
        )
        .with_detail("operation", operation)
        .with_detail("danger_level", danger.as_str())
        .with_detail("adapter_trust", trust)
        .with_detail("policy", "operator")
        .with_detail("reasons", vec![reason_of_danger(route)]),
    }
}

/// One sentence on an operation's fate under `policy`, for its introspection details: its
/// danger level, and whether it runs, needs confirmation or is refused, and why.
pub fn describe(route: &Route, policy: &Policy) -> String {
    let (danger, trust) = (route.danger_level, policy.trust);
    let fate = match policy.decide(danger, route.requires_confirmation) {
        Decision::Allow => format!("runs without confirmation (trust level '{trust}')"),
        Decision::Confirm(_) => format!(
            "needs confirmation (trust level '{trust}'): {}",
            policy.confirmation_note(&[danger])
        ),
        Decision::Deny(Denial::Untested) => {
            "refused: the adapter is untested, so only 'introspect' runs".to_owned()
        }
        Decision::Deny(Denial::Matrix { minimum }) => {
            format!("refused under trust level '{trust}'; it runs from trust level '{minimum}' up")
        }
        Decision::Deny(Denial::Operator) => {
            format!("refused by the operator's policy for '{danger}' operations")
        }
    };
    format!("Danger level: {danger}; {fate}.")
}

fn reason_of_danger(route: &Route) -> String {
    format!(
        "'{}' has danger level '{}': {}",
        route.operation,
        route.danger_level,
        danger_meaning(route.danger_level)
    )
}

/// Why a confirmation is asked for, and what the call would do, built from the schema: the
/// `reasons` and `confirmation_message` of `CONFIRMATION_REQUIRED` (danger-levels §4.3).
pub fn confirmation_context(
    route: &Route,
    policy: &Policy,
    why: &[ConfirmReason],
    request: &UpstreamRequest,
) -> (Vec<String>, String) {
    let mut reasons = vec![reason_of_danger(route)];
    for reason in why {
        reasons.push(match reason {
            ConfirmReason::Matrix => format!(
                "trust level '{}' runs {} operations only once confirmed",
                policy.trust, route.danger_level
            ),
            ConfirmReason::Schema => {
                "the adapter schema marks it 'requires_confirmation'".to_owned()
            }
            ConfirmReason::Operator => format!(
                "the operator's policy confirms every operation from '{}' up",
                policy.confirm_at.unwrap_or(route.danger_level)
            ),
        });
    }
    let what = if route.description.is_empty() {
        format!("Run '{}'", route.operation)
    } else {
        route.description.trim_end_matches('.').to_owned()
    };
    let message = format!(
        "{what}: {} {}. This is {} and is not reverted by the adapter. Confirm to proceed.",
        request.method, request.path, route.danger_level
    );
    (reasons, message)
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrix_is_the_default_policy() {
        let policy = Policy::at(TrustLevel::Validated, TrustSource::Schema);
        assert_eq!(policy.decide(DangerLevel::Safe, false), Decision::Allow);
        assert_eq!(
            policy.decide(DangerLevel::Reversible, false),
            Decision::Allow
        );
        assert_eq!(
            policy.decide(DangerLevel::Destructive, false),
            Decision::Confirm(vec![ConfirmReason::Matrix])
        );
        assert_eq!(
            policy.decide(DangerLevel::Dangerous, false),
            Decision::Deny(Denial::Matrix {
                minimum: TrustLevel::CommunityReviewed
            })
        );
        let untested = Policy::at(TrustLevel::Untested, TrustSource::Default);
        assert_eq!(
            untested.decide(DangerLevel::Safe, false),
            Decision::Deny(Denial::Untested)
        );
    }

    #[test]
    fn schema_and_operator_only_tighten() {
        let mut policy = Policy::at(TrustLevel::Certified, TrustSource::Operator);
        assert_eq!(
            policy.decide(DangerLevel::Dangerous, false),
            Decision::Allow
        );
        assert_eq!(
            policy.decide(DangerLevel::Safe, true),
            Decision::Confirm(vec![ConfirmReason::Schema])
        );
        policy.confirm_at = Some(DangerLevel::Reversible);
        assert_eq!(policy.decide(DangerLevel::Safe, false), Decision::Allow);
        assert_eq!(
            policy.decide(DangerLevel::Forbidden, true),
            Decision::Confirm(vec![
                ConfirmReason::Matrix,
                ConfirmReason::Schema,
                ConfirmReason::Operator
            ])
        );
        policy.deny = vec![DangerLevel::Safe];
        assert_eq!(
            policy.decide(DangerLevel::Safe, false),
            Decision::Deny(Denial::Operator)
        );
        assert_eq!(
            policy.table()["safe"],
            "deny",
            "the table shows the operator's refusal"
        );
    }
}
