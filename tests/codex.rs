//! OpenAI Codex CLI: `codex exec --json` streams (`codex-exec`) and saved rollout files
//! (`codex-rollout`), over the real captures in the shared corpus (one stream and one rollout per
//! scenario) and the hand-written edge cases in `samples/codex-*.jsonl`.

use std::path::PathBuf;

use serde_json::Value;

use crate::util::{
    codex_captures, corpus, files_under, json_lines, run_jsonl as run, sample, scribe,
};

/// A scenario's stream and its rollout in the shared corpus.
fn scenario(name: &str) -> (PathBuf, PathBuf) {
    let dir = corpus().join("codex").join(name);
    let rollouts = files_under(&dir.join("sessions"), &|p| {
        p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("rollout-")
    });
    assert_eq!(rollouts.len(), 1, "{name}: one rollout");
    (dir.join("stream.jsonl"), rollouts[0].clone())
}

fn calls(recs: &[Value]) -> Vec<Value> {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["type"] == "tool-call")
        .map(|p| p["call"].clone())
        .collect()
}

fn texts(recs: &[Value]) -> Vec<String> {
    recs.iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == "assistant")
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["type"] == "text")
        .map(|p| p["text"].as_str().unwrap().to_owned())
        .collect()
}

fn notices<'a>(recs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    recs.iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["kind"] == kind)
        .map(|r| &r["notice"])
        .collect()
}

