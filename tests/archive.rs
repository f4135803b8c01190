//! docs/archive.md's DuckDB queries, run as written on an archive of the samples: their figures
//! are the transcripts' own.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::util::{files_under, json_lines, root, sample, scribe};

/// The ```sql blocks of docs/archive.md, in order.
fn queries() -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("docs/archive.md")).unwrap();
    doc.split("```sql\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_owned())
        .collect()
}

/// Runs `query` with DuckDB's Python package in `dir`; its rows as JSON arrays.
fn duckdb(dir: &Path, query: &str) -> Vec<Value> {
    let script = "import duckdb, json, sys\nfor row in duckdb.sql(sys.stdin.read()).fetchall():\n    print(json.dumps(row, default=str))\n";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(query.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "DuckDB (pip install duckdb; .ci/run installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
}

/// The main thread's assistant turns and tool calls of every transcript under `dir`.
fn transcripts(dir: &Path) -> Vec<Value> {
    files_under(dir, &|p| p.extension().is_some_and(|e| e == "jsonl"))
        .iter()
        .flat_map(|f| json_lines(&std::fs::read(f).unwrap()))
        .filter(|r| r["kind"] == "turn")
        .collect()
}

#[test]
#[ignore = "needs python3 with duckdb (pip install duckdb); .ci/run installs it"]
fn the_archive_queries_give_the_transcripts_figures() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [
        "demo.jsonl",
        "ci-run.jsonl",
        "codex-rollout-edges.jsonl",
        "html-tour.jsonl",
    ];
    scribe()
        .args(["--to", "jsonl", "-o"])
        .arg(dir.path().join("archive/m1"))
        .args(inputs.map(sample))
        .assert()
        .success();
    let turns = transcripts(&dir.path().join("archive"));
    let queries = queries();
    assert_eq!(queries.len(), 2, "{queries:?}");

    let usage = |t: &Value, k: &str| t["metadata"]["usage"][k].as_u64().unwrap_or(0);
    let assistant = turns.iter().filter(|t| t["role"] == "assistant");
    let tokens_out: u64 = assistant.clone().map(|t| usage(t, "outputTokens")).sum();
    let tokens_in: u64 = assistant
        .map(|t| {
            usage(t, "inputTokens")
                + usage(t, "cacheReadInputTokens")
                + usage(t, "cacheCreationInputTokens")
        })
        .sum();
    let rows = duckdb(dir.path(), &queries[0]);
    let column = |i: usize| rows.iter().map(|r| r[i].as_u64().unwrap()).sum::<u64>();
    assert!(tokens_out > 0);
    assert_eq!((column(2), column(3)), (tokens_in, tokens_out), "{rows:?}");
    assert!(rows.iter().any(|r| r[0] == "/home/ada/shop"), "{rows:?}");

    let calls: Vec<&Value> = turns
        .iter()
        .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        .filter(|p| p["type"] == "tool-call")
        .collect();
    let errors = calls
        .iter()
        .filter(|p| p["call"]["state"] == "error")
        .count() as u64;
    let rows = duckdb(dir.path(), &queries[1]);
    let column = |i: usize| rows.iter().map(|r| r[i].as_u64().unwrap()).sum::<u64>();
    assert_eq!(
        (column(1), column(2)),
        (calls.len() as u64, errors),
        "{rows:?}"
    );
    assert!(errors > 0, "the samples hold failed calls");
}
