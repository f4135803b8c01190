//! What a tool call does, said by the adapter that read it.
//!
//! Every agent names its tools its own way (Claude Code's `Bash`, Gemini's `run_shell_command`,
//! Codex's `shell`); the adapter knows what each of its tools does and says it here, with the
//! fields a reader needs (the command, the path, the old and new text, the checklist). Renderers
//! match on the kind, never on a tool name or on the shape of an input, so a new agent touches
//! only its own adapter. The call keeps its real name and whole input beside the kind.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::file_change::{Edit, FileChange};

/// What a tool call does (`kind` of a tool call in the JSONL, `docs/schema.md`).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub(crate) enum ToolKind {
    /// Runs a shell command.
    Shell {
        command: String,
        /// What the model said the command is for.
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
        subject: Option<String>,
    },
    /// Hands the run's final answer back as structured data (the input is the answer).
    StructuredOutput,
    /// Anything else.
    Other {
        /// The input value that best says what the call is about, when one does.
        subject: Option<String>,
    },
}

impl ToolKind {
    /// What the call is about, as the adapter gave it: the command, the file, the files a patch
    /// touches, the pattern (and where a search looks), the URL, the query, the description, the
    /// skill, or the subject an MCP or other call named. `None` when the kind names nothing, or
    /// only an empty value.
    pub(crate) fn subject(&self) -> Option<Subject<'_>> {
        let what = match self {
            ToolKind::Shell { command, .. } => Cow::Borrowed(command.as_str()),
            ToolKind::Read { path }
            | ToolKind::Write { path, .. }
            | ToolKind::Edit { path, .. }
            | ToolKind::MultiEdit { path, .. } => Cow::Borrowed(path.as_str()),
            ToolKind::Patch { files } => Cow::Owned(
                files
                    .iter()
                    .map(|f| format!("{} {}", f.change, f.path))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            ToolKind::Search { pattern, path } => {
                let place = path.as_deref().filter(|p| !p.is_empty());
                return Subject::of(pattern, place);
            }
            ToolKind::WebFetch { url } => Cow::Borrowed(url.as_str()),
            ToolKind::WebSearch { query } => Cow::Borrowed(query.as_str()),
            ToolKind::Subagent { description } => Cow::Borrowed(description.as_str()),
            ToolKind::Skill { skill } => Cow::Borrowed(skill.as_str()),
            ToolKind::Mcp { subject, .. } | ToolKind::Other { subject } => {
                Cow::Borrowed(subject.as_deref()?)
            }
            ToolKind::Todo { .. } | ToolKind::Plan { .. } | ToolKind::StructuredOutput => {
                return None;
            }
        };
        (!what.is_empty()).then_some(Subject { what, place: None })
    }

    /// The broad sort of work the call does, as the page groups calls (its colour, its count in
    /// the header, whether its card opens).
    pub(crate) fn family(&self) -> ToolFamily {
        match self {
            ToolKind::Shell { .. } => ToolFamily::Shell,
            ToolKind::Read { .. } => ToolFamily::Read,
            ToolKind::Edit { .. } | ToolKind::MultiEdit { .. } | ToolKind::Patch { .. } => {
                ToolFamily::Edit
            }
            ToolKind::Write { .. } => ToolFamily::Write,
            ToolKind::Search { .. } => ToolFamily::Search,
            ToolKind::WebFetch { .. } | ToolKind::WebSearch { .. } => ToolFamily::Web,
            ToolKind::Todo { .. } => ToolFamily::Todo,
            ToolKind::Plan { .. } => ToolFamily::Plan,
            ToolKind::Subagent { .. } => ToolFamily::Agent,
            ToolKind::Skill { .. }
            | ToolKind::Mcp { .. }
            | ToolKind::StructuredOutput
            | ToolKind::Other { .. } => ToolFamily::Other,
        }
    }

    /// The files the call reads or changes, as its kind names them (what the archive's search
    /// finds a session by).
    pub(crate) fn files(&self) -> Vec<&str> {
        match self {
            ToolKind::Read { path }
            | ToolKind::Write { path, .. }
            | ToolKind::Edit { path, .. }
            | ToolKind::MultiEdit { path, .. } => vec![path.as_str()],
            ToolKind::Patch { files } => files.iter().map(|f| f.path.as_str()).collect(),
            ToolKind::Shell { .. }
            | ToolKind::Search { .. }
            | ToolKind::WebFetch { .. }
            | ToolKind::WebSearch { .. }
            | ToolKind::Todo { .. }
            | ToolKind::Plan { .. }
            | ToolKind::Subagent { .. }
            | ToolKind::Skill { .. }
            | ToolKind::Mcp { .. }
            | ToolKind::StructuredOutput
            | ToolKind::Other { .. } => Vec::new(),
        }
    }

