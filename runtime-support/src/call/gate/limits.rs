//! Rate limits and quotas, checked before the upstream is called (rate-limiting §4).
//!
//! * **Rate limits**: at most `limit` calls per window, from the schema's `rate_limits`
//!   (`burst_limit` is the per-second window), tightened by the operator's `--rate-limit`.
//!   Windows are fixed and aligned to UTC (a minute starts at :00), so `resets_at` is exact.
//! * **The upstream's own word**: `X-RateLimit-Remaining: 0` with `X-RateLimit-Reset` on any
//!   answer, or `Retry-After` on a 429 or 503, stops calls until then (at most an hour ahead).
//! * **Quotas** (the operator's `--quota`): past `warn` calls in a window a success carries a
//!   `RATE_LIMIT_QUOTA_WARNING`; past `pause` each caller must continue with a
//!   `quota_continue_` token once per window; at `hard_stop` calls stop until the window ends.
//!
//! Counters live in the server's state store, shared by every session and, on Redis, by
//! every instance. A call is counted once it passes every check, just before it is sent.

use std::sync::Arc;
use std::time::SystemTime;

pub use aqlgen_model::Window;
use serde_json::{Value, json};

use crate::adapter::RateLimit;
use crate::call::upstream::Backoff;
use crate::clock::{from_unix_seconds, rfc3339, unix_seconds};
use crate::config::Quota;
use crate::error::{AqlError, ErrorCode};
use crate::state::{Store, Unavailable};
use crate::warning::Warning;

/// The limits in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LimitConfig {
    /// Call limits, at most one per window.
    pub rates: Vec<RateLimit>,
    /// Quotas, at most one per window.
    pub quotas: Vec<Quota>,
}

impl LimitConfig {
    /// The schema's limits with the operator's laid over them: for a window both set, the
    /// lower number wins, so an operator can tighten a limit but never loosen what the
    /// upstream allows.
    pub fn merged(schema: &[RateLimit], operator: &[RateLimit], quotas: Vec<Quota>) -> Self {
        let mut rates: Vec<RateLimit> = Vec::new();
        for limit in schema.iter().chain(operator) {
            match rates.iter_mut().find(|known| known.window == limit.window) {
                Some(known) => known.limit = known.limit.min(limit.limit),
                None => rates.push(*limit),
            }
        }
        rates.sort_by_key(|limit| limit.window);
        Self { rates, quotas }
    }
}

/// Why a call may not be sent now.
#[derive(Debug, Clone, PartialEq)]
pub enum Limited {
    /// A rate limit, the upstream's or the adapter's: `RATE_LIMIT_EXCEEDED`.
    Rate(AqlError),
    /// Quotas at their pause threshold that this caller has not continued past.
    Paused(Vec<Pause>),
    /// A quota at its hard stop: `RATE_LIMIT_QUOTA_EXHAUSTED`.
    Exhausted(AqlError),
    /// The state store did not answer, so the call cannot be counted: `INTERNAL_ERROR`.
    Unavailable(AqlError),
}

/// One quota at its pause threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pause {
    /// The quota.
    pub quota: Quota,
    /// Calls counted in its window so far.
    pub current: u64,
    /// Start of the window (Unix seconds), which a continuation covers.
    pub window_start: u64,
}

/// Where the upstream stopped the adapter.
#[derive(Debug, Clone, Copy)]
struct Block {
    until: SystemTime,
    limit: Option<u64>,
}

/// The store's keys of the upstream's block: its end (Unix seconds) and the limit it named.
const BLOCK_KEYS: [&str; 2] = ["block:until", "block:limit"];

/// What the store holds now for the limits in force.
struct Reading {
    /// Calls counted in the current window of each rate limit, in config order.
    rates: Vec<u64>,
    /// The same for each quota.
    quotas: Vec<u64>,
    /// Whether the caller continued past each quota's pause in its current window.
    continued: Vec<bool>,
    block: Option<Block>,
}

