//! The in-process store: a map of expiring strings behind one lock, kept on file when the
//! operator asks (see [`super::journal`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::SystemTime;

use super::Unavailable;
use super::journal::{Entry, Journal};
use crate::sync::Unpoisoned as _;

/// Entries are swept of the expired ones every this many writes, so the map stays as large
/// as what is live.
const SWEEP_EVERY: u32 = 256;

#[derive(Default)]
struct Map {
    entries: HashMap<String, Entry>,
    writes: u32,
    journal: Option<Journal>,
}

impl Map {
    fn live(&self, key: &str, now: SystemTime) -> Option<&Entry> {
        self.entries.get(key).filter(|entry| entry.until > now)
    }

    /// Stores `writes`: on file first when there is a file, so a failed append changes
    /// nothing.
    fn put(
        &mut self,
        writes: Vec<(String, String, SystemTime)>,
        now: SystemTime,
    ) -> Result<(), Unavailable> {
        if let Some(journal) = &mut self.journal {
            journal.append(
                writes
                    .iter()
                    .map(|(key, value, until)| (key.as_str(), value.as_str(), *until)),
            )?;
        }
        for (key, value, until) in writes {
            self.entries.insert(key, Entry { value, until });
        }
        self.writes = self.writes.wrapping_add(1);
        if self.writes.is_multiple_of(SWEEP_EVERY) {
            self.entries.retain(|_, entry| entry.until > now);
            if let Some(journal) = &mut self.journal {
                journal.compact_if_grown(&self.entries);
            }
        }
        Ok(())
    }
}

/// State in this process, optionally kept on file.
#[derive(Default)]
pub struct Memory {
    map: Mutex<Map>,
}

impl Memory {
    /// A store kept in the journal at `path`, with what it holds.
    ///
    /// # Errors
    ///
    /// A sentence for the operator (see [`Journal::open`]).
    pub(super) fn on_file(path: &Path) -> Result<Self, String> {
        let (journal, entries) = Journal::open(path, SystemTime::now())?;
        Ok(Self {
            map: Mutex::new(Map {
                entries,
                writes: 0,
                journal: Some(journal),
            }),
        })
    }

    fn map(&self) -> MutexGuard<'_, Map> {
        self.map.locked()
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

    pub(super) fn set(&self, key: &str, value: &str, until: SystemTime) -> Result<(), Unavailable> {
        let now = SystemTime::now();
        self.map()
            .put(vec![(key.to_owned(), value.to_owned(), until)], now)
    }

    pub(super) fn set_new(
        &self,
        key: &str,
        value: &str,
        until: SystemTime,
    ) -> Result<bool, Unavailable> {
        let now = SystemTime::now();
        let mut map = self.map();
        if map.live(key, now).is_some() {
            return Ok(false);
        }
        map.put(vec![(key.to_owned(), value.to_owned(), until)], now)?;
        Ok(true)
    }

    pub(super) fn add(
        &self,
        keys: &[(String, SystemTime)],
        delta: i64,
    ) -> Result<Vec<i64>, Unavailable> {
        let now = SystemTime::now();
        let mut map = self.map();
        let totals: Vec<i64> = keys
            .iter()
            .map(|(key, _)| {
                map.live(key, now)
                    .map_or(0, |entry| number(&entry.value))
                    .saturating_add(delta)
            })
            .collect();
        let writes = keys
            .iter()
            .zip(&totals)
            .map(|((key, until), total)| (key.clone(), total.to_string(), *until))
            .collect();
        map.put(writes, now)?;
        Ok(totals)
    }

    /// Whether the store can take writes: always, unless its file refused the last one.
    #[cfg(feature = "http")]
    pub(super) fn healthy(&self) -> bool {
        self.map().journal.as_ref().is_none_or(Journal::healthy)
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
        assert_eq!(store.set_new("k", "a", later), Ok(true));
        assert_eq!(store.set_new("k", "b", later), Ok(false));
        assert_eq!(store.get("k").as_deref(), Some("a"));

        store
            .set("gone", "x", SystemTime::now() - Duration::from_secs(1))
            .expect("set");
        assert_eq!(store.get("gone"), None);
        assert_eq!(
            store.set_new("gone", "y", later),
            Ok(true),
            "an expired entry is free"
        );

        let keys = [("c".to_owned(), later), ("d".to_owned(), later)];
        assert_eq!(store.add(&keys, 2), Ok(vec![2, 2]));
        assert_eq!(store.add(&keys[..1], -1), Ok(vec![1]));
        assert_eq!(
            store.counts(&["c".into(), "d".into(), "e".into()]),
            vec![1, 2, 0]
        );
    }
}
