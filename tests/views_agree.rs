//! The views agree: for every real log of the corpus and of external2, the terminal view's
//! closing line, the Markdown totals line, the HTML page's header and the `-o DIR` index give
//! the turns, prompts, calls (main thread and sub-agents), errors, tokens and cost that the
//! records of `--to jsonl` hold, counted as docs/schema.md §1.11 defines them.
//!
//! The figures are counted here from the JSONL records, on their own, and each view must say
//! them in its words; nothing of the renderers' counting is reused.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{
    AGENT_SAMPLES, Ext2, corpus, corpus_captures, external2_logs, json_lines, sample, scribe,
    thousands,
};

/// What a transcript counts, from its records.
#[derive(Debug, Default, PartialEq)]
struct Figures {
    turns: u64,
    prompts: u64,
    calls: u64,
    errors: u64,
    denied: u64,
    sub_calls: u64,
    sub_failed: u64,
    tokens_in: u64,
    tokens_out: u64,
    /// `$own`, or `$own · $total session total`.
    cost: Option<String>,
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn is_denied(call: &Value) -> bool {
    call.get("denied").is_some() || call["state"] == "approval-denied"
}

fn is_error(call: &Value) -> bool {
    call["state"] == "error" && !is_denied(call)
}

/// The tool calls among a turn's parts.
fn calls(turn: &Value) -> impl Iterator<Item = &Value> {
    turn["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["type"] == "tool-call")
        .map(|p| &p["call"])
}

/// Counts the calls made inside the sub-agent a call ran, at any depth.
fn count_sub(call: &Value, f: &mut Figures) {
    for t in call["subagent"]["transcript"]
        .as_array()
        .into_iter()
        .flatten()
    {
        for c in calls(t) {
            f.sub_calls += 1;
            if is_denied(c) || is_error(c) {
                f.sub_failed += 1;
            }
            count_sub(c, f);
        }
    }
}

/// The input tokens (cache reads and writes included) and output tokens of a `usage` object.
fn tokens(u: &Value) -> (u64, u64) {
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    (
        n("inputTokens") + n("cacheReadInputTokens") + n("cacheCreationInputTokens"),
        n("outputTokens"),
    )
}

/// The cost label of docs/schema.md §1.4 and §1.11, from the notices.
fn cost_label(notices: &[&Value]) -> Option<String> {
    let (mut own, mut any_result_cost) = (0.0, false);
    let (mut last, mut earlier, mut session) = (0.0_f64, 0.0, None);
    let mut state: Option<f64> = None;
    for n in notices {
        if n["kind"] == "result" {
            if let Some(c) = n["cost"].as_f64() {
                if c < last {
                    earlier += last;
                }
                last = c;
                session = Some(earlier + c);
            }
            if let Some(part) = n["runCost"].as_f64().or(n["cost"].as_f64()) {
                own += part;
                any_result_cost = true;
            }
        } else if n["kind"] == "info"
            && n["source"] == "cost-state"
            && let Some(c) = n["data"]["totalCostUSD"].as_f64()
        {
            state = Some(state.map_or(c, |s: f64| s.max(c)));
        }
    }
    if !any_result_cost {
        return state.map(|c| format!("${c:.4}"));
    }
    Some(match session.filter(|s| s - own >= 0.00005) {
        Some(s) => format!("${own:.4} · ${s:.4} session total"),
        None => format!("${own:.4}"),
    })
}

/// The figures of one transcript's records.
fn figures(records: &[Value]) -> Figures {
    let mut f = Figures::default();
    let (mut turn_in, mut turn_out) = (0, 0);
    let (mut result_in, mut result_out, mut result_usage) = (0, 0, false);
    let mut notices = Vec::new();
    for r in records {
        if r["kind"] == "turn" {
            f.turns += 1;
            let origin = &r["origin"]["kind"];
            if r["role"] == "user" && (origin == "user-input" || origin == "replay") {
                f.prompts += 1;
            }
            if r["role"] == "assistant" && r.get("parentTaskId").is_none() {
                let (i, o) = tokens(&r["metadata"]["usage"]);
                turn_in += i;
                turn_out += o;
            }
            for c in calls(r) {
                f.calls += 1;
                if is_denied(c) {
                    f.denied += 1;
                } else if is_error(c) {
                    f.errors += 1;
                }
                count_sub(c, &mut f);
            }
        } else if r["kind"] == "notice" {
            let n = &r["notice"];
            if n["kind"] == "result" && n.get("usage").is_some_and(Value::is_object) {
                let (i, o) = tokens(&n["usage"]);
                result_in += i;
                result_out += o;
                result_usage = true;
            }
            notices.push(n);
        }
    }
    (f.tokens_in, f.tokens_out) = if result_usage {
        (result_in, result_out)
    } else {
        (turn_in, turn_out)
    };
    f.cost = cost_label(&notices);
    f
}

/// `8 tool calls · 1 error · 1 denied · 5 more in sub-agents (1 failed or denied)`, as the
/// closing lines say it.
fn call_words(f: &Figures) -> Option<String> {
    if f.calls == 0 && f.sub_calls == 0 {
        return None;
    }
    let mut s = format!("{} tool call{}", f.calls, plural(f.calls));
    if f.errors > 0 {
        s += &format!(" · {} error{}", f.errors, plural(f.errors));
    }
    if f.denied > 0 {
        s += &format!(" · {} denied", f.denied);
    }
    if f.sub_calls > 0 {
        s += &format!(" · {} more in sub-agents", f.sub_calls);
        if f.sub_failed > 0 {
            s += &format!(" ({} failed or denied)", f.sub_failed);
        }
    }
    Some(s)
}

/// What the text and Markdown closing lines must hold, in order.
fn closing_pieces(f: &Figures) -> Vec<String> {
    let mut want = vec![
        format!(
            "{} turn{} ({} prompt{})",
            f.turns,
            plural(f.turns),
            f.prompts,
            plural(f.prompts)
        ),
        format!(
            "{} in · {} out tokens",
            thousands(f.tokens_in),
            thousands(f.tokens_out)
        ),
    ];
    want.extend(f.cost.clone());
    want.extend(call_words(f));
    want
}

/// What the HTML header must hold (`dd` texts with their markup).
fn header_pieces(f: &Figures) -> Vec<String> {
    let mut want = vec![format!(
        "<dt>turns</dt><dd>{} ({} prompt{})</dd>",
        f.turns,
        f.prompts,
        plural(f.prompts)
    )];
    if f.calls > 0 || f.sub_calls > 0 {
        want.push(format!("<dt>tool calls</dt><dd>{}", f.calls));
    }
    if f.errors > 0 {
        want.push(format!(
            "<span class=\"bad\">{} error{}</span>",
            f.errors,
            plural(f.errors)
        ));
    }
    if f.denied > 0 {
        want.push(format!("<span class=\"deny\">{} denied</span>", f.denied));
    }
    if f.sub_calls > 0 {
        want.push(format!(" · {} more in sub-agents", f.sub_calls));
    }
    if f.tokens_in + f.tokens_out > 0 {
        want.push(format!(
            "<dt>tokens</dt><dd>{} in (",
            thousands(f.tokens_in)
        ));
        want.push(format!("{} out</dd>", thousands(f.tokens_out)));
    }
    if let Some(c) = &f.cost {
        want.push(format!("<dt>cost</dt><dd>{c}</dd>"));
    }
    want
}

/// Runs scribe on `file` with `args`, asserting success; its standard output.
fn output(file: &Path, args: &[&str]) -> String {
    String::from_utf8(crate::rerun_pairs::out(file, args)).unwrap()
}

/// The last line of `text` that holds `mark`.
fn last_line_with<'a>(text: &'a str, mark: &str) -> &'a str {
    text.lines().rev().find(|l| l.contains(mark)).unwrap_or("")
}

