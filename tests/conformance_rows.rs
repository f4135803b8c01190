//! Rows of docs/conformance.md whose behaviour no other test noticed breaking: each test here
//! was written after the behaviour was broken once in the code and every test the row named
//! still passed. The inputs are built from the design's shapes and our own samples: Qwen
//! daemon envelopes `{id?, v, type, data}` as `tests/qwen_input_end.rs` frames them, Claude
//! stream-json lines as `samples/claude-stream/fold-subagent.jsonl` writes them.

use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{
    converted, json_lines, qwen_permission_request, run_jsonl, spawn_live, stdout_of,
};

/// One SSE frame of a daemon envelope; a synthetic frame (`id` none) has no `id:` line and no
/// id in its JSON.
fn frame(id: Option<u64>, ty: &str, data: Value) -> String {
    let mut envelope = json!({"v": 1, "type": ty, "data": data});
    match id {
        Some(n) => {
            envelope["id"] = json!(n);
            format!("event: {ty}\nid: {n}\ndata: {envelope}\n\n")
        }
        None => format!("event: {ty}\ndata: {envelope}\n\n"),
    }
}

/// A Qwen daemon stream `input`, saved in a temporary directory as a capture is (the
/// directory lives as long as the value).
struct QwenFile {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
}

/// `input` written to a file of its own.
fn qwen_file(input: &str) -> QwenFile {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.sse");
    std::fs::write(&path, input).unwrap();
    QwenFile { _dir: dir, path }
}

/// The JSONL records of `input` read as a Qwen daemon stream (from a file, as a capture is).
fn fold_qwen(input: &str) -> Vec<Value> {
    run_jsonl(&qwen_file(input).path, &["--from", "qwen-daemon"]).0
}

/// What scribe writes `--to <to>` (`jsonl`, `events`) for Claude stream-json `lines` on
/// standard input, one JSON value a line.
fn claude_lines(to: &str, lines: &[Value]) -> Vec<Value> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = stdout_of(&["--to", to, "--from", "claude-stream"], input);
    json_lines(out.as_bytes())
}

/// Every object in `v`, at any depth, whose `toolCallId` is `id` and which has a `state` (a
/// tool call, wherever a turn or a sub-agent's transcript holds it).
fn find_call<'a>(v: &'a Value, id: &str) -> Option<&'a Value> {
    if v["toolCallId"] == id && v.get("state").is_some() {
        return Some(v);
    }
    match v {
        Value::Array(a) => a.iter().find_map(|x| find_call(x, id)),
        Value::Object(o) => o.values().find_map(|x| find_call(x, id)),
        _ => None,
    }
}

/// The words of each `model_switched` notice in `recs`, in order.
fn switch_texts(recs: &[Value]) -> Vec<&str> {
    recs.iter()
        .filter(|r| r["notice"]["source"] == "model_switched")
        .map(|r| r["notice"]["text"].as_str().unwrap())
        .collect()
}

/// Q7: a synthetic frame (no event id) is folded where it arrives, each one, and moves no
/// cursor: two of them, then the first numbered frame, are three notices, none taken for a
/// replayed duplicate of another.
#[test]
fn frames_without_an_id_are_each_folded_and_move_no_cursor() {
    let switched = |model: &str| json!({"sessionId": "s", "modelId": model});
    let input = [
        frame(None, "model_switched", switched("m1")),
        frame(None, "model_switched", switched("m2")),
        frame(Some(1), "model_switched", switched("m3")),
    ]
    .concat();
    let recs = fold_qwen(&input);
    let texts = switch_texts(&recs);
    assert_eq!(
        texts,
        [
            "Model switched: m1",
            "Model switched: m2",
            "Model switched: m3"
        ],
        "{recs:#?}"
    );
}

/// A `model_switched` whose `modelId` is empty says the model switched and nothing more: no
/// label with an empty value after it (one without `modelId` is a malformed payload, a debug
/// record).
#[test]
fn a_model_switch_without_a_model_names_none() {
    let input = frame(
        Some(1),
        "model_switched",
        json!({"sessionId": "s", "modelId": ""}),
    );
    let recs = fold_qwen(&input);
    let texts = switch_texts(&recs);
    assert_eq!(texts, ["Model switched"], "{recs:#?}");
}

