//! `--to md`: GitHub-flavoured Markdown to paste into a pull request or an issue.
//!
//! A title and the session summary, then the turns: the user's prompts as quotes, assistant text
//! as it is, each tool call as a `<details>` block whose summary is the one-line call and whose
//! body holds the input and the result in fenced code blocks (a file change as a `diff` fence),
//! sub-agents as nested `<details>`, thinking and synthetic context in collapsed `<details>` only
//! with `--thinking` / `--context`, notices as short italic lines, and the result line at the end.
//!
//! Content is untrusted and must not break the page:
//! - every fence is longer than the longest backtick run inside it;
//! - in Markdown text (assistant and user text), raw HTML is escaped (found with pulldown-cmark,
//!   so code spans and code blocks stay as they are) and a code fence left open is closed, so a
//!   `</details>` or an unclosed fence cannot close or swallow scribe's blocks;
//! - text put in HTML (`<summary>`) or in a line of our own is escaped;
//! - control characters are made visible as in the terminal view.

use std::io::{self, Write};

mod compact;
pub(crate) mod escape;
mod notices;

pub(crate) use compact::CompactMarkdown;

use super::sgr::strip;
use super::summary;
use super::totals::Totals;
use super::{Render, Summary};
use crate::model::Header;
use crate::model::file_change::DiffLine;
use crate::model::session::{SessionSnapshot, said};
use crate::model::tool_kind::{InputShape, TodoItem, TodoStatus};
use crate::model::transcript::{
    Part, Role, SubagentRecord, ToolCall, ToolState, TranscriptItem, Turn, TurnOrigin,
};
use crate::render::RenderOptions;
use escape::{fenced, html, inline, safe_markdown};

/// The Markdown renderer.
pub(crate) struct MarkdownRenderer {
    /// `--full`: long outputs and diffs whole, not their first lines.
    full: bool,
    thinking: bool,
    context: bool,
    /// `--debug`: each line nothing understood is shown where it came, not only counted.
    debug: bool,
    totals: Totals,
}

impl MarkdownRenderer {
    /// A renderer for the run's settings (`--full`, `--thinking`, `--context`).
    pub(crate) fn new(settings: &RenderOptions) -> MarkdownRenderer {
        MarkdownRenderer {
            full: settings.full,
            thinking: settings.thinking,
            context: settings.context,
            debug: settings.debug,
            totals: Totals::default(),
        }
    }
}

/// A quote of Markdown text (every line prefixed, so the quote contains whatever is inside).
/// The text is quoted first and made safe after, so that the parser that finds raw HTML sees
/// it in the quote, as a reader's parser will.
fn quote(out: &mut String, title: &str, text: &str) {
    let mut quoted = format!("> **{title}**\n>\n");
    for l in text.lines() {
        quoted.push_str("> ");
        quoted.push_str(l);
        quoted.push('\n');
    }
    out.push_str(&safe_markdown(&quoted));
    out.push('\n');
}

/// A collapsed block around Markdown text.
fn collapsed(out: &mut String, title: &str, text: &str) {
    out.push_str(&format!(
        "<details>\n<summary>{}</summary>\n\n{}\n</details>\n\n",
        html(title),
        safe_markdown(text)
    ));
}

