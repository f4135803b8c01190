//! The sub-agent prompt turns `task_started` holds: written when their thread's first message comes
//! (with its time and id), when something else of the thread comes first, or at the end of the
//! input.

use crate::input::anthropic::typed_system::TaskLine;
use crate::model::event::EventKind;
use crate::model::transcript::{Part, Turn};

use super::ClaudeMessages;

impl ClaudeMessages {
    /// The prompt turn `task_started` held for the sub-agent thread of the call `thread`, taken,
    /// when a message of that thread whose text is `text` is that same prompt.
    pub(super) fn held_prompt_is(&mut self, thread: &str, text: &str) -> Option<Turn> {
        let same = |t: &Turn| match t.parts.first() {
            Some(Part::Text { text: held, .. }) => held.trim() == text.trim(),
            _ => false,
        };
        if !self.task_prompts.get(thread).is_some_and(same) {
            return None;
        }
        self.task_prompts.remove(thread)
    }

    /// `task_started.prompt` (the stream): the sub-agent's prompt turn, as a saved session has
    /// it, so a stream that does not send the thread's first user message still shows it.
    pub(crate) fn subagent_prompt(&mut self, t: &TaskLine<'_>) {
        let (Some(call), Some(prompt)) = (t.tool_use_id.as_deref(), t.prompt.as_deref()) else {
            return;
        };
        if prompt.trim().is_empty() || !self.subagent_threads_seen.insert(call.to_owned()) {
            return;
        }
        let id = format!("{}-prompt", t.task_id.as_deref().unwrap_or_default());
        let origin = crate::model::transcript::TurnOrigin::SubagentPrompt {
            parent_tool_call_id: call.to_owned(),
        };
        let turn = Turn::user(id, origin, vec![Part::text(prompt.to_owned())])
            .in_thread(Some(call.to_owned()))
            .at(t.timestamp.as_deref().map(str::to_owned));
        // Held: the thread's own first message, when it comes, gives the time (`task_prompts`).
        self.task_prompts.insert(call.to_owned(), turn);
    }

    /// Writes the prompt turn `task_started` held for the Agent call `call`, if any: something
    /// else of its thread came first, so the stream will not send the prompt as a message.
    pub(crate) fn held_prompt(&mut self, call: &str, emit: &mut impl FnMut(EventKind)) {
        if let Some(turn) = self.task_prompts.remove(call) {
            emit(EventKind::user_turn(turn));
        }
    }

    /// The input ended: writes every prompt turn still held, in the order the calls' ids sort
    /// (a stream cut before any sub-agent message).
    pub(crate) fn held_prompts(&mut self, emit: &mut impl FnMut(EventKind)) {
        let mut calls: Vec<String> = self.task_prompts.keys().cloned().collect();
        calls.sort();
        for c in calls {
            self.held_prompt(&c, emit);
        }
    }
}

/// The thread's own first message is the prompt `task_started` held: the held turn, with this
/// message's time and id where it has them.
pub(super) fn held_turn_at(mut turn: Turn, timestamp: Option<String>, id: Option<String>) -> Turn {
    if let Some(ts) = timestamp {
        turn.timestamp = Some(ts);
    }
    if let Some(id) = id {
        turn.id = id;
    }
    turn
}
