//! The design's conformance repro inputs (`tests/repro/`, copied from
//! `../shared/design/conformance-repro/`): each runs through the real binary and gives what the
//! rows of docs/conformance.md that it shows ask for.

use serde_json::Value;

use crate::util::{root, run_jsonl, scribe};

/// The folded records of one repro input.
fn records(name: &str) -> Vec<Value> {
    run_jsonl(&root().join("tests/repro").join(name), &[]).0
}

/// A repro input rendered in a human-readable format.
fn rendered(name: &str, to: &str, extra: &[&str]) -> String {
    let out = scribe()
        .args(["--to", to, "--width", "200"])
        .args(extra)
        .arg(root().join("tests/repro").join(name))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

fn turn<'a>(recs: &'a [Value], id: &str) -> &'a Value {
    recs.iter()
        .find(|r| r["kind"] == "turn" && r["id"] == id)
        .unwrap_or_else(|| panic!("no turn {id}"))
}

/// Every tool call anywhere in the records (sub-agent transcripts included), by id.
fn call(recs: &[Value], id: &str) -> Value {
    fn walk(v: &Value, id: &str) -> Option<Value> {
        match v {
            Value::Object(o) => {
                if o.get("toolCallId").and_then(Value::as_str) == Some(id)
                    && o.contains_key("state")
                {
                    return Some(v.clone());
                }
                o.values().find_map(|x| walk(x, id))
            }
            Value::Array(a) => a.iter().find_map(|x| walk(x, id)),
            _ => None,
        }
    }
    recs.iter()
        .find_map(|r| walk(r, id))
        .unwrap_or_else(|| panic!("no call {id}"))
}

fn notices<'a>(recs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    recs.iter()
        .filter(|r| r["kind"] == "notice" && r["notice"]["kind"] == kind)
        .map(|r| &r["notice"])
        .collect()
}

fn debug_reasons(recs: &[Value]) -> Vec<String> {
    recs.iter()
        .filter(|r| r["kind"] == "debug")
        .map(|r| r["reason"].as_str().unwrap().to_owned())
        .collect()
}

/// t1: prompts that name or quote machinery are the person's prompts, whole — including one that
/// begins with the interrupt marker's words and goes on with a question.
#[test]
fn repro_t1_prompts_that_quote_machinery_are_prompts() {
    let recs = records("t1.jsonl");
    for id in ["u1", "u2", "u3", "u4"] {
        assert_eq!(turn(&recs, id)["origin"]["kind"], "user-input", "{id}");
    }
    assert_eq!(
        turn(&recs, "u3")["parts"][0]["text"],
        "[Request interrupted by user] happens when I press ESC - why?"
    );
    assert_eq!(
        turn(&recs, "u1")["parts"][0]["text"],
        "Why does my parser choke on <bash-input> tags in the log?"
    );
    assert_eq!(turn(&recs, "u4")["parts"][0]["text"], "real question");
    // …and the question is shown by default.
    let text = rendered("t1.jsonl", "text", &[]);
    assert!(text.contains("happens when I press ESC - why?"), "{text}");
}

/// untested: each piece of CLI machinery gets its own origin; a legacy `<command-contents>`
/// record keeps its text; Stop hook feedback is hook output.
#[test]
fn repro_untested_machinery_kinds_and_legacy_records() {
    let recs = records("untested.jsonl");
    assert_eq!(turn(&recs, "u1")["origin"]["kind"], "notification");
    assert_eq!(
        turn(&recs, "u1")["parts"][0]["text"],
        "A background task finished: build ok"
    );
    let u2 = turn(&recs, "u2");
    assert_eq!(u2["parts"][0]["text"], "/old-style cmd");
    assert_eq!(u2["metadata"]["machinery"]["command"], "/old-style");
    let reason = |id: &str| turn(&recs, id)["origin"]["reason"].clone();
    let detail = |id: &str| turn(&recs, id)["origin"]["detail"].clone();
    assert_eq!(
        (reason("u3"), detail("u3")),
        ("other".into(), "local-command-caveat".into())
    );
    assert_eq!(
        (reason("u4"), detail("u4")),
        ("slash-command".into(), "local-command-output".into())
    );
    assert_eq!(turn(&recs, "u4")["metadata"]["machinery"]["stderr"], "oops");
    assert_eq!(reason("u5"), "hook-output");
    assert_eq!(reason("u6"), "slash-command");
    // The legacy command shows as typed, not as a bare "/".
    let text = rendered("untested.jsonl", "text", &[]);
    assert!(text.contains("/old-style cmd"), "{text}");
}

