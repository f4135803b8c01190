//! Codex rollouts: what a process's output states (its exit code, its wall time, a unified exec
//! session still running) and image generation, each on a small rollout built from openai/codex's
//! own types, through the real binary.
//!
//! The line shapes: `RolloutLine {timestamp, type, payload}` with `ResponseItem`s
//! (`codex-rs/protocol/src/models.rs`: `FunctionCall {name, arguments, call_id}`,
//! `FunctionCallOutput {call_id, output}`, `CustomToolCall {call_id, name, input}`,
//! `CustomToolCallOutput {call_id, output}`, `ImageGenerationCall {id, status, revised_prompt,
//! result}`) and `EventMsg`s (`codex-rs/protocol/src/protocol.rs`: `ExecCommandEnd {call_id,
//! command, aggregated_output, exit_code, duration}`, `ImageGenerationEnd {call_id, status,
//! revised_prompt, result, saved_path}`). The unified exec output text follows
//! `ExecCommandToolOutput::response_header` (`codex-rs/core/src/tools/context.rs`); the freeform
//! tool's `Exit code: N / Wall time: N seconds / Output:` is the text of the corpus's
//! `codex/patch` rollout.

use serde_json::{Value, json};

use crate::util::{json_lines, run, scribe, scribe_jsonl};

/// A rollout of one turn: its header, the prompt, then `lines` (each a rollout line's `type` and
/// `payload`), then the turn's end.
fn rollout(lines: &[(&str, Value)]) -> String {
    let mut all = vec![
        json!({"timestamp": "2026-04-11T20:00:00.000Z", "type": "session_meta", "payload": {"id": "s-1", "cwd": "/w", "cli_version": "0.118.0"}}),
        json!({"timestamp": "2026-04-11T20:00:00.001Z", "type": "turn_context", "payload": {"cwd": "/w", "model": "gpt-5-codex"}}),
        json!({"timestamp": "2026-04-11T20:00:00.002Z", "type": "event_msg", "payload": {"type": "task_started"}}),
        json!({"timestamp": "2026-04-11T20:00:00.003Z", "type": "event_msg", "payload": {"type": "user_message", "message": "run the tests", "kind": "plain"}}),
    ];
    for (ty, payload) in lines {
        all.push(json!({"timestamp": "2026-04-11T20:00:01.000Z", "type": ty, "payload": payload}));
    }
    all.push(json!({"timestamp": "2026-04-11T20:00:09.000Z", "type": "event_msg", "payload": {"type": "task_complete"}}));
    all.iter().map(|l| format!("{l}\n")).collect()
}

/// The records of a rollout, with no debug record among them.
fn fold(input: &str) -> Vec<Value> {
    let out = scribe_jsonl()
        .write_stdin(input.to_owned())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let recs = json_lines(&out);
    assert!(recs.iter().all(|r| r["kind"] != "debug"), "{recs:#?}");
    recs
}

/// The tool call `id` among the records.
fn call(recs: &[Value], id: &str) -> Value {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .find(|p| p["type"] == "tool-call" && p["call"]["toolCallId"] == id)
        .map(|p| p["call"].clone())
        .unwrap_or_else(|| panic!("no call {id}: {recs:#?}"))
}

/// An `exec_command` function call and its output line.
fn exec(id: &str, cmd: &str) -> (&'static str, Value) {
    let arguments = json!({"cmd": cmd, "yield_time_ms": 1000}).to_string();
    (
        "response_item",
        json!({"type": "function_call", "name": "exec_command", "arguments": arguments, "call_id": id}),
    )
}

/// A `write_stdin` function call on `session`.
fn write_stdin(id: &str, session: i64) -> (&'static str, Value) {
    let arguments = json!({"session_id": session, "chars": "", "yield_time_ms": 1000}).to_string();
    (
        "response_item",
        json!({"type": "function_call", "name": "write_stdin", "arguments": arguments, "call_id": id}),
    )
}

/// A function call's output line.
fn output(id: &str, text: &str) -> (&'static str, Value) {
    (
        "response_item",
        json!({"type": "function_call_output", "call_id": id, "output": text}),
    )
}

const RUNNING: &str = "Chunk ID: a1\nWall time: 1.0013 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\n";
const EXITED_1: &str = "Chunk ID: a2\nWall time: 0.5000 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nFAIL\n";

