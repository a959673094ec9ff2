//! Names made of bytes: hex digests of canonical JSON, and random identifiers for sessions,
//! tokens and keys.

use std::fmt::Write as _;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// `len` random bytes from the operating system's CSPRNG, as lowercase hex.
pub fn random_hex(len: usize) -> Option<String> {
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes).ok()?;
    Some(hex(&bytes))
}

/// `bytes` as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        // Writing into a String cannot fail.
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// The first `bytes` bytes (at most 32) of the hash of `operation` and its `params`, as hex:
/// what a cursor or a person's confirmation is bound to.
pub fn call_digest(operation: &str, params: &Map<String, Value>, bytes: usize) -> String {
    let mut hasher = Sha256::new();
    hasher.update(operation.as_bytes());
    hasher.update([0]);
    feed_object(&mut hasher, params);
    hex(&hasher.finalize()[..bytes.min(32)])
}

/// Who brings `credential`, as a name that never shows it: `cred_` and 128 bits of its hash.
pub fn credential_id(credential: &str) -> String {
    format!("cred_{}", hex(&Sha256::digest(credential.as_bytes())[..16]))
}

/// The caller id of an access token's `subject`: `sub_` and 128 bits of the hash of the whole
/// subject, so that two subjects are one caller only when they are one subject.
pub fn subject_id(subject: &str) -> String {
    format!("sub_{}", hex(&Sha256::digest(subject.as_bytes())[..16]))
}

/// Feeds `object` to `hasher` in one canonical form: keys sorted, scalars as compact JSON.
pub fn feed_object(hasher: &mut Sha256, object: &Map<String, Value>) {
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort();
    hasher.update(b"{");
    for key in keys {
        hasher.update(Value::String(key.clone()).to_string().as_bytes());
        hasher.update(b":");
        feed(hasher, &object[key.as_str()]);
        hasher.update(b",");
    }
    hasher.update(b"}");
}

fn feed(hasher: &mut Sha256, value: &Value) {
    match value {
        Value::Object(object) => feed_object(hasher, object),
        Value::Array(items) => {
            hasher.update(b"[");
            for item in items {
                feed(hasher, item);
                hasher.update(b",");
            }
            hasher.update(b"]");
        }
        scalar => hasher.update(scalar.to_string().as_bytes()),
    }
}

/// 32 bytes from the operating system's CSPRNG for a signing key; without a random source,
/// a key from the clock and the process, which still differs per run.
pub fn random_key() -> [u8; 32] {
    let mut key = [0u8; 32];
    if getrandom::fill(&mut key).is_err() {
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        key = Sha256::digest(seed.as_bytes()).into();
    }
    key
}

/// A 32-byte key from its 64 hex digits.
pub fn key_from_hex(text: &str) -> Option<[u8; 32]> {
    let mut key = [0u8; 32];
    if text.len() != 64 {
        return None;
    }
    for (byte, pair) in key.iter_mut().zip(text.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(key)
}
