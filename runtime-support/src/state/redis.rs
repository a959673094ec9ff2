//! The Redis store: every instance pointing at one server shares tokens, counters and keys.
//!
//! One multiplexed connection (the client's `ConnectionManager`, which pipelines every
//! caller's commands over one socket and reconnects by itself) opened on first use, so an
//! adapter starts while Redis is down and recovers when it comes back. Keys are
//! `aqlgen:<adapter>:<key>`; every entry carries its expiry, so nothing outlives its use.

use std::future::Future;
use std::time::{Duration, SystemTime};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::Mutex;

use super::{Unavailable, unix_millis};

/// The longest any Redis operation may take before the store counts as unavailable.
pub const TIMEOUT: Duration = Duration::from_millis(500);

/// State on a Redis server.
pub struct RedisStore {
    client: redis::Client,
    prefix: String,
    connection: Mutex<Option<ConnectionManager>>,
}

impl RedisStore {
    /// A store on the server at `url`; tries to connect once, and goes on without a
    /// connection when that fails (each use tries again).
    ///
    /// # Errors
    ///
    /// When `url` is not a Redis URL the client understands.
    pub(super) async fn open(url: &str, adapter: &str) -> Result<Self, String> {
        let client = redis::Client::open(url)
            .map_err(|error| format!("state backend: the redis URL is not usable: {error}"))?;
        let store = Self {
            client,
            prefix: format!("aqlgen:{adapter}:"),
            connection: Mutex::new(None),
        };
        if store.connection().await.is_err() {
            tracing::warn!(
                "the redis state backend does not answer yet; calls needing it are refused until it does"
            );
        }
        Ok(store)
    }

    async fn connection(&self) -> Result<ConnectionManager, Unavailable> {
        let mut slot = self.connection.lock().await;
        if let Some(connection) = slot.as_ref() {
            return Ok(connection.clone());
        }
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(1);
        let connection = bounded(ConnectionManager::new_with_config(
            self.client.clone(),
            config,
        ))
        .await?;
        *slot = Some(connection.clone());
        Ok(connection)
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    pub(super) async fn get(&self, key: &str) -> Result<Option<String>, Unavailable> {
        let mut connection = self.connection().await?;
        bounded(
            redis::cmd("GET")
                .arg(self.key(key))
                .query_async::<Option<String>>(&mut connection),
        )
        .await
    }

    pub(super) async fn counts(&self, keys: &[String]) -> Result<Vec<i64>, Unavailable> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut connection = self.connection().await?;
        let mut command = redis::cmd("MGET");
        for key in keys {
            command.arg(self.key(key));
        }
        let counts = bounded(command.query_async::<Vec<Option<i64>>>(&mut connection)).await?;
        Ok(counts.into_iter().map(Option::unwrap_or_default).collect())
    }

    pub(super) async fn set(
        &self,
        key: &str,
        value: &str,
        until: SystemTime,
    ) -> Result<(), Unavailable> {
        let mut connection = self.connection().await?;
        bounded(
            redis::cmd("SET")
                .arg(self.key(key))
                .arg(value)
                .arg("PXAT")
                .arg(unix_millis(until))
                .query_async::<()>(&mut connection),
        )
        .await
    }

    pub(super) async fn set_new(
        &self,
        key: &str,
        value: &str,
        until: SystemTime,
    ) -> Result<bool, Unavailable> {
        let mut connection = self.connection().await?;
        let set = bounded(
            redis::cmd("SET")
                .arg(self.key(key))
                .arg(value)
                .arg("NX")
                .arg("PXAT")
                .arg(unix_millis(until))
                .query_async::<Option<String>>(&mut connection),
        )
        .await?;
        Ok(set.is_some())
    }

    pub(super) async fn add(
        &self,
        keys: &[(String, SystemTime)],
        delta: i64,
    ) -> Result<Vec<i64>, Unavailable> {
        let mut connection = self.connection().await?;
        let mut pipe = redis::pipe();
        pipe.atomic();
        for (key, until) in keys {
            let key = self.key(key);
            pipe.cmd("INCRBY").arg(&key).arg(delta);
            pipe.cmd("PEXPIREAT")
                .arg(&key)
                .arg(unix_millis(*until))
                .ignore();
        }
        bounded(pipe.query_async::<Vec<i64>>(&mut connection)).await
    }

    /// Whether the server answers now.
    #[cfg(feature = "http")]
    pub(super) async fn ping(&self) -> Result<(), Unavailable> {
        let mut connection = self.connection().await?;
        bounded(redis::cmd("PING").query_async::<String>(&mut connection))
            .await
            .map(drop)
    }
}

/// Runs one Redis step within [`TIMEOUT`]; a failure is logged by kind, never with the URL.
async fn bounded<T>(step: impl Future<Output = redis::RedisResult<T>>) -> Result<T, Unavailable> {
    match tokio::time::timeout(TIMEOUT, step).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => {
            tracing::warn!(kind = ?error.kind(), "the redis state backend failed a command");
            Err(Unavailable)
        }
        Err(_) => {
            tracing::warn!("the redis state backend did not answer in time");
            Err(Unavailable)
        }
    }
}