/// The pieces of `want` that `have` does not hold, in order (each after the one before).
fn missing(have: &str, want: &[String]) -> Vec<String> {
    let mut rest = have;
    let mut out = Vec::new();
    for w in want {
        match rest.find(w.as_str()) {
            Some(at) => rest = &rest[at + w.len()..],
            None => out.push(w.clone()),
        }
    }
    out
}

/// Every view of `file` against its JSONL; the disagreements found, one line each.
fn check(file: &Path) -> Vec<String> {
    let name = file.display().to_string();
    let records = json_lines(output(file, &["--to", "jsonl"]).as_bytes());
    let f = figures(&records);
    let mut bad = Vec::new();
    // With no turn and no result there is nothing to count: no closing line.
    let results = records
        .iter()
        .any(|r| r["kind"] == "notice" && r["notice"]["kind"] == "result");
    let closing = if f.turns == 0 && !results {
        Vec::new()
    } else {
        closing_pieces(&f)
    };
    let text = output(
        file,
        &["--to", "text", "--color", "never", "--width", "65535"],
    );
    let line = last_line_with(&text, "── ");
    if closing.is_empty() && line.contains(" turn") {
        bad.push(format!("{name}: text counts nothing, yet says {line:?}"));
    }
    for m in missing(line, &closing) {
        bad.push(format!("{name}: text says {line:?}, not {m:?}"));
    }
    let md = output(file, &["--to", "md"]);
    let line = last_line_with(&md, " turn");
    for m in missing(line, &closing) {
        bad.push(format!("{name}: md says {line:?}, not {m:?}"));
    }
    let dir = tempfile::tempdir().unwrap();
    let out = scribe()
        .args(["--to", "html", "-o"])
        .arg(dir.path())
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{name} -o");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(".scribe-index.json")).unwrap())
            .unwrap();
    let row = &manifest["entries"][0]["row"];
    let page = std::fs::read_to_string(dir.path().join(row["href"].as_str().unwrap())).unwrap();
    // The map's figures (the page's first `facts` list is the session's details).
    let map = page.split("id=\"map\"").nth(1).unwrap_or("");
    let header = map.split("<dl class=\"facts\">").nth(1).unwrap_or("");
    let header = header.split("</dl>").next().unwrap_or("");
    for m in missing(header, &header_pieces(&f)) {
        bad.push(format!("{name}: html header {header:?} lacks {m:?}"));
    }
    bad.extend(index_disagreements(&name, row, &f));
    let index = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
    let cells = format!("<td>{}</td><td>{}", f.turns, f.calls);
    if !index.contains(&cells) {
        bad.push(format!("{name}: index.html has no row {cells:?}"));
    }
    bad
}

