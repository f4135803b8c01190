//! Stage 2 → stage 3: folds normalized events into final transcript items (design §14, ingest
//! steps 1–9).
//!
//! The fold keeps only what can still change: top-level items that are not final yet (in input
//! order, so output order is input order), sub-agent threads whose Agent call has not been
//! written, and a few indexes. Everything final leaves at once.
//!
//! When an item becomes final:
//!
//! ```text
//! item                     final when
//! ───────────────────────  ────────────────────────────────────────────────────────────────────
//! user turn, notice,       at once (but it waits behind earlier items that are not final)
//!   session, debug
//! assistant turn           its message takes no more frames (another message, a user message or
//!                          a result in its thread), every tool call is in a terminal state, no
//!                          sub-agent it started is still running, no skill body is awaited
//! anything                 a `result` arrives (the agent's turn is over) or the input ends
//! ```
//!
//! Sub-agent turns (those with a parent tool call) never reach the top level: they are collected
//! per Agent call and moved into that call's `subagent.transcript` when its turn is written,
//! recursively for nested sub-agents, down to `MAX_SUBAGENT_DEPTH` levels; deeper ones are laid
//! out flat at that level, without recursion, and a notice says so.

// A match on one of our own enums names every variant: a new variant is a compile error here,
// never silently swallowed by `_`. (Wildcards stay allowed on text, numbers and foreign types.)
#![deny(clippy::wildcard_enum_match_arm)]

use std::cell::RefCell;
use std::collections::VecDeque;

use foldhash::HashMap;

use crate::model::event::{Event, EventKind, Thread};
use crate::model::recent::Recent;
use crate::model::session::{Level, SessionSnapshot, SystemNotice};
use crate::model::transcript::{
    CallResult, DebugRecord, Part, Role, SkillInfo, SubagentRecord, SubagentStatus,
    SyntheticReason, ToolCall, ToolKind, ToolState, TranscriptItem, Turn, TurnMeta, TurnOrigin,
};

mod deltas;
/// Hooks held from their start to their end, so that each is one notice.
mod hooks;
/// The queue of items not yet written, and the index that finds a pending turn by its id.
mod pending;

use deltas::DeltaBuffer;
use hooks::{HookStep, OpenHooks};
use pending::{Pending, PendingQueue, ThreadTurns};

/// The turns of one sub-agent run, collected until its Agent call is written.
#[derive(Debug)]
struct SubThread {
    record: SubagentRecord,
    /// A `task_started` (or later task event) named it: its status is the harness's word.
    announced: bool,
    /// A status update said it ended; its completion (final summary, usage, duration) has not
    /// come yet, so its call waits for it.
    ended_by_update: bool,
    /// Its completion came: the record is frozen (§14 step 4), no later update reopens it.
    finished: bool,
    turns: ThreadTurns,
}

impl SubThread {
    fn new() -> SubThread {
        SubThread {
            record: SubagentRecord::unnamed(),
            announced: false,
            ended_by_update: false,
            finished: false,
            turns: ThreadTurns::default(),
        }
    }
}

/// An abandoned branch being folded on its own, between `BranchStarted` and `BranchEnded`: a
/// conversation of its own, whose turns end up in one `branch` notice.
#[derive(Debug)]
struct OpenBranch {
    leaf_id: String,
    thread: Thread,
    folder: Folder,
    items: Vec<TranscriptItem>,
}

/// The fold's state. Private: events go in through `push`, final items come out.
#[derive(Debug)]
pub(crate) struct Folder {
    queue: PendingQueue,
    subthreads: HashMap<String, SubThread>,
    /// Where each tool call not yet written sits: its thread, its turn's id and its index in the
    /// turn's parts, so that a result finds its call without scanning every part (30 000 calls in
    /// one message made that quadratic).
    call_thread: HashMap<String, CallSlot>,
    /// Task id → the Agent call that owns it.
    task_call: HashMap<String, String>,
    /// Background tasks of calls in the turn just written (a shell command run in the
    /// background is no sub-agent): their status, written right after the turn.
    after_turn: Vec<TranscriptItem>,
    /// Calls whose sub-agent record was already written with them: a task event that comes
    /// later is a notice, not a second (phantom) record. One fingerprint per sub-agent run.
    written_runs: Recent<()>,
    /// Calls already written, by the fingerprint of their id (`model::recent`), and whether
    /// they were finished then: a later result is told apart from one whose call is not in the
    /// input. The most recent 28 672 (`Recent::CAPACITY`), as fingerprints: a million calls need no more memory than that.
    written_calls: Recent<bool>,
    /// Per thread, the assistant message still taking content-block frames.
    open_message: HashMap<Thread, String>,
    /// Skill calls whose result arrived and whose body may follow, in result order (parallel
    /// Skill calls each get one body).
    skill_awaiting: VecDeque<String>,
    last_session: Option<SessionSnapshot>,
    deltas: DeltaBuffer,
    /// The turn id and part index that last kept the front turn from being final: checked first,
    /// and the next scan starts there, so that checking a turn of n calls after each event costs
    /// O(n) in all, not O(n) each time.
    blocker: RefCell<(String, usize)>,
    /// Whether sub-agents deeper than `MAX_SUBAGENT_DEPTH` were flattened, and said so.
    flattened: Flattened,
    /// The branch whose events are arriving, if any (branches nest inside it).
    branch: Option<Box<OpenBranch>>,
    /// Hooks that started and have not ended (written once, at their end).
    hooks: OpenHooks,
}

