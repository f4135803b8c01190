//! Turns (design §14, "Turn" and ingest steps 5–8): a user message is one turn; the finished
//! content blocks of an assistant message merge into one turn, which stays open for more blocks
//! until something ends the message. A turn with a parent tool call goes to that call's
//! sub-agent thread (`subagents.rs`), never to the top level.
//!
//! The open message of each thread is `Folder::open_message`: a block of another message, a
//! user message, a client tool's result (`calls.rs`) or a `result` notice (`notices.rs`) ends
//! it.

use foldhash::HashMap;

use crate::model::event::{EventKind, Thread};
use crate::model::transcript::{Part, Role, Turn, TurnMeta, TurnOrigin};

use super::Folder;
use super::calls::CallSlot;
use super::pending::PendingQueue;
use super::subagents::SubThread;

/// One finished content block of an assistant message: its message, the block, the facts its
/// frame repeats (model, usage) and its time. From an `AssistantBlock`, or, at the end of the
/// input, from the deltas of a message that never got one.
pub(super) struct Block {
    pub(super) thread: Thread,
    pub(super) message_id: String,
    pub(super) part: Part,
    pub(super) meta: TurnMeta,
    pub(super) timestamp: Option<String>,
}

impl Folder {
    /// `UserTurn`: ends the thread's open message; the turn is queued, unless it is the body of
    /// a Skill call that waits for one (`skills.rs`).
    pub(super) fn user_turn(&mut self, mut turn: Turn, source_tool_call_id: Option<String>) {
        let thread = turn.parent_task_id.clone();
        self.open_message.remove(&thread);
        if self.take_skill_body(&mut turn, source_tool_call_id) {
            return;
        }
        self.push_turn(thread, turn);
    }

    /// `AssistantBlock`: the model spoke again, so no Skill call waits for a body any more; the
    /// message's deltas are no longer needed (`deltas.rs`); the block joins its turn. `event` is
    /// an `AssistantBlock`, whole (`Folder::push` sends nothing else here).
    pub(super) fn assistant_block(&mut self, event: EventKind) {
        let EventKind::AssistantBlock {
            thread,
            message_id,
            part,
            meta,
            timestamp,
        } = event
        else {
            unreachable!("the fold dispatches only assistant blocks here");
        };
        self.skill_awaiting.clear();
        self.deltas.settled(&message_id);
        self.add_block(Block {
            thread,
            message_id,
            part,
            meta,
            timestamp,
        });
    }

    /// Adds a block to its message's turn when that message is the thread's open one, else opens
    /// a new turn with it. A tool-call part opens its call's slot (`calls.rs`).
    pub(super) fn add_block(&mut self, block: Block) {
        let Block {
            thread,
            message_id,
            mut part,
            meta,
            timestamp,
        } = block;
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
                folder.call_thread.insert(
                    id,
                    CallSlot::Open {
                        thread,
                        turn,
                        part,
                        unanswered: false,
                    },
                );
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
        let turn = Turn::new(message_id, Role::Assistant, TurnOrigin::Model, vec![part])
            .in_thread(thread.clone())
            .with_meta(meta)
            .at(timestamp);
        self.push_turn(thread, turn);
    }

    /// `AssistantEnd`: the message's final stop reason and usage join its turn.
    pub(super) fn assistant_end(&mut self, thread: &Thread, message_id: &str, meta: TurnMeta) {
        if let Some(turn) = self.find_turn(thread, message_id) {
            merge_meta(&mut turn.metadata, meta);
        }
    }

    /// Queues a turn: at the top level, or in its sub-agent's thread.
    pub(super) fn push_turn(&mut self, thread: Thread, turn: Turn) {
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

    /// The latest pending turn `id` of `thread`.
    pub(super) fn find_turn(&mut self, thread: &Thread, id: &str) -> Option<&mut Turn> {
        turn_in(&mut self.queue, &mut self.subthreads, thread, id)
    }
}

/// The latest pending turn `id` of `thread`, by the indexes (one lookup, whatever is pending).
/// Like `turns_in`, a function of the two fields, not of the fold.
pub(super) fn turn_in<'a>(
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
pub(super) fn turns_in<'a>(
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

/// A later event of `turn` happened at `at`: it becomes the turn's end time when it is after the
/// turn's start and its end so far (RFC 3339 times of one input compare as strings). A turn
/// with no start time keeps no end either: there is no duration to tell.
pub(super) fn extend_turn(turn: &mut Turn, at: Option<String>) {
    let Some(at) = at else { return };
    let Some(start) = turn.timestamp.as_deref() else {
        return;
    };
    let latest = turn.end_timestamp.as_deref().unwrap_or(start);
    if at.as_str() > latest {
        turn.end_timestamp = Some(at);
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
