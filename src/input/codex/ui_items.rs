//! The UI items of current rollouts (`event_msg/item_completed`: PascalCase types, their own
//! field names) decoded into the shared `codex::items::Item`, so that a rollout folds like its
//! `exec --json` stream.

use serde_json::{Value, json};

use crate::input::codex::history;
use crate::input::codex::items::{Item, Phase};
use crate::input::codex::tools::{self, Change};
use crate::input::fields::str_of;

/// Joins the `text` of a list of content parts (a content that is not a list has none).
pub(crate) fn texts(v: Option<&Value>) -> String {
    history::content_text(v.filter(|v| v.is_array()))
}

/// A rollout UI item (PascalCase type, its own field names) → the shared item; `None` for an
/// item type this adapter does not know.
pub(crate) fn rollout_item(it: &Value, phase: Phase) -> Option<Item> {
    Some(match str_of(it, "type") {
        "UserMessage" => Item::User {
            text: texts(it.get("content")),
        },
        "AgentMessage" => Item::Agent {
            text: texts(it.get("content")),
        },
        "Reasoning" => {
            let mut text = texts(it.get("summary_text"));
            if text.is_empty() {
                text = texts(it.get("raw_content"));
            }
            Item::Reasoning { text }
        }
        "CommandExecution" => {
            let command = match it.get("command") {
                Some(Value::Array(argv)) => tools::shell_argv(argv),
                Some(Value::String(s)) => tools::shell_command(s),
                _ => String::new(),
            };
            let exit_code = it.get("exit_code").and_then(Value::as_i64);
            let status = str_of(it, "status");
            let sidecar = json!({
                "command": it.get("command").cloned().unwrap_or(Value::Null),
                "cwd": it.get("cwd").cloned().unwrap_or(Value::Null),
                "exitCode": exit_code,
                "status": status,
                "duration": it.get("duration").cloned().unwrap_or(Value::Null),
            });
            Item::Tool(Box::new(tools::shell_item(
                command,
                completed_status(status, phase),
                str_of(it, "aggregated_output"),
                exit_code,
                sidecar,
            )))
        }
        "FileChange" => {
            let changes: Vec<Change> = it
                .get("changes")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(path, c)| Change {
                    path: path.clone(),
                    kind: str_of(c, "type").to_owned(),
                    detail: ["unified_diff", "content", "diff"].iter().find_map(|k| {
                        c.get(*k)
                            .and_then(Value::as_str)
                            .map(|s| (*k, s.to_owned()))
                    }),
                })
                .collect();
            let out = tools::std_streams(it);
            Item::Tool(Box::new(tools::patch_item(
                &changes,
                completed_status(str_of(it, "status"), phase),
                (!out.is_empty()).then_some(out),
            )))
        }
        "McpToolCall" => Item::Tool(Box::new(tools::mcp_item_of(
            it,
            completed_status(str_of(it, "status"), phase),
            "structuredContent",
        ))),
        "WebSearch" => Item::Tool(Box::new(tools::web_search_item(
            str_of(it, "query"),
            it.get("action").cloned(),
            None,
            phase == Phase::Completed,
        ))),
        "ImageGeneration" => Item::Tool(Box::new(crate::input::codex::images::image_item(it))),
        _ => return None,
    })
}

/// A completed item with no status word is a completed one.
fn completed_status(status: &str, phase: Phase) -> &str {
    if status.is_empty() && phase == Phase::Completed {
        "completed"
    } else {
        status
    }
}
