//! The real Claude Code captures, end to end (ignored: they need ../shared/corpus).
//!
//! The checks are those of the spine issue: valid JSON lines, a header first, no `debug` record,
//! one tool call per `tool_use` (nested ones included), every answered call in `success` or
//! `error`, no sub-agent turn at the top level, one assistant turn per message id, and the
//! scenario-specific facts of 05-subagent, 07-skill, 08-mcp and 10-partial-messages.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{
    Ext2, corpus, external2_logs, files_under, fold_quiet as fold, json_lines, scribe,
};

fn streams(dir: &Path) -> Vec<PathBuf> {
    files_under(&dir.join("claude-code"), &|p| {
        let name = p.file_name().unwrap().to_string_lossy();
        name.starts_with("stream") && name.ends_with(".jsonl")
    })
}

fn read_lines(path: &Path) -> Vec<Value> {
    json_lines(&std::fs::read(path).unwrap())
}

/// Every tool call in the output, nested ones included.
fn all_calls(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(o) => {
            if o.get("type").and_then(Value::as_str) == Some("tool-call") {
                out.push(o["call"].clone());
            }
            for x in o.values() {
                all_calls(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| all_calls(x, out)),
        _ => {}
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_claude_stream_folds_cleanly() {
    let dir = corpus();
    let files = streams(&dir);
    assert!(
        files.len() >= 18,
        "expected the corpus streams, found {}",
        files.len()
    );
    for path in files {
        assert_stream_folds_cleanly(&path);
    }
}

/// The same over the Claude Code streams of `../shared/external2`.
#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn every_claude_external2_stream_folds_cleanly() {
    let files = external2_logs(&[Ext2::ClaudeStream]);
    assert!(files.len() >= 4, "expected the external2 streams");
    for path in files {
        assert_stream_folds_cleanly(&path);
    }
}

/// One stream: a header first, no debug record, one tool call per `tool_use`, every answered
/// call ended, no sub-agent turn at the top level, one assistant turn per message id.
fn assert_stream_folds_cleanly(path: &Path) {
    let name = path.display().to_string();
    let input = read_lines(path);
    let recs = fold(path);
    assert_eq!(recs[0]["kind"], "header", "{name}");
    assert_eq!(
        recs.iter().filter(|r| r["kind"] == "debug").count(),
        0,
        "{name}: debug records"
    );

    let uses = block_ids(&input, ("assistant", "tool_use", "id"));
    let mut calls = Vec::new();
    recs.iter().for_each(|r| all_calls(r, &mut calls));
    let ids: BTreeSet<String> = calls
        .iter()
        .map(|c| c["toolCallId"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(uses, ids, "{name}: tool_use ids in vs tool calls out");
    assert_eq!(calls.len(), ids.len(), "{name}: a tool call written twice");

    let answered = block_ids(&input, ("user", "tool_result", "tool_use_id"));
    for c in &calls {
        if answered.contains(c["toolCallId"].as_str().unwrap()) {
            assert!(
                c["state"] == "success" || c["state"] == "error" || c["state"] == "approval-denied",
                "{name}: {c}"
            );
        }
    }

    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert!(
        turns.iter().all(|t| t.get("parentTaskId").is_none()),
        "{name}: sub-agent turn at top level"
    );
    let msg_ids: BTreeSet<&str> = input
        .iter()
        .filter(|l| l["type"] == "assistant" && l["parent_tool_use_id"].is_null())
        .map(|l| l["message"]["id"].as_str().unwrap())
        .collect();
    let assistant_turns = turns.iter().filter(|t| t["role"] == "assistant").count();
    assert_eq!(
        msg_ids.len(),
        assistant_turns,
        "{name}: one assistant turn per message id"
    );
}

/// The ids (`key`) of the content blocks of type `block` in the input lines of type `row`.
fn block_ids(input: &[Value], (row, block, key): (&str, &str, &str)) -> BTreeSet<String> {
    input
        .iter()
        .filter(|l| l["type"] == row)
        .flat_map(|l| {
            l["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|b| b["type"] == block)
        .map(|b| b[key].as_str().unwrap().to_owned())
        .collect()
}

fn scenario(dir: &Path, name: &str) -> Vec<Value> {
    fold(&dir.join("claude-code").join(name).join("stream.jsonl"))
}

fn calls_of(recs: &[Value]) -> Vec<Value> {
    let mut calls = Vec::new();
    recs.iter().for_each(|r| all_calls(r, &mut calls));
    calls
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn subagent_scenario_nests_the_bash_call_in_the_agent_call() {
    let dir = corpus();
    let recs = scenario(&dir, "05-subagent");
    let top: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    let agent = top
        .iter()
        .flat_map(|t| t["parts"].as_array().unwrap())
        .find(|p| p["type"] == "tool-call" && p["call"]["name"] == "Agent")
        .map(|p| &p["call"])
        .expect("an Agent call at the top level");
    let sub = &agent["subagent"];
    assert_eq!(sub["status"], "completed");
    assert_eq!(sub["description"], "Count files");
    let inner = calls_of(sub["transcript"].as_array().unwrap());
    assert_eq!(inner.len(), 1);
    assert_eq!(inner[0]["name"], "Bash");
    assert_eq!(inner[0]["state"], "success");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn skill_scenario_fills_the_skill() {
    let dir = corpus();
    let calls = calls_of(&scenario(&dir, "07-skill"));
    let skill = &calls.iter().find(|c| c["name"] == "Skill").unwrap()["skill"];
    assert_eq!(skill["skillName"], "widgets");
    assert!(skill["body"].as_str().unwrap().contains("# Widgets"));
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn mcp_scenario_marks_the_caller_and_server() {
    let dir = corpus();
    let calls = calls_of(&scenario(&dir, "08-mcp"));
    let c = calls
        .iter()
        .find(|c| c["name"] == "mcp__echo__echo")
        .unwrap();
    assert_eq!(c["caller"], "mcp");
    assert_eq!(c["mcpServer"], "echo");
    assert_eq!(c["output"], "ECHO: BANANA (6 chars)");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn partial_messages_fold_to_the_same_turns_as_without_them() {
    let dir = corpus();
    let path = dir.join("claude-code/10-partial-messages/stream.jsonl");
    let with = fold(&path);
    let without_input: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"type\":\"stream_event\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let out = scribe()
        .args(["--to", "jsonl"])
        .write_stdin(without_input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let without = json_lines(&out);
    let turns = |recs: &[Value]| -> Vec<Value> {
        recs.iter()
            .filter(|r| r["kind"] == "turn")
            .cloned()
            .collect()
    };
    let (a, b) = (turns(&with), turns(&without));
    assert_eq!(a.len(), 2);
    // Identical but for the final usage and stop reason that only message_delta carries.
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x["parts"], y["parts"]);
        assert_eq!(x["id"], y["id"]);
    }
    let texts: Vec<&str> = a
        .iter()
        .flat_map(|t| t["parts"].as_array().unwrap())
        .filter_map(|p| p["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        ["Use uname.", "Let me check.", "The kernel is Linux."]
    );
}
