//! Codex rollouts of the eras and features the corpus of real logs brought: a rollout written
//! before the envelopes (bare response items after a bare session meta) and the lines of a
//! multi-agent (v2) run (sub-agent activity, inter-agent messages and their delivery metadata),
//! each read fully: no line a `debug` record, every text shown.

use serde_json::Value;

use crate::util::{records_and_stderr, scribe};

/// Runs `scribe --stats --to jsonl` on `input`; returns the records and stderr.
fn fold(input: &str) -> (Vec<Value>, String) {
    let mut cmd = scribe();
    cmd.args(["--stats", "--to", "jsonl"]).write_stdin(input);
    records_and_stderr(cmd)
}

/// The terminal view of `input`, every line shown.
fn text(input: &str) -> String {
    let out = scribe()
        .args([
            "--to", "text", "--full", "--color", "never", "--width", "200",
        ])
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts that each of `words` is in `view`.
fn assert_shows(view: &str, words: &[&str]) {
    for w in words {
        assert!(view.contains(w), "{w:?} not in:\n{view}");
    }
}

/// The texts of the turns' parts, in record order.
fn turn_texts(recs: &[Value]) -> Vec<&str> {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        .filter_map(|p| p["text"].as_str())
        .collect()
}

/// Every tool call of the records.
fn calls(recs: &[Value]) -> Vec<&Value> {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        .filter(|p| p["type"] == "tool-call")
        .map(|p| &p["call"])
        .collect()
}

/// A rollout as the recorder of `codex-rs/core/src/rollout.rs` wrote it before the envelopes:
/// the session meta (`{id, timestamp, instructions, git}`), then bare response items and
/// `{record_type: "state"}` lines.
const BARE_ROLLOUT: &str = r#"{"id":"0198c3a1-0000-7000-8000-000000000001","timestamp":"2025-08-20T10:00:00.000Z","instructions":"Be brief.","git":{"commit_hash":"abc123","branch":"main"}}
{"record_type":"state"}
{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}]}
{"type":"message","role":"user","content":[{"type":"input_text","text":"List the files."}]}
{"record_type":"state"}
{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"**Listing the files**"}],"encrypted_content":"gAAAA"}
{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"call_ls"}
{"type":"function_call_output","call_id":"call_ls","output":"{\"output\":\"a.txt\\nb.txt\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Two files: a.txt and b.txt."}]}
{"record_type":"state","previous_response_id":"resp_1"}
"#;

#[test]
fn a_rollout_without_envelopes_is_read_as_a_rollout() {
    let (recs, stderr) = fold(BARE_ROLLOUT);
    assert_eq!(recs[0]["source"], "codex-rollout", "{stderr}");
    assert!(stderr.contains("0 in debug records"), "{stderr}");
    let session = recs.iter().find(|r| r["kind"] == "session").unwrap();
    assert_eq!(session["id"], "0198c3a1-0000-7000-8000-000000000001");
    assert_eq!(session["gitBranch"], "main");
    let prompt = recs
        .iter()
        .find(|r| r["kind"] == "turn" && r["origin"]["kind"] == "user-input")
        .expect("the typed prompt");
    assert_eq!(prompt["parts"][0]["text"], "List the files.");
    let shell = calls(&recs);
    assert_eq!(shell.len(), 1, "{recs:?}");
    assert_eq!(shell[0]["state"], "success");
    assert!(
        shell[0]["output"].to_string().contains("a.txt"),
        "{shell:?}"
    );
    let reasoning = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        .find(|p| p["type"] == "reasoning")
        .expect("the reasoning summary");
    assert_eq!(reasoning["text"], "**Listing the files**");
    let view = text(BARE_ROLLOUT);
    assert_shows(
        &view,
        &[
            "List the files.",
            "ls",
            "b.txt",
            "Two files: a.txt and b.txt.",
        ],
    );
}

