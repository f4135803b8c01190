//! The Agent SDK stream-json decoder (Claude Code's wire format, copied by Qwen Code) → normalized events.
//!
//! Every message kind in the wire spec maps to an event; keep-alives and the control protocol are
//! counted as absorbed; an unknown `type` or `system` subtype becomes a `debug` event that keeps the
//! raw line. Every object is read as open: unknown fields are ignored. Messages are decoded by
//! `anthropic::messages` (where user envelopes are split into tool results and §4-classified text, at
//! the adapter boundary) and `system` / `result` lines by `anthropic::system`; this module holds the
//! dispatch and the partial-message stream events.

use foldhash::HashMap;

use serde_json::Value;

use crate::input::anthropic::control::Permissions;
use crate::input::anthropic::cost::CostLedger;
pub(crate) use crate::input::anthropic::messages::{ClaudeMessages, Wire};
use crate::input::anthropic::row::{self, Whole};
pub(crate) use crate::input::anthropic::system::{info, result_notice, session_snapshot, system};
use crate::input::anthropic::system::{result_notice_of, snapshot_of};
use crate::input::anthropic::typed_system::{InitLine, ResultLine, TaskLine};
use crate::input::fields::{self, opt_string, parent_tool_use_id, str_of, string};
use crate::input::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::event::{Event, EventKind, Thread};
use crate::model::session::{Level, SessionSnapshot, SystemNotice};
use crate::model::transcript::{TurnMeta, Usage};

/// Decoder state: which message each thread is streaming, and which sub-agent threads have had
/// their first user message.
#[derive(Debug)]
pub(crate) struct StreamJson {
    /// The agent's spelling and tool names.
    wire: &'static Wire,
    streaming: HashMap<Thread, String>,
    /// The last session snapshot written, so that a later `system/status.permissionMode` can
    /// update it (§14: the snapshot is the session's current state).
    session: Option<SessionSnapshot>,
    /// Permission questions (`control_request can_use_tool`) waiting for their answer.
    permissions: Permissions,
    /// The message decoder, shared with Qwen's stream-json (same messages, same blocks).
    pub(crate) core: ClaudeMessages,
    /// The previous result's running cost, to tell each result's own cost.
    pub(crate) costs: CostLedger,
    /// The number of the last line read, for what `finish` writes.
    last_line: u64,
    /// An `init` line's snapshot that carries no time (Claude Code's never does), held with the
    /// events after it until the first message, whose time becomes the snapshot's `updatedAt`
    /// (`StreamJson::time_the_session`).
    held: Vec<Event>,
    /// Whether a message's `session_id` makes the session's snapshot when no `init` came
    /// (Claude Code's stream; Qwen's adapter makes its own snapshot).
    names_session: bool,
}

/// The most events held behind an untimed snapshot before they are written without a time.
const MOST_HELD: usize = 64;

impl StreamJson {
    /// A decoder for the agent whose spelling and tool names `wire` holds.
    pub(crate) fn new(wire: &'static Wire) -> StreamJson {
        StreamJson {
            wire,
            streaming: HashMap::default(),
            session: None,
            permissions: Permissions::default(),
            core: ClaudeMessages::default(),
            costs: CostLedger::default(),
            last_line: 0,
            held: Vec::new(),
            names_session: false,
        }
    }

    /// This decoder, making a snapshot of the session id the messages carry when the stream has
    /// no `init` (`session_of_messages`).
    pub(crate) fn naming_the_session(mut self) -> StreamJson {
        self.names_session = true;
        self
    }
}

impl Adapter for StreamJson {
    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let start = out.len();
        self.read_line(line, out, report);
        self.session_of_messages(line, out, start);
        self.time_the_session(out, start);
    }

    /// Lines whose events wait behind an untimed snapshot (`time_the_session`).
    fn holds_line(&self, number: u64) -> bool {
        self.held.iter().any(|e| e.line == number)
    }

    /// Sub-agent prompts still held from `task_started` (a stream cut before the sub-agent's
    /// own messages) are written, on the last line read, after a snapshot still waiting for a
    /// time (written without one).
    fn finish(&mut self, out: &mut Vec<Event>, _report: &mut Report<'_>) {
        self.release_held(out, None);
        let line = self.last_line;
        self.core
            .held_prompts(&mut |kind| out.push(Event::at(line, kind)));
    }
}

