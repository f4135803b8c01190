//! User and assistant rows decoded straight from their text into the decoder's typed row, without a
//! `Value` tree (tool outputs are most of a session's bytes).

use crate::input::anthropic::row::{self, Whole};
use crate::input::claude::session::log::SessionLog;
use crate::model::event::{Event, Thread};
use std::borrow::Cow;
use std::collections::VecDeque;

use super::{Emitter, decoded_into_nothing, usage_key};

impl Emitter {
    /// A user row that needs nothing but the message decoder (no permission decision, no
    /// persisted-output preview, no result of an Agent call whose sub-agent was announced),
    /// decoded straight from its text into the decoder's typed row, without a `Value` tree (its
    /// tool outputs are most of a session's bytes). False when it is not such a row after all,
    /// or does not decode that way (a repeated key): it then goes the general way.
    pub(super) fn user_from_text(
        &mut self,
        log: &SessionLog,
        i: usize,
        thread: &Thread,
        out: &mut Vec<Event>,
    ) -> bool {
        let r = &log.rows[i];
        let n = r.line();
        let Ok(text) = self.sources.read(log.source, r.offset()) else {
            return false;
        };
        let Some(mut row) = row::from_text(&text) else {
            return false;
        };
        let answers_started = match &row.message {
            Some(m) => match &m.content {
                row::Content::Blocks(bs) => bs.iter().any(|e| match e {
                    row::Element::Block(b) => {
                        b.ty.as_deref() == Some("tool_result")
                            && b.tool_use_id
                                .as_deref()
                                .is_some_and(|c| self.started.contains(c))
                    }
                    row::Element::NotObject => false,
                }),
                row::Content::Text(_) | row::Content::None => false,
            },
            None => false,
        };
        if row.ty.as_deref() != Some("user") || answers_started {
            return false;
        }
        if let Some(t) = thread {
            row.parent_tool_use_id = Some(Cow::Owned(t.clone()));
        }
        let before = out.len();
        self.messages.user_row(
            row,
            &Whole::text(&text),
            &crate::input::claude::SESSION_WIRE,
            &mut |kind| out.push(Event { line: n, kind }),
        );
        if out.len() == before {
            decoded_into_nothing(out, n, "user", text.into_owned());
        }
        true
    }

    /// An assistant row decoded straight from its text into the decoder's typed row, as
    /// [`Emitter::user_from_text`] does for plain user rows: its usage counted once per message
    /// and request, its tool calls noted for the results and sub-agents that follow. False when
    /// it does not decode that way (it then goes the general way).
    pub(super) fn assistant_from_text(
        &mut self,
        log: &SessionLog,
        i: usize,
        thread: &Thread,
        due: &mut VecDeque<(String, u64)>,
        out: &mut Vec<Event>,
    ) -> bool {
        let r = &log.rows[i];
        let n = r.line();
        let Ok(text) = self.sources.read(log.source, r.offset()) else {
            return false;
        };
        let Some(mut row) = row::from_text(&text) else {
            return false;
        };
        if row.ty.as_deref() != Some("assistant") {
            return false;
        }
        if let Some(t) = thread {
            row.parent_tool_use_id = Some(Cow::Owned(t.clone()));
        }
        // Usage counted once per message and request (`count_usage_once`, typed).
        if let Some(m) = row.message.as_mut() {
            if let Some(id) = m.id.as_deref() {
                let request = row.request_id.as_deref().unwrap_or("");
                if !self.usage_seen.insert(usage_key(id, request)) {
                    m.usage = None;
                }
            }
        }
        let calls: Vec<(String, String)> = match row.message.as_ref().map(|m| &m.content) {
            Some(row::Content::Blocks(bs)) => bs
                .iter()
                .filter_map(|e| match e {
                    row::Element::Block(b) if b.ty.as_deref() == Some("tool_use") => Some((
                        b.id.as_deref().unwrap_or_default().to_owned(),
                        b.name.as_deref().unwrap_or_default().to_owned(),
                    )),
                    row::Element::Block(_) | row::Element::NotObject => None,
                })
                .collect(),
            Some(row::Content::Text(_) | row::Content::None) | None => Vec::new(),
        };
        let before = out.len();
        self.messages.assistant_row(
            row,
            &Whole::text(&text),
            &crate::input::claude::SESSION_WIRE,
            &mut |kind| out.push(Event { line: n, kind }),
        );
        if out.len() == before {
            decoded_into_nothing(out, n, "assistant", text.into_owned());
        }
        for (id, name) in calls {
            self.note_call(&id, &name, n, due);
        }
        true
    }
}
