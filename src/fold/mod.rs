//! Stage 2 → stage 3: folds normalized events into final transcript items (design §14,
//! "Ingest pipeline", steps 1–9).
//!
//! `Folder::push` only dispatches: each event kind goes to its handler, in the file named for
//! what it folds, and then the items that became final are written (`release.rs`). The fold
//! keeps only what can still change: top-level items that are not final yet (in input order, so
//! output order is input order), sub-agent runs whose Agent call has not been written, and a few
//! indexes. Everything final leaves at once. It knows no vendor: what a call or a turn is, the
//! adapter said.
//!
//! State kept between events (the fields of `Folder`):
//!
//! ```text
//! state           what it holds                                               file
//! ──────────────  ──────────────────────────────────────────────────────────  ────────────
//! queue           top-level items not yet written, in input order             pending.rs
//! open_message    per thread, the assistant message still taking blocks       turns.rs
//! call_thread     where each open call sits: thread, turn, index in the turn  calls.rs
//! written_calls   fingerprints of written calls: ended or not, their output   calls.rs
//! subthreads      per Agent call, its sub-agent run: record and turns         subagents.rs
//! task_call       task id → the Agent call that owns it                       subagents.rs
//! written_runs    fingerprints of calls written with their run                subagents.rs
//! after_turn      background-task notices due right after the turn written    subagents.rs
//! flattened       whether runs nested too deep were flattened, and said so    subagents.rs
//! skill_awaiting  Skill calls whose body may still come, in result order      skills.rs
//! deltas          streamed text of messages that have no block yet            deltas.rs
//! hooks           hooks started and not ended                                 model/hooks.rs
//! last_session    the last session snapshot written                           session.rs
//! branch          the abandoned branch being folded by a fold of its own      branches.rs
//! blocker         where the front turn was last found not final               release.rs
//! ```
//!
//! What each event does (→: what it writes, queued behind the items before it):
//!
//! ```text
//! event              handler        opens / changes / closes
//! ─────────────────  ─────────────  ──────────────────────────────────────────────────────────────
//! SessionInit        session.rs     → the snapshot, when it differs from the last one
//! UserTurn           turns.rs       closes its thread's open message; a synthetic turn that is an
//!                    skills.rs      awaited body goes on its Skill call and ends the wait;
//!                                   → otherwise the user turn (a sub-agent's: into its run)
//! AssistantBlock     turns.rs       ends every skill wait; settles the message's deltas; joins
//!                                   the thread's open message, else opens one (a new turn); a
//!                                   tool-call part opens its call's slot
//! AssistantEnd       turns.rs       stop reason and usage onto the message's turn
//! TextDelta,         deltas.rs      holds the text while its message has no block
//!   ReasoningDelta
//! ToolInputStarted,  —              nothing (display only)
//!   ToolProgress
//! ToolResult         calls.rs       a client tool's result closes the open message; ends the
//!                                   call (a finished one only gains what it lacked); a Skill
//!                                   call opens a body wait; → a notice for a result no open
//!                                   call takes, or a repeat that differs
//! ToolUpdate         calls.rs       the call's state forward, never back; its new fields
//! ToolDenied         calls.rs       the denial onto the call; → a notice when there is no call
//! ToolUnanswered     calls.rs       the call's turn need not wait for its end (release.rs)
//! SubtaskStarted     subagents.rs   opens or names the call's run; → a task notice: no call
//! SubtaskProgress    subagents.rs   a progress line on the run; → a notice: run ended, no call
//! SubtaskUpdated     subagents.rs   the run's status and description; → a task notice: no run
//! SubtaskFinished    subagents.rs   freezes the run (design §14, ingest step 4);
//!                                   → a task notice: no run
//! Notice             notices.rs     the agent's `result` closes every open message and skill wait
//!                    model/hooks.rs and writes everything held but a turn whose sub-agent runs in
//!                                   the background; a hook is held from its start to its end;
//!                                   → the notice (a hook's once, at its end)
//! ConversationReset  notices.rs     closes the open messages; writes all; → a reset notice
//! BranchStarted      branches.rs    opens a branch: a fold of its own takes every event
//! BranchEnded        branches.rs    closes it; → a branch notice, then the notices it held
//! Absorbed           —              nothing (the adapter counted it)
//! Debug              notices.rs     → a debug record
//! (end of input)     mod.rs finish  closes the branch, messages, waits and hooks (→ the hooks);
//!                                   a message with deltas only becomes a turn; writes all;
//!                                   → each run whose call never came, in a subagent notice
//! ```
//!
//! When an item becomes final (`release.rs`), after every event:
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
//! out flat at that level, without recursion, and a notice says so (`subagents.rs`).

// A match on one of our own enums names every variant: a new variant is a compile error here,
// never silently swallowed by `_`. (Wildcards stay allowed on text, numbers and foreign types.)
#![deny(clippy::wildcard_enum_match_arm)]

use std::cell::RefCell;
use std::collections::VecDeque;

use foldhash::HashMap;

use crate::model::event::{Event, EventKind, Thread};
use crate::model::hooks::OpenHooks;
use crate::model::recent::Recent;
use crate::model::session::SessionSnapshot;
use crate::model::transcript::{DebugRecord, TranscriptItem, TurnMeta};

/// Branches left behind by a rewind or a fork, folded on their own into one notice.
mod branches;
/// Tool calls: results, updates and denials finding the call they change.
mod calls;
/// Streamed text, kept only until its message's blocks come.
mod deltas;
/// Notices and debug records, and the two notices that end what the fold holds.
mod notices;
/// The queue of items not yet written, and the index that finds a pending turn by its id.
mod pending;
/// When a held item is final, and how it leaves the fold.
mod release;
/// The session snapshot, written again only when it changed.
mod session;
/// Skill bodies, put on the Skill call they belong to.
mod skills;
/// Sub-agent runs: task events, and the move of their turns into their Agent call.
mod subagents;
/// User and assistant turns, and the open message of each thread.
mod turns;

