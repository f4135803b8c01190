//! Saved-session files read on their own or with what lies beside them (issue 15, point 8): a
//! sub-agent's own file, old-layout sub-agents beside a bare file name, full tool outputs in
//! `tool-results/`, and a saved session on standard input (spooled, issue 14).

use serde_json::Value;

use crate::util::{
    converted, corpus, fold_quiet as fold, json_lines, sample, scribe, scribe_jsonl,
};

fn session_record(recs: &[Value]) -> &Value {
    recs.iter()
        .find(|r| r["kind"] == "session")
        .expect("a session record")
}

#[test]
fn a_warmup_agent_file_read_on_its_own_is_a_transcript() {
    // 2.0.x wrote an automatic "Warmup" sub-agent at each start, as agent-<id>.jsonl.
    let recs = fold(&sample("claude-session/agent-7c1d2e3f.jsonl"));
    let s = session_record(&recs);
    assert_eq!(s["sessionId"], "agent-7c1d2e3f");
    assert_eq!(s["model"], "claude-haiku-4-5-20251001");
    assert_eq!(s["cwd"], "/home/u/app");
    let text = recs.iter().map(Value::to_string).collect::<String>();
    assert!(!text.contains("\"running\""), "no sub-agent left running");
    assert!(
        !text.contains("\"subagent\""),
        "not an orphan sub-agent notice"
    );
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["parts"][0]["text"], "Warmup");
}

