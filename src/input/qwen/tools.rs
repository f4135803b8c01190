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
//! agent call with arguments             subtask-started + the prompt as the sub-agent's
//!                                       first turn; progress pings → subtask-progress;
//!                                       its end → subtask-finished before its result
//! plan                                  a `todo_write` call (input `{todos: […]}`), success
//! ```

use serde_json::{Map, Value, json};

use crate::input::anthropic::blocks::split_mcp_name;
use crate::input::fields::{info, opt_string, str_of};
use crate::input::qwen::acp::{Conversation, Emit, parent_of, text_part};
use crate::input::tool_kind;
use crate::model::event::{EventKind, Thread};
use crate::model::session::Level;
use crate::model::tool_kind::ToolKind;
use crate::model::transcript::{
    Caller, Part, Role, SubagentStatus, ToolCall, ToolState, Turn, TurnMeta, TurnOrigin,
};

/// What the daemon has said about one tool call so far.
#[derive(Debug)]
pub(super) struct CallRecord {
    thread: Thread,
    pub(super) name: String,
    status: String,
    title: String,
    kind: String,
    locations: Value,
    content: Value,
    raw_input: Value,
    raw_output: Value,
    meta: Map<String, Value>,
    pub(super) permission: Option<Value>,
    shell_output: String,
    /// Bytes of `shell_output` already sent in a `tool-update`.
    shell_sent: usize,
    is_agent: bool,
    subtask_started: bool,
    pub(super) denied: bool,
    done: bool,
    /// Who runs the call and, for an MCP call, its server: what its kind is built from.
    caller: Caller,
    mcp_server: Option<String>,
}

impl CallRecord {
    /// A call the daemon has only named so far (pending, nothing else known). The one place
    /// that lists a record's starting values, for the calls the daemon announces and the plan
    /// updates that become TodoWrite calls.
    fn new(thread: Thread, name: String) -> CallRecord {
        let is_agent = matches!(name.as_str(), "agent" | "Agent" | "task" | "Task");
        CallRecord {
            thread,
            name,
            status: "pending".into(),
            title: String::new(),
            kind: String::new(),
            locations: Value::Null,
            content: Value::Null,
            raw_input: Value::Null,
            raw_output: Value::Null,
            meta: Map::new(),
            permission: None,
            shell_output: String::new(),
            shell_sent: 0,
            is_agent,
            subtask_started: false,
            denied: false,
            done: false,
            caller: Caller::Model,
            mcp_server: None,
        }
    }

    /// What the call does, from its name and its input as far as it is known.
    fn tool_kind(&self) -> ToolKind {
        tool_kind::classify(
            &self.name,
            self.caller,
            self.mcp_server.as_deref(),
            &self.raw_input,
            super::tool_names::known,
        )
    }

    /// The harness's view of the call, kept whole beside the normalized fields.
    pub(super) fn sidecar(&self) -> Value {
        let mut o = Map::new();
        o.insert("title".into(), json!(self.title));
        if !self.kind.is_empty() {
            o.insert("kind".into(), json!(self.kind));
        }
        o.insert("status".into(), json!(self.status));
        if self.locations.as_array().is_some_and(|a| !a.is_empty()) {
            o.insert("locations".into(), self.locations.clone());
        }
        if !is_empty_value(&self.raw_output) {
            o.insert("rawOutput".into(), self.raw_output.clone());
        }
        for k in ["provenance", "serverId", "subagentType"] {
            if let Some(v) = self.meta.get(k) {
                o.insert(k.into(), v.clone());
            }
        }
        if let Some(p) = &self.permission {
            o.insert("permission".into(), p.clone());
        }
        Value::Object(o)
    }

    /// The call's output: its `content` (text joined; diffs kept), else `rawOutput`, else the
    /// shell output streamed so far.
    fn output(&self) -> Value {
        let items = self.content.as_array().map(Vec::as_slice).unwrap_or(&[]);
        if !items.is_empty() {
            let texts: Vec<Option<&str>> = items.iter().map(content_text).collect();
            if texts.iter().all(Option::is_some) {
                return Value::String(texts.into_iter().flatten().collect::<Vec<_>>().join("\n"));
            }
            return Value::Array(
                items
                    .iter()
                    .map(|i| match content_text(i) {
                        Some(t) => json!({"type": "text", "text": t}),
                        None => i.clone(),
                    })
                    .collect(),
            );
        }
        if !is_empty_value(&self.raw_output) {
            return self.raw_output.clone();
        }
        if !self.shell_output.is_empty() {
            return Value::String(self.shell_output.clone());
        }
        Value::Null
    }
}