impl MarkdownRenderer {
    fn turn(&self, out: &mut String, turn: &Turn) {
        if turn.role == Role::User {
            let text = turn.text();
            match &turn.origin {
                TurnOrigin::UserInput | TurnOrigin::ToolReturn { .. } => quote(out, "User", &text),
                TurnOrigin::Replay => quote(out, "User (replayed)", &text),
                TurnOrigin::SubagentPrompt { .. } => quote(out, "Prompt", &text),
                TurnOrigin::Notification => quote(out, "Notification", &text),
                TurnOrigin::Synthetic { reason } if reason.is_person_action() => {
                    if text.trim().is_empty() {
                        return;
                    }
                    let label = if reason.is_command_output() {
                        "Command output"
                    } else {
                        "Command"
                    };
                    // Terminal colours a local command kept in its text: the words only here.
                    quote(out, label, &crate::render::sgr::strip(&text))
                }
                TurnOrigin::Synthetic { reason } => {
                    if self.context {
                        let word = reason.name();
                        collapsed(out, &format!("Context: {word}"), &text);
                    }
                }
                TurnOrigin::Model => out.push_str(&format!("{}\n", safe_markdown(&text))),
            }
            for p in &turn.parts {
                self.other_part(out, p);
            }
            return;
        }
        if let Some(e) = &turn.metadata.error {
            out.push_str(&format!("*Error: {}*\n\n", inline(e)));
        }
        for part in &turn.parts {
            match part {
                Part::Text { text, .. } => out.push_str(&format!("{}\n", safe_markdown(text))),
                Part::Reasoning { text, redacted, .. } => {
                    if self.thinking {
                        let t = if *redacted {
                            "(redacted)"
                        } else {
                            text.as_str()
                        };
                        collapsed(out, "Thinking", t);
                    }
                }
                Part::ToolCall { call } => self.call(out, call),
                Part::File { .. }
                | Part::SourceUrl { .. }
                | Part::SourceDocument { .. }
                | Part::Compaction { .. }
                | Part::Data { .. } => self.other_part(out, part),
            }
        }
    }

    fn other_part(&self, out: &mut String, part: &Part) {
        let text = if let Part::SourceUrl {
            url, title: None, ..
        } = part
        {
            // Markdown keeps the space a missing title leaves.
            format!("[source:  {url}]")
        } else if let Some(label) = crate::render::part_label(part) {
            label
        } else {
            return;
        };
        out.push_str(&format!("*{}*\n\n", inline(&text)));
    }

    fn call(&self, out: &mut String, call: &ToolCall) {
        let status = match call.state {
            _ if call.denied.is_some() => Some("denied"),
            ToolState::Success => None,
            ToolState::Error => Some("error"),
            ToolState::ApprovalDenied => Some("denied"),
            ToolState::ApprovalPending | ToolState::Pending | ToolState::Running => {
                summary::open_state(call.state)
            }
        };
        let status = status.map(|s| format!(" · {s}")).unwrap_or_default();
        let line = summary::call_line(call);
        out.push_str(&format!(
            "<details>\n<summary>{}{status}</summary>\n\n",
            html(&line)
        ));
        self.call_input(out, call);
        if self.context {
            if let Some(body) = call.skill.as_ref().and_then(|s| s.body.as_deref()) {
                collapsed(out, "Skill body", body);
            }
        }
        // The sub-agent's run.
        if let Some(rec) = &call.subagent {
            self.subagent(out, rec);
        }
        // The result.
        if let Some(d) = &call.denied {
            out.push_str(&format!("**Denied:** {}\n\n", inline(d)));
        }
        if let Some(preview) = &call.facts.persisted_preview {
            // The preview the model read, then the saved output as the result.
            out.push_str(&format!("**{}:**\n\n", summary::PERSISTED_PREVIEW));
            self.output(out, &strip(preview));
        }
        match call.state {
            ToolState::Error | ToolState::ApprovalDenied => {
                let text = call
                    .error_text
                    .clone()
                    .unwrap_or_else(|| call.output_words().into_owned());
                // A denial's error is its message, shown above already.
                if call.denied.as_deref().map(str::trim) != Some(text.trim()) {
                    out.push_str("**Error:**\n\n");
                    self.output(out, &strip(&text));
                }
                if let Some(output) = crate::render::summary::output_beside_error(call) {
                    out.push_str("**Output:**\n\n");
                    self.output(out, &strip(&output));
                }
            }
            // The sub-agent's own summary is in its block; a hand-back that wraps it adds only
            // what is around it (its id, its usage), and a background launch acknowledgement
            // is shown whole.
            ToolState::Success => {
                let beside = crate::render::summary::hand_back_beside_report(call);
                let text = match call.subagent.as_ref().is_some_and(|r| r.summary.is_some()) {
                    true => beside.unwrap_or_default(),
                    false => call.output_words().into_owned(),
                };
                if !text.trim().is_empty() {
                    out.push_str("**Result:**\n\n");
                    // Terminal colours are noise in Markdown: the words stay.
                    self.output(out, &strip(&text));
                }
            }
            ToolState::Pending | ToolState::ApprovalPending | ToolState::Running => {}
        }
        out.push_str("</details>\n\n");
    }

