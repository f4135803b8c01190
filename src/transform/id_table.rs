//! The `--stable` pass's memory of ids: an id's fingerprint → the kind it was first seen as and
//! its number under that kind.
//!
//! Exists because an id must keep its number to the end of the input, so this memory grows with
//! the number of distinct ids, and at 1 GiB of stream it was most of the run's peak (issue 14).
//! An entry is 12 bytes (the fingerprint as two `u32`s, the kind packed above the number), not
//! 16, and the table is cut into [`SHARDS`] tables by the fingerprint's top bits: each grows on
//! its own, so growing holds one small table twice for a moment, not the whole one.

use foldhash::HashMap;

use super::visit::IdKind;

/// How many tables the ids are spread over.
const SHARDS: usize = 64;

/// Bits of a packed entry above the number, holding the kind.
const KIND_SHIFT: u32 = 29;

/// The largest number a packed entry holds; a larger one (half a billion ids of one kind in one
/// input) goes to the overflow map.
const NUMBER_MAX: u32 = (1 << KIND_SHIFT) - 1;

/// Every kind, in the order of [`kind_index`].
const KINDS: [IdKind; 6] = [
    IdKind::Turn,
    IdKind::Call,
    IdKind::Task,
    IdKind::Session,
    IdKind::Init,
    IdKind::Other,
];

/// The kind's place in [`KINDS`] (a new kind is a compile error here).
fn kind_index(kind: IdKind) -> u32 {
    match kind {
        IdKind::Turn => 0,
        IdKind::Call => 1,
        IdKind::Task => 2,
        IdKind::Session => 3,
        IdKind::Init => 4,
        IdKind::Other => 5,
    }
}

/// Fingerprint → first kind and number, as a few small tables.
#[derive(Debug)]
pub(crate) struct IdTable {
    shards: Vec<HashMap<[u32; 2], u32>>,
    /// Entries whose number does not fit a packed entry.
    overflow: HashMap<u64, (IdKind, u32)>,
}

impl Default for IdTable {
    fn default() -> Self {
        IdTable {
            shards: (0..SHARDS).map(|_| HashMap::default()).collect(),
            overflow: HashMap::default(),
        }
    }
}

/// The shard of a fingerprint and its key there.
fn place(key: u64) -> (usize, [u32; 2]) {
    let shard = (key >> (64 - SHARDS.trailing_zeros())) as usize;
    (shard, [key as u32, (key >> 32) as u32])
}

impl IdTable {
    /// The kind and number the id with fingerprint `key` was first given.
    pub(crate) fn get(&self, key: u64) -> Option<(IdKind, u32)> {
        let (shard, k) = place(key);
        match self.shards[shard].get(&k) {
            Some(&packed) => Some((KINDS[(packed >> KIND_SHIFT) as usize], packed & NUMBER_MAX)),
            None => self.overflow.get(&key).copied(),
        }
    }

    /// Records `key` as `kind` number `n`, unless it is recorded already (then false, and the
    /// first record stays).
    pub(crate) fn insert_new(&mut self, key: u64, kind: IdKind, n: u32) -> bool {
        if self.get(key).is_some() {
            return false;
        }
        if n > NUMBER_MAX {
            self.overflow.insert(key, (kind, n));
        } else {
            let (shard, k) = place(key);
            self.shards[shard].insert(k, (kind_index(kind) << KIND_SHIFT) | n);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_number_reads_back_as_written_and_the_first_stays() {
        let mut t = IdTable::default();
        for (i, &kind) in KINDS.iter().enumerate() {
            assert_eq!(KINDS[kind_index(kind) as usize], kind);
            for (j, n) in [1, 2, NUMBER_MAX, NUMBER_MAX + 1, u32::MAX]
                .into_iter()
                .enumerate()
            {
                // Keys spread over the shards and the two halves of the fingerprint.
                let key = (i as u64) << 60 | (j as u64) << 32 | (j as u64 + 7);
                assert!(t.insert_new(key, kind, n));
                assert_eq!(t.get(key), Some((kind, n)), "{kind:?} {n}");
                assert!(!t.insert_new(key, IdKind::Other, 9));
                assert_eq!(t.get(key), Some((kind, n)));
            }
        }
        assert_eq!(t.get(12345), None);
    }
}
