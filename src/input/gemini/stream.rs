//! Google Gemini CLI `--output-format stream-json` → normalized events.
//!
//! Gemini's headless stream (`shared/spec/gemini-stream-json.md` §1) is flat: one `type` per
//! line, no message ids, no content blocks. This adapter supplies what the fold needs:
//!
//! * **Responses.** A model response is the run of assistant text chunks and `tool_use` lines
//!   between two boundaries (the prompt, a `tool_result`, an `error`, the `result`). Each gets a
//!   generated message id (`m1`, `m2`, … per input), so its parts fold into one assistant turn.
//! * **Text.** Assistant text arrives as many `delta:true` chunks. Each chunk is passed on as a
//!   `text-delta` (the live view) and gathered; the whole run becomes one `text` part when the
//!   run ends (a tool call, a boundary, the end of input), so text is never duplicated.
//! * **Tool calls.** `tool_use` opens a call (`running`), `tool_result` ends it (`success`, or
//!   `error` with `error.message` as the error text). MCP tools are named `mcp_<server>_<tool>`:
//!   they get caller `mcp` and the server (split at the first `_` after `mcp_`, so a server name
//!   with an underscore is cut short: the wire does not say where the server name ends).
//! * `init` → the session (agent `gemini-cli`; `model` is the requested alias, e.g. `auto`);
//!   `error` → a warning or error notice; `result` → the `result` notice with the token totals.
//!
//! What the stream does not carry: thoughts, the model that answered, a shell command's exit code
//! (a failing command is `status:"success"`; its output text is all there is).

use serde_json::{Map, Value, json};

use crate::input::fields::{self, info, opt_string, str_of};
use crate::input::tool_kind;
use crate::input::{Adapter, InputLine, Report, parse_json_line, push_debug};
use crate::model::details::Details;
use crate::model::event::{Event, EventKind};
use crate::model::session::{Level, SessionSnapshot, SystemNotice};
use crate::model::transcript::{Part, ToolCall, TurnMeta, TurnOrigin, Usage};

/// The agent name written in the session record.
const AGENT: &str = "gemini-cli";

/// Decoder state: the open response and its gathered text.
#[derive(Default)]
pub(crate) struct GeminiStream {
    /// How many responses (and user messages) were numbered so far.
    responses: u64,
    users: u64,
    /// `responses` when the last `result` arrived (a result counts the responses since).
    counted: u64,
    /// The open response's message id, if a response is open.
    open: Option<String>,
    /// How many parts the open response emitted (the index of its next part).
    parts: u64,
    /// Text gathered for the open response's next text part: (first line, timestamp, text).
    text: Option<(u64, Option<String>, String)>,
}

impl Adapter for GeminiStream {
    /// `--output-format json` (spec §2): one object written at exit, read as the stream lines
    /// it stands for (`init`, the answer as one assistant message, `warnings` as warning notices,
    /// the `result` with token totals summed over `stats.models`). It holds neither the prompt nor
    /// the tool calls. Any other value is decoded as a stream line.
    fn document(
        &mut self,
        values: Vec<crate::input::document::DocValue>,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        for crate::input::document::DocValue { line, value } in values {
            let lines = match value.as_object() {
                Some(o) if is_json_output(o) => json_output_lines(&value),
                _ => vec![value],
            };
            for v in lines {
                self.line(&InputLine::of_value(line, &v), out, report);
            }
        }
    }

    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        let Some(v) = parse_json_line(line, out, report) else {
            return;
        };
        let n = line.number;
        let ts = opt_string(&v, "timestamp");
        match str_of(&v, "type") {
            "init" => out.push(Event::at(n, EventKind::session(session_snapshot(&v)))),
            "message" if str_of(&v, "role") == "user" => {
                self.close(out);
                self.users += 1;
                out.push(Event::at(
                    n,
                    EventKind::user_text(
                        format!("u{}", self.users),
                        TurnOrigin::UserInput,
                        str_of(&v, "content").to_owned(),
                        ts,
                    ),
                ));
            }
            "message" if str_of(&v, "role") == "assistant" => {
                let id = self.response();
                let chunk = str_of(&v, "content").to_owned();
                out.push(Event::at(
                    n,
                    EventKind::TextDelta {
                        thread: None,
                        message_id: id,
                        index: self.parts,
                        text: chunk.clone(),
                    },
                ));
                self.text
                    .get_or_insert_with(|| (n, ts, String::new()))
                    .2
                    .push_str(&chunk);
            }
            "tool_use" => {
                self.flush_text(out);
                self.block(n, Part::tool_call(tool_call(&v)), ts, out);
            }
            "tool_result" => {
                self.close(out);
                out.push(Event::at(n, tool_result(&v)));
            }
            "error" => {
                self.close(out);
                let level = if str_of(&v, "severity") == "warning" {
                    Level::Warning
                } else {
                    Level::Error
                };
                let text = str_of(&v, "message").to_owned();
                out.push(Event::at(n, info("error", level, text, v.clone())));
            }
            "result" => {
                self.close(out);
                let turns = self.responses - self.counted;
                self.counted = self.responses;
                out.push(Event::at(n, EventKind::notice(result_notice(&v, turns))));
            }
            "message" => push_debug(
                out,
                line,
                &format!("message with unknown role {:?}", str_of(&v, "role")),
            ),
            other => push_debug(out, line, &format!("unknown type {other:?}")),
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>, _report: &mut Report<'_>) {
        self.close(out);
    }
}

