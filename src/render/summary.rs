//! One-line summaries of tool calls, shared by the human-readable renderers (the terminal view
//! and Markdown today; HTML can reuse it): `Bash(ls -la)`, `Edit(src/main.rs)`,
//! `echo · echo (MCP)`.
//!
//! The summary picks the one input field a reader needs per well-known tool (the command, the
//! file path, the pattern, the URL, the description); unknown tools fall back to the first short
//! string in their input. The result is plain text: callers escape it for their format.

use serde_json::Value;

use crate::input::claude_blocks::split_mcp_name;
use crate::model::transcript::ToolCall;

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
        // A command outranks its description: the description only restates it.
        _ => &[
            "command",
            "description",
            "file_path",
            "path",
            "pattern",
            "url",
            "query",
            "prompt",
        ],
    }
}

/// Makes a value one short line.
fn one_line(s: &str) -> String {
    let flat: String = s
        .trim()
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.chars().count() > MAX {
        let mut cut: String = flat.chars().take(MAX - 1).collect();
        cut.push('…');
        cut
    } else {
        flat
    }
}

/// The readable summary of a call's input (`ls -la` for a Bash call), if it has one.
pub(crate) fn input_summary(name: &str, input: &Value) -> Option<String> {
    let obj = input.as_object()?;
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
        "MultiEdit" | "ExitPlanMode" | "StructuredOutput" => None,
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

/// An MCP call whose name embeds its server: (server, tool). The name is `mcp__server__tool`,
/// or any `mcp` + separators + the call's `mcpServer` + separators + tool (`mcp_server_tool`).
pub(crate) fn mcp_tool(call: &ToolCall) -> Option<(&str, &str)> {
    if let Some(parts) = split_mcp_name(&call.name) {
        return Some(parts);
    }
    let server = call.mcp_server.as_deref().filter(|s| !s.is_empty())?;
    let rest = call.name.strip_prefix("mcp")?;
    let tool = rest
        .strip_prefix('_')?
        .trim_start_matches('_')
        .strip_prefix(server)?
        .strip_prefix('_')?
        .trim_start_matches('_');
    (!tool.is_empty()).then_some((server, tool))
}

/// The name a reader sees: MCP tools as `tool · server (MCP)`, others as they are.
pub(crate) fn display_name(call: &ToolCall) -> String {
    match mcp_tool(call) {
        Some((server, tool)) => format!("{tool} · {server} (MCP)"),
        None => call.name.clone(),
    }
}

/// The one-line call: `Bash(ls -la)`, `Edit(src/main.rs)`, `echo · echo (MCP)`.
pub(crate) fn call_line(call: &ToolCall) -> String {
    let name = display_name(call);
    if mcp_tool(call).is_some() {
        return name;
    }
    match input_summary(&call.name, &call.input) {
        Some(s) => format!("{name}({s})"),
        None => name,
    }
}

/// True for the tools that run a sub-agent.
pub(crate) fn is_agent(name: &str) -> bool {
    matches!(name, "Agent" | "Task")
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
        assert_eq!(
            call_line(&call("mcp__echo__echo", json!({"text": "x"}))),
            "echo · echo (MCP)"
        );
        let mut gemini_style = call("mcp_echo_echo", json!({"text": "x"}));
        gemini_style.mcp_server = Some("echo".into());
        assert_eq!(call_line(&gemini_style), "echo · echo (MCP)");
        assert_eq!(
            call_line(&call(
                "run_shell_command",
                json!({"command": "ls -1", "description": "List files"})
            )),
            "run_shell_command(ls -1)"
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
}

/// One line of a file change shown as a diff (shared by the terminal and Markdown views).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DiffLine {
    /// A separator between two edits of one MultiEdit.
    Gap,
    Del(String),
    Add(String),
}

/// Which kind of file change a call makes (`Edit`, `MultiEdit` or `Write`), if it makes one:
/// those tools by name, any other by its input (a `file_path` or `path` with `old_string` and
/// `new_string` is an edit, with `content` a write).
pub(crate) fn file_change(name: &str, input: &Value) -> Option<&'static str> {
    match name {
        "Edit" => return Some("Edit"),
        "MultiEdit" => return Some("MultiEdit"),
        "Write" => return Some("Write"),
        _ => {}
    }
    let has = |k: &str| input.get(k).is_some_and(Value::is_string);
    if !(has("file_path") || has("path")) {
        return None;
    }
    if has("old_string") && has("new_string") {
        Some("Edit")
    } else if has("content") {
        Some("Write")
    } else {
        None
    }
}

/// The change an Edit, MultiEdit or Write call makes, from its input: the lines that differ
/// (common leading and trailing lines dropped), or the whole new content for a Write.
pub(crate) fn edit_diff(name: &str, input: &Value) -> Option<Vec<DiffLine>> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut out = Vec::new();
    match file_change(name, input)? {
        "Edit" => pair_diff(&s(input, "old_string")?, &s(input, "new_string")?, &mut out),
        "MultiEdit" => {
            for (i, e) in input.get("edits")?.as_array()?.iter().enumerate() {
                if i > 0 {
                    out.push(DiffLine::Gap);
                }
                pair_diff(
                    &s(e, "old_string").unwrap_or_default(),
                    &s(e, "new_string").unwrap_or_default(),
                    &mut out,
                );
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

fn pair_diff(old: &str, new: &str, out: &mut Vec<DiffLine>) {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    out.extend(
        a[head..a.len() - tail]
            .iter()
            .map(|l| DiffLine::Del((*l).to_owned())),
    );
    out.extend(
        b[head..b.len() - tail]
            .iter()
            .map(|l| DiffLine::Add((*l).to_owned())),
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
    fn other_tools_are_file_changes_by_their_input() {
        let edit = json!({"file_path": "f", "old_string": "a", "new_string": "b"});
        assert_eq!(file_change("replace", &edit), Some("Edit"));
        let write = json!({"file_path": "f", "content": "x\ny"});
        assert_eq!(file_change("write_file", &write), Some("Write"));
        assert_eq!(edit_diff("write_file", &write).map(|d| d.len()), Some(2));
        assert_eq!(file_change("read_file", &json!({"file_path": "f"})), None);
        assert_eq!(file_change("note", &json!({"content": "x"})), None);
    }
}

/// The plan an ExitPlanMode call presents, if any.
pub(crate) fn plan(call: &ToolCall) -> Option<&str> {
    if call.name != "ExitPlanMode" {
        return None;
    }
    call.input
        .get("plan")
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
}

/// A tool's output as text a reader can see: text items as they are, and a short mark for what
/// is not text (`[image/png]`, `[tool_reference: TaskCreate]`), so that no output looks empty.
pub(crate) fn output_text(output: &Value) -> String {
    let Value::Array(items) = output else {
        return crate::input::claude_blocks::output_text(output);
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
