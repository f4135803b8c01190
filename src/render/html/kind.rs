//! What a tool call is, for the page: the card's shape, whether it opens, its colour on the
//! timeline and its group in the header's "tool calls by kind".
//!
//! Exists so that the HTML renderer asks one question in one place; the answer comes from the
//! `ToolKind` the adapter set on the call (`model::tool_kind`), grouped as the page shows it.

use crate::model::tool_kind::ToolKind;
use crate::model::transcript::ToolCall;

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

/// The kind of a call, from the kind its adapter set.
pub(crate) fn kind_of(call: &ToolCall) -> Kind {
    if call.subagent.is_some() {
        return Kind::Agent;
    }
    match &call.kind {
        ToolKind::Shell { .. } => Kind::Shell,
        ToolKind::Read { .. } => Kind::Read,
        ToolKind::Edit { .. } | ToolKind::MultiEdit { .. } | ToolKind::Patch { .. } => Kind::Edit,
        ToolKind::Write { .. } => Kind::Write,
        ToolKind::Search { .. } => Kind::Search,
        ToolKind::WebFetch { .. } | ToolKind::WebSearch { .. } => Kind::Web,
        ToolKind::Todo { .. } => Kind::Todo,
        ToolKind::Plan { .. } => Kind::Plan,
        ToolKind::Subagent { .. } => Kind::Agent,
        ToolKind::Skill { .. }
        | ToolKind::Mcp { .. }
        | ToolKind::StructuredOutput
        | ToolKind::Other { .. } => Kind::Other,
    }
}
