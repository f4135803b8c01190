//! `scribe ls`, `scribe last` and a bare `scribe` on a terminal, over a home directory built
//! from the samples: a Claude Code project, a Codex rollout, a Gemini chat and a Qwen chat, each
//! in its agent's default place.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::util::{json_lines, sample, scribe};

/// A home directory with one saved session per agent, newest first: Claude (its project is
/// `project`), Codex, Gemini, Qwen.
struct Home {
    dir: tempfile::TempDir,
    project: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("src/app");
        fs::create_dir_all(project.join("deep/er")).unwrap();
        let project = project.canonicalize().unwrap();
        let claude = fs::read_to_string(sample("claude-session/local-command.jsonl"))
            .unwrap()
            .replace("/home/dev/app", &project.display().to_string());
        let place = |rel: &str, text: &str, age_minutes: u64| {
            let path = dir.path().join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            let when = SystemTime::now() - Duration::from_secs(60 * age_minutes);
            let file = fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(when).unwrap();
        };
        let read = |name: &str| fs::read_to_string(sample(name)).unwrap();
        place(".claude/projects/-src-app/5d1c.jsonl", &claude, 1);
        place(
            ".codex/sessions/2025/10/02/rollout-2025-10-02T10-00-00-0199.jsonl",
            &read("codex-rollout-edges.jsonl"),
            2,
        );
        place(
            ".gemini/tmp/ab12/chats/session-2025-10-02.jsonl",
            &read("gemini-session-resume.jsonl"),
            3,
        );
        place(
            ".qwen/tmp/cd34/chats/s1.jsonl",
            &read("qwen-session.jsonl"),
            4,
        );
        Home { dir, project }
    }

    /// Runs `scribe ARGS` with this home, in `dir`.
    fn run_in(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        self.scribe().current_dir(dir).args(args).output().unwrap()
    }

    /// `scribe` with this home and no agent variables set.
    fn scribe(&self) -> assert_cmd::Command {
        let mut cmd = scribe();
        cmd.env("HOME", self.dir.path());
        for var in ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"] {
            cmd.env_remove(var);
        }
        cmd
    }
}

