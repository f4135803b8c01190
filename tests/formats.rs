//! Every real capture in every output format: the renderers work on whatever the adapters read,
//! with no source-specific code (the structural test below keeps it that way).

use crate::util::{corpus, corpus_captures, files_under, root, scribe};

const FORMATS: &[&str] = &["text", "md", "html", "jsonl", "events", "atif"];

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_capture_renders_in_every_format() {
    let dir = corpus();
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
    let agents = AGENTS;
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

/// A Rust file's lines outside comments and `#[cfg(test)]` items, numbered from 1. Reads the
/// whole file: a test module in the middle of a file hides only itself.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut skipping = false;
    let mut depth = 0i64;
    let mut opened = false;
    for (n, line) in text.lines().enumerate() {
        let l = line.trim_start();
        if !skipping && l.starts_with("#[cfg(test)]") {
            skipping = true;
            depth = 0;
            opened = false;
            continue;
        }
        if skipping {
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            // The item ends at its closing brace (or at its `;` when it has no body).
            if (opened && depth <= 0) || (!opened && l.ends_with(';')) {
                skipping = false;
            }
            continue;
        }
        if l.starts_with("//") {
            continue;
        }
        out.push((n + 1, line));
    }
    out
}

/// What a tool does is the adapter's word (the call's kind): neither the fold nor a renderer
/// recognises a tool by its name or its input's field names, or an MCP call by its prefix.
#[test]
fn fold_and_renderers_know_no_tool_names() {
    let rust = |p: &std::path::Path| p.extension().is_some_and(|e| e == "rs");
    let mut files = files_under(&root().join("src/render"), &rust);
    files.extend(files_under(&root().join("src/fold"), &rust));
    assert!(files.len() > 10, "{files:?}");
    let banned = [
        "canonical_name",
        "mcp__",
        "\"Bash\"",
        "\"Edit\"",
        "\"MultiEdit\"",
        "\"Write\"",
        "\"Read\"",
        "\"TodoWrite\"",
        "\"ExitPlanMode\"",
        "\"Skill\"",
        "\"Agent\"",
        "\"Task\"",
        "\"Glob\"",
        "\"Grep\"",
        "\"StructuredOutput\"",
        "\"old_string\"",
        "\"new_string\"",
        "\"file_path\"",
        "\"todos\"",
        "\"command\"",
        "\"description\"",
        // Result details of one agent (Claude Code's `toolUseResult`): the adapter reads them
        // into the call's `facts`.
        "structuredPatch",
        "numLines",
        "\"tool_name\"",
        "/tool_name",
        "toolUseResult",
        "tool_use_result",
        "\"resultDisplay\"",
    ];
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in code_lines(&text) {
            for word in banned {
                assert!(
                    !line.contains(word),
                    "{}:{n}: a tool name or input field ({word}): {line}",
                    f.display()
                );
            }
        }
    }
}

/// Every match in the model, the fold, the transforms and the renderers on one of our own enums
/// names its variants: clippy's `wildcard_enum_match_arm` is denied at the top of each of these
/// layers (so `cargo clippy -D warnings` fails on a `_ =>` that could swallow a new variant), and
/// no file below turns it off except with a reason.
#[test]
fn the_layers_deny_wildcard_arms_on_enums() {
    const LAYERS: [&str; 4] = ["src/model", "src/fold", "src/transform", "src/render"];
    for layer in LAYERS {
        let top = format!("{layer}/mod.rs");
        let text = std::fs::read_to_string(root().join(&top)).unwrap();
        assert!(
            text.lines()
                .any(|l| l.trim() == "#![deny(clippy::wildcard_enum_match_arm)]"),
            "{top} does not deny wildcard arms"
        );
    }
    let rust = |p: &std::path::Path| p.extension().is_some_and(|e| e == "rs");
    for f in LAYERS
        .iter()
        .flat_map(|layer| files_under(&root().join(layer), &rust))
    {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, l) in lines.iter().enumerate() {
            if l.contains("wildcard_enum_match_arm") && !l.contains("#![deny(") {
                let reason = lines[n..(n + 3).min(lines.len())]
                    .iter()
                    .any(|l| l.contains("reason = "));
                assert!(
                    reason,
                    "{}:{}: wildcard arms allowed without a reason",
                    f.display(),
                    n + 1
                );
            }
        }
    }
}

