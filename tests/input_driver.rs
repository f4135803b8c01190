//! The input driver: detection from consistent evidence, honest errors for inputs that are not
//! what scribe reads, and whole JSON documents read as the messages they hold (issues 10, 11,
//! 13, 15).

use std::path::Path;

use serde_json::Value;

use crate::util::{corpus, json_lines, sample, scribe};

/// Runs scribe with `args` on `stdin`: exit code, stdout, stderr.
fn run(args: &[&str], stdin: impl Into<Vec<u8>>) -> (i32, String, String) {
    let out = scribe().args(args).write_stdin(stdin).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The records of `--to jsonl` without the header's `file` (which names the input).
fn records(stdout: &str) -> Vec<Value> {
    let mut recs = json_lines(stdout.as_bytes());
    if let Some(h) = recs.first_mut().and_then(Value::as_object_mut) {
        h.remove("file");
    }
    recs
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

const STREAM: &str = "claude-stream/classify-real-input.jsonl";

// ── Detection ──────────────────────────────────────────────────────────────────────────────

#[test]
fn an_sse_field_line_before_a_claude_stream_does_not_make_it_a_qwen_stream() {
    let plain = read(&sample(STREAM));
    let (_, want, _) = run(&["--to", "jsonl"], plain.clone());
    let (code, got, err) = run(&["--to", "jsonl", "--strict"], format!("event: x\n{plain}"));
    assert_eq!(code, 0, "{err}");
    let (want, got) = (records(&want), records(&got));
    assert_eq!(got[0]["source"], "claude-stream");
    let turns = |r: &[Value]| r.iter().filter(|r| r["kind"] == "turn").count();
    assert!(turns(&want) > 0);
    assert_eq!(turns(&got), turns(&want), "no turn vanished");
    assert_eq!(
        err.lines().count(),
        1,
        "one warning for the skipped line: {err}"
    );
    assert!(err.contains(":1: skipped 1 line that is not JSON"), "{err}");
}

#[test]
fn leading_chatter_is_skipped_once_and_the_format_comes_from_the_json_lines() {
    let stream = read(&sample("gemini-stream-edges.jsonl"));
    let input = format!("Loaded cached credentials.\nWarning: something odd\n{stream}");
    let (code, out, err) = run(&["--to", "jsonl"], input);
    assert_eq!(code, 0, "{err}");
    let recs = records(&out);
    assert_eq!(recs[0]["source"], "gemini-stream");
    assert!(
        err.starts_with(
            "scribe: -:1: skipped 2 lines that are not JSON, before the first JSON line"
        ),
        "{err}"
    );
    let chatter: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "debug" && r["line"].as_u64() <= Some(2))
        .collect();
    assert_eq!(
        chatter.len(),
        2,
        "each skipped line is kept as a debug record"
    );
}

#[test]
fn from_still_forces_a_format_detection_would_not_pick() {
    let (code, out, err) = run(
        &["--to", "jsonl", "--from", "claude-stream"],
        "{\"foo\":1}\n",
    );
    assert_eq!(code, 0);
    assert!(!err.contains("not a log scribe knows"), "{err}");
    assert_eq!(records(&out)[0]["source"], "claude-stream");
}

// ── Honest errors ──────────────────────────────────────────────────────────────────────────

#[test]
fn a_binary_file_is_one_message_and_exit_1() {
    let mut bytes: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
    bytes[10] = 0;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.out");
    std::fs::write(&path, &bytes).unwrap();
    let out = scribe().arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("a.out: does not look like JSON Lines"),
        "{err}"
    );
    assert!(out.stdout.len() < 1000, "no output for the bytes");
}

#[test]
fn more_than_100_undecodable_lines_in_a_row_stop_the_input_with_exit_1() {
    let mut input = read(&sample(STREAM));
    for i in 0..5000 {
        input.push_str(&format!("garbage {i}\n"));
    }
    let (code, _, err) = run(&["--to", "jsonl"], input);
    assert_eq!(code, 1, "{err}");
    assert!(err.lines().count() <= 105, "{} lines", err.lines().count());
    assert!(err.ends_with("-: does not look like JSON Lines (more than 100 lines in a row it could not decode); stopped reading it\n"), "{err}");
}

#[test]
fn a_text_file_without_json_is_not_json_lines() {
    let (code, out, err) = run(&[], "Hello.\nThis is prose.\n");
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("does not look like JSON Lines"), "{err}");
    assert!(!out.contains("not understood"), "{out}");
}

#[test]
fn an_empty_directory_says_no_sessions_found_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = scribe().arg(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        err.trim_end(),
        format!("scribe: no sessions found in {}", dir.path().display())
    );
}

