//! `scribe --follow`: a writer thread appends real corpus lines to a file with pauses, and each
//! line's events must come out of the running child within a second of the line being written
//! (a generous bound, measured per record from its own write, on the child's stdout). Also: a
//! rewind arriving late is marked, Ctrl-C exits 130 with well-formed output, directories switch
//! to a newer session, and `-o DIR` pages (`scribe hook` is tests/hook.rs).

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::util::{corpus, sample, scribe};

/// How long a record may take to appear after its line was written.
const BOUND: Duration = Duration::from_secs(1);
/// How long the child gets to read what was already there before the test writes more.
pub(crate) const SETTLE: Duration = Duration::from_secs(20);

/// A running `scribe --follow` whose stdout lines arrive on a channel.
pub(crate) struct Follower {
    child: Child,
    lines: Receiver<String>,
    /// Every line received so far.
    pub(crate) seen: Vec<String>,
}

impl Follower {
    pub(crate) fn start(args: &[&str]) -> Follower {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("scribe"));
        cmd.args(args);
        Follower::spawn(cmd)
    }

    /// Runs `cmd` (scribe, or a shell that runs it) with a plain environment, its standard
    /// output read line by line.
    pub(crate) fn spawn(mut cmd: Command) -> Follower {
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
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("scribe runs");
        let out = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Follower {
            child,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Waits until a line satisfying `want` arrives (among lines not seen before this call, or
    /// any line when `fresh` is false), or the deadline passes.
    pub(crate) fn wait_for(
        &mut self,
        deadline: Instant,
        fresh: bool,
        want: &dyn Fn(&str) -> bool,
    ) -> bool {
        if !fresh && self.seen.iter().any(|l| want(l)) {
            return true;
        }
        loop {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            match self.lines.recv_timeout(deadline - now) {
                Ok(l) => {
                    let hit = want(&l);
                    self.seen.push(l);
                    if hit {
                        return true;
                    }
                }
                Err(_) => return false,
            }
        }
    }

    /// Sends SIGINT and collects the rest of the output, the exit code and stderr.
    pub(crate) fn interrupt(mut self) -> (Vec<String>, Option<i32>, String) {
        let pid = self.child.id().to_string();
        let ok = Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill runs");
        assert!(ok.success());
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            std::io::Read::read_to_string(&mut e, &mut stderr).unwrap();
        }
        let status = self.child.wait().unwrap();
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(l);
        }
        (std::mem::take(&mut self.seen), status.code(), stderr)
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `line` of an `--to events` record.
fn event_line(l: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(l).ok()?;
    v.get("line")?.as_u64()
}

/// The input lines of `file` that yield at least one event when it is read whole.
fn lines_with_events(file: &Path) -> BTreeSet<u64> {
    let out = scribe()
        .arg(file)
        .args(["--to", "events"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(event_line)
        .filter(|&n| n > 0)
        .collect()
}

/// Appends `text` to `path` and flushes it.
pub(crate) fn append(path: &Path, text: &str) {
    let mut f = OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.flush().unwrap();
}

/// Writes `src`'s lines from `from` on (1-based) into `dst` one by one, each split in two with a
/// pause in the middle (a partly written line must be waited for), and checks that each line
/// that has events shows one within `BOUND` of its last byte being written.
fn drive(f: &mut Follower, src: &Path, dst: &Path, from: usize) {
    let expected = lines_with_events(src);
    assert!(!expected.is_empty(), "{} yields no events", src.display());
    let text = std::fs::read_to_string(src).unwrap();
    for (i, line) in text.lines().enumerate().skip(from - 1) {
        let n = i as u64 + 1;
        let (a, b) = line.split_at(line.len() / 2);
        append(dst, a);
        std::thread::sleep(Duration::from_millis(30));
        append(dst, &format!("{b}\n"));
        let written = Instant::now();
        if expected.contains(&n) {
            let ok = f.wait_for(written + BOUND, true, &|l| event_line(l) == Some(n));
            assert!(
                ok,
                "{}: no event for line {n} within {BOUND:?} of writing it",
                src.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Copies the first `n` lines of `src` to `dst`.
fn copy_head(src: &Path, dst: &Path, n: usize) {
    let text = std::fs::read_to_string(src).unwrap();
    let head: String = text.lines().take(n).map(|l| format!("{l}\n")).collect();
    std::fs::write(dst, head).unwrap();
}

/// Waits for the first lines already in the file to be shown (the child starts slowly on a
/// loaded machine; that is not what the bound measures).
fn settle(f: &mut Follower, first: u64) {
    assert!(
        f.wait_for(Instant::now() + SETTLE, false, &|l| event_line(l)
            == Some(first)),
        "the lines already written were not shown"
    );
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_growing_stream_shows_each_record_within_a_second() {
    let c = corpus();
    let src = c.join("claude-code/03-bash/stream.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.jsonl");
    copy_head(&src, &file, 2);
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "events"]);
    settle(&mut f, 2);
    drive(&mut f, &src, &file, 3);
    let (out, code, stderr) = f.interrupt();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(!stderr.contains("truncated"), "{stderr}");
    assert!(
        out.iter()
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
    );
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_growing_codex_rollout_shows_each_record_within_a_second() {
    let c = corpus();
    let src = crate::util::files_under(&c.join("codex/shell/sessions"), &|p| {
        p.extension().is_some_and(|x| x == "jsonl")
    })
    .pop()
    .expect("a rollout");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rollout.jsonl");
    // Detection decides once two JSON lines agree: start with a few.
    copy_head(&src, &file, 3);
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "events"]);
    settle(&mut f, 3);
    drive(&mut f, &src, &file, 4);
    let (_, code, stderr) = f.interrupt();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(!stderr.contains("truncated"), "{stderr}");
}

/// The corpus session with a sub-agent: its main file up to the Agent call, then the sub-agent's
/// transcript (meta file first) line by line, then the rest of the main file. The sub-agent's
/// rows show live, threaded under the call.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_growing_session_with_a_sub_agent_shows_each_record_within_a_second() {
    let c = corpus();
    let proj = c.join("claude-code/05-subagent/projects/-tmp-work");
    let sid = "1bb32d1a-205f-40ba-9013-f1878d47080c";
    let src = proj.join(format!("{sid}.jsonl"));
    let agents_src = proj.join(sid).join("subagents");
    let agent_src = agents_src.join("agent-a54cb6127d4e9c499.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{sid}.jsonl"));
    let agents = dir.path().join(sid).join("subagents");
    std::fs::create_dir_all(&agents).unwrap();
    // Where the Agent call is: the first main-file line with an Agent tool_use.
    let text = std::fs::read_to_string(&src).unwrap();
    let call_line = text
        .lines()
        .position(|l| l.contains("\"subagent_type\""))
        .expect("an Agent call")
        + 1;
    copy_head(&src, &file, 3);
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "events"]);
    settle(&mut f, 3);
    // The main file up to the call.
    let head = dir.path().join("head.jsonl");
    copy_head(&src, &head, call_line);
    drive(&mut f, &head, &file, 4);
    // The sub-agent's transcript, beside it.
    std::fs::copy(
        agents_src.join("agent-a54cb6127d4e9c499.meta.json"),
        agents.join("agent-a54cb6127d4e9c499.meta.json"),
    )
    .unwrap();
    let agent = agents.join("agent-a54cb6127d4e9c499.jsonl");
    drive(&mut f, &agent_src, &agent, 1);
    // The rest of the main file.
    drive(&mut f, &src, &file, call_line + 1);
    let (out, code, stderr) = f.interrupt();
    assert_eq!(code, Some(130), "{stderr}");
    // The sub-agent's rows were threaded under the Agent call.
    let started = out
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["event"] == "subtask-started")
        .expect("the sub-agent was announced");
    let call = started["toolCallId"].as_str().expect("under its call");
    let threaded = out
        .iter()
        .filter(|l| l.contains(&format!("\"thread\":\"{call}\"")))
        .count();
    assert!(threaded > 3, "only {threaded} events under the call");
}

#[test]
fn a_rewind_arriving_late_is_marked() {
    let src = sample("claude-session/rewind.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    copy_head(&src, &file, 5);
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "jsonl"]);
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| l.contains("warmer")));
    assert!(!f.seen.iter().any(|l| l.contains("\"rewind\"")));
    // The rest: the prompt that goes back to an earlier message.
    let text = std::fs::read_to_string(&src).unwrap();
    for l in text.lines().skip(5) {
        append(&file, &format!("{l}\n"));
    }
    let marked = f.wait_for(Instant::now() + SETTLE, true, &|l| {
        l.contains("\"source\":\"rewind\"") && l.contains("\"fromLine\":4")
    });
    assert!(marked, "no rewind notice: {:?}", f.seen);
    let (out, code, _) = f.interrupt();
    assert_eq!(code, Some(130));
    // Both branches are shown, the later one after the notice.
    let all = out.join("\n");
    let notice = all.find("\"rewind\"").unwrap();
    assert!(all.find("warmer").unwrap() < notice);
    assert!(all.find("darker").unwrap() > notice);
}

