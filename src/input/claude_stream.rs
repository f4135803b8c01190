//! Claude Code stream-json (the Agent SDK wire format) → normalized events.
//!
//! Every message kind in the wire spec maps to an event; keep-alives and the control protocol are
//! counted as absorbed; an unknown `type` or `system` subtype becomes a `debug` event that keeps the
//! raw line. Every object is read as open: unknown fields are ignored. User envelopes are split
//! into tool results and §4-classified text here, at the adapter boundary.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::classify::{self, Flags};
use super::claude_blocks::{self, Block};
use super::fields::{self, names, opt_string, parent_tool_use_id, str_of, string};
use super::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::event::{Event, EventKind, Thread};
use crate::model::session::{HookStatus, Level, McpServer, Plugin, SessionSnapshot, SystemNotice};
use crate::model::transcript::{Part, Role, SubagentStatus, SubagentUsage, Turn, TurnMeta, Usage};

/// Decoder state: which message each thread is streaming, and which sub-agent threads have had
/// their first user message.
#[derive(Debug, Default)]
pub(crate) struct ClaudeStream {
    streaming: HashMap<Thread, String>,
    /// The message decoder, shared with Qwen's stream-json (same messages, same blocks).
    pub(crate) core: ClaudeMessages,
}

impl Adapter for ClaudeStream {
    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if line.text.trim().is_empty() {
            return;
        }
        let Some(v) = parse_json_line(line, out, report) else {
            return;
        };
        let n = line.number;
        let mut emit = |kind: EventKind| out.push(Event { line: n, kind });
        let ty = str_of(&v, "type");
        match ty {
            "assistant" => self.core.assistant(&v, &Wire::STREAM, &mut emit),
            "user" => self.core.user(&v, &Wire::STREAM, &mut emit),
            "system" => {
                if !system(&v, &mut emit) {
                    push_debug(
                        out,
                        line,
                        &format!("unknown system subtype {:?}", str_of(&v, "subtype")),
                    );
                }
            }
            "result" => emit(EventKind::Notice {
                notice: Box::new(result_notice(&v)),
            }),
            "stream_event" => self.stream_event(&v, &mut emit),
            "tool_progress" => emit(EventKind::ToolProgress {
                tool_call_id: string(&v, "tool_use_id"),
                tool_name: string(&v, "tool_name"),
                elapsed_seconds: v
                    .get("elapsed_time_seconds")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0),
            }),
            "tool_use_summary" => emit(info(
                &v,
                "tool_use_summary",
                Level::Info,
                string(&v, "summary"),
            )),
            "auth_status" => {
                let text = v
                    .get("output")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("\n")
                    })
                    .unwrap_or_default();
                let level = if v.get("error").is_some_and(|e| !e.is_null()) {
                    Level::Error
                } else {
                    Level::Info
                };
                emit(info(&v, "auth_status", level, text))
            }
            "rate_limit_event" => {
                let i = v.get("rate_limit_info").cloned().unwrap_or(Value::Null);
                emit(EventKind::Notice {
                    notice: Box::new(SystemNotice::RateLimit {
                        status: string(&i, "status"),
                        resets_at: i.get("resetsAt").cloned(),
                        rate_limit_type: opt_string(&i, "rateLimitType"),
                        info: i,
                    }),
                })
            }
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
            "keep_alive" | "control_request" | "control_response" | "control_cancel_request" => {
                emit(EventKind::Absorbed {
                    what: ty.to_owned(),
                })
            }
            _ => push_debug(out, line, &format!("unknown message type {ty:?}")),
        }
    }
}

impl ClaudeStream {
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
                emit(EventKind::Absorbed {
                    what: "stream_event/message_start".into(),
                });
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
                    emit(EventKind::Absorbed {
                        what: "stream_event/content_block_start".into(),
                    });
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
                    other => emit(EventKind::Absorbed {
                        what: format!("stream_event/{other}"),
                    }),
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
                emit(EventKind::Absorbed {
                    what: "stream_event/message_stop".into(),
                });
            }
            other => emit(EventKind::Absorbed {
                what: format!("stream_event/{other}"),
            }),
        }
    }
}

