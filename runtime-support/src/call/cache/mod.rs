//! The response cache (universal-adapter-runtime §10.5): answers of READ operations sent as
//! `GET` are kept and served again while fresh, revalidated once stale, and dropped when any
//! other operation of their adapter is called.
//!
//! * **Keyed** by operation, the exact request (path, query, header and cookie params) and
//!   the upstream credential it was sent with: one credential's answers never serve another.
//! * **Freshness** from `Cache-Control` / `Expires` / `Age`, or the operator's `--cache-ttl`
//!   (see [`freshness`]); `no-store` answers are never kept.
//! * **Revalidation**: a stale answer with an `ETag` or `Last-Modified` is asked about with
//!   `If-None-Match` / `If-Modified-Since`; a 304 refreshes it.
//! * **Invalidation**: every call of an operation that is not a READ (CREATE, UPDATE, DELETE,
//!   EXECUTE, whatever its method and path) that reaches the upstream bumps a generation of
//!   its adapter; a kept answer of an older generation is not served. A write may change any
//!   resource (a bulk delete, `complete_todo` behind `POST /todos/{id}/complete`, a counter
//!   elsewhere), and the schema does not say which, so no answer of the adapter outlives one.
//!   The generation is read before the upstream is asked, so an answer that raced a write is
//!   kept under the old one and never served.
//! * **Where**: with Redis state, answers and generations live in Redis, shared by every
//!   instance; otherwise in this process (never in a state file). Each instance keeps at most
//!   `--cache-max-bytes` of answers it stored, dropping the least recently used first.
//!
//! The agent learns of a kept answer from a `RESPONSE_FROM_CACHE` warning with its age;
//! `/metrics` counts hits, revalidations and misses.

mod freshness;
mod lru;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::metrics::{CacheOutcome, Metrics};
use super::trace::{TRACEPARENT, TRACESTATE};
use super::upstream::{Answer, Credential, Exchange, FreshnessHeaders, Preconditions, Upstream};
use crate::adapter::{Category, Method, Route, UpstreamRequest};
use crate::config::{CacheConfig, CacheTtl};
use crate::digest::{credential_id, hex};
use crate::state::{Store, memory::Memory, unix_millis};
use crate::sync::Unpoisoned as _;
use crate::warning::Warning;
use freshness::{Keep, Lifetimes};
use lru::Lru;

/// The warning code on an answer served from the cache.
pub const FROM_CACHE: &str = "RESPONSE_FROM_CACHE";

/// Longest an answer is fresh, whatever the upstream says.
const MAX_FRESH: Duration = Duration::from_secs(86_400);

/// How long a stale answer that can be revalidated is kept past its freshness.
const KEEP_STALE: Duration = Duration::from_secs(3_600);

/// How long a path's generation is kept: longer than any answer it could make stale.
const GENERATION_LIFETIME: Duration = Duration::from_secs(86_400 + 2 * 3_600);

/// The bytes an entry costs beyond its texts.
const ENTRY_OVERHEAD: u64 = 256;

/// The response cache of one server.
pub struct Cache {
    ttl: CacheTtl,
    /// Answers too large to be worth a quarter of the bound are not kept.
    max_entry_bytes: u64,
    place: Place,
    /// Path generations: the shared store with Redis, else one of this process.
    generations: Arc<Store>,
    metrics: Arc<Metrics>,
}

/// Where answers are kept.
enum Place {
    /// In this process.
    Local(Mutex<Lru<Entry>>),
    /// In the shared store; the index holds what this instance stored, for its bound.
    Shared {
        store: Arc<Store>,
        index: Mutex<Lru<()>>,
    },
}

/// One kept answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    body: String,
    etag: Option<String>,
    link: Option<String>,
    freshness: FreshnessHeaders,
    /// When the upstream last answered or confirmed it (ms since the epoch).
    checked: u64,
    /// Until when it is served without asking (ms since the epoch).
    fresh_until: u64,
    /// The generation of its adapter it was fetched under.
    generation: i64,
}

impl Entry {
    fn answer(&self) -> Answer {
        Answer {
            status: 200,
            body: self.body.clone(),
            etag: self.etag.clone(),
            link: self.link.clone(),
            location: None,
            freshness: self.freshness.clone(),
        }
    }

    fn size(&self) -> u64 {
        let texts = self.body.len()
            + self.etag.as_ref().map_or(0, String::len)
            + self.link.as_ref().map_or(0, String::len);
        u64::try_from(texts).unwrap_or(u64::MAX) + ENTRY_OVERHEAD
    }

    fn preconditions(&self) -> Option<Preconditions<'_>> {
        let preconditions = Preconditions {
            if_none_match: self.etag.as_deref(),
            if_modified_since: self.freshness.last_modified.as_deref(),
            ..Preconditions::default()
        };
        (preconditions.if_none_match.is_some() || preconditions.if_modified_since.is_some())
            .then_some(preconditions)
    }
}

