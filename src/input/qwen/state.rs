//! The state of one Qwen daemon conversation, shared by the modules that fold it: where events
//! go (`Emit`), the conversation (`Conversation`: threads, tool calls, permission requests), what
//! the daemon said about each call (`CallRecord`), and the small ACP helpers they all use.
//!
//! The folding itself is layered so that no two modules need each other: `qwen::messages`
//! (chunks into parts and messages) uses only this; `qwen::tools` (calls, sub-agents, plans)
//! uses this and `messages`; `qwen::permissions` uses this and `tools`; `qwen::acp` dispatches
//! the daemon's events to all of them.

use foldhash::HashMap;

use serde_json::{Map, Value, json};

use super::acp_kind::{AcpCall, acp_kind, first_location};
use super::waiting::{RunKey, Waiting};
use crate::input::fields::{self, str_of};
use crate::input::tool_kind;
use crate::model::event::{Event, EventKind, Thread};
use crate::model::tool_kind::ToolKind;
use crate::model::transcript::{Caller, Part, Turn, TurnMeta, Usage};

/// Where the events of one daemon envelope go, and what the envelope said about itself.
pub(crate) struct Emit<'a> {
    /// The input line of the envelope (its first `data:` line).
    pub(crate) line: u64,
    /// The envelope's `id` (absent on synthetic frames).
    pub(crate) event_id: Option<u64>,
    /// When the daemon stamped it (`_meta.serverTimestamp`), as RFC 3339 UTC.
    pub(crate) timestamp: Option<String>,
    /// Where the events go.
    pub(crate) out: &'a mut Vec<Event>,
}

impl Emit<'_> {
    /// Where the events of no one envelope go (the end of the input, a gap in the ids).
    pub(crate) fn unplaced(out: &mut Vec<Event>) -> Emit<'_> {
        Emit {
            line: 0,
            event_id: None,
            timestamp: None,
            out,
        }
    }

    /// Appends one event for this envelope.
    pub(crate) fn push(&mut self, kind: EventKind) {
        self.out.push(Event::at(self.line, kind));
    }

    /// Appends `turn`, a user turn this envelope carries, with what the harness said about it
    /// (`machinery`) and the envelope's time.
    pub(crate) fn user_turn(&mut self, turn: Turn, machinery: Map<String, Value>) {
        let meta = TurnMeta {
            machinery,
            ..TurnMeta::default()
        };
        let turn = turn.with_meta(meta).at(self.timestamp.clone());
        self.push(EventKind::user_turn(turn));
    }

    /// A name for something first seen in this envelope: `<prefix>-<eventId>`, or the line.
    pub(crate) fn name(&self, prefix: &str) -> String {
        match self.event_id {
            Some(id) => format!("{prefix}-{id}"),
            None => format!("{prefix}-l{}", self.line),
        }
    }
}

/// What a run of chunks is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ChunkKind {
    User,
    Assistant,
    Thought,
}

/// Chunks gathered into one part.
#[derive(Debug)]
pub(super) struct Gathered {
    pub(super) kind: ChunkKind,
    pub(super) text: String,
    /// Non-text content that came with them (images, links, resources).
    pub(super) extra: Vec<Part>,
    /// The turn id (user chunks) or message id (assistant, thought) it belongs to.
    pub(super) id: String,
    /// The part's position in its message (for live deltas).
    pub(super) index: u64,
    pub(super) line: u64,
    pub(super) timestamp: Option<String>,
    pub(super) source: Option<String>,
}

/// Per thread: the open assistant message and the chunks not yet emitted.
#[derive(Debug, Default)]
pub(super) struct ThreadState {
    /// The message taking parts now (`msg-<eventId>`), if any.
    pub(super) message: Option<String>,
    /// Parts the open message has so far.
    pub(super) parts: u64,
    /// The message a tool result closed, whose usage may still follow.
    pub(super) closed_by_result: Option<String>,
    /// A response's usage that came before any of its content (the daemon sends a `plan`
    /// response's end marker first): it goes to the next message the thread opens.
    pub(super) early_usage: Option<Usage>,
    pub(super) gathered: Option<Gathered>,
}

