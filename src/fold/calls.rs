//! Tool calls (design §14, "ToolCall" and ingest step 6): one evolving call per id. A call is
//! opened by its assistant block (`turns.rs`); here its result, its updates and its denial find
//! it and change it, never backwards (a terminal state stays terminal).
//!
//! Each open call has a slot (`Folder::call_thread`: its thread, its turn, its index in the
//! turn's parts), so that a result finds its call in one lookup; a written call leaves only a
//! fingerprint (`Folder::written_calls`), which tells a late result from one whose call is not
//! in the input.

use serde_json::Value;

use crate::model::event::{EventKind, Thread};
use crate::model::recent::fingerprint;
use crate::model::session::{Level, RESULT_SOURCE, SystemNotice};
use crate::model::transcript::{CallResult, Part, ToolCall, ToolState, TranscriptItem};

use super::Folder;
use super::turns::{extend_turn, turn_in, turns_in};

/// Where a tool call sits in the fold (see `Folder::call_thread`), or that it was written: a
/// result that comes after its call was written is then told apart from one whose call is not
/// in the input at all.
#[derive(Debug, Clone)]
pub(super) enum CallSlot {
    Open {
        thread: Thread,
        turn: String,
        part: usize,
        /// The adapter said nothing more of the call will come (`ToolUnanswered`): its turn
        /// need not wait for its end.
        unanswered: bool,
    },
    /// Written with its turn (or moved into a sub-agent record), finished or not, with a
    /// fingerprint of its output ([`output_fingerprint`]): a result that repeats it is not
    /// shown again.
    Written { finished: bool, output: u64 },
}

impl Folder {
    /// `ToolResult`: finishes the call. A client tool's result comes back in a user message,
    /// which ends the assistant message; a server-run tool's result is one more block of the
    /// same message. A Skill call that succeeded then waits for its body (`skills.rs`). `event`
    /// is a `ToolResult`, whole (`Folder::push` sends nothing else here); `line` is its line.
    pub(super) fn tool_result(&mut self, event: EventKind, line: u64) {
        let EventKind::ToolResult {
            thread,
            tool_call_id: id,
            is_error,
            output,
            error_text,
            sidecar,
            facts,
            server_run,
            replay,
            timestamp: at,
        } = event
        else {
            unreachable!("the fold dispatches only tool results here");
        };
        let result = CallResult {
            is_error,
            output,
            error_text,
            sidecar,
            facts,
        };
        if !server_run {
            self.open_message.remove(&thread);
        }
        // The first result's time ends the call and, if later, the turn that made it.
        let first = self.find_call(&id).is_some_and(|c| !c.state.is_terminal());
        if first
            && let Some(CallSlot::Open { thread, turn, .. }) = self.call_thread.get(&id).cloned()
            && let Some(t) = self.find_turn(&thread, &turn)
        {
            extend_turn(t, at.clone());
        }
        let second = SecondResult {
            id: &id,
            line,
            replay,
        };
        let Some(call) = self.find_call(&id) else {
            if let Some(notice) = self.unmatched_result(second, result.output) {
                self.ready(notice);
            }
            return;
        };
        if call.state.is_terminal() {
            if let Some(notice) = repeat_result(call, second, result) {
                self.ready(notice);
            }
            return;
        }
        call.set_result(result);
        if at.is_some() {
            call.ended_at = at;
        }
        if call.skill.is_some() && !is_error {
            self.skill_awaiting.push_back(id);
        }
    }

    /// A result no open call takes, kept and said for what it is: a repeat (a replay) for a
    /// call already written with its result (nothing when it repeats that result), a late
    /// result for a call written unfinished, or a result whose call is not in the input.
    fn unmatched_result(&self, second: SecondResult<'_>, output: Value) -> Option<TranscriptItem> {
        let SecondResult { id, line, .. } = second;
        let (level, text) = match self.slot_of(id) {
            Some(CallSlot::Written {
                finished: true,
                output: kept,
            }) => {
                if output_fingerprint(Some(&output)) == kept {
                    return None;
                }
                (Level::Info, second.words())
            }
            Some(CallSlot::Written {
                finished: false, ..
            }) => (
                Level::Warning,
                format!(
                    "a result for the call {id} (line {line}) that came after its turn was written"
                ),
            ),
            Some(CallSlot::Open { .. }) | None => (
                Level::Warning,
                format!("result for a tool call that is not in the input ({id}, line {line})"),
            ),
        };
        Some(TranscriptItem::Notice(Box::new(SystemNotice::Info {
            source: RESULT_SOURCE.into(),
            level,
            text,
            data: output,
        })))
    }

    /// `ToolUpdate`: a call changed state without finishing (approval asked, approved, still
    /// running), or its input became known. `event` is a `ToolUpdate`, whole (`Folder::push`
    /// sends nothing else here).
    pub(super) fn tool_update(&mut self, event: EventKind) {
        let EventKind::ToolUpdate {
            tool_call_id,
            state,
            output,
            input,
            kind,
            error_text,
            sidecar,
        } = event
        else {
            unreachable!("the fold dispatches only tool updates here");
        };
        let Some(call) = self.find_call(&tool_call_id) else {
            return;
        };
        // No call moves backwards: a late question or answer about a finished call (a
        // permission resolved after the result) leaves its final state.
        if let Some(s) = state.filter(|s| s.is_terminal() || !call.state.is_terminal()) {
            call.state = s;
        }
        if output.is_some() {
            call.output = output;
        }
        if let Some(i) = input {
            call.input = i;
        }
        if let Some(k) = kind {
            call.kind = k;
        }
        if error_text.is_some() {
            call.error_text = error_text;
        }
        if sidecar.is_some() {
            call.sidecar = sidecar;
        }
    }

