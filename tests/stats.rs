//! `--stats`: every line read is accounted for (in a record, in a `debug` record, named by a
//! diagnostic, or blank), over every sample, every corpus file and hostile lines.

use std::path::{Path, PathBuf};

use crate::util::{corpus, files_under, root, sample, scribe};

/// The line-accounting figures `--stats` printed.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Account {
    pub(crate) read: u64,
    pub(crate) in_records: u64,
    pub(crate) in_debug: u64,
    pub(crate) diagnosed: u64,
    pub(crate) blank: u64,
    pub(crate) unaccounted: u64,
}

/// Parses the `lines read = …` line of `--stats` from stderr.
pub(crate) fn account(stderr: &str) -> Account {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("scribe: stats:") && l.contains("lines read ="))
        .unwrap_or_else(|| panic!("no --stats account in stderr:\n{stderr}"));
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    // N input(s), then the six figures in order.
    let [_, read, in_records, in_debug, diagnosed, blank, unaccounted] = numbers[..] else {
        panic!("unexpected --stats line: {line}");
    };
    Account {
        read,
        in_records,
        in_debug,
        diagnosed,
        blank,
        unaccounted,
    }
}

/// Asserts the invariant: lines read = in records + in debug records + with a diagnostic +
/// blank, nothing unaccounted.
pub(crate) fn assert_balanced(what: &str, stderr: &str) -> Account {
    let a = account(stderr);
    assert_eq!(a.unaccounted, 0, "{what}: lines unaccounted for:\n{stderr}");
    assert_eq!(
        a.read,
        a.in_records + a.in_debug + a.diagnosed + a.blank,
        "{what}: the account does not add up:\n{stderr}"
    );
    a
}

/// Runs `scribe --stats --to jsonl` on files; returns stderr.
fn stats_of(files: &[PathBuf]) -> String {
    let out = scribe()
        .args(["--stats", "--to", "jsonl"])
        .args(files)
        .output()
        .expect("scribe runs");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `scribe --stats --to jsonl` on standard input; returns stdout and stderr.
fn stats_of_stdin(input: &str, from: Option<&str>) -> (String, String) {
    let mut cmd = scribe();
    cmd.args(["--stats", "--to", "jsonl"]);
    if let Some(f) = from {
        cmd.args(["--from", f]);
    }
    let out = cmd.write_stdin(input).output().expect("scribe runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn is_log(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| ["jsonl", "sse", "ndjson", "json"].contains(&e.to_string_lossy().as_ref()))
}

#[test]
fn stats_account_for_every_line_of_every_sample() {
    let files = files_under(&root().join("samples"), &is_log);
    assert!(
        files.len() > 20,
        "expected the samples, found {}",
        files.len()
    );
    for f in &files {
        assert_balanced(&f.display().to_string(), &stats_of(std::slice::from_ref(f)));
    }
}

#[test]
fn stats_account_for_every_line_of_every_corpus_file() {
    let Some(dir) = corpus() else { return };
    let files = files_under(&dir, &is_log);
    assert!(
        files
            .iter()
            .any(|f| f.to_string_lossy().contains("/external/")),
        "the external corpus is part of the account"
    );
    for f in &files {
        assert_balanced(&f.display().to_string(), &stats_of(std::slice::from_ref(f)));
    }
}

#[test]
fn stats_report_records_debug_kinds_and_diagnostics_by_kind() {
    let (_, stderr) = stats_of_stdin(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\",\"tools\":[]}\n\
         not json\n\
         {\"type\":\"mystery\"}\n",
        Some("claude-stream"),
    );
    let a = assert_balanced("stdin", &stderr);
    assert_eq!(a.read, 3);
    assert!(
        stderr.contains("records written: debug 2, session 1"),
        "{stderr}"
    );
    assert!(
        stderr.contains("debug records by raw kind: (not JSON) 1, type=mystery 1"),
        "{stderr}"
    );
    assert!(
        stderr.contains("diagnostics: error: invalid JSON 1"),
        "{stderr}"
    );
}

#[test]
fn a_message_that_is_a_number_or_an_array_is_a_debug_record() {
    let input = "{\"type\":\"assistant\",\"message\":12345,\"session_id\":\"s\"}\n\
                 {\"type\":\"assistant\",\"message\":[{\"type\":\"text\",\"text\":\"hi\"}],\"session_id\":\"s\"}\n\
                 {\"type\":\"user\",\"message\":12345,\"session_id\":\"s\"}\n";
    let (stdout, stderr) = stats_of_stdin(input, Some("claude-stream"));
    let a = assert_balanced("stdin", &stderr);
    assert_eq!(a.in_debug, 3, "{stderr}");
    assert_eq!(stdout.matches("\"kind\":\"debug\"").count(), 3, "{stdout}");
    assert!(stdout.contains("12345"), "{stdout}");
}

#[test]
fn a_garbage_line_in_a_qwen_line_file_hides_nothing_after_it() {
    let lines = std::fs::read_to_string(sample("qwen-daemon-lines.jsonl")).unwrap();
    let (clean, _) = stats_of_stdin(&lines, None);
    let mut spoiled: Vec<&str> = lines.lines().collect();
    spoiled.insert(1, "garbage, not JSON and not SSE");
    let (stdout, stderr) = stats_of_stdin(&(spoiled.join("\n") + "\n"), None);
    let a = assert_balanced("stdin", &stderr);
    assert_eq!(a.in_debug, 1, "{stderr}");
    // Every record of the clean file is still there (plus the debug record).
    let turns = |s: &str| s.matches("\"kind\":\"turn\"").count();
    assert_eq!(turns(&stdout), turns(&clean), "{stdout}");
    assert!(stdout.contains("garbage, not JSON"), "{stdout}");
}

#[test]
fn a_qwen_stream_garbage_line_is_a_debug_record() {
    let lines =
        std::fs::read_to_string(root().join("../shared/corpus/qwen-code/tools/stream.jsonl"))
            .unwrap_or_else(|_| {
                "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"qwen_code_version\":\"1\"}\n"
                    .into()
            });
    let mut spoiled: Vec<&str> = lines.lines().collect();
    spoiled.insert(1, "{\"type\":\"assistant\",\"message\":[1,2,3]}");
    spoiled.insert(1, "%%% garbage %%%");
    let (stdout, stderr) = stats_of_stdin(&(spoiled.join("\n") + "\n"), Some("qwen-stream"));
    let a = assert_balanced("stdin", &stderr);
    assert_eq!(a.in_debug, 2, "{stderr}");
    assert!(stdout.contains("%%% garbage %%%"), "{stdout}");
}
