//! OpenAI Codex CLI items → normalized events, shared by the `codex exec --json` stream
//! (`codex::exec`) and the saved rollout files (`codex::rollout`).
//!
//! Both formats describe a run as a list of *items* (an agent message, a reasoning summary, a
//! shell command, a patch, an MCP call, …), shaped differently in each (snake_case flattened in
//! the stream, PascalCase with other field names in a rollout's `event_msg/item_completed`). Each
//! adapter turns its shape into an [`Item`]; the [`Emitter`] turns items into events the same way
//! for both, so the two formats fold into the same transcript (`docs/input-codex.md`).
//!
//! Each call keeps the name of the Codex tool behind the item and says what it does in its kind:
//! `shell` (a shell command, input `{command}`), `apply_patch` (a patch; input `{description,
//! changes}`), the MCP server's own tool name (an MCP call, with its server), `web_search` (a web
//! search, input `{query}`) and `update_plan` (the plan as a todo list, input `{todos}`).

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};

use crate::input::tool_kind;
use crate::model::event::{Event, EventKind};
use crate::model::session::{Level, SystemNotice};
use crate::model::tool_kind::{PatchFile, ToolKind};
use crate::model::transcript::{Caller, Part, Role, ToolCall, Turn, TurnMeta, TurnOrigin, Usage};

/// Where an item is in its life: the stream sends `item.started`, `item.updated` and
/// `item.completed`; a rollout only records completed items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Started,
    Updated,
    Completed,
}

/// One Codex item, in the shape both formats share once decoded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    /// The agent's answer (markdown): an assistant text part.
    Agent { text: String },
    /// A reasoning summary: an assistant reasoning part.
    Reasoning { text: String },
    /// The user's prompt (rollouts only: the stream never carries it).
    User { text: String },
    /// Something the agent ran: a shell command, a patch, an MCP call, a web search, a plan.
    Tool(Box<ToolItem>),
    /// A non-fatal error item (e.g. unknown model metadata): a warning notice.
    Error { message: String },
}

/// A tool-like item: what the call looks like, and its outcome once it has one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolItem {
    /// The Codex tool's own name (`shell`, `apply_patch`, an MCP server's tool, …).
    pub(crate) name: String,
    /// What the call does.
    pub(crate) kind: ToolKind,
    /// Who runs it: the client (`model`), the provider (`server-tool`) or an MCP server.
    pub(crate) caller: Caller,
    /// The MCP server's name, for an MCP call.
    pub(crate) mcp_server: Option<String>,
    /// The call's input, shaped for the renderers' one-line summaries.
    pub(crate) input: Value,
    /// `None` while the item is still in progress.
    pub(crate) outcome: Option<Outcome>,
    /// Each distinct state of the item is a call of its own that is done at once (the plan:
    /// every change of the list is one call showing the whole list).
    pub(crate) snapshot: bool,
}

/// How a tool-like item ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    /// The call failed (the result is an `error` state).
    pub(crate) is_error: bool,
    /// What the call returned (text, or MCP content blocks).
    pub(crate) output: Value,
    /// Why it failed, in a line a reader understands.
    pub(crate) error_text: Option<String>,
    /// Codex's own details (exit code, raw command, structured MCP content, …).
    pub(crate) sidecar: Option<Value>,
}

/// Turns items into events, keeping what ties them together: the open assistant message, the
/// tool calls already announced, and the run number (item ids restart at `item_0` when
/// `codex exec resume` appends a run, so ids of later runs get an `@<run>` suffix).
#[derive(Default)]
pub(crate) struct Emitter {
    run: u32,
    message: Option<String>,
    announced: HashSet<String>,
    done: HashSet<String>,
    /// Assistant messages opened since the turn began (the `turns` of its result notice).
    messages: u64,
    /// Per snapshot item: how many calls it gave and the last input shown.
    snapshots: HashMap<String, (u32, Value)>,
}