/// `scribe ls --to jsonl`'s records.
fn listed(home: &Home, args: &[&str]) -> Vec<serde_json::Value> {
    let out = home
        .scribe()
        .args(["ls", "--to", "jsonl"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
}

#[test]
fn ls_lists_every_agents_sessions_newest_first() {
    let home = Home::new();
    let rows = listed(&home, &[]);
    let agents: Vec<&str> = rows.iter().map(|r| r["agent"].as_str().unwrap()).collect();
    assert_eq!(agents, ["claude", "codex", "gemini", "qwen"]);
    for r in &rows {
        assert!(r["turns"].as_u64().unwrap() > 0, "{r}");
        assert!(r["bytes"].as_u64().unwrap() > 0, "{r}");
        assert!(Path::new(r["path"].as_str().unwrap()).is_file(), "{r}");
        let title = r["title"].as_str().unwrap_or_default();
        assert!(!title.trim().is_empty(), "a title for every session: {r}");
    }
    assert_eq!(
        rows[0]["project"].as_str(),
        Some(home.project.to_str().unwrap())
    );
}

#[test]
fn ls_filters_by_agent_project_since_and_count() {
    let home = Home::new();
    let codex = listed(&home, &["--agent", "codex"]);
    assert_eq!(codex.len(), 1);
    assert_eq!(codex[0]["agent"], "codex");
    let project = listed(&home, &["--project", home.project.to_str().unwrap()]);
    assert_eq!(project.len(), 1);
    assert_eq!(project[0]["agent"], "claude");
    assert_eq!(listed(&home, &["-n", "2"]).len(), 2);
    // Every sample session started before 2100 and after 2000.
    assert!(listed(&home, &["--since", "2100-01-01"]).is_empty());
    assert_eq!(listed(&home, &["--since", "2000-01-01"]).len(), 4);
    let out = home
        .scribe()
        .args(["ls", "--agent", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("claude, qwen, codex, gemini"), "{err}");
}

#[test]
fn ls_here_is_the_current_directorys_project() {
    let home = Home::new();
    let out = home.run_in(
        &home.project.join("deep/er"),
        &["ls", "--here", "--to", "jsonl"],
    );
    let rows = json_lines(&out.stdout);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["agent"], "claude");
}

#[test]
fn ls_prints_one_line_per_session() {
    let home = Home::new();
    let out = home.scribe().arg("ls").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    for (line, agent) in lines.iter().zip(["claude", "codex", "gemini", "qwen"]) {
        assert!(line.contains(agent) && line.contains(" turns "), "{line}");
    }
    assert!(lines[0].contains("~/src/app"), "{}", lines[0]);
}

#[test]
fn ls_says_where_it_looked_when_there_is_nothing() {
    let empty = tempfile::tempdir().unwrap();
    let out = scribe()
        .env("HOME", empty.path())
        .arg("ls")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no saved sessions found") && err.contains(".claude/projects"),
        "{err}"
    );
}

#[test]
fn last_converts_the_newest_session_of_this_project() {
    let home = Home::new();
    let newest = home.dir.path().join(".claude/projects/-src-app/5d1c.jsonl");
    let want = scribe()
        .args(["--to", "jsonl"])
        .arg(&newest)
        .output()
        .unwrap();
    let got = home.run_in(&home.project.join("deep"), &["last", "--to", "jsonl"]);
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert_eq!(got.stdout, want.stdout);
}

#[test]
fn last_elsewhere_says_how_to_take_any_project() {
    let home = Home::new();
    let out = home.run_in(home.dir.path(), &["last", "--to", "jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("scribe last --all"));
    let all = home.run_in(
        home.dir.path(),
        &["last", "--all", "--agent", "gemini", "--to", "md"],
    );
    assert!(all.status.success());
    let gemini = home
        .dir
        .path()
        .join(".gemini/tmp/ab12/chats/session-2025-10-02.jsonl");
    let want = scribe().args(["--to", "md"]).arg(&gemini).output().unwrap();
    assert_eq!(all.stdout, want.stdout);
}

#[test]
fn options_before_last_are_refused_not_ignored() {
    let home = Home::new();
    let out = home
        .scribe()
        .args(["--to", "html", "last"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("go after it"));
}

/// A bare `scribe` whose standard input is a terminal prints how to use it and the latest
/// sessions instead of waiting (run under a pseudo-terminal by Python's `pty`).
#[cfg(unix)]
#[test]
fn bare_scribe_on_a_terminal_greets_instead_of_waiting() {
    let home = Home::new();
    let bin = assert_cmd::cargo::cargo_bin("scribe");
    let out = std::process::Command::new("python3")
        .args(["-c", "import pty, sys; pty.spawn(sys.argv[1:])"])
        .arg(bin)
        .env("HOME", home.dir.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("scribe last"), "{text}");
    assert!(text.contains("Latest sessions"), "{text}");
    assert!(text.contains("claude"), "{text}");
}

/// Runs `scribe ARGS` under a pseudo-terminal with `PAGER` set to a script that keeps what it
/// is given; returns what reached the terminal and what the pager got (`None`: not run).
#[cfg(unix)]
fn under_a_terminal(args: &[&str]) -> (String, Option<String>) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let pager = dir.path().join("pager");
    fs::write(&pager, "#!/bin/sh\ncat > \"$0.got\"\n").unwrap();
    fs::set_permissions(&pager, fs::Permissions::from_mode(0o755)).unwrap();
    let out = std::process::Command::new("python3")
        .args(["-c", "import pty, sys; pty.spawn(sys.argv[1:])"])
        .arg(assert_cmd::cargo::cargo_bin("scribe"))
        .args(args)
        .env("PAGER", &pager)
        .env_remove("SCRIBE_PAGER")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("python3 runs");
    let got = fs::read_to_string(dir.path().join("pager.got")).ok();
    (String::from_utf8_lossy(&out.stdout).into_owned(), got)
}

#[cfg(unix)]
#[test]
fn the_terminal_view_of_a_file_goes_through_the_pager() {
    let demo = sample("demo.jsonl");
    let demo = demo.to_str().unwrap();
    let (screen, paged) = under_a_terminal(&[demo]);
    let paged = paged.expect("the pager ran");
    assert!(paged.contains('⏺'), "{paged}");
    assert!(
        !screen.contains('⏺'),
        "the view went to the pager, not the terminal"
    );
    let (screen, paged) = under_a_terminal(&["--paging=never", demo]);
    assert_eq!(paged, None);
    assert!(screen.contains('⏺'), "{screen}");
    // Another format, or output that is not a terminal, is never paged.
    let (_, paged) = under_a_terminal(&["--to", "md", demo]);
    assert_eq!(paged, None);
    let out = scribe().env("PAGER", "false").arg(demo).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains('⏺'));
}
