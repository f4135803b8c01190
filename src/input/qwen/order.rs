//! Ordering a daemon event stream by event id (`docs/input-qwen.md`, "Ordering").
//!
//! The daemon numbers a session's events 1, 2, 3, … (`id`, per-session monotonic); a client may
//! receive them out of order, twice (a live and a replay subscription of the same session
//! concatenated), or with holes. [`Reorder`] hands events to the reducer in id order: an event
//! whose predecessors have not arrived waits (at most [`WINDOW`] of them); one that arrives a
//! second time is a duplicate; a hole that no later event fills is a missed range. Events
//! without an id (synthetic frames) are not ordered.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// How many events may wait for a missing predecessor before the hole is declared missed:
/// enough for the reordering a proxy or a reconnect causes, small enough to keep memory flat.
pub(crate) const WINDOW: usize = 64;

/// The widest missed range checked id by id against what arrived (a resync may name any
/// range; beyond this the whole range is reported).
const CHECK_LIMIT: u64 = 100_000;

/// One event waiting for its turn: the line it came from, its envelope and its raw text.
#[derive(Debug)]
pub(crate) struct Held {
    pub(crate) line: u64,
    pub(crate) env: Map<String, Value>,
    pub(crate) raw: String,
}

/// What became of an arriving event.
#[derive(Debug)]
pub(crate) enum Admit {
    /// Its id was folded already (or waits already): a duplicate.
    Duplicate(Held),
    /// It is the next one (or the first): fold it, then whatever [`Reorder::ready`] gives.
    Ready(Held),
    /// An id below the next expected one that never came before: folded now, out of order.
    Late(Held),
    /// It waits for a predecessor.
    Waiting,
}

/// The ordering state: the next id expected, the ids folded, the events waiting.
#[derive(Debug, Default)]
pub(crate) struct Reorder {
    next: Option<u64>,
    seen: IdRanges,
    pending: BTreeMap<u64, Held>,
}

/// The ids folded so far, as disjoint runs (`start → end`, both inclusive). A daemon numbers its
/// events 1, 2, 3, …, so the runs are few (one per hole) and memory stays flat however long the
/// stream is, where a set of ids would grow with every event.
#[derive(Debug, Default)]
struct IdRanges {
    runs: BTreeMap<u64, u64>,
}

impl IdRanges {
    /// True when `id` was folded.
    fn contains(&self, id: u64) -> bool {
        self.runs
            .range(..=id)
            .next_back()
            .is_some_and(|(_, &end)| id <= end)
    }

    /// Records `id`, joining it to the runs it touches.
    fn insert(&mut self, id: u64) {
        if self.contains(id) {
            return;
        }
        let before = self
            .runs
            .range(..id)
            .next_back()
            .filter(|(_, end)| end.checked_add(1) == Some(id))
            .map(|(&start, _)| start);
        let after = id
            .checked_add(1)
            .and_then(|next| self.runs.get(&next).map(|&end| (next, end)));
        let start = before.unwrap_or(id);
        let end = match after {
            Some((next, end)) => {
                self.runs.remove(&next);
                end
            }
            None => id,
        };
        self.runs.insert(start, end);
    }
}

impl Reorder {
    /// An event with id `id` arrived.
    pub(crate) fn admit(&mut self, id: u64, held: Held) -> Admit {
        if self.seen.contains(id) || self.pending.contains_key(&id) {
            return Admit::Duplicate(held);
        }
        match self.next {
            Some(n) if id > n => {
                self.pending.insert(id, held);
                Admit::Waiting
            }
            Some(n) if id < n => {
                self.seen.insert(id);
                Admit::Late(held)
            }
            _ => {
                self.take(id);
                Admit::Ready(held)
            }
        }
    }

    fn take(&mut self, id: u64) {
        self.seen.insert(id);
        self.next = Some(
            self.next
                .map_or(id.saturating_add(1), |n| n.max(id.saturating_add(1))),
        );
    }

    /// The waiting event whose turn has come, if any: the next id, or one that a resync has
    /// left behind (the daemon said the ids before it are gone, so it waits for nothing).
    pub(crate) fn ready(&mut self) -> Option<Held> {
        let n = self.next?;
        let entry = self.pending.first_entry().filter(|e| *e.key() <= n)?;
        let id = *entry.key();
        let held = entry.remove();
        self.take(id);
        Some(held)
    }

    /// True when events wait for a predecessor.
    pub(crate) fn has_waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    /// True when more events wait than the window allows.
    pub(crate) fn overflowing(&self) -> bool {
        self.pending.len() > WINDOW
    }

    /// Gives up on the hole before the first waiting event: returns it as a missed range
    /// (`from..=to`) and moves on, so that [`Reorder::ready`] gives the waiting events.
    pub(crate) fn skip_hole(&mut self) -> Option<(u64, u64)> {
        let (&first, _) = self.pending.iter().next()?;
        let from = self.next.unwrap_or(first);
        self.next = Some(first);
        (from < first).then(|| (from, first - 1))
    }