impl Conversation {
    /// Every tool call still open (not finished, not denied), in the order they appeared.
    fn open_calls(&self) -> Vec<String> {
        self.order
            .iter()
            .filter(|id| self.calls.get(*id).is_some_and(|c| !c.done && !c.denied))
            .cloned()
            .collect()
    }

    /// Merges fields into a known call; emits the input if it changed.
    pub(super) fn merge_input(&mut self, id: &str, fields: &Value, e: &mut Emit<'_>) {
        let Some(rec) = self.calls.get_mut(id) else {
            return;
        };
        let before = rec.raw_input.clone();
        let meta = fields
            .get("_meta")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        merge_call(rec, fields, &meta);
        if rec.raw_input != before && !is_empty_value(&rec.raw_input) {
            e.push(EventKind::ToolUpdate {
                tool_call_id: id.to_owned(),
                state: None,
                output: None,
                input: Some(rec.raw_input.clone()),
                kind: Some(rec.tool_kind()),
                error_text: None,
                sidecar: None,
            });
        }
    }

    /// `tool_call` / `tool_call_update` (upserted by `toolCallId`): opens the call, merges what
    /// changed, ends it at `completed` / `failed`.
    pub(super) fn tool_call(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let Some(id) = opt_string(upd, "toolCallId") else {
            e.push(EventKind::Debug {
                reason: "malformed tool call (no toolCallId)".into(),
                raw: upd.to_string(),
            });
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
        let input_before = rec.raw_input.clone();
        merge_call(rec, upd, &meta);
        if rec.done {
            e.push(EventKind::Absorbed {
                what: format!("tool_call_update after the end of {id}"),
            });
            return;
        }
        if matches!(status, Some("completed" | "failed" | "cancelled")) {
            self.finish_call(&id, e);
            return;
        }
        let input = (rec.raw_input != input_before && !is_empty_value(&rec.raw_input))
            .then(|| rec.raw_input.clone());
        let kind = input.as_ref().map(|_| rec.tool_kind());
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
            sidecar: Some(rec.sidecar()),
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
            .unwrap_or("tool")
            .to_owned();
        let mut rec = CallRecord::new(thread.clone(), name.clone());
        let is_agent = rec.is_agent;
        merge_call(&mut rec, upd, meta);
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
        if let Some((server, _)) = split_mcp_name(&name) {
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
        call.state = match rec.status.as_str() {
            "pending" => ToolState::Pending,
            _ => ToolState::Running,
        };
        call.sidecar = Some(rec.sidecar());
        let start = is_agent && !is_empty_value(&rec.raw_input);
        self.calls.insert(id.to_owned(), rec);
        self.order.push(id.to_owned());
        self.block(
            &thread,
            Part::ToolCall {
                call: Box::new(call),
            },
            e,
        );
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
            task_type: None,
        });
        let prompt = str_of(&input, "prompt");
        if !prompt.is_empty() {
            e.push(EventKind::UserTurn {
                turn: Box::new(Turn {
                    id: format!("prompt-{id}"),
                    role: Role::User,
                    origin: TurnOrigin::SubagentPrompt {
                        parent_tool_call_id: id.to_owned(),
                    },
                    parent_task_id: Some(id.to_owned()),
                    parts: vec![text_part(prompt.to_owned())],
                    metadata: TurnMeta::default(),
                    timestamp: None,
                }),
                source_tool_call_id: None,
            });
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
            });
        } else if let Some(rec) = self.calls.get_mut(id) {
            rec.shell_output = text.clone();
            e.push(EventKind::ToolUpdate {
                tool_call_id: id.to_owned(),
                state: None,
                output: Some(Value::String(text)),
                input: None,
                kind: None,
                error_text: None,
                sidecar: None,
            });
        }
    }

    /// The call reached `completed` or `failed`.
    fn finish_call(&mut self, id: &str, e: &mut Emit<'_>) {
        // A sub-agent's last words come before its parent's result.
        self.end_message(&Some(id.to_owned()), None, e);
        let Some(rec) = self.calls.get_mut(id) else {
            return;
        };
        rec.done = true;
        let is_error = rec.status != "completed";
        let output = rec.output();
        let text = crate::model::transcript::output_text(&output);
        if rec.is_agent && rec.subtask_started {
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
            e.push(EventKind::ToolUpdate {
                tool_call_id: id.to_owned(),
                state: None,
                output: Some(output),
                input: None,
                kind: None,
                error_text: None,
                sidecar: Some(rec.sidecar()),
            });
            return;
        }
        e.push(EventKind::ToolResult {
            thread: rec.thread.clone(),
            tool_call_id: id.to_owned(),
            is_error,
            output,
            error_text: is_error.then(|| {
                if text.is_empty() {
                    format!("{} {}", rec.name, rec.status)
                } else {
                    text
                }
            }),
            sidecar: Some(rec.sidecar()),
            server_run: false,
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
                e.push(EventKind::ToolUpdate {
                    tool_call_id: id,
                    state: None,
                    output: Some(Value::String(rec.shell_output.clone())),
                    input: None,
                    kind: None,
                    error_text: None,
                    sidecar: None,
                });
            }
        }
    }

    /// Ends every call still open as an error: the prompt was cancelled.
    pub(super) fn cancel_open_calls(&mut self, reason: &str, e: &mut Emit<'_>) {
        for id in self.open_calls() {
            if let Some(rec) = self.calls.get_mut(&id) {
                rec.status = "failed".into();
                if rec.content.as_array().is_none_or(Vec::is_empty) {
                    rec.content = json!([{"type": "content", "content": {"type": "text", "text": format!("cancelled: {reason}")}}]);
                }
            }
            self.finish_call(&id, e);
        }
    }

    /// `plan`: the todo list, as a finished `todo_write` call (updated in place when the same
    /// plan call comes again).
    pub(super) fn plan(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let thread = parent_of(upd);
        let id = upd
            .pointer("/_meta/qwenTranscript/planToolCallId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| e.name("daemon-plan"));
        let todos: Vec<Value> = upd
            .get("entries")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|en| {
                        let mut t = Map::new();
                        if let Some(tid) = en.pointer("/_meta/qwenTodo/id") {
                            t.insert("id".into(), tid.clone());
                        }
                        for k in ["content", "status", "priority"] {
                            if let Some(v) = en.get(k) {
                                t.insert(k.into(), v.clone());
                            }
                        }
                        Value::Object(t)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let input = json!({ "todos": todos });
        let mut sidecar = json!({"title": "Updated Plan", "kind": "think", "status": "completed"});
        if let Some(pid) = upd.pointer("/_meta/qwenTodoPlan/id") {
            sidecar["planId"] = pid.clone();
        }
        if self.calls.contains_key(&id) {
            e.push(EventKind::ToolUpdate {
                tool_call_id: id,
                state: Some(ToolState::Success),
                output: None,
                kind: tool_kind::todo(&input),
                input: Some(input),
                error_text: None,
                sidecar: Some(sidecar),
            });
            return;
        }
        self.flush(&thread, e);
        let kind = tool_kind::todo(&input).unwrap_or_default();
        let mut call = ToolCall::new(id.clone(), "todo_write".into(), kind, Caller::Model, input);
        call.state = ToolState::Success;
        call.sidecar = Some(sidecar);
        self.calls.insert(
            id.clone(),
            CallRecord {
                status: "completed".into(),
                title: "Updated Plan".into(),
                kind: "think".into(),
                done: true,
                ..CallRecord::new(thread.clone(), "todo_write".into())
            },
        );
        self.order.push(id);
        self.block(
            &thread,
            Part::ToolCall {
                call: Box::new(call),
            },
            e,
        );
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
            e.push(EventKind::Absorbed {
                what: "user shell output (kept for its result)".into(),
            });
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
                    e.push(EventKind::ToolUpdate {
                        tool_call_id: id,
                        state: None,
                        output: Some(Value::String(rec.shell_output.clone())),
                        input: None,
                        kind: None,
                        error_text: None,
                        sidecar: None,
                    });
                } else {
                    e.push(EventKind::Absorbed {
                        what: "shell output (gathered into its call)".into(),
                    });
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
fn merge_call(rec: &mut CallRecord, upd: &Value, meta: &Map<String, Value>) {
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
    for (k, v) in meta {
        rec.meta.insert(k.clone(), v.clone());
    }
}

/// The text of a tool-call `content` item (`{type:"content", content:{type:"text", text}}`).
pub(super) fn content_text(item: &Value) -> Option<&str> {
    match str_of(item, "type") {
        "content" => {
            let c = item.get("content")?;
            (str_of(c, "type") == "text").then(|| str_of(c, "text"))
        }
        "text" => item.get("text").and_then(Value::as_str),
        _ => None,
    }
}

/// The text items of a value's `content` array, one per line. Shared by the progress pings of
/// a call and the prompt of a permission request, which carry their text the same way.
pub(super) fn content_lines(v: &Value) -> String {
    v.get("content")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(content_text)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// True for null, "", [] and {}.
pub(super) fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}
