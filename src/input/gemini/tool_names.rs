//! Gemini CLI's tool names → what each tool does ([`ToolKind`]), for the stream-json and
//! saved-chat adapters. Names not listed go to the shared fallback
//! (`input::tool_kind::classify`).

use serde_json::Value;

use crate::input::tool_kind::{self as k, other_by};
use crate::model::tool_kind::ToolKind;

/// The kind of a Gemini CLI tool call, when the name is one of Gemini CLI's tools.
pub(crate) fn known(name: &str, input: &Value) -> Option<ToolKind> {
    match name {
        "run_shell_command" => k::shell(input),
        "read_file" => k::read(input),
        "write_file" => k::write(input),
        "replace" => k::edit(input),
        "glob" | "search_file_content" | "grep" => k::search(input),
        "write_todos" => k::todo(input),
        "web_fetch" => k::web_fetch(input),
        "google_web_search" => k::web_search(input),
        "list_directory" => Some(other_by(input, &["path", "dir_path"])),
        _ => None,
    }
}

/// What a Gemini call does, from its name, who runs it and its input.
pub(crate) fn kind_of(call: &crate::model::transcript::ToolCall) -> ToolKind {
    k::classify(
        &call.name,
        call.caller,
        call.mcp_server.as_deref(),
        &call.input,
        known,
    )
}
