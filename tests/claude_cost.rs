//! Issue 15 point 10: a result's cost is its run's own, and the session's running total
//! (Claude's `total_cost_usd`, cumulative over a process and, on newer CLIs, over `--resume`) is
//! labelled as such, in every output.

use serde_json::Value;

use crate::claude_content::{records, render};

/// The `result` notices' (cost, runCost).
fn costs(name: &str) -> Vec<(Value, Value)> {
    records(name)
        .into_iter()
        .filter(|r| r["notice"]["kind"] == "result")
        .map(|r| (r["notice"]["cost"].clone(), r["notice"]["runCost"].clone()))
        .collect()
}

// A newer CLI resumed with `--resume`: each result reports the session's running total ($1.20,
// then $1.30, earlier runs included) and its own part (`model_usage_since_last_result`).
#[test]
fn a_resumed_run_costs_its_own_part_and_the_session_total_is_labelled() {
    let name = "result-cost-resumed.jsonl";
    let got: Vec<(f64, f64)> = costs(name)
        .iter()
        .map(|(c, r)| (c.as_f64().unwrap(), r.as_f64().unwrap()))
        .collect();
    assert_eq!(got, [(1.2, 0.05), (1.3, 0.1)]);
    let label = "$0.1500 · $1.3000 session total";
    // Wide enough that the closing line is one line.
    let text = render(name, &["--to", "text", "--width", "200"]);
    assert!(text.contains(label), "{text}");
    let md = render(name, &["--to", "md"]);
    assert!(md.contains(label), "{md}");
    let html = render(name, &["--to", "html"]);
    // The page says its cost once, in the map at the top.
    assert!(html.contains(&format!("<dd>{label}</dd>")), "{html}");
    assert!(html.contains("$0.0500 ($1.2000 session so far)"), "{html}");
    assert!(!text.contains("$1.2000"), "{text}");
}

// An older CLI: two processes appended to one file, the second (`--resume`) counting from zero
// again. Each result's total is its own; the closing lines add them up.
#[test]
fn a_count_that_starts_again_is_a_new_run_and_the_runs_add_up() {
    let name = "result-cost-restarted.jsonl";
    assert_eq!(
        costs(name),
        [
            (Value::from(0.5), Value::Null),
            (Value::from(0.125), Value::from(0.125))
        ]
    );
    for to in ["text", "md", "html"] {
        let out = render(name, &["--to", to]);
        assert!(out.contains("$0.6250"), "--to {to}:\n{out}");
        assert!(!out.contains("session total"), "--to {to}:\n{out}");
    }
}

// Several prompts to one process (a real 2.1.x capture): the second result restates the first's
// cost; the closing line says the process's cost once, not the sum of the running totals.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn one_process_with_two_prompts_costs_its_running_total() {
    let dir = crate::util::corpus();
    let path = dir.join("claude-code/18-stream-input-replay/stream.jsonl");
    let out = crate::util::scribe()
        .args(["--to", "text"])
        .arg(&path)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("$0.0706 ──"), "{text}");
}
