//! The rollout lines that carry the conversation besides `item_completed`: `response_item`
//! (every version) and the UI events older versions persist (`user_message`,
//! `agent_message`, `agent_reasoning`, `exec_command_end`, …). Decoding lives in
//! `codex::history`; this module decides what each line adds, each fact once (see there).

use serde_json::{Value, json};

use crate::input::codex::history::{self, CallKind, Fact, Source};
use crate::input::codex::images;
use crate::input::codex::items::{At, Item, Phase};
use crate::input::codex::rollout::CodexRollout;
use crate::input::codex::tools;
use crate::input::fields::str_of;
use crate::input::{InputLine, push_debug};
use crate::model::event::{Event, EventKind};

/// A prompt read from a `response_item` message, held for one line: the `user_message` /
/// `item_completed` that follows it in every version carries the same prompt with the UI's
/// id, and wins.
pub(crate) struct HeldPrompt {
    line: u64,
    timestamp: Option<String>,
    id: String,
    text: String,
}

impl HeldPrompt {
    /// The line the prompt was read from.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }
}

/// The event saying line `line` was read into nothing of its own, and why (`what`).
pub(super) fn absorbed(line: u64, what: &str) -> Event {
    Event::at(line, EventKind::absorbed(what.to_owned()))
}

impl CodexRollout {
    /// A text fact from a line of kind `source`: shown when new, absorbed when a line of
    /// another kind carried it already.
    pub(super) fn text_fact(
        &mut self,
        (source, fact): (Source, Fact),
        id: &str,
        text: String,
        at: &mut At<'_>,
    ) {
        if text.trim().is_empty() {
            at.push(EventKind::absorbed("empty text"));
            return;
        }
        if !self.seen.fresh(source, fact, &text) {
            at.push(EventKind::absorbed("copy of a fact another line carried"));
            return;
        }
        if fact == Fact::Prompt {
            self.prompt_starts_turn(at.line, at.out);
        }
        let item = history::text_item(fact, text);
        self.items.item(Phase::Completed, id, item, at);
    }

    /// Writes a held `response_item` prompt (a copy of a prompt already shown is absorbed).
    pub(super) fn flush_prompt(&mut self, out: &mut Vec<Event>) {
        if let Some(h) = self.held_prompt.take() {
            let mut at = At::new(h.line, h.timestamp, out);
            self.text_fact((Source::Response, Fact::Prompt), &h.id, h.text, &mut at);
        }
    }

