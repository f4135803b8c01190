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

use foldhash::{HashMap, HashSet};

use serde_json::Value;

use crate::input::fields::info;
use crate::model::details::Details;
use crate::model::event::{Event, EventKind};
use crate::model::recent::Recent;
use crate::model::session::{Level, SystemNotice};
use crate::model::tool_kind::ToolKind;
use crate::model::transcript::{
    Caller, Part, SyntheticReason, ToolCall, Turn, TurnMeta, TurnOrigin, Usage,
};

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
    /// A user-role message the harness wrote for the model (environment context, instructions,
    /// the developer prompt): a hidden context turn.
    Context { text: String },
    /// A message another agent of the run delivered to this one (a sub-agent's answer in a
    /// multi-agent run): a notification turn, shown.
    Notification { text: String },
    /// Something the agent ran: a shell command, a patch, an MCP call, a web search, a plan.
    Tool(Box<ToolItem>),
    /// A non-fatal error item (e.g. unknown model metadata): a warning notice.
    Error { message: String },
}

/// A tool-like item: what the call looks like, and its outcome once it has one.
#[derive(Debug, Clone, Default, PartialEq)]
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
#[derive(Debug, Clone, Default, PartialEq)]
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

impl Outcome {
    /// The `tool-result` event of the call `call_id` that ended this way (`server_run`: the
    /// provider ran it), at `timestamp`.
    fn into_result(
        self,
        call_id: String,
        server_run: bool,
        timestamp: Option<String>,
    ) -> EventKind {
        EventKind::ToolResult {
            thread: None,
            tool_call_id: call_id,
            is_error: self.is_error,
            output: self.output,
            error_text: self.error_text,
            facts: super::tools::result_facts(self.sidecar.as_ref()),
            sidecar: self.sidecar.map(Details::from),
            server_run,
            replay: false,
            timestamp,
        }
    }
}

/// Turns items into events, keeping what ties them together: the open assistant message, the
/// tool calls already announced, and the run number (item ids restart at `item_0` when
/// `codex exec resume` appends a run, so ids of later runs get an `@<run>` suffix).
#[derive(Default)]
pub(crate) struct Emitter {
    run: u32,
    message: Option<String>,
    announced: HashSet<String>,
    /// Calls that have their result, so that a second one (another line of the same rollout)
    /// is absorbed. Bounded (`Recent`): kept for every call, it grew with the input.
    done: Recent<()>,
    /// Assistant messages opened since the turn began (the `turns` of its result notice).
    messages: u64,
    /// Per snapshot item: how many calls it gave and the last input shown.
    snapshots: HashMap<String, (u32, Value)>,
    /// Calls whose process still runs after their output came back (a unified exec session):
    /// they stay open, running, until a later line says how the process ended, and the end of
    /// a turn or of the input leaves them running rather than inventing an end.
    running: HashSet<String>,
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

    /// True when a call with this id was announced (open or finished).
    pub(crate) fn knows(&self, id: &str) -> bool {
        let id = self.scoped(id);
        self.announced.contains(&id) || self.done.contains(&id)
    }

    /// True when the call with this id has its result.
    pub(crate) fn finished(&self, id: &str) -> bool {
        self.done.contains(&self.scoped(id))
    }

    /// The result of a call announced earlier (a rollout's `function_call_output`, an
    /// `exec_command_end`); absorbed when the call already has one (another line of the same
    /// rollout gave it first).
    pub(crate) fn result(&mut self, id: &str, o: Outcome, line: u64, out: &mut Vec<Event>) {
        let call_id = self.scoped(id);
        if !self.done.insert(&call_id, ()) {
            out.push(Event::at(
                line,
                EventKind::absorbed("result already recorded by an earlier line"),
            ));
            return;
        }
        self.announced.remove(&call_id);
        self.running.remove(&call_id);
        self.message = None;
        out.push(Event::at(line, o.into_result(call_id, false, None)));
    }