/// A multi-agent (v2) run as Codex 0.145 writes it: the spawn call, the sub-agent's activity
/// (`SubAgentActivityEvent`: `event_id` the call, `agent_path`, `kind`), the thread's new name,
/// and the sub-agent's answer as an inter-agent `agent_message` response item after its
/// delivery metadata (`inter_agent_communication_metadata`).
const MULTI_AGENT: &str = r#"{"timestamp":"2026-07-20T19:08:00.000Z","type":"session_meta","payload":{"id":"019f80ed-0000-7000-8000-000000000002","timestamp":"2026-07-20T19:08:00.000Z","cwd":"/repo","originator":"codex-tui","cli_version":"0.145.0"}}
{"timestamp":"2026-07-20T19:08:01.000Z","type":"turn_context","payload":{"cwd":"/repo","approval_policy":"never","model":"gpt-5.5"}}
{"timestamp":"2026-07-20T19:08:02.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}
{"timestamp":"2026-07-20T19:08:03.000Z","type":"event_msg","payload":{"type":"user_message","message":"Review PR 39.","images":[]}}
{"timestamp":"2026-07-20T19:08:04.000Z","type":"event_msg","payload":{"type":"thread_name_updated","thread_id":"019f80ed-0000-7000-8000-000000000002","thread_name":"Review PR 39"}}
{"timestamp":"2026-07-20T19:08:45.444Z","type":"response_item","payload":{"type":"function_call","name":"spawn_agent","namespace":"collaboration","arguments":"{\"agent_type\":\"explorer\",\"message\":\"Review PR 39\",\"task_name\":\"review_pr39\"}","call_id":"call_spawn"}}
{"timestamp":"2026-07-20T19:08:45.639Z","type":"event_msg","payload":{"type":"sub_agent_activity","event_id":"call_spawn","occurred_at_ms":1784574525639,"agent_thread_id":"019f80ee-401e-78f1-919f-34033e956ba8","agent_path":"/root/review_pr39","kind":"started"}}
{"timestamp":"2026-07-20T19:08:45.808Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_spawn","output":"{\"task_name\":\"/root/review_pr39\"}"}}
{"timestamp":"2026-07-20T19:13:58.154Z","type":"inter_agent_communication_metadata","payload":{"trigger_turn":false}}
{"timestamp":"2026-07-20T19:13:58.154Z","type":"response_item","payload":{"type":"agent_message","id":"amsg_1","author":"/root/review_pr39","recipient":"/root","content":[{"type":"input_text","text":"Message Type: FINAL_ANSWER\nNo actionable findings for PR 39."}]}}
{"timestamp":"2026-07-20T19:14:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"The sub-agent found nothing to fix."}}
{"timestamp":"2026-07-20T19:14:01.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1"}}
"#;

#[test]
fn a_multi_agent_run_shows_its_sub_agents_activity_and_messages() {
    let (recs, stderr) = fold(MULTI_AGENT);
    assert!(stderr.contains("0 in debug records"), "{stderr}");
    let answer = recs
        .iter()
        .find(|r| r["kind"] == "turn" && r["origin"]["kind"] == "notification")
        .expect("the sub-agent's message, a notification turn");
    let said = answer["parts"][0]["text"].as_str().unwrap();
    assert!(said.contains("from /root/review_pr39 to /root"), "{said}");
    assert!(said.contains("No actionable findings for PR 39."), "{said}");
    let notices: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "notice")
        .map(|r| &r["notice"])
        .collect();
    let activity = notices
        .iter()
        .find(|n| n["source"] == "sub_agent_activity")
        .expect("the sub-agent activity notice");
    assert_eq!(activity["text"], "sub-agent /root/review_pr39 started");
    assert_eq!(activity["data"]["event_id"], "call_spawn");
    let named = notices
        .iter()
        .find(|n| n["source"] == "thread_name_updated")
        .expect("the thread name notice");
    assert_eq!(named["text"], "thread named \"Review PR 39\"");
    let view = text(MULTI_AGENT);
    assert_shows(
        &view,
        &[
            "No actionable findings for PR 39.",
            "sub-agent /root/review_pr39 started",
            "The sub-agent found nothing to fix.",
        ],
    );
}