    /// `ToolUnanswered`: the open call `id` will get no result, update or denial; it stays as
    /// it is, and its turn is written once its message ends (`release.rs`).
    pub(super) fn tool_unanswered(&mut self, id: &str) {
        if let Some(CallSlot::Open { unanswered, .. }) = self.call_thread.get_mut(id) {
            *unanswered = true;
        }
    }

    /// Whether the adapter said the open call `id` will get nothing more (`ToolUnanswered`).
    pub(super) fn is_unanswered(&self, id: &str) -> bool {
        matches!(
            self.call_thread.get(id),
            Some(CallSlot::Open {
                unanswered: true,
                ..
            })
        )
    }

    /// `ToolDenied`: the call carries its denial (shown once, with it); a notice only when the
    /// call is not in the input. The state follows with the call's result, so the turn is not
    /// final before the result's output is on it.
    pub(super) fn tool_denied(&mut self, tool_call_id: String, tool_name: String, message: String) {
        if let Some(call) = self.find_call(&tool_call_id) {
            call.denied = Some(message);
            if call.state == ToolState::Error {
                call.state = ToolState::ApprovalDenied;
            }
            return;
        }
        self.ready(TranscriptItem::Notice(Box::new(
            SystemNotice::PermissionDenied {
                tool_name,
                tool_call_id,
                message,
            },
        )));
    }

    /// Where the call `id` is: open in a turn, written (finished or not), or unknown.
    pub(super) fn slot_of(&self, id: &str) -> Option<CallSlot> {
        match self.call_thread.get(id) {
            Some(slot) => Some(slot.clone()),
            None => self
                .written_calls
                .get(id)
                .map(|&(finished, output)| CallSlot::Written { finished, output }),
        }
    }

    /// The open call `id`, where `call_thread` says it was put (its slot is borrowed, not
    /// copied: this runs for every result) or, if something moved it since, wherever it is in
    /// its thread.
    pub(super) fn find_call(&mut self, id: &str) -> Option<&mut ToolCall> {
        let CallSlot::Open {
            thread, turn, part, ..
        } = self.call_thread.get(id)?
        else {
            return None;
        };
        let (queue, subthreads) = (&mut self.queue, &mut self.subthreads);
        let is_it = |p: &Part| p.call().is_some_and(|c| c.tool_call_id == id);
        // Where the call was put, unless something moved it since.
        let placed = turn_in(queue, subthreads, thread, turn)
            .and_then(|t| t.parts.get(*part))
            .is_some_and(is_it);
        if placed {
            return turn_in(queue, subthreads, thread, turn)
                .and_then(|t| t.parts.get_mut(*part))
                .and_then(call_of_mut);
        }
        turns_in(queue, subthreads, thread)?.rev().find_map(|t| {
            t.parts
                .iter_mut()
                .rev()
                .filter_map(call_of_mut)
                .find(|c| c.tool_call_id == id)
        })
    }
}

/// The tool call a part is, to change it (the kinds of part are named in `Part::call`).
fn call_of_mut(part: &mut Part) -> Option<&mut ToolCall> {
    if let Part::ToolCall { call } = part {
        Some(call)
    } else {
        None
    }
}

/// A second result for the finished call `call`: it adds what was missing and changes nothing
/// else. An output that differs from the call's is kept beside it, in the notice returned (one
/// that repeats it, nothing).
fn repeat_result(
    call: &mut ToolCall,
    second: SecondResult<'_>,
    result: CallResult,
) -> Option<TranscriptItem> {
    let CallResult {
        output,
        sidecar,
        facts,
        ..
    } = result;
    if call.sidecar.is_none() {
        call.sidecar = sidecar;
    }
    if call.facts.is_empty() {
        call.facts = facts;
    }
    if call.output.is_none() {
        call.output = Some(output);
        return None;
    }
    if call.output.as_ref() == Some(&output) {
        return None;
    }
    Some(TranscriptItem::Notice(Box::new(SystemNotice::Info {
        source: RESULT_SOURCE.into(),
        level: Level::Info,
        text: second.words(),
        data: output,
    })))
}

/// A result that came for a call already finished: its call, its line, and whether its line
/// plays back a message already sent (a replay).
#[derive(Clone, Copy)]
struct SecondResult<'a> {
    id: &'a str,
    line: u64,
    replay: bool,
}

impl SecondResult<'_> {
    /// What its notice says: a replay, or a second result, that left the call as it was.
    fn words(self) -> String {
        let SecondResult { id, line, replay } = self;
        let what = if replay { "a replayed" } else { "a second" };
        format!("{what} result for the finished call {id} (line {line}) left it as it was")
    }
}

/// A fingerprint of a call's output, remembered once the call is written: a later result with
/// the same output is a repeat, not shown again.
pub(super) fn output_fingerprint(output: Option<&Value>) -> u64 {
    match output {
        Some(Value::String(s)) => fingerprint(s),
        Some(v) => fingerprint(&v.to_string()),
        None => 0,
    }
}
