//! `scribe hook`: a real Claude payload archives the session and its index, a Codex `notify`
//! argument finds its rollout, bad payloads are logged and never fail the agent's turn, hooks
//! ending together keep every index row, a damaged index state is rebuilt, and a FIFO is refused.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{corpus, sample, scribe};

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_claude_hook_payload_archives_the_session_and_its_index() {
    let c = corpus();
    let proj = c.join("claude-code/05-subagent/projects/-tmp-work");
    let sid = "1bb32d1a-205f-40ba-9013-f1878d47080c";
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("projects");
    copy_tree(&proj, &projects);
    let transcript = projects.join(format!("{sid}.jsonl"));
    let archive = tmp.path().join("archive");
    let payload = serde_json::json!({
        "session_id": sid,
        "transcript_path": transcript,
        "cwd": "/tmp/work",
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    });
    let out = scribe()
        .args(["hook", "--to", "html", "-o"])
        .arg(&archive)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(archive.join(format!("{sid}.html"))).unwrap();
    assert!(page.trim_end().ends_with("</html>"));
    // The sub-agent's own transcript is on the page.
    assert!(page.contains("Count files"), "sub-agent missing");
    let index = std::fs::read_to_string(archive.join("index.html")).unwrap();
    assert!(index.contains(&format!("{sid}.html")));
    assert!(!index.contains("http-equiv=\"refresh\""));
    // A second session goes into the same index beside the first.
    let other = tmp.path().join("other.jsonl");
    std::fs::copy(sample("claude-session/rewind.jsonl"), &other).unwrap();
    let payload = serde_json::json!({
        "session_id": "x", "transcript_path": other, "cwd": "/", "hook_event_name": "SessionEnd",
    });
    scribe()
        .args(["hook", "-o"])
        .arg(&archive)
        .write_stdin(payload.to_string())
        .assert()
        .code(0);
    let index = std::fs::read_to_string(archive.join("index.html")).unwrap();
    assert!(index.contains(&format!("{sid}.html")));
    assert!(index.contains("5e55a0e1-0000-4000-8000-000000000001.html"));
}

#[test]
fn a_bad_hook_payload_is_logged_and_never_fails_the_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("archive");
    let out = scribe()
        .args(["hook", "-o"])
        .arg(&archive)
        .write_stdin("not json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let log = std::fs::read_to_string(archive.join("scribe-hook.log")).unwrap();
    assert!(log.contains("not JSON"), "{log}");
    // A transcript that is not there: logged too.
    scribe()
        .args(["hook", "-o"])
        .arg(&archive)
        .write_stdin(r#"{"transcript_path": "/nonexistent/s.jsonl", "hook_event_name": "Stop"}"#)
        .assert()
        .code(0);
    let log = std::fs::read_to_string(archive.join("scribe-hook.log")).unwrap();
    assert!(log.contains("/nonexistent/s.jsonl"), "{log}");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_codex_notify_argument_finds_its_rollout() {
    let c = corpus();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("codex");
    copy_tree(&c.join("codex/shell/sessions"), &home.join("sessions"));
    let rollout = crate::util::files_under(&home, &|p| p.extension().is_some_and(|x| x == "jsonl"))
        .pop()
        .unwrap();
    let name = rollout.file_stem().unwrap().to_string_lossy().into_owned();
    // The thread id is the uuid at the end of the rollout's name.
    let thread = &name[name.len() - 36..];
    let archive = tmp.path().join("archive");
    let payload = serde_json::json!({
        "type": "agent-turn-complete", "thread-id": thread, "turn-id": "1",
        "cwd": "/tmp", "input-messages": ["hi"], "last-assistant-message": "done",
    });
    scribe()
        .env("CODEX_HOME", &home)
        .args(["hook", "-o"])
        .arg(&archive)
        .arg(payload.to_string())
        .assert()
        .code(0)
        .stdout("");
    assert!(
        std::fs::read_dir(&archive).unwrap().flatten().any(|e| e
            .file_name()
            .to_string_lossy()
            .ends_with(".html")
            && e.file_name() != "index.html"),
        "{:?}",
        std::fs::read_to_string(archive.join("scribe-hook.log"))
    );
}

/// Copies a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let dst = to.join(e.file_name());
        if p.is_dir() {
            copy_tree(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}
/// Sixteen sessions ending together, each archived by its own `scribe hook`, all reach the
/// index: each writer takes the directory's lock and adds its row to the rows on disk.
#[test]
fn hooks_ending_together_keep_every_row() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("archive");
    let sessions: Vec<_> = (0..16)
        .map(|i| {
            let p = tmp.path().join(format!("s{i:02}.jsonl"));
            std::fs::write(&p, tiny_session(&format!("s{i:02}"))).unwrap();
            p
        })
        .collect();
    let children: Vec<_> = sessions
        .iter()
        .map(|p| {
            std::process::Command::new(env!("CARGO_BIN_EXE_scribe"))
                .args(["hook", "-o"])
                .arg(&archive)
                .arg(serde_json::json!({"transcript_path": p}).to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let index = std::fs::read_to_string(archive.join("index.html")).unwrap();
    for i in 0..16 {
        assert!(index.contains(&format!("s{i:02}.html")), "s{i:02} missing");
    }
}

/// A rows file cut short is not a silent reset: the index is rebuilt from the pages in the
/// directory (each keeps its row, with the page's title) and the hook's log says so.
#[test]
fn a_damaged_index_state_is_rebuilt_from_the_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("archive");
    let hook = |name: &str| {
        let p = tmp.path().join(format!("{name}.jsonl"));
        std::fs::write(&p, tiny_session(name)).unwrap();
        scribe()
            .args(["hook", "-o"])
            .arg(&archive)
            .arg(serde_json::json!({"transcript_path": p}).to_string())
            .assert()
            .code(0);
    };
    hook("one");
    hook("two");
    let state = archive.join(".scribe-follow-index.json");
    let full = std::fs::read(&state).unwrap();
    std::fs::write(&state, &full[..full.len() / 2]).unwrap();
    hook("three");
    let index = std::fs::read_to_string(archive.join("index.html")).unwrap();
    for page in ["one.html", "two.html", "three.html"] {
        assert!(index.contains(page), "{page} dropped from the index");
    }
    let log = std::fs::read_to_string(archive.join("scribe-hook.log")).unwrap();
    assert!(log.contains("was damaged"), "{log}");
}

/// A Claude stream of one prompt and one answer in session `id`.
fn tiny_session(id: &str) -> String {
    crate::util::claude_stream(id, "hi", "hello")
}

/// A hook payload naming a FIFO (or any file that is not a regular one) is refused with a line
/// in the log, at once: reading it would hold the agent's turn for ever.
#[cfg(unix)]
#[test]
fn a_hook_never_reads_a_fifo() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("s.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let archive = tmp.path().join("archive");
    let started = Instant::now();
    scribe()
        .args(["hook", "-o"])
        .arg(&archive)
        .arg(serde_json::json!({"transcript_path": fifo}).to_string())
        .timeout(Duration::from_secs(20))
        .assert()
        .code(0);
    assert!(started.elapsed() < Duration::from_secs(10));
    let log = std::fs::read_to_string(archive.join("scribe-hook.log")).unwrap();
    assert!(log.contains("not a regular file"), "{log}");
}