/// notices: §14's notice shapes, citations as {url, title, quote}, a tool_use's `caller`.
#[test]
fn repro_notices_citations_and_caller_have_the_design_shapes() {
    let recs = records("notices.jsonl");
    assert_eq!(
        notices(&recs, "session-state")[0]["state"],
        "requires-action"
    );
    assert_eq!(notices(&recs, "rate-limit").len(), 1);
    let fp = notices(&recs, "files-persisted")[0];
    assert_eq!(fp["files"], serde_json::json!(["a"]));
    assert_eq!(fp["failed"][0]["error"], "nope");
    // status.permissionMode reaches the session snapshot.
    assert!(
        recs.iter()
            .any(|r| r["kind"] == "session" && r["permissionMode"] == "plan")
    );
    let a = turn(&recs, "msg_1");
    let c = &a["parts"][0]["citations"][0];
    assert_eq!(c["url"], "https://x.test/a");
    assert_eq!(c["title"], "A");
    assert_eq!(c["quote"], "quoted bit");
    assert_eq!(c["encrypted_index"], "zz", "the rest is kept");
    let p = call(&recs, "toolu_P");
    assert_eq!(p["calledBy"]["type"], "code_execution_20250825");
    assert_eq!(p["calledBy"]["tool_id"], "srvtoolu_1");
    assert_eq!(p["state"], "success");
    // The HTML page lists the citation with its source and quote.
    let html = rendered("notices.jsonl", "html", &[]);
    assert!(html.contains("https://x.test/a") && html.contains("quoted bit"));
}

/// misc (Qwen daemon): an envelope with `v ≠ 1` and malformed or unknown payloads are debug
/// records and the run goes on; an image chunk is a file part; a model switch updates the
/// session; an injected message is a user turn; a rewind is said.
#[test]
fn repro_misc_qwen_envelopes_and_payloads() {
    let recs = records("misc.jsonl");
    let reasons = debug_reasons(&recs);
    assert_eq!(
        reasons,
        [
            "unsupported envelope version 2",
            "unknown session_update kind \"brand_new_kind\"",
            "malformed session_update (no sessionUpdate)",
        ]
    );
    assert!(
        !recs
            .iter()
            .any(|r| r["kind"] == "turn" && r["parts"][0]["text"] == "v2"),
        "a v2 envelope is not folded"
    );
    // The rewind to turn 0 moves every turn after it into a rewound branch: they are looked
    // for there as well as on the main line.
    let mut recs = recs;
    let branched: Vec<Value> = recs
        .iter()
        .filter(|r| r["notice"]["kind"] == "branch")
        .flat_map(|r| r["notice"]["turns"].as_array().cloned().unwrap_or_default())
        .map(|mut t| {
            t["kind"] = "turn".into();
            t
        })
        .collect();
    recs.extend(branched);
    let img = recs
        .iter()
        .find(|r| r["kind"] == "turn" && r["parts"][0]["type"] == "file")
        .expect("image chunk → file part");
    assert_eq!(img["parts"][0]["url"], "data:image/png;base64,AAAA");
    assert!(
        recs.iter()
            .any(|r| r["kind"] == "session" && r["model"] == "qwen3-coder")
    );
    assert!(
        recs.iter()
            .any(|r| r["kind"] == "turn" && r["parts"][0]["text"] == "also do X")
    );
    assert_eq!(
        recs.iter()
            .filter(|r| r["notice"]["source"] == "session_rewound")
            .count(),
        1
    );
}

/// dup: a replayed interrupt result does not undo a call that already succeeded.
#[test]
fn repro_dup_replayed_result_keeps_the_first() {
    let recs = records("dup.jsonl");
    assert_eq!(call(&recs, "toolu_1")["state"], "success");
    assert_eq!(call(&recs, "toolu_1")["output"], "a.txt");
    assert_eq!(call(&recs, "toolu_2")["state"], "success");
}

