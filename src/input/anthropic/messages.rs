//! Claude assistant and user messages → normalized events, shared by every Claude-shaped format
//! (stream-json, saved sessions, Qwen's stream-json): content blocks become parts and tool
//! results, and a user message's text is classified by §4 at this boundary.

use foldhash::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::input::anthropic::blocks::{self, Block};
use crate::input::anthropic::classify::{self, Classified, Flags};
use crate::input::anthropic::row::{self, Content, Element, RawBlock, Row, Spelling, Whole};
use crate::input::anthropic::typed_system::TaskLine;
use crate::input::fields::{opt_string, parent_tool_use_id};
use crate::input::tool_kind::{FactsReader, ToolTable};
use crate::model::details::Details;
use crate::model::event::EventKind;
use crate::model::transcript::{NonText, Part, TaskDetails, Turn, TurnMeta, output_text};

/// The sub-agent prompt turns held until their thread speaks.
mod held_prompts;
mod outcome;

use held_prompts::held_turn_at;
use outcome::{is_rejection, says_it_failed};

/// What differs between the formats that share these messages: field names (the live wire and a
/// saved session spell some differently) and the agent whose tool names the blocks carry.
/// Each agent's folder defines its own (`claude::STREAM_WIRE`, …).
#[derive(Debug)]
pub(crate) struct Wire {
    /// How the format spells its flags and the result details.
    pub(crate) spelling: Spelling,
    /// The agent's tool names → tool kinds.
    pub(crate) tools: ToolTable,
    /// The agent's result details (`tool_use_result`) → what a reader wants of them.
    pub(crate) facts: FactsReader,
}

/// Assistant and user messages, shared by the stream and the saved-session adapters.
#[derive(Debug, Default)]
pub(crate) struct ClaudeMessages {
    subagent_threads_seen: HashSet<String>,
    /// Sub-agent prompts from `task_started`, by Agent call, held until the thread's own first
    /// user message (the same prompt, with its timestamp: it becomes the turn) or anything else
    /// of the thread, the call's result or the end of the input (then this turn is written).
    task_prompts: HashMap<String, Turn>,
    user_count: u64,
    /// The tool calls seen so far (ids), each with whether a result answered it: a
    /// `<task-notification>` message naming one of them becomes that call's task end instead
    /// of a turn of its own, and a replayed rejection of an answered call is no new denial.
    calls: crate::model::recent::Recent<bool>,
    /// The stream's `task_started`: task id → its tool call. These three task memories are
    /// bounded (`Recent`), so that memory stays flat however many tasks the input holds.
    task_calls: crate::model::recent::Recent<String>,
    /// Tasks a system `task_notification` already ended (the stream): the `<task-notification>`
    /// message the harness also injects for them does not end them a second time.
    tasks_ended: crate::model::recent::Recent<()>,
    /// Tasks a `<task-notification>` message ended: a system `task_notification` for them
    /// arriving later is not a second end (see [`ClaudeMessages::ended_by_message`]).
    tasks_ended_by_message: crate::model::recent::Recent<()>,
    /// The last message was a slash-command record: a flagged message right after it is the
    /// command's expansion (§4 row 3, `Flags::after_command`).
    after_command: bool,
    /// The ids of the user messages seen: a replayed message (`isReplay`) that repeats one of
    /// them is not shown a second time.
    users_seen: crate::model::recent::Recent<()>,
}

impl ClaudeMessages {
    /// An assistant message: one event per content block.
    pub(crate) fn assistant(&mut self, v: &Value, wire: &Wire, emit: &mut impl FnMut(EventKind)) {
        self.assistant_row(row::from_value(v), &Whole::Value(v), wire, emit);
    }

