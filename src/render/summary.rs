//! One-line summaries of tool calls, shared by the human-readable renderers (the terminal view,
//! Markdown and the HTML cards): `Bash(ls -la)`, `Edit(src/main.rs)`, `echo · echo (MCP)`.
//!
//! The summary is the value the call's kind says it is about (the command, the file path, the
//! pattern, the URL, the description: the adapter chose it); a call whose kind names none falls
//! back to the first short string in its input. The result is plain text: callers escape it for
//! their format. Nothing here looks at a tool's name or at the shape of its input.

use std::borrow::Cow;

use serde_json::Value;

use crate::model::tool_kind::ToolKind;
use crate::model::transcript::ToolCall;

/// The longest summary kept on a call's line, in characters.
const MAX: usize = 100;

/// How a renderer fits a summary on its line. Exists because the HTML card's summary differs
/// from the text and Markdown call line in two details, and one summary function serves all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fit {
    /// Characters kept before the `…` when a value is longer than `MAX`.
    keep: usize,
    /// Whether an ExitPlanMode call is summed up by its plan's first words (the HTML card) or
    /// not at all (the text and Markdown views show the plan right below).
    plan: bool,
}

impl Fit {
    /// The text and Markdown call line: at most `MAX` characters in all.
    pub(crate) const LINE: Fit = Fit {
        keep: MAX - 1,
        plan: false,
    };
    /// The HTML card's summary: `MAX` characters and the `…`, and the plan of an ExitPlanMode.
    pub(crate) const CARD: Fit = Fit {
        keep: MAX,
        plan: true,
    };
}

/// Makes a value one short line.
fn one_line(s: &str, fit: Fit) -> String {
    let flat: String = s
        .trim()
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.chars().count() > MAX {
        let mut cut: String = flat.chars().take(fit.keep).collect();
        cut.push('…');
        cut
    } else {
        flat
    }
}

/// The readable summary of a call's input (`ls -la` for a shell call), if it has one.
pub(crate) fn input_summary(call: &ToolCall) -> Option<String> {
    fitted_summary(call, Fit::LINE)
}

/// The value that says what a call is about, as the adapter gave it in the call's kind (the
/// command, the path, the pattern, the URL), and where a search looks.
fn subject(kind: &ToolKind) -> (Option<Cow<'_, str>>, Option<&str>) {
    fn some(s: &str) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(s)).filter(|s| !s.is_empty())
    }
    match kind {
        ToolKind::Shell { command, .. } => (some(command), None),
        ToolKind::Read { path }
        | ToolKind::Write { path, .. }
        | ToolKind::Edit { path, .. }
        | ToolKind::MultiEdit { path, .. } => (some(path), None),
        ToolKind::Patch { files } => {
            let list = files
                .iter()
                .map(|f| format!("{} {}", f.change, f.path))
                .collect::<Vec<_>>()
                .join(", ");
            (
                Some(Cow::<str>::Owned(list)).filter(|s| !s.is_empty()),
                None,
            )
        }
        ToolKind::Search { pattern, path } => (some(pattern), path.as_deref()),
        ToolKind::WebFetch { url } => (some(url), None),
        ToolKind::WebSearch { query } => (some(query), None),
        ToolKind::Subagent { description } => (some(description), None),
        ToolKind::Skill { skill } => (some(skill), None),
        ToolKind::Mcp { subject, .. } | ToolKind::Other { subject } => {
            (subject.as_deref().and_then(some), None)
        }
        ToolKind::Todo { .. } | ToolKind::Plan { .. } | ToolKind::StructuredOutput => (None, None),
    }
}

/// [`input_summary`], fitted the way a renderer needs it.
pub(crate) fn fitted_summary(call: &ToolCall, fit: Fit) -> Option<String> {
    let one_line = |s: &str| one_line(s, fit);
    if let (Some(s), place) = subject(&call.kind) {
        let mut s = one_line(&s);
        // Where a search looks matters as much as what it looks for.
        if let Some(path) = place.filter(|p| !p.is_empty()) {
            s = format!("{s} in {}", one_line(path));
        }
        return Some(s);
    }
    match &call.kind {
        ToolKind::Todo { items } => {
            let n = items.len();
            Some(format!("{n} item{}", if n == 1 { "" } else { "s" }))
        }
        ToolKind::MultiEdit { .. } | ToolKind::StructuredOutput => None,
        ToolKind::Plan { plan } => match fit.plan {
            true => Some(plan.as_str()).filter(|p| !p.is_empty()).map(one_line),
            false => None,
        },
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
        | ToolKind::Other { .. } => call
            .input
            .as_object()?
            .values()
            .filter_map(Value::as_str)
            .find(|s| !s.is_empty() && s.len() <= 200)
            .map(one_line),
    }
}

