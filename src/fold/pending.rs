//! The fold's queue of top-level items not yet written, and the index that finds a pending turn
//! by its id in one lookup.
//!
//! A result, a later content-block frame or a message's end names its turn by id. Found by a
//! scan of every pending turn from the back, that cost grew with the queue: 10 000 Agent calls
//! in separate messages whose results all come at the end (each turn waits for its call) took
//! 0.2 s at 2 500 calls and 9 s at 20 000. Each turn now keeps its place in an index, counted
//! from the first item ever queued so that writing the front does not move the others.

use std::collections::VecDeque;

use foldhash::HashMap;

use crate::model::transcript::{TranscriptItem, Turn};

/// A top-level item waiting for its turn to be written.
#[derive(Debug)]
pub(super) enum Pending {
    Turn(Box<Turn>),
    Ready(TranscriptItem),
}

/// Items in input order, written from the front, with each pending turn's place by its id.
#[derive(Debug, Default)]
pub(super) struct PendingQueue {
    items: VecDeque<Pending>,
    /// How many items left the front: item `k` of `items` is number `written + k` in all.
    written: u64,
    /// Turn id → the number (as above) of the latest pending turn with that id. A turn that
    /// leaves takes its entry with it, unless a later turn with the same id has taken it over.
    turn_at: HashMap<String, u64>,
}

impl PendingQueue {
    /// Queues a turn at the back; a later lookup of its id finds it (the latest of that id).
    pub(super) fn push_turn(&mut self, turn: Turn) {
        let number = self.written + self.items.len() as u64;
        self.turn_at.insert(turn.id.clone(), number);
        self.items.push_back(Pending::Turn(Box::new(turn)));
    }

    /// Queues an item that is final already (it still waits behind the items before it).
    pub(super) fn push_ready(&mut self, item: TranscriptItem) {
        self.items.push_back(Pending::Ready(item));
    }

    /// The item to write next.
    pub(super) fn front(&self) -> Option<&Pending> {
        self.items.front()
    }

    /// Takes the front item out, and its turn's entry from the index.
    pub(super) fn pop_front(&mut self) -> Option<Pending> {
        let item = self.items.pop_front()?;
        if let Pending::Turn(t) = &item
            && self.turn_at.get(&t.id) == Some(&self.written)
        {
            self.turn_at.remove(&t.id);
        }
        self.written += 1;
        Some(item)
    }

    /// How many items wait.
    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    /// The latest pending turn with this id, in one lookup.
    pub(super) fn turn_mut(&mut self, id: &str) -> Option<&mut Turn> {
        let number = *self.turn_at.get(id)?;
        let at = usize::try_from(number.checked_sub(self.written)?).ok()?;
        match self.items.get_mut(at)? {
            Pending::Turn(t) if t.id == id => Some(t.as_mut()),
            Pending::Turn(_) | Pending::Ready(_) => None,
        }
    }

    /// Every pending turn, first to last.
    pub(super) fn turns_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Turn> {
        self.items.iter_mut().filter_map(|p| match p {
            Pending::Turn(t) => Some(t.as_mut()),
            Pending::Ready(_) => None,
        })
    }
}

/// The turns of one sub-agent thread, in input order, with each one's place by its id (the
/// same lookup as the queue's, for a thread whose turns only ever grow until it is written).
#[derive(Debug, Default)]
pub(super) struct ThreadTurns {
    turns: Vec<Turn>,
    turn_at: HashMap<String, usize>,
}

impl ThreadTurns {
    /// Adds a turn at the end; the latest turn of an id is the one its lookups find.
    pub(super) fn push(&mut self, turn: Turn) {
        self.turn_at.insert(turn.id.clone(), self.turns.len());
        self.turns.push(turn);
    }

    /// The latest turn with this id, in one lookup.
    pub(super) fn turn_mut(&mut self, id: &str) -> Option<&mut Turn> {
        let at = *self.turn_at.get(id)?;
        self.turns.get_mut(at).filter(|t| t.id == id)
    }

    /// Every turn, first to last.
    pub(super) fn iter_mut(&mut self) -> std::slice::IterMut<'_, Turn> {
        self.turns.iter_mut()
    }

    /// Whether the thread has no turn.
    pub(super) fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    /// The turns, for the record they are written into.
    pub(super) fn into_vec(self) -> Vec<Turn> {
        self.turns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::transcript::{Role, TurnMeta, TurnOrigin};

    /// A turn told apart from others of its id by its `timestamp`.
    fn turn(id: &str, tag: usize) -> Turn {
        Turn {
            id: id.to_owned(),
            role: Role::Assistant,
            origin: TurnOrigin::Model,
            parent_task_id: None,
            parts: Vec::new(),
            metadata: TurnMeta::default(),
            timestamp: Some(tag.to_string()),
            end_timestamp: None,
        }
    }

    #[test]
    fn a_turn_is_found_after_the_items_before_it_were_written() {
        let mut q = PendingQueue::default();
        q.push_turn(turn("a", 0));
        q.push_ready(TranscriptItem::Turn(Box::new(turn("x", 0))));
        q.push_turn(turn("b", 0));
        assert!(q.pop_front().is_some());
        assert!(q.turn_mut("a").is_none(), "a was written");
        assert!(q.pop_front().is_some());
        assert_eq!(q.turn_mut("b").map(|t| t.id.clone()), Some("b".into()));
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn the_latest_turn_of_a_repeated_id_is_found_and_survives_the_earlier_leaving() {
        let mut q = PendingQueue::default();
        q.push_turn(turn("m", 1));
        q.push_turn(turn("m", 2));
        assert_eq!(
            q.turn_mut("m").and_then(|t| t.timestamp.clone()),
            Some("2".into())
        );
        assert!(q.pop_front().is_some());
        assert_eq!(
            q.turn_mut("m").and_then(|t| t.timestamp.clone()),
            Some("2".into())
        );
        assert!(q.pop_front().is_some());
        assert!(q.turn_mut("m").is_none());
        assert!(q.turn_at.is_empty(), "no entry outlives its turn");
    }

    #[test]
    fn a_thread_finds_its_latest_turn_of_an_id() {
        let mut t = ThreadTurns::default();
        t.push(turn("s", 1));
        t.push(turn("u", 0));
        t.push(turn("s", 3));
        assert_eq!(
            t.turn_mut("s").and_then(|t| t.timestamp.clone()),
            Some("3".into())
        );
        assert!(t.turn_mut("nope").is_none());
        assert_eq!(t.into_vec().len(), 3);
    }
}
