//! `--stable`: two runs that did the same things print the same bytes, in every format; a run
//! that did something else does not.
//!
//! The second run is made by `rerun`, which rewrites a sample the way a real second capture
//! differs: every id, timestamp, duration, session id, token count, cost, version, socket and
//! temp dir changes, consistently (a changed id changes everywhere it is mentioned).

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;
use serde_json::Value;

use crate::util::{corpus, files_under, json_lines, sample, scribe};

/// Every `--to` format on this branch. Adding a format here runs every `--stable` and
/// `--redact` test in it.
pub(crate) const FORMATS: &[&str] = &["jsonl", "events", "text", "md", "html", "atif"];

/// Keys whose string value is an id in Claude's stream-json.
const ID_KEYS: &[&str] = &[
    "id",
    "uuid",
    "session_id",
    "tool_use_id",
    "parent_tool_use_id",
    "request_id",
    "task_id",
    "agent_id",
    "agentId",
    "run_id",
];

fn collect_ids(v: &Value, ids: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                match x {
                    Value::String(s) if ID_KEYS.contains(&k.as_str()) && s.len() >= 8 => {
                        ids.push(s.clone())
                    }
                    _ => collect_ids(x, ids),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_ids(x, ids)),
        _ => {}
    }
}

/// A different id of the same shape: letters and digits rotated.
fn other_id(id: &str) -> String {
    id.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a' + 7) % 26) + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A' + 7) % 26) + b'A') as char,
            '0'..='9' => (((c as u8 - b'0' + 3) % 10) + b'0') as char,
            other => other,
        })
        .collect()
}

fn is_volatile_number_key(k: &str) -> bool {
    let k = k.to_ascii_lowercase();
    ["duration", "tokens", "cost", "_ms"]
        .iter()
        .any(|w| k.contains(w))
}

fn bump(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match x {
                    Value::Number(n) if is_volatile_number_key(k) => {
                        *x = match n.as_u64() {
                            Some(u) => Value::from(u * 3 + 17),
                            None => Value::from(n.as_f64().unwrap_or(0.0) * 1.7 + 0.01),
                        };
                    }
                    Value::String(_) if k == "claude_code_version" => {
                        *x = Value::from("2.9.17");
                    }
                    Value::String(_) if k == "signature" => {
                        *x = Value::from("ErUBCkYIBxgCKkDifferentSignature");
                    }
                    _ => bump(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(bump),
        _ => {}
    }
}

/// The same run, captured again: see the module comment.
pub(crate) fn rerun(text: &str) -> String {
    let values: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("sample line is JSON"))
        .collect();
    let mut ids = Vec::new();
    values.iter().for_each(|v| collect_ids(v, &mut ids));
    ids.sort_by_key(|s| std::cmp::Reverse(s.len()));
    ids.dedup();
    let map: BTreeMap<&str, String> = ids.iter().map(|s| (s.as_str(), other_id(s))).collect();
    let timestamp = Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.(\d+)Z").unwrap();
    let in_text = Regex::new(r"(subagent_tokens|duration_ms): (\d+)").unwrap();
    let mut out = String::new();
    for mut v in values {
        bump(&mut v);
        let mut line = v.to_string();
        for id in &ids {
            line = line.replace(id.as_str(), &map[id.as_str()]);
        }
        line = timestamp
            .replace_all(&line, "2027-02-14T23:59:01.$1Z")
            .into_owned();
        line = in_text
            .replace_all(&line, |c: &regex::Captures<'_>| {
                format!("{}: {}", &c[1], c[2].parse::<u64>().unwrap() + 41)
            })
            .into_owned();
        line = line
            .replace("/tmp/ci-run-a1", "/tmp/ci-run-zq93")
            .replace("-tmp-ci-run-a1", "-tmp-ci-run-zq93")
            .replace("/tmp/ci-home-a1", "/tmp/ci-home-zq93")
            .replace("40211.sock", "51876.sock");
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Writes `text` to a file in `dir` and returns its path.
pub(crate) fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write temp file");
    p
}

/// scribe's stdout for a file, with extra arguments (JSONL unless they name another `--to`).
pub(crate) fn output(file: &Path, args: &[&str]) -> String {
    let out = scribe()
        .args(["--to", "jsonl"])
        .args(args)
        .arg(file)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).expect("UTF-8 output")
}

fn ci_run() -> String {
    std::fs::read_to_string(sample("ci-run.jsonl")).expect("sample")
}

#[test]
fn the_rerun_really_differs() {
    let a = ci_run();
    let b = rerun(&a);
    assert_ne!(a, b);
    assert!(!b.contains("toolu_01AbCdEfGhJkLmNoPqRsTuVw"));
    assert!(!b.contains("2026-11-30T08:16:28.101Z"));
    assert!(!b.contains("3c1f9a52-7d0e-4b8e-9f21-6a5d2c8e4b17"));
    assert!(b.contains("\"duration_ms\":24980"));
    assert!(b.contains("duration_ms: 743"));
}

