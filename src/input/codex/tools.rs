//! The tool-like Codex items shared by every Codex layout: a shell command (with its shell
//! wrapper removed), a patch, an MCP call, a web search and the plan, each shaped for the
//! renderers' one-line summaries (`shell` with `{command}`, `apply_patch` with a `description`,
//! `mcp__<server>__<tool>`, `WebSearch` with `query`, `TodoWrite` with `todos`).

use serde_json::{Value, json};

use crate::input::codex::items::{Outcome, ToolItem};
use crate::input::fields::str_of;
use crate::input::tool_kind;
use crate::model::tool_kind::{PatchFile, ToolKind};
use crate::model::transcript::{Caller, NonText, ResultFacts, output_text};
/// A call of Codex's collab tools (the sub-agents it starts and talks to) → its kind. Starting,
/// resuming or writing to a sub-agent hands it a prompt: a sub-agent call described by that
/// prompt. Waiting for or closing sub-agents hands them nothing: a call about those agents.
pub(crate) fn collab_kind(tool: &str, prompt: Option<&str>, agents: &[&str]) -> ToolKind {
    match tool {
        "spawn_agent" | "resume_agent" | "send_input" => ToolKind::Subagent {
            description: prompt.unwrap_or_default().to_owned(),
        },
        _ => ToolKind::Other {
            subject: Some(agents.join(", ")).filter(|s| !s.is_empty()),
        },
    }
}

/// The shell command a reader wants to see: `/bin/bash -lc 'echo hi'` → `echo hi`. Anything
/// that is not one shell with `-c`/`-lc` and one quoted word is returned as it is.
pub(crate) fn shell_command(cmd: &str) -> String {
    let mut words = cmd.splitn(3, ' ');
    let (Some(shell), Some(flag), Some(rest)) = (words.next(), words.next(), words.next()) else {
        return cmd.to_owned();
    };
    if !is_shell(shell) || !matches!(flag, "-c" | "-lc") {
        return cmd.to_owned();
    }
    unquote(rest).unwrap_or_else(|| cmd.to_owned())
}

/// The same for an argv array (rollouts): `["/bin/bash", "-lc", "echo hi"]` → `echo hi`.
pub(crate) fn shell_argv(argv: &[Value]) -> String {
    let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
    match words.as_slice() {
        [shell, flag, script] if is_shell(shell) && matches!(*flag, "-c" | "-lc") => {
            (*script).to_owned()
        }
        _ => words.join(" "),
    }
}

fn is_shell(word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    matches!(base, "bash" | "sh" | "zsh" | "dash")
}

/// Undoes POSIX single-quoting of one word (`'a'\''b'` → `a'b`); `None` for anything else.
fn unquote(word: &str) -> Option<String> {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '\'') => quoted = false,
            (true, c) => out.push(c),
            (false, '\'') => quoted = true,
            (false, '\\') => out.push(chars.next()?),
            (false, c) if c.is_whitespace() || matches!(c, '"' | '$' | '`' | ';' | '&' | '|') => {
                return None;
            }
            (false, c) => out.push(c),
        }
    }
    (!quoted).then_some(out)
}

/// What a reader of a finished call wants beside its output, from the details scribe keeps of
/// it: how long a command ran, from the `duration` Codex reports (`{secs, nanos}`) or the wall
/// time its output's header states (`wallTimeMs`), and the exit code it ended with.
pub(crate) fn result_facts(sidecar: Option<&Value>) -> ResultFacts {
    let field = |k: &str| sidecar.and_then(|s| s.get(k));
    let duration_ms = field("duration")
        .and_then(|d| {
            let secs = d.get("secs")?.as_u64()?;
            let nanos = d.get("nanos").and_then(Value::as_u64).unwrap_or(0);
            Some(secs.saturating_mul(1000).saturating_add(nanos / 1_000_000))
        })
        .or_else(|| field("wallTimeMs").and_then(Value::as_u64));
    ResultFacts {
        duration_ms,
        exit_code: field("exitCode").and_then(Value::as_i64),
        ..ResultFacts::default()
    }
}