/// Q11 / Q37: `approval_mode_changed` is session state: the snapshot written after it names
/// the new mode.
#[test]
fn approval_mode_changed_is_the_sessions_permission_mode() {
    let input = [
        frame(
            Some(1),
            "approval_mode_changed",
            json!({"sessionId": "s", "previous": "default", "next": "yolo"}),
        ),
        frame(
            Some(2),
            "session_update",
            json!({"sessionId": "s", "update": {"sessionUpdate": "user_message_chunk",
                   "content": {"type": "text", "text": "hi"}}}),
        ),
    ]
    .concat();
    let recs = fold_qwen(&input);
    let session = recs
        .iter()
        .rfind(|r| r["kind"] == "session")
        .expect("a session snapshot");
    assert_eq!(session["permissionMode"], "yolo", "{recs:#?}");
}

/// Q41: `prompt_cancelled` ends the calls still in flight (the input says so), as errors that
/// say they were cancelled; a call the input leaves open without it stays running.
#[test]
fn a_cancelled_prompt_ends_its_calls_in_flight() {
    let shell = json!({
        "sessionId": "s",
        "update": {"sessionUpdate": "tool_call", "toolCallId": "c1", "status": "in_progress",
                   "kind": "execute", "title": "sleep 600", "rawInput": {"command": "sleep 600"},
                   "_meta": {"toolName": "run_shell_command"}}
    });
    let call = |with_cancel: bool| {
        let mut input = frame(Some(1), "session_update", shell.clone());
        if with_cancel {
            input.push_str(&frame(
                Some(2),
                "prompt_cancelled",
                json!({"sessionId": "s", "reason": "user"}),
            ));
        }
        let recs = fold_qwen(&input);
        find_call(&Value::Array(recs.clone()), "c1")
            .cloned()
            .unwrap_or_else(|| panic!("call c1: {recs:#?}"))
    };
    let cancelled = call(true);
    assert_eq!(cancelled["state"], "error", "{cancelled:#}");
    assert!(cancelled.to_string().contains("cancelled"), "{cancelled:#}");
    assert_eq!(call(false)["state"], "running");
}

/// C65 / C152 (§14 ingest step 3): `task_progress` pushes its description onto the run's
/// progress and updates its usage: seen on a run the input leaves running, where no
/// completion replaces them.
#[test]
fn task_progress_pushes_its_description_and_updates_usage() {
    let lines = [
        json!({"type": "assistant", "message": {"id": "msg_A", "type": "message",
               "role": "assistant", "model": "claude-sonnet-4-5",
               "content": [{"type": "tool_use", "id": "toolu_agent", "name": "Agent",
                            "input": {"description": "Survey the repo",
                                      "prompt": "Count the Rust files.",
                                      "subagent_type": "general-purpose"}}],
               "stop_reason": null}, "parent_tool_use_id": null, "session_id": "s"}),
        json!({"type": "system", "subtype": "task_started", "task_id": "task-a",
               "tool_use_id": "toolu_agent", "description": "Survey the repo",
               "subagent_type": "general-purpose", "uuid": "ts-1", "session_id": "s"}),
        json!({"type": "system", "subtype": "task_progress", "task_id": "task-a",
               "tool_use_id": "toolu_agent", "description": "Running find . -name '*.rs'",
               "usage": {"total_tokens": 900, "tool_uses": 1, "duration_ms": 40},
               "uuid": "tp-1", "session_id": "s"}),
    ];
    let recs = claude_lines("jsonl", &lines);
    let all = Value::Array(recs);
    let agent = find_call(&all, "toolu_agent").expect("the Agent call");
    let sub = &agent["subagent"];
    assert_eq!(sub["status"], "running", "{sub:#}");
    assert_eq!(sub["progress"], json!(["Running find . -name '*.rs'"]));
    assert_eq!(sub["usage"]["totalTokens"], 900, "{sub:#}");
    assert_eq!(sub["usage"]["toolUses"], 1);
}

