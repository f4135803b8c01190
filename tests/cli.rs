//! Command-line behaviour: inputs, line handling, exit codes, diagnostics, broken pipes and live
//! output.

use std::io::{Read, Write};
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use crate::util::{json_lines, sample, scribe};

const TEXT_TURN: &str = r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null}"#;
const RESULT: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01}"#;

fn run_stdin(input: impl Into<Vec<u8>>, args: &[&str]) -> (i32, Vec<serde_json::Value>, String) {
    let out = scribe()
        .args(["--to", "jsonl"])
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        json_lines(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn reads_stdin_and_writes_a_header_first() {
    let (code, recs, err) = run_stdin(format!("{TEXT_TURN}\n"), &[]);
    assert_eq!(code, 0);
    assert!(err.is_empty());
    assert_eq!(recs[0]["kind"], "header");
    assert_eq!(recs[0]["version"], 3);
    assert_eq!(recs[0]["source"], "claude-stream");
    assert_eq!(recs[0]["file"], "-");
    assert_eq!(recs[1]["kind"], "turn");
    assert_eq!(recs[1]["parts"][0]["text"], "hi");
}

#[test]
fn dash_reads_stdin_among_files() {
    let out = scribe()
        .args(["--to", "jsonl"])
        .arg(sample("claude-stream/classify-real-input.jsonl"))
        .arg("-")
        .write_stdin(format!("{TEXT_TURN}\n"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let recs = json_lines(&out);
    let headers: Vec<&serde_json::Value> = recs.iter().filter(|r| r["kind"] == "header").collect();
    assert_eq!(
        headers.len(),
        2,
        "each input is its own transcript with its own header"
    );
    assert_eq!(headers[1]["file"], "-");
}

#[test]
fn bom_crlf_and_blank_lines_are_tolerated() {
    let input = format!("\u{feff}{TEXT_TURN}\r\n\r\n{RESULT}\r\n");
    let (code, recs, err) = run_stdin(input, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert_eq!(recs[1]["kind"], "turn");
    assert_eq!(recs[2]["notice"]["kind"], "result");
}

#[test]
fn invalid_utf8_is_replaced_reported_and_kept() {
    let mut input = Vec::new();
    input.extend_from_slice(
        br#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"caf"#,
    );
    input.extend_from_slice(b"\xe9\xff");
    input.extend_from_slice(b"\"}]},\"parent_tool_use_id\":null}\n");
    input.extend_from_slice(RESULT.as_bytes());
    input.push(b'\n');
    let (code, recs, err) = run_stdin(input, &[]);
    assert_eq!(code, 0);
    assert!(err.contains("-:1: invalid UTF-8"), "{err}");
    assert_eq!(recs[1]["parts"][0]["text"], "caf\u{fffd}\u{fffd}");
    assert_eq!(
        recs[2]["notice"]["kind"], "result",
        "the next line is not lost"
    );
}

#[test]
fn truncated_last_line_is_reported_without_losing_the_lines_before() {
    let input = format!("{TEXT_TURN}\n{}", &RESULT[..30]);
    let (code, recs, err) = run_stdin(input, &[]);
    assert_eq!(code, 0);
    assert!(err.contains("-:2: truncated last line"), "{err}");
    assert_eq!(recs[1]["kind"], "turn");
    assert_eq!(recs[2]["kind"], "debug");
    assert_eq!(recs[2]["line"], 2);
}

#[test]
fn bad_json_in_the_middle_is_reported_and_the_run_goes_on() {
    let input = format!("{TEXT_TURN}\nnot json at all\n{RESULT}\n");
    let (code, recs, err) = run_stdin(input.clone(), &[]);
    assert_eq!(code, 0);
    assert!(err.starts_with("scribe: -:2: invalid JSON"), "{err}");
    assert_eq!(recs.iter().filter(|r| r["kind"] == "debug").count(), 1);
    assert_eq!(recs.last().unwrap()["notice"]["kind"], "result");

    let (code, recs, err) = run_stdin(input, &["--strict"]);
    assert_eq!(code, 1, "--strict makes the first input error fatal");
    assert!(err.contains("-:2: invalid JSON"), "{err}");
    assert!(
        recs.iter().all(|r| r["notice"]["kind"] != "result"),
        "nothing after the error"
    );
}

#[test]
fn a_missing_file_is_exit_2_and_the_other_files_still_run() {
    let out = scribe()
        .args(["--to", "jsonl", "no-such-file.jsonl"])
        .arg(sample("claude-stream/classify-real-input.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("scribe: no-such-file.jsonl: "), "{err}");
    assert_eq!(json_lines(&out.stdout)[0]["kind"], "header");
}

#[test]
fn usage_errors_are_exit_2() {
    scribe().args(["--to", "nonsense"]).assert().code(2);
    scribe().arg("--no-such-flag").assert().code(2);
}

#[test]
fn a_50_mb_line_goes_through_whole() {
    let big = "x".repeat(50 * 1024 * 1024);
    let input = format!(
        "{TEXT_TURN}\n{{\"type\":\"assistant\",\"message\":{{\"id\":\"m2\",\"content\":[{{\"type\":\"text\",\"text\":\"{big}\"}}]}},\"parent_tool_use_id\":null}}\n{RESULT}\n"
    );
    let (code, recs, err) = run_stdin(input, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        recs[2]["parts"][0]["text"].as_str().unwrap().len(),
        big.len()
    );
    assert_eq!(recs[3]["notice"]["kind"], "result");
}

#[test]
fn broken_pipe_is_a_quiet_success() {
    // One thread (events), the renderer on a thread of its own (text, md, --stable jsonl), and
    // --jobs 1.
    for args in [
        &["--to", "events"][..],
        &["--to", "text"],
        &["--to", "md"],
        &["--to", "jsonl", "--stable"],
        &["--to", "text", "--jobs", "1"],
    ] {
        broken_pipe_with(args);
    }
}

/// `broken_pipe_is_a_quiet_success` for one command line.
fn broken_pipe_with(args: &[&str]) {
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("scribe"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let line = format!("{TEXT_TURN}\n");
    for _ in 0..20_000 {
        if stdin.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    drop(stdin);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{args:?}");
    assert!(err.is_empty(), "{args:?}: stderr: {err}");
}

#[test]
fn output_appears_while_the_input_is_still_open() {
    // JSON Lines on one thread; --stable JSON Lines and Markdown with the renderer on a thread of
    // its own.
    for (args, turn) in [
        (&["--to", "jsonl"][..], "\"kind\":\"turn\""),
        (&["--to", "jsonl", "--stable"], "\"kind\":\"turn\""),
        (&["--to", "md"], "hi"),
    ] {
        let (mut child, mut stdin, rx) = crate::util::spawn_live(args);
        // A whole agent turn, then the stream pauses with stdin still open.
        writeln!(stdin, "{TEXT_TURN}\n{RESULT}").unwrap();
        stdin.flush().unwrap();
        let mut seen = Vec::new();
        while !seen.iter().any(|l: &String| l.contains(turn)) {
            // The bound only keeps a broken build from hanging the suite; it is not a timing
            // check.
            let line = rx
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("{args:?}: the turn was printed before EOF"));
            seen.push(line);
        }
        if args[1] == "jsonl" {
            assert!(seen[0].contains("\"kind\":\"header\""));
        }
        drop(stdin);
        assert!(child.wait().unwrap().success(), "{args:?}");
    }
}

#[test]
fn man_page_matches_the_cli() {
    let out = scribe()
        .args(["--generate", "man"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let committed =
        std::fs::read(crate::util::root().join("man/scribe.1")).expect("man/scribe.1 exists");
    assert!(
        out == committed,
        "man/scribe.1 is out of date: run `cargo run -- --generate man > man/scribe.1`"
    );
}
