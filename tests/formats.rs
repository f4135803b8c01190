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

/// Renderers see only the agent-agnostic model: no source format is named in their code, and
/// nothing of the input adapters is used.
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

/// Tools of other agents (`run_shell_command`, `edit`, `write_file`, `todo_write`) are drawn like
/// the Claude Code tools they behave as: a command, a diff, a new file, a checklist.
#[test]
fn other_agents_tools_are_drawn_by_what_they_do() {
    let sample = crate::util::sample("other-agent-tools.jsonl");
    let run = |to: &str| {
        let out = scribe()
            .args(["--to", to, "--width", "100"])
            .arg(&sample)
            .output()
            .unwrap();
        assert!(out.status.success(), "{to}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("text");
    assert!(text.contains("run_shell_command(make check)"), "{text}");
    assert!(text.contains("edit(/w/app.py)"), "{text}");
    assert!(text.contains("Updated /w/app.py (+1 −1)"), "{text}");
    assert!(
        text.contains("- x = 1") && text.contains("+ x = 2"),
        "{text}"
    );
    assert!(text.contains("Wrote 2 lines to /w/NOTES.md"), "{text}");
    assert!(
        text.contains("☒ Fix x") && text.contains("☐ Ship"),
        "{text}"
    );
    let md = run("md");
    assert!(
        md.contains("```diff") && md.contains("-x = 1") && md.contains("+x = 2"),
        "{md}"
    );
    assert!(md.contains("```sh\nmake check"), "{md}");
    assert!(
        md.contains("- [x] Fix x") && md.contains("- [ ] Ship"),
        "{md}"
    );
    let html = run("html");
    assert!(
        html.contains("<pre class=\"cmd\">$ make check"),
        "html command"
    );
    assert!(
        html.contains("<p class=\"path\">/w/app.py</p><pre class=\"diff hl\">"),
        "html diff"
    );
}

/// The `crate::…` paths a source file names outside its comments (whole files: `use` lines,
/// paths in code, nested `use` groups' first segment).
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        for (i, _) in line.match_indices("crate::") {
            let rest = &line[i + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            out.push(rest[..end].to_owned());
        }
    }
    out
}

#[test]
fn transform_and_render_import_nothing_from_the_command_line_or_the_input_layer() {
    let mut bad = Vec::new();
    for dir in ["src/transform", "src/render"] {
        let files = files_under(&root().join(dir), &|p| {
            p.extension().is_some_and(|e| e == "rs")
        });
        assert!(!files.is_empty(), "{dir} has no files");
        for f in files {
            let code = std::fs::read_to_string(&f).unwrap();
            for path in crate_paths(&code) {
                let top = path.split("::").next().unwrap_or("");
                if matches!(top, "cli" | "settings" | "input" | "pipeline" | "diff") {
                    bad.push(format!("{}: crate::{path}", f.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn no_agent_folder_imports_another_agents_folder() {
    let agents = ["claude", "qwen", "codex", "gemini"];
    let mut bad = Vec::new();
    for agent in agents {
        let files = files_under(&root().join("src/input").join(agent), &|p| {
            p.extension().is_some_and(|e| e == "rs")
        });
        assert!(!files.is_empty(), "src/input/{agent} has no files");
        for f in files {
            let code = std::fs::read_to_string(&f).unwrap();
            for path in crate_paths(&code) {
                let mut parts = path.split("::");
                if parts.next() != Some("input") {
                    continue;
                }
                let second = parts.next().unwrap_or("");
                if agents.contains(&second) && second != agent {
                    bad.push(format!("{}: crate::{path}", f.display()));
                }
            }
            for other in agents.iter().filter(|a| **a != agent) {
                if code
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .any(|l| l.contains(&format!("super::super::{other}")))
                {
                    bad.push(format!("{}: super::super::{other}", f.display()));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "an agent reaches into another:\n{}",
        bad.join("\n")
    );
}