    /// The output of a call whose process still runs (`o` is what came back so far): the call
    /// stays open in the `running` state, showing that output, until [`Emitter::result`].
    pub(crate) fn still_running(&mut self, id: &str, o: Outcome, line: u64, out: &mut Vec<Event>) {
        let call_id = self.scoped(id);
        self.running.insert(call_id.clone());
        self.message = None;
        out.push(Event::at(
            line,
            EventKind::ToolUpdate {
                tool_call_id: call_id,
                state: Some(crate::model::transcript::ToolState::Running),
                output: Some(o.output),
                input: None,
                kind: None,
                error_text: None,
                sidecar: o.sidecar.map(Details::from),
            },
        ));
    }

    /// How many announced calls have no result yet.
    pub(crate) fn open_count(&self) -> usize {
        self.announced.len()
    }

    /// Ends every call still open with an error saying why (`reason`): the turn was aborted
    /// or the input ended before its result was written. A call whose process was last seen
    /// running stays so. Ids in sorted order, so the output does not depend on hashing.
    pub(crate) fn close_open(&mut self, reason: &str, line: u64, out: &mut Vec<Event>) {
        let running = &self.running;
        let mut open: Vec<String> = self
            .announced
            .iter()
            .filter(|id| !running.contains(*id))
            .cloned()
            .collect();
        open.sort();
        for id in &open {
            self.announced.remove(id);
        }
        for call_id in open {
            self.done.insert(&call_id, ());
            let outcome = Outcome {
                is_error: true,
                output: Value::String(String::new()),
                error_text: Some(reason.to_owned()),
                sidecar: None,
            };
            out.push(Event::at(line, outcome.into_result(call_id, false, None)));
        }
    }

