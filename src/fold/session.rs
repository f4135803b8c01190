//! The session snapshot (design §14, "SessionSnapshot"; ingest step 1): the agent's inventory,
//! written when it first comes and again only when it changed (`init` is re-sent every turn).

use crate::model::session::SessionSnapshot;
use crate::model::transcript::TranscriptItem;

use super::Folder;

impl Folder {
    /// `SessionInit`: queues the snapshot unless it says what the last one said (its id and time
    /// aside). A snapshot with no id is named by its place in the queue.
    pub(super) fn session(&mut self, mut s: SessionSnapshot) {
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
}
