//! Stage 2 of the pipeline: normalized, agent-agnostic events (design §10).
//!
//! An input adapter turns each vendor line into zero or more of these; the fold consumes them in
//! order. They are flat and stream-grained: deltas, whole content blocks, tool results and
//! lifecycle signals, each tagged with the input line it came from. `--to events` writes them as
//! they are.

use serde::Serialize;
use serde_json::Value;

use super::details::Details;
use super::session::{SessionSnapshot, SystemNotice};
use super::transcript::{
    Part, ResultFacts, SubagentStatus, SubagentUsage, TaskDetails, ToolKind, Turn, TurnMeta,
    TurnOrigin,
};

/// One normalized event and the input line it came from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Event {
    pub(crate) line: u64,
    #[serde(flatten)]
    pub(crate) kind: EventKind,
}

impl Event {
    /// An event from input line `line`: what every adapter pushes.
    pub(crate) fn at(line: u64, kind: EventKind) -> Event {
        Event { line, kind }
    }
}

/// Which conversation an event belongs to: `None` is the main thread, `Some(id)` the sub-agent run
/// by the Agent call `id`.
pub(crate) type Thread = Option<String>;

/// The normalized event kinds. Adapters produce them; `fold::Folder` is their only consumer.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(
    tag = "event",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum EventKind {
    /// The agent announced its inventory (Claude's `system/init`, Qwen's session metadata).
    SessionInit { session: Box<SessionSnapshot> },
    /// A user-role message, already classified (§4): real input, synthetic context, a
    /// notification, a replay or a sub-agent prompt. Tool results never come this way.
    UserTurn {
        turn: Box<Turn>,
        /// The tool call this message says it belongs to (a skill body's `sourceToolUseID`).
        source_tool_call_id: Option<String>,
    },
    /// One finished content block of an assistant message. Blocks sharing `messageId` merge into
    /// one turn. A `tool-call` part starts a tool call.
    AssistantBlock {
        thread: Thread,
        message_id: String,
        part: Part,
        #[serde(skip_serializing_if = "TurnMeta::is_empty")]
        meta: TurnMeta,
        timestamp: Option<String>,
    },
    /// A message ended (`message_delta`): its final stop reason and usage.
    AssistantEnd {
        thread: Thread,
        message_id: String,
        meta: TurnMeta,
    },
    /// Partial assistant text, as it streams. Display only: the block event is authoritative.
    TextDelta {
        thread: Thread,
        message_id: String,
        index: u64,
        text: String,
    },
    /// Partial thinking text, as it streams. Display only.
    ReasoningDelta {
        thread: Thread,
        message_id: String,
        index: u64,
        text: String,
    },
    /// A tool call began streaming its input. Display only.
    ToolInputStarted {
        thread: Thread,
        message_id: String,
        tool_call_id: String,
        name: String,
    },
    /// The result of a tool call (a client tool's `tool_result`, a server tool's result block).
    ToolResult {
        thread: Thread,
        tool_call_id: String,
        is_error: bool,
        output: Value,
        error_text: Option<String>,
        sidecar: Option<Details>,
        /// What the adapter read from the harness's result details (`ResultFacts`).
        #[serde(skip_serializing_if = "ResultFacts::is_empty", default)]
        facts: ResultFacts,
        /// The tool ran on the API server (a server tool, a connector's MCP call): its result is
        /// one more block of the assistant message that called it. A client tool's result goes
        /// back to the model in a new message, so it ends the one that called it.
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        server_run: bool,
        /// The line that brought the result plays back a message already sent (Claude's
        /// `isReplay`): a second result for a finished call is then shown as a replay.
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        replay: bool,
        /// The time of the line that brought the result, when it carries one (the call's end).
        timestamp: Option<String>,
    },
    /// A tool call changed state without finishing (approval asked, approved, still running).
    ToolUpdate {
        tool_call_id: String,
        state: Option<super::transcript::ToolState>,
        output: Option<Value>,
        /// The call's input became known (Qwen sends `rawInput` after the call opened).
        input: Option<Value>,
        /// What the call does, judged again from the input that became known (sent with every
        /// `input`).
        kind: Option<ToolKind>,
        /// Why the call failed, for a final state that a `tool-result` cannot express
        /// (`approval-denied`).
        error_text: Option<String>,
        /// The harness's structured view of the call, replacing the previous one (Qwen's title,
        /// kind, status, locations, rawOutput).
        sidecar: Option<Details>,
    },
    /// The harness refused to run a tool call.
    ToolDenied {
        tool_call_id: String,
        tool_name: String,
        message: String,
    },
    /// The input holds nothing more about this call: no result, update or denial of it comes
    /// later (an adapter that has read the whole input knows; a call the harness never answered).
    /// The turn that holds the call need not wait for one, so the fold writes it as it is once
    /// its message ends, instead of holding it and everything after it to the end of the input.
    /// Not something the input says: `--to events` does not write it.
    #[serde(skip)]
    ToolUnanswered { tool_call_id: String },
    /// A tool reported that it is still running. Display only. `thread` is the sub-agent thread
    /// the call runs in (`None`: the main thread), `task_id` the background task it reports for.
    ToolProgress {
        thread: Thread,
        tool_call_id: String,
        tool_name: String,
        elapsed_seconds: f64,
        task_id: Option<String>,
    },
    /// A sub-agent (or background task) started.
    SubtaskStarted {
        task_id: String,
        tool_call_id: Option<String>,
        description: String,
        subagent_type: Option<String>,
        /// `taskType`, `workflowName`.
        #[serde(flatten)]
        details: TaskDetails,
    },
    /// A sub-agent reported progress (one line of its live status).
    SubtaskProgress {
        task_id: String,
        tool_call_id: Option<String>,
        description: String,
        usage: Option<SubagentUsage>,
        /// `lastToolName`, `progressSummary`.
        #[serde(flatten)]
        details: TaskDetails,
    },
    /// A sub-agent's record changed (`task_updated` patch).
    SubtaskUpdated {
        task_id: String,
        status: Option<SubagentStatus>,
        description: Option<String>,
        error: Option<String>,
    },
    /// A sub-agent finished.
    SubtaskFinished {
        task_id: String,
        tool_call_id: Option<String>,
        status: SubagentStatus,
        summary: Option<String>,
        usage: Option<SubagentUsage>,
        /// The task's own final report when the input carries one (a background agent's
        /// `<result>` in Claude Code's `<task-notification>` message), beside the short summary.
        result: Option<String>,
        /// `outputFile`.
        #[serde(flatten)]
        details: TaskDetails,
    },
    /// A system notice (hooks, retries, rate limits, results, …), final as it is.
    Notice { notice: Box<SystemNotice> },
    /// The agent cleared its conversation: turns before this point belong to an earlier one.
    ConversationReset,
    /// The events up to the matching `BranchEnded` are a part of the conversation that was left
    /// behind (a rewind or a fork): the fold keeps their turns in one `branch` notice, collapsed
    /// and marked as rewound by every renderer, instead of on the main line.
    BranchStarted {
        /// The last row of the branch (the notice's `leafId`).
        leaf_id: String,
        /// The sub-agent thread the branch belongs to (`None`: the main conversation). The
        /// events inside carry no thread of their own: the branch is folded as a conversation.
        /// (`skip_serializing_none` does not see the `Option` behind the alias.)
        #[serde(skip_serializing_if = "Option::is_none")]
        thread: Thread,
    },
    /// The end of the branch the last `BranchStarted` opened.
    BranchEnded,
    /// A line that was understood and carries nothing for the transcript (keep-alives, control
    /// protocol, stream markers). Counted, so that no line disappears unaccounted.
    Absorbed { what: String },
    /// A line nothing understood: kept whole in a `debug` record.
    Debug {
        reason: String,
        raw: String,
        /// The line is of a kind the adapter knows, and its payload is not that kind's shape
        /// (a field missing or of the wrong type). Its raw text is kept in the records, never
        /// drawn on a page (the Qwen conformance vector `malformed-payload-redaction`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        malformed: bool,
    },
}

