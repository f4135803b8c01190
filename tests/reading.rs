//! Reading long output: in the terminal view a file draws each tool call once with its result
//! under it (parallel calls too), while a live stream still shows a call the moment it is made.
//! The inputs are Claude Code stream-json lines (one `assistant` line per content block, one
//! `user` line per `tool_result`, as the CLI writes them) and a Codex rollout built from
//! openai/codex's `ResponseItem`s and unified exec output header.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::util::{converted, spawn_live};

/// A stream where the model reads two files in parallel: both calls, then both results.
fn parallel_reads() -> Vec<String> {
    let init = json!({"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Read"],"cwd":"/w"});
    let prompt =
        json!({"type":"user","message":{"role":"user","content":"read both"},"session_id":"s"});
    let call = |id: &str, path: &str| {
        json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[
            {"type":"tool_use","id":id,"name":"Read","input":{"file_path":path}}]},"session_id":"s"})
    };
    let result = |id: &str, text: &str| {
        json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":text}]},"session_id":"s"})
    };
    let answer = json!({"type":"assistant","message":{"id":"m2","role":"assistant","content":[
        {"type":"text","text":"Both read."}]},"session_id":"s"});
    [
        init,
        prompt,
        call("t1", "/w/a.rs"),
        call("t2", "/w/b.rs"),
        result("t1", "     1→fn a() {}\n     2→fn a2() {}"),
        result("t2", "     1→fn b() {}"),
        answer,
    ]
    .iter()
    .map(|l| l.to_string())
    .collect()
}

/// Writes `lines` to a file in a fresh directory.
fn file_of(lines: &[String]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    (dir, path)
}

/// The terminal view of a file, given as a path.
fn text_of(path: &std::path::Path) -> String {
    converted(path, &["--to", "text", "--color", "never"])
}

/// Each call once, its result right under it, in call order: no `↳` reminder.
fn assert_each_call_once_with_its_result(out: &str) {
    assert!(!out.contains('↳'), "{out}");
    let a = out.find("⏺ Read(/w/a.rs)").expect(out);
    let a_result = out.find("Read 2 lines").expect(out);
    let b = out.find("⏺ Read(/w/b.rs)").expect(out);
    let b_result = out.find("Read 1 line").expect(out);
    assert!(a < a_result && a_result < b && b < b_result, "{out}");
    assert_eq!(out.matches("⏺ Read(").count(), 2, "{out}");
}

#[test]
fn parallel_calls_of_a_file_are_drawn_once_each_with_its_result() {
    let (_dir, path) = file_of(&parallel_reads());
    assert_each_call_once_with_its_result(&text_of(&path));
    // The same file redirected to standard input is a file too.
    let out = Command::new(assert_cmd::cargo::cargo_bin("scribe"))
        .args(["--to", "text", "--color", "never"])
        .stdin(Stdio::from(std::fs::File::open(&path).unwrap()))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_each_call_once_with_its_result(&String::from_utf8(out.stdout).unwrap());
}

/// A live stream shows each call as it is made, before its result exists; a result that comes
/// after something else was drawn names its call again (`↳`).
#[test]
fn a_live_stream_shows_calls_as_they_are_made() {
    let lines = parallel_reads();
    let (mut child, mut stdin, rx) = spawn_live(&["--to", "text", "--color", "never"]);
    use std::io::Write;
    for l in &lines[..4] {
        writeln!(stdin, "{l}").unwrap();
    }
    stdin.flush().unwrap();
    let mut seen = String::new();
    while !seen.contains("⏺ Read(/w/b.rs)") {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => seen.push_str(&(line + "\n")),
            Err(_) => panic!("the calls were not shown before their results: {seen}"),
        }
    }
    assert!(seen.contains("⏺ Read(/w/a.rs)"), "{seen}");
    for l in &lines[4..] {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
        seen.push_str(&(line + "\n"));
    }
    assert!(seen.contains("↳ Read(/w/a.rs)"), "{seen}");
    assert!(
        seen.contains("Read 2 lines") && seen.contains("Both read."),
        "{seen}"
    );
}

/// A Codex unified exec call whose process ends only at the turn's end (its session reported
/// exited by a later `write_stdin`), after the model wrote text: drawn once, its end under it.
#[test]
fn a_codex_exec_session_ended_at_turn_end_is_drawn_once() {
    let running = "Chunk ID: a1\nWall time: 1.0013 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\nbuilding\n";
    let exited = "Chunk ID: a2\nWall time: 0.5000 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nFAIL\n";
    let line = |ty: &str, payload: serde_json::Value| {
        json!({"timestamp": "2026-04-11T20:00:01.000Z", "type": ty, "payload": payload}).to_string()
    };
    let lines = vec![
        line(
            "session_meta",
            json!({"id": "s-1", "cwd": "/w", "cli_version": "0.118.0"}),
        ),
        line("turn_context", json!({"cwd": "/w", "model": "gpt-5-codex"})),
        line("event_msg", json!({"type": "task_started"})),
        line(
            "event_msg",
            json!({"type": "user_message", "message": "run the tests", "kind": "plain"}),
        ),
        line(
            "response_item",
            json!({"type": "function_call", "name": "exec_command", "call_id": "c1",
            "arguments": json!({"cmd": "go test ./...", "yield_time_ms": 1000}).to_string()}),
        ),
        line(
            "response_item",
            json!({"type": "function_call_output", "call_id": "c1", "output": running}),
        ),
        line(
            "response_item",
            json!({"type": "function_call", "name": "write_stdin", "call_id": "c2",
            "arguments": json!({"session_id": 7, "chars": "", "yield_time_ms": 1000}).to_string()}),
        ),
        line(
            "response_item",
            json!({"type": "function_call_output", "call_id": "c2", "output": exited}),
        ),
        line(
            "response_item",
            json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": "The tests fail."}]}),
        ),
        line("event_msg", json!({"type": "task_complete"})),
    ];
    let (_dir, path) = file_of(&lines);
    let out = text_of(&path);
    assert!(!out.contains('↳'), "{out}");
    assert_eq!(out.matches("go test ./...").count(), 1, "{out}");
    let exec = out.find("⏺ shell(go test ./...)").expect(&out);
    let end = out
        .find("Error: exit code 1 (the process's end")
        .expect(&out);
    let text = out.find("The tests fail.").expect(&out);
    assert!(exec < end && end < text, "{out}");
}