    /// How the call's input is best shown: the question every view asks before it draws the
    /// input (a command, a diff, a checklist, a plan, or the input's own fields).
    pub(crate) fn input_shape(&self) -> InputShape<'_> {
        match self {
            ToolKind::Shell {
                command,
                description,
            } => InputShape::Command {
                command,
                description: description.as_deref(),
            },
            ToolKind::Edit { path, old, new } => {
                InputShape::FileChange(FileChange::new(path, Edit::Replace { old, new }))
            }
            ToolKind::MultiEdit { path, edits } => {
                InputShape::FileChange(FileChange::new(path, Edit::Several(edits)))
            }
            ToolKind::Write { path, content } => {
                InputShape::FileChange(FileChange::new(path, Edit::Whole(content)))
            }
            ToolKind::Todo { items } => InputShape::Checklist(items),
            ToolKind::Plan { plan } => InputShape::Plan(plan),
            ToolKind::Subagent { .. } => InputShape::Subagent,
            ToolKind::StructuredOutput => InputShape::Answer,
            ToolKind::Read { .. }
            | ToolKind::Patch { .. }
            | ToolKind::Search { .. }
            | ToolKind::WebFetch { .. }
            | ToolKind::WebSearch { .. }
            | ToolKind::Skill { .. }
            | ToolKind::Mcp { .. }
            | ToolKind::Other { .. } => InputShape::Fields,
        }
    }

    /// The MCP server and the server's own name for the tool, for a call an MCP server answers
    /// (its line names the server instead of summing up an input only the server understands).
    pub(crate) fn mcp_tool(&self) -> Option<(&str, &str)> {
        if let ToolKind::Mcp { server, tool, .. } = self {
            return Some((server, tool));
        }
        None
    }

    /// The plan a plan call presents, unless it is blank.
    pub(crate) fn plan(&self) -> Option<&str> {
        if let ToolKind::Plan { plan } = self {
            return Some(plan.as_str()).filter(|p| !p.trim().is_empty());
        }
        None
    }

    /// What a sub-agent call says its run is for (its `description`); `None` for any other call.
    pub(crate) fn subagent_description(&self) -> Option<&str> {
        if let ToolKind::Subagent { description } = self {
            return Some(description);
        }
        None
    }

    /// The file a read call reads (its content is shown in the file's language).
    pub(crate) fn read_file(&self) -> Option<&str> {
        if let ToolKind::Read { path } = self {
            return Some(path);
        }
        None
    }
}

/// What a call is about, for its one-line summary (`ToolKind::subject`,
/// `ToolCall::headline`): plain text, not yet shortened or escaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subject<'a> {
    /// The value itself (never empty).
    pub(crate) what: Cow<'a, str>,
    /// Where a search looks, when it says (never empty).
    pub(crate) place: Option<&'a str>,
}

impl<'a> Subject<'a> {
    /// A subject that is `what`, unless that is empty.
    fn of(what: &'a str, place: Option<&'a str>) -> Option<Subject<'a>> {
        (!what.is_empty()).then_some(Subject {
            what: Cow::Borrowed(what),
            place,
        })
    }
}

/// How a call's input is best shown (`ToolKind::input_shape`). Each view draws each shape its
/// own way; `Fields` is the input as it stands.
#[derive(Debug, Clone, Copy)]
pub(crate) enum InputShape<'a> {
    /// A shell command, and what the model said it is for.
    Command {
        command: &'a str,
        description: Option<&'a str>,
    },
    /// A change to one file: an edit, a multi-edit or a whole file written.
    FileChange(FileChange<'a>),
    /// A todo list as it stands now.
    Checklist(&'a [TodoItem]),
    /// A plan, in Markdown (possibly blank).
    Plan(&'a str),
    /// A sub-agent's run: its prompt is in the input, its work in the call's `subagent`.
    Subagent,
    /// The run's final answer as structured data: the input is the answer.
    Answer,
    /// Anything else: the input's own fields.
    Fields,
}

/// The broad sorts of work a tool call does, as the page tells them apart (`ToolKind::family`).
/// The family's name in one word (the page's header counts and the card's class say it) is the
/// variant's, in lower case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "lowercase")]
pub(crate) enum ToolFamily {
    /// Runs a shell command.
    Shell,
    /// Reads a file.
    Read,
    /// Edits a file in place (an edit, a multi-edit, a patch).
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
    #[strum(serialize = "sub-agent")]
    Agent,
    /// Anything else (MCP tools and skills included).
    Other,
}

impl ToolFamily {
    /// Every family, in the order the page's header counts them (the order of the variants).
    pub(crate) const ALL: &[ToolFamily] = <ToolFamily as strum::VariantArray>::VARIANTS;

    /// The family's name in one word: the page's header counts and the card's class say it.
    pub(crate) fn word(self) -> &'static str {
        self.into()
    }
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
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResultFacts {
    /// How many lines a file read returned (the output may carry fewer, or line numbers).
    pub(crate) lines_read: Option<u64>,
    /// The change an edit or write made, as the harness computed it (unified-diff hunks).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub(crate) hunks: Vec<DiffHunk>,
    /// How long the call ran, in milliseconds, as the harness timed it (Claude Code's
    /// `durationMs` or a sub-agent's `totalDurationMs`, Codex's command `duration`).
    pub(crate) duration_ms: Option<u64>,
    /// The exit code a command (or a tool run as a process) ended with, as the harness reported
    /// it (Codex's `exit_code`, or the `Exit code: N` / `Process exited with code N` line of
    /// its output, which stays in the output as it is).
    pub(crate) exit_code: Option<i64>,
    /// What the model read in place of the output when the harness saved a large output to a
    /// file: its notice and preview as written (Claude Code's `<persisted-output>` frame). The
    /// output is then the saved file's text, and the views show both.
    pub(crate) persisted_preview: Option<String>,
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