/// The limits in force and their counters, kept in the server's [`Store`]: per process, or
/// shared by every instance on one Redis.
#[derive(Debug)]
pub struct Limiter {
    config: LimitConfig,
    store: Arc<Store>,
    /// Prefix of its keys: a bundle member's name and `:`, else empty.
    scope: String,
}

/// The key marking that `caller` continued past a quota's pause in the `window` starting at
/// `start`, and the end of that window.
fn continued_key(caller: &str, window: Window, start: u64) -> (String, SystemTime) {
    (
        format!("continued:{caller}:{window}:{start}"),
        from_unix_seconds(start + window.seconds()),
    )
}

/// The start of the window holding `now` (Unix seconds).
pub fn window_start(window: Window, now: u64) -> u64 {
    now - now % window.seconds()
}

impl Limiter {
    /// The limits of `config`, counted in `store` under keys of `scope` (a bundle member's
    /// name; empty for a single adapter).
    pub fn new(config: LimitConfig, store: Arc<Store>, scope: &str) -> Self {
        let scope = if scope.is_empty() {
            String::new()
        } else {
            format!("{scope}:")
        };
        Self {
            config,
            store,
            scope,
        }
    }

    /// The limits in force.
    pub fn config(&self) -> &LimitConfig {
        &self.config
    }

    /// `key` under this limiter's scope.
    fn scoped(&self, key: &str) -> String {
        format!("{}{key}", self.scope)
    }

    /// The counter keys of the windows holding `now`, rate limits first, each with the end of
    /// its window.
    fn counter_keys(&self, now: u64) -> Vec<(String, SystemTime)> {
        let rates = self.config.rates.iter().map(|limit| ("rate", limit.window));
        let quotas = self
            .config
            .quotas
            .iter()
            .map(|quota| ("quota", quota.window));
        rates
            .chain(quotas)
            .map(|(kind, window)| {
                let start = window_start(window, now);
                (
                    format!("{}{kind}:{window}:{start}", self.scope),
                    from_unix_seconds(start + window.seconds()),
                )
            })
            .collect()
    }

    /// The keys marking that `caller` continued past each quota's pause in the window holding
    /// `now`, each with the end of its window.
    fn continued_keys(&self, caller: &str, now: u64) -> Vec<(String, SystemTime)> {
        self.config
            .quotas
            .iter()
            .map(|quota| continued_key(caller, quota.window, window_start(quota.window, now)))
            .map(|(key, until)| (self.scoped(&key), until))
            .collect()
    }

    /// Reads the counters, `caller`'s continuations (none without a caller) and the
    /// upstream's block in one round trip. Counters fail closed: without the store no counted
    /// call runs. The upstream's block fails open, because the upstream still enforces its
    /// own limit.
    async fn read(&self, now: SystemTime, caller: Option<&str>) -> Result<Reading, Limited> {
        let seconds = unix_seconds(now);
        let continued = caller.map_or_else(Vec::new, |caller| self.continued_keys(caller, seconds));
        let flags = continued.len();
        let keys: Vec<String> = self
            .counter_keys(seconds)
            .into_iter()
            .chain(continued)
            .map(|(key, _)| key)
            .chain(BLOCK_KEYS.map(|key| self.scoped(key)))
            .collect();
        let counts = match self.store.counts(&keys).await {
            Ok(counts) => counts,
            Err(unavailable) if keys.len() > BLOCK_KEYS.len() => {
                return Err(Limited::Unavailable(unavailable.to_error()));
            }
            Err(_) => vec![0; keys.len()],
        };
        let number = |index: usize| u64::try_from(counts[index]).unwrap_or(0);
        let rates = self.config.rates.len();
        let quotas = self.config.quotas.len();
        let counted = rates + quotas;
        let until = number(counted + flags);
        let block = (until > 0).then(|| Block {
            until: from_unix_seconds(until),
            limit: Some(number(counted + flags + 1)).filter(|limit| *limit > 0),
        });
        let mut continued: Vec<bool> = (counted..counted + flags).map(|i| number(i) > 0).collect();
        continued.resize(quotas, false);
        Ok(Reading {
            rates: (0..rates).map(number).collect(),
            quotas: (rates..counted).map(number).collect(),
            continued,
            block,
        })
    }

