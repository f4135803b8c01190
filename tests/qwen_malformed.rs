//! Malformed Qwen daemon payloads: a `session_update` whose content, tool call or plan entries
//! are missing or of the wrong type is a `debug` record keeping its line (never absorbed, never
//! folded as an empty message, call or plan), and no page draws such a payload, even with
//! `--debug` (the rule of Qwen's own conformance vector `malformed-payload-redaction`). The
//! well-formed shapes are ACP's `SessionUpdate` as the daemon sends it (a chunk's `content` is
//! `{type: "text", text}`, a plan's `entries` are `{content, priority, status}`), as in the
//! corpus's `qwen-daemon` captures.

use serde_json::{Value, json};

use crate::util::{json_lines, stdout_of};

/// A `session_update` SSE frame carrying `update`.
fn update(id: u64, update: Value) -> String {
    let envelope = json!({"id": id, "v": 1, "type": "session_update",
                          "data": {"sessionId": "s", "update": update}});
    format!("event: session_update\nid: {id}\ndata: {envelope}\n\n")
}

/// One well-formed chunk, then seven malformed payloads, each carrying a marker (`leak-N`)
/// that no page may show.
fn stream() -> String {
    let chunk = |kind: &str, content: Value| json!({"sessionUpdate": kind, "content": content});
    [
        update(
            1,
            chunk(
                "user_message_chunk",
                json!({"type": "text", "text": "hello"}),
            ),
        ),
        update(
            2,
            json!({"sessionUpdate": "agent_message_chunk", "leak": "leak-1"}),
        ),
        update(
            3,
            chunk(
                "agent_message_chunk",
                json!({"type": "text", "text": ["leak-2"]}),
            ),
        ),
        update(4, chunk("user_message_chunk", json!("leak-3"))),
        update(5, json!({"sessionUpdate": "plan", "leak": "leak-4"})),
        update(
            6,
            json!({"sessionUpdate": "plan",
                   "entries": [{"content": {"leak": "leak-5"}, "status": "pending"}]}),
        ),
        update(
            7,
            json!({"sessionUpdate": "tool_call", "status": "pending", "title": "leak-6"}),
        ),
        update(
            8,
            json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "status": "completed",
                   "title": "ls", "content": "leak-7"}),
        ),
    ]
    .concat()
}

/// `stream()` converted with `args`.
fn convert(args: &[&str]) -> String {
    let args = [args, &["--from", "qwen-daemon", "-"]].concat();
    stdout_of(&args, stream())
}

#[test]
fn malformed_session_updates_are_debug_records_keeping_their_line() {
    let recs = json_lines(convert(&["--to", "jsonl"]).as_bytes());
    let debug: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    let lines: Vec<u64> = debug.iter().map(|d| d["line"].as_u64().unwrap()).collect();
    // Each frame is four lines (event, id, data, blank) and is named by its first: frame N's
    // is line 4N - 3.
    assert_eq!(lines, [5, 9, 13, 17, 21, 25, 29], "{debug:?}");
    for (n, d) in debug.iter().enumerate() {
        let marker = format!("leak-{}", n + 1);
        assert!(d["raw"].as_str().unwrap().contains(&marker), "{d}");
        assert_eq!(d["malformed"], true, "{d}");
        assert!(
            d["reason"]
                .as_str()
                .unwrap()
                .starts_with("malformed session_update/"),
            "{d}"
        );
    }
    // Nothing of them was folded: the one turn is the well-formed prompt.
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert_eq!(turns.len(), 1, "{turns:?}");
    assert_eq!(turns[0]["parts"][0]["text"], "hello");
}

#[test]
fn no_view_draws_a_malformed_payload_even_with_debug() {
    for to in ["html", "md", "text"] {
        let page = convert(&["--to", to, "--debug"]);
        assert!(page.contains("not understood"), "--to {to}: {page}");
        for n in 1..=7 {
            assert!(!page.contains(&format!("leak-{n}")), "--to {to}: leak-{n}");
        }
    }
}

/// The upstream vector itself, with `--debug` (its `includeRawEvent`): its forbidden phrase is
/// on no page, and the records keep it.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn the_upstream_vector_leaks_nothing_with_debug() {
    let dir = crate::util::corpus();
    let path = dir.join("qwen-daemon/upstream/conformance-malformed-payload-redaction.jsonl");
    let vector = std::fs::read_to_string(path).expect("the vector is in the corpus");
    let forbidden = "must-not-leak-malformed-payload";
    for to in ["html", "md", "text"] {
        let page = stdout_of(&["--to", to, "--debug"], vector.clone());
        assert!(page.contains("not understood"), "--to {to}: {page}");
        assert!(!page.contains(forbidden), "--to {to} --debug: {page}");
    }
    assert!(stdout_of(&["--to", "jsonl"], vector).contains(forbidden));
}

/// A `turn_complete` without its `stopReason` (the field the daemon's event list gives every
/// turn end, and the only one saying how the turn ended) is a malformed payload: a `debug`
/// record keeping its line, not a `success` result the input never stated.
#[test]
fn a_turn_end_without_its_stop_reason_states_no_outcome() {
    turn_end_states_no_outcome(json!({"sessionId": "s"}));
}

/// A `stopReason` that is not a string (a number, an object) says no more than a missing one.
#[test]
fn a_turn_end_whose_stop_reason_is_not_words_states_no_outcome() {
    turn_end_states_no_outcome(json!({"sessionId": "s", "stopReason": 7}));
    turn_end_states_no_outcome(json!({"sessionId": "s", "stopReason": {"why": "end_turn"}}));
}

/// A prompt, then a `turn_complete` with `data`: no result notice, one malformed `debug` record.
fn turn_end_states_no_outcome(data: Value) {
    let prompt = update(
        1,
        json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}}),
    );
    let end = json!({"id": 2, "v": 1, "type": "turn_complete", "data": data});
    let input = format!("{prompt}event: turn_complete\nid: 2\ndata: {end}\n\n");
    let out = stdout_of(&["--to", "jsonl", "--from", "qwen-daemon", "-"], input);
    let recs = json_lines(out.as_bytes());
    assert!(
        recs.iter().all(|r| r["notice"]["kind"] != "result"),
        "no outcome is made up: {out}"
    );
    let debug: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    assert_eq!(debug.len(), 1, "{out}");
    assert_eq!(debug[0]["malformed"], true, "{out}");
    assert!(debug[0]["raw"].as_str().unwrap().contains("turn_complete"));
}