/// What an operation's request does to the cache.
enum Role {
    /// A READ sent as `GET`: served from the cache when it can be.
    Read,
    /// A READ sent with another method (a search by `POST`, say): neither kept nor a change.
    Uncached,
    /// Any other category: it may change any of its adapter's resources.
    Write,
}

impl Cache {
    /// The cache `config` describes, on `store` when that is shared by a fleet; `None` when
    /// the operator turned it off.
    pub fn new(config: &CacheConfig, store: &Arc<Store>, metrics: Arc<Metrics>) -> Option<Self> {
        if !config.enabled {
            return None;
        }
        let (place, generations) = if store.is_shared() {
            let place = Place::Shared {
                store: store.clone(),
                index: Mutex::new(Lru::new(config.max_bytes)),
            };
            (place, store.clone())
        } else {
            let place = Place::Local(Mutex::new(Lru::new(config.max_bytes)));
            (place, Arc::new(Store::Memory(Memory::default())))
        };
        Some(Self {
            ttl: config.ttl.clone(),
            max_entry_bytes: config.max_bytes / 4,
            place,
            generations,
            metrics,
        })
    }

    /// Sends `request` of `route` through the cache: a READ may be answered from it (with
    /// the warning that says so), any other operation invalidates its adapter's answers.
    pub async fn fetch(
        &self,
        upstream: &Upstream,
        route: &Route,
        request: UpstreamRequest,
        preconditions: Preconditions<'_>,
        credential: &Credential<'_>,
    ) -> (Exchange, Option<Warning>) {
        match role(route, &request) {
            Role::Read => self.read(upstream, route, request, credential).await,
            Role::Write => {
                let exchange = upstream.send(request, preconditions, credential).await;
                if exchange.reached.is_some() {
                    self.written(route.member).await;
                }
                (exchange, None)
            }
            Role::Uncached => (
                upstream.send(request, preconditions, credential).await,
                None,
            ),
        }
    }

    async fn read(
        &self,
        upstream: &Upstream,
        route: &Route,
        request: UpstreamRequest,
        credential: &Credential<'_>,
    ) -> (Exchange, Option<Warning>) {
        let key = entry_key(route.operation, &request, credential);
        let generation_key = generation_key(route.member);
        // Read before the upstream is asked: a mutation meanwhile makes this answer stale.
        let generation = self.generation(&generation_key).await;
        let kept = match generation {
            Some(generation) => self
                .entry(&key)
                .await
                .filter(|entry| entry.generation == generation),
            None => None,
        };
        let now = unix_millis(SystemTime::now());
        if let Some(entry) = &kept
            && entry.fresh_until > now
        {
            self.metrics.cache(CacheOutcome::Hit);
            let age = Duration::from_millis(now.saturating_sub(entry.checked));
            let exchange = Exchange {
                answer: Ok(entry.answer()),
                reached: None,
                backoff: None,
            };
            return (exchange, Some(from_cache(age, false)));
        }
        let lifetimes = Lifetimes {
            operation: self.ttl.for_operation(route.operation),
            fallback: self.ttl.default,
        };
        let preconditions = kept
            .as_ref()
            .and_then(Entry::preconditions)
            .unwrap_or_default();
        let mut exchange = upstream.send(request, preconditions, credential).await;
        let Ok(answer) = &exchange.answer else {
            self.metrics.cache(CacheOutcome::Miss);
            return (exchange, None);
        };
        match (answer.status, kept) {
            (304, Some(mut entry)) => {
                self.metrics.cache(CacheOutcome::Revalidated);
                entry.freshness = refreshed(&entry.freshness, &answer.freshness);
                let answer = entry.answer();
                if let Some(generation) = generation {
                    self.keep(key, entry, generation, lifetimes).await;
                }
                exchange.answer = Ok(answer);
                (exchange, Some(from_cache(Duration::ZERO, true)))
            }
            (200, _) => {
                self.metrics.cache(CacheOutcome::Miss);
                if let Some(generation) = generation {
                    let entry = Entry {
                        body: answer.body.clone(),
                        etag: answer.etag.clone(),
                        link: answer.link.clone(),
                        freshness: answer.freshness.clone(),
                        checked: 0,
                        fresh_until: 0,
                        generation,
                    };
                    self.keep(key, entry, generation, lifetimes).await;
                }
                (exchange, None)
            }
            _ => {
                self.metrics.cache(CacheOutcome::Miss);
                (exchange, None)
            }
        }
    }

