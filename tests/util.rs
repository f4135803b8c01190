//! Helpers shared by every integration test.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The `scribe` binary with an environment that cannot change its output.
pub(crate) fn scribe() -> Command {
    let mut cmd = Command::cargo_bin("scribe").expect("binary built");
    for var in [
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "TERM",
        "COLORTERM",
        "COLUMNS",
        "HOME",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file under `samples/`.
pub(crate) fn sample(name: &str) -> PathBuf {
    root().join("samples").join(name)
}

/// The shared corpus of real CLI output, `../shared/corpus` beside the checkout. The tests that
/// read it are `#[ignore]`d, so a plain `cargo test` lists them as ignored; run (by `.ci/run`, or
/// `cargo test -- --include-ignored`) without the corpus, each fails here instead of passing
/// without having checked anything.
pub(crate) fn corpus() -> PathBuf {
    let dir = root().join("../shared/corpus");
    assert!(
        dir.is_dir(),
        "../shared/corpus not found beside the checkout ({} is not a directory): this test \
         reads the real CLI output kept there",
        dir.display()
    );
    dir
}

/// The second set of real logs, `../shared/external2` beside the checkout (`MANIFEST.tsv` lists
/// each file with its format and CLI version). Like [`corpus`], a test that reads it fails here
/// when it is missing instead of passing without having checked anything.
pub(crate) fn external2() -> PathBuf {
    let dir = root().join("../shared/external2");
    assert!(
        dir.join("MANIFEST.tsv").is_file(),
        "../shared/external2/MANIFEST.tsv not found beside the checkout: this test reads the \
         real logs kept there"
    );
    dir
}

/// What a file of `../shared/external2` is, from the format column of its manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ext2 {
    /// A saved Claude Code session (`~/.claude/projects/…/<id>.jsonl`, or a copy of one).
    ClaudeSession,
    /// A Claude Code sub-agent transcript (`agent-*.jsonl`), read on its own.
    ClaudeSubagent,
    /// Claude Code stream-json (`-p --output-format stream-json`).
    ClaudeStream,
    /// Claude Code stream-json re-serialised by an SDK wrapper (not the CLI's own output: its
    /// `system` line nests the init under `message`).
    ClaudeStreamDerived,
    /// Claude Code's `-p --output-format json` result object.
    ClaudeResult,
    /// A Codex rollout, with or without the `session_meta`/`response_item` envelopes.
    CodexRollout,
    /// `codex exec --json` output.
    CodexExec,
    /// A Gemini CLI saved chat (one JSON document).
    GeminiChat,
    /// A Qwen Code chat recording.
    QwenChat,
    /// Not an agent log scribe reads (plain text printed by a CLI).
    NotALog,
}

/// Every file of `../shared/external2` with what it is, in manifest order; panics on a format
/// the manifest names that this function does not know, or a listed file that is missing.
pub(crate) fn external2_files() -> Vec<(PathBuf, Ext2)> {
    let dir = external2();
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("read MANIFEST.tsv");
    let mut out = Vec::new();
    for row in manifest.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        // n, repo, commit, path, format, …
        let cells: Vec<&str> = row.split('\t').collect();
        let (repo, path, format) = (cells[1], cells[3], cells[4]);
        let kind = match format {
            "Claude Code session JSONL" => Ext2::ClaudeSession,
            "Claude Code sub-agent JSONL" => Ext2::ClaudeSubagent,
            "Claude Code stream-json" => Ext2::ClaudeStream,
            "Claude stream-json via Rust SDK wrapper (derived)" => Ext2::ClaudeStreamDerived,
            "Claude Code `-p --output-format json` result" => Ext2::ClaudeResult,
            "Codex rollout JSONL" | "Codex rollout JSONL (legacy, pre-`session_meta`)" => {
                Ext2::CodexRollout
            }
            "`codex exec --json`" => Ext2::CodexExec,
            "Gemini CLI saved chat (JSON)" => Ext2::GeminiChat,
            "Qwen Code chat recording JSONL" => Ext2::QwenChat,
            "Gemini CLI `-p` plain text (not JSON)" => Ext2::NotALog,
            other => panic!("MANIFEST.tsv: format {other:?} unknown to tests/util.rs"),
        };
        let file = dir.join("files").join(repo).join(path);
        assert!(
            file.is_file(),
            "MANIFEST.tsv lists {} but it is missing",
            file.display()
        );
        out.push((file, kind));
    }
    assert!(
        out.len() >= 90,
        "expected the 95 files of external2, found {}",
        out.len()
    );
    out
}

