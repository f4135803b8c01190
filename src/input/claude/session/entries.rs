//! Every saved-session entry kind that is not a user or assistant message, and what it becomes.
//!
//! Each kind maps to exactly one of: a notice, a session field (the title), or a counted
//! `absorbed` event naming it (not part of the conversation). The table is in
//! `docs/input-claude-session.md`; the lists below are its source. A kind not named here is still
//! kept: an unknown attachment or system row becomes an `info` notice with its payload, an unknown
//! entry type outside the chain a `debug` record.

use serde_json::Value;

use super::facts::Facts;
use crate::input::fields;
use crate::model::event::EventKind;
use crate::model::session::{HookStatus, Level, SystemNotice};

/// Entries outside the chain that are book-keeping for the CLI (wire spec §7.2), absorbed.
const BOOKKEEPING: &[&str] = &[
    "progress",
    "file-history-snapshot",
    "file-history-delta",
    "last-prompt",
    "continued-in",
    "resume-head-vouch",
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "api-request-resumed",
    "ended-by-model",
    "tag",
    "relocated",
    "agent-name",
    "agent-color",
    "agent-setting",
    "pr-link",
    "mode",
    "permission-mode",
    "repl-mode",
    "isolation-latch",
    "session-owner",
    "hybrid-organization",
    "dev-mods",
    "atis-latch",
    "tools-used",
    "worktree-state",
    "observer-ref",
    "derived-from",
    "bridge-session",
    "history-suppression",
    "attribution-snapshot",
    "artifact-autoreact-ledger",
    "content-replacement",
    "data-flow-records",
    "data-flow-incomplete",
    "fork-context-ref",
    "frame-link",
    "artifact-comment-monitor",
    "memory-mode",
    "host-row",
];

/// Attachments that only feed the model its context (the system prompt snapshot, environment,
/// tool and skill listings, reminders). The stream never shows them; neither do we.
const CONTEXT_ATTACHMENTS: &[&str] = &[
    "prompt_snapshot",
    "environment",
    "model",
    "date",
    "session_context",
    "remote_session_change",
    "total_tokens_reminder",
    "deferred_tools_delta",
    "deferred_tools_record",
    "agent_listing_delta",
    "skill_listing",
    "command_permissions",
    "mcp_instructions_delta",
    "critical_system_reminder",
    "todo_reminder",
    "task_reminder",
    "token_usage",
    "output_style",
    "plan_mode",
    "plan_mode_reentry",
    "plan_mode_exit",
    "auto_mode",
];

/// Entry types only a saved session has (the stream-json `type`s never collide with these).
pub(crate) fn is_session_only_type(ty: &str) -> bool {
    BOOKKEEPING.contains(&ty)
        || matches!(
            ty,
            "attachment"
                | "summary"
                | "custom-title"
                | "ai-title"
                | "cost-state"
                | "queue-operation"
        )
}

/// What an entry outside the chain becomes, decided from a few of its string fields (pass 1
/// decides it from the row's head, pass 2 from its `Value`, by the same rules).
#[derive(Debug)]
pub(crate) enum Outside<'v> {
    /// Book-keeping or a title record: an `absorbed` event with this name.
    Absorbed(String),
    /// `cost-state`: an `info` notice with the cost.
    Cost,
    /// Input typed while the agent worked and taken back out of the queue: an `info` notice.
    Unqueued { op: &'v str, content: &'v str },
    /// Input typed while the agent worked (see `queued`): the person's prompt unless a later row
    /// carries it; content that is a JSON document is a notification the harness queued.
    Enqueued { content: &'v str },
}

/// Is this queued content a JSON document (a notification the harness queued, not typed text)?
pub(crate) fn is_json_document(content: &str) -> bool {
    let t = content.trim_start();
    (t.starts_with('{') || t.starts_with('[')) && serde_json::from_str::<Value>(content).is_ok()
}