    /// One `response_item` line.
    pub(super) fn response_item(
        &mut self,
        p: &Value,
        ts: Option<String>,
        line: &InputLine,
        out: &mut Vec<Event>,
    ) {
        let n = line.number;
        let at = &mut At::new(n, ts, out);
        let own_id = || {
            p.get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("line-{n}"), str::to_owned)
        };
        match str_of(p, "type") {
            "message" => self.response_message(p, own_id(), at),
            "reasoning" => self.response_reasoning(p, own_id(), at),
            "function_call" | "custom_tool_call" => {
                let args = match p.get("arguments") {
                    Some(Value::String(s)) => {
                        scribe_json::parse_line(s).unwrap_or_else(|_| Value::String(s.clone()))
                    }
                    Some(v) => v.clone(),
                    None => p.get("input").cloned().unwrap_or(Value::Null),
                };
                let (tool, kind) =
                    history::call_item(str_of(p, "name"), str_of(p, "namespace"), &args);
                self.awaiting_output.insert(call_id(p));
                self.open_call(p, tool, kind, at);
            }
            "local_shell_call" => {
                let argv = p
                    .pointer("/action/command")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let (tool, kind) = history::call_item("shell", "", &json!({ "command": argv }));
                self.open_call(p, tool, kind, at);
            }
            "function_call_output" | "custom_tool_call_output" => {
                self.call_output(
                    &call_id(p),
                    p.get("output").unwrap_or(&Value::Null),
                    n,
                    at.out,
                );
            }
            "web_search_call" => {
                let action = p.get("action").cloned();
                let query = action
                    .as_ref()
                    .and_then(|a| a.get("query").and_then(Value::as_str))
                    .unwrap_or_default()
                    .to_owned();
                let done = !matches!(str_of(p, "status"), "in_progress" | "searching");
                let tool = tools::web_search_item(&query, action, None, done);
                self.items
                    .item(Phase::Completed, &own_id(), Item::Tool(Box::new(tool)), at);
            }
            "image_generation_call" => {
                let tool = images::image_item(p);
                let phase = if tool.outcome.is_some() {
                    Phase::Completed
                } else {
                    Phase::Started
                };
                let id = own_id();
                self.items.item(phase, &id, Item::Tool(Box::new(tool)), at);
            }
            // The model searching the tools it may call (MCP tools loaded on demand): a call
            // of its own, whose result lists the tools found.
            "tool_search_call" => {
                let args = p.get("arguments").cloned().unwrap_or(Value::Null);
                let tool = history::generic("tool_search", args);
                self.open_call(p, tool, CallKind::Other, at);
            }
            "tool_search_output" => {
                let id = call_id(p);
                self.call_kinds.remove(&id);
                let tools = p.get("tools").cloned().unwrap_or(Value::Null);
                let found = history::tool_search_found(&tools);
                let failed = matches!(str_of(p, "status"), "failed" | "incomplete");
                let outcome = crate::input::codex::items::Outcome {
                    is_error: failed,
                    error_text: failed.then(|| format!("tool search {}", str_of(p, "status"))),
                    output: Value::String(found),
                    sidecar: Some(json!({ "tools": tools })),
                };
                self.items.result(&id, outcome, n, at.out);
            }
            // A message another agent of a multi-agent run sent this one (`author` and
            // `recipient` are agent paths such as `/root/review`): what it says is shown.
            "agent_message" => {
                let text = history::content_text(p.get("content"));
                let text = match (str_of(p, "author"), str_of(p, "recipient")) {
                    ("", _) => text,
                    (from, "") => format!("Message from {from}:\n\n{text}"),
                    (from, to) => format!("Message from {from} to {to}:\n\n{text}"),
                };
                self.items
                    .item(Phase::Completed, &own_id(), Item::Notification { text }, at);
            }
            // Harness bookkeeping: undo snapshots, encrypted compaction.
            "ghost_snapshot" | "compaction" | "compaction_summary" => at.out.push(absorbed(
                n,
                &format!("response_item/{} (harness bookkeeping)", str_of(p, "type")),
            )),
            other => push_debug(
                at.out,
                line,
                &format!("unknown response_item type {other:?}"),
            ),
        }
    }

    /// A `message` response item: an answer, a prompt (held one line for its UI copy), or
    /// harness context.
    fn response_message(&mut self, p: &Value, id: String, at: &mut At<'_>) {
        let text = history::content_text(p.get("content"));
        match str_of(p, "role") {
            "assistant" => self.text_fact((Source::Response, Fact::Answer), &id, text, at),
            "user" if !history::is_harness_context(&text) => {
                self.flush_prompt(at.out);
                self.held_prompt = Some(HeldPrompt {
                    line: at.line,
                    // Held whole: the line gives nothing else.
                    timestamp: at.timestamp.take(),
                    id,
                    text,
                });
            }
            _ if text.trim().is_empty() => at.push(EventKind::absorbed("empty message")),
            _ => self
                .items
                .item(Phase::Completed, &id, Item::Context { text }, at),
        }
    }

    /// A `reasoning` response item: its texts no other line carried.
    fn response_reasoning(&mut self, p: &Value, id: String, at: &mut At<'_>) {
        let fresh: Vec<String> = history::reasoning_texts(p)
            .into_iter()
            .filter(|t| self.seen.fresh(Source::Response, Fact::Reasoning, t))
            .collect();
        if fresh.is_empty() {
            at.push(EventKind::absorbed(
                "reasoning another line carried (or encrypted only)",
            ));
        } else {
            let text = fresh.join("\n\n");
            self.items
                .item(Phase::Completed, &id, Item::Reasoning { text }, at);
        }
    }

    /// Opens a call named by a `response_item`; remembers its kind for its output.
    pub(super) fn open_call(
        &mut self,
        p: &Value,
        tool: crate::input::codex::items::ToolItem,
        kind: CallKind,
        at: &mut At<'_>,
    ) {
        let id = call_id(p);
        self.call_kinds.insert(id.clone(), kind);
        self.items
            .item(Phase::Started, &id, Item::Tool(Box::new(tool)), at);
    }

    /// Opens the shell call an `exec_command_begin` (or an end with no begin) names.
    fn open_shell(&mut self, p: &Value, at: &mut At<'_>) {
        let command = p.get("command").cloned().unwrap_or(Value::Null);
        let (tool, kind) = history::call_item("shell", "", &json!({ "command": command }));
        self.open_call(p, tool, kind, at);
    }

    /// One `event_msg` of the kinds older versions persist (and current ones in their
    /// extended mode). Returns false for a type this function does not know.
    pub(super) fn legacy_event(&mut self, ty: &str, p: &Value, at: &mut At<'_>) -> bool {
        let n = at.line;
        let id = format!("line-{n}");
        match ty {
            "user_message" => {
                let text = str_of(p, "message").to_owned();
                let context = !matches!(str_of(p, "kind"), "" | "plain")
                    || history::is_harness_context(&text);
                if context {
                    self.items
                        .item(Phase::Completed, &id, Item::Context { text }, at);
                } else {
                    self.text_fact((Source::Event, Fact::Prompt), &id, text, at);
                    self.flush_prompt(at.out);
                }
            }
            "agent_message" => {
                let text = str_of(p, "message").to_owned();
                self.text_fact((Source::Event, Fact::Answer), &id, text, at);
            }
            "agent_reasoning" | "agent_reasoning_raw_content" => {
                let text = str_of(p, "text").to_owned();
                self.text_fact((Source::Event, Fact::Reasoning), &id, text, at);
            }
            "exec_command_begin" => self.open_shell(p, at),
            "exec_command_end" => {
                let cid = call_id(p);
                self.call_kinds.remove(&cid);
                let mut outcome = tools::exec_end_outcome(p);
                self.end_session_of(&cid, &mut outcome);
                if !self.items.knows(&cid) {
                    self.open_shell(p, at);
                    self.call_kinds.remove(&cid);
                }
                self.items.result(&cid, outcome, n, at.out);
            }
            "mcp_tool_call_begin" | "mcp_tool_call_end" => {
                let cid = call_id(p);
                let tool = tools::mcp_end_item(p);
                if ty == "mcp_tool_call_begin" || !self.items.knows(&cid) {
                    let mut open = tool.clone();
                    open.outcome = None;
                    self.open_call(p, open, CallKind::Other, at);
                }
                if ty == "mcp_tool_call_end" {
                    self.call_kinds.remove(&cid);
                    if let Some(o) = tool.outcome {
                        self.items.result(&cid, o, n, at.out);
                    }
                }
            }
            "patch_apply_begin" => {
                let changes: Vec<tools::Change> = p
                    .get("changes")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(path, c)| tools::Change {
                        path: path.clone(),
                        kind: c
                            .as_object()
                            .and_then(|o| o.keys().next().cloned())
                            .unwrap_or_default(),
                        detail: None,
                    })
                    .collect();
                let tool = tools::patch_item(&changes, "in_progress", None);
                self.open_call(p, tool, CallKind::Other, at);
            }
            "patch_apply_end" => {
                let cid = call_id(p);
                self.call_kinds.remove(&cid);
                if !self.items.knows(&cid) {
                    let tool = tools::patch_item(&[], "in_progress", None);
                    self.open_call(p, tool, CallKind::Other, at);
                    self.call_kinds.remove(&cid);
                }
                self.items
                    .result(&cid, tools::patch_end_outcome(p), n, at.out);
            }
            _ => return self.legacy_ui_event(ty, p, at),
        }
        true
    }
}

/// A call line's id: `call_id`, else the item's own `id`.
pub(super) fn call_id(p: &Value) -> String {
    p.get("call_id")
        .or_else(|| p.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
