//! The conversation as older (and current) rollouts also record it: raw Responses-API items
//! (`response_item`: `message`, `reasoning`, `function_call`, `function_call_output`,
//! `custom_tool_call`, `local_shell_call`, `web_search_call`, …) and the UI events of
//! `event_msg` lines (`user_message`, `agent_message`, `agent_reasoning`, `exec_command_end`,
//! `patch_apply_end`, `mcp_tool_call_end`, …).
//!
//! Every Codex version writes some of these, and many write the same fact two or three times
//! (the prompt as a `response_item` message and as `user_message`; the answer as
//! `agent_message`, as a `response_item` message and, in current versions, as an
//! `item_completed`). [`Seen`] makes each fact count once: a text fact (prompt, answer,
//! reasoning) is shown from the first line that carries it and its copies on lines of another
//! kind are absorbed; a call is tied across lines by its `call_id`, opened by the first line
//! that names it and finished by the first line that gives its result
//! (`docs/input-codex.md`, "Which line wins").

use std::collections::VecDeque;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::{Value, json};

use crate::input::codex::exec_output;
use crate::input::codex::items::{Item, Outcome, ToolItem};
use crate::input::codex::tools::{self, Change};
use crate::input::fields::{self, str_of};
use crate::model::transcript::Caller;

/// The kind of line a fact came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A `response_item` line (what the model saw or said).
    Response,
    /// An `event_msg` line of the older UI events (`user_message`, `agent_message`, …).
    Event,
    /// An `event_msg/item_completed` line (current versions).
    Item,
}

/// What a text fact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fact {
    Prompt,
    Answer,
    Reasoning,
}

/// How many recent facts are remembered: copies of one fact are written within a few lines of
/// each other, so a short window keeps memory flat however long the rollout is.
const WINDOW: usize = 256;

/// Recent text facts, to recognise a copy written by a line of another kind.
#[derive(Default)]
pub(crate) struct Seen {
    recent: VecDeque<(Source, Fact, u64)>,
}

impl Seen {
    /// True when this fact is new (show it); false when a line of another kind already
    /// carried the same text (absorb it). A text repeated by lines of the *same* kind is a new
    /// fact each time (the model can say the same thing twice).
    pub(crate) fn fresh(&mut self, source: Source, fact: Fact, text: &str) -> bool {
        let mut h = DefaultHasher::new();
        text.trim().hash(&mut h);
        let h = h.finish();
        if let Some(i) = self
            .recent
            .iter()
            .position(|&(s, f, x)| s != source && f == fact && x == h)
        {
            self.recent.remove(i);
            return false;
        }
        self.recent.push_back((source, fact, h));
        if self.recent.len() > WINDOW {
            self.recent.pop_front();
        }
        true
    }
}

/// True for a user-role message the harness wrote for the model rather than a person:
/// one XML-like element (`<environment_context>…</environment_context>`,
/// `<user_instructions>`, `<permissions …>`, …) or the AGENTS.md instructions.
pub(crate) fn is_harness_context(text: &str) -> bool {
    let t = text.trim();
    if t.starts_with("# AGENTS.md instructions") {
        return true;
    }
    let Some(rest) = t.strip_prefix('<') else {
        return false;
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    !name.is_empty() && t.ends_with(&format!("</{name}>"))
}

/// A content part's text: the part itself when it is a string, else its `text`.
fn part_text(c: &Value) -> Option<&str> {
    c.as_str().or_else(|| c.get("text").and_then(Value::as_str))
}

/// The text of a message's content parts (`input_text`, `output_text`, `text`), joined.
pub(crate) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(part_text)
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// The texts of a reasoning item's `summary` (or, when it has none, its raw `content`).
pub(crate) fn reasoning_texts(p: &Value) -> Vec<String> {
    let list = |k: &str| -> Vec<String> {
        fields::array(p, k)
            .iter()
            .filter_map(part_text)
            .filter(|t| !t.trim().is_empty())
            .map(str::to_owned)
            .collect()
    };
    let summary = list("summary");
    if summary.is_empty() {
        list("content")
    } else {
        summary
    }
}

/// Built-in Codex tools whose names contain no MCP server; any other `server__tool` name is
/// an MCP call (how versions before the `namespace` field name them).
fn is_builtin(name: &str) -> bool {
    matches!(
        name,
        "shell"
            | "shell_command"
            | "exec_command"
            | "write_stdin"
            | "container.exec"
            | "local_shell"
            | "apply_patch"
            | "update_plan"
            | "view_image"
            | "web_search"
            | "read_file"
            | "list_dir"
            | "grep_files"
            | "spawn_agent"
            | "resume_agent"
            | "send_input"
            | "wait"
            | "close_agent"
    )
}

/// The kind of a call, remembered until its result arrives (the output of a shell command
/// carries an exit code; others do not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallKind {
    Shell,
    /// `write_stdin`: input to (or a poll of) the unified exec session its arguments name; its
    /// output says whether that session's process still runs or how it exited.
    WriteStdin {
        session: Option<i64>,
    },
    Other,
}

