//! What an input is: detection that a stray line of another agent does not mislead, JSON that
//! is not a log of any format scribe knows refused with one message and no document, and
//! `--strict` failing on an input most of which nobody understood.

use serde_json::Value;

use crate::util::{json_lines, scribe};

/// Runs scribe with `args` on `stdin`: exit code, stdout, stderr.
fn run(args: &[&str], stdin: impl Into<Vec<u8>>) -> (i32, String, String) {
    let out = scribe().args(args).write_stdin(stdin).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Gemini CLI stream-json's first line (`shared/spec/gemini-stream-json.md` §1: `init` with
/// `session_id` and `model`, every event with a `timestamp`).
const GEMINI_INIT: &str = r#"{"type":"init","timestamp":"2026-01-01T00:00:00.000Z","session_id":"0f0e0d0c-0000-4000-8000-000000000001","model":"auto"}"#;

/// A short Claude Code stream-json run (the Agent SDK's `system`/`init`, a prompt, an answer
/// and the `result`; `shared/spec/claude-code-wire.md`).
const CLAUDE_STREAM: &str = concat!(
    r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet","cwd":"/w","tools":[]}"#,
    "\n",
    r#"{"type":"user","message":{"role":"user","content":"What is 2+2?"},"session_id":"s1"}"#,
    "\n",
    r#"{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-sonnet","content":[{"type":"text","text":"It is four."}]},"session_id":"s1"}"#,
    "\n",
    r#"{"type":"result","subtype":"success","is_error":false,"result":"It is four.","session_id":"s1","duration_ms":5,"num_turns":1}"#,
    "\n",
);

/// Every output format: a refused input writes none of them.
const EVERY_FORMAT: [&str; 5] = ["jsonl", "events", "text", "md", "html"];

/// The formats `--from` offers, read from `--help` (so the test follows the registry).
fn from_formats() -> Vec<String> {
    let out = scribe().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let from = &help[help.find("--from").expect("--from in --help")..];
    let end = from.find("\n  -").unwrap_or(from.len());
    from[..end]
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- ")?.split(':').next())
        .map(str::to_owned)
        .filter(|name| name != "auto")
        .collect()
}

#[test]
fn a_gemini_init_line_before_a_claude_stream_leaves_the_claude_transcript_whole() {
    let input = format!("{GEMINI_INIT}\n{CLAUDE_STREAM}");
    let (code, out, err) = run(&["--to", "jsonl", "--strict"], input);
    assert_eq!(code, 0, "{err}");
    let recs = json_lines(out.as_bytes());
    assert_eq!(recs[0]["source"], "claude-stream", "{out}");
    let debug: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    assert_eq!(
        debug.len(),
        1,
        "only the Gemini line is not understood: {out}"
    );
    assert_eq!(debug[0]["line"], 1);
    assert!(debug[0]["raw"].as_str().unwrap().contains("\"init\""));
    let said: Vec<&str> = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|r| r["parts"].as_array().unwrap())
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(said, ["What is 2+2?", "It is four."], "{out}");
    assert!(
        err.contains("look like different formats") && err.contains("reading it as claude-stream"),
        "the stderr says what detection saw: {err}"
    );
}

#[test]
fn json_lines_of_no_known_format_are_one_error_and_no_document() {
    for to in EVERY_FORMAT {
        let (code, out, err) = run(&["--to", to], "{\"foo\":1}\n{\"foo\":2,\"bar\":[]}\n");
        assert_eq!(code, 1, "--to {to}: {err}");
        assert_eq!(out, "", "--to {to}: nothing is written for a non-log");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(
                "scribe: -: not a log scribe knows: saw keys foo, bar; formats tried: "
            ),
            "{err}"
        );
    }
}

