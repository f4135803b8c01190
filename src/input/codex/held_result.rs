//! A call's result held for one line. In a rollout a patch's result comes from its UI line
//! (`item_completed` `FileChange`, `patch_apply_end`), and the `custom_tool_call_output` line
//! that follows it repeats the output behind a header stating the exit code and the wall time
//! (`Exit code: 0`, `Wall time: 0 seconds`, or the 0.40 JSON `metadata`), which the UI line
//! does not say. The result waits one line: when that line is the call's output, the facts it
//! states join the result (the line itself is then a copy, absorbed); any other line writes
//! the result as it stands.

use serde_json::Value;

use crate::input::codex::history::{self, CallKind};
use crate::input::codex::rollout::CodexRollout;
use crate::input::codex::tools;
use crate::input::fields::str_of;
use crate::model::details::Details;
use crate::model::event::{Event, EventKind};

/// The events of a line that finished a call whose output line is still to come.
pub(crate) struct HeldResult {
    line: u64,
    call: String,
    events: Vec<Event>,
}

impl CodexRollout {
    /// True when the events of line `n` are held.
    pub(super) fn holds_result_of(&self, n: u64) -> bool {
        self.held_result.as_ref().is_some_and(|h| h.line == n)
    }

    /// The events of line `n`: written, or held when they finish a call whose output line is
    /// still to come and lack an exit code or a duration that line may state.
    pub(super) fn pass_or_hold(&mut self, n: u64, mut events: Vec<Event>, out: &mut Vec<Event>) {
        let waiting = events.iter().find_map(|e| match &e.kind {
            EventKind::ToolResult {
                tool_call_id,
                facts,
                ..
            } if self.awaiting_output.contains(tool_call_id)
                && (facts.exit_code.is_none() || facts.duration_ms.is_none()) =>
            {
                Some(tool_call_id.clone())
            }
            _ => None,
        });
        match waiting {
            Some(call) => {
                self.held_result = Some(HeldResult {
                    line: n,
                    call,
                    events,
                })
            }
            None => out.append(&mut events),
        }
    }

    /// Writes the held result before the events of the line `next` (`None`: no line follows
    /// now); when `next` is the call's output line, with the facts that line states.
    pub(super) fn release_held_result(&mut self, next: Option<&Value>, out: &mut Vec<Event>) {
        let Some(mut held) = self.held_result.take() else {
            return;
        };
        let payload = next.and_then(|v| v.get("payload"));
        let is_its_output = payload.is_some_and(|p| {
            matches!(
                str_of(p, "type"),
                "function_call_output" | "custom_tool_call_output"
            ) && str_of(p, "call_id") == held.call
        });
        if let (true, Some(p)) = (is_its_output, payload) {
            let stated =
                history::call_outcome(p.get("output").unwrap_or(&Value::Null), CallKind::Other);
            add_facts(&mut held.events, &held.call, stated.sidecar);
        }
        out.append(&mut held.events);
    }
}

/// Adds what `details` (an output line's exit code and wall time) states to the result of
/// `call` among `events`: the facts it lacks, and the details when it has none.
fn add_facts(events: &mut [Event], call: &str, details: Option<Value>) {
    let Some(details) = details else {
        return;
    };
    let stated = tools::result_facts(Some(&details));
    for e in events {
        if let EventKind::ToolResult {
            tool_call_id,
            facts,
            sidecar,
            ..
        } = &mut e.kind
            && tool_call_id == call
        {
            facts.exit_code = facts.exit_code.or(stated.exit_code);
            facts.duration_ms = facts.duration_ms.or(stated.duration_ms);
            if sidecar.is_none() {
                *sidecar = Some(Details::from(details.clone()));
            }
        }
    }
}
