//! One replayed message record → its events: user turns, assistant turns with their tool
//! calls and results, and notices.

use foldhash::HashSet;

use serde_json::{Value, json};

use crate::input::fields::{self, info, opt_string, str_of};
use crate::input::gemini::tools::{function_result, tool_call};
use crate::model::event::{Event, EventKind};
use crate::model::session::Level;
use crate::model::transcript::{Part, SyntheticReason, Turn, TurnMeta, TurnOrigin, Usage};

/// One message record → its events.
pub(super) fn message(line: u64, m: &Value, called: &mut HashSet<String>, out: &mut Vec<Event>) {
    let mut emit = |kind| out.push(Event::at(line, kind));
    let ts = opt_string(m, "timestamp");
    let id = str_of(m, "id").to_owned();
    match str_of(m, "type") {
        "user" => {
            let parts = content_parts(m.get("content"));
            let mut texts = Vec::new();
            let mut others = Vec::new();
            for p in &parts {
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    texts.push(t.to_owned());
                } else if let Some(fr) = p.get("functionResponse") {
                    let call_id = str_of(fr, "id");
                    if !called.contains(call_id) {
                        // A result whose call is on no model message: keep it as a result.
                        emit(function_result(call_id, fr));
                    }
                } else {
                    others.extend(data_part(p));
                }
            }
            if texts.is_empty() && others.is_empty() {
                emit(EventKind::absorbed(
                    "user/functionResponse (kept on the call)",
                ));
                return;
            }
            let text = texts.join("\n");
            let origin = if text.trim_start().starts_with("<session_context>") {
                TurnOrigin::Synthetic {
                    reason: SyntheticReason::Other,
                }
            } else {
                TurnOrigin::UserInput
            };
            let mut turn_parts = Vec::new();
            if !text.is_empty() {
                turn_parts.push(Part::text(text));
            }
            turn_parts.extend(others);
            emit(EventKind::user_turn(
                Turn::user(id, origin, turn_parts).at(ts),
            ));
        }
        "gemini" => {
            let meta = TurnMeta {
                model: opt_string(m, "model"),
                usage: m.get("tokens").and_then(usage),
                ..TurnMeta::default()
            };
            let mut parts = thought_parts(m);
            let content = content_parts(m.get("content"));
            let text = content
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("");
            if !text.is_empty() {
                parts.push(Part::text(text));
            }
            parts.extend(content.iter().filter_map(data_part));
            let mut results = Vec::new();
            for c in fields::array(m, "toolCalls") {
                let (call, result) = tool_call(c);
                called.insert(call.tool_call_id.clone());
                parts.push(Part::tool_call(call));
                results.extend(result);
            }
            if parts.is_empty() {
                // A model message with no text, thoughts or calls (a cut-off response).
                emit(EventKind::absorbed("gemini message with no content"));
                return;
            }
            for (i, part) in parts.into_iter().enumerate() {
                emit(EventKind::AssistantBlock {
                    thread: None,
                    message_id: id.clone(),
                    part,
                    meta: if i == 0 {
                        meta.clone()
                    } else {
                        TurnMeta::default()
                    },
                    timestamp: ts.clone(),
                });
            }
            for r in results {
                emit(r);
            }
        }
        kind @ ("info" | "warning" | "error") => emit(notice_line(kind, m)),
        other => emit(EventKind::debug(
            format!("unknown saved-chat message type {other:?}"),
            m.to_string(),
            false,
        )),
    }
}

/// A model message's thoughts as reasoning parts: each its subject and description, whichever
/// it has.
fn thought_parts(m: &Value) -> Vec<Part> {
    let mut parts = Vec::new();
    for t in fields::array(m, "thoughts") {
        let text = match (str_of(t, "subject"), str_of(t, "description")) {
            ("", d) => d.to_owned(),
            (s, "") => s.to_owned(),
            (s, d) => format!("{s}: {d}"),
        };
        parts.push(Part::Reasoning {
            text,
            redacted: false,
            signature: None,
        });
    }
    parts
}

/// An `info`, `warning` or `error` message: a notice of that level with its text.
fn notice_line(kind: &str, m: &Value) -> EventKind {
    let level = match kind {
        "info" => Level::Info,
        "warning" => Level::Warning,
        _ => Level::Error,
    };
    let text = content_parts(m.get("content"))
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    info(kind, level, text, Value::Null)
}

/// A content part that is no text and no function call or response (those are the message's
/// text and its calls): an image (`inlineData`), a file (`fileData`), code the model ran, or a
/// field nobody here knows, kept whole as a `data` part named by its field. `None` for text and
/// calls.
fn data_part(p: &Value) -> Option<Part> {
    const READ_ELSEWHERE: [&str; 3] = ["text", "functionCall", "functionResponse"];
    let o = p.as_object()?;
    if READ_ELSEWHERE.iter().any(|k| o.contains_key(*k)) {
        return None;
    }
    // `thought` and `thoughtSignature` ride beside a part's own field.
    let name = o
        .keys()
        .find(|k| !matches!(k.as_str(), "thought" | "thoughtSignature"))?;
    Some(Part::Data {
        name: name.clone(),
        data: p.clone(),
        summary: None,
    })
}

/// A message's `content`: a string is one text part, a `Part[]` is itself.
pub(super) fn content_parts(content: Option<&Value>) -> Vec<Value> {
    match content {
        Some(Value::String(s)) => vec![json!({ "text": s })],
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    }
}

/// `tokens` → usage: `input` counts the cached part, which Anthropic-style usage keeps apart.
pub(super) fn usage(t: &Value) -> Option<Usage> {
    let n = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
    t.is_object().then(|| Usage {
        input_tokens: n("input").saturating_sub(n("cached")),
        output_tokens: n("output"),
        cache_read_input_tokens: n("cached"),
        cache_creation_input_tokens: 0,
    })
}
