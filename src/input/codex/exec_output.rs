//! The lines Codex writes before the output of a tool that ran a process or a script, and what
//! they state. The text stays in the call's output as it is (the reader sees what the model
//! saw); this module only reads the facts out of it.
//!
//! The unified exec tools (`exec_command`, `write_stdin`) answer with `Chunk ID: …`,
//! `Wall time: 1.0013 seconds`, then `Process exited with code N` or `Process running with
//! session ID N`, `Original token count: N` and `Output:` (openai/codex,
//! `codex-rs/core/src/tools/context.rs`, `ExecCommandToolOutput::response_header`; some
//! versions begin with `Command: …`). A freeform tool run as a process (`apply_patch`) answers
//! `Exit code: N`, `Wall time: N seconds`, `Output:`; the `exec` script tool `Script completed`
//! and `Wall time 1.7 seconds`.

use serde_json::Value;

/// What the header of one tool output states.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Header {
    /// `Process exited with code N` or `Exit code: N`.
    pub(crate) exit_code: Option<i64>,
    /// `Wall time: X seconds`, in milliseconds.
    pub(crate) wall_time_ms: Option<u64>,
    /// `Process running with session ID N`: the process still runs, in the unified exec
    /// session `N` that `write_stdin` calls name.
    pub(crate) running_session: Option<i64>,
}

/// How far down the `Output:` line may be (a `Command:` line can hold a script of many lines).
const MAX_HEADER_LINES: usize = 64;

/// The header of a tool output, when the text begins with one: a first line Codex writes in a
/// header, and an `Output:` line within [`MAX_HEADER_LINES`]. `None` for any other text.
pub(crate) fn header(text: &str) -> Option<Header> {
    let mut lines = text.lines();
    let first = lines.next()?;
    if !starts_a_header(first) {
        return None;
    }
    let mut h = Header::default();
    for line in std::iter::once(first).chain(lines).take(MAX_HEADER_LINES) {
        if line == "Output:" {
            return Some(h);
        }
        read_line(line, &mut h);
    }
    None
}

/// What a process's output line showed while it still ran (`shown`, header and all) followed
/// by its end line's copy of the output (`copy`, cut to a window of the whole), without the
/// lines both hold twice: the copy from where it stops repeating the end of `shown`.
pub(crate) fn joined(shown: &str, copy: &str) -> String {
    let overlap = std::iter::once(0)
        .chain(shown.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < shown.len())
        .find(|&i| copy.starts_with(&shown[i..]))
        .map_or(0, |i| shown.len() - i);
    let mut out = shown.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&copy[overlap..]);
    out
}

/// An error text that ends with the output `copy` (`exit code 1` and the output) ends with
/// `text` instead, the output the call now shows.
pub(crate) fn retell_error(error: &mut Option<String>, copy: &str, text: &str) {
    let copy = copy.trim_end();
    if let Some(e) = error.as_mut()
        && !copy.is_empty()
        && let Some(head) = e.strip_suffix(copy)
    {
        *e = format!("{head}{}", text.trim_end());
    }
}

/// True for a line a header begins with.
fn starts_a_header(line: &str) -> bool {
    [
        "Command: ",
        "Chunk ID: ",
        "Wall time",
        "Exit code: ",
        "Process exited with code ",
        "Process running with session ID ",
        "Script ",
    ]
    .iter()
    .any(|p| line.starts_with(p))
}

/// Reads the fact one header line states into `h`; other lines state none.
fn read_line(line: &str, h: &mut Header) {
    let number = |rest: &str| rest.trim().parse::<i64>().ok();
    if let Some(rest) = line.strip_prefix("Process exited with code ") {
        h.exit_code = number(rest);
    } else if let Some(rest) = line.strip_prefix("Exit code: ") {
        h.exit_code = number(rest);
    } else if let Some(rest) = line.strip_prefix("Process running with session ID ") {
        h.running_session = number(rest);
    } else if let Some(rest) = line.strip_prefix("Wall time") {
        let seconds = rest.trim_start_matches(':').trim();
        h.wall_time_ms = seconds
            .strip_suffix("seconds")
            .and_then(|s| s.trim().parse::<f64>().ok())
            .and_then(milliseconds);
    }
}

/// Seconds → whole milliseconds, for a finite, non-negative number of seconds.
pub(crate) fn milliseconds(seconds: f64) -> Option<u64> {
    // A wall time is at most days long: far inside the integers an f64 holds exactly.
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// The details scribe keeps of a call whose output had a header (or the 0.40 JSON metadata):
/// the exit code and the wall time it states, under the names `result_facts` reads.
pub(crate) fn details(exit_code: Option<i64>, wall_time_ms: Option<u64>) -> Option<Value> {
    let mut o = serde_json::Map::new();
    if let Some(c) = exit_code {
        o.insert("exitCode".into(), c.into());
    }
    if let Some(ms) = wall_time_ms {
        o.insert("wallTimeMs".into(), ms.into());
    }
    (!o.is_empty()).then_some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_output_and_the_end_copy_join_without_repeats() {
        let shown = "Chunk ID: x\nProcess running with session ID 7\nOutput:\na\nb\nc\n";
        assert_eq!(joined(shown, "b\nc\nd\n"), format!("{shown}d\n"));
        assert_eq!(joined(shown, "z\n"), format!("{shown}z\n"));
        assert_eq!(joined("Output:", "a\n"), "Output:\na\n");
    }

    #[test]
    fn the_unified_exec_header_states_code_time_and_session() {
        let h = header(
            "Command: /bin/zsh -lc 'go test'\nChunk ID: 0ca2fd\nWall time: 1.0013 seconds\n\
             Process exited with code 1\nOriginal token count: 64\nOutput:\nFAIL\n",
        )
        .unwrap();
        assert_eq!((h.exit_code, h.wall_time_ms), (Some(1), Some(1001)));
        let h = header("Chunk ID: x\nWall time: 1.0000 seconds\nProcess running with session ID 38836\nOutput:\n").unwrap();
        assert_eq!((h.exit_code, h.running_session), (None, Some(38836)));
    }

    #[test]
    fn freeform_and_script_headers() {
        let h = header("Exit code: 0\nWall time: 1 seconds\nOutput:\nSuccess.").unwrap();
        assert_eq!((h.exit_code, h.wall_time_ms), (Some(0), Some(1000)));
        let h = header("Script completed\nWall time 1.7 seconds\nOutput:\n").unwrap();
        assert_eq!((h.exit_code, h.wall_time_ms), (None, Some(1700)));
    }

    #[test]
    fn other_text_has_no_header() {
        assert_eq!(header("Exit code: 1"), None, "no Output: line");
        assert_eq!(header("hello\nExit code: 1\nOutput:\n"), None);
        assert_eq!(header(""), None);
    }
}