impl StreamJson {
    /// One line's events, pushed onto `out`.
    fn read_line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if self.typed(line, out) {
            return;
        }
        let Some(v) = parse_json_line(line, out, report) else {
            return;
        };
        let n = line.number;
        self.last_line = n;
        let mut emit = |kind: EventKind| out.push(Event::at(n, kind));
        let ty = str_of(&v, "type");
        match ty {
            "assistant" => self.core.assistant(&v, self.wire, &mut emit),
            "user" => self.core.user(&v, self.wire, &mut emit),
            "system" => self.system_line(&v, line, out),
            "result" => emit(EventKind::notice(result_notice(&v, &mut self.costs))),
            "stream_event" => self.stream_event(&v, &mut emit),
            "tool_progress" => emit(EventKind::ToolProgress {
                thread: parent_tool_use_id(&v),
                tool_call_id: string(&v, "tool_use_id"),
                tool_name: string(&v, "tool_name"),
                elapsed_seconds: v
                    .get("elapsed_time_seconds")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0),
                task_id: opt_string(&v, "task_id"),
            }),
            "tool_use_summary" => emit(info(
                &v,
                "tool_use_summary",
                Level::Info,
                string(&v, "summary"),
            )),
            "auth_status" => emit(auth_status(&v)),
            "rate_limit_event" => emit(rate_limit(&v)),
            "prompt_suggestion" => emit(info(
                &v,
                "prompt_suggestion",
                Level::Trace,
                string(&v, "suggestion"),
            )),
            "conversation_reset" => emit(EventKind::ConversationReset),
            "active_goal" => {
                let cond = v
                    .pointer("/value/condition")
                    .and_then(Value::as_str)
                    .unwrap_or("(cleared)");
                emit(info(
                    &v,
                    "active_goal",
                    Level::Info,
                    format!("goal: {cond}"),
                ))
            }
            "control_request" if self.permissions.request(&v, &mut emit) => {}
            "control_response" if self.permissions.response(&v, &mut emit) => {}
            "keep_alive" | "control_request" | "control_response" | "control_cancel_request" => {
                emit(EventKind::absorbed(ty.to_owned()))
            }
            _ => push_debug(out, line, &format!("unknown message type {ty:?}")),
        }
    }

    /// A `system` line: its events (the session's `init` kept, a task's end its
    /// `<task-notification>` message already said demoted to a trace record), the permission mode
    /// of a `status`; a subtype nobody knows is the generic `info` notice [`system`] made of it,
    /// and a message with no subtype a `debug` record.
    fn system_line(&mut self, v: &Value, line: &InputLine, out: &mut Vec<Event>) {
        let n = line.number;
        let mut emit = |kind: EventKind| out.push(Event::at(n, kind));
        let mut kinds = Vec::new();
        let known = system(v, &mut |k| kinds.push(k));
        for k in kinds {
            if let EventKind::SessionInit { session } = &k {
                self.session = Some((**session).clone());
            }
            // Ended already by its `<task-notification>` message (which carries the
            // same status, summary and usage): a trace record, not a second end.
            if self.core.ended_by_message(&k) {
                emit(crate::input::anthropic::system::info(
                    v,
                    "task_notification",
                    crate::model::session::Level::Trace,
                    "a task_notification for a task its <task-notification> message already ended"
                        .into(),
                ));
                continue;
            }
            emit(k);
        }
        if str_of(v, "subtype") == "status" {
            self.permission_mode(v, &mut emit);
        }
        if !known {
            push_debug(out, line, "system message without a subtype");
        } else {
            let task: TaskLine<'_> = row::from_value(v);
            if task.subtype.as_deref() == Some("task_started") {
                self.core.subagent_prompt(&task);
            }
            self.core.system_task(&task);
        }
    }

    /// §14's `SessionSnapshot.updatedAt` from the lines' times: the stream's `init` carries
    /// none, its messages do. The snapshot of an untimed `init` waits, with the events after it
    /// (system lines: hooks, tasks), for the first message; that message's time is the
    /// snapshot's, and all are written in their order. A first message with no time, a partial
    /// message's event (see [`release_time`]), or more than [`MOST_HELD`] events, writes them
    /// without one. `start`: where this line's events
    /// begin in `out`.
    fn time_the_session(&mut self, out: &mut Vec<Event>, start: usize) {
        let untimed = |e: &Event| matches!(&e.kind, EventKind::SessionInit { session } if session.updated_at.is_none());
        if self.held.is_empty() && !out[start..].iter().any(untimed) {
            return;
        }
        for event in out.split_off(start) {
            if untimed(&event) {
                self.release_held(out, None);
                self.held.push(event);
            } else if self.held.is_empty() {
                out.push(event);
            } else if let Some(time) = release_time(&event.kind) {
                let time = time.map(str::to_owned);
                self.release_held(out, time);
                out.push(event);
            } else {
                self.held.push(event);
                if self.held.len() > MOST_HELD {
                    self.release_held(out, None);
                }
            }
        }
    }

    /// Writes the held snapshot, with `time` as its `updatedAt`, and the events held behind it.
    fn release_held(&mut self, out: &mut Vec<Event>, time: Option<String>) {
        let mut held = std::mem::take(&mut self.held).into_iter();
        let Some(mut first) = held.next() else {
            return;
        };
        if let (EventKind::SessionInit { session }, Some(t)) = (&mut first.kind, &time) {
            session.updated_at = Some(t.clone());
            if let Some(kept) = self.session.as_mut().filter(|k| k.updated_at.is_none()) {
                kept.updated_at = Some(t.clone());
            }
        }
        out.push(first);
        out.extend(held);
    }
}

