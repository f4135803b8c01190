//! Claude Code user messages classified by §4's rows in their order, IDE context split off a
//! prompt, and §14's ingest of a sub-agent run and a Skill ack, each on a small stream built
//! from the design's shapes (`claude-code-adapter-notes.md` §4–§6, §14) and the words.

use serde_json::{Value, json};

use crate::util::{json_lines, run};

/// A stream's `system/init` line, then `lines`, as the input text.
pub(crate) fn stream(lines: &[Value]) -> String {
    let init = json!({"type":"system","subtype":"init","session_id":"s1","cwd":"/w",
        "tools":["Agent","Skill"],"mcp_servers":[],"model":"m","permissionMode":"default",
        "slash_commands":[],"uuid":"i1"});
    std::iter::once(&init)
        .chain(lines)
        .map(|l| l.to_string() + "\n")
        .collect()
}

/// A main-thread user message with `content` (a string or blocks) and extra envelope fields.
pub(crate) fn user(uuid: &str, content: Value, extra: Value) -> Value {
    let mut v = json!({"type":"user","session_id":"s1","parent_tool_use_id":null,"uuid":uuid,
        "timestamp":"2026-01-19T03:15:09.400Z","message":{"role":"user","content":content}});
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    v
}

/// A main-thread assistant message (`msg_1`) whose one block is a call of `tool` (`id`).
pub(crate) fn call_of(id: &str, tool: &str, input: Value) -> Value {
    json!({"type":"assistant","session_id":"s1","parent_tool_use_id":null,"uuid":"a1",
        "message":{"id":"msg_1","role":"assistant","model":"m",
        "content":[{"type":"tool_use","id":id,"name":tool,"input":input}]}})
}

/// The folded records of `input`.
pub(crate) fn records(input: &str) -> Vec<Value> {
    json_lines(run(input, &["--to", "jsonl"]).as_bytes())
}

/// The user turns of the records.
pub(crate) fn user_turns(recs: &[Value]) -> Vec<&Value> {
    recs.iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == "user")
        .collect()
}

/// The tool call `id` among the records' turns.
pub(crate) fn call<'a>(recs: &'a [Value], id: &str) -> &'a Value {
    recs.iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        .map(|p| &p["call"])
        .find(|c| c["toolCallId"] == id)
        .unwrap_or_else(|| panic!("no call {id}"))
}

const OPENED: &str = "<ide_opened_file>The user opened the file /home/me/proj/src/main.rs in the \
                      IDE. This may or may not be related to the current task.</ide_opened_file>";
const SELECTED: &str = "<ide_selection>The user selected the lines 3 to 4 from \
                        /home/me/proj/src/lib.rs:\nfn a() {}\n\nThis may or may not be related \
                        to the current task.</ide_selection>";

