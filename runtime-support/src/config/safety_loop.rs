//! The operator's settings of the execution safety loop (SPEC §8.6-8.7): whether it runs and
//! how, the step limit, and the glob patterns matched against each reported action.

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

/// A glob over a reported action: `*` any run of characters, `?` one; case does not count.
/// It matches an action when it matches the whole text or the text from the start of any word,
/// so `delete_*` matches "calling delete_todo on item 4".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob(String);

impl Glob {
    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Parses a non-empty pattern.
    ///
    /// # Errors
    ///
    /// A sentence for the operator.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an empty glob pattern matches nothing useful".to_owned());
        }
        Ok(Self(text.to_lowercase()))
    }

    /// Whether `action` matches.
    pub fn matches(&self, action: &str) -> bool {
        let action: Vec<char> = action.to_lowercase().chars().collect();
        let pattern: Vec<char> = self.0.chars().collect();
        (0..action.len().max(1))
            .filter(|&start| start == 0 || action[start - 1].is_whitespace())
            .any(|start| glob(&pattern, &action[start.min(action.len())..]))
    }
}

/// Iterative wildcard matching with one backtrack point.
fn glob(pattern: &[char], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(c) if *c == '?' || *c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
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
                .map(|pattern| Glob((*pattern).to_owned()))
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
    fn globs_match_the_action_or_a_word_start() {
        let glob = |text: &str| Glob::parse(text).unwrap();
        assert!(glob("delete_*").matches("delete_todo 4"));
        assert!(glob("delete_*").matches("calling DELETE_todo on item 4"));
        assert!(!glob("delete_*").matches("undelete_todo"));
        assert!(glob("rm -rf*").matches("executing shell command: rm -rf /tmp/x"));
        assert!(glob("*force*").matches("git push --force origin main"));
        assert!(glob("get_?ssue").matches("get_issue"));
        assert!(!glob("get_?ssue").matches("get_isue"));
        assert!(glob("*").matches(""));
        assert!(Glob::parse("  ").is_err());
        assert_eq!(LoopMode::parse("monitoring"), Ok(LoopMode::Monitoring));
        assert!(LoopMode::parse("on").is_err());
    }
}