    /// Emits the events for one item, `at` its line.
    pub(crate) fn item(&mut self, phase: Phase, id: &str, item: Item, at: &mut At<'_>) {
        match item {
            Item::Agent { .. } | Item::Reasoning { .. } if phase != Phase::Completed => {
                at.push(EventKind::absorbed(
                    "text item in progress (its text arrives whole when it completes)",
                ));
            }
            Item::Agent { text } => {
                let m = self.message_id(id);
                at.push(at.block(m, Part::text(text)));
            }
            Item::Reasoning { text } => {
                let m = self.message_id(id);
                at.push(at.block(
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
                for turn in super::ide::user_turns(self.scoped(id), text) {
                    at.push(EventKind::user_turn(turn.at(at.timestamp.clone())));
                }
            }
            Item::Context { text } => {
                let origin = TurnOrigin::Synthetic {
                    reason: SyntheticReason::Other,
                };
                let turn = Turn::user(self.scoped(id), origin, vec![Part::text(text)]);
                at.push(EventKind::user_turn(turn.at(at.timestamp.clone())));
            }
            Item::Notification { text } => {
                let turn = Turn::user(
                    self.scoped(id),
                    TurnOrigin::Notification,
                    vec![Part::text(text)],
                );
                at.push(EventKind::user_turn(turn.at(at.timestamp.clone())));
            }
            Item::Error { message } => at.push(info("error", Level::Warning, message, Value::Null)),
            Item::Tool(t) if t.snapshot => self.tool_snapshot(id, *t, at),
            Item::Tool(t) => self.tool(phase, id, *t, at),
        }
    }

    /// A tool item that is a snapshot of something that changes (a plan): each new content is a
    /// call of its own, done at once; an unchanged one is absorbed.
    fn tool_snapshot(&mut self, id: &str, t: ToolItem, at: &mut At<'_>) {
        let key = self.scoped(id);
        let entry = self
            .snapshots
            .entry(key.clone())
            .or_insert((0, Value::Null));
        if entry.1 == t.input {
            at.push(EventKind::absorbed("item unchanged"));
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
        at.push(at.block(
            m,
            Part::tool_call(ToolCall::new(
                call_id.clone(),
                t.name,
                t.kind,
                t.caller,
                t.input,
            )),
        ));
        let outcome = Outcome {
            output: Value::String(String::new()),
            ..Outcome::default()
        };
        at.push(outcome.into_result(call_id, false, at.timestamp.clone()));
    }

    /// A tool item: its call when first seen, an update of its input after, and its result when
    /// it completes (once, however often the item is repeated).
    fn tool(&mut self, phase: Phase, id: &str, t: ToolItem, at: &mut At<'_>) {
        let call_id = self.scoped(id);
        if self.done.contains(&call_id) {
            at.push(EventKind::absorbed("item already completed"));
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
        } = t;
        if self.announced.insert(call_id.clone()) {
            let mut call = ToolCall::new(call_id.clone(), name, kind, caller, input);
            call.mcp_server = mcp_server;
            let m = self.message_id(id);
            at.push(at.block(m, Part::tool_call(call)));
        } else if phase == Phase::Started {
            at.push(EventKind::absorbed("item started again"));
        } else {
            at.push(EventKind::tool_input(call_id.clone(), Some(input), kind));
        }
        if let (Phase::Completed, Some(o)) = (phase, outcome) {
            self.announced.remove(&call_id);
            self.done.insert(&call_id, ());
            if caller != Caller::ServerTool {
                // The result goes back to the model: what follows is a new response.
                self.message = None;
            }
            let server_run = caller == Caller::ServerTool;
            at.push(o.into_result(call_id, server_run, at.timestamp.clone()));
        }
    }
}

/// Where the events of one input line go: the line's number and its time, which each event
/// it gives carries, and the list they are appended to.
pub(crate) struct At<'a> {
    /// The input line the events come from.
    pub(crate) line: u64,
    /// The line's time, when it carries one.
    pub(crate) timestamp: Option<String>,
    /// Where the events go.
    pub(crate) out: &'a mut Vec<Event>,
}

impl<'a> At<'a> {
    /// The events of line `line`, at `timestamp`, appended to `out`.
    pub(crate) fn new(line: u64, timestamp: Option<String>, out: &'a mut Vec<Event>) -> At<'a> {
        At {
            line,
            timestamp,
            out,
        }
    }

    /// Emits one event of the line.
    pub(crate) fn push(&mut self, kind: EventKind) {
        self.out.push(Event::at(self.line, kind));
    }

    /// One block of the assistant message `message_id`, at the item's time.
    fn block(&self, message_id: String, part: Part) -> EventKind {
        EventKind::AssistantBlock {
            thread: None,
            message_id,
            part,
            meta: TurnMeta::default(),
            timestamp: self.timestamp.clone(),
        }
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

/// True when every count of `now` is at least the one of `before` (a running total that grew).
pub(crate) fn covers(now: &Usage, before: &Usage) -> bool {
    now.input_tokens + now.cache_read_input_tokens
        >= before.input_tokens + before.cache_read_input_tokens
        && now.output_tokens >= before.output_tokens
        && now.cache_read_input_tokens >= before.cache_read_input_tokens
}

/// `now − before`, count by count (never below zero).
pub(crate) fn minus(now: &Usage, before: &Usage) -> Usage {
    Usage {
        input_tokens: now.input_tokens.saturating_sub(before.input_tokens),
        output_tokens: now.output_tokens.saturating_sub(before.output_tokens),
        cache_read_input_tokens: now
            .cache_read_input_tokens
            .saturating_sub(before.cache_read_input_tokens),
        cache_creation_input_tokens: now
            .cache_creation_input_tokens
            .saturating_sub(before.cache_creation_input_tokens),
    }
}

/// The readable text of an error message: Codex passes an HTTP error body through as a JSON
/// string (`{"error": {"message": …, "code": …}}`); the inner message (with its code) is what a
/// reader wants.
pub(crate) fn error_text(message: &str) -> String {
    let Ok(v) = scribe_json::parse_line(message.trim()) else {
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

/// The notice for a turn's end: failed with `error` (an `error` line, `turn.failed`, a failed
/// task, an aborted turn), else completed. `turns` counts its assistant messages (model
/// responses), like Claude's `num_turns`.
pub(crate) fn turn_end(
    error: Option<&str>,
    turns: u64,
    usage: Option<Usage>,
    duration_ms: Option<u64>,
) -> SystemNotice {
    SystemNotice::Result {
        subtype: if error.is_some() { "error" } else { "success" }.into(),
        is_error: error.is_some(),
        cost: None,
        run_cost: None,
        turns: Some(turns),
        duration_ms,
        duration_api_ms: None,
        usage,
        text: None,
        stop_reason: None,
        terminal_reason: None,
        errors: error.map(error_text).into_iter().collect(),
        permission_denials: Vec::new(),
        structured_output: None,
        model_usage: None,
        fast_mode_state: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
