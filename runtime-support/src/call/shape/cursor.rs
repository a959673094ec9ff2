//! Cursors: opaque, URL-safe and tamper-proof (pagination §6.4). A cursor is the base64url
//! text of a small JSON position followed by an HMAC-SHA256 tag under a key drawn at start
//! and shared through the state store, so no instance needs state to resume from one, any
//! instance on the same store reads another's, and a client cannot forge or alter one. It is
//! bound to its operation and to the request's params other than paging.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;

use crate::digest::{call_digest, random_key};
use crate::error::{AqlError, ErrorCode};
use crate::state::{Store, shared_key};
use crate::sync::{self, Unpoisoned as _};

/// Where the store keeps the signing key, and for how long: long enough that a fleet never
/// sees it change while running.
const KEY_NAME: &str = "cursor-key";

/// Bytes of the tag kept: 128 bits.
const TAG_BYTES: usize = 16;
/// Longest cursor read; a real one is well under 200 bytes.
const MAX_CURSOR_BYTES: usize = 2048;

/// Where the next page starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    /// A page number, from 1.
    Page(u64),
    /// Items to skip.
    Offset(u64),
    /// The upstream's first page, addressed by no cursor.
    Start,
    /// The upstream's own cursor.
    Upstream(String),
    /// Past the last item: the page after it is empty.
    End,
}

/// What a cursor says: where to resume and with which page size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    /// Where the page starts.
    pub position: Position,
    /// The page size the cursor was made with.
    pub size: u64,
}

/// How often an instance whose store did not answer at start asks it again for the key.
const ADOPT_EVERY: Duration = Duration::from_secs(5);

/// Makes and reads the cursors of one server.
pub struct Cursors {
    keys: RwLock<Keys>,
    /// Whether the signing key is this instance's own, drawn while the store did not answer:
    /// the shared one is then adopted as soon as the store answers ([`Cursors::adopt`]).
    private: AtomicBool,
    /// When the store was last asked.
    asked: Mutex<Option<Instant>>,
}

/// The key cursors are signed with, and a former one still read (this instance's own key,
/// after it adopted the shared one), so a walk begun before is not cut off.
#[derive(Clone, Copy)]
struct Keys {
    signing: [u8; 32],
    former: Option<[u8; 32]>,
}

impl std::fmt::Debug for Cursors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cursors")
    }
}

impl Cursors {
    /// Cursors signed with a key from the operating system's random source.
    pub fn new() -> Self {
        Self::with_key(random_key(), false)
    }

    fn with_key(key: [u8; 32], private: bool) -> Self {
        Self {
            keys: RwLock::new(Keys {
                signing: key,
                former: None,
            }),
            private: AtomicBool::new(private),
            asked: Mutex::new(None),
        }
    }

    /// Cursors signed with the key every instance on `store` shares: the first instance to
    /// start draws it, the others read it. A store that does not answer leaves this process
    /// a key of its own until it answers ([`Cursors::adopt`]).
    pub async fn shared(store: &Store) -> Self {
        let fresh = random_key();
        match shared_key(store, KEY_NAME, &fresh).await {
            Some(key) => Self::with_key(key, false),
            None => {
                tracing::warn!(
                    "cursors are signed with a key of this instance only until the state store answers"
                );
                let cursors = Self::with_key(fresh, true);
                *cursors.asked.locked() = Some(Instant::now());
                cursors
            }
        }
    }

    /// When the signing key is still this instance's own, asks `store` for the shared one
    /// (at most every [`ADOPT_EVERY`]) and signs with it from then on; cursors made before
    /// stay readable here.
    pub async fn adopt(&self, store: &Store) {
        if !self.private.load(Ordering::Acquire) {
            return;
        }
        {
            let mut asked = self.asked.locked();
            if asked.is_some_and(|at| at.elapsed() < ADOPT_EVERY) {
                return;
            }
            *asked = Some(Instant::now());
        }
        let own = self.read_keys().signing;
        let Some(shared) = shared_key(store, KEY_NAME, &random_key()).await else {
            return;
        };
        *self.keys.locked() = Keys {
            signing: shared,
            former: (shared != own).then_some(own),
        };
        self.private.store(false, Ordering::Release);
        tracing::info!("cursors are signed with the key the state store shares");
    }