/// Where a tool call sits in the fold (see `Folder::call_thread`), or that it was written: a
/// result that comes after its call was written is then told apart from one whose call is not
/// in the input at all.
#[derive(Debug, Clone)]
enum CallSlot {
    Open {
        thread: Thread,
        turn: String,
        part: usize,
    },
    /// Written with its turn (or moved into a sub-agent record), finished or not.
    Written { finished: bool },
}

/// The deepest sub-agent nesting written as nesting. Every pass over a transcript (transforms,
/// renderers, `scribe diff`, serde) recurses once per level, so a chain of 13 900 nested
/// sub-agents overflowed the stack, and the indented text view grew quadratically. Deeper
/// sub-agents are laid out flat at this level (nothing is dropped) and a notice says so. Real
/// runs nest two or three levels; at 10, scribe's own JSONL stays within serde_json's nesting
/// limit of 128 when it is read back.
pub(crate) const MAX_SUBAGENT_DEPTH: usize = 10;

/// Whether the notice about flattened sub-agents is still to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Flattened {
    No,
    Due,
    Told,
}

/// A later event of `turn` happened at `at`: it becomes the turn's end time when it is after the
/// turn's start and its end so far (RFC 3339 times of one input compare as strings). A turn
/// with no start time keeps no end either: there is no duration to tell.
fn extend_turn(turn: &mut Turn, at: Option<String>) {
    let Some(at) = at else { return };
    let Some(start) = turn.timestamp.as_deref() else {
        return;
    };
    let latest = turn.end_timestamp.as_deref().unwrap_or(start);
    if at.as_str() > latest {
        turn.end_timestamp = Some(at);
    }
}

impl Folder {
    /// An empty fold, at the start of one input.
    pub(crate) fn new() -> Folder {
        Folder {
            queue: PendingQueue::default(),
            subthreads: HashMap::default(),
            call_thread: HashMap::default(),
            task_call: HashMap::default(),
            written_runs: Recent::default(),
            written_calls: Recent::default(),
            after_turn: Vec::new(),
            open_message: HashMap::default(),
            skill_awaiting: VecDeque::new(),
            last_session: None,
            deltas: DeltaBuffer::default(),
            blocker: RefCell::new((String::new(), 0)),
            flattened: Flattened::No,
            branch: None,
            hooks: OpenHooks::default(),
        }
    }