impl GeminiStream {
    /// The open response's id, opening a new response if none is open.
    fn response(&mut self) -> String {
        if let Some(id) = &self.open {
            return id.clone();
        }
        self.responses += 1;
        self.parts = 0;
        let id = format!("m{}", self.responses);
        self.open = Some(id.clone());
        id
    }

    /// Emits the gathered text as one part of the open response.
    fn flush_text(&mut self, out: &mut Vec<Event>) {
        if let Some((line, timestamp, text)) = self.text.take() {
            self.block(line, Part::text(text), timestamp, out);
        }
    }

    /// Emits `part` as the next part of the open response (opened if none is).
    fn block(&mut self, line: u64, part: Part, timestamp: Option<String>, out: &mut Vec<Event>) {
        let message_id = self.response();
        self.parts += 1;
        out.push(Event::at(
            line,
            EventKind::AssistantBlock {
                thread: None,
                message_id,
                part,
                meta: TurnMeta::default(),
                timestamp,
            },
        ));
    }

    /// Ends the open response (a boundary line arrived, or the input ended).
    fn close(&mut self, out: &mut Vec<Event>) {
        self.flush_text(out);
        self.open = None;
    }
}

/// `init` → the session record.
fn session_snapshot(v: &Value) -> SessionSnapshot {
    let sid = str_of(v, "session_id").to_owned();
    SessionSnapshot {
        id: sid.clone(),
        session_id: sid,
        agent: AGENT.into(),
        source: "gemini-stream".into(),
        model: opt_string(v, "model"),
        // §14 `updatedAt`: the init line's time.
        updated_at: opt_string(v, "timestamp"),
        ..SessionSnapshot::default()
    }
}

/// `tool_use` → a running call, with MCP tools marked.
fn tool_call(v: &Value) -> ToolCall {
    let name = str_of(v, "tool_name").to_owned();
    let input = match v.get("parameters") {
        Some(p @ Value::Object(_)) => p.clone(),
        Some(Value::Null) | None => Value::Object(Map::new()),
        Some(other) => other.clone(),
    };
    let server = tool_kind::mcp_server_in(&name, "_").map(str::to_owned);
    super::tool_names::call(str_of(v, "tool_id").to_owned(), name, input, server)
}

/// `tool_result` → the call's end. An error keeps `error.message` as the text and the whole
/// `error` object (with its `type`) as the sidecar.
fn tool_result(v: &Value) -> EventKind {
    let is_error = str_of(v, "status") == "error";
    let output = v
        .get("output")
        .cloned()
        .unwrap_or_else(|| Value::String(String::new()));
    let error = v.get("error").filter(|e| !e.is_null());
    let error_text = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    EventKind::ToolResult {
        thread: None,
        tool_call_id: str_of(v, "tool_id").to_owned(),
        is_error,
        output,
        error_text: if is_error { error_text } else { None },
        sidecar: error.map(|e| Details::from(json!({ "error": e }))),
        facts: crate::model::transcript::ResultFacts::default(),
        server_run: false,
        replay: false,
        timestamp: opt_string(v, "timestamp"),
    }
}

/// True for Gemini's `--output-format json` document: `stats` with a `response` or an `error`,
/// and no `type` (spec §2).
pub(crate) fn is_json_output(o: &Map<String, Value>) -> bool {
    o.get("stats").is_some_and(Value::is_object)
        && (o.contains_key("response") || o.contains_key("error"))
        && !o.contains_key("type")
}

/// The stream-json lines a `--output-format json` document stands for.
fn json_output_lines(doc: &Value) -> Vec<Value> {
    let mut lines = Vec::new();
    if let Some(id) = doc.get("session_id") {
        lines.push(json!({"type": "init", "session_id": id}));
    }
    if let Some(text) = doc.get("response").and_then(Value::as_str) {
        lines.push(json!({"type": "message", "role": "assistant", "content": text}));
    }
    for w in fields::array(doc, "warnings") {
        let text = w.as_str().map_or_else(|| w.to_string(), str::to_owned);
        lines.push(json!({"type": "error", "severity": "warning", "message": text}));
    }
    let sum = |k: &str| -> u64 {
        doc.pointer("/stats/models")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|m| m.values())
            .filter_map(|m| m.pointer(&format!("/tokens/{k}")).and_then(Value::as_u64))
            .sum()
    };
    let mut result = json!({
        "type": "result",
        "status": if doc.get("error").is_some_and(|e| !e.is_null()) { "error" } else { "success" },
        "stats": {
            "total_tokens": sum("total"),
            "input_tokens": sum("prompt"),
            "output_tokens": sum("candidates"),
            "cached": sum("cached"),
            "input": sum("input"),
        },
    });
    if let Some(e) = doc.get("error").filter(|e| !e.is_null()) {
        result["error"] = e.clone();
    }
    lines.push(result);
    lines
}

