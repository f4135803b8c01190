//! Fields and rules of the design that no test held (breaking the code that keeps them left
//! every named test passing), each on a small stream built from the design's shapes
//! (`claude-code-adapter-notes.md` §2–§4, §9, §14; the API's content blocks for the `document`
//! and `web_fetch_tool_result_error` blocks; `../shared/spec/claude-code-wire.md` for
//! `task_updated`, which §9 names without its fields; ACP's image content block for Qwen).

use serde_json::{Value, json};

use crate::claude_classify::{call, call_of, records, stream, user, user_turns};
use crate::util::{json_lines, run};

/// A main-thread assistant message (`msg_2`) holding `blocks`.
fn assistant(blocks: Value) -> Value {
    json!({"type":"assistant","session_id":"s1","parent_tool_use_id":null,"uuid":"a2",
        "message":{"id":"msg_2","role":"assistant","model":"m","content":blocks}})
}

/// A `system` line of `subtype` with `fields`.
fn system(subtype: &str, fields: Value) -> Value {
    let mut v = json!({"type":"system","subtype":subtype,"session_id":"s1"});
    if let (Some(o), Some(f)) = (v.as_object_mut(), fields.as_object()) {
        o.extend(f.clone());
    }
    v
}

/// An Agent call (`toolu_ag`) whose input names the run "Survey", then `lines`, then the call's
/// result.
fn agent_run(lines: &[Value]) -> Vec<Value> {
    let mut all = vec![call_of(
        "toolu_ag",
        "Agent",
        json!({"description":"Survey","prompt":"Count the files","subagent_type":"general-purpose"}),
    )];
    all.extend_from_slice(lines);
    all.push(user(
        "u9",
        json!([{"type":"tool_result","tool_use_id":"toolu_ag","content":"3 files"}]),
        json!({}),
    ));
    all
}

/// §4's rows in their order: row 2 (the message carries a `tool_result`) comes before row 3
/// (`isSynthetic`). A flagged message that returns a result is that call's result, merged into
/// it, not harness context hidden behind a toggle.
#[test]
fn a_flagged_message_carrying_a_tool_result_is_that_calls_result() {
    let recs = records(&stream(&[
        call_of("toolu_1", "Bash", json!({"command":"ls"})),
        user(
            "u1",
            json!([{"type":"tool_result","tool_use_id":"toolu_1","content":"file.txt"}]),
            json!({"isSynthetic": true}),
        ),
    ]));
    let c = call(&recs, "toolu_1");
    assert_eq!(c["state"], "success", "{c}");
    assert_eq!(c["output"], "file.txt");
    assert!(user_turns(&recs).is_empty(), "no turn of its own: {recs:?}");
}

