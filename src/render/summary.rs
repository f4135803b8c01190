//! One-line summaries of tool calls, shared by the human-readable renderers (the terminal view,
//! Markdown and the HTML cards): `Bash(ls -la)`, `Edit(src/main.rs)`, `echo · echo (MCP)`.
//!
//! The summary picks the one input field a reader needs per well-known tool (the command, the
//! file path, the pattern, the URL, the description); unknown tools fall back to the first short
//! string in their input. The result is plain text: callers escape it for their format.

use serde_json::Value;

use crate::model::transcript::{Caller, ToolCall};

/// The longest summary kept on a call's line, in characters.
const MAX: usize = 100;

/// The input field that best describes a call of a well-known tool.
fn key_field(name: &str) -> &'static [&'static str] {
    match name {
        "Bash" | "BashOutput" => &["command", "bash_id"],
        "Read" | "Write" | "Edit" | "MultiEdit" => &["file_path"],
        "NotebookEdit" | "NotebookRead" => &["notebook_path"],
        "Glob" | "Grep" => &["pattern"],
        "LS" => &["path"],
        "WebFetch" => &["url"],
        "WebSearch" | "ToolSearch" => &["query"],
        "Agent" | "Task" => &["description"],
        "Skill" => &["skill", "command"],
        "TaskCreate" => &["subject", "description"],
        "TaskUpdate" | "TaskGet" | "TaskOutput" | "TaskStop" => &["taskId", "task_id"],
        "KillShell" | "KillBash" => &["shell_id"],
        "SlashCommand" => &["command"],
        _ => &[
            "command",
            "file_path",
            "absolute_path",
            "notebook_path",
            "path",
            "pattern",
            "url",
            "query",
            "description",
            "prompt",
        ],
    }
}

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

/// The readable summary of a call's input (`ls -la` for a Bash call), if it has one.
pub(crate) fn input_summary(name: &str, input: &Value) -> Option<String> {
    fitted_summary(name, input, Fit::LINE)
}

/// [`input_summary`], fitted the way a renderer needs it.
pub(crate) fn fitted_summary(name: &str, input: &Value, fit: Fit) -> Option<String> {
    let obj = input.as_object()?;
    let one_line = |s: &str| one_line(s, fit);
    let field = |k: &str| obj.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    for key in key_field(name) {
        if let Some(v) = field(key) {
            let mut s = one_line(v);
            // Where a search looks matters as much as what it looks for.
            if matches!(name, "Glob" | "Grep") {
                if let Some(path) = field("path") {
                    s = format!("{s} in {}", one_line(path));
                }
            }
            return Some(s);
        }
    }
    match name {
        "TodoWrite" => {
            let n = obj
                .get("todos")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Some(format!("{n} item{}", if n == 1 { "" } else { "s" }))
        }
        "MultiEdit" | "StructuredOutput" => None,
        "ExitPlanMode" => match fit.plan {
            true => field("plan").map(one_line),
            false => None,
        },
        _ => obj
            .values()
            .filter_map(Value::as_str)
            .find(|s| !s.is_empty() && s.len() <= 200)
            .map(one_line),
    }
}

/// The whole value behind a call's summary (the full command, pattern or URL), when the
/// summary had to shorten it or flatten its lines; `--full` shows it.
pub(crate) fn long_input<'a>(name: &str, input: &'a Value) -> Option<&'a str> {
    let obj = input.as_object()?;
    key_field(name)
        .iter()
        .find_map(|k| {
            obj.get(*k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        })
        .filter(|v| v.trim().contains('\n') || v.trim().chars().count() > MAX)
}

/// An MCP call's own tool name: its name with the server's prefix taken off (`mcp__server__tool`,
/// `mcp_server_tool` or `server__tool` → `tool`), or the name as it is when it has none.
pub(crate) fn mcp_tool_name(call: &ToolCall) -> &str {
    let server = call.mcp_server.as_deref().unwrap_or_default();
    let name = call.name.as_str();
    name.strip_prefix("mcp__")
        .or_else(|| name.strip_prefix("mcp_"))
        .unwrap_or(name)
        .strip_prefix(server)
        .and_then(|t| t.strip_prefix("__").or_else(|| t.strip_prefix('_')))
        .filter(|t| !t.is_empty() && !server.is_empty())
        .unwrap_or(name)
}