/// The IDE's context before a prompt (its own text block, or the same text) is context: a turn
/// of its own, hidden unless asked for; the prompt is what was typed, in every output, and the
/// page's title is the typed words, never a tag or the path it names.
#[test]
fn ide_context_is_split_off_the_typed_prompt() {
    let blocks = json!([{"type":"text","text":OPENED},{"type":"text","text":SELECTED},
        {"type":"text","text":"rename the function"}]);
    let input = stream(&[user("u1", blocks, json!({}))]);
    let recs = records(&input);
    let users = user_turns(&recs);
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[0]["origin"]["kind"], "synthetic");
    assert_eq!(users[0]["origin"]["detail"], "ide-context");
    let ctx = &users[0]["metadata"]["machinery"]["ideContext"];
    assert_eq!(ctx[0]["tag"], "ide_opened_file");
    assert_eq!(ctx[1]["tag"], "ide_selection");
    assert!(ctx[1]["text"].as_str().unwrap().contains("fn a() {}"));
    assert_eq!(users[1]["origin"]["kind"], "user-input");
    assert_eq!(users[1]["parts"][0]["text"], "rename the function");
    assert_eq!(users[1]["id"], "u1");

    let text = run(&input, &[]);
    assert!(text.contains("> rename the function"), "{text}");
    assert!(
        !text.contains("ide_opened_file") && !text.contains("main.rs"),
        "{text}"
    );
    let with_context = run(&input, &["--context"]);
    assert!(with_context.contains("ide-context"), "{with_context}");
    assert!(with_context.contains("main.rs"), "{with_context}");
    let md = run(&input, &["--to", "md"]);
    assert!(
        !md.contains("ide_opened_file") && !md.contains("main.rs"),
        "{md}"
    );
    let html = run(&input, &["--to", "html"]);
    assert!(
        html.contains("prompt: rename the function"),
        "page map: {html}"
    );
    assert!(!html.contains("prompt: &lt;ide") && !html.contains("prompt: The user opened"));

    // One string with the tag and the prompt: the same split. A message that is nothing but
    // the IDE's context is context only, no empty prompt.
    let one = format!("{OPENED}\nfix the bug");
    let recs = records(&stream(&[
        user("u2", json!(one), json!({})),
        user("u3", json!(OPENED), json!({})),
    ]));
    let users = user_turns(&recs);
    let texts: Vec<&str> = users
        .iter()
        .map(|t| t["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(users.len(), 3, "{texts:?}");
    assert_eq!(texts[1], "fix the bug");
    assert_eq!(users[2]["origin"]["detail"], "ide-context");
}

/// Row 1 first: a replayed reminder, command record or notification is a replay (what it would
/// have been kept beside it), and a replayed prompt the input already holds is not shown twice.
#[test]
fn a_replay_is_a_replay_whatever_it_carries_and_is_shown_once() {
    let replay = json!({"isReplay": true});
    let flagged_replay = json!({"isReplay": true, "isSynthetic": true});
    let input = stream(&[
        user(
            "r1",
            json!([{"type":"text","text":"<system-reminder>replayed ctx</system-reminder>"}]),
            flagged_replay,
        ),
        user(
            "r2",
            json!("<command-name>/review</command-name><command-message>review</command-message>"),
            replay.clone(),
        ),
        user(
            "r3",
            json!(
                "<task-notification><task-id>t9</task-id><status>completed</status><summary>Backup done</summary></task-notification>"
            ),
            replay.clone(),
        ),
        user("p1", json!("What does main do?"), json!({})),
        user("p1", json!("What does main do?"), replay.clone()),
        user("p2", json!("And lib?"), replay),
    ]);
    let recs = records(&input);
    let users = user_turns(&recs);
    let kinds: Vec<&str> = users
        .iter()
        .map(|t| t["origin"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["replay", "replay", "replay", "user-input", "replay"],
        "{users:?}"
    );
    let was = |i: usize| &users[i]["metadata"]["machinery"]["replayOf"];
    assert_eq!(was(0)["reason"], "system-reminder");
    assert_eq!(was(1)["reason"], "slash-command");
    assert_eq!(was(2)["kind"], "notification");
    assert_eq!(users[4]["parts"][0]["text"], "And lib?");
    let text = run(&input, &[]);
    assert_eq!(text.matches("What does main do?").count(), 1, "{text}");
}

/// Row 3: on a flagged message a command tag counts only where a slash-command record puts it,
/// at the start; a flagged message right after a command record is its expansion, under §14's
/// `slash-command`, hidden like other context.
#[test]
fn flagged_messages_count_a_command_only_at_the_start_and_expansions_are_slash_command() {
    let meta = json!({"isSynthetic": true});
    let input = stream(&[
        user(
            "m1",
            json!("Notes for the model: run <command-name>/deploy</command-name> when done."),
            meta.clone(),
        ),
        user(
            "c1",
            json!("<command-message>plan</command-message>\n<command-name>/plan</command-name>"),
            json!({}),
        ),
        user(
            "e1",
            json!([{"type":"text","text":"# Create a plan\n\nWrite the plan to plan.md."}]),
            meta.clone(),
        ),
        user(
            "f1",
            json!("<command-name>/model</command-name><command-args>opus</command-args>"),
            meta,
        ),
    ]);
    let recs = records(&input);
    let users = user_turns(&recs);
    let by_id = |id: &str| *users.iter().find(|t| t["id"] == id).unwrap();
    assert_eq!(by_id("m1")["origin"]["reason"], "other");
    assert_eq!(by_id("e1")["origin"]["reason"], "slash-command");
    assert_eq!(by_id("e1")["origin"]["detail"], "command-expansion");
    let f1 = by_id("f1");
    assert_eq!(f1["origin"]["reason"], "slash-command");
    assert_eq!(f1["metadata"]["machinery"]["command"], "/model");
    let text = run(&input, &[]);
    assert!(
        !text.contains("Write the plan"),
        "an expansion is context: {text}"
    );
}

/// §14 ingest step 2 on the design's own `task_started` (task id, call id, description; no
/// agent type): the Agent call gets its sub-agent record though the sub-agent sent nothing.
#[test]
fn task_started_without_an_agent_type_opens_the_agent_calls_record() {
    let input = stream(&[
        call_of(
            "toolu_A",
            "Agent",
            json!({"description":"Check widgets","prompt":"look"}),
        ),
        json!({"type":"system","subtype":"task_started","session_id":"s1","uuid":"t1",
            "task_id":"task1","tool_use_id":"toolu_A","description":"Check widgets folder contents"}),
        json!({"type":"system","subtype":"task_notification","session_id":"s1","uuid":"t2",
            "task_id":"task1","tool_use_id":"toolu_A","status":"completed","summary":"done"}),
        user(
            "u1",
            json!([{"type":"tool_result","tool_use_id":"toolu_A","content":"widgets ok"}]),
            json!({}),
        ),
    ]);
    let recs = records(&input);
    let sub = &call(&recs, "toolu_A")["subagent"];
    assert_eq!(sub["taskId"], "task1", "{recs:?}");
    assert_eq!(sub["description"], "Check widgets folder contents");
    assert_eq!(sub["status"], "completed");
    assert!(
        !recs.iter().any(|r| r["notice"]["kind"] == "task"),
        "{recs:?}"
    );
}

/// §6: the Skill ack's `tool_use_result.success: false` ends the Skill call in an error.
#[test]
fn a_skill_ack_that_says_it_failed_ends_the_call_in_an_error() {
    let input = stream(&[
        call_of("toolu_S", "Skill", json!({"skill":"widgets"})),
        user(
            "u1",
            json!([{"type":"tool_result","tool_use_id":"toolu_S","content":"Launching skill: widgets"}]),
            json!({"tool_use_result":{"success":false,"commandName":"widgets"}}),
        ),
    ]);
    let recs = records(&input);
    assert_eq!(call(&recs, "toolu_S")["state"], "error", "{recs:?}");
}

/// §14 `SessionSnapshot.updatedAt` on a stream: `init` carries no time, its messages do. The
/// snapshot takes the first message's time and is still written first, before the hook lines
/// that came between; a stream whose messages have no time leaves it out.
#[test]
fn a_streams_snapshot_takes_its_time_from_the_first_timed_message() {
    let hook = json!({"type":"system","subtype":"hook_started","session_id":"s1","uuid":"h1",
        "hook_id":"k1","hook_name":"SessionStart:startup","hook_event":"SessionStart"});
    let answer = |ts: Option<&str>| {
        let mut v = json!({"type":"assistant","session_id":"s1","parent_tool_use_id":null,
            "uuid":"a1","message":{"id":"msg_1","role":"assistant","model":"m",
            "content":[{"type":"text","text":"Hello."}]}});
        if let Some(t) = ts {
            v["timestamp"] = json!(t);
        }
        v
    };
    let recs = records(&stream(&[
        hook.clone(),
        answer(Some("2026-11-30T08:16:25.108Z")),
    ]));
    let kinds: Vec<&str> = recs.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds[1], "session", "{kinds:?}");
    assert_eq!(recs[1]["updatedAt"], "2026-11-30T08:16:25.108Z");
    assert!(kinds.contains(&"turn"), "{kinds:?}");
    let recs = records(&stream(&[hook, answer(None)]));
    assert_eq!(recs[1]["kind"], "session");
    assert!(recs[1].get("updatedAt").is_none(), "{}", recs[1]);
}

/// §4 "On isSynthetic": in a saved session the flag is `isMeta || isVisibleInTranscriptOnly`.
/// Plain words under either flag are synthetic context (no tag in them to classify by); the
/// same words unflagged are the person's prompt.
#[test]
fn a_saved_sessions_is_meta_or_visible_in_transcript_only_is_the_synthetic_flag() {
    let row = |uuid: &str, parent: Value, text: &str, flag: Option<&str>| {
        let mut v = json!({"parentUuid":parent,"isSidechain":false,"type":"user","uuid":uuid,
            "message":{"role":"user","content":text},"timestamp":"2026-01-02T09:10:00.000Z",
            "sessionId":"5e55a0e1-0000-4000-8000-000000000009","cwd":"/w","version":"2.1.0",
            "userType":"external"});
        if let Some(f) = flag {
            v[f] = json!(true);
        }
        v.to_string() + "\n"
    };
    let input = [
        row("c1", Value::Null, "a plain prompt", None),
        row(
            "c2",
            json!("c1"),
            "shown in the transcript only",
            Some("isVisibleInTranscriptOnly"),
        ),
        row("c3", json!("c2"), "meta words", Some("isMeta")),
    ]
    .concat();
    let recs = records(&input);
    assert_eq!(recs[0]["source"], "claude-session", "{recs:?}");
    let origins: Vec<&Value> = user_turns(&recs)
        .iter()
        .map(|t| &t["origin"]["kind"])
        .collect();
    assert_eq!(
        origins,
        ["user-input", "synthetic", "synthetic"],
        "{recs:?}"
    );
}

/// §14 ingest 4: `task_notification` flips the record's status to the word it states,
/// `stopped` as well as `completed` and `failed`.
#[test]
fn a_stopped_task_notification_stops_the_agent_calls_record() {
    let task = |subtype: &str, extra: Value| {
        let mut v = json!({"type":"system","subtype":subtype,"task_id":"t1","tool_use_id":"toolu_A",
            "description":"look around","session_id":"s1","uuid":subtype});
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        v
    };
    let input = stream(&[
        call_of(
            "toolu_A",
            "Agent",
            json!({"description":"look around","prompt":"look"}),
        ),
        task("task_started", json!({})),
        task(
            "task_notification",
            json!({"status":"stopped","output_file":"/tmp/t1","summary":"stopped by the user"}),
        ),
    ]);
    let recs = records(&input);
    assert_eq!(
        call(&recs, "toolu_A")["subagent"]["status"],
        "stopped",
        "{recs:?}"
    );
}
