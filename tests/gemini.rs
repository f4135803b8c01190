//! Google Gemini CLI: stream-json (`gemini-stream`) and saved chats (`gemini-session`), over the
//! real captures in the shared corpus and the hand-written edge cases in `samples/gemini-*`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{
    corpus, files_under, json_lines, run_jsonl as run, sample, scribe, scribe_jsonl,
};

/// The text view of a file (no colour: stdout is not a terminal).
fn text(path: &Path) -> String {
    let out = scribe().arg(path).assert().success().get_output().clone();
    String::from_utf8(out.stdout).unwrap()
}

fn turns(recs: &[Value]) -> Vec<&Value> {
    recs.iter().filter(|r| r["kind"] == "turn").collect()
}

fn calls(recs: &[Value]) -> Vec<Value> {
    turns(recs)
        .iter()
        .flat_map(|t| t["parts"].as_array().unwrap().iter())
        .filter(|p| p["type"] == "tool-call")
        .map(|p| p["call"].clone())
        .collect()
}

fn notices<'a>(recs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    recs.iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["kind"] == kind)
        .map(|r| &r["notice"])
        .collect()
}

fn texts(turn: &Value) -> Vec<&str> {
    turn["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "text")
        .map(|p| p["text"].as_str().unwrap())
        .collect()
}

/// A scenario's stream and its saved chat.
fn scenario(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let base = dir.join("gemini-cli").join(name);
    let chats = files_under(&base.join("gemini-home"), &|p| {
        p.extension().is_some_and(|e| e == "jsonl")
    });
    assert_eq!(chats.len(), 1, "{name}: one saved chat");
    (base.join("stream.jsonl"), chats[0].clone())
}

const SCENARIOS: &[&str] = &[
    "text",
    "shell",
    "failing-command",
    "api-error",
    "write-edit",
    "mcp",
];

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_gemini_capture_converts_detected_and_clean() {
    let dir = corpus();
    let mut seen = 0;
    for name in SCENARIOS {
        let (stream, chat) = scenario(&dir, name);
        for (path, source) in [(stream, "gemini-stream"), (chat, "gemini-session")] {
            if !path.exists() {
                continue;
            }
            seen += 1;
            let (recs, stderr) = run(&path, &[]);
            let p = path.display();
            assert!(stderr.is_empty(), "{p}: stderr {stderr}");
            assert_eq!(recs[0]["source"], source, "{p}: detected format");
            assert!(
                !recs.iter().any(|r| r["kind"] == "debug"),
                "{p}: debug record"
            );
            let session = recs.iter().find(|r| r["kind"] == "session");
            let session = session.unwrap_or_else(|| panic!("{p}: no session"));
            assert_eq!(session["agent"], "gemini-cli", "{p}");
            assert!(session["sessionId"].as_str().unwrap().len() == 36, "{p}");
            for c in calls(&recs) {
                assert!(
                    c["state"] == "success" || c["state"] == "error",
                    "{p}: call {} ends {}",
                    c["toolCallId"],
                    c["state"]
                );
            }
            // The prompt is there once, as real input.
            let prompts = turns(&recs)
                .iter()
                .filter(|t| t["origin"]["kind"] == "user-input")
                .count();
            assert_eq!(prompts, 1, "{p}: one prompt");
        }
    }
    // 6 streams + 6 saved chats of the stream scenarios + json-output's chat (not run here).
    assert_eq!(seen, 12, "expected every scenario's stream and chat");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn json_output_saved_chat_converts_clean() {
    let dir = corpus();
    let chats = files_under(&dir.join("gemini-cli/json-output/gemini-home"), &|p| {
        p.extension().is_some_and(|e| e == "jsonl")
    });
    assert_eq!(chats.len(), 1);
    let (recs, stderr) = run(&chats[0], &[]);
    assert!(stderr.is_empty());
    assert!(!recs.iter().any(|r| r["kind"] == "debug"));
    let c = calls(&recs);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["name"], "run_shell_command");
    assert_eq!(c[0]["state"], "success");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn text_chunks_become_one_text_part_never_twice() {
    let dir = corpus();
    let (stream, chat) = scenario(&dir, "text");
    let want = "Hello! I am a mock Gemini model. 2 + 2 = 4.";
    for path in [stream, chat] {
        let (recs, _) = run(&path, &[]);
        let t = turns(&recs);
        let assistant: Vec<&&Value> = t.iter().filter(|t| t["role"] == "assistant").collect();
        assert_eq!(assistant.len(), 1, "{}", path.display());
        assert_eq!(texts(assistant[0]), [want], "{}", path.display());
        let view = text(&path);
        assert_eq!(
            view.matches("2 + 2 = 4").count(),
            1,
            "the answer once:\n{view}"
        );
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn stream_events_carry_each_chunk_live_and_the_text_once() {
    let dir = corpus();
    let (stream, _) = scenario(&dir, "text");
    let out = scribe()
        .args(["--to", "events"])
        .arg(&stream)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let evs = json_lines(&out);
    let deltas: Vec<&Value> = evs.iter().filter(|e| e["event"] == "text-delta").collect();
    assert_eq!(deltas.len(), 2);
    assert_eq!(deltas[0]["text"], "Hello! I am a mock ");
    let blocks: Vec<&Value> = evs
        .iter()
        .filter(|e| e["event"] == "assistant-block")
        .collect();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0]["messageId"], deltas[0]["messageId"]);
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn shell_call_is_one_evolving_call_in_the_response_that_asked_for_it() {
    let dir = corpus();
    let (stream, _) = scenario(&dir, "shell");
    let (recs, _) = run(&stream, &[]);
    let t = turns(&recs);
    // prompt, (text + call), closing text
    assert_eq!(t.len(), 3);
    assert_eq!(texts(t[1]), ["I will run a shell command."]);
    let c = calls(&recs);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["name"], "run_shell_command");
    assert_eq!(c[0]["state"], "success");
    assert_eq!(c[0]["output"], "hello-from-shell\nREADME.md");
    assert_eq!(c[0]["caller"], "model");
    let view = text(&stream);
    assert!(
        view.contains("run_shell_command(echo hello-from-shell && ls -1)"),
        "the summary is the command, not its description:\n{view}"
    );
    let result = notices(&recs, "result");
    assert_eq!(result.len(), 1);
    assert_eq!(result[0]["isError"], false);
    assert_eq!(result[0]["turns"], 2);
    assert_eq!(result[0]["durationMs"], 550);
    assert_eq!(result[0]["usage"]["inputTokens"], 2064);
    assert_eq!(result[0]["usage"]["cacheReadInputTokens"], 1536);
    assert_eq!(result[0]["usage"]["outputTokens"], 48);
}

/// The stream reports a non-zero exit as `status:"success"` and drops the exit code; only the
/// saved chat keeps it (`Exit Code: 3`), so only there is the call an error.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn failing_command_is_an_error_where_the_exit_code_is_known() {
    let dir = corpus();
    let (stream, chat) = scenario(&dir, "failing-command");
    let (recs, _) = run(&stream, &[]);
    let c = calls(&recs);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["state"], "success", "the stream says success");
    assert!(c[0]["output"].as_str().unwrap().contains("No such file"));

    let (recs, _) = run(&chat, &[]);
    let c = calls(&recs);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["state"], "error");
    let err = c[0]["errorText"].as_str().unwrap();
    assert!(err.contains("Exit Code: 3"), "{err}");
    assert!(err.contains("No such file"), "{err}");
    assert!(!err.contains("untrusted_context"), "{err}");
    assert_eq!(
        c[0]["sidecar"]["status"], "success",
        "Gemini's own word kept"
    );
    assert!(text(&chat).contains("Exit Code: 3"));
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn write_edit_shows_both_file_calls_with_their_changes() {
    let dir = corpus();
    let (stream, chat) = scenario(&dir, "write-edit");
    for path in [&stream, &chat] {
        let (recs, _) = run(path, &[]);
        let c = calls(&recs);
        let names: Vec<&str> = c.iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["write_file", "replace"], "{}", path.display());
        for call in &c {
            assert_eq!(call["state"], "success");
            assert_eq!(call["input"]["file_path"], "notes/hello.txt");
        }
        assert_eq!(c[1]["input"]["new_string"], "second line, edited");
        let view = text(path);
        assert!(view.contains("write_file(notes/hello.txt)"), "{view}");
        assert!(view.contains("Wrote 2 lines to notes/hello.txt"), "{view}");
        assert!(view.contains("Updated notes/hello.txt (+1 −1)"), "{view}");
        assert!(view.contains("+ second line, edited"), "{view}");
    }
    let md = scribe()
        .args(["--to", "md"])
        .arg(&stream)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let md = String::from_utf8(md).unwrap();
    assert!(md.contains("-second line\n+second line, edited"), "{md}");
    let html = scribe()
        .args(["--to", "html"])
        .arg(&stream)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let html = String::from_utf8(html).unwrap();
    assert!(html.contains("<pre class=\"diff\">"), "diff in HTML");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn mcp_calls_have_caller_mcp_and_their_server() {
    let dir = corpus();
    let (stream, chat) = scenario(&dir, "mcp");
    for path in [&stream, &chat] {
        let (recs, _) = run(path, &[]);
        let c = calls(&recs);
        assert_eq!(c.len(), 2);
        for call in &c {
            assert_eq!(call["caller"], "mcp");
            assert_eq!(call["mcpServer"], "echo");
        }
        assert_eq!(c[0]["name"], "mcp_echo_echo");
        assert_eq!(c[0]["state"], "success");
        assert_eq!(c[0]["output"], "echo: ping from model");
        assert_eq!(c[1]["state"], "error");
        assert!(
            c[1]["errorText"]
                .as_str()
                .unwrap()
                .contains("reported tool error")
        );
        let view = text(path);
        assert!(view.contains("echo · echo (MCP)"), "{view}");
        assert!(view.contains("fail · echo (MCP)"), "{view}");
    }
    let (recs, _) = run(&stream, &[]);
    assert_eq!(
        calls(&recs)[1]["sidecar"]["error"]["type"],
        "mcp_tool_error"
    );
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn api_error_gives_an_error_result_and_a_history_notice() {
    let dir = corpus();
    let (stream, chat) = scenario(&dir, "api-error");
    let (recs, _) = run(&stream, &[]);
    assert!(!turns(&recs).iter().any(|t| t["role"] == "assistant"));
    let r = notices(&recs, "result");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["isError"], true);
    assert_eq!(r[0]["subtype"], "error");
    let errors = r[0]["errors"].as_array().unwrap();
    assert!(errors[0].as_str().unwrap().contains("rejected on purpose"));
    assert!(text(&stream).contains("✗ error (unknown): [API Error:"));

    // The saved chat rolls the prompt back out of the context: it stays, with a notice after it.
    let (recs, _) = run(&chat, &[]);
    let t = turns(&recs);
    assert_eq!(texts(t.last().unwrap()), ["Say hello."]);
    let h = notices(&recs, "info");
    assert_eq!(h.len(), 1);
    assert_eq!(h[0]["source"], "history");
    assert_eq!(h[0]["data"]["messageIds"].as_array().unwrap().len(), 1);
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn stream_and_saved_chat_agree_on_the_calls() {
    let dir = corpus();
    for name in SCENARIOS {
        let (stream, chat) = scenario(&dir, name);
        let key = |p: &Path| {
            let (recs, _) = run(p, &[]);
            calls(&recs)
                .iter()
                .map(|c| {
                    (
                        c["toolCallId"].clone(),
                        c["name"].clone(),
                        c["input"].clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(key(&stream), key(&chat), "{name}");
        // Where the stream has an output, the saved chat shows the same (its `resultDisplay`).
        let (s, _) = run(&stream, &[]);
        let (c, _) = run(&chat, &[]);
        for (a, b) in calls(&s).iter().zip(calls(&c).iter()) {
            if a["output"] != "" {
                assert_eq!(a["output"], b["output"], "{name}: {}", a["toolCallId"]);
            }
        }
    }
}

/// The `shell` and `json-output` scenarios ran the same mock conversation twice: under
/// `--stable` their saved chats print the same bytes in every format (the shell's process group
/// id, different each run, is not kept).
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn two_saved_chats_of_one_run_are_identical_under_stable() {
    let dir = corpus();
    let (_, a) = scenario(&dir, "shell");
    let (_, b) = scenario(&dir, "json-output");
    for to in ["jsonl", "text", "md", "html", "events"] {
        let out = |p: &Path| {
            scribe()
                .args(["--stable", "--to", to])
                .arg(p)
                .assert()
                .success()
                .get_output()
                .stdout
                .clone()
        };
        let (x, y) = (out(&a), out(&b));
        assert!(!x.is_empty());
        assert!(x == y, "{to}: the two runs differ");
    }
}

#[test]
fn stream_edges_sample() {
    let (recs, stderr) = run(&sample("gemini-stream-edges.jsonl"), &[]);
    assert!(stderr.is_empty(), "{stderr}");
    let t = turns(&recs);
    let assistant: Vec<&&Value> = t.iter().filter(|t| t["role"] == "assistant").collect();
    assert_eq!(assistant.len(), 3);
    // Three chunks gathered into one part, with both parallel calls in the same turn.
    assert_eq!(texts(assistant[0]), ["Let me look at two things at once."]);
    let c = calls(&recs);
    assert_eq!(c.len(), 3);
    assert!(c.iter().take(2).all(|c| c["state"] == "success"));
    assert_eq!(
        assistant[0]["parts"].as_array().unwrap().len(),
        3,
        "text + two calls"
    );
    // An unregistered tool: error, with the long message as the error text.
    assert_eq!(c[2]["state"], "error");
    assert!(
        c[2]["errorText"]
            .as_str()
            .unwrap()
            .starts_with("Tool \"delete_tree\" not found in registry")
    );
    // A non-delta assistant message is text too.
    assert_eq!(texts(assistant[2]), ["I could not remove tmp/."]);
    // The error event is a warning notice; the unknown type a debug record keeping the line.
    let w = notices(&recs, "info");
    assert_eq!(w[0]["level"], "warning");
    assert_eq!(w[0]["source"], "error");
    let d: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["line"], 15);
    assert!(d[0]["raw"].as_str().unwrap().contains("telemetry_flush"));
    let r = notices(&recs, "result");
    assert_eq!(r[0]["isError"], true);
    assert_eq!(r[0]["terminalReason"], "FatalTurnLimitedError");
    assert_eq!(r[0]["turns"], 3);
}

#[test]
fn a_cut_stream_keeps_the_text_it_had() {
    let out = scribe_jsonl()
        .arg(sample("gemini-stream-cut.jsonl"))
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(":5: truncated last line"), "{stderr}");
    let recs = json_lines(&out.stdout);
    let t = turns(&recs);
    assert_eq!(texts(t[1]), ["Autumn wind rises\nthe stream stops mid"]);
}

#[test]
fn session_sample_rewrites_rewinds_and_mcp_server_names() {
    let (recs, stderr) = run(&sample("gemini-session-rewind.jsonl"), &[]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(recs[0]["source"], "gemini-session");
    let session = recs.iter().find(|r| r["kind"] == "session").unwrap();
    assert_eq!(session["title"], "Echo and start over");
    assert_eq!(session["model"], "gemini-2.5-pro");
    let t = turns(&recs);
    assert_eq!(t[0]["origin"]["kind"], "synthetic", "session context");
    // g-1 was written twice: one turn, with the second version's text and calls.
    let g1: Vec<&&Value> = t.iter().filter(|t| t["id"] == "g-1").collect();
    assert_eq!(g1.len(), 1);
    let parts = g1[0]["parts"].as_array().unwrap();
    assert_eq!(parts[0]["type"], "reasoning");
    assert_eq!(parts[0]["text"], "Planning: Use the MCP echo first.");
    assert_eq!(parts[1]["text"], "Echoing first.");
    assert_eq!(g1[0]["metadata"]["usage"]["inputTokens"], 300);
    assert_eq!(g1[0]["metadata"]["usage"]["cacheReadInputTokens"], 100);
    let c = calls(&recs);
    assert_eq!(
        c[0]["mcpServer"], "my_tools",
        "server from the display name"
    );
    assert_eq!(c[0]["output"], "hi");
    assert_eq!(c[1]["state"], "error");
    assert_eq!(c[1]["errorText"], "status cancelled");
    // The rewound message stays, followed by the notice; the later prompt follows.
    let ids: Vec<&str> = t.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ctx", "u-1", "g-1", "u-2", "u-3", "g-2"]);
    let info = notices(&recs, "info");
    let texts: Vec<&str> = info.iter().map(|n| n["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [
            "Request cancelled.",
            "rewound to message u-2: 1 message above left the history"
        ]
    );
    let d: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["line"], 14);
    assert_eq!(t.last().unwrap()["metadata"]["model"], "gemini-2.5-flash");
}

#[test]
fn explicit_from_matches_detection() {
    let (a, _) = run(&sample("gemini-stream-edges.jsonl"), &[]);
    let (b, _) = run(
        &sample("gemini-stream-edges.jsonl"),
        &["--from", "gemini-stream"],
    );
    assert_eq!(a, b);
    let (a, _) = run(&sample("gemini-session-rewind.jsonl"), &[]);
    let (b, _) = run(
        &sample("gemini-session-rewind.jsonl"),
        &["--from", "gemini-session"],
    );
    assert_eq!(a, b);
}

/// `gemini --resume` writes the history again as new lines with the same ids (timestamps of the
/// resume, the thought merged into the text, no model or tokens) and re-lists it with
/// `$set.messages`: the first version of each message stands, and nothing "left the context".
#[test]
fn a_resumed_chat_keeps_the_first_version_of_each_message() {
    let (recs, stderr) = run(&sample("gemini-session-resume.jsonl"), &[]);
    assert!(stderr.is_empty(), "{stderr}");
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert_eq!(turns.len(), 4, "each message once");
    let g1 = turns[1];
    assert_eq!(g1["parts"][0]["type"], "reasoning");
    assert_eq!(
        g1["parts"][1]["text"],
        "It parses the flags and runs the pipeline."
    );
    assert_eq!(g1["metadata"]["model"], "gemini-2.5-pro");
    assert_eq!(g1["metadata"]["usage"]["outputTokens"], 12);
    assert_eq!(g1["timestamp"], "2026-01-05T09:00:04.000Z");
    assert_eq!(turns[0]["timestamp"], "2026-01-05T09:00:01.000Z");
    assert!(
        !recs.iter().any(|r| r["notice"]["source"] == "history"),
        "no message left the context"
    );
}