    /// Whether a call could be sent now, without counting it.
    ///
    /// # Errors
    ///
    /// The first limit in the way, upstream blocks first, then rate limits, then quotas.
    pub async fn check(&self, now: SystemTime, caller: &str) -> Result<(), Limited> {
        let reading = self.read(now, Some(caller)).await?;
        self.verdict(&reading, now).map(|_| ())
    }

    /// Lets `caller` go past the pause of each of `pauses` until its window ends, on every
    /// instance sharing the store.
    ///
    /// # Errors
    ///
    /// When the store does not answer.
    pub async fn continue_past(&self, caller: &str, pauses: &[Pause]) -> Result<(), Unavailable> {
        let keys: Vec<(String, SystemTime)> = pauses
            .iter()
            .map(|pause| continued_key(caller, pause.quota.window, pause.window_start))
            .map(|(key, until)| (self.scoped(&key), until))
            .collect();
        self.store.add(&keys, 1).await.map(|_| ())
    }

    /// Counts the call and checks the counters again, returning the quota warnings its answer
    /// carries. The count moves first, in one atomic step, so instances sharing a store never
    /// let more calls through than a limit allows; a refused call is taken back off.
    ///
    /// # Errors
    ///
    /// As [`Limiter::check`], except the upstream's block, which `check` has seen.
    pub async fn commit(&self, now: SystemTime, caller: &str) -> Result<Vec<Warning>, Limited> {
        let keys = self.counter_keys(unix_seconds(now));
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let counted = self
            .store
            .add(&keys, 1)
            .await
            .map_err(|unavailable| Limited::Unavailable(unavailable.to_error()))?;
        let before = |count: &i64| u64::try_from(count - 1).unwrap_or(0);
        let rates = self.config.rates.len();
        let mut reading = Reading {
            rates: counted[..rates].iter().map(before).collect(),
            quotas: counted[rates..].iter().map(before).collect(),
            continued: vec![false; self.config.quotas.len()],
            block: None,
        };
        let mut verdict = self.verdict(&reading, now);
        if let Err(Limited::Paused(_)) = verdict {
            // Only a caller at a pause needs its continuations read.
            let continued = self.continued_keys(caller, unix_seconds(now));
            let keys: Vec<String> = continued.into_iter().map(|(key, _)| key).collect();
            match self.store.counts(&keys).await {
                Ok(flags) => {
                    reading.continued = flags.iter().map(|flag| *flag > 0).collect();
                    verdict = self.verdict(&reading, now);
                }
                Err(unavailable) => verdict = Err(Limited::Unavailable(unavailable.to_error())),
            }
        }
        if verdict.is_err() && self.store.add(&keys, -1).await.is_err() {
            tracing::warn!("a refused call stays counted: the state store did not answer");
        }
        verdict
    }

    fn verdict(&self, reading: &Reading, now: SystemTime) -> Result<Vec<Warning>, Limited> {
        if let Some(block) = reading.block.filter(|block| block.until > now) {
            let left = block.until.duration_since(now).unwrap_or_default();
            return Err(Limited::Rate(rate_limited(
                block.limit,
                Window::covering(left.as_secs()),
                block.until,
                now,
                "upstream",
            )));
        }
        let seconds = unix_seconds(now);
        for (&current, limit) in reading.rates.iter().zip(&self.config.rates) {
            if current >= limit.limit {
                let resets = window_start(limit.window, seconds) + limit.window.seconds();
                return Err(Limited::Rate(rate_limited(
                    Some(limit.limit),
                    limit.window,
                    from_unix_seconds(resets),
                    now,
                    "adapter",
                )));
            }
        }
        let mut paused = Vec::new();
        let mut warnings = Vec::new();
        let quotas = reading.quotas.iter().zip(&reading.continued);
        for ((&current, &continued), quota) in quotas.zip(&self.config.quotas) {
            let start = window_start(quota.window, seconds);
            if let Some(hard) = quota.hard_stop.filter(|hard| current >= *hard) {
                return Err(Limited::Exhausted(exhausted(quota, current, hard, start)));
            }
            if current >= quota.pause && !continued {
                paused.push(Pause {
                    quota: *quota,
                    current,
                    window_start: start,
                });
            } else if current + 1 >= quota.warn {
                warnings.push(quota_warning(quota, current + 1));
            }
        }
        if paused.is_empty() {
            Ok(warnings)
        } else {
            Err(Limited::Paused(paused))
        }
    }