    fn subagent(&self, out: &mut String, rec: &SubagentRecord) {
        let status = rec.status.word();
        let mut title = format!("Sub-agent: {}", rec.description);
        if let Some(t) = &rec.subagent_type {
            title.push_str(&format!(" ({t})"));
        }
        title.push_str(&format!(" · {status}"));
        if let Some(u) = rec.usage {
            title.push_str(&format!(" · {}", summary::subagent_usage(&u)));
        }
        out.push_str(&format!(
            "<details>\n<summary>{}</summary>\n\n",
            html(&title)
        ));
        for t in &rec.transcript {
            self.turn(out, t);
        }
        if let Some(e) = &rec.error {
            quote(out, "Error", e);
        }
        if let Some(s) = &rec.summary {
            quote(out, "Report", s);
        }
        if let Some(r) = &rec.result {
            quote(out, "Result", r);
        }
        out.push_str("</details>\n\n");
    }

    /// The session header: agent, model, directory, permission mode, tools, MCP servers and the
    /// session's id (as the page's facts name it), each only where the snapshot holds it.
    fn session(&self, out: &mut String, s: &SessionSnapshot) {
        let mut bits = Vec::new();
        let agent = match &s.version {
            Some(v) => format!("{} {v}", s.agent),
            None => s.agent.clone(),
        };
        bits.push(format!("**Agent:** {}", inline(&agent)));
        let labelled = [
            ("Model", &s.model),
            ("Directory", &s.cwd),
            ("Permission mode", &s.permission_mode),
        ];
        for (label, field) in labelled {
            if let Some(v) = said(field) {
                bits.push(format!("**{label}:** {}", inline(v)));
            }
        }
        // A saved session does not record its tools: say nothing rather than "0".
        if !s.tools.is_empty() {
            bits.push(format!("**Tools:** {}", s.tools.len()));
        }
        if !s.mcp_servers.is_empty() {
            let servers: Vec<String> = s
                .mcp_servers
                .iter()
                .map(|m| format!("{} ({})", inline(&m.name), inline(&m.status)))
                .collect();
            bits.push(format!("**MCP:** {}", servers.join(", ")));
        }
        if !s.session_id.is_empty() {
            bits.push(format!("**Session:** {}", inline(&s.session_id)));
        }
        out.push_str(&format!("{}\n\n", bits.join(" · ")));
    }
}

impl MarkdownRenderer {
    /// A fenced block of a long `text` cut to its first `max` lines (unless `--full`), then a
    /// line saying how many lines were left out and the option that shows them. The JSONL and
    /// the HTML page keep them all.
    fn preview(&self, out: &mut String, lang: &str, text: &str, max: usize) {
        let (shown, more) = if self.full {
            (text, 0)
        } else {
            super::preview(text, max)
        };
        fenced(out, lang, shown);
        if more > 0 {
            out.push_str(&format!("*… {more} more lines (--full shows them)*\n\n"));
        }
    }

    /// A tool's output or error text, previewed.
    fn output(&self, out: &mut String, text: &str) {
        self.preview(out, "text", text, super::OUTPUT_PREVIEW_LINES);
    }

