//! What a user row's tool results carry beyond the message: a persisted output's full text, a
//! permission system's refusal.

use crate::input::claude::session::chain::key;
use crate::input::claude::session::head::PERSISTED;
use crate::model::event::EventKind;
use serde_json::Value;
use std::path::{Component, Path};

use super::{Emitter, blocks};

impl Emitter {
    /// A tool output too large for the session file is there as a preview wrapped in
    /// `<persisted-output>` naming the file that holds it all (`…/tool-results/<name>`). When
    /// that file is beside the session, its text replaces the preview.
    pub(super) fn persisted_output(&self, v: &mut Value) {
        if self.tool_results.is_empty() {
            return;
        }
        let mut previews = Vec::new();
        let Some(blocks) = v
            .pointer_mut("/message/content")
            .and_then(Value::as_array_mut)
        else {
            return;
        };
        for b in blocks {
            if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let texts: Vec<&str> = match b.get("content") {
                Some(Value::String(s)) => vec![s],
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|i| i.get("text").and_then(Value::as_str))
                    .collect(),
                _ => continue,
            };
            // Most outputs are no preview, which their first text that is not blank tells before
            // any copy (the texts are joined by newlines, and the tag holds none).
            let first = texts.iter().find(|t| !t.trim_start().is_empty());
            if !first.is_some_and(|t| t.trim_start().starts_with(PERSISTED)) {
                continue;
            }
            let preview = texts.join("\n");
            let Some(name) = persisted_name(&preview) else {
                continue;
            };
            let full = self
                .tool_results
                .iter()
                .find_map(|d| std::fs::read(d.join(name)).ok());
            if let Some(bytes) = full {
                b["content"] = Value::String(String::from_utf8_lossy(&bytes).into_owned());
                previews.push(preview);
            }
        }
        // The previews stay readable beside the output (in the call's sidecar).
        if let Some(r) = v.get_mut("toolUseResult").and_then(Value::as_object_mut) {
            for p in previews {
                r.insert("persistedPreview".into(), Value::String(p));
            }
        }
    }

    /// A tool result the permission system refused (`permissionDecision.decision: "reject"`):
    /// the stream's `permission_denied`, so the call gets `denied` as it does there.
    pub(super) fn denial(&self, v: &Value) -> Option<EventKind> {
        let rejected = v
            .pointer("/permissionDecision/decision")
            .and_then(Value::as_str)
            == Some("reject")
            || v.get("toolDenialKind").is_some_and(|k| !k.is_null());
        if !rejected {
            return None;
        }
        let block =
            blocks(v).find(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))?;
        let id = block.get("tool_use_id").and_then(Value::as_str)?.to_owned();
        let message = match block.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        Some(EventKind::ToolDenied {
            tool_name: self
                .tool_of
                .get(&key(&id))
                .map(|&t| self.tool_names[t as usize].clone())
                .unwrap_or_default(),
            tool_call_id: id,
            message,
        })
    }
}

/// The file a `<persisted-output>` preview names, relative to a `tool-results/` directory; only a
/// plain relative path (no `..`, nothing absolute) is accepted.
pub(super) fn persisted_name(preview: &str) -> Option<&Path> {
    if !preview.trim_start().starts_with(PERSISTED) {
        return None;
    }
    let at = preview.find("tool-results/")? + "tool-results/".len();
    let name = preview[at..]
        .split(|c: char| c.is_whitespace() || c == '<')
        .next()?;
    let name = Path::new(name.trim_end_matches(['.', ',', ')']));
    let plain = name.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && name.components().next().is_some()).then_some(name)
}
