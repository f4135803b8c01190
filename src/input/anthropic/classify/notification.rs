//! `<task-notification>` (and the cloud preamble): a background task's notice, rewritten to
//! its summary (§4 row 4's one machinery kind that is shown).

use serde_json::{Map, Value, json};

use super::tags::{strip_tags_loosely, tag_text};
use super::{Classified, NOTIFICATION_PREAMBLE};
use crate::model::transcript::TurnOrigin;

/// `<task-notification>`: rewritten to its summary, kept visible as a notification turn. Its fields
/// (`machinery`) let the message reader make it the task end of the call it names instead, when
/// that call is in the input (`ClaudeMessages::task_end`).
pub(super) fn task_notification(t: &str) -> Classified {
    let mut m = Map::new();
    for (tag, key) in [
        ("task-id", "taskId"),
        ("tool-use-id", "toolUseId"),
        ("task-type", "taskType"),
        ("output-file", "outputFile"),
        ("status", "status"),
        ("summary", "summary"),
        ("result", "result"),
        ("note", "note"),
        ("event", "event"),
    ] {
        if let Some(v) = tag_text(t, tag) {
            m.insert(key.into(), json!(v));
        }
    }
    if let Some(usage) = tag_text(t, "usage") {
        let mut u = Map::new();
        for (tag, key) in [
            ("subagent_tokens", "totalTokens"),
            ("tool_uses", "toolUses"),
            ("duration_ms", "durationMs"),
        ] {
            if let Some(n) = tag_text(&usage, tag).and_then(|s| s.trim().parse::<u64>().ok()) {
                u.insert(key.into(), json!(n));
            }
        }
        m.insert("usage".into(), Value::Object(u));
    }
    let summary = m.get("summary").and_then(Value::as_str).map(str::to_owned);
    let status = m.get("status").and_then(Value::as_str).map(str::to_owned);
    let text = match (summary, status) {
        (Some(s), Some(st)) if !s.to_lowercase().contains(&st.to_lowercase()) => {
            format!("{s} ({st})")
        }
        (Some(s), _) => s,
        (None, _) => strip_tags_loosely(t.trim_start_matches(NOTIFICATION_PREAMBLE).trim()),
    };
    Classified {
        origin: TurnOrigin::Notification,
        text,
        machinery: m,
    }
}