/// The conversation state of one daemon session.
#[derive(Debug, Default)]
pub(crate) struct Conversation {
    /// Per thread (main, or a sub-agent's): its open message and gathered chunks.
    pub(super) threads: HashMap<Thread, ThreadState>,
    /// Every tool call seen, by id.
    pub(super) calls: HashMap<String, CallRecord>,
    /// Call ids in the order they appeared (cancellation walks them in order).
    pub(super) order: Vec<String>,
    /// Permission requests not resolved yet, by request id.
    pub(super) requests: HashMap<String, Request>,
    /// Output of the user's own shell command (`POST /shell`), until its result.
    pub(super) user_shell: Option<(String, String)>,
    /// The prompt was cancelled (`prompt_cancelled`, with its reason): calls still running end
    /// as cancelled at the turn's end, unless the daemon's own update ends them first (with
    /// the partial output, the signal and its message).
    pub(super) cancelled: Option<String>,
    /// The start of each top-level user turn so far (`session_rewound` names one by index).
    pub(super) prompts: Vec<String>,
    /// Sub-agents launched in the background whose completion has not come: the Agent call's
    /// id and the task id the launch returned, if any (`qwen::background`).
    pub(super) background: Vec<(String, Option<String>)>,
    /// Notices and debug records that came in the middle of a gathered run (`qwen::waiting`).
    pub(super) waiting: Waiting,
}

impl Conversation {
    /// The runs of chunks gathered and not emitted yet, in thread order.
    pub(crate) fn open_runs(&self) -> Vec<RunKey> {
        let mut runs: Vec<RunKey> = self
            .threads
            .iter()
            .filter_map(|(t, st)| {
                st.gathered
                    .as_ref()
                    .map(|g| (t.clone(), g.id.clone(), g.index))
            })
            .collect();
        runs.sort();
        runs
    }
}