#[test]
fn a_missing_file_is_named_in_words_without_an_os_error_number() {
    let out = scribe().arg("no-such-file.jsonl").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        err.trim_end(),
        "scribe: no-such-file.jsonl: no such file or directory"
    );
}

#[test]
fn output_dir_onto_an_existing_file_names_the_output_path() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.txt");
    std::fs::write(&target, "x").unwrap();
    let out = scribe()
        .arg("-o")
        .arg(&target)
        .arg(sample(STREAM))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains(&target.display().to_string()), "{err}");
    assert!(
        !err.contains(STREAM),
        "names the output, not the input: {err}"
    );
    assert!(!err.contains("os error"), "{err}");
}

#[test]
fn diff_of_a_text_output_file_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("run.txt");
    let out = scribe().arg(sample(STREAM)).output().unwrap();
    std::fs::write(&text, &out.stdout).unwrap();
    let out = scribe()
        .arg("diff")
        .arg(sample(STREAM))
        .arg(&text)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("neither a scribe transcript nor an agent log"),
        "{err}"
    );
}

#[test]
fn diff_reads_through_the_same_driver_chatter_warning_and_strict_included() {
    let dir = tempfile::tempdir().unwrap();
    let noisy = dir.path().join("noisy.jsonl");
    std::fs::write(
        &noisy,
        format!("Loaded cached credentials.\n{}", read(&sample(STREAM))),
    )
    .unwrap();
    let out = scribe()
        .arg("diff")
        .arg(sample(STREAM))
        .arg(&noisy)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("skipped 1 line that is not JSON"), "{err}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the skipped line is a debug record: {err}"
    );

    let broken = dir.path().join("broken.jsonl");
    std::fs::write(&broken, format!("{}not json\n", read(&sample(STREAM)))).unwrap();
    let out = scribe()
        .args(["diff", "--strict"])
        .arg(&broken)
        .arg(&broken)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid JSON"), "{err}");
}

// ── Whole JSON documents ───────────────────────────────────────────────────────────────────

/// The sample's lines as one JSON array (`--output-format json --verbose`), compact or pretty.
fn as_array(jsonl: &str, pretty: bool) -> String {
    let values: Vec<Value> = jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    match pretty {
        true => serde_json::to_string_pretty(&values).unwrap(),
        false => serde_json::to_string(&values).unwrap(),
    }
}

/// Records without line numbers (a document's messages start on other lines).
fn without_lines(mut recs: Vec<Value>) -> Vec<Value> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(o) => {
                o.remove("line");
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    recs.iter_mut().for_each(strip);
    recs
}

#[test]
fn a_json_array_of_stream_json_messages_folds_like_its_lines() {
    let jsonl = read(&sample(STREAM));
    let (_, want, _) = run(&["--to", "jsonl"], jsonl.clone());
    for pretty in [false, true] {
        let (code, got, err) = run(&["--to", "jsonl", "--strict"], as_array(&jsonl, pretty));
        assert_eq!(code, 0, "{err}");
        assert_eq!(err, "");
        assert_eq!(
            without_lines(records(&got)),
            without_lines(records(&want)),
            "pretty: {pretty}"
        );
    }
}

