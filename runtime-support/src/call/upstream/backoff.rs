//! What an upstream says about its own rate limits: `X-RateLimit-Remaining: 0` with
//! `X-RateLimit-Reset` on any answer, `Retry-After` on a 429 or 503. The call line hands the
//! [`Backoff`] to the rate limiter, which keeps every instance waiting until then.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use crate::clock::unix_seconds;

/// The furthest ahead an upstream can make the adapter wait: an hour, so one wrong or hostile
/// reset time (which a file or Redis store keeps across restarts) costs an hour, not a day;
/// an API whose quota resets later is asked again once an hour, and blocks again.
pub const MAX_UPSTREAM_BLOCK: Duration = Duration::from_secs(3_600);

/// The upstream asked for no calls until `until`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// When calls may go again: at most [`MAX_UPSTREAM_BLOCK`] ahead.
    pub until: SystemTime,
    /// The limit the upstream named (`X-RateLimit-Limit`), 0 when it named none.
    pub limit: u64,
}

/// The wait an answer of `status` with `headers` asks for, received at `now`: `X-RateLimit-Reset`
/// (Unix seconds; small values count as seconds from now) when `X-RateLimit-Remaining` is 0,
/// `Retry-After` on a 429 or 503, the longer of the two.
pub fn backoff(status: u16, headers: &HeaderMap, now: SystemTime) -> Option<Backoff> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let number = |name: &str| header(name).and_then(|text| text.trim().parse::<u64>().ok());
    let mut wait: Option<u64> = None;
    if number("x-ratelimit-remaining") == Some(0)
        && let Some(reset) = number("x-ratelimit-reset")
    {
        wait = Some(if reset < 1_000_000_000 {
            reset
        } else {
            reset.saturating_sub(unix_seconds(now))
        });
    }
    if matches!(status, 429 | 503)
        && let Some(seconds) =
            header("retry-after").and_then(|value| retry_after_seconds(value, now))
    {
        wait = Some(wait.map_or(seconds, |wait| wait.max(seconds)));
    }
    let wait = wait.filter(|wait| *wait > 0)?;
    if wait > MAX_UPSTREAM_BLOCK.as_secs() {
        tracing::warn!(
            wait_seconds = wait,
            "the upstream asked for a wait of more than an hour; waiting an hour, then asking again"
        );
    }
    Some(Backoff {
        until: now + Duration::from_secs(wait).min(MAX_UPSTREAM_BLOCK),
        limit: number("x-ratelimit-limit").unwrap_or(0),
    })
}

/// `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in whole seconds from
/// `now`, rounded up; a date in the past gives 0, and no wait is longer than an hour.
pub fn retry_after_seconds(value: &str, now: SystemTime) -> Option<u64> {
    let value = value.trim();
    let seconds = match value.parse::<u64>() {
        Ok(seconds) => seconds,
        Err(_) => {
            let when = httpdate::parse_http_date(value).ok()?;
            let wait = when.duration_since(now).unwrap_or(Duration::ZERO);
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        }
    };
    Some(seconds.min(MAX_UPSTREAM_BLOCK.as_secs()))
}
