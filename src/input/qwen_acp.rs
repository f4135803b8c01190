//! The conversation inside Qwen Code's daemon stream: ACP `session_update` payloads, permissions,
//! user shell commands and turn ends, turned into normalized events.
//!
//! The daemon sends no message ids and no whole blocks: text and thought arrive as small chunks,
//! tool calls as a `tool_call` followed by `tool_call_update`s that merge into it. This module
//! keeps, per thread (the main one, or a sub-agent's named by `_meta.parentToolCallId`), the open
//! assistant message and the text being gathered, and per tool call what the daemon has said so
//! far, so that it can emit what the fold expects: one `assistant-block` per finished part, one
//! evolving tool call (`tool-update` for state changes, `tool-result` at the end).
//!
//! A model response ends with an empty `agent_message_chunk` that carries `_meta.usage`; a prompt
//! ends with `turn_complete`. Message ids are made from the daemon's event id of the message's
//! first frame (`msg-<eventId>`), so a replay of the same frames gives the same ids.
//!
//! Tool call states:
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
//! ```

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::claude_blocks::split_mcp_name;
use crate::model::event::{Event, EventKind, Thread};
use crate::model::session::{Level, SystemNotice};
use crate::model::transcript::{
    Caller, Part, Role, SubagentStatus, SyntheticReason, ToolCall, ToolState, Turn, TurnMeta,
    TurnOrigin, Usage,
};

/// Where the events of one daemon envelope go, and what the envelope said about itself.
pub(crate) struct Emit<'a> {
    /// The input line of the envelope (its first `data:` line).
    pub(crate) line: u64,
    /// The envelope's `id` (absent on synthetic frames).
    pub(crate) event_id: Option<u64>,
    pub(crate) out: &'a mut Vec<Event>,
}

impl Emit<'_> {
    /// Appends one event for this envelope.
    pub(crate) fn push(&mut self, kind: EventKind) {
        self.out.push(Event {
            line: self.line,
            kind,
        });
    }

    /// A name for something first seen in this envelope: `<prefix>-<eventId>`, or the line.
    pub(crate) fn name(&self, prefix: &str) -> String {
        match self.event_id {
            Some(id) => format!("{prefix}-{id}"),
            None => format!("{prefix}-l{}", self.line),
        }
    }
}

/// An `info` notice about a daemon event: `source` is the wire type, `data` its payload.
pub(crate) fn info(source: &str, level: Level, text: String, data: Value) -> EventKind {
    EventKind::Notice {
        notice: Box::new(SystemNotice::Info {
            source: source.to_owned(),
            level,
            text,
            data,
        }),
    }
}

/// What a run of chunks is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkKind {
    User,
    Assistant,
    Thought,
}

/// Chunks gathered into one part.
#[derive(Debug)]
struct Gathered {
    kind: ChunkKind,
    text: String,
    /// Non-text content that came with them (images, links, resources).
    extra: Vec<Part>,
    /// The turn id (user chunks) or message id (assistant, thought) it belongs to.
    id: String,
    line: u64,
    source: Option<String>,
}

/// Per thread: the open assistant message and the chunks not yet emitted.
#[derive(Debug, Default)]
struct ThreadState {
    message: Option<String>,
    gathered: Option<Gathered>,
}

/// What the daemon has said about one tool call so far.
#[derive(Debug)]
struct CallRecord {
    thread: Thread,
    name: String,
    status: String,
    title: String,
    kind: String,
    locations: Value,
    content: Value,
    raw_input: Value,
    raw_output: Value,
    meta: Map<String, Value>,
    permission: Option<Value>,
    shell_output: String,
    is_agent: bool,
    subtask_started: bool,
    denied: bool,
    done: bool,
}

