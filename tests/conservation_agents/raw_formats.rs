//! Each raw format's facts read straight from its lines, as a reader must find them in the
//! transcript: prompts, model text, tool calls with their inputs, and outputs.

use serde_json::Value;

use super::{Facts, content, harness, rollout_line, s};

/// A `codex exec --json` stream: its completed items.
pub(super) fn codex_exec(objs: &[Value], f: &mut Facts) {
    for o in objs.iter().filter(|o| s(o, "type") == "item.completed") {
        let it = &o["item"];
        match s(it, "type").as_str() {
            "agent_message" => f.texts.push(s(it, "text")),
            "command_execution" => {
                f.call_ids.push(s(it, "id"));
                f.outputs.push(s(it, "aggregated_output"));
                f.calls.push(("command".into(), it["command"].clone()));
            }
            "file_change" => {
                f.call_ids.push(s(it, "id"));
                f.calls.push(("file_change".into(), paths(&it["changes"])));
            }
            "mcp_tool_call" | "collab_tool_call" => {
                f.call_ids.push(s(it, "id"));
                f.calls.push((s(it, "tool"), it["arguments"].clone()));
            }
            _ => {}
        }
    }
}

/// A Codex rollout file: its UI events, or its response items when it has no envelopes.
pub(super) fn codex_rollout(objs: &[Value], f: &mut Facts) {
    let items = objs
        .iter()
        .any(|o| o.pointer("/payload/type").and_then(Value::as_str) == Some("item_completed"));
    // A rollout without envelopes writes no UI events: its prompts and answers are the
    // response items' messages.
    let bare = !objs.iter().any(|o| o.get("payload").is_some());
    for o in objs {
        let (ty, p) = rollout_line(o);
        match (ty.as_str(), s(p, "type").as_str()) {
            ("response_item", "message") if bare => {
                let texts = content(p.get("content"));
                match s(p, "role").as_str() {
                    "user" => f.prompts.extend(texts.into_iter().filter(|t| !harness(t))),
                    "assistant" => f.texts.extend(texts),
                    _ => {}
                }
            }
            // A message another agent of the run sent this one (a sub-agent's answer).
            ("response_item", "agent_message") => {
                f.texts.extend(content(p.get("content")));
            }
            ("event_msg", "user_message") if !harness(&s(p, "message")) => {
                f.prompts.push(s(p, "message"));
            }
            ("event_msg", "agent_message") => f.texts.push(s(p, "message")),
            ("event_msg", "item_completed") => {
                let it = &p["item"];
                match s(it, "type").as_str() {
                    "UserMessage" => f.prompts.extend(content(it.get("content"))),
                    "AgentMessage" => f.texts.extend(content(it.get("content"))),
                    "CommandExecution" => {
                        f.call_ids.push(s(it, "id"));
                        f.outputs.push(s(it, "aggregated_output"));
                        f.calls.push(("command".into(), it["command"].clone()));
                    }
                    "FileChange" | "McpToolCall" => f.call_ids.push(s(it, "id")),
                    _ => {}
                }
            }
            (
                "response_item",
                "function_call" | "custom_tool_call" | "local_shell_call" | "tool_search_call",
            ) => {
                f.call_ids.push(s(p, "call_id"));
                let input = ["arguments", "input", "action"]
                    .iter()
                    .find_map(|k| p.get(*k).cloned())
                    .unwrap_or(Value::Null);
                f.calls.push((s(p, "name"), input));
            }
            ("response_item", "function_call_output") if !items => {
                if let Some(out) = p["output"].as_str() {
                    match serde_json::from_str::<Value>(out) {
                        Ok(v) if v["output"].is_string() => f.outputs.push(s(&v, "output")),
                        Ok(_) => {}
                        Err(_) => f.outputs.push(out.to_owned()),
                    }
                }
            }
            _ => {}
        }
    }
}

/// A Gemini CLI stream: its messages and tool lines.
pub(super) fn gemini_stream(objs: &[Value], f: &mut Facts) {
    for o in objs {
        match s(o, "type").as_str() {
            "message" if s(o, "role") == "user" => f.prompts.push(s(o, "content")),
            "message" => f.texts.push(s(o, "content")),
            "tool_use" => {
                f.call_ids.push(s(o, "tool_id"));
                f.calls.push((s(o, "tool_name"), o["parameters"].clone()));
            }
            "tool_result" => {
                f.call_ids.push(s(o, "tool_id"));
                f.outputs.push(s(o, "output"));
            }
            _ => {}
        }
    }
}

/// A saved Gemini chat: its user and model messages.
pub(super) fn gemini_chat(objs: &[Value], f: &mut Facts) {
    for o in objs {
        match s(o, "type").as_str() {
            "user" => f.prompts.extend(
                content(o.get("content"))
                    .into_iter()
                    .filter(|t| !harness(t)),
            ),
            "gemini" => {
                f.texts.extend(content(o.get("content")));
                for c in o["toolCalls"].as_array().into_iter().flatten() {
                    f.call_ids.push(s(c, "id"));
                    f.calls.push((s(c, "name"), c["args"].clone()));
                }
            }
            _ => {}
        }
    }
}