/// C20: `tool_progress` is a `tool-progress` event (the live view's elapsed time), with its
/// call, tool and seconds.
#[test]
fn tool_progress_is_a_tool_progress_event() {
    let line = json!({"type": "tool_progress", "session_id": "s", "tool_use_id": "t1",
                      "tool_name": "Bash", "elapsed_time_seconds": 3});
    let events = claude_lines("events", &[line]);
    let progress = events
        .iter()
        .find(|e| e["event"] == "tool-progress")
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(progress["toolCallId"], "t1");
    assert_eq!(progress["toolName"], "Bash");
    assert_eq!(progress["elapsedSeconds"], 3.0);
}

/// C79: `result` is the turn-over: the turn before it is written when the result comes, even
/// with a call that never got its result, while the input is still open (not only at its end).
#[test]
fn a_result_writes_the_turn_before_it_while_the_input_is_open() {
    let (mut child, mut stdin, rx) = spawn_live(&["--to", "jsonl", "--from", "claude-stream"]);
    let lines = [
        json!({"type": "assistant", "message": {"id": "msg_A", "type": "message",
               "role": "assistant", "model": "claude-sonnet-4-5",
               "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                            "input": {"command": "ls"}}], "stop_reason": null},
               "parent_tool_use_id": null, "session_id": "s"}),
        json!({"type": "result", "subtype": "success", "is_error": false, "num_turns": 1,
               "result": "done", "session_id": "s", "uuid": "r-1"}),
    ];
    for l in &lines {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    let mut turn = false;
    while !turn && Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            turn = line.contains(r#""kind":"turn""#);
            seen.push(line);
        }
    }
    drop(stdin);
    child.wait().unwrap();
    assert!(turn, "no turn written before the input ended: {seen:#?}");
}

/// C172: §2's `tool_progress` names the sub-agent thread its call runs in
/// (`parent_tool_use_id`) and, for a background task, the task (`task_id`): the
/// `tool-progress` event keeps both beside the call, its tool and its seconds.
#[test]
fn a_tool_progress_keeps_its_thread_and_its_task() {
    let lines = [
        json!({"type": "tool_progress", "session_id": "s", "tool_use_id": "toolu_find",
               "tool_name": "Bash", "parent_tool_use_id": "toolu_agent",
               "elapsed_time_seconds": 3, "task_id": "task-a"}),
        json!({"type": "tool_progress", "session_id": "s", "tool_use_id": "toolu_ls",
               "tool_name": "Bash", "parent_tool_use_id": null, "elapsed_time_seconds": 1.5}),
    ];
    let events = claude_lines("events", &lines);
    let progress: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "tool-progress")
        .collect();
    assert_eq!(progress.len(), 2, "{events:#?}");
    assert_eq!(progress[0]["thread"], "toolu_agent");
    assert_eq!(progress[0]["taskId"], "task-a");
    assert_eq!(progress[0]["toolCallId"], "toolu_find");
    assert_eq!(progress[1]["thread"], Value::Null);
    assert!(progress[1].get("taskId").is_none(), "{:#}", progress[1]);
}

/// Q73: the daemon stamps each tool call with where it comes from (`_meta.provenance`, the
/// design's `DaemonUiToolProvenance`: `builtin`, `mcp` with its `serverId`, `subagent`): an
/// MCP call whose name does not say so is still the server's call, badged with the server
/// in every view; a built-in tool is the model's own call.
#[test]
fn a_tool_calls_provenance_names_its_mcp_server() {
    let call = |id: u64, call_id: &str, tool: &str, meta: Value| {
        frame(
            Some(id),
            "session_update",
            json!({"sessionId": "s", "update": {"sessionUpdate": "tool_call",
                   "toolCallId": call_id, "status": "in_progress", "title": tool,
                   "kind": "other", "rawInput": {"repo": "qwen-code", "title": "Bug"},
                   "_meta": meta}}),
        )
    };
    let done = |id: u64, call_id: &str| {
        frame(
            Some(id),
            "session_update",
            json!({"sessionId": "s", "update": {"sessionUpdate": "tool_call_update",
                   "toolCallId": call_id, "status": "completed",
                   "content": [{"type": "content",
                                "content": {"type": "text", "text": "issue #7"}}]}}),
        )
    };
    let input = [
        call(
            1,
            "m1",
            "create_issue",
            json!({"toolName": "create_issue", "provenance": "mcp", "serverId": "github"}),
        ),
        done(2, "m1"),
        call(
            3,
            "b1",
            "list_directory",
            json!({"toolName": "list_directory", "provenance": "builtin"}),
        ),
        done(4, "b1"),
    ]
    .concat();
    let all = Value::Array(fold_qwen(&input));
    let mcp = find_call(&all, "m1").expect("the MCP call");
    assert_eq!(mcp["caller"], "mcp", "{mcp:#}");
    assert_eq!(mcp["mcpServer"], "github");
    let builtin = find_call(&all, "b1").expect("the built-in call");
    assert_eq!(builtin["caller"], "model", "{builtin:#}");
    assert!(builtin.get("mcpServer").is_none());
    let file = qwen_file(&input);
    for to in ["text", "md", "html"] {
        let page = converted(&file.path, &["--to", to, "--color", "never"]);
        assert!(page.contains("github"), "--to {to}: {page}");
    }
}