/// The sub-agent thread an ACP payload belongs to (`_meta.parentToolCallId`).
pub(super) fn parent_of(upd: &Value) -> Thread {
    upd.pointer("/_meta/parentToolCallId")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A permission request, until it is resolved.
#[derive(Debug)]
pub(super) struct Request {
    pub(super) tool_call_id: Option<String>,
    pub(super) options: Vec<Value>,
    pub(super) label: String,
}

/// What the daemon has said about one tool call so far.
#[derive(Debug, Default)]
pub(super) struct CallRecord {
    pub(super) thread: Thread,
    pub(super) name: String,
    pub(super) status: String,
    pub(super) title: String,
    pub(super) kind: String,
    pub(super) locations: Value,
    pub(super) content: Value,
    pub(super) raw_input: Value,
    pub(super) raw_output: Value,
    pub(super) meta: Map<String, Value>,
    pub(super) permission: Option<Value>,
    pub(super) shell_output: String,
    /// Bytes of `shell_output` already sent in a `tool-update`.
    pub(super) shell_sent: usize,
    pub(super) is_agent: bool,
    pub(super) subtask_started: bool,
    pub(super) denied: bool,
    /// The call has its result: later frames must not move it back.
    pub(super) done: bool,
    /// Why scribe ended the call itself (a cancelled prompt, the end of the input): its error.
    pub(super) end_note: Option<String>,
    /// Who runs the call and, for an MCP call, its server: what its kind is built from.
    pub(super) caller: Caller,
    pub(super) mcp_server: Option<String>,
    /// The kind last sent for the call: a later frame that changes what the call says of itself
    /// (its ACP kind, locations, diffs) sends the new one.
    pub(super) kind_sent: ToolKind,
}

impl CallRecord {
    /// A call the daemon has only named so far (pending, nothing else known). The one place
    /// that lists a record's starting values, for the calls the daemon announces and the plan
    /// updates that become TodoWrite calls.
    pub(super) fn new(thread: Thread, name: String) -> CallRecord {
        let is_agent = matches!(name.as_str(), "agent" | "Agent" | "task" | "Task");
        CallRecord {
            thread,
            name,
            status: "pending".into(),
            is_agent,
            ..CallRecord::default()
        }
    }

    /// What the call does, from its name and its input as far as it is known. A model's call
    /// whose name Qwen Code's table does not know (a call named only by its title) is judged by
    /// what the ACP call says of itself (its kind, locations and diffs) before its input's shape.
    pub(super) fn tool_kind(&self) -> ToolKind {
        let unnamed = self.caller == Caller::Model
            && super::tool_names::known(&self.name, &self.raw_input).is_none();
        let acp = unnamed
            .then(|| {
                acp_kind(&AcpCall {
                    kind: &self.kind,
                    locations: &self.locations,
                    content: &self.content,
                    raw_input: &self.raw_input,
                })
            })
            .flatten()
            // No ACP kind: ACP's own edit shape still says what it is (`oldText`/`newText` in
            // its input, or a `diff` content item).
            .or_else(|| {
                unnamed
                    .then(|| acp_edit(&self.raw_input, &self.content))
                    .flatten()
            });
        let kind = acp.unwrap_or_else(|| {
            tool_kind::classify(
                &self.name,
                self.caller,
                self.mcp_server.as_deref(),
                &self.raw_input,
                super::tool_names::known,
            )
        });
        // An unnamed call with nothing else to show names the file it touches.
        match kind {
            ToolKind::Other { subject: None } if unnamed => ToolKind::Other {
                subject: first_location(&self.locations),
            },
            kind => kind,
        }
    }

    /// The harness's view of the call, kept whole beside the normalized fields.
    pub(super) fn sidecar(&self) -> Value {
        let mut o = Map::new();
        o.insert("title".into(), json!(self.title));
        if !self.kind.is_empty() {
            o.insert("kind".into(), json!(self.kind));
        }
        o.insert("status".into(), json!(self.status));
        if self.locations.as_array().is_some_and(|a| !a.is_empty()) {
            o.insert("locations".into(), self.locations.clone());
        }
        if !is_empty_value(&self.raw_output) {
            o.insert("rawOutput".into(), self.raw_output.clone());
        }
        for k in ["provenance", "serverId", "subagentType"] {
            if let Some(v) = self.meta.get(k) {
                o.insert(k.into(), v.clone());
            }
        }
        if let Some(p) = &self.permission {
            o.insert("permission".into(), p.clone());
        }
        Value::Object(o)
    }

    /// The call's output: its `content` (text joined; diffs kept), else `rawOutput`, else the
    /// shell output streamed so far.
    pub(super) fn output(&self) -> Value {
        let items = self.content.as_array().map(Vec::as_slice).unwrap_or(&[]);
        if !items.is_empty() {
            let texts: Vec<Option<&str>> = items.iter().map(content_text).collect();
            if texts.iter().all(Option::is_some) {
                return Value::String(texts.into_iter().flatten().collect::<Vec<_>>().join("\n"));
            }
            return Value::Array(
                items
                    .iter()
                    .map(|i| match content_text(i) {
                        Some(t) => json!({"type": "text", "text": t}),
                        None => i.clone(),
                    })
                    .collect(),
            );
        }
        if !is_empty_value(&self.raw_output) {
            return self.raw_output.clone();
        }
        if !self.shell_output.is_empty() {
            return Value::String(self.shell_output.clone());
        }
        Value::Null
    }
}

/// The text of a tool-call `content` item (`{type:"content", content:{type:"text", text}}`).
pub(super) fn content_text(item: &Value) -> Option<&str> {
    match str_of(item, "type") {
        "content" => {
            let c = item.get("content")?;
            (str_of(c, "type") == "text").then(|| str_of(c, "text"))
        }
        "text" => item.get("text").and_then(Value::as_str),
        _ => None,
    }
}

/// The text items of a value's `content` array, one per line. Shared by the progress pings of
/// a call and the prompt of a permission request, which carry their text the same way.
pub(super) fn content_lines(v: &Value) -> String {
    fields::array(v, "content")
        .iter()
        .filter_map(content_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// True for null, "", [] and {}.
pub(super) fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// ACP's edit shape: `{path, oldText, newText}` in the call's input, else a content item
/// `{type: "diff", path, oldText, newText}`; a missing or null `oldText` is a new file.
fn acp_edit(input: &Value, content: &Value) -> Option<ToolKind> {
    let diff = if input.get("newText").is_some_and(Value::is_string) {
        input
    } else {
        content
            .as_array()?
            .iter()
            .find(|c| str_of(c, "type") == "diff")?
    };
    let path = ["path", "file_path", "absolute_path"]
        .iter()
        .find_map(|k| diff.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned();
    let new = diff.get("newText")?.as_str()?.to_owned();
    Some(match diff.get("oldText").and_then(Value::as_str) {
        Some(old) => ToolKind::Edit {
            path,
            old: old.to_owned(),
            new,
        },
        None => ToolKind::Write { path, content: new },
    })
}