/// The whole value behind a call's summary (the full command, pattern or URL), when the
/// summary had to shorten it or flatten its lines; `--full` shows it.
pub(crate) fn long_input(call: &ToolCall) -> Option<Cow<'_, str>> {
    subject(&call.kind)
        .0
        .filter(|v| v.trim().contains('\n') || v.trim().chars().count() > MAX)
}

/// The name a reader sees: MCP tools as `tool · server (MCP)`, others as they are.
pub(crate) fn display_name(call: &ToolCall) -> String {
    match &call.kind {
        ToolKind::Mcp { server, tool, .. } if server.is_empty() => format!("{tool} (MCP)"),
        ToolKind::Mcp { server, tool, .. } => format!("{tool} · {server} (MCP)"),
        ToolKind::Shell { .. }
        | ToolKind::Read { .. }
        | ToolKind::Write { .. }
        | ToolKind::Edit { .. }
        | ToolKind::MultiEdit { .. }
        | ToolKind::Patch { .. }
        | ToolKind::Search { .. }
        | ToolKind::WebFetch { .. }
        | ToolKind::WebSearch { .. }
        | ToolKind::Todo { .. }
        | ToolKind::Plan { .. }
        | ToolKind::Subagent { .. }
        | ToolKind::Skill { .. }
        | ToolKind::StructuredOutput
        | ToolKind::Other { .. } => call.name.clone(),
    }
}

/// The one-line call: `Bash(ls -la)`, `Edit(src/main.rs)`, `echo · echo (MCP)`.
pub(crate) fn call_line(call: &ToolCall) -> String {
    let name = display_name(call);
    if is_mcp(call) {
        return name;
    }
    match input_summary(call) {
        Some(s) => format!("{name}({s})"),
        None => name,
    }
}

/// True for a call that runs a sub-agent: the adapter said so, or the fold gave it one.
pub(crate) fn is_agent_call(call: &ToolCall) -> bool {
    matches!(call.kind, ToolKind::Subagent { .. }) || call.subagent.is_some()
}

/// A failed call's output, when it says what its error text does not (Gemini's `output` beside
/// its `error.message`, Codex's output beside a failure): the views show the error text, and
/// this too, so no word of the tool's is lost.
pub(crate) fn output_beside_error(call: &ToolCall) -> Option<String> {
    let error = call.error_text.as_deref()?;
    let out = call.output.as_ref().map(output_text)?;
    (!out.trim().is_empty() && !error.contains(out.trim())).then_some(out)
}

