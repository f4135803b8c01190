//! Qwen Code `--output-format stream-json` → normalized events.
//!
//! Qwen's headless stream is modelled on Claude Code's (`shared/spec/qwen-stream-json.md`): the
//! same line types and Anthropic-style content blocks. So this adapter is Claude's
//! (`stream::ClaudeMessages` for messages, `StreamJson::stream_event` for deltas,
//! `anthropic::blocks` for blocks) with the differences handled here:
//!
//! * **One block per `assistant` line, each with its own message id.** Consecutive assistant
//!   lines of one model response are grouped under the first line's id (or the id of the
//!   preceding `message_start`); a group ends at a line with a stop reason or non-zero output
//!   tokens (the last block of a response carries them), at a user line, or at the result.
//! * `content_block_*` indexes restart at 0 for each line: they are renumbered per response so
//!   that live deltas of different blocks do not mix.
//! * The `agent` tool runs a sub-agent (Claude's is `Agent`/`Task`).
//! * No interactive approval: a refused call gets an error `tool_result` whose text says the
//!   permission was declined, and the `result` lists it in `permission_denials`. Such a call
//!   ends `approval-denied` (with a `tool-denied` event), not `error`.
//! * `system/init` has `qwen_code_version` and `permission_mode`; a `goal_state` stream event
//!   reports the session goal.

use foldhash::HashMap;

use serde_json::{Map, Value};

use crate::input::anthropic::stream::{self, StreamJson, Wire};
use crate::input::fields::{self, info, opt_string, parent_tool_use_id, str_of};
use crate::input::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::event::{Event, EventKind, Thread};
use crate::model::recent::Recent;
use crate::model::session::{Level, SessionSnapshot};
use crate::model::transcript::{NonText, Part, ToolState, output_text};

/// Qwen Code's stream-json: Claude's live spelling, Qwen Code's tool names.
const WIRE: Wire = Wire {
    spelling: crate::input::anthropic::row::Spelling::Live,
    tools: super::tool_names::known,
    facts: crate::input::tool_kind::no_facts,
};

/// Decoder state: the open response per thread, block renumbering, tool names, denied calls.
pub(crate) struct QwenStream {
    claude: StreamJson,
    groups: HashMap<Thread, String>,
    /// Per thread: the next block number of the response, and this line's index → number.
    blocks: HashMap<Thread, (u64, HashMap<u64, u64>)>,
    /// Tool call id → its tool's name, for a denial that names only the call. Bounded
    /// (`Recent`), so that memory stays flat however many calls the input holds.
    names: Recent<String>,
    /// Calls already denied, so that the result's `permission_denials` does not deny them
    /// twice; bounded like `names`.
    denied: Recent<()>,
}

impl Default for QwenStream {
    fn default() -> QwenStream {
        QwenStream {
            claude: StreamJson::new(&WIRE),
            groups: HashMap::default(),
            blocks: HashMap::default(),
            names: Recent::default(),
            denied: Recent::default(),
        }
    }
}

impl Adapter for QwenStream {
    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let Some(v) = parse_json_line(line, out, report) else {
            return;
        };
        let n = line.number;
        let thread = parent_tool_use_id(&v);
        match str_of(&v, "type") {
            "system" if str_of(&v, "subtype") == "init" => {
                out.push(Event::at(n, EventKind::session(session_snapshot(&v))))
            }
            "system" => {
                // A subtype nobody knows is a generic `info` notice naming it; no subtype, a
                // debug record.
                let mut emit = |kind| out.push(Event::at(n, kind));
                if !stream::system(&v, &mut emit) {
                    push_debug(out, line, "system message without a subtype");
                }
            }
            "assistant" => self.assistant(v, thread, n, out),
            "user" => {
                self.groups.remove(&thread);
                let names = &self.names;
                let denied = &mut self.denied;
                self.claude.core.user(&v, &WIRE, &mut |kind| {
                    for k in denial(kind, names, denied) {
                        out.push(Event::at(n, k));
                    }
                });
            }
            "result" => {
                self.groups.clear();
                for d in fields::array(&v, "permission_denials") {
                    let id = str_of(d, "tool_use_id").to_owned();
                    if id.is_empty() || !self.denied.insert(&id, ()) {
                        continue;
                    }
                    let message = "permission declined (listed in the result)".to_owned();
                    out.push(Event::at(
                        n,
                        EventKind::ToolDenied {
                            tool_call_id: id.clone(),
                            tool_name: str_of(d, "tool_name").to_owned(),
                            message: message.clone(),
                        },
                    ));
                    out.push(Event::at(n, denied_update(id, None, message)));
                }
                out.push(Event::at(
                    n,
                    EventKind::notice(stream::result_notice(&v, &mut self.claude.costs)),
                ));
            }
            "stream_event" => self.stream_event(v, thread, n, out),
            _ => self.claude.line(line, out, report),
        }
    }

    /// What the shared decoder still holds (sub-agent prompts from `task_started`).
    fn finish(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        self.claude.finish(out, report);
    }
}

