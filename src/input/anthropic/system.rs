//! Claude's `system` messages, `init` and `result` → session snapshots and notices (shared with
//! Qwen's stream-json, which sends the same kinds).

use std::borrow::Cow;

use serde_json::Value;

use crate::input::anthropic::cost::CostLedger;
use crate::input::anthropic::row::{self, UsageFields};
use crate::input::anthropic::typed_system::{
    Entry, InitLine, ResultLine, TaskLine, names_of, owned, text,
};
use crate::input::fields::{self, opt_string, str_of, string};
use crate::model::event::EventKind;
use crate::model::session::{HookStatus, Level, McpServer, Plugin, SessionSnapshot, SystemNotice};
use crate::model::transcript::SubagentStatus;
use scribe_json::lenient::Obj;

pub(crate) fn info(v: &Value, source: &str, level: Level, text: String) -> EventKind {
    let mut data = v.clone();
    if let Some(o) = data.as_object_mut() {
        for k in ["type", "subtype", "uuid", "session_id"] {
            o.shift_remove(k);
        }
    }
    fields::info(source, level, text, data)
}

/// What a `system` message of a subtype nobody here knows says, for the generic `info` notice
/// that keeps it (§14's ingest: everything else is a notice by its subtype): its level (the
/// row's `level` when it names one, else `info`) and its words (a string `content`, or an
/// error's `formatted` text; empty when it has none, and the views then name the subtype).
/// Shared by saved sessions and stream-json, so that both keep such a line alike.
pub(crate) fn unknown_subtype(v: &Value) -> (Level, String) {
    let level = match v.get("level").and_then(Value::as_str) {
        Some("error") => Level::Error,
        Some("warning") => Level::Warning,
        _ => Level::Info,
    };
    let text = match v.get("content") {
        Some(Value::String(s)) => s.clone(),
        _ => v
            .pointer("/error/formatted")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    };
    (level, text)
}

/// Each item of a list field, read by `f` (none when the field is missing or not a list; an
/// item that is not an object has no fields). Exists for the `init` line's lists of objects
/// (MCP servers, plugins).
fn entries<T>(list: &Option<Vec<Obj<Entry<'_>>>>, f: impl Fn(&Entry<'_>) -> T) -> Vec<T> {
    list.iter().flatten().map(|e| f(&e.0)).collect()
}

/// `system/init` → the session inventory.
pub(crate) fn session_snapshot(v: &Value, source: &str) -> SessionSnapshot {
    snapshot_of(&row::from_value(v), source)
}

/// [`session_snapshot`] of the init line's fields, read from its text or from a `Value`.
pub(crate) fn snapshot_of(init: &InitLine<'_>, source: &str) -> SessionSnapshot {
    SessionSnapshot {
        id: text(&init.uuid),
        session_id: text(&init.session_id),
        agent: "claude-code".into(),
        source: source.to_owned(),
        version: owned(&init.version),
        model: owned(&init.model),
        cwd: owned(&init.cwd),
        permission_mode: owned(&init.permission_mode),
        tools: names_of(&init.tools),
        mcp_servers: entries(&init.mcp_servers, |m| McpServer {
            name: text(&m.name),
            status: text(&m.status),
        }),
        plugins: entries(&init.plugins, |p| Plugin {
            name: text(&p.name),
            path: text(&p.path),
        }),
        skills: names_of(&init.skills),
        slash_commands: names_of(&init.slash_commands),
        agents: names_of(&init.agents),
        git_branch: None,
        title: None,
        updated_at: owned(&init.timestamp),
        fast_mode_state: fast_mode_of(init.fast_mode_state.as_ref()),
        output_style: owned(&init.output_style),
        api_key_source: owned(&init.api_key_source),
    }
}

/// A `system` message. A subtype nobody here knows is an `info` notice whose `source` is that
/// subtype, its payload kept whole (shown in every view, not dropped); false, with nothing
/// emitted, when the message has no subtype.
pub(crate) fn system(v: &Value, emit: &mut impl FnMut(EventKind)) -> bool {
    let sub = str_of(v, "subtype");
    let notice = |n: SystemNotice| EventKind::notice(n);
    match sub {
        "init" => emit(EventKind::session(session_snapshot(v, "claude-stream"))),
        "status" => emit(notice(SystemNotice::Status {
            status: opt_string(v, "status"),
            detail: v.get("compact_result").and_then(Value::as_str).map(|r| {
                match v.get("compact_error").and_then(Value::as_str) {
                    Some(e) => format!("compact {r}: {e}"),
                    None => format!("compact {r}"),
                }
            }),
        })),
        // §14 spells the states `idle | running | requires-action`; the wire says `requires_action`.
        // A state outside the three takes the hatch of a kind nobody knows: an `info` notice that
        // names it as it came, shown in every view, never passed off as one of §14's states.
        "session_state_changed" => emit(match str_of(v, "state") {
            state @ ("idle" | "running") => notice(SystemNotice::SessionState {
                state: state.to_owned(),
            }),
            "requires_action" => notice(SystemNotice::SessionState {
                state: "requires-action".to_owned(),
            }),
            other => info(v, sub, Level::Info, format!("session state: {other}")),
        }),
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
            // `output`, stdout and stderr, each text once: a stream the hook wrote is never
            // dropped because another field is present.
            let text = |k: &str| v.get(k).and_then(Value::as_str);
            let output = crate::model::hooks::join_streams(
                ["output", "stdout", "stderr"].into_iter().filter_map(text),
            );
            emit(notice(SystemNotice::Hook {
                hook_id: opt_string(v, "hook_id"),
                hook_name: string(v, "hook_name"),
                event: string(v, "hook_event"),
                status,
                output,
                exit_code: v.get("exit_code").and_then(Value::as_i64),
                outcome: opt_string(v, "outcome"),
            }))
        }
        "task_started" | "task_progress" => emit(task_event(v)),
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
        "task_notification" => emit(task_event(v)),
        "permission_denied" => emit(EventKind::ToolDenied {
            tool_call_id: string(v, "tool_use_id"),
            tool_name: string(v, "tool_name"),
            message: string(v, "message"),
        }),
        "files_persisted" => emit(notice(SystemNotice::FilesPersisted {
            files: fields::array(v, "files")
                .iter()
                .map(|f| string(f, "filename"))
                .collect(),
            failed: fields::array(v, "failed").to_vec(),
            processed_at: opt_string(v, "processed_at"),
        })),
        "elicitation_complete" => emit(notice(SystemNotice::Elicitation {
            server: string(v, "mcp_server_name"),
            id: string(v, "elicitation_id"),
        })),
        "local_command_output" | "local_command" => {
            emit(crate::input::anthropic::messages::local_command_turn(v))
        }
        _ => match info_line(v, sub) {
            Some(kind) => emit(kind),
            // No subtype at all says nothing to name: the caller keeps it as a debug record.
            None if sub.is_empty() => return false,
            None => {
                let (level, text) = unknown_subtype(v);
                emit(info(v, sub, level, text));
            }
        },
    }
    true
}

