//! Building a tool call's [`ToolKind`] from what an adapter read: the constructors every adapter
//! uses, and the fallback for tools no adapter table names.
//!
//! Each agent's folder has a table of its own tool names (`claude::tools`, `qwen::tool_names`,
//! `gemini::tool_names`; Codex builds its kinds item by item). [`classify`] asks that table
//! first; a call it does not name is an MCP call, a sub-agent call, or is recognised by the shape
//! of its input (a `command` runs a shell, `old_string` + `new_string` edit a file, a `todos` list
//! is a todo list), so that a tool nobody has seen yet is still drawn by what it does.

use serde_json::Value;

use crate::model::details::Details;

use crate::model::tool_kind::{ResultFacts, TextEdit, TodoItem, TodoStatus, ToolKind};
use crate::model::transcript::Caller;

/// An agent's table of its own tool names: the kind of a call it knows by name, `None` for one
/// it does not.
pub(crate) type ToolTable = fn(&str, &Value) -> Option<ToolKind>;

/// The kind of a call: the agent's table first, then who runs it, then the shape of its input.
pub(crate) fn classify(
    name: &str,
    caller: Caller,
    mcp_server: Option<&str>,
    input: &Value,
    table: ToolTable,
) -> ToolKind {
    if caller == Caller::Mcp {
        return mcp(name, mcp_server.unwrap_or_default(), input);
    }
    if let Some(kind) = table(name, input) {
        return kind;
    }
    if caller == Caller::Subagent {
        return subagent(input);
    }
    by_shape(name, input)
}

/// An agent's reader of its own result details (the sidecar): what a reader of a finished call
/// wants that its output does not say.
pub(crate) type FactsReader = fn(&Details) -> ResultFacts;

/// A reader for result details that carry nothing scribe shows beside the output.
pub(crate) fn no_facts(_details: &Details) -> ResultFacts {
    ResultFacts::default()
}

/// A table that knows no tool name (formats whose calls carry no agent-specific names).
pub(crate) fn no_names(_name: &str, _input: &Value) -> Option<ToolKind> {
    None
}

/// The kind of a call no table names, from the shape of its input.
pub(crate) fn by_shape(name: &str, input: &Value) -> ToolKind {
    let lower = name.to_ascii_lowercase();
    let has_path = file_path(input).is_some();
    if let (Some(old), Some(new)) = (
        str_field(input, "old_string"),
        str_field(input, "new_string"),
    ) {
        return ToolKind::Edit {
            path: file_path(input).unwrap_or_default().to_owned(),
            old: old.to_owned(),
            new: new.to_owned(),
        };
    }
    if has_path && let Some(kind) = multi_edit(input) {
        return kind;
    }
    if has_path
        && lower.contains("write")
        && let Some(kind) = write(input)
    {
        return kind;
    }
    if let Some(kind) = todo(input) {
        return kind;
    }
    if let Some(kind) = shell(input) {
        return kind;
    }
    if has_path
        && lower.contains("read")
        && let Some(kind) = read(input)
    {
        return kind;
    }
    other(input)
}

/// A string field of an input.
pub(crate) fn str_field<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str)
}

/// The first of `keys` that holds a non-empty string.
pub(crate) fn first_of(input: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| str_field(input, k).filter(|s| !s.is_empty()))
        .map(str::to_owned)
}