/// An entry outside the chain, from `get` (its top-level string fields, as
/// `v.get(k).and_then(Value::as_str)` reads them) and whether it has a `uuid` key, after
/// recording any session fact it carries. `None` when the type is not one the spec lists (the
/// caller decides).
pub(crate) fn classify<'v>(
    ty: &str,
    get: impl Fn(&str) -> Option<&'v str>,
    has_uuid: bool,
    facts: &mut Facts,
) -> Option<Outside<'v>> {
    let s = |k: &str| get(k).filter(|s| !s.is_empty());
    let absorbed = |what: &str| Some(Outside::Absorbed(what.to_owned()));
    match ty {
        "custom-title" => {
            if let Some(t) = s("customTitle").or_else(|| s("title")) {
                facts.custom_title = Some(t.to_owned());
            }
            absorbed("custom-title (session title)")
        }
        "ai-title" => {
            if let Some(t) = s("aiTitle").or_else(|| s("title")) {
                facts.ai_title = Some(t.to_owned());
            }
            absorbed("ai-title (session title)")
        }
        "summary" => {
            if let Some(t) = s("summary") {
                facts.summary = Some(t.to_owned());
            }
            absorbed("summary (session title)")
        }
        "cost-state" => Some(Outside::Cost),
        "queue-operation" => {
            let op = s("operation").unwrap_or_default();
            match get("content") {
                Some(content) if matches!(op, "remove" | "popAll") => {
                    Some(Outside::Unqueued { op, content })
                }
                Some(content) if op == "enqueue" && !content.trim().is_empty() => {
                    Some(Outside::Enqueued { content })
                }
                _ => absorbed(&format!("queue-operation/{op}")),
            }
        }
        _ if BOOKKEEPING.contains(&ty) && !has_uuid => absorbed(ty),
        _ => None,
    }
}

/// An entry outside the chain, read again in pass 2: its event (the facts were gathered in pass
/// 1). `None` when the type is not one the spec lists.
pub(crate) fn outside_chain(ty: &str, v: &Value) -> Option<EventKind> {
    let get = |k: &str| v.get(k).and_then(Value::as_str);
    let kind = match classify(ty, get, v.get("uuid").is_some(), &mut Facts::default())? {
        Outside::Absorbed(what) => EventKind::Absorbed { what },
        Outside::Cost => {
            let cost = v.get("totalCostUSD").and_then(Value::as_f64);
            let text = match cost {
                Some(c) => format!("session cost so far: ${c:.4}"),
                None => "session cost".to_owned(),
            };
            info("cost-state", Level::Info, text, v)
        }
        Outside::Enqueued { content } => info(
            "queue-operation/notification",
            Level::Info,
            format!("queued notification: {content}"),
            v,
        ),
        Outside::Unqueued { op, content } => info(
            "queue-operation",
            Level::Info,
            format!("queued input {op}: {content}"),
            v,
        ),
    };
    Some(kind)
}

/// For an attachment row that only feeds the model context (its `attachment.type` is `ty`): what
/// to call it when absorbed.
pub(crate) fn absorbed_attachment(ty: &str) -> Option<String> {
    CONTEXT_ATTACHMENTS
        .contains(&ty)
        .then(|| format!("attachment/{ty}"))
}