/// Field names that differ between the live wire and a saved session.
pub(crate) struct Wire {
    pub(crate) synthetic: &'static [&'static str],
    pub(crate) tool_use_result: &'static str,
}

impl Wire {
    /// The live stream-json spelling.
    pub(crate) const STREAM: Wire = Wire {
        synthetic: &["isSynthetic"],
        tool_use_result: "tool_use_result",
    };
    /// The saved-session spelling.
    pub(crate) const SESSION: Wire = Wire {
        synthetic: &["isMeta", "isVisibleInTranscriptOnly"],
        tool_use_result: "toolUseResult",
    };
}

/// Assistant and user messages, shared by the stream and the saved-session adapters.
#[derive(Debug, Default)]
pub(crate) struct ClaudeMessages {
    subagent_threads_seen: HashSet<String>,
    user_count: u64,
}

impl ClaudeMessages {
    /// An assistant message: one event per content block.
    pub(crate) fn assistant(&mut self, v: &Value, _wire: &Wire, emit: &mut impl FnMut(EventKind)) {
        let thread = parent_tool_use_id(v);
        let msg = v.get("message").unwrap_or(&Value::Null);
        let message_id = msg
            .get("id")
            .and_then(Value::as_str)
            .or_else(|| v.get("uuid").and_then(Value::as_str))
            .unwrap_or_default()
            .to_owned();
        let model = opt_string(msg, "model");
        let api_error = v
            .get("is_api_error_message")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            || v.get("isApiErrorMessage")
                .and_then(Value::as_bool)
                .unwrap_or(false)
            || model.as_deref() == Some("<synthetic>") && v.get("error").is_some();
        let error = if api_error {
            Some(
                v.get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("api_error")
                    .to_owned(),
            )
        } else {
            opt_string(v, "error")
        };
        let meta = TurnMeta {
            model,
            stop_reason: opt_string(msg, "stop_reason"),
            usage: msg.get("usage").and_then(Usage::from_json),
            error,
            aborted: v.get("aborted").and_then(Value::as_bool).unwrap_or(false),
            machinery: Map::new(),
        };
        let timestamp = opt_string(v, "timestamp");
        let blocks = content_blocks(msg);
        for b in blocks.iter() {
            let part = match claude_blocks::block(b) {
                Block::Text(text) => Part::Text {
                    text,
                    citations: Vec::new(),
                },
                Block::Part(p) => p,
                Block::Result {
                    tool_call_id,
                    is_error,
                    output,
                    error_text,
                } => {
                    emit(EventKind::ToolResult {
                        thread: thread.clone(),
                        tool_call_id,
                        is_error,
                        output,
                        error_text,
                        sidecar: None,
                    });
                    continue;
                }
            };
            emit(EventKind::AssistantBlock {
                thread: thread.clone(),
                message_id: message_id.clone(),
                part,
                meta: meta.clone(),
                timestamp: timestamp.clone(),
            });
        }
    }

