//! Values outside the design's closed unions (§14's `Part` types, `SystemNotice` kinds and
//! `result` subtypes) reach every view through its escape hatches: a content block of a type
//! nobody here knows is a `data` part, a `system` subtype nobody knows an `info` notice naming
//! it, a result subtype nobody knows is named as it came. Never dropped, never drawn as
//! something known, and `--stats` counts their lines as in records, none as debug.
//!
//! The inputs are the shapes the agents' own types allow with a value nobody has seen: Claude's
//! `message.content` blocks are a union the API widens, its `system` messages carry an open
//! `subtype`, and a `result` carries `subtype` beside `is_error`.

use serde_json::{Value, json};

use crate::util::{json_lines, scribe};

/// A Claude stream-json run: `init`, a prompt and an answer each carrying a block of a type
/// nobody knows, then `extra` (lines of the case under test).
fn stream(extra: &[Value]) -> String {
    stream_from(
        json!({"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-6","cwd":"/w","tools":[],"mcp_servers":[],"permissionMode":"default","uuid":"u0"}),
        extra,
    )
}

/// The same run from Qwen Code's stream-json (`qwen -p --output-format stream-json`), which
/// sends Claude's message shapes; its `init` names the Qwen Code version.
fn qwen_stream(extra: &[Value]) -> String {
    stream_from(
        json!({"type":"system","subtype":"init","uuid":"u0","session_id":"s1","cwd":"/w","tools":[],"mcp_servers":[],"model":"m","permission_mode":"yolo","slash_commands":[],"qwen_code_version":"0.24.4","agents":[]}),
        extra,
    )
}