#[test]
fn the_formats_tried_are_every_format_from_offers() {
    let (_, _, err) = run(&[], "{\"foo\":1}\n");
    let formats = from_formats();
    assert!(formats.len() >= 9, "{formats:?}");
    for f in &formats {
        assert!(err.contains(f.as_str()), "{f} missing: {err}");
    }
}

#[test]
fn a_json_document_of_no_known_format_is_the_same_error() {
    for doc in [
        "{\"a\":1,\"b\":[1,2,3]}\n",
        "{\n  \"a\": 1,\n  \"b\": [1, 2, 3]\n}\n",
        "[\n  {\"a\": 1},\n  {\"b\": [1, 2, 3]}\n]\n",
    ] {
        let (code, out, err) = run(&["--to", "jsonl"], doc);
        assert_eq!(code, 1, "{doc}: {err}");
        assert_eq!(out, "", "{doc}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("not a log scribe knows: saw keys a, b; formats tried: claude-stream"),
            "{err}"
        );
    }
}

#[test]
fn the_keys_named_are_sanitized_and_bounded() {
    let keys: Vec<String> = (0..30).map(|i| format!("\"k{i}\":{i}")).collect();
    let line = format!(
        "{{\"\\u001b[31mred\":1,\"{}\":2,{}}}\n",
        "x".repeat(200),
        keys.join(",")
    );
    let (code, _, err) = run(&[], line);
    assert_eq!(code, 1, "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "no escape reaches the terminal: {err:?}"
    );
    assert!(!err.contains(&"x".repeat(41)), "a key is cut short: {err}");
    assert!(err.contains("k9 and 20 more;"), "at most 12 keys: {err}");
}

#[test]
fn with_several_inputs_a_non_log_is_reported_and_the_others_convert() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let meta = dir.path().join("meta.json");
    std::fs::write(&log, CLAUDE_STREAM).unwrap();
    std::fs::write(&meta, "{\"scenario\":\"x\",\"cli\":\"1.0\"}\n").unwrap();
    for jobs in ["1", "2"] {
        let out = scribe()
            .args(["--to", "jsonl", "--jobs", jobs])
            .arg(&meta)
            .arg(&log)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "--jobs {jobs}: {err}");
        assert!(err.contains("meta.json: not a log scribe knows"), "{err}");
        let recs = json_lines(&out.stdout);
        let headers: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "header").collect();
        assert_eq!(headers.len(), 1, "one document, the log's: {recs:?}");
        assert_eq!(headers[0]["source"], "claude-stream");
    }
    let pages = dir.path().join("pages");
    let out = scribe()
        .args(["--to", "html", "-o"])
        .arg(&pages)
        .arg(&meta)
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    assert_eq!(names, ["index.html", "s1.html"], "no page for the non-log");
}

#[test]
fn an_empty_input_is_an_empty_transcript_not_a_non_log() {
    for empty in ["", "\n\n  \n"] {
        let (code, out, err) = run(&["--to", "jsonl"], empty);
        assert_eq!(code, 0, "{err}");
        assert_eq!(err, "");
        let recs = json_lines(out.as_bytes());
        assert_eq!(recs.len(), 1, "{out}");
        assert_eq!(recs[0]["source"], "none");
    }
}

/// A Claude stream whose lines after the first four are JSON of a type nobody knows.
fn mostly_not_understood() -> String {
    let mut input = CLAUDE_STREAM.to_owned();
    for n in 0..8 {
        input.push_str(&format!("{{\"type\":\"telemetry_blob\",\"n\":{n}}}\n"));
    }
    input
}

#[test]
fn strict_fails_when_most_of_an_input_is_not_understood() {
    let (code, _, err) = run(&["--to", "jsonl", "--strict"], mostly_not_understood());
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "scribe: -: most of it was not understood: 8 debug records for its 12 lines"
        ),
        "{err}"
    );
}

