//! Claude Code's `<task-notification>` user message (issue 15 point 8): the harness's word that a
//! background task ended is context on the call it reports, not a turn of its own, and a stream
//! that also sends the system `task_notification` ends the task once.

use serde_json::Value;

use crate::claude_content::render;

/// The `--to jsonl` records of a sample.
fn jsonl(name: &str) -> Vec<Value> {
    render(name, &["--to", "jsonl"])
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The task notices of a sample's transcript: (task id, status, summary, result).
fn task_notices(name: &str) -> Vec<(String, String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    jsonl(name)
        .iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["kind"] == "task")
        .map(|r| {
            let n = &r["notice"];
            (
                s(&n["taskId"]),
                s(&n["status"]),
                s(&n["summary"]),
                s(&n["result"]),
            )
        })
        .collect()
}

/// The user turns that are notifications, by their text.
fn notification_turns(name: &str) -> Vec<String> {
    jsonl(name)
        .iter()
        .filter(|r| r["kind"] == "turn" && r["origin"]["kind"] == "notification")
        .map(|r| {
            r["parts"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

// A saved session has no system task events: the message naming a call of the input is that
// call's task end, its `<result>` (the agent's report) kept and shown in every view; one naming
// no call of the input stays its own notification turn.
#[test]
fn a_saved_sessions_task_notification_ends_the_task_of_its_call() {
    let name = "claude-session/task-notification.jsonl";
    assert_eq!(
        task_notices(name),
        [
            (
                "b7x".into(),
                "completed".into(),
                "Background command \"npm test\" completed (exit code 0)".into(),
                String::new()
            ),
            (
                "a1f0".into(),
                "completed".into(),
                "Agent \"Count TODOs\" completed".into(),
                "Found 3 TODO comments:\n- src/main.rs: 2\n- src/lib.rs: 1".into()
            ),
        ]
    );
    assert_eq!(
        notification_turns(name),
        ["Background command \"make docs\" failed with exit code 2"]
    );
    for to in ["text", "md", "html"] {
        let out = render(name, &["--to", to, "--color", "never"]);
        for want in [
            "Count TODOs",
            "src/main.rs: 2",
            "src/lib.rs: 1",
            "npm test",
            "make docs",
        ] {
            assert!(out.contains(want), "--to {to} lacks {want:?}:\n{out}");
        }
        assert!(
            !out.contains("sub-agent without its Agent call"),
            "--to {to}:\n{out}"
        );
    }
}

// A stream sends both the system `task_notification` and the message: whichever comes first
// ends the task, the other is a trace record (kept in JSONL, hidden as a repeat), never a second
// end and never an unexplained line.
#[test]
fn a_stream_ends_each_task_once_from_its_event_or_its_message() {
    let name = "claude-stream/task-notification-both.jsonl";
    let events = render(name, &["--to", "events"]);
    let ends: Vec<Value> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .filter(|e| e["event"] == "subtask-finished")
        .collect();
    let ids: Vec<&str> = ends.iter().map(|e| e["taskId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["b7x", "a1f0"], "{events}");
    // The system event came first for b7x; the message came first for a1f0 and brings its report.
    assert_eq!(ends[0]["line"], 9);
    assert_eq!(ends[1]["line"], 11);
    assert_eq!(ends[1]["result"], "Found 3 TODO comments in src/main.rs.");
    let traces = events
        .lines()
        .filter(|l| l.contains("already ended"))
        .count();
    assert_eq!(traces, 2, "{events}");
    assert!(notification_turns(name).is_empty());
    let text = render(name, &["--to", "text", "--color", "never"]);
    assert!(!text.contains("not understood"), "{text}");
    assert!(
        text.contains("Found 3 TODO comments in src/main.rs."),
        "{text}"
    );
}

// The message on its own names no call of the input: it stays the notification turn it was.
#[test]
fn a_task_notification_for_no_call_in_the_input_stays_a_turn() {
    let name = "claude-stream/classify-task-notification.jsonl";
    assert_eq!(
        notification_turns(name),
        ["Background command \"npm test\" completed (exit code 0)"]
    );
    assert!(task_notices(name).is_empty());
}
