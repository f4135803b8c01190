//! The real Claude Code captures, end to end (skipped with a message when ../shared is absent).

use crate::util::{corpus, files_under, json_lines, scribe};

#[test]
fn every_claude_stream_folds_cleanly() {
    let Some(dir) = corpus() else { return };
    let streams = files_under(&dir.join("claude-code"), &|p| {
        let name = p.file_name().unwrap().to_string_lossy();
        name.starts_with("stream")
            && name.ends_with(".jsonl")
            && !p.to_string_lossy().contains("/projects/")
    });
    assert!(
        streams.len() >= 18,
        "expected the 18 corpus streams, found {}",
        streams.len()
    );
    for path in streams {
        let out = scribe()
            .arg("--to")
            .arg("jsonl")
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .clone();
        assert!(
            out.stderr.is_empty(),
            "{}: stderr {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let recs = json_lines(&out.stdout);
        assert_eq!(recs[0]["kind"], "header", "{}", path.display());
        let debug = recs.iter().filter(|r| r["kind"] == "debug").count();
        assert_eq!(debug, 0, "{}: debug records", path.display());
    }
}
