//! Fields of Claude Code's `system` lines that the design lists and that reached no output
//! (docs/conformance.md rows C10, C17 and C18): each now in the JSONL, and on the page where a
//! reader looks for it, on small stream-json inputs through the real binary.
//!
//! The shapes are the SDK's as `../shared/design/claude-code-adapter-notes.md` §2 lists them:
//! `init` with `output_style` and `apiKeySource`; `task_started {task_id, tool_use_id?,
//! description, task_type?, workflow_name?, prompt?}`; `task_progress {task_id, tool_use_id?,
//! description, usage, last_tool_name?, summary?}`; `task_notification {task_id, status,
//! output_file, summary}`; `files_persisted {files[], failed[], processed_at}`.

use serde_json::{Value, json};

use crate::util::{json_lines, scribe};

/// scribe's output in `args` over stream-json lines.
fn run(lines: &[Value], args: &[&str]) -> String {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = scribe()
        .args(["--from", "claude-stream"])
        .args(args)
        .write_stdin(input)
        .assert()
        .success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// The records of `--to jsonl`, with no debug record among them.
fn records(lines: &[Value]) -> Vec<Value> {
    let recs = json_lines(run(lines, &["--to", "jsonl"]).as_bytes());
    assert!(recs.iter().all(|r| r["kind"] != "debug"), "{recs:#?}");
    recs
}

/// C10: init's `output_style` and `apiKeySource` are on the session snapshot and among the
/// page's setup facts.
#[test]
fn init_output_style_and_api_key_source_reach_the_snapshot_and_the_page() {
    let init = json!({"type": "system", "subtype": "init", "uuid": "i1", "session_id": "s",
        "model": "m", "cwd": "/w", "tools": [], "permissionMode": "default",
        "output_style": "explanatory", "apiKeySource": "user"});
    let recs = records(std::slice::from_ref(&init));
    let session = recs.iter().find(|r| r["kind"] == "session").unwrap();
    assert_eq!(session["outputStyle"], "explanatory");
    assert_eq!(session["apiKeySource"], "user");
    let page = run(&[init], &["--to", "html"]);
    assert!(
        page.contains("<dt>output style</dt><dd>explanatory</dd>"),
        "{page}"
    );
    assert!(
        page.contains("<dt>API key source</dt><dd>user</dd>"),
        "{page}"
    );
}

/// C18: a `files_persisted` line's `processed_at` is on its notice and on the page.
#[test]
fn files_persisted_keeps_processed_at() {
    let init = json!({"type": "system", "subtype": "init", "uuid": "i1", "session_id": "s",
        "model": "m", "cwd": "/w", "tools": []});
    let saved = json!({"type": "system", "subtype": "files_persisted", "uuid": "f1",
        "session_id": "s", "files": [{"filename": "out.txt", "file_id": "file_1"}],
        "failed": [], "processed_at": "2026-01-06T10:00:05.000Z"});
    let prompt = json!({"type": "user", "session_id": "s",
        "message": {"role": "user", "content": "save it"}});
    let answer = json!({"type": "assistant", "session_id": "s",
        "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "saved"}]}});
    let lines = [init, prompt, saved, answer];
    let recs = records(&lines);
    let n = recs
        .iter()
        .find(|r| r["notice"]["kind"] == "files-persisted")
        .unwrap_or_else(|| panic!("{recs:#?}"));
    assert_eq!(n["notice"]["processedAt"], "2026-01-06T10:00:05.000Z");
    assert_eq!(n["notice"]["files"][0], "out.txt");
    let page = run(&lines, &["--to", "html"]);
    assert!(
        page.contains("processed at 2026-01-06T10:00:05.000Z"),
        "{page}"
    );
}

/// The task lines of one Agent call `t1` (or of no call, when `call` is `None`).
fn task_lines(call: Option<&str>) -> Vec<Value> {
    let mut started = json!({"type": "system", "subtype": "task_started", "task_id": "k1",
        "description": "count files", "task_type": "local_agent", "workflow_name": "nightly-audit",
        "session_id": "s"});
    let mut progress = json!({"type": "system", "subtype": "task_progress", "task_id": "k1",
        "description": "Reading src", "last_tool_name": "Grep", "summary": "Scanned 3 of 5 folders",
        "usage": {"total_tokens": 900, "tool_uses": 2, "duration_ms": 1500}, "session_id": "s"});
    let mut ended = json!({"type": "system", "subtype": "task_notification", "task_id": "k1",
        "status": "completed", "output_file": "/tmp/tasks/k1.output", "summary": "5 files",
        "session_id": "s"});
    if let Some(c) = call {
        for l in [&mut started, &mut progress, &mut ended] {
            l["tool_use_id"] = json!(c);
        }
    }
    vec![started, progress, ended]
}

/// C17: `task_type` and `workflow_name` (started), `last_tool_name` and `summary` (progress)
/// and `output_file` (notification) are on the Agent call's sub-agent record and on the page.
#[test]
fn task_fields_reach_the_sub_agent_record_and_the_page() {
    let mut lines = vec![
        json!({"type": "system", "subtype": "init", "uuid": "i1", "session_id": "s",
            "model": "m", "cwd": "/w", "tools": ["Task"]}),
        json!({"type": "user", "session_id": "s", "message": {"role": "user", "content": "count"}}),
        json!({"type": "assistant", "session_id": "s", "message": {"id": "m1", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Task",
                "input": {"description": "count files", "prompt": "count them"}}]}}),
    ];
    lines.extend(task_lines(Some("t1")));
    lines.push(
        json!({"type": "user", "session_id": "s", "message": {"role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "5 files"}]}}),
    );
    let recs = records(&lines);
    let sub = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .find_map(|p| (p["call"]["toolCallId"] == "t1").then(|| p["call"]["subagent"].clone()))
        .unwrap_or_else(|| panic!("{recs:#?}"));
    assert_eq!(sub["taskType"], "local_agent", "{sub:#}");
    assert_eq!(sub["workflowName"], "nightly-audit");
    assert_eq!(sub["lastToolName"], "Grep");
    assert_eq!(sub["progressSummary"], "Scanned 3 of 5 folders");
    assert_eq!(sub["outputFile"], "/tmp/tasks/k1.output");
    let page = run(&lines, &["--to", "html"]);
    for said in [
        "task type: local_agent",
        "workflow: nightly-audit",
        "last tool: Grep",
        "progress: Scanned 3 of 5 folders",
        "output file: /tmp/tasks/k1.output",
    ] {
        assert!(page.contains(said), "{said} not on the page");
    }
}

/// C17: a task no call owns is a notice, and carries the same fields.
#[test]
fn task_fields_reach_a_task_notice() {
    let mut lines = vec![json!({"type": "system", "subtype": "init", "uuid": "i1",
        "session_id": "s", "model": "m", "cwd": "/w", "tools": []})];
    lines.extend(task_lines(None));
    let recs = records(&lines);
    let notices: Vec<&Value> = recs
        .iter()
        .filter(|r| r["notice"]["kind"] == "task")
        .collect();
    let said = |k: &str| notices.iter().any(|n| n["notice"].get(k).is_some());
    for k in [
        "taskType",
        "workflowName",
        "lastToolName",
        "progressSummary",
        "outputFile",
    ] {
        assert!(said(k), "no task notice has {k}: {notices:#?}");
    }
}