/// freeze: a sub-agent that finished stays finished: later progress and a late "running"
/// update do not reopen it.
#[test]
fn repro_freeze_finished_subagent_stays_finished() {
    let recs = records("freeze.jsonl");
    let a = call(&recs, "toolu_A");
    assert_eq!(a["state"], "success");
    assert_eq!(a["subagent"]["status"], "completed");
    let progress = a["subagent"]["progress"].to_string();
    assert!(!progress.contains("LATE progress"), "{progress}");
}

/// par: parallel sub-agents are told apart by their Agent call; nested ones nest; each gets its
/// own status.
#[test]
fn repro_par_parallel_subagents_nest_and_keep_their_status() {
    let recs = records("par.jsonl");
    let a = call(&recs, "toolu_A");
    let b = call(&recs, "toolu_B");
    assert_eq!(a["subagent"]["status"], "completed");
    assert_eq!(b["subagent"]["status"], "failed");
    let a_text = a["subagent"]["transcript"].to_string();
    let b_text = b["subagent"]["transcript"].to_string();
    assert!(a_text.contains("toolu_A1") && !a_text.contains("toolu_B1"));
    assert!(b_text.contains("toolu_B1") && !b_text.contains("toolu_A1"));
    // Three levels down: B → B1 → B2 → B3.
    let b1 = call(&recs, "toolu_B1");
    let b2 = call(&recs, "toolu_B2");
    assert!(
        b1["subagent"]["transcript"]
            .to_string()
            .contains("toolu_B2")
    );
    assert!(
        b2["subagent"]["transcript"]
            .to_string()
            .contains("toolu_B3")
    );
    assert_eq!(call(&recs, "toolu_B3")["output"], "x body");
}

/// prec: replay beats everything; an interrupt marker beside a tool result is an interrupt; text
/// beside a result is a tool-return turn.
#[test]
fn repro_prec_row_priorities() {
    let recs = records("prec.jsonl");
    // A replayed error result does not undo the success.
    assert_eq!(call(&recs, "toolu_1")["state"], "success");
    let u2 = turn(&recs, "u2");
    assert_eq!(u2["origin"]["reason"], "other");
    assert_eq!(u2["origin"]["detail"], "interrupt");
    let u3 = turn(&recs, "u3");
    assert_eq!(u3["origin"]["kind"], "tool-return");
    assert_eq!(u3["origin"]["toolCallId"], "toolu_8");
    assert_eq!(u3["parts"][0]["text"], "and also please check foo");
    // The replayed system reminder is machinery, not a person's words.
    assert_ne!(turn(&recs, "r1")["origin"]["kind"], "user-input");
}

/// perm (Qwen): a late permission answer does not reopen a finished call.
#[test]
fn repro_perm_late_permission_answer_keeps_the_result() {
    let recs = records("perm.jsonl");
    assert_eq!(call(&recs, "c1")["state"], "success");
    assert_eq!(call(&recs, "c1")["output"], "a.txt");
    assert_eq!(call(&recs, "c2")["state"], "success");
}

/// pend (Qwen): calls the input leaves unanswered keep the state they were last in (one waiting
/// for approval, one announced and not started): nothing ends them, no error or daemon status
/// is made up; the permission request stays on its call, one notice says where the input
/// ended, and the text and Markdown views word the two states apart.
#[test]
fn repro_pend_unanswered_calls_are_not_done() {
    let recs = records("pend.jsonl");
    let c1 = call(&recs, "c1");
    let c2 = call(&recs, "c2");
    assert_eq!(c1["state"], "approval-pending");
    assert_eq!(c2["state"], "pending");
    for c in [&c1, &c2] {
        assert!(c.get("errorText").is_none(), "{c}");
        assert!(c.get("output").is_none(), "{c}");
        assert_eq!(c["sidecar"]["status"], "pending", "the daemon's last word");
    }
    assert_eq!(c1["sidecar"]["permission"]["requestId"], "r1");
    let incomplete: Vec<&Value> = recs
        .iter()
        .filter(|r| r["notice"]["source"] == "incomplete")
        .collect();
    assert_eq!(incomplete.len(), 1);
    assert_eq!(
        incomplete[0]["notice"]["text"],
        "incomplete: the input ends while 2 tool calls are open (1 waiting for approval, 1 not \
         started)"
    );
    let text = rendered("pend.jsonl", "text", &[]);
    assert!(text.contains("(waiting for approval)"), "{text}");
    assert!(text.contains("(not started, no result)"), "{text}");
    let md = rendered("pend.jsonl", "md", &[]);
    assert!(
        md.contains("run_shell_command(ls) · waiting for approval</summary>"),
        "{md}"
    );
    assert!(
        md.contains("run_shell_command(rm x) · not started, no result</summary>"),
        "{md}"
    );
}

