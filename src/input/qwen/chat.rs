//! Qwen Code saved chats (`~/.qwen/tmp/<project>/chats/<sessionId>.jsonl`) → normalized events
//! (`docs/input-qwen.md`, "Saved chats").
//!
//! Each line is one `ChatRecord` of Qwen's chat recording service: `uuid`, `parentUuid`,
//! `sessionId`, `timestamp`, `type` (`user`, `assistant`, `tool_result`, `system`), `cwd`,
//! `version`, and for conversation records a Gemini-style `message` (`role`, `parts[]` of
//! `text`, `thought`, `functionCall`, `functionResponse`). The rows look like a Claude saved
//! session's (the same `uuid`/`parentUuid`/`sessionId` keys), so detection tells them apart by
//! the Gemini `parts` and the `tool_result` type. Records are append-only: every line is read
//! in order, and nothing is held back.

use serde_json::{Value, json};

use crate::input::fields::{self, opt_string, str_of};
use crate::input::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::details::Details;
use crate::model::event::{Event, EventKind};
use crate::model::session::{Level, SessionSnapshot, SystemNotice};
use crate::model::transcript::{
    Caller, Part, SyntheticReason, ToolCall, TurnMeta, TurnOrigin, Usage,
};

/// Records read before the first header is written while no record has named the model: the
/// first rows (a `session_source` record, the user's prompt) carry none, the first answer does.
const HEADER_WAIT: usize = 32;

/// Decoder state: the session header as last written (re-written when the model changes).
#[derive(Default)]
pub(crate) struct QwenChat {
    shown: Option<SessionSnapshot>,
    /// The first header, held (with the events of the records read meanwhile) until a record
    /// names the model or `HEADER_WAIT` records have passed, so that a chat gets one header
    /// that names its model rather than one without and a second one a line later.
    first: Option<(SessionSnapshot, u64)>,
    held: Vec<Event>,
    held_records: usize,
    /// Follow mode: nothing is held (a prompt shows before its answer comes).
    live: bool,
}

impl Adapter for QwenChat {
    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if line.text.trim().is_empty() {
            return;
        }
        if self.shown.is_none() {
            // Still waiting for the model: this record's events wait behind the header.
            let mut mine = Vec::new();
            self.record(line, &mut mine, report);
            self.held.extend(mine);
            self.held_records += 1;
            let named = self
                .first
                .as_ref()
                .is_some_and(|(s, _)| s.model.as_ref().is_some_and(|m| !m.is_empty()));
            if named || self.live || self.held_records >= HEADER_WAIT {
                self.release(out);
            }
            return;
        }
        self.record(line, out, report);
    }

    fn finish(&mut self, out: &mut Vec<Event>, _report: &mut Report<'_>) {
        self.release(out);
    }

    fn set_live(&mut self) {
        self.live = true;
    }

    /// True while the first header and the records after it are held (the line just read is
    /// one of them).
    fn holds_line(&self, _number: u64) -> bool {
        self.shown.is_none() && !self.held.is_empty()
    }
}

impl QwenChat {
    /// Writes the held first header, then the events held behind it.
    fn release(&mut self, out: &mut Vec<Event>) {
        if let Some((s, n)) = self.first.take() {
            self.shown = Some(s.clone());
            out.push(Event::at(n, EventKind::session(s)));
        }
        out.append(&mut self.held);
    }

