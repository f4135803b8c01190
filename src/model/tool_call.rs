//! A tool call and what the renderers ask of one: its state, its result's text, the name and
//! the one-line headline a reader sees.
//!
//! The questions are answered here, once, from the call's `kind` (set by the adapter that read
//! the call), so that the terminal view, Markdown and HTML never match on a tool kind to learn
//! them and a new kind is a compile error in one place.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::details::Details;
use super::tool_kind::{ResultFacts, Subject, ToolFamily, ToolKind};
use super::transcript::{Part, SkillInfo, SubagentRecord};

/// One tool call, whose state evolves from the `tool_use` to its result (§14 `ToolCall`).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolCall {
    pub(crate) tool_call_id: String,
    /// The agent's own name for the tool.
    pub(crate) name: String,
    /// What the call does, as the adapter knows it; renderers draw the call from this.
    #[serde(default)]
    pub(crate) kind: ToolKind,
    pub(crate) caller: Caller,
    /// What made the call when it was not the model directly: server-side code execution
    /// calling a client tool (the `tool_use` block's `caller`, e.g.
    /// `{type: "code_execution_20250825", tool_id}`), kept whole.
    pub(crate) called_by: Option<Value>,
    pub(crate) mcp_server: Option<String>,
    pub(crate) state: ToolState,
    pub(crate) input: Value,
    pub(crate) output: Option<Value>,
    pub(crate) error_text: Option<String>,
    /// The permission system refused the call (the message it gave).
    pub(crate) denied: Option<String>,
    /// The harness's structured result (Claude's `tool_use_result` envelope).
    pub(crate) sidecar: Option<Details>,
    /// What the adapter read from the harness's result details for a reader (lines read, the
    /// diff an edit made); renderers read this, never the sidecar.
    #[serde(skip_serializing_if = "ResultFacts::is_empty", default)]
    pub(crate) facts: ResultFacts,
    pub(crate) subagent: Option<SubagentRecord>,
    pub(crate) skill: Option<SkillInfo>,
    /// The time of the input line that started the call (its `tool-call` block), when the line
    /// carries one.
    pub(crate) started_at: Option<String>,
    /// The time of the input line that brought the call's result, when the line carries one:
    /// with `startedAt`, how long the call took when the harness did not say.
    pub(crate) ended_at: Option<String>,
}

impl ToolCall {
    /// A call whose input is known and whose result is not.
    pub(crate) fn new(
        id: String,
        name: String,
        kind: ToolKind,
        caller: Caller,
        input: Value,
    ) -> ToolCall {
        ToolCall {
            tool_call_id: id,
            name,
            kind,
            caller,
            called_by: None,
            mcp_server: None,
            state: ToolState::Running,
            input,
            output: None,
            error_text: None,
            denied: None,
            sidecar: None,
            facts: ResultFacts::default(),
            subagent: None,
            skill: None,
            started_at: None,
            ended_at: None,
        }
    }
}

impl ToolCall {
    /// The call's result arrived: its final state, output, error text and the harness's details.
    /// The one place that applies a result, shared by the fold and the live text view so that
    /// both show the same call. An error with no text of its own reads as its output's text.
    pub(crate) fn set_result(&mut self, result: CallResult) {
        let CallResult {
            is_error,
            output,
            error_text,
            sidecar,
            facts,
        } = result;
        // A refused call's error result is its denial.
        self.state = match (is_error, self.denied.is_some()) {
            (true, true) => ToolState::ApprovalDenied,
            (true, false) => ToolState::Error,
            (false, _) => ToolState::Success,
        };
        if is_error {
            self.error_text = error_text.or_else(|| Some(output_text(&output, NonText::Skip)));
        }
        self.output = Some(output);
        if sidecar.is_some() {
            self.sidecar = sidecar;
        }
        if !facts.is_empty() {
            self.facts = facts;
        }
    }
}

