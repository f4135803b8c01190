//! A bounded memory of the ids an input has shown: the ids most recently added, as 64-bit
//! fingerprints, and a value for each.
//!
//! The fold remembers the calls it has written (so that a late result still finds where its call
//! went) and the Claude decoder the calls it has seen (so that a `<task-notification>` naming one
//! ends its task). Kept for every call, both grew with the input: 92 MB of a 1 GiB stream's peak
//! ("flat memory"). A late result or notification comes within a few thousand calls
//! of its call; [`Recent::CAPACITY`] is far beyond that, and bounds the memory at about 1 MB
//! (for a value of a few bytes): the oldest id goes before a new one comes, the order is a ring
//! of 2¹⁵, and the hash table of 2¹⁶ slots is at most half full, so that the slots freed ids
//! leave behind are reclaimed in place instead of making the table double (hashbrown doubles a
//! table more than half full when it runs out of never-used slots).

use std::collections::VecDeque;

use foldhash::HashMap;

/// The ids most recently added (at most [`Recent::CAPACITY`]) and a value for each.
#[derive(Debug)]
pub(crate) struct Recent<V> {
    values: HashMap<u64, V>,
    /// Fingerprints in the order they were first added, oldest first (what goes when full).
    order: VecDeque<u64>,
}

impl<V> Default for Recent<V> {
    fn default() -> Self {
        Recent {
            values: HashMap::default(),
            order: VecDeque::new(),
        }
    }
}

impl<V> Recent<V> {
    /// Ids remembered at most: some 28 000 calls back (half of the 7/8 of 2¹⁶ a hash table of
    /// 2¹⁶ slots holds, see the module doc).
    pub(crate) const CAPACITY: usize = (1 << 16) / 16 * 7;

    /// Remembers `id` with `value` (replacing its value if it is remembered already), forgetting
    /// the oldest id when full. True when `id` was not remembered, as a set's `insert` says.
    pub(crate) fn insert(&mut self, id: &str, value: V) -> bool {
        self.insert_key(fingerprint(id), value)
    }

    /// [`Recent::insert`] of an id already made a key (two fields' fingerprint together).
    pub(crate) fn insert_key(&mut self, key: u64, value: V) -> bool {
        if let Some(v) = self.values.get_mut(&key) {
            *v = value;
            return false;
        }
        if self.order.len() == Self::CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.values.remove(&old);
            }
        }
        self.values.insert(key, value);
        self.order.push_back(key);
        true
    }

    /// The value remembered for `id`.
    pub(crate) fn get(&self, id: &str) -> Option<&V> {
        self.values.get(&fingerprint(id))
    }

    /// True when `id` is remembered.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.values.contains_key(&fingerprint(id))
    }
}

/// A 64-bit fingerprint of an id, the one every id memory keys on (this one, `--stable`'s, a
/// saved session's chain): two ids of one input share one with a chance of about n²/2⁶⁴ (none in
/// practice), and the same id gives the same fingerprint in every run (foldhash's quality hash
/// with a fixed seed; SipHash, before, was 1–4 % of a run).
#[inline]
pub(crate) fn fingerprint(id: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::default().hash_one(id.as_bytes())
}

/// A field's [`fingerprint`] when it is a string (a field of a `scribe_json::lenient_struct!`),
/// to match it with another without keeping its text (a prompt may be long).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Hashed(pub(crate) Option<u64>);

impl<'de> serde::Deserialize<'de> for Hashed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// Takes a string's fingerprint; anything else is checked and dropped.
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Hashed;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Hashed, E> {
                Ok(Hashed(Some(fingerprint(s))))
            }
            scribe_json::visit_others!(Hashed(None); scalars, nested);
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_ids_go_first_and_memory_stays_bounded() {
        let mut r = Recent::default();
        for i in 0..Recent::<()>::CAPACITY + 10 {
            r.insert(&format!("toolu_{i}"), i);
        }
        assert!(!r.contains("toolu_0"));
        assert!(!r.contains("toolu_9"));
        assert!(r.contains("toolu_10"));
        assert!(!r.insert("toolu_10", 10), "remembered already: not new");
        assert!(r.insert("toolu_0", 0), "forgotten: new again");
        assert!(!r.contains("toolu_10"), "the oldest went to make room");
        assert_eq!(
            r.get(&format!("toolu_{}", Recent::<()>::CAPACITY + 9)),
            Some(&(Recent::<()>::CAPACITY + 9))
        );
        assert_eq!(r.values.len(), Recent::<()>::CAPACITY);
        assert_eq!(r.order.len(), Recent::<()>::CAPACITY);
        // Neither grew past the size the capacity is chosen for, however many ids came and went.
        for i in 0..4 * Recent::<()>::CAPACITY {
            r.insert(&format!("more_{i}"), i);
        }
        assert!(r.values.capacity() < 1 << 16, "{}", r.values.capacity());
        assert!(r.order.capacity() <= 1 << 15, "{}", r.order.capacity());
    }

    #[test]
    fn a_second_insert_updates_the_value_and_keeps_the_place() {
        let mut r = Recent::default();
        r.insert("a", false);
        r.insert("b", false);
        r.insert("a", true);
        assert_eq!(r.get("a"), Some(&true));
        assert_eq!(r.order.len(), 2);
    }
}
