//! `--follow` over files that do not simply grow, and over many sessions: a relative directory
//! given to `--follow-all` writes each session once, a file rewritten while followed (in place
//! and longer, replaced by a rename, shorter) is read again from its start after one notice,
//! and `--follow-all` follows 600 sessions within a limit of 256 open descriptors.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::follow::{Follower, SETTLE, append};
use crate::util::claude_stream;

/// A prompt line of the Claude stream in session `id`.
fn prompt_line(id: &str, prompt: &str) -> String {
    let user = serde_json::json!({"type":"user","message":{"role":"user","content":prompt},"session_id":id});
    format!("{user}\n")
}

/// How many of `lines` hold `needle`.
fn count(lines: &[String], needle: &str) -> usize {
    lines.iter().filter(|l| l.contains(needle)).count()
}

/// The path given relative to the working directory (`./proj`): the watcher names the session
/// by its absolute path, the directory walk by the relative one, and scribe's own reads of the
/// file are events too. The session is written once, with the prompt added later once.
#[test]
fn follow_all_of_a_relative_directory_writes_each_session_once() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let file = proj.join("aaaa1111.jsonl");
    std::fs::write(
        &file,
        claude_stream("one", "First prompt.", "First answer."),
    )
    .unwrap();
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("scribe"));
    cmd.current_dir(dir.path())
        .args(["--follow-all", "./proj", "--to", "jsonl"]);
    let mut f = Follower::spawn(cmd);
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| {
        l.contains("First prompt.")
    }));
    append(&file, &prompt_line("one", "Second prompt."));
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| {
        l.contains("Second prompt.")
    }));
    let (out, code, stderr) = f.interrupt();
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(count(&out, "First prompt."), 1, "{out:#?}");
    assert_eq!(count(&out, "Second prompt."), 1, "{out:#?}");
    assert_eq!(count(&out, "\"kind\":\"header\""), 1, "{out:#?}");
}

/// Rewrites `path` by writing a file beside it and renaming it over it (a new inode).
fn replace(path: &Path, text: &str) {
    let beside = path.with_extension("tmp");
    std::fs::write(&beside, text).unwrap();
    std::fs::rename(&beside, path).unwrap();
}

/// A file followed is rewritten three ways: truncated and written again in place, longer than
/// what was read (the old offset falls inside the new text); replaced by a rename; written
/// again shorter. Each time the file is read again from its start after one notice, and no
/// fragment of the new text is read from the old offset (it would be a `debug` record).
#[test]
fn a_file_rewritten_while_followed_is_read_again_from_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::write(
        &file,
        claude_stream("one", "First prompt.", "First answer."),
    )
    .unwrap();
    let mut f = Follower::start(&["-F", file.to_str().unwrap(), "--to", "jsonl"]);
    // (An answer is final only when something follows it: the prompts are waited for.)
    assert!(f.wait_for(Instant::now() + SETTLE, false, &|l| {
        l.contains("First prompt.")
    }));
    let longer = claude_stream(
        "two",
        "Second prompt, a good deal longer than the first one was.",
        "Second answer, longer too: the old offset falls in the middle of a line.",
    );
    std::fs::write(&file, longer).unwrap();
    assert!(f.wait_for(Instant::now() + SETTLE, true, &|l| {
        l.contains("Second prompt")
    }));
    replace(
        &file,
        &claude_stream("three", "Third prompt.", "Third answer."),
    );
    assert!(f.wait_for(Instant::now() + SETTLE, true, &|l| {
        l.contains("Third prompt.")
    }));
    std::fs::write(&file, claude_stream("four", "Fourth.", "Four.")).unwrap();
    assert!(f.wait_for(Instant::now() + SETTLE, true, &|l| l.contains("Fourth.")));
    let (out, code, stderr) = f.interrupt();
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(
        stderr
            .matches("s.jsonl was rewritten; reading it again from the start")
            .count(),
        3,
        "{stderr}"
    );
    assert_eq!(count(&out, "\"kind\":\"debug\""), 0, "{out:#?}");
    assert_eq!(count(&out, "\"kind\":\"header\""), 4, "{out:#?}");
    for text in [
        "First prompt.",
        "First answer.",
        "Second prompt",
        "Second answer",
        "Third prompt.",
        "Third answer.",
        "Fourth.",
        "Four.",
    ] {
        assert_eq!(count(&out, text), 1, "{text}: {out:#?}");
    }
}

/// Waits until a line holding each of `tokens` has been seen; returns the ones never seen.
fn wait_all(f: &mut Follower, tokens: &[String]) -> BTreeSet<String> {
    let mut missing: BTreeSet<String> = tokens.iter().cloned().collect();
    let deadline = Instant::now() + SETTLE;
    while !missing.is_empty() && Instant::now() < deadline {
        f.wait_for(
            (Instant::now() + Duration::from_millis(200)).min(deadline),
            true,
            &|_| false,
        );
        missing.retain(|t| !f.seen.iter().any(|l| l.contains(t.as_str())));
        f.seen.clear();
    }
    missing
}

/// A row of a saved Claude Code session (`~/.claude/projects/<project>/<session>.jsonl`):
/// `kind` "user" or "assistant", its uuid and parent, and its text.
fn saved_row(sid: &str, kind: &str, (uuid, parent): (&str, Option<&str>), text: &str) -> String {
    let message = if kind == "user" {
        serde_json::json!({"role": "user", "content": text})
    } else {
        serde_json::json!({"id": format!("msg-{uuid}"), "type": "message", "role": "assistant",
            "model": "m", "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"})
    };
    let row = serde_json::json!({"parentUuid": parent, "isSidechain": false, "type": kind,
        "message": message, "uuid": uuid, "timestamp": "2026-01-01T10:00:00.000Z",
        "sessionId": sid, "cwd": "/w", "version": "2.1.0"});
    format!("{row}\n")
}

/// 600 sessions written recently, followed at once by a scribe allowed 256 open descriptors:
/// each session is shown, and a prompt added to every one afterwards is shown too.
#[cfg(unix)]
#[test]
fn follow_all_follows_600_sessions_within_256_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..600).map(|i| format!("s{i:03}")).collect();
    // Saved sessions: their rows are read again from the file, which must not stay open
    // either.
    for n in &names {
        let text = saved_row(n, "user", ("u1", None), &format!("prompt-{n}."))
            + &saved_row(n, "assistant", ("a1", Some("u1")), &format!("answer-{n}."));
        std::fs::write(dir.path().join(format!("{n}.jsonl")), text).unwrap();
    }
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "ulimit -n 256 && exec \"$0\" \"$@\""])
        .arg(assert_cmd::cargo::cargo_bin("scribe"))
        .args([
            "--follow-all",
            dir.path().to_str().unwrap(),
            "--to",
            "jsonl",
        ]);
    let mut f = Follower::spawn(cmd);
    let first: Vec<String> = names.iter().map(|n| format!("prompt-{n}.")).collect();
    let missing = wait_all(&mut f, &first);
    assert!(missing.is_empty(), "{} sessions not shown", missing.len());
    for n in &names {
        append(
            &dir.path().join(format!("{n}.jsonl")),
            &saved_row(n, "user", ("u2", Some("a1")), &format!("late-{n}.")),
        );
    }
    let late: Vec<String> = names.iter().map(|n| format!("late-{n}.")).collect();
    let missing = wait_all(&mut f, &late);
    assert!(
        missing.is_empty(),
        "{} late prompts not shown",
        missing.len()
    );
    let (_, code, stderr) = f.interrupt();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
