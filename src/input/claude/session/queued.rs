//! Prompts typed while the agent was busy. The CLI queues such a message and writes a
//! `queue-operation` row (`operation: "enqueue"`, `content` the typed text; later `remove`,
//! `dequeue` or `popAll`). What carries it on depends on when it is taken out of the queue: a
//! `queued_command` attachment (delivered to the model mid-turn) or an ordinary user row (sent
//! as the next prompt). When neither does, the enqueue row is the only record of it.
//!
//! So pass 1 notes each enqueued text and crosses it off when a later user row or
//! `queued_command` attachment carries it; pass 2 writes the enqueue rows left as the person's
//! prompt, where they were typed, marked queued (`metadata.machinery.queued`). A prompt is thus
//! shown once, whichever rows record it.

use serde_json::{Value, json};

use crate::model::event::{Event, EventKind};
use crate::model::transcript::TurnOrigin;

/// The name an enqueue row is absorbed under when a later row delivered its text (the name it
/// always had: only the enqueue rows no later row carries are written otherwise, as prompts).
pub(crate) const DELIVERED: &str = "queue-operation/enqueue";

/// Enqueued texts no later row has carried yet: (index in `SessionLog::loose`, the text as it
/// is spelt inside a JSON string).
#[derive(Debug, Default)]
pub(crate) struct Pending {
    texts: Vec<(usize, String)>,
}

impl Pending {
    /// The enqueue row at `loose` queued `content`.
    pub(crate) fn enqueued(&mut self, loose: usize, content: &str) {
        let spelt = Value::String(content.trim().to_owned()).to_string();
        let inner = spelt[1..spelt.len() - 1].to_owned();
        if !inner.is_empty() {
            self.texts.push((loose, inner));
        }
    }

    /// True when no enqueued text waits (the common case: nothing to look for).
    pub(crate) fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The enqueue rows whose text the line `text` (a user row or a `queued_command`
    /// attachment) carries; they wait no more.
    pub(crate) fn delivered_by(&mut self, text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        self.texts.retain(|(loose, inner)| {
            let found = memchr::memmem::find(text.as_bytes(), inner.as_bytes()).is_some();
            if found {
                out.push(*loose);
            }
            !found
        });
        out
    }
}

/// The user row an enqueue row left waiting stands for: the typed text as a prompt, with the
/// row's time. Its id is `line:<n>` (the row has no uuid).
pub(crate) fn as_user_row(v: &Value, line: u64) -> Option<Value> {
    let content = v.get("content")?.as_str()?;
    Some(json!({
        "type": "user",
        "uuid": format!("line:{line}"),
        "timestamp": v.get("timestamp"),
        "message": {"role": "user", "content": content},
    }))
}

/// Marks the person's turns among `events` as typed while the agent was busy. A queued task
/// notification stays what it is.
pub(crate) fn mark(events: &mut [Event]) {
    for e in events {
        if let EventKind::UserTurn { turn, .. } = &mut e.kind {
            if matches!(turn.origin, TurnOrigin::UserInput) {
                turn.metadata
                    .machinery
                    .insert("queued".into(), Value::Bool(true));
            }
        }
    }
}
