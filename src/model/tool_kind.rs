//! What a tool call does, said by the adapter that read it.
//!
//! Every agent names its tools its own way (Claude Code's `Bash`, Gemini's `run_shell_command`,
//! Codex's `shell`); the adapter knows what each of its tools does and says it here, with the
//! fields a reader needs (the command, the path, the old and new text, the checklist). Renderers
//! match on the kind, never on a tool name or on the shape of an input, so a new agent touches
//! only its own adapter. The call keeps its real name and whole input beside the kind.

use serde::{Deserialize, Serialize};

/// What a tool call does (`kind` of a tool call in the JSONL, `docs/schema.md`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub(crate) enum ToolKind {
    /// Runs a shell command.
    Shell {
        command: String,
        /// What the model said the command is for.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        description: Option<String>,
    },
    /// Reads a file.
    Read { path: String },
    /// Writes a whole file.
    Write { path: String, content: String },
    /// Replaces one piece of text in a file.
    Edit {
        path: String,
        old: String,
        new: String,
    },
    /// Replaces several pieces of text in one file, in order.
    MultiEdit { path: String, edits: Vec<TextEdit> },
    /// Applies a patch to one or more files.
    Patch { files: Vec<PatchFile> },
    /// Looks for files or text (glob, grep).
    Search {
        pattern: String,
        /// Where it looks, when the call says.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        path: Option<String>,
    },
    /// Fetches a web page.
    WebFetch { url: String },
    /// Searches the web.
    WebSearch { query: String },
    /// Replaces the agent's todo list or plan steps (the whole list, as it stands now).
    Todo { items: Vec<TodoItem> },
    /// Presents a plan (Markdown) for the user to approve.
    Plan { plan: String },
    /// Runs a sub-agent; its transcript is the call's `subagent`.
    Subagent { description: String },
    /// Loads a skill; its body is the call's `skill`.
    Skill { skill: String },
    /// Calls a tool of an MCP server.
    Mcp {
        server: String,
        /// The server's own name for the tool (the call's `name` may carry a prefix).
        tool: String,
        /// The input value that best says what the call is about, when one does.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        subject: Option<String>,
    },
    /// Hands the run's final answer back as structured data (the input is the answer).
    StructuredOutput,
    /// Anything else.
    Other {
        /// The input value that best says what the call is about, when one does.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        subject: Option<String>,
    },
}

/// One replacement of a multi-edit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct TextEdit {
    pub(crate) old: String,
    pub(crate) new: String,
}

/// One file a patch touches.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct PatchFile {
    pub(crate) path: String,
    /// `add`, `update` or `delete` (the agent's word).
    pub(crate) change: String,
}

/// One entry of a todo list or plan.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct TodoItem {
    pub(crate) status: TodoStatus,
    pub(crate) text: String,
}

/// Where a todo entry stands.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    /// Maps the agents' status words; anything unknown is still to do.
    pub(crate) fn from_word(s: &str) -> TodoStatus {
        match s {
            "completed" => TodoStatus::Completed,
            "in_progress" => TodoStatus::InProgress,
            _ => TodoStatus::Pending,
        }
    }
}

impl Default for ToolKind {
    fn default() -> ToolKind {
        ToolKind::Other { subject: None }
    }
}

/// What the harness reported about a finished call that a reader wants and the output text does
/// not say (`facts` of a tool call in the JSONL). The adapter reads it from its agent's own
/// result details (Claude Code's `toolUseResult`), so no renderer reads a vendor's result shape;
/// the details themselves stay whole in the call's `sidecar`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResultFacts {
    /// How many lines a file read returned (the output may carry fewer, or line numbers).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) lines_read: Option<u64>,
    /// The change an edit or write made, as the harness computed it (unified-diff hunks).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub(crate) hunks: Vec<DiffHunk>,
    /// How long the call ran, in milliseconds, as the harness timed it (Claude Code's
    /// `durationMs` or a sub-agent's `totalDurationMs`, Codex's command `duration`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) duration_ms: Option<u64>,
}

impl ResultFacts {
    /// Nothing reported: the field is left out of the output.
    pub(crate) fn is_empty(&self) -> bool {
        self == &ResultFacts::default()
    }
}

/// One hunk of a unified diff: where it starts and how long it is on either side, and its lines,
/// each beginning with `+` (added), `-` (removed) or a space (context), as the harness wrote them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiffHunk {
    pub(crate) old_start: u64,
    pub(crate) old_lines: u64,
    pub(crate) new_start: u64,
    pub(crate) new_lines: u64,
    pub(crate) lines: Vec<String>,
}
