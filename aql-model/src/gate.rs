//! The trust-to-danger gating matrix (danger-levels §4.1).

use crate::{DangerLevel, TrustLevel};

/// What the matrix says about one operation at one trust level (danger-levels §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Runs without further gates.
    Allow,
    /// Runs once the caller repeats the call with a confirmation token.
    Confirm,
    /// Refused.
    Deny,
    /// Refused, and so is every operation but `introspect`: the adapter is untested.
    IntrospectOnly,
}

/// The matrix cell for `danger` at `trust`.
///
/// | danger      | untested        | generated | validated | community_reviewed | certified |
/// |-------------|-----------------|-----------|-----------|--------------------|-----------|
/// | safe        | introspect_only | allow     | allow     | allow              | allow     |
/// | reversible  | deny            | deny      | allow     | allow              | allow     |
/// | destructive | deny            | deny      | confirm   | allow              | allow     |
/// | dangerous   | deny            | deny      | deny      | confirm            | allow     |
/// | forbidden   | deny            | deny      | deny      | deny               | confirm   |
pub const fn outcome(danger: DangerLevel, trust: TrustLevel) -> Outcome {
    use DangerLevel as D;
    use Outcome::{Allow, Confirm, Deny, IntrospectOnly};
    use TrustLevel as T;
    match (danger, trust) {
        (D::Safe, T::Untested) => IntrospectOnly,
        (D::Safe, _) => Allow,
        (_, T::Untested | T::Generated) => Deny,
        (D::Reversible, _) => Allow,
        (D::Destructive, T::Validated) => Confirm,
        (D::Destructive, _) => Allow,
        (D::Dangerous, T::Validated) => Deny,
        (D::Dangerous, T::CommunityReviewed) => Confirm,
        (D::Dangerous, T::Certified) => Allow,
        (D::Forbidden, T::Certified) => Confirm,
        (D::Forbidden, _) => Deny,
    }
}

/// The lowest trust level at which an operation of `danger` runs at all (with or without
/// confirmation): what a denial names as `minimum_trust_required`.
pub fn minimum_trust(danger: DangerLevel) -> TrustLevel {
    TrustLevel::ALL
        .iter()
        .copied()
        .find(|&trust| matches!(outcome(danger, trust), Outcome::Allow | Outcome::Confirm))
        .unwrap_or(TrustLevel::Certified)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrix_of_danger_levels_section_4() {
        use Outcome::{Allow as A, Confirm as C, Deny as D, IntrospectOnly as I};
        let rows = [
            (DangerLevel::Safe, [I, A, A, A, A]),
            (DangerLevel::Reversible, [D, D, A, A, A]),
            (DangerLevel::Destructive, [D, D, C, A, A]),
            (DangerLevel::Dangerous, [D, D, D, C, A]),
            (DangerLevel::Forbidden, [D, D, D, D, C]),
        ];
        for (danger, cells) in rows {
            for (trust, cell) in TrustLevel::ALL.iter().zip(cells) {
                assert_eq!(outcome(danger, *trust), cell, "{danger} at {trust}");
            }
        }
    }

    #[test]
    fn minimum_trust_per_danger_level() {
        let table = [
            (DangerLevel::Safe, TrustLevel::Generated),
            (DangerLevel::Reversible, TrustLevel::Validated),
            (DangerLevel::Destructive, TrustLevel::Validated),
            (DangerLevel::Dangerous, TrustLevel::CommunityReviewed),
            (DangerLevel::Forbidden, TrustLevel::Certified),
        ];
        for (danger, trust) in table {
            assert_eq!(minimum_trust(danger), trust, "{danger}");
        }
    }
}