    /// Folds one event; appends every item that became final.
    pub(crate) fn push(&mut self, event: Event, out: &mut Vec<TranscriptItem>) {
        if let Some(b) = self.branch.as_mut() {
            let ends = matches!(event.kind, EventKind::BranchEnded) && b.folder.branch.is_none();
            if !ends {
                b.folder.push(event, &mut b.items);
                return;
            }
            if let Some(b) = self.branch.take() {
                self.close_branch(*b);
            }
            self.release(out);
            return;
        }
        let line = event.line;
        match event.kind {
            EventKind::SessionInit { session } => self.session(*session),
            EventKind::UserTurn {
                turn,
                source_tool_call_id,
            } => self.user_turn(*turn, source_tool_call_id),
            EventKind::AssistantBlock {
                thread,
                message_id,
                part,
                meta,
                timestamp,
            } => {
                self.skill_awaiting.clear();
                self.deltas.settled(&message_id);
                self.assistant_block(thread, message_id, part, meta, timestamp)
            }
            EventKind::AssistantEnd {
                thread,
                message_id,
                meta,
            } => {
                if let Some(turn) = self.find_turn(&thread, &message_id) {
                    merge_meta(&mut turn.metadata, meta);
                }
            }
            EventKind::TextDelta {
                thread,
                message_id,
                index,
                text,
            } => self.deltas.text(thread, message_id, index, text, false),
            EventKind::ReasoningDelta {
                thread,
                message_id,
                index,
                text,
            } => self.deltas.text(thread, message_id, index, text, true),
            // Display only (the live view): the call's block and its result carry what stays.
            EventKind::ToolInputStarted { .. } | EventKind::ToolProgress { .. } => {}
            EventKind::ToolResult {
                thread,
                tool_call_id,
                is_error,
                output,
                error_text,
                sidecar,
                facts,
                server_run,
                timestamp,
            } => {
                // A client tool's result comes back in a user message, which ends the assistant
                // message; a server-run tool's result is one more block of the same message.
                if !server_run {
                    self.open_message.remove(&thread);
                }
                let result = CallResult {
                    is_error,
                    output,
                    error_text,
                    sidecar,
                    facts,
                };
                self.tool_result(&tool_call_id, result, line, timestamp)
            }
            EventKind::ToolUpdate {
                tool_call_id,
                state,
                output,
                input,
                kind,
                error_text,
                sidecar,
            } => {
                if let Some(call) = self.find_call(&tool_call_id) {
                    // No call moves backwards: a late question or answer about a finished call
                    // (a permission resolved after the result) leaves its final state.
                    if let Some(s) = state.filter(|s| s.is_terminal() || !call.state.is_terminal())
                    {
                        call.state = s;
                    }
                    if output.is_some() {
                        call.output = output;
                    }
                    if let Some(i) = input {
                        call.input = i;
                    }
                    if let Some(k) = kind {
                        call.kind = k;
                    }
                    if error_text.is_some() {
                        call.error_text = error_text;
                    }
                    if sidecar.is_some() {
                        call.sidecar = sidecar;
                    }
                }
            }
            EventKind::ToolDenied {
                tool_call_id,
                tool_name,
                message,
            } => {
                // The call carries its denial (shown once, with it); a notice only when the
                // call is not in the input. The state follows with the call's result, so the
                // turn is not final before the result's output is on it.
                if let Some(call) = self.find_call(&tool_call_id) {
                    call.denied = Some(message);
                    if call.state == ToolState::Error {
                        call.state = ToolState::ApprovalDenied;
                    }
                } else {
                    self.ready(TranscriptItem::Notice(Box::new(
                        SystemNotice::PermissionDenied {
                            tool_name,
                            tool_call_id,
                            message,
                        },
                    )));
                }
            }
            EventKind::SubtaskStarted {
                task_id,
                tool_call_id,
                description,
                subagent_type,
                task_type,
            } => match tool_call_id {
                Some(call_id) => {
                    self.task_call.insert(task_id.clone(), call_id.clone());
                    let st = self
                        .subthreads
                        .entry(call_id)
                        .or_insert_with(SubThread::new);
                    st.announced = true;
                    st.record.task_id = task_id;
                    st.record.description = description;
                    st.record.subagent_type = subagent_type;
                    if !st.finished {
                        st.record.status = SubagentStatus::Running;
                    }
                }
                None => self.ready(task_notice(
                    task_id,
                    Some(SubagentStatus::Running),
                    Some(description),
                    None,
                    None,
                    task_type,
                )),
            },
            EventKind::SubtaskProgress {
                task_id,
                tool_call_id,
                description,
                usage,
            } => match self.subthread_for(&task_id, tool_call_id.as_deref()) {
                // A finished run is frozen (§14 ingest 4): late progress is said beside it.
                Some(st) if st.record.status != SubagentStatus::Running => {
                    self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Info {
                        source: "task_progress".into(),
                        level: Level::Trace,
                        text: format!("progress after the sub-agent finished: {description}"),
                        data: serde_json::json!({ "taskId": task_id }),
                    })))
                }
                Some(st) => {
                    if st.record.progress.last() != Some(&description) {
                        st.record.progress.push(description);
                    }
                    if usage.is_some() {
                        st.record.usage = usage;
                    }
                }
                None => self.ready(task_notice(
                    task_id,
                    Some(SubagentStatus::Running),
                    Some(description),
                    None,
                    usage,
                    None,
                )),
            },
            EventKind::SubtaskUpdated {
                task_id,
                status,
                description,
                error,
            } => match self.subthread_for(&task_id, None) {
                Some(st) => {
                    // A finished run is frozen: a late `running` cannot reopen it.
                    if let Some(s) = status.filter(|_| !st.finished) {
                        st.ended_by_update = s != SubagentStatus::Running;
                        st.record.status = s;
                    }
                    if let Some(d) = description {
                        st.record.description = d;
                    }
                    if let Some(e) = error {
                        st.record.summary.get_or_insert(e);
                    }
                }
                None => self.ready(task_notice(task_id, status, description, error, None, None)),
            },
            EventKind::SubtaskFinished {
                task_id,
                tool_call_id,
                status,
                summary,
                usage,
                result,
            } => match self.subthread_for(&task_id, tool_call_id.as_deref()) {
                Some(st) => {
                    st.record.status = status;
                    st.finished = true;
                    if summary.is_some() {
                        st.record.summary = summary;
                    }
                    if usage.is_some() {
                        st.record.usage = usage;
                    }
                    if result.is_some() {
                        st.record.result = result;
                    }
                }
                None => {
                    let mut n = task_notice(task_id, Some(status), None, summary, usage, None);
                    set_task_result(&mut n, result);
                    self.ready(n)
                }
            },
            EventKind::Notice { notice } => {
                if matches!(*notice, SystemNotice::Result { .. }) {
                    // The agent's turn is over: nothing before this can change any more, but
                    // for a sub-agent running in the background, whose report is still to come.
                    self.open_message.clear();
                    self.skill_awaiting.clear();
                    self.release_all_but_background(out);
                }
                match self.hooks.notice(*notice) {
                    HookStep::Write(notices) => {
                        for n in notices {
                            self.ready(TranscriptItem::Notice(Box::new(n)));
                        }
                    }
                    HookStep::Held => {}
                }
            }
            EventKind::ConversationReset => {
                self.open_message.clear();
                self.release_all(out);
                self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Info {
                    source: "conversation_reset".into(),
                    level: Level::Info,
                    text: "conversation reset".into(),
                    data: serde_json::Value::Null,
                })));
            }
            EventKind::BranchStarted { leaf_id, thread } => {
                self.branch = Some(Box::new(OpenBranch {
                    leaf_id,
                    thread,
                    folder: Folder::new(),
                    items: Vec::new(),
                }));
            }
            // An end without a start (the start is always sent first): nothing to close.
            EventKind::BranchEnded => {}
            // Understood and empty for the transcript; the adapter counted it.
            EventKind::Absorbed { .. } => {}
            EventKind::Debug { reason, raw } => {
                self.ready(TranscriptItem::Debug(Box::new(DebugRecord {
                    reason,
                    line,
                    raw,
                })))
            }
        }
        self.release(out);
    }

    /// The input ended: everything still held is written, in order.
    pub(crate) fn finish(&mut self, out: &mut Vec<TranscriptItem>) {
        // A branch the input did not close (cut short) is closed with what it has.
        if let Some(b) = self.branch.take() {
            self.close_branch(*b);
        }
        self.open_message.clear();
        self.skill_awaiting.clear();
        let unended: Vec<SystemNotice> = self.hooks.drain().collect();
        for n in unended {
            self.ready(TranscriptItem::Notice(Box::new(n)));
        }
        for (thread, message_id, parts) in self.deltas.unsettled() {
            for part in parts {
                self.assistant_block(
                    thread.clone(),
                    message_id.clone(),
                    part,
                    TurnMeta::default(),
                    None,
                );
            }
        }
        self.open_message.clear();
        self.release_all(out);
        // Sub-agent runs whose Agent call never showed up: kept, never at the top level.
        let mut orphans: Vec<(String, SubThread)> = self.subthreads.drain().collect();
        orphans.sort_by(|a, b| a.0.cmp(&b.0));
        for (call_id, mut st) in orphans {
            let mut turns = std::mem::take(&mut st.turns).into_vec();
            for t in &mut turns {
                self.attach_subagents(t, 2);
            }
            st.record.transcript = turns;
            out.push(TranscriptItem::Notice(Box::new(SystemNotice::Subagent {
                tool_call_id: call_id,
                record: st.record,
            })));
        }
        out.append(&mut self.after_turn);
    }

    fn session(&mut self, mut s: SessionSnapshot) {
        // `init` is re-sent every turn: write it again only when something in it changed.
        let mut cmp = s.clone();
        cmp.id.clear();
        cmp.updated_at = None;
        if self.last_session.as_ref() == Some(&cmp) {
            return;
        }
        self.last_session = Some(cmp);
        if s.id.is_empty() {
            s.id = format!("session-{}", self.queue.len());
        }
        self.ready(TranscriptItem::Session(Box::new(s)));
    }

    fn user_turn(&mut self, mut turn: Turn, source_tool_call_id: Option<String>) {
        let thread = turn.parent_task_id.clone();
        self.open_message.remove(&thread);
        // A skill body follows its Skill call's result (or names it, in a saved session).
        let target = source_tool_call_id
            .inspect(|id| self.skill_awaiting.retain(|a| a != id))
            .or_else(|| self.awaited_skill(&turn));
        if let (Some(call_id), TurnOrigin::Synthetic { .. }) = (&target, &turn.origin) {
            let body = turn.text();
            if let Some(call) = self.find_call(call_id) {
                if let Some(skill) = call.skill.as_mut() {
                    skill.body = Some(body);
                    return;
                }
                if let ToolKind::Skill { .. } = call.kind {
                    call.skill = Some(SkillInfo {
                        skill_name: String::new(),
                        body: Some(body),
                    });
                    return;
                }
            }
            if let TurnOrigin::Synthetic { reason } = &mut turn.origin {
                if *reason == SyntheticReason::Other {
                    *reason = SyntheticReason::SkillBody;
                }
            }
        }
        self.push_turn(thread, turn);
    }

    /// The awaiting Skill call a synthetic turn is the body of: the one whose skill the body's
    /// "Base directory for this skill: …/<name>" names, else the earliest. Other machinery
    /// (a system reminder, hook output) is no body and leaves the calls waiting; a person's turn
    /// ends the wait.
    fn awaited_skill(&mut self, turn: &Turn) -> Option<String> {
        match &turn.origin {
            TurnOrigin::Synthetic {
                reason: SyntheticReason::SkillBody | SyntheticReason::Other,
            } => {}
            TurnOrigin::Synthetic { .. } => return None,
            TurnOrigin::UserInput
            | TurnOrigin::ToolReturn { .. }
            | TurnOrigin::SubagentPrompt { .. }
            | TurnOrigin::Replay
            | TurnOrigin::Notification
            | TurnOrigin::Model => {
                self.skill_awaiting.clear();
                return None;
            }
        }
        let text = turn.text();
        let named = text
            .trim_start()
            .strip_prefix("Base directory for this skill:")
            .and_then(|rest| rest.lines().next())
            .map(|dir| dir.trim().trim_end_matches('/'))
            .and_then(|dir| dir.rsplit('/').next())
            .filter(|name| !name.is_empty())
            .map(str::to_owned);
        let ids: Vec<String> = self.skill_awaiting.iter().cloned().collect();
        let at = named
            .and_then(|name| {
                ids.iter().position(|id| {
                    self.skill_name_of(id)
                        .is_some_and(|s| s == name || s.rsplit(':').next() == Some(name.as_str()))
                })
            })
            .unwrap_or(0);
        self.skill_awaiting.remove(at)
    }

    /// The skill a Skill call asked for (its `skill` input), to match a body to it.
    fn skill_name_of(&mut self, id: &str) -> Option<String> {
        self.find_call(id)
            .and_then(|c| c.skill.as_ref().map(|s| s.skill_name.clone()))
    }

    fn assistant_block(
        &mut self,
        thread: Thread,
        message_id: String,
        part: Part,
        meta: TurnMeta,
        timestamp: Option<String>,
    ) {
        let mut part = part;
        if let Part::ToolCall { call } = &mut part
            && call.started_at.is_none()
        {
            call.started_at.clone_from(&timestamp);
        }
        // Only a tool call has a slot to remember.
        let call_id = if let Part::ToolCall { call } = &part {
            Some(call.tool_call_id.clone())
        } else {
            None
        };
        let slot = |folder: &mut Folder, part: usize| {
            if let Some(id) = call_id.clone() {
                let turn = message_id.clone();
                let thread = thread.clone();
                folder
                    .call_thread
                    .insert(id, CallSlot::Open { thread, turn, part });
            }
        };
        let open = self.open_message.get(&thread) == Some(&message_id);
        if open {
            if let Some(at) = self
                .find_turn(&thread, &message_id)
                .map(|turn| turn.parts.len())
            {
                slot(self, at);
                let turn = self
                    .find_turn(&thread, &message_id)
                    .expect("found just above");
                turn.parts.push(part);
                merge_meta(&mut turn.metadata, meta);
                extend_turn(turn, timestamp);
                return;
            }
        }
        slot(self, 0);
        self.open_message.insert(thread.clone(), message_id.clone());
        let turn = Turn {
            id: message_id,
            role: Role::Assistant,
            origin: TurnOrigin::Model,
            parent_task_id: thread.clone(),
            parts: vec![part],
            metadata: meta,
            timestamp,
            end_timestamp: None,
        };
        self.push_turn(thread, turn);
    }

    fn tool_result(&mut self, id: &str, result: CallResult, line: u64, at: Option<String>) {
        // The first result's time ends the call and, if later, the turn that made it.
        let first = self.find_call(id).is_some_and(|c| !c.state.is_terminal());
        if first
            && let Some(CallSlot::Open { thread, turn, .. }) = self.call_thread.get(id).cloned()
            && let Some(t) = self.find_turn(&thread, &turn)
        {
            extend_turn(t, at.clone());
        }
        let Some(call) = self.find_call(id) else {
            // Kept, and said for what it is: a repeat (a replay) for a call already written
            // with its result, a late result for a call written unfinished, or a result whose
            // call is not in the input.
            let (level, text) = match self.slot_of(id) {
                Some(CallSlot::Written { finished: true }) => (
                    Level::Info,
                    format!(
                        "a second result for the finished call {id} (line {line}) left it as it was"
                    ),
                ),
                Some(CallSlot::Written { finished: false }) => (
                    Level::Warning,
                    format!(
                        "a result for the call {id} (line {line}) that came after its turn was written"
                    ),
                ),
                Some(CallSlot::Open { .. }) | None => (
                    Level::Warning,
                    format!("result for a tool call that is not in the input ({id}, line {line})"),
                ),
            };
            self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Info {
                source: "tool_result".into(),
                level,
                text,
                data: result.output,
            })));
            return;
        };
        // No call moves backwards: a second result for a finished call (a replay) adds what
        // was missing and changes nothing else.
        if call.state.is_terminal() {
            let CallResult {
                output,
                sidecar,
                facts,
                ..
            } = result;
            if call.sidecar.is_none() {
                call.sidecar = sidecar;
            }
            if call.facts.is_empty() {
                call.facts = facts;
            }
            if call.output.is_none() {
                call.output = Some(output);
            } else if call.output.as_ref() != Some(&output) {
                // Kept, beside the call it could not change.
                self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Info {
                    source: "tool_result".into(),
                    level: Level::Info,
                    text: format!(
                        "a second result for the finished call {id} (line {line}) left it as it was"
                    ),
                    data: output,
                })));
            }
            return;
        }
        let is_error = result.is_error;
        call.set_result(result);
        if at.is_some() {
            call.ended_at = at;
        }
        if call.skill.is_some() && !is_error {
            self.skill_awaiting.push_back(id.to_owned());
        }
    }

    fn push_turn(&mut self, thread: Thread, turn: Turn) {
        match thread {
            None => self.queue.push_turn(turn),
            Some(parent) => self
                .subthreads
                .entry(parent)
                .or_insert_with(SubThread::new)
                .turns
                .push(turn),
        }
    }

    /// A finished branch: its turns in one `branch` notice; the notices and debug records it held
    /// follow it, so nothing in it is lost.
    fn close_branch(&mut self, mut b: OpenBranch) {
        b.folder.finish(&mut b.items);
        let mut turns = Vec::new();
        let mut rest = Vec::new();
        for item in b.items {
            match item {
                TranscriptItem::Turn(mut t) => {
                    t.parent_task_id = b.thread.clone();
                    turns.push(*t);
                }
                TranscriptItem::Notice(_) | TranscriptItem::Debug(_) => rest.push(item),
                // The session header of the main conversation stands for the branch too.
                TranscriptItem::Session(_) => {}
            }
        }
        self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Branch {
            leaf_id: b.leaf_id,
            turns,
        })));
        rest.into_iter().for_each(|item| self.ready(item));
    }

    fn ready(&mut self, item: TranscriptItem) {
        self.queue.push_ready(item);
    }

    fn subthread_for(&mut self, task_id: &str, call_id: Option<&str>) -> Option<&mut SubThread> {
        let call_id = match call_id {
            // A run already written, or a call written without one (a saved session's
            // `<task-notification>` for a background call whose result came long before): its
            // end is a task notice, not an orphan record.
            Some(c)
                if self.written_runs.contains(c)
                    || matches!(self.slot_of(c), Some(CallSlot::Written { .. })) =>
            {
                return None;
            }
            Some(c) => {
                self.task_call.insert(task_id.to_owned(), c.to_owned());
                c.to_owned()
            }
            None => self.task_call.get(task_id)?.clone(),
        };
        let st = self
            .subthreads
            .entry(call_id)
            .or_insert_with(SubThread::new);
        st.announced = true;
        if st.record.task_id.is_empty() {
            st.record.task_id = task_id.to_owned();
        }
        Some(st)
    }

    fn find_turn(&mut self, thread: &Thread, id: &str) -> Option<&mut Turn> {
        turn_in(&mut self.queue, &mut self.subthreads, thread, id)
    }

    /// The open call `id`, where `call_thread` says it was put (its slot is borrowed, not
    /// copied: this runs for every result) or, if something moved it since, wherever it is in
    /// its thread.
    fn find_call(&mut self, id: &str) -> Option<&mut ToolCall> {
        let CallSlot::Open { thread, turn, part } = self.call_thread.get(id)? else {
            return None;
        };
        let (queue, subthreads) = (&mut self.queue, &mut self.subthreads);
        let is_it = |p: &Part| matches!(p, Part::ToolCall { call } if call.tool_call_id == id);
        // Where the call was put, unless something moved it since.
        let placed = turn_in(queue, subthreads, thread, turn)
            .and_then(|t| t.parts.get(*part))
            .is_some_and(is_it);
        if placed {
            return turn_in(queue, subthreads, thread, turn)
                .and_then(|t| t.parts.get_mut(*part))
                .and_then(|p| {
                    if let Part::ToolCall { call } = p {
                        Some(call.as_mut())
                    } else {
                        None
                    }
                });
        }
        turns_in(queue, subthreads, thread)?.rev().find_map(|t| {
            t.parts.iter_mut().rev().find_map(|p| match p {
                Part::ToolCall { call } if call.tool_call_id == id => Some(call.as_mut()),
                Part::ToolCall { .. }
                | Part::Text { .. }
                | Part::Reasoning { .. }
                | Part::File { .. }
                | Part::SourceUrl { .. }
                | Part::SourceDocument { .. }
                | Part::Compaction { .. }
                | Part::Data { .. } => None,
            })
        })
    }

    fn is_final(&self, turn: &Turn) -> bool {
        if turn.role == Role::User {
            return true;
        }
        if self.open_message.get(&None) == Some(&turn.id) {
            return false;
        }
        let part_final = |p: &Part| match p {
            Part::ToolCall { call } => {
                call.state.is_terminal()
                    && !self.skill_awaiting.contains(&call.tool_call_id)
                    && !self.subthreads.get(&call.tool_call_id).is_some_and(|st| {
                        st.announced
                            && (st.record.status == SubagentStatus::Running
                                || st.ended_by_update && !st.finished)
                    })
            }
            Part::Text { .. }
            | Part::Reasoning { .. }
            | Part::File { .. }
            | Part::SourceUrl { .. }
            | Part::SourceDocument { .. }
            | Part::Compaction { .. }
            | Part::Data { .. } => true,
        };
        let mut blocker = self.blocker.borrow_mut();
        let start = if blocker.0 == turn.id && blocker.1 < turn.parts.len() {
            blocker.1
        } else {
            0
        };
        // Every part is checked, from the last blocker on, wrapping around.
        let n = turn.parts.len();
        match (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| !part_final(&turn.parts[i]))
        {
            Some(i) => {
                if blocker.0 != turn.id {
                    blocker.0.clone_from(&turn.id);
                }
                blocker.1 = i;
                false
            }
            None => true,
        }
    }

    /// Writes the final items at the front of the queue.
    fn release(&mut self, out: &mut Vec<TranscriptItem>) {
        while let Some(front) = self.queue.front() {
            let done = match front {
                Pending::Ready(_) => true,
                Pending::Turn(t) => self.is_final(t),
            };
            if !done {
                break;
            }
            let item = self.queue.pop_front().expect("front exists");
            self.push_final(item, out);
            out.append(&mut self.after_turn);
        }
    }

    /// True for a call whose result came (the harness's "launched" acknowledgement) while the
    /// sub-agent it started still runs: a background run, whose report is still to come.
    fn runs_in_background(&self, call: &ToolCall) -> bool {
        call.state.is_terminal()
            && self.subthreads.get(&call.tool_call_id).is_some_and(|st| {
                st.announced
                    && !st.finished
                    && (st.record.status == SubagentStatus::Running || st.ended_by_update)
            })
    }

    /// The agent's turn ended: writes everything in the queue, final or not, up to a turn with a
    /// call whose sub-agent runs in the background. That turn (and what follows it, so that the
    /// order stays the input's) waits for the run to finish, so that its report lands on its
    /// call; the end of the input writes it all the same.
    fn release_all_but_background(&mut self, out: &mut Vec<TranscriptItem>) {
        while let Some(front) = self.queue.front() {
            if let Pending::Turn(t) = front {
                let waits = t.parts.iter().any(|p| match p {
                    Part::ToolCall { call } => self.runs_in_background(call),
                    Part::Compaction { .. }
                    | Part::Text { .. }
                    | Part::Reasoning { .. }
                    | Part::File { .. }
                    | Part::SourceUrl { .. }
                    | Part::SourceDocument { .. }
                    | Part::Data { .. } => false,
                });
                if waits {
                    return;
                }
            }
            let item = self.queue.pop_front().expect("front exists");
            self.push_final(item, out);
            out.append(&mut self.after_turn);
        }
    }

    /// Writes everything in the queue, final or not.
    fn release_all(&mut self, out: &mut Vec<TranscriptItem>) {
        while let Some(item) = self.queue.pop_front() {
            self.push_final(item, out);
            out.append(&mut self.after_turn);
        }
    }

    fn finalize(&mut self, item: Pending) -> TranscriptItem {
        match item {
            Pending::Ready(i) => i,
            Pending::Turn(mut t) => {
                self.attach_subagents(&mut t, 1);
                TranscriptItem::Turn(t)
            }
        }
    }

    /// Writes `item`, and before it, once per run, the notice that sub-agents nested deeper
    /// than `MAX_SUBAGENT_DEPTH` are shown flattened.
    fn push_final(&mut self, item: Pending, out: &mut Vec<TranscriptItem>) {
        let item = self.finalize(item);
        if self.flattened == Flattened::Due {
            self.flattened = Flattened::Told;
            out.push(TranscriptItem::Notice(Box::new(SystemNotice::Info {
                source: "scribe".to_owned(),
                level: Level::Warning,
                text: format!(
                    "sub-agents are nested more than {MAX_SUBAGENT_DEPTH} levels deep: the deeper \
                     ones are shown at level {MAX_SUBAGENT_DEPTH}, each right after the turn \
                     whose call started it"
                ),
                data: serde_json::Value::Null,
            })));
        }
        out.push(item);
    }

    /// Moves each Agent call's sub-agent thread into the call; `depth` is the nesting level of
    /// `turn` (1 for a top-level turn). Recursion stops at `MAX_SUBAGENT_DEPTH`: below it,
    /// `flatten` lays the deeper threads out in one list, without recursion.
    fn attach_subagents(&mut self, turn: &mut Turn, depth: usize) {
        for part in &mut turn.parts {
            let Part::ToolCall { call } = part else {
                continue;
            };
            let Some(mut turns) = self.take_subthread(call) else {
                continue;
            };
            if depth < MAX_SUBAGENT_DEPTH {
                for t in &mut turns {
                    self.attach_subagents(t, depth + 1);
                }
            } else {
                turns = self.flatten(turns);
            }
            if let Some(record) = call.subagent.as_mut() {
                record.transcript = turns;
            }
        }
    }

    /// The turns of a sub-agent at the deepest level shown, with every thread below them laid
    /// out in reading order (each sub-agent's turns right after the turn whose call started
    /// it). An explicit stack: a chain of 100 000 sub-agents costs no call stack.
    fn flatten(&mut self, turns: Vec<Turn>) -> Vec<Turn> {
        let mut out = Vec::with_capacity(turns.len());
        let mut stack = vec![turns.into_iter()];
        while let Some(top) = stack.last_mut() {
            let Some(mut t) = top.next() else {
                stack.pop();
                continue;
            };
            let mut below = Vec::new();
            for part in &mut t.parts {
                if let Part::ToolCall { call } = part {
                    if let Some(turns) = self.take_subthread(call) {
                        if !turns.is_empty() {
                            self.flattened = self.flattened.max(Flattened::Due);
                        }
                        below.extend(turns);
                    }
                }
            }
            out.push(t);
            if !below.is_empty() {
                stack.push(below.into_iter());
            }
        }
        out
    }

    /// Where the call `id` is: open in a turn, written (finished or not), or unknown.
    fn slot_of(&self, id: &str) -> Option<CallSlot> {
        match self.call_thread.get(id) {
            Some(slot) => Some(slot.clone()),
            None => self
                .written_calls
                .get(id)
                .map(|&finished| CallSlot::Written { finished }),
        }
    }

    /// Takes an Agent call's sub-agent thread out of the fold: the call gets its record (status
    /// and description filled in, transcript empty) and the thread's turns are returned. A
    /// background task with no transcript becomes a notice after the turn instead (`None`).
    fn take_subthread(&mut self, call: &mut ToolCall) -> Option<Vec<Turn>> {
        let id = call.tool_call_id.clone();
        // A written call leaves the index of open calls; only its fingerprint stays.
        if self.call_thread.remove(&id).is_some() {
            self.written_calls.insert(&id, call.state.is_terminal());
        }
        let SubThread {
            mut record,
            announced,
            turns,
            ..
        } = self.subthreads.remove(&id)?;
        self.written_runs.insert(&id, ());
        self.task_call.remove(&record.task_id);
        if !announced {
            record.status = match call.state {
                ToolState::Success => SubagentStatus::Completed,
                ToolState::Error | ToolState::ApprovalDenied => SubagentStatus::Failed,
                ToolState::Pending | ToolState::ApprovalPending | ToolState::Running => {
                    SubagentStatus::Running
                }
            };
        }
        // A background task with no agent and no transcript (a shell command run in the
        // background): its outcome, not a phantom sub-agent.
        if announced && turns.is_empty() && record.subagent_type.is_none() {
            self.after_turn.push(task_notice(
                record.task_id,
                Some(record.status),
                Some(record.description).filter(|d| !d.is_empty()),
                record.summary,
                record.usage,
                None,
            ));
            if let Some(n) = self.after_turn.last_mut() {
                set_task_result(n, record.result);
            }
            return None;
        }
        if record.description.is_empty() {
            record.description = match &call.kind {
                ToolKind::Subagent { description } => description.clone(),
                // Turns in the thread of a call the adapter did not call a sub-agent: the call's
                // own line says what it was.
                ToolKind::Shell { .. }
                | ToolKind::Read { .. }
                | ToolKind::Write { .. }
                | ToolKind::Edit { .. }
                | ToolKind::MultiEdit { .. }
                | ToolKind::Patch { .. }
                | ToolKind::Search { .. }
                | ToolKind::WebFetch { .. }
                | ToolKind::WebSearch { .. }
                | ToolKind::Todo { .. }
                | ToolKind::Plan { .. }
                | ToolKind::Skill { .. }
                | ToolKind::Mcp { .. }
                | ToolKind::StructuredOutput
                | ToolKind::Other { .. } => String::new(),
            };
        }
        call.subagent = Some(record);
        Some(turns.into_vec())
    }
}

