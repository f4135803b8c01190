//! What a tool call is, for the page: the card's shape, whether it opens, its colour on the
//! timeline and its group in the header's "tool calls by kind".
//!
//! Exists so that the HTML renderer asks one question in one place. The answer comes from
//! `render::summary::canonical_name` (the name guess shared by every renderer) until the
//! adapters set a kind on each call.

use crate::model::transcript::ToolCall;
use crate::render::summary::canonical_name;

/// The kinds of tool call the page tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Runs a shell command.
    Shell,
    /// Reads a file.
    Read,
    /// Edits a file in place.
    Edit,
    /// Writes a whole file.
    Write,
    /// Searches or lists files (glob, grep, ls).
    Search,
    /// Fetches or searches the web.
    Web,
    /// Updates the todo list.
    Todo,
    /// Presents a plan.
    Plan,
    /// Runs a sub-agent.
    Agent,
    /// Anything else (MCP tools included).
    Other,
}

impl Kind {
    /// The word in the header's counts and on the timeline.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Shell => "shell",
            Kind::Read => "read",
            Kind::Edit => "edit",
            Kind::Write => "write",
            Kind::Search => "search",
            Kind::Web => "web",
            Kind::Todo => "todo",
            Kind::Plan => "plan",
            Kind::Agent => "sub-agent",
            Kind::Other => "other",
        }
    }

    /// Every kind, in the header's order.
    pub(crate) const ALL: [Kind; 10] = [
        Kind::Shell,
        Kind::Read,
        Kind::Edit,
        Kind::Write,
        Kind::Search,
        Kind::Web,
        Kind::Todo,
        Kind::Plan,
        Kind::Agent,
        Kind::Other,
    ];
}

/// The kind of a call.
pub(crate) fn kind_of(call: &ToolCall) -> Kind {
    if call.subagent.is_some() {
        return Kind::Agent;
    }
    match canonical_name(call) {
        "Bash" | "BashOutput" | "KillShell" | "KillBash" => Kind::Shell,
        "Read" | "NotebookRead" => Kind::Read,
        "Edit" | "MultiEdit" | "NotebookEdit" => Kind::Edit,
        "Write" => Kind::Write,
        "Glob" | "Grep" | "LS" => Kind::Search,
        "WebFetch" | "WebSearch" => Kind::Web,
        "TodoWrite" => Kind::Todo,
        "ExitPlanMode" => Kind::Plan,
        "Agent" | "Task" => Kind::Agent,
        _ => Kind::Other,
    }
}