/// The files of `../shared/external2` of the given kinds.
pub(crate) fn external2_logs(kinds: &[Ext2]) -> Vec<PathBuf> {
    external2_files()
        .into_iter()
        .filter(|(_, k)| kinds.contains(k))
        .map(|(p, _)| p)
        .collect()
}

/// Parses JSON Lines output; panics with the offending line if any is not JSON.
pub(crate) fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Every file below `dir` whose name satisfies `keep`, sorted.
pub(crate) fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `scribe()` writing the folded JSONL (the default output is the terminal view); a later
/// `--to` in the test's own arguments still wins.
pub(crate) fn scribe_jsonl() -> Command {
    let mut cmd = scribe();
    cmd.args(["--to", "jsonl"]);
    cmd
}

/// The captures scribe reads: Claude Code streams and saved sessions (in their real layout),
/// Qwen daemon SSE and Qwen stream-json, Codex exec streams and rollouts, Gemini CLI stream-json
/// and saved chats.
pub(crate) fn corpus_captures(dir: &Path) -> Vec<PathBuf> {
    let mut out = files_under(&dir.join("claude-code"), &|p| {
        let s = p.to_string_lossy();
        let name = p.file_name().unwrap().to_string_lossy();
        let stream =
            name.starts_with("stream") && name.ends_with(".jsonl") && !s.contains("/projects/");
        // A saved session in its real layout: projects/<dir>/<sessionId>.jsonl (not sub-agents).
        let session = s.contains("/projects/")
            && name.ends_with(".jsonl")
            && !s.contains("/subagents/")
            && p.parent()
                .and_then(|d| d.parent())
                .is_some_and(|d| d.ends_with("projects"));
        stream || session
    });
    out.extend(files_under(&dir.join("qwen-daemon"), &|p| {
        p.extension().is_some_and(|e| e == "sse")
    }));
    out.extend(files_under(&dir.join("qwen-code"), &|p| {
        p.file_name().is_some_and(|n| n == "stream.jsonl")
    }));
    out.extend(codex_captures(dir));
    // Gemini CLI: each scenario's stream.jsonl and its saved chat (gemini-home/tmp/*/chats).
    out.extend(files_under(&dir.join("gemini-cli"), &|p| {
        let s = p.to_string_lossy();
        p.file_name().is_some_and(|n| n == "stream.jsonl")
            || (s.contains("/chats/") && s.ends_with(".jsonl"))
    }));
    out
}

/// The Codex CLI captures: each scenario's `codex exec --json` stream and its saved
/// `sessions/**/rollout-*.jsonl`.
pub(crate) fn codex_captures(dir: &Path) -> Vec<PathBuf> {
    files_under(&dir.join("codex"), &|p| {
        let name = p.file_name().unwrap().to_string_lossy();
        name == "stream.jsonl" || name.starts_with("rollout-") && name.ends_with(".jsonl")
    })
}

/// Runs scribe (JSONL out) on a file with extra arguments; asserts exit 0 and returns the records
/// and stderr.
pub(crate) fn run_jsonl(path: &Path, args: &[&str]) -> (Vec<serde_json::Value>, String) {
    let mut cmd = scribe_jsonl();
    cmd.args(args).arg(path);
    records_and_stderr(cmd)
}