/// A `shell` call: input `{command}`, output the interleaved stdout+stderr; a failed or declined
/// command is an error whose text starts with its exit code.
pub(crate) fn shell_item(
    command: String,
    status: &str,
    output: &str,
    exit_code: Option<i64>,
    sidecar: Value,
) -> ToolItem {
    let outcome = match status {
        "in_progress" | "" => None,
        "completed" if exit_code.is_none_or(|c| c == 0) => Some(Outcome {
            output: Value::String(output.to_owned()),
            sidecar: Some(sidecar),
            ..Outcome::default()
        }),
        other => {
            let head = match (exit_code, other) {
                (Some(c), _) => format!("exit code {c}"),
                (None, "declined") => "declined".to_owned(),
                (None, s) => s.to_owned(),
            };
            let text = if output.trim().is_empty() {
                head
            } else {
                format!("{head}\n{}", output.trim_end())
            };
            Some(Outcome {
                is_error: true,
                output: Value::String(output.to_owned()),
                error_text: Some(text),
                sidecar: Some(sidecar),
            })
        }
    };
    ToolItem {
        name: "shell".into(),
        kind: ToolKind::Shell {
            command: command.clone(),
            description: None,
        },
        input: json!({ "command": command }),
        outcome,
        ..ToolItem::default()
    }
}

/// One file a patch touched: its path, what happened to it (`add`/`update`/`delete`) and, from
/// a rollout, the diff or the new content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    /// The file's path (absolute in both formats).
    pub(crate) path: String,
    /// `add`, `update` or `delete`.
    pub(crate) kind: String,
    /// A rollout's `unified_diff` or `content`, with the field name it keeps in the input.
    pub(crate) detail: Option<(&'static str, String)>,
}

