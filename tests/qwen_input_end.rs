//! The end of a Qwen daemon stream invents nothing: calls still open keep the state they were
//! last in (waiting for approval, running, a sub-agent at work), with no error, no daemon status
//! and no sub-agent failure made up, and one notice says where the input ended. The frames are
//! the daemon's SSE envelopes as the corpus's `qwen-daemon/perm` and `qwen-daemon/sub` captures
//! record them (`tool_call` / `tool_call_update` with `_meta.toolName`, a `permission_request`
//! whose `toolCall` repeats the call, a sub-agent's frames under `_meta.parentToolCallId`).

use serde_json::{Value, json};

use crate::util::{json_lines, qwen_permission_request, stdout_of};

/// One SSE frame: `event:`, `id:` and the envelope as its `data:`.
fn frame(id: u64, ty: &str, data: Value) -> String {
    let envelope = json!({"id": id, "v": 1, "type": ty, "data": data});
    format!("event: {ty}\nid: {id}\ndata: {envelope}\n\n")
}

/// A `session_update` frame carrying `update`.
fn update(id: u64, update: Value) -> String {
    frame(
        id,
        "session_update",
        json!({"sessionId": "s", "update": update}),
    )
}

/// A stream cut while a shell call waits for approval, another shell call runs, and a
/// sub-agent is at work (its own call finished, its Agent call open).
fn cut_stream() -> String {
    let shell = |id: &str, status: &str, command: &str| {
        json!({
            "sessionUpdate": "tool_call", "toolCallId": id, "status": status,
            "kind": "execute", "title": command, "rawInput": {"command": command},
            "_meta": {"toolName": "run_shell_command"}
        })
    };
    [
        update(1, shell("c1", "pending", "rm -rf build")),
        frame(
            2,
            "permission_request",
            qwen_permission_request("c1", "rm -rf build"),
        ),
        update(3, shell("c2", "in_progress", "sleep 600")),
        update(
            4,
            json!({
                "sessionUpdate": "tool_call", "toolCallId": "a1", "status": "in_progress",
                "kind": "other", "title": "Agent: Inspect workspace",
                "rawInput": {"description": "Inspect workspace", "prompt": "List the files.",
                             "subagent_type": "general-purpose", "run_in_background": false},
                "_meta": {"toolName": "agent"}
            }),
        ),
        update(
            5,
            json!({
                "sessionUpdate": "tool_call", "toolCallId": "a1-ls", "status": "completed",
                "kind": "read", "title": "ls", "rawInput": {"path": "."},
                "content": [{"type": "content", "content": {"type": "text", "text": "a.txt"}}],
                "_meta": {"toolName": "list_directory", "parentToolCallId": "a1"}
            }),
        ),
    ]
    .concat()
}

/// `cut_stream()` converted with `args`.
fn convert(args: &[&str]) -> String {
    let args = [args, &["--from", "qwen-daemon", "-"]].concat();
    stdout_of(&args, cut_stream())
}

/// Every tool call of the transcript, sub-agents' included.
fn calls(recs: &[Value]) -> Vec<Value> {
    fn walk(turns: &[Value], out: &mut Vec<Value>) {
        for p in turns
            .iter()
            .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        {
            if p["type"] == "tool-call" {
                out.push(p["call"].clone());
                if let Some(sub) = p["call"]["subagent"]["transcript"].as_array() {
                    walk(sub, out);
                }
            }
        }
    }
    let turns: Vec<Value> = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .cloned()
        .collect();
    let mut out = Vec::new();
    walk(&turns, &mut out);
    out
}

#[test]
fn open_calls_keep_their_last_state_when_the_input_ends() {
    let recs = json_lines(convert(&["--to", "jsonl"]).as_bytes());
    let all = calls(&recs);
    let call = |id: &str| {
        all.iter()
            .find(|c| c["toolCallId"] == id)
            .unwrap_or_else(|| panic!("no call {id}: {all:?}"))
    };
    assert_eq!(call("c1")["state"], "approval-pending");
    assert_eq!(call("c2")["state"], "running");
    assert_eq!(call("a1")["state"], "running");
    assert_eq!(call("a1")["subagent"]["status"], "running");
    assert_eq!(call("a1-ls")["state"], "success");
    for id in ["c1", "c2", "a1"] {
        let c = call(id);
        assert!(c.get("errorText").is_none(), "{id}: {c}");
        assert_ne!(c["sidecar"]["status"], "failed", "{id}: {c}");
    }
    let incomplete: Vec<&Value> = recs
        .iter()
        .filter(|r| r["notice"]["source"] == "incomplete")
        .collect();
    assert_eq!(incomplete.len(), 1, "{recs:?}");
    assert_eq!(
        incomplete[0]["notice"]["text"],
        "incomplete: the input ends while 3 tool calls are open (1 waiting for approval, 2 \
         running)"
    );
}

#[test]
fn text_and_markdown_word_waiting_and_running_apart() {
    let text = convert(&["--to", "text", "--color", "never"]);
    assert!(text.contains("(waiting for approval)"), "{text}");
    assert!(text.contains("(running, no result)"), "{text}");
    assert!(text.contains("general-purpose · running"), "{text}");
    assert!(text.contains("(no result yet)"), "{text}");
    assert!(!text.contains("Error"), "{text}");
    assert!(!text.contains("failed"), "{text}");
    let md = convert(&["--to", "md"]);
    assert!(
        md.contains("run_shell_command(rm -rf build) · waiting for approval</summary>"),
        "{md}"
    );
    assert!(
        md.contains("run_shell_command(sleep 600) · running, no result</summary>"),
        "{md}"
    );
    assert!(!md.contains("failed"), "{md}");
}

/// A status the tool lifecycle does not name (`pending → in_progress → completed | failed`)
/// means the call is in progress: `running`, neither still `pending` nor finished, the word
/// kept in its sidecar.
#[test]
fn an_unknown_tool_status_means_in_progress() {
    let call = json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "status": "pending",
                      "kind": "execute", "title": "ls", "rawInput": {"command": "ls"}});
    let input = [
        update(1, call),
        update(
            2,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "queued_2"}),
        ),
    ]
    .concat();
    let out = stdout_of(&["--to", "jsonl", "--from", "qwen-daemon", "-"], input);
    let recs = json_lines(out.as_bytes());
    let c = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        .map(|p| &p["call"])
        .find(|c| c["toolCallId"] == "c1")
        .expect("the call");
    assert_eq!(c["state"], "running", "{c}");
    assert_eq!(c["sidecar"]["status"], "queued_2", "{c}");
}