/// The latest pending turn `id` of `thread`, by the indexes (one lookup, whatever is pending).
/// Like `turns_in`, a function of the two fields, not of the fold.
fn turn_in<'a>(
    queue: &'a mut PendingQueue,
    subthreads: &'a mut HashMap<String, SubThread>,
    thread: &Thread,
    id: &str,
) -> Option<&'a mut Turn> {
    match thread {
        None => queue.turn_mut(id),
        Some(parent) => subthreads.get_mut(parent)?.turns.turn_mut(id),
    }
}

/// The turns of `thread` still held: the main thread's in the queue, a sub-agent's in its
/// record. A function of the two fields, not of the fold, so that a caller can hold another
/// field (`Folder::find_call` holds the call's slot) while it looks.
fn turns_in<'a>(
    queue: &'a mut PendingQueue,
    subthreads: &'a mut HashMap<String, SubThread>,
    thread: &Thread,
) -> Option<Box<dyn DoubleEndedIterator<Item = &'a mut Turn> + 'a>> {
    match thread {
        None => Some(Box::new(queue.turns_mut())),
        Some(parent) => subthreads.get_mut(parent).map(|st| {
            Box::new(st.turns.iter_mut()) as Box<dyn DoubleEndedIterator<Item = &mut Turn>>
        }),
    }
}

