//! Saved Claude Code sessions over hand-written samples (samples/claude-session): chain order,
//! rewinds, compaction, both sub-agent layouts, titles, directory inputs and `-o DIR`.

use serde_json::Value;

use crate::util::{fold_quiet as fold, json_lines, sample, scribe_jsonl};

fn session(name: &str) -> Vec<Value> {
    fold(&sample(&format!("claude-session/{name}")))
}

/// `kind` of each record, with a turn's role and first text, or a notice's kind.
fn outline(recs: &[Value]) -> Vec<String> {
    recs.iter()
        .map(|r| match r["kind"].as_str().unwrap() {
            "turn" => {
                let first = &r["parts"][0];
                let what = first["text"]
                    .as_str()
                    .or_else(|| first["call"]["name"].as_str())
                    .unwrap_or("?");
                format!(
                    "{} {}: {what}",
                    r["role"].as_str().unwrap(),
                    r["origin"]["kind"].as_str().unwrap()
                )
            }
            "notice" => format!("notice {}", r["notice"]["kind"].as_str().unwrap()),
            k => k.to_owned(),
        })
        .collect()
}

/// The top-level calls of tool `name`, in output order.
fn calls_named<'a>(recs: &'a [Value], name: &str) -> Vec<&'a Value> {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .filter(|p| p["call"]["name"] == name)
        .map(|p| &p["call"])
        .collect()
}

fn call<'a>(recs: &'a [Value], name: &str) -> &'a Value {
    calls_named(recs, name)
        .first()
        .copied()
        .unwrap_or_else(|| panic!("no {name} call"))
}