#[test]
fn an_old_layout_agent_file_on_its_own_has_its_own_header() {
    let recs = fold(&sample("claude-session/subagents-old/agent-5f3a9c1.jsonl"));
    let s = session_record(&recs);
    assert_eq!(s["sessionId"], "agent-5f3a9c1");
    assert_eq!(s["model"], "claude-sonnet-4-5");
    assert!(recs.iter().any(|r| {
        r["kind"] == "turn"
            && r["parts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["call"]["name"] == "Grep" && p["call"]["state"] == "success")
    }));
    assert!(!recs.iter().any(|r| r["notice"]["kind"] == "subagent"));
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_real_agent_file_on_its_own_is_a_transcript() {
    let root = corpus();
    let f = root.join(
        "external/d-kimuson/claude-code-viewer/mock-global-claude-dir/projects/sample-project/agent-test-hash-123.jsonl",
    );
    let out = scribe_jsonl()
        .arg(&f)
        .assert()
        .success()
        .get_output()
        .clone();
    let recs = json_lines(&out.stdout);
    let s = session_record(&recs);
    assert_eq!(s["cwd"], "/path/to/Demo");
    assert_eq!(s["model"], "claude-sonnet-4-20250514");
    assert!(!recs.iter().any(|r| r["notice"]["kind"] == "subagent"));
    assert_eq!(recs.iter().filter(|r| r["kind"] == "turn").count(), 2);
}

#[test]
fn old_layout_agents_are_found_beside_a_bare_file_name() {
    let dir = sample("claude-session/subagents-old");
    let out = scribe()
        .current_dir(&dir)
        .args([
            "--to",
            "jsonl",
            "5e55a0e1-0000-4000-8000-000000000004.jsonl",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let recs = json_lines(&out.stdout);
    let nested = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .filter(|p| p["call"]["subagent"]["transcript"].is_array())
        .count();
    assert_eq!(nested, 1, "the sub-agent is attached to its call");
    // The same transcript as with the file's full path.
    let full = fold(&dir.join("5e55a0e1-0000-4000-8000-000000000004.jsonl"));
    assert_eq!(recs[1..], full[1..]);
}

#[test]
fn the_full_tool_output_beside_the_session_replaces_the_preview() {
    let recs = fold(&sample("claude-session/persisted-output"));
    let call = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .find(|p| p["call"]["name"] == "Bash")
        .map(|p| &p["call"])
        .unwrap();
    let output = call["output"].to_string();
    assert!(output.contains("line 300: build step 300 ok"), "{output}");
    assert!(!output.contains("persisted-output"), "{output}");
    assert_eq!(call["state"], "success");
}

/// A saved output replaces the preview, but the preview is what the model read: every view shows
/// it as written (the notice frame and its preview lines) beside the saved output, the JSONL
/// keeps it in the call's facts, and the default text view says in one line that it is there.
#[test]
fn the_preview_the_model_read_of_a_saved_output_is_shown_beside_it() {
    let path = sample("claude-session/persisted-output/5e55a0e1-0000-4000-8000-000000000011.jsonl");
    let frame = [
        "<persisted-output>",
        "Output too large (8.1KB). Full output saved to:",
        "Preview (first 2KB):",
        "</persisted-output>",
    ];
    let views: [&[&str]; 3] = [
        &[
            "--to", "text", "--full", "--color", "never", "--width", "400",
        ],
        &["--to", "md", "--full"],
        &["--to", "html"],
    ];
    for args in views {
        let out = converted(&path, args);
        // Markdown and HTML write the tag's brackets as entities outside code.
        let out = out.replace("&lt;", "<").replace("&gt;", ">");
        for line in frame {
            assert!(out.contains(line), "{args:?} lacks {line:?}");
        }
        assert!(out.contains("What the model read"), "{args:?}");
        assert!(out.contains("line 300: build step 300 ok"), "{args:?}");
    }
    let text = converted(&path, &["--to", "text", "--color", "never"]);
    assert!(
        text.contains("… the model read only a preview of this output (--full shows it)"),
        "{text}"
    );
    assert!(!text.contains("Output too large"), "{text}");
    let recs = fold(&path);
    let call = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .find_map(|p| p.get("call"))
        .unwrap();
    let preview = call["facts"]["persistedPreview"].as_str().unwrap();
    assert!(
        preview.starts_with("<persisted-output>\nOutput too large"),
        "{preview}"
    );
}

// 2.0.52's layout: the full output in the project's `tool-results/<tool>-<ms>/result.txt`,
// named by the preview, replaces the preview.
#[test]
fn the_full_tool_output_in_a_tool_and_time_directory_replaces_the_preview() {
    let recs = fold(&sample(
        "claude-session/persisted-output-nested/5e55a0e1-0000-4000-8000-000000000013.jsonl",
    ));
    let call = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .find(|p| p["call"]["name"] == "Bash")
        .map(|p| &p["call"])
        .unwrap();
    let output = call["output"].to_string();
    assert!(output.contains("test 400: ok"), "{output}");
    assert!(!output.contains("persisted-output"), "{output}");
    assert_eq!(call["state"], "success");
}

#[test]
fn a_saved_session_on_stdin_is_spooled_and_ordered_like_the_file() {
    let path = sample("claude-session/hook-progress-parallel.jsonl");
    let from_file = scribe_jsonl()
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .clone();
    let from_stdin = scribe_jsonl()
        .args(["--from", "claude-session"])
        .write_stdin(std::fs::read(&path).unwrap())
        .assert()
        .success()
        .get_output()
        .clone();
    let strip = |out: &[u8]| -> Vec<Value> {
        json_lines(out)
            .into_iter()
            .filter(|r| r["kind"] != "header")
            .collect()
    };
    assert_eq!(strip(&from_file.stdout), strip(&from_stdin.stdout));
}

/// Writes a saved session of `turns` turns in the shape 2.1.x writes: a prompt, an assistant
/// text row and a tool_use row of one message, a hook progress row, the tool result (about 2 KB
/// of output), and a file-history-snapshot outside the chain.
fn generated_session(path: &std::path::Path, turns: usize) {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let output = serde_json::to_string(&"build output line ok\n".repeat(100)).unwrap();
    let mut parent = "null".to_owned();
    for i in 0..turns {
        let common = r#""isSidechain":false,"userType":"external","cwd":"/home/u/app","sessionId":"5e55a0e1-0000-4000-8000-0000000000ff","version":"2.1.9","gitBranch":"main","timestamp":"2026-01-07T10:00:00.000Z""#;
        writeln!(
            f,
            r#"{{"type":"file-history-snapshot","messageId":"u{i}","snapshot":{{"messageId":"u{i}","trackedFileBackups":{{}},"timestamp":"2026-01-07T10:00:00.000Z"}},"isSnapshotUpdate":false}}"#
        )
        .unwrap();
        writeln!(
            f,
            r#"{{"parentUuid":{parent},{common},"type":"user","message":{{"role":"user","content":"Step {i}: build it again."}},"uuid":"u{i}"}}"#
        )
        .unwrap();
        writeln!(
            f,
            r#"{{"parentUuid":"u{i}",{common},"type":"assistant","message":{{"model":"claude-sonnet-4-5","id":"msg_{i}","type":"message","role":"assistant","content":[{{"type":"text","text":"Building, step {i}."}}],"stop_reason":null,"usage":{{"input_tokens":10,"output_tokens":5}}}},"requestId":"req_{i}","uuid":"a{i}"}}"#
        )
        .unwrap();
        writeln!(
            f,
            r#"{{"parentUuid":"a{i}",{common},"type":"assistant","message":{{"model":"claude-sonnet-4-5","id":"msg_{i}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"toolu_{i}","name":"Bash","input":{{"command":"make","description":"Build"}}}}],"stop_reason":"tool_use","usage":{{"input_tokens":10,"output_tokens":5}}}},"requestId":"req_{i}","uuid":"b{i}"}}"#
        )
        .unwrap();
        writeln!(
            f,
            r#"{{"parentUuid":"b{i}",{common},"type":"progress","data":{{"type":"hook_progress","hookEvent":"PreToolUse","hookName":"PreToolUse:Bash","command":"audit.sh"}},"parentToolUseID":"toolu_{i}","toolUseID":"toolu_{i}","uuid":"p{i}"}}"#
        )
        .unwrap();
        writeln!(
            f,
            r#"{{"parentUuid":"p{i}",{common},"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_{i}","type":"tool_result","content":{output},"is_error":false}}]}},"uuid":"r{i}"}}"#
        )
        .unwrap();
        parent = format!("\"r{i}\"");
    }
    f.flush().unwrap();
}

#[test]
fn a_saved_session_longer_than_one_batch_loses_no_turn() {
    // The chain is sent in batches of events; the last batch went with the call that said
    // nothing was left, and was once dropped (every turn after the last full batch was lost).
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("long.jsonl");
    generated_session(&input, 700);
    let out = scribe()
        .args(["--to", "jsonl"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let recs = json_lines(&out.stdout);
    let prompts: Vec<&str> = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .filter_map(|p| p["text"].as_str())
        .filter(|t| t.ends_with(": build it again."))
        .collect();
    assert_eq!(prompts.len(), 700, "turns written: {}", prompts.len());
    assert_eq!(prompts[699], "Step 699: build it again.");
}

#[test]
fn a_saved_session_ten_times_larger_needs_no_more_memory() {
    // Issue 14: the chain is ordered from an index, rows are read again by offset, events leave
    // in batches. Not timed: only the peak resident set size of the child is compared. A run
    // that held the file (its lines kept as they are read) fails here: 18 -> 36 MB.
    let dir = tempfile::tempdir().unwrap();
    for turns in [400, 4_000] {
        generated_session(&dir.path().join(format!("s{turns}.jsonl")), turns);
    }
    for to in ["jsonl", "html"] {
        let mut peaks = Vec::new();
        for turns in [400, 4_000] {
            let input = dir.path().join(format!("s{turns}.jsonl"));
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("scribe"));
            cmd.args(["--to", to])
                .arg(&input)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let (status, kib) = crate::util::peak_rss_kib(cmd);
            assert_eq!(status, 0);
            let mib = std::fs::metadata(&input).unwrap().len() >> 20;
            eprintln!("--to {to}, {turns} turns ({mib} MiB): peak RSS {kib} KiB");
            peaks.push(kib);
        }
        assert!(peaks[0] > 0 && peaks[1] > 0, "the peaks were read");
        // The index grows by a few dozen bytes per row (under 1 MiB here); the file by 16 MiB.
        assert!(
            peaks[1] < peaks[0] * 3 / 2 + 4 * 1024,
            "--to {to}: peak RSS {peaks:?} KiB: memory grows with the saved session"
        );
    }
}

#[test]
fn a_replayed_tool_result_never_moves_a_call_backwards() {
    // A resumed session plays a finished call's result again (`isReplay`), as an interruption:
    // the call stays a success with its real output.
    let recs = fold(&sample("claude-session/replayed-result.jsonl"));
    let call = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .find(|p| p["call"]["name"] == "Read")
        .map(|p| &p["call"])
        .unwrap();
    assert_eq!(call["state"], "success");
    assert!(call["output"].to_string().contains("name = "), "{call}");
    assert!(call["errorText"].is_null(), "{call}");
}
