//! LCS-style alignment of two sequences of records, turns or parts.
//!
//! It runs in rounds with looser and looser keys:
//!
//! ```text
//! round  key                                       an Equal pair means
//! ─────  ────────────────────────────────────────  ───────────────────────────────────
//! 1      the whole (id-less) JSON                  same: nothing to report
//! 2      kind + role + origin + tool names         changed: compare field by field
//!        (a part: its type and tool name)
//! 3      kind + role (records and turns only)      changed: compare field by field
//! ```
//!
//! Rounds 2 and 3 only look inside the stretches round 1 could not match, so an inserted turn
//! stays one insertion and every later turn still lines up.
//!
//! Each round is linear or n·log n in practice, as patience diff is: the common prefix and
//! suffix are matched first, then the keys that occur once on each side are anchors (the longest
//! run of them in the same order on both sides). Only a stretch between anchors goes to Myers'
//! algorithm (`similar`), and only when it is short (`MYERS_LIMIT`): a longer one is paired
//! position by position, so that two 700 KB runs that differ everywhere cost no more than
//! reading them.

use foldhash::HashMap;
use std::ops::Range;

use serde_json::Value;
use similar::{Algorithm, DiffOp, capture_diff_slices};

/// The longest stretch (old + new items) handed to Myers' O((n + m)·d) algorithm: beyond it,
/// the stretch is paired by position.
const MYERS_LIMIT: usize = 2_000;

/// How two sequences line up: indexes into OLD and NEW.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pair {
    /// Equal on both sides.
    Same(usize, usize),
    /// The same thing, changed.
    Changed(usize, usize),
    /// Only in OLD.
    Old(usize),
    /// Only in NEW.
    New(usize),
}

/// True when two sequences are too long together for Myers' algorithm to be safe on them.
pub(super) fn too_long_for_myers(old: usize, new: usize) -> bool {
    old + new > MYERS_LIMIT
}

/// Aligns `old` and `new` with keys from each round (`keys[0]` must be the full comparison key).
pub(super) fn align(keys_old: &[Vec<String>], keys_new: &[Vec<String>]) -> Vec<Pair> {
    let mut work = 0;
    align_counted(keys_old, keys_new, &mut work)
}

/// `align`, adding to `work` an upper bound of the steps it took (for the tests that check it
/// stays near linear).
fn align_counted(keys_old: &[Vec<String>], keys_new: &[Vec<String>], work: &mut u64) -> Vec<Pair> {
    let mut out = Vec::new();
    let n_old = keys_old.first().map_or(0, Vec::len);
    let n_new = keys_new.first().map_or(0, Vec::len);
    let mut round = Round {
        keys_old,
        keys_new,
        out: &mut out,
        work,
    };
    round.align(0, 0..n_old, 0..n_new);
    out
}

/// The keys and the output of one alignment.
struct Round<'a> {
    keys_old: &'a [Vec<String>],
    keys_new: &'a [Vec<String>],
    out: &'a mut Vec<Pair>,
    work: &'a mut u64,
}

