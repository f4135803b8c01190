//! The daemon's published event vocabulary, as data: every known wire type with the fields its
//! payload must have, and the ones that become one `info` notice (with a level and the fields
//! worth naming). `qwen::daemon` reads these tables; a new published type is one row here.

use serde_json::Value;

use crate::input::fields::opt_string;
use crate::model::session::Level;

/// Workspace, auth and lifecycle events that become one `info` notice each: type, level, what
/// to call it, and the payload fields worth a mention in the text (the whole payload is kept).
pub(super) const NOTICES: &[(&str, Level, &str, &[&str])] = &[
    (
        "model_switch_failed",
        Level::Error,
        "model switch failed",
        &["requestedModelId", "error"],
    ),
    (
        "session_died",
        Level::Error,
        "session died",
        &["reason", "exitCode", "signalCode", "errorKind"],
    ),
    (
        "session_recording_degraded",
        Level::Error,
        "session recording degraded",
        &["reason"],
    ),
    ("artifact_changed", Level::Trace, "artifact changed", &[]),
    (
        "source_changed",
        Level::Trace,
        "source changed",
        &["revision"],
    ),
    (
        "pending_prompt_added",
        Level::Trace,
        "prompt queued",
        &["promptId", "text"],
    ),
    (
        "pending_prompt_started",
        Level::Trace,
        "queued prompt started",
        &["promptId", "text"],
    ),
    (
        "pending_prompt_completed",
        Level::Trace,
        "queued prompt done",
        &["promptId", "state"],
    ),
    (
        "client_evicted",
        Level::Error,
        "client evicted",
        &["reason", "droppedAfter"],
    ),
    (
        "slow_client_warning",
        Level::Warning,
        "slow client",
        &["queueSize", "maxQueued", "lastEventId"],
    ),
    (
        "stream_error",
        Level::Error,
        "stream error",
        &["error", "errorKind"],
    ),
    (
        "history_truncated",
        Level::Info,
        "history truncated",
        &[
            "reason",
            "truncatedEvents",
            "retainedEvents",
            "fullTranscriptAvailable",
        ],
    ),
    (
        "mcp_budget_warning",
        Level::Warning,
        "MCP budget warning",
        &["liveCount", "reservedCount", "budget", "mode"],
    ),
    (
        "mcp_child_refused_batch",
        Level::Warning,
        "MCP servers refused",
        &["refusedServers", "budget", "mode"],
    ),
    (
        "memory_changed",
        Level::Info,
        "memory changed",
        &["scope", "filePath", "source"],
    ),
    (
        "agent_changed",
        Level::Info,
        "agent changed",
        &["change", "name", "level"],
    ),
    (
        "auth_device_flow_started",
        Level::Info,
        "sign-in started",
        &["providerId", "expiresAt"],
    ),
    (
        "auth_device_flow_throttled",
        Level::Warning,
        "sign-in throttled",
        &["intervalMs"],
    ),
    (
        "auth_device_flow_authorized",
        Level::Info,
        "signed in",
        &["providerId", "accountAlias"],
    ),
    (
        "auth_device_flow_failed",
        Level::Error,
        "sign-in failed",
        &["errorKind", "hint"],
    ),
    (
        "auth_device_flow_cancelled",
        Level::Info,
        "sign-in cancelled",
        &[],
    ),
    (
        "tool_toggled",
        Level::Info,
        "tool toggled",
        &["toolName", "enabled"],
    ),
    (
        "settings_changed",
        Level::Info,
        "setting changed",
        &["key", "scope"],
    ),
    (
        "trust_change_requested",
        Level::Warning,
        "workspace trust change requested",
        &["workspaceCwd", "desiredState", "reason"],
    ),
    (
        "workspace_initialized",
        Level::Info,
        "workspace initialized",
        &["path", "action"],
    ),
    (
        "github_setup_completed",
        Level::Info,
        "GitHub setup completed",
        &["releaseTag", "readmeUrl"],
    ),
    (
        "mcp_server_restarted",
        Level::Info,
        "MCP server restarted",
        &["serverName", "durationMs"],
    ),
    (
        "mcp_server_restart_refused",
        Level::Warning,
        "MCP server restart refused",
        &["serverName", "reason"],
    ),
    (
        "mcp_server_changed",
        Level::Info,
        "MCP server changed",
        &["serverName", "action"],
    ),
    (
        "settings_reloaded",
        Level::Info,
        "settings reloaded",
        &["changedKeys"],
    ),
    (
        "mcp_server_added",
        Level::Info,
        "MCP server added",
        &["name", "transport", "toolCount"],
    ),
    (
        "mcp_server_removed",
        Level::Info,
        "MCP server removed",
        &["name"],
    ),
    (
        "extensions_changed",
        Level::Info,
        "extensions changed",
        &["refreshed", "failed", "name", "error"],
    ),
    (
        "permission_partial_vote",
        Level::Trace,
        "permission vote",
        &["requestId", "votesReceived", "votesNeeded"],
    ),
    (
        "permission_forbidden",
        Level::Warning,
        "permission vote refused",
        &["requestId", "clientId", "reason"],
    ),
    (
        "channel_delivery_result",
        Level::Trace,
        "channel delivery",
        &["deliveryId", "status", "error"],
    ),
    (
        "followup_suggestion",
        Level::Trace,
        "suggested follow-up",
        &["suggestion"],
    ),
    (
        "turn_error",
        Level::Error,
        "turn error",
        &["message", "code"],
    ),
    (
        "session_rewound",
        Level::Warning,
        "session rewound",
        &["promptId", "targetTurnIndex", "filesChanged"],
    ),
    (
        "session_branched",
        Level::Info,
        "session branched",
        &["newSessionId", "displayName"],
    ),
    (
        "git_branch_changed",
        Level::Trace,
        "git branch changed",
        &[],
    ),
    (
        "git_status_changed",
        Level::Trace,
        "git status changed",
        &[],
    ),
];