/// Runs a command writing JSONL; asserts exit 0 and returns the records and stderr.
pub(crate) fn records_and_stderr(mut cmd: Command) -> (Vec<serde_json::Value>, String) {
    let out = cmd.assert().success().get_output().clone();
    (
        json_lines(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs scribe with `args` on `stdin` (the arguments name `-` or leave the input out); asserts
/// exit 0 and returns its standard output.
pub(crate) fn stdout_of(args: &[&str], stdin: String) -> String {
    let out = scribe()
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("scribe runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

/// Folds a file or directory to JSONL; asserts exit 0 and a quiet stderr.
pub(crate) fn fold_quiet(path: &Path) -> Vec<serde_json::Value> {
    let (records, stderr) = run_jsonl(path, &[]);
    assert!(stderr.is_empty(), "{}: stderr {stderr}", path.display());
    records
}

/// The binary started with `args`, its stdin open for the test to write, and its stdout read
/// line by line on a thread: for tests that see output while the input is still arriving.
pub(crate) fn spawn_live(
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<String>,
) {
    use std::io::BufRead;
    use std::process::{Command as StdCommand, Stdio};
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("scribe"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn scribe");
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, stdin, rx)
}

/// Runs the binary to completion and returns its exit status and peak resident set size in KiB.
///
/// The peak is read from `/proc/<pid>/status` (`VmHWM`, the high-water mark of the address space
/// the program got at `exec`) while it runs. `wait4`'s `ru_maxrss` cannot be used: a child forked
/// from this test process starts with this process's pages, and Linux carries that high-water
/// mark across `exec`, so it reports whatever the other tests in this process allocated.
pub(crate) fn peak_rss_kib(mut cmd: std::process::Command) -> (i32, u64) {
    let mut child = cmd.spawn().expect("spawn scribe");
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            if let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = peak.max(kib);
            }
        }
        if let Some(status) = child.try_wait().expect("wait for scribe") {
            return (status.code().unwrap_or(-1), peak);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// A Claude stream (`claude -p --output-format stream-json`) of one prompt and one answer in
/// session `id`: the init line, the prompt, the answer.
pub(crate) fn claude_stream(id: &str, prompt: &str, answer: &str) -> String {
    let init = serde_json::json!({"type":"system","subtype":"init","session_id":id,"model":"m","tools":[],"cwd":"/w"});
    let user = serde_json::json!({"type":"user","message":{"role":"user","content":prompt},"session_id":id});
    let asst = serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":answer}]},"session_id":id});
    format!("{init}\n{user}\n{asst}\n")
}

/// The output of scribe over the file `path` with `args`, as text; the run must succeed.
pub(crate) fn converted(path: &Path, args: &[&str]) -> String {
    let out = scribe()
        .args(args)
        .arg(path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Runs scribe over `input` on stdin with `args`; returns stdout.
pub(crate) fn run(input: &str, args: &[&str]) -> String {
    stdout_of(args, input.to_owned())
}

/// `47416` → `47,416`, as the closing lines and the page write a count.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Samples of every agent and format (under `samples/`), for tests that hold for any input.
pub(crate) const AGENT_SAMPLES: &[&str] = &[
    "codex-rollout-edges.jsonl",
    "codex-exec-edges.jsonl",
    "gemini-session-resume.jsonl",
    "gemini-stream-edges.jsonl",
    "qwen-session.jsonl",
    "qwen-daemon-edges.sse",
    "demo.jsonl",
    "ci-run.jsonl",
    "claude-session/compaction.jsonl",
];

/// The file names in `dir`, sorted.
pub(crate) fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The data of a Qwen daemon `permission_request` (spec/qwen-daemon-events.md: `requestId`,
/// `toolCall` repeating the shell call `call` titled `title`, and allow / reject `options`), as
/// the corpus's `qwen-daemon/perm` capture records one.
pub(crate) fn qwen_permission_request(call: &str, title: &str) -> serde_json::Value {
    serde_json::json!({
        "sessionId": "s", "requestId": "r1",
        "toolCall": {"toolCallId": call, "status": "pending", "title": title,
                     "_meta": {"toolName": "run_shell_command"}},
        "options": [
            {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
            {"optionId": "cancel", "name": "Reject", "kind": "reject_once"}
        ]
    })
}
