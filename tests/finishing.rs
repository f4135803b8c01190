//! The finishing touches of a real CLI: completions, licences, install notes, a changelog, a
//! description that names every agent, a man page with no dangling references, a quiet Ctrl-C.

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};

use crate::util::{root, scribe};

const AGENTS: [&str; 4] = ["Claude Code", "Qwen Code", "Codex CLI", "Gemini CLI"];

#[test]
fn generate_writes_completions_for_every_shell() {
    for (shell, marker) in [
        ("bash", "complete"),
        ("zsh", "#compdef scribe"),
        ("fish", "complete -c scribe"),
        ("elvish", "edit:completion"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = scribe().args(["--generate", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(marker), "{shell}: {text}");
        assert!(text.contains("stable"), "{shell}: the options are there");
    }
}

#[test]
fn licences_install_notes_and_changelog_are_there() {
    let read = |p: &str| std::fs::read_to_string(root().join(p)).unwrap_or_default();
    assert!(read("LICENSE-MIT").contains("MIT License"));
    assert!(read("LICENSE-APACHE").contains("Apache License"));
    assert!(read("Cargo.toml").contains("license = \"MIT OR Apache-2.0\""));
    let readme = read("README.md");
    let install = readme
        .split("## Install")
        .nth(1)
        .expect("an Install section");
    assert!(install.contains("cargo install --locked --path ."));
    assert!(install.contains("agent-scribe") && install.contains("`scribe`"));
    assert!(read("CHANGELOG.md").contains("## [Unreleased]"));
}

/// `cargo package` ships each crate of the workspace with its sources, the documents its build
/// reads and its licences, and none of the tests, samples or benchmarks.
#[test]
fn the_packages_hold_what_their_build_needs_and_no_test_data() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "package",
            "--list",
            "--workspace",
            "--allow-dirty",
            "--offline",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let list = String::from_utf8_lossy(&out.stdout);
    for needed in [
        "src/main.rs",
        "docs/schema.md",
        "src/render/html/page.css",
        "man/scribe.1",
        "README.md",
        "LICENSE-APACHE",
        "src/scan.rs",
        "src/languages.rs",
    ] {
        assert!(
            list.lines().any(|l| l == needed),
            "{needed} is not packaged:\n{list}"
        );
    }
    let data: Vec<&str> = list
        .lines()
        .filter(|l| {
            ["tests/", "samples/", "benches/", "fuzz/", "docs/shots/"]
                .iter()
                .any(|d| l.starts_with(d))
        })
        .collect();
    let first = &data[..data.len().min(5)];
    assert!(
        data.is_empty(),
        "{} test files packaged: {first:?} …",
        data.len()
    );
    // Path dependencies carry the version a packaged crate depends on.
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for dep in manifest.lines().filter(|l| l.contains("path = \"crates/")) {
        assert!(dep.contains("version = "), "{dep}");
    }
}

#[test]
fn help_man_page_and_package_description_name_all_four_agents() {
    let help = String::from_utf8(scribe().arg("--help").output().unwrap().stdout).unwrap();
    let man = std::fs::read_to_string(root().join("man/scribe.1")).unwrap();
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let description = cargo
        .lines()
        .find(|l| l.starts_with("description"))
        .unwrap();
    // roff escapes hyphens and breaks lines anywhere: compare words only.
    let words = |s: &str| {
        s.replace("\\-", "-")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    for agent in AGENTS {
        assert!(words(&help).contains(agent), "--help lacks {agent}");
        assert!(words(&man).contains(agent), "the man page lacks {agent}");
        assert!(description.contains(agent), "Cargo.toml lacks {agent}");
    }
}

#[test]
fn the_man_page_refers_to_no_page_that_does_not_exist() {
    let man = std::fs::read_to_string(root().join("man/scribe.1")).unwrap();
    let refs: Vec<&str> = man
        .split_whitespace()
        .filter(|w| w.ends_with("(1)") || w.contains("(1),"))
        .collect();
    assert!(refs.is_empty(), "references to other pages: {refs:?}");
}

#[test]
fn sigint_ends_a_run_quietly_with_status_130() {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("scribe"))
        .args(["--to", "jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Enough lines for detection to decide and the header to be written.
    let lines = [
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"],"cwd":"/w"}"#,
        r#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"hi"}]},"session_id":"s"}"#,
        r#"{"type":"user","message":{"role":"user","content":"more"},"session_id":"s"}"#,
        r#"{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"ok"}]},"session_id":"s"}"#,
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    // Wait until scribe is reading (it printed the header), the pipe still open.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.contains("header"), "{first}");
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    assert_eq!(out.status.code(), Some(130), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `-h` is a summary a person reads in one screen (what people need first); `--help` keeps
/// every option and the exit status.
#[test]
fn short_help_fits_a_screen_and_long_help_has_everything() {
    let help = |flag: &str| String::from_utf8(scribe().arg(flag).output().unwrap().stdout).unwrap();
    let short = help("-h");
    assert!(short.lines().count() <= 40, "{short}");
    for need in [
        "--to",
        "--from",
        "--output-dir",
        "--follow",
        "--stable",
        "--redact",
        "diff",
    ] {
        assert!(short.contains(need), "-h lacks {need}");
    }
    let long = help("--help");
    for all in [
        "--jobs",
        "--include-raw",
        "--stats",
        "--generate",
        "EXIT STATUS",
    ] {
        assert!(long.contains(all), "--help lacks {all}");
    }
}

/// The man page describes every subcommand and every option of each (from the same clap
/// definitions as `--help`): `scribe hook` and its `--output-dir` are in it.
#[test]
fn the_man_page_covers_every_subcommand_and_option() {
    let man = std::fs::read_to_string(root().join("man/scribe.1"))
        .unwrap()
        .replace("\\-", "-");
    for needed in [
        "scribe diff",
        "scribe hook",
        "--ignore",
        "--sidecars",
        "--output-dir",
        "PAYLOAD",
    ] {
        assert!(man.contains(needed), "the man page lacks {needed}");
    }
}
