//! Small hostile inputs must not take quadratic time. Each test times scribe on an input and on
//! one eight times larger, in the same test, and asserts the ratio stays far below the 64 a
//! quadratic path gives (never an absolute time: the machine may be slow or busy).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::util::scribe;

/// One message with `n` tool calls, then one user message with their `n` results.
fn many_calls(n: usize) -> String {
    let init = json!({"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"],"cwd":"/w"});
    let calls: Vec<_> = (0..n)
        .map(|i| json!({"type":"tool_use","id":format!("t{i}"),"name":"Bash","input":{"command":format!("echo {i}")}}))
        .collect();
    let results: Vec<_> = (0..n)
        .map(|i| json!({"type":"tool_result","tool_use_id":format!("t{i}"),"content":format!("{i}")}))
        .collect();
    let asst = json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":calls},"session_id":"s"});
    let user = json!({"type":"user","message":{"role":"user","content":results},"session_id":"s"});
    format!("{init}\n{asst}\n{user}\n")
}

/// A run of one Bash call whose output is `n` lines, each saying `tag`.
fn run_with_output(n: usize, tag: &str) -> String {
    let init = json!({"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"],"cwd":"/w"});
    let call = json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]},"session_id":"s"});
    let output: Vec<String> = (0..n).map(|i| format!("{tag} line {i}")).collect();
    let result = json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":output.join("\n")}]},"session_id":"s"});
    format!("{init}\n{call}\n{result}\n")
}

/// The best of three timings of `run`.
fn best_of_three(run: &dyn Fn()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed()
        })
        .min()
        .expect("three runs")
}

/// Asserts that eight times the input takes well under the 64 times a quadratic path would.
fn assert_near_linear(what: &str, small: Duration, large: Duration) {
    assert!(
        large < small * 24,
        "{what}: {small:?} for the small input, {large:?} for eight times as much"
    );
}

#[test]
fn thirty_thousand_tool_calls_in_one_message_fold_in_linear_time() {
    let time = |n: usize| {
        let input = many_calls(n);
        best_of_three(&|| {
            let out = scribe()
                .args(["--to", "jsonl"])
                .write_stdin(input.clone())
                .output()
                .unwrap();
            assert!(out.status.success());
            // Every call and its result are in the transcript.
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(text.matches("\"toolCallId\"").count(), n);
        })
    };
    assert_near_linear("tool calls", time(1_000), time(8_000));
}

#[test]
fn diff_of_runs_with_different_tool_output_takes_linear_time() {
    let dir = tempfile::tempdir().unwrap();
    let time = |n: usize| {
        let (old, new) = (dir.path().join("old.jsonl"), dir.path().join("new.jsonl"));
        std::fs::write(&old, run_with_output(n, "old")).unwrap();
        std::fs::write(&new, run_with_output(n, "new")).unwrap();
        best_of_three(&|| diff_exits(&old, &new, 1))
    };
    assert_near_linear("diff", time(2_500), time(20_000));
}

fn diff_exits(old: &Path, new: &Path, code: i32) {
    let out = scribe().arg("diff").arg(old).arg(new).output().unwrap();
    assert_eq!(out.status.code(), Some(code));
}

/// Markdown nested deep (a quote in a quote in a quote…, a list item in a list item…) keeps the
/// terminal view's output linear in the input: past a few levels the gutter is one mark naming
/// the depth. Output size is checked, not time: a quadratic gutter is quadratic bytes.
#[test]
fn deeply_nested_markdown_stays_linear_in_the_terminal_view() {
    let input = |n: usize| {
        let quotes = format!("{} deep\n\nafter", ">".repeat(n));
        let items = format!("{} x", vec!["-"; n].join(" "));
        [quotes, items]
            .iter()
            .map(|t| {
                json!({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":t}]},"parent_tool_use_id":null})
                    .to_string()
                    + "\n"
            })
            .collect::<String>()
    };
    let out = |n: usize| {
        let out = scribe()
            .args(["--to", "text", "--color", "never", "--width", "100"])
            .write_stdin(input(n))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (small, large) = (out(1_000), out(8_000));
    assert!(large.contains("deep") && large.contains("after") && large.contains(" x"));
    assert!(large.contains("┆7993"), "the depth is said:\n{large}");
    assert!(
        large.len() < small.len() * 2,
        "{} bytes for 1 000 levels, {} for 8 000",
        small.len(),
        large.len()
    );
}