/// The fold reads events and writes transcript items: it uses nothing of the adapters or the
/// renderers (whole files, tests included).
#[test]
fn fold_imports_no_adapter_or_renderer() {
    let files = files_under(&root().join("src/fold"), &|p| {
        p.extension().is_some_and(|e| e == "rs")
    });
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for word in [
                "crate::input",
                "crate::render",
                "crate::cli",
                "super::super",
            ] {
                assert!(
                    !line.contains(word),
                    "{}:{}: the fold uses {word}: {line}",
                    f.display(),
                    n + 1
                );
            }
        }
    }
}

/// The test-module filter above sees code after a test module in the middle of a file.
#[test]
fn code_lines_skip_only_test_items() {
    let text =
        "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() { \"Bash\" }\n}\n// note\nfn c() {}\n";
    let lines: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(lines, ["fn a() {}", "fn c() {}"]);
}

/// Each adapter says what its tools do: the JSONL carries the kind beside the agent's own name.
#[test]
fn adapters_set_the_kind_of_each_tool_call() {
    let kinds = |sample: &str| -> Vec<(String, String)> {
        let out = scribe()
            .args(["--to", "jsonl"])
            .arg(crate::util::sample(sample))
            .output()
            .unwrap();
        assert!(out.status.success(), "{sample}");
        let mut calls = Vec::new();
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            collect_calls(&v, &mut calls);
        }
        calls
    };
    let has = |calls: &[(String, String)], name: &str, kind: &str| {
        assert!(
            calls.iter().any(|(n, k)| n == name && k == kind),
            "{name} → {kind} not in {calls:?}"
        );
    };
    let claude = kinds("demo.jsonl");
    has(&claude, "Bash", "shell");
    let codex = kinds("codex-exec-edges.jsonl");
    has(&codex, "shell", "shell");
    has(&codex, "apply_patch", "patch");
    let gemini = kinds("gemini-stream-edges.jsonl");
    has(&gemini, "read_file", "read");
    has(&gemini, "list_directory", "other");
    let qwen = kinds("qwen-daemon-nested.jsonl");
    has(&qwen, "agent", "subagent");
    // Names no table knows are still drawn by what they do (the shape of their input).
    let other = kinds("other-agent-tools.jsonl");
    has(&other, "run_shell_command", "shell");
    has(&other, "edit", "edit");
    has(&other, "write_file", "write");
    has(&other, "todo_write", "todo");
}

/// Every tool call in a JSONL record: (name, kind type).
fn collect_calls(v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(o) => {
            if o.contains_key("toolCallId") && o.contains_key("caller") {
                let s = |k: &str| {
                    o.get(k)
                        .and_then(|x| x.as_str().or_else(|| x.get("type")?.as_str()))
                        .unwrap_or_default()
                        .to_owned()
                };
                out.push((s("name"), s("kind")));
            }
            o.values().for_each(|x| collect_calls(x, out));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_calls(x, out)),
        _ => {}
    }
}

