//! What a tool's output says reaches the reader in every view that promises it whole
//! (`--to text --full`, `--to md --full`, the HTML page): a sub-agent hand-back's trailer, a
//! command's coloured lines and the frames a progress meter redrew with carriage returns.
//!
//! The inputs are Claude Code stream lines (`assistant` with a `tool_use`, `user` with its
//! `tool_result`), as `samples/` holds them; the hand-back's trailer (`agentId: … (for resuming
//! to continue this agent's work if needed)` then `<usage>…</usage>`) is the one Claude Code
//! 2.1 writes (external2 `entireio/cli/6d/e70163f7e3`).

use serde_json::json;

use crate::util::{run, sample};

/// A stream of one Bash call whose result is `output`.
fn bash_stream(output: &str) -> String {
    let lines = [
        json!({"type": "system", "subtype": "init", "session_id": "s1", "model": "m", "tools": ["Bash"], "cwd": "/w"}),
        json!({"type": "user", "message": {"role": "user", "content": "build it"}, "session_id": "s1"}),
        json!({"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "cargo build"}}]}, "session_id": "s1"}),
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": output}]}, "session_id": "s1"}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

const TEXT_FULL: &[&str] = &[
    "--to", "text", "--full", "--color", "never", "--width", "200",
];
const MD_FULL: &[&str] = &["--to", "md", "--full"];

/// The sub-agent's id and the note after it reach every view: the text and Markdown views
/// write what the hand-back adds to the report, the page names the id as the trailer does.
#[test]
fn a_hand_backs_agent_id_is_shown() {
    let stream = std::fs::read_to_string(sample("ci-run.jsonl")).unwrap();
    let stream = stream.replace(
        "agentId: a7e3c91b25d4f6081\\n",
        "agentId: a7e3c91b25d4f6081 (for resuming to continue this agent's work if needed)\\n",
    );
    let said = "agentId: a7e3c91b25d4f6081 (for resuming to continue this agent's work if needed)";
    for args in [TEXT_FULL, MD_FULL] {
        let out = run(&stream, args);
        assert!(out.contains(said), "{args:?}:\n{out}");
        assert!(out.contains("duration_ms: 702"), "{args:?}:\n{out}");
        // The report is not written twice.
        assert_eq!(
            out.matches("parse() adds 1 to every number").count(),
            1,
            "{out}"
        );
    }
    let page = run(&stream, &["--to", "html"]);
    assert!(
        page.contains(said),
        "the page does not name the agent's id as the trailer does"
    );
}

/// The page writes a hand-back's frame as the model read it too: the `<usage>` lines and the
/// `<tools-used-before-summary>` line, as well as the facts it reads from them.
#[test]
fn the_page_shows_a_hand_backs_frame_as_written() {
    let handback = "<tools-used-before-summary>Bash</tools-used-before-summary>\n\n[Subagent hand-back] The text below is the final report. The report follows:\n  There are 2 files.\nagentId: a54c\n<usage>total_tokens: 68401\ntool_uses: 3\nduration_ms: 62000</usage>";
    let lines = [
        json!({"type": "system", "subtype": "init", "session_id": "s1", "model": "m", "tools": ["Task"], "cwd": "/w"}),
        json!({"type": "user", "message": {"role": "user", "content": "count files"}, "session_id": "s1"}),
        json!({"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Task", "input": {"description": "count", "prompt": "count the files", "subagent_type": "general-purpose"}}]}, "session_id": "s1"}),
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": handback}]}]}, "session_id": "s1"}),
    ];
    let stream: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let page = run(&stream, &["--to", "html"]);
    for said in [
        "&lt;usage&gt;total_tokens: 68401\ntool_uses: 3\nduration_ms: 62000&lt;/usage&gt;",
        "&lt;tools-used-before-summary&gt;Bash&lt;/tools-used-before-summary&gt;",
        "68,401 tokens",
    ] {
        assert!(page.contains(said), "{said} not on the page");
    }
}

/// A command's colours are drawn as colours (or dropped without colour): its words stay
/// together; an escape that does more than colour (a window title) is still shown, visibly.
#[test]
fn a_commands_coloured_output_keeps_its_words() {
    let output = "\u{1b}[1m\u{1b}[32m   Compiling\u{1b}[0m calc v0.1.0\n\u{1b}[2K\u{1b}[31merror\u{1b}[0m: one failed\u{1b}]0;cargo\u{7}";
    let stream = bash_stream(output);
    let plain = run(&stream, TEXT_FULL);
    assert!(plain.contains("   Compiling calc v0.1.0"), "{plain}");
    assert!(plain.contains("error: one failed"), "{plain}");
    assert!(plain.contains("\\x1b]0;cargo\\x07"), "{plain}");
    assert!(!plain.contains('\u{1b}'), "{plain}");
    let coloured = run(&stream, &["--to", "text", "--full", "--color", "always"]);
    assert!(coloured.contains("Compiling"), "{coloured}");
    assert!(
        !coloured.contains("\u{1b}]0;"),
        "a title sequence got through"
    );
    assert!(
        !coloured.contains("\u{1b}[2K"),
        "an erase sequence got through"
    );
}

/// Each frame a carriage return redrew is on a line of its own, its end marked `\r` where the
/// view shows controls: the last frame and every other survive, and no two frames' words run
/// together.
#[test]
fn each_progress_frame_is_a_line() {
    let stream = bash_stream("start\n\r 10%\r 50%\r100% done\nend\r\n");
    let text = run(&stream, TEXT_FULL);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for frame in ["\\r", "10%\\r", "50%\\r", "100% done", "end"] {
        assert!(lines.contains(&frame), "{frame:?} is not a line:\n{text}");
    }
    let md = run(&stream, MD_FULL);
    let lines: Vec<&str> = md.lines().collect();
    for frame in ["\\r", " 10%\\r", " 50%\\r", "100% done", "end"] {
        assert!(lines.contains(&frame), "{frame:?} is not a line:\n{md}");
    }
}
