//! Gemini CLI's tool names → what each tool does ([`ToolKind`]), for the stream-json and
//! saved-chat adapters. Names not listed go to the shared fallback
//! (`input::tool_kind::classify`).

use serde_json::Value;

use crate::input::tool_kind::{self as k, other_by};
use crate::model::tool_kind::ToolKind;
use crate::model::transcript::{Caller, ToolCall};

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

/// A Gemini CLI call as both adapters read it: an MCP call when its server is known, its kind
/// from its name, who runs it and its input.
pub(crate) fn call(id: String, name: String, input: Value, mcp_server: Option<String>) -> ToolCall {
    let caller = if mcp_server.is_some() {
        Caller::Mcp
    } else {
        Caller::Model
    };
    let kind = k::classify(&name, caller, mcp_server.as_deref(), &input, known);
    let mut call = ToolCall::new(id, name, kind, caller, input);
    call.mcp_server = mcp_server;
    call
}