/// A snapshot of what any Claude stream line says of its session: its `session_id`, and the
/// line's `uuid` as the id of the message that announced it.
fn bare_snapshot(v: &Value) -> SessionSnapshot {
    SessionSnapshot {
        id: string(v, "uuid"),
        session_id: string(v, "session_id"),
        agent: "claude-code".to_owned(),
        source: "claude-stream".to_owned(),
        ..SessionSnapshot::default()
    }
}

/// Whether an event ends the wait of an untimed snapshot, and with what time: the events of an
/// `assistant` or `user` line, with the time inside (if it has one); a partial message's
/// (`stream_event`), with none, because the live view shows those as they come and must not
/// wait for the message; `None` for any other event.
fn release_time(kind: &EventKind) -> Option<Option<&str>> {
    match kind {
        EventKind::AssistantBlock { timestamp, .. } | EventKind::ToolResult { timestamp, .. } => {
            Some(timestamp.as_deref())
        }
        EventKind::UserTurn { turn, .. } => Some(turn.timestamp.as_deref()),
        EventKind::AssistantEnd { .. }
        | EventKind::TextDelta { .. }
        | EventKind::ReasoningDelta { .. }
        | EventKind::ToolInputStarted { .. } => Some(None),
        EventKind::SessionInit { .. }
        | EventKind::ToolUpdate { .. }
        | EventKind::ToolDenied { .. }
        | EventKind::ToolProgress { .. }
        | EventKind::SubtaskStarted { .. }
        | EventKind::SubtaskProgress { .. }
        | EventKind::SubtaskUpdated { .. }
        | EventKind::SubtaskFinished { .. }
        | EventKind::Notice { .. }
        | EventKind::ConversationReset
        | EventKind::BranchStarted { .. }
        | EventKind::BranchEnded
        | EventKind::ToolUnanswered { .. }
        | EventKind::Absorbed { .. }
        | EventKind::Debug { .. } => None,
    }
}

impl StreamJson {
    /// The common cases, decoded without a `Value` tree: an `assistant` or `user` line, parsed
    /// straight into the typed row the message decoder reads (`anthropic::row`), a `system` task
    /// or `init` line, or a `result` line (`anthropic::typed_system`). Which it is, is told from
    /// how Claude Code begins every line (`{"type":"…"`, and for a `system` line
    /// `,"subtype":"…"`); a line written another way is tried as a message row. False when the
    /// line is anything else, or is not JSON (the typed parse refuses what a `Value` parse
    /// refuses), or needs the whole line: it then goes the general way, which reports what is
    /// wrong with it.
    fn typed(&mut self, line: &InputLine, out: &mut Vec<Event>) -> bool {
        let text = line.text.trim_start();
        if !text.starts_with('{') {
            return false;
        }
        let Some(rest) = text.strip_prefix(r#"{"type":""#) else {
            return self.typed_message(line, out);
        };
        match rest.split_once('"') {
            Some(("assistant" | "user", _)) => self.typed_message(line, out),
            Some(("result", _)) => self.typed_result(line, out),
            Some(("system", rest)) if rest.starts_with(r#","subtype":"task_"#) => {
                self.typed_task(line, out)
            }
            Some(("system", rest)) if rest.starts_with(r#","subtype":"init""#) => {
                self.typed_init(line, out)
            }
            _ => false,
        }
    }