#[test]
fn rewind_keeps_the_abandoned_branch_where_it_forked() {
    let recs = session("rewind.jsonl");
    assert_eq!(
        recs[0]["source"], "claude-session",
        "detected from a file-history-snapshot line"
    );
    assert_eq!(
        outline(&recs),
        [
            "header",
            "session",
            "user user-input: Name a colour.",
            "assistant model: Blue.",
            "notice branch",
            "user user-input: Another one, but darker.",
            "assistant model: Navy.",
        ]
    );
    let branch = &recs[4]["notice"];
    assert_eq!(branch["leafId"], "r4");
    let texts: Vec<&str> = branch["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["Another one, but warmer.", "Red."]);
}

#[test]
fn compaction_continues_the_chain_with_a_notice_and_the_summary() {
    let recs = session("compaction.jsonl");
    assert_eq!(
        outline(&recs),
        [
            "header",
            "session",
            "user user-input: Refactor the parser.",
            "assistant model: Step one is done: the lexer is split out.",
            "notice compact",
            "user synthetic: This session is being continued from a previous conversation that ran out of context. Summary: the lexer was split out of the parser; step two is next.",
            "user user-input: Now do step two.",
            "assistant model: Step two is done: the parser uses the new lexer.",
        ]
    );
    assert_eq!(recs[4]["notice"]["trigger"], "manual");
    assert_eq!(recs[4]["notice"]["preTokens"], 52000);
    assert_eq!(recs[5]["origin"]["reason"], "other");
    assert_eq!(recs[5]["origin"]["detail"], "compact-summary");
}

#[test]
fn entries_outside_the_chain_stay_where_they_were_written() {
    let recs = session("steering.jsonl");
    assert_eq!(
        outline(&recs),
        [
            "header",
            "session",
            "user user-input: Rename the config module.",
            "assistant model: Renaming config to settings.",
            "notice info",
            "user user-input: Also update the docs.",
            "assistant model: Docs updated; config stays as an alias.",
            "notice info",
        ]
    );
    assert_eq!(recs[4]["notice"]["source"], "queue-operation");
    assert_eq!(
        recs[4]["notice"]["text"],
        "queued input remove: keep the old name as an alias"
    );
    assert_eq!(recs[7]["notice"]["source"], "cost-state");
    assert_eq!(recs[7]["notice"]["data"]["totalCostUSD"], 0.0123);
}

#[test]
fn title_and_facts_come_from_records_after_the_last_row() {
    let recs = session("trailing-title.jsonl");
    let s = &recs[1];
    assert_eq!(s["kind"], "session");
    // custom-title beats ai-title beats summary, whatever their order.
    assert_eq!(s["title"], "hello world");
    assert_eq!(s["sessionId"], "5e55a0e1-0000-4000-8000-000000000005");
    assert_eq!(s["cwd"], "/home/u/app");
    assert_eq!(s["version"], "2.1.0");
    assert_eq!(s["gitBranch"], "main");
    assert_eq!(s["model"], "claude-sonnet-4-5");
    assert_eq!(s["source"], "claude-session");
    assert_eq!(
        outline(&recs)[2..],
        ["user user-input: Say hi.", "assistant model: Hi!"]
    );
}

#[test]
fn title_records_are_counted_as_absorbed_events() {
    let out = scribe_jsonl()
        .args(["--to", "events"])
        .arg(sample("claude-session/trailing-title.jsonl"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let absorbed: Vec<String> = json_lines(&out)
        .iter()
        .filter(|e| e["event"] == "absorbed")
        .map(|e| e["what"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        absorbed,
        [
            "queue-operation/enqueue",
            "queue-operation/dequeue",
            "last-prompt",
            "ai-title (session title)",
            "custom-title (session title)",
            "summary (session title)",
        ]
    );
}

#[test]
fn new_layout_subagent_nests_under_its_agent_call() {
    let recs = session("subagents-new");
    assert_eq!(
        recs.iter().filter(|r| r["kind"] == "header").count(),
        1,
        "sub-agent files are not sessions"
    );
    let agent = call(&recs, "Agent");
    let sub = &agent["subagent"];
    assert_eq!(sub["taskId"], "a0123456789abcdef");
    assert_eq!(sub["description"], "Count files");
    assert_eq!(sub["subagentType"], "general-purpose");
    assert_eq!(sub["status"], "completed");
    assert_eq!(sub["summary"], "There are 3 files.");
    assert_eq!(sub["usage"]["totalTokens"], 900);
    let t = sub["transcript"].as_array().unwrap();
    assert_eq!(t.len(), 3);
    assert_eq!(t[0]["origin"]["kind"], "subagent-prompt");
    assert_eq!(t[1]["parts"][0]["call"]["name"], "Bash");
    assert_eq!(t[1]["parts"][0]["call"]["state"], "success");
    assert_eq!(t[2]["parts"][0]["text"], "There are 3 files.");
    for turn in t {
        assert_eq!(turn["parentTaskId"], "toolu_new_agent");
    }
    // The compaction agent's file is skipped: no orphan sub-agent notice, no stray text.
    let all = serde_json::to_string(&recs).unwrap();
    assert!(!all.contains("Summarise the conversation so far."));
    // The text row and the tool_use row of msg_n2 repeat one usage: counted once.
    let turn = recs
        .iter()
        .find(|r| r["id"] == "msg_n2")
        .expect("msg_n2 turn");
    assert_eq!(turn["metadata"]["usage"]["inputTokens"], 200);
    assert_eq!(turn["parts"].as_array().unwrap().len(), 2);
}

#[test]
fn old_layout_subagent_is_found_beside_the_session_by_session_id() {
    let recs = session("subagents-old");
    assert_eq!(
        recs.iter().filter(|r| r["kind"] == "header").count(),
        1,
        "agent-*.jsonl beside the session is not listed as a session"
    );
    let task = call(&recs, "Task");
    let sub = &task["subagent"];
    assert_eq!(sub["taskId"], "5f3a9c1");
    assert_eq!(sub["status"], "completed");
    let t = sub["transcript"].as_array().unwrap();
    assert_eq!(t[0]["parts"][0]["text"], "Find the TODO comments.");
    assert_eq!(t[1]["parts"][0]["call"]["name"], "Grep");
    // The other session's agent file is left alone.
    let all = serde_json::to_string(&recs).unwrap();
    assert!(!all.contains("Unrelated work of another session."));
    assert!(recs.iter().all(|r| r["notice"]["kind"] != "subagent"));
}

#[test]
fn oldest_inline_sidechains_nest_under_their_task_calls_by_prompt() {
    let recs = session("inline-sidechains.jsonl");
    let turns: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "turn").collect();
    assert_eq!(turns.len(), 3, "sidechain rows never reach the top level");
    let calls: Vec<&Value> = turns[1]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["call"])
        .collect();
    assert_eq!(calls.len(), 2);
    for (call, (prompt, answer)) in calls.iter().zip([
        ("List src/.", "src/ has main.rs."),
        ("List docs/.", "docs/ has README.md."),
    ]) {
        let t = call["subagent"]["transcript"].as_array().unwrap();
        assert_eq!(t[0]["parts"][0]["text"], prompt);
        assert_eq!(t[0]["origin"]["kind"], "subagent-prompt");
        assert_eq!(t[1]["parts"][0]["text"], answer);
    }
    assert!(recs.iter().all(|r| r["notice"]["kind"] != "branch"));
}

#[test]
fn inline_sidechains_sent_the_same_prompt_nest_under_their_own_calls_in_order() {
    let recs = session("repeated-task-prompt.jsonl");
    let calls = calls_named(&recs, "Task");
    assert_eq!(calls.len(), 2, "two Task calls sending the same prompt");
    for (call, (id, answer)) in calls.iter().zip([
        ("toolu_task_a", "first run: 12 tests."),
        ("toolu_task_b", "second run: 13 tests."),
    ]) {
        assert_eq!(call["toolCallId"], id);
        let t = call["subagent"]["transcript"].as_array().unwrap();
        assert_eq!(t.len(), 2, "{id} holds its own run only: {t:?}");
        assert_eq!(t[0]["origin"]["kind"], "subagent-prompt");
        assert_eq!(t[1]["parts"][0]["text"], answer, "{id}");
    }
    assert!(
        recs.iter().all(|r| r["notice"]["kind"] != "subagent"),
        "no run is left unclaimed"
    );
}

#[test]
fn a_missing_subagent_file_is_a_warning_not_a_failure() {
    let out = scribe_jsonl()
        .arg(sample("claude-session/missing-subagent"))
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sub-agent transcript agent-a00000000000000aa.jsonl not found"),
        "{err}"
    );
    let recs = json_lines(&out.stdout);
    assert_eq!(call(&recs, "Agent")["state"], "success");
    assert_eq!(recs.iter().filter(|r| r["kind"] == "turn").count(), 3);
}

#[test]
fn from_claude_session_is_accepted_and_stdin_works_without_subagents() {
    let text = std::fs::read(sample("claude-session/rewind.jsonl")).unwrap();
    let out = scribe_jsonl()
        .args(["--from", "claude-session"])
        .write_stdin(text)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let recs = json_lines(&out);
    assert_eq!(recs[0]["source"], "claude-session");
    assert_eq!(recs[0]["file"], "-");
    assert_eq!(recs.iter().filter(|r| r["kind"] == "turn").count(), 4);
}

#[test]
fn a_directory_of_sessions_is_one_transcript_per_session() {
    // samples/claude-session: loose session files and three project-like directories.
    let out = scribe_jsonl()
        .arg(sample("claude-session"))
        .assert()
        .success()
        .get_output()
        .clone();
    let recs = json_lines(&out.stdout);
    let root = sample("claude-session").display().to_string();
    let files: Vec<String> = recs
        .iter()
        .filter(|r| r["kind"] == "header")
        .map(|r| r["file"].as_str().unwrap().replace(&root, ""))
        .collect();
    assert_eq!(
        files,
        [
            "/compaction.jsonl",
            "/dangling-parents.jsonl",
            "/durations-and-unknown-types.jsonl",
            "/hook-progress-parallel.jsonl",
            "/inline-sidechains.jsonl",
            "/local-command.jsonl",
            "/missing-subagent/5e55a0e1-0000-4000-8000-000000000006.jsonl",
            "/no-parents.jsonl",
            "/persisted-output/5e55a0e1-0000-4000-8000-000000000011.jsonl",
            "/persisted-output-nested/5e55a0e1-0000-4000-8000-000000000013.jsonl",
            "/rejected-tools.jsonl",
            "/repeated-task-prompt.jsonl",
            "/replayed-result.jsonl",
            "/rewind.jsonl",
            "/steering.jsonl",
            "/subagents-new/5e55a0e1-0000-4000-8000-000000000003.jsonl",
            "/subagents-old/5e55a0e1-0000-4000-8000-000000000004.jsonl",
            "/task-notification.jsonl",
            "/trailing-title.jsonl",
        ]
    );
    // Sub-agents are still attached when their session is found by a walk.
    let nested = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().unwrap())
        .any(|p| p["call"]["subagent"]["taskId"] == "a0123456789abcdef");
    assert!(nested);
    // The missing sub-agent of one session is reported, and the run goes on.
    assert!(String::from_utf8_lossy(&out.stderr).contains("agent-a00000000000000aa.jsonl"));
}

