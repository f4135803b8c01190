//! Tool calls in Qwen Code's daemon stream: `tool_call` / `tool_call_update` merged into one
//! evolving call, sub-agents, plans and shell output (permissions are `qwen::permissions`).
//!
//! ACP fields present in an update replace the ones before (`title`, `kind`, `content`,
//! `locations`, `rawInput`, `rawOutput`); what has no normalized field (title, kind, the daemon's
//! own status, locations, rawOutput, the permission asked) is kept in the call's `sidecar`.
//!
//! ```text
//! daemon status / event                 normalized
//! ────────────────────────────────────  ─────────────────────────────────────────────────
//! tool_call pending                     assistant-block with a `pending` tool-call part
//! in_progress / running (or unknown)    tool-update running (input, title, … in sidecar)
//! permission_request                    tool-update approval-pending
//! permission_resolved allow             tool-update running
//! permission_resolved reject/cancelled  tool-denied + tool-update approval-denied
//! completed / failed                    tool-result (success / error); a denied call keeps
//!                                       approval-denied and only takes the output
//! prompt cancelled, call still open     tool-result error "cancelled: …"
//! input ends, call still open           nothing: the call keeps its last state; one
//!                                       `incomplete` notice counts them by state
//! agent call with arguments             subtask-started + the prompt as the sub-agent's
//!                                       first turn; progress pings → subtask-progress;
//!                                       its end → subtask-finished before its result
//! plan                                  a `todo_write` call (input `{todos: […]}`), success
//! ```

use serde_json::{Map, Value, json};

use crate::input::fields::{info, opt_string, str_of};
use crate::input::qwen::state::{
    CallRecord, Conversation, Emit, content_lines, is_empty_value, parent_of,
};
use crate::input::tool_kind::mcp_server_in;
use crate::model::details::Details;
use crate::model::event::EventKind;
use crate::model::session::Level;
use crate::model::tool_kind::ToolKind;
use crate::model::transcript::{
    Caller, NonText, Part, SubagentStatus, TaskDetails, ToolCall, ToolState, Turn, TurnOrigin,
    output_text,
};

impl Conversation {
    /// Merges fields into a known call; emits the input if it changed.
    pub(super) fn merge_input(&mut self, id: &str, fields: &Value, e: &mut Emit<'_>) {
        let Some(rec) = self.calls.get_mut(id) else {
            return;
        };
        let before = rec.raw_input.clone();
        merge_call(rec, fields);
        if rec.raw_input != before && !is_empty_value(&rec.raw_input) {
            rec.kind_sent = rec.tool_kind();
            e.push(EventKind::tool_input(
                id.to_owned(),
                Some(rec.raw_input.clone()),
                rec.kind_sent.clone(),
            ));
        }
    }

    /// `tool_call` / `tool_call_update` (upserted by `toolCallId`): opens the call, merges what
    /// changed, ends it at `completed` / `failed`.
    pub(super) fn tool_call(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let Some(id) = opt_string(upd, "toolCallId") else {
            e.push(EventKind::debug(
                "malformed tool call (no toolCallId)",
                upd.to_string(),
                true,
            ));
            return;
        };
        let meta = upd
            .get("_meta")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let status = upd.get("status").and_then(Value::as_str);
        if !self.calls.contains_key(&id) {
            self.open_call(&id, upd, &meta, e);
            if str_of(upd, "sessionUpdate") == "tool_call_update" {
                // Its `tool_call` is not in the input (evicted from the daemon's ring, cut off):
                // the call is kept with what the update says, and it is said what is missing.
                e.push(info(
                    "orphan_tool_call_update",
                    Level::Warning,
                    format!(
                        "tool call {id}: its start is not in the input (only its updates are), \
                         so its name and input may be unknown"
                    ),
                    Value::Null,
                ));
            }
            if matches!(status, Some("completed" | "failed" | "cancelled")) {
                self.finish_call(&id, e);
            }
            return;
        }
        let progress = meta.get("subagentProgress") == Some(&json!(true))
            || meta.get("shellProgress") == Some(&json!(true));
        if progress && upd.get("kind").is_none() {
            self.progress(&id, upd, &meta, e);
            return;
        }
        let Some(rec) = self.calls.get_mut(&id) else {
            return;
        };
        // An update after the call ended changes nothing of it: not merged into its record,
        // whose fields a later event about the call (a permission request) would carry.
        if rec.done {
            e.push(EventKind::absorbed(format!(
                "tool_call_update after the end of {id}"
            )));
            return;
        }
        let input_before = rec.raw_input.clone();
        merge_call(rec, upd);
        let kind_now = rec.tool_kind();
        let kind_changed = kind_now != rec.kind_sent;
        let input = (rec.raw_input != input_before && !is_empty_value(&rec.raw_input))
            .then(|| rec.raw_input.clone());
        if matches!(status, Some("completed" | "failed" | "cancelled")) {
            if kind_changed || input.is_some() {
                // The last frame said what the call did (its input, an edit's diff): the
                // result's call shows it.
                rec.kind_sent = kind_now.clone();
                e.push(EventKind::tool_input(id.clone(), input, kind_now));
            }
            self.finish_call(&id, e);
            return;
        }
        let kind = (input.is_some() || kind_changed).then(|| {
            rec.kind_sent = kind_now.clone();
            kind_now
        });
        let state = match status {
            None => None,
            Some("pending") => Some(ToolState::Pending),
            Some(_) if rec.denied => None,
            Some(_) => Some(ToolState::Running),
        };
        let start = rec.is_agent && !rec.subtask_started && !is_empty_value(&rec.raw_input);
        e.push(EventKind::ToolUpdate {
            tool_call_id: id.clone(),
            state,
            output: None,
            input,
            kind,
            error_text: None,
            sidecar: Some(Details::from(rec.sidecar())),
        });
        if start {
            self.start_subtask(&id, e);
        }
    }

