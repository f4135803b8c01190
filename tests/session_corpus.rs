//! Saved sessions from the real corpus (ignored: they need ../shared/corpus): every `projects/**`
//! session file converts cleanly, and folds to the same transcript as the `stream.jsonl` the same
//! run printed, compared on what both formats carry (docs/input-claude-session.md says what differs).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{
    Ext2, corpus, external2_logs, files_under, fold_quiet as fold, json_lines, run_jsonl,
    scribe_jsonl,
};

/// Every session file under a scenario's `projects/` (sub-agent files excluded).
fn session_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir, &|p| {
        let s = p.to_string_lossy();
        s.contains("/projects/")
            && !s.contains("/subagents/")
            && p.extension().is_some_and(|x| x == "jsonl")
            && !p
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-")
    })
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_corpus_session_file_converts_without_debug_records() {
    let dir = corpus();
    let files = session_files(&dir.join("claude-code"));
    assert!(
        files.len() >= 19,
        "expected a session file per scenario, found {}",
        files.len()
    );
    for path in files {
        assert_session_converts_cleanly(&path, &fold(&path));
    }
}

/// The same over the saved Claude Code sessions of `../shared/external2`. Those were copied
/// without their sub-agent files: the warnings allowed say that such a file is missing, or that a
/// line held several records glued together (each read as a record of its own).
#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn every_external2_session_file_converts_without_debug_records() {
    let files = external2_logs(&[Ext2::ClaudeSession]);
    assert!(files.len() >= 40, "expected the external2 sessions");
    for path in files {
        let (recs, stderr) = run_jsonl(&path, &[]);
        // A line `--stats`'s list of external2 debug records names, with why.
        let listed = crate::stats::EXTERNAL2_DEBUG
            .iter()
            .any(|(suffix, ..)| path.ends_with(suffix));
        let allowed = |l: &str| {
            l.contains("JSON records glued together") || (listed && l.contains("invalid JSON"))
        };
        for line in stderr.lines().filter(|l| !allowed(l)) {
            let missing = line
                .split_once("sub-agent transcript ")
                .and_then(|(_, rest)| rest.strip_suffix(" not found"))
                .filter(|name| !subagent_file_in_place(&path, name));
            assert!(missing.is_some(), "{}: stderr {line}", path.display());
        }
        let recs: Vec<Value> = recs
            .into_iter()
            .filter(|r| !(listed && r["kind"] == "debug"))
            .collect();
        assert_session_converts_cleanly(&path, &recs);
    }
}

/// True when a sub-agent file `name` is where Claude Code writes it for the session `path`:
/// beside it (2.0) or in `<session id>/subagents/` (2.1).
fn subagent_file_in_place(path: &Path, name: &str) -> bool {
    let dir = path.parent().unwrap();
    let stem = path.file_stem().unwrap();
    dir.join(name).is_file() || dir.join(stem).join("subagents").join(name).is_file()
}

