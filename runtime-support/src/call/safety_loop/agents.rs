//! What the safety loop keeps in the state store: each agent's execution, pause and hard
//! block, by agent name (a block holds for the agent, not for one execution or session, and
//! survives restarts with the file or Redis store), and the `danger_zone` notifications
//! broadcast to every executing agent, numbered by an atomic counter so instances agree.

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
/// The broadcast counter's key.
const SEQUENCE: &str = "loop-danger-zone-seq";

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

/// Where an agent's record is kept.
fn key(name: &str) -> String {
    format!("loop-agent:{name}")
}

/// The agent named `name`; a new one when none is kept.
pub async fn load(store: &Store, name: &str) -> Result<Agent, Unavailable> {
    let kept = store.get(&key(name)).await?;
    Ok(kept
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default())
}

/// Keeps `agent` as `name`.
pub async fn save(store: &Store, name: &str, agent: &Agent) -> Result<(), Unavailable> {
    let text = serde_json::to_string(agent).unwrap_or_default();
    store.set(&key(name), &text, SystemTime::now() + KEPT).await
}

/// Which agent a challenge unblocks.
pub async fn remember_challenge(
    store: &Store,
    id: &str,
    name: &str,
    ttl: Duration,
) -> Result<(), Unavailable> {
    store
        .set(
            &format!("loop-challenge:{id}"),
            name,
            SystemTime::now() + ttl,
        )
        .await
}

/// The agent challenge `id` unblocks, while it lives.
pub async fn challenged(store: &Store, id: &str) -> Result<Option<String>, Unavailable> {
    store.get(&format!("loop-challenge:{id}")).await
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

/// Sends `notification` to every executing agent.
pub async fn broadcast(store: &Store, notification: &Value) -> Result<(), Unavailable> {
    let now = SystemTime::now();
    let numbers = store.add(&[(SEQUENCE.to_owned(), now + KEPT)], 1).await?;
    let number = numbers.first().copied().unwrap_or_default();
    store
        .set(
            &format!("loop-danger-zone:{number}"),
            &notification.to_string(),
            now + BROADCAST_KEPT,
        )
        .await
}

/// The number of the newest broadcast.
pub async fn latest(store: &Store) -> Result<i64, Unavailable> {
    let counts = store.counts(&[SEQUENCE.to_owned()]).await?;
    Ok(counts.first().copied().unwrap_or_default())
}

/// The broadcasts `agent` has not seen, marking them seen.
pub async fn unseen(store: &Store, agent: &mut Agent) -> Result<Vec<Value>, Unavailable> {
    let newest = latest(store).await?;
    let first = (agent.seen + 1).max(newest - MAX_DELIVERED + 1);
    let mut delivered = Vec::new();
    for number in first..=newest {
        if let Some(text) = store.get(&format!("loop-danger-zone:{number}")).await?
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
        let mut agent = load(&store, "builder").await.unwrap();
        assert_eq!(agent, Agent::default());
        agent.pause = Some(Pause {
            kind: PauseKind::Approval,
            reason: "r".into(),
            action: "a".into(),
        });
        save(&store, "builder", &agent).await.unwrap();
        assert_eq!(load(&store, "builder").await.unwrap(), agent);

        let alert = notification("danger_zone", "m".into(), json!({}));
        broadcast(&store, &alert).await.unwrap();
        broadcast(&store, &alert).await.unwrap();
        assert_eq!(unseen(&store, &mut agent).await.unwrap().len(), 2);
        assert!(unseen(&store, &mut agent).await.unwrap().is_empty());
        assert_eq!(agent.seen, 2);
    }
}
