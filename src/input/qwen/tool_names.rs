//! Qwen Code's tool names → what each tool does ([`ToolKind`]), for the daemon and stream-json
//! adapters. Names not listed go to the shared fallback (`input::tool_kind::classify`).

use serde_json::Value;

use crate::input::tool_kind::{self as k, other_by};
use crate::model::tool_kind::ToolKind;

/// The kind of a Qwen Code tool call, when the name is one of Qwen Code's tools.
pub(crate) fn known(name: &str, input: &Value) -> Option<ToolKind> {
    match name {
        "run_shell_command" => k::shell(input),
        "read_file" => k::read(input),
        "write_file" => k::write(input),
        "edit" => k::edit(input),
        "glob" | "grep_search" => k::search(input),
        "todo_write" => k::todo(input),
        "agent" | "Agent" | "task" | "Task" => Some(k::subagent(input)),
        "web_fetch" => k::web_fetch(input),
        "web_search" => k::web_search(input),
        "exit_plan_mode" => k::plan(input),
        "list_directory" => Some(other_by(input, &["path"])),
        _ => None,
    }
}