#[test]
fn output_dir_writes_one_file_per_session_named_after_its_id() {
    let dir = tempfile::tempdir().unwrap();
    for (to, ext) in [("jsonl", "jsonl"), ("events", "events.jsonl")] {
        let out = scribe_jsonl()
            .args(["--to", to, "-o"])
            .arg(dir.path())
            .arg(sample("claude-session/rewind.jsonl"))
            .arg(sample("claude-session/subagents-new"))
            .assert()
            .success()
            .get_output()
            .clone();
        assert!(out.stdout.is_empty(), "nothing on stdout with -o");
        for id in [
            "5e55a0e1-0000-4000-8000-000000000001",
            "5e55a0e1-0000-4000-8000-000000000003",
        ] {
            let path = dir.path().join(format!("{id}.{ext}"));
            let recs = json_lines(&std::fs::read(&path).unwrap());
            let header = if to == "jsonl" { "kind" } else { "event" };
            assert_eq!(recs[0][header], "header", "{}", path.display());
            let named = recs
                .iter()
                .any(|r| r["sessionId"] == id || r["session"]["sessionId"] == id);
            assert!(named, "{} holds session {id}", path.display());
        }
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
}

#[test]
fn output_dir_names_streams_by_their_init_and_never_overwrites_within_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("new/sub");
    scribe_jsonl()
        .arg("-o")
        .arg(&target)
        .arg(sample("claude-stream/fold-session-and-notices.jsonl"))
        .arg(sample("claude-session/compaction.jsonl"))
        .arg(sample("claude-session/compaction.jsonl"))
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "5e55a0e1-0000-4000-8000-000000000002-2.jsonl",
            "5e55a0e1-0000-4000-8000-000000000002.jsonl",
            "sess-1.jsonl",
        ]
    );
    let stream = json_lines(&std::fs::read(target.join("sess-1.jsonl")).unwrap());
    assert_eq!(stream[0]["source"], "claude-stream");
}
