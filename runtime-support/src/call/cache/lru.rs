//! A byte-bounded map that drops its least recently used entries first.

use std::collections::{BTreeMap, HashMap};

/// Entries of known sizes, at most `max_bytes` of them together.
#[derive(Debug)]
pub struct Lru<V> {
    entries: HashMap<String, Slot<V>>,
    /// Keys by their last use: the first is the least recent.
    order: BTreeMap<u64, String>,
    bytes: u64,
    max_bytes: u64,
    clock: u64,
}

#[derive(Debug)]
struct Slot<V> {
    value: V,
    size: u64,
    used: u64,
}

impl<V> Lru<V> {
    /// An empty map holding at most `max_bytes`.
    pub fn new(max_bytes: u64) -> Self {
        Self {
            entries: HashMap::new(),
            order: BTreeMap::new(),
            bytes: 0,
            max_bytes,
            clock: 0,
        }
    }

    /// The value under `key`, now the most recently used.
    pub fn get(&mut self, key: &str) -> Option<&V> {
        self.clock += 1;
        let slot = self.entries.get_mut(key)?;
        self.order.remove(&slot.used);
        slot.used = self.clock;
        self.order.insert(self.clock, key.to_owned());
        Some(&slot.value)
    }

    /// Keeps `value` of `size` bytes under `key`, replacing what was there, and returns the
    /// keys dropped to make room. A value larger than the whole bound is not kept.
    pub fn insert(&mut self, key: String, value: V, size: u64) -> Vec<String> {
        self.remove(&key);
        if size > self.max_bytes {
            return Vec::new();
        }
        let mut dropped = Vec::new();
        while self.bytes + size > self.max_bytes {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(slot) = self.entries.remove(&oldest) {
                self.bytes -= slot.size;
            }
            dropped.push(oldest);
        }
        self.clock += 1;
        self.order.insert(self.clock, key.clone());
        self.entries.insert(
            key,
            Slot {
                value,
                size,
                used: self.clock,
            },
        );
        self.bytes += size;
        dropped
    }

    /// Forgets `key`.
    pub fn remove(&mut self, key: &str) {
        if let Some(slot) = self.entries.remove(key) {
            self.order.remove(&slot.used);
            self.bytes -= slot.size;
        }
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_first_and_the_bound_holds() {
        let mut lru = Lru::new(100);
        assert!(lru.insert("a".into(), 1, 40).is_empty());
        assert!(lru.insert("b".into(), 2, 40).is_empty());
        assert_eq!(lru.get("a"), Some(&1));
        assert_eq!(lru.insert("c".into(), 3, 40), vec!["b".to_owned()]);
        assert_eq!(lru.get("b"), None);
        assert_eq!(lru.bytes(), 80);
        assert_eq!(lru.insert("a".into(), 4, 10), Vec::<String>::new());
        assert_eq!(lru.bytes(), 50);
        assert!(lru.insert("huge".into(), 5, 101).is_empty());
        assert_eq!(lru.get("huge"), None);
        lru.remove("c");
        assert_eq!(lru.bytes(), 10);
    }
}