/// Merges a later frame's facts into a turn's: usage is replaced, never added (the CLI repeats
/// the message's usage on every content-block frame).
fn merge_meta(into: &mut TurnMeta, from: TurnMeta) {
    if let Some(u) = from.usage {
        match into.usage.as_mut() {
            Some(have) => {
                have.output_tokens = u.output_tokens.max(have.output_tokens);
                if u.input_tokens > 0 {
                    have.input_tokens = u.input_tokens;
                }
                if u.cache_read_input_tokens > 0 {
                    have.cache_read_input_tokens = u.cache_read_input_tokens;
                }
                if u.cache_creation_input_tokens > 0 {
                    have.cache_creation_input_tokens = u.cache_creation_input_tokens;
                }
            }
            None => into.usage = Some(u),
        }
    }
    if from.model.is_some() && into.model.is_none() {
        into.model = from.model;
    }
    if from.stop_reason.is_some() {
        into.stop_reason = from.stop_reason;
    }
    if from.error.is_some() {
        into.error = from.error;
    }
    into.aborted |= from.aborted;
    into.machinery.extend(from.machinery);
}

/// The notice for a task no Agent call owns (a background shell, a workflow): its state as the
/// harness reported it.
fn task_notice(
    task_id: String,
    status: Option<SubagentStatus>,
    description: Option<String>,
    summary: Option<String>,
    usage: Option<crate::model::transcript::SubagentUsage>,
    // Dropped on purpose: `task_type` says how the harness runs a task (`local_bash`,
    // `local_agent`, …), which the description already tells a reader in words; the notice has
    // no field for it and the schema keeps none.
    _task_type: Option<String>,
) -> TranscriptItem {
    TranscriptItem::Notice(Box::new(SystemNotice::Task {
        task_id,
        status,
        description,
        summary,
        usage,
        result: None,
    }))
}

/// Puts a task's final report (`SubtaskFinished.result`) on the task notice `n`.
fn set_task_result(n: &mut TranscriptItem, report: Option<String>) {
    if let TranscriptItem::Notice(b) = n {
        if let SystemNotice::Task { result, .. } = b.as_mut() {
            *result = report;
        }
    }
}