/// `result` → the closing notice: status, error, duration, the model responses since the last
/// result (`turns`) and token totals (`input` is the uncached part of the input, `cached` the
/// cache reads, as Anthropic counts them).
pub(crate) fn result_notice(v: &Value, turns: u64) -> SystemNotice {
    let status = str_of(v, "status").to_owned();
    let stats = v.get("stats").unwrap_or(&Value::Null);
    let n = |k: &str| stats.get(k).and_then(Value::as_u64);
    let usage = stats.is_object().then(|| Usage {
        input_tokens: n("input").unwrap_or_else(|| {
            n("input_tokens")
                .unwrap_or(0)
                .saturating_sub(n("cached").unwrap_or(0))
        }),
        output_tokens: n("output_tokens").unwrap_or(0),
        cache_read_input_tokens: n("cached").unwrap_or(0),
        cache_creation_input_tokens: 0,
    });
    let error = v
        .pointer("/error/message")
        .and_then(Value::as_str)
        .map(str::to_owned);
    SystemNotice::Result {
        is_error: status != "success",
        subtype: status,
        cost: None,
        run_cost: None,
        turns: Some(turns),
        duration_ms: n("duration_ms"),
        duration_api_ms: None,
        usage,
        text: None,
        stop_reason: None,
        terminal_reason: v
            .pointer("/error/type")
            .and_then(Value::as_str)
            .map(str::to_owned),
        errors: error.into_iter().collect(),
        permission_denials: Vec::new(),
        structured_output: None,
        model_usage: None,
        fast_mode_state: None,
    }
}

/// True for a line only Gemini's stream-json writes: its `init` (a `session_id` and a `model`, no
/// `subtype`), a `message` / `tool_use` / `tool_result` line (types no other supported stream
/// uses at the top level), or its last line, `result` with a `status` (Claude Code's `result`
/// has a `subtype` and no `status`), so that a Gemini stream's lines are all its own and a
/// Claude stream's lines never count for it.
pub(crate) fn is_gemini_line(o: &Map<String, Value>) -> bool {
    match o.get("type").and_then(Value::as_str) {
        Some("init") => o.contains_key("session_id") && !o.contains_key("subtype"),
        Some("message") => o.contains_key("role") && o.contains_key("content"),
        Some("tool_use") => o.contains_key("tool_id") && o.contains_key("tool_name"),
        Some("tool_result") => o.contains_key("tool_id") && o.contains_key("status"),
        Some("result") => o.contains_key("status") && !o.contains_key("subtype"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Neither Gemini rule claims any JSON line of another agent's capture (Claude, Qwen, Codex:
    /// streams, saved sessions, SSE data). Skipped when the shared corpus is not beside the crate.
    #[test]
    fn no_other_corpus_line_looks_like_gemini() {
        let Some(root) = crate::test_files::shared_corpus() else {
            return;
        };
        let mut checked = 0;
        for (p, text) in crate::test_files::texts_under(root, |d| !d.ends_with("gemini-cli")) {
            for line in text.lines() {
                let line = line.strip_prefix("data:").unwrap_or(line).trim();
                let Ok(o) = serde_json::from_str::<Map<String, Value>>(line) else {
                    continue;
                };
                checked += 1;
                assert!(!is_gemini_line(&o), "{}: {line}", p.display());
                assert!(
                    !crate::input::gemini::session::is_header_object(&o),
                    "{}: {line}",
                    p.display()
                );
                assert!(
                    !crate::input::gemini::session::is_message_record(&o),
                    "{}: {line}",
                    p.display()
                );
            }
        }
        assert!(checked > 1000, "only {checked} lines checked");
    }

    #[test]
    fn first_lines() {
        let o = |s: &str| serde_json::from_str::<Map<String, Value>>(s).unwrap();
        assert!(is_gemini_line(&o(
            r#"{"type":"init","timestamp":"t","session_id":"s","model":"auto"}"#
        )));
        assert!(!is_gemini_line(&o(
            r#"{"type":"system","subtype":"init","session_id":"s"}"#
        )));
        assert!(!is_gemini_line(&o(
            r#"{"type":"init","subtype":"x","session_id":"s"}"#
        )));
        assert!(is_gemini_line(&o(
            r#"{"type":"result","timestamp":"t","status":"success","stats":{}}"#
        )));
        assert!(!is_gemini_line(&o(
            r#"{"type":"result","subtype":"success","is_error":false,"result":"hi"}"#
        )));
    }
}