/// A Qwen Code stream: its messages' blocks.
pub(super) fn qwen_stream(objs: &[Value], f: &mut Facts) {
    for o in objs {
        let role = s(o, "type");
        // A sub-agent's prompt is the Agent call's input, not typed by a person.
        let sub = o["parent_tool_use_id"].is_string();
        let blocks = o.pointer("/message/content");
        if role == "user" && !sub {
            if let Some(Value::String(t)) = blocks {
                f.prompts.push(t.clone());
            }
        }
        for b in blocks.and_then(Value::as_array).into_iter().flatten() {
            match (role.as_str(), s(b, "type").as_str()) {
                ("assistant", "text") => f.texts.push(s(b, "text")),
                ("assistant", "tool_use") => {
                    f.call_ids.push(s(b, "id"));
                    f.calls.push((s(b, "name"), b["input"].clone()));
                }
                ("user", "tool_result") => {
                    f.call_ids.push(s(b, "tool_use_id"));
                    f.outputs.extend(content(b.get("content")));
                }
                ("user", "text") if !sub => f.prompts.push(s(b, "text")),
                _ => {}
            }
        }
    }
}

/// A Qwen daemon capture: its session updates, wherever they are nested.
pub(super) fn qwen_daemon(objs: &[Value], f: &mut Facts) {
    /// The walk's state: the message being streamed (chunks joined until another kind
    /// of update) and each call's latest input.
    #[derive(Default)]
    struct Daemon {
        message: String,
        inputs: Vec<(String, String, Value)>,
    }
    fn walk(v: &Value, f: &mut Facts, d: &mut Daemon) {
        match v {
            Value::Object(o) => {
                if let Some(kind) = o.get("sessionUpdate").and_then(Value::as_str) {
                    let text = v.pointer("/content/text").and_then(Value::as_str);
                    if kind != "agent_message_chunk" && !d.message.is_empty() {
                        f.views.push(std::mem::take(&mut d.message));
                    }
                    match (kind, text) {
                        ("agent_message_chunk", Some(t)) => {
                            f.texts.push(t.to_owned());
                            d.message.push_str(t);
                        }
                        ("user_message_chunk", Some(t)) => f.prompts.push(t.to_owned()),
                        ("tool_call" | "tool_call_update", _) => {
                            let id = s(v, "toolCallId");
                            if kind == "tool_call" {
                                f.call_ids.push(id.clone());
                            }
                            let input = v
                                .get("rawInput")
                                .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()));
                            match d.inputs.iter_mut().find(|(i, _, _)| *i == id) {
                                Some(entry) => {
                                    if let Some(i) = input {
                                        entry.2 = i.clone();
                                    }
                                }
                                None => d.inputs.push((
                                    id,
                                    v.pointer("/_meta/toolName")
                                        .and_then(Value::as_str)
                                        .map_or_else(|| s(v, "title"), str::to_owned),
                                    input.cloned().unwrap_or(Value::Null),
                                )),
                            }
                        }
                        _ => {}
                    }
                }
                o.values().for_each(|x| walk(x, f, d));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, f, d)),
            _ => {}
        }
    }
    let mut d = Daemon::default();
    objs.iter().for_each(|o| walk(o, f, &mut d));
    if !d.message.is_empty() {
        f.views.push(d.message);
    }
    f.calls
        .extend(d.inputs.into_iter().map(|(_, title, input)| (title, input)));
}

/// A saved Qwen chat: its messages' parts.
pub(super) fn qwen_chat(objs: &[Value], f: &mut Facts) {
    for o in objs {
        let parts = o.pointer("/message/parts").and_then(Value::as_array);
        for p in parts.into_iter().flatten() {
            match s(o, "type").as_str() {
                "user" => f.prompts.push(s(p, "text")),
                "assistant" if p.get("thought").is_none() && p["text"].is_string() => {
                    f.texts.push(s(p, "text"));
                }
                "assistant" if p["functionCall"].is_object() => {
                    f.call_ids.push(s(&p["functionCall"], "id"));
                    let call = &p["functionCall"];
                    f.calls.push((s(call, "name"), call["args"].clone()));
                }
                "tool_result" => {
                    if let Some(out) = p.pointer("/functionResponse/response/output") {
                        f.outputs.push(out.as_str().unwrap_or_default().to_owned());
                    }
                }
                _ => {}
            }
        }
    }
}

/// The paths of a Codex `changes` list: what a file change shows.
pub(super) fn paths(changes: &Value) -> Value {
    Value::Array(
        changes
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c["path"].clone())
            .collect(),
    )
}
