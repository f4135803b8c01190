//! The calls still open: listed, cancelled when the prompt ends or is cancelled, and counted by
//! their last state for the `incomplete` notice.

use crate::input::qwen::state::{Conversation, Emit};

/// How many calls are still open, by the state each was last in.
#[derive(Debug, Default)]
pub(super) struct OpenCalls {
    /// Waiting for an answer to their permission request (`approval-pending`).
    pub(super) approval: usize,
    /// Announced and not started (`pending`).
    pub(super) pending: usize,
    /// Started (`running`).
    pub(super) running: usize,
}

impl OpenCalls {
    /// The end-of-input notice's words for them ("2 tool calls are open (1 waiting for
    /// approval, 1 running)", "1 tool call is open (running)"), or nothing when none is open.
    pub(super) fn said(&self) -> Option<String> {
        let total = self.approval + self.pending + self.running;
        let states: Vec<String> = [
            (self.approval, "waiting for approval"),
            (self.pending, "not started"),
            (self.running, "running"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| match total {
            1 => (*what).to_owned(),
            _ => format!("{n} {what}"),
        })
        .collect();
        (total > 0).then(|| {
            format!(
                "{total} tool call{} {} open ({})",
                if total == 1 { "" } else { "s" },
                if total == 1 { "is" } else { "are" },
                states.join(", ")
            )
        })
    }
}

impl Conversation {
    /// Every tool call still open (not finished, not denied), in the order they appeared.
    pub(super) fn open_calls(&self) -> Vec<String> {
        self.order
            .iter()
            .filter(|id| self.calls.get(*id).is_some_and(|c| !c.done && !c.denied))
            .cloned()
            .collect()
    }

    /// Ends every call still open as an error: the prompt was cancelled, and what a call
    /// printed so far stays its output.
    pub(super) fn cancel_open_calls(&mut self, reason: &str, e: &mut Emit<'_>) {
        let note = format!("cancelled ({reason})");
        for id in &self.open_calls() {
            if let Some(rec) = self.calls.get_mut(id) {
                rec.status = "failed".into();
                rec.end_note = Some(note.clone());
            }
            self.finish_call(id, e);
        }
    }

    /// The calls still open, counted by the state each was last put in: waiting for approval
    /// (a permission asked and not answered), announced and not started (`pending`), running.
    /// Nothing ends them: the input stopped before it said how they ended.
    pub(super) fn open_call_states(&self) -> OpenCalls {
        let mut n = OpenCalls::default();
        for rec in self.open_calls().iter().filter_map(|id| self.calls.get(id)) {
            let asked = rec
                .permission
                .as_ref()
                .is_some_and(|p| p.get("outcome").is_none());
            match (asked, rec.status.as_str()) {
                (true, _) => n.approval += 1,
                (false, "pending") => n.pending += 1,
                (false, _) => n.running += 1,
            }
        }
        n
    }
}