/// An `apply_patch` call: input `{description, changes}`, output a line per file (`A path`).
pub(crate) fn patch_item(
    changes: &[Change],
    status: &str,
    tool_output: Option<String>,
) -> ToolItem {
    let description = changes
        .iter()
        .map(|c| format!("{} {}", c.kind, c.path))
        .collect::<Vec<_>>()
        .join(", ");
    let list: Vec<Value> = changes
        .iter()
        .map(|c| {
            let mut o = json!({ "path": c.path, "kind": c.kind });
            if let Some((k, v)) = &c.detail {
                o[*k] = Value::String(v.clone());
            }
            o
        })
        .collect();
    let summary = || {
        changes
            .iter()
            .map(|c| {
                let letter = match c.kind.as_str() {
                    "add" => "A",
                    "delete" => "D",
                    "update" => "M",
                    _ => "?",
                };
                format!("{letter} {}", c.path)
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let outcome = match status {
        "in_progress" | "" => None,
        "completed" => Some(Outcome {
            output: Value::String(tool_output.unwrap_or_else(summary)),
            ..Outcome::default()
        }),
        other => Some(Outcome {
            is_error: true,
            output: Value::String(tool_output.clone().unwrap_or_default()),
            error_text: Some(
                tool_output
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or_else(|| format!("patch {other}")),
            ),
            sidecar: None,
        }),
    };
    ToolItem {
        name: "apply_patch".into(),
        kind: ToolKind::Patch {
            files: changes
                .iter()
                .map(|c| PatchFile {
                    path: c.path.clone(),
                    change: c.kind.clone(),
                })
                .collect(),
        },
        input: json!({ "description": description, "changes": list }),
        outcome,
        ..ToolItem::default()
    }
}

/// What an MCP call asked: the server, its tool and the arguments.
pub(crate) struct McpCall<'a> {
    /// The MCP server's name.
    pub(crate) server: &'a str,
    /// The server's own name of the tool.
    pub(crate) tool: &'a str,
    /// The arguments the tool was called with.
    pub(crate) arguments: Value,
}

impl<'a> McpCall<'a> {
    /// The call as an item or an invocation spells it: `server`, `tool`, `arguments`.
    fn of(v: &'a Value) -> McpCall<'a> {
        McpCall {
            server: str_of(v, "server"),
            tool: str_of(v, "tool"),
            arguments: v.get("arguments").cloned().unwrap_or(Value::Null),
        }
    }
}

/// An `mcp_tool_call` item (the stream's and a rollout's alike, but for the key of the
/// structured content): its call, `result` and `error.message`.
pub(crate) fn mcp_item_of(it: &Value, status: &str, structured: &str) -> ToolItem {
    let result = it.get("result").unwrap_or(&Value::Null);
    let error = it.pointer("/error/message").and_then(Value::as_str);
    mcp_item(
        McpCall::of(it),
        status,
        result,
        error.map(str::to_owned),
        result.get(structured).cloned(),
    )
}

/// An MCP call, named by the server's own tool name (its kind names the server too).
/// `result` is the MCP result (its `content` becomes the output); a
/// failed call with no `error` takes its error text from the result (Codex reports an
/// `isError` result as `status: failed`, `error: null`).
pub(crate) fn mcp_item(
    call: McpCall<'_>,
    status: &str,
    result: &Value,
    error: Option<String>,
    structured: Option<Value>,
) -> ToolItem {
    let McpCall {
        server,
        tool,
        arguments,
    } = call;
    let output = result.get("content").cloned().unwrap_or(Value::Null);
    let outcome = match status {
        "in_progress" | "" => None,
        s => {
            let is_error = s != "completed"
                || error.is_some()
                || result.get("isError").and_then(Value::as_bool) == Some(true);
            Some(Outcome {
                is_error,
                error_text: if is_error {
                    Some(
                        error
                            .unwrap_or_else(|| output_text(&output, NonText::Skip))
                            .trim()
                            .to_owned(),
                    )
                    .filter(|t| !t.is_empty())
                    .or_else(|| Some(format!("MCP call {s}")))
                } else {
                    None
                },
                output,
                sidecar: structured.filter(|v| !v.is_null()),
            })
        }
    };
    ToolItem {
        name: tool.to_owned(),
        kind: ToolKind::Mcp {
            server: server.to_owned(),
            tool: tool.to_owned(),
            subject: tool_kind::first_of(&arguments, tool_kind::SUBJECT_KEYS),
        },
        caller: Caller::Mcp,
        mcp_server: Some(server.to_owned()),
        input: if arguments.is_null() {
            json!({})
        } else {
            arguments
        },
        outcome,
        snapshot: false,
    }
}

/// A web search, run by the model provider: `web_search` with `query` (and the action taken).
pub(crate) fn web_search_item(
    query: &str,
    action: Option<Value>,
    call_id: Option<String>,
    done: bool,
) -> ToolItem {
    let mut input = json!({ "query": query });
    if let Some(a) = action.filter(|a| !a.is_null()) {
        input["action"] = a;
    }
    ToolItem {
        name: "web_search".into(),
        kind: ToolKind::WebSearch {
            query: query.to_owned(),
        },
        caller: Caller::ServerTool,
        input,
        outcome: done.then(|| Outcome {
            output: Value::String(String::new()),
            sidecar: call_id.map(|id| json!({ "callId": id })),
            ..Outcome::default()
        }),
        ..ToolItem::default()
    }
}

/// The agent's plan (`todo_list`, written by Codex's `update_plan` tool) as a todo list:
/// `{todos: [{content, status}]}`, status `completed` or `pending`. Each change of the list is
/// one call (see [`ToolItem::snapshot`]).
pub(crate) fn todo_item(items: &[Value]) -> ToolItem {
    let todos: Vec<Value> = items
        .iter()
        .map(|i| {
            let text = str_of(i, "text");
            let completed = i.get("completed").and_then(Value::as_bool) == Some(true);
            json!({
                "content": text,
                "status": if completed { "completed" } else { "pending" },
            })
        })
        .collect();
    ToolItem {
        kind: tool_kind::todo(&json!({ "todos": todos })).unwrap_or_default(),
        name: "update_plan".into(),
        input: json!({ "todos": todos }),
        snapshot: true,
        ..ToolItem::default()
    }
}

/// A finished shell command of the older UI events (`exec_command_end`): its outcome.
pub(crate) fn exec_end_outcome(p: &Value) -> Outcome {
    let output = ["aggregated_output", "formatted_output"]
        .iter()
        .find_map(|k| p.get(*k).and_then(Value::as_str).filter(|s| !s.is_empty()))
        .map(str::to_owned)
        .unwrap_or_else(|| std_streams(p));
    let exit_code = p.get("exit_code").and_then(Value::as_i64);
    let command = match p.get("command") {
        Some(Value::Array(argv)) => shell_argv(argv),
        Some(Value::String(s)) => shell_command(s),
        _ => String::new(),
    };
    let sidecar = json!({
        "command": p.get("command").cloned().unwrap_or(Value::Null),
        "exitCode": exit_code,
        "duration": p.get("duration").cloned().unwrap_or(Value::Null),
    });
    shell_item(command, "completed", &output, exit_code, sidecar)
        .outcome
        .unwrap_or(Outcome {
            output: Value::String(output),
            ..Outcome::default()
        })
}

/// A finished MCP call of the older UI events (`mcp_tool_call_end`): the tool item with its
/// outcome (`result` is `{Ok: CallToolResult}` or `{Err: message}`).
pub(crate) fn mcp_end_item(p: &Value) -> ToolItem {
    let inv = p.get("invocation").unwrap_or(&Value::Null);
    let result = p.get("result").unwrap_or(&Value::Null);
    let (ok, err) = match (result.get("Ok"), result.get("Err")) {
        (Some(ok), _) => (ok.clone(), None),
        (None, Some(e)) => (
            Value::Null,
            Some(e.as_str().map_or_else(|| e.to_string(), str::to_owned)),
        ),
        (None, None) => (result.clone(), None),
    };
    let failed = err.is_some() || ok.get("isError").and_then(Value::as_bool) == Some(true);
    mcp_item(
        McpCall::of(inv),
        if failed { "failed" } else { "completed" },
        &ok,
        err,
        ok.get("structuredContent").cloned(),
    )
}

/// A command's `stdout` and `stderr`, the empty ones left out, one after the other.
pub(crate) fn std_streams(p: &Value) -> String {
    [str_of(p, "stdout"), str_of(p, "stderr")]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
}

/// A finished patch of the older UI events (`patch_apply_end`): its outcome.
pub(crate) fn patch_end_outcome(p: &Value) -> Outcome {
    let out = std_streams(p);
    let ok = p.get("success").and_then(Value::as_bool) != Some(false);
    Outcome {
        is_error: !ok,
        error_text: (!ok).then(|| {
            if out.trim().is_empty() {
                "patch failed".to_owned()
            } else {
                out.clone()
            }
        }),
        output: Value::String(out),
        sidecar: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command's `{secs, nanos}` duration (or its output's wall time) is its facts'
    /// milliseconds; any other shape, none. Its exit code is a fact too.
    #[test]
    fn a_command_duration_is_read_as_milliseconds() {
        let ms = |v: Value| result_facts(Some(&v)).duration_ms;
        assert_eq!(
            ms(json!({"duration": {"secs": 1, "nanos": 250_000_000}})),
            Some(1250)
        );
        assert_eq!(ms(json!({"duration": {"secs": 3}})), Some(3000));
        assert_eq!(ms(json!({"duration": "1.2s"})), None);
        assert_eq!(ms(json!({"exitCode": 0})), None);
        assert_eq!(ms(json!({"wallTimeMs": 1001})), Some(1001));
        assert_eq!(
            result_facts(Some(&json!({"exitCode": 2}))).exit_code,
            Some(2)
        );
        assert!(result_facts(None).is_empty());
    }

    #[test]
    fn unwraps_shell_commands() {
        assert_eq!(
            shell_command("/bin/bash -lc 'echo hello-from-shell && ls -1'"),
            "echo hello-from-shell && ls -1"
        );
        assert_eq!(shell_command("bash -c 'it'\\''s'"), "it's");
        assert_eq!(shell_command("/bin/bash -lc ls"), "ls");
        // Two words, or something that is not a shell: kept as it is.
        assert_eq!(
            shell_command("/bin/bash -lc 'a' 'b'"),
            "/bin/bash -lc 'a' 'b'"
        );
        assert_eq!(shell_command("python3 -c 'x'"), "python3 -c 'x'");
        assert_eq!(shell_command("/bin/bash -lc 'open"), "/bin/bash -lc 'open");
        assert_eq!(
            shell_argv(&[json!("/bin/bash"), json!("-lc"), json!("cat x; exit 3")]),
            "cat x; exit 3"
        );
        assert_eq!(shell_argv(&[json!("ls"), json!("-1")]), "ls -1");
    }
}

#[cfg(test)]
mod collab_tests {
    use super::*;

    #[test]
    fn collab_tools_are_sub_agent_calls_or_calls_about_agents() {
        assert_eq!(
            collab_kind("spawn_agent", Some("check the tests"), &[]),
            ToolKind::Subagent {
                description: "check the tests".into()
            }
        );
        assert_eq!(
            collab_kind("wait", None, &["t1", "t2"]),
            ToolKind::Other {
                subject: Some("t1, t2".into())
            }
        );
        assert_eq!(
            collab_kind("close_agent", None, &[]),
            ToolKind::Other { subject: None }
        );
    }
}
