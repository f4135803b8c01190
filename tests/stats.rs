//! `--stats`: every line read is accounted for (in a record, in a `debug` record, named by a
//! diagnostic, or blank), over every sample, every corpus file and hostile lines.

use std::path::{Path, PathBuf};

use crate::util::{corpus, external2_files, files_under, root, sample, scribe};

/// The line-accounting figures `--stats` printed.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Account {
    pub(crate) read: u64,
    pub(crate) in_records: u64,
    pub(crate) absorbed: u64,
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
    // N input(s), then the seven figures in order.
    assert_eq!(numbers.len(), 8, "unexpected --stats line: {line}");
    Account {
        read: numbers[1],
        in_records: numbers[2],
        absorbed: numbers[3],
        in_debug: numbers[4],
        diagnosed: numbers[5],
        blank: numbers[6],
        unaccounted: numbers[7],
    }
}

/// Asserts the invariant: lines read = in records + absorbed + in debug records + with a
/// diagnostic + blank, nothing unaccounted.
pub(crate) fn assert_balanced(what: &str, stderr: &str) -> Account {
    let a = account(stderr);
    assert_eq!(a.unaccounted, 0, "{what}: lines unaccounted for:\n{stderr}");
    assert_eq!(
        a.read,
        a.in_records + a.absorbed + a.in_debug + a.diagnosed + a.blank,
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
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn stats_account_for_every_line_of_every_corpus_file() {
    let dir = corpus();
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
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn stats_account_for_every_line_of_every_external2_file() {
    for (f, _) in external2_files() {
        assert_balanced(
            &f.display().to_string(),
            &stats_of(std::slice::from_ref(&f)),
        );
    }
}

/// `debug` records external2 still holds, as (file suffix, raw kind as `--stats` names it, why
/// no adapter reads them). The test fails when one of them is no longer a debug record, so the
/// list only shrinks.
pub(crate) const EXTERNAL2_DEBUG: &[(&str, &str, &str)] = &[(
    "docs/logs/20251222/143545-call-issue-ready-now-to.jsonl",
    "type=system",
    "an SDK wrapper's re-serialisation of stream-json, not Claude Code's output: its init \
         is nested under `message`, a shape no CLI writes",
)];

/// The `debug records by raw kind` of `--stats`, as (kind, count).
fn debug_kinds(stderr: &str) -> Vec<(String, u64)> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("scribe: stats: debug records by raw kind: "))
        .unwrap_or_else(|| panic!("no debug kinds in --stats:\n{stderr}"));
    if line == "none" {
        return Vec::new();
    }
    line.split(", ")
        .filter_map(|kv| kv.rsplit_once(' '))
        .map(|(k, n)| (k.to_owned(), n.parse().expect("a count")))
        .collect()
}

/// Every line of every real log of external2 reaches a record an adapter understood: the only
/// `debug` records left are those [`EXTERNAL2_DEBUG`] lists, with the reason.
#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn external2_logs_hold_no_debug_records_but_the_known_ones() {
    let mut failures = Vec::new();
    let (mut records, mut files) = (0, 0);
    for (f, _) in external2_files() {
        let name = f.display().to_string();
        let kinds = debug_kinds(&stats_of(std::slice::from_ref(&f)));
        files += usize::from(!kinds.is_empty());
        for (kind, n) in &kinds {
            records += n;
            let known = EXTERNAL2_DEBUG
                .iter()
                .any(|(suffix, k, _)| name.ends_with(suffix) && k == kind);
            if !known {
                failures.push(format!("{name}: {n} debug records of kind {kind}"));
            }
        }
        for (suffix, kind, why) in EXTERNAL2_DEBUG.iter().filter(|e| name.ends_with(e.0)) {
            if !kinds.iter().any(|(k, _)| k == kind) {
                failures.push(format!(
                    "{suffix}: no {kind} debug record now: take it off EXTERNAL2_DEBUG ({why})"
                ));
            }
        }
    }
    eprintln!("external2: {records} debug records over {files} files");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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
    assert_garbage_lines_are_debug_records(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"qwen_code_version\":\"1\"}\n",
    );
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_garbage_line_in_a_real_qwen_stream_is_a_debug_record() {
    let path = crate::util::corpus().join("qwen-code/tools/stream.jsonl");
    assert_garbage_lines_are_debug_records(&std::fs::read_to_string(path).unwrap());
}

/// A line that is not JSON and one whose `message` is not an object, put after the first line of
/// the Qwen stream `lines`, each become a debug record that keeps the line.
fn assert_garbage_lines_are_debug_records(lines: &str) {
    let mut spoiled: Vec<&str> = lines.lines().collect();
    spoiled.insert(1, "{\"type\":\"assistant\",\"message\":[1,2,3]}");
    spoiled.insert(1, "%%% garbage %%%");
    let (stdout, stderr) = stats_of_stdin(&(spoiled.join("\n") + "\n"), Some("qwen-stream"));
    let a = assert_balanced("stdin", &stderr);
    assert_eq!(a.in_debug, 2, "{stderr}");
    assert!(stdout.contains("%%% garbage %%%"), "{stdout}");
}

/// In a saved session (claude-code-log's `edge_cases.jsonl`), a user row whose `message` has
/// `contenst` for `content`, and one whose `message` is the string "error", decoded into nothing:
/// they were only named by an error at the end ("line not reflected in any record"), their text
/// lost. Now each is a `debug` record that keeps the line, and the run has no error.
#[test]
fn a_session_row_whose_message_decodes_into_nothing_is_a_debug_record() {
    let session = std::fs::read_to_string(sample(
        "claude-session/missing-subagent/5e55a0e1-0000-4000-8000-000000000006.jsonl",
    ))
    .unwrap();
    let mut lines: Vec<&str> = session.lines().collect();
    lines.insert(
        1,
        r#"{"type":"user","parentUuid":null,"isSidechain":false,"sessionId":"s","uuid":"edge_010","toolUseResult":"File created at /tmp/x.py","message":{"role":"user","contenst":[{"type":"tool_result","tool_use_id":"tool_edge_002","content":"File created at /tmp/x.py"}]}}"#,
    );
    lines.insert(
        2,
        r#"{"type":"user","parentUuid":null,"isSidechain":false,"sessionId":"s","uuid":"edge_011","message":"error"}"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir
        .path()
        .join("5e55a0e1-0000-4000-8000-000000000006.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let (stdout, stderr) = stats_run(&[], &file);
    assert!(stdout.contains(r#""source":"claude-session""#), "{stdout}");
    let a = assert_balanced("session", &stderr);
    assert_eq!(a.in_debug, 2, "{stderr}");
    assert!(!stderr.contains("not reflected"), "{stderr}");
    assert!(stdout.contains("File created at /tmp/x.py"), "{stdout}");
    assert!(stdout.contains("edge_011"), "{stdout}");
}

/// Copies a directory tree (a saved session with its sub-agent files).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

#[test]
fn a_sub_agent_files_lines_are_not_counted_as_the_sessions_lines() {
    // A line nobody knows in a sub-agent's own file is a debug record that names that file and
    // its line; it used to mark the session file's line of the same number as a debug line.
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&sample("claude-session/subagents-new"), dir.path());
    let sid = "5e55a0e1-0000-4000-8000-000000000003";
    let agent = dir
        .path()
        .join(sid)
        .join("subagents/agent-a0123456789abcdef.jsonl");
    let mut lines: Vec<String> = std::fs::read_to_string(&agent)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.insert(
        1,
        r#"{"type":"mystery-entry","note":"only in the sub-agent file"}"#.into(),
    );
    std::fs::write(&agent, lines.join("\n") + "\n").unwrap();
    let main = dir.path().join(format!("{sid}.jsonl"));
    let out = scribe()
        .args(["--stats", "--to", "jsonl"])
        .arg(&main)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let a = assert_balanced("session", &stderr);
    assert_eq!(
        a.in_debug, 0,
        "no line of the session file is a debug line:\n{stderr}"
    );
    let debug: Vec<serde_json::Value> = crate::util::json_lines(&out.stdout)
        .into_iter()
        .filter(|r| r["kind"] == "debug")
        .collect();
    assert_eq!(debug.len(), 1, "{debug:?}");
    assert_eq!(debug[0]["line"], 0);
    let reason = debug[0]["reason"].as_str().unwrap();
    assert!(
        reason.ends_with("(agent-a0123456789abcdef.jsonl line 2)"),
        "{reason}"
    );
}

/// Found by the `qwen_daemon` fuzzer: a `state_resync_required` moved the next expected id past
/// events waiting for a hole, and the end of input gave up on everything still waiting, so a
/// tool output, a reply, a prompt and two calls were only named by "line not reflected in any
/// record". Every one of them is in the transcript now, and no line needs that safety net.
#[test]
fn a_resync_past_waiting_daemon_events_loses_none_of_them() {
    let file = root().join("tests/fuzz-found/qwen-daemon-resync-past-waiting-events.sse");
    let (stdout, stderr) = stats_run(&["--from", "qwen-daemon"], &file);
    assert_balanced("resync", &stderr);
    assert!(!stderr.contains("not reflected"), "{stderr}");
    for text in [
        "built ok",
        "Built.",
        "Now wait a long time.",
        "call_gone",
        "call_sleep",
    ] {
        assert!(stdout.contains(text), "{text} lost:\n{stdout}");
    }
}

/// Found by the `qwen_daemon` fuzzer: a chunk that adds a non-text part to a message begun on an
/// earlier line, and a content-less chunk that ends the message, wrote nothing under their own
/// lines, so only the safety net ("line not reflected in any record") accounted for them,
/// although the part is in the transcript.
#[test]
fn qwen_chunks_gathered_into_an_earlier_lines_message_are_accounted_for() {
    let frame = |id: u64, update: &str| {
        format!(
            "id: {id}\nevent: session_update\ndata: {{\"id\":{id},\"v\":1,\"type\":\"session_update\",\"data\":{{\"sessionId\":\"s\",\"update\":{update}}}}}\n\n"
        )
    };
    let sse = [
        frame(
            1,
            r#"{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"Draw it."}}"#,
        ),
        frame(
            2,
            r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Here:"}}"#,
        ),
        frame(
            3,
            r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}}"#,
        ),
        frame(
            4,
            r#"{"sessionUpdate":"agent_message_chunk","_meta":{"usage":{"inputTokens":5,"outputTokens":2}}}"#,
        ),
    ]
    .concat();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("events.sse");
    std::fs::write(&file, sse).unwrap();
    let (stdout, stderr) = stats_run(&["--from", "qwen-daemon"], &file);
    assert_balanced("gathered", &stderr);
    assert!(!stderr.contains("not reflected"), "{stderr}");
    assert!(stdout.contains("iVBORw0KGgo="), "{stdout}");
    assert!(stdout.contains("Here:"), "{stdout}");
}

/// Runs `scribe --stats --to jsonl ARGS FILE` and returns its standard output and error.
fn stats_run(args: &[&str], file: &Path) -> (String, String) {
    let out = scribe()
        .arg("--stats")
        .args(args)
        .args(["--to", "jsonl"])
        .arg(file)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `scribe --stats --to events ARGS FILE` and returns its standard output and error.
fn events_run(args: &[&str], file: &Path) -> (String, String) {
    let out = scribe()
        .args(["--stats", "--to", "events"])
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Claude stream cut off mid-answer (`--include-partial-messages`, as captured in the corpus's
/// `10-partial-messages`): a message starts, its text block streams in two deltas that split a
/// secret, and the input ends before the message's `assistant` line.
fn stream_cut_after_deltas() -> String {
    let sid = r#""session_id":"s-1","parent_tool_use_id":null"#;
    let delta = |text: &str| {
        format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{text}"}}}},{sid}}}"#
        )
    };
    [
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s-1","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i"}"#
            .to_owned(),
        format!(
            r#"{{"type":"stream_event","event":{{"type":"message_start","message":{{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[]}}}},{sid}}}"#
        ),
        format!(
            r#"{{"type":"stream_event","event":{{"type":"content_block_start","index":0,"content_block":{{"type":"text","text":""}}}},{sid}}}"#
        ),
        delta("Your key is sk-ant-api03-Zx8Qm2Lk9Pw4"),
        delta("Rt6Yu1Io3PaSdFgHjKl, keep it safe."),
    ]
    .join("\n")
        + "\n"
}

/// Under `--redact` (and `--stable`) the live view holds streamed text until its block comes;
/// when the input ends first, the text is shown whole at the end rather than lost, redacted as a
/// whole, and `--stats` accounts for the lines exactly as without the option.
#[test]
fn streamed_text_whose_block_never_came_reaches_an_event_under_redact() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.jsonl");
    std::fs::write(&file, stream_cut_after_deltas()).unwrap();
    let (plain, plain_err) = events_run(&[], &file);
    assert!(plain.contains("Rt6Yu1Io3PaSdFgHjKl"), "{plain}");
    for args in [&["--redact"][..], &["--stable"], &["--redact", "--stable"]] {
        let (out, err) = events_run(args, &file);
        assert_eq!(account(&err), account(&plain_err), "{args:?}\n{err}");
        assert!(
            out.contains("Your key is"),
            "{args:?}: the text is lost\n{out}"
        );
        assert!(
            out.contains("keep it safe."),
            "{args:?}: the text is lost\n{out}"
        );
        if args.contains(&"--redact") {
            assert!(
                !out.contains("Zx8Qm2Lk9Pw4"),
                "{args:?}: the key leaked\n{out}"
            );
            assert!(
                !out.contains("Rt6Yu1Io3PaSdFgHjKl"),
                "{args:?}: the key leaked\n{out}"
            );
        }
    }
}

/// Over every corpus file that streams deltas: `--redact` changes neither the `--stats` account
/// nor which messages reach the live view (`--to events`), nor the number of any other event.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn redact_changes_no_account_and_loses_no_streamed_message_over_the_corpus() {
    let corpus = corpus();
    let external2 = corpus.join("../external2");
    assert!(external2.is_dir(), "{} not found", external2.display());
    let streams: Vec<PathBuf> = [corpus, external2]
        .iter()
        .flat_map(|d| files_under(d, &is_log))
        .filter(|f| std::fs::read_to_string(f).is_ok_and(|t| t.contains("delta")))
        .collect();
    assert!(streams.len() >= 10, "{} streams", streams.len());
    let events = |out: &str, deltas: bool| -> Vec<String> {
        let mut kinds: Vec<String> = crate::util::json_lines(out.as_bytes())
            .iter()
            .filter(|e| e["event"].as_str().is_some_and(|k| k.ends_with("-delta")) == deltas)
            .map(|e| match deltas {
                true => e["messageId"].as_str().unwrap_or("").to_owned(),
                false => e["event"].as_str().unwrap_or("").to_owned(),
            })
            .collect();
        kinds.sort();
        kinds.dedup_by(|a, b| deltas && a == b);
        kinds
    };
    for f in &streams {
        let (plain, plain_err) = events_run(&[], f);
        let (red, red_err) = events_run(&["--redact"], f);
        let what = f.display();
        assert_eq!(account(&red_err), account(&plain_err), "{what}");
        assert_eq!(events(&red, false), events(&plain, false), "{what}");
        let shown: Vec<String> = crate::util::json_lines(red.as_bytes())
            .iter()
            .filter_map(|e| e["messageId"].as_str().map(str::to_owned))
            .collect();
        for message in events(&plain, true) {
            assert!(
                shown.contains(&message),
                "{what}: {message} reaches no event"
            );
        }
    }
}
