//! User and assistant rows decoded straight from their text into the decoder's typed row, without a
//! `Value` tree (tool outputs are most of a session's bytes).

use crate::input::anthropic::row::{self, Row, Whole};
use crate::input::claude::session::log::SessionLog;
use crate::model::event::{Event, Thread};
use crate::model::recent::Recent;
use std::borrow::Cow;

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
            &mut |kind| out.push(Event::at(n, kind)),
        );
        if out.len() == before {
            decoded_into_nothing(out, n, "user", text.into_owned());
        }
        true
    }

    /// An assistant row decoded straight from its text into the decoder's typed row, as
    /// [`Emitter::user_from_text`] does for plain user rows. False when it does not decode that
    /// way (it then goes the general way).
    pub(super) fn assistant_from_text(
        &mut self,
        log: &SessionLog,
        i: usize,
        thread: &Thread,
        out: &mut Vec<Event>,
    ) -> bool {
        let n = log.rows[i].line();
        let Ok(text) = self.sources.read(log.source, log.rows[i].offset()) else {
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
        let calls = usage_once_and_calls(&mut row, &mut self.usage_seen);
        let before = out.len();
        self.messages.assistant_row(
            row,
            &Whole::text(&text),
            &crate::input::claude::SESSION_WIRE,
            &mut |kind| out.push(Event::at(n, kind)),
        );
        if out.len() == before {
            decoded_into_nothing(out, n, "assistant", text.into_owned());
        }
        for (id, name) in calls {
            self.note_call(&id, &name, n);
        }
        true
    }
}

/// What an assistant row needs before it is decoded: its usage dropped when an earlier row of
/// the same message and request had it (the CLI repeats it on each row), and its tool calls
/// (id, name), noted after it for the results and sub-agents that follow.
pub(super) fn usage_once_and_calls(
    row: &mut Row<'_>,
    usage_seen: &mut Recent<()>,
) -> Vec<(String, String)> {
    if let Some(m) = row.message.as_mut() {
        if let Some(id) = m.id.as_deref() {
            let request = row.request_id.as_deref().unwrap_or("");
            if !usage_seen.insert_key(usage_key(id, request), ()) {
                m.usage = None;
            }
        }
    }
    match row.message.as_ref().map(|m| &m.content) {
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
    }
}
