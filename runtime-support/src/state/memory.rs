//! The in-process store: a map of expiring strings behind one lock.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::SystemTime;

/// Entries are swept of the expired ones every this many writes, so the map stays as large
/// as what is live.
const SWEEP_EVERY: u32 = 256;

struct Entry {
    value: String,
    until: SystemTime,
}

#[derive(Default)]
struct Map {
    entries: HashMap<String, Entry>,
    writes: u32,
}

impl Map {
    fn live(&self, key: &str, now: SystemTime) -> Option<&Entry> {
        self.entries.get(key).filter(|entry| entry.until > now)
    }

    fn wrote(&mut self, now: SystemTime) {
        self.writes = self.writes.wrapping_add(1);
        if self.writes.is_multiple_of(SWEEP_EVERY) {
            self.entries.retain(|_, entry| entry.until > now);
        }
    }
}

/// State in this process only.
#[derive(Default)]
pub struct Memory {
    map: Mutex<Map>,
}

impl Memory {
    fn map(&self) -> MutexGuard<'_, Map> {
        self.map
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn get(&self, key: &str) -> Option<String> {
        let now = SystemTime::now();
        self.map().live(key, now).map(|entry| entry.value.clone())
    }

    pub(super) fn counts(&self, keys: &[String]) -> Vec<i64> {
        let now = SystemTime::now();
        let map = self.map();
        keys.iter()
            .map(|key| map.live(key, now).map_or(0, |entry| number(&entry.value)))
            .collect()
    }

    pub(super) fn set(&self, key: &str, value: &str, until: SystemTime) {
        let now = SystemTime::now();
        let mut map = self.map();
        map.entries.insert(
            key.to_owned(),
            Entry {
                value: value.to_owned(),
                until,
            },
        );
        map.wrote(now);
    }

    pub(super) fn set_new(&self, key: &str, value: &str, until: SystemTime) -> bool {
        let now = SystemTime::now();
        let mut map = self.map();
        if map.live(key, now).is_some() {
            return false;
        }
        map.entries.insert(
            key.to_owned(),
            Entry {
                value: value.to_owned(),
                until,
            },
        );
        map.wrote(now);
        true
    }

    pub(super) fn add(&self, keys: &[(String, SystemTime)], delta: i64) -> Vec<i64> {
        let now = SystemTime::now();
        let mut map = self.map();
        let totals = keys
            .iter()
            .map(|(key, until)| {
                let total = map
                    .live(key, now)
                    .map_or(0, |entry| number(&entry.value))
                    .saturating_add(delta);
                map.entries.insert(
                    key.clone(),
                    Entry {
                        value: total.to_string(),
                        until: *until,
                    },
                );
                total
            })
            .collect();
        map.wrote(now);
        totals
    }
}

fn number(text: &str) -> i64 {
    text.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn entries_expire_and_set_new_is_once() {
        let store = Memory::default();
        let later = SystemTime::now() + Duration::from_secs(60);
        assert!(store.set_new("k", "a", later));
        assert!(!store.set_new("k", "b", later));
        assert_eq!(store.get("k").as_deref(), Some("a"));

        store.set("gone", "x", SystemTime::now() - Duration::from_secs(1));
        assert_eq!(store.get("gone"), None);
        assert!(
            store.set_new("gone", "y", later),
            "an expired entry is free"
        );

        let keys = [("c".to_owned(), later), ("d".to_owned(), later)];
        assert_eq!(store.add(&keys, 2), vec![2, 2]);
        assert_eq!(store.add(&keys[..1], -1), vec![1]);
        assert_eq!(
            store.counts(&["c".into(), "d".into(), "e".into()]),
            vec![1, 2, 0]
        );
    }
}
