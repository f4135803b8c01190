//! Property tests: any arrangement of real-shaped lines folds without a panic, and nothing the
//! adapter emitted is lost by the fold; and the fold's own guard against a late event that would
//! move an ended call backwards (no adapter sends one now, so only a made event reaches it).
//!
//! Inputs are built from the bundled samples: lines shuffled, dropped, repeated, cut short, or with
//! a field's value replaced by another JSON value of the wrong kind.
//!
//! The helpers (`file_lines`, `damage_first`, `output_call_ids`) also serve the saved-session property
//! test in `input/claude/session/robustness.rs`.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::Value;

use crate::diagnostics::Diagnostics;
use crate::fold::Folder;
use crate::input::lines::LineReader;
use crate::input::{Adapter, Report};
use crate::model::event::{Event, EventKind};
use crate::model::transcript::{Part, ToolState, TranscriptItem};

fn sample_lines() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/claude-stream");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    file_lines(&names)
}

/// Every line of the files, in order. Shared by the property tests that build their inputs from
/// the bundled samples.
pub(crate) fn file_lines(files: &[std::path::PathBuf]) -> Vec<String> {
    files
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Replaces the value at the n-th key found (depth first) with `with`.
fn mutate(v: &mut Value, n: &mut usize, with: &Value) -> bool {
    match v {
        Value::Object(o) => {
            for (_, x) in o.iter_mut() {
                if *n == 0 {
                    *x = with.clone();
                    return true;
                }
                *n -= 1;
                if mutate(x, n, with) {
                    return true;
                }
            }
            false
        }
        Value::Array(a) => a.iter_mut().any(|x| mutate(x, n, with)),
        _ => false,
    }
}

/// Gives the first line's n-th key (depth first) the value `with`, when there is a mutation and
/// the line is JSON. Shared by the property tests, which damage their inputs this way.
pub(crate) fn damage_first(lines: &mut [String], mutation: Option<(usize, Value)>) {
    if let Some((mut n, with)) = mutation {
        let first = &mut lines[0];
        if let Ok(mut v) = serde_json::from_str::<Value>(first) {
            mutate(&mut v, &mut n, &with);
            *first = v.to_string();
        }
    }
}

/// Every tool-call id inside a JSON value.
fn call_ids(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            if o.get("type").and_then(Value::as_str) == Some("tool-call") {
                if let Some(id) = o["call"]["toolCallId"].as_str() {
                    out.insert(id.to_owned());
                }
            }
            o.values().for_each(|x| call_ids(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| call_ids(x, out)),
        _ => {}
    }
}

/// Runs bytes through the Claude adapter and the fold; returns the tool-call ids the adapter
/// emitted and those the output holds.
fn run(input: &[u8]) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut reader = LineReader::new(input);
    let mut adapter = crate::input::claude::stream();
    let mut folder = Folder::new();
    let mut diag = Diagnostics::new(false).quiet();
    let (mut events, mut items) = (Vec::new(), Vec::new());
    let mut ids_in = BTreeSet::new();
    while let Some(line) = reader.next_line().unwrap() {
        let mut report = Report {
            file: "-",
            problems: &mut diag,
        };
        adapter.line(&line, &mut events, &mut report);
        for e in events.drain(..) {
            if let EventKind::AssistantBlock {
                part: Part::ToolCall { call },
                ..
            } = &e.kind
            {
                ids_in.insert(call.tool_call_id.clone());
            }
            folder.push(e, &mut items);
        }
    }
    folder.finish(&mut items);
    (ids_in, output_call_ids(&items))
}

/// The tool-call ids the fold's output holds, on the main line, in notices (branches, orphan
/// sub-agents) or nested in sub-agent transcripts. Shared by the property tests, which check
/// that no call is lost.
pub(crate) fn output_call_ids(items: &[TranscriptItem]) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for i in items {
        let v = match i {
            TranscriptItem::Turn(t) => serde_json::to_value(t).unwrap(),
            TranscriptItem::Notice(n) => serde_json::to_value(n).unwrap(),
            TranscriptItem::Session(_) | TranscriptItem::Debug(_) => Value::Null,
        };
        call_ids(&v, &mut ids);
    }
    ids
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn shuffled_and_damaged_streams_never_panic(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..40),
        cut in prop::option::of(any::<prop::sample::Index>()),
        mutation in prop::option::of((0usize..60, prop_oneof![
            Just(Value::Null), Just(Value::Bool(true)), Just(serde_json::json!(7)),
            Just(serde_json::json!("x")), Just(serde_json::json!([])), Just(serde_json::json!({})),
        ])),
        crlf in any::<bool>(),
    ) {
        let lines = sample_lines();
        let mut chosen: Vec<String> = picks.iter().map(|i| i.get(&lines).clone()).collect();
        damage_first(&mut chosen, mutation);
        let nl = if crlf { "\r\n" } else { "\n" };
        let mut input = chosen.join(nl).into_bytes();
        if let Some(c) = cut {
            let at = c.index(input.len() + 1);
            input.truncate(at);
        }
        let (ids_in, ids_out) = run(&input);
        // Whatever order the lines come in, no tool call the adapter saw is lost by the fold.
        prop_assert!(ids_in.is_subset(&ids_out), "lost {:?}", ids_in.difference(&ids_out).collect::<Vec<_>>());
    }
}

/// A Claude stream: one message with two calls, the first answered, then the second.
const TWO_CALLS: [&str; 3] = [
    r#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"c2","name":"Bash","input":{"command":"make"}}]}}"#,
    r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"a.txt"}]}}"#,
    r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c2","content":"ok"}]}}"#,
];

/// The fold's own guard, whatever an adapter sends: a question about a call that already
/// ended (its turn still held by the other call) leaves the call's final state.
#[test]
fn a_late_update_does_not_move_an_ended_call_backwards() {
    let input = TWO_CALLS.join("\n");
    let mut lines = LineReader::new(input.as_bytes());
    let mut adapter = crate::input::claude::stream();
    let mut folder = Folder::new();
    let mut diag = Diagnostics::new(false).quiet();
    let (mut events, mut items) = (Vec::new(), Vec::new());
    let mut n = 0;
    while let Some(line) = lines.next_line().unwrap() {
        n += 1;
        let mut report = Report {
            file: "-",
            problems: &mut diag,
        };
        adapter.line(&line, &mut events, &mut report);
        if n == 3 {
            let late = EventKind::ToolUpdate {
                tool_call_id: "c1".into(),
                state: Some(ToolState::ApprovalPending),
                output: None,
                input: None,
                kind: None,
                error_text: None,
                sidecar: None,
            };
            events.insert(0, Event::at(3, late));
        }
        for e in events.drain(..) {
            folder.push(e, &mut items);
        }
    }
    folder.finish(&mut items);
    let states: Vec<(String, ToolState)> = items
        .iter()
        .filter_map(|i| {
            if let TranscriptItem::Turn(t) = i {
                Some(t)
            } else {
                None
            }
        })
        .flat_map(|t| t.parts.iter())
        .filter_map(Part::call)
        .map(|call| (call.tool_call_id.clone(), call.state))
        .collect();
    assert_eq!(
        states,
        [
            ("c1".to_owned(), ToolState::Success),
            ("c2".to_owned(), ToolState::Success)
        ]
    );
}