#[test]
fn ctrl_c_exits_130_with_a_closed_html_page() {
    let src = sample("claude-stream/fold-tool-results.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.jsonl");
    std::fs::copy(&src, &file).unwrap();
    // A cut line at the end: waited for, never reported.
    append(&file, "{\"type\":\"assist");
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "html"]);
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| l.contains("<main")));
    let (out, code, stderr) = f.interrupt();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let page = out.join("\n");
    assert!(page.trim_end().ends_with("</html>"), "{page}");
    // Every tool call of the file made it onto the page.
    assert_eq!(page.matches("<!DOCTYPE").count(), 1);
}

#[test]
fn ctrl_c_in_jsonl_keeps_every_record_and_stays_json() {
    let src = sample("claude-stream/fold-tool-results.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.jsonl");
    std::fs::copy(&src, &file).unwrap();
    let whole = scribe()
        .arg(&file)
        .args(["--to", "jsonl"])
        .output()
        .unwrap();
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "jsonl"]);
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| l.contains("\"turn\"")));
    let (out, code, _) = f.interrupt();
    assert_eq!(code, Some(130));
    let want: Vec<String> = String::from_utf8_lossy(&whole.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        out, want,
        "follow + Ctrl-C must write what reading the file whole writes"
    );
}

#[test]
fn a_directory_switches_to_a_newer_session() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    std::fs::copy(sample("claude-session/rewind.jsonl"), &a).unwrap();
    let mut f = Follower::start(&[dir.path().to_str().unwrap(), "-F", "--to", "md"]);
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| l.contains("darker")));
    std::thread::sleep(Duration::from_millis(1100));
    let b = dir.path().join("b.jsonl");
    std::fs::copy(sample("claude-session/steering.jsonl"), &b).unwrap();
    let switched = f.wait_for(Instant::now() + SETTLE, true, &|l| {
        l.contains("now following") && l.contains("b.jsonl")
    });
    assert!(switched, "{:?}", f.seen);
    let (_, code, _) = f.interrupt();
    assert_eq!(code, Some(130));
}

