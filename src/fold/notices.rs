//! Notices and debug records (design §14, "SystemNotice"; ingest step 9): final as they come,
//! they only wait behind the items before them. Two notices change the fold: the agent's
//! `result` ends its turn (everything held is written, but a turn whose sub-agent still runs in
//! the background), and a conversation reset writes everything. A hook is held from its start to
//! its end and written once (`model::hooks`).

use crate::model::hooks::HookStep;
use crate::model::session::{Level, SystemNotice};
use crate::model::transcript::{DebugRecord, TranscriptItem};

use super::Folder;

impl Folder {
    /// `Notice`: a `result` first ends the agent's turn; then the notice is queued, or held
    /// while its hook runs.
    pub(super) fn notice(&mut self, notice: SystemNotice, out: &mut Vec<TranscriptItem>) {
        if matches!(notice, SystemNotice::Result { .. }) {
            // The agent's turn is over: nothing before this can change any more, but for a
            // sub-agent running in the background, whose report is still to come.
            self.open_message.clear();
            self.skill_awaiting.clear();
            self.release_all_but_background(out);
        }
        match self.hooks.notice(notice) {
            HookStep::Write(notices) => {
                for n in notices {
                    self.ready(TranscriptItem::Notice(Box::new(n)));
                }
            }
            HookStep::Held => {}
        }
    }

    /// `ConversationReset`: what came before belongs to an earlier conversation: all of it is
    /// written, then a notice marks the reset.
    pub(super) fn conversation_reset(&mut self, out: &mut Vec<TranscriptItem>) {
        self.open_message.clear();
        self.release_all(out);
        self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Info {
            source: "conversation_reset".into(),
            level: Level::Info,
            text: "conversation reset".into(),
            data: serde_json::Value::Null,
        })));
    }

    /// `Debug`: a line nothing understood, kept whole with its line number.
    pub(super) fn debug(&mut self, record: DebugRecord) {
        self.ready(TranscriptItem::Debug(Box::new(record)));
    }

    /// The input ended: hooks that never ended are written as they were last heard of.
    pub(super) fn write_unended_hooks(&mut self) {
        let unended: Vec<SystemNotice> = self.hooks.drain().collect();
        for n in unended {
            self.ready(TranscriptItem::Notice(Box::new(n)));
        }
    }
}