/// Q55: updates after a call ended change nothing, also while the call's turn is still in the
/// fold (another call of the same message still runs). A late `tool_call_update` (a new title,
/// new output, `in_progress`) is stopped by the adapter, which knows the call ended; a late
/// `permission_request` about the call (the daemon's shape: the request repeats the call under
/// `toolCall`) reaches the fold, which moves no call backwards.
#[test]
fn updates_after_a_call_ended_change_nothing_while_its_turn_is_held() {
    let update = |id: u64, update: Value| {
        frame(
            Some(id),
            "session_update",
            json!({"sessionId": "s", "update": update}),
        )
    };
    let shell = |id: &str, command: &str| {
        json!({
            "sessionUpdate": "tool_call", "toolCallId": id, "status": "in_progress",
            "kind": "execute", "title": command, "rawInput": {"command": command},
            "_meta": {"toolName": "run_shell_command"}
        })
    };
    let status = |id: &str, status: &str, title: Option<&str>, text: &str| {
        let mut u = json!({
            "sessionUpdate": "tool_call_update", "toolCallId": id, "status": status,
            "content": [{"type": "content", "content": {"type": "text", "text": text}}]
        });
        if let Some(t) = title {
            u["title"] = json!(t);
        }
        u
    };
    let input = [
        update(1, shell("c1", "ls")),
        update(2, shell("c2", "make test")),
        update(3, status("c1", "completed", None, "a.txt")),
        update(
            4,
            status("c1", "in_progress", Some("LATE title"), "LATE output"),
        ),
        frame(
            Some(5),
            "permission_request",
            qwen_permission_request("c1", "ls"),
        ),
        update(6, status("c2", "completed", None, "ok")),
        frame(
            Some(7),
            "turn_complete",
            json!({"sessionId": "s", "stopReason": "end_turn"}),
        ),
    ]
    .concat();
    let recs = fold_qwen(&input);
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    let c1 = turns
        .iter()
        .find_map(|t| find_call(t, "c1"))
        .expect("the call c1");
    assert_eq!(c1["state"], "success", "{c1:#}");
    assert_eq!(c1["output"], "a.txt", "{c1:#}");
    assert_eq!(c1["sidecar"]["title"], "ls", "{c1:#}");
    assert_eq!(c1["sidecar"]["status"], "completed", "{c1:#}");
    assert!(
        !recs.iter().any(|r| r.to_string().contains("LATE")),
        "{recs:#?}"
    );
    // The late request is a notice of its own; the ended call's sidecar does not take it.
    assert!(c1["sidecar"].get("permission").is_none(), "{c1:#}");
    assert!(
        recs.iter().any(|r| r["kind"] == "notice"
            && r["notice"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("permission requested after the call ended"))),
        "{recs:#?}"
    );
    // Both calls are of one turn: c1's was held while c2 ran.
    let c2_turn = turns.iter().find(|t| find_call(t, "c2").is_some());
    let c1_turn = turns.iter().find(|t| find_call(t, "c1").is_some());
    assert_eq!(c1_turn.map(|t| &t["id"]), c2_turn.map(|t| &t["id"]));
}