    /// [`ClaudeMessages::assistant`], of a row already decoded (`whole` gives its blocks as
    /// they were, for those kept whole).
    pub(crate) fn assistant_row(
        &mut self,
        row: Row<'_>,
        whole: &Whole<'_>,
        wire: &Wire,
        emit: &mut impl FnMut(EventKind),
    ) {
        let thread = thread_of(&row);
        self.after_command = false;
        if let Some(p) = &thread {
            self.held_prompt(p, emit);
        }
        let msg = row.message.unwrap_or_default();
        let message_id = msg
            .id
            .as_deref()
            .or(row.uuid.as_deref())
            .unwrap_or_default()
            .to_owned();
        let model = msg.model.map(std::borrow::Cow::into_owned);
        let api_error = row.is_api_error_message.unwrap_or(false)
            || row.is_api_error_message_saved.unwrap_or(false)
            || model.as_deref() == Some("<synthetic>") && row.error.is_some();
        let error_text = row.error.flatten().map(std::borrow::Cow::into_owned);
        let error = if api_error {
            Some(error_text.unwrap_or_else(|| "api_error".to_owned()))
        } else {
            error_text
        };
        let mut meta = TurnMeta {
            model,
            stop_reason: msg.stop_reason.map(std::borrow::Cow::into_owned),
            usage: msg.usage.as_ref().map(row::UsageFields::usage),
            error,
            aborted: row.aborted.unwrap_or(false),
            machinery: Map::new(),
            ..TurnMeta::default()
        };
        let mut timestamp = row.timestamp.map(std::borrow::Cow::into_owned);
        let (mut thread, mut message_id) = (thread, message_id);
        let blocks = elements(msg.content);
        let last = blocks.len().saturating_sub(1);
        for (i, b) in blocks.into_iter().enumerate() {
            let part = match blocks::block(b, || whole.block(i), wire.tools) {
                Block::Text(text) => Part::text(text),
                Block::Part(p) => p,
                Block::Result {
                    tool_call_id,
                    is_error,
                    output,
                    error_text,
                } => {
                    // A result inside an assistant message is a server tool's or an MCP
                    // connector's: the API ran it, and the message goes on. A web search's hits
                    // are the pages the model read: each also becomes a `source-url` part.
                    let hits = blocks::web_search_hits(&tool_call_id, &output);
                    emit(EventKind::ToolResult {
                        thread: thread.clone(),
                        tool_call_id,
                        is_error,
                        output,
                        error_text,
                        sidecar: None,
                        facts: crate::model::transcript::ResultFacts::default(),
                        server_run: true,
                        replay: false,
                        timestamp: timestamp.clone(),
                    });
                    for part in hits {
                        emit(EventKind::AssistantBlock {
                            thread: thread.clone(),
                            message_id: message_id.clone(),
                            part,
                            meta: meta.clone(),
                            timestamp: timestamp.clone(),
                        });
                    }
                    continue;
                }
            };
            if let Part::ToolCall { call } = &part
                && !self.calls.contains(&call.tool_call_id)
            {
                self.calls.insert(&call.tool_call_id, false);
            }
            // The last block takes what the others are given copies of (most messages of a
            // stream have one block).
            emit(if i == last {
                EventKind::AssistantBlock {
                    thread: thread.take(),
                    message_id: std::mem::take(&mut message_id),
                    part,
                    meta: std::mem::take(&mut meta),
                    timestamp: timestamp.take(),
                }
            } else {
                EventKind::AssistantBlock {
                    thread: thread.clone(),
                    message_id: message_id.clone(),
                    part,
                    meta: meta.clone(),
                    timestamp: timestamp.clone(),
                }
            });
        }
    }

    /// A system line of the stream: `task_started` ties a task to its call, `task_notification`
    /// ends it (see [`ClaudeMessages::task_end`]).
    pub(crate) fn system_task(&mut self, t: &TaskLine<'_>) {
        let (Some(task), call) = (t.task_id.as_deref(), t.tool_use_id.as_deref()) else {
            return;
        };
        match t.subtype.as_deref() {
            Some("task_started") => {
                if let Some(c) = call {
                    self.task_calls.insert(task, c.to_owned());
                }
            }
            Some("task_notification") => {
                self.tasks_ended.insert(task, ());
            }
            _ => {}
        }
    }

    /// Whether a `<task-notification>` message already ended the task a system
    /// `task_notification` (the stream) is about to end: then that event is not written.
    pub(crate) fn ended_by_message(&self, k: &EventKind) -> bool {
        matches!(k, EventKind::SubtaskFinished { task_id, .. } if self.tasks_ended_by_message.contains(task_id))
    }

