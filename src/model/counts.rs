//! What the views count of a transcript: turns, prompts, tool calls, errors and denials, with
//! the main thread's calls and its sub-agents' calls kept apart.
//!
//! The terminal view's closing line, the Markdown totals, the HTML header and the `-o DIR`
//! index all show these figures; counting them in one place is what makes them agree (the
//! definitions are in docs/schema.md, "What the views count").

use serde::{Deserialize, Serialize};

use super::transcript::{Part, Role, SubagentRecord, ToolCall, ToolState, Turn, TurnOrigin};

impl Turn {
    /// A prompt: a user turn someone typed (or its replay), not text the harness added.
    pub(crate) fn is_prompt(&self) -> bool {
        self.role == Role::User && matches!(self.origin, TurnOrigin::UserInput | TurnOrigin::Replay)
    }
}

impl ToolCall {
    /// The harness or the user refused the call.
    pub(crate) fn is_denied(&self) -> bool {
        self.denied.is_some() || self.state == ToolState::ApprovalDenied
    }

    /// The call ran and failed (a denial is not counted as an error).
    pub(crate) fn is_error(&self) -> bool {
        self.state == ToolState::Error && !self.is_denied()
    }
}

/// The figures every view shows of one transcript.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Counts {
    /// Top-level turns: prompts, model replies and what the harness added.
    pub(crate) turns: u64,
    /// Top-level turns that are prompts ([`Turn::is_prompt`]).
    pub(crate) prompts: u64,
    /// Tool calls of the top-level turns (the main thread).
    pub(crate) calls: u64,
    /// Main-thread calls that failed.
    pub(crate) errors: u64,
    /// Main-thread calls that were refused.
    pub(crate) denied: u64,
    /// Calls made inside sub-agents that main-thread calls ran, at any depth.
    pub(crate) sub_calls: u64,
    /// Of those, the ones that failed or were refused.
    pub(crate) sub_failed: u64,
}

impl Counts {
    /// Counts one top-level turn and the calls in it (and in the sub-agents they ran).
    pub(crate) fn add_turn(&mut self, t: &Turn) {
        self.turns = self.turns.saturating_add(1);
        if t.is_prompt() {
            self.prompts = self.prompts.saturating_add(1);
        }
        for call in calls_of(t) {
            self.calls = self.calls.saturating_add(1);
            if call.is_denied() {
                self.denied = self.denied.saturating_add(1);
            } else if call.is_error() {
                self.errors = self.errors.saturating_add(1);
            }
            if let Some(sub) = &call.subagent {
                self.add_subagent(sub);
            }
        }
    }

    /// Counts the calls of a sub-agent's turns, and of the sub-agents those ran. A loop over
    /// a stack rather than recursion: a hostile input's nesting cannot exhaust the stack.
    fn add_subagent(&mut self, record: &SubagentRecord) {
        let mut stack = vec![record];
        while let Some(rec) = stack.pop() {
            for call in rec.transcript.iter().flat_map(calls_of) {
                self.sub_calls = self.sub_calls.saturating_add(1);
                if call.is_denied() || call.is_error() {
                    self.sub_failed = self.sub_failed.saturating_add(1);
                }
                stack.extend(call.subagent.as_ref());
            }
        }
    }
}

/// The tool calls among a turn's parts.
fn calls_of(t: &Turn) -> impl Iterator<Item = &ToolCall> {
    t.parts.iter().filter_map(Part::call)
}