/// Every daemon event type in a published list (sdk 0.1.14's 58, the doc's and events.ts's
/// subsets included), with the fields it must have (present and not null), else the payload is
/// malformed and kept as `debug` (upstream's rule, checked by its `malformed-payload-redaction`
/// vector): the fields the spec's table does not mark optional and that carry the event's
/// meaning (`sessionId`, on the envelope's session anyway, is not required). Every type's `data`
/// must also be an object. A type outside this list is kept as `debug`.
pub(super) const REQUIRED: &[(&str, &[&str])] = &[
    ("session_update", &["update"]),
    ("permission_request", &["requestId"]),
    ("permission_resolved", &["requestId", "outcome"]),
    ("permission_already_resolved", &["requestId"]),
    ("model_switched", &["modelId"]),
    ("model_switch_failed", &["requestedModelId"]),
    ("session_died", &[]),
    ("session_closed", &[]),
    ("session_metadata_updated", &[]),
    ("session_recording_degraded", &[]),
    ("artifact_changed", &[]),
    ("source_changed", &[]),
    ("mid_turn_message_injected", &[]),
    ("pending_prompt_added", &["promptId"]),
    ("pending_prompt_started", &["promptId"]),
    ("pending_prompt_completed", &["promptId"]),
    ("client_evicted", &[]),
    ("slow_client_warning", &[]),
    ("stream_error", &[]),
    ("state_resync_required", &["lastDeliveredId"]),
    ("history_truncated", &[]),
    ("mcp_budget_warning", &["liveCount", "budget"]),
    ("mcp_child_refused_batch", &["refusedServers"]),
    ("memory_changed", &[]),
    ("agent_changed", &[]),
    ("auth_device_flow_started", &["deviceFlowId"]),
    ("auth_device_flow_throttled", &["deviceFlowId"]),
    ("auth_device_flow_authorized", &["deviceFlowId"]),
    ("auth_device_flow_failed", &["deviceFlowId"]),
    ("auth_device_flow_cancelled", &["deviceFlowId"]),
    ("approval_mode_changed", &["next"]),
    ("tool_toggled", &["toolName", "enabled"]),
    ("settings_changed", &["key"]),
    ("trust_change_requested", &[]),
    ("workspace_initialized", &[]),
    ("github_setup_completed", &[]),
    ("mcp_server_restarted", &["serverName"]),
    ("mcp_server_restart_refused", &["serverName"]),
    ("mcp_server_changed", &["serverName"]),
    ("settings_reloaded", &[]),
    ("mcp_server_added", &["name"]),
    ("mcp_server_removed", &["name"]),
    ("extensions_changed", &[]),
    ("permission_partial_vote", &["requestId"]),
    ("permission_forbidden", &["requestId"]),
    ("prompt_cancelled", &[]),
    ("replay_complete", &[]),
    ("followup_suggestion", &["suggestion"]),
    ("channel_delivery_result", &[]),
    ("user_shell_command", &["command"]),
    ("user_shell_result", &[]),
    ("turn_complete", &["stopReason"]),
    ("turn_error", &[]),
    ("session_rewound", &[]),
    ("session_branched", &[]),
    ("session_snapshot", &[]),
    ("git_branch_changed", &[]),
    ("git_status_changed", &[]),
    // In no published list; the live daemon 0.24.4 sends it when a background turn ends.
    ("background_notification_turn_complete", &[]),
];

/// True for a type in a published list (a row of [`REQUIRED`]).
pub(super) fn is_known(ty: &str) -> bool {
    REQUIRED.iter().any(|(t, _)| *t == ty)
}

/// Why a known type's payload is malformed (`data` not an object, a required field missing or
/// null, or a `turn_complete` whose `stopReason` is not a string); `None` when it is well-formed.
pub(super) fn malformed(ty: &str, data: &Value) -> Option<String> {
    let Some(o) = data.as_object() else {
        return Some(format!("malformed {ty} payload (data is not an object)"));
    };
    let fields = REQUIRED
        .iter()
        .find(|(t, _)| *t == ty)
        .map_or(&[][..], |(_, f)| f);
    let missing: Vec<&str> = fields
        .iter()
        .filter(|f| o.get(**f).is_none_or(Value::is_null))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "malformed {ty} payload (no {})",
            missing.join(", ")
        ));
    }
    // How a turn ended rests on `stopReason`'s words: one of another type says no outcome.
    (ty == "turn_complete" && !o["stopReason"].is_string())
        .then(|| format!("malformed {ty} payload (stopReason is not a string)"))
}

