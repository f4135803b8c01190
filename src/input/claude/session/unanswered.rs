//! Calls no row of a saved session answers.
//!
//! The fold holds a turn until each of its calls has ended, and every item after it behind it,
//! so that a result arriving later still lands on its call. A call the harness never answered (a
//! session cut short, then resumed) would hold the rest of the session that way until the end of
//! the input. Pass 1 notes every call id a row answers; pass 2, after the events of each row,
//! says of each call they open that nothing will answer it (`EventKind::ToolUnanswered`), and
//! the fold writes its turn as it is once its message ends.

use super::chain::key;
use super::head::Head;
use crate::model::event::{Event, EventKind};
use crate::model::transcript::Part;

/// Keys of the call ids the rows of one file answer (a block's `tool_use_id`, in any row of the
/// chain, a branch's included): 8 bytes a result.
#[derive(Debug, Default)]
pub(crate) struct Answered {
    keys: Vec<u64>,
    /// Sorted and without repeats (`seal`): only then may `contains` be asked.
    sealed: bool,
}

impl Answered {
    /// Notes the calls row `v` answers.
    pub(crate) fn note(&mut self, v: &Head<'_>) {
        let ids = v.blocks().iter().filter_map(|b| b.0.tool_use_id.as_str());
        self.keys.extend(ids.map(key));
        self.sealed = false;
    }

    /// The file has been read: sorts the keys for `contains`.
    pub(crate) fn seal(&mut self) {
        self.keys.sort_unstable();
        self.keys.dedup();
        self.keys.shrink_to_fit();
        self.sealed = true;
    }

    /// Whether no row answers the call `id`: false until the whole file is read.
    fn never_answers(&self, id: &str) -> bool {
        self.sealed && self.keys.binary_search(&key(id)).is_err()
    }

    /// After the events of a row (from `start` on): `ToolUnanswered` for each call they open
    /// that no row answers.
    pub(crate) fn say_unanswered(&self, out: &mut Vec<Event>, start: usize) {
        for e in start..out.len() {
            let EventKind::AssistantBlock {
                part: Part::ToolCall { call },
                ..
            } = &out[e].kind
            else {
                continue;
            };
            if self.never_answers(&call.tool_call_id) {
                let tool_call_id = call.tool_call_id.clone();
                let line = out[e].line;
                out.push(Event::at(line, EventKind::ToolUnanswered { tool_call_id }));
            }
        }
    }
}