/// The input layer reports through its own `Problems` trait: it imports nothing of the pipeline,
/// its diagnostics, the command line or the renderers (whole files, tests included).
#[test]
fn input_imports_nothing_of_the_pipeline() {
    let files = files_under(&root().join("src/input"), &|p| {
        p.extension().is_some_and(|e| e == "rs")
    });
    assert!(!files.is_empty());
    let mut bad = Vec::new();
    for f in files {
        let code = std::fs::read_to_string(&f).unwrap();
        for path in crate_paths(&code) {
            let top = path.split("::").next().unwrap_or("");
            if matches!(
                top,
                "diagnostics" | "pipeline" | "cli" | "settings" | "render" | "stats" | "diff"
            ) {
                bad.push(format!("{}: crate::{path}", f.display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the input layer reaches up:\n{}",
        bad.join("\n")
    );
}

/// `scribe diff` and the pipeline print untrusted text through `crate::sanitize`, a module of its
/// own, not through a renderer's.
#[test]
fn diff_and_pipeline_take_the_sanitizer_from_its_own_module() {
    let rust = |p: &std::path::Path| p.extension().is_some_and(|e| e == "rs");
    let mut files = files_under(&root().join("src/diff"), &rust);
    files.extend(files_under(&root().join("src/pipeline"), &rust));
    files.push(root().join("src/pipeline.rs"));
    files.push(root().join("src/diagnostics.rs"));
    let (mut bad, mut users) = (Vec::new(), 0);
    for f in files {
        let code = std::fs::read_to_string(&f).unwrap();
        for path in crate_paths(&code) {
            if path.starts_with("sanitize") {
                users += 1;
            } else if path.starts_with("render") && path.contains("sanitize") {
                bad.push(format!("{}: crate::{path}", f.display()));
            }
        }
    }
    assert!(
        users > 0,
        "nothing uses crate::sanitize any more: update this test"
    );
    assert!(
        bad.is_empty(),
        "the sanitizer taken from a renderer:\n{}",
        bad.join("\n")
    );
}

/// The agent folders under `src/input`.
const AGENTS: [&str; 4] = ["claude", "qwen", "codex", "gemini"];

/// The words of a line of code outside its string literals (identifiers and keywords).
fn code_words(line: &str) -> Vec<&str> {
    let mut words = Vec::new();
    for (i, piece) in line.split('"').enumerate() {
        // Odd pieces are inside a string (escaped quotes are rare enough in these files).
        if i % 2 == 0 {
            words.extend(
                piece
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty()),
            );
        }
    }
    words
}

/// Shared input code (everything under `src/input` outside the agent folders) reaches an agent
/// only through `registry.rs`, so that adding an agent is its folder and one entry there.
#[test]
fn shared_input_code_names_no_agent_but_through_the_registry() {
    let input = root().join("src/input");
    let files = files_under(&input, &|p| {
        p.extension().is_some_and(|e| e == "rs")
            && !AGENTS.iter().any(|a| p.starts_with(input.join(a)))
            && !p.ends_with("registry.rs")
    });
    assert!(files.len() > 10, "shared input files: {}", files.len());
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in code_lines(&text) {
            // `mod.rs` declares the folders.
            if line
                .trim_start()
                .trim_start_matches("pub(crate) ")
                .starts_with("mod ")
            {
                continue;
            }
            if code_words(line).iter().any(|w| AGENTS.contains(w)) {
                bad.push(format!("{}:{n}: {}", f.display(), line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "shared input code names an agent:\n{}",
        bad.join("\n")
    );
}

/// Agent folders use shared helpers, never the modules that call agents (the registry, detection,
/// discovery): no module cycle between shared code and an agent.
#[test]
fn agent_folders_do_not_call_back_into_the_registry() {
    let mut bad = Vec::new();
    for agent in AGENTS {
        let files = files_under(&root().join("src/input").join(agent), &|p| {
            p.extension().is_some_and(|e| e == "rs")
        });
        for f in files {
            let code = std::fs::read_to_string(&f).unwrap();
            for path in crate_paths(&code) {
                let mut parts = path.split("::");
                if parts.next() == Some("input")
                    && matches!(parts.next(), Some("registry" | "sniff" | "discover"))
                {
                    bad.push(format!("{}: crate::{path}", f.display()));
                }
            }
            for (n, line) in code_lines(&code) {
                let words = code_words(line);
                if words
                    .windows(2)
                    .any(|w| w[0] == "super" && matches!(w[1], "registry" | "sniff"))
                {
                    bad.push(format!("{}:{n}: {}", f.display(), line.trim()));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "an agent calls back into shared code that calls agents:\n{}",
        bad.join("\n")
    );
}