    /// Keeps the upstream's [`Backoff`] in the store, so every instance on it waits.
    pub async fn block(&self, backoff: Backoff) {
        let [until_key, limit_key] = BLOCK_KEYS.map(|key| self.scoped(key));
        let until = backoff.until;
        let stored = match self
            .store
            .set(&limit_key, &backoff.limit.to_string(), until)
            .await
        {
            Ok(()) => {
                self.store
                    .set(&until_key, &unix_seconds(until).to_string(), until)
                    .await
            }
            Err(unavailable) => Err(unavailable),
        };
        if stored.is_err() {
            tracing::warn!(
                "the upstream's rate-limit block is not kept: the state store did not answer"
            );
        }
    }

    /// The limits and their counters now: `_protocol.quota_status` (rate-limiting §6).
    /// Counters the store cannot read are reported as `null`.
    pub async fn status(&self, now: SystemTime) -> Value {
        let Ok(reading) = self.read(now, None).await else {
            return json!({"api_limits": null, "quotas": null, "upstream_blocked_until": null});
        };
        let seconds = unix_seconds(now);
        let limits: Vec<Value> = reading
            .rates
            .iter()
            .zip(&self.config.rates)
            .map(|(&used, limit)| {
                json!({
                    "window": limit.window.as_str(),
                    "limit": limit.limit,
                    "remaining": limit.limit.saturating_sub(used),
                    "resets_at": rfc3339(from_unix_seconds(
                        window_start(limit.window, seconds) + limit.window.seconds()
                    )),
                })
            })
            .collect();
        let quotas: Vec<Value> = reading
            .quotas
            .iter()
            .zip(&self.config.quotas)
            .map(|(&current, quota)| {
                let status = if quota.hard_stop.is_some_and(|hard| current >= hard) {
                    "exhausted"
                } else if current >= quota.pause {
                    "paused"
                } else if current >= quota.warn {
                    "warn"
                } else {
                    "ok"
                };
                json!({
                    "metric": quota.metric(),
                    "current": current,
                    "warn": quota.warn,
                    "pause": quota.pause,
                    "hard_stop": quota.hard_stop,
                    "status": status,
                    "resets_at": rfc3339(from_unix_seconds(
                        window_start(quota.window, seconds) + quota.window.seconds()
                    )),
                })
            })
            .collect();
        let blocked_until = reading
            .block
            .filter(|block| block.until > now)
            .map(|block| rfc3339(block.until));
        json!({
            "api_limits": limits,
            "quotas": quotas,
            "upstream_blocked_until": blocked_until,
        })
    }
}

/// `RATE_LIMIT_EXCEEDED` with the details error-codes §5.5 names, plus `scope`: `adapter`
/// (the configured limits), `upstream` (what the API said), `confirmation_tokens` or
/// `failed_confirmations` (a session's token caps). `limit` is left out when the upstream did
/// not say it.
pub fn rate_limited(
    limit: Option<u64>,
    window: Window,
    resets_at: SystemTime,
    now: SystemTime,
    scope: &'static str,
) -> AqlError {
    let retry = resets_at
        .duration_since(now)
        .map_or(1, |left| {
            left.as_secs() + u64::from(left.subsec_nanos() > 0)
        })
        .max(1);
    let limit_text = limit.map_or_else(|| "its".to_owned(), |limit| limit.to_string());
    let message = match scope {
        "upstream" => format!(
            "API rate limit exceeded: the upstream API reported its limit used up; retry in {retry} s"
        ),
        "confirmation_tokens" => format!(
            "Rate limit exceeded: a session may be issued {limit_text} confirmation tokens per hour; retry in {retry} s"
        ),
        "failed_confirmations" => format!(
            "Rate limit exceeded: this session failed {limit_text} token redemptions in an hour, so redemptions are refused; retry in {retry} s"
        ),
        _ => format!(
            "API rate limit exceeded: the adapter allows {limit_text} calls per {window}; retry in {retry} s"
        ),
    };
    let mut error = AqlError::new(ErrorCode::RateLimitExceeded, message);
    if let Some(limit) = limit {
        error = error.with_detail("limit", limit);
    }
    error
        .with_detail("remaining", 0)
        .with_detail("window", window.as_str())
        .with_detail("resets_at", rfc3339(resets_at))
        .with_detail("retry_after_seconds", retry)
        .with_detail("scope", scope)
}

