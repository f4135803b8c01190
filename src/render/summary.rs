//! One-line summaries of tool calls, shared by the human-readable renderers (the terminal view,
//! Markdown and the HTML cards): `Bash(ls -la)`, `Edit(src/main.rs)`, `echo · echo (MCP)`.
//!
//! What the summary says is the model's answer (`ToolCall::headline`: the value the call's kind
//! says it is about, else the first short string of its input); this module fits it on one line
//! the way each view wants it. The result is plain text: callers escape it for their format.
//! Nothing here looks at a tool's name, its kind or the shape of its input.

use std::borrow::Cow;

use crate::model::transcript::{SubagentUsage, ToolCall, ToolState};
use crate::render::figures::{count, thousands};

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

/// Makes a value one short line: its line breaks spaces, and past `MAX` characters cut to
/// `fit.keep` and a `…`. Only the characters kept are read (a call's input may be a whole
/// script, summed up once for its line and once for the page's map).
fn one_line(s: &str, fit: Fit) -> String {
    let t = s.trim();
    let flat = |c: char| if c == '\n' || c == '\r' { ' ' } else { c };
    match t.char_indices().nth(MAX) {
        None => t.chars().map(flat).collect(),
        Some(_) => {
            let mut cut: String = t.chars().take(fit.keep).map(flat).collect();
            cut.push('…');
            cut
        }
    }
}

/// The readable summary of a call's input (`ls -la` for a shell call), if it has one.
pub(crate) fn input_summary(call: &ToolCall) -> Option<String> {
    fitted_summary(call, Fit::LINE)
}

/// [`input_summary`], fitted the way a renderer needs it: the call's headline on one line,
/// and where a search looks after ` in `.
pub(crate) fn fitted_summary(call: &ToolCall, fit: Fit) -> Option<String> {
    let headline = call.headline(fit.plan)?;
    let line = one_line(&headline.what, fit);
    // Where a search looks matters as much as what it looks for.
    Some(match headline.place {
        Some(place) => format!("{line} in {}", one_line(place, fit)),
        None => line,
    })
}

/// The whole value behind a call's summary (the full command, pattern or URL), when the
/// summary had to shorten it or flatten its lines; `--full` shows it.
pub(crate) fn long_input(call: &ToolCall) -> Option<Cow<'_, str>> {
    call.kind
        .subject()
        .map(|s| s.what)
        .filter(|v| v.trim().contains('\n') || v.trim().chars().count() > MAX)
}

/// The one-line call: `Bash(ls -la)`, `Edit(src/main.rs)`, `echo · echo (MCP)`,
/// `web_search(rust) · server tool`.
pub(crate) fn call_line(call: &ToolCall) -> String {
    let name = call.display_name();
    if call.kind.mcp_tool().is_some() {
        return name;
    }
    let line = match input_summary(call) {
        Some(s) => format!("{name}({s})"),
        None => name,
    };
    match call.caller_mark() {
        Some(mark) => format!("{line} · {mark}"),
        None => line,
    }
}

/// What a call with no result was last doing, as the text and Markdown views word it: waiting
/// for approval, not started, or running with no result (the input, or its turn, ended before
/// the result). `None` for a call that ended. The three read differently, so that a reader
/// never takes a call that waited for a person for one that ran.
pub(crate) fn open_state(state: ToolState) -> Option<&'static str> {
    match state {
        ToolState::ApprovalPending => Some("waiting for approval"),
        ToolState::Pending => Some("not started, no result"),
        ToolState::Running => Some("running, no result"),
        ToolState::Success | ToolState::Error | ToolState::ApprovalDenied => None,
    }
}

/// `3 tool uses · 12,000 tokens`: what a sub-agent reported it used, as the text and Markdown
/// views word it.
pub(crate) fn subagent_usage(u: &SubagentUsage) -> String {
    let tools = count(u.tool_uses, "tool use");
    format!("{tools} · {} tokens", thousands(u.total_tokens))
}

/// What the views say above the preview the model read of an output the harness saved to a file
/// (`facts.persistedPreview`): the output they show below it is the saved file's text.
pub(crate) const PERSISTED_PREVIEW: &str =
    "What the model read (a preview; the harness saved the output to a file)";

/// What the terminal view says between that preview and the saved output.
pub(crate) const SAVED_OUTPUT: &str = "The saved output";

/// A failed call's output, when it says what its error text does not (Gemini's `output` beside
/// its `error.message`, Codex's output beside a failure): the views show the error text, and
/// this too, so no word of the tool's is lost.
pub(crate) fn output_beside_error(call: &ToolCall) -> Option<String> {
    let error = call.error_text.as_deref()?;
    let out = call.output_words();
    (!out.trim().is_empty() && !error.contains(out.trim())).then(|| out.into_owned())
}

/// What an Agent call's own result says beside its sub-agent's report: a background run's
/// launch acknowledgement, which came long before the report, or what a hand-back that wraps
/// the report adds to it (the sub-agent's id and usage lines after it). `None` when the report
/// covers it all, so that nothing is shown twice.
pub(crate) fn hand_back_beside_report(call: &ToolCall) -> Option<String> {
    let report = call.subagent.as_ref()?.summary.as_deref()?.trim();
    let own = call.output_words();
    let own_t = own.trim();
    if own_t.is_empty() || report.contains(own_t) {
        return None;
    }
    let Some(at) = own_t.find(report).filter(|_| !report.is_empty()) else {
        return Some(own.into_owned());
    };
    let around = [own_t[..at].trim(), own_t[at + report.len()..].trim()];
    let rest = around
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    (!rest.is_empty()).then_some(rest)
}

#[cfg(test)]
mod tests {

    proptest::proptest! {
        /// The one line is what flattening the whole value, then cutting it, gave.
        #[test]
        fn one_line_as_flattened_whole(v in "[ a\n\r→é]{0,130}", card: bool) {
            let fit = if card { Fit::CARD } else { Fit::LINE };
            let flat: String = v
                .trim()
                .chars()
                .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
                .collect();
            let whole = if flat.chars().count() > MAX {
                format!("{}…", flat.chars().take(fit.keep).collect::<String>())
            } else {
                flat
            };
            proptest::prop_assert_eq!(one_line(&v, fit), whole);
        }
    }
    use super::*;
    use crate::model::tool_kind::{TodoItem, TodoStatus, ToolKind};
    use crate::model::transcript::Caller;
    use serde_json::{Value, json};

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
