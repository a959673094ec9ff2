//! State that outlives one request: confirmation and quota tokens, rate-limit and quota
//! counters, upstream blocks and the cursor signing key.
//!
//! The store is a small key-value contract with expiring entries, so the meaning of every
//! entry lives once, beside its user ([`crate::call::gate::tokens`], [`crate::call::gate::limits`]), and a
//! backend only keeps strings:
//!
//! * [`memory`] (the default): one process, gone with it, or kept in a [`journal`] file
//!   (`--state file:PATH`) so it survives restarts;
//! * `redis` (`--state redis://…`, feature `redis`): shared by every instance pointing at the
//!   same server.
//!   Single use holds across instances because a token is consumed with one atomic
//!   set-if-absent, and counters move with one atomic increment.
//!
//! A Redis operation is bounded by a timeout. A store that cannot answer yields
//! [`Unavailable`]; callers fail closed on it (no token, no confirmed call, no counted call).

mod journal;
pub mod memory;
#[cfg(feature = "redis")]
pub mod redis;

use std::time::{Duration, SystemTime};

pub use crate::config::Backend;
use crate::digest::{hex, key_from_hex};
use crate::error::{AqlError, ErrorCode};

/// The store could not answer in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unavailable;

impl Unavailable {
    /// What the client is told: nothing ran, and the call may be retried.
    pub fn to_error(self) -> AqlError {
        AqlError::new(
            ErrorCode::InternalError,
            "Internal error: the adapter's shared state is unreachable, so the call was not run; retry shortly",
        )
        .with_detail("retryable", true)
        .with_detail("reason", "state_unavailable")
    }
}

impl From<Unavailable> for AqlError {
    fn from(unavailable: Unavailable) -> Self {
        unavailable.to_error()
    }
}

/// The backends, one enum so each call is a plain match.
pub enum Store {
    /// In this process.
    Memory(memory::Memory),
    /// On a Redis server.
    #[cfg(feature = "redis")]
    Redis(redis::RedisStore),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Memory(_) => "memory",
            #[cfg(feature = "redis")]
            Self::Redis(_) => "redis",
        })
    }
}

impl Store {
    /// The store `backend` names, with keys under `adapter`'s prefix. A Redis server that does
    /// not answer yet is not an error: the store reconnects on use.
    #[cfg_attr(
        not(feature = "redis"),
        expect(
            unused_variables,
            reason = "only Redis keys carry the adapter's prefix"
        )
    )]
    pub async fn open(backend: &Backend, adapter: &str) -> Result<Self, String> {
        match backend {
            Backend::Memory => Ok(Self::Memory(memory::Memory::default())),
            Backend::File(path) => Ok(Self::Memory(memory::Memory::on_file(path)?)),
            #[cfg(feature = "redis")]
            Backend::Redis(url) => Ok(Self::Redis(redis::RedisStore::open(url, adapter).await?)),
            #[cfg(not(feature = "redis"))]
            Backend::Redis(_) => Err(crate::config::NO_REDIS.to_owned()),
        }
    }

    /// Whether every instance pointing at the same backend shares what is stored.
    pub fn is_shared(&self) -> bool {
        match self {
            Self::Memory(_) => false,
            #[cfg(feature = "redis")]
            Self::Redis(_) => true,
        }
    }

    /// An in-process store, for tests.
    #[cfg(test)]
    pub fn memory() -> Self {
        Self::Memory(memory::Memory::default())
    }

    /// The text under `key`, if it has not expired.
    pub async fn get(&self, key: &str) -> Result<Option<String>, Unavailable> {
        match self {
            Self::Memory(store) => Ok(store.get(key)),
            #[cfg(feature = "redis")]
            Self::Redis(store) => store.get(key).await,
        }
    }

    /// The numbers under `keys`, 0 for missing or expired ones.
    pub async fn counts(&self, keys: &[String]) -> Result<Vec<i64>, Unavailable> {
        match self {
            Self::Memory(store) => Ok(store.counts(keys)),
            #[cfg(feature = "redis")]
            Self::Redis(store) => store.counts(keys).await,
        }
    }

    /// Sets `key` to `value` until `until`.
    pub async fn set(&self, key: &str, value: &str, until: SystemTime) -> Result<(), Unavailable> {
        match self {
            Self::Memory(store) => store.set(key, value, until),
            #[cfg(feature = "redis")]
            Self::Redis(store) => store.set(key, value, until).await,
        }
    }

    /// Sets `key` to `value` until `until` only if it holds nothing: whether it did, decided
    /// atomically for every instance.
    pub async fn set_new(
        &self,
        key: &str,
        value: &str,
        until: SystemTime,
    ) -> Result<bool, Unavailable> {
        match self {
            Self::Memory(store) => store.set_new(key, value, until),
            #[cfg(feature = "redis")]
            Self::Redis(store) => store.set_new(key, value, until).await,
        }
    }

    /// Adds `delta` to the number under each key (missing counts as 0), each kept until its
    /// `until`, in one atomic step; returns the new numbers.
    pub async fn add(
        &self,
        keys: &[(String, SystemTime)],
        delta: i64,
    ) -> Result<Vec<i64>, Unavailable> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        match self {
            Self::Memory(store) => store.add(keys, delta),
            #[cfg(feature = "redis")]
            Self::Redis(store) => store.add(keys, delta).await,
        }
    }

    /// Whether the store answers now.
    #[cfg(feature = "http")]
    pub async fn ping(&self) -> Result<(), Unavailable> {
        match self {
            Self::Memory(store) if store.healthy() => Ok(()),
            Self::Memory(_) => Err(Unavailable),
            #[cfg(feature = "redis")]
            Self::Redis(store) => store.ping().await,
        }
    }
}

/// How long a shared key is kept: long enough that a fleet never sees it change while running.
const KEY_LIFETIME: Duration = Duration::from_secs(10 * 365 * 86_400);

/// The key named `name` that every instance on `store` shares, drawing `fresh` when none is
/// kept yet; `None` when the store does not answer.
pub async fn shared_key(store: &Store, name: &str, fresh: &[u8; 32]) -> Option<[u8; 32]> {
    let until = SystemTime::now() + KEY_LIFETIME;
    store.set_new(name, &hex(fresh), until).await.ok()?;
    store
        .get(name)
        .await
        .ok()
        .flatten()
        .as_deref()
        .and_then(key_from_hex)
}

/// Milliseconds since the epoch, as stores keep expiry times.
pub(crate) fn unix_millis(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn backends_parse_and_hide_their_urls() {
        assert_eq!(Backend::parse("memory"), Ok(Backend::Memory));
        assert_eq!(Backend::parse(""), Ok(Backend::Memory));
        let redis = Backend::parse("redis://:secret@127.0.0.1:6379/0").expect("redis");
        assert_eq!(redis.describe(), "redis");
        assert!(Backend::parse("postgres://x").is_err());
        let file = PathBuf::from("/var/lib/aqlgen/state.jsonl");
        assert_eq!(
            Backend::parse("file:/var/lib/aqlgen/state.jsonl"),
            Ok(Backend::File(file.clone()))
        );
        assert_eq!(
            Backend::parse("file:///var/lib/aqlgen/state.jsonl"),
            Ok(Backend::File(file))
        );
        assert!(Backend::parse("file:").is_err());
    }
}
