//! Claude Code 2.1's inline records: a sub-agent's messages written into the main session as
//! `agent_progress` rows, read as its transcript when its own file is not beside the session.

use std::path::Path;

use serde_json::{Value, json};

use crate::util::{fold_quiet as fold, scribe};

/// A session row with the fields every row of a 2.1 session has.
fn row(fields: Value) -> String {
    let mut base = json!({"sessionId": "sess-1", "isSidechain": false, "version": "2.1.23",
        "cwd": "/w", "timestamp": "2026-01-29T22:25:05.000Z"});
    if let (Some(b), Value::Object(f)) = (base.as_object_mut(), fields) {
        b.extend(f);
    }
    base.to_string()
}

/// A `progress` row carrying one message of sub-agent `ab12`, spawned by call `toolu_A`.
fn progress(uuid: &str, parent: &str, message: Value) -> String {
    row(
        json!({"type": "progress", "uuid": uuid, "parentUuid": parent,
        "toolUseID": "agent_msg_1", "parentToolUseID": "toolu_A",
        "data": {"type": "agent_progress", "agentId": "ab12", "prompt": "look",
                 "normalizedMessages": [], "message": message}}),
    )
}

/// A prompt, a Task call, four inline sub-agent messages, and (when `finished`) the call's
/// result naming the sub-agent.
fn session(finished: bool) -> String {
    let mut lines = vec![
        row(json!({"type": "user", "uuid": "u1", "parentUuid": null,
            "message": {"role": "user", "content": "find the bug"}})),
        row(
            json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1",
            "message": {"id": "m1", "role": "assistant", "model": "claude-opus-4-5",
                "content": [{"type": "tool_use", "id": "toolu_A", "name": "Task",
                    "input": {"description": "Find it", "prompt": "look",
                              "subagent_type": "Explore"}}]}}),
        ),
        progress(
            "p1",
            "a1",
            json!({"type": "user", "uuid": "s1",
            "message": {"role": "user", "content": [{"type": "text", "text": "look"}]}}),
        ),
        progress(
            "p2",
            "p1",
            json!({"type": "assistant", "uuid": "s2", "requestId": "r1",
            "message": {"id": "m2", "role": "assistant", "content": [{"type": "tool_use",
                "id": "toolu_R", "name": "Read", "input": {"file_path": "/w/a.rs"}}]}}),
        ),
        progress(
            "p3",
            "p2",
            json!({"type": "user", "uuid": "s3",
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_R", "content": "fn main() {}"}]}}),
        ),
        progress(
            "p4",
            "p3",
            json!({"type": "assistant", "uuid": "s4", "requestId": "r2",
            "message": {"id": "m3", "role": "assistant",
                "content": [{"type": "text", "text": "The bug is in main."}]}}),
        ),
    ];
    if finished {
        lines.push(row(
            json!({"type": "user", "uuid": "u2", "parentUuid": "p4",
            "toolUseResult": {"agentId": "ab12", "status": "completed"},
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_A", "content": "The bug is in main."}]}}),
        ));
    }
    lines.join("\n") + "\n"
}

/// The sub-agent record of call `toolu_A`.
fn subagent(recs: &[Value]) -> Value {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .find(|p| p["call"]["toolCallId"] == "toolu_A")
        .map(|p| p["call"]["subagent"].clone())
        .expect("the Task call has a sub-agent record")
}

/// The texts and call ids of a sub-agent transcript, in order.
fn contents(sub: &Value) -> Vec<String> {
    let turns = sub["transcript"].as_array().cloned().unwrap_or_default();
    turns
        .iter()
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .map(|p| match p["type"].as_str() {
            Some("tool-call") => p["call"]["toolCallId"].as_str().unwrap_or("").to_owned(),
            _ => p["text"].as_str().unwrap_or("").to_owned(),
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn inline_sub_agent_messages_are_its_transcript_when_its_file_is_absent() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sess-1.jsonl", &session(true));
    let out = scribe()
        .args(["--to", "jsonl"])
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("not found"),
        "no missing-file warning:\n{stderr}"
    );
    let recs = fold(&path);
    let sub = subagent(&recs);
    assert_eq!(sub["taskId"], "ab12");
    assert_eq!(sub["status"], "completed");
    assert_eq!(
        contents(&sub),
        ["look", "toolu_R", "The bug is in main."],
        "every inline message, in order, once"
    );
}

#[test]
fn inline_work_of_a_sub_agent_still_running_at_the_end_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sess-1.jsonl", &session(false));
    let sub = subagent(&fold(&path));
    assert_eq!(sub["status"], "running", "the last known state is kept");
    assert_eq!(contents(&sub), ["look", "toolu_R", "The bug is in main."]);
}

#[test]
fn the_sub_agent_file_wins_over_its_inline_copy() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sess-1.jsonl", &session(true));
    // The file: the complete transcript, with a message the inline rows do not carry.
    let file_row = |uuid: &str, parent: Value, message: Value| {
        row(
            json!({"type": if message["role"] == "user" { "user" } else { "assistant" },
            "uuid": uuid, "parentUuid": parent, "isSidechain": true, "agentId": "ab12",
            "message": message}),
        )
    };
    let agent = [
        file_row(
            "f1",
            Value::Null,
            json!({"role": "user", "content": "look"}),
        ),
        file_row(
            "f2",
            json!("f1"),
            json!({"id": "m9", "role": "assistant",
            "content": [{"type": "text", "text": "Only in the file."}]}),
        ),
        file_row(
            "f3",
            json!("f2"),
            json!({"id": "m3", "role": "assistant",
            "content": [{"type": "text", "text": "The bug is in main."}]}),
        ),
    ];
    write(
        dir.path(),
        "sess-1/subagents/agent-ab12.jsonl",
        &(agent.join("\n") + "\n"),
    );
    let sub = subagent(&fold(&path));
    assert_eq!(
        contents(&sub),
        ["look", "Only in the file.", "The bug is in main."],
        "the file's transcript, and the inline copy not added to it"
    );
}

/// `--stats` on a file; returns stderr.
fn stats(path: &Path) -> String {
    let out = scribe()
        .args(["--stats", "--to", "jsonl"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn stats_count_a_line_in_records_only_when_its_content_reached_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sess-1.jsonl", &session(true));
    // The inline rows are the sub-agent's transcript: their content is in records.
    let alone = stats(&path);
    let a = crate::stats::assert_balanced("inline sub-agent", &alone);
    assert_eq!((a.read, a.in_records, a.absorbed), (7, 7, 0), "{alone}");
    // With the sub-agent's file beside it, the inline copies are absorbed, named after where
    // their content is.
    let agent = row(json!({"type": "user", "uuid": "f1", "parentUuid": null,
        "isSidechain": true, "agentId": "ab12", "message": {"role": "user", "content": "look"}}));
    write(
        dir.path(),
        "sess-1/subagents/agent-ab12.jsonl",
        &(agent + "\n"),
    );
    let beside = stats(&path);
    let a = crate::stats::assert_balanced("inline sub-agent beside its file", &beside);
    assert_eq!((a.in_records, a.absorbed), (3, 4), "{beside}");
    assert!(
        beside.contains("absorbed lines by where they went: progress/agent_progress (in the sub-agent's transcript) 4"),
        "{beside}"
    );
}

/// A prompt, an answer in two rows with a queue-operation row between them, and what `extra`
/// adds after it.
fn busy_session(content: Value, extra: &[String]) -> String {
    let mut lines = vec![
        row(json!({"type": "user", "uuid": "u1", "parentUuid": null,
            "message": {"role": "user", "content": "refactor the parser"}})),
        row(
            json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1",
            "message": {"id": "m1", "role": "assistant",
                "content": [{"type": "text", "text": "Working on it."}]}}),
        ),
        json!({"type": "queue-operation", "operation": "enqueue", "sessionId": "sess-1",
            "timestamp": "2026-01-29T22:25:06.000Z", "content": content})
        .to_string(),
        json!({"type": "queue-operation", "operation": "remove", "sessionId": "sess-1",
            "timestamp": "2026-01-29T22:25:07.000Z"})
        .to_string(),
        row(
            json!({"type": "assistant", "uuid": "a2", "parentUuid": "a1",
            "message": {"id": "m2", "role": "assistant",
                "content": [{"type": "text", "text": "Done."}]}}),
        ),
    ];
    lines.extend(extra.iter().cloned());
    lines.join("\n") + "\n"
}

/// The user turns' (text, queued mark), in order.
fn user_turns(recs: &[Value]) -> Vec<(String, bool)> {
    recs.iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == "user")
        .map(|t| {
            let text = t["parts"][0]["text"].as_str().unwrap_or("").to_owned();
            (text, t["metadata"]["machinery"]["queued"] == true)
        })
        .collect()
}

