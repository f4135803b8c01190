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
//! Tool calls, sub-agents and plans are `qwen::tools`; permissions are `qwen::permissions`; the
//! published type tables are `qwen::wire`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::input::fields::{info, opt_string, str_of};
use crate::input::qwen::permissions::Request;
use crate::input::qwen::tools::CallRecord;
use crate::model::event::{Event, EventKind, Thread};
use crate::model::session::{Level, SystemNotice};
use crate::model::transcript::{Part, Role, SyntheticReason, Turn, TurnMeta, TurnOrigin, Usage};

/// Where the events of one daemon envelope go, and what the envelope said about itself.
pub(crate) struct Emit<'a> {
    /// The input line of the envelope (its first `data:` line).
    pub(crate) line: u64,
    /// The envelope's `id` (absent on synthetic frames).
    pub(crate) event_id: Option<u64>,
    /// When the daemon stamped it (`_meta.serverTimestamp`), as RFC 3339 UTC.
    pub(crate) timestamp: Option<String>,
    /// Where the events go.
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
    /// The part's position in its message (for live deltas).
    index: u64,
    line: u64,
    timestamp: Option<String>,
    source: Option<String>,
}

/// Per thread: the open assistant message and the chunks not yet emitted.
#[derive(Debug, Default)]
pub(super) struct ThreadState {
    /// The message taking parts now (`msg-<eventId>`), if any.
    pub(super) message: Option<String>,
    /// Parts the open message has so far.
    parts: u64,
    /// The message a tool result closed, whose usage may still follow.
    pub(super) closed_by_result: Option<String>,
    gathered: Option<Gathered>,
}

/// The conversation state of one daemon session.
#[derive(Debug, Default)]
pub(crate) struct Conversation {
    /// Per thread (main, or a sub-agent's): its open message and gathered chunks.
    pub(super) threads: HashMap<Thread, ThreadState>,
    /// Every tool call seen, by id.
    pub(super) calls: HashMap<String, CallRecord>,
    /// Call ids in the order they appeared (cancellation walks them in order).
    pub(super) order: Vec<String>,
    /// Permission requests not resolved yet, by request id.
    pub(super) requests: HashMap<String, Request>,
    /// Output of the user's own shell command (`POST /shell`), until its result.
    pub(super) user_shell: Option<(String, String)>,
    /// The prompt was cancelled (`prompt_cancelled`, with its reason): calls still running end
    /// as cancelled at the turn's end, unless the daemon's own update ends them first (with
    /// the partial output, the signal and its message).
    pub(super) cancelled: Option<String>,
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

    /// The input ended: whatever is still gathered is written (the user's shell output too).
    pub(crate) fn finish(&mut self, e: &mut Emit<'_>) {
        self.flush_shell_output(e);
        self.close_all(e);
        if let Some(reason) = self.cancelled.take() {
            self.cancel_open_calls(&reason, e);
        }
        if self
            .user_shell
            .as_ref()
            .is_some_and(|(o, r)| !o.is_empty() || !r.is_empty())
        {
            self.user_shell_result(&Value::Null, e);
        }
    }

    /// `turn_complete`: the prompt's turn is over.
    pub(crate) fn turn_complete(&mut self, data: &Value, e: &mut Emit<'_>) {
        self.close_all(e);
        let stop = str_of(data, "stopReason");
        let cancelled = stop == "cancelled" || data.get("promptCancelled") == Some(&json!(true));
        if let Some(reason) = self.cancelled.take() {
            self.cancel_open_calls(&reason, e);
        } else if cancelled {
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
        // Running calls wait for the daemon's own last update (or the turn's end).
        self.cancelled = Some(reason.to_owned());
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
        let timestamp = e.timestamp.clone();
        let st = self.threads.entry(thread.clone()).or_default();
        let index = st.parts;
        let g = st.gathered.get_or_insert_with(|| Gathered {
            kind,
            text: String::new(),
            extra: Vec::new(),
            id,
            index,
            line,
            timestamp,
            source,
        });
        match str_of(content, "type") {
            "text" | "" => {
                let text = str_of(content, "text");
                g.text.push_str(text);
                // Display only, for a live view: the gathered part is what the fold keeps.
                let (message_id, index) = (g.id.clone(), g.index);
                match kind {
                    ChunkKind::User => {}
                    ChunkKind::Assistant => e.push(EventKind::TextDelta {
                        thread,
                        message_id,
                        index,
                        text: text.to_owned(),
                    }),
                    ChunkKind::Thought => e.push(EventKind::ReasoningDelta {
                        thread,
                        message_id,
                        index,
                        text: text.to_owned(),
                    }),
                }
            }
            _ => g.extra.push(content_part(content)),
        }
    }

    /// Emits one finished part of the thread's open message (opened if need be).
    pub(super) fn block(&mut self, thread: &Thread, part: Part, e: &mut Emit<'_>) {
        let message_id = self.message_id(thread, e);
        if let Some(st) = self.threads.get_mut(thread) {
            st.parts += 1;
        }
        e.push(EventKind::AssistantBlock {
            thread: thread.clone(),
            message_id,
            part,
            meta: TurnMeta::default(),
            timestamp: e.timestamp.clone(),
        });
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

    /// The open message of a thread, opened now if there is none.
    pub(super) fn message_id(&mut self, thread: &Thread, e: &Emit<'_>) -> String {
        let st = self.threads.entry(thread.clone()).or_default();
        if st.message.is_none() {
            st.parts = 0;
            st.closed_by_result = None;
        }
        st.message.get_or_insert_with(|| e.name("msg")).clone()
    }

    /// Emits the thread's gathered chunks as one part (or one user turn).
    pub(super) fn flush(&mut self, thread: &Thread, e: &mut Emit<'_>) {
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
                        timestamp: g.timestamp,
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
                if let Some(st) = self.threads.get_mut(thread) {
                    st.parts += parts.len() as u64;
                }
                for part in parts {
                    e.push(EventKind::AssistantBlock {
                        thread: thread.clone(),
                        message_id: g.id.clone(),
                        part,
                        meta: TurnMeta::default(),
                        timestamp: g.timestamp.clone(),
                    });
                }
            }
        }
        e.line = line;
    }

    /// Ends the thread's open message: gathered chunks out, usage attached.
    pub(super) fn end_message(&mut self, thread: &Thread, usage: Option<Usage>, e: &mut Emit<'_>) {
        self.flush(thread, e);
        let Some(st) = self.threads.get_mut(thread) else {
            return;
        };
        // A response whose tool ran before its end marker: the usage still belongs to it.
        let Some(message_id) = st.message.take().or_else(|| {
            usage
                .is_some()
                .then(|| st.closed_by_result.take())
                .flatten()
        }) else {
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
                timestamp: e.timestamp.clone(),
            }),
            source_tool_call_id: None,
        });
    }
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
            filename: opt_string(c, "name"),
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

/// A text part with no citations.
pub(super) fn text_part(text: String) -> Part {
    Part::Text {
        text,
        citations: Vec::new(),
    }
}

/// The sub-agent thread an ACP payload belongs to (`_meta.parentToolCallId`).
pub(super) fn parent_of(upd: &Value) -> Thread {
    upd.pointer("/_meta/parentToolCallId")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Milliseconds since the Unix epoch → RFC 3339 UTC (`2026-11-30T08:15:59.643Z`).
pub(crate) fn iso_millis(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil-from-days, for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_millis_known_instants() {
        assert_eq!(iso_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso_millis(1_796_026_559_643), "2026-11-30T08:15:59.643Z");
    }
}