/// run-agent: a sub-agent still running when the input ends shows what it did so far, in the
/// text view (default and --full), Markdown and HTML.
#[test]
fn repro_run_agent_running_subagent_shows_its_work() {
    let recs = records("run-agent.jsonl");
    let a = call(&recs, "toolu_A");
    assert_eq!(a["subagent"]["status"], "running");
    assert!(
        a["subagent"]["transcript"]
            .to_string()
            .contains("a second user msg")
    );
    let full = rendered("run-agent.jsonl", "text", &["--full"]);
    assert!(full.contains("a second user msg in the subtask"), "{full}");
    let text = rendered("run-agent.jsonl", "text", &[]);
    assert!(text.contains("running"), "{text}");
    assert!(text.contains("no result yet"), "{text}");
    assert!(rendered("run-agent.jsonl", "md", &[]).contains("a second user msg in the subtask"));
    assert!(rendered("run-agent.jsonl", "html", &[]).contains("a second user msg in the subtask"));
}

/// child-first (Qwen): a child call that arrives before its parent Task still lands inside it.
#[test]
fn repro_child_first_lands_under_its_parent() {
    let recs = records("child-first.jsonl");
    let task = call(&recs, "task-1");
    assert!(
        task["subagent"]["transcript"]
            .to_string()
            .contains("grep-1")
    );
    assert_eq!(task["output"], "LGTM");
}

/// multi: a slash command followed by the person's question, and output quoted in the middle of
/// a prompt: both are the person's input, nothing of their words lost.
#[test]
fn repro_multi_question_after_machinery_is_kept() {
    let recs = records("multi.jsonl");
    let u1 = turn(&recs, "u1");
    assert_eq!(u1["origin"]["kind"], "user-input");
    assert!(
        u1["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("failing test in parser.rs")
    );
    let u2 = turn(&recs, "u2");
    assert_eq!(u2["origin"]["kind"], "user-input");
    let t = u2["parts"][0]["text"].as_str().unwrap();
    assert!(
        t.contains("Look at this output") && t.contains("why did it fail?"),
        "{t}"
    );
}

/// gap (Qwen): ids that jump without a resync are a missed range, said in every format.
#[test]
fn repro_gap_in_ids_is_a_missed_range_everywhere() {
    let recs = records("gap.jsonl");
    let m = notices(&recs, "missed-events");
    assert_eq!(m.len(), 1);
    assert_eq!(
        (m[0]["from"].as_u64(), m[0]["to"].as_u64()),
        (Some(3), Some(8))
    );
    assert!(rendered("gap.jsonl", "text", &[]).contains("missed events 3–8"));
    assert!(rendered("gap.jsonl", "md", &[]).contains("missed events 3–8"));
    assert!(
        rendered("gap.jsonl", "html", &[])
            .to_lowercase()
            .contains("events missed 3–8")
    );
}

/// ooo (Qwen): an update that arrives before its call (ids out of order) is folded in id
/// order: the call keeps its name, input and result.
#[test]
fn repro_ooo_update_before_call_is_folded_in_id_order() {
    let recs = records("ooo.jsonl");
    let c = call(&recs, "c1");
    assert_eq!(c["name"], "run_shell_command");
    assert_eq!(c["input"]["command"], "ls");
    assert_eq!(c["state"], "success");
    assert_eq!(c["output"], "a.txt");
}

/// order (Qwen): every event of the input is kept, once (the message's two chunks in one turn,
/// the budget warning as a notice). Where the notice goes relative to the message that began
/// before it is docs/conformance.md row Q5, still open.
#[test]
fn repro_order_keeps_every_event_once() {
    let recs = records("order.jsonl");
    let texts: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == "assistant")
        .collect();
    assert_eq!(texts.len(), 1);
    assert_eq!(texts[0]["parts"][0]["text"], "Part one. Part two.");
    assert_eq!(
        recs.iter()
            .filter(|r| r["notice"]["source"] == "mcp_budget_warning")
            .count(),
        1
    );
    assert!(debug_reasons(&recs).is_empty());
}

