//! Permission requests in Qwen Code's daemon stream: `permission_request` puts the call in
//! `approval-pending`; `permission_resolved` (or `permission_already_resolved`) lets it run or
//! denies it (`tool-denied` + `approval-denied`, which the call's later `failed` update does not
//! change). A request that names no tool call (Qwen's own conformance vectors have such) is kept
//! as two `info` notices, with the outcome as `selected:<optionId>`.

use serde_json::{Value, json};

use crate::input::fields::{self, info, opt_string, str_of, string};
use crate::input::qwen::state::{Conversation, Emit, Request, content_lines};
use crate::model::details::Details;
use crate::model::event::EventKind;
use crate::model::session::Level;
use crate::model::transcript::ToolState;

impl Conversation {
    /// `permission_request`: the call waits for approval (a request with no call id becomes a
    /// notice).
    pub(crate) fn permission_request(&mut self, data: &Value, e: &mut Emit<'_>) {
        let request_id = string(data, "requestId");
        let tc = data.get("toolCall").cloned().unwrap_or(Value::Null);
        let options = fields::array(data, "options").to_vec();
        let names: Vec<String> = options.iter().map(option_name).collect();
        let tool_call_id = opt_string(&tc, "toolCallId");
        let label = [&tc["title"], &tc["name"], &tc["command"]]
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(": ");
        self.requests.insert(
            request_id.clone(),
            Request {
                tool_call_id: tool_call_id.clone(),
                options: options.clone(),
                label: label.clone(),
            },
        );
        let Some(id) = tool_call_id else {
            e.push(info(
                "permission_request",
                Level::Warning,
                format!(
                    "permission requested for {}; options: {}",
                    if label.is_empty() {
                        "a tool call"
                    } else {
                        &label
                    },
                    names.join(" / ")
                ),
                data.clone(),
            ));
            return;
        };
        if self.calls.get(&id).is_some_and(|rec| rec.done) {
            // A late request for a call that already ended: a notice; the call keeps its state,
            // its fields and its sidecar (as a late answer does, below).
            e.push(info(
                "permission_request",
                Level::Warning,
                format!(
                    "permission requested after the call ended: {}; options: {}",
                    if label.is_empty() { &id } else { &label },
                    names.join(" / ")
                ),
                data.clone(),
            ));
            return;
        }
        if self.calls.contains_key(&id) {
            // The request repeats the call with its arguments (the daemon may not have sent
            // them yet): merge everything but its status and its prompt text.
            let mut fields = tc.clone();
            if let Some(o) = fields.as_object_mut() {
                o.shift_remove("status");
                o.shift_remove("content");
            }
            self.merge_input(&id, &fields, e);
        } else {
            // The request came first: it carries the call's own fields.
            self.tool_call(&tc, e);
        }
        let prompt = content_lines(&tc);
        let Some(rec) = self.calls.get_mut(&id) else {
            return;
        };
        let mut p = json!({"requestId": request_id, "options": names});
        if !prompt.is_empty() {
            p["prompt"] = json!(prompt);
        }
        rec.permission = Some(p);
        let sidecar = rec.sidecar();
        e.push(tool_update(&id, Some(ToolState::ApprovalPending), sidecar));
    }

    /// `permission_resolved` / `permission_already_resolved`: approved → running again;
    /// rejected or cancelled → denied.
    pub(crate) fn permission_resolved(&mut self, data: &Value, e: &mut Emit<'_>) {
        let request_id = string(data, "requestId");
        let outcome = data.get("outcome").cloned().unwrap_or(Value::Null);
        let how = outcome
            .get("outcome")
            .and_then(Value::as_str)
            .or_else(|| outcome.as_str())
            .unwrap_or("unknown")
            .to_owned();
        let option_id = string(&outcome, "optionId");
        let outcome_text = if option_id.is_empty() {
            how.clone()
        } else {
            format!("{how}:{option_id}")
        };
        let req = self.requests.remove(&request_id);
        let option = req.as_ref().and_then(|r| {
            r.options
                .iter()
                .find(|o| str_of(o, "optionId") == option_id)
                .cloned()
        });
        let allowed = how == "selected" && is_allow(&option_id, option.as_ref());
        let option_label = option
            .as_ref()
            .map(option_name)
            .unwrap_or(option_id.clone());
        let call_id = req.as_ref().and_then(|r| r.tool_call_id.clone());
        let Some(rec) = call_id.as_ref().and_then(|id| self.calls.get_mut(id)) else {
            let label = req.map(|r| r.label).unwrap_or_default();
            e.push(info(
                "permission_resolved",
                if allowed { Level::Info } else { Level::Warning },
                format!("permission resolved: {outcome_text} {label}")
                    .trim_end()
                    .to_owned(),
                data.clone(),
            ));
            return;
        };
        let id = call_id.unwrap_or_default();
        if rec.done {
            // A late answer for a call that already ended: a notice; the call keeps its state
            // and title.
            e.push(info(
                "permission_resolved",
                if allowed { Level::Info } else { Level::Warning },
                format!("permission resolved after the call ended: {outcome_text}"),
                data.clone(),
            ));
            return;
        }
        if let Some(p) = rec.permission.as_mut() {
            p["outcome"] = json!(outcome_text);
        }
        if allowed {
            let sidecar = rec.sidecar();
            e.push(tool_update(&id, Some(ToolState::Running), sidecar));
            return;
        }
        rec.denied = true;
        let message = format!("permission rejected ({outcome_text}: {option_label})");
        e.push(EventKind::ToolDenied {
            tool_call_id: id.clone(),
            tool_name: rec.name.clone(),
            message: message.clone(),
        });
        e.push(EventKind::ToolUpdate {
            tool_call_id: id,
            state: Some(ToolState::ApprovalDenied),
            output: None,
            input: None,
            kind: None,
            error_text: Some(message),
            sidecar: Some(Details::from(rec.sidecar())),
        });
    }
}

fn tool_update(id: &str, state: Option<ToolState>, sidecar: Value) -> EventKind {
    EventKind::ToolUpdate {
        tool_call_id: id.to_owned(),
        state,
        output: None,
        input: None,
        kind: None,
        error_text: None,
        sidecar: Some(Details::from(sidecar)),
    }
}

/// Whether a selected permission option lets the call run: the option's `kind`
/// (`allow_once`, `allow_always`, `reject_once`, …), else its id.
fn is_allow(option_id: &str, option: Option<&Value>) -> bool {
    if let Some(kind) = option.and_then(|o| o.get("kind")).and_then(Value::as_str) {
        return kind.starts_with("allow");
    }
    let id = option_id.to_ascii_lowercase();
    !(id.contains("reject") || id.contains("deny") || id.contains("cancel"))
}

fn option_name(o: &Value) -> String {
    ["name", "label", "optionId"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
}
