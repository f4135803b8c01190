//! Anthropic Messages-API content blocks → parts and tool calls.
//!
//! Shared by every Claude format (stream-json and saved sessions store the same blocks). Unknown
//! block types are kept whole as `data` parts: nothing inside a message is dropped.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::input::anthropic::row::{Element, RawBlock, owned};
use crate::input::fields::{opt_string, str_of, string};
use crate::input::tool_kind::{self, ToolTable};
use crate::model::tool_kind::ToolKind;
use crate::model::transcript::{Caller, Citation, NonText, Part, SkillInfo, ToolCall, output_text};

/// What one content block becomes.
#[derive(Debug)]
pub(crate) enum Block {
    /// Content of the message itself.
    Part(Part),
    /// The result of an earlier tool call (client `tool_result`, server-tool and MCP result
    /// blocks).
    Result {
        tool_call_id: String,
        is_error: bool,
        output: Value,
        error_text: Option<String>,
    },
    /// Plain text, kept apart so a user message's text can be classified as a whole.
    Text(String),
}

/// Decodes one content block (either side of the conversation); `tools` names the agent's tools.
/// `whole` gives the block as it was, for the blocks kept whole (a type nobody knows).
pub(crate) fn block(b: Element<'_>, whole: impl FnOnce() -> Value, tools: ToolTable) -> Block {
    let mut b = match b {
        Element::Block(b) => *b,
        Element::NotObject => {
            return Block::Part(Part::Data {
                name: "block".into(),
                data: whole(),
                summary: None,
            });
        }
    };
    let ty = b.ty.take().unwrap_or_default();
    match ty.as_ref() {
        "text" => {
            let citations: Vec<Citation> = match &b.citations {
                Some(Value::Array(a)) => a.iter().map(citation).collect(),
                _ => Vec::new(),
            };
            if citations.is_empty() {
                Block::Text(owned(b.text))
            } else {
                Block::Part(Part::Text {
                    text: owned(b.text),
                    citations,
                })
            }
        }
        "thinking" => Block::Part(Part::Reasoning {
            text: owned(b.thinking),
            redacted: false,
            signature: b
                .signature
                .filter(|s| !s.is_empty())
                .map(std::borrow::Cow::into_owned),
        }),
        "redacted_thinking" => Block::Part(Part::Reasoning {
            text: String::new(),
            redacted: true,
            signature: None,
        }),
        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
            Block::Part(Part::tool_call(tool_call(b, &ty, tools)))
        }
        // An MCP connector's result reads like a client tool's.
        "tool_result" | "mcp_tool_result" => {
            let is_error = b.is_error.unwrap_or(false);
            let output = tool_output(b.content.unwrap_or(Value::Null));
            Block::Result {
                tool_call_id: owned(b.tool_use_id),
                is_error,
                error_text: is_error.then(|| output_text(&output, NonText::Skip)),
                output,
            }
        }
        t if t.ends_with("_tool_result") => {
            // Server tools: web_search, web_fetch, code_execution, bash/text-editor code
            // execution, tool_search, advisor. An error is a content object whose type ends in
            // `_error`.
            let content = b.content.unwrap_or(Value::Null);
            let err_code = content
                .get("type")
                .and_then(Value::as_str)
                .filter(|t| t.ends_with("_error"))
                .map(|_| {
                    content
                        .get("error_message")
                        .or_else(|| content.get("error_code"))
                        .and_then(Value::as_str)
                        .unwrap_or("error")
                        .to_owned()
                });
            Block::Result {
                tool_call_id: owned(b.tool_use_id),
                is_error: err_code.is_some(),
                error_text: err_code,
                output: content,
            }
        }
        "image" => Block::Part(media_part(b, "image/png")),
        "document" => Block::Part(media_part(b, "application/pdf")),
        "search_result" => Block::Part(Part::SourceDocument {
            media_type: "text/plain".into(),
            title: owned(b.title),
            source_id: b
                .source
                .as_ref()
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            text: Some(output_text(
                &tool_output(b.content.unwrap_or(Value::Null)),
                NonText::Skip,
            ))
            .filter(|t| !t.is_empty()),
        }),
        // A file the code-execution container was given: a file reference, like a `file` source.
        "container_upload" => Block::Part(Part::File {
            media_type: "application/octet-stream".into(),
            url: format!("file-id:{}", b.file_id.as_deref().unwrap_or_default()),
            filename: None,
        }),
        "compaction" => Block::Part(Part::Compaction {
            summary: match b.content {
                Some(Value::String(t)) => Some(t),
                Some(Value::Null) | None => None,
                Some(other) => Some(output_text(&tool_output(other), NonText::Skip)),
            },
        }),
        _ => Block::Part(Part::Data {
            name: if ty.is_empty() {
                "block".into()
            } else {
                ty.clone().into_owned()
            },
            data: whole(),
            // A tool reference (a tool search's result) names the tool it found.
            summary: (ty == "tool_reference")
                .then_some(b.tool_name)
                .flatten()
                .map(std::borrow::Cow::into_owned),
        }),
    }
}