/// A `system` row of the chain.
pub(crate) fn system(v: &Value) -> EventKind {
    let sub = v.get("subtype").and_then(Value::as_str).unwrap_or("system");
    let notice = EventKind::notice;
    match sub {
        "compact_boundary" => {
            let m = v
                .get("compactMetadata")
                .or_else(|| v.get("compact_metadata"))
                .cloned()
                .unwrap_or(Value::Null);
            let n = |camel: &str, snake: &str| {
                m.get(camel)
                    .or_else(|| m.get(snake))
                    .and_then(Value::as_u64)
            };
            notice(SystemNotice::Compact {
                trigger: m.get("trigger").and_then(Value::as_str).map(str::to_owned),
                pre_tokens: n("preTokens", "pre_tokens"),
                post_tokens: n("postTokens", "post_tokens"),
                metadata: m,
            })
        }
        "api_error" if v.get("retryAttempt").is_some() => {
            let e = v.get("error").unwrap_or(&Value::Null);
            notice(SystemNotice::ApiRetry {
                attempt: v.get("retryAttempt").and_then(Value::as_u64).unwrap_or(0),
                max: v.get("maxRetries").and_then(Value::as_u64).unwrap_or(0),
                delay_ms: v
                    .get("retryInMs")
                    .and_then(Value::as_f64)
                    .map_or(0, |d| d as u64),
                error_status: e.get("status").and_then(Value::as_u64),
                error: e
                    .get("formatted")
                    .or_else(|| e.get("message"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        }
        "stop_hook_summary" => {
            let count = v.get("hookCount").and_then(Value::as_u64).unwrap_or(0);
            let errors = fields::array(v, "hookErrors").len();
            let level = if errors > 0 {
                Level::Warning
            } else {
                Level::Trace
            };
            let text = format!("stop hooks: {count} ran, {errors} failed");
            info(sub, level, text, v)
        }
        // A local slash command and its output (2.1.x): the turn older CLIs' user messages give.
        "local_command" | "local_command_output" => {
            crate::input::anthropic::messages::local_command_turn(v)
        }
        "turn_duration" => {
            let ms = v.get("durationMs").and_then(Value::as_u64).unwrap_or(0);
            info(sub, Level::Trace, format!("turn took {ms} ms"), v)
        }
        _ => {
            let (level, text) = crate::input::anthropic::system::unknown_subtype(v);
            info(sub, level, text, v)
        }
    }
}

/// An attachment row that is shown (hooks, limits, structured output, anything not known to be
/// model context). `queued_command` is not here: it is a user message.
pub(crate) fn attachment(v: &Value) -> EventKind {
    let a = v.get("attachment").unwrap_or(&Value::Null);
    let ty = a.get("type").and_then(Value::as_str).unwrap_or_default();
    let s = |k: &str| a.get(k).and_then(Value::as_str).map(str::to_owned);
    if let Some(outcome) = ty.strip_prefix("hook_").or(ty.strip_prefix("async_hook_")) {
        let output = ["content", "stdout", "stderr"]
            .iter()
            .filter_map(|k| match a.get(*k) {
                Some(Value::String(s)) => Some(s.clone()),
                // `hook_additional_context` carries a list of strings.
                Some(Value::Array(items)) => Some(
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
                _ => None,
            })
            .find(|s| !s.is_empty());
        return EventKind::notice(SystemNotice::Hook {
            hook_id: None,
            hook_name: s("hookName").unwrap_or_default(),
            event: s("hookEvent").unwrap_or_default(),
            status: HookStatus::Response,
            output,
            exit_code: a.get("exitCode").and_then(Value::as_i64),
            outcome: Some(outcome.to_owned()),
        });
    }
    match ty {
        "max_turns_reached" => {
            let max = a.get("maxTurns").and_then(Value::as_u64).unwrap_or(0);
            info(
                "max_turns_reached",
                Level::Warning,
                format!("maximum number of turns reached ({max})"),
                a,
            )
        }
        "structured_output" => info("structured_output", Level::Info, String::new(), a),
        _ => {
            let text = a
                .get("content")
                .or_else(|| a.get("text"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            info(&format!("attachment/{ty}"), Level::Trace, text, a)
        }
    }
}

/// An `info` notice keeping the entry's payload, without the fields every row repeats.
fn info(source: &str, level: Level, text: String, v: &Value) -> EventKind {
    let mut data = v.clone();
    if let Some(o) = data.as_object_mut() {
        for k in [
            "type",
            "subtype",
            "uuid",
            "parentUuid",
            "logicalParentUuid",
            "isSidechain",
            "sessionId",
            "cwd",
            "version",
            "gitBranch",
            "userType",
            "entrypoint",
            "slug",
        ] {
            o.shift_remove(k);
        }
        // A string `content` is the notice's text already; anything else stays in the payload.
        if o.get("content").is_some_and(Value::is_string) {
            o.shift_remove("content");
        }
    }
    crate::input::fields::info(source, level, text, data)
}