/// True for a file that keeps a saved session's real name, `<session id>.jsonl` (copies made by
/// other tools are often renamed: `full.jsonl`, `haiku-testgen-v2.jsonl`).
fn named_by_session_id(path: &Path) -> bool {
    let stem = path.file_stem().unwrap().to_string_lossy();
    stem.len() == 36 && stem.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

/// One session file: a `claude-session` header, the session record (its id the file's name when
/// the file keeps it), turns when it holds a message, and no debug record.
fn assert_session_converts_cleanly(path: &Path, recs: &[Value]) {
    let text = std::fs::read_to_string(path).unwrap();
    let has_message = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .any(|row| matches!(row["type"].as_str(), Some("user" | "assistant")));
    assert_eq!(recs[0]["kind"], "header", "{}", path.display());
    assert_eq!(recs[0]["source"], "claude-session", "{}", path.display());
    assert_eq!(recs[1]["kind"], "session", "{}", path.display());
    if named_by_session_id(path) {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        assert_eq!(recs[1]["sessionId"], stem.as_str(), "{}", path.display());
    }
    let debug: Vec<_> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    assert!(debug.is_empty(), "{}: {debug:?}", path.display());
    assert!(
        !has_message || recs.iter().any(|r| r["kind"] == "turn"),
        "{}: no turns",
        path.display()
    );
}

/// What both formats carry about a list of turns: role, origin kind, part types, tool names and
/// states, and each sub-agent's transcript (compared the same way, recursively).
fn shape(turns: &[Value], in_subagent: bool) -> Vec<Value> {
    turns
        .iter()
        .filter_map(|t| {
            let parts: Vec<Value> = t["parts"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|p| {
                    let ty = p["type"].as_str().unwrap();
                    if ty == "tool-call" {
                        let c = &p["call"];
                        let sub = c["subagent"]["transcript"]
                            .as_array()
                            .map(|ts| Value::Array(shape(ts, true)));
                        Some(json!([c["name"], c["state"], c["denied"].is_string(), sub]))
                    } else if in_subagent && t["role"] == "assistant" {
                        // The stream forwards only a sub-agent's tool calls, not its text.
                        None
                    } else {
                        Some(json!(ty))
                    }
                })
                .collect();
            if in_subagent && t["role"] == "assistant" && parts.is_empty() {
                return None;
            }
            let origin = match t["origin"]["kind"].as_str().unwrap() {
                // `--replay-user-messages` echoes the prompt as a replay; the session stores it.
                "replay" => "user-input",
                o => o,
            };
            Some(json!([t["role"], origin, parts]))
        })
        .collect()
}

fn top_turns(recs: &[Value]) -> Vec<Value> {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .cloned()
        .collect()
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn saved_session_folds_like_its_stream() {
    let dir = corpus();
    let mut compared = 0;
    for scenario in std::fs::read_dir(dir.join("claude-code"))
        .unwrap()
        .flatten()
    {
        let stream = scenario.path().join("stream.jsonl");
        let sessions = session_files(&scenario.path().join("projects"));
        if !stream.is_file() || sessions.is_empty() {
            continue;
        }
        assert_eq!(sessions.len(), 1, "{}", scenario.path().display());
        let from_stream = shape(&top_turns(&fold(&stream)), false);
        let mut from_session = shape(&top_turns(&fold(&sessions[0])), false);
        // The stream echoes the prompt only when asked to (`--replay-user-messages`); the session
        // always stores it. Compare prompts only when the stream has them.
        let user_input = json!("user-input");
        if !from_stream.iter().any(|t| t[1] == user_input) {
            from_session.retain(|t| t[1] != user_input);
        }
        assert_eq!(
            from_session,
            from_stream,
            "{}: session and stream disagree",
            scenario.path().display()
        );
        compared += 1;
    }
    assert!(compared >= 18, "compared only {compared} scenarios");
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn subagent_directory_nests_the_bash_call_in_the_agent_call() {
    let dir = corpus();
    let recs = fold(&dir.join("claude-code/05-subagent/projects/-tmp-work/"));
    let headers = recs.iter().filter(|r| r["kind"] == "header").count();
    assert_eq!(headers, 1, "the sub-agent file is not a session of its own");
    let agent = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap().clone())
        .find(|p| p["call"]["name"] == "Agent")
        .expect("an Agent call");
    let sub = &agent["call"]["subagent"];
    assert_eq!(sub["status"], "completed");
    assert_eq!(sub["taskId"], "a54cb6127d4e9c499");
    let nested: Vec<&Value> = sub["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["parts"].as_array().unwrap())
        .filter(|p| p["type"] == "tool-call")
        .collect();
    assert_eq!(nested.len(), 1);
    assert_eq!(nested[0]["call"]["name"], "Bash");
    assert_eq!(nested[0]["call"]["state"], "success");
    assert_eq!(nested[0]["call"]["output"], "2");
    // Nothing of the sub-agent leaks to the top level.
    for r in recs.iter().filter(|r| r["kind"] == "turn") {
        assert!(r.get("parentTaskId").is_none(), "{r}");
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn usage_is_counted_once_per_message() {
    let dir = corpus();
    // 03-bash: one message with a text block and a tool_use block, each row repeating the usage.
    let path = session_files(&dir.join("claude-code/03-bash/projects"))
        .pop()
        .unwrap();
    let out = scribe_jsonl()
        .args(["--to", "events"])
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let blocks: Vec<Value> = json_lines(&out)
        .into_iter()
        .filter(|e| e["event"] == "assistant-block")
        .collect();
    let mut ids: Vec<&str> = blocks
        .iter()
        .map(|b| b["messageId"].as_str().unwrap())
        .collect();
    ids.dedup();
    assert!(blocks.len() > ids.len(), "some message has several rows");
    for id in ids {
        let with_usage = blocks
            .iter()
            .filter(|b| b["messageId"] == id && !b["meta"]["usage"].is_null())
            .count();
        assert_eq!(with_usage, 1, "{id}: usage on {with_usage} rows");
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_line_of_a_session_is_accounted_for_in_events() {
    let dir = corpus();
    let mut files = session_files(&dir.join("claude-code"));
    files.push(crate::util::sample("claude-session/rewind.jsonl"));
    files.push(crate::util::sample("claude-session/compaction.jsonl"));
    assert_every_line_in_events(files);
}

/// The same over the saved Claude Code sessions of `../shared/external2`.
#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn every_line_of_an_external2_session_is_accounted_for_in_events() {
    assert_every_line_in_events(external2_logs(&[Ext2::ClaudeSession]));
}

/// Every line number of each session file appears in its `--to events` output.
fn assert_every_line_in_events(files: Vec<PathBuf>) {
    for path in files {
        // Sub-agent events carry their own file's line numbers: check sessions without any.
        if path.with_extension("").is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: Vec<u64> = (1..=text.lines().count() as u64).collect();
        let out = scribe_jsonl()
            .args(["--to", "events"])
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let mut seen: Vec<u64> = json_lines(&out)
            .iter()
            .filter_map(|e| e["line"].as_u64())
            .filter(|&n| n > 0)
            .collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, expected, "{}", path.display());
    }
}