/// A stream where the model writes a whole 200-line file and runs a command printing 100 lines.
fn long_write_and_output() -> Vec<String> {
    let content: String = (1..=200)
        .map(|i| format!("let line_{i} = {i};\n"))
        .collect();
    let output: Vec<String> = (1..=100).map(|i| format!("out {i}")).collect();
    let init = json!({"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Write","Bash"],"cwd":"/w"});
    let prompt =
        json!({"type":"user","message":{"role":"user","content":"write it"},"session_id":"s"});
    let write = json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[
        {"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/w/big.rs","content":content}}]},"session_id":"s"});
    let written = json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":"t1","content":"File created successfully at: /w/big.rs"}]},"session_id":"s"});
    let run = json!({"type":"assistant","message":{"id":"m2","role":"assistant","content":[
        {"type":"tool_use","id":"t2","name":"Bash","input":{"command":"seq 100"}}]},"session_id":"s"});
    let ran = json!({"type":"user","message":{"role":"user","content":[
        {"type":"tool_result","tool_use_id":"t2","content":output.join("\n")}]},"session_id":"s"});
    [init, prompt, write, written, run, ran]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// Markdown shows a whole-file write and a long output as their first lines, then how many lines
/// it left out and the option that shows them; `--full` shows them all, as the JSONL keeps them.
#[test]
fn markdown_previews_long_writes_and_outputs() {
    let (_dir, path) = file_of(&long_write_and_output());
    let md = converted(&path, &["--to", "md"]);
    assert!(md.contains("+let line_38 = 38;"), "{md}");
    assert!(!md.contains("line_39 "), "{md}");
    // The diff's two file lines and its first 38 lines, then the rest counted.
    assert!(
        md.contains("*… 162 more lines (--full shows them)*"),
        "{md}"
    );
    assert!(md.contains("out 10\n") && !md.contains("out 11\n"), "{md}");
    assert!(md.contains("*… 90 more lines (--full shows them)*"), "{md}");
    let full = converted(&path, &["--to", "md", "--full"]);
    assert!(full.contains("+let line_200 = 200;") && full.contains("out 100\n"));
    assert!(!full.contains("more lines"), "{full}");
    let jsonl = converted(&path, &["--to", "jsonl"]);
    assert!(jsonl.contains("let line_200 = 200;") && jsonl.contains("out 100"));
}

/// On the page a whole-file write shows its first 40 lines and keeps the rest behind a closed
/// "show all N lines" toggle (open with `--full`), so the page stays short and loses nothing.
#[test]
fn the_page_folds_a_long_write_behind_show_all() {
    let (_dir, path) = file_of(&long_write_and_output());
    let html = converted(&path, &["--to", "html"]);
    let diff = html
        .find("<pre class=\"diff hl\">")
        .expect("a highlighted diff");
    let toggle = html[diff..]
        .find("</pre><details class=\"more\"><summary>show all 200 lines</summary><pre class=\"diff hl cont\">")
        .map(|at| diff + at)
        .expect("the rest of the diff behind a toggle");
    let shown = &html[diff..toggle];
    assert_eq!(shown.matches("<span class=\"add\">").count(), 40, "{shown}");
    assert!(
        html[toggle..].contains("line_200"),
        "the rest is in the page"
    );
    let full = converted(&path, &["--to", "html", "--full"]);
    assert!(full.contains("<details class=\"more\" open><summary>show all 200 lines"));
    assert!(
        !full.contains("<details class=\"more\"><summary>"),
        "every toggle open"
    );
}

/// The terminal view previews the write and the output, saying what it cut and how to see it.
#[test]
fn the_terminal_view_previews_long_writes_and_outputs() {
    let (_dir, path) = file_of(&long_write_and_output());
    let out = converted(&path, &["--to", "text", "--color", "never"]);
    assert!(out.contains("Wrote 200 lines to /w/big.rs"), "{out}");
    assert!(out.contains("… +180 lines (--full shows them)"), "{out}");
    assert!(out.contains("… +95 lines (--full shows them)"), "{out}");
    let full = converted(&path, &["--to", "text", "--color", "never", "--full"]);
    assert!(
        full.contains("line_200") && full.contains("out 100"),
        "{full}"
    );
}