    /// A `<task-notification>` user message (its fields in `m`, from the classifier) naming a
    /// task of a call in the input: the call's task end, with the message's `<result>` (a
    /// background agent's final report) kept on it. `Some(None)`: a system `task_notification`
    /// already ended the task and the message adds nothing to it (no `<result>`), so it is not
    /// written twice. `None`: no call of the input is named; the message stays a turn.
    fn task_end(&self, m: &Map<String, Value>) -> Option<Option<EventKind>> {
        let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
        let task_id = s("taskId").unwrap_or_default();
        let call = s("toolUseId")
            .filter(|c| self.calls.contains(c))
            .or_else(|| self.task_calls.get(&task_id).cloned())
            .filter(|c| self.calls.contains(c))?;
        let result = s("result").filter(|r| !r.trim().is_empty());
        if self.tasks_ended.contains(&task_id) && result.is_none() {
            return Some(None);
        }
        let n = |k: &str| {
            m.get("usage")
                .and_then(|u| u.get(k))
                .and_then(Value::as_u64)
        };
        let usage = (n("totalTokens").is_some() || n("toolUses").is_some()).then(|| {
            crate::model::transcript::SubagentUsage {
                total_tokens: n("totalTokens").unwrap_or(0),
                tool_uses: n("toolUses").unwrap_or(0),
                duration_ms: n("durationMs").unwrap_or(0),
            }
        });
        Some(Some(EventKind::SubtaskFinished {
            task_id: if task_id.is_empty() {
                call.clone()
            } else {
                task_id
            },
            tool_call_id: Some(call),
            status: s("status")
                .as_deref()
                .and_then(crate::model::transcript::SubagentStatus::from_word)
                .unwrap_or(crate::model::transcript::SubagentStatus::Completed),
            summary: s("summary"),
            usage,
            result,
            details: TaskDetails {
                task_type: s("taskType"),
                output_file: s("outputFile"),
                ..TaskDetails::default()
            },
        }))
    }

    /// A user message: tool results first (row 2), then whatever else it carried, classified.
    pub(crate) fn user(&mut self, v: &Value, wire: &Wire, emit: &mut impl FnMut(EventKind)) {
        self.user_row(row::from_value(v), &Whole::Value(v), wire, emit);
    }

    /// [`ClaudeMessages::user`], of a row already decoded (`whole` as for
    /// [`ClaudeMessages::assistant_row`]).
    pub(crate) fn user_row(
        &mut self,
        mut row: Row<'_>,
        whole: &Whole<'_>,
        wire: &Wire,
        emit: &mut impl FnMut(EventKind),
    ) {
        let thread = thread_of(&row);
        let after_command = std::mem::take(&mut self.after_command);
        let mut sidecar = row.take_details(wire.spelling);
        let content = row.message.take().map(|m| m.content).unwrap_or_default();
        let timestamp = row.timestamp.take().map(std::borrow::Cow::into_owned);
        let replay = row.is_replay.unwrap_or(false);
        let mut texts: Vec<String> = Vec::new();
        let mut parts: Vec<Part> = Vec::new();
        let mut first_result: Option<String> = None;
        for (i, b) in elements(content).into_iter().enumerate() {
            match blocks::block(b, || whole.block(i), wire.tools) {
                Block::Text(t) => texts.push(t),
                Block::Part(p) => parts.push(p),
                Block::Result {
                    tool_call_id,
                    mut is_error,
                    output,
                    mut error_text,
                } => {
                    let sc = sidecar.take();
                    let side_text = sc.as_ref().and_then(Details::as_str);
                    is_error = failed_by_details(
                        sc.as_ref(),
                        side_text.as_deref(),
                        is_error,
                        &mut error_text,
                    );
                    // A rejection written before `toolDenialKind` existed: a denial, not an
                    // error (the fold keeps the result's output on the denied call).
                    let rejection = (is_error && is_rejection(side_text.as_deref(), &output))
                        .then(|| output_text(&output, NonText::Skip));
                    self.answer(&tool_call_id, replay, rejection, emit);
                    // An Agent call's result ends its sub-agent thread.
                    self.held_prompt(&tool_call_id, emit);
                    self.subagent_threads_seen.remove(&tool_call_id);
                    first_result.get_or_insert_with(|| tool_call_id.clone());
                    let facts = sc.as_ref().map(wire.facts).unwrap_or_default();
                    emit(EventKind::ToolResult {
                        thread: thread.clone(),
                        tool_call_id,
                        is_error,
                        output,
                        error_text,
                        sidecar: sc,
                        facts,
                        server_run: false,
                        replay,
                        timestamp: timestamp.clone(),
                    });
                }
            }
        }
        if texts.is_empty() && parts.is_empty() {
            return;
        }
        if self.seen_before(row.uuid.as_deref(), replay, emit) {
            return;
        }
        let flags = Flags {
            replay,
            after_command,
            synthetic: row.synthetic(wire.spelling),
            compact_summary: row.is_compact_summary.unwrap_or(false),
            subagent_first: match &thread {
                Some(p) => self.subagent_threads_seen.insert(p.clone()),
                None => false,
            },
        };
        let joined = texts.join("\n");
        if let Some(p) = &thread {
            let held = parts.is_empty().then(|| self.held_prompt_is(p, &joined));
            if let Some(turn) = held.flatten() {
                let id = row.uuid.map(std::borrow::Cow::into_owned);
                emit(EventKind::user_turn(held_turn_at(turn, timestamp, id)));
                return;
            }
            self.held_prompt(p, emit);
        }
        let mut typed = joined.as_str();
        if !flags.synthetic && !flags.compact_summary {
            if let Some((context, rest)) = classify::ide_context(&joined) {
                let turn = self.context_turn(context, row.uuid.as_deref(), &thread, &timestamp);
                emit(EventKind::user_turn(turn));
                if rest.is_empty() && parts.is_empty() {
                    return;
                }
                typed = rest;
            }
        }
        let mut c = classify::classify(typed, flags, thread.as_deref());
        self.after_command = classify::is_command_record(&c);
        if thread.is_none() && parts.is_empty() {
            match self.task_notification(c, emit) {
                Some(turn) => c = turn,
                None => return,
            }
        }
        let turn_parts = text_then_parts(c.text, parts);
        let origin = origin_after_results(first_result.as_deref(), c.origin);
        self.user_count += 1;
        let source_tool_call_id = row.take_source_tool_call_id();
        let id = row
            .uuid
            .map(std::borrow::Cow::into_owned)
            .unwrap_or_else(|| format!("u{}", self.user_count));
        let meta = TurnMeta {
            machinery: c.machinery,
            priority: row.priority.map(std::borrow::Cow::into_owned),
            file_attachments: row.file_attachments.unwrap_or_default(),
            ..TurnMeta::default()
        };
        let turn = Turn::user(id, origin, turn_parts)
            .in_thread(thread.clone())
            .with_meta(meta)
            .at(timestamp);
        emit(EventKind::UserTurn {
            turn: Box::new(turn),
            source_tool_call_id,
        });
    }
}

