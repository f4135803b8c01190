//! Claude Code's tool names → what each tool does ([`ToolKind`]).
//!
//! Used by the stream-json and saved-session adapters (both read the same tool_use blocks).
//! A known tool whose input lacks what its kind needs is an `other` call, so nothing is made up;
//! a name not listed here goes to the shared fallback (`input::tool_kind::classify`).

use serde_json::Value;

use crate::input::tool_kind::{self as k, first_of, other_by};
use crate::model::tool_kind::ToolKind;

/// The kind of a Claude Code tool call, when the name is one of Claude Code's tools.
pub(crate) fn known(name: &str, input: &Value) -> Option<ToolKind> {
    let or_other =
        |kind: Option<ToolKind>, keys: &[&str]| kind.or_else(|| Some(other_by(input, keys)));
    match name {
        "Bash" => or_other(k::shell(input), &["command", "bash_id"]),
        "BashOutput" => Some(other_by(input, &["command", "bash_id"])),
        "Read" => or_other(
            k::str_field(input, "file_path").and_then(|_| k::read(input)),
            &[],
        ),
        "Write" => or_other(k::write(input), &["file_path"]),
        "Edit" => or_other(k::edit(input), &["file_path"]),
        "MultiEdit" => or_other(k::multi_edit(input), &["file_path"]),
        "NotebookEdit" | "NotebookRead" => Some(other_by(input, &["notebook_path"])),
        "Glob" | "Grep" => or_other(k::search(input), &[]),
        "LS" => Some(other_by(input, &["path"])),
        "WebFetch" => or_other(k::web_fetch(input), &[]),
        "WebSearch" => or_other(k::web_search(input), &[]),
        "ToolSearch" => Some(other_by(input, &["query"])),
        "Agent" | "Task" => Some(k::subagent(input)),
        "Skill" => Some(ToolKind::Skill {
            skill: first_of(input, &["skill", "command"]).unwrap_or_default(),
        }),
        "TaskCreate" => Some(other_by(input, &["subject", "description"])),
        "TaskUpdate" | "TaskGet" | "TaskOutput" | "TaskStop" => {
            Some(other_by(input, &["taskId", "task_id"]))
        }
        "KillShell" | "KillBash" => Some(other_by(input, &["shell_id"])),
        "SlashCommand" => Some(other_by(input, &["command"])),
        "TodoWrite" => or_other(k::todo(input), &[]),
        "ExitPlanMode" => or_other(k::plan(input), &[]),
        "StructuredOutput" => Some(ToolKind::StructuredOutput),
        _ => None,
    }
}
