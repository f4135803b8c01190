//! Records that wait for a block that began before them (design: blocks are ordered by the
//! event id of their *first* event).
//!
//! The daemon sends a message as many chunks; scribe gathers a run of them into one part and
//! emits it when the run ends. A notice (or a debug record) whose event comes in the middle of
//! a run would otherwise be written before the message that began earlier: `mcp_budget_warning`
//! id 3 before the assistant text that began at id 2. Such a record waits here for every run
//! that was open when it came, and goes out right after the last of them is emitted (the fold
//! then holds it behind the message's turn, which is still open).

use std::collections::VecDeque;

use crate::model::event::{Event, Thread};

/// One gathered run of chunks: its thread, its turn or message id and its part index.
pub(crate) type RunKey = (Thread, String, u64);

/// The records waiting, oldest first, each with the runs it still waits for.
#[derive(Debug, Default)]
pub(crate) struct Waiting {
    batches: VecDeque<(Vec<RunKey>, Vec<Event>)>,
}

impl Waiting {
    /// `events` wait for the runs `open` (nothing waits when `open` is empty: the caller
    /// leaves them where they are).
    pub(super) fn hold(&mut self, open: Vec<RunKey>, events: Vec<Event>) {
        if !events.is_empty() {
            self.batches.push_back((open, events));
        }
    }

    /// The run `key` was emitted: the records that waited for nothing else go to `out`, oldest
    /// first, stopping at the first that still waits (a later record never overtakes an
    /// earlier one).
    pub(super) fn emitted(&mut self, key: &RunKey, out: &mut Vec<Event>) {
        for (keys, _) in &mut self.batches {
            keys.retain(|k| k != key);
        }
        while self.batches.front().is_some_and(|(k, _)| k.is_empty()) {
            if let Some((_, events)) = self.batches.pop_front() {
                out.extend(events);
            }
        }
    }

    /// The input ended (or a gap closed every run): everything still waiting goes out.
    pub(super) fn release_all(&mut self, out: &mut Vec<Event>) {
        for (_, events) in self.batches.drain(..) {
            out.extend(events);
        }
    }
}
