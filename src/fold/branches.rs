//! Branches: the part of a conversation left behind by a rewind or a fork. The events between
//! `BranchStarted` and its `BranchEnded` are folded by a fold of their own (branches nest inside
//! it), and the turns it writes end up in one `branch` notice, which every renderer shows
//! collapsed and marked as rewound, instead of on the main line.

use crate::model::event::{Event, EventKind, Thread};
use crate::model::session::SystemNotice;
use crate::model::transcript::TranscriptItem;

use super::Folder;

/// An abandoned branch being folded on its own, between `BranchStarted` and `BranchEnded`: a
/// conversation of its own, whose turns end up in one `branch` notice.
#[derive(Debug)]
pub(super) struct OpenBranch {
    leaf_id: String,
    thread: Thread,
    folder: Folder,
    items: Vec<TranscriptItem>,
}

impl Folder {
    /// `BranchStarted`: every event from here to the branch's end goes to the branch's fold.
    pub(super) fn open_branch(&mut self, leaf_id: String, thread: Thread) {
        self.branch = Some(Box::new(OpenBranch {
            leaf_id,
            thread,
            folder: Folder::new(),
            items: Vec::new(),
        }));
    }

    /// An event while a branch is open: folded in the branch, unless it is the `BranchEnded`
    /// of this branch (not of one nested in it), which closes the branch.
    pub(super) fn branch_event(&mut self, event: Event, out: &mut Vec<TranscriptItem>) {
        let Some(b) = self.branch.as_mut() else {
            return;
        };
        let ends = matches!(event.kind, EventKind::BranchEnded) && b.folder.branch.is_none();
        if !ends {
            b.folder.push(event, &mut b.items);
            return;
        }
        self.close_branch();
        self.release(out);
    }

    /// Closes the open branch, if any: its turns in one `branch` notice; the notices and debug
    /// records it held follow it, so nothing in it is lost. At the end of the input a branch the
    /// input did not close (cut short) is closed with what it has.
    pub(super) fn close_branch(&mut self) {
        let Some(b) = self.branch.take() else {
            return;
        };
        let OpenBranch {
            leaf_id,
            thread,
            mut folder,
            mut items,
        } = *b;
        folder.finish(&mut items);
        let mut turns = Vec::new();
        let mut rest = Vec::new();
        for item in items {
            match item {
                TranscriptItem::Turn(mut t) => {
                    t.parent_task_id = thread.clone();
                    turns.push(*t);
                }
                TranscriptItem::Notice(_) | TranscriptItem::Debug(_) => rest.push(item),
                // The session header of the main conversation stands for the branch too.
                TranscriptItem::Session(_) => {}
            }
        }
        self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Branch {
            leaf_id,
            turns,
        })));
        rest.into_iter().for_each(|item| self.ready(item));
    }
}