impl Round<'_> {
    /// Two items whose keys are equal in some round: the same, or the same thing changed.
    fn pair(&mut self, i: usize, j: usize) {
        self.out
            .push(if self.keys_old[0][i] == self.keys_new[0][j] {
                Pair::Same(i, j)
            } else {
                Pair::Changed(i, j)
            });
    }

    fn align(&mut self, round: usize, old: Range<usize>, new: Range<usize>) {
        *self.work += (old.len() + new.len()) as u64;
        if round == self.keys_old.len() || old.is_empty() || new.is_empty() {
            self.out.extend(old.map(Pair::Old));
            self.out.extend(new.map(Pair::New));
            return;
        }
        let (a, b) = (&self.keys_old[round], &self.keys_new[round]);
        // The common prefix and suffix.
        let prefix = a[old.clone()]
            .iter()
            .zip(&b[new.clone()])
            .take_while(|(x, y)| x == y)
            .count();
        let rest = old.len().min(new.len()) - prefix;
        let suffix = a[old.clone()]
            .iter()
            .rev()
            .zip(b[new.clone()].iter().rev())
            .take(rest)
            .take_while(|(x, y)| x == y)
            .count();
        for k in 0..prefix {
            self.pair(old.start + k, new.start + k);
        }
        let mid_old = old.start + prefix..old.end - suffix;
        let mid_new = new.start + prefix..new.end - suffix;
        let anchors = anchors(a, b, mid_old.clone(), mid_new.clone());
        *self.work += (anchors.len() as u64) * 64;
        let (mut i, mut j) = (mid_old.start, mid_new.start);
        for (ai, aj) in anchors {
            self.gap(round, i..ai, j..aj);
            self.pair(ai, aj);
            (i, j) = (ai + 1, aj + 1);
        }
        self.gap(round, i..mid_old.end, j..mid_new.end);
        for k in (0..suffix).rev() {
            self.pair(old.end - 1 - k, new.end - 1 - k);
        }
    }

    /// A stretch with no anchor in it: Myers when it is short, by position when it is not; what
    /// they cannot match goes to the next round.
    fn gap(&mut self, round: usize, old: Range<usize>, new: Range<usize>) {
        if old.is_empty() || new.is_empty() {
            self.out.extend(old.map(Pair::Old));
            self.out.extend(new.map(Pair::New));
            return;
        }
        let (a, b) = (&self.keys_old[round], &self.keys_new[round]);
        if old.len() + new.len() > MYERS_LIMIT {
            *self.work += (old.len() + new.len()) as u64;
            let n = old.len().min(new.len());
            // Runs of unequal items go to the next round together.
            let mut k = 0;
            while k < n {
                let (i, j) = (old.start + k, new.start + k);
                if a[i] == b[j] {
                    self.pair(i, j);
                    k += 1;
                    continue;
                }
                let run = (k..n)
                    .take_while(|&r| a[old.start + r] != b[new.start + r])
                    .count();
                self.align(round + 1, i..i + run, j..j + run);
                k += run;
            }
            self.align(round + 1, old.start + n..old.end, new.start + n..new.end);
            return;
        }
        let total = (old.len() + new.len()) as u64;
        *self.work += total * total;
        for op in capture_diff_slices(Algorithm::Myers, &a[old.clone()], &b[new.clone()]) {
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        self.pair(old.start + old_index + k, new.start + new_index + k);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    let s = old.start + old_index;
                    self.out.extend((s..s + old_len).map(Pair::Old));
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => {
                    let s = new.start + new_index;
                    self.out.extend((s..s + new_len).map(Pair::New));
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    let (os, ns) = (old.start + old_index, new.start + new_index);
                    self.align(round + 1, os..os + old_len, ns..ns + new_len);
                }
            }
        }
    }
}