impl CallKind {
    /// True for a call whose output is a process's: its text is searched for an exit code.
    fn runs_a_process(self) -> bool {
        match self {
            CallKind::Shell | CallKind::WriteStdin { .. } => true,
            CallKind::Other => false,
        }
    }
}

/// The tools whose arguments [`call_item`] reads as a JSON object of known fields.
const OBJECT_ARGUMENTS: &[&str] = &[
    "shell",
    "container.exec",
    "local_shell",
    "shell_command",
    "exec_command",
    "update_plan",
    "spawn_agent",
    "resume_agent",
    "send_input",
    "wait",
    "close_agent",
];

/// A `function_call` / `custom_tool_call` → the shared tool item (no outcome yet) and its kind.
/// `arguments` is the call's JSON arguments (already parsed, or the raw text of a custom tool).
pub(crate) fn call_item(name: &str, namespace: &str, arguments: &Value) -> (ToolItem, CallKind) {
    // Arguments that are not a JSON object (cut short, or redacted by whoever shared the log)
    // hold no field of a known tool's shape: the call keeps them as they are.
    if !arguments.is_object() && OBJECT_ARGUMENTS.contains(&name) {
        return (generic(name, arguments.clone()), CallKind::Other);
    }
    let str_arg = |k: &str| arguments.get(k).and_then(Value::as_str);
    let shell = |command: String| {
        let t = tools::shell_item(command, "in_progress", "", None, Value::Null);
        (t, CallKind::Shell)
    };
    match name {
        "shell" | "container.exec" | "local_shell" => match arguments.get("command") {
            Some(Value::Array(argv)) => shell(tools::shell_argv(argv)),
            Some(Value::String(s)) => shell(tools::shell_command(s)),
            _ => shell(String::new()),
        },
        "shell_command" => shell(tools::shell_command(str_arg("command").unwrap_or_default())),
        "exec_command" => shell(tools::shell_command(
            str_arg("cmd").or(str_arg("command")).unwrap_or_default(),
        )),
        "write_stdin" => {
            let session = arguments.get("session_id").and_then(|s| {
                s.as_i64()
                    .or_else(|| s.as_str().and_then(|t| t.parse().ok()))
            });
            (
                generic(name, arguments.clone()),
                CallKind::WriteStdin { session },
            )
        }
        "apply_patch" => {
            let text = arguments
                .as_str()
                .or(str_arg("input"))
                .or(str_arg("patch"))
                .unwrap_or_default();
            let mut t = tools::patch_item(&patch_changes(text), "in_progress", None);
            t.input["patch"] = Value::String(text.to_owned());
            (t, CallKind::Other)
        }
        "update_plan" => {
            let todos: Vec<Value> = fields::array(arguments, "plan")
                .iter()
                .map(|s| {
                    let status = match str_of(s, "status") {
                        "in_progress" => "in_progress",
                        "completed" => "completed",
                        _ => "pending",
                    };
                    json!({ "content": str_of(s, "step"), "status": status })
                })
                .collect();
            let mut input = json!({ "todos": todos });
            if let Some(e) = str_arg("explanation") {
                input["explanation"] = Value::String(e.to_owned());
            }
            let mut t = generic("update_plan", input);
            t.kind = crate::input::tool_kind::todo(&t.input).unwrap_or_default();
            (t, CallKind::Other)
        }
        "spawn_agent" | "resume_agent" | "send_input" | "wait" | "close_agent" => {
            let mut t = generic(name, arguments.clone());
            let agents: Vec<&str> = match arguments.get("ids") {
                Some(Value::Array(ids)) => ids.iter().filter_map(Value::as_str).collect(),
                _ => str_arg("id").into_iter().collect(),
            };
            t.kind = tools::collab_kind(name, str_arg("message").or(str_arg("prompt")), &agents);
            (t, CallKind::Other)
        }
        _ => {
            // Some versions (0.104) name an MCP call `mcp__server__tool` with no namespace.
            let bare = name.strip_prefix("mcp__").filter(|r| r.contains("__"));
            let server = namespace
                .strip_prefix("mcp__")
                .map(str::to_owned)
                .or_else(|| {
                    (!is_builtin(name))
                        .then(|| {
                            bare.unwrap_or(name)
                                .split_once("__")
                                .map(|(s, _)| s.to_owned())
                        })
                        .flatten()
                });
            match server {
                Some(server) => {
                    let tool = bare
                        .unwrap_or(name)
                        .strip_prefix(&format!("{server}__"))
                        .unwrap_or(name)
                        .to_owned();
                    let call = tools::McpCall {
                        server: &server,
                        tool: &tool,
                        arguments: arguments.clone(),
                    };
                    let t = tools::mcp_item(call, "in_progress", &Value::Null, None, None);
                    (t, CallKind::Other)
                }
                None => (generic(name, arguments.clone()), CallKind::Other),
            }
        }
    }
}