    /// Decodes one record.
    fn record(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let Some(v) = parse_json_line(line, out, report) else {
            return;
        };
        let n = line.number;
        self.session(&v, n, out);
        let ts = opt_string(&v, "timestamp");
        let id = str_of(&v, "uuid").to_owned();
        let parts = parts_of(&v);
        let mut push = |kind| out.push(Event::at(n, kind));
        match str_of(&v, "type") {
            "user" => {
                let text = texts(parts, false);
                if text.trim().is_empty() {
                    push(EventKind::absorbed("user record without text"));
                } else {
                    push(EventKind::user_text(id, TurnOrigin::UserInput, text, ts));
                }
            }
            "assistant" => {
                let meta = TurnMeta {
                    model: opt_string(&v, "model"),
                    usage: v.get("usageMetadata").and_then(usage),
                    ..TurnMeta::default()
                };
                let mut any = false;
                for p in parts {
                    let Some(part) = model_part(p, &id) else {
                        continue;
                    };
                    any = true;
                    push(EventKind::AssistantBlock {
                        thread: None,
                        message_id: id.clone(),
                        part,
                        meta: meta.clone(),
                        timestamp: ts.clone(),
                    });
                }
                if !any {
                    push(EventKind::absorbed("assistant record without content"));
                }
            }
            "tool_result" => {
                let result = v.get("toolCallResult").unwrap_or(&Value::Null);
                let mut any = false;
                for p in parts {
                    let Some(fr) = p.get("functionResponse") else {
                        continue;
                    };
                    any = true;
                    let call_id = str_of(fr, "id");
                    let call_id = if call_id.is_empty() {
                        str_of(result, "callId")
                    } else {
                        call_id
                    };
                    let response = fr.get("response").unwrap_or(&Value::Null);
                    let output = response
                        .get("output")
                        .or_else(|| response.get("error"))
                        .cloned()
                        .unwrap_or_else(|| response.clone());
                    let error = result
                        .pointer("/error/message")
                        .or_else(|| result.get("error"))
                        .and_then(Value::as_str)
                        .or_else(|| response.get("error").and_then(Value::as_str))
                        .map(str::to_owned);
                    let is_error = matches!(str_of(result, "status"), "error" | "cancelled")
                        || error.is_some();
                    let display = result.get("resultDisplay").filter(|d| !d.is_null());
                    push(EventKind::ToolResult {
                        thread: None,
                        tool_call_id: call_id.to_owned(),
                        is_error,
                        output,
                        error_text: is_error.then(|| {
                            error.unwrap_or_else(|| {
                                format!("tool call {}", str_of(result, "status"))
                            })
                        }),
                        sidecar: display.map(|d| Details::from(json!({ "resultDisplay": d }))),
                        facts: crate::model::transcript::ResultFacts::default(),
                        server_run: false,
                        replay: false,
                        timestamp: ts.clone(),
                    });
                }
                if !any {
                    push(EventKind::absorbed(
                        "tool_result record without a functionResponse",
                    ));
                }
            }
            "system" => system(&v, id, ts, line, out),
            other => push_debug(out, line, &format!("unknown chat record type {other:?}")),
        }
    }
}

impl QwenChat {
    /// Builds the session header from the first records (held, see `first`), and writes it
    /// again when a record names a model (or another cwd, version or branch) that the last
    /// header did not.
    fn session(&mut self, v: &Value, n: u64, out: &mut Vec<Event>) {
        let Some(shown) = &self.shown else {
            let (mut s, line) = self.first.take().unwrap_or_else(|| (new_snapshot(v), n));
            fill_snapshot(&mut s, v);
            self.first = Some((s, line));
            return;
        };
        let mut s = shown.clone();
        fill_snapshot(&mut s, v);
        let changed = shown.model != s.model
            || shown.cwd != s.cwd
            || shown.version != s.version
            || shown.git_branch != s.git_branch;
        if changed {
            self.shown = Some(s.clone());
            out.push(Event::at(n, EventKind::session(s)));
        }
    }
}

/// A session header from a chat's first record.
fn new_snapshot(v: &Value) -> SessionSnapshot {
    let id = fields::string(v, "sessionId");
    SessionSnapshot {
        id: id.clone(),
        session_id: id,
        agent: "qwen-code".into(),
        source: "qwen-session".into(),
        updated_at: opt_string(v, "timestamp"),
        ..SessionSnapshot::default()
    }
}

/// The session facts a record repeats (model, cwd, version, branch), over those known so far.
fn fill_snapshot(s: &mut SessionSnapshot, v: &Value) {
    if let Some(m) = opt_string(v, "model") {
        s.model = Some(m);
    }
    if let Some(c) = opt_string(v, "cwd") {
        s.cwd = Some(c);
    }
    if let Some(ver) = v.get("version").and_then(Value::as_str) {
        s.version = Some(ver.to_owned());
    }
    if let Some(b) = v.get("gitBranch").and_then(Value::as_str) {
        s.git_branch = Some(b.to_owned());
    }
}