#[test]
fn identical_behaviour_prints_identical_bytes_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.jsonl", &ci_run());
    let b = write(dir.path(), "b.jsonl", &rerun(&ci_run()));
    for to in FORMATS {
        let plain_a = output(&a, &["--to", to]);
        let plain_b = output(&b, &["--to", to]);
        assert_ne!(plain_a, plain_b, "{to}: without --stable the runs differ");
        let sa = output(&a, &["--to", to, "--stable"]);
        let sb = output(&b, &["--to", to, "--stable"]);
        assert_eq!(sa, sb, "{to}");
        let ka = output(&a, &["--to", to, "--stable=keep-usage"]);
        let kb = output(&b, &["--to", to, "--stable=keep-usage"]);
        assert_ne!(ka, kb, "{to}: the rerun's token counts differ and are kept");
        for out in [&sa, &ka] {
            for noise in [
                "toolu_",
                "msg_",
                "2026-11-30",
                "3c1f9a52",
                "/tmp/ci-run",
                ".sock",
            ] {
                assert!(!out.contains(noise), "{to}: {noise} left in\n{out}");
            }
        }
    }
}

#[test]
fn usage_goes_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.jsonl", &ci_run());
    let stable = output(&a, &["--stable"]);
    let kept = output(&a, &["--stable=keep-usage"]);
    for word in ["inputTokens", "cost", "totalTokens", "durationMs"] {
        assert!(!stable.contains(word), "--stable keeps {word}");
    }
    assert!(kept.contains("\"inputTokens\":21874"), "{kept}");
    assert!(kept.contains("\"cost\":0.084213"), "{kept}");
    assert!(kept.contains("subagent_tokens: 6480"), "{kept}");
    assert!(!kept.contains("durationMs\":702"), "{kept}");
}

#[test]
fn a_changed_tool_output_or_an_extra_tool_call_shows_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let base = rerun(&ci_run());
    let changed = base.replace("12 passed; 0 failed", "11 passed; 1 failed");
    assert_ne!(changed, base);
    let extra_call = format!(
        "{}\n{}\n",
        r#"{"type":"assistant","message":{"id":"msg_01Extra0000000000000000","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_01Extra000000000000000000","name":"Bash","input":{"command":"git status"}}]},"parent_tool_use_id":null,"session_id":"x","uuid":"00000000-1111-2222-3333-444444444444"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01Extra000000000000000000","type":"tool_result","content":"clean","is_error":false}]},"parent_tool_use_id":null,"session_id":"x","uuid":"00000000-1111-2222-3333-555555555555"}"#
    );
    let (head, tail) = base.split_at(base.rfind("{\"type\":\"assistant\"").unwrap());
    let extra = format!("{head}{extra_call}{tail}");
    let a = write(dir.path(), "a.jsonl", &ci_run());
    let c = write(dir.path(), "c.jsonl", &changed);
    let e = write(dir.path(), "e.jsonl", &extra);
    for to in FORMATS {
        let sa = output(&a, &["--to", to, "--stable"]);
        let sc = output(&c, &["--to", to, "--stable"]);
        let se = output(&e, &["--to", to, "--stable"]);
        assert_ne!(sa, sc, "{to}: a changed tool output must show");
        assert!(
            sc.contains("11 passed; 1 failed; finished in 0.40s"),
            "{to}"
        );
        assert_ne!(sa, se, "{to}: an extra tool call must show");
        assert!(se.contains("git status"), "{to}");
    }
}

#[test]
fn cross_references_follow_the_renumbering() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.jsonl", &ci_run());
    let recs = json_lines(output(&a, &["--stable"]).as_bytes());
    let agent_turn = recs
        .iter()
        .find(|r| r.pointer("/parts/1/call/name") == Some(&"Agent".into()))
        .expect("the Agent call's turn");
    let call = &agent_turn["parts"][1]["call"];
    assert_eq!(call["toolCallId"], "call-2");
    assert_eq!(call["subagent"]["taskId"], "task-1");
    assert_eq!(call["sidecar"]["agentId"], "task-1");
    assert!(
        call["output"]
            .as_str()
            .unwrap()
            .contains("agentId: task-1\n<usage>subagent_tokens: <n>")
    );
    let sub = call["subagent"]["transcript"].as_array().unwrap();
    assert_eq!(sub[0]["origin"]["parentToolCallId"], "call-2");
    for t in sub {
        assert_eq!(t["parentTaskId"], "call-2");
    }
    assert_eq!(sub[1]["parts"][0]["call"]["toolCallId"], "call-3");
    assert_eq!(
        sub[1]["parts"][0]["call"]["input"]["file_path"],
        "<tmp-1>/src/parse.rs"
    );
    let ids: Vec<&str> = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["t1", "t2", "t5", "t6"],
        "sub-agent turns are t3 and t4"
    );
    assert_eq!(recs[0]["file"], "");
    assert_eq!(recs[1]["sessionId"], "s1");
    assert!(recs[1].get("version").is_none());
}

