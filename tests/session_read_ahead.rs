//! A saved session's first pass reads ahead on a spare core (`--jobs` above 1): lines are held
//! in batches of about a megabyte and their rows read on two threads. What a run says must not
//! tell: standard output, standard error (in the same order) and the exit status are those of
//! `--jobs 1`, for sessions large enough to be read in several batches, with lines that are not
//! JSON scattered, in a long run mid-file or at its end, and with lines the reader itself has
//! something to say of (invalid UTF-8, records glued together) after a broken one.

use std::fmt::Write as _;

use crate::util::scribe;

/// About `kib` KiB of a saved session on one chain: prompts and answers of some length.
fn rows(kib: usize, first: usize) -> Vec<String> {
    let common = r#""isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"5e55a0e1-0000-4000-8000-0000000000aa","version":"2.0.14","gitBranch":"main","timestamp":"2026-01-07T10:00:00.000Z""#;
    let words = "the build passed and the tests ran clean ".repeat(20);
    let mut out = Vec::new();
    let mut bytes = 0;
    let mut i = first;
    while bytes < kib << 10 {
        let parent = match i {
            0 => "null".to_owned(),
            _ => format!("\"a{}\"", i - 1),
        };
        let user = format!(
            r#"{{"parentUuid":{parent},{common},"type":"user","message":{{"role":"user","content":"Step {i}: {words}"}},"uuid":"u{i}"}}"#
        );
        let answer = format!(
            r#"{{"parentUuid":"u{i}",{common},"type":"assistant","message":{{"model":"claude-sonnet-4-5","id":"msg_{i}","type":"message","role":"assistant","content":[{{"type":"text","text":"Done {i}: {words}"}}],"stop_reason":"end_turn","usage":{{"input_tokens":10,"output_tokens":5}}}},"requestId":"req_{i}","uuid":"a{i}"}}"#
        );
        bytes += user.len() + answer.len() + 2;
        out.push(user);
        out.push(answer);
        i += 1;
    }
    out
}

/// `n` lines that are not JSON.
fn garbage(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("not json {i} {{")).collect()
}

/// Runs `args` over `input` (from a file, or standard input) with `--jobs 1` and `--jobs 2`
/// and checks that the two runs say the same.
fn same_with_one_core_or_two(name: &str, input: &[u8], args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    std::fs::write(&path, input).unwrap();
    for stdin in [false, true] {
        let run = |jobs: &str| {
            let mut cmd = scribe();
            cmd.args(["--jobs", jobs]).args(args);
            if stdin {
                cmd.arg("-").write_stdin(input.to_vec());
            } else {
                cmd.arg(&path);
            }
            cmd.output().unwrap()
        };
        let (one, two) = (run("1"), run("2"));
        let what = format!("{name} ({args:?}, stdin {stdin})");
        assert!(!one.stdout.is_empty(), "{what}: wrote nothing");
        assert_eq!(
            String::from_utf8_lossy(&one.stderr),
            String::from_utf8_lossy(&two.stderr),
            "{what}: standard error differs"
        );
        assert!(one.stdout == two.stdout, "{what}: standard output differs");
        assert_eq!(one.status.code(), two.status.code(), "{what}");
    }
}

/// Lines joined as a file.
fn file(lines: &[String]) -> Vec<u8> {
    let mut s = String::new();
    for l in lines {
        writeln!(s, "{l}").unwrap();
    }
    s.into_bytes()
}

#[test]
fn a_large_clean_session_reads_the_same_on_two_cores() {
    same_with_one_core_or_two("clean", &file(&rows(3000, 0)), &["--to", "jsonl"]);
}

#[test]
fn broken_lines_here_and_there_are_reported_in_order() {
    let mut lines = rows(2500, 0);
    for at in [3, 900, 901, 2000, 4100] {
        let at = at.min(lines.len());
        lines.insert(at, format!("{{\"broken\": {at}"));
    }
    same_with_one_core_or_two("scattered", &file(&lines), &["--to", "text"]);
}

#[test]
fn a_long_run_of_garbage_stops_the_input_where_it_did() {
    let mut mid = rows(1500, 0);
    mid.extend(garbage(150));
    mid.extend(rows(1500, 100_000));
    same_with_one_core_or_two("garbage mid-file", &file(&mid), &["--to", "jsonl"]);
    let mut end = rows(2500, 0);
    end.extend(garbage(150));
    same_with_one_core_or_two("garbage at the end", &file(&end), &["--to", "jsonl"]);
    let mut short = rows(2500, 0);
    short.extend(garbage(60));
    same_with_one_core_or_two("a short run at the end", &file(&short), &["--to", "md"]);
}

#[test]
fn what_the_reader_says_of_a_line_comes_after_the_broken_lines_before_it() {
    let lines = rows(2000, 0);
    let mut input = file(&lines[..40]);
    input.extend_from_slice(b"{\"broken\": 1\n");
    input.extend_from_slice(&file(&lines[40..80]));
    // Invalid UTF-8 in a row's text.
    let bad_utf8 = lines[80].replacen("Step", "St\u{1}p", 1).into_bytes();
    input.extend(bad_utf8.into_iter().map(|b| if b == 1 { 0xff } else { b }));
    input.push(b'\n');
    input.extend_from_slice(b"{\"broken\": 2\n");
    // Two rows glued on one line.
    input.extend_from_slice(format!("{}{}\n", lines[81], lines[82]).as_bytes());
    input.extend_from_slice(&file(&lines[83..]));
    same_with_one_core_or_two("reader's words", &input, &["--to", "jsonl"]);
}
