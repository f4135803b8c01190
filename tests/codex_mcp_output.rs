//! A Codex MCP call's output is what the model read: the `function_call_output` line after its
//! `mcp_tool_call_end` (`Wall time: N seconds`, `Output:`, the result as JSON text), in the
//! JSONL and in every view, on small rollouts through the real binary.
//!
//! The line shapes: `RolloutLine {timestamp, type, payload}`; `ResponseItem::FunctionCall
//! {name, namespace, arguments, call_id}` and `FunctionCallOutput {call_id, output}`
//! (`codex-rs/protocol/src/models.rs`); `EventMsg::McpToolCallEnd {call_id, invocation:
//! {server, tool, arguments}, duration, result: {Ok: CallToolResult}}`
//! (`codex-rs/protocol/src/protocol.rs`), the MCP `CallToolResult {content, structuredContent}`.
//! The output text is the shape of external2's `96/791b232a45` and `f5/90660a2345` rollouts
//! (Codex 0.12x): the structured content written compact, or the content blocks as JSON.

use serde_json::{Value, json};

use crate::util::{json_lines, scribe, scribe_jsonl};

/// A rollout of one turn with one MCP call `c1` whose server answered `blocks` and whose output
/// line the model read is `said`.
fn mcp_rollout(blocks: Value, structured: Value, said: &str) -> String {
    let args = json!({"pr_number": 13, "repo_full_name": "o/r"});
    let lines = [
        json!({"timestamp": "2026-04-24T00:19:30.000Z", "type": "session_meta", "payload": {"id": "s-1", "cwd": "/w", "cli_version": "0.124.0"}}),
        json!({"timestamp": "2026-04-24T00:19:30.001Z", "type": "turn_context", "payload": {"cwd": "/w", "model": "gpt-5.4"}}),
        json!({"timestamp": "2026-04-24T00:19:30.002Z", "type": "event_msg", "payload": {"type": "task_started"}}),
        json!({"timestamp": "2026-04-24T00:19:30.003Z", "type": "event_msg", "payload": {"type": "user_message", "message": "read PR 13", "kind": "plain"}}),
        json!({"timestamp": "2026-04-24T00:19:43.366Z", "type": "response_item", "payload": {"type": "function_call", "name": "_fetch_pr", "namespace": "mcp__codex_apps__github", "arguments": args.to_string(), "call_id": "c1"}}),
        json!({"timestamp": "2026-04-24T00:19:45.858Z", "type": "event_msg", "payload": {"type": "mcp_tool_call_end", "call_id": "c1",
            "invocation": {"server": "codex_apps", "tool": "github_fetch_pr", "arguments": args},
            "duration": {"secs": 2, "nanos": 485_310_625},
            "result": {"Ok": {"content": blocks, "structuredContent": structured}}}}),
        json!({"timestamp": "2026-04-24T00:19:45.866Z", "type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": said}}),
        json!({"timestamp": "2026-04-24T00:19:50.000Z", "type": "event_msg", "payload": {"type": "task_complete"}}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The call `c1` of a rollout's records.
fn call(recs: &[Value]) -> Value {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .find(|p| p["type"] == "tool-call" && p["call"]["toolCallId"] == "c1")
        .map(|p| p["call"].clone())
        .unwrap_or_else(|| panic!("no call c1: {recs:#?}"))
}

/// A view of a rollout.
fn view(input: &str, args: &[&str]) -> String {
    let out = scribe()
        .args(args)
        .write_stdin(input.to_owned())
        .assert()
        .success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// The structured content written compact after the header is the call's output, header and
/// all, in the JSONL and in every view that shows everything; the server's pretty copy of the
/// same JSON is not shown twice.
#[test]
fn an_mcp_output_line_is_what_the_call_shows() {
    let pr =
        json!({"pull_request": {"number": 13, "state": "open", "title": "compact transcripts"}});
    let pretty = serde_json::to_string_pretty(&pr).unwrap();
    let said = format!("Wall time: 2.4987 seconds\nOutput:\n{pr}");
    let input = mcp_rollout(json!([{"type": "text", "text": pretty}]), pr, &said);
    let out = scribe_jsonl().write_stdin(input.clone()).assert().success();
    let recs = json_lines(&out.get_output().stdout);
    assert!(recs.iter().all(|r| r["kind"] != "debug"), "{recs:#?}");
    let c = call(&recs);
    assert_eq!(c["output"], said, "{c:#}");
    assert_eq!(c["state"], "success");
    assert_eq!(c["facts"]["durationMs"], 2499, "the wall time stated");
    for args in [
        &["--to", "md", "--full"][..],
        &["--to", "text", "--full", "--color", "never"],
        &["--to", "html"],
    ] {
        let shown = view(&input, args);
        assert!(
            shown.contains("Wall time: 2.4987 seconds"),
            "{args:?}: {shown}"
        );
        assert_eq!(
            shown.matches("compact transcripts").count(),
            1,
            "{args:?}: {shown}"
        );
    }
}

/// The content blocks written as JSON after the header (no structured content) are held by
/// that text too; a block it does not hold (an image) stays, after the text.
#[test]
fn blocks_the_text_does_not_hold_stay_after_it() {
    let blocks = json!([{"type": "text", "text": "{\"ok\": true}"}]);
    let said = format!("Wall time: 0.5000 seconds\nOutput:\n{blocks}");
    let recs = json_lines(
        &scribe_jsonl()
            .write_stdin(mcp_rollout(blocks, Value::Null, &said))
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    assert_eq!(call(&recs)["output"], said);

    let image = json!([{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]);
    let said = "Wall time: 0.5000 seconds\nOutput:\n[image]";
    let recs = json_lines(
        &scribe_jsonl()
            .write_stdin(mcp_rollout(image.clone(), Value::Null, said))
            .assert()
            .success()
            .get_output()
            .stdout,
    );
    let out = call(&recs)["output"].clone();
    assert_eq!(out[0]["text"], said, "{out:#}");
    assert_eq!(out[1]["type"], "image", "{out:#}");
}