impl QwenStream {
    fn assistant(&mut self, mut v: Value, thread: Thread, n: u64, out: &mut Vec<Event>) {
        let own = v
            .pointer("/message/id")
            .and_then(Value::as_str)
            .or_else(|| v.get("uuid").and_then(Value::as_str))
            .unwrap_or_default()
            .to_owned();
        let group = self.groups.entry(thread.clone()).or_insert(own).clone();
        let msg = v.get("message").cloned().unwrap_or(Value::Null);
        let ends = msg.get("stop_reason").is_some_and(|s| !s.is_null())
            || msg
                .pointer("/usage/output_tokens")
                .and_then(Value::as_u64)
                .is_some_and(|t| t > 0);
        if let Some(m) = v.get_mut("message").and_then(Value::as_object_mut) {
            m.insert("id".into(), Value::String(group));
        }
        let names = &mut self.names;
        self.claude.core.assistant(&v, &WIRE, &mut |kind| {
            if let EventKind::AssistantBlock {
                part: Part::ToolCall { call },
                ..
            } = &kind
            {
                names.insert(&call.tool_call_id, call.name.clone());
            }
            out.push(Event::at(n, kind));
        });
        if ends {
            self.groups.remove(&thread);
        }
    }

    fn stream_event(&mut self, mut v: Value, thread: Thread, n: u64, out: &mut Vec<Event>) {
        let ev = v.get("event").cloned().unwrap_or(Value::Null);
        match str_of(&ev, "type") {
            "goal_state" => {
                let goal = ev.pointer("/goal_state/goal").unwrap_or(&Value::Null);
                let kind = if goal.is_null() {
                    EventKind::absorbed("stream_event/goal_state (no goal)")
                } else {
                    let text = goal
                        .as_str()
                        .map(str::to_owned)
                        .or_else(|| {
                            ["objective", "condition", "text"]
                                .iter()
                                .find_map(|k| goal.get(*k).and_then(Value::as_str))
                                .map(str::to_owned)
                        })
                        .unwrap_or_else(|| goal.to_string());
                    info(
                        "goal_state",
                        Level::Info,
                        format!("goal: {text}"),
                        ev.get("goal_state").cloned().unwrap_or(Value::Null),
                    )
                };
                out.push(Event::at(n, kind));
                return;
            }
            "message_start" => {
                if let Some(id) = ev.pointer("/message/id").and_then(Value::as_str) {
                    self.groups.insert(thread.clone(), id.to_owned());
                }
                self.blocks.insert(thread.clone(), (0, HashMap::default()));
            }
            "content_block_start" | "content_block_delta" | "content_block_stop" => {
                let index = ev.get("index").and_then(Value::as_u64).unwrap_or(0);
                let (next, map) = self.blocks.entry(thread.clone()).or_default();
                let number = if str_of(&ev, "type") == "content_block_start" {
                    let k = *next;
                    *next += 1;
                    map.insert(index, k);
                    k
                } else {
                    map.get(&index).copied().unwrap_or(index)
                };
                if let Some(e) = v.get_mut("event").and_then(Value::as_object_mut) {
                    e.insert("index".into(), Value::from(number));
                }
            }
            _ => {}
        }
        self.claude
            .stream_event(&v, &mut |kind| out.push(Event::at(n, kind)));
    }
}