/// Patience anchors: the keys that occur exactly once in `a[old]` and once in `b[new]`, reduced
/// to the longest run in the same order on both sides (index pairs, increasing).
fn anchors(
    a: &[String],
    b: &[String],
    old: Range<usize>,
    new: Range<usize>,
) -> Vec<(usize, usize)> {
    // key → (count in a, index in a, count in b, index in b)
    let mut seen: HashMap<&str, (u32, usize, u32, usize)> = HashMap::default();
    for i in old {
        let e = seen.entry(a[i].as_str()).or_insert((0, i, 0, 0));
        e.0 += 1;
        e.1 = i;
    }
    for j in new {
        if let Some(e) = seen.get_mut(b[j].as_str()) {
            e.2 += 1;
            e.3 = j;
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen
        .into_values()
        .filter(|e| e.0 == 1 && e.2 == 1)
        .map(|e| (e.1, e.3))
        .collect();
    pairs.sort_unstable();
    longest_increasing(&pairs)
}

/// The longest subsequence of `pairs` (sorted by the first index) whose second index increases:
/// patience sorting, O(k log k).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[l] = index in `pairs` of the smallest tail of an increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(_, j)) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].1 < j);
        prev[k] = at.checked_sub(1).map(|p| tails[p]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut cur = tails.last().copied();
    while let Some(k) = cur {
        run.push(pairs[k]);
        cur = prev[k];
    }
    run.reverse();
    run
}

/// A string field of a JSON object, or `""`.
pub(super) fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn tool_names(turn: &Value) -> String {
    let mut names = Vec::new();
    for p in turn
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(n) = p.pointer("/call/name").and_then(Value::as_str) {
            names.push(n);
        }
    }
    names.join(",")
}

/// The keys of records (or turns, which have no `kind`) for each alignment round.
pub(super) fn record_keys(records: &[Value]) -> Vec<Vec<String>> {
    let full = records.iter().map(|r| r.to_string()).collect();
    let loose: Vec<String> = records
        .iter()
        .map(|r| {
            format!(
                "{}|{}|{}",
                str_at(r, "kind"),
                str_at(r, "role"),
                r.pointer("/notice/kind")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            )
        })
        .collect();
    let close = records
        .iter()
        .zip(&loose)
        .map(|(r, l)| {
            let origin = r
                .pointer("/origin/kind")
                .and_then(Value::as_str)
                .unwrap_or("");
            format!("{l}|{origin}|{}", tool_names(r))
        })
        .collect();
    vec![full, close, loose]
}

/// The keys of a turn's parts for each alignment round.
pub(super) fn part_keys(parts: &[Value]) -> Vec<Vec<String>> {
    let full = parts.iter().map(|p| p.to_string()).collect();
    let close = parts
        .iter()
        .map(|p| {
            format!(
                "{}|{}",
                str_at(p, "type"),
                p.pointer("/call/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            )
        })
        .collect();
    // No looser round: a call to another tool is another call, not a changed one.
    vec![full, close]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(items: &[&str]) -> Vec<Vec<String>> {
        let full: Vec<String> = items.iter().map(|s| (*s).to_owned()).collect();
        let loose = items
            .iter()
            .map(|s| s.split(':').next().unwrap_or_default().to_owned())
            .collect();
        vec![full, loose]
    }

    #[test]
    fn an_insertion_stays_one_insertion() {
        let old = keys(&["a", "b", "c", "d"]);
        let new = keys(&["a", "b", "x", "c", "d"]);
        let pairs = align(&old, &new);
        assert_eq!(
            pairs,
            vec![
                Pair::Same(0, 0),
                Pair::Same(1, 1),
                Pair::New(2),
                Pair::Same(2, 3),
                Pair::Same(3, 4)
            ]
        );
    }

    #[test]
    fn a_changed_item_is_paired_by_its_looser_key() {
        let old = keys(&["a", "t:1", "c"]);
        let new = keys(&["a", "t:2", "c"]);
        assert_eq!(align(&old, &new)[1], Pair::Changed(1, 1));
    }

    #[test]
    fn moved_unique_items_anchor_the_longest_run() {
        let old = keys(&["p", "q", "r", "s"]);
        let new = keys(&["q", "r", "s", "p"]);
        let same = align(&old, &new)
            .into_iter()
            .filter(|p| matches!(p, Pair::Same(..)))
            .count();
        assert_eq!(same, 3);
    }

    /// Steps for two sequences of `n` items each that differ in every item (different tool
    /// output), plus shuffled duplicates that defeat the anchors.
    fn work_for(n: usize) -> u64 {
        // Loose keys out of step on the two sides, so that no round has a long common run.
        let old: Vec<String> = (0..n).map(|i| format!("{}:old {i}", i * 7 % 5)).collect();
        let mut new: Vec<String> = (0..n)
            .map(|i| format!("{}:new {}", i * 3 % 4, i % 7))
            .collect();
        new.rotate_left(n / 3);
        let loose = |v: &[String]| v.iter().map(|s| s[..1].to_owned()).collect::<Vec<_>>();
        let (ko, kn) = (
            vec![old.clone(), loose(&old)],
            vec![new.clone(), loose(&new)],
        );
        let mut work = 0;
        let pairs = align_counted(&ko, &kn, &mut work);
        let olds = pairs
            .iter()
            .filter(|p| matches!(p, Pair::Same(..) | Pair::Changed(..) | Pair::Old(_)))
            .count();
        let news = pairs
            .iter()
            .filter(|p| matches!(p, Pair::Same(..) | Pair::Changed(..) | Pair::New(_)))
            .count();
        assert_eq!((olds, news), (n, n), "every item placed once");
        work
    }

    #[test]
    fn alignment_work_grows_linearly_with_input_that_differs_everywhere() {
        let (small, large) = (work_for(4_000), work_for(32_000));
        // Eight times the input: about eight times the work (a quadratic alignment would be 64).
        assert!(
            large <= small * 10,
            "work {small} for 4 000 items, {large} for 32 000"
        );
    }
}
