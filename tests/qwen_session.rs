//! Qwen Code saved chats (`qwen-session`): detected on their own (never as a Claude saved
//! session, whose rows share the `uuid`/`parentUuid`/`sessionId` keys) and read fully.

use serde_json::Value;

use crate::util::{run_jsonl as run, sample};

fn turns<'a>(recs: &'a [Value], role: &str) -> Vec<&'a Value> {
    recs.iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == role)
        .collect()
}

#[test]
fn a_qwen_saved_chat_is_not_taken_for_a_claude_session() {
    let (recs, stderr) = run(&sample("qwen-session.jsonl"), &[]);
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(recs[0]["source"], "qwen-session");
    assert!(recs.iter().all(|r| r["kind"] != "debug"));
    assert!(
        recs.iter()
            .filter(|r| r["kind"] == "session")
            .all(|s| s["agent"] == "qwen-code")
    );
    // The same file forced through --from gives the same records.
    let (forced, _) = run(&sample("qwen-session.jsonl"), &["--from", "qwen-session"]);
    assert_eq!(forced, recs);
}

#[test]
fn a_qwen_saved_chat_is_read_fully() {
    let (recs, _) = run(&sample("qwen-session.jsonl"), &[]);
    let prompts: Vec<_> = turns(&recs, "user")
        .iter()
        .filter(|t| t["origin"]["kind"] == "user-input")
        .map(|t| t["parts"][0]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        prompts,
        [
            "List the files and tell me what the app does.",
            "Thanks, that's all."
        ]
    );
    let assistant = turns(&recs, "assistant");
    let parts: Vec<&Value> = assistant
        .iter()
        .flat_map(|t| t["parts"].as_array().unwrap())
        .collect();
    // The thought is reasoning, never merged into the visible answer.
    assert_eq!(parts[0]["type"], "reasoning");
    assert_eq!(parts[1]["text"], "Let me look.");
    let calls: Vec<&Value> = parts
        .iter()
        .filter(|p| p["type"] == "tool-call")
        .map(|p| &p["call"])
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["toolCallId"], "call_ls_1");
    assert_eq!(calls[0]["state"], "success");
    assert!(calls[0]["output"].as_str().unwrap().contains("README.md"));
    assert_eq!(calls[1]["state"], "error");
    assert_eq!(
        calls[1]["errorText"],
        "File not found: /home/dev/app/MISSING.md"
    );
    assert_eq!(assistant[0]["metadata"]["model"], "qwen3-coder-plus");
    assert_eq!(
        assistant[0]["metadata"]["usage"]["cacheReadInputTokens"],
        800
    );
    assert!(
        recs.iter()
            .any(|r| r["kind"] == "notice" && r["notice"]["kind"] == "compact")
    );
}

/// The first rows of a chat (its `session_source` record, the prompt) name no model; the first
/// answer does. One header is written, naming the model, before the prompt: not one without a
/// model and a second one a line later.
#[test]
fn a_qwen_saved_chat_has_one_header_that_names_its_model() {
    let (recs, _) = run(&sample("qwen-session.jsonl"), &[]);
    let sessions: Vec<&Value> = recs.iter().filter(|r| r["kind"] == "session").collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["model"], "qwen3-coder-plus");
    assert_eq!(
        recs[1]["kind"], "session",
        "the header comes before the first turn"
    );
}