impl ToolCall {
    /// What the call's one-line summary says, before a renderer fits it on its line: the value
    /// its kind says it is about (`ToolKind::subject`), else a todo list's size, a plan's text
    /// when `plans` is true (the HTML card; the text views show the plan right below), or the
    /// first short string of its input. `None` when nothing sums the call up.
    pub(crate) fn headline(&self, plans: bool) -> Option<Subject<'_>> {
        if let Some(subject) = self.kind.subject() {
            return Some(subject);
        }
        let what = match &self.kind {
            ToolKind::Todo { items } => {
                let n = items.len();
                Some(Cow::Owned(format!(
                    "{n} item{}",
                    if n == 1 { "" } else { "s" }
                )))
            }
            ToolKind::MultiEdit { .. } | ToolKind::StructuredOutput => None,
            ToolKind::Plan { plan } => {
                Some(Cow::Borrowed(plan.as_str())).filter(|p| plans && !p.is_empty())
            }
            // Nothing said what the call is about: the first short string of its input.
            ToolKind::Shell { .. }
            | ToolKind::Read { .. }
            | ToolKind::Write { .. }
            | ToolKind::Edit { .. }
            | ToolKind::Patch { .. }
            | ToolKind::Search { .. }
            | ToolKind::WebFetch { .. }
            | ToolKind::WebSearch { .. }
            | ToolKind::Subagent { .. }
            | ToolKind::Skill { .. }
            | ToolKind::Mcp { .. }
            | ToolKind::Other { .. } => self
                .input
                .as_object()?
                .values()
                .filter_map(Value::as_str)
                .find(|s| !s.is_empty() && s.len() <= 200)
                .map(Cow::Borrowed),
        };
        what.map(|what| Subject { what, place: None })
    }

    /// The name a reader sees on the call's line: an MCP tool as `tool · server (MCP)` (or
    /// `tool (MCP)` when the server has no name), any other tool by the call's own name.
    pub(crate) fn display_name(&self) -> String {
        match self.kind.mcp_tool() {
            Some(("", tool)) => format!("{tool} (MCP)"),
            Some((server, tool)) => format!("{tool} · {server} (MCP)"),
            None => self.name.clone(),
        }
    }

    /// The mark a reader sees beside a call someone other than the client ran: `server tool`
    /// for a tool the API ran itself (`server_tool_use`); MCP calls are marked by their name
    /// ([`ToolCall::display_name`]).
    pub(crate) fn caller_mark(&self) -> Option<&'static str> {
        match self.caller {
            Caller::ServerTool => Some("server tool"),
            Caller::Model | Caller::Mcp | Caller::Subagent => None,
        }
    }

    /// The tool's own name, with no server beside it: an MCP server's name for the tool (the
    /// page shows the server in a badge of its own), else the call's name.
    pub(crate) fn tool_name(&self) -> &str {
        self.kind.mcp_tool().map_or(&self.name, |(_, tool)| tool)
    }

    /// The output's plain text as a reader is shown it ([`output_text`], what is not text
    /// marked), borrowed when it is one string; empty when the call has none.
    pub(crate) fn output_words(&self) -> Cow<'_, str> {
        match &self.output {
            Some(Value::String(s)) => Cow::Borrowed(s),
            Some(o) => Cow::Owned(output_text(o, NonText::Mark)),
            None => Cow::Borrowed(""),
        }
    }

    /// The broad sort of work the call does (`ToolKind::family`); a call that ran a sub-agent is
    /// a sub-agent's whatever its kind, since its transcript is what a reader looks at.
    pub(crate) fn family(&self) -> ToolFamily {
        if self.subagent.is_some() {
            return ToolFamily::Agent;
        }
        self.kind.family()
    }
}

/// A call's result as a `tool-result` event carries it: what [`ToolCall::set_result`] applies.
#[derive(Debug, Clone)]
pub(crate) struct CallResult {
    pub(crate) is_error: bool,
    pub(crate) output: Value,
    pub(crate) error_text: Option<String>,
    pub(crate) sidecar: Option<Details>,
    pub(crate) facts: ResultFacts,
}

/// What the items of a tool output that are not text become in its plain text. The two
/// answers exist on purpose: an error's message holds only what the tool said, while a reader
/// shown the output must not take an image for an empty result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NonText {
    /// Left out: only the `text` of the items that have one (a call's `errorText`).
    Skip,
    /// A short mark in their place (`[image/png]`, `[tool_reference: TaskCreate]`): what the
    /// human-readable views show.
    Mark,
}

