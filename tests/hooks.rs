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