/// A `tool_use`-like block → a running tool call, with caller, MCP server and skill filled in.
fn tool_call(b: RawBlock<'_>, ty: &str, tools: ToolTable) -> ToolCall {
    let input = b.input.unwrap_or_else(|| json!({}));
    let mut call = ToolCall::new(
        owned(b.id),
        owned(b.name),
        Default::default(),
        Caller::Model,
        input,
    );
    // Who made the call: `{type: "direct"}` is the model itself; anything else (server-side
    // code execution calling the tool) is kept, so the chain is not lost.
    call.called_by = b
        .caller
        .filter(|c| !c.is_null() && c.get("type").and_then(Value::as_str) != Some("direct"));
    match ty {
        "server_tool_use" => call.caller = Caller::ServerTool,
        "mcp_tool_use" => {
            call.caller = Caller::Mcp;
            call.mcp_server = Some(owned(b.server_name));
        }
        _ => {
            if let Some(server) = tool_kind::mcp_server_in(&call.name, "__") {
                call.caller = Caller::Mcp;
                call.mcp_server = Some(server.to_owned());
            }
        }
    }
    call.kind = tool_kind::classify(
        &call.name,
        call.caller,
        call.mcp_server.as_deref(),
        &call.input,
        tools,
    );
    // What the agent's table says the tool does decides who runs it and whether it loads a skill.
    if ty == "tool_use" {
        match &call.kind {
            ToolKind::Subagent { .. } => call.caller = Caller::Subagent,
            ToolKind::Skill { .. } => {
                call.skill = Some(SkillInfo {
                    skill_name: string(&call.input, "skill"),
                    body: None,
                });
            }
            ToolKind::Shell { .. }
            | ToolKind::Read { .. }
            | ToolKind::Write { .. }
            | ToolKind::Edit { .. }
            | ToolKind::MultiEdit { .. }
            | ToolKind::Patch { .. }
            | ToolKind::Search { .. }
            | ToolKind::WebFetch { .. }
            | ToolKind::WebSearch { .. }
            | ToolKind::Todo { .. }
            | ToolKind::Plan { .. }
            | ToolKind::Mcp { .. }
            | ToolKind::StructuredOutput
            | ToolKind::Other { .. } => {}
        }
    }
    call
}

/// An API citation → §14's `{url, title, quote}`, whatever the location kind (web page,
/// document, search result, …); the other fields stay beside them.
fn citation(c: &Value) -> Citation {
    let mut detail = c.as_object().cloned().unwrap_or_default();
    let mut take = |keys: &[&str]| {
        keys.iter().find_map(|k| match detail.get(*k) {
            Some(Value::String(s)) => {
                let s = s.clone();
                detail.shift_remove(*k);
                Some(s)
            }
            _ => None,
        })
    };
    let url = take(&["url", "source"]);
    let title = take(&["title", "document_title"]);
    let quote = take(&["cited_text"]);
    Citation {
        url,
        title,
        quote,
        detail,
    }
}

/// A web search's hits (`web_search_result` items of its result) → `source-url` parts, one per
/// page, numbered after the search call so the ids are stable.
pub(crate) fn web_search_hits(tool_call_id: &str, output: &Value) -> Vec<Part> {
    let Some(items) = output.as_array() else {
        return Vec::new();
    };
    items
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("web_search_result"))
        .enumerate()
        .map(|(n, i)| Part::SourceUrl {
            url: string(i, "url"),
            title: opt_string(i, "title"),
            source_id: format!("{tool_call_id}#{}", n + 1),
        })
        .collect()
}

/// An image or document block → a `file` part with a `data:` URL (or the source URL).
fn media_part(b: RawBlock<'_>, default_type: &str) -> Part {
    let src = b.source.unwrap_or(Value::Null);
    let media_type = src
        .get("media_type")
        .and_then(Value::as_str)
        .unwrap_or(default_type)
        .to_owned();
    let url = match src.get("type").and_then(Value::as_str) {
        Some("base64") => format!("data:{media_type};base64,{}", string(&src, "data")),
        Some("url") => string(&src, "url"),
        Some("file") => format!("file-id:{}", string(&src, "file_id")),
        Some("text") => format!(
            "data:{media_type},{}",
            percent_encode(&string(&src, "data"))
        ),
        _ => String::new(),
    };
    Part::File {
        media_type,
        url,
        filename: b.title.map(std::borrow::Cow::into_owned),
    }
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~ ".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A tool result's content, normalized: a string stays a string; an array of blocks becomes a
/// string when it is all text, else an array of `text` / `file` parts.
pub(crate) fn tool_output(content: Value) -> Value {
    match content {
        Value::Array(blocks) => {
            let all_text = blocks
                .iter()
                .all(|b| b.get("type").and_then(Value::as_str) == Some("text"));
            if all_text {
                let texts: Vec<&str> = blocks.iter().map(|b| str_of(b, "text")).collect();
                return Value::String(texts.join("\n"));
            }
            Value::Array(
                blocks
                    .iter()
                    .map(|b| {
                        let element = Element::deserialize(b).unwrap_or(Element::NotObject);
                        match block(element, || b.clone(), tool_kind::no_names) {
                            Block::Text(t) => json!({"type": "text", "text": t}),
                            Block::Part(p) => serde_json::to_value(p).unwrap_or(Value::Null),
                            Block::Result { output, .. } => output,
                        }
                    })
                    .collect(),
            )
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_only_output_is_a_string() {
        let v = json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]);
        assert_eq!(tool_output(v), json!("a\nb"));
    }

    #[test]
    fn image_output_is_a_file_part() {
        let v = json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA"}}]);
        let out = tool_output(v);
        assert_eq!(out[0]["type"], "file");
        assert_eq!(out[0]["url"], "data:image/png;base64,AAA");
    }
}
