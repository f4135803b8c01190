//! A line that holds several JSON records glued together (a write race lost the newline between
//! them: `{…}{…}`) is read as that many lines of the same number, with one warning, in a saved
//! session (read from its file and from standard input) and in a stream.

use serde_json::Value;

use crate::util::{json_lines, scribe};

/// The fields every row of the small session shares (the shape Claude Code 2.1.x writes).
const COMMON: &str = r#""isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"5e55a0e1-0000-4000-8000-0000000000aa","version":"2.1.7","gitBranch":"main","timestamp":"2026-01-19T15:46:21.800Z""#;

/// A saved session whose line 2 holds the answer and a `file-history-snapshot` glued together,
/// as a real session's line does; the conversation goes on after it.
fn session() -> String {
    let prompt = format!(
        r#"{{"parentUuid":null,{COMMON},"type":"user","message":{{"role":"user","content":"Is there any duplication?"}},"uuid":"u1"}}"#
    );
    let answer = format!(
        r#"{{"parentUuid":"u1",{COMMON},"message":{{"model":"claude-opus-4-5-20251101","id":"msg_1","type":"message","role":"assistant","content":[{{"type":"text","text":"No duplication: two distinct functions."}}],"stop_reason":null,"usage":{{"input_tokens":10,"output_tokens":5}}}},"requestId":"req_1","type":"assistant","uuid":"a1"}}"#
    );
    let snapshot = r#"{"type":"file-history-snapshot","messageId":"u2","snapshot":{"messageId":"u2","trackedFileBackups":{},"timestamp":"2026-01-19T18:31:26.967Z"},"isSnapshotUpdate":false}"#;
    let next = format!(
        r#"{{"parentUuid":"a1",{COMMON},"type":"user","message":{{"role":"user","content":"Thanks, carry on."}},"uuid":"u2"}}"#
    );
    format!("{prompt}\n{answer}{snapshot}\n{next}\n")
}

/// A Claude stream whose answer and result are glued together on line 3.
fn stream() -> String {
    let init =
        r#"{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":[],"cwd":"/w"}"#;
    let user = r#"{"type":"user","message":{"role":"user","content":"Is there any duplication?"},"session_id":"s1"}"#;
    let answer = r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"No duplication: two distinct functions."}]},"session_id":"s1"}"#;
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"No duplication: two distinct functions.","session_id":"s1","duration_ms":5,"num_turns":1}"#;
    format!("{init}\n{user}\n{answer}{result}\n")
}

/// Runs scribe `--to <to>` on `input`, from a file when `from_file`, else on standard input:
/// stdout and stderr.
fn run(input: &str, to: &str, from_file: bool) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("glued.jsonl");
    std::fs::write(&path, input).unwrap();
    let mut cmd = scribe();
    cmd.args(["--to", to]);
    let out = match from_file {
        true => cmd.arg(&path).output().unwrap(),
        false => cmd.write_stdin(input).output().unwrap(),
    };
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts that the answer reached the JSONL and the text, that no record is `debug`, and that
/// stderr says once that line `line` held two records.
fn assert_read_whole(input: &str, line: u64, from_file: bool) {
    let (jsonl, err) = run(input, "jsonl", from_file);
    let records = json_lines(jsonl.as_bytes());
    assert!(
        !records.iter().any(|r| r["kind"] == "debug"),
        "no debug record: {jsonl}"
    );
    let said = |r: &Value| {
        r.to_string()
            .contains("No duplication: two distinct functions.")
    };
    assert!(
        records.iter().any(said),
        "the answer is in the JSONL: {jsonl}"
    );
    let glued: Vec<&str> = err.lines().filter(|l| l.contains("glued")).collect();
    assert_eq!(glued.len(), 1, "said once: {err}");
    assert!(
        glued[0].contains(&format!(":{line}: 2 JSON records glued together")),
        "{err}"
    );
    let (text, _) = run(input, "text", from_file);
    assert!(
        text.contains("No duplication: two distinct functions."),
        "{text}"
    );
}

/// Read from its file, pass 2 reads each record again at the offset where it begins; read from
/// standard input, from its spool.
#[test]
fn a_saved_session_reads_both_records_of_a_glued_line_from_a_file_or_standard_input() {
    for from_file in [true, false] {
        assert_read_whole(&session(), 2, from_file);
        let (text, _) = run(&session(), "text", from_file);
        assert!(
            text.contains("Thanks, carry on."),
            "the chain goes on: {text}"
        );
    }
}

#[test]
fn a_stream_reads_both_records_of_a_glued_line() {
    assert_read_whole(&stream(), 3, false);
}

/// A value followed by anything but JSON is one broken line, kept whole as a `debug` record.
#[test]
fn glued_values_followed_by_other_text_stay_one_broken_line() {
    let input = stream().replace("\"num_turns\":1}\n", "\"num_turns\":1} trailing\n");
    let (jsonl, err) = run(&input, "jsonl", false);
    let debug: Vec<Value> = json_lines(jsonl.as_bytes())
        .into_iter()
        .filter(|r| r["kind"] == "debug")
        .collect();
    assert_eq!(debug.len(), 1, "{jsonl}");
    assert!(debug[0].to_string().contains("trailing"), "{jsonl}");
    assert!(!err.contains("glued"), "{err}");
}

/// Copies the sample session with sub-agents into `dir`, the sub-agent's lines 2 and 3 glued
/// together when `glue`; returns the session file's path.
fn session_with_subagent(dir: &std::path::Path, glue: bool) -> std::path::PathBuf {
    let from = crate::util::sample("claude-session/subagents-new");
    let id = "5e55a0e1-0000-4000-8000-000000000003";
    let subagents = std::path::Path::new(id).join("subagents");
    std::fs::create_dir_all(dir.join(&subagents)).unwrap();
    for name in [
        format!("{id}.jsonl"),
        format!("{id}/subagents/agent-a0123456789abcdef.meta.json"),
        format!("{id}/subagents/agent-a0123456789abcdef.jsonl"),
        format!("{id}/subagents/agent-acompact-0123456789abcdef.jsonl"),
    ] {
        let mut text = std::fs::read_to_string(from.join(&name)).unwrap();
        if glue && name.ends_with("agent-a0123456789abcdef.jsonl") {
            let second = text.match_indices('\n').nth(1).unwrap().0;
            text.remove(second);
        }
        std::fs::write(dir.join(&name), text).unwrap();
    }
    dir.join(format!("{id}.jsonl"))
}

/// A sub-agent's transcript, read beside its session, reads a glued line as its records: the
/// output is the one of the file with the newline, and the warning names the sub-agent's file.
#[test]
fn a_subagent_file_reads_both_records_of_a_glued_line() {
    let output = |glue: bool| {
        let dir = tempfile::tempdir().unwrap();
        let path = session_with_subagent(dir.path(), glue);
        let out = scribe()
            .args(["--to", "jsonl"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let mut records = json_lines(&out.stdout);
        records[0].as_object_mut().unwrap().remove("file");
        (records, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (plain, _) = output(false);
    let (glued, err) = output(true);
    assert_eq!(glued, plain);
    let said: Vec<&str> = err.lines().filter(|l| l.contains("glued")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].contains("agent-a0123456789abcdef.jsonl:2: 2 JSON records glued together"),
        "{err}"
    );
}