impl NonText {
    /// What one item of an output array becomes, or `None` when it is left out.
    fn item_text(self, item: &Value) -> Option<Cow<'_, str>> {
        let field = |k: &str| item.get(k).and_then(Value::as_str);
        match self {
            NonText::Skip => field("text").map(Cow::Borrowed),
            NonText::Mark => Some(match field("type") {
                Some("text") => Cow::Borrowed(field("text").unwrap_or_default()),
                Some("file") => Cow::Owned(file_mark(
                    field("mediaType").unwrap_or("file"),
                    field("url").unwrap_or_default(),
                    field("filename"),
                )),
                Some("data") => {
                    let name = field("name").unwrap_or("data");
                    let detail = field("summary")
                        .map(|t| format!(": {t}"))
                        .unwrap_or_default();
                    Cow::Owned(format!("[{name}{detail}]"))
                }
                _ => Cow::Owned(item.to_string()),
            }),
        }
    }
}

/// The mark a file item of an output leaves in its plain text: its type, and for inline
/// (`data:…;base64,`) content its size rather than its bytes, then its name when it has one
/// (`[image/png, 1.2 KB, /tmp/ig_1.png]`).
fn file_mark(media_type: &str, url: &str, filename: Option<&str>) -> String {
    let mut mark = format!("[{media_type}");
    if let Some((_, data)) = url
        .strip_prefix("data:")
        .and_then(|r| r.split_once(";base64,"))
    {
        let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
        let bytes = (data.len() / 4 * 3).saturating_sub(padding);
        mark.push_str(", ");
        mark.push_str(&byte_size(bytes));
    }
    if let Some(name) = filename {
        mark.push_str(", ");
        mark.push_str(name);
    }
    mark.push(']');
    mark
}

/// A number of bytes as a reader takes it in: `512 B`, `1.2 KB`, `3.4 MB` (powers of 1000).
fn byte_size(bytes: usize) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{}.{} KB", bytes / 1_000, bytes % 1_000 / 100),
        _ => format!("{}.{} MB", bytes / 1_000_000, bytes % 1_000_000 / 100_000),
    }
}

/// The plain text of a normalized tool output: a string as it is, an array's items one a line
/// (what is not text becoming what `non_text` says), nothing for `null`, any other value as
/// JSON.
pub(crate) fn output_text(output: &Value, non_text: NonText) -> String {
    let items = match output {
        Value::Array(items) => items,
        Value::String(s) => return s.clone(),
        Value::Null => return String::new(),
        Value::Bool(_) | Value::Number(_) | Value::Object(_) => return output.to_string(),
    };
    items
        .iter()
        .filter_map(|i| non_text.item_text(i))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Who runs a tool (§14): the client on the model's behalf, the API server, an MCP server, or a
/// sub-agent.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Caller {
    #[default]
    Model,
    ServerTool,
    Mcp,
    Subagent,
}

/// The life of a tool call (§14 `ToolState`).
///
/// ```text
/// pending ──▶ running ──▶ success | error
///    │           ▲
///    ▼           │ (approved)
/// approval-pending ──▶ approval-denied
/// ```
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ToolState {
    Pending,
    ApprovalPending,
    ApprovalDenied,
    Running,
    Success,
    Error,
}

impl ToolState {
    /// A terminal state: nothing more will happen to the call.
    pub(crate) fn is_terminal(self) -> bool {
        match self {
            ToolState::Success | ToolState::Error | ToolState::ApprovalDenied => true,
            ToolState::Pending | ToolState::ApprovalPending | ToolState::Running => false,
        }
    }
}

impl Part {
    /// The tool call this part is, if it is one: what the fold (the only kind of part that can
    /// still change), the counts and the views ask of a turn's parts.
    pub(crate) fn call(&self) -> Option<&ToolCall> {
        match self {
            Part::ToolCall { call } => Some(call),
            Part::Text { .. }
            | Part::Reasoning { .. }
            | Part::File { .. }
            | Part::SourceUrl { .. }
            | Part::SourceDocument { .. }
            | Part::Compaction { .. }
            | Part::Data { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// An inline image is marked with its type and size, never its bytes.
    #[test]
    fn a_file_in_an_output_is_marked_by_type_and_size() {
        let out = json!([
            {"type": "text", "text": "made"},
            {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,Zm9vYg==", "filename": "/tmp/a.png"},
            {"type": "file", "mediaType": "application/pdf", "url": "https://x/y.pdf"},
        ]);
        assert_eq!(
            output_text(&out, NonText::Mark),
            "made\n[image/png, 4 B, /tmp/a.png]\n[application/pdf]"
        );
        assert_eq!(byte_size(1_234), "1.2 KB");
        assert_eq!(byte_size(3_450_000), "3.4 MB");
    }
}