    /// The daemon said events after `last` and before `earliest` are gone
    /// (`state_resync_required`). Returns the parts of that range this input does not hold, one
    /// range per run of absent ids (none: another subscription in the same input delivered all
    /// of it; two: it delivered the middle), and expects `earliest` next. `to` is `u64::MAX`
    /// when the daemon named no end.
    pub(crate) fn resync(&mut self, last: Option<u64>, earliest: Option<u64>) -> Vec<(u64, u64)> {
        let from = last.map_or(1, |l| l.saturating_add(1));
        let to = earliest.map(|e| e.saturating_sub(1));
        if let Some(e) = earliest {
            self.next = Some(self.next.map_or(e, |n| n.max(e)));
        }
        let Some(to) = to else {
            return vec![(from, u64::MAX)];
        };
        if to < from {
            return Vec::new();
        }
        if to - from > CHECK_LIMIT {
            return vec![(from, to)];
        }
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for i in (from..=to).filter(|i| !self.seen.contains(*i) && !self.pending.contains_key(i)) {
            match ranges.last_mut() {
                Some((_, end)) if *end + 1 == i => *end = i,
                Some(_) | None => ranges.push((i, i)),
            }
        }
        ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(n: u64) -> Held {
        Held {
            line: n,
            env: Map::new(),
            raw: String::new(),
        }
    }

    fn order(ids: &[u64]) -> (Vec<u64>, Vec<(u64, u64)>) {
        let mut r = Reorder::default();
        let (mut folded, mut missed) = (Vec::new(), Vec::new());
        for &id in ids {
            match r.admit(id, held(id)) {
                Admit::Ready(h) | Admit::Late(h) => {
                    folded.push(h.line);
                    while let Some(h) = r.ready() {
                        folded.push(h.line);
                    }
                }
                Admit::Duplicate(_) | Admit::Waiting => {}
            }
        }
        while let Some(range) = r.skip_hole() {
            missed.push(range);
            while let Some(h) = r.ready() {
                folded.push(h.line);
            }
        }
        (folded, missed)
    }

    #[test]
    fn events_fold_in_id_order() {
        assert_eq!(order(&[1, 3, 2, 4]).0, [1, 2, 3, 4]);
    }

    #[test]
    fn a_replay_after_the_live_stream_adds_nothing_and_misses_nothing() {
        let (folded, missed) = order(&[1, 2, 3, 4, 2, 3, 4, 5]);
        assert_eq!(folded, [1, 2, 3, 4, 5]);
        assert!(missed.is_empty());
    }

    #[test]
    fn a_hole_nobody_fills_is_a_missed_range() {
        let (folded, missed) = order(&[1, 2, 5, 6]);
        assert_eq!(folded, [1, 2, 5, 6]);
        assert_eq!(missed, [(3, 4)]);
    }

    #[test]
    fn a_resync_for_events_already_here_is_no_gap() {
        let mut r = Reorder::default();
        for id in 1..=10 {
            assert!(matches!(r.admit(id, held(id)), Admit::Ready(_)));
        }
        assert_eq!(r.resync(Some(1), Some(8)), []);
        let mut r = Reorder::default();
        assert_eq!(r.resync(Some(1), Some(45)), [(2, 44)]);
        assert!(matches!(r.admit(45, held(45)), Admit::Ready(_)));
    }

    /// Q52: a resync whose range another subscription delivered in part reports only the ids
    /// still absent, each run on its own, not one range from the first to the last.
    #[test]
    fn a_resync_reports_only_the_runs_of_absent_ids() {
        let mut r = Reorder::default();
        for id in [1, 2, 3, 6, 7] {
            r.admit(id, held(id));
        }
        assert_eq!(r.resync(Some(1), Some(10)), [(4, 5), (8, 9)]);
        let mut r = Reorder::default();
        r.admit(1, held(1));
        assert_eq!(r.resync(Some(1), None), [(2, u64::MAX)]);
    }

    /// The folded ids are kept as runs: a long gapless stream is one run, holes and late
    /// arrivals split and join runs, and the top of the range does not overflow.
    #[test]
    fn folded_ids_are_kept_as_few_runs() {
        let mut ids = IdRanges::default();
        for id in 1..=10_000 {
            ids.insert(id);
        }
        assert_eq!(ids.runs.len(), 1);
        for id in [10_002, 10_004, u64::MAX, u64::MAX - 1] {
            ids.insert(id);
        }
        assert_eq!(ids.runs.len(), 4);
        assert!(!ids.contains(10_001) && !ids.contains(10_003) && !ids.contains(0));
        ids.insert(10_003);
        ids.insert(10_001);
        assert_eq!(ids.runs.len(), 2);
        assert!((1..=10_004).all(|id| ids.contains(id)));
        assert!(ids.contains(u64::MAX) && !ids.contains(u64::MAX - 2));
    }

    /// A resync that moves past events waiting for a hole releases them (in id order) rather
    /// than stranding them below the next expected id.
    #[test]
    fn a_resync_past_waiting_events_releases_them() {
        let mut r = Reorder::default();
        for id in [1, 2, 4, 6] {
            r.admit(id, held(id));
        }
        assert_eq!(r.resync(Some(2), Some(6)), [(3, 3), (5, 5)]);
        let mut folded = Vec::new();
        while let Some(h) = r.ready() {
            folded.push(h.line);
        }
        assert_eq!(folded, [4, 6]);
        assert!(matches!(r.admit(7, held(7)), Admit::Ready(_)));
        assert!(!r.has_waiting());
    }
}
