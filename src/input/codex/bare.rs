//! Rollouts written before the envelopes (Codex CLI of summer 2025, before `session_meta` /
//! `response_item` lines): the first line is the session meta itself (`{id, timestamp,
//! instructions?, git?}`), then each line is a bare Responses-API item (`{type: "message" |
//! "function_call" | …}`) or a resume-state snapshot (`{record_type: "state", …}`), as the
//! rollout recorder of `codex-rs/core/src/rollout.rs` wrote them then. Each line is read as the
//! enveloped line it stands for, so one decoder serves every version.

use serde_json::{Map, Value, json};

/// What a line of a rollout without envelopes is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bare {
    /// The first line: the session meta, not wrapped.
    Meta,
    /// `{record_type: "state", previous_response_id?}`: what a resume needs, nothing shown.
    State,
    /// A Responses-API item, not wrapped.
    Item,
    /// A line with its envelope (or no rollout line at all).
    Enveloped,
}

/// The keys the session meta of a rollout without envelopes may have.
const META_KEYS: &[&str] = &["id", "timestamp", "instructions", "git"];

/// The Responses-API content part types a bare `message` item holds (never Anthropic's `text`).
const PART_TYPES: &[&str] = &["input_text", "output_text", "input_image", "refusal"];

/// What one JSON object of a rollout without envelopes is.
pub(super) fn kind(o: &Map<String, Value>) -> Bare {
    if o.contains_key("payload") {
        return Bare::Enveloped;
    }
    let text = |k: &str| o.get(k).is_some_and(Value::is_string);
    if !o.contains_key("type") && text("id") && text("timestamp") {
        return if o.keys().all(|k| META_KEYS.contains(&k.as_str())) {
            Bare::Meta
        } else {
            Bare::Enveloped
        };
    }
    if o.get("record_type").and_then(Value::as_str) == Some("state") {
        return Bare::State;
    }
    let item = match o.get("type").and_then(Value::as_str) {
        Some("message") => {
            text("role")
                && o.get("content")
                    .and_then(Value::as_array)
                    .is_some_and(|parts| {
                        parts.iter().all(|p| {
                            p.get("type")
                                .and_then(Value::as_str)
                                .is_some_and(|t| PART_TYPES.contains(&t))
                        })
                    })
        }
        Some("function_call") => text("call_id") && text("name"),
        Some("function_call_output") => text("call_id") && o.contains_key("output"),
        Some("local_shell_call") => o.get("action").is_some_and(Value::is_object),
        Some("reasoning") => o.get("summary").is_some_and(Value::is_array),
        _ => false,
    };
    if item { Bare::Item } else { Bare::Enveloped }
}

/// True for a line of a rollout without envelopes (detection: what tells it apart at the first
/// lines).
pub(crate) fn is_bare_rollout_line(o: &Map<String, Value>) -> bool {
    kind(o) != Bare::Enveloped
}

/// The line as the enveloped line it stands for (`session_meta`, `response_item`, or
/// `rollout_state` for a state snapshot), and what it was.
pub(super) fn enveloped(v: Value) -> (Value, Bare) {
    let Some(o) = v.as_object() else {
        return (v, Bare::Enveloped);
    };
    let bare = kind(o);
    let ty = match bare {
        Bare::Meta => "session_meta",
        Bare::State => "rollout_state",
        Bare::Item => "response_item",
        Bare::Enveloped => return (v, bare),
    };
    let timestamp = o.get("timestamp").cloned().unwrap_or(Value::Null);
    (
        json!({ "type": ty, "timestamp": timestamp, "payload": v }),
        bare,
    )
}