    fn read_keys(&self) -> Keys {
        *sync::read(&self.keys)
    }

    /// The cursor resuming `operation` with `params` at `resume`.
    pub fn make(&self, operation: &str, params: &Map<String, Value>, resume: &Resume) -> String {
        let position = match &resume.position {
            Position::Page(page) => json!({"p": page}),
            Position::Offset(offset) => json!({"o": offset}),
            Position::Start => json!({"b": 1}),
            Position::Upstream(token) => json!({"u": token}),
            Position::End => json!({"e": 1}),
        };
        let mut body = json!({"n": resume.size, "s": scope(operation, params)});
        if let (Some(body), Value::Object(position)) = (body.as_object_mut(), position) {
            body.extend(position);
        }
        let payload = body.to_string();
        let mut text = URL_SAFE_NO_PAD.encode(payload.as_bytes());
        text.push('.');
        text.push_str(&URL_SAFE_NO_PAD.encode(self.tag(payload.as_bytes())));
        text
    }

    /// Reads `cursor`, given as param `param` (`after` or `before`), which must have been made
    /// by this server for `operation` and the same `params`.
    ///
    /// # Errors
    ///
    /// `VALIDATION_INVALID_VALUE` for a cursor that is not one of ours or was altered
    /// (`details.reason` `invalid_cursor`), and for one made for another operation or other
    /// params (`cursor_mismatch`).
    pub fn read(
        &self,
        cursor: &str,
        param: &str,
        operation: &str,
        params: &Map<String, Value>,
    ) -> Result<Resume, AqlError> {
        let invalid = || invalid(param);
        let payload = self.verified(cursor).ok_or_else(invalid)?;
        let body: Map<String, Value> = serde_json::from_slice(&payload).map_err(|_| invalid())?;
        if body.get("s").and_then(Value::as_str) != Some(&scope(operation, params)) {
            return Err(AqlError::new(
                ErrorCode::ValidationInvalidValue,
                format!(
                    "Parameter '{param}' holds a cursor of another request: a cursor resumes only the operation '{operation}' with the same params it came from (paging params aside). Start a new walk by leaving '{param}' out"
                ),
            )
            .with_detail("param_name", param)
            .with_detail("reason", "cursor_mismatch"));
        }
        let size = body.get("n").and_then(Value::as_u64).ok_or_else(invalid)?;
        let position = if let Some(page) = body.get("p").and_then(Value::as_u64) {
            Position::Page(page)
        } else if let Some(offset) = body.get("o").and_then(Value::as_u64) {
            Position::Offset(offset)
        } else if let Some(token) = body.get("u").and_then(Value::as_str) {
            Position::Upstream(token.to_owned())
        } else if body.contains_key("b") {
            Position::Start
        } else if body.contains_key("e") {
            Position::End
        } else {
            return Err(invalid());
        };
        Ok(Resume { position, size })
    }

    fn verified(&self, cursor: &str) -> Option<Vec<u8>> {
        if cursor.len() > MAX_CURSOR_BYTES {
            return None;
        }
        let (payload, tag) = cursor.split_once('.')?;
        let payload = URL_SAFE_NO_PAD.decode(payload).ok()?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        if tag.len() != TAG_BYTES {
            return None;
        }
        let keys = self.read_keys();
        let verifies = |key: &[u8; 32]| {
            let mut mac = mac(key);
            mac.update(&payload);
            mac.verify_truncated_left(&tag).is_ok()
        };
        (verifies(&keys.signing) || keys.former.as_ref().is_some_and(verifies)).then_some(payload)
    }

    fn tag(&self, payload: &[u8]) -> Vec<u8> {
        let mut mac = mac(&self.read_keys().signing);
        mac.update(payload);
        mac.finalize().into_bytes()[..TAG_BYTES].to_vec()
    }
}

