//! When a held item is final, and how it leaves the fold: from the front of the queue, in input
//! order, with its Agent calls' sub-agent runs moved into it (`subagents.rs`). The table of when
//! each item is final is in the fold's module comment.

use crate::model::transcript::{Part, Role, ToolCall, TranscriptItem, Turn};

use super::Folder;
use super::pending::Pending;

impl Folder {
    /// Whether a pending turn may be written: a user turn at once; an assistant turn when its
    /// message takes no more frames and none of its calls can still change (each in a terminal
    /// state or said to get nothing more, no body awaited, no sub-agent it started still
    /// running).
    fn is_final(&self, turn: &Turn) -> bool {
        if turn.role == Role::User {
            return true;
        }
        if self.open_message.get(&None) == Some(&turn.id) {
            return false;
        }
        let part_final = |p: &Part| {
            p.call().is_none_or(|call| {
                (call.state.is_terminal() || self.is_unanswered(&call.tool_call_id))
                    && !self.skill_awaiting.contains(&call.tool_call_id)
                    && !self
                        .subthreads
                        .get(&call.tool_call_id)
                        .is_some_and(|st| st.holds_its_call())
            })
        };
        let mut blocker = self.blocker.borrow_mut();
        let start = if blocker.0 == turn.id && blocker.1 < turn.parts.len() {
            blocker.1
        } else {
            0
        };
        // Every part is checked, from the last blocker on, wrapping around.
        let n = turn.parts.len();
        match (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| !part_final(&turn.parts[i]))
        {
            Some(i) => {
                if blocker.0 != turn.id {
                    blocker.0.clone_from(&turn.id);
                }
                blocker.1 = i;
                false
            }
            None => true,
        }
    }

    /// Writes the final items at the front of the queue.
    pub(super) fn release(&mut self, out: &mut Vec<TranscriptItem>) {
        while let Some(front) = self.queue.front() {
            let done = match front {
                Pending::Ready(_) => true,
                Pending::Turn(t) => self.is_final(t),
            };
            if !done {
                break;
            }
            self.write_front(out);
        }
    }

    /// True for a call whose result came (the harness's "launched" acknowledgement) while the
    /// sub-agent it started still runs: a background run, whose report is still to come.
    fn runs_in_background(&self, call: &ToolCall) -> bool {
        call.state.is_terminal()
            && self
                .subthreads
                .get(&call.tool_call_id)
                .is_some_and(|st| st.runs_in_background())
    }

    /// The agent's turn ended: writes everything in the queue, final or not, up to a turn with a
    /// call whose sub-agent runs in the background. That turn (and what follows it, so that the
    /// order stays the input's) waits for the run to finish, so that its report lands on its
    /// call; the end of the input writes it all the same.
    pub(super) fn release_all_but_background(&mut self, out: &mut Vec<TranscriptItem>) {
        while let Some(front) = self.queue.front() {
            if let Pending::Turn(t) = front {
                let waits = t
                    .parts
                    .iter()
                    .filter_map(Part::call)
                    .any(|call| self.runs_in_background(call));
                if waits {
                    return;
                }
            }
            self.write_front(out);
        }
    }

    /// Writes everything in the queue, final or not.
    pub(super) fn release_all(&mut self, out: &mut Vec<TranscriptItem>) {
        while self.queue.front().is_some() {
            self.write_front(out);
        }
    }

    /// Writes the item at the front of the queue (a turn with its sub-agent runs moved into its
    /// calls), then the background tasks its calls started. Before it, once per run, the notice
    /// that sub-agents nested too deep are shown flattened.
    fn write_front(&mut self, out: &mut Vec<TranscriptItem>) {
        let Some(item) = self.queue.pop_front() else {
            return;
        };
        let item = match item {
            Pending::Ready(i) => i,
            Pending::Turn(mut t) => {
                self.attach_subagents(&mut t, 1);
                TranscriptItem::Turn(t)
            }
        };
        out.extend(self.flattened_notice());
        out.push(item);
        out.append(&mut self.after_turn);
    }
}
