//! Sub-agents run in the background (the `agent` tool's `run_in_background`, its default at the
//! top level). The call's result is the launch acknowledgement ("Background agent launched");
//! the run goes on after the prompt's turn ends, and the daemon reports it later in
//! `agent_message_chunk`s told apart by `_meta.source`:
//!
//! ```text
//! source                                 what it is                  becomes
//! ─────────────────────────────────────  ──────────────────────────  ─────────────────────────────
//! background_task_completed              the run ended               the sub-agent's completion,
//!                                                                    on its call (its report)
//! background_notification_turn_started   the daemon starts a turn    an info notice
//!                                        to tell the model
//! background_notification                what the model is told      a notification turn (context)
//! background_notification_response       the model's reply           an assistant message of its
//!                                                                    own
//! ```
//!
//! `_meta.backgroundTask` names the run (`taskId`, `status`, `toolUseId` = the Agent call); an
//! older daemon that names nothing is matched to the one run still out, if there is one. A
//! `_meta.qwenDiscreteMessage` chunk never joins the message before it. Uses `state`,
//! `messages` and `tools`.

use serde_json::{Map, Value, json};

use crate::input::fields::{info, str_of};
use crate::input::qwen::state::{Conversation, Emit, parent_of};
use crate::model::event::EventKind;
use crate::model::session::Level;
use crate::model::transcript::{Part, SubagentStatus, TaskDetails, Turn, TurnOrigin};

impl Conversation {
    /// An `agent_message_chunk` about a background run, handled here; false for any other
    /// chunk (a discrete one is only cut from the message before it).
    pub(super) fn background_chunk(&mut self, upd: &Value, e: &mut Emit<'_>) -> bool {
        let meta = upd.get("_meta").cloned().unwrap_or(Value::Null);
        let thread = parent_of(upd);
        if meta.get("qwenDiscreteMessage") == Some(&json!(true)) {
            self.end_message(&thread, None, e);
        }
        let text = upd
            .pointer("/content/text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match meta.get("source").and_then(Value::as_str) {
            Some("background_task_completed") => {
                self.end_message(&thread, None, e);
                self.background_completed(&meta, text, upd, e);
                true
            }
            Some(src @ "background_notification_turn_started") => {
                self.end_message(&thread, None, e);
                e.push(info(src, Level::Info, text, upd.clone()));
                true
            }
            Some(src @ "background_notification") => {
                self.end_message(&thread, None, e);
                let mut machinery = Map::new();
                machinery.insert("source".into(), json!(src));
                if let Some(t) = meta.get("backgroundTask") {
                    machinery.insert("backgroundTask".into(), t.clone());
                }
                let turn = Turn::user(
                    e.name("notification"),
                    TurnOrigin::Notification,
                    vec![Part::text(text)],
                );
                e.user_turn(turn.in_thread(thread), machinery);
                true
            }
            // The model's reply (its own message, cut above) and everything else.
            Some(_) | None => false,
        }
    }

    /// A background run ended: its completion lands on its Agent call, else (a run this input
    /// did not see launched, a background shell) it is a notice.
    fn background_completed(&mut self, meta: &Value, text: String, upd: &Value, e: &mut Emit<'_>) {
        let task = meta.get("backgroundTask").unwrap_or(&Value::Null);
        let named = |k: &str| {
            [task, meta.get("backgroundTurn").unwrap_or(&Value::Null)]
                .iter()
                .find_map(|o| o.get(k).and_then(Value::as_str))
                .map(str::to_owned)
        };
        let (call, task_id) = (named("toolUseId"), named("taskId"));
        let at = self
            .background
            .iter()
            .position(|(c, t)| {
                call.as_deref() == Some(c.as_str())
                    || task_id.is_some() && t.as_deref() == task_id.as_deref()
            })
            // Nothing named: the one run still out, if there is only one.
            .or_else(|| {
                (call.is_none() && task_id.is_none() && self.background.len() == 1).then_some(0)
            });
        let Some(at) = at else {
            e.push(info(
                "background_task_completed",
                Level::Info,
                text,
                upd.clone(),
            ));
            return;
        };
        let (call_id, _) = self.background.remove(at);
        let status = match str_of(task, "status") {
            "failed" | "error" => SubagentStatus::Failed,
            "cancelled" | "canceled" | "killed" | "stopped" => SubagentStatus::Stopped,
            _ => SubagentStatus::Completed,
        };
        e.push(EventKind::SubtaskFinished {
            task_id: call_id.clone(),
            tool_call_id: Some(call_id),
            status,
            summary: (!text.is_empty()).then_some(text),
            usage: None,
            result: None,
            details: TaskDetails::default(),
        });
    }
}
