//! Property test: any arrangement of saved-session lines (shuffled, repeated, dropped, cut short,
//! a field given a value of the wrong kind) is read without a panic, and every tool call in it
//! reaches the output: on the main line, in a branch notice or in a sub-agent.
//!
//! Inputs are built from the bundled samples/claude-session files, sub-agent files included (their
//! rows then arrive as inline sidechains).

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::Value;

use super::ClaudeSession;
use crate::fold::Folder;
use crate::input::lines::LineReader;
use crate::input::{Adapter, Report};
use crate::robustness_tests::{damage_first, file_lines, output_call_ids};

fn sample_lines() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/claude-session");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    file_lines(&files)
}

/// The `tool_use` ids of an assistant row.
fn tool_use_ids(v: &Value, out: &mut BTreeSet<String>) {
    if v.get("type").and_then(Value::as_str) != Some("assistant") {
        return;
    }
    let Some(blocks) = v.pointer("/message/content").and_then(Value::as_array) else {
        return;
    };
    for b in blocks {
        if b.get("type").and_then(Value::as_str) == Some("tool_use") {
            if let Some(id) = b.get("id").and_then(Value::as_str) {
                out.insert(id.to_owned());
            }
        }
    }
}

/// Runs bytes through the session adapter and the fold; returns the tool-call ids in the output.
fn run(input: &[u8]) -> BTreeSet<String> {
    let mut reader = LineReader::new(input);
    let mut adapter = ClaudeSession::default();
    let mut folder = Folder::new();
    let (mut events, mut items) = (Vec::new(), Vec::new());
    let mut report = Report {
        file: "-",
        problems: &mut crate::input::Unheard,
    };
    while let Some(line) = reader.next_line().unwrap() {
        adapter.line(&line, &mut events, &mut report);
    }
    adapter.finish(&mut events, &mut report);
    for e in events {
        folder.push(e, &mut items);
    }
    folder.finish(&mut items);
    output_call_ids(&items)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn shuffled_and_damaged_sessions_lose_no_tool_call(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..40),
        cut in any::<bool>(),
        mutation in prop::option::of((0usize..60, prop_oneof![
            Just(Value::Null), Just(Value::Bool(true)), Just(serde_json::json!(7)),
            Just(serde_json::json!("x")), Just(serde_json::json!([])), Just(serde_json::json!({})),
        ])),
    ) {
        let lines = sample_lines();
        let mut chosen: Vec<String> = picks.iter().map(|i| i.get(&lines).clone()).collect();
        damage_first(&mut chosen, mutation);
        if cut {
            // The last line loses its second half (a file still being written).
            let last = chosen.last_mut().expect("at least one line");
            let at = last.len() / 2;
            let at = (0..=at).rev().find(|&i| last.is_char_boundary(i)).unwrap_or(0);
            last.truncate(at);
        }
        let mut expected = BTreeSet::new();
        for l in &chosen {
            if let Ok(v) = serde_json::from_str::<Value>(l) {
                tool_use_ids(&v, &mut expected);
            }
        }
        let got = run(chosen.join("\n").as_bytes());
        let lost: Vec<&String> = expected.difference(&got).collect();
        prop_assert!(lost.is_empty(), "lost tool calls {lost:?}");
    }
}
