//! `--stable --to events`: a turn's parallel tool results in call order, not arrival order.
//!
//! Parallel calls finish in whatever order the machine allows, and each result (with whatever
//! its sub-agent said on the way) is an event of its own. Two runs that did the same things
//! would print those events in different orders. Here the events that belong to a call are held
//! and released, sorted by the order their calls were made (arrival order kept among the events
//! of one call), when the main thread moves on:
//!
//! ```text
//! event                                                     here
//! ────────────────────────────────────────────────────────  ─────────────────────────────────
//! tool result / update / denial, sub-agent task events,     held, keyed by its call
//!   anything on a sub-agent's thread, a tool's user turn,
//!   a sub-agent's prompt
//! the main thread's tool call block, message end, notice,   passed on (a call is numbered)
//!   debug record
//! anything else (main-thread text, a prompt, a new session,  releases what is held, then
//!   a branch or reset)                                        passes on
//! ```
//!
//! The end of the input releases the rest. What is held is one stretch of a turn; a prompt
//! forgets the calls numbered so far, so memory stays bounded by one prompt's calls.

use foldhash::HashMap;

use crate::model::event::{Event, EventKind};
use crate::model::transcript::Part;

/// The key of an event whose call is unknown (a late result of an earlier prompt's call): after
/// the known ones, in arrival order.
const UNKNOWN: usize = usize::MAX;

/// The hold-and-sort buffer (one per input).
#[derive(Debug, Default)]
pub(crate) struct ResultOrder {
    /// Main-thread call id → its position; a sub-agent's own calls and task ids map to the
    /// position of the call that started the sub-agent.
    calls: HashMap<String, usize>,
    held: Vec<(usize, Event)>,
}

/// What to do with one event.
enum Step {
    Hold(usize),
    Pass,
    Release,
}

impl ResultOrder {
    /// Takes one event; returns the events to write now, in order.
    pub(crate) fn push(&mut self, event: Event) -> Vec<Event> {
        match self.step(&event) {
            Step::Hold(key) => {
                self.held.push((key, event));
                Vec::new()
            }
            Step::Pass => vec![event],
            Step::Release => {
                let mut out = self.release();
                if matches!(
                    event.kind,
                    EventKind::UserTurn {
                        source_tool_call_id: None,
                        ..
                    }
                ) {
                    self.calls.clear();
                }
                out.push(event);
                out
            }
        }
    }

    /// Everything still held, in call order (at the end of the input).
    pub(crate) fn release(&mut self) -> Vec<Event> {
        let mut held = std::mem::take(&mut self.held);
        held.sort_by_key(|(key, _)| *key);
        held.into_iter().map(|(_, e)| e).collect()
    }

    fn key(&self, id: &str) -> usize {
        self.calls.get(id).copied().unwrap_or(UNKNOWN)
    }

    /// Notes that `id` belongs with `key` (a sub-agent's call or task under its parent call).
    fn inherit(&mut self, id: Option<&str>, key: usize) {
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            self.calls.entry(id.to_owned()).or_insert(key);
        }
    }

    fn step(&mut self, event: &Event) -> Step {
        match &event.kind {
            EventKind::AssistantBlock {
                thread: Some(t),
                part,
                ..
            } => {
                let key = self.key(t);
                if let Part::ToolCall { call } = part {
                    self.inherit(Some(&call.tool_call_id), key);
                }
                Step::Hold(key)
            }
            EventKind::AssistantEnd {
                thread: Some(t), ..
            }
            | EventKind::TextDelta {
                thread: Some(t), ..
            }
            | EventKind::ReasoningDelta {
                thread: Some(t), ..
            }
            | EventKind::ToolInputStarted {
                thread: Some(t), ..
            }
            | EventKind::ToolResult {
                thread: Some(t), ..
            }
            | EventKind::BranchStarted {
                thread: Some(t), ..
            } => Step::Hold(self.key(t)),
            EventKind::AssistantBlock {
                thread: None,
                part: Part::ToolCall { call },
                ..
            } => {
                let next = self.calls.len();
                self.calls.entry(call.tool_call_id.clone()).or_insert(next);
                Step::Pass
            }
            // A sub-agent's prompt (and any turn a sub-agent owns) goes with its call.
            EventKind::UserTurn {
                turn,
                source_tool_call_id: None,
            } if turn.parent_task_id.is_some() => {
                let owner = turn.parent_task_id.as_deref().unwrap_or_default();
                Step::Hold(self.key(owner))
            }
            EventKind::ToolResult {
                thread: None,
                tool_call_id,
                ..
            }
            | EventKind::ToolUpdate { tool_call_id, .. }
            | EventKind::ToolDenied { tool_call_id, .. }
            | EventKind::ToolUnanswered { tool_call_id }
            | EventKind::ToolProgress { tool_call_id, .. }
            | EventKind::UserTurn {
                source_tool_call_id: Some(tool_call_id),
                ..
            } => Step::Hold(self.key(tool_call_id)),
            EventKind::SubtaskStarted {
                task_id,
                tool_call_id,
                ..
            }
            | EventKind::SubtaskProgress {
                task_id,
                tool_call_id,
                ..
            }
            | EventKind::SubtaskFinished {
                task_id,
                tool_call_id,
                ..
            } => {
                let key = match tool_call_id {
                    Some(call) if self.calls.contains_key(call) => self.key(call),
                    _ => self.key(task_id),
                };
                self.inherit(Some(task_id), key);
                Step::Hold(key)
            }
            EventKind::SubtaskUpdated { task_id, .. } => Step::Hold(self.key(task_id)),
            EventKind::AssistantEnd { thread: None, .. }
            | EventKind::TextDelta { thread: None, .. }
            | EventKind::ReasoningDelta { thread: None, .. }
            | EventKind::ToolInputStarted { thread: None, .. }
            | EventKind::Notice { .. }
            | EventKind::Absorbed { .. }
            | EventKind::Debug { .. } => Step::Pass,
            EventKind::AssistantBlock { thread: None, .. }
            | EventKind::UserTurn {
                source_tool_call_id: None,
                ..
            }
            | EventKind::SessionInit { .. }
            | EventKind::ConversationReset
            | EventKind::BranchStarted { thread: None, .. }
            | EventKind::BranchEnded => Step::Release,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn result(line: u64, id: &str) -> Event {
        Event {
            line,
            kind: EventKind::ToolResult {
                thread: None,
                tool_call_id: id.to_owned(),
                is_error: false,
                output: Value::String(format!("out {id}")),
                error_text: None,
                sidecar: None,
                server_run: false,
                replay: false,
                facts: Default::default(),
                timestamp: None,
            },
        }
    }

    fn ids(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| {
                if let EventKind::ToolResult { tool_call_id, .. } = &e.kind {
                    tool_call_id.clone()
                } else if matches!(e.kind, EventKind::Notice { .. }) {
                    "notice".to_owned()
                } else {
                    "other".to_owned()
                }
            })
            .collect()
    }

    #[test]
    fn held_results_come_out_in_call_order_with_unknown_calls_last() {
        let mut order = ResultOrder::default();
        order.calls.insert("a".to_owned(), 0);
        order.calls.insert("b".to_owned(), 1);
        assert!(order.push(result(3, "zz")).is_empty());
        assert!(order.push(result(4, "b")).is_empty());
        assert!(order.push(result(5, "a")).is_empty());
        assert_eq!(ids(&order.release()), ["a", "b", "zz"]);
        assert!(order.release().is_empty());
    }
}
