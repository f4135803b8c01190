//! What an MCP call shows when the model read its result as text. A rollout's
//! `mcp_tool_call_end` carries the server's `CallToolResult` content blocks; the
//! `function_call_output` line that follows is what the model read: `Wall time: N seconds`,
//! `Output:`, then the result written as JSON text (its structured content, or the content
//! blocks themselves). That text is the call's output, as a command's output line is
//! (`held_result`): the wall time is a fact of it, and the blocks are given up only when the
//! text holds them whole.

use serde_json::Value;

use crate::input::codex::exec_output;

/// The output an MCP call shows: the server's content `blocks` when the text the model read
/// (`said`) is only those blocks written as JSON (older rollouts: `{"content": […]}`); else that
/// text in place of the blocks when it holds every one of them, or followed by the blocks.
pub(crate) fn shown(said: &str, blocks: &[Value]) -> Value {
    if is_only(said, blocks) {
        return Value::Array(blocks.to_vec());
    }
    if blocks.iter().all(|b| held_in(said, b)) {
        return Value::String(said.to_owned());
    }
    let text = serde_json::json!({"type": "text", "text": said});
    Value::Array(
        std::iter::once(text)
            .chain(blocks.iter().cloned())
            .collect(),
    )
}

/// True when `said` is the result written as JSON and nothing more: no header, and the
/// blocks themselves or an object whose `content` they are.
fn is_only(said: &str, blocks: &[Value]) -> bool {
    match serde_json::from_str::<Value>(said) {
        Ok(Value::Array(read)) => read == blocks,
        Ok(Value::Object(read)) => {
            read.get("content")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                == Some(blocks)
        }
        _ => false,
    }
}

/// True when the text the model read holds content block `block`: a text block whose text
/// stands in it as it is, or whose JSON is the JSON written after its header.
fn held_in(said: &str, block: &Value) -> bool {
    if block.get("type").and_then(Value::as_str) != Some("text") {
        return false;
    }
    let Some(text) = block.get("text").and_then(Value::as_str) else {
        return false;
    };
    if said.contains(text) {
        return true;
    }
    let body = body(said);
    match (
        serde_json::from_str::<Value>(body),
        serde_json::from_str::<Value>(text),
    ) {
        (Ok(read), Ok(sent)) => read == sent || read.as_array().is_some_and(|a| a.contains(block)),
        _ => false,
    }
}

/// The text after a header's `Output:` line; the whole text when it has no header.
fn body(said: &str) -> &str {
    if exec_output::header(said).is_none() {
        return said;
    }
    said.split_once("\nOutput:\n").map_or(said, |(_, b)| b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The model's text replaces text blocks it holds (as they are or as the same JSON), and
    /// comes before any block it does not hold.
    #[test]
    fn the_text_read_replaces_only_blocks_it_holds() {
        let said = "Wall time: 1.0000 seconds\nOutput:\n{\"a\":1}";
        let pretty = json!([{"type": "text", "text": "{\"a\": 1}"}]);
        assert_eq!(shown(said, pretty.as_array().unwrap()), json!(said));
        let image = json!([{"type": "image", "data": "AA==", "mimeType": "image/png"}]);
        let kept = shown(said, image.as_array().unwrap());
        assert_eq!(kept[0]["text"], said);
        assert_eq!(kept[1], image[0]);
        let legacy = "{\"content\":[{\"type\":\"text\",\"text\":\"docs\"}]}";
        let docs = json!([{"type": "text", "text": "docs"}]);
        assert_eq!(shown(legacy, docs.as_array().unwrap()), docs);
        let other = json!([{"type": "text", "text": "not in it"}]);
        assert_eq!(
            shown(said, other.as_array().unwrap())
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }
}
