//! The entries outside the chain (absorbed records, attachments, queued prompts no later row
//! carries) as their events.

use crate::input::Report;
use crate::input::claude::session::entries;
use crate::input::claude::session::log::{LooseKind, SessionLog};
use crate::input::claude::session::queued;
use crate::model::event::{Event, EventKind};
use serde_json::Value;

use super::Emitter;

impl Emitter {
    /// The entries outside the chain read after row `after` (or before every row).
    pub(super) fn loose(
        &mut self,
        log: &mut SessionLog,
        after: Option<usize>,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        let after = after.map(|i| i as u32);
        let start = log.loose().partition_point(|l| l.after() < after);
        let end = start + log.loose()[start..].partition_point(|l| l.after() == after);
        for l in start..end {
            self.loose_entry(log, l, out, report);
        }
    }

    /// Entry `l` of `log.loose` as its events (follow mode writes each as it is read).
    pub(crate) fn loose_entry(
        &mut self,
        log: &SessionLog,
        l: usize,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        let l = &log.loose()[l];
        let kind = match l.what() {
            LooseKind::Absorbed(name) => EventKind::Absorbed {
                what: log.names()[name as usize].clone(),
            },
            LooseKind::Reread => match self.reread(log.source, l.offset(), l.line(), report) {
                Err(debug) => *debug,
                Ok(v) => {
                    let ty = v.get("type").and_then(Value::as_str).unwrap_or_default();
                    if let Some(user) = queued_prompt(ty, &v, l.line()) {
                        // A prompt typed while the agent worked that no later row carries.
                        self.queued_user(&user, l.line(), out);
                        return;
                    }
                    entries::outside_chain(ty, &v).unwrap_or_else(|| {
                        let reason = format!("unknown session entry type {ty:?}");
                        EventKind::debug(reason, v.to_string(), false)
                    })
                }
            },
        };
        out.push(Event::at(l.line(), kind));
    }

    /// The person's turn of a queued user row (`queued::as_user_row`, or a `queued_command`
    /// attachment's prompt), marked queued.
    pub(super) fn queued_user(&mut self, user: &Value, line: u64, out: &mut Vec<Event>) {
        let before = out.len();
        self.messages
            .user(user, &crate::input::claude::SESSION_WIRE, &mut |kind| {
                out.push(Event { line, kind })
            });
        queued::mark(&mut out[before..]);
    }
}

/// The user row of a queue-operation `enqueue` entry pass 1 left to be written (no later row
/// carried its text): typed text, not a queued notification.
pub(super) fn queued_prompt(ty: &str, v: &Value, line: u64) -> Option<Value> {
    let op = v.get("operation").and_then(Value::as_str);
    let content = v.get("content").and_then(Value::as_str)?;
    let typed = ty == "queue-operation" && op == Some("enqueue");
    (typed && !entries::is_json_document(content))
        .then(|| queued::as_user_row(v, line))
        .flatten()
}