impl ClaudeMessages {
    /// Notes that a result answered the call `id`, and sends its `rejection` (the person's
    /// words) as a denial. A replayed row plays back a message already sent: its rejection of
    /// a call a result already answered is no new denial, and the call keeps its state.
    fn answer(
        &mut self,
        id: &str,
        replay: bool,
        rejection: Option<String>,
        emit: &mut impl FnMut(EventKind),
    ) {
        let answered = match self.calls.get(id) {
            Some(&answered) => {
                self.calls.insert(id, true);
                answered
            }
            None => false,
        };
        if let Some(message) = rejection.filter(|_| !(replay && answered)) {
            emit(EventKind::ToolDenied {
                tool_call_id: id.to_owned(),
                tool_name: String::new(),
                message,
            });
        }
    }

    /// Whether a replayed message repeats a user message already in the input (the same id):
    /// then it is not shown again, and a trace record says so. Every other message's id is
    /// noted.
    fn seen_before(
        &mut self,
        uuid: Option<&str>,
        replay: bool,
        emit: &mut impl FnMut(EventKind),
    ) -> bool {
        let Some(id) = uuid.filter(|id| !id.is_empty()) else {
            return false;
        };
        if replay && self.users_seen.contains(id) {
            emit(crate::input::fields::info(
                "replay",
                crate::model::session::Level::Trace,
                "a replayed message the input already holds".into(),
                serde_json::json!({ "uuid": id }),
            ));
            return true;
        }
        self.users_seen.insert(id, ());
        false
    }

    /// The turn of what an IDE attached before a prompt (`classify::ide_context`): harness
    /// context of its own, just before the prompt's turn, its id the message's with `-ide`.
    fn context_turn(
        &mut self,
        c: Classified,
        uuid: Option<&str>,
        thread: &Option<String>,
        timestamp: &Option<String>,
    ) -> Turn {
        self.user_count += 1;
        let id = match uuid {
            Some(u) => format!("{u}-ide"),
            None => format!("u{}", self.user_count),
        };
        let meta = TurnMeta {
            machinery: c.machinery,
            ..TurnMeta::default()
        };
        Turn::user(id, c.origin, vec![Part::text(c.text)])
            .in_thread(thread.clone())
            .with_meta(meta)
            .at(timestamp.clone())
    }