impl CallRecord {
    /// The harness's view of the call, kept whole beside the normalized fields.
    fn sidecar(&self) -> Value {
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

/// A permission request, until it is resolved.
#[derive(Debug)]
struct Request {
    tool_call_id: Option<String>,
    options: Vec<Value>,
    label: String,
}

/// The conversation state of one daemon session.
#[derive(Debug, Default)]
pub(crate) struct Conversation {
    threads: HashMap<Thread, ThreadState>,
    calls: HashMap<String, CallRecord>,
    /// Call ids in the order they appeared (cancellation walks them in order).
    order: Vec<String>,
    requests: HashMap<String, Request>,
    /// Output of the user's own shell command (`POST /shell`), until its result.
    user_shell: Option<(String, String)>,
}

impl Conversation {
    /// One `session_update` payload; false when its kind is unknown (the caller keeps it as
    /// `debug`).
    pub(crate) fn session_update(&mut self, upd: &Value, e: &mut Emit<'_>) -> bool {
        let kind = str_of(upd, "sessionUpdate");
        match kind {
            "user_message_chunk" => self.chunk(ChunkKind::User, upd, e),
            "agent_message_chunk" => self.agent_chunk(upd, e),
            "agent_thought_chunk" => self.chunk(ChunkKind::Thought, upd, e),
            "tool_call" | "tool_call_update" => self.tool_call(upd, e),
            "plan" => self.plan(upd, e),
            "shell_output" | "tool_output" => self.shell_output(upd, e),
            "usage_update" => e.push(EventKind::Absorbed {
                what: "session_update/usage_update".into(),
            }),
            _ => return false,
        }
        true
    }

    /// Emits every gathered run of chunks and closes every open message (a turn ended).
    pub(crate) fn close_all(&mut self, e: &mut Emit<'_>) {
        let mut threads: Vec<Thread> = self.threads.keys().cloned().collect();
        threads.sort();
        for t in threads {
            self.end_message(&t, None, e);
        }
    }

    /// `turn_complete`: the prompt's turn is over.
    pub(crate) fn turn_complete(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.close_all(e);
        let stop = str_of(data, "stopReason");
        let cancelled = stop == "cancelled" || data.get("promptCancelled") == Some(&json!(true));
        if cancelled {
            self.cancel_open_calls("the prompt was cancelled", e);
        }
        e.push(EventKind::Notice {
            notice: Box::new(SystemNotice::Result {
                subtype: if stop == "end_turn" || stop.is_empty() {
                    "success".into()
                } else {
                    stop.to_owned()
                },
                is_error: false,
                cost: None,
                turns: None,
                duration_ms: None,
                duration_api_ms: None,
                usage: None,
                text: None,
                stop_reason: (!stop.is_empty()).then(|| stop.to_owned()),
                terminal_reason: None,
                errors: Vec::new(),
                permission_denials: Vec::new(),
                structured_output: None,
            }),
        });
    }

    /// `prompt_cancelled` (or a chunk flagged `promptCancelled`): in-flight calls end as errors.
    pub(crate) fn prompt_cancelled(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.close_all(e);
        let reason = data
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("cancelled");
        self.cancel_open_calls(reason, e);
        e.push(info(
            "prompt_cancelled",
            Level::Warning,
            format!("prompt cancelled ({reason})"),
            data.clone(),
        ));
    }

    /// `mid_turn_message_injected`: text the user sent while the agent was working.
    pub(crate) fn injected(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.end_message(&None, None, e);
        let mut texts: Vec<String> = Vec::new();
        if let Some(a) = data.get("messages").and_then(Value::as_array) {
            texts.extend(
                a.iter()
                    .filter_map(|m| m.as_str().map(str::to_owned).or_else(|| block_text(m))),
            );
        }
        if texts.is_empty() {
            if let Some(items) = data.get("items").and_then(Value::as_array) {
                for it in items {
                    if let Some(c) = it.get("content").and_then(Value::as_array) {
                        texts.extend(c.iter().filter_map(block_text));
                    }
                }
            }
        }
        let mut machinery = Map::new();
        machinery.insert("midTurnInjection".into(), json!(true));
        self.user_turn(
            e.name("inject"),
            None,
            TurnOrigin::UserInput,
            texts.join("\n"),
            machinery,
            e,
        );
    }

    /// `user_shell_command`: the user ran a shell command in the session (bash mode).
    pub(crate) fn user_shell_command(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.end_message(&None, None, e);
        let command = str_of(data, "command");
        let mut m = Map::new();
        m.insert("command".into(), json!(command));
        if let Some(cwd) = data.get("cwd") {
            m.insert("cwd".into(), cwd.clone());
        }
        self.user_shell = Some((String::new(), String::new()));
        self.user_turn(
            e.name("shell"),
            None,
            TurnOrigin::Synthetic {
                reason: SyntheticReason::BashInput,
            },
            format!("$ {command}"),
            m,
            e,
        );
    }

    /// `user_shell_result`: the user's shell command ended; its output becomes one turn.
    pub(crate) fn user_shell_result(&mut self, data: &Value, e: &mut Emit<'_>) {
        let (stdout, stderr) = self.user_shell.take().unwrap_or_default();
        let mut m = Map::new();
        m.insert("stdout".into(), json!(stdout));
        m.insert("stderr".into(), json!(stderr));
        for k in ["exitCode", "signal", "aborted"] {
            if let Some(v) = data.get(k) {
                m.insert(k.into(), v.clone());
            }
        }
        let mut text = [stdout.as_str(), stderr.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
        if text.is_empty() {
            text = match data.get("exitCode") {
                Some(c) if !c.is_null() => format!("Shell command exited with code {c}"),
                _ => "Shell command ended".into(),
            };
        }
        self.user_turn(
            e.name("shell-output"),
            None,
            TurnOrigin::Synthetic {
                reason: SyntheticReason::BashOutput,
            },
            text,
            m,
            e,
        );
    }

    /// `permission_request`: the call waits for approval (a request with no call id becomes a
    /// notice).
    pub(crate) fn permission_request(&mut self, data: &Value, e: &mut Emit<'_>) {
        let request_id = string(data, "requestId");
        let tc = data.get("toolCall").cloned().unwrap_or(Value::Null);
        let options: Vec<Value> = data
            .get("options")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let names: Vec<String> = options.iter().map(option_name).collect();
        let tool_call_id = tc
            .get("toolCallId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let label = [&tc["title"], &tc["name"], &tc["command"]]
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(": ");
        self.requests.insert(
            request_id.clone(),
            Request {
                tool_call_id: tool_call_id.clone(),
                options: options.clone(),
                label: label.clone(),
            },
        );
        let Some(id) = tool_call_id else {
            e.push(info(
                "permission_request",
                Level::Warning,
                format!(
                    "permission requested for {}; options: {}",
                    if label.is_empty() {
                        "a tool call"
                    } else {
                        &label
                    },
                    names.join(" / ")
                ),
                data.clone(),
            ));
            return;
        };
        if self.calls.contains_key(&id) {
            // The request repeats the call with its arguments (the daemon may not have sent
            // them yet): merge everything but its status and its prompt text.
            let mut fields = tc.clone();
            if let Some(o) = fields.as_object_mut() {
                o.shift_remove("status");
                o.shift_remove("content");
            }
            self.merge_input(&id, &fields, e);
        } else {
            // The request came first: it carries the call's own fields.
            self.tool_call(&tc, e);
        }
        let prompt = tc
            .get("content")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(content_text)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        let Some(rec) = self.calls.get_mut(&id) else {
            return;
        };
        let mut p = json!({"requestId": request_id, "options": names});
        if !prompt.is_empty() {
            p["prompt"] = json!(prompt);
        }
        rec.permission = Some(p);
        let sidecar = rec.sidecar();
        e.push(tool_update(&id, Some(ToolState::ApprovalPending), sidecar));
    }

    /// `permission_resolved` / `permission_already_resolved`: approved → running again;
    /// rejected or cancelled → denied.
    pub(crate) fn permission_resolved(&mut self, data: &Value, e: &mut Emit<'_>) {
        let request_id = string(data, "requestId");
        let outcome = data.get("outcome").cloned().unwrap_or(Value::Null);
        let how = outcome
            .get("outcome")
            .and_then(Value::as_str)
            .or_else(|| outcome.as_str())
            .unwrap_or("unknown")
            .to_owned();
        let option_id = outcome
            .get("optionId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let outcome_text = if option_id.is_empty() {
            how.clone()
        } else {
            format!("{how}:{option_id}")
        };
        let req = self.requests.remove(&request_id);
        let option = req.as_ref().and_then(|r| {
            r.options
                .iter()
                .find(|o| str_of(o, "optionId") == option_id)
                .cloned()
        });
        let allowed = how == "selected" && is_allow(&option_id, option.as_ref());
        let option_label = option
            .as_ref()
            .map(option_name)
            .unwrap_or(option_id.clone());
        let call_id = req.as_ref().and_then(|r| r.tool_call_id.clone());
        let Some(rec) = call_id.as_ref().and_then(|id| self.calls.get_mut(id)) else {
            let label = req.map(|r| r.label).unwrap_or_default();
            e.push(info(
                "permission_resolved",
                if allowed { Level::Info } else { Level::Warning },
                format!("permission resolved: {outcome_text} {label}")
                    .trim_end()
                    .to_owned(),
                data.clone(),
            ));
            return;
        };
        let id = call_id.unwrap_or_default();
        if let Some(p) = rec.permission.as_mut() {
            p["outcome"] = json!(outcome_text);
        }
        if allowed {
            let sidecar = rec.sidecar();
            e.push(tool_update(&id, Some(ToolState::Running), sidecar));
            return;
        }
        rec.denied = true;
        let message = format!("permission rejected ({outcome_text}: {option_label})");
        e.push(EventKind::ToolDenied {
            tool_call_id: id.clone(),
            tool_name: rec.name.clone(),
            message: message.clone(),
        });
        e.push(EventKind::ToolUpdate {
            tool_call_id: id,
            state: Some(ToolState::ApprovalDenied),
            output: None,
            input: None,
            error_text: Some(message),
            sidecar: Some(rec.sidecar()),
        });
    }

    /// Every tool call the input left open, in order (for tests and end-of-input checks).
    pub(crate) fn open_calls(&self) -> Vec<String> {
        self.order
            .iter()
            .filter(|id| self.calls.get(*id).is_some_and(|c| !c.done && !c.denied))
            .cloned()
            .collect()
    }

    /// Merges fields into a known call; emits the input if it changed.
    fn merge_input(&mut self, id: &str, fields: &Value, e: &mut Emit<'_>) {
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
                error_text: None,
                sidecar: None,
            });
        }
    }

    fn chunk(&mut self, kind: ChunkKind, upd: &Value, e: &mut Emit<'_>) {
        let thread = parent_of(upd);
        let content = upd.get("content").unwrap_or(&Value::Null);
        let source = upd
            .pointer("/_meta/source")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if kind == ChunkKind::User {
            // A user message ends the assistant message before it.
            self.end_message(&thread, None, e);
        }
        let same = self
            .threads
            .get(&thread)
            .and_then(|t| t.gathered.as_ref())
            .is_some_and(|g| g.kind == kind);
        if !same {
            self.flush(&thread, e);
        }
        let id = match kind {
            ChunkKind::User => e.name("user"),
            ChunkKind::Assistant | ChunkKind::Thought => self.message_id(&thread, e),
        };
        let line = e.line;
        let st = self.threads.entry(thread).or_default();
        let g = st.gathered.get_or_insert_with(|| Gathered {
            kind,
            text: String::new(),
            extra: Vec::new(),
            id,
            line,
            source,
        });
        match str_of(content, "type") {
            "text" | "" => g.text.push_str(str_of(content, "text")),
            _ => g.extra.push(content_part(content)),
        }
    }

    fn agent_chunk(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let thread = parent_of(upd);
        let meta = upd.get("_meta").cloned().unwrap_or(Value::Null);
        if meta.get("promptCancelled") == Some(&json!(true)) {
            self.prompt_cancelled(&json!({"reason": "promptCancelled"}), e);
            return;
        }
        let text = upd
            .pointer("/content/text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(src @ ("background_task_completed" | "background_notification_turn_started")) =
            meta.get("source").and_then(Value::as_str)
        {
            self.flush(&thread, e);
            e.push(info(src, Level::Info, text.to_owned(), upd.clone()));
            return;
        }
        let usage = meta.get("usage").map(qwen_usage);
        let is_text = matches!(str_of(&upd["content"], "type"), "text" | "");
        if is_text && text.is_empty() {
            // The end of one model response (it carries the usage), or an empty marker.
            self.end_message(&thread, usage, e);
            if usage.is_none() {
                e.push(EventKind::Absorbed {
                    what: "empty agent_message_chunk".into(),
                });
            }
            return;
        }
        self.chunk(ChunkKind::Assistant, upd, e);
    }

    fn tool_call(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let Some(id) = upd
            .get("toolCallId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
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
            if matches!(status, Some("completed" | "failed")) {
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
        let is_agent = matches!(name.as_str(), "agent" | "Agent" | "task" | "Task");
        let mut rec = CallRecord {
            thread: thread.clone(),
            name: name.clone(),
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
            is_agent,
            subtask_started: false,
            denied: false,
            done: false,
        };
        merge_call(&mut rec, upd, meta);
        let input = if is_empty_value(&rec.raw_input) {
            json!({})
        } else {
            rec.raw_input.clone()
        };
        let mut call = ToolCall::new(id.to_owned(), name.clone(), Caller::Model, input);
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
        call.state = match rec.status.as_str() {
            "pending" => ToolState::Pending,
            _ => ToolState::Running,
        };
        call.sidecar = Some(rec.sidecar());
        let start = is_agent && !is_empty_value(&rec.raw_input);
        self.calls.insert(id.to_owned(), rec);
        self.order.push(id.to_owned());
        let message_id = self.message_id(&thread, e);
        e.push(EventKind::AssistantBlock {
            thread,
            message_id,
            part: Part::ToolCall {
                call: Box::new(call),
            },
            meta: TurnMeta::default(),
            timestamp: None,
        });
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
        let text = upd
            .get("content")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(content_text)
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
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
        let text = super::claude_blocks::output_text(&output);
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
            t.message = None;
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
        });
    }

    fn cancel_open_calls(&mut self, reason: &str, e: &mut Emit<'_>) {
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

    fn plan(&mut self, upd: &Value, e: &mut Emit<'_>) {
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
                input: Some(input),
                error_text: None,
                sidecar: Some(sidecar),
            });
            return;
        }
        self.flush(&thread, e);
        let mut call = ToolCall::new(id.clone(), "todo_write".into(), Caller::Model, input);
        call.state = ToolState::Success;
        call.sidecar = Some(sidecar);
        self.calls.insert(
            id.clone(),
            CallRecord {
                thread: thread.clone(),
                name: "todo_write".into(),
                status: "completed".into(),
                title: "Updated Plan".into(),
                kind: "think".into(),
                locations: Value::Null,
                content: Value::Null,
                raw_input: Value::Null,
                raw_output: Value::Null,
                meta: Map::new(),
                permission: None,
                shell_output: String::new(),
                is_agent: false,
                subtask_started: false,
                denied: false,
                done: true,
            },
        );
        self.order.push(id);
        let message_id = self.message_id(&thread, e);
        e.push(EventKind::AssistantBlock {
            thread,
            message_id,
            part: Part::ToolCall {
                call: Box::new(call),
            },
            meta: TurnMeta::default(),
            timestamp: None,
        });
    }