#[test]
fn without_strict_an_input_mostly_not_understood_is_converted_and_said() {
    let (code, out, err) = run(&["--to", "jsonl"], mostly_not_understood());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("most of it was not understood"), "{err}");
    let recs = json_lines(out.as_bytes());
    let debug = recs.iter().filter(|r| r["kind"] == "debug").count();
    assert_eq!(debug, 8, "every line not understood is kept: {out}");
    // Half or fewer: nothing said.
    let mut half = CLAUDE_STREAM.to_owned();
    for n in 0..4 {
        half.push_str(&format!("{{\"type\":\"telemetry_blob\",\"n\":{n}}}\n"));
    }
    let (code, _, err) = run(&["--to", "jsonl", "--strict"], half);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not understood"), "{err}");
}

/// Files that are no log at all — a TOML manifest, Markdown, an application's log, binary
/// data — are refused like JSON of no known format: exit 1, one message naming the file,
/// nothing written in any format (no empty page, no empty transcript), from a file or stdin.
#[test]
fn files_that_are_not_json_lines_write_nothing_and_fail() {
    let inputs: [(&str, Vec<u8>); 4] = [
        (
            "toml",
            b"[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n"
                .to_vec(),
        ),
        (
            "markdown",
            b"# Notes\n\n- one\n- two\n\n```sh\nls\n```\n".to_vec(),
        ),
        (
            "app log",
            b"2026-12-07T10:00:00Z INFO server started\n2026-12-07T10:00:01Z WARN slow request\n"
                .to_vec(),
        ),
        ("binary", b"\x7fELF\x02\x01\x01\0\0\0\0\0".to_vec()),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (what, bytes) in inputs {
        let file = dir.path().join(format!("{}.txt", what.replace(' ', "-")));
        std::fs::write(&file, &bytes).unwrap();
        for to in EVERY_FORMAT {
            let (code, out, err) = run(&["--to", to], bytes.clone());
            assert_eq!(
                (code, out.as_str()),
                (1, ""),
                "{what} on stdin, --to {to}: {err}"
            );
            let got = scribe().args(["--to", to]).arg(&file).output().unwrap();
            assert_eq!(got.status.code(), Some(1), "{what}, --to {to}");
            assert!(
                got.stdout.is_empty(),
                "{what}, --to {to}: {}",
                String::from_utf8_lossy(&got.stdout)
            );
            let err = String::from_utf8_lossy(&got.stderr);
            assert!(
                err.contains(file.to_str().unwrap()),
                "the message names the file: {err}"
            );
        }
    }
}

/// A session exported as one JSON object wrapping its lines in an array (`{"loglines": [ … ]}`,
/// as claude-code-transcripts reads Claude Code web sessions) is read as those lines: every
/// prompt and answer is kept. An object holding more than that array stays no log.
#[test]
fn lines_wrapped_in_one_object_are_read_as_the_log() {
    let lines: Vec<&str> = CLAUDE_STREAM.lines().collect();
    let wrapped = format!(
        "{{\n  \"loglines\": [\n    {}\n  ]\n}}\n",
        lines.join(",\n    ")
    );
    let (code, out, err) = run(&["--to", "jsonl"], wrapped.clone());
    assert_eq!(code, 0, "{err}");
    let records = json_lines(out.as_bytes());
    let texts: Vec<String> = records
        .iter()
        .filter(|r| r["kind"] == "turn")
        .map(|t| {
            t["parts"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert!(texts.contains(&"What is 2+2?".to_owned()), "{texts:?}");
    assert!(texts.contains(&"It is four.".to_owned()), "{texts:?}");
    let (_, stats_out, stats) = run(&["--stats", "--to", "jsonl"], wrapped);
    assert!(!stats_out.is_empty());
    assert!(stats.contains("+ 0 unaccounted"), "{stats}");
    let more = format!(
        "{{\"loglines\": [{}], \"exported\": true}}",
        lines.join(",")
    );
    let (code, out, _) = run(&["--to", "jsonl"], more);
    assert_eq!((code, out.as_str()), (1, ""));
}