    /// Keeps `entry` under `key` as its headers and `lifetimes` allow, as just checked.
    async fn keep(&self, key: String, mut entry: Entry, generation: i64, lifetimes: Lifetimes) {
        let now = SystemTime::now();
        let Keep::For {
            fresh_for,
            validates,
        } = freshness::keep(&entry.freshness, entry.etag.as_deref(), lifetimes, now)
        else {
            self.forget(&key).await;
            return;
        };
        if entry.size() > self.max_entry_bytes {
            return;
        }
        let fresh_until = now + fresh_for.min(MAX_FRESH);
        let until = if validates {
            fresh_until + KEEP_STALE
        } else {
            fresh_until
        };
        entry.checked = unix_millis(now);
        entry.fresh_until = unix_millis(fresh_until);
        entry.generation = generation;
        let size = entry.size();
        match &self.place {
            Place::Local(lru) => {
                lru.locked().insert(key, entry, size);
            }
            Place::Shared { store, index } => {
                let Ok(text) = serde_json::to_string(&entry) else {
                    return;
                };
                if store.set(&key, &text, until).await.is_ok() {
                    let dropped = index.locked().insert(key, (), size);
                    for key in dropped {
                        let _ = store.set(&key, "", now).await;
                    }
                }
            }
        }
    }

    async fn entry(&self, key: &str) -> Option<Entry> {
        match &self.place {
            Place::Local(lru) => lru.locked().get(key).cloned(),
            Place::Shared { store, index } => {
                let text = store.get(key).await.ok().flatten()?;
                index.locked().get(key);
                serde_json::from_str(&text).ok()
            }
        }
    }

    async fn forget(&self, key: &str) {
        match &self.place {
            Place::Local(lru) => lru.locked().remove(key),
            Place::Shared { store, index } => {
                index.locked().remove(key);
                let _ = store.set(key, "", SystemTime::now()).await;
            }
        }
    }

    /// The generation behind `key`; `None` when the store does not answer, and then nothing
    /// is served from or kept in the cache.
    async fn generation(&self, key: &str) -> Option<i64> {
        self.generations
            .counts(&[key.to_owned()])
            .await
            .ok()?
            .first()
            .copied()
    }

    /// A write of adapter `member` reached its upstream: every answer of it kept so far is
    /// stale.
    async fn written(&self, member: usize) {
        let until = SystemTime::now() + GENERATION_LIFETIME;
        let keys = [(generation_key(member), until)];
        if self.generations.add(&keys, 1).await.is_err() {
            tracing::warn!(
                "the cache could not note a change: its answers may be served until they go stale"
            );
        }
    }
}

fn role(route: &Route, request: &UpstreamRequest) -> Role {
    match (request.method, route.category) {
        (Method::Get, Category::Read) => Role::Read,
        (_, Category::Read) => Role::Uncached,
        (_, Category::Create | Category::Update | Category::Delete | Category::Execute) => {
            Role::Write
        }
    }
}

/// The 304's headers over the kept ones: what it sends anew replaces, its `Date` and `Age`
/// describe it alone.
fn refreshed(kept: &FreshnessHeaders, fresh: &FreshnessHeaders) -> FreshnessHeaders {
    FreshnessHeaders {
        cache_control: fresh.cache_control.clone().or(kept.cache_control.clone()),
        expires: fresh.expires.clone().or(kept.expires.clone()),
        date: fresh.date.clone(),
        age: fresh.age.clone(),
        last_modified: fresh.last_modified.clone().or(kept.last_modified.clone()),
        vary: fresh.vary.clone().or(kept.vary.clone()),
    }
}

fn from_cache(age: Duration, revalidated: bool) -> Warning {
    let seconds = age.as_secs();
    let message = if revalidated {
        "Served from the adapter's cache: the upstream API confirmed just now it is unchanged"
            .to_owned()
    } else {
        format!("Served from the adapter's cache: the upstream API answered this {seconds} s ago")
    };
    Warning::new(FROM_CACHE, message)
        .with_detail("age_seconds", seconds)
        .with_detail("revalidated", revalidated)
}

/// The key of `operation`'s answer to `request` sent with `credential`.
fn entry_key(operation: &str, request: &UpstreamRequest, credential: &Credential<'_>) -> String {
    let mut hasher = Sha256::new();
    let mut field = |text: &str| {
        hasher.update(text.len().to_le_bytes());
        hasher.update(text.as_bytes());
    };
    field(operation);
    field(&request.path);
    for (name, value) in &request.query {
        field(name);
        field(value);
    }
    field("headers");
    for (name, value) in &request.headers {
        // Which trace a request belongs to does not change its answer.
        if *name != TRACEPARENT && *name != TRACESTATE {
            field(name);
            field(value);
        }
    }
    field("cookies");
    for (name, value) in &request.cookies {
        field(name);
        field(value);
    }
    match credential {
        Credential::Environment => field("server"),
        Credential::Request(value) => field(&credential_id(value)),
    }
    format!("cache:{}", hex(&hasher.finalize()))
}

/// The key of adapter `member`'s generation (the store adds the server's own prefix).
fn generation_key(member: usize) -> String {
    format!("cache-generation:{member}")
}