    /// A main-thread message that is only a `<task-notification>` for a task: the task's end,
    /// emitted as its event, or, when the system `task_notification` said it already, a trace
    /// record that keeps the message (fields and raw text), hidden from readers as a repeat.
    /// `None` when it was one; the classified message back when it is a turn after all.
    fn task_notification(
        &mut self,
        c: Classified,
        emit: &mut impl FnMut(EventKind),
    ) -> Option<Classified> {
        if c.origin != crate::model::transcript::TurnOrigin::Notification
            || !c.machinery.contains_key("taskId")
        {
            return Some(c);
        }
        match self.task_end(&c.machinery) {
            Some(Some(k)) => {
                if let EventKind::SubtaskFinished { task_id, .. } = &k {
                    self.tasks_ended_by_message.insert(task_id, ());
                }
                emit(k);
                None
            }
            Some(None) => {
                emit(crate::input::fields::info(
                    "task-notification",
                    crate::model::session::Level::Trace,
                    "a <task-notification> message for a task its system event already ended"
                        .into(),
                    Value::Object(c.machinery),
                ));
                None
            }
            None => Some(c),
        }
    }
}

impl ClaudeMessages {}

/// A message's content as blocks (a plain string content becomes one text block).
fn elements(content: Content<'_>) -> Vec<Element<'_>> {
    match content {
        Content::Blocks(blocks) => blocks,
        Content::Text(text) => vec![Element::Block(Box::new(RawBlock {
            ty: Some("text".into()),
            text: Some(text),
            ..RawBlock::default()
        }))],
        Content::None => Vec::new(),
    }
}

/// The thread of a row (`parent_tool_use_id`): the Agent call a sub-agent's row belongs to,
/// `None` for the main line (`fields::parent_tool_use_id`, typed).
fn thread_of(row: &Row<'_>) -> Option<String> {
    row.parent_tool_use_id
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A local command's `system` row (`system/local_command` in a saved session,
/// `system/local_command_output` on the wire) → the user-role turn the same command gets when an
/// older CLI writes it as a user message, so both read alike: the command, then its output.
pub(crate) fn local_command_turn(v: &Value) -> EventKind {
    let content = match v.get("content") {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let c = classify::local_command(&content);
    let id = opt_string(v, "uuid").unwrap_or_default();
    let meta = TurnMeta {
        machinery: c.machinery,
        ..TurnMeta::default()
    };
    let turn = Turn::user(id, c.origin, vec![Part::text(c.text)])
        .in_thread(parent_tool_use_id(v))
        .with_meta(meta)
        .at(opt_string(v, "timestamp"));
    EventKind::user_turn(turn)
}

/// Whether a tool result ended in an error, by its block's flag and its details: details whose
/// text starts with `Error:` (that text is then the error's, unless the block gave one), or that
/// say the call did not succeed (a Skill's ack with `success: false`), whatever the block says.
fn failed_by_details(
    sc: Option<&Details>,
    side_text: Option<&str>,
    mut is_error: bool,
    error_text: &mut Option<String>,
) -> bool {
    if let Some(s) = side_text.filter(|s| s.starts_with("Error:")) {
        is_error = true;
        let text = s.trim_start_matches("Error:").trim();
        error_text.get_or_insert_with(|| text.to_owned());
    }
    if sc.is_some_and(says_it_failed) {
        is_error = true;
    }
    is_error
}

/// A user message's origin once its tool results are known: typed input that came with a
/// result is the return of that result's call.
fn origin_after_results(
    first_result: Option<&str>,
    origin: crate::model::transcript::TurnOrigin,
) -> crate::model::transcript::TurnOrigin {
    match (first_result, origin) {
        (Some(id), crate::model::transcript::TurnOrigin::UserInput) => {
            crate::model::transcript::TurnOrigin::ToolReturn {
                tool_call_id: id.to_owned(),
            }
        }
        (_, o) => o,
    }
}

/// A user turn's parts: its text first (kept, even empty, when there is nothing else), then
/// the message's other parts.
fn text_then_parts(text: String, parts: Vec<Part>) -> Vec<Part> {
    let mut turn_parts = Vec::with_capacity(parts.len() + 1);
    if !text.is_empty() || parts.is_empty() {
        turn_parts.push(Part::text(text));
    }
    turn_parts.extend(parts);
    turn_parts
}
