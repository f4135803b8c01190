//! The `--stable` pass's memory of ids: an id's fingerprint → the kind it was first seen as and
//! its number under that kind.
//!
//! Exists because an id must keep its number to the end of the input, so this memory grows with
//! the number of distinct ids, and at 1 GiB of stream it was most of the run's peak.
//! Numbers are given in order, kind by kind, so the fingerprints are kept in order of number
//! (8 bytes an id, in fixed chunks that never move), and the hash table holds only the packed
//! kind and number (4 bytes, and a control byte), comparing a candidate through the
//! fingerprint its number points at. The table is cut into [`SHARDS`] tables by the
//! fingerprint's top bits: each grows on its own, so growing holds one small table twice for a
//! moment, not the whole one.

use foldhash::HashMap;
use hashbrown::HashTable;

use strum::VariantArray;

use super::visit::IdKind;

/// How many tables the ids are spread over.
const SHARDS: usize = 64;

/// Bits of a packed entry above the number, holding the kind.
const KIND_SHIFT: u32 = 29;

/// The largest number a packed entry holds; a larger one (half a billion ids of one kind in one
/// input) goes to the overflow map.
const NUMBER_MAX: u32 = (1 << KIND_SHIFT) - 1;

/// Fingerprints per chunk of [`Fingerprints`].
const CHUNK: usize = 4096;

/// Every kind, a kind's place in it being its discriminant (`kind as usize`).
const KINDS: &[IdKind] = IdKind::VARIANTS;

/// One kind's fingerprints by number (number 1 first), in chunks that are filled, never moved.
#[derive(Debug, Default)]
struct Fingerprints(Vec<Box<[u64]>>);

impl Fingerprints {
    /// The fingerprint of number `n`; 0 (no id's, as far as any lookup can tell) for one never
    /// set.
    fn get(&self, n: u32) -> u64 {
        let i = n as usize - 1;
        self.0.get(i / CHUNK).map_or(0, |c| c[i % CHUNK])
    }

    /// Sets the fingerprint of number `n`.
    fn set(&mut self, n: u32, key: u64) {
        let i = n as usize - 1;
        while self.0.len() <= i / CHUNK {
            self.0.push(vec![0; CHUNK].into_boxed_slice());
        }
        self.0[i / CHUNK][i % CHUNK] = key;
    }
}

/// Fingerprint → first kind and number.
#[derive(Debug)]
pub(crate) struct IdTable {
    /// Packed kind and number, found by the fingerprint's hash, checked through `prints`.
    shards: Vec<HashTable<u32>>,
    /// Each kind's fingerprints by number.
    prints: [Fingerprints; KINDS.len()],
    /// Entries whose number does not fit a packed entry.
    overflow: HashMap<u64, (IdKind, u32)>,
}

impl Default for IdTable {
    fn default() -> Self {
        IdTable {
            shards: (0..SHARDS).map(|_| HashTable::new()).collect(),
            prints: Default::default(),
            overflow: HashMap::default(),
        }
    }
}

/// The shard of a fingerprint: its top bits.
fn shard(key: u64) -> usize {
    (key >> (64 - SHARDS.trailing_zeros())) as usize
}

/// The hash of a fingerprint in its shard's table. The fingerprint is a hash already, but its
/// top bits are the shard's, the same for the whole table, and the table tells entries apart
/// by the hash's top bits: multiplying by an odd constant mixes every bit into them and keeps
/// the low bits (the bucket) as random as they were.
fn table_hash(key: u64) -> u64 {
    key.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A packed entry's kind and number.
fn unpack(packed: u32) -> (IdKind, u32) {
    (KINDS[(packed >> KIND_SHIFT) as usize], packed & NUMBER_MAX)
}

impl IdTable {
    /// The fingerprint a packed entry stands for.
    fn print_of(&self, packed: u32) -> u64 {
        let (kind, n) = unpack(packed);
        self.prints[kind as usize].get(n)
    }

    /// The kind and number the id with fingerprint `key` was first given.
    pub(crate) fn get(&self, key: u64) -> Option<(IdKind, u32)> {
        match self.shards[shard(key)].find(table_hash(key), |&p| self.print_of(p) == key) {
            Some(&packed) => Some(unpack(packed)),
            None => self.overflow.get(&key).copied(),
        }
    }

    /// Records that `kind` number `n` is the id with fingerprint `key` (numbers come in order,
    /// kind by kind), and, unless the id has a first kind already (then false), that this is it.
    pub(crate) fn insert_new(&mut self, key: u64, kind: IdKind, n: u32) -> bool {
        let first = self.get(key).is_none();
        if n > NUMBER_MAX {
            if first {
                self.overflow.insert(key, (kind, n));
            }
            return first;
        }
        self.prints[kind as usize].set(n, key);
        if first {
            let packed = ((kind as u32) << KIND_SHIFT) | n;
            let prints = &self.prints;
            let hash = |&p: &u32| {
                let (kind, n) = unpack(p);
                table_hash(prints[kind as usize].get(n))
            };
            self.shards[shard(key)].insert_unique(table_hash(key), packed, hash);
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_number_reads_back_as_written_and_the_first_stays() {
        let mut t = IdTable::default();
        for (i, &kind) in KINDS.iter().enumerate() {
            assert_eq!(KINDS[kind as usize], kind);
            // Numbers come in order in use; the ones past what a packed entry holds go to the
            // overflow map (no fingerprint chunk is made for them).
            for (j, n) in [1, 2, 5000, NUMBER_MAX + 1, u32::MAX]
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

    /// Many ids, so that tables grow and chunks fill: every one still reads back, and a
    /// fingerprint that shares a shard and hash bits with a known one is not taken for it.
    #[test]
    fn many_ids_read_back_and_strangers_are_not_found() {
        let mut t = IdTable::default();
        let key = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        for i in 1..=20_000u32 {
            let kind = KINDS[i as usize % 6];
            assert!(t.insert_new(key(u64::from(i)), kind, i));
        }
        for i in 1..=20_000u32 {
            assert_eq!(t.get(key(u64::from(i))), Some((KINDS[i as usize % 6], i)));
            assert_eq!(t.get(key(u64::from(i)) ^ 2), None);
        }
    }
}
