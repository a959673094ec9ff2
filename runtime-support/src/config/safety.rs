//! The operator's settings of the safety gate: policy, limits and quotas, token lifetimes.

use std::path::PathBuf;
use std::time::Duration;

use aqlgen_model::{DangerLevel, TrustLevel, Window};

use super::confirm::ConfirmConfig;
use super::safety_loop::LoopConfig;
use crate::adapter::RateLimit;

/// What the operator sets about the safety gate: trust, policy, token lifetimes, limits and
/// the audit log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SafetyConfig {
    /// The trust level the operator vouches for, over the schema's.
    pub trust_level: Option<TrustLevel>,
    /// Confirm every operation at or above this danger level.
    pub confirm_at: Option<DangerLevel>,
    /// Refuse these danger levels outright.
    pub deny: Vec<DangerLevel>,
    /// Token lifetimes and clock-skew tolerance.
    pub tokens: TokenConfig,
    /// Call limits laid over the schema's (the lower number wins).
    pub rate_limits: Vec<RateLimit>,
    /// Request quotas, at most one per window.
    pub quotas: Vec<Quota>,
    /// Where audit events are appended as JSON lines.
    pub audit_log: Option<PathBuf>,
    /// Who confirms, per danger level.
    pub confirm: ConfirmConfig,
    /// The execution safety loop.
    pub safety_loop: LoopConfig,
}

/// A request quota with its three thresholds (rate-limiting §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// The window counted: `requests_per_<window>`.
    pub window: Window,
    /// Calls after which successes carry a warning.
    pub warn: u64,
    /// Calls after which each caller must continue with a token.
    pub pause: u64,
    /// Calls after which nothing runs until the window ends.
    pub hard_stop: Option<u64>,
}

impl Quota {
    /// The metric name: `requests_per_hour`.
    pub fn metric(&self) -> String {
        format!("requests_per_{}", self.window)
    }

    /// Parses `requests_per_hour=4000/4800/5000` (the hard stop is optional).
    ///
    /// # Errors
    ///
    /// A sentence for the operator saying what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let usage = "expected METRIC=WARN/PAUSE[/HARD_STOP], e.g. requests_per_hour=4000/4800/5000";
        let (metric, thresholds) = text
            .split_once('=')
            .ok_or_else(|| format!("quota '{text}': {usage}"))?;
        let window = metric
            .strip_prefix("requests_per_")
            .and_then(Window::parse)
            .filter(|window| *window != Window::Second)
            .ok_or_else(|| {
                format!(
                    "quota metric '{metric}' is not one of requests_per_minute, requests_per_hour, requests_per_day"
                )
            })?;
        let numbers: Vec<u64> = thresholds
            .split('/')
            .map(|part| part.trim().parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("quota '{text}': thresholds must be whole numbers; {usage}"))?;
        let (warn, pause, hard_stop) = match numbers[..] {
            [warn, pause] => (warn, pause, None),
            [warn, pause, hard] => (warn, pause, Some(hard)),
            _ => return Err(format!("quota '{text}': {usage}")),
        };
        if warn == 0 || warn > pause || hard_stop.is_some_and(|hard| hard < pause) {
            return Err(format!(
                "quota '{text}': thresholds must satisfy 0 < warn <= pause <= hard_stop"
            ));
        }
        Ok(Self {
            window,
            warn,
            pause,
            hard_stop,
        })
    }
}

/// What an operator or schema limit of calls looks like on the command line:
/// `minute=30` (window `second`, `minute`, `hour` or `day`).
///
/// # Errors
///
/// A sentence for the operator saying what is wrong.
pub fn parse_rate_limit(text: &str) -> Result<RateLimit, String> {
    let (window, limit) = text
        .split_once('=')
        .ok_or_else(|| format!("rate limit '{text}': expected WINDOW=CALLS, e.g. minute=30"))?;
    let window = Window::parse(window).ok_or_else(|| {
        format!("rate limit window '{window}' is not one of second, minute, hour, day")
    })?;
    let limit = limit
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|limit| *limit > 0)
        .ok_or_else(|| {
            format!("rate limit '{text}': the number of calls must be a whole number above 0")
        })?;
    Ok(RateLimit { window, limit })
}

/// How long tokens live (confirmation-tokens §5.1): defaults and upper bounds are the
/// specification's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenConfig {
    /// Confirmation of a safe, reversible, destructive or dangerous operation. Default 5 min,
    /// at most 15.
    pub confirmation_ttl: Duration,
    /// Confirmation of a forbidden operation. Default 2 min, at most 5.
    pub forbidden_ttl: Duration,
    /// Quota continuation. Default 5 min, at most 10.
    pub quota_ttl: Duration,
    /// Grace added to every expiry for clocks that disagree. Default 30 s, at most 300.
    pub clock_skew: Duration,
}

impl Default for TokenConfig {
    fn default() -> Self {
        Self {
            confirmation_ttl: Duration::from_secs(300),
            forbidden_ttl: Duration::from_secs(120),
            quota_ttl: Duration::from_secs(300),
            clock_skew: Duration::from_secs(30),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_and_limits_parse() {
        assert_eq!(
            Quota::parse("requests_per_hour=4000/4800/5000"),
            Ok(Quota {
                window: Window::Hour,
                warn: 4000,
                pause: 4800,
                hard_stop: Some(5000)
            })
        );
        assert_eq!(
            Quota::parse("requests_per_day=1/2").map(|q| q.hard_stop),
            Ok(None)
        );
        for bad in [
            "requests_per_hour",
            "requests_per_second=1/2",
            "cost_per_day=1/2",
            "requests_per_hour=5/4",
            "requests_per_hour=1/4/3",
            "requests_per_hour=x/4",
            "requests_per_hour=0/4",
            "requests_per_hour=1/2/3/4",
        ] {
            assert!(Quota::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_rate_limit("minute=30"),
            Ok(RateLimit {
                window: Window::Minute,
                limit: 30
            })
        );
        for bad in ["minute", "week=3", "minute=0", "minute=-1"] {
            assert!(parse_rate_limit(bad).is_err(), "{bad}");
        }
    }
}