#[test]
fn a_prompt_typed_while_the_agent_worked_is_a_queued_prompt_where_it_was_typed() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "s.jsonl",
        &busy_session(json!("also keep the old name"), &[]),
    );
    let recs = fold(&path);
    assert_eq!(
        user_turns(&recs),
        [
            ("refactor the parser".to_owned(), false),
            ("also keep the old name".to_owned(), true)
        ]
    );
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    let at = turns
        .iter()
        .position(|t| t["parts"][0]["text"] == "also keep the old name")
        .unwrap();
    assert_eq!(turns[at]["origin"]["kind"], "user-input");
    assert_eq!(turns[at - 1]["id"], "m1", "shown where it was typed");
    assert_eq!(turns[at + 1]["id"], "m2");
}

/// The user turns of a session where "also keep the old name" was queued, then `extra` came.
fn queued_then(extra: String) -> Vec<(String, bool)> {
    let dir = tempfile::tempdir().unwrap();
    let text = busy_session(json!("also keep the old name"), &[extra]);
    user_turns(&fold(&write(dir.path(), "s.jsonl", &text)))
}

#[test]
fn a_queued_prompt_that_an_attachment_delivers_is_shown_once() {
    let attachment = row(
        json!({"type": "attachment", "uuid": "q1", "parentUuid": "a2",
        "attachment": {"type": "queued_command", "prompt": "also keep the old name",
                       "commandMode": "prompt"}}),
    );
    let turns = queued_then(attachment);
    assert_eq!(turns[1..], [("also keep the old name".to_owned(), true)]);
}

#[test]
fn a_queued_prompt_sent_as_the_next_prompt_is_shown_once() {
    let next = row(json!({"type": "user", "uuid": "u2", "parentUuid": "a2",
        "message": {"role": "user", "content": "also keep the old name"}}));
    let turns = queued_then(next);
    assert_eq!(turns[1..], [("also keep the old name".to_owned(), false)]);
}

#[test]
fn a_queued_task_notification_is_a_notification() {
    let dir = tempfile::tempdir().unwrap();
    let content = json!({"type": "task-notification", "taskId": "b1", "status": "completed"});
    let path = write(
        dir.path(),
        "s.jsonl",
        &busy_session(Value::String(content.to_string()), &[]),
    );
    let recs = fold(&path);
    assert_eq!(
        user_turns(&recs),
        [("refactor the parser".to_owned(), false)]
    );
    assert!(
        recs.iter()
            .any(|r| r["kind"] == "notice"
                && r["notice"]["source"] == "queue-operation/notification"),
        "kept as a notification: {recs:?}"
    );
}