    fn shell_output(&mut self, upd: &Value, e: &mut Emit<'_>) {
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
                e.push(EventKind::ToolUpdate {
                    tool_call_id: id,
                    state: None,
                    output: Some(Value::String(rec.shell_output.clone())),
                    input: None,
                    error_text: None,
                    sidecar: None,
                });
            }
            None => e.push(info(
                "shell_output",
                Level::Info,
                text.to_owned(),
                upd.clone(),
            )),
        }
    }

    /// The open message of a thread, opened now if there is none.
    fn message_id(&mut self, thread: &Thread, e: &Emit<'_>) -> String {
        let st = self.threads.entry(thread.clone()).or_default();
        st.message.get_or_insert_with(|| e.name("msg")).clone()
    }

    /// Emits the thread's gathered chunks as one part (or one user turn).
    fn flush(&mut self, thread: &Thread, e: &mut Emit<'_>) {
        let Some(g) = self.threads.get_mut(thread).and_then(|t| t.gathered.take()) else {
            return;
        };
        let line = e.line;
        e.line = g.line;
        match g.kind {
            ChunkKind::User => {
                let mut m = Map::new();
                if let Some(s) = &g.source {
                    m.insert("source".into(), json!(s));
                }
                let origin = match thread {
                    Some(p) => TurnOrigin::SubagentPrompt {
                        parent_tool_call_id: p.clone(),
                    },
                    None => TurnOrigin::UserInput,
                };
                let mut parts = Vec::new();
                if !g.text.is_empty() || g.extra.is_empty() {
                    parts.push(text_part(g.text));
                }
                parts.extend(g.extra);
                e.push(EventKind::UserTurn {
                    turn: Box::new(Turn {
                        id: g.id,
                        role: Role::User,
                        origin,
                        parent_task_id: thread.clone(),
                        parts,
                        metadata: TurnMeta {
                            machinery: m,
                            ..TurnMeta::default()
                        },
                        timestamp: None,
                    }),
                    source_tool_call_id: None,
                });
            }
            ChunkKind::Assistant | ChunkKind::Thought => {
                let mut parts = Vec::new();
                if !g.text.is_empty() {
                    parts.push(if g.kind == ChunkKind::Thought {
                        Part::Reasoning {
                            text: g.text,
                            redacted: false,
                            signature: None,
                        }
                    } else {
                        text_part(g.text)
                    });
                }
                parts.extend(g.extra);
                for part in parts {
                    e.push(EventKind::AssistantBlock {
                        thread: thread.clone(),
                        message_id: g.id.clone(),
                        part,
                        meta: TurnMeta::default(),
                        timestamp: None,
                    });
                }
            }
        }
        e.line = line;
    }

    /// Ends the thread's open message: gathered chunks out, usage attached.
    fn end_message(&mut self, thread: &Thread, usage: Option<Usage>, e: &mut Emit<'_>) {
        self.flush(thread, e);
        let Some(message_id) = self.threads.get_mut(thread).and_then(|t| t.message.take()) else {
            return;
        };
        if usage.is_some() {
            e.push(EventKind::AssistantEnd {
                thread: thread.clone(),
                message_id,
                meta: TurnMeta {
                    usage,
                    ..TurnMeta::default()
                },
            });
        }
    }

    fn user_turn(
        &mut self,
        id: String,
        thread: Thread,
        origin: TurnOrigin,
        text: String,
        machinery: Map<String, Value>,
        e: &mut Emit<'_>,
    ) {
        e.push(EventKind::UserTurn {
            turn: Box::new(Turn {
                id,
                role: Role::User,
                origin,
                parent_task_id: thread,
                parts: vec![text_part(text)],
                metadata: TurnMeta {
                    machinery,
                    ..TurnMeta::default()
                },
                timestamp: None,
            }),
            source_tool_call_id: None,
        });
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

fn tool_update(id: &str, state: Option<ToolState>, sidecar: Value) -> EventKind {
    EventKind::ToolUpdate {
        tool_call_id: id.to_owned(),
        state,
        output: None,
        input: None,
        error_text: None,
        sidecar: Some(sidecar),
    }
}

/// Whether a selected permission option lets the call run: the option's `kind`
/// (`allow_once`, `allow_always`, `reject_once`, …), else its id.
fn is_allow(option_id: &str, option: Option<&Value>) -> bool {
    if let Some(kind) = option.and_then(|o| o.get("kind")).and_then(Value::as_str) {
        return kind.starts_with("allow");
    }
    let id = option_id.to_ascii_lowercase();
    !(id.contains("reject") || id.contains("deny") || id.contains("cancel"))
}

fn option_name(o: &Value) -> String {
    ["name", "label", "optionId"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
}

/// Qwen's usage (`inputTokens`, `outputTokens`, `cachedReadTokens`) in Anthropic's shape.
fn qwen_usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("inputTokens"),
        output_tokens: n("outputTokens"),
        cache_read_input_tokens: n("cachedReadTokens"),
        cache_creation_input_tokens: 0,
    }
}