/// A custom tool call whose input is a script (Codex's `exec` tool runs JavaScript that calls
/// other tools): no one-line summary can show it, so `--full` shows it whole in the terminal view
/// as it does in Markdown.
#[test]
fn a_custom_tool_calls_script_is_shown_whole_with_full() {
    let input = r#"{"timestamp":"2026-07-24T04:29:00.000Z","type":"session_meta","payload":{"id":"019f90aa-0000-7000-8000-000000000003","timestamp":"2026-07-24T04:29:00.000Z","cwd":"/repo","originator":"codex-tui","cli_version":"0.144.3"}}
{"timestamp":"2026-07-24T04:29:05.805Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_js","name":"exec","input":"const r = await tools.exec_command({\"cmd\":\"git status --short\"});\ntext(r.output);"}}
{"timestamp":"2026-07-24T04:29:07.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_js","output":"M src/main.rs"}}
"#;
    let view = text(input);
    assert_shows(
        &view,
        &[
            r#"const r = await tools.exec_command({"cmd":"git status --short"});"#,
            "text(r.output);",
        ],
    );
}

/// A call whose `arguments` are not JSON (here replaced by a redaction marker, as in logs people
/// share) keeps them as they are, shown in the views, instead of a shell call with no command.
#[test]
fn a_call_whose_arguments_are_not_json_keeps_them() {
    let input = r#"{"timestamp":"2026-02-23T12:54:34.000Z","type":"session_meta","payload":{"id":"019c8a59-0000-7000-8000-000000000004","timestamp":"2026-02-23T12:54:34.000Z","cwd":"/repo","originator":"codex_vscode","cli_version":"0.104.0-alpha.1"}}
{"timestamp":"2026-02-23T12:54:40.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"[REDACTED_ARGUMENTS len=116 sha=fc94c18d]","call_id":"call_r"}}
{"timestamp":"2026-02-23T12:54:41.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_r","output":"[REDACTED_OUTPUT len=30 sha=0a1b2c3d]"}}
"#;
    let (recs, stderr) = fold(input);
    assert!(stderr.contains("0 in debug records"), "{stderr}");
    let call = calls(&recs)[0];
    assert_eq!(
        call["input"], "[REDACTED_ARGUMENTS len=116 sha=fc94c18d]",
        "{call}"
    );
    assert!(text(input).contains("[REDACTED_ARGUMENTS len=116 sha=fc94c18d]"));
}

/// The same for an MCP call named `mcp__server__tool` with no namespace (as 0.104 writes them):
/// its server and tool are read from the name, and arguments that are not JSON are its input,
/// shown by `--full`.
#[test]
fn an_mcp_call_whose_arguments_are_not_json_shows_them_with_full() {
    let input = r#"{"timestamp":"2026-02-23T12:54:34.000Z","type":"session_meta","payload":{"id":"019c8a59-0000-7000-8000-000000000005","timestamp":"2026-02-23T12:54:34.000Z","cwd":"/repo","originator":"codex_vscode","cli_version":"0.104.0-alpha.1"}}
{"timestamp":"2026-02-23T12:54:40.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__ops__execute_sql","arguments":"[REDACTED_ARGUMENTS len=52 sha=9e8d7c6b]","call_id":"call_m"}}
{"timestamp":"2026-02-23T12:54:41.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_m","output":"[REDACTED_OUTPUT len=10 sha=0f0e0d0c]"}}
"#;
    let (recs, _) = fold(input);
    let call = calls(&recs)[0];
    assert_eq!(call["mcpServer"], "ops", "{call}");
    assert_eq!(call["kind"]["tool"], "execute_sql", "{call}");
    assert!(text(input).contains("[REDACTED_ARGUMENTS len=52 sha=9e8d7c6b]"));
}

