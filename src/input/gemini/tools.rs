//! A Gemini saved chat's tool calls → a call and its result (used by `gemini::session`).
//!
//! A model message's `toolCalls[]` entry holds the call, its status, the result handed back to
//! the model (`functionResponse` parts, wrapped in `<untrusted_context>`) and what the user was
//! shown (`resultDisplay`). The result's `output` is what the user saw, as in the stream; the
//! model's copy, Gemini's status and display fields go to the sidecar. A shell call whose output
//! says `Exit Code: N` with N ≠ 0 is an error, although Gemini calls it a success.

use serde_json::{Map, Value, json};

use crate::input::fields::{self, str_of};
use crate::input::tool_kind;
use crate::model::details::Details;
use crate::model::event::EventKind;
use crate::model::transcript::ToolCall;

/// One `toolCalls[]` entry → the call, and its result event when it has one.
pub(super) fn tool_call(c: &Value) -> (ToolCall, Option<EventKind>) {
    let name = str_of(c, "name").to_owned();
    let input = c.get("args").cloned().unwrap_or_else(|| json!({}));
    let call = super::tool_names::call(str_of(c, "id").to_owned(), name, input, mcp_server(c));
    let mut sidecar = Map::new();
    for k in ["status", "displayName", "description"] {
        if let Some(v) = c.get(k).filter(|v| !v.is_null()) {
            sidecar.insert(k.into(), v.clone());
        }
    }
    let status = str_of(c, "status");
    let response = fields::array(c, "result")
        .iter()
        .find_map(|p| p.pointer("/functionResponse/response"));
    if response.is_none() && !matches!(status, "success" | "error" | "cancelled") {
        return (call, None);
    }
    // What the model was handed, and what the user was shown (the stream's `output`).
    let model_output = response
        .and_then(|r| r.get("output"))
        .and_then(Value::as_str)
        .map(|s| drop_pgid(&unwrap_untrusted(s)));
    let display = c.get("resultDisplay").filter(|v| !v.is_null());
    let shown = display.and_then(Value::as_str).map(str::to_owned);
    if let Some(d) = display.filter(|d| !d.is_string()) {
        sidecar.insert("resultDisplay".into(), d.clone());
    }
    if model_output.is_some() && model_output != shown {
        sidecar.insert("modelOutput".into(), Value::from(model_output.clone()));
    }
    let error = response
        .and_then(|r| r.get("error"))
        .map(|e| e.as_str().map_or_else(|| e.to_string(), unwrap_untrusted));
    let exit = model_output
        .as_deref()
        .and_then(exit_code)
        .filter(|c| *c != 0);
    let is_error = status != "success" || error.is_some() || exit.is_some();
    let error_text = if is_error {
        error
            .clone()
            .or_else(|| exit.and(model_output.clone()))
            .or_else(|| Some(format!("status {status}")))
    } else {
        None
    };
    let result = EventKind::ToolResult {
        thread: None,
        tool_call_id: call.tool_call_id.clone(),
        is_error,
        output: Value::String(shown.or(model_output).or(error).unwrap_or_default()),
        error_text,
        sidecar: Some(Details::from(Value::Object(sidecar))),
        facts: crate::model::transcript::ResultFacts::default(),
        server_run: false,
        replay: false,
        timestamp: None,
    };
    (call, Some(result))
}

/// A shell output without its `Process Group PGID: N` line (a process id, different every run).
fn drop_pgid(s: &str) -> String {
    if !s.contains("Process Group PGID:") {
        return s.to_owned();
    }
    s.lines()
        .filter(|l| !l.starts_with("Process Group PGID:"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `functionResponse` with no call on record → a result of its own.
pub(super) fn function_result(id: &str, fr: &Value) -> EventKind {
    let r = fr.get("response").unwrap_or(&Value::Null);
    let error = r
        .get("error")
        .map(|e| e.as_str().map_or_else(|| e.to_string(), unwrap_untrusted));
    let output = r
        .get("output")
        .and_then(Value::as_str)
        .map(unwrap_untrusted);
    EventKind::ToolResult {
        thread: None,
        tool_call_id: id.to_owned(),
        is_error: error.is_some(),
        output: Value::String(output.or(error.clone()).unwrap_or_default()),
        error_text: error,
        sidecar: None,
        facts: crate::model::transcript::ResultFacts::default(),
        server_run: false,
        replay: false,
        timestamp: None,
    }
}

/// The MCP server of a call: from its display name (`tool (server MCP Server)`), else from its
/// `mcp_<server>_<tool>` name.
fn mcp_server(c: &Value) -> Option<String> {
    let name = str_of(c, "name");
    if !name.starts_with("mcp_") {
        return None;
    }
    let shown = str_of(c, "displayName");
    if let Some(inner) = shown.strip_suffix(" MCP Server)") {
        if let Some((_, server)) = inner.rsplit_once(" (") {
            if !server.is_empty() {
                return Some(server.to_owned());
            }
        }
    }
    tool_kind::mcp_server_in(name, "_").map(str::to_owned)
}

/// Output handed to the model wrapped in `<untrusted_context>…</untrusted_context>` → the inside.
fn unwrap_untrusted(s: &str) -> String {
    s.trim()
        .strip_prefix("<untrusted_context>")
        .and_then(|r| r.strip_suffix("</untrusted_context>"))
        .map_or_else(|| s.to_owned(), |r| r.trim_matches('\n').to_owned())
}

/// The `Exit Code: N` line of a shell tool's output.
fn exit_code(output: &str) -> Option<i64> {
    output
        .lines()
        .find_map(|l| l.strip_prefix("Exit Code: "))
        .and_then(|c| c.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untrusted_wrapper_and_exit_code() {
        let s = "<untrusted_context>\nOutput: x\nExit Code: 3\n</untrusted_context>";
        assert_eq!(unwrap_untrusted(s), "Output: x\nExit Code: 3");
        assert_eq!(exit_code(&unwrap_untrusted(s)), Some(3));
        assert_eq!(unwrap_untrusted("plain"), "plain");
        assert_eq!(exit_code("no code here"), None);
    }

    #[test]
    fn process_group_line_is_dropped() {
        assert_eq!(
            drop_pgid("Output: a\nExit Code: 1\nProcess Group PGID: 4242"),
            "Output: a\nExit Code: 1"
        );
        assert_eq!(drop_pgid("no pgid"), "no pgid");
    }

    #[test]
    fn mcp_server_from_display_name() {
        let c = json!({"name": "mcp_my_srv_do_it", "displayName": "do_it (my_srv MCP Server)"});
        assert_eq!(mcp_server(&c).as_deref(), Some("my_srv"));
        let c = json!({"name": "mcp_echo_echo"});
        assert_eq!(mcp_server(&c).as_deref(), Some("echo"));
        assert_eq!(mcp_server(&json!({"name": "read_file"})), None);
    }
}