/// An Agent call's own result, when it says what its sub-agent's report does not: a background
/// run's launch acknowledgement, which came long before the report. `None` when the report
/// covers it (a hand-back that wraps the report), so that nothing is shown twice.
pub(crate) fn hand_back_beside_report(call: &ToolCall) -> Option<String> {
    let report = call.subagent.as_ref()?.summary.as_deref()?.trim();
    let own = call.output.as_ref().map(output_text)?;
    let own_t = own.trim();
    (!own_t.is_empty() && !own_t.contains(report) && !report.contains(own_t)).then_some(own)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tool_kind::TodoItem;
    use crate::model::tool_kind::TodoStatus;
    use crate::model::transcript::Caller;
    use serde_json::json;

    fn call(name: &str, kind: ToolKind, input: Value) -> ToolCall {
        ToolCall::new("t1".into(), name.into(), kind, Caller::Model, input)
    }

    fn shell(command: &str) -> ToolCall {
        let kind = ToolKind::Shell {
            command: command.into(),
            description: None,
        };
        call("Bash", kind, json!({ "command": command }))
    }

    #[test]
    fn calls_are_summed_up_by_their_kind() {
        assert_eq!(call_line(&shell("ls -la")), "Bash(ls -la)");
        let edit = ToolKind::Edit {
            path: "src/main.rs".into(),
            old: "a".into(),
            new: "b".into(),
        };
        assert_eq!(
            call_line(&call("Edit", edit, json!({}))),
            "Edit(src/main.rs)"
        );
        let grep = ToolKind::Search {
            pattern: "fn".into(),
            path: Some("src".into()),
        };
        assert_eq!(call_line(&call("Grep", grep, json!({}))), "Grep(fn in src)");
        let mcp = |tool: &str, server: &str| {
            let kind = ToolKind::Mcp {
                server: server.into(),
                tool: tool.into(),
                subject: None,
            };
            let mut c = call("x", kind, json!({"text": "x"}));
            c.caller = Caller::Mcp;
            c
        };
        assert_eq!(call_line(&mcp("echo", "echo")), "echo · echo (MCP)");
        assert_eq!(call_line(&mcp("lookup", "")), "lookup (MCP)");
        let todo = ToolKind::Todo {
            items: vec![
                TodoItem {
                    status: TodoStatus::Pending,
                    text: "a".into(),
                };
                2
            ],
        };
        assert_eq!(
            call_line(&call("TodoWrite", todo, json!({}))),
            "TodoWrite(2 items)"
        );
        let other = ToolKind::Other { subject: None };
        assert_eq!(
            call_line(&call("odd", other, json!({"n": 1, "s": "short"}))),
            "odd(short)"
        );
    }

    #[test]
    fn long_input_only_when_the_summary_shortened_it() {
        assert_eq!(
            long_input(&shell("echo a\necho b")).as_deref(),
            Some("echo a\necho b")
        );
        assert_eq!(long_input(&shell("ls")), None);
    }

    #[test]
    fn long_and_multiline_inputs_are_one_short_line() {
        let long = "x".repeat(300);
        let s = call_line(&shell(&format!("echo a\necho {long}")));
        assert!(s.starts_with("Bash(echo a echo xxx"));
        assert_eq!(s.chars().count(), "Bash()".len() + MAX);
    }

    #[test]
    fn the_html_card_keeps_one_more_character_and_sums_up_a_plan() {
        let card = fitted_summary(&shell(&"x".repeat(300)), Fit::CARD).unwrap();
        assert_eq!(card.chars().count(), MAX + 1);
        assert!(card.ends_with('…'));
        let plan = call(
            "ExitPlanMode",
            ToolKind::Plan {
                plan: "Step one\nStep two".into(),
            },
            json!({"plan": "Step one\nStep two"}),
        );
        assert_eq!(input_summary(&plan), None);
        assert_eq!(
            fitted_summary(&plan, Fit::CARD).as_deref(),
            Some("Step one Step two")
        );
    }
}

/// One line of a file change shown as a diff. Exists so that the terminal, Markdown and HTML
/// views show the same change from a call's input (each styles the lines its own way).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DiffLine {
    /// A separator between two edits of one MultiEdit.
    Gap,
    /// An unchanged line kept around a change (only when context lines were asked for).
    Ctx(String),
    Del(String),
    Add(String),
}

/// The change an edit, multi-edit or write call makes: the lines that differ (common leading
/// and trailing lines dropped), or the whole new content for a write.
pub(crate) fn edit_diff(kind: &ToolKind) -> Option<Vec<DiffLine>> {
    file_diff(kind, 0)
}

/// The change an edit, multi-edit or write call makes, with up to `context` unchanged lines
/// kept on either side of each edit; `None` for a call that changes no file this way. The one
/// place that computes a diff from a call, shared by every human-readable renderer.
pub(crate) fn file_diff(kind: &ToolKind, context: usize) -> Option<Vec<DiffLine>> {
    let mut out = Vec::new();
    match kind {
        ToolKind::Edit { old, new, .. } => pair_diff(old, new, context, &mut out),
        ToolKind::MultiEdit { edits, .. } => {
            for (i, e) in edits.iter().enumerate() {
                if i > 0 {
                    out.push(DiffLine::Gap);
                }
                pair_diff(&e.old, &e.new, context, &mut out);
            }
        }
        ToolKind::Write { content, .. } => {
            for l in content.lines() {
                out.push(DiffLine::Add(l.to_owned()));
            }
        }
        ToolKind::Shell { .. }
        | ToolKind::Read { .. }
        | ToolKind::Patch { .. }
        | ToolKind::Search { .. }
        | ToolKind::WebFetch { .. }
        | ToolKind::WebSearch { .. }
        | ToolKind::Todo { .. }
        | ToolKind::Plan { .. }
        | ToolKind::Subagent { .. }
        | ToolKind::Skill { .. }
        | ToolKind::Mcp { .. }
        | ToolKind::StructuredOutput
        | ToolKind::Other { .. } => return None,
    }
    Some(out)
}

