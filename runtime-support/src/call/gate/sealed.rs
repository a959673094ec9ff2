//! The `requestState` of an `input_required` answer (MCP 2026-07-28): what the gate asked
//! about, sealed with HMAC-SHA256 under a key every instance on the store shares, bound to the
//! caller (associated data), expiring with the question. Single use is the gate's business:
//! each state carries a nonce that is consumed in the store.

use std::time::Duration;

use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};

use crate::digest::{random_hex, random_key};
use crate::error::{AqlError, ErrorCode};
use crate::state::{Store, shared_key};

/// Where the store keeps the sealing key.
const KEY_NAME: &str = "request-state-key";

/// What a sealed state says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// The operation asked about.
    pub operation: String,
    /// The digest of its params and precondition.
    pub scope: String,
    /// Consumed on the retry, so a state answers once.
    pub nonce: String,
    /// The verification challenge, when the person was sent a code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<String>,
}

impl Pending {
    /// A state about `operation` and `scope` with a fresh nonce.
    pub fn new(operation: &str, scope: String, challenge: Option<String>) -> Option<Self> {
        Some(Self {
            operation: operation.to_owned(),
            scope,
            nonce: random_hex(16)?,
            challenge,
        })
    }
}

/// Seals and opens the states of one server.
pub struct Sealer {
    codec: RequestStateCodec,
}

impl Sealer {
    /// A sealer with the key shared through `store`; while the store does not answer, a key
    /// of this instance's own (a retry that lands on another instance is then refused).
    pub async fn shared(store: &Store) -> Self {
        let fresh = random_key();
        let key = shared_key(store, KEY_NAME, &fresh).await.unwrap_or(fresh);
        Self {
            // 32 bytes meet the codec's minimum key length.
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
        }
    }

    /// `pending`, sealed for `caller`, good for `ttl`.
    ///
    /// # Errors
    ///
    /// `INTERNAL_ERROR` if the state cannot be encoded.
    pub fn seal(&self, caller: &str, pending: &Pending, ttl: Duration) -> Result<String, AqlError> {
        let options = SealOptions::new()
            .associated_data(caller.as_bytes())
            .ttl(ttl);
        self.codec.seal_json_with(pending, &options).map_err(|_| {
            AqlError::new(
                ErrorCode::InternalError,
                "Internal error: the confirmation could not be prepared; nothing ran",
            )
        })
    }

    /// Opens `sealed` for `caller`.
    ///
    /// # Errors
    ///
    /// `TOKEN_EXPIRED` for a state past its time; `TOKEN_INVALID` for anything altered, forged,
    /// sealed for another caller or under a key this fleet does not hold.
    pub fn open(&self, caller: &str, sealed: &str) -> Result<Pending, AqlError> {
        match self.codec.open_json_with(sealed, caller.as_bytes()) {
            Ok(pending) => Ok(pending),
            Err(RequestStateError::Expired) => Err(AqlError::new(
                ErrorCode::TokenExpired,
                "The confirmation's requestState has expired, so nothing ran; call the operation again to be asked anew",
            )
            .with_detail("token", "requestState")),
            Err(_) => Err(AqlError::new(
                ErrorCode::TokenInvalid,
                "The requestState returned is not one this server issued to this caller, or was altered, so nothing ran; call the operation again without it",
            )
            .with_detail("token", "requestState")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn states_open_only_unaltered_for_their_caller() {
        let store = Store::memory();
        let sealer = Sealer::shared(&store).await;
        let pending = Pending::new("delete_todo", "abc".into(), None).unwrap();
        let sealed = sealer
            .seal("cred_a", &pending, Duration::from_secs(60))
            .unwrap();
        assert_eq!(sealer.open("cred_a", &sealed), Ok(pending));
        let other = sealer.open("cred_b", &sealed).unwrap_err();
        assert_eq!(other.code, ErrorCode::TokenInvalid);
        let mut altered = sealed.clone().into_bytes();
        let last = altered.len() - 3;
        altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).unwrap();
        assert_eq!(
            sealer.open("cred_a", &altered).unwrap_err().code,
            ErrorCode::TokenInvalid
        );
        let same_fleet = Sealer::shared(&store).await;
        assert!(
            same_fleet.open("cred_a", &sealed).is_ok(),
            "one key per store"
        );
    }
}