fn debug_count(recs: &[Value]) -> usize {
    recs.iter().filter(|r| r["kind"] == "debug").count()
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_codex_capture_converts_detected_and_clean() {
    let dir = corpus();
    let files = codex_captures(&dir);
    assert!(
        files.len() >= 16,
        "expected 8 scenarios × (stream + rollout), found {}",
        files.len()
    );
    for path in files {
        let name = path.display().to_string();
        let want = if name.ends_with("stream.jsonl") {
            "codex-exec"
        } else {
            "codex-rollout"
        };
        // Detected from the first line, with no --from.
        let (recs, stderr) = run(&path, &[]);
        assert!(stderr.is_empty(), "{name}: {stderr}");
        assert_eq!(recs[0]["source"], want, "{name}: detected format");
        assert_eq!(debug_count(&recs), 0, "{name}: debug records");
        let session = recs.iter().filter(|r| r["kind"] == "session").count();
        assert_eq!(session, 1, "{name}: one session header");
        assert_eq!(recs[1]["agent"], "codex", "{name}");
        // Every scenario ends in exactly one result notice.
        assert_eq!(notices(&recs, "result").len(), 1, "{name}");
        // The stage-2 events account for every line (no debug event either).
        let out = scribe()
            .args(["--to", "events", "--from", want])
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let events = json_lines(&out);
        assert!(events.iter().all(|e| e["event"] != "debug"), "{name}");
        let lines = std::fs::read_to_string(&path).unwrap().lines().count() as u64;
        let mut seen: Vec<u64> = events.iter().filter_map(|e| e["line"].as_u64()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, (1..=lines).collect::<Vec<_>>(), "{name}: every line");
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn stream_and_rollout_tell_the_same_story() {
    for name in [
        "text",
        "shell",
        "patch",
        "mcp",
        "failing-command",
        "http-error",
        "response-failed",
        "unknown-model",
    ] {
        let (stream, rollout) = scenario(name);
        let (s, _) = run(&stream, &[]);
        let (r, _) = run(&rollout, &[]);
        assert_eq!(texts(&s), texts(&r), "{name}: assistant text");
        let shape = |c: &Value| {
            (
                c["name"].clone(),
                c["input"]["command"].clone(),
                c["state"].clone(),
            )
        };
        // The exec stream does not report the model's tool search (`tool_search_call`); only
        // the rollout records it.
        let searched = |c: &&Value| c["name"] != "tool_search";
        assert_eq!(
            calls(&s).iter().map(shape).collect::<Vec<_>>(),
            calls(&r)
                .iter()
                .filter(searched)
                .map(shape)
                .collect::<Vec<_>>(),
            "{name}: tool calls"
        );
        // A tool search is a model response of its own, which only the rollout counts.
        let searches = calls(&r)
            .iter()
            .filter(|c| c["name"] == "tool_search")
            .count();
        let result = |recs: &[Value], unseen: usize| {
            let n = notices(recs, "result")[0].clone();
            (
                n["isError"].clone(),
                n["errors"].clone(),
                n["usage"].clone(),
                n["turns"].as_u64().map(|t| t + unseen as u64),
            )
        };
        assert_eq!(result(&s, searches), result(&r, 0), "{name}: result");
        // Only the rollout records the prompt.
        let users = |recs: &[Value]| {
            recs.iter()
                .filter(|t| t["role"] == "user" && t["origin"]["kind"] == "user-input")
                .count()
        };
        assert_eq!((users(&s), users(&r)), (0, 1), "{name}: user turns");
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn failing_command_is_an_error_call_with_its_exit_code() {
    let (stream, rollout) = scenario("failing-command");
    for path in [stream, rollout] {
        let (recs, _) = run(&path, &[]);
        let c = calls(&recs);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0]["name"], "shell");
        assert_eq!(c[0]["caller"], "model");
        assert_eq!(
            c[0]["input"]["command"],
            "echo about-to-fail >&2; cat does-not-exist.txt; exit 3"
        );
        assert_eq!(c[0]["state"], "error");
        let err = c[0]["errorText"].as_str().unwrap();
        assert!(err.starts_with("exit code 3\n"), "{err}");
        assert!(err.contains("No such file or directory"), "{err}");
        assert_eq!(c[0]["sidecar"]["exitCode"], 3);
    }
    // The terminal view reads like any other agent's.
    let (stream, _) = scenario("failing-command");
    let out = scribe()
        .arg(&stream)
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("⏺ shell(echo about-to-fail >&2; cat does-not-exist.txt; exit 3)"),
        "{text}"
    );
    assert!(text.contains("exit code 3"), "{text}");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn shell_output_and_usage() {
    let (stream, _) = scenario("shell");
    let (recs, _) = run(&stream, &[]);
    let c = calls(&recs);
    assert_eq!(c[0]["input"]["command"], "echo hello-from-shell && ls -1");
    assert_eq!(c[0]["state"], "success");
    assert_eq!(c[0]["output"], "hello-from-shell\nREADME.md\n");
    assert_eq!(
        c[0]["sidecar"]["command"],
        "/bin/bash -lc 'echo hello-from-shell && ls -1'"
    );
    // The reasoning and the call are one model response; the answer is the next.
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["parts"][0]["type"], "reasoning");
    assert_eq!(turns[0]["parts"][1]["type"], "tool-call");
    let r = notices(&recs, "result")[0];
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["turns"], 2);
    // Codex's input_tokens (3500) include the cached ones (2048).
    assert_eq!(r["usage"]["inputTokens"], 3500 - 2048);
    assert_eq!(r["usage"]["cacheReadInputTokens"], 2048);
    assert_eq!(r["usage"]["outputTokens"], 80);
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn mcp_calls_have_caller_mcp_and_their_server() {
    let (stream, rollout) = scenario("mcp");
    for path in [stream, rollout] {
        let (recs, _) = run(&path, &[]);
        let c: Vec<Value> = calls(&recs)
            .into_iter()
            .filter(|c| c["name"] != "tool_search")
            .collect();
        assert_eq!(c.len(), 2);
        for call in &c {
            assert_eq!(call["caller"], "mcp");
            assert_eq!(call["mcpServer"], "echo");
        }
        // The server's own tool name; the kind says it is an MCP call and which server.
        assert_eq!(c[0]["name"], "echo");
        assert_eq!(c[0]["kind"]["type"], "mcp");
        assert_eq!(c[0]["kind"]["server"], "echo");
        assert_eq!(c[0]["input"]["text"], "ping from model");
        assert_eq!(c[0]["state"], "success");
        // The server's block; in the rollout after the text the model read (its structured
        // content as JSON, behind the wall time), which does not hold the block's words.
        let out = c[0]["output"].as_array().unwrap();
        assert_eq!(out.last().unwrap()["text"], "echo: ping from model");
        if out.len() == 2 {
            assert!(out[0]["text"].as_str().unwrap().starts_with("Wall time: "));
        }
        assert_eq!(c[0]["sidecar"]["echoed"], "ping from model");
        // An isError result: failed, with the result's text as the error (error is null).
        assert_eq!(c[1]["name"], "fail");
        assert_eq!(c[1]["state"], "error");
        assert_eq!(c[1]["errorText"], "fail tool: testing the error path");
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn patch_shows_the_file_changes() {
    let (stream, rollout) = scenario("patch");
    let (s, _) = run(&stream, &[]);
    let (r, _) = run(&rollout, &[]);
    for recs in [&s, &r] {
        let c = calls(recs);
        assert_eq!(c.len(), 2);
        for (call, kind) in c.iter().zip(["add", "update"]) {
            assert_eq!(call["name"], "apply_patch");
            assert_eq!(call["state"], "success");
            assert_eq!(
                call["input"]["changes"][0]["path"],
                "/tmp/work/notes/hello.txt"
            );
            assert_eq!(call["input"]["changes"][0]["kind"], kind);
            assert_eq!(
                call["input"]["description"],
                format!("{kind} /tmp/work/notes/hello.txt")
            );
        }
    }
    // Only the rollout has the content and the diff.
    let c = calls(&r);
    assert_eq!(
        c[0]["input"]["changes"][0]["content"],
        "hello from the mock model\nsecond line\n"
    );
    let diff = c[1]["input"]["changes"][0]["unified_diff"]
        .as_str()
        .unwrap();
    assert!(diff.contains("+second line, edited"), "{diff}");
    assert!(
        c[1]["output"]
            .as_str()
            .unwrap()
            .contains("M notes/hello.txt")
    );
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn failed_turns_give_one_error_result() {
    for (name, want) in [
        (
            "http-error",
            "mock: this request was rejected on purpose (mock_rejected)",
        ),
        (
            "response-failed",
            "stream disconnected before completion: mock: the model run failed on purpose",
        ),
    ] {
        let (stream, rollout) = scenario(name);
        for path in [stream, rollout] {
            let (recs, _) = run(&path, &[]);
            let r = notices(&recs, "result");
            assert_eq!(r.len(), 1, "{name}");
            assert_eq!(r[0]["isError"], true);
            assert_eq!(r[0]["subtype"], "error");
            assert_eq!(r[0]["errors"], serde_json::json!([want]), "{name}");
            // The `error` line that turn.failed repeats is not shown twice.
            assert!(notices(&recs, "info").is_empty(), "{name}");
            assert!(calls(&recs).is_empty());
        }
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn unknown_model_warning_is_a_notice() {
    let (stream, rollout) = scenario("unknown-model");
    let (recs, _) = run(&stream, &[]);
    let info = notices(&recs, "info");
    assert_eq!(info.len(), 1);
    assert_eq!(info[0]["level"], "warning");
    assert!(
        info[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Model metadata for `mock-model` not found"),
        "{}",
        info[0]
    );
    // It came before the turn, and the run still answered.
    let pos = |k: &str| recs.iter().position(|r| r["kind"] == k).unwrap();
    assert!(pos("notice") < pos("turn"));
    assert_eq!(notices(&recs, "result")[0]["isError"], false);
    // The rollout does not record the warning; it names the model.
    let (recs, _) = run(&rollout, &[]);
    assert_eq!(recs[1]["model"], "mock-model");
    assert_eq!(recs[1]["version"], "0.171.0");
    assert_eq!(recs[1]["cwd"], "/tmp/work");
}

#[test]
fn exec_edge_cases() {
    let (recs, stderr) = run(&sample("codex-exec-edges.jsonl"), &[]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(recs[0]["source"], "codex-exec");
    let c = calls(&recs);
    let by_id = |id: &str| {
        c.iter()
            .find(|x| x["toolCallId"] == id)
            .unwrap_or_else(|| panic!("no call {id}"))
    };
    // The plan: one update_plan call per change of the list (started, updated, completed).
    let todos: Vec<&Value> = c.iter().filter(|x| x["name"] == "update_plan").collect();
    assert!(todos.iter().all(|t| t["kind"]["type"] == "todo"));
    assert_eq!(todos.len(), 3);
    let statuses = |t: &Value| {
        t["input"]["todos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["status"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(statuses(todos[0]), ["pending", "pending"]);
    assert_eq!(statuses(todos[1]), ["completed", "pending"]);
    assert_eq!(statuses(todos[2]), ["completed", "completed"]);
    assert_eq!(todos[0]["input"]["todos"][0]["content"], "look up the docs");
    assert!(todos.iter().all(|t| t["state"] == "success"));
    // The duplicate `id`: the item's own pairs started with completed; the call's id is kept.
    let ws = by_id("item_1");
    assert_eq!(ws["name"], "web_search");
    assert_eq!(ws["kind"]["type"], "web-search");
    assert_eq!(ws["caller"], "server-tool");
    assert_eq!(ws["input"]["query"], "rust serde duplicate keys");
    assert_eq!(ws["sidecar"]["callId"], "ws_edge_1");
    assert_eq!(ws["state"], "success");
    // A declined command is an error that says so.
    let declined = by_id("item_2");
    assert_eq!(declined["state"], "error");
    assert_eq!(declined["errorText"], "declined");
    assert_eq!(declined["input"]["command"], "rm -rf build");
    // A failed patch, completed without a start.
    let patch = by_id("item_3");
    assert_eq!(patch["state"], "error");
    assert_eq!(
        patch["input"]["description"],
        "update /repo/src/lib.rs, delete /repo/old.txt"
    );
    // An MCP call whose server failed: the error object's message.
    assert_eq!(by_id("item_4")["errorText"], "server docs is not connected");
    // After `exec resume` ids restart at item_0: the second run's are made unique.
    let killed = by_id("item_0@2");
    assert_eq!(killed["errorText"], "exit code 143\nTerminated");
    // Unknown item and event types are kept whole in debug records.
    let debug: Vec<(u64, &str)> = recs
        .iter()
        .filter(|r| r["kind"] == "debug")
        .map(|r| (r["line"].as_u64().unwrap(), r["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        debug,
        [
            (13, "unknown codex item type \"hologram\""),
            (23, "unknown codex event type \"turn.wobbled\"")
        ]
    );
    // An `error` the run survived is a warning; the fatal one is the result's.
    let info = notices(&recs, "info");
    assert_eq!(info.len(), 1);
    assert_eq!(info[0]["level"], "warning");
    assert_eq!(info[0]["text"], "Reconnecting... 1/5");
    let results = notices(&recs, "result");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["isError"], false);
    assert_eq!(results[0]["usage"]["inputTokens"], 900);
    assert_eq!(
        results[1]["errors"],
        serde_json::json!(["stream disconnected before completion"])
    );
    // The resumed thread re-announces the same session: one header.
    assert_eq!(recs.iter().filter(|r| r["kind"] == "session").count(), 1);
    // The checklist reaches the Markdown renderer.
    let out = scribe()
        .args(["--to", "md"])
        .arg(sample("codex-exec-edges.jsonl"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let md = String::from_utf8_lossy(&out);
    assert!(
        md.contains("- [x] look up the docs\n- [ ] write the answer"),
        "{md}"
    );
}

#[test]
fn rollout_edge_cases() {
    let (recs, stderr) = run(&sample("codex-rollout-edges.jsonl"), &[]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(recs[0]["source"], "codex-rollout");
    // The header waits for the turn context (the model); a new model gives a new header.
    let sessions: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "session").collect();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0]["model"], "gpt-5.5");
    assert_eq!(sessions[0]["gitBranch"], "main");
    assert_eq!(sessions[0]["permissionMode"], "on-request");
    assert_eq!(sessions[1]["model"], "gpt-5.5-mini");
    // Reasoning with no summary falls back to the raw content.
    let first = recs.iter().find(|r| r["role"] == "assistant").unwrap();
    assert_eq!(first["parts"][0]["text"], "Need the changelog first.");
    let c = calls(&recs);
    assert_eq!(c[0]["name"], "web_search");
    assert_eq!(c[0]["input"]["action"]["type"], "open_page");
    // A command given as a string is unwrapped too.
    assert_eq!(c[1]["input"]["command"], "make 2>&1 | tail -1");
    assert_eq!(c[1]["sidecar"]["duration"]["secs"], 1);
    assert_eq!(c[2]["state"], "error");
    assert_eq!(
        c[2]["errorText"],
        "Failed to find expected lines in /repo/src/missing.rs"
    );
    // Each turn's usage is the difference of the thread totals.
    let results = notices(&recs, "result");
    assert_eq!(results[0]["usage"]["inputTokens"], 600);
    assert_eq!(results[0]["usage"]["cacheReadInputTokens"], 400);
    assert_eq!(results[0]["durationMs"], 1100);
    assert_eq!(results[1]["usage"]["inputTokens"], 100);
    assert_eq!(results[1]["usage"]["cacheReadInputTokens"], 500);
    assert_eq!(results[1]["usage"]["outputTokens"], 20);
    assert_eq!(
        results[1]["errors"],
        serde_json::json!(["quota exceeded (insufficient_quota)"])
    );
    // A compaction keeps its summary.
    let compact = notices(&recs, "compact");
    assert_eq!(compact.len(), 1);
    assert!(
        compact[0]["metadata"]["message"]
            .as_str()
            .unwrap()
            .starts_with("The user asked to fix the build")
    );
    let info = notices(&recs, "info");
    assert_eq!(info.len(), 1);
    assert_eq!(info[0]["source"], "stream_error");
    assert_eq!(info[0]["level"], "warning");
    // Unknown item and event_msg types are kept whole in debug records.
    let debug: Vec<(u64, &str)> = recs
        .iter()
        .filter(|r| r["kind"] == "debug")
        .map(|r| (r["line"].as_u64().unwrap(), r["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        debug,
        [
            (18, "unknown rollout item type \"Hologram\""),
            (20, "unknown event_msg type \"wobble\"")
        ]
    );
}

#[test]
fn explicit_from_and_no_misdetection() {
    // Each Codex sample is read by its own adapter whether named or detected, and the other
    // Codex adapter does not mistake it for its own (it keeps the lines as debug records).
    for (file, own, other) in [
        ("codex-exec-edges.jsonl", "codex-exec", "codex-rollout"),
        ("codex-rollout-edges.jsonl", "codex-rollout", "codex-exec"),
    ] {
        let (auto, _) = run(&sample(file), &[]);
        let (named, _) = run(&sample(file), &["--from", own]);
        assert_eq!(auto, named, "{file}");
        let (wrong, _) = run(&sample(file), &["--from", other]);
        assert!(debug_count(&wrong) > 5, "{file} read as {other}");
    }
    // The samples of the other formats are not taken for Codex.
    for file in ["demo.jsonl", "qwen-daemon-lines.jsonl", "ci-run.jsonl"] {
        let (recs, _) = run(&sample(file), &[]);
        let src = recs[0]["source"].as_str().unwrap();
        assert!(!src.starts_with("codex"), "{file}: {src}");
    }
}

/// The 0.40 rollouts of the external corpus carry the conversation in `response_item` and
/// older `event_msg` lines only (no `item_completed`): every prompt, answer and call is kept,
/// each once, and every call ends.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn rollouts_without_item_completed_fold_completely() {
    let dir = corpus();
    let file = dir.join("external/jnarowski/agentcmd/packages/agent-cli-sdk/tests/fixtures/codex/full/rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl");
    let (recs, stderr) = run(&file, &[]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(debug_count(&recs), 0);
    let c = calls(&recs);
    assert_eq!(c.len(), 123, "every function_call");
    assert!(
        c.iter()
            .all(|c| c["state"] == "success" || c["state"] == "error")
    );
    let ids: std::collections::BTreeSet<String> =
        c.iter().map(|c| c["toolCallId"].to_string()).collect();
    assert_eq!(ids.len(), 123, "each call once");
    let prompts = recs
        .iter()
        .filter(|t| t["role"] == "user" && t["origin"]["kind"] == "user-input")
        .count();
    assert_eq!(prompts, 13, "every user_message, once");
    assert_eq!(texts(&recs).len(), 9, "every agent_message, once");
    // The shell wrapper is unwrapped from the argv array.
    assert_eq!(c[0]["input"]["command"], "rg \"TeamSheet\"");
}

#[test]
fn legacy_rollout_lines_each_fact_once() {
    let (recs, stderr) = run(&sample("codex-rollout-legacy.jsonl"), &[]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(debug_count(&recs), 0);
    assert_eq!(recs.iter().filter(|r| r["kind"] == "session").count(), 1);
    let prompts: Vec<_> = recs
        .iter()
        .filter(|t| t["role"] == "user" && t["origin"]["kind"] == "user-input")
        .map(|t| t["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        prompts,
        [
            "Find where TeamSheet is used and plan the fix.",
            "Now fix it."
        ]
    );
    assert_eq!(
        texts(&recs),
        ["TeamSheet is used in src/page.tsx; the plan is set."]
    );
    let reasoning = recs
        .iter()
        .flat_map(|t| t["parts"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["type"] == "reasoning")
        .count();
    assert_eq!(
        reasoning, 2,
        "agent_reasoning and its response_item copy: once"
    );
    let c = calls(&recs);
    let by = |id: &str| c.iter().find(|c| c["toolCallId"] == id).unwrap().clone();
    assert_eq!(by("call_rg")["input"]["command"], "rg -l TeamSheet");
    assert_eq!(by("call_rg")["state"], "success");
    assert_eq!(by("call_sed")["state"], "error");
    assert!(
        by("call_sed")["errorText"]
            .as_str()
            .unwrap()
            .starts_with("exit code 2")
    );
    assert_eq!(by("call_ls")["input"]["command"], "ls -1 src");
    assert_eq!(by("call_plan")["name"], "update_plan");
    assert_eq!(by("call_patch")["name"], "apply_patch");
    assert_eq!(by("call_mcp")["name"], "search");
    assert_eq!(by("call_mcp")["mcpServer"], "docs");
    assert_eq!(by("call_spawn")["name"], "spawn_agent");
    assert_eq!(
        by("call_cut")["state"],
        "error",
        "a call cut by the abort ends"
    );
    assert!(c.iter().any(|c| c["name"] == "web_search"));
    assert_eq!(c.len(), 9);
    // Each prompt's turn gets a result notice with the tokens counted during it.
    let results = notices(&recs, "result");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["usage"]["outputTokens"], 324);
    assert_eq!(results[1]["isError"], true);
}

/// `codex exec resume` reports the thread's running total in `turn.completed`: the second
/// run's result carries its own usage. A stream cut inside a turn says it is incomplete.
#[test]
fn a_resumed_run_reports_its_own_usage_and_a_cut_stream_is_incomplete() {
    let input = concat!(
        r#"{"type":"thread.started","thread_id":"t-1"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"one"}}"#,
        "\n",
        r#"{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":400,"output_tokens":50}}"#,
        "\n",
        r#"{"type":"thread.started","thread_id":"t-1"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"two"}}"#,
        "\n",
        r#"{"type":"turn.completed","usage":{"input_tokens":2500,"cached_input_tokens":1400,"output_tokens":80}}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
    );
    let out = crate::util::scribe_jsonl()
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let recs = json_lines(&out);
    let results = notices(&recs, "result");
    assert_eq!(results[0]["usage"]["outputTokens"], 50);
    assert_eq!(results[1]["usage"]["outputTokens"], 30);
    assert_eq!(results[1]["usage"]["inputTokens"], 500);
    assert_eq!(results[1]["usage"]["cacheReadInputTokens"], 1000);
    let incomplete = notices(&recs, "info")
        .into_iter()
        .filter(|n| n["source"] == "incomplete")
        .count();
    assert_eq!(incomplete, 1);
}

/// The model's tool search (`tool_search_call` / `tool_search_output` in a rollout: MCP tools
/// loaded on demand) is a call of its own, never absorbed: its query as input, the tools it
/// found as its result (one line per namespace), the whole list kept in the sidecar.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_rollout_tool_search_is_a_call() {
    let (_, rollout) = scenario("mcp");
    let (recs, _) = run(&rollout, &[]);
    let c = calls(&recs);
    assert_eq!(c[0]["name"], "tool_search");
    assert_eq!(c[0]["toolCallId"], "call_search_1");
    assert_eq!(c[0]["input"]["query"], "echo");
    assert_eq!(c[0]["state"], "success");
    assert_eq!(c[0]["output"], "mcp__echo: echo, fail");
    assert_eq!(c[0]["sidecar"]["tools"][0]["name"], "mcp__echo");
    let out = crate::util::scribe()
        .args(["--to", "text", "--color", "never"])
        .arg(&rollout)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("tool_search(echo)"), "{text}");
    assert!(text.contains("mcp__echo: echo, fail"), "{text}");
}

/// Codex's collab tools: starting a sub-agent (or writing to one) is a sub-agent call described
/// by its prompt; waiting for sub-agents is a call about them; neither is an anonymous `other`.
#[test]
fn collab_tool_calls_are_sub_agent_calls() {
    let lines = [
        r#"{"type":"thread.started","thread_id":"t0"}"#,
        r#"{"type":"turn.started"}"#,
        r#"{"type":"item.completed","item":{"id":"item_0","type":"collab_tool_call","tool":"spawn_agent","sender_thread_id":"t0","receiver_thread_ids":["t1"],"prompt":"run the tests","agents_states":{"t1":{"status":"running","message":null}},"status":"completed"}}"#,
        r#"{"type":"item.completed","item":{"id":"item_1","type":"collab_tool_call","tool":"wait","sender_thread_id":"t0","receiver_thread_ids":["t1"],"prompt":null,"agents_states":{"t1":{"status":"completed","message":"all green"}},"status":"completed"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}"#,
    ];
    let out = crate::util::scribe_jsonl()
        .args(["--from", "codex-exec"])
        .write_stdin(lines.join("\n") + "\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let kinds: Vec<Value> = json_lines(&out)
        .iter()
        .flat_map(|r| r["parts"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["type"] == "tool-call")
        .map(|p| p["call"]["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        [
            serde_json::json!({"type": "subagent", "description": "run the tests"}),
            serde_json::json!({"type": "other", "subject": "t1"}),
        ]
    );
}
