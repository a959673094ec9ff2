//! What the safety loop keeps in the state store: each agent's execution, pause and hard
//! block, by agent name (a block holds for the agent, not for one execution or session, and
//! survives restarts with the file or Redis store), and the `danger_zone` notifications
//! broadcast to every executing agent of the same caller, numbered by an atomic counter so
//! instances agree.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::evaluate::PauseKind;
use crate::clock::rfc3339;
use crate::state::{Store, Unavailable};

/// How long an agent's record is kept after its last change: as long as a shared key, so a
/// block never lapses on its own.
const KEPT: Duration = Duration::from_secs(10 * 365 * 86_400);
/// How long a broadcast waits for agents to pull it.
const BROADCAST_KEPT: Duration = Duration::from_secs(86_400);
/// Broadcasts delivered at most in one answer: the newest.
const MAX_DELIVERED: i64 = 20;
/// The key of `owner`'s broadcast counter: a caller's agents hear of its own blocks only.
fn sequence(owner: &str) -> String {
    format!("loop-danger-zone-seq:{owner}")
}

/// The key of `owner`'s broadcast `number`.
fn broadcast_key(owner: &str, number: i64) -> String {
    format!("loop-danger-zone:{owner}:{number}")
}

/// One agent's state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    /// The running execution, if any.
    #[serde(default)]
    pub execution: Option<Execution>,
    /// Why it waits for a person's approval, if it does.
    #[serde(default)]
    pub pause: Option<Pause>,
    /// Why it is hard-blocked, if it is.
    #[serde(default)]
    pub block: Option<Block>,
    /// The last broadcast delivered to it.
    #[serde(default)]
    pub seen: i64,
}

/// A monitored execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    /// `exe_<hex>`.
    pub id: String,
    /// RFC 3339.
    pub started_at: String,
    /// Steps reported since it started or a person last approved a step-limit pause.
    pub steps: u64,
}

/// A pause a person lifts with `confirm_operation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pause {
    /// Which stage paused it.
    pub kind: PauseKind,
    /// Why.
    pub reason: String,
    /// The action it wanted to take.
    pub action: String,
}

/// A hard block a person lifts with `verify_challenge`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Why.
    pub reason: String,
    /// The action it wanted to take.
    pub action: String,
    /// The live challenge, until it is tried or expires.
    #[serde(default)]
    pub challenge: Option<Live>,
}

/// A challenge's id and expiry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Live {
    /// `chl_<hex>`.
    pub id: String,
    /// RFC 3339.
    pub expires_at: String,
    /// Milliseconds since the epoch.
    pub expires_ms: u64,
}

/// Where the agent `name` of `owner` ([`crate::call::Caller::owner`]) is kept: each
/// caller's agents are its own, whatever names another caller gives its agents.
fn key(owner: &str, name: &str) -> String {
    format!("loop-agent:{owner}:{name}")
}

/// `owner`'s agent named `name`; a new one when none is kept.
pub async fn load(store: &Store, owner: &str, name: &str) -> Result<Agent, Unavailable> {
    let kept = store.get(&key(owner, name)).await?;
    Ok(kept
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default())
}

/// Keeps `agent` as `owner`'s `name`.
pub async fn save(
    store: &Store,
    owner: &str,
    name: &str,
    agent: &Agent,
) -> Result<(), Unavailable> {
    let text = serde_json::to_string(agent).unwrap_or_default();
    store
        .set(&key(owner, name), &text, SystemTime::now() + KEPT)
        .await
}

/// Which agent, of which owner, a challenge unblocks.
pub async fn remember_challenge(
    store: &Store,
    id: &str,
    owner: &str,
    name: &str,
    ttl: Duration,
) -> Result<(), Unavailable> {
    let text = json!({"owner": owner, "name": name}).to_string();
    store
        .set(
            &format!("loop-challenge:{id}"),
            &text,
            SystemTime::now() + ttl,
        )
        .await
}

/// The owner and name of the agent challenge `id` unblocks, while it lives.
pub async fn challenged(store: &Store, id: &str) -> Result<Option<(String, String)>, Unavailable> {
    let kept = store.get(&format!("loop-challenge:{id}")).await?;
    Ok(kept.and_then(|text| {
        let value: Value = serde_json::from_str(&text).ok()?;
        Some((
            value["owner"].as_str()?.to_owned(),
            value["name"].as_str()?.to_owned(),
        ))
    }))
}

/// A notification (SPEC §8.7.3) stamped now.
pub fn notification(kind: &str, message: String, metadata: Value) -> Value {
    json!({
        "type": kind,
        "message": message,
        "metadata": metadata,
        "timestamp": rfc3339(SystemTime::now()),
    })
}

/// Sends `notification` to every executing agent of `owner`: another caller's agents never
/// learn of its blocks, their actions or their challenges.
pub async fn broadcast(
    store: &Store,
    owner: &str,
    notification: &Value,
) -> Result<(), Unavailable> {
    let now = SystemTime::now();
    let numbers = store.add(&[(sequence(owner), now + KEPT)], 1).await?;
    let number = numbers.first().copied().unwrap_or_default();
    store
        .set(
            &broadcast_key(owner, number),
            &notification.to_string(),
            now + BROADCAST_KEPT,
        )
        .await
}

/// The number of `owner`'s newest broadcast.
pub async fn latest(store: &Store, owner: &str) -> Result<i64, Unavailable> {
    let counts = store.counts(&[sequence(owner)]).await?;
    Ok(counts.first().copied().unwrap_or_default())
}

/// The broadcasts to `owner`'s agents that `agent` has not seen, marking them seen.
pub async fn unseen(
    store: &Store,
    owner: &str,
    agent: &mut Agent,
) -> Result<Vec<Value>, Unavailable> {
    let newest = latest(store, owner).await?;
    let first = (agent.seen + 1).max(newest - MAX_DELIVERED + 1);
    let mut delivered = Vec::new();
    for number in first..=newest {
        if let Some(text) = store.get(&broadcast_key(owner, number)).await?
            && let Ok(value) = serde_json::from_str(&text)
        {
            delivered.push(value);
        }
    }
    agent.seen = agent.seen.max(newest);
    Ok(delivered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn agents_and_broadcasts_round_trip_through_the_store() {
        let store = Store::memory();
        let mut agent = load(&store, "alice", "builder").await.unwrap();
        assert_eq!(agent, Agent::default());
        agent.pause = Some(Pause {
            kind: PauseKind::Approval,
            reason: "r".into(),
            action: "a".into(),
        });
        save(&store, "alice", "builder", &agent).await.unwrap();
        assert_eq!(load(&store, "alice", "builder").await.unwrap(), agent);
        assert_eq!(
            load(&store, "bob", "builder").await.unwrap(),
            Agent::default(),
            "bob's builder is another agent"
        );

        let alert = notification("danger_zone", "m".into(), json!({}));
        broadcast(&store, "alice", &alert).await.unwrap();
        broadcast(&store, "alice", &alert).await.unwrap();
        let mut other = Agent::default();
        assert!(unseen(&store, "bob", &mut other).await.unwrap().is_empty());
        assert_eq!(unseen(&store, "alice", &mut agent).await.unwrap().len(), 2);
        assert!(
            unseen(&store, "alice", &mut agent)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(agent.seen, 2);
    }
}
