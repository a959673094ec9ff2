//! What an upstream answer says about keeping it, read as a private cache reads it (RFC 9111):
//! the adapter keeps answers per upstream credential, so it is the cache of that credential's
//! holder, and `private` answers may be kept; `no-store` ones never are.

use std::time::{Duration, SystemTime};

use crate::call::upstream::FreshnessHeaders;

/// How an answer may be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Not at all: `no-store`, `Vary: *`, or neither a lifetime nor a validator to ask with.
    No,
    /// Fresh for `fresh_for` from now; after that, only after the upstream says it is
    /// unchanged (`validates`: it gave an `ETag` or `Last-Modified` to ask with).
    For {
        /// How long it may be served without asking the upstream.
        fresh_for: Duration,
        /// Whether a stale copy can be revalidated.
        validates: bool,
    },
}

/// How [`keep`] reads an answer's headers: the lifetime the operator gives the operation,
/// which wins, and the one for answers the upstream gives none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lifetimes {
    /// The operator's lifetime for this operation (`--cache-ttl OPERATION=SECONDS`).
    pub operation: Option<Duration>,
    /// The operator's lifetime for answers without freshness (`--cache-ttl SECONDS`).
    pub fallback: Option<Duration>,
}

/// How the answer with `headers` (and `etag`), received at `now`, may be kept.
pub fn keep(
    headers: &FreshnessHeaders,
    etag: Option<&str>,
    lifetimes: Lifetimes,
    now: SystemTime,
) -> Keep {
    let directives = Directives::parse(headers.cache_control.as_deref().unwrap_or_default());
    let vary_all = headers
        .vary
        .as_deref()
        .is_some_and(|vary| vary.split(',').any(|name| name.trim() == "*"));
    if directives.no_store || vary_all {
        return Keep::No;
    }
    let validates = etag.is_some() || headers.last_modified.is_some();
    let upstream = if directives.no_cache {
        Some(Duration::ZERO)
    } else if let Some(max_age) = directives.max_age {
        Some(Duration::from_secs(max_age))
    } else {
        headers.expires.as_deref().map(|expires| {
            let date = headers
                .date
                .as_deref()
                .and_then(|date| httpdate::parse_http_date(date).ok())
                .unwrap_or(now);
            // An `Expires` that is no date (e.g. "0") means already expired.
            httpdate::parse_http_date(expires)
                .ok()
                .and_then(|expires| expires.duration_since(date).ok())
                .unwrap_or(Duration::ZERO)
        })
    };
    let lifetime = match (lifetimes.operation, directives.no_cache) {
        (Some(operation), false) => operation,
        _ => upstream.or(lifetimes.fallback).unwrap_or(Duration::ZERO),
    };
    let age = headers
        .age
        .as_deref()
        .and_then(|age| age.trim().parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_secs);
    let fresh_for = lifetime.saturating_sub(age);
    if fresh_for.is_zero() && !validates {
        Keep::No
    } else {
        Keep::For {
            fresh_for,
            validates,
        }
    }
}

/// The `Cache-Control` directives a private cache acts on.
#[derive(Debug, Default, PartialEq, Eq)]
struct Directives {
    no_store: bool,
    no_cache: bool,
    max_age: Option<u64>,
}

impl Directives {
    fn parse(text: &str) -> Self {
        let mut directives = Self::default();
        for directive in text.split(',') {
            let (name, value) = directive
                .split_once('=')
                .map_or((directive, None), |(name, value)| (name, Some(value)));
            let value = value.map(|value| value.trim().trim_matches('"'));
            match name.trim().to_ascii_lowercase().as_str() {
                "no-store" => directives.no_store = true,
                // `no-cache="field"` only forbids reusing those fields without asking; the
                // adapter keeps whole answers, so any form means: ask first.
                "no-cache" => directives.no_cache = true,
                "max-age" => {
                    // A max-age that is no number makes the answer stale (RFC 9111 §4.2.1).
                    directives.max_age = Some(value.and_then(|v| v.parse().ok()).unwrap_or(0));
                }
                _ => {}
            }
        }
        directives
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(cache_control: &str) -> FreshnessHeaders {
        FreshnessHeaders {
            cache_control: Some(cache_control.to_owned()),
            ..FreshnessHeaders::default()
        }
    }

    fn fresh(seconds: u64, validates: bool) -> Keep {
        Keep::For {
            fresh_for: Duration::from_secs(seconds),
            validates,
        }
    }

    const NONE: Lifetimes = Lifetimes {
        operation: None,
        fallback: None,
    };

    #[test]
    fn cache_control_decides_first() {
        let now = SystemTime::now();
        assert_eq!(
            keep(
                &headers("private, max-age=60, s-maxage=60"),
                None,
                NONE,
                now
            ),
            fresh(60, false)
        );
        assert_eq!(
            keep(&headers("no-store, max-age=60"), Some("\"a\""), NONE, now),
            Keep::No
        );
        assert_eq!(
            keep(&headers("no-cache"), Some("\"a\""), NONE, now),
            fresh(0, true)
        );
        assert_eq!(keep(&headers("no-cache"), None, NONE, now), Keep::No);
        assert_eq!(keep(&headers("max-age=abc"), None, NONE, now), Keep::No);
        let aged = FreshnessHeaders {
            age: Some("50".to_owned()),
            ..headers("max-age=60")
        };
        assert_eq!(keep(&aged, None, NONE, now), fresh(10, false));
        let vary = FreshnessHeaders {
            vary: Some("Accept, *".to_owned()),
            ..headers("max-age=60")
        };
        assert_eq!(keep(&vary, None, NONE, now), Keep::No);
    }

    #[test]
    fn expires_counts_from_the_date_sent() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let date = httpdate::fmt_http_date(now - Duration::from_secs(3600));
        let expires = httpdate::fmt_http_date(now - Duration::from_secs(3600 - 120));
        let sent = FreshnessHeaders {
            date: Some(date),
            expires: Some(expires),
            ..FreshnessHeaders::default()
        };
        assert_eq!(keep(&sent, None, NONE, now), fresh(120, false));
        let invalid = FreshnessHeaders {
            expires: Some("0".to_owned()),
            last_modified: Some("Tue, 15 Nov 1994 12:45:26 GMT".to_owned()),
            ..FreshnessHeaders::default()
        };
        assert_eq!(keep(&invalid, None, NONE, now), fresh(0, true));
    }

    #[test]
    fn the_operator_fills_in_and_overrides_but_never_stores_no_store() {
        let now = SystemTime::now();
        let operator = Lifetimes {
            operation: Some(Duration::from_secs(5)),
            fallback: Some(Duration::from_secs(30)),
        };
        let fallback = Lifetimes {
            operation: None,
            ..operator
        };
        let silent = FreshnessHeaders::default();
        assert_eq!(keep(&silent, None, NONE, now), Keep::No);
        assert_eq!(keep(&silent, Some("\"e\""), NONE, now), fresh(0, true));
        assert_eq!(keep(&silent, None, fallback, now), fresh(30, false));
        assert_eq!(
            keep(&headers("max-age=60"), None, fallback, now),
            fresh(60, false)
        );
        assert_eq!(
            keep(&headers("max-age=60"), None, operator, now),
            fresh(5, false)
        );
        assert_eq!(keep(&headers("no-store"), None, operator, now), Keep::No);
    }
}
