//! Partial-message deltas, kept only as a fallback.
//!
//! The final assistant frames are authoritative and deltas never add to them. But a stream cut off
//! after some deltas and before the message's frames would lose that text, so deltas are held per
//! message until its first frame arrives (then dropped), and whatever is left at the end of the
//! input becomes the message's content.

use std::collections::{BTreeMap, VecDeque};

use foldhash::HashMap;

use crate::model::event::Thread;
use crate::model::transcript::Part;

/// Streamed blocks of one message by index: (is reasoning, text so far).
type Blocks = BTreeMap<u64, (bool, String)>;

/// Delta text per message and block index, for messages with no frame yet.
#[derive(Debug, Default)]
pub(super) struct DeltaBuffer {
    pending: HashMap<String, (Thread, Blocks)>,
    /// The most recent messages whose frames arrived. Late deltas only ever belong to a message
    /// that is still streaming, so a short memory keeps the state flat however long the input.
    settled: VecDeque<Remembered>,
}

/// A settled message id with its hash: the memory is searched once per assistant block, and
/// comparing hashes first keeps that search from comparing up to [`SETTLED_MEMORY`] strings
/// (it was 2 % of a `--to jsonl` run). Equal hashes are confirmed on the text.
#[derive(Debug)]
struct Remembered {
    hash: u64,
    id: String,
}

/// The hash [`Remembered`] keeps.
fn id_hash(id: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::default().hash_one(id)
}

impl DeltaBuffer {
    /// True when `message_id` (whose [`id_hash`] is `hash`) is among the settled messages
    /// remembered.
    fn is_settled(&self, hash: u64, message_id: &str) -> bool {
        // Newest first: a message's blocks arrive one after another, so it is most often the
        // last one settled.
        self.settled
            .iter()
            .rev()
            .any(|m| m.hash == hash && m.id == message_id)
    }
}

/// Adds `text` to block `index`, which is reasoning when `thinking` (as its first delta said).
fn append(blocks: &mut Blocks, index: u64, thinking: bool, text: &str) {
    blocks
        .entry(index)
        .or_insert((thinking, String::new()))
        .1
        .push_str(text);
}

/// How many settled message ids to remember.
const SETTLED_MEMORY: usize = 64;

impl DeltaBuffer {
    /// Adds streamed answer text to block `index` of a message.
    pub(super) fn text(&mut self, thread: Thread, message_id: String, index: u64, text: String) {
        if let Some(blocks) = self.blocks_of(thread, message_id) {
            append(blocks, index, false, &text);
        }
    }

    /// Adds streamed reasoning text to block `index` of a message.
    pub(super) fn reasoning(
        &mut self,
        thread: Thread,
        message_id: String,
        index: u64,
        text: String,
    ) {
        if let Some(blocks) = self.blocks_of(thread, message_id) {
            append(blocks, index, true, &text);
        }
    }

    /// The blocks held for a message, made on its first delta; `None` once its frames came.
    fn blocks_of(&mut self, thread: Thread, message_id: String) -> Option<&mut Blocks> {
        if self.is_settled(id_hash(&message_id), &message_id) {
            return None;
        }
        let entry = self
            .pending
            .entry(message_id)
            .or_insert_with(|| (thread, BTreeMap::new()));
        Some(&mut entry.1)
    }

    /// The message's final frames are arriving: its deltas are no longer needed.
    pub(super) fn settled(&mut self, message_id: &str) {
        self.pending.remove(message_id);
        let hash = id_hash(message_id);
        if !self.is_settled(hash, message_id) {
            if self.settled.len() == SETTLED_MEMORY {
                self.settled.pop_front();
            }
            self.settled.push_back(Remembered {
                hash,
                id: message_id.to_owned(),
            });
        }
    }

    /// Messages that streamed deltas and never got a frame, as parts (sorted for determinism).
    pub(super) fn unsettled(&mut self) -> Vec<(Thread, String, Vec<Part>)> {
        let mut out: Vec<(Thread, String, Vec<Part>)> = self
            .pending
            .drain()
            .map(|(id, (thread, blocks))| {
                let parts = blocks
                    .into_values()
                    .map(|(thinking, text)| {
                        if thinking {
                            Part::Reasoning {
                                text,
                                redacted: false,
                                signature: None,
                            }
                        } else {
                            Part::Text {
                                text,
                                citations: Vec::new(),
                            }
                        }
                    })
                    .collect();
                (thread, id, parts)
            })
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1));
        out
    }
}