    /// A call's input, shaped by what the call does: an edit's diff (previewed), a plan, a
    /// command, a checklist, or the input as JSON.
    fn call_input(&self, out: &mut String, call: &ToolCall) {
        match call.kind.input_shape() {
            InputShape::FileChange(change) => {
                let mut d = String::new();
                let p = change.path;
                if !p.is_empty() {
                    d.push_str(&format!("--- {p}\n+++ {p}\n"));
                }
                for l in change.diff(0) {
                    match l {
                        DiffLine::Gap => d.push_str("@@\n"),
                        DiffLine::Ctx(s) => d.push_str(&format!(" {s}\n")),
                        DiffLine::Del(s) => d.push_str(&format!("-{s}\n")),
                        DiffLine::Add(s) => d.push_str(&format!("+{s}\n")),
                    }
                }
                self.preview(out, "diff", &d, super::DIFF_PREVIEW_LINES);
            }
            InputShape::Plan(plan) if !plan.trim().is_empty() => {
                out.push_str(&safe_markdown(plan));
                out.push('\n');
            }
            InputShape::Command { command, .. } => fenced(out, "sh", command),
            InputShape::Checklist(items) => checklist(out, items),
            InputShape::Plan(_)
            | InputShape::Subagent
            | InputShape::Answer
            | InputShape::Fields => {
                // The sub-agent block below shows its prompt.
                let json = serde_json::to_string_pretty(&call.input).unwrap_or_default();
                if call.subagent.is_none() && json != "{}" && json != "null" {
                    fenced(out, "json", &json);
                }
            }
        }
    }
}

/// A todo list as a Markdown task list, the item in progress in bold.
fn checklist(out: &mut String, items: &[TodoItem]) {
    for item in items {
        let mark = match item.status {
            TodoStatus::Completed => "x",
            TodoStatus::InProgress | TodoStatus::Pending => " ",
        };
        let text = inline(&item.text);
        let text = match item.status {
            TodoStatus::InProgress => format!("**{text}**"),
            TodoStatus::Completed | TodoStatus::Pending => text,
        };
        out.push_str(&format!("- [{mark}] {text}\n"));
    }
    out.push('\n');
}

impl Render for MarkdownRenderer {
    /// Each input is a document of its own.
    fn stands_alone(&self) -> bool {
        true
    }

    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()> {
        self.totals = Totals::default();
        let name = if header.file == "-" {
            "standard input".to_owned()
        } else {
            header
                .file
                .rsplit('/')
                .next()
                .unwrap_or(&header.file)
                .to_owned()
        };
        write!(out, "# Transcript: {}\n\n", inline(&name))
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        let mut s = String::new();
        match item {
            TranscriptItem::Session(snap) => self.session(&mut s, snap),
            TranscriptItem::Turn(t) => {
                self.totals.add_turn(t);
                self.turn(&mut s, t)
            }
            TranscriptItem::Notice(n) => {
                self.totals.add(n);
                self.notice(&mut s, n)
            }
            TranscriptItem::Debug(_) if !self.debug => {}
            TranscriptItem::Debug(d) => s.push_str(&format!(
                "*line {} not understood: {}*\n\n",
                d.line,
                inline(&d.reason)
            )),
        }
        out.write_all(s.as_bytes())
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        if let Some(note) = super::debug_summary(summary.debug).filter(|_| !self.debug) {
            write!(out, "*{}*\n\n", inline(&note))?;
        }
        match totals_line(&self.totals) {
            Some(line) => write!(out, "---\n\n**{line}**\n"),
            None => Ok(()),
        }
    }
}

/// The session's totals on one line (`12 turns (2 prompts) · 3.2s · 1,234 in · 56 out tokens ·
/// $0.01 · 4 tool calls`); `None` when nothing was counted.
fn totals_line(t: &Totals) -> Option<String> {
    let figures = t.figures();
    (!figures.is_empty()).then(|| figures.join(" · "))
}