impl EventKind {
    /// An event meant for the fold alone, that no view shows (`ToolUnanswered`): the input did
    /// not say it in so many words.
    pub(crate) fn is_fold_hint(&self) -> bool {
        matches!(self, EventKind::ToolUnanswered { .. })
    }

    /// A user turn that names no tool call it belongs to: what most user messages are.
    pub(crate) fn user_turn(turn: Turn) -> EventKind {
        EventKind::UserTurn {
            turn: Box::new(turn),
            source_tool_call_id: None,
        }
    }

    /// A user turn holding one text part: what the saved-chat adapters (Gemini, Qwen) write for a
    /// prompt or a harness message, so each does not build the turn by hand.
    pub(crate) fn user_text(
        id: String,
        origin: TurnOrigin,
        text: String,
        timestamp: Option<String>,
    ) -> EventKind {
        EventKind::user_turn(Turn::user(id, origin, vec![Part::text(text)]).at(timestamp))
    }

    /// A line understood that carries nothing for the transcript (see [`EventKind::Absorbed`]).
    pub(crate) fn absorbed(what: impl Into<String>) -> EventKind {
        EventKind::Absorbed { what: what.into() }
    }

    /// A line nothing understood, kept whole (see [`EventKind::Debug`]); `malformed` when it is
    /// of a kind the adapter knows and its payload is not that kind's shape.
    pub(crate) fn debug(
        reason: impl Into<String>,
        raw: impl Into<String>,
        malformed: bool,
    ) -> EventKind {
        EventKind::Debug {
            reason: reason.into(),
            raw: raw.into(),
            malformed,
        }
    }

    /// The session's snapshot, boxed as the event keeps it.
    pub(crate) fn session(session: SessionSnapshot) -> EventKind {
        EventKind::SessionInit {
            session: Box::new(session),
        }
    }

    /// A running call's output so far, with the harness's view of it when that changed.
    pub(crate) fn tool_output(
        tool_call_id: String,
        output: Value,
        sidecar: Option<Details>,
    ) -> EventKind {
        EventKind::ToolUpdate {
            tool_call_id,
            state: None,
            output: Some(output),
            input: None,
            kind: None,
            error_text: None,
            sidecar,
        }
    }

    /// What a call does, judged again, with the input that became known (if it did).
    pub(crate) fn tool_input(
        tool_call_id: String,
        input: Option<Value>,
        kind: ToolKind,
    ) -> EventKind {
        EventKind::ToolUpdate {
            tool_call_id,
            state: None,
            output: None,
            input,
            kind: Some(kind),
            error_text: None,
            sidecar: None,
        }
    }

    /// A system notice, boxed as the event keeps it.
    pub(crate) fn notice(notice: SystemNotice) -> EventKind {
        EventKind::Notice {
            notice: Box::new(notice),
        }
    }
}