/// `write_stdin` reporting `Process exited with code 1` is an error carrying that code and its
/// wall time, its text kept whole; the `exec_command` whose session it was ends with that code
/// too (no `exec_command_end` came), and says which call reported it.
#[test]
fn a_write_stdin_exit_code_ends_the_session_as_an_error() {
    let recs = fold(&rollout(&[
        exec("c1", "go test ./..."),
        output("c1", RUNNING),
        write_stdin("c2", 7),
        output("c2", EXITED_1),
    ]));
    let poll = call(&recs, "c2");
    assert_eq!(poll["state"], "error");
    assert_eq!(poll["facts"]["exitCode"], 1);
    assert_eq!(poll["facts"]["durationMs"], 500);
    assert_eq!(poll["output"], EXITED_1, "the output is kept as it is");
    assert!(
        poll["errorText"]
            .as_str()
            .unwrap()
            .starts_with("exit code 1")
    );
    let started = call(&recs, "c1");
    assert_eq!(started["state"], "error");
    assert_eq!(started["facts"]["exitCode"], 1);
    assert_eq!(started["output"], RUNNING);
    assert!(
        started["errorText"]
            .as_str()
            .unwrap()
            .contains("write_stdin c2"),
        "{started}"
    );
}

/// The session's own `exec_command_end` ends its call with the exit code and the duration it
/// reports; exit code 0 on `write_stdin` is a success; a session nothing reports the end of is
/// left running (its output shown), not made up as ended.
#[test]
fn a_session_ends_by_its_own_end_line_or_stays_running() {
    let end = json!({"type": "exec_command_end", "call_id": "c1", "command": ["/bin/zsh", "-lc", "go test ./..."],
        "aggregated_output": "ok\n", "exit_code": 0, "duration": {"secs": 2, "nanos": 500_000_000}, "status": "completed"});
    let recs = fold(&rollout(&[
        exec("c1", "go test ./..."),
        output("c1", RUNNING),
        ("event_msg", end),
        write_stdin("c2", 7),
        output(
            "c2",
            "Chunk ID: a2\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nok\n",
        ),
    ]));
    let started = call(&recs, "c1");
    assert_eq!(started["state"], "success");
    assert_eq!(started["facts"]["durationMs"], 2500);
    assert_eq!(started["facts"]["exitCode"], 0);
    assert_eq!(call(&recs, "c2")["state"], "success");

    // The UI line of the command's end before the output that still said running: the end
    // stands, with the header the model read at its head (while another call of the turn is
    // open, so that the turn is still being folded).
    let end = json!({"type": "item_completed", "item": {"type": "CommandExecution", "id": "c1",
        "command": "make", "aggregated_output": "built\n", "exit_code": 2, "status": "failed",
        "duration": {"secs": 1, "nanos": 0}}});
    let recs = fold(&rollout(&[
        exec("c0", "sleep 1"),
        exec("c1", "make"),
        ("event_msg", end),
        output("c1", RUNNING),
        output(
            "c0",
            "Wall time: 1.0000 seconds\nProcess exited with code 0\nOutput:\n",
        ),
    ]));
    let started = call(&recs, "c1");
    assert_eq!(started["state"], "error");
    assert_eq!(started["output"], format!("{RUNNING}built\n"));
    assert_eq!(started["facts"], json!({"durationMs": 1000, "exitCode": 2}));

    let recs = fold(&rollout(&[exec("c1", "sleep 100"), output("c1", RUNNING)]));
    let started = call(&recs, "c1");
    assert_eq!(started["state"], "running");
    assert_eq!(started["output"], RUNNING);
    assert!(started["errorText"].is_null(), "{started}");
}

/// Every exec call's wall time is its duration, and the exit code it states a fact; the text
/// stays as the model saw it.
#[test]
fn an_exec_calls_wall_time_is_its_duration() {
    let text = "Chunk ID: b1\nWall time: 0.2500 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n";
    let recs = fold(&rollout(&[exec("c1", "echo hi"), output("c1", text)]));
    let c = call(&recs, "c1");
    assert_eq!(c["state"], "success");
    assert_eq!(c["facts"], json!({"durationMs": 250, "exitCode": 0}));
    assert_eq!(c["output"], text);
}