#[test]
fn follow_all_prefixes_each_line_with_its_session() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        sample("claude-session/rewind.jsonl"),
        dir.path().join("aaaa1111.jsonl"),
    )
    .unwrap();
    std::fs::copy(
        sample("claude-session/steering.jsonl"),
        dir.path().join("bbbb2222.jsonl"),
    )
    .unwrap();
    let mut f = Follower::start(&["--follow-all", dir.path().to_str().unwrap(), "--to", "md"]);
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| {
        l.starts_with("[aaaa1111] ")
    }));
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| {
        l.starts_with("[bbbb2222] ")
    }));
    let (out, code, _) = f.interrupt();
    assert_eq!(code, Some(130));
    assert!(
        out.iter()
            .all(|l| l.starts_with("[aaaa1111] ") || l.starts_with("[bbbb2222] "))
    );
}

/// Polls for a file holding `needle`.
fn wait_file(path: &Path, needle: &str) -> String {
    let deadline = Instant::now() + SETTLE;
    loop {
        if let Ok(t) = std::fs::read_to_string(path) {
            if t.contains(needle) {
                return t;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{} never held {needle}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn html_pages_in_a_directory_are_rewritten_as_the_session_grows() {
    let src = sample("claude-session/rewind.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let out = dir.path().join("site");
    copy_head(&src, &file, 3);
    let f = Follower::start(&[
        "-F",
        file.to_str().unwrap(),
        "--to",
        "html",
        "-o",
        out.to_str().unwrap(),
    ]);
    let page = out.join("5e55a0e1-0000-4000-8000-000000000001.html");
    let first = wait_file(&page, "Name a colour.");
    assert!(first.contains("http-equiv=\"refresh\""));
    assert!(wait_file(&out.join("index.html"), "5e55a0e1").contains("http-equiv=\"refresh\""));
    let text = std::fs::read_to_string(&src).unwrap();
    for l in text.lines().skip(3) {
        append(&file, &format!("{l}\n"));
    }
    wait_file(&page, "darker");
    let (_, code, _) = f.interrupt();
    assert_eq!(code, Some(130));
    // The last write is the finished page, without the reload.
    let last = std::fs::read_to_string(&page).unwrap();
    assert!(last.trim_end().ends_with("</html>"));
    assert!(!last.contains("http-equiv=\"refresh\""));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!index.contains("http-equiv=\"refresh\""));
    // No temporary file is left behind.
    let left: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".part"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Gemini CLI's chat log is an upsert log: a message is written again with the same id when it
/// changes. Followed, the last message is held until another begins (it is usually the one being
/// rewritten); a rewrite of a message already shown comes out as an `update` notice and the
/// message as it is now, not as a silent duplicate.
#[test]
fn a_gemini_message_rewritten_after_it_was_shown_is_an_update() {
    let src = sample("gemini-session-rewind.jsonl");
    let text = std::fs::read_to_string(&src).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session-x.jsonl");
    // Header, context, the prompt, the model message without its tool calls, then a message
    // that comes after it: the model message is shown as it was.
    let later =
        r#"{"id":"i-x","timestamp":"2026-01-02T12:00:03.000Z","type":"info","content":"Later."}"#;
    let head = format!(
        "{}\n{}\n{}\n{}\n{later}\n",
        lines[0], lines[1], lines[2], lines[3]
    );
    std::fs::write(&file, head).unwrap();
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "events"]);
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| l.contains("\"g-1\"")));
    assert!(!f.seen.iter().any(|l| l.contains("Echoing first.")));
    // The model message is rewritten with its text and tool calls.
    append(&file, &format!("{}\n", lines[5]));
    let updated = f.wait_for(Instant::now() + SETTLE, true, &|l| {
        l.contains("\"source\":\"update\"")
    });
    assert!(updated, "{:?}", f.seen);
    let (out, code, _) = f.interrupt();
    assert_eq!(code, Some(130));
    let all = out.join("\n");
    assert!(all.find("\"update\"").unwrap() < all.find("Echoing first.").unwrap());
    assert_eq!(all.matches("Echoing first.").count(), 1);
}

/// A file name is input: `--follow` names a missing one on stderr with its controls made
/// visible, as every other message does, so a planted name cannot drive the terminal.
#[test]
fn a_missing_file_is_named_without_its_terminal_controls() {
    let out = scribe()
        .args(["--follow", "/nonexistent/x\u{1b}[31mred"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains('\u{1b}'), "a raw escape on stderr: {err:?}");
    assert!(err.contains("no such file or directory"), "{err}");
    assert_eq!(out.status.code(), Some(2), "{err}");
}
