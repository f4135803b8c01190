//! Claude Code message content across CLI versions (issue 15): slash commands, local commands,
//! rejected tools, background tasks and results, each on a sample built from real lines, in
//! every output.

use serde_json::Value;

use crate::util::{json_lines, sample, scribe};

/// A `samples/claude-stream/` file rendered with `args`; exit 0 required.
fn render(name: &str, args: &[&str]) -> String {
    let out = scribe()
        .args(args)
        .arg(sample(&format!("claude-stream/{name}")))
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The sample's folded records.
fn records(name: &str) -> Vec<Value> {
    json_lines(render(name, &["--to", "jsonl"]).as_bytes())
}

/// The user turns' (origin kind, first text).
fn user_turns(recs: &[Value]) -> Vec<(String, String)> {
    recs.iter()
        .filter(|r| r["kind"] == "turn" && r["role"] == "user")
        .map(|t| {
            (
                t["origin"]["kind"].as_str().unwrap_or_default().to_owned(),
                t["parts"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

// Point 3: `/orchestrator create TODO app by Next.js` (1.0.98) and `/init` (1.0.17 writes it
// without the slash) are the user's prompt; `/clear` stays a quiet command line; a prompt that
// quotes `<bash-input>` is a prompt (point 2).
#[test]
fn slash_commands_with_a_request_are_prompts_in_every_output() {
    let name = "classify-slash-command-request.jsonl";
    let users = user_turns(&records(name));
    assert_eq!(
        users[0],
        (
            "user-input".into(),
            "/orchestrator create TODO app by Next.js".into()
        )
    );
    assert_eq!(users[1].0, "synthetic", "the expanded body is context");
    assert_eq!(users[2], ("user-input".into(), "/init".into()));
    assert_eq!(users[3], ("synthetic".into(), "/clear".into()));
    assert_eq!(users[5].0, "user-input");
    let text = render(name, &["--to", "text"]);
    assert!(
        text.contains("> /orchestrator create TODO app by Next.js"),
        "{text}"
    );
    assert!(text.contains("> /init"), "{text}");
    assert!(!text.contains("> /clear"), "{text}");
    assert!(text.contains("> why does the log show <bash-input>ls</bash-input> twice?"));
    assert!(
        !text.contains("Split complex tasks"),
        "the body is context: {text}"
    );
    let with_context = render(name, &["--to", "text", "--context"]);
    assert!(
        with_context.contains("Split complex tasks"),
        "{with_context}"
    );
    let md = render(name, &["--to", "md"]);
    assert!(
        md.contains("> **User**\n>\n> /orchestrator create TODO app by Next.js"),
        "{md}"
    );
    assert!(md.contains("> **User**\n>\n> /init"), "{md}");
    let html = render(name, &["--to", "html"]);
    assert!(
        html.contains("<span class=\"who\">User</span></header><div class=\"plain\">/orchestrator create TODO app by Next.js</div>"),
        "{html}"
    );
}
