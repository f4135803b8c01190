//! The rest of the UI events older rollouts persist: web searches, image generation, viewed
//! images, the collab (sub-agent) tools' ends, and the events that repeat what a call carries
//! or tell of the harness (absorbed, or an info notice).

use serde_json::{Value, json};

use crate::input::codex::history::{self, CallKind};
use crate::input::codex::images;
use crate::input::codex::items::{At, Item, Outcome, Phase};
use crate::input::codex::legacy::{absorbed, call_id};
use crate::input::codex::rollout::CodexRollout;
use crate::input::codex::tools;
use crate::input::fields::{self, str_of};
use crate::model::event::Event;
use crate::model::session::Level;

impl CodexRollout {
    /// One `event_msg` of these kinds. Returns false for a type this function does not know.
    pub(super) fn legacy_ui_event(&mut self, ty: &str, p: &Value, at: &mut At<'_>) -> bool {
        let n = at.line;
        match ty {
            "web_search_begin" | "image_generation_begin" => {
                at.out
                    .push(absorbed(n, &format!("{ty} (its end carries it)")));
            }
            // A call the provider ran, whole in its end event.
            "web_search_end" | "image_generation_end" => {
                let tool = if ty == "web_search_end" {
                    tools::web_search_item(str_of(p, "query"), p.get("action").cloned(), None, true)
                } else {
                    images::image_item(p)
                };
                self.items.item(
                    Phase::Completed,
                    &call_id(p),
                    Item::Tool(Box::new(tool)),
                    at,
                );
            }
            "view_image_tool_call" => {
                let cid = call_id(p);
                if !self.items.knows(&cid) {
                    let path = p.get("path").cloned().unwrap_or(Value::Null);
                    let tool = history::generic("view_image", json!({ "path": path }));
                    self.open_call(p, tool, CallKind::Other, at);
                } else {
                    at.out
                        .push(absorbed(n, "view_image_tool_call (the call carries it)"));
                }
            }
            t if t.starts_with("collab_") && t.ends_with("_end") => {
                let cid = call_id(p);
                if self.items.knows(&cid) {
                    let mut data = p.clone();
                    if let Some(o) = data.as_object_mut() {
                        o.remove("type");
                    }
                    let status = str_of(p, "status");
                    // A spawn that made no thread failed (`not_found`, `new_thread_id: null`).
                    let failed = matches!(status, "failed" | "errored" | "error" | "not_found")
                        || (t == "collab_agent_spawn_end"
                            && p.get("new_thread_id").is_some_and(Value::is_null));
                    let outcome = Outcome {
                        is_error: failed,
                        output: data,
                        error_text: failed.then(|| status.to_owned()),
                        sidecar: None,
                    };
                    if failed && self.awaiting_output.contains(&cid) {
                        // Its output line, still to come, says why: the result waits for it.
                        self.failed_collab.insert(cid, outcome);
                        at.out.push(absorbed(
                            n,
                            &format!("{t} (failed; its output line says why)"),
                        ));
                    } else {
                        self.items.result(&cid, outcome, n, at.out);
                    }
                } else {
                    at.out.push(Event::at(
                        n,
                        fields::info(t, Level::Info, t.replace('_', " "), p.clone()),
                    ));
                }
            }
            t if t.starts_with("collab_") => {
                at.out
                    .push(absorbed(n, &format!("{t} (its end carries the result)")));
            }
            _ => match harness_event(ty, p, n) {
                Some(e) => at.out.push(e),
                None => return false,
            },
        }
        true
    }
}

/// An event that repeats what a call carries or tells of the harness: absorbed, or an info
/// notice; `None` for a type this function does not know.
fn harness_event(ty: &str, p: &Value, n: u64) -> Option<Event> {
    match ty {
        // The plan and the diff repeat what their calls carry; the rest is UI chatter.
        "plan_update"
        | "turn_diff"
        | "context_compacted"
        | "session_configured"
        | "agent_reasoning_section_break"
        | "mcp_startup_update"
        | "mcp_startup_complete"
        | "mcp_list_tools_response"
        | "list_custom_prompts_response"
        | "list_skills_response"
        | "exec_command_output_delta"
        | "terminal_interaction"
        | "agent_message_delta"
        | "agent_reasoning_delta"
        | "agent_reasoning_raw_content_delta"
        | "shutdown_complete"
        | "undo_started"
        | "get_history_entry_response"
        | "skills_update_available" => Some(absorbed(n, &format!("event_msg/{ty}"))),
        // A sub-agent of a multi-agent run started, was given more work or was interrupted;
        // `event_id` is the call that did it.
        "sub_agent_activity" => {
            let text = format!(
                "sub-agent {} {}",
                str_of(p, "agent_path"),
                str_of(p, "kind").replace('_', " ")
            );
            Some(Event::at(n, fields::info(ty, Level::Info, text, p.clone())))
        }
        "thread_name_updated" => {
            let text = match str_of(p, "thread_name") {
                "" => "thread name cleared".to_owned(),
                name => format!("thread named {name:?}"),
            };
            Some(Event::at(n, fields::info(ty, Level::Info, text, p.clone())))
        }
        "entered_review_mode"
        | "exited_review_mode"
        | "undo_completed"
        | "thread_rolled_back"
        | "background_event"
        | "deprecation_notice"
        | "exec_approval_request"
        | "apply_patch_approval_request"
        | "elicitation_request" => {
            let level = if ty == "deprecation_notice" {
                Level::Warning
            } else {
                Level::Info
            };
            let text = ["message", "reason"]
                .iter()
                .find_map(|k| p.get(*k).and_then(Value::as_str))
                .map_or_else(|| ty.replace('_', " "), str::to_owned);
            Some(Event::at(n, fields::info(ty, level, text, p.clone())))
        }
        _ => None,
    }
}