#[test]
fn events_lose_their_line_numbers_and_live_only_noise() {
    let dir = tempfile::tempdir().unwrap();
    let stream = format!(
        "{}\n{}\n{}",
        r#"{"type":"keep_alive"}"#,
        r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}},"parent_tool_use_id":null,"session_id":"s","uuid":"u1"}"#,
        ci_run()
    );
    let a = write(dir.path(), "a.jsonl", &stream);
    let plain = json_lines(output(&a, &["--to", "events"]).as_bytes());
    let stable = json_lines(output(&a, &["--to", "events", "--stable"]).as_bytes());
    assert!(plain.iter().any(|e| e["event"] == "absorbed"));
    assert!(!stable.iter().any(|e| e["event"] == "absorbed"));
    // The delta belongs to no message whose block came: its text is shown once, whole, at the
    // end (as the fold makes it a turn), never piece by piece.
    let deltas: Vec<_> = stable
        .iter()
        .filter(|e| e["event"] == "text-delta")
        .collect();
    assert_eq!(deltas.len(), 1, "{stable:?}");
    assert_eq!(deltas[0]["text"], "Hi");
    assert_eq!(stable.last(), Some(deltas[0]));
    let lines: Vec<u64> = stable[1..]
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    let want: Vec<u64> = (1..=lines.len() as u64).collect();
    assert_eq!(lines, want);
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn the_corpus_keeps_no_timestamps_or_ids_under_stable() {
    let dir = corpus();
    let noise = Regex::new(concat!(
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}",
        r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        r"|toolu_|msg_01"
    ))
    .unwrap();
    let inputs = files_under(&dir, &|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let agent = p.components().any(|c| {
            matches!(
                c.as_os_str().to_str(),
                Some("claude-code" | "qwen-code" | "qwen-daemon")
            )
        });
        agent
            && !p.components().any(|c| c.as_os_str() == "projects")
            && matches!(
                name,
                "stream.jsonl" | "session.jsonl" | "events.sse" | "replay.sse"
            )
    });
    assert!(inputs.len() > 20, "{inputs:?}");
    for s in inputs {
        for to in FORMATS {
            let once = output(&s, &["--to", to, "--stable"]);
            let twice = output(&s, &["--to", to, "--stable"]);
            assert_eq!(once, twice, "{}: not deterministic", s.display());
            if let Some(m) = noise.find(&once) {
                panic!("{} {to}: {:?} left in", s.display(), m.as_str());
            }
        }
    }
}

#[test]
fn a_transcript_read_back_restabilises_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let golden = output(&sample("ci-run.jsonl"), &["--stable"]);
    let plain = write(
        dir.path(),
        "plain.jsonl",
        &output(&sample("ci-run.jsonl"), &[]),
    );
    let g = write(dir.path(), "golden.jsonl", &golden);
    assert_eq!(output(&plain, &["--stable"]), golden);
    assert_eq!(output(&g, &["--stable"]), golden);
    let again = json_lines(output(&plain, &[]).as_bytes());
    assert_eq!(
        again[0]["source"], "claude-stream",
        "the header keeps its source"
    );
    assert_eq!(
        again[1..],
        json_lines(std::fs::read(&plain).unwrap().as_slice())[1..]
    );
}

/// `--stable` writes the same bytes to a terminal as to a pipe: JSONL unless `--to` says
/// otherwise, and a text view with no colour and the default width (run under a pseudo-terminal
/// by Python's `pty`, which turns each `\n` into `\r\n`).
#[cfg(unix)]
#[test]
fn stable_output_does_not_depend_on_a_terminal() {
    let input = sample("ci-run.jsonl");
    for args in [vec!["--stable"], vec!["--stable", "--to", "text"]] {
        let piped = scribe().args(&args).arg(&input).output().unwrap().stdout;
        let on_terminal = std::process::Command::new("python3")
            .args(["-c", "import pty, sys; pty.spawn(sys.argv[1:])"])
            .arg(assert_cmd::cargo::cargo_bin("scribe"))
            .args(&args)
            .arg(&input)
            .env_remove("NO_COLOR")
            .env("COLUMNS", "200")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("python3 runs")
            .stdout;
        let on_terminal = String::from_utf8_lossy(&on_terminal).replace("\r\n", "\n");
        assert_eq!(on_terminal, String::from_utf8_lossy(&piped), "{args:?}");
    }
}

/// `--stable --to events` numbers ids by their first appearance in the events it writes: the
/// folded items beside them, which `--to events` never writes, take no numbers (a sub-agent's
/// turns, folded before the main thread's next call, numbered that call's ids after them).
#[test]
fn stable_events_number_ids_in_the_order_written() {
    let out = output(&sample("ci-run.jsonl"), &["--to", "events", "--stable"]);
    let id = Regex::new(r#""((t|call-|task-)(\d+))""#).unwrap();
    let mut seen: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for c in id.captures_iter(&out) {
        let numbers = seen.entry(c[2].to_owned()).or_default();
        let n: u32 = c[3].parse().unwrap();
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    assert!(seen["t"].len() >= 5 && seen["call-"].len() >= 4, "{seen:?}");
    for (kind, numbers) in &seen {
        let in_order: Vec<u32> = (1..=numbers.len() as u32).collect();
        assert_eq!(numbers, &in_order, "{kind} ids as first written\n{out}");
    }
}