/// What a `tool_search_output` found, one line per tool (`mcp__echo: echo, fail` for a
/// namespace), or a line saying it found none.
pub(crate) fn tool_search_found(tools: &Value) -> String {
    let lines: Vec<String> = tools
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let name = str_of(t, "name");
            match t.get("tools").and_then(Value::as_array) {
                Some(inner) => {
                    let names: Vec<&str> = inner.iter().map(|i| str_of(i, "name")).collect();
                    format!("{name}: {}", names.join(", "))
                }
                None => name.to_owned(),
            }
        })
        .collect();
    if lines.is_empty() {
        "no tools found".to_owned()
    } else {
        lines.join("\n")
    }
}

/// A call the renderers know by its name only: the input as the model wrote it.
pub(crate) fn generic(name: &str, input: Value) -> ToolItem {
    let input = if input.is_null() { json!({}) } else { input };
    ToolItem {
        kind: crate::input::tool_kind::classify(
            name,
            Caller::Model,
            None,
            &input,
            crate::input::tool_kind::no_names,
        ),
        name: name.to_owned(),
        input,
        ..ToolItem::default()
    }
}

/// The files an `apply_patch` envelope touches (`*** Add File: p`, `*** Update File: p`,
/// `*** Delete File: p`).
pub(crate) fn patch_changes(patch: &str) -> Vec<Change> {
    patch
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let (kind, path) = if let Some(p) = l.strip_prefix("*** Add File: ") {
                ("add", p)
            } else if let Some(p) = l.strip_prefix("*** Update File: ") {
                ("update", p)
            } else if let Some(p) = l.strip_prefix("*** Delete File: ") {
                ("delete", p)
            } else {
                return None;
            };
            Some(Change {
                path: path.to_owned(),
                kind: kind.to_owned(),
                detail: None,
            })
        })
        .collect()
}

/// A `function_call_output` / `custom_tool_call_output` → the call's outcome. The output is a
/// string (0.40 shell calls: `{"output": …, "metadata": {"exit_code": …}}` as JSON text;
/// current ones: a header (`exec_output`) before the output, kept in the text), a list of
/// content items, or `{content, success}`. The exit code and the wall time stated go into the
/// details, which the call's facts are read from.
pub(crate) fn call_outcome(output: &Value, kind: CallKind) -> Outcome {
    let (text, success) = match output {
        Value::String(s) => (s.clone(), None),
        Value::Array(_) => (content_text(Some(output)), None),
        Value::Object(o) => (
            content_text(o.get("content")),
            o.get("success").and_then(Value::as_bool),
        ),
        other => (other.to_string(), None),
    };
    // 0.40: the shell's output and metadata as JSON text.
    let (text, mut exit_code, mut wall_time_ms) = match scribe_json::parse_line(&text) {
        Ok(v) if v.get("output").is_some_and(Value::is_string) => (
            str_of(&v, "output").to_owned(),
            v.pointer("/metadata/exit_code").and_then(Value::as_i64),
            v.pointer("/metadata/duration_seconds")
                .and_then(Value::as_f64)
                .and_then(exec_output::milliseconds),
        ),
        _ => (text, None, None),
    };
    if let Some(h) = exec_output::header(&text) {
        exit_code = exit_code.or(h.exit_code);
        wall_time_ms = wall_time_ms.or(h.wall_time_ms);
    }
    if kind.runs_a_process() && exit_code.is_none() {
        exit_code = header_exit_code(&text);
    }
    let failed_to_run = kind.runs_a_process()
        && [
            "failed in sandbox",
            "execution error",
            "exec error",
            "aborted",
            "exec_command failed",
        ]
        .iter()
        .any(|p| text.trim_start().starts_with(p));
    let is_error = success == Some(false) || exit_code.is_some_and(|c| c != 0) || failed_to_run;
    let error_text = is_error.then(|| match exit_code {
        Some(c) if !text.trim().is_empty() => format!("exit code {c}\n{}", text.trim_end()),
        Some(c) => format!("exit code {c}"),
        None if text.trim().is_empty() => "failed".to_owned(),
        None => text.trim_end().to_owned(),
    });
    Outcome {
        is_error,
        output: Value::String(text),
        error_text,
        sidecar: exec_output::details(exit_code, wall_time_ms),
    }
}

