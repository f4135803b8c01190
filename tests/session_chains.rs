//! Saved sessions whose `parentUuid` chain is not one clean line (issue 15, points 4 and 5):
//! parallel calls chained through hook `progress` rows, logs without parents, first rows whose
//! parents are not in the file. None of them is a rewind, so none may give a branch notice.

use serde_json::Value;

use crate::util::{corpus, fold_quiet as fold, run_jsonl, sample};

fn session(name: &str) -> Vec<Value> {
    fold(&sample(&format!("claude-session/{name}")))
}

fn branches(recs: &[Value]) -> usize {
    recs.iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["kind"] == "branch")
        .count()
}

/// Every tool call in the records, top level only: (name, state, output text).
fn calls(recs: &[Value]) -> Vec<(String, String, String)> {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .filter(|p| p["call"].is_object())
        .map(|p| {
            let c = &p["call"];
            (
                c["name"].as_str().unwrap_or_default().to_owned(),
                c["state"].as_str().unwrap_or_default().to_owned(),
                c["output"].to_string(),
            )
        })
        .collect()
}

/// The texts the person typed, in output order.
fn prompts(recs: &[Value]) -> Vec<String> {
    recs.iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == "user")
        .filter_map(|r| r["parts"][0]["text"].as_str())
        .map(str::to_owned)
        .collect()
}

#[test]
fn parallel_calls_chained_through_hook_progress_stay_on_the_main_line() {
    // 2.1.x: the 2nd tool_use hangs off the PreToolUse progress row of the 1st, and the next
    // message off the 1st call's result: nothing of the message is a branch.
    let recs = session("hook-progress-parallel.jsonl");
    assert_eq!(branches(&recs), 0);
    let calls = calls(&recs);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert!(calls.iter().all(|(_, state, _)| state == "success"));
    assert!(calls[0].2.contains("README.md"), "{calls:?}");
    assert!(calls[1].2.contains("10:00:03"), "{calls:?}");
    let last = recs.iter().rev().find(|r| r["kind"] == "turn").unwrap();
    assert_eq!(last["parts"][0]["text"], "Two files; it is 10:00 UTC.");
}

#[test]
fn a_log_without_parents_is_read_in_file_order() {
    let recs = session("no-parents.jsonl");
    assert_eq!(branches(&recs), 0);
    assert_eq!(prompts(&recs), ["What is in notes.txt?", "Thanks."]);
    let calls = calls(&recs);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1, "success", "the result is paired with its call");
    assert!(calls[0].2.contains("buy milk"));
}

#[test]
fn dangling_parents_are_roots_not_branches() {
    // Copied mid-way, then continued after --resume: both first rows name parents not here.
    let recs = session("dangling-parents.jsonl");
    assert_eq!(branches(&recs), 0);
    assert_eq!(prompts(&recs), ["Now add a test for it.", "And run it."]);
    assert_eq!(calls(&recs)[0].1, "success");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn fixtures_of_other_tools_give_no_branch_notices() {
    // Real and hand-made sessions that other viewers keep as fixtures: null, absent or dangling
    // parents everywhere, no rewind among them.
    let root = corpus();
    let files = [
        "external/daaain/claude-code-log/test/test_data/edge_cases.jsonl",
        "external/daaain/claude-code-log/test/test_data/representative_messages.jsonl",
        "external/daaain/claude-code-log/test/test_data/session_b.jsonl",
        "external/simonw/claude-code-transcripts/tests/sample_session.jsonl",
        "external/lpasqualis/claudeconvo/tests/fixtures/sample_conversation.jsonl",
        "external/lpasqualis/claudeconvo/tests/fixtures/versions/1_0_108.entries.jsonl",
        "external/lpasqualis/claudeconvo/tests/fixtures/versions/1_0_70.entries.jsonl",
    ];
    for f in files {
        let (recs, _) = run_jsonl(&root.join(f), &["--from", "claude-session"]);
        assert_eq!(branches(&recs), 0, "{f}");
        assert!(
            recs.iter().filter(|r| r["kind"] == "turn").count() >= 2,
            "{f}"
        );
    }
}

#[test]
fn an_abandoned_branch_stays_readable_in_every_view() {
    // A real rewind: the turns left behind are shown (collapsed, marked as rewound), not only
    // counted, and not mixed into the main line.
    let path = sample("claude-session/rewind.jsonl");
    for to in ["text", "md", "html"] {
        let out = crate::util::scribe()
            .args(["--to", to])
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).unwrap();
        // The HTML page names prompts in its title, map and prompt index too: look at the
        // transcript itself, from its first turn on.
        let out = match out.find("<article class=\"turn") {
            Some(start) if to == "html" => out[start..].to_owned(),
            _ => out,
        };
        let marker = out
            .to_lowercase()
            .find("rewound")
            .unwrap_or_else(|| panic!("{to}: no marker\n{out}"));
        let abandoned = out.find("Another one, but warmer.");
        let red = out.find("Red.");
        let main = out.find("Another one, but darker.").unwrap();
        assert!(
            abandoned.is_some_and(|a| marker < a && a < main),
            "{to}: the abandoned prompt under the marker\n{out}"
        );
        assert!(red.is_some_and(|r| marker < r && r < main), "{to}\n{out}");
        assert_eq!(out.matches("Red.").count(), 1, "{to}: shown once\n{out}");
        if to != "text" {
            assert!(out.contains("<details"), "{to}: collapsed\n{out}");
        }
    }
}
