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
    settled: VecDeque<String>,
}

/// How many settled message ids to remember.
const SETTLED_MEMORY: usize = 64;

impl DeltaBuffer {
    /// Adds streamed text (reasoning when `thinking`).
    pub(super) fn text(
        &mut self,
        thread: Thread,
        message_id: String,
        index: u64,
        text: String,
        thinking: bool,
    ) {
        if self.settled.contains(&message_id) {
            return;
        }
        let entry = self
            .pending
            .entry(message_id)
            .or_insert_with(|| (thread, BTreeMap::new()));
        entry
            .1
            .entry(index)
            .or_insert((thinking, String::new()))
            .1
            .push_str(&text);
    }

    /// The message's final frames are arriving: its deltas are no longer needed.
    pub(super) fn settled(&mut self, message_id: &str) {
        self.pending.remove(message_id);
        // Newest first: a message's blocks arrive one after another, so it is most often the
        // last one settled.
        if !self.settled.iter().rev().any(|m| m == message_id) {
            if self.settled.len() == SETTLED_MEMORY {
                self.settled.pop_front();
            }
            self.settled.push_back(message_id.to_owned());
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
