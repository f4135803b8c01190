//! Results held for their call's output line. In a rollout a command's or a patch's result
//! comes from its UI line (`exec_command_end`, `item_completed` `FileChange`,
//! `patch_apply_end`), and the `function_call_output` / `custom_tool_call_output` line that
//! follows it is what the model read: the output behind a header stating the exit code and the
//! wall time (`Chunk ID: …`, `Exit code: 0`, `Wall time: 0 seconds`, or the 0.40 JSON
//! `metadata`). The UI line's copy of the output is cut to about 10 000 characters around a
//! `…N chars truncated…` mark, and says no header. So a result waits for its output line,
//! while the lines between are the calls, ends, outputs and token counts of calls run side by
//! side: when that line comes, its text (header kept) is the call's output and the facts it
//! states join the result's (the line itself is then absorbed); any other line, or the end,
//! writes the held results as they stand.

use serde_json::Value;

use crate::input::codex::exec_output;
use crate::input::codex::history::{self, CallKind};
use crate::input::codex::items::Outcome;
use crate::input::codex::mcp_output;
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
        self.held_results.iter().any(|h| h.line == n)
    }

    /// The events of line `n`: written, or held when they finish a call whose output line is
    /// still to come.
    pub(super) fn pass_or_hold(&mut self, n: u64, mut events: Vec<Event>, out: &mut Vec<Event>) {
        let waiting = events.iter().find_map(|e| match &e.kind {
            EventKind::ToolResult { tool_call_id, .. }
                if self.awaiting_output.contains(tool_call_id) =>
            {
                Some(tool_call_id.clone())
            }
            _ => None,
        });
        match waiting {
            Some(call) => self.held_results.push(HeldResult {
                line: n,
                call,
                events,
            }),
            None => out.append(&mut events),
        }
    }

    /// Writes held results before the events of the line `next` (`None`: no line follows now,
    /// every one is written). The result whose output line `next` is takes that line's text
    /// and facts; the others wait while `next` is a line of calls run side by side.
    pub(super) fn release_held_results(&mut self, next: Option<&Value>, out: &mut Vec<Event>) {
        if self.held_results.is_empty() {
            return;
        }
        let payload = next.and_then(|v| v.get("payload"));
        let output_of = payload
            .filter(|p| {
                matches!(
                    str_of(p, "type"),
                    "function_call_output" | "custom_tool_call_output"
                )
            })
            .map(|p| str_of(p, "call_id"));
        if let (Some(call), Some(p)) = (output_of, payload)
            && let Some(i) = self.held_results.iter().position(|h| h.call == call)
        {
            let mut held = self.held_results.remove(i);
            let stated =
                history::call_outcome(p.get("output").unwrap_or(&Value::Null), CallKind::Other);
            take_output_line(&mut held.events, &held.call, stated);
            out.append(&mut held.events);
        }
        let between_side_by_side_calls = payload.is_some_and(|p| {
            matches!(
                str_of(p, "type"),
                "function_call"
                    | "custom_tool_call"
                    | "function_call_output"
                    | "custom_tool_call_output"
                    | "exec_command_begin"
                    | "exec_command_end"
                    | "patch_apply_begin"
                    | "patch_apply_end"
                    | "mcp_tool_call_begin"
                    | "mcp_tool_call_end"
                    | "token_count"
            )
        });
        if !between_side_by_side_calls {
            for mut held in self.held_results.drain(..) {
                out.append(&mut held.events);
            }
        }
    }
}

/// The result of `call` among `events` takes what its output line (`stated`) says: that text
/// as its text output (and in its error text, in place of the UI line's copy) when it is
/// not empty (joined to the copy when it says the process still ran; in place of an MCP
/// call's content blocks it holds), the exit code and wall time it lacks, and the details when
/// it has none.
fn take_output_line(events: &mut [Event], call: &str, stated: Outcome) {
    let facts_stated = tools::result_facts(stated.sidecar.as_ref());
    let said = stated.output.as_str().filter(|s| !s.trim().is_empty());
    for e in events {
        if let EventKind::ToolResult {
            tool_call_id,
            facts,
            sidecar,
            output,
            error_text,
            ..
        } = &mut e.kind
            && tool_call_id == call
        {
            facts.exit_code = facts.exit_code.or(facts_stated.exit_code);
            facts.duration_ms = facts.duration_ms.or(facts_stated.duration_ms);
            if sidecar.is_none() {
                *sidecar = stated.sidecar.clone().map(Details::from);
            }
            match (said, &*output) {
                (Some(said), Value::String(copy)) => {
                    let still_ran =
                        exec_output::header(said).is_some_and(|h| h.running_session.is_some());
                    let text = if still_ran {
                        exec_output::joined(said, copy)
                    } else {
                        said.to_owned()
                    };
                    exec_output::retell_error(error_text, copy, &text);
                    *output = Value::String(text);
                }
                // An MCP call's content blocks: the text the model read holds them.
                (Some(said), Value::Array(blocks)) => *output = mcp_output::shown(said, blocks),
                _ => {}
            }
        }
    }
}