/// A `system` subtype that is a line of information for the reader (a refusal, a plugin's
/// install, a count of memories recalled …) as its notice; `None` when the subtype is unknown.
fn info_line(v: &Value, sub: &str) -> Option<EventKind> {
    let count = |k: &str| fields::array(v, k).len();
    Some(match sub {
        "model_refusal_fallback" | "model_refusal_no_fallback" => {
            info(v, sub, Level::Warning, string(v, "content"))
        }
        "informational" => {
            let level = match str_of(v, "level") {
                "warning" => Level::Warning,
                _ => Level::Info,
            };
            info(v, sub, level, string(v, "content"))
        }
        "notification" => info(v, sub, Level::Info, string(v, "text")),
        "plugin_install" => {
            let text = format!("plugin {} {}", str_of(v, "name"), str_of(v, "status"));
            let level = if v.get("error").is_some() {
                Level::Error
            } else {
                Level::Trace
            };
            info(v, sub, level, text)
        }
        "worker_shutting_down" => info(v, sub, Level::Warning, string(v, "reason")),
        "mirror_error" => info(v, sub, Level::Error, string(v, "error")),
        "session_writes_lost" => {
            let text = format!("session writes lost ({})", str_of(v, "error_code"));
            info(v, sub, Level::Error, text)
        }
        "memory_recall" => {
            let text = format!("recalled {} memories", count("memories"));
            info(v, sub, Level::Info, text)
        }
        "thinking_tokens" => {
            let n = v
                .get("estimated_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            info(v, sub, Level::Trace, format!("thinking: ~{n} tokens"))
        }
        "background_tasks_changed" => {
            let text = format!("{} background tasks", count("tasks"));
            info(v, sub, Level::Trace, text)
        }
        "commands_changed" => {
            let text = format!("{} commands available", count("commands"));
            info(v, sub, Level::Trace, text)
        }
        "control_request_progress" => {
            let text = format!("request {}", str_of(v, "status"));
            info(v, sub, Level::Trace, text)
        }
        _ => return None,
    })
}

/// A task line's event, read the typed way (`typed_system`) from the `Value`: one mapping for
/// both.
fn task_event(v: &Value) -> EventKind {
    row::from_value::<TaskLine<'_>>(v)
        .event()
        .expect("called for the three task subtypes only")
}

/// `result`: the end of a turn, with cost, counts and duration. `costs` tells the run's own cost
/// from the running total (`input::anthropic::cost`).
pub(crate) fn result_notice(v: &Value, costs: &mut CostLedger) -> SystemNotice {
    result_notice_of(row::from_value(v), costs)
}

/// [`result_notice`] of a typed `result` line (the stream's common way, without a `Value`).
pub(crate) fn result_notice_of(r: ResultLine<'_>, costs: &mut CostLedger) -> SystemNotice {
    let sub = r.subtype.as_deref().unwrap_or_default().to_owned();
    // A result that says neither (claude-code-action's trimmed results) is not a failure.
    let is_error = r.is_error.unwrap_or(!sub.is_empty() && sub != "success");
    let cost = r.total_cost_usd;
    let owned = |s: Option<Cow<'_, str>>| s.map(Cow::into_owned);
    SystemNotice::Result {
        subtype: sub,
        is_error,
        cost,
        run_cost: costs.run_cost(r.since_last_result.as_ref(), cost),
        turns: r.num_turns,
        duration_ms: r.duration_ms,
        duration_api_ms: r.duration_api_ms,
        usage: r.usage.as_ref().map(UsageFields::usage),
        text: owned(r.result),
        stop_reason: owned(r.stop_reason),
        terminal_reason: owned(r.terminal_reason),
        errors: r
            .errors
            .map(|a| {
                a.into_iter()
                    .filter_map(|e| match e {
                        Value::String(s) => Some(s),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        permission_denials: r.permission_denials.unwrap_or_default(),
        structured_output: r.structured_output.filter(|s| !s.is_null()),
        model_usage: r
            .model_usage
            .filter(|m| m.as_object().is_some_and(|o| !o.is_empty()))
            .map(Box::new),
        fast_mode_state: fast_mode_of(r.fast_mode_state.as_ref()),
    }
}

/// `fast_mode_state` of an `init` or `result` line, given the field (a string on the wire;
/// anything else is kept as its JSON text rather than dropped).
fn fast_mode_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}