/// The name a reader sees: MCP tools as `tool · server (MCP)` (see [`mcp_tool_name`]), others
/// as they are.
pub(crate) fn display_name(call: &ToolCall) -> String {
    if !is_mcp(call) {
        return call.name.clone();
    }
    let server = call.mcp_server.as_deref().unwrap_or_default();
    let tool = mcp_tool_name(call);
    if server.is_empty() {
        format!("{tool} (MCP)")
    } else {
        format!("{tool} · {server} (MCP)")
    }
}

/// The one-line call: `Bash(ls -la)`, `Edit(src/main.rs)`, `echo · echo (MCP)`.
pub(crate) fn call_line(call: &ToolCall) -> String {
    let name = display_name(call);
    if is_mcp(call) {
        return name;
    }
    match input_summary(canonical_name(call), &call.input) {
        Some(s) => format!("{name}({s})"),
        None => name,
    }
}

/// True for the tools that run a sub-agent.
pub(crate) fn is_agent(name: &str) -> bool {
    matches!(name, "Agent" | "Task")
}

/// The tool names the renderers draw in a special way (a diff, a checklist, a command, …).
const KNOWN_TOOLS: &[&str] = &[
    "Agent",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "Skill",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// The well-known tool a call behaves as, so that every renderer draws any agent's tools the way
/// it draws Claude Code's, with no source-specific code: a call with `old_string` and
/// `new_string` is an Edit, a writing call with `content` a Write, any call with a `todos` list a
/// TodoWrite, a sub-agent call an Agent, any call with a `command` a Bash. Known names, and MCP
/// tools (whose inputs mean what their server says), answer for themselves.
pub(crate) fn canonical_name(call: &ToolCall) -> &str {
    let name = call.name.as_str();
    if KNOWN_TOOLS.contains(&name) || call.caller == Caller::Mcp {
        return name;
    }
    if call.caller == Caller::Subagent || call.subagent.is_some() {
        return "Agent";
    }
    let input = &call.input;
    let has_str = |k: &str| input.get(k).is_some_and(Value::is_string);
    let lower = name.to_ascii_lowercase();
    let has_path = file_path(input).is_some();
    // Claude's names, or the ACP diff's (`oldText`/`newText`: Qwen's edits).
    if has_str("old_string") && has_str("new_string") || has_str("oldText") && has_str("newText") {
        "Edit"
    } else if has_path && input.get("edits").is_some_and(Value::is_array) {
        "MultiEdit"
    } else if has_path && has_str("content") && lower.contains("write") {
        "Write"
    } else if input.get("todos").is_some_and(Value::is_array) {
        "TodoWrite"
    } else if has_str("command") {
        "Bash"
    } else if has_path && lower.contains("read") {
        "Read"
    } else {
        name
    }
}

/// The file a call acts on, under the names agents give it.
pub(crate) fn file_path(input: &Value) -> Option<&str> {
    ["file_path", "absolute_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .filter(|p| !p.is_empty())
}

/// True for a call that runs a sub-agent, whatever the agent calls the tool.
pub(crate) fn is_agent_call(call: &ToolCall) -> bool {
    canonical_name(call) == "Agent" || is_agent(&call.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::Caller;
    use serde_json::json;

    fn call(name: &str, input: Value) -> ToolCall {
        ToolCall::new("t1".into(), name.into(), Caller::Model, input)
    }

    #[test]
    fn well_known_tools() {
        assert_eq!(
            call_line(&call("Bash", json!({"command": "ls -la"}))),
            "Bash(ls -la)"
        );
        assert_eq!(
            call_line(&call(
                "Edit",
                json!({"file_path": "src/main.rs", "old_string": "a"})
            )),
            "Edit(src/main.rs)"
        );
        assert_eq!(
            call_line(&call("Grep", json!({"pattern": "fn", "path": "src"}))),
            "Grep(fn in src)"
        );
        let mcp = |name: &str, server: &str| {
            let mut c = call(name, json!({"text": "x"}));
            c.caller = Caller::Mcp;
            c.mcp_server = Some(server.into());
            c
        };
        assert_eq!(
            call_line(&mcp("mcp__echo__echo", "echo")),
            "echo · echo (MCP)"
        );
        assert_eq!(
            call_line(&mcp("mcp_echo_echo", "echo")),
            "echo · echo (MCP)"
        );
        assert_eq!(
            call_line(&mcp("mcp_my_srv_do_it", "my_srv")),
            "do_it · my_srv (MCP)"
        );
        assert_eq!(
            call_line(&mcp("docs__search", "docs")),
            "search · docs (MCP)"
        );
        assert_eq!(
            call_line(&mcp("lookup", "remote-kb")),
            "lookup · remote-kb (MCP)"
        );
        assert_eq!(
            call_line(&call("TodoWrite", json!({"todos": [{}, {}]}))),
            "TodoWrite(2 items)"
        );
    }

    #[test]
    fn long_input_only_when_the_summary_shortened_it() {
        let multi = json!({"command": "echo a\necho b"});
        assert_eq!(long_input("Bash", &multi), Some("echo a\necho b"));
        assert_eq!(long_input("Bash", &json!({"command": "ls"})), None);
    }

    #[test]
    fn long_and_multiline_inputs_are_one_short_line() {
        let long = "x".repeat(300);
        let s = call_line(&call(
            "Bash",
            json!({"command": format!("echo a\necho {long}")}),
        ));
        assert!(s.starts_with("Bash(echo a echo xxx"));
        assert_eq!(s.chars().count(), "Bash()".len() + MAX);
    }

    #[test]
    fn the_html_card_keeps_one_more_character_and_sums_up_a_plan() {
        let long = json!({ "command": "x".repeat(300) });
        let card = fitted_summary("Bash", &long, Fit::CARD).unwrap();
        assert_eq!(card.chars().count(), MAX + 1);
        assert!(card.ends_with('…'));
        let plan = json!({"plan": "Step one\nStep two"});
        assert_eq!(input_summary("ExitPlanMode", &plan), None);
        assert_eq!(
            fitted_summary("ExitPlanMode", &plan, Fit::CARD).as_deref(),
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

/// What [`file_diff`] makes of an input that lacks a string it needs. Exists because the text
/// and Markdown views show such a call's input another way, while HTML always draws a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    /// No diff at all (`None`).
    NoDiff,
    /// The missing string reads as empty.
    Empty,
}

/// The change an Edit, MultiEdit or Write call makes, from its input: the lines that differ
/// (common leading and trailing lines dropped), or the whole new content for a Write.
pub(crate) fn edit_diff(name: &str, input: &Value) -> Option<Vec<DiffLine>> {
    file_diff(name, input, 0, Missing::NoDiff)
}

/// The change an Edit, MultiEdit or Write call makes, with up to `context` unchanged lines
/// kept on either side of each edit. The one place that computes a diff from a call's input,
/// shared by every human-readable renderer.
pub(crate) fn file_diff(
    name: &str,
    input: &Value,
    context: usize,
    missing: Missing,
) -> Option<Vec<DiffLine>> {
    let s = |v: &'_ Value, k: &str| -> Option<String> {
        match (v.get(k).and_then(Value::as_str), missing) {
            (Some(s), _) => Some(s.to_owned()),
            (None, Missing::Empty) => Some(String::new()),
            (None, Missing::NoDiff) => None,
        }
    };
    let mut out = Vec::new();
    match name {
        "Edit" => {
            let acp = input.get("old_string").is_none() && input.get("oldText").is_some();
            let (old, new) = if acp {
                ("oldText", "newText")
            } else {
                ("old_string", "new_string")
            };
            pair_diff(&s(input, old)?, &s(input, new)?, context, &mut out);
        }
        "MultiEdit" => {
            let edits = match (input.get("edits").and_then(Value::as_array), missing) {
                (Some(edits), _) => edits.as_slice(),
                (None, Missing::Empty) => &[],
                (None, Missing::NoDiff) => return None,
            };
            for (i, e) in edits.iter().enumerate() {
                if i > 0 {
                    out.push(DiffLine::Gap);
                }
                let field = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
                pair_diff(field("old_string"), field("new_string"), context, &mut out);
            }
        }
        "Write" => {
            for l in s(input, "content")?.lines() {
                out.push(DiffLine::Add(l.to_owned()));
            }
        }
        _ => return None,
    }
    Some(out)
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

/// A TodoWrite item: its status word (`pending`, `in_progress`, `completed`) and text.
pub(crate) fn todos(input: &Value) -> Vec<(String, String)> {
    input
        .get("todos")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|t| {
                    let f = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or_default();
                    (f("status").to_owned(), f("content").to_owned())
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod diff_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn edit_keeps_only_changed_lines() {
        let d = edit_diff(
            "Edit",
            &json!({"old_string": "a\nb\nc", "new_string": "a\nB\nc"}),
        )
        .unwrap();
        assert_eq!(d, [DiffLine::Del("b".into()), DiffLine::Add("B".into())]);
    }

    #[test]
    fn context_lines_surround_the_change_and_missing_strings_can_read_as_empty() {
        let input = json!({"old_string": "a\nb\nc", "new_string": "a\nB\nc"});
        let d = file_diff("Edit", &input, 3, Missing::Empty).unwrap();
        assert_eq!(
            d,
            [
                DiffLine::Ctx("a".into()),
                DiffLine::Del("b".into()),
                DiffLine::Add("B".into()),
                DiffLine::Ctx("c".into())
            ]
        );
        let only_new = json!({"new_string": "x"});
        assert_eq!(edit_diff("Edit", &only_new), None);
        assert_eq!(
            file_diff("Edit", &only_new, 3, Missing::Empty).unwrap(),
            [DiffLine::Add("x".into())]
        );
        assert_eq!(
            file_diff("MultiEdit", &json!({}), 3, Missing::Empty),
            Some(vec![])
        );
    }
}

/// The plan an ExitPlanMode call presents, if any.
pub(crate) fn plan(call: &ToolCall) -> Option<&str> {
    if canonical_name(call) != "ExitPlanMode" {
        return None;
    }
    call.input
        .get("plan")
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
}

/// True for a call an MCP server answers: its line names the server instead of summing up the
/// input, whose meaning only the server knows.
pub(crate) fn is_mcp(call: &ToolCall) -> bool {
    call.caller == Caller::Mcp
}

/// A tool's output as text a reader can see: text items as they are, and a short mark for what
/// is not text (`[image/png]`, `[tool_reference: TaskCreate]`), so that no output looks empty.
pub(crate) fn output_text(output: &Value) -> String {
    let items = match output {
        Value::Array(items) => items,
        Value::String(s) => return s.clone(),
        Value::Null => return String::new(),
        other => return other.to_string(),
    };
    let mut parts = Vec::new();
    for item in items {
        let field = |k: &str| item.get(k).and_then(Value::as_str);
        match field("type") {
            Some("text") => parts.push(field("text").unwrap_or_default().to_owned()),
            Some("file") => parts.push(format!("[{}]", field("mediaType").unwrap_or("file"))),
            Some("data") => {
                let name = field("name").unwrap_or("data");
                let detail = item
                    .pointer("/data/tool_name")
                    .and_then(Value::as_str)
                    .map(|t| format!(": {t}"))
                    .unwrap_or_default();
                parts.push(format!("[{name}{detail}]"));
            }
            _ => parts.push(item.to_string()),
        }
    }
    parts.join("\n")
}