    fn open_call(&mut self, id: &str, upd: &Value, meta: &Map<String, Value>, e: &mut Emit<'_>) {
        let thread = parent_of(upd);
        self.flush(&thread, e);
        let name = meta
            .get("toolName")
            .and_then(Value::as_str)
            .or_else(|| upd.get("name").and_then(Value::as_str))
            .or_else(|| upd.get("title").and_then(Value::as_str))
            .filter(|n| !n.is_empty())
            .unwrap_or("unknown tool")
            .to_owned();
        let mut rec = CallRecord::new(thread.clone(), name.clone());
        let is_agent = rec.is_agent;
        merge_call(&mut rec, upd);
        let input = if is_empty_value(&rec.raw_input) {
            json!({})
        } else {
            rec.raw_input.clone()
        };
        let mut call = ToolCall::new(
            id.to_owned(),
            name.clone(),
            ToolKind::default(),
            Caller::Model,
            input,
        );
        let provenance = meta.get("provenance").and_then(Value::as_str);
        if let Some(server) = mcp_server_in(&name, "__") {
            call.caller = Caller::Mcp;
            call.mcp_server = Some(server.to_owned());
        } else if provenance == Some("mcp") {
            call.caller = Caller::Mcp;
            call.mcp_server = meta
                .get("serverId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        } else if is_agent {
            call.caller = Caller::Subagent;
        }
        rec.caller = call.caller;
        rec.mcp_server.clone_from(&call.mcp_server);
        call.kind = rec.tool_kind();
        rec.kind_sent = call.kind.clone();
        call.state = match rec.status.as_str() {
            "pending" => ToolState::Pending,
            _ => ToolState::Running,
        };
        call.sidecar = Some(Details::from(rec.sidecar()));
        let start = is_agent && !is_empty_value(&rec.raw_input);
        self.calls.insert(id.to_owned(), rec);
        self.order.push(id.to_owned());
        self.block(&thread, Part::tool_call(call), e);
        if start {
            self.start_subtask(id, e);
        }
    }

    /// A sub-agent began: its task, and its prompt as the first turn of its thread.
    fn start_subtask(&mut self, id: &str, e: &mut Emit<'_>) {
        let Some(rec) = self.calls.get_mut(id) else {
            return;
        };
        rec.subtask_started = true;
        let input = rec.raw_input.clone();
        let subagent_type = input
            .get("subagent_type")
            .and_then(Value::as_str)
            .or_else(|| rec.meta.get("subagentType").and_then(Value::as_str))
            .map(str::to_owned);
        e.push(EventKind::SubtaskStarted {
            task_id: id.to_owned(),
            tool_call_id: Some(id.to_owned()),
            description: str_of(&input, "description").to_owned(),
            subagent_type,
            details: TaskDetails::default(),
        });
        let prompt = str_of(&input, "prompt");
        if !prompt.is_empty() {
            let origin = TurnOrigin::SubagentPrompt {
                parent_tool_call_id: id.to_owned(),
            };
            let turn = Turn::user(
                format!("prompt-{id}"),
                origin,
                vec![Part::text(prompt.to_owned())],
            );
            e.push(EventKind::user_turn(turn.in_thread(Some(id.to_owned()))));
        }
    }

    /// A progress ping: a sub-agent's current step, or a shell's output so far.
    fn progress(&mut self, id: &str, upd: &Value, meta: &Map<String, Value>, e: &mut Emit<'_>) {
        let text = content_lines(upd);
        if meta.get("subagentProgress") == Some(&json!(true)) {
            if self.calls.get(id).is_some_and(|r| !r.subtask_started) {
                self.start_subtask(id, e);
            }
            e.push(EventKind::SubtaskProgress {
                task_id: id.to_owned(),
                tool_call_id: Some(id.to_owned()),
                description: text,
                usage: None,
                details: TaskDetails::default(),
            });
        } else if let Some(rec) = self.calls.get_mut(id) {
            rec.shell_output = text.clone();
            e.push(EventKind::tool_output(
                id.to_owned(),
                Value::String(text),
                None,
            ));
        }
    }

    /// The call reached `completed` or `failed`.
    pub(super) fn finish_call(&mut self, id: &str, e: &mut Emit<'_>) {
        // A sub-agent's last words come before its parent's result.
        self.end_message(&Some(id.to_owned()), None, e);
        let Some(rec) = self.calls.get_mut(id) else {
            return;
        };
        rec.done = true;
        let is_error = rec.status != "completed";
        let mut output = rec.output();
        let mut text = output_text(&output, NonText::Skip);
        // A failed (cancelled, killed) command: what it printed is its output; the daemon's
        // message and the signal are the error.
        let shell = &rec.raw_output;
        if is_error && str_of(shell, "type") == "shell_result" {
            let printed = str_of(shell, "output");
            let mut why = if text.is_empty() {
                format!("{} {}", rec.name, rec.status)
            } else {
                text.clone()
            };
            if let Some(sig) = shell.get("signal").and_then(Value::as_str) {
                why = format!("{why} (signal {sig})");
            }
            if !printed.is_empty() {
                output = Value::String(printed.to_owned());
            }
            text = why;
        }
        // A sub-agent launched in the background: the result is the launch acknowledgement;
        // the run goes on, and its completion comes later (`qwen::background`).
        let background = rec.is_agent
            && rec.subtask_started
            && !is_error
            && match rec
                .raw_input
                .get("run_in_background")
                .and_then(Value::as_bool)
            {
                Some(b) => b,
                // The tool's default is the background; its acknowledgement says so.
                None => text.to_ascii_lowercase().contains("background"),
            };
        if background {
            let task = ["task_id", "taskId", "agentId", "agent_id"]
                .iter()
                .find_map(|k| rec.raw_output.get(*k).and_then(Value::as_str))
                .map(str::to_owned);
            self.background.push((id.to_owned(), task));
        } else if rec.is_agent && rec.subtask_started {
            e.push(EventKind::SubtaskFinished {
                task_id: id.to_owned(),
                tool_call_id: Some(id.to_owned()),
                status: if is_error {
                    SubagentStatus::Failed
                } else {
                    SubagentStatus::Completed
                },
                summary: (!text.is_empty()).then(|| text.clone()),
                usage: None,
                result: None,
                details: TaskDetails::default(),
            });
        }
        // The fold ends a thread's message at a tool result; so does this side.
        let thread = rec.thread.clone();
        self.flush(&thread, e);
        if let Some(t) = self.threads.get_mut(&thread) {
            t.closed_by_result = t.message.take().or(t.closed_by_result.take());
        }
        let Some(rec) = self.calls.get(id) else {
            return;
        };
        if rec.denied {
            // Already final (approval-denied): only the output is new.
            e.push(EventKind::tool_output(
                id.to_owned(),
                output,
                Some(Details::from(rec.sidecar())),
            ));
            return;
        }
        e.push(EventKind::ToolResult {
            thread: rec.thread.clone(),
            tool_call_id: id.to_owned(),
            is_error,
            output,
            error_text: is_error.then(|| match (&rec.end_note, text.is_empty()) {
                (Some(note), _) => note.clone(),
                (None, true) => format!("{} {}", rec.name, rec.status),
                (None, false) => text,
            }),
            sidecar: Some(Details::from(rec.sidecar())),
            facts: crate::model::transcript::ResultFacts::default(),
            server_run: false,
            replay: false,
            timestamp: None,
        });
        self.release(id);
    }

    /// A finished call's payload has gone out with its result: keep only what later frames
    /// are checked against (its name, thread and flags), so memory does not grow with the
    /// outputs of a long session.
    fn release(&mut self, id: &str) {
        if let Some(rec) = self.calls.get_mut(id) {
            rec.content = Value::Null;
            rec.raw_input = Value::Null;
            rec.raw_output = Value::Null;
            rec.locations = Value::Null;
            rec.meta = Map::new();
            rec.shell_output = String::new();
            rec.title = String::new();
        }
        self.order.retain(|o| o != id);
    }

    /// The end of the input: a running command's output gathered since its last update.
    pub(super) fn flush_shell_output(&mut self, e: &mut Emit<'_>) {
        for id in self.open_calls() {
            let Some(rec) = self.calls.get_mut(&id) else {
                continue;
            };
            if rec.shell_output.len() > rec.shell_sent {
                rec.shell_sent = rec.shell_output.len();
                e.push(EventKind::tool_output(
                    id,
                    Value::String(rec.shell_output.clone()),
                    None,
                ));
            }
        }
    }

    /// `shell_output` / `tool_output`: the running shell call's output so far, or the user's own
    /// command output (`_meta.source: "user-shell"`).
    pub(super) fn shell_output(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let text = str_of(upd, "output");
        let stderr = str_of(upd, "stream") == "stderr";
        if upd.pointer("/_meta/source").and_then(Value::as_str) == Some("user-shell") {
            let buf = self.user_shell.get_or_insert_with(Default::default);
            if stderr {
                buf.1.push_str(text);
            } else {
                buf.0.push_str(text);
            }
            e.push(EventKind::absorbed(
                "user shell output (kept for its result)",
            ));
            return;
        }
        let running = self.order.iter().rev().find(|id| {
            self.calls
                .get(*id)
                .is_some_and(|c| !c.done && c.kind == "execute")
        });
        match running.cloned() {
            Some(id) => {
                let Some(rec) = self.calls.get_mut(&id) else {
                    return;
                };
                rec.shell_output.push_str(text);
                // The output so far goes out when it has doubled since it last did: a long
                // command streaming many chunks costs linear time, not quadratic. The call's
                // result, or the end of the input, brings the whole of it.
                if rec.shell_output.len() >= 2 * rec.shell_sent.max(512) || rec.shell_sent == 0 {
                    rec.shell_sent = rec.shell_output.len();
                    e.push(EventKind::tool_output(
                        id,
                        Value::String(rec.shell_output.clone()),
                        None,
                    ));
                } else {
                    e.push(EventKind::absorbed("shell output (gathered into its call)"));
                }
            }
            None => e.push(info(
                "shell_output",
                Level::Info,
                text.to_owned(),
                upd.clone(),
            )),
        }
    }
}

/// Merges a `tool_call` / `tool_call_update` payload into what is known (ACP: fields present
/// replace the old ones).
fn merge_call(rec: &mut CallRecord, upd: &Value) {
    if let Some(s) = upd.get("status").and_then(Value::as_str) {
        rec.status = match s {
            "running" => "in_progress".into(),
            "cancelled" => "failed".into(),
            other => other.to_owned(),
        };
    }
    if let Some(t) = upd.get("title").and_then(Value::as_str) {
        rec.title = t.to_owned();
    }
    if let Some(k) = upd.get("kind").and_then(Value::as_str) {
        rec.kind = k.to_owned();
    }
    if let Some(l) = upd.get("locations").filter(|l| !is_empty_value(l)) {
        rec.locations = l.clone();
    }
    if let Some(c) = upd.get("content").filter(|c| !is_empty_value(c)) {
        rec.content = c.clone();
    }
    if let Some(i) = upd.get("rawInput").filter(|i| !is_empty_value(i)) {
        rec.raw_input = i.clone();
    }
    if let Some(o) = upd.get("rawOutput") {
        rec.raw_output = o.clone();
    }
    if let Some(meta) = upd.get("_meta").and_then(Value::as_object) {
        rec.meta
            .extend(meta.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}