fn mac(key: &[u8; 32]) -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length")
}

impl Default for Cursors {
    fn default() -> Self {
        Self::new()
    }
}

/// 64 bits of the hash of the operation and its params: what a cursor is bound to.
fn scope(operation: &str, params: &Map<String, Value>) -> String {
    call_digest(operation, params, 8)
}

/// `VALIDATION_INVALID_VALUE` for a cursor in `param` that is not one of ours.
pub fn invalid(param: &str) -> AqlError {
    AqlError::new(
        ErrorCode::ValidationInvalidValue,
        format!(
            "Parameter '{param}' is not a cursor this server made: pass a 'pageInfo' cursor of this walk unchanged"
        ),
    )
    .with_detail("param_name", param)
    .with_detail("reason", "invalid_cursor")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn cursors_round_trip_and_are_url_safe() {
        let cursors = Cursors::new();
        let p = params(json!({"owner": "o", "repo": "r"}));
        for position in [
            Position::Page(3),
            Position::Offset(40),
            Position::Start,
            Position::Upstream("abc/+=".into()),
            Position::End,
        ] {
            let resume = Resume { position, size: 10 };
            let cursor = cursors.make("list_issues", &p, &resume);
            assert!(
                cursor
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
            );
            assert_eq!(
                cursors.read(&cursor, "after", "list_issues", &p),
                Ok(resume)
            );
        }
    }

    #[test]
    fn altered_foreign_and_misbound_cursors_are_refused() {
        let cursors = Cursors::new();
        let p = params(json!({"owner": "o"}));
        let resume = Resume {
            position: Position::Page(2),
            size: 5,
        };
        let cursor = cursors.make("list_issues", &p, &resume);
        let reason = |result: Result<Resume, AqlError>| {
            result.expect_err("refused").details["reason"].clone()
        };
        assert_eq!(
            reason(cursors.read(&cursor, "after", "list_repos", &p)),
            "cursor_mismatch"
        );
        let other = params(json!({"owner": "x"}));
        assert_eq!(
            reason(cursors.read(&cursor, "after", "list_issues", &other)),
            "cursor_mismatch"
        );
        assert_eq!(
            reason(Cursors::new().read(&cursor, "after", "list_issues", &p)),
            "invalid_cursor"
        );
        let (payload, tag) = cursor.split_once('.').expect("two parts");
        let forged = URL_SAFE_NO_PAD.encode(
            String::from_utf8(URL_SAFE_NO_PAD.decode(payload).expect("base64"))
                .expect("utf-8")
                .replace("\"p\":2", "\"p\":9"),
        );
        assert_eq!(
            reason(cursors.read(&format!("{forged}.{tag}"), "after", "list_issues", &p)),
            "invalid_cursor"
        );
        for junk in ["", ".", "x.y", "%%%", &"a".repeat(5000)] {
            assert_eq!(
                reason(cursors.read(junk, "after", "list_issues", &p)),
                "invalid_cursor"
            );
        }
    }

    /// An instance whose store did not answer at start adopts the shared key once it does:
    /// its new cursors are read by every instance, its old ones still by itself.
    #[tokio::test]
    async fn a_private_key_gives_way_to_the_shared_one() {
        let store = Store::memory();
        let other = Cursors::shared(&store).await;
        let lonely = Cursors::with_key(random_key(), true);
        let p = params(json!({"owner": "o"}));
        let resume = Resume {
            position: Position::Page(2),
            size: 10,
        };
        let before = lonely.make("list", &p, &resume);
        assert!(other.read(&before, "after", "list", &p).is_err());
        lonely.adopt(&store).await;
        let after = lonely.make("list", &p, &resume);
        assert_eq!(
            other.read(&after, "after", "list", &p).ok(),
            Some(resume.clone())
        );
        assert_eq!(lonely.read(&before, "after", "list", &p).ok(), Some(resume));
    }
}