fn exhausted(quota: &Quota, current: u64, hard: u64, start: u64) -> AqlError {
    let resets = from_unix_seconds(start + quota.window.seconds());
    AqlError::new(
        ErrorCode::RateLimitQuotaExhausted,
        format!(
            "Quota exhausted: {current} of {hard} calls in this {} are used; calls resume when it ends",
            quota.window
        ),
    )
    .with_detail("metric", quota.metric())
    .with_detail("current", current)
    .with_detail("hard_stop_threshold", hard)
    .with_detail("resets_at", rfc3339(resets))
}

fn quota_warning(quota: &Quota, current: u64) -> Warning {
    let mut warning = Warning::new(
        "RATE_LIMIT_QUOTA_WARNING",
        format!(
            "Approaching quota limit: {current} calls this {}, pause from {}",
            quota.window, quota.pause
        ),
    )
    .with_detail("metric", quota.metric())
    .with_detail("current", current)
    .with_detail("warn_threshold", quota.warn)
    .with_detail("pause_threshold", quota.pause);
    if let Some(hard) = quota.hard_stop {
        warning = warning.with_detail("hard_stop_threshold", hard);
    }
    warning
}

/// `RATE_LIMIT_QUOTA_PAUSE` for `pauses`, carrying the continuation token.
pub fn paused_error(pauses: &[Pause], token: &str, expires_at: &str) -> AqlError {
    let first = &pauses[0];
    let mut error = AqlError::new(
        ErrorCode::RateLimitQuotaPause,
        format!(
            "Quota pause threshold reached: {} calls this {} (pause from {}). To go on, call again with param '{}' set to the token in details",
            first.current,
            first.quota.window,
            first.quota.pause,
            super::QUOTA_PARAM
        ),
    )
    .with_detail("metric", first.quota.metric())
    .with_detail("current", first.current)
    .with_detail("pause_threshold", first.quota.pause)
    .with_detail("confirmation_token", token)
    .with_detail("expires_at", expires_at);
    if let Some(hard) = first.quota.hard_stop {
        error = error.with_detail("hard_stop_threshold", hard);
    }
    error
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderMap, HeaderValue};

    use super::*;
    use crate::call::upstream::backoff::backoff;

    /// What the call line does with an upstream answer of `status` with `headers`.
    async fn observe(limiter: &Limiter, status: u16, headers: &HeaderMap, now: SystemTime) {
        if let Some(backoff) = backoff(status, headers, now) {
            limiter.block(backoff).await;
        }
    }

    const NOON: u64 = 1_800_000_000 - 1_800_000_000 % 86_400 + 43_200;

    fn store() -> Arc<Store> {
        Arc::new(Store::memory())
    }

    fn at(seconds: u64) -> SystemTime {
        from_unix_seconds(seconds)
    }

    #[test]
    fn the_operator_only_tightens() {
        let schema = [RateLimit {
            window: Window::Hour,
            limit: 5000,
        }];
        let operator = [
            RateLimit {
                window: Window::Hour,
                limit: 9000,
            },
            RateLimit {
                window: Window::Minute,
                limit: 10,
            },
        ];
        let merged = LimitConfig::merged(&schema, &operator, Vec::new());
        assert_eq!(
            merged.rates,
            [
                RateLimit {
                    window: Window::Minute,
                    limit: 10
                },
                RateLimit {
                    window: Window::Hour,
                    limit: 5000
                }
            ]
        );
    }

    #[tokio::test]
    async fn a_window_blocks_until_it_resets() {
        let limiter = Limiter::new(
            LimitConfig::merged(
                &[RateLimit {
                    window: Window::Minute,
                    limit: 2,
                }],
                &[],
                Vec::new(),
            ),
            store(),
            "",
        );
        let now = at(NOON + 10);
        assert!(limiter.commit(now, "alice").await.is_ok());
        assert!(limiter.commit(now, "alice").await.is_ok());
        let Err(Limited::Rate(error)) = limiter.commit(now, "alice").await else {
            panic!("third call in the minute is refused");
        };
        assert_eq!(error.details["window"], "minute");
        assert_eq!(error.details["retry_after_seconds"], 50);
        assert_eq!(error.details["resets_at"], rfc3339(at(NOON + 60)));
        assert!(
            limiter.commit(at(NOON + 60), "alice").await.is_ok(),
            "next minute"
        );
    }

    #[tokio::test]
    async fn quota_stages() {
        let quota = Quota {
            window: Window::Day,
            warn: 2,
            pause: 3,
            hard_stop: Some(4),
        };
        let limiter = Limiter::new(LimitConfig::merged(&[], &[], vec![quota]), store(), "");
        let now = at(NOON);
        assert_eq!(limiter.commit(now, "alice").await.map(|w| w.len()), Ok(0));
        assert_eq!(
            limiter.commit(now, "alice").await.map(|w| w.len()),
            Ok(1),
            "call 2 warns"
        );
        assert_eq!(limiter.commit(now, "alice").await.map(|w| w.len()), Ok(1));
        let Err(Limited::Paused(pauses)) = limiter.commit(now, "alice").await else {
            panic!("call 4 pauses");
        };
        assert_eq!(pauses[0].current, 3);
        limiter
            .continue_past("alice", &pauses)
            .await
            .expect("continued");
        let Err(Limited::Paused(_)) = limiter.commit(now, "bob").await else {
            panic!("another caller is still paused");
        };
        assert!(limiter.check(now, "alice").await.is_ok(), "alice continues");
        assert!(limiter.commit(now, "alice").await.is_ok(), "continued");
        let Err(Limited::Exhausted(error)) = limiter.commit(now, "alice").await else {
            panic!("call 5 stops");
        };
        assert_eq!(error.code, ErrorCode::RateLimitQuotaExhausted);
        assert_eq!(error.details["current"], 4);
        assert_eq!(
            limiter.status(now).await["quotas"][0]["status"],
            "exhausted"
        );
        assert!(
            limiter.commit(at(NOON + 86_400), "alice").await.is_ok(),
            "next day"
        );
    }

    #[tokio::test]
    async fn the_upstream_can_stop_calls() {
        let limiter = Limiter::new(LimitConfig::default(), store(), "");
        let now = at(NOON);
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        headers.insert(
            "x-ratelimit-reset",
            HeaderValue::from_str(&(NOON + 30).to_string()).expect("header"),
        );
        headers.insert("x-ratelimit-limit", HeaderValue::from_static("60"));
        observe(&limiter, 200, &headers, now).await;
        let Err(Limited::Rate(error)) = limiter.check(now, "alice").await else {
            panic!("blocked by the upstream");
        };
        assert_eq!(error.details["scope"], "upstream");
        assert_eq!(error.details["retry_after_seconds"], 30);
        assert_eq!(error.details["limit"], 60);
        assert!(limiter.check(at(NOON + 30), "alice").await.is_ok());

        let mut far = HeaderMap::new();
        far.insert("retry-after", HeaderValue::from_static("99999999999"));
        observe(&limiter, 429, &far, now).await;
        let Err(Limited::Rate(error)) = limiter.check(now, "alice").await else {
            panic!("blocked by Retry-After");
        };
        assert_eq!(
            error.details["retry_after_seconds"], 3_600,
            "capped to an hour"
        );
        observe(&limiter, 200, &HeaderMap::new(), now).await;
        assert!(
            limiter.check(now, "alice").await.is_err(),
            "a plain answer does not lift it"
        );
    }
}