/// A tool result that says the permission was declined becomes a denial; anything else passes.
fn denial(kind: EventKind, names: &Recent<String>, denied: &mut Recent<()>) -> Vec<EventKind> {
    let EventKind::ToolResult {
        tool_call_id,
        is_error: true,
        output,
        error_text,
        ..
    } = &kind
    else {
        return vec![kind];
    };
    let text = error_text
        .clone()
        .unwrap_or_else(|| output_text(output, NonText::Skip));
    if !is_denial_text(&text) {
        return vec![kind];
    }
    denied.insert(tool_call_id, ());
    vec![
        EventKind::ToolDenied {
            tool_call_id: tool_call_id.clone(),
            tool_name: names.get(tool_call_id).cloned().unwrap_or_default(),
            message: text.clone(),
        },
        denied_update(tool_call_id.clone(), Some(output.clone()), text),
    ]
}

fn denied_update(id: String, output: Option<Value>, text: String) -> EventKind {
    EventKind::ToolUpdate {
        tool_call_id: id,
        state: Some(ToolState::ApprovalDenied),
        output,
        input: None,
        kind: None,
        error_text: Some(text),
        sidecar: None,
    }
}

/// Qwen's wording for a call the permission system refused (`default-approval` capture).
fn is_denial_text(text: &str) -> bool {
    text.contains("requires permission to use") && text.contains("declined")
        || text.contains("permission was declined")
}

/// `system/init` → the session inventory, with Qwen's field names.
fn session_snapshot(v: &Value) -> SessionSnapshot {
    let mut s = stream::session_snapshot(v, "qwen-stream");
    s.agent = "qwen-code".into();
    s.version = opt_string(v, "qwen_code_version");
    if let Some(m) = opt_string(v, "permission_mode") {
        s.permission_mode = Some(m);
    }
    s
}

/// True for a line only Qwen's stream-json writes (what tells it from Claude's at the first
/// line): the `system/init` with Qwen's fields, the `goal_state` stream event, or an `assistant`
/// line whose message id is its own `uuid` (Claude's are `msg_…`, repeated across lines: a
/// line whose id is its uuid and `msg_…` is Claude-shaped, and is not taken for Qwen's).
pub(crate) fn is_qwen_line(o: &Map<String, Value>) -> bool {
    match o.get("type").and_then(Value::as_str) {
        Some("system") => {
            o.get("subtype").and_then(Value::as_str) == Some("init")
                && (o.contains_key("qwen_code_version")
                    || o.contains_key("permission_mode")
                        && !o.contains_key("claude_code_version")
                        && !o.contains_key("permissionMode"))
        }
        Some("stream_event") => {
            o.get("event")
                .and_then(|e| e.get("type"))
                .and_then(Value::as_str)
                == Some("goal_state")
        }
        Some("assistant") => {
            let id = o
                .get("message")
                .and_then(|m| m.get("id"))
                .and_then(Value::as_str);
            id.is_some_and(|id| !id.starts_with("msg_"))
                && id == o.get("uuid").and_then(Value::as_str)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_qwen_init_from_claude_init() {
        let q: Map<String, Value> = serde_json::from_str(
            r#"{"type":"system","subtype":"init","qwen_code_version":"0.24.4","permission_mode":"yolo"}"#,
        )
        .unwrap();
        let c: Map<String, Value> = serde_json::from_str(
            r#"{"type":"system","subtype":"init","claude_code_version":"2.1.0","permissionMode":"default"}"#,
        )
        .unwrap();
        assert!(is_qwen_line(&q));
        assert!(!is_qwen_line(&c));
    }

    #[test]
    fn tells_qwen_assistant_lines_from_claudes() {
        let q: Map<String, Value> = serde_json::from_str(
            r#"{"type":"assistant","uuid":"5b77","message":{"id":"5b77","content":[]}}"#,
        )
        .unwrap();
        let c: Map<String, Value> = serde_json::from_str(
            r#"{"type":"assistant","uuid":"9c1e","message":{"id":"msg_01","content":[]}}"#,
        )
        .unwrap();
        assert!(is_qwen_line(&q));
        assert!(!is_qwen_line(&c));
        // A Claude-shaped line whose uuid happens to be its `msg_…` id is still Claude's.
        let same: Map<String, Value> = serde_json::from_str(
            r#"{"type":"assistant","uuid":"msg_01","message":{"id":"msg_01","content":[]}}"#,
        )
        .unwrap();
        assert!(!is_qwen_line(&same));
    }

    #[test]
    fn denial_wording() {
        assert!(is_denial_text(
            "Qwen Code requires permission to use \"run_shell_command\", but that permission was declined."
        ));
        assert!(!is_denial_text("File not found: x"));
    }
}