/// §14 Part `file {mediaType, url, filename?}`: a user-side `document` block's `title` is the
/// part's file name.
#[test]
fn a_documents_title_is_its_file_parts_filename() {
    let recs = records(&stream(&[user(
        "u1",
        json!([{"type":"text","text":"Read this"},
            {"type":"document","title":"report.pdf",
             "source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]),
        json!({}),
    )]));
    let file = &user_turns(&recs)[0]["parts"][1];
    assert_eq!(file["type"], "file", "{file}");
    assert_eq!(file["mediaType"], "application/pdf");
    assert_eq!(file["filename"], "report.pdf");
}

/// §3: a server tool's result block whose content is an `…_error` object ends the call as an
/// error with the error's code; a `server_tool_use` block's own `caller?` (a call made from the
/// code-execution tool) is kept as the call's `calledBy`, as a `tool_use` block's is.
#[test]
fn a_server_tools_error_result_ends_its_call_in_an_error() {
    let caller = json!({"type":"code_execution_20250825","tool_id":"srvtoolu_0"});
    let recs = records(&stream(&[assistant(json!([
        {"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch",
         "input":{"url":"https://example.com/gone"},"caller":caller},
        {"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1",
         "content":{"type":"web_fetch_tool_result_error","error_code":"url_not_accessible"}}
    ]))]));
    let c = call(&recs, "srvtoolu_1");
    assert_eq!(c["caller"], "server-tool");
    assert_eq!(c["state"], "error", "{c}");
    assert_eq!(c["errorText"], "url_not_accessible");
    assert_eq!(c["calledBy"], caller);
}

/// §5 and §14 ingest step 2: `task_started`'s description is the run's label, even where the
/// Agent call's own input names it otherwise.
#[test]
fn task_starteds_description_labels_the_run() {
    let recs = records(&stream(&agent_run(&[system(
        "task_started",
        json!({"task_id":"t1","tool_use_id":"toolu_ag","description":"Survey the repository"}),
    )])));
    let rec = &call(&recs, "toolu_ag")["subagent"];
    assert_eq!(rec["description"], "Survey the repository", "{rec}");
}

/// §14 ingest step 4: the notification freezes the record. A `task_updated` saying `running`
/// after it (§9 names the kind; its `patch` is in the wire spec) does not reopen the run, and a
/// late `task_progress` is not added to its progress.
#[test]
fn a_finished_runs_record_stays_frozen() {
    let recs = records(&stream(&agent_run(&[
        system(
            "task_started",
            json!({"task_id":"t1","tool_use_id":"toolu_ag","description":"Survey"}),
        ),
        system(
            "task_notification",
            json!({"task_id":"t1","tool_use_id":"toolu_ag","status":"completed",
                "output_file":"","summary":"done"}),
        ),
        system(
            "task_updated",
            json!({"task_id":"t1","patch":{"status":"running"}}),
        ),
        system(
            "task_progress",
            json!({"task_id":"t1","tool_use_id":"toolu_ag","description":"Running ls",
                "usage":{"total_tokens":10,"tool_uses":1,"duration_ms":5}}),
        ),
    ])));
    let rec = &call(&recs, "toolu_ag")["subagent"];
    assert_eq!(rec["status"], "completed", "{rec}");
    assert_eq!(rec["progress"], json!([]), "{rec}");
}

/// `task_updated`'s `patch.error` (the wire spec's shape) and the notification's `summary` are
/// two facts: the error is kept beside the summary in the record and in every view.
#[test]
fn a_patched_error_stays_beside_the_notifications_summary() {
    let input = stream(&agent_run(&[
        system(
            "task_started",
            json!({"task_id":"t1","tool_use_id":"toolu_ag","description":"Survey"}),
        ),
        system(
            "task_updated",
            json!({"task_id":"t1","patch":{"status":"failed","error":"disk full"}}),
        ),
        system(
            "task_notification",
            json!({"task_id":"t1","tool_use_id":"toolu_ag","status":"completed",
                "output_file":"","summary":"done"}),
        ),
    ]));
    let recs = records(&input);
    let rec = &call(&recs, "toolu_ag")["subagent"];
    assert_eq!(rec["error"], "disk full", "{rec}");
    assert_eq!(rec["summary"], "done", "{rec}");
    for format in ["text", "md", "html"] {
        let out = run(&input, &["--to", format, "--color", "never"]);
        assert!(out.contains("disk full"), "{format}:\n{out}");
        assert!(out.contains("done"), "{format}:\n{out}");
    }
}

/// Qwen's `user.image.delta`: a user chunk holding an ACP image block is a `file` part of the
/// person's turn, of the image's own type (not the default's).
#[test]
fn a_qwen_users_image_keeps_its_type() {
    let lines = [
        json!({"id":1,"v":1,"type":"session_update","data":{"update":{
            "sessionUpdate":"user_message_chunk",
            "content":{"type":"text","text":"What is in this photo?"}}}}),
        json!({"id":2,"v":1,"type":"session_update","data":{"update":{
            "sessionUpdate":"user_message_chunk",
            "content":{"type":"image","mimeType":"image/jpeg","data":"/9j/4AAQ"}}}}),
    ];
    let input: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    let recs = json_lines(run(&input, &["--to", "jsonl"]).as_bytes());
    let file = &user_turns(&recs)[0]["parts"][1];
    assert_eq!(file["mediaType"], "image/jpeg", "{file}");
    assert_eq!(file["url"], "data:image/jpeg;base64,/9j/4AAQ");
}

/// §2 `auth_status {isAuthenticating, output[], error?}`: the error's words reach the reader in
/// every view, after the output lines, on an error notice.
#[test]
fn an_auth_statuss_error_reaches_every_view() {
    let input = json!({"type":"auth_status","isAuthenticating":false,
        "output":["Opening browser"],"error":"token expired","uuid":"n1","session_id":"s1"})
    .to_string()
        + "\n";
    let recs = json_lines(run(&input, &["--to", "jsonl"]).as_bytes());
    let n = &recs
        .iter()
        .find(|r| r["kind"] == "notice")
        .expect("a notice")["notice"];
    assert_eq!(n["level"], "error", "{n}");
    assert_eq!(n["text"], "Opening browser\ntoken expired");
    for format in ["text", "md", "html"] {
        let out = run(&input, &["--to", format]);
        assert!(out.contains("token expired"), "{format}: {out}");
    }
}

/// §14's `ServerToolCard`: a tool the API ran (`server_tool_use`, with its
/// `web_search_tool_result`; the API's content blocks) is marked as the server's in the three
/// views, as MCP calls are marked as theirs; a client's call beside it is not.
#[test]
fn a_server_tool_call_is_marked_as_the_servers_in_every_view() {
    let input = stream(&[
        assistant(json!([
            {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search",
             "input":{"query":"rust streaming json"}},
            {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[
                {"type":"web_search_result","url":"https://example.com/a","title":"A",
                 "encrypted_content":"x","page_age":null}]},
            {"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}
        ])),
        user(
            "u1",
            json!([{"type":"tool_result","tool_use_id":"toolu_1","content":"file.txt"}]),
            json!({}),
        ),
    ]);
    let text = run(&input, &["--to", "text", "--color", "never"]);
    assert!(
        text.contains("⏺ web_search(rust streaming json) · server tool"),
        "{text}"
    );
    assert!(text.contains("⏺ Bash(ls)\n"), "{text}");
    let md = run(&input, &["--to", "md"]);
    assert!(
        md.contains("web_search(rust streaming json) · server tool"),
        "{md}"
    );
    assert!(!md.contains("Bash(ls) · server tool"), "{md}");
    let page = run(&input, &["--to", "html"]);
    assert_eq!(
        page.matches("<span class=\"badge server\">server tool</span>")
            .count(),
        1
    );
}