    /// An `assistant` or `user` line, the typed way; a `result` line that does not begin with
    /// its `type` (another writer's key order) is read as one once the row says what it is.
    fn typed_message(&mut self, line: &InputLine, out: &mut Vec<Event>) -> bool {
        let Some(row) = row::from_text(&line.text) else {
            return false;
        };
        let n = line.number;
        let whole = Whole::text(&line.text);
        let mut emit = |kind: EventKind| out.push(Event::at(n, kind));
        match row.ty.as_deref() {
            Some("assistant") => {
                self.last_line = n;
                self.core.assistant_row(row, &whole, self.wire, &mut emit);
                true
            }
            Some("user") => {
                self.last_line = n;
                self.core.user_row(row, &whole, self.wire, &mut emit);
                true
            }
            Some("result") => self.typed_result(line, out),
            _ => false,
        }
    }

    /// A `system` task line, the typed way: what the general way does with it, in the same
    /// order. A `task_notification` for a task a message already ended is written as a trace
    /// record keeping the whole line, so it goes the general way.
    fn typed_task(&mut self, line: &InputLine, out: &mut Vec<Event>) -> bool {
        let Ok(task) = scribe_json::from_str::<TaskLine<'_>>(&line.text) else {
            return false;
        };
        let Some(kind) = task.event() else {
            return false;
        };
        if self.core.ended_by_message(&kind) {
            return false;
        }
        self.last_line = line.number;
        out.push(Event::at(line.number, kind));
        if task.subtype.as_deref() == Some("task_started") {
            self.core.subagent_prompt(&task);
        }
        self.core.system_task(&task);
        true
    }

    /// A `system/init` line, the typed way: the session snapshot the general way writes (and
    /// keeps, for a later `permissionMode` change), from the same fields.
    fn typed_init(&mut self, line: &InputLine, out: &mut Vec<Event>) -> bool {
        let Ok(init) = scribe_json::from_str::<InitLine<'_>>(&line.text) else {
            return false;
        };
        let session = snapshot_of(&init, "claude-stream");
        self.session = Some(session.clone());
        self.last_line = line.number;
        out.push(Event::at(line.number, EventKind::session(session)));
        true
    }

    /// A `result` line, the typed way.
    fn typed_result(&mut self, line: &InputLine, out: &mut Vec<Event>) -> bool {
        let Ok(result) = scribe_json::from_str::<ResultLine<'_>>(&line.text) else {
            return false;
        };
        self.last_line = line.number;
        out.push(Event::at(
            line.number,
            EventKind::notice(result_notice_of(result, &mut self.costs)),
        ));
        true
    }

    /// `system/status {permissionMode}`: the mode changed mid-session, so the session snapshot
    /// is written again with it (a stream without an init gets a snapshot holding what it knows).
    fn permission_mode(&mut self, v: &Value, emit: &mut impl FnMut(EventKind)) {
        let Some(mode) = v.get("permissionMode").and_then(Value::as_str) else {
            return;
        };
        let session = self.session.get_or_insert_with(|| bare_snapshot(v));
        if session.permission_mode.as_deref() == Some(mode) {
            return;
        }
        session.permission_mode = Some(mode.to_owned());
        emit(EventKind::session(session.clone()));
    }

    /// §2's `session_id` on every message → §14's `SessionSnapshot.sessionId`: a stream with no
    /// `init` before its first understood `assistant`, `user` or `result` line gets, before that
    /// line's events, a snapshot holding the id (and the line's `uuid`) and nothing the lines do
    /// not say. A line kept as a `debug` record names nothing.
    fn session_of_messages(&mut self, line: &InputLine, out: &mut Vec<Event>, start: usize) {
        let understood = out[start..]
            .iter()
            .any(|e| !matches!(e.kind, EventKind::Debug { .. }));
        if !self.names_session
            || self.session.is_some()
            || !understood
            || !line.text.contains("\"session_id\"")
        {
            return;
        }
        let Ok(v) = scribe_json::parse_line(&line.text) else {
            return;
        };
        if !matches!(str_of(&v, "type"), "assistant" | "user" | "result")
            || str_of(&v, "session_id").is_empty()
        {
            return;
        }
        let session = bare_snapshot(&v);
        self.session = Some(session.clone());
        out.insert(start, Event::at(line.number, EventKind::session(session)));
    }

    /// `stream_event`: raw API deltas, for live display only (the final message is authoritative).
    pub(crate) fn stream_event(&mut self, v: &Value, emit: &mut impl FnMut(EventKind)) {
        let thread = parent_tool_use_id(v);
        let ev = v.get("event").unwrap_or(&Value::Null);
        let ety = str_of(ev, "type");
        let message_id = || -> String {
            opt_string(v, "api_message_id")
                .or_else(|| self.streaming.get(&thread).cloned())
                .unwrap_or_default()
        };
        match ety {
            "message_start" => {
                let id = ev
                    .pointer("/message/id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.streaming.insert(thread, id);
                emit(EventKind::absorbed("stream_event/message_start"));
            }
            "content_block_start" => {
                let cb = ev.get("content_block").unwrap_or(&Value::Null);
                if matches!(
                    str_of(cb, "type"),
                    "tool_use" | "server_tool_use" | "mcp_tool_use"
                ) {
                    emit(EventKind::ToolInputStarted {
                        thread: thread.clone(),
                        message_id: message_id(),
                        tool_call_id: string(cb, "id"),
                        name: string(cb, "name"),
                    });
                } else {
                    emit(EventKind::absorbed("stream_event/content_block_start"));
                }
            }
            "content_block_delta" => {
                let d = ev.get("delta").unwrap_or(&Value::Null);
                let index = ev.get("index").and_then(Value::as_u64).unwrap_or(0);
                match str_of(d, "type") {
                    "text_delta" => emit(EventKind::TextDelta {
                        thread: thread.clone(),
                        message_id: message_id(),
                        index,
                        text: string(d, "text"),
                    }),
                    "thinking_delta" => emit(EventKind::ReasoningDelta {
                        thread: thread.clone(),
                        message_id: message_id(),
                        index,
                        text: string(d, "thinking"),
                    }),
                    other => emit(EventKind::absorbed(format!("stream_event/{other}"))),
                }
            }
            "message_delta" => {
                let stop = ev
                    .pointer("/delta/stop_reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let usage = ev.get("usage").and_then(Usage::from_json);
                emit(EventKind::AssistantEnd {
                    thread: thread.clone(),
                    message_id: message_id(),
                    meta: TurnMeta {
                        stop_reason: stop,
                        usage,
                        ..TurnMeta::default()
                    },
                });
            }
            "message_stop" => {
                self.streaming.remove(&thread);
                emit(EventKind::absorbed("stream_event/message_stop"));
            }
            other => emit(EventKind::absorbed(format!("stream_event/{other}"))),
        }
    }
}

/// An `auth_status` line: its output lines, then its error's words when it carries one, as one
/// notice (an error notice then), so the reader of every view sees why the sign-in failed.
fn auth_status(v: &Value) -> EventKind {
    let mut lines: Vec<&str> = fields::array(v, "output")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let error = v.get("error").filter(|e| !e.is_null());
    lines.extend(error.and_then(Value::as_str));
    let level = if error.is_some() {
        Level::Error
    } else {
        Level::Info
    };
    info(v, "auth_status", level, lines.join("\n"))
}

/// A `rate_limit_event` line: the notice of its `rate_limit_info`, kept whole.
fn rate_limit(v: &Value) -> EventKind {
    let i = v.get("rate_limit_info").cloned().unwrap_or(Value::Null);
    EventKind::notice(SystemNotice::RateLimit {
        at: opt_string(v, "timestamp"),
        status: string(&i, "status"),
        resets_at: i.get("resetsAt").cloned(),
        rate_limit_type: opt_string(&i, "rateLimitType"),
        info: i,
    })
}