/// The exit code a shell tool's output states in its first lines (`Process exited with code
/// 2`, `Exit code: 2`, `…exit code: 2, stdout: …`).
fn header_exit_code(text: &str) -> Option<i64> {
    let head: String = text.lines().take(4).collect::<Vec<_>>().join("\n");
    let lower = head.to_ascii_lowercase();
    for marker in ["exited with code ", "exit code: ", "exit code "] {
        if let Some(i) = lower.find(marker) {
            let digits: String = lower[i + marker.len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            if let Ok(c) = digits.parse() {
                return Some(c);
            }
        }
    }
    None
}

/// A text fact as the shared item, for the emitter.
pub(crate) fn text_item(fact: Fact, text: String) -> Item {
    match fact {
        Fact::Prompt => Item::User { text },
        Fact::Answer => Item::Agent { text },
        Fact::Reasoning => Item::Reasoning { text },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_from_another_kind_of_line_is_absorbed_once() {
        let mut s = Seen::default();
        assert!(s.fresh(Source::Event, Fact::Answer, "hi"));
        assert!(!s.fresh(Source::Response, Fact::Answer, "hi "));
        // The model said it again: a new fact, and its copy is absorbed again.
        assert!(s.fresh(Source::Event, Fact::Answer, "hi"));
        assert!(s.fresh(Source::Event, Fact::Answer, "hi"));
        assert!(!s.fresh(Source::Response, Fact::Answer, "hi"));
        assert!(!s.fresh(Source::Response, Fact::Answer, "hi"));
        assert!(s.fresh(Source::Response, Fact::Answer, "hi"));
    }

    #[test]
    fn harness_context_is_told_from_a_prompt() {
        assert!(is_harness_context(
            "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"
        ));
        assert!(is_harness_context(
            "<user_instructions>be brief</user_instructions>"
        ));
        assert!(!is_harness_context("<b>bold</b> is what I want"));
        assert!(!is_harness_context("Fix the build"));
    }

    #[test]
    fn shell_outputs_of_every_version_give_their_exit_code() {
        let o = call_outcome(
            &json!(r#"{"output":"boom\n","metadata":{"exit_code":2,"duration_seconds":0.1}}"#),
            CallKind::Shell,
        );
        assert!(o.is_error);
        assert_eq!(o.output, "boom\n");
        let o = call_outcome(
            &json!("Chunk ID: x\nWall time: 0 s\nProcess exited with code 0\nOutput:\nhi"),
            CallKind::Shell,
        );
        assert!(!o.is_error);
        let o = call_outcome(
            &json!(
                "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 2, stdout: , stderr: x"
            ),
            CallKind::Shell,
        );
        assert!(o.is_error);
        assert!(o.error_text.unwrap().starts_with("exit code 2"));
        // Not a shell: the text is not searched for an exit code, only its header read.
        assert!(!call_outcome(&json!("Exit code: 1"), CallKind::Other).is_error);
        let o = call_outcome(
            &json!("Exit code: 1\nWall time: 2 seconds\nOutput:\nno"),
            CallKind::Other,
        );
        assert!(o.is_error);
        assert_eq!(o.output, "Exit code: 1\nWall time: 2 seconds\nOutput:\nno");
        assert_eq!(o.sidecar, Some(json!({"exitCode": 1, "wallTimeMs": 2000})));
    }

    #[test]
    fn call_names_of_every_version() {
        let (t, k) = call_item("shell", "", &json!({"command": ["bash", "-lc", "ls -1"]}));
        assert_eq!(
            (t.name.as_str(), &t.input["command"], k),
            ("shell", &json!("ls -1"), CallKind::Shell)
        );
        let (t, _) = call_item("echo", "mcp__echo", &json!({"text": "x"}));
        assert_eq!(
            (t.name.as_str(), t.mcp_server.as_deref()),
            ("echo", Some("echo"))
        );
        let (t, _) = call_item("github__get_issue", "", &json!({}));
        assert_eq!(
            (t.name.as_str(), t.mcp_server.as_deref()),
            ("get_issue", Some("github"))
        );
        let (t, _) = call_item(
            "update_plan",
            "",
            &json!({"plan": [{"step": "a", "status": "completed"}]}),
        );
        assert_eq!(t.input["todos"][0]["status"], "completed");
        let (t, _) = call_item(
            "apply_patch",
            "",
            &json!("*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"),
        );
        assert_eq!(t.input["description"], "add a.txt");
    }
}