/// A `system` record: compression, slash and @ commands, notifications and the session's
/// bookkeeping records (`ChatRecord.subtype` of Qwen's chat recording service).
fn system(v: &Value, id: String, ts: Option<String>, line: &InputLine, out: &mut Vec<Event>) {
    let n = line.number;
    let payload = v.get("systemPayload").cloned().unwrap_or(Value::Null);
    let mut push = |kind| out.push(Event::at(n, kind));
    let subtype = str_of(v, "subtype");
    match subtype {
        "chat_compression" => push(EventKind::notice(SystemNotice::Compact {
            trigger: None,
            pre_tokens: payload
                .pointer("/info/originalTokenCount")
                .and_then(Value::as_u64),
            post_tokens: payload
                .pointer("/info/newTokenCount")
                .and_then(Value::as_u64),
            metadata: payload.get("info").cloned().unwrap_or(Value::Null),
        })),
        "mid_turn_user_message" | "realtime_message" => {
            let text =
                opt_string(&payload, "displayText").unwrap_or_else(|| texts(parts_of(v), false));
            push(EventKind::user_text(id, TurnOrigin::UserInput, text, ts));
        }
        "notification" | "background_task_completed" | "cron" => {
            let text =
                opt_string(&payload, "displayText").unwrap_or_else(|| texts(parts_of(v), false));
            push(EventKind::user_text(id, TurnOrigin::Notification, text, ts));
        }
        "slash_command" | "at_command" => {
            let text = ["rawCommand", "userText", "message"]
                .iter()
                .find_map(|k| payload.get(*k).and_then(Value::as_str))
                .unwrap_or(subtype)
                .to_owned();
            push(EventKind::user_text(
                id,
                TurnOrigin::Synthetic {
                    reason: SyntheticReason::SlashCommand,
                },
                text,
                ts,
            ));
        }
        "rewind" => push(fields::info(
            "rewind",
            Level::Info,
            format!(
                "the conversation was rewound ({} history items dropped)",
                payload
                    .get("truncatedCount")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
            ),
            payload,
        )),
        "turn_result" => push(fields::info(
            "turn_result",
            Level::Info,
            "turn result".into(),
            payload,
        )),
        // Session bookkeeping: titles, telemetry, snapshots, the model and approval mode to
        // restore, sub-agent launch records and goals.
        "session_notes"
        | "ui_telemetry"
        | "attribution_snapshot"
        | "custom_title"
        | "parent_session"
        | "session_source"
        | "session_execution_engine"
        | "omni_recall"
        | "session_model"
        | "session_approval_mode"
        | "agent_bootstrap"
        | "agent_launch_prompt"
        | "agent_retry"
        | "agent_session_ready"
        | "file_history_snapshot"
        | "user_text_elements"
        | "session_artifact_event"
        | "session_artifact_snapshot"
        | "session_sources_snapshot"
        | "branch_checkpoint"
        | "goal_state"
        | "goal_runtime"
        | "goal_turn_end"
        | "managed_session_header_v1"
        | "managed_session_event_v1"
        | "managed_session_commit_v1" => {
            push(EventKind::absorbed(format!("system/{subtype}")));
        }
        other => push_debug(out, line, &format!("unknown chat system subtype {other:?}")),
    }
}

fn parts_of(v: &Value) -> &[Value] {
    v.pointer("/message/parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The text parts of a message (`thought` parts only when `thoughts` is set), joined.
fn texts(parts: &[Value], thoughts: bool) -> String {
    parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool).unwrap_or(false) == thoughts)
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("")
}

/// One part of a model message: text, a thought, or a function call. `None` for a part that
/// carries nothing to show (an empty text, a bare thought signature).
fn model_part(p: &Value, message_id: &str) -> Option<Part> {
    if let Some(fc) = p.get("functionCall") {
        let name = str_of(fc, "name").to_owned();
        let id = fc
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("{message_id}:{name}"), str::to_owned);
        let input = fc.get("args").cloned().unwrap_or_else(|| json!({}));
        let caller = if name.starts_with("mcp__") {
            Caller::Mcp
        } else {
            Caller::Model
        };
        return Some(Part::tool_call(ToolCall::new(
            id,
            name.clone(),
            crate::input::tool_kind::classify(
                &name,
                caller,
                None,
                &input,
                super::tool_names::known,
            ),
            caller,
            input,
        )));
    }
    let text = p.get("text").and_then(Value::as_str)?;
    if text.is_empty() {
        return None;
    }
    if p.get("thought").and_then(Value::as_bool) == Some(true) {
        Some(Part::Reasoning {
            text: text.to_owned(),
            redacted: false,
            signature: None,
        })
    } else {
        Some(Part::text(text.to_owned()))
    }
}

/// Gemini-style usage (`promptTokenCount` includes the cached tokens; the model's
/// `inputTokens` excludes them, as Anthropic's do).
fn usage(u: &Value) -> Option<Usage> {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cachedContentTokenCount");
    let usage = Usage {
        input_tokens: n("promptTokenCount").saturating_sub(cached),
        output_tokens: n("candidatesTokenCount") + n("thoughtsTokenCount"),
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
    };
    (usage != Usage::default()).then_some(usage)
}

/// True for a Qwen saved-chat record: the `uuid`/`sessionId` of a chat row with a Gemini-style
/// `message.parts`, or a `type` only Qwen's recorder writes (`tool_result`), or a `system`
/// record with a `systemPayload`. Checked before Claude's saved-session rule, which would
/// accept the same keys.
pub(crate) fn is_chat_record(o: &serde_json::Map<String, Value>) -> bool {
    if !(o.contains_key("uuid") && o.contains_key("sessionId")) {
        return false;
    }
    o.get("message")
        .and_then(|m| m.get("parts"))
        .is_some_and(Value::is_array)
        || o.get("type").and_then(Value::as_str) == Some("tool_result")
        || o.contains_key("systemPayload")
}
