//! Hooks in the terminal view: one line per hook, at its end; "no end reported" only for a hook
//! the input never says ended. The lines are Claude Code's stream-json `system` hook messages
//! (`hook_started`, then `hook_response` with `output`, `exit_code`, `outcome`), as the corpus's
//! `claude-code/09-hooks/stream.jsonl` records them.

use crate::util::stdout_of;

/// A hook that started and ended, then one that started and was never heard of again.
const HOOKS: &str = concat!(
    r#"{"type":"system","subtype":"hook_started","hook_id":"h1","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse","uuid":"u1","session_id":"s"}"#,
    "\n",
    r#"{"type":"system","subtype":"hook_response","hook_id":"h1","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse","output":"pre ran\n","stdout":"pre ran\n","stderr":"","exit_code":0,"outcome":"success","uuid":"u2","session_id":"s"}"#,
    "\n",
    r#"{"type":"system","subtype":"hook_started","hook_id":"h2","hook_name":"Stop","hook_event":"Stop","uuid":"u3","session_id":"s"}"#,
    "\n",
);

/// The view of `HOOKS` in `format`, without colour.
fn view(format: &str) -> String {
    stdout_of(&["--to", format, "--color", "never", "-"], HOOKS.to_owned())
}

#[test]
fn text_view_says_no_end_only_for_the_hook_that_has_none() {
    let text = view("text");
    let hook_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("hook ")).collect();
    assert_eq!(
        hook_lines,
        [
            "hook PreToolUse:Bash: success (exit 0)",
            "hook Stop: started, no end reported",
        ],
        "{text}"
    );
}

#[test]
fn markdown_and_text_agree_on_the_hooks() {
    let md = view("md");
    let md_hooks: Vec<&str> = md
        .lines()
        .filter_map(|l| l.strip_prefix('*')?.strip_suffix('*'))
        .filter(|l| l.starts_with("hook "))
        .collect();
    let text = view("text");
    let text_hooks: Vec<&str> = text.lines().filter(|l| l.starts_with("hook ")).collect();
    assert_eq!(md_hooks, text_hooks);
}

/// Two runs of one hook (same name and event, their own `hook_id`s, as the harness runs every
/// hook configured for an event at once): the first reports progress and never ends, the second
/// ends with no output of its own.
const TWO_RUNS: &str = concat!(
    r#"{"type":"system","subtype":"hook_started","hook_id":"h1","hook_name":"PostToolUse:Bash","hook_event":"PostToolUse","uuid":"u1","session_id":"s"}"#,
    "\n",
    r#"{"type":"system","subtype":"hook_started","hook_id":"h2","hook_name":"PostToolUse:Bash","hook_event":"PostToolUse","uuid":"u2","session_id":"s"}"#,
    "\n",
    r#"{"type":"system","subtype":"hook_progress","hook_id":"h1","hook_name":"PostToolUse:Bash","hook_event":"PostToolUse","output":"first still linting","stdout":"first still linting","stderr":"","uuid":"u3","session_id":"s"}"#,
    "\n",
    r#"{"type":"system","subtype":"hook_response","hook_id":"h2","hook_name":"PostToolUse:Bash","hook_event":"PostToolUse","output":"","stdout":"","stderr":"","exit_code":0,"outcome":"success","uuid":"u4","session_id":"s"}"#,
    "\n",
);

/// §2's `hook_id` tells the runs apart: the second's end does not take the first's output, and
/// the first, never ended, is still written (with its output) and said to have no end.
#[test]
fn two_runs_of_one_hook_are_told_apart_by_their_ids() {
    let recs =
        crate::util::json_lines(stdout_of(&["--to", "jsonl", "-"], TWO_RUNS.to_owned()).as_bytes());
    let hooks: Vec<&serde_json::Value> = recs
        .iter()
        .filter(|r| r["notice"]["kind"] == "hook")
        .map(|r| &r["notice"])
        .collect();
    assert_eq!(hooks.len(), 2, "{recs:?}");
    assert_eq!(hooks[0]["status"], "response");
    assert!(hooks[0].get("output").is_none(), "{}", hooks[0]);
    assert_eq!(hooks[1]["status"], "progress");
    assert_eq!(hooks[1]["output"], "first still linting");
    let text = stdout_of(&["--color", "never", "-"], TWO_RUNS.to_owned());
    assert_eq!(
        text.lines().filter(|l| l.starts_with("hook ")).count(),
        2,
        "{text}"
    );
}

/// A hook whose progress report wrote to stdout and stderr (`output` holding stdout only, as a
/// harness may fill it) and whose end wrote more: the wire's `hook_progress` and
/// `hook_response` fields (`output`, `stdout`, `stderr`, `exit_code`, `outcome`).
const STREAMS: &str = concat!(
    r#"{"type":"system","subtype":"hook_started","hook_id":"h1","hook_name":"Stop","hook_event":"Stop","uuid":"u1","session_id":"s"}"#,
    "\n",
    r#"{"type":"system","subtype":"hook_progress","hook_id":"h1","hook_name":"Stop","hook_event":"Stop","output":"linting 3 files","stdout":"linting 3 files","stderr":"warn: slow disk","uuid":"u2","session_id":"s"}"#,
    "\n",
    r#"{"type":"system","subtype":"hook_response","hook_id":"h1","hook_name":"Stop","hook_event":"Stop","output":"lint done","stdout":"lint done","stderr":"error: 1 file failed","exit_code":2,"outcome":"error","uuid":"u3","session_id":"s"}"#,
    "\n",
);

/// Every stream the hook wrote, in its progress report and in its end, reaches every view that
/// shows hook output (`--context` in text and Markdown): none is dropped because `output` or
/// another report is present.
#[test]
fn every_stream_a_hook_wrote_reaches_the_views() {
    for format in ["text", "md", "html", "jsonl"] {
        let args = ["--to", format, "--context", "--color", "never", "-"];
        let out = stdout_of(&args, STREAMS.to_owned());
        for wrote in [
            "linting 3 files",
            "warn: slow disk",
            "lint done",
            "error: 1 file failed",
        ] {
            assert!(out.contains(wrote), "{format} lacks {wrote:?}:\n{out}");
        }
    }
}
