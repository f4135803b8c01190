//! `--jobs N` with `--output-dir` (issue 14 point 4): inputs converted side by side give the same
//! files, the same names, the same index and the same stderr as one at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::{root, scribe};

/// Every file in `dir` by name, with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The inputs: every top-level sample (several share a session id, so names get `-2`
/// suffixes in input order), the saved sessions of a directory, a missing file and a file that
/// is not JSON Lines.
fn inputs(scratch: &Path) -> Vec<PathBuf> {
    let samples = root().join("samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let prose = scratch.join("prose.jsonl");
    std::fs::write(&prose, "not json\nat all\n").unwrap();
    files.push(samples.join("claude-session"));
    files.push(scratch.join("missing.jsonl"));
    files.push(prose);
    // The same sessions again: every name is taken once already.
    files.extend(files.clone().into_iter().take(6));
    files
}

#[test]
fn jobs_one_and_jobs_four_write_the_same_bytes_under_the_same_names() {
    let scratch = tempfile::tempdir().unwrap();
    let inputs = inputs(scratch.path());
    for to in ["html", "jsonl"] {
        let mut runs = Vec::new();
        for jobs in ["1", "4"] {
            let dir = scratch.path().join(format!("{to}-{jobs}"));
            let out = scribe()
                .args(["--to", to, "--jobs", jobs, "-o"])
                .arg(&dir)
                .args(&inputs)
                .output()
                .unwrap();
            runs.push((out.status.code(), out.stderr, contents(&dir)));
        }
        let (one, four) = (&runs[0], &runs[1]);
        assert!(one.2.len() > 20, "{to}: files written: {:?}", one.2.keys());
        assert!(
            one.2.keys().any(|n| n.contains("-2.")),
            "{to}: a name taken twice gets a suffix"
        );
        assert_eq!(one.0, Some(2), "{to}: the missing file is trouble");
        assert_eq!(
            one.2.keys().collect::<Vec<_>>(),
            four.2.keys().collect::<Vec<_>>(),
            "{to}: the same names"
        );
        for (name, bytes) in &one.2 {
            assert!(four.2[name] == *bytes, "{to}: {name} differs with --jobs 4");
        }
        assert_eq!(one.0, four.0, "{to}: the same exit status");
        assert_eq!(
            String::from_utf8_lossy(&one.1),
            String::from_utf8_lossy(&four.1),
            "{to}: the same diagnostics, in input order"
        );
    }
}

#[test]
fn strict_converts_one_input_at_a_time_and_stops_at_the_first_error() {
    let scratch = tempfile::tempdir().unwrap();
    let bad = scratch.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"user\"\n").unwrap();
    let dir = scratch.path().join("out");
    let out = scribe()
        .args(["--strict", "--jobs", "4", "--to", "jsonl", "-o"])
        .arg(&dir)
        .arg(&bad)
        .arg(root().join("samples/demo.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !names.iter().any(|n| n.starts_with("5f0c2a9e")),
        "the input after the error is not converted: {names:?}"
    );
}