/// A rollout whose context messages come before the first `task_started` and turn context, as
/// a redacted real one (external2 madshn/localpush, CLI 0.104) writes them: user-role messages
/// the harness context test does not know, developer messages, then the task and its prompt.
const CONTEXT_BEFORE_TASK: &str = r#"{"timestamp":"2026-02-23T11:40:29.275Z","type":"session_meta","payload":{"id":"019c8a4c-0000-7000-8000-000000000001","timestamp":"2026-02-23T11:40:23.298Z","cwd":"/repo","cli_version":"0.104.0"}}
{"timestamp":"2026-02-23T11:40:29.277Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"Sandbox rules."}]}}
{"timestamp":"2026-02-23T11:40:29.278Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"House rules, first part."}]}}
{"timestamp":"2026-02-23T11:40:29.278Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"House rules, second part."}]}}
{"timestamp":"2026-02-23T11:40:29.278Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"Collaboration mode."}]}}
{"timestamp":"2026-02-23T11:40:29.279Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1","model_context_window":258400}}
{"timestamp":"2026-02-23T11:40:29.279Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the failing test."}]}}
{"timestamp":"2026-02-23T11:40:29.279Z","type":"event_msg","payload":{"type":"user_message","message":"Fix the failing test.","images":[]}}
{"timestamp":"2026-02-23T11:40:29.280Z","type":"turn_context","payload":{"turn_id":"t1","cwd":"/repo","approval_policy":"never","model":"gpt-5.3-codex"}}
{"timestamp":"2026-02-23T11:40:31.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Fixed: the test expected the old name."}}
{"timestamp":"2026-02-23T11:40:31.001Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed: the test expected the old name."}]}}
{"timestamp":"2026-02-23T11:40:31.002Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":"Fixed: the test expected the old name."}}
"#;

#[test]
fn context_before_the_first_task_waits_for_the_header_and_ends_no_turn() {
    let (recs, stderr) = fold(CONTEXT_BEFORE_TASK);
    let kinds: Vec<&str> = recs.iter().filter_map(|r| r["kind"].as_str()).collect();
    assert_eq!(
        kinds.get(..2),
        Some(&["header", "session"][..]),
        "{recs:#?}"
    );
    assert_eq!(recs[1]["model"], "gpt-5.3-codex");
    // Only the task's own end is a result: the prompts before it answered nothing and no line
    // says how they ended.
    let results: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["kind"] == "result")
        .collect();
    assert_eq!(results.len(), 1, "{recs:#?}");
    assert_eq!(results[0]["notice"]["turns"], 1);
    // Every text in line order, the prompt once.
    let texts = turn_texts(&recs);
    assert_eq!(
        texts,
        [
            "Sandbox rules.",
            "House rules, first part.",
            "House rules, second part.",
            "Collaboration mode.",
            "Fix the failing test.",
            "Fixed: the test expected the old name."
        ],
        "{stderr}"
    );
}

/// A rollout whose session header waits for a turn context that comes only after thousands of
/// lines: the header is written without the model once a bounded number of events wait (so
/// memory does not grow with such a rollout), every message in line order, and the turn
/// context then writes the header again with the model.
#[test]
fn a_header_that_waits_too_long_goes_without_the_model() {
    let meta = r#"{"timestamp":"2026-02-23T11:40:29.275Z","type":"session_meta","payload":{"id":"019c8a4c-0000-7000-8000-000000000009","timestamp":"2026-02-23T11:40:23.298Z","cwd":"/repo","cli_version":"0.104.0"}}"#;
    let message = |i: usize| {
        format!(
            r#"{{"timestamp":"2026-02-23T11:40:29.278Z","type":"response_item","payload":{{"type":"message","role":"developer","content":[{{"type":"input_text","text":"Context {i}."}}]}}}}"#
        )
    };
    let turn = r#"{"timestamp":"2026-02-23T11:40:31.280Z","type":"turn_context","payload":{"turn_id":"t1","cwd":"/repo","approval_policy":"never","model":"gpt-5.3-codex"}}"#;
    let mut input = vec![meta.to_owned()];
    input.extend((0..3000).map(message));
    input.push(turn.to_owned());
    let (recs, _) = fold(&(input.join("\n") + "\n"));
    let sessions: Vec<(usize, &Value)> = recs
        .iter()
        .enumerate()
        .filter(|(_, r)| r["kind"] == "session")
        .collect();
    assert_eq!(sessions.len(), 2, "{:#?}", &recs[..3]);
    assert_eq!(sessions[0].0, 1, "the header first");
    assert!(sessions[0].1.get("model").is_none(), "{}", sessions[0].1);
    assert_eq!(sessions[1].1["model"], "gpt-5.3-codex");
    let texts = turn_texts(&recs);
    let expected: Vec<String> = (0..3000).map(|i| format!("Context {i}.")).collect();
    assert_eq!(texts, expected);
    // The second header comes after the messages held before it was written.
    assert!(sessions[1].0 > recs.len() / 2);
}