/// A freeform tool's output (`apply_patch`: `Exit code: N`, `Wall time: N seconds`, `Output:`)
/// keeps its text and gives its exit code and wall time as facts, also when the patch's UI line
/// gave the result first; a code other than 0 is an error. The `exec` script tool's
/// `Wall time 1.7 seconds` is its duration.
#[test]
fn a_custom_tool_outputs_header_is_kept_and_read_as_facts() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n";
    let custom = |id: &str, name: &str, input: &str| {
        (
            "response_item",
            json!({"type": "custom_tool_call", "status": "completed", "call_id": id, "name": name, "input": input}),
        )
    };
    let custom_output = |id: &str, output: Value| {
        (
            "response_item",
            json!({"type": "custom_tool_call_output", "call_id": id, "output": output}),
        )
    };
    let ok = "Exit code: 0\nWall time: 1 seconds\nOutput:\nSuccess. Updated the following files:\nA a.txt\n";
    let file_change = json!({"type": "item_completed", "item": {"type": "FileChange", "id": "p2",
        "changes": {"/w/a.txt": {"type": "add", "content": "x\n"}}, "status": "completed",
        "stdout": "Success. Updated the following files:\nA a.txt\n", "stderr": ""}});
    let recs = fold(&rollout(&[
        custom("p1", "apply_patch", patch),
        custom_output("p1", json!(ok)),
        custom("p2", "apply_patch", patch),
        ("event_msg", file_change),
        custom_output("p2", json!(ok)),
        custom("p3", "apply_patch", patch),
        custom_output(
            "p3",
            json!("Exit code: 1\nWall time: 0 seconds\nOutput:\nrejected\n"),
        ),
        custom("j1", "exec", "console.log(1)"),
        custom_output(
            "j1",
            json!([{"type": "input_text", "text": "Script completed\nWall time 1.7 seconds\nOutput:\n"}, {"type": "input_text", "text": "1"}]),
        ),
    ]));
    let p1 = call(&recs, "p1");
    assert_eq!(p1["state"], "success");
    assert_eq!(p1["output"], ok, "the header stays in the text");
    assert_eq!(p1["facts"], json!({"durationMs": 1000, "exitCode": 0}));
    let p2 = call(&recs, "p2");
    assert_eq!(p2["facts"], json!({"durationMs": 1000, "exitCode": 0}));
    let p3 = call(&recs, "p3");
    assert_eq!(p3["state"], "error");
    assert_eq!(p3["facts"]["exitCode"], 1);
    assert_eq!(call(&recs, "j1")["facts"]["durationMs"], 1700);
}