impl Emitter {
    /// A new run of the agent began (`thread.started`): item ids start over.
    pub(crate) fn new_run(&mut self) {
        self.run += 1;
        self.message = None;
    }

    /// An item id made unique across the runs of one thread.
    pub(crate) fn scoped(&self, id: &str) -> String {
        if self.run <= 1 {
            id.to_owned()
        } else {
            format!("{id}@{}", self.run)
        }
    }

    fn message_id(&mut self, item_id: &str) -> String {
        if self.message.is_none() {
            self.messages += 1;
        }
        let fresh = self.scoped(item_id);
        self.message.get_or_insert(fresh).clone()
    }

    /// How many assistant messages the turn that just ended had; starts the count again.
    pub(crate) fn take_messages(&mut self) -> u64 {
        self.message = None;
        std::mem::take(&mut self.messages)
    }

    /// Emits the events for one item at line `line`.
    pub(crate) fn item(
        &mut self,
        phase: Phase,
        id: &str,
        item: Item,
        line: u64,
        timestamp: Option<String>,
        out: &mut Vec<Event>,
    ) {
        let mut push = |kind| out.push(Event { line, kind });
        let block = |message_id: String, part: Part| EventKind::AssistantBlock {
            thread: None,
            message_id,
            part,
            meta: TurnMeta::default(),
            timestamp: timestamp.clone(),
        };
        match item {
            Item::Agent { .. } | Item::Reasoning { .. } if phase != Phase::Completed => {
                push(EventKind::Absorbed {
                    what: "text item in progress (its text arrives whole when it completes)".into(),
                });
            }
            Item::Agent { text } => {
                let m = self.message_id(id);
                push(block(
                    m,
                    Part::Text {
                        text,
                        citations: Vec::new(),
                    },
                ));
            }
            Item::Reasoning { text } => {
                let m = self.message_id(id);
                push(block(
                    m,
                    Part::Reasoning {
                        text,
                        redacted: false,
                        signature: None,
                    },
                ));
            }
            Item::User { text } => {
                self.message = None;
                push(EventKind::UserTurn {
                    turn: Box::new(Turn {
                        id: self.scoped(id),
                        role: Role::User,
                        origin: TurnOrigin::UserInput,
                        parent_task_id: None,
                        parts: vec![Part::Text {
                            text,
                            citations: Vec::new(),
                        }],
                        metadata: TurnMeta::default(),
                        timestamp: timestamp.clone(),
                    }),
                    source_tool_call_id: None,
                });
            }
            Item::Error { message } => push(EventKind::Notice {
                notice: Box::new(SystemNotice::Info {
                    source: "error".into(),
                    level: Level::Warning,
                    text: message,
                    data: Value::Null,
                }),
            }),
            Item::Tool(t) if t.snapshot => {
                let key = self.scoped(id);
                let entry = self
                    .snapshots
                    .entry(key.clone())
                    .or_insert((0, Value::Null));
                if entry.1 == t.input {
                    push(EventKind::Absorbed {
                        what: "item unchanged".into(),
                    });
                    return;
                }
                entry.0 += 1;
                entry.1 = t.input.clone();
                let call_id = if entry.0 == 1 {
                    key
                } else {
                    format!("{key}#{}", entry.0)
                };
                let m = self.message_id(id);
                self.message = None;
                push(block(
                    m,
                    Part::ToolCall {
                        call: Box::new(ToolCall::new(
                            call_id.clone(),
                            t.name,
                            t.kind,
                            t.caller,
                            t.input,
                        )),
                    },
                ));
                push(EventKind::ToolResult {
                    thread: None,
                    tool_call_id: call_id,
                    is_error: false,
                    output: Value::String(String::new()),
                    error_text: None,
                    sidecar: None,
                    server_run: false,
                });
            }
            Item::Tool(t) => {
                let call_id = self.scoped(id);
                if self.done.contains(&call_id) {
                    push(EventKind::Absorbed {
                        what: "item already completed".into(),
                    });
                    return;
                }
                let ToolItem {
                    name,
                    kind,
                    caller,
                    mcp_server,
                    input,
                    outcome,
                    snapshot: _,
                } = *t;
                if self.announced.insert(call_id.clone()) {
                    let mut call = ToolCall::new(call_id.clone(), name, kind, caller, input);
                    call.mcp_server = mcp_server;
                    let m = self.message_id(id);
                    push(block(
                        m,
                        Part::ToolCall {
                            call: Box::new(call),
                        },
                    ));
                } else if phase == Phase::Started {
                    push(EventKind::Absorbed {
                        what: "item started again".into(),
                    });
                } else {
                    push(EventKind::ToolUpdate {
                        tool_call_id: call_id.clone(),
                        state: None,
                        output: None,
                        input: Some(input),
                        kind: Some(kind),
                        error_text: None,
                        sidecar: None,
                    });
                }
                if let (Phase::Completed, Some(o)) = (phase, outcome) {
                    self.announced.remove(&call_id);
                    self.done.insert(call_id.clone());
                    if caller != Caller::ServerTool {
                        // The result goes back to the model: what follows is a new response.
                        self.message = None;
                    }
                    push(EventKind::ToolResult {
                        thread: None,
                        tool_call_id: call_id,
                        is_error: o.is_error,
                        output: o.output,
                        error_text: o.error_text,
                        sidecar: o.sidecar,
                        server_run: caller == Caller::ServerTool,
                    });
                }
            }
        }
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
            is_error: false,
            output: Value::String(output.to_owned()),
            error_text: None,
            sidecar: Some(sidecar),
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
        caller: Caller::Model,
        mcp_server: None,
        input: json!({ "command": command }),
        outcome,
        snapshot: false,
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
            is_error: false,
            output: Value::String(tool_output.unwrap_or_else(summary)),
            error_text: None,
            sidecar: None,
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
        caller: Caller::Model,
        mcp_server: None,
        input: json!({ "description": description, "changes": list }),
        outcome,
        snapshot: false,
    }
}