/// The file a call acts on, under the names agents give it.
pub(crate) fn file_path(input: &Value) -> Option<&str> {
    ["file_path", "absolute_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| str_field(input, k))
        .filter(|p| !p.is_empty())
}

/// The input fields that most often say what an unknown tool's call is about, in order.
pub(crate) const SUBJECT_KEYS: &[&str] = &[
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
];

/// A call of a tool nobody describes: its subject is the first of the usual fields it has.
pub(crate) fn other(input: &Value) -> ToolKind {
    other_by(input, SUBJECT_KEYS)
}

/// A call whose subject is the first of `keys` the input has.
pub(crate) fn other_by(input: &Value, keys: &[&str]) -> ToolKind {
    ToolKind::Other {
        subject: first_of(input, keys),
    }
}

/// `{command, description?}` → a shell command.
pub(crate) fn shell(input: &Value) -> Option<ToolKind> {
    Some(ToolKind::Shell {
        command: str_field(input, "command")?.to_owned(),
        description: str_field(input, "description").map(str::to_owned),
    })
}

/// `{file_path | absolute_path | path}` → a file read.
pub(crate) fn read(input: &Value) -> Option<ToolKind> {
    Some(ToolKind::Read {
        path: file_path(input)?.to_owned(),
    })
}

/// `{file_path, content}` → a whole-file write.
pub(crate) fn write(input: &Value) -> Option<ToolKind> {
    Some(ToolKind::Write {
        path: file_path(input).unwrap_or_default().to_owned(),
        content: str_field(input, "content")?.to_owned(),
    })
}

/// `{file_path, old_string, new_string}` → an edit.
pub(crate) fn edit(input: &Value) -> Option<ToolKind> {
    Some(ToolKind::Edit {
        path: file_path(input).unwrap_or_default().to_owned(),
        old: str_field(input, "old_string")?.to_owned(),
        new: str_field(input, "new_string")?.to_owned(),
    })
}

/// `{file_path, edits: [{old_string, new_string}]}` → several edits of one file.
pub(crate) fn multi_edit(input: &Value) -> Option<ToolKind> {
    let edits = input.get("edits")?.as_array()?;
    Some(ToolKind::MultiEdit {
        path: file_path(input).unwrap_or_default().to_owned(),
        edits: edits
            .iter()
            .map(|e| TextEdit {
                old: str_field(e, "old_string").unwrap_or_default().to_owned(),
                new: str_field(e, "new_string").unwrap_or_default().to_owned(),
            })
            .collect(),
    })
}

/// `{pattern, path?}` → a search.
pub(crate) fn search(input: &Value) -> Option<ToolKind> {
    Some(ToolKind::Search {
        pattern: str_field(input, "pattern")?.to_owned(),
        path: str_field(input, "path").map(str::to_owned),
    })
}

/// `{url}` → a page fetched.
pub(crate) fn web_fetch(input: &Value) -> Option<ToolKind> {
    let url = str_field(input, "url")?.to_owned();
    Some(ToolKind::WebFetch { url })
}

/// `{query}` → a web search.
pub(crate) fn web_search(input: &Value) -> Option<ToolKind> {
    let query = str_field(input, "query")?.to_owned();
    Some(ToolKind::WebSearch { query })
}

/// `{plan}` → a plan put to the user.
pub(crate) fn plan(input: &Value) -> Option<ToolKind> {
    let plan = str_field(input, "plan")?.to_owned();
    Some(ToolKind::Plan { plan })
}

/// `{todos: [{content, status}]}` → the whole todo list.
pub(crate) fn todo(input: &Value) -> Option<ToolKind> {
    let todos = input.get("todos")?.as_array()?;
    Some(ToolKind::Todo {
        items: todos
            .iter()
            .map(|t| TodoItem {
                status: TodoStatus::from_word(str_field(t, "status").unwrap_or_default()),
                text: str_field(t, "content").unwrap_or_default().to_owned(),
            })
            .collect(),
    })
}

/// `{description, …}` → a sub-agent run.
pub(crate) fn subagent(input: &Value) -> ToolKind {
    ToolKind::Subagent {
        description: str_field(input, "description")
            .unwrap_or_default()
            .to_owned(),
    }
}

/// An MCP call: its server, the server's own tool name and its subject.
pub(crate) fn mcp(name: &str, server: &str, input: &Value) -> ToolKind {
    ToolKind::Mcp {
        server: server.to_owned(),
        tool: mcp_tool_name(name, server).to_owned(),
        subject: first_of(input, SUBJECT_KEYS),
    }
}

/// The server in an MCP tool's name `mcp<sep><server><sep><tool>`: `sep` is `__` for Claude Code
/// and Qwen Code (whose server names cannot hold `__`), `_` for Gemini CLI (cut at the first `_`).
pub(crate) fn mcp_server_in<'a>(name: &'a str, sep: &str) -> Option<&'a str> {
    let (server, tool) = name
        .strip_prefix("mcp")?
        .strip_prefix(sep)?
        .split_once(sep)?;
    (!server.is_empty() && !tool.is_empty()).then_some(server)
}

/// An MCP call's own tool name: its name with the server's prefix taken off (`mcp__server__tool`,
/// `mcp_server_tool` or `server__tool` → `tool`), or the name as it is when it has none.
pub(crate) fn mcp_tool_name<'a>(name: &'a str, server: &str) -> &'a str {
    name.strip_prefix("mcp__")
        .or_else(|| name.strip_prefix("mcp_"))
        .unwrap_or(name)
        .strip_prefix(server)
        .and_then(|t| t.strip_prefix("__").or_else(|| t.strip_prefix('_')))
        .filter(|t| !t.is_empty() && !server.is_empty())
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_of_unknown_tools() {
        let k = |name: &str, input: Value| by_shape(name, &input);
        assert!(matches!(
            k("run", json!({"command": "ls"})),
            ToolKind::Shell { .. }
        ));
        assert!(matches!(
            k(
                "change",
                json!({"file_path": "f", "old_string": "a", "new_string": "b"})
            ),
            ToolKind::Edit { .. }
        ));
        assert!(matches!(
            k("write_file", json!({"file_path": "f", "content": "x"})),
            ToolKind::Write { .. }
        ));
        assert!(matches!(
            k("plan", json!({"todos": []})),
            ToolKind::Todo { .. }
        ));
        assert!(matches!(
            k("read_file", json!({"absolute_path": "/f"})),
            ToolKind::Read { .. }
        ));
        assert_eq!(
            k("list", json!({"x": 1, "path": "/d"})),
            ToolKind::Other {
                subject: Some("/d".into())
            }
        );
    }

    #[test]
    fn mcp_servers() {
        assert_eq!(mcp_server_in("mcp__echo__echo", "__"), Some("echo"));
        assert_eq!(
            mcp_server_in("mcp__plugin_x_srv__do_it", "__"),
            Some("plugin_x_srv")
        );
        assert_eq!(mcp_server_in("Bash", "__"), None);
        assert_eq!(mcp_server_in("mcp_echo_echo", "_"), Some("echo"));
        assert_eq!(mcp_server_in("mcp_gh_list_issues", "_"), Some("gh"));
        assert_eq!(mcp_server_in("run_shell_command", "_"), None);
        assert_eq!(mcp_server_in("mcp_only", "_"), None);
        assert_eq!(mcp_server_in("mcp__echo__echo", "_"), None);
    }

    #[test]
    fn mcp_names() {
        assert_eq!(mcp_tool_name("mcp__echo__echo", "echo"), "echo");
        assert_eq!(mcp_tool_name("mcp_my_srv_do_it", "my_srv"), "do_it");
        assert_eq!(mcp_tool_name("docs__search", "docs"), "search");
        assert_eq!(mcp_tool_name("lookup", "remote-kb"), "lookup");
        assert_eq!(mcp_tool_name("mcp__x__y", ""), "mcp__x__y");
    }
}