    /// A user message: tool results first (row 2), then whatever else it carried, classified.
    pub(crate) fn user(&mut self, v: &Value, wire: &Wire, emit: &mut impl FnMut(EventKind)) {
        let thread = parent_tool_use_id(v);
        let msg = v.get("message").unwrap_or(&Value::Null);
        let blocks = content_blocks(msg);
        let mut sidecar = v
            .get(wire.tool_use_result)
            .filter(|s| !s.is_null())
            .cloned();
        let mut texts: Vec<String> = Vec::new();
        let mut parts: Vec<Part> = Vec::new();
        let mut first_result: Option<String> = None;
        for b in blocks.iter() {
            match claude_blocks::block(b) {
                Block::Text(t) => texts.push(t),
                Block::Part(p) => parts.push(p),
                Block::Result {
                    tool_call_id,
                    mut is_error,
                    output,
                    mut error_text,
                } => {
                    let sc = sidecar.take();
                    if let Some(Value::String(s)) = &sc {
                        if s.starts_with("Error:") {
                            is_error = true;
                            if error_text.is_none() {
                                error_text = Some(s.trim_start_matches("Error:").trim().to_owned());
                            }
                        }
                    }
                    // An Agent call's result ends its sub-agent thread.
                    self.subagent_threads_seen.remove(&tool_call_id);
                    first_result.get_or_insert_with(|| tool_call_id.clone());
                    emit(EventKind::ToolResult {
                        thread: thread.clone(),
                        tool_call_id,
                        is_error,
                        output,
                        error_text,
                        sidecar: sc,
                    });
                }
            }
        }
        if texts.is_empty() && parts.is_empty() {
            return;
        }
        let flags = Flags {
            replay: v.get("isReplay").and_then(Value::as_bool).unwrap_or(false),
            synthetic: wire
                .synthetic
                .iter()
                .any(|k| v.get(*k).and_then(Value::as_bool).unwrap_or(false)),
            compact_summary: v
                .get("isCompactSummary")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            subagent_first: match &thread {
                Some(p) => self.subagent_threads_seen.insert(p.clone()),
                None => false,
            },
        };
        let joined = texts.join("\n");
        let c = classify::classify(&joined, flags, thread.as_deref());
        let mut turn_parts = Vec::with_capacity(parts.len() + 1);
        if !c.text.is_empty() || parts.is_empty() {
            turn_parts.push(Part::Text {
                text: c.text,
                citations: Vec::new(),
            });
        }
        turn_parts.extend(parts);
        let origin = match (&first_result, c.origin) {
            (Some(id), crate::model::transcript::TurnOrigin::UserInput) => {
                crate::model::transcript::TurnOrigin::ToolReturn {
                    tool_call_id: id.clone(),
                }
            }
            (_, o) => o,
        };
        self.user_count += 1;
        let id = opt_string(v, "uuid").unwrap_or_else(|| format!("u{}", self.user_count));
        let turn = Turn {
            id,
            role: Role::User,
            origin,
            parent_task_id: thread.clone(),
            parts: turn_parts,
            metadata: TurnMeta {
                machinery: c.machinery,
                ..TurnMeta::default()
            },
            timestamp: opt_string(v, "timestamp"),
        };
        let source_tool_call_id = v
            .get("sourceToolUseID")
            .or_else(|| v.get("source_tool_use_id"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        emit(EventKind::UserTurn {
            turn: Box::new(turn),
            source_tool_call_id,
        });
    }
}

/// A message's content as blocks, borrowed (a plain string content becomes one text block).
fn content_blocks(msg: &Value) -> std::borrow::Cow<'_, [Value]> {
    match msg.get("content") {
        Some(Value::Array(a)) => std::borrow::Cow::Borrowed(a.as_slice()),
        Some(Value::String(s)) => std::borrow::Cow::Owned(vec![json!({"type": "text", "text": s})]),
        _ => std::borrow::Cow::Owned(Vec::new()),
    }
}

fn info(v: &Value, source: &str, level: Level, text: String) -> EventKind {
    let mut data = v.clone();
    if let Some(o) = data.as_object_mut() {
        for k in ["type", "subtype", "uuid", "session_id"] {
            o.shift_remove(k);
        }
    }
    fields::info(source, level, text, data)
}

/// Each item of an array field, read by `f` (none when the field is missing or not an array).
/// Exists for the `init` line's lists of objects (MCP servers, plugins).
fn each<T>(v: &Value, key: &str, f: impl Fn(&Value) -> T) -> Vec<T> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().map(f).collect())
        .unwrap_or_default()
}