/// The index row's figures against the transcript's.
fn index_disagreements(name: &str, row: &Value, f: &Figures) -> Vec<String> {
    let c = &row["counts"];
    let n = |k: &str| c[k].as_u64().unwrap_or(0);
    let (tin, tout) = tokens(&row["usage"]);
    let cost = row["cost"]
        .as_f64()
        .map(|own| match row["session_cost"].as_f64() {
            Some(s) => format!("${own:.4} · ${s:.4} session total"),
            None => format!("${own:.4}"),
        });
    let have = Figures {
        turns: n("turns"),
        prompts: n("prompts"),
        calls: n("calls"),
        errors: n("errors"),
        denied: n("denied"),
        sub_calls: n("subCalls"),
        sub_failed: n("subFailed"),
        tokens_in: tin,
        tokens_out: tout,
        cost,
    };
    if have == *f {
        Vec::new()
    } else {
        vec![format!("{name}: index row {have:?}, transcript {f:?}")]
    }
}

/// Checks every file, failing with every disagreement found.
fn assert_views_agree(files: &[PathBuf]) {
    let bad: Vec<String> = files.iter().flat_map(|f| check(f)).collect();
    assert!(
        bad.is_empty(),
        "{} disagreements over {} files:\n{}",
        bad.len(),
        files.len(),
        bad.join("\n")
    );
}

/// The samples of every agent, so that a plain `cargo test` checks the views agree.
#[test]
fn the_views_of_the_samples_agree() {
    let more = [
        "html-tour.jsonl",
        "subagent.jsonl",
        "qwen-daemon-nested.jsonl",
        "claude-stream/result-cost-resumed.jsonl",
        "claude-stream/fold-permission-prompts.jsonl",
        "claude-session/subagents-new/5e55a0e1-0000-4000-8000-000000000003.jsonl",
        "claude-session/rejected-tools.jsonl",
    ];
    let files: Vec<PathBuf> = AGENT_SAMPLES
        .iter()
        .chain(&more)
        .map(|n| sample(n))
        .collect();
    assert_views_agree(&files);
}

/// Every real log of the corpus and of external2.
#[test]
#[ignore = "needs ../shared"]
fn the_views_of_every_real_log_agree() {
    let mut files = corpus_captures(&corpus());
    files.extend(external2_logs(&[
        Ext2::ClaudeSession,
        Ext2::ClaudeSubagent,
        Ext2::ClaudeStream,
        Ext2::ClaudeStreamDerived,
        Ext2::ClaudeResult,
        Ext2::CodexRollout,
        Ext2::CodexExec,
        Ext2::GeminiChat,
        Ext2::QwenChat,
    ]));
    assert!(files.len() > 150, "{} files", files.len());
    assert_views_agree(&files);
}