/// The text of a tool-call `content` item (`{type:"content", content:{type:"text", text}}`).
fn content_text(item: &Value) -> Option<&str> {
    match str_of(item, "type") {
        "content" => {
            let c = item.get("content")?;
            (str_of(c, "type") == "text").then(|| str_of(c, "text"))
        }
        "text" => item.get("text").and_then(Value::as_str),
        _ => None,
    }
}

fn block_text(b: &Value) -> Option<String> {
    (str_of(b, "type") == "text").then(|| str_of(b, "text").to_owned())
}

/// A non-text ACP content block → a part.
fn content_part(c: &Value) -> Part {
    match str_of(c, "type") {
        "image" => {
            let mt = c
                .get("mimeType")
                .and_then(Value::as_str)
                .unwrap_or("image/png");
            Part::File {
                media_type: mt.to_owned(),
                url: match c.get("data").and_then(Value::as_str) {
                    Some(d) => format!("data:{mt};base64,{d}"),
                    None => str_of(c, "uri").to_owned(),
                },
                filename: None,
            }
        }
        "resource_link" => Part::File {
            media_type: str_of(c, "mimeType").to_owned(),
            url: str_of(c, "uri").to_owned(),
            filename: c.get("name").and_then(Value::as_str).map(str::to_owned),
        },
        other => Part::Data {
            name: if other.is_empty() {
                "content".into()
            } else {
                other.to_owned()
            },
            data: c.clone(),
        },
    }
}

fn text_part(text: String) -> Part {
    Part::Text {
        text,
        citations: Vec::new(),
    }
}

fn parent_of(upd: &Value) -> Thread {
    upd.pointer("/_meta/parentToolCallId")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// A string field, or "".
pub(crate) fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn string(v: &Value, key: &str) -> String {
    str_of(v, key).to_owned()
}