/// The file an edit, multi-edit or write call changes (empty when the call did not say).
pub(crate) fn changed_file(kind: &ToolKind) -> &str {
    match kind {
        ToolKind::Edit { path, .. }
        | ToolKind::MultiEdit { path, .. }
        | ToolKind::Write { path, .. } => path,
        ToolKind::Shell { .. }
        | ToolKind::Read { .. }
        | ToolKind::Patch { .. }
        | ToolKind::Search { .. }
        | ToolKind::WebFetch { .. }
        | ToolKind::WebSearch { .. }
        | ToolKind::Todo { .. }
        | ToolKind::Plan { .. }
        | ToolKind::Subagent { .. }
        | ToolKind::Skill { .. }
        | ToolKind::Mcp { .. }
        | ToolKind::StructuredOutput
        | ToolKind::Other { .. } => "",
    }
}

/// A diff of two strings: the shared first and last lines are context (at most `context` of
/// each kept), the middle is removed and added. Not minimal, but exact and cheap.
fn pair_diff(old: &str, new: &str, context: usize, out: &mut Vec<DiffLine>) {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let line = |l: &&str| (*l).to_owned();
    out.extend(
        a[head.saturating_sub(context)..head]
            .iter()
            .map(line)
            .map(DiffLine::Ctx),
    );
    out.extend(a[head..a.len() - tail].iter().map(line).map(DiffLine::Del));
    out.extend(b[head..b.len() - tail].iter().map(line).map(DiffLine::Add));
    out.extend(
        a[a.len() - tail..]
            .iter()
            .take(context)
            .map(line)
            .map(DiffLine::Ctx),
    );
}

#[cfg(test)]
mod diff_tests {
    use super::*;

    #[test]
    fn edit_keeps_only_changed_lines() {
        let kind = ToolKind::Edit {
            path: String::new(),
            old: "a\nb\nc".into(),
            new: "a\nB\nc".into(),
        };
        assert_eq!(
            edit_diff(&kind).unwrap(),
            [DiffLine::Del("b".into()), DiffLine::Add("B".into())]
        );
        assert_eq!(
            file_diff(&kind, 3).unwrap(),
            [
                DiffLine::Ctx("a".into()),
                DiffLine::Del("b".into()),
                DiffLine::Add("B".into()),
                DiffLine::Ctx("c".into())
            ]
        );
        assert_eq!(edit_diff(&ToolKind::Other { subject: None }), None);
    }
}

/// The plan a plan call presents, if it is not blank.
pub(crate) fn plan(call: &ToolCall) -> Option<&str> {
    match &call.kind {
        ToolKind::Plan { plan } => Some(plan.as_str()).filter(|p| !p.trim().is_empty()),
        ToolKind::Shell { .. }
        | ToolKind::Read { .. }
        | ToolKind::Write { .. }
        | ToolKind::Edit { .. }
        | ToolKind::MultiEdit { .. }
        | ToolKind::Patch { .. }
        | ToolKind::Search { .. }
        | ToolKind::WebFetch { .. }
        | ToolKind::WebSearch { .. }
        | ToolKind::Todo { .. }
        | ToolKind::Subagent { .. }
        | ToolKind::Skill { .. }
        | ToolKind::Mcp { .. }
        | ToolKind::StructuredOutput
        | ToolKind::Other { .. } => None,
    }
}

/// True for a call an MCP server answers: its line names the server instead of summing up the
/// input, whose meaning only the server knows.
pub(crate) fn is_mcp(call: &ToolCall) -> bool {
    matches!(call.kind, ToolKind::Mcp { .. })
}

/// A tool's output as text a reader can see: text items as they are, and a short mark for what
/// is not text (`[image/png]`, `[tool_reference: TaskCreate]`), so that no output looks empty.
pub(crate) fn output_text(output: &Value) -> String {
    let items = match output {
        Value::Array(items) => items,
        Value::String(s) => return s.clone(),
        Value::Null => return String::new(),
        Value::Bool(_) | Value::Number(_) | Value::Object(_) => return output.to_string(),
    };
    let mut parts = Vec::new();
    for item in items {
        let field = |k: &str| item.get(k).and_then(Value::as_str);
        match field("type") {
            Some("text") => parts.push(field("text").unwrap_or_default().to_owned()),
            Some("file") => parts.push(format!("[{}]", field("mediaType").unwrap_or("file"))),
            Some("data") => {
                let name = field("name").unwrap_or("data");
                let detail = field("summary")
                    .map(|t| format!(": {t}"))
                    .unwrap_or_default();
                parts.push(format!("[{name}{detail}]"));
            }
            _ => parts.push(item.to_string()),
        }
    }
    parts.join("\n")
}