/// qwen-daemon-paths: each Qwen daemon event path with no capture that asserts it (rows Q12,
/// Q23, Q26, Q28, Q29, Q32, Q36, Q42, Q61).
#[test]
fn repro_qwen_daemon_paths() {
    let recs = records("qwen-daemon-paths.jsonl");
    assert!(debug_reasons(&recs).is_empty(), "{recs:#?}");
    // Q26: a thought chunk is the reasoning part of the model's turn.
    let first = turn(&recs, "msg-2");
    assert_eq!(first["parts"][0]["type"], "reasoning");
    assert_eq!(first["parts"][0]["text"], "I should run ls.");
    // Q28: shell output goes to the running call (as it streams), its result ends it.
    let events = scribe()
        .args(["--to", "events"])
        .arg(root().join("tests/repro/qwen-daemon-paths.jsonl"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let events = crate::util::json_lines(&events);
    assert!(events.iter().any(|e| e["event"] == "tool-update"
        && e["toolCallId"] == "c1"
        && e["output"] == "a.txt\n"));
    assert_eq!(call(&recs, "c1")["output"], "a.txt");
    // Q12: a sub-agent's progress ping is its progress, not its output.
    let ag = call(&recs, "ag");
    assert_eq!(
        ag["subagent"]["progress"],
        serde_json::json!(["Reading README"])
    );
    assert_eq!(ag["output"], "report");
    // Q32: permission_already_resolved answers the request like permission_resolved.
    let c2 = call(&recs, "c2");
    assert_eq!(c2["state"], "approval-denied");
    // Q36: the session's title.
    assert!(
        recs.iter()
            .any(|r| r["kind"] == "session" && r["title"] == "Listing files")
    );
    // Q23, Q29: the user's own shell command and its output are their turns.
    let cmd = recs
        .iter()
        .find(|r| r["origin"]["detail"] == "bash-input")
        .unwrap();
    assert_eq!(cmd["parts"][0]["text"], "$ pwd");
    let out = recs
        .iter()
        .find(|r| r["origin"]["detail"] == "bash-output")
        .unwrap();
    assert_eq!(out["metadata"]["machinery"]["stdout"], "/w\n");
    assert_eq!(out["metadata"]["machinery"]["exitCode"], 0);
    // Q42: a chunk flagged promptCancelled cancels the prompt: the call in flight ends.
    let c3 = call(&recs, "c3");
    assert_eq!(c3["state"], "error");
    assert!(c3["errorText"].as_str().unwrap().contains("cancelled"));
    assert_eq!(
        recs.iter()
            .filter(|r| r["notice"]["source"] == "prompt_cancelled")
            .count(),
        1
    );
    // Q61: a background turn's text is a notice, kept.
    let bg = recs
        .iter()
        .find(|r| r["notice"]["source"] == "background_task_completed")
        .unwrap();
    assert_eq!(bg["notice"]["text"], "Background agent finished.");
}

/// Q55 (Qwen): updates after a call's terminal status change nothing: not its state, output or
/// sidecar (a late permission answer in perm, a late tool_call_update here).
#[test]
fn repro_qwen_late_update_is_ignored() {
    let recs = records("qwen-late-update.jsonl");
    let c = call(&recs, "c1");
    assert_eq!(c["state"], "success");
    assert_eq!(c["output"], "a.txt");
    assert_eq!(c["sidecar"]["title"], "ls");
    assert_eq!(c["sidecar"]["status"], "completed");
    assert!(!recs.iter().any(|r| r.to_string().contains("LATE")));
    let perm = records("perm.jsonl");
    let c1 = call(&perm, "c1");
    assert_eq!(c1["sidecar"]["title"], "ls");
    assert_eq!(c1["sidecar"]["status"], "completed");
}
