//! The SDK control protocol's permission round trip, read from a stream-json log.
//!
//! A host that runs Claude Code with `--permission-prompt-tool stdio` is asked
//! `control_request {request: {subtype: "can_use_tool", tool_use_id, tool_name, input}}` before a
//! call runs, and answers `control_response {response: {request_id, response: {behavior:
//! "allow"|"deny", message?}}}`. A log that holds both directions shows the call waiting for
//! approval (`approval-pending`), then running or refused (`approval-denied` with the reason), in
//! §14's vocabulary — the same states Qwen's permission events give. Any other control message
//! is machinery: absorbed and counted.

use foldhash::HashMap;

use serde_json::Value;

use crate::input::fields::{str_of, string};
use crate::model::event::EventKind;
use crate::model::transcript::ToolState;

/// Open permission requests: request id → (tool call id, tool name). A request is removed when
/// its answer arrives, so the map holds only the questions still waiting.
#[derive(Debug, Default)]
pub(crate) struct Permissions {
    open: HashMap<String, (String, String)>,
}

impl Permissions {
    /// A `control_request`: a `can_use_tool` question about a known call makes it wait for
    /// approval; false for any other request (absorbed by the caller).
    pub(crate) fn request(&mut self, v: &Value, emit: &mut impl FnMut(EventKind)) -> bool {
        let req = v.get("request").unwrap_or(&Value::Null);
        let call = str_of(req, "tool_use_id");
        if str_of(req, "subtype") != "can_use_tool" || call.is_empty() {
            return false;
        }
        self.open.insert(
            string(v, "request_id"),
            (call.to_owned(), string(req, "tool_name")),
        );
        emit(state(call, ToolState::ApprovalPending, None));
        true
    }

    /// A `control_response` to an open permission request: allow lets the call run, deny
    /// refuses it with the host's message; false for any other response (absorbed).
    pub(crate) fn response(&mut self, v: &Value, emit: &mut impl FnMut(EventKind)) -> bool {
        let resp = v.get("response").unwrap_or(&Value::Null);
        let Some((call, tool)) = self.open.remove(str_of(resp, "request_id")) else {
            return false;
        };
        let answer = resp.get("response").unwrap_or(&Value::Null);
        let error = str_of(resp, "subtype") == "error";
        if str_of(answer, "behavior") == "allow" && !error {
            emit(state(&call, ToolState::Running, None));
            return true;
        }
        let reason = [str_of(answer, "message"), str_of(resp, "error")]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("permission denied")
            .to_owned();
        emit(EventKind::ToolDenied {
            tool_call_id: call.clone(),
            tool_name: tool,
            message: reason.clone(),
        });
        emit(state(&call, ToolState::ApprovalDenied, Some(reason)));
        true
    }
}

/// A state change of one call, with the reason when it was refused.
fn state(call: &str, state: ToolState, error_text: Option<String>) -> EventKind {
    EventKind::ToolUpdate {
        tool_call_id: call.to_owned(),
        state: Some(state),
        output: None,
        input: None,
        kind: None,
        error_text,
        sidecar: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn states(p: &mut Permissions, lines: &[Value]) -> Vec<String> {
        let mut out = Vec::new();
        for v in lines {
            let mut emit = |k: EventKind| {
                if let EventKind::ToolUpdate {
                    state: Some(s),
                    error_text,
                    ..
                } = k
                {
                    out.push(format!("{s:?} {}", error_text.unwrap_or_default()));
                }
            };
            let _ = match str_of(v, "type") {
                "control_request" => p.request(v, &mut emit),
                _ => p.response(v, &mut emit),
            };
        }
        out
    }

    fn ask(id: &str, call: &str) -> Value {
        json!({"type": "control_request", "request_id": id,
               "request": {"subtype": "can_use_tool", "tool_name": "Bash", "tool_use_id": call}})
    }

    #[test]
    fn a_question_waits_and_its_answer_runs_or_refuses_the_call() {
        let mut p = Permissions::default();
        let allow = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "r1", "response": {"behavior": "allow", "updatedInput": {}}}});
        let deny = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": "r2", "response": {"behavior": "deny", "message": "not rm"}}});
        let got = states(&mut p, &[ask("r1", "t1"), ask("r2", "t2"), allow, deny]);
        assert_eq!(
            got,
            [
                "ApprovalPending ",
                "ApprovalPending ",
                "Running ",
                "ApprovalDenied not rm"
            ]
        );
        assert!(p.open.is_empty());
    }

    #[test]
    fn other_control_messages_are_left_to_the_caller() {
        let mut p = Permissions::default();
        let no_call = json!({"type": "control_request", "request_id": "c1",
            "request": {"subtype": "can_use_tool", "tool_name": "Bash"}});
        let interrupt = json!({"type": "control_request", "request_id": "c2",
            "request": {"subtype": "interrupt"}});
        let stray = json!({"type": "control_response",
            "response": {"subtype": "success", "request_id": "c9"}});
        assert!(states(&mut p, &[no_call, interrupt, stray]).is_empty());
    }
}
