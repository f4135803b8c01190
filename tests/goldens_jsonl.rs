//! `--to jsonl`, `--to events` and `--to atif` goldens for every input under `samples/`: the folded transcript
//! and the stage-2 events of each sample are pinned byte for byte, so a refactor that claims to
//! change no output is checked, not hoped. `BLESS=1` rewrites them (read the diff before committing).

use std::path::{Path, PathBuf};

use crate::util::{root, scribe};

/// Every sample input: files directly in `samples/` and `samples/claude-stream/`, the saved-session
/// files in `samples/claude-session/`, and each saved-session directory as one input (its main
/// file finds its sub-agent files beside it).
fn sample_inputs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["samples", "samples/claude-stream", "samples/claude-session"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .expect("samples dir")
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            let rel = p.strip_prefix(root()).unwrap().to_path_buf();
            // Files, and the saved-session directories (a session with its sub-agents).
            if p.is_file() || dir == "samples/claude-session" {
                out.push(rel);
            }
        }
    }
    out
}

/// The golden file for a sample and a format: `tests/golden/jsonl/<sample path with / as __>.<to>`.
fn golden_path(input: &Path, to: &str) -> PathBuf {
    let flat = input
        .strip_prefix("samples")
        .unwrap()
        .to_string_lossy()
        .replace(['/', '\\'], "__");
    root()
        .join("tests/golden/jsonl")
        .join(format!("{flat}.{to}"))
}

/// Runs every sample in one format and compares (or, with `BLESS=1`, rewrites) its golden.
fn check_all(to: &str) {
    let inputs = sample_inputs();
    assert!(
        inputs.len() >= 50,
        "only {} sample inputs found",
        inputs.len()
    );
    let bless = std::env::var_os("BLESS").is_some();
    let mut differ = Vec::new();
    for input in &inputs {
        let out = scribe()
            .current_dir(root())
            .args(["--to", to])
            .arg(input)
            .output()
            .expect("run scribe");
        let got = out.stdout;
        let path = golden_path(input, to);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display()));
        if want != got {
            differ.push(input.display().to_string());
        }
    }
    assert!(
        differ.is_empty(),
        "--to {to} differs from tests/golden/jsonl for: {differ:?} (BLESS=1 rewrites; read the diff)"
    );
    eprintln!("--to {to}: {} sample goldens checked", inputs.len());
}

#[test]
fn every_sample_transcript_matches_its_golden() {
    check_all("jsonl");
}

#[test]
fn every_sample_event_stream_matches_its_golden() {
    check_all("events");
}

#[test]
fn every_sample_trajectory_matches_its_golden() {
    check_all("atif");
}
