//! A replayed second result of a call (a user row with `isReplay: true` carrying a
//! `tool_result` for a call already answered): the call keeps its first result; a replay whose
//! output differs is shown, marked as a replay, in every view; one that repeats it is shown once.

use serde_json::{Value, json};

use crate::util::stdout_of;

/// The views that show everything, as `conservation_views` reads them.
const WHOLE_VIEWS: [&[&str]; 3] = [
    &["--to", "text", "--full", "--color", "never"],
    &["--to", "md", "--full"],
    &["--to", "html"],
];

/// A Claude stream: a Bash call answered `first`, then a replayed result `replayed` for it.
fn stream(first: &str, replayed: &str) -> String {
    let rows = [
        json!({"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i-1"}),
        json!({"type":"user","message":{"role":"user","content":"Run it."},"parent_tool_use_id":null,"session_id":"s1","uuid":"u-1"}),
        json!({"type":"assistant","message":{"id":"msg_A","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1","uuid":"a-1"}),
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":first,"is_error":false}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u-2"}),
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":replayed,"is_error":true}]},"isReplay":true,"parent_tool_use_id":null,"session_id":"s1","uuid":"u-3"}),
        json!({"type":"assistant","message":{"id":"msg_B","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1","uuid":"a-2"}),
    ];
    lines(&rows)
}

/// A saved session: a Bash call answered `first`, the model's answer, then a replayed result
/// `replayed` for the call (its turn is written by then) and one more answer.
fn session(first: &str, replayed: &str) -> String {
    let row = |uuid: &str, parent: Option<&str>, ty: &str, extra: Value| {
        let mut r = json!({"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/w", "sessionId": "5e55a0e1-0000-4000-8000-0000000000aa", "version": "2.1.9", "type": ty, "uuid": uuid, "timestamp": "2026-01-08T10:00:00.000Z"});
        r.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        r
    };
    let answer = |id: &str, text: &str| json!({"message": {"model": "m", "id": id, "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}}});
    let rows = [
        row(
            "q1",
            None,
            "user",
            json!({"message": {"role": "user", "content": "Run it."}}),
        ),
        row(
            "q2",
            Some("q1"),
            "assistant",
            json!({"message": {"model": "m", "id": "msg_q2", "type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_q1", "name": "Bash", "input": {"command": "make"}}], "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
        row(
            "q3",
            Some("q2"),
            "user",
            json!({"message": {"role": "user", "content": [{"tool_use_id": "toolu_q1", "type": "tool_result", "content": first, "is_error": false}]}}),
        ),
        row("q4", Some("q3"), "assistant", answer("msg_q4", "It ran.")),
        row(
            "q5",
            Some("q4"),
            "user",
            json!({"isReplay": true, "message": {"role": "user", "content": [{"tool_use_id": "toolu_q1", "type": "tool_result", "content": replayed, "is_error": true}]}}),
        ),
        row("q6", Some("q5"), "assistant", answer("msg_q6", "Done.")),
    ];
    lines(&rows)
}

fn lines(rows: &[Value]) -> String {
    rows.iter().map(|r| format!("{r}\n")).collect()
}

/// What a view shows of `input`, with the entities of Markdown and HTML read back.
fn view(input: &str, args: &[&str]) -> String {
    stdout_of(args, input.to_owned())
        .replace("&lt;", "<")
        .replace("&gt;", ">")
}

#[test]
fn a_replayed_result_that_differs_is_shown_as_a_replay_in_every_view() {
    for input in [
        stream(
            "build ok",
            "<tool_use_error>replayed answer</tool_use_error>",
        ),
        session(
            "build ok",
            "<tool_use_error>replayed answer</tool_use_error>",
        ),
    ] {
        for args in WHOLE_VIEWS {
            let out = view(&input, args);
            assert!(out.contains("build ok"), "{args:?}: {out}");
            assert!(
                out.contains("<tool_use_error>replayed answer</tool_use_error>"),
                "{args:?}: {out}"
            );
            // The page writes a notice as a sentence (its first letter capital).
            assert!(
                out.contains("replayed result for the finished call"),
                "{args:?}"
            );
        }
        // The call keeps its first result.
        let call = stdout_of(&["--to", "jsonl"], input.clone())
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["kind"] == "turn")
            .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
            .find_map(|p| p.get("call").cloned())
            .unwrap();
        assert_eq!(call["state"], "success");
        assert_eq!(call["output"], "build ok");
    }
}

#[test]
fn a_replayed_result_that_repeats_the_call_s_is_shown_once() {
    for input in [
        stream("build ok", "build ok"),
        session("build ok", "build ok"),
    ] {
        for args in WHOLE_VIEWS {
            let out = view(&input, args);
            assert_eq!(out.matches("build ok").count(), 1, "{args:?}: {out}");
            assert!(!out.contains("result for the finished call"), "{args:?}");
        }
    }
}

/// A Claude stream: two Bash calls of one message; the first fails, then a replayed row
/// carries a rejection of it while the second still runs (the turn is still held), then the
/// second's result; and a third call whose only result is a replayed rejection.
fn replayed_rejections() -> String {
    let rejected =
        "The user doesn't want to proceed with this tool use. The tool use was rejected.";
    let result = |id: &str, text: &str, replay: bool, uuid: &str| {
        let mut r = json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":text,"is_error":true}]},"parent_tool_use_id":null,"session_id":"s1","uuid":uuid});
        if replay {
            r["isReplay"] = json!(true);
        }
        r
    };
    let rows = [
        json!({"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i-1"}),
        json!({"type":"user","message":{"role":"user","content":"Run both."},"parent_tool_use_id":null,"session_id":"s1","uuid":"u-1"}),
        json!({"type":"assistant","message":{"id":"msg_A","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}},{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"make test"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1","uuid":"a-1"}),
        result("toolu_1", "make: *** No rule", false, "u-2"),
        result("toolu_1", rejected, true, "u-3"),
        result("toolu_2", "tests failed", false, "u-4"),
        result("toolu_2", rejected, true, "u-5"),
        json!({"type":"assistant","message":{"id":"msg_B","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_3","name":"Bash","input":{"command":"rm -rf build"}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1","uuid":"a-2"}),
        result("toolu_3", rejected, true, "u-6"),
    ];
    lines(&rows)
}

#[test]
fn a_replayed_rejection_leaves_a_finished_call_as_it_was() {
    let records: Vec<Value> = stdout_of(&["--to", "jsonl"], replayed_rejections())
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let calls: Vec<Value> = records
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p.get("call").cloned())
        .collect();
    let call = |id: &str| calls.iter().find(|c| c["toolCallId"] == id).unwrap();
    // Finished before the replay (its turn still held, then written): no denial is invented.
    for (id, output) in [
        ("toolu_1", "make: *** No rule"),
        ("toolu_2", "tests failed"),
    ] {
        assert_eq!(call(id)["state"], "error", "{id}: {calls:?}");
        assert_eq!(call(id)["output"], output, "{id}");
        assert!(call(id).get("denied").is_none(), "{id}: {:?}", call(id));
    }
    let denials: Vec<&Value> = records
        .iter()
        .filter(|r| r["notice"]["kind"] == "permission-denied")
        .collect();
    assert!(denials.is_empty(), "{denials:?}");
    // Each replay is still shown for what it is.
    let replays = records
        .iter()
        .filter(|r| {
            r["notice"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("a replayed result for the finished call"))
        })
        .count();
    assert_eq!(replays, 2, "{records:?}");
    // A call no result had answered: the replayed rejection is the input's only word on it.
    assert_eq!(call("toolu_3")["state"], "approval-denied", "{calls:?}");
}
