//! Every real capture in every output format: the renderers work on whatever the adapters read,
//! with no source-specific code (the structural test below keeps it that way).

use crate::util::{corpus, corpus_captures, files_under, root, scribe};

const FORMATS: &[&str] = &["text", "md", "html", "jsonl", "events"];

#[test]
fn every_capture_renders_in_every_format() {
    let Some(dir) = corpus() else { return };
    let files = corpus_captures(&dir);
    assert!(
        files.len() >= 45,
        "expected the corpus captures, found {}",
        files.len()
    );
    for f in &files {
        for to in FORMATS {
            let out = scribe().args(["--to", to]).arg(f).output().unwrap();
            let name = f.display();
            assert_eq!(out.status.code(), Some(0), "{to} {name}");
            assert!(
                out.stderr.is_empty(),
                "{to} {name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text =
                String::from_utf8(out.stdout).unwrap_or_else(|_| panic!("{to} {name}: not UTF-8"));
            assert!(!text.trim().is_empty(), "{to} {name}: empty output");
            if *to == "html" {
                assert!(text.ends_with("</html>\n"), "{name}: page not closed");
            }
            if *to == "text" {
                assert!(
                    !text.contains('\u{1b}'),
                    "{name}: colour without a terminal"
                );
            }
        }
    }
}

/// Renderers see only the agent-agnostic model: no source format is named in their code.
#[test]
fn renderers_have_no_source_specific_code() {
    let files = files_under(&root().join("src/render"), &|p| {
        p.extension().is_some_and(|e| e == "rs")
    });
    assert!(!files.is_empty());
    for f in files {
        let code = std::fs::read_to_string(&f).unwrap();
        // Unit tests may build settings with any source; the renderer code above them may not.
        let code = code.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("//") {
                continue;
            }
            let lower = l.to_lowercase();
            for word in [
                "qwen",
                "claude_stream",
                "claude_session",
                "qwen_daemon",
                "sourceformat::",
            ] {
                assert!(
                    !lower.contains(word),
                    "{}:{}: renderer code names a source ({word}): {line}",
                    f.display(),
                    n + 1
                );
            }
        }
    }
}
