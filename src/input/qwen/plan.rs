//! `plan` session updates: the agent's todo list, shown as a finished `todo_write` call (updated
//! in place when the same plan call comes again). Uses `qwen::state` and `qwen::tools`.

use serde_json::{Map, Value, json};

use crate::input::fields;
use crate::input::qwen::state::{CallRecord, Conversation, Emit, parent_of};
use crate::input::tool_kind;
use crate::model::details::Details;
use crate::model::event::EventKind;
use crate::model::transcript::{Caller, Part, ToolCall, ToolState};

impl Conversation {
    /// `plan`: the todo list, as a finished `todo_write` call (updated in place when the same
    /// plan call comes again).
    pub(super) fn plan(&mut self, upd: &Value, e: &mut Emit<'_>) {
        let thread = parent_of(upd);
        let id = upd
            .pointer("/_meta/qwenTranscript/planToolCallId")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| e.name("daemon-plan"));
        let todos: Vec<Value> = fields::array(upd, "entries")
            .iter()
            .map(|en| {
                let mut t = Map::new();
                if let Some(tid) = en.pointer("/_meta/qwenTodo/id") {
                    t.insert("id".into(), tid.clone());
                }
                for k in ["content", "status", "priority"] {
                    if let Some(v) = en.get(k) {
                        t.insert(k.into(), v.clone());
                    }
                }
                Value::Object(t)
            })
            .collect();
        let input = json!({ "todos": todos });
        let mut sidecar = json!({"title": "Updated Plan", "kind": "think", "status": "completed"});
        if let Some(pid) = upd.pointer("/_meta/qwenTodoPlan/id") {
            sidecar["planId"] = pid.clone();
        }
        if self.calls.contains_key(&id) {
            e.push(EventKind::ToolUpdate {
                tool_call_id: id,
                state: Some(ToolState::Success),
                output: None,
                kind: tool_kind::todo(&input),
                input: Some(input),
                error_text: None,
                sidecar: Some(Details::from(sidecar)),
            });
            return;
        }
        self.flush(&thread, e);
        let kind = tool_kind::todo(&input).unwrap_or_default();
        let mut call = ToolCall::new(id.clone(), "todo_write".into(), kind, Caller::Model, input);
        call.state = ToolState::Success;
        call.sidecar = Some(Details::from(sidecar));
        self.calls.insert(
            id.clone(),
            CallRecord {
                status: "completed".into(),
                title: "Updated Plan".into(),
                kind: "think".into(),
                done: true,
                ..CallRecord::new(thread.clone(), "todo_write".into())
            },
        );
        self.order.push(id);
        self.block(&thread, Part::tool_call(call), e);
        // The list went back to the model as the call's result: what comes next is another
        // response (as after any call's result), not more of this one.
        if let Some(t) = self.threads.get_mut(&thread) {
            t.closed_by_result = t.message.take();
        }
    }
}