/// `system/init` → the session inventory.
pub(crate) fn session_snapshot(v: &Value, source: &str) -> SessionSnapshot {
    SessionSnapshot {
        id: string(v, "uuid"),
        session_id: string(v, "session_id"),
        agent: "claude-code".into(),
        source: source.to_owned(),
        version: opt_string(v, "claude_code_version"),
        model: string(v, "model"),
        cwd: string(v, "cwd"),
        permission_mode: string(v, "permissionMode"),
        tools: names(v.get("tools")),
        mcp_servers: each(v, "mcp_servers", |m| McpServer {
            name: string(m, "name"),
            status: string(m, "status"),
        }),
        plugins: each(v, "plugins", |p| Plugin {
            name: string(p, "name"),
            path: string(p, "path"),
        }),
        skills: names(v.get("skills")),
        slash_commands: names(v.get("slash_commands")),
        agents: names(v.get("agents")),
        git_branch: None,
        title: None,
        updated_at: opt_string(v, "timestamp"),
    }
}

/// A `system` message; false when the subtype is unknown.
pub(crate) fn system(v: &Value, emit: &mut impl FnMut(EventKind)) -> bool {
    let sub = str_of(v, "subtype");
    let notice = |n: SystemNotice| EventKind::Notice {
        notice: Box::new(n),
    };
    match sub {
        "init" => emit(EventKind::SessionInit {
            session: Box::new(session_snapshot(v, "claude-stream")),
        }),
        "status" => emit(notice(SystemNotice::Status {
            status: opt_string(v, "status"),
            detail: v.get("compact_result").and_then(Value::as_str).map(|r| {
                match v.get("compact_error").and_then(Value::as_str) {
                    Some(e) => format!("compact {r}: {e}"),
                    None => format!("compact {r}"),
                }
            }),
        })),
        "session_state_changed" => emit(notice(SystemNotice::SessionState {
            state: string(v, "state"),
        })),
        "compact_boundary" => {
            let m = v.get("compact_metadata").cloned().unwrap_or(Value::Null);
            emit(notice(SystemNotice::Compact {
                trigger: opt_string(&m, "trigger"),
                pre_tokens: m.get("pre_tokens").and_then(Value::as_u64),
                post_tokens: m.get("post_tokens").and_then(Value::as_u64),
                metadata: m,
            }))
        }
        "api_retry" => emit(notice(SystemNotice::ApiRetry {
            attempt: v.get("attempt").and_then(Value::as_u64).unwrap_or(0),
            max: v.get("max_retries").and_then(Value::as_u64).unwrap_or(0),
            delay_ms: v.get("retry_delay_ms").and_then(Value::as_u64).unwrap_or(0),
            error_status: v.get("error_status").and_then(Value::as_u64),
            error: opt_string(v, "error"),
        })),
        "hook_started" | "hook_progress" | "hook_response" => {
            let status = match sub {
                "hook_started" => HookStatus::Started,
                "hook_progress" => HookStatus::Progress,
                _ => HookStatus::Response,
            };
            let output = ["output", "stdout", "stderr"]
                .iter()
                .filter_map(|k| v.get(*k).and_then(Value::as_str))
                .find(|s| !s.is_empty())
                .map(str::to_owned);
            emit(notice(SystemNotice::Hook {
                hook_name: string(v, "hook_name"),
                event: string(v, "hook_event"),
                status,
                output,
                exit_code: v.get("exit_code").and_then(Value::as_i64),
                outcome: opt_string(v, "outcome"),
            }))
        }
        "task_started" => emit(EventKind::SubtaskStarted {
            task_id: string(v, "task_id"),
            tool_call_id: opt_string(v, "tool_use_id"),
            description: string(v, "description"),
            subagent_type: opt_string(v, "subagent_type"),
            task_type: opt_string(v, "task_type"),
        }),
        "task_progress" => emit(EventKind::SubtaskProgress {
            task_id: string(v, "task_id"),
            tool_call_id: opt_string(v, "tool_use_id"),
            description: string(v, "description"),
            usage: v.get("usage").and_then(SubagentUsage::from_json),
        }),
        "task_updated" => {
            let p = v.get("patch").unwrap_or(&Value::Null);
            emit(EventKind::SubtaskUpdated {
                task_id: string(v, "task_id"),
                status: p
                    .get("status")
                    .and_then(Value::as_str)
                    .and_then(SubagentStatus::from_word),
                description: opt_string(p, "description"),
                error: opt_string(p, "error"),
            })
        }
        "task_notification" => emit(EventKind::SubtaskFinished {
            task_id: string(v, "task_id"),
            tool_call_id: opt_string(v, "tool_use_id"),
            status: SubagentStatus::from_word(str_of(v, "status"))
                .unwrap_or(SubagentStatus::Completed),
            summary: opt_string(v, "summary"),
            usage: v.get("usage").and_then(SubagentUsage::from_json),
        }),
        "permission_denied" => emit(EventKind::ToolDenied {
            tool_call_id: string(v, "tool_use_id"),
            tool_name: string(v, "tool_name"),
            message: string(v, "message"),
        }),
        "files_persisted" => emit(notice(SystemNotice::FilesPersisted {
            files: v
                .get("files")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|f| string(f, "filename")).collect())
                .unwrap_or_default(),
            failed: v
                .get("failed")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        })),
        "elicitation_complete" => emit(notice(SystemNotice::Elicitation {
            server: string(v, "mcp_server_name"),
            id: string(v, "elicitation_id"),
        })),
        "local_command_output" => emit(info(
            v,
            "local_command_output",
            Level::Info,
            string(v, "content"),
        )),
        "model_refusal_fallback" | "model_refusal_no_fallback" => {
            emit(info(v, sub, Level::Warning, string(v, "content")))
        }
        "informational" => {
            let level = match str_of(v, "level") {
                "warning" => Level::Warning,
                _ => Level::Info,
            };
            emit(info(v, sub, level, string(v, "content")))
        }
        "notification" => emit(info(v, sub, Level::Info, string(v, "text"))),
        "plugin_install" => {
            let text = format!("plugin {} {}", str_of(v, "name"), str_of(v, "status"));
            let level = if v.get("error").is_some() {
                Level::Error
            } else {
                Level::Trace
            };
            emit(info(v, sub, level, text))
        }
        "worker_shutting_down" => emit(info(v, sub, Level::Warning, string(v, "reason"))),
        "mirror_error" => emit(info(v, sub, Level::Error, string(v, "error"))),
        "session_writes_lost" => {
            let text = format!("session writes lost ({})", str_of(v, "error_code"));
            emit(info(v, sub, Level::Error, text))
        }
        "memory_recall" => {
            let n = v
                .get("memories")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            emit(info(v, sub, Level::Info, format!("recalled {n} memories")))
        }
        "thinking_tokens" => {
            let n = v
                .get("estimated_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            emit(info(v, sub, Level::Trace, format!("thinking: ~{n} tokens")))
        }
        "background_tasks_changed" => {
            let n = v.get("tasks").and_then(Value::as_array).map_or(0, Vec::len);
            emit(info(v, sub, Level::Trace, format!("{n} background tasks")))
        }
        "commands_changed" => {
            let n = v
                .get("commands")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            emit(info(
                v,
                sub,
                Level::Trace,
                format!("{n} commands available"),
            ))
        }
        "control_request_progress" => {
            let text = format!("request {}", str_of(v, "status"));
            emit(info(v, sub, Level::Trace, text))
        }
        _ => return false,
    }
    true
}

/// `result`: the end of a turn, with cost, counts and duration.
pub(crate) fn result_notice(v: &Value) -> SystemNotice {
    let sub = string(v, "subtype");
    let is_error = v
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(sub != "success");
    SystemNotice::Result {
        subtype: sub,
        is_error,
        cost: v.get("total_cost_usd").and_then(Value::as_f64),
        turns: v.get("num_turns").and_then(Value::as_u64),
        duration_ms: v.get("duration_ms").and_then(Value::as_u64),
        duration_api_ms: v.get("duration_api_ms").and_then(Value::as_u64),
        usage: v.get("usage").and_then(Usage::from_json),
        text: opt_string(v, "result"),
        stop_reason: opt_string(v, "stop_reason"),
        terminal_reason: opt_string(v, "terminal_reason"),
        errors: v
            .get("errors")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        permission_denials: v
            .get("permission_denials")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        structured_output: v.get("structured_output").filter(|s| !s.is_null()).cloned(),
    }
}