/// An image generation (the response item and the event repeating it) is one call with the
/// image as its output: the page shows it, the text views say an image came, with its type and
/// size, and never print its bytes.
#[test]
fn image_generation_is_a_call_with_its_image() {
    let image = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let input = rollout(&[
        (
            "response_item",
            json!({"type": "image_generation_call", "id": "ig_1", "status": "completed", "revised_prompt": "a tiny blue square", "result": image}),
        ),
        (
            "event_msg",
            json!({"type": "image_generation_end", "call_id": "ig_1", "status": "completed", "revised_prompt": "a tiny blue square", "result": image, "saved_path": "/tmp/ig_1.png"}),
        ),
    ]);
    let recs = fold(&input);
    let c = call(&recs, "ig_1");
    assert_eq!(c["name"], "image_generation");
    assert_eq!(c["state"], "success");
    assert_eq!(c["input"]["revised_prompt"], "a tiny blue square");
    assert_eq!(c["output"][0]["type"], "file");
    assert_eq!(
        c["output"][0]["url"],
        format!("data:image/png;base64,{image}")
    );
    let view = |to: &str| {
        let out = scribe()
            .args(["--to", to, "--color", "never"])
            .write_stdin(input.clone())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    for to in ["text", "md"] {
        let out = view(to);
        assert!(out.contains("image_generation"), "{to}: {out}");
        assert!(out.contains("[image/png, 70 B]"), "{to}: {out}");
        assert!(!out.contains(image), "{to}: no base64 in text");
    }
    let html = view("html");
    assert!(
        html.contains(&format!("src=\"data:image/png;base64,{image}\"")),
        "the page shows the image"
    );
}

/// A rollout that stops while a call runs (a session still going, a file copied mid-turn)
/// keeps the call as it was, `running`, with one notice saying where the input ends; nothing
/// says it failed. An aborted turn, which the input states, still ends its calls as errors.
#[test]
fn the_end_of_a_rollout_invents_no_failure() {
    let mut input = rollout(&[(
        "response_item",
        json!({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"make\"]}", "call_id": "call_open"}),
    )]);
    // The rollout stops before the turn's end.
    input.truncate(input.trim_end().rfind('\n').unwrap() + 1);
    let recs = fold(&input);
    let c = call(&recs, "call_open");
    assert_eq!(c["state"], "running", "{c:#}");
    assert!(c.get("errorText").is_none(), "{c:#}");
    let notices: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["source"] == "incomplete")
        .collect();
    assert_eq!(notices.len(), 1, "{recs:#?}");
    let words = notices[0]["notice"].to_string();
    assert!(words.contains("1 tool call still running"), "{words}");

    let aborted = input.clone()
        + &format!(
            "{}\n",
            json!({"timestamp": "2026-04-11T20:00:05.000Z", "type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}})
        );
    let c = call(&fold(&aborted), "call_open");
    assert_eq!(c["state"], "error", "{c:#}");
}

/// The context block Codex's IDE extension puts before a typed request is a context turn of
/// its own; the prompt, and the title an archive lists, are the request.
#[test]
fn the_ide_extensions_context_is_not_the_prompt() {
    let text = "# Context from my IDE setup:\n\n## Open tabs:\n- env.ts: src/env.ts\n\n## My request for Codex:\nMake the team sheet faster";
    // The turn's prompt is the extension's message.
    let escaped = serde_json::to_string(text).unwrap();
    let input = rollout(&[]).replace("\"run the tests\"", &escaped);
    assert!(input.contains("My request for Codex"));
    let recs = fold(&input);
    let users: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == "user")
        .collect();
    let prompt = users
        .iter()
        .find(|t| t["parts"][0]["text"] == "Make the team sheet faster")
        .unwrap_or_else(|| panic!("{users:#?}"));
    assert_eq!(prompt["origin"]["kind"], "user-input");
    let context = users
        .iter()
        .find(|t| t["origin"]["detail"] == "ide-context")
        .unwrap_or_else(|| panic!("{users:#?}"));
    assert!(
        context["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("env.ts: src/env.ts")
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rollout.jsonl");
    std::fs::write(&file, &input).unwrap();
    let md = scribe()
        .args(["--to", "md", "--compact"])
        .arg(&file)
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.starts_with("# Make the team sheet faster\n"), "{md}");
}

/// A multi-agent spawn that made no thread (`collab_agent_spawn_end` with `status: not_found`
/// and no `new_thread_id`, openai/codex `CollabAgentSpawnEndEvent`) failed: its call ends as an
/// error whose text is what the call's output line says, two lines later.
#[test]
fn a_spawn_that_made_no_agent_is_an_error_with_its_reason() {
    let input = rollout(&[
        (
            "response_item",
            json!({"type": "function_call", "name": "spawn_agent", "arguments": "{\"message\":\"review the diff\"}", "call_id": "call_spawn"}),
        ),
        (
            "event_msg",
            json!({"type": "collab_agent_spawn_end", "call_id": "call_spawn", "sender_thread_id": "t0", "new_thread_id": null, "prompt": "review the diff", "status": "not_found"}),
        ),
        ("event_msg", json!({"type": "token_count", "info": null})),
        (
            "response_item",
            json!({"type": "function_call_output", "call_id": "call_spawn", "output": "collab spawn failed: agent thread limit reached (max 6)"}),
        ),
    ]);
    let c = call(&fold(&input), "call_spawn");
    assert_eq!(c["state"], "error", "{c:#}");
    assert_eq!(
        c["errorText"], "collab spawn failed: agent thread limit reached (max 6)",
        "{c:#}"
    );
}

/// The output line is what the model read: behind its header (`Chunk ID`, the session's id),
/// the whole output, where the end line's copy is cut around a `…N chars truncated…` mark.
/// It is the call's output though other calls' lines come between (calls run side by side),
/// and its header stays when it came first and said the process still ran.
#[test]
fn the_output_the_model_read_is_the_calls_output() {
    let whole: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let said = format!(
        "Chunk ID: c3\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: 90\nOutput:\n{whole}"
    );
    let end = |id: &str, aggregated: &str| {
        (
            "event_msg",
            json!({"type": "exec_command_end", "call_id": id, "command": ["/bin/zsh", "-lc", "seq"],
                "aggregated_output": aggregated, "exit_code": 0, "duration": {"secs": 0, "nanos": 10_000_000}, "status": "completed"}),
        )
    };
    let token_count = ("event_msg", json!({"type": "token_count", "info": null}));
    let input = rollout(&[
        exec("c1", "seq 40"),
        exec("c2", "sleep 5"),
        end("c1", "line 1\nline…300 chars truncated…line 40\n"),
        exec("c3", "true"),
        token_count,
        output("c1", &said),
        output("c2", RUNNING),
        end("c2", "slept\n"),
    ]);
    let recs = fold(&input);
    let c1 = call(&recs, "c1");
    assert_eq!(c1["state"], "success");
    assert_eq!(c1["output"], said);
    assert_eq!(c1["facts"], json!({"durationMs": 10, "exitCode": 0}));
    assert_eq!(call(&recs, "c2")["output"], format!("{RUNNING}slept\n"));
    let text = run(&input, &["--to", "text", "--full", "--color", "never"]);
    for line in [
        "Chunk ID: c3",
        "line 20",
        "Process running with session ID 7",
    ] {
        assert!(text.contains(line), "{line} not shown:\n{text}");
    }
}
