//! Streamed text held back from the live view (`--to events`) under `--redact` and `--stable`:
//! a secret can straddle two deltas, and their number and chunking vary from run to run, so the
//! text is shown when its message's block arrives, never piece by piece. A message whose block
//! never arrives (a stream cut off mid-answer) still has its text shown, once, at the end: one
//! delta per streamed block, whole, which the fold likewise makes that message's content.

use std::collections::BTreeMap;

use foldhash::HashMap;

use crate::model::event::{Event, EventKind};
use crate::model::recent::Recent;

/// The deltas of messages whose block has not arrived, merged per block.
#[derive(Debug, Default)]
pub(super) struct HeldDeltas {
    /// Per message id: its blocks by index, each one delta event whose text is all the block's
    /// text so far (and whose line is its last delta's).
    pending: HashMap<String, BTreeMap<u64, Event>>,
    /// Messages whose block arrived: a late delta of theirs adds nothing, as in the fold.
    settled: Recent<()>,
}

impl HeldDeltas {
    /// Takes a text or reasoning delta (true), or lets any other event pass (false). An
    /// assistant block settles its message: the deltas held for it are dropped.
    pub(super) fn hold(&mut self, event: &Event) -> bool {
        if let EventKind::AssistantBlock { message_id, .. } = &event.kind {
            self.pending.remove(message_id);
            self.settled.insert(message_id, ());
            return false;
        }
        let (EventKind::TextDelta {
            message_id,
            index,
            text,
            ..
        }
        | EventKind::ReasoningDelta {
            message_id,
            index,
            text,
            ..
        }) = &event.kind
        else {
            return false;
        };
        let index = *index;
        if self.settled.contains(message_id) {
            return true;
        }
        let blocks = self.pending.entry(message_id.clone()).or_default();
        match blocks.get_mut(&index) {
            Some(held) => {
                held.line = event.line;
                if let EventKind::TextDelta { text: all, .. }
                | EventKind::ReasoningDelta { text: all, .. } = &mut held.kind
                {
                    all.push_str(text);
                }
            }
            None => {
                blocks.insert(index, event.clone());
            }
        }
        true
    }

    /// The text of messages whose block never arrived: one delta per block, in input order.
    pub(super) fn release(&mut self) -> Vec<Event> {
        let mut out: Vec<Event> = self
            .pending
            .drain()
            .flat_map(|(_, blocks)| blocks.into_values())
            .collect();
        out.sort_by_key(|e| e.line);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(line: u64, message: &str, index: u64, text: &str) -> Event {
        Event {
            line,
            kind: EventKind::TextDelta {
                thread: None,
                message_id: message.to_owned(),
                index,
                text: text.to_owned(),
            },
        }
    }

    fn text_of(e: &Event) -> (u64, &str) {
        let EventKind::TextDelta { text, .. } = &e.kind else {
            panic!("not a text delta: {e:?}");
        };
        (e.line, text)
    }

    #[test]
    fn a_block_that_never_arrives_is_released_whole_and_a_settled_one_is_not() {
        let mut h = HeldDeltas::default();
        assert!(h.hold(&delta(1, "m1", 0, "sk-ant-")));
        assert!(h.hold(&delta(2, "m1", 0, "api03")));
        assert!(h.hold(&delta(3, "m2", 0, "gone")));
        let block = Event {
            line: 4,
            kind: EventKind::AssistantBlock {
                thread: None,
                message_id: "m2".to_owned(),
                part: crate::model::transcript::Part::text("gone".to_owned()),
                meta: Default::default(),
                timestamp: None,
            },
        };
        assert!(!h.hold(&block));
        assert!(h.hold(&delta(5, "m2", 0, "late")));
        assert!(h.hold(&delta(6, "m1", 1, "second")));
        let out = h.release();
        let texts: Vec<_> = out.iter().map(text_of).collect();
        assert_eq!(texts, [(2, "sk-ant-api03"), (6, "second")]);
        assert!(h.release().is_empty());
    }
}