#[test]
fn pretty_printed_messages_one_after_another_fold_like_their_lines() {
    let jsonl = read(&sample(STREAM));
    let (_, want, _) = run(&["--to", "jsonl"], jsonl.clone());
    let pretty: String = jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            serde_json::to_string_pretty(&v).unwrap() + "\n"
        })
        .collect();
    let (code, got, err) = run(&["--to", "jsonl", "--strict"], pretty);
    assert_eq!(code, 0, "{err}");
    assert_eq!(without_lines(records(&got)), without_lines(records(&want)));
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn claude_code_action_execution_file_reads_like_the_same_messages_as_lines() {
    let c = corpus();
    let dir = c.join("external/anthropics/claude-code-action/test/fixtures");
    let doc = scribe()
        .args(["--to", "jsonl"])
        .arg(dir.join("sample-turns.json"))
        .output()
        .unwrap();
    let lines = scribe()
        .args(["--to", "jsonl"])
        .arg(dir.join("sample-turns.as-jsonl.jsonl"))
        .output()
        .unwrap();
    assert_eq!(doc.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&doc.stderr), "");
    let (doc, lines) = (
        without_lines(records(&String::from_utf8_lossy(&doc.stdout))),
        without_lines(records(&String::from_utf8_lossy(&lines.stdout))),
    );
    assert!(doc.iter().filter(|r| r["kind"] == "turn").count() >= 4);
    assert_eq!(doc, lines);
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_pretty_printed_result_object_is_claude_output_format_json() {
    let c = corpus();
    let path =
        c.join("external/charlieyou/claude-agent-sdk-gleam/test/fixtures/result_success.json");
    assert!(read(&path).lines().count() > 3, "pretty-printed");
    let out = scribe()
        .args(["--to", "jsonl", "--strict"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(recs[0]["source"], "claude-stream");
    assert_eq!(recs.last().unwrap()["notice"]["kind"], "result");
}

#[test]
fn a_broken_json_document_is_one_error_at_its_line() {
    let (code, _, err) = run(
        &["--to", "jsonl", "--strict"],
        "[\n  {\"type\": \"user\"},\n  {\"type\" 2}\n]\n",
    );
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("scribe: -:3: a JSON document that does not parse"),
        "{err}"
    );
}

#[test]
fn diff_rejects_an_unknown_ignore_field_listing_the_valid_ones() {
    let out = scribe()
        .arg("diff")
        .arg(sample(STREAM))
        .arg(sample(STREAM))
        .args(["--ignore", "bogus"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--ignore bogus"), "{err}");
    assert!(
        err.contains("the names: ") && err.contains("errorText"),
        "{err}"
    );
    let out = scribe()
        .arg("diff")
        .arg(sample(STREAM))
        .arg(sample(STREAM))
        .args(["--ignore", "usage,error_text"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn gemini_output_format_json_reads_as_the_answer_and_its_totals() {
    let c = corpus();
    let path = c.join("gemini-cli/json-output/output.json");
    let out = scribe()
        .args(["--to", "jsonl", "--strict"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(recs[0]["source"], "gemini-stream");
    let doc: Value = serde_json::from_str(&read(&path)).unwrap();
    let answer = recs
        .iter()
        .find(|r| r["kind"] == "turn" && r["role"] == "assistant")
        .expect("the answer is a turn");
    assert_eq!(answer["parts"][0]["text"], doc["response"]);
    let result = recs.last().unwrap();
    assert_eq!(result["notice"]["kind"], "result");
    assert_eq!(result["notice"]["isError"], false);
    assert!(result["notice"]["usage"]["outputTokens"].as_u64() > Some(0));
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn an_older_gemini_session_json_document_reads_like_its_jsonl_log() {
    let c = corpus();
    let chat = crate::util::files_under(&c.join("gemini-cli/shell/gemini-home"), &|p| {
        p.extension().is_some_and(|e| e == "jsonl")
    })
    .pop()
    .expect("a saved chat");
    let lines: Vec<Value> = read(&chat)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The ConversationRecord an older CLI wrote: the header with the messages inside.
    let mut doc = lines[0].clone();
    let messages: Vec<Value> = lines
        .iter()
        .filter(|v| v.get("id").is_some() && v.get("type").is_some())
        .cloned()
        .collect();
    doc["messages"] = Value::Array(messages);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-old.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let assistant = |p: &Path| -> Vec<Value> {
        let out = scribe()
            .args(["--to", "jsonl", "--strict"])
            .arg(p)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let recs = records(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(recs[0]["source"], "gemini-session");
        without_lines(recs)
            .into_iter()
            .filter(|r| r["role"] == "assistant")
            .collect()
    };
    let (from_doc, from_log) = (assistant(&path), assistant(&chat));
    assert!(from_log.len() >= 2);
    assert_eq!(from_doc, from_log);
}

#[test]
fn lines_of_two_unrelated_formats_are_read_as_the_majority_with_a_warning() {
    let claude = read(&sample("demo.jsonl"));
    let codex = "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n";
    let claude_lines = claude.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(claude_lines >= 2, "the sample has several lines");
    let (code, out, err) = run(&["--to", "jsonl"], format!("{codex}{claude}"));
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("look like different formats (codex-exec (1), claude-stream ("),
        "{err}"
    );
    assert_eq!(records(&out)[0]["source"], "claude-stream");
}

/// An assistant or user line is decoded without a `Value` tree, skipping the fields scribe does
/// not read; a line that is not JSON must still be refused wherever its fault is (issue 14):
/// an unpaired surrogate escape, a number out of range, nesting past the parser's limit, in a
/// field nobody reads, each a `debug` record with the parser's reason and an error on stderr.
/// Also: a repeated key keeps its last value, as any JSON reader here does.
#[test]
fn a_fast_decoded_line_that_is_not_json_is_still_refused_and_kept() {
    let msg = |id: &str| {
        format!(
            r#""message":{{"id":"{id}","role":"assistant","model":"m","content":[{{"type":"text","text":"said {id}"}}]}}"#
        )
    };
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let lines = [
        r#"{"type":"system","subtype":"init","session_id":"s","cwd":"/x","tools":[],"model":"m","uuid":"i"}"#.to_owned(),
        format!(r#"{{"type":"assistant","junk":"\ud800",{}}}"#, msg("m1")),
        format!(r#"{{"type":"assistant","junk":{{"n":1e999}},{}}}"#, msg("m2")),
        format!(r#"{{"type":"assistant","junk":{deep},{}}}"#, msg("m3")),
        format!(r#"{{"type":"assistant","uuid":"first","uuid":"last",{}}}"#, msg("m4")).replace(r#""id":"m4","#, ""),
    ];
    let (code, out, err) = run(&["--to", "jsonl"], lines.join("\n") + "\n");
    assert_eq!(code, 0, "{err}");
    let recs = records(&out);
    let debug: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    let reasons: Vec<&str> = debug
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(debug.len(), 3, "{reasons:?}");
    assert!(reasons[0].contains("hex escape"), "{reasons:?}");
    assert!(reasons[1].contains("number out of range"), "{reasons:?}");
    assert!(reasons[2].contains("recursion limit"), "{reasons:?}");
    for (r, n) in debug.iter().zip([2, 3, 4]) {
        assert_eq!(r["line"], n);
        assert_eq!(r["raw"].as_str().unwrap(), lines[n - 1]);
        assert!(err.contains(&format!("-:{n}: invalid JSON")), "{err}");
    }
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert_eq!(turns.len(), 1, "{out}");
    assert_eq!(turns[0]["id"], "last");
    assert_eq!(turns[0]["parts"][0]["text"], "said m4");
}

/// `system` task lines and `result` lines are decoded the typed way when Claude Code wrote them
/// (`{"type":"system","subtype":"task_…`) and the general way (a `Value`) otherwise: both ways
/// must give the same events, odd fields included (a number where a string goes, `usage` that is
/// not an object, a repeated key, a cost given as an integer, errors mixing strings and numbers).
/// The general way is forced by a space after the opening brace.
#[test]
fn task_and_result_lines_read_the_same_the_typed_and_the_general_way() {
    let lines = [
        r#"{"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"c1","description":"d","subagent_type":7,"task_type":"local_agent","prompt":"go","timestamp":"2026-01-01T00:00:00Z"}"#,
        r#"{"type":"system","subtype":"task_progress","task_id":"t1","tool_use_id":"c1","description":"working","description":"still working","usage":{"total_tokens":5,"tool_uses":"2"}}"#,
        r#"{"type":"system","subtype":"task_progress","task_id":"t1","usage":[1,2]}"#,
        r#"{"type":"system","subtype":"task_notification","task_id":"t1","tool_use_id":"c1","status":"failed","summary":"s","usage":{"duration_ms":9}}"#,
        r#"{"type":"system","subtype":"task_notification","task_id":"t2","status":"weird"}"#,
        r#"{"type":"result","subtype":"error_during_execution","total_cost_usd":2,"num_turns":3,"usage":{"input_tokens":4},"errors":["e1",5,"e2"],"permission_denials":[{"tool_name":"Bash"}],"structured_output":null,"modelUsage":{},"model_usage_since_last_result":{"m":{"costUSD":0.5}},"fast_mode_state":{"on":true},"result":"r"}"#,
        r#"{"type":"result","is_error":false,"total_cost_usd":2.75,"modelUsage":{"m":{"inputTokens":1}},"structured_output":{"a":1},"stop_reason":"end_turn","terminal_reason":"completed"}"#,
    ];
    let typed = lines.join("\n") + "\n";
    let general = lines.map(|l| l.replacen('{', "{ ", 1)).join("\n") + "\n";
    let (code, a, err) = run(&["--to", "events"], typed);
    assert_eq!(code, 0, "{err}");
    let (code, b, err) = run(&["--to", "events"], general);
    assert_eq!(code, 0, "{err}");
    let events = |s: &str| -> Vec<Value> {
        records(s)
            .into_iter()
            .filter(|r| r["event"] != "header")
            .collect()
    };
    let (a, b) = (events(&a), events(&b));
    assert!(a.len() >= 7, "{a:#?}");
    assert_eq!(a, b);
    assert_eq!(a[0]["event"], "subtask-started", "{:#?}", a[0]);
    assert_eq!(a[0]["taskType"], "local_agent", "{:#?}", a[0]);
    assert!(
        a.iter().any(|e| e.to_string().contains("still working")),
        "{a:#?}"
    );
}
