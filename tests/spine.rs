//! The spine over hand-written samples: one test per §4 classification rule and per fold step.

use serde_json::{Value, json};

use crate::util::{json_lines, sample, scribe};

/// Folds a sample to JSONL and returns its records (header included).
fn fold(name: &str) -> Vec<Value> {
    let out = scribe()
        .args(["--to", "jsonl"])
        .arg(sample(&format!("claude-stream/{name}")))
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        out.stderr.is_empty(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
}

fn turns(recs: &[Value]) -> Vec<&Value> {
    recs.iter().filter(|r| r["kind"] == "turn").collect()
}

fn calls(turn: &Value) -> Vec<&Value> {
    turn["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "tool-call")
        .map(|p| &p["call"])
        .collect()
}

/// The single user turn of a classification sample: (origin, shown text, machinery).
fn only_user_turns(name: &str) -> Vec<(Value, String, Value)> {
    turns(&fold(name))
        .into_iter()
        .map(|t| {
            assert_eq!(t["role"], "user");
            (
                t["origin"].clone(),
                t["parts"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                t["metadata"]["machinery"].clone(),
            )
        })
        .collect()
}

fn synthetic(reason: &str) -> Value {
    serde_json::json!({"kind": "synthetic", "reason": reason})
}

/// A synthetic origin whose finer kind is not one of §14's reasons: §14's `reason`, scribe's
/// `detail` beside it.
fn detailed(reason: &str, detail: &str) -> Value {
    serde_json::json!({"kind": "synthetic", "reason": reason, "detail": detail})
}

// §4 row 1
#[test]
fn replayed_user_message_is_a_replay_turn() {
    let t = only_user_turns("classify-replay.jsonl");
    assert_eq!(t[0].0["kind"], "replay");
    assert_eq!(t[0].1, "Replay of what I asked earlier");
}

// §4 row 3
#[test]
fn flagged_synthetic_message_is_context_with_a_reason() {
    let t = only_user_turns("classify-synthetic.jsonl");
    assert_eq!(t[0].0, synthetic("skill-body"));
}

// §4 row 4, each machinery rule
#[test]
fn slash_command_records_in_either_tag_order() {
    let t = only_user_turns("classify-slash-command.jsonl");
    // With arguments the command carries the user's request: their turn (issue 15 point 3).
    assert_eq!(t[0].0["kind"], "user-input");
    assert_eq!(t[0].1, "/review src/");
    assert_eq!(t[0].2["args"], "src/");
    assert_eq!(t[1].0, synthetic("slash-command"));
    assert_eq!(t[1].1, "/model");
}

#[test]
fn local_command_output() {
    let t = only_user_turns("classify-local-command-output.jsonl");
    assert_eq!(t[0].0, detailed("slash-command", "local-command-output"));
    assert_eq!(t[0].1, "Set model to opus");
}

#[test]
fn both_interrupt_markers() {
    let t = only_user_turns("classify-interrupt.jsonl");
    assert_eq!(t[0].0, detailed("other", "interrupt"));
    assert_eq!(t[0].2["forToolUse"], false);
    assert_eq!(t[1].0, detailed("other", "interrupt"));
    assert_eq!(t[1].2["forToolUse"], true);
}

#[test]
fn bash_mode_input_and_output_with_exit_code() {
    let t = only_user_turns("classify-bash-mode.jsonl");
    assert_eq!(t[0].0, detailed("other", "bash-input"));
    assert_eq!(t[0].2["command"], "git status");
    assert_eq!(t[1].0, detailed("other", "bash-output"));
    assert_eq!(t[1].1, "On branch main");
    assert_eq!(t[1].2["exitCode"], 0);
}

#[test]
fn memory_input() {
    let t = only_user_turns("classify-memory-input.jsonl");
    assert_eq!(t[0].0, detailed("other", "memory-input"));
    assert_eq!(t[0].2["note"], "always run the tests");
}

#[test]
fn task_notification_becomes_a_readable_notification_turn() {
    let t = only_user_turns("classify-task-notification.jsonl");
    assert_eq!(t[0].0["kind"], "notification");
    assert_eq!(
        t[0].1,
        "Background command \"npm test\" completed (exit code 0)"
    );
    assert_eq!(t[0].2["taskId"], "b7x");
    assert_eq!(t[0].2["status"], "completed");
    assert!(!t[0].1.contains('<'), "markup left in {:?}", t[0].1);
}

#[test]
fn local_command_caveat() {
    let t = only_user_turns("classify-local-command-caveat.jsonl");
    assert_eq!(t[0].0, detailed("other", "local-command-caveat"));
    assert!(t[0].1.starts_with("The command below was run directly"));
}

#[test]
fn compaction_continuation() {
    let t = only_user_turns("classify-compact-continuation.jsonl");
    assert_eq!(t[0].0, detailed("other", "compact-summary"));
}

#[test]
fn reminder_and_hook_envelopes_are_stripped_from_real_text() {
    let t = only_user_turns("classify-envelopes.jsonl");
    assert_eq!(t[0].0["kind"], "user-input");
    assert_eq!(t[0].1, "Please fix the login bug.");
    assert_eq!(t[0].2["systemReminders"][0], "The user opened src/login.rs");
    assert_eq!(t[1].0, synthetic("hook-output"));
    assert_eq!(t[1].2["promptHooks"][0], "lint passed");
}

// §4 row 6
#[test]
fn plain_text_is_user_input() {
    let t = only_user_turns("classify-real-input.jsonl");
    assert_eq!(t[0].0["kind"], "user-input");
    assert_eq!(t[0].1, "Add a --verbose flag to the CLI.");
    // §10: a user turn is keyed by its message's uuid.
    let recs = fold("classify-real-input.jsonl");
    assert_eq!(turns(&recs)[0]["id"], "u-1");
}

// §14 step 1 and usage once per message
#[test]
fn frames_of_one_message_merge_into_one_turn() {
    let recs = fold("fold-merge-frames.jsonl");
    let t = turns(&recs);
    assert_eq!(
        t.len(),
        2,
        "two assistant messages, and the results-only envelope is no turn"
    );
    let types: Vec<&str> = t[0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["reasoning", "text", "tool-call"]);
    // The turn is the message: its id is the message's, its model the frames' model.
    assert_eq!(
        (&t[0]["id"], &t[1]["id"]),
        (&json!("msg_A"), &json!("msg_B"))
    );
    assert_eq!(t[0]["metadata"]["model"], "claude-sonnet-4-5");
    assert_eq!(
        t[0]["metadata"]["usage"]["inputTokens"], 100,
        "usage counted once, not three times"
    );
    assert_eq!(calls(t[0])[0]["sidecar"]["stdout"], "Cargo.toml\nsrc");
}

// §14 step 6 (§4 row 2)
#[test]
fn tool_results_merge_into_their_calls() {
    let recs = fold("fold-tool-results.jsonl");
    let t = turns(&recs);
    assert_eq!(t.len(), 2);
    let c = calls(t[0]);
    assert_eq!(c[0]["state"], "success");
    // §14 ToolCall: the call keeps its id, name and input.
    assert_eq!(c[0]["toolCallId"], "toolu_ok");
    assert_eq!(c[0]["name"], "Read");
    assert_eq!(c[0]["input"]["file_path"], "/home/dev/app/README.md");
    assert_eq!(c[0]["output"], "# App");
    assert_eq!(c[1]["state"], "error");
    assert_eq!(c[1]["errorText"], "Exit code 1");
    assert_eq!(
        c[2]["state"], "error",
        "a sidecar string starting with Error: means error"
    );
    assert_eq!(c[2]["errorText"], "Permission to write /etc/x was denied.");
}

// §14 steps 2–5 and §4 row 5
#[test]
fn subagent_turns_nest_under_their_agent_call_recursively() {
    let recs = fold("fold-subagent.jsonl");
    let t = turns(&recs);
    assert_eq!(t.len(), 2, "no sub-agent turn at the top level");
    assert!(t.iter().all(|t| t.get("parentTaskId").is_none()));
    // Every task event found its run on the Agent call: no run is left over as a notice.
    assert!(
        recs.iter().all(|r| r["notice"]["kind"] != "subagent"),
        "{recs:#?}"
    );
    let agent = calls(t[0])[0];
    let sub = &agent["subagent"];
    assert_eq!(sub["taskId"], "task-a");
    assert_eq!(sub["status"], "completed");
    assert_eq!(sub["usage"]["toolUses"], 2);
    assert_eq!(
        sub["summary"], "The repo has 12 Rust files.",
        "the task_notification's summary"
    );
    let inner = sub["transcript"].as_array().unwrap();
    assert_eq!(inner[0]["origin"]["kind"], "subagent-prompt");
    assert_eq!(inner[0]["origin"]["parentToolCallId"], "toolu_agent");
    let inner_agent = calls(&inner[1])[0];
    assert_eq!(inner_agent["name"], "Agent");
    let inner_sub = &inner_agent["subagent"];
    assert_eq!(inner_sub["progress"][0], "Running find . -name '*.rs'");
    let deepest = inner_sub["transcript"].as_array().unwrap();
    let find = calls(&deepest[1])[0];
    assert_eq!(find["name"], "Bash");
    assert_eq!(find["output"], "12");
    assert_eq!(deepest[1]["parentTaskId"], "toolu_inner_agent");
}

/// A sub-agent's sub-agent is drawn inside its parent's transcript, one level deeper, in every
/// view that draws sub-agent work: the inner prompt sits in more open `<details>` than the
/// outer one in HTML and Markdown, and is indented further in the full text view.
#[test]
fn a_nested_subagent_is_drawn_inside_its_parent_in_every_view() {
    let file = sample("claude-stream/fold-subagent.jsonl");
    let view = |args: &[&str]| {
        let out = scribe().args(args).arg(&file).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let (outer, inner) = ("Count the Rust files.", "Run find.");
    for to in ["html", "md"] {
        let page = view(&["--to", to]);
        let depth = |needle: &str| {
            let before = &page[..page
                .rfind(needle)
                .unwrap_or_else(|| panic!("{to}: {needle}"))];
            before.matches("<details").count() - before.matches("</details>").count()
        };
        assert!(depth(inner) > depth(outer), "--to {to}: {page}");
    }
    let text = view(&["--to", "text", "--full", "--color", "never"]);
    let indent = |needle: &str| {
        let line = text.lines().find(|l| l.contains(needle)).expect(needle);
        line.len() - line.trim_start().len()
    };
    assert!(indent(inner) > indent(outer), "{text}");
}

// §14 step 7 and the skill mechanics of §6
#[test]
fn skill_call_gets_its_name_and_body() {
    let recs = fold("fold-skill.jsonl");
    let t = turns(&recs);
    assert_eq!(t.len(), 2, "the skill body is not a turn of its own");
    let skill = &calls(t[0])[0]["skill"];
    assert_eq!(skill["skillName"], "release");
    assert!(skill["body"].as_str().unwrap().contains("Bump the version"));
}

#[test]
fn mcp_and_server_tools_get_their_callers() {
    let recs = fold("fold-mcp-and-server-tools.jsonl");
    let t = turns(&recs);
    let mcp = calls(t[0])[0];
    assert_eq!(mcp["caller"], "mcp");
    assert_eq!(mcp["mcpServer"], "docs");
    assert_eq!(
        t.len(),
        2,
        "server tool results are blocks of the same message"
    );
    let c = calls(t[1]);
    assert_eq!(c[0]["caller"], "server-tool");
    assert_eq!(c[0]["state"], "success");
    assert_eq!(c[0]["output"][0]["url"], "https://example.com/a");
    assert_eq!(c[1]["caller"], "mcp");
    assert_eq!(c[1]["mcpServer"], "remote-kb");
    assert_eq!(c[1]["state"], "error");
}

#[test]
fn thinking_redacted_thinking_and_images() {
    let recs = fold("fold-thinking-and-images.jsonl");
    let t = turns(&recs);
    assert_eq!(t[0]["parts"][0]["type"], "reasoning");
    assert_eq!(t[0]["parts"][0]["signature"], "c2ln");
    assert_eq!(t[0]["parts"][1]["redacted"], true);
    let img = &calls(t[0])[0]["output"][0];
    assert_eq!(img["type"], "file");
    assert_eq!(img["url"], "data:image/png;base64,iVBORw0KGgo=");
    assert_eq!(t[1]["parts"][1]["type"], "file");
    assert_eq!(t[1]["parts"][1]["mediaType"], "image/jpeg");
}

// §14 step 8 (notices) and step 1 (session refresh)
#[test]
fn session_is_refreshed_only_when_it_changes_and_notices_keep_their_order() {
    let recs = fold("fold-session-and-notices.jsonl");
    let sessions: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "session").collect();
    assert_eq!(sessions.len(), 2, "an identical init is not repeated");
    assert_eq!(sessions[1]["model"], "claude-opus-4-1");
    assert_eq!(sessions[0]["mcpServers"][0]["status"], "connected");
    let kinds: Vec<&str> = recs
        .iter()
        .filter(|r| r["kind"] == "notice")
        .map(|r| r["notice"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            // A hook's start and its end are one fact: the end, in the end's place.
            "hook",
            "api-retry",
            "rate-limit",
            "status",
            "compact",
            // The denial is on its call (below), said once: no separate notice.
            "result"
        ]
    );
    let hook = &recs.iter().find(|r| r["notice"]["kind"] == "hook").unwrap()["notice"];
    assert_eq!(hook["hookName"], "SessionStart:startup");
    assert_eq!(hook["event"], "SessionStart");
    assert_eq!(hook["status"], "response");
    assert_eq!(hook["outcome"], "success");
    assert_eq!(hook["output"], "ready\n");
    assert_eq!(hook["exitCode"], 0);
    let notice = |kind: &str| &recs.iter().find(|r| r["notice"]["kind"] == kind).unwrap()["notice"];
    let limit = notice("rate-limit");
    assert_eq!(limit["status"], "allowed_warning");
    assert_eq!(
        limit["info"]["utilization"], 0.9,
        "rate_limit_info kept whole"
    );
    let retry = notice("api-retry");
    assert_eq!(
        (&retry["attempt"], &retry["max"], &retry["delayMs"]),
        (&json!(1), &json!(10), &json!(500))
    );
    assert_eq!(retry["error"], "overloaded");
    assert_eq!(notice("status")["status"], "compacting");
    assert_eq!(notice("compact")["metadata"]["pre_tokens"], 150000);
    assert_eq!(sessions[0]["skills"], json!(["release"]));
    let t = turns(&recs);
    assert_eq!(
        calls(t[0])[0]["denied"],
        "Writing /etc/hosts needs approval."
    );
    let result = recs
        .iter()
        .find(|r| r["notice"]["kind"] == "result")
        .unwrap();
    assert_eq!(result["notice"]["cost"], 0.0123);
    assert_eq!(result["notice"]["turns"], 2);
    assert_eq!(
        result["notice"]["permissionDenials"][0]["tool_use_id"],
        "toolu_w"
    );
}

// §14 step 9
#[test]
fn partial_deltas_never_duplicate_the_final_text() {
    let recs = fold("fold-partial-messages.jsonl");
    let t = turns(&recs);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["parts"].as_array().unwrap().len(), 1);
    assert_eq!(t[0]["parts"][0]["text"], "Hello, world.");
    assert_eq!(
        t[0]["metadata"]["usage"]["outputTokens"], 7,
        "final usage from message_delta"
    );
    assert_eq!(t[0]["metadata"]["stopReason"], "end_turn");
}

#[test]
fn deltas_of_a_cut_off_message_are_kept() {
    let recs = fold("fold-partial-truncated.jsonl");
    let t = turns(&recs);
    assert_eq!(t[0]["parts"][0]["text"], "Partial answer");
}

#[test]
fn unknown_kinds_are_debug_records_and_nothing_is_lost() {
    let recs = fold("fold-unknown-and-control.jsonl");
    // An unknown message type is a debug record; an unknown `system` subtype is still a
    // system message: an `info` notice naming it, its payload kept.
    let debug: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "debug").collect();
    assert_eq!(debug.len(), 1);
    assert_eq!(debug[0]["line"], 5);
    assert!(debug[0]["raw"].as_str().unwrap().contains("hologram"));
    let unknown = recs
        .iter()
        .find(|r| r["notice"]["source"] == "brand_new_subtype")
        .expect("the unknown subtype's notice");
    assert_eq!(unknown["notice"]["data"]["hello"], 1);
    let t = turns(&recs);
    assert_eq!(
        t[0]["parts"][0]["type"], "data",
        "an unknown block is kept as data"
    );
    assert_eq!(t[0]["parts"][0]["data"]["payload"], 42);
    let notices: Vec<&str> = recs
        .iter()
        .filter(|r| r["kind"] == "notice")
        .map(|r| r["notice"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(notices, ["info", "info", "task", "info"]);
}

#[test]
fn events_output_carries_line_numbers() {
    let out = scribe()
        .args(["--to", "events"])
        .arg(sample("claude-stream/fold-unknown-and-control.jsonl"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let evs = json_lines(&out);
    assert_eq!(evs[0]["event"], "header");
    assert_eq!(evs[1]["event"], "absorbed");
    assert_eq!(evs[1]["line"], 1);
    assert_eq!(evs[1]["what"], "keep_alive");
    let last = evs.last().unwrap();
    assert_eq!(last["event"], "conversation-reset");
    assert_eq!(last["line"], 9);
}