/// `init`, the prompt and the answer, then `extra`, as lines.
fn stream_from(init: Value, extra: &[Value]) -> String {
    let mut lines = vec![
        init,
        json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi there"},{"type":"brand_new_user_block","payload":7}]},"session_id":"s1","parent_tool_use_id":null,"uuid":"u1"}),
        json!({"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"hello"},{"type":"brand_new_block","payload":42}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"session_id":"s1","parent_tool_use_id":null,"uuid":"u2"}),
    ];
    lines.extend_from_slice(extra);
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The same conversation as a saved session (`~/.claude/projects/…/<id>.jsonl`), then a
/// `system` row of subtype `subtype` whose other fields are `fields`.
fn saved(subtype: &str, fields: Value) -> String {
    let row = |extra: Value| {
        let mut r = json!({"sessionId":"s1","cwd":"/w","version":"2.1.0","isSidechain":false,"userType":"external"});
        for (k, v) in extra.as_object().expect("an object") {
            r[k] = v.clone();
        }
        format!("{r}\n")
    };
    let mut system = json!({"type":"system","subtype":subtype,"uuid":"a3","parentUuid":"a2","timestamp":"2026-01-01T00:00:02Z"});
    for (k, v) in fields.as_object().expect("an object") {
        system[k] = v.clone();
    }
    [
        row(
            json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi there"},{"type":"brand_new_user_block","payload":7}]},"uuid":"a1","parentUuid":null,"timestamp":"2026-01-01T00:00:00Z"}),
        ),
        row(
            json!({"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"hello"},{"type":"brand_new_block","payload":42}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}},"uuid":"a2","parentUuid":"a1","timestamp":"2026-01-01T00:00:01Z","requestId":"r1"}),
        ),
        row(system),
    ]
    .concat()
}

/// scribe's output for `input` on stdin with `args`, and its stderr; asserts exit 0.
fn run(input: &str, args: &[&str]) -> (String, String) {
    let out = scribe()
        .args(args)
        .write_stdin(input.to_owned())
        .output()
        .expect("scribe runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    (
        String::from_utf8(out.stdout).expect("UTF-8"),
        String::from_utf8(out.stderr).expect("UTF-8"),
    )
}

/// The records of `--to jsonl`.
fn records(input: &str) -> Vec<Value> {
    json_lines(run(input, &["--to", "jsonl"]).0.as_bytes())
}

/// The one notice of kind `kind` in `records`.
fn notice<'a>(records: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = records
        .iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["kind"] == kind)
        .map(|r| &r["notice"])
        .collect();
    assert_eq!(found.len(), 1, "one {kind} notice: {records:?}");
    found[0]
}

/// Asserts that `--stats` puts every line of `input` in a record: none in a debug record, none
/// unaccounted.
fn all_lines_in_records(input: &str) {
    let lines = input.lines().count();
    let (_, stderr) = run(input, &["--stats"]);
    let want = format!("{lines} lines read = {lines} in records + 0 absorbed + 0 in debug records");
    assert!(stderr.contains(&want), "want {want:?} in:\n{stderr}");
    assert!(
        stderr.contains("debug records by raw kind: none"),
        "{stderr}"
    );
}

/// Asserts each of the human-readable views of `input` contains its expected text.
fn views_show(input: &str, text: &str, markdown: &str, html: &str) {
    for (to, want) in [("text", text), ("md", markdown), ("html", html)] {
        let (out, _) = run(input, &["--to", to]);
        assert!(out.contains(want), "--to {to}: want {want:?} in:\n{out}");
    }
}

#[test]
fn blocks_of_unknown_types_are_data_parts_in_every_view() {
    for input in [
        stream(&[]),
        qwen_stream(&[]),
        saved("turn_duration", json!({"durationMs": 5})),
    ] {
        let recs = records(&input);
        let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
        assert_eq!(turns.len(), 2, "{recs:?}");
        for (turn, name, payload) in [
            (turns[0], "brand_new_user_block", 7),
            (turns[1], "brand_new_block", 42),
        ] {
            assert_eq!(
                turn["parts"][1],
                json!({"type":"data","name":name,"data":{"type":name,"payload":payload}}),
                "kept whole as a data part: {turn}"
            );
        }
        let (events, _) = run(&input, &["--to", "events"]);
        let parts: Vec<Value> = json_lines(events.as_bytes())
            .into_iter()
            .flat_map(|e| {
                let mut p = e["turn"]["parts"].as_array().cloned().unwrap_or_default();
                p.push(e["part"].clone());
                p
            })
            .filter(|p| p["type"] == "data")
            .collect();
        assert_eq!(
            parts.len(),
            2,
            "both blocks are data parts in events:\n{events}"
        );
        views_show(
            &input,
            "[data: brand_new_block]",
            r"*\[data: brand\_new\_block\]*",
            r#"<details class="data"><summary>brand_new_block</summary>"#,
        );
        views_show(
            &input,
            "[data: brand_new_user_block]",
            r"*\[data: brand\_new\_user\_block\]*",
            "<summary>brand_new_user_block</summary>",
        );
        all_lines_in_records(&input);
    }
}

#[test]
fn a_system_subtype_nobody_knows_is_a_notice_naming_it_in_every_view() {
    let unknown = json!({"type":"system","subtype":"brand_new_subtype","session_id":"s1","uuid":"u3","hello":1});
    for input in [
        stream(std::slice::from_ref(&unknown)),
        qwen_stream(std::slice::from_ref(&unknown)),
        saved("brand_new_subtype", json!({"hello": 1})),
    ] {
        let recs = records(&input);
        assert!(recs.iter().all(|r| r["kind"] != "debug"), "{recs:?}");
        let n = notice(&recs, "info");
        assert_eq!(n["source"], "brand_new_subtype", "{n}");
        assert_eq!(n["level"], "info", "{n}");
        assert_eq!(n["data"]["hello"], 1, "the payload kept: {n}");
        let (events, _) = run(&input, &["--to", "events"]);
        let ev: Vec<Value> = json_lines(events.as_bytes())
            .into_iter()
            .filter(|e| e["notice"]["source"] == "brand_new_subtype")
            .collect();
        assert_eq!(ev.len(), 1, "{events}");
        // No words of its own: every view names the subtype, none draws an empty line.
        views_show(
            &input,
            "· brand new subtype",
            "*brand new subtype*",
            r#"<div class="item notice info">Brand new subtype</div>"#,
        );
        all_lines_in_records(&input);
    }
    // A system message with no subtype names nothing: it stays a debug record.
    let bare = stream(&[json!({"type":"system","session_id":"s1","uuid":"u3"})]);
    let recs = records(&bare);
    let debug: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    assert_eq!(debug.len(), 1, "{recs:?}");
    assert!(
        recs.iter().all(|r| r["notice"]["kind"] != "info"),
        "{recs:?}"
    );
    // Words of its own (`content`) are what the views say, at the row's level.
    let worded = saved(
        "brand_new_subtype",
        json!({"content": "something new", "level": "warning"}),
    );
    let recs = records(&worded);
    assert_eq!(notice(&recs, "info")["level"], "warning");
    views_show(
        &worded,
        "· something new",
        "*something new*",
        "Something new",
    );
}

#[test]
fn a_result_subtype_nobody_knows_is_named_as_it_came() {
    for make in [stream, qwen_stream] {
        a_result_subtype_is_named(make);
    }
}

/// [`a_result_subtype_nobody_knows_is_named_as_it_came`] on the run `make` builds.
fn a_result_subtype_is_named(make: fn(&[Value]) -> String) {
    // An error the design does not list: a failure in every view, under its own name.
    let failed = make(&[
        json!({"type":"result","subtype":"error_brand_new","is_error":true,"duration_ms":10,"num_turns":1,"session_id":"s1","uuid":"u4"}),
    ]);
    let recs = records(&failed);
    let n = notice(&recs, "result");
    assert_eq!(
        (&n["subtype"], &n["isError"]),
        (&json!("error_brand_new"), &json!(true))
    );
    views_show(
        &failed,
        "✗ error_brand_new",
        r"*result: error\_brand\_new*",
        "Stopped: error brand new",
    );
    all_lines_in_records(&failed);

    // Not an error and not `success`: named, neither done nor stopped nor failed.
    let other = make(&[
        json!({"type":"result","subtype":"brand_new_ok","is_error":false,"duration_ms":10,"num_turns":1,"result":"hello","session_id":"s1","uuid":"u4"}),
    ]);
    let recs = records(&other);
    let n = notice(&recs, "result");
    assert_eq!(
        (&n["subtype"], &n["isError"]),
        (&json!("brand_new_ok"), &json!(false))
    );
    let (events, _) = run(&other, &["--to", "events"]);
    assert!(events.contains(r#""subtype":"brand_new_ok""#), "{events}");
    views_show(
        &other,
        "· result: brand_new_ok",
        r"*result: brand\_new\_ok*",
        r#"<div class="item notice result">Result: brand new ok"#,
    );
    for to in ["text", "md", "html"] {
        let (out, _) = run(&other, &["--to", to]);
        for wrong in ["✗", "Stopped", "Done", "notice error"] {
            assert!(!out.contains(wrong), "--to {to} says {wrong:?}:\n{out}");
        }
    }
    all_lines_in_records(&other);
}

/// Gemini CLI's saved chat: `content` is a `PartListUnion` of `@google/genai` `Part`s, each one
/// field (`text`, `inlineData`, `fileData`, `executableCode`, `codeExecutionResult`,
/// `videoMetadata`, `functionCall`, `functionResponse`…).
fn gemini_chat() -> String {
    [
        json!({"sessionId":"0a1b2c3d-0000-4000-8000-000000000009","projectHash":"0000","startTime":"2026-01-05T09:00:00.000Z","lastUpdated":"2026-01-05T09:00:00.000Z","kind":"main"}),
        json!({"id":"u-1","timestamp":"2026-01-05T09:00:01.000Z","type":"user","content":[{"text":"What is in this picture?"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}),
        json!({"id":"g-1","timestamp":"2026-01-05T09:00:04.000Z","type":"gemini","content":[{"text":"Let me count."},{"executableCode":{"language":"PYTHON","code":"print(2)"}}],"model":"gemini-2.5-pro"}),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect()
}

#[test]
fn gemini_parts_that_are_not_text_are_data_parts_in_every_view() {
    let input = gemini_chat();
    let recs = records(&input);
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert_eq!(turns.len(), 2, "{recs:?}");
    assert_eq!(turns[0]["parts"][0]["text"], "What is in this picture?");
    assert_eq!(
        turns[0]["parts"][1],
        json!({"type":"data","name":"inlineData","data":{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}}),
        "{}",
        turns[0]
    );
    assert_eq!(turns[1]["parts"][0]["text"], "Let me count.");
    assert_eq!(
        turns[1]["parts"][1]["name"], "executableCode",
        "{}",
        turns[1]
    );
    assert_eq!(
        turns[1]["parts"][1]["data"]["executableCode"]["code"],
        "print(2)"
    );
    let (events, _) = run(&input, &["--to", "events"]);
    for name in ["inlineData", "executableCode"] {
        assert!(
            events.contains(&format!(r#""name":"{name}""#)),
            "{name}:\n{events}"
        );
        views_show(
            &input,
            &format!("[data: {name}]"),
            &format!(r"*\[data: {name}\]*"),
            &format!("<summary>{name}</summary>"),
        );
    }
}

/// A `session_state_changed` whose `state` is none of §14's three (`idle`, `running`,
/// `requires-action`) is not passed off as one: it takes the hatch of a system kind nobody knows,
/// an `info` notice naming the state as it came, in every view; a known state stays a
/// session-state notice.
#[test]
fn a_session_state_nobody_knows_is_an_info_notice_naming_it() {
    let state = |s: &str| json!({"type":"system","subtype":"session_state_changed","state":s,"session_id":"s1","uuid":"u3"});
    let input = stream(&[state("weird_state")]);
    let recs = records(&input);
    let n = notice(&recs, "info");
    assert_eq!(n["source"], "session_state_changed", "{n}");
    assert_eq!(n["text"], "session state: weird_state", "{n}");
    assert!(
        recs.iter().all(|r| r["notice"]["kind"] != "session-state"),
        "{recs:?}"
    );
    views_show(
        &input,
        "session state: weird_state",
        r"*session state: weird\_state*",
        "ession state: weird_state",
    );
    all_lines_in_records(&input);
    let known = records(&stream(&[state("requires_action")]));
    assert_eq!(notice(&known, "session-state")["state"], "requires-action");
}
