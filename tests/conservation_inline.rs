//! Conservation of what a 2.1 session records only inline, over every file of `../shared/corpus`
//! and `../shared/external2`: the tool calls of sub-agent messages carried by `agent_progress`
//! rows, and the prompts typed while the agent worked (`queue-operation` enqueue rows).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{corpus, external2, files_under, json_lines, scribe};

/// The corpus directories this test reads: the corpus and the second set of real logs beside it.
fn dirs() -> Vec<PathBuf> {
    vec![corpus(), external2()]
}

/// What one file records only inline: the sub-agent call ids and the typed queued prompts.
#[derive(Debug, Default)]
struct Inline {
    calls: Vec<String>,
    prompts: Vec<String>,
}

/// Reads a raw file's inline records.
fn inline_records(path: &Path) -> Inline {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = Inline::default();
    if !text.contains("agent_progress") && !text.contains("\"enqueue\"") {
        return out;
    }
    for v in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if v["type"] == "progress" && v["data"]["type"] == "agent_progress" {
            let blocks = v["data"]["message"]["message"]["content"].as_array();
            for b in blocks.into_iter().flatten() {
                if b["type"] == "tool_use" {
                    out.calls.extend(b["id"].as_str().map(str::to_owned));
                }
            }
        }
        let content = v["content"].as_str().unwrap_or("").trim();
        let typed = !content.is_empty() && !content.starts_with(['<', '{', '[']);
        if v["type"] == "queue-operation" && v["operation"] == "enqueue" && typed {
            out.prompts.push(content.to_owned());
        }
    }
    out
}

/// Whitespace taken out (the renderers and the decoder may rewrap).
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect()
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn inline_sub_agent_calls_and_queued_prompts_are_kept() {
    let (mut files, mut calls, mut prompts) = (0, 0, 0);
    let mut missing = Vec::new();
    for dir in dirs() {
        let is_jsonl = |p: &Path| p.extension().is_some_and(|e| e == "jsonl");
        for path in files_under(&dir, &is_jsonl) {
            let want = inline_records(&path);
            if want.calls.is_empty() && want.prompts.is_empty() {
                continue;
            }
            files += 1;
            let out = scribe()
                .args(["--to", "jsonl"])
                .arg(&path)
                .output()
                .unwrap();
            let recs = json_lines(&out.stdout);
            let jsonl = String::from_utf8_lossy(&out.stdout);
            let user_texts: String = recs
                .iter()
                .filter(|r| r["kind"] == "turn" && r["role"] == "user")
                .map(|r| squeeze(&r["parts"].to_string()))
                .collect();
            for c in &want.calls {
                calls += 1;
                if !jsonl.contains(&format!("\"toolCallId\":\"{c}\"")) {
                    missing.push(format!("{}: sub-agent call {c}", path.display()));
                }
            }
            for p in &want.prompts {
                prompts += 1;
                let spelt = squeeze(&Value::String(p.clone()).to_string());
                if !user_texts.contains(spelt.trim_matches('"')) {
                    missing.push(format!("{}: queued prompt {p:?}", path.display()));
                }
            }
        }
    }
    eprintln!(
        "inline conservation: {files} files, {calls} inline sub-agent calls, {prompts} queued prompts, {} missing",
        missing.len()
    );
    assert!(missing.is_empty(), "lost:\n{}", missing.join("\n"));
}