use branches::OpenBranch;
use calls::CallSlot;
use deltas::DeltaBuffer;
use pending::PendingQueue;
use subagents::{Flattened, SubThread};
use turns::Block;

/// The fold's state. Private: events go in through `push`, final items come out.
#[derive(Debug, Default)]
pub(crate) struct Folder {
    /// Top-level items not yet written, in input order.
    queue: PendingQueue,
    /// Sub-agent runs by the id of the Agent call that started them, until that call is written.
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
    /// Calls already written, by the fingerprint of their id (`model::recent`), whether they
    /// were finished then and a fingerprint of their output: a later result is told apart from
    /// one whose call is not in the input, and one that repeats the output is not shown again.
    /// The most recent 28 672 (`Recent::CAPACITY`), as fingerprints: a million calls need no
    /// more memory than that.
    written_calls: Recent<(bool, u64)>,
    /// Per thread, the assistant message still taking content-block frames.
    open_message: HashMap<Thread, String>,
    /// Skill calls whose result arrived and whose body may follow, in result order (parallel
    /// Skill calls each get one body).
    skill_awaiting: VecDeque<String>,
    /// The last session snapshot written (id and time cleared), to write it again only when it
    /// changed.
    last_session: Option<SessionSnapshot>,
    /// Streamed text of messages whose blocks have not come, kept in case they never do.
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

impl Folder {
    /// An empty fold, at the start of one input.
    pub(crate) fn new() -> Folder {
        Folder::default()
    }

    /// Folds one event; appends every item that became final. It only dispatches: an open
    /// branch takes every event up to its end (`branches.rs`); any other event goes to its
    /// handler, in the file named for what it folds (the table at the top of this file says what
    /// each does), and then the final items at the front of the queue are written
    /// (`release.rs`). An event whose fields fit a handler's parameters is taken apart here; the
    /// four with more (a block, a result, an update, a run's end) go whole to their handler,
    /// which takes them apart.
    pub(crate) fn push(&mut self, event: Event, out: &mut Vec<TranscriptItem>) {
        if self.branch.is_some() {
            self.branch_event(event, out);
            return;
        }
        match event.kind {
            EventKind::SessionInit { session } => self.session(*session),
            EventKind::UserTurn {
                turn,
                source_tool_call_id,
            } => self.user_turn(*turn, source_tool_call_id),
            kind @ EventKind::AssistantBlock { .. } => self.assistant_block(kind),
            EventKind::AssistantEnd {
                thread,
                message_id,
                meta,
            } => self.assistant_end(&thread, &message_id, meta),
            EventKind::TextDelta {
                thread,
                message_id,
                index,
                text,
            } => self.deltas.text(thread, message_id, index, text),
            EventKind::ReasoningDelta {
                thread,
                message_id,
                index,
                text,
            } => self.deltas.reasoning(thread, message_id, index, text),
            EventKind::ToolInputStarted { .. } | EventKind::ToolProgress { .. } => {}
            kind @ EventKind::ToolResult { .. } => self.tool_result(kind, event.line),
            kind @ EventKind::ToolUpdate { .. } => self.tool_update(kind),
            EventKind::ToolDenied {
                tool_call_id,
                tool_name,
                message,
            } => self.tool_denied(tool_call_id, tool_name, message),
            EventKind::ToolUnanswered { tool_call_id } => self.tool_unanswered(&tool_call_id),
            kind @ EventKind::SubtaskStarted { .. } => self.subtask_started(kind),
            kind @ EventKind::SubtaskProgress { .. } => self.subtask_progress(kind),
            EventKind::SubtaskUpdated {
                task_id,
                status,
                description,
                error,
            } => self.subtask_updated(task_id, status, description, error),
            kind @ EventKind::SubtaskFinished { .. } => self.subtask_finished(kind),
            EventKind::Notice { notice } => self.notice(*notice, out),
            EventKind::ConversationReset => self.conversation_reset(out),
            EventKind::BranchStarted { leaf_id, thread } => self.open_branch(leaf_id, thread),
            EventKind::BranchEnded => {} // without a start (always sent first): nothing to close
            EventKind::Absorbed { .. } => {} // empty for the transcript; the adapter counted it
            EventKind::Debug {
                reason,
                raw,
                malformed,
            } => self.debug(DebugRecord {
                reason,
                line: event.line,
                raw,
                malformed,
            }),
        }
        self.release(out);
    }

    /// The input ended: everything still held is written, in order.
    pub(crate) fn finish(&mut self, out: &mut Vec<TranscriptItem>) {
        // A branch the input did not close (cut short) is closed with what it has.
        self.close_branch();
        self.open_message.clear();
        self.skill_awaiting.clear();
        self.write_unended_hooks();
        for (thread, message_id, parts) in self.deltas.unsettled() {
            for part in parts {
                self.add_block(Block {
                    thread: thread.clone(),
                    message_id: message_id.clone(),
                    part,
                    meta: TurnMeta::default(),
                    timestamp: None,
                });
            }
        }
        self.open_message.clear();
        self.release_all(out);
        self.write_orphan_runs(out);
        out.append(&mut self.after_turn);
    }

    /// Queues an item that is final already (it still waits behind the items before it).
    fn ready(&mut self, item: TranscriptItem) {
        self.queue.push_ready(item);
    }
}