/// An MCP call, named by the server's own tool name (its kind names the server too).
/// `result` is the MCP result (its `content` becomes the output); a
/// failed call with no `error` takes its error text from the result (Codex reports an
/// `isError` result as `status: failed`, `error: null`).
pub(crate) fn mcp_item(
    server: &str,
    tool: &str,
    arguments: Value,
    status: &str,
    result: &Value,
    error: Option<String>,
    structured: Option<Value>,
) -> ToolItem {
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
                            .unwrap_or_else(|| crate::model::transcript::output_text(&output))
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
        mcp_server: None,
        input,
        outcome: done.then(|| Outcome {
            is_error: false,
            output: Value::String(String::new()),
            error_text: None,
            sidecar: call_id.map(|id| json!({ "callId": id })),
        }),
        snapshot: false,
    }
}

/// The agent's plan (`todo_list`, written by Codex's `update_plan` tool) as a todo list:
/// `{todos: [{content, status}]}`, status `completed` or `pending`. Each change of the list is
/// one call (see [`ToolItem::snapshot`]).
pub(crate) fn todo_item(items: &[Value]) -> ToolItem {
    let todos: Vec<Value> = items
        .iter()
        .map(|i| {
            let text = i.get("text").and_then(Value::as_str).unwrap_or_default();
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
        caller: Caller::Model,
        mcp_server: None,
        input: json!({ "todos": todos }),
        outcome: None,
        snapshot: true,
    }
}

/// Codex usage → the model's Anthropic-style usage. OpenAI's `input_tokens` include the cached
/// ones; Anthropic's do not, so `inputTokens` is the uncached part and `cacheReadInputTokens`
/// the cached part (their sum is Codex's `input_tokens`).
pub(crate) fn usage(v: &Value) -> Option<Usage> {
    let o = v.as_object()?;
    let n = |k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cached_input_tokens");
    Some(Usage {
        input_tokens: n("input_tokens").saturating_sub(cached),
        output_tokens: n("output_tokens"),
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: n("cache_write_input_tokens"),
    })
}

/// The readable text of an error message: Codex passes an HTTP error body through as a JSON
/// string (`{"error": {"message": …, "code": …}}`); the inner message (with its code) is what a
/// reader wants.
pub(crate) fn error_text(message: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(message.trim()) else {
        return message.to_owned();
    };
    let e = v.get("error").unwrap_or(&v);
    match e.get("message").and_then(Value::as_str) {
        Some(m) => match e.get("code").and_then(Value::as_str) {
            Some(code) => format!("{m} ({code})"),
            None => m.to_owned(),
        },
        None => message.to_owned(),
    }
}

/// The notice for a fatal error (`error` line, `turn.failed`, a failed task).
pub(crate) fn failure(
    message: &str,
    turns: u64,
    usage: Option<Usage>,
    duration_ms: Option<u64>,
) -> SystemNotice {
    SystemNotice::Result {
        subtype: "error".into(),
        is_error: true,
        cost: None,
        turns: Some(turns),
        duration_ms,
        duration_api_ms: None,
        usage,
        text: None,
        stop_reason: None,
        terminal_reason: None,
        errors: vec![error_text(message)],
        permission_denials: Vec::new(),
        structured_output: None,
    }
}

/// The notice for a turn that completed; `turns` counts its assistant messages (model
/// responses), like Claude's `num_turns`.
pub(crate) fn success(turns: u64, usage: Option<Usage>, duration_ms: Option<u64>) -> SystemNotice {
    SystemNotice::Result {
        subtype: "success".into(),
        is_error: false,
        cost: None,
        turns: Some(turns),
        duration_ms,
        duration_api_ms: None,
        usage,
        text: None,
        stop_reason: None,
        terminal_reason: None,
        errors: Vec::new(),
        permission_denials: Vec::new(),
        structured_output: None,
    }
}

/// The *first* `id` of a stream line's `item`. A `web_search` item is written with two `id`
/// keys (the item's `item_N`, then the search call's own id); `serde_json::Value` keeps the
/// last, but the item id is the one that pairs `item.started` with `item.completed`.
pub(crate) fn first_item_id(line: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Outer {
        item: FirstId,
    }
    struct FirstId(Option<String>);
    struct FirstIdVisitor;
    impl<'de> Visitor<'de> for FirstIdVisitor {
        type Value = FirstId;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an item object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FirstId, A::Error> {
            let mut first = None;
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" && first.is_none() {
                    first = map.next_value::<Value>()?.as_str().map(str::to_owned);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(FirstId(first))
        }
    }
    impl<'de> Deserialize<'de> for FirstId {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FirstId, D::Error> {
            d.deserialize_map(FirstIdVisitor)
        }
    }
    serde_json::from_str::<Outer>(line).ok()?.item.0
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn first_id_of_a_duplicate_key_item() {
        let line = r#"{"type":"item.started","item":{"id":"item_0","type":"web_search","id":"ws_1","query":"q"}}"#;
        assert_eq!(first_item_id(line).as_deref(), Some("item_0"));
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            v["item"]["id"], "ws_1",
            "Value keeps the last duplicate key"
        );
    }

    #[test]
    fn http_error_bodies_read_as_their_message() {
        assert_eq!(
            error_text(r#"{"error": {"message": "rejected", "type": "x", "code": "c1"}}"#),
            "rejected (c1)"
        );
        assert_eq!(error_text("stream disconnected"), "stream disconnected");
    }

    #[test]
    fn usage_splits_cached_input() {
        let u =
            usage(&json!({"input_tokens": 3400, "cached_input_tokens": 2048, "output_tokens": 80}))
                .unwrap();
        assert_eq!(
            (u.input_tokens, u.cache_read_input_tokens, u.output_tokens),
            (1352, 2048, 80)
        );
    }
}