/// Why a `session_update` payload is malformed: a field its kind's meaning rests on is missing
/// or of the wrong type (ACP's `SessionUpdate`: a chunk's `content` is a content block, an
/// object with a string `type`, and a `text` block's `text` is a string; a tool call has a
/// string `toolCallId`, and its `content` and `locations`, when given, are arrays; a plan's
/// `entries` is an array of objects with a string `content` and `status`; Qwen's
/// `shell_output` has a string `output`). `None` when it is well-formed, not a
/// `session_update`, or of a kind this does not check. Such a payload is a `debug` record
/// keeping its line, never folded as an empty message, call or plan. A chunk flagged
/// `_meta.promptCancelled` means the flag, whatever its content.
pub(super) fn malformed_update(ty: &str, data: &Value) -> Option<String> {
    let upd = data.get("update").filter(|_| ty == "session_update")?;
    let kind = upd.get("sessionUpdate").and_then(Value::as_str)?;
    let is = |k: &str, want: fn(&Value) -> bool| upd.get(k).is_some_and(want);
    let given_not =
        |k: &str, want: fn(&Value) -> bool| upd.get(k).is_some_and(|v| !v.is_null() && !want(v));
    let why = match kind {
        "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk" => {
            let cancelled = upd.pointer("/_meta/promptCancelled") == Some(&Value::Bool(true));
            let content = upd.get("content").filter(|c| c.is_object());
            match content.map(|c| (c.get("type").and_then(Value::as_str), c.get("text"))) {
                _ if cancelled => None,
                None => Some("content is not a content block"),
                Some((None, _)) => Some("content has no type"),
                Some((Some("text"), t)) if !t.is_some_and(Value::is_string) => {
                    Some("text content without a string text")
                }
                Some(_) => None,
            }
        }
        "tool_call" | "tool_call_update" if !is("toolCallId", Value::is_string) => {
            Some("no toolCallId")
        }
        "tool_call" | "tool_call_update" if given_not("content", Value::is_array) => {
            Some("content is not an array")
        }
        "tool_call" | "tool_call_update" if given_not("locations", Value::is_array) => {
            Some("locations is not an array")
        }
        "plan" => match upd.get("entries").and_then(Value::as_array) {
            None => Some("entries is not an array"),
            Some(entries) if !entries.iter().all(plan_entry) => {
                Some("an entry without a string content and status")
            }
            Some(_) => None,
        },
        "shell_output" | "tool_output" if !is("output", Value::is_string) => {
            Some("output is not a string")
        }
        _ => None,
    }?;
    Some(format!("malformed session_update/{kind} payload ({why})"))
}

/// An ACP plan entry a plan can show: an object with a string `content` and `status`.
fn plan_entry(entry: &Value) -> bool {
    ["content", "status"]
        .iter()
        .all(|k| entry.get(*k).is_some_and(Value::is_string))
}

/// `label (field: value, …)` over the fields present.
pub(super) fn summary(label: &str, data: &Value, fields: &[&str]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .filter_map(|f| {
            let v = data.get(*f)?;
            let shown = match v {
                Value::Null => return None,
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_owned)
                            .or_else(|| opt_string(x, "name"))
                            .unwrap_or_else(|| x.to_string())
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.to_string(),
            };
            Some(format!("{f}: {shown}"))
        })
        .collect();
    if parts.is_empty() {
        label.to_owned()
    } else {
        format!("{label} ({})", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lists_present_fields() {
        let d = serde_json::json!({"serverName": "gh", "durationMs": 12, "x": 1});
        assert_eq!(
            summary(
                "MCP server restarted",
                &d,
                &["serverName", "durationMs", "missing"]
            ),
            "MCP server restarted (serverName: gh, durationMs: 12)"
        );
    }

    #[test]
    fn every_notice_and_required_type_is_known() {
        for (t, ..) in NOTICES {
            assert!(is_known(t), "{t}");
        }
        assert_eq!(REQUIRED.len(), 59);
    }

    #[test]
    fn every_type_rejects_a_payload_that_is_not_an_object() {
        for (t, _) in REQUIRED {
            assert!(malformed(t, &Value::Null).is_some(), "{t}");
            assert!(malformed(t, &serde_json::json!("x")).is_some(), "{t}");
        }
        assert_eq!(
            malformed("model_switched", &serde_json::json!({"modelId": null})).as_deref(),
            Some("malformed model_switched payload (no modelId)")
        );
        assert_eq!(
            malformed("model_switched", &serde_json::json!({"modelId": "q"})),
            None
        );
    }
}
