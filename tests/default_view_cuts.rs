//! The default text view draws some calls from what they did rather than from what the tool
//! said (a read as its line count, an edit as its diff, a todo list as its checklist, a
//! sub-agent as its last calls); where it leaves the tool's words out, one dim line says that
//! `--full` shows them.

use serde_json::{Value, json};

use crate::util::stdout_of;

/// A Claude stream: a read, an edit and a todo list with their replies, and a sub-agent that
/// made one call and wrote a report.
fn stream() -> String {
    let asst = |id: &str, parent: Value, content: Value| json!({"type":"assistant","message":{"id":id,"type":"message","role":"assistant","model":"m","content":content,"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":parent,"session_id":"s1","uuid":format!("{id}-u")});
    let result = |call: &str, parent: Value, text: &str| json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":call,"content":text,"is_error":false}]},"parent_tool_use_id":parent,"session_id":"s1","uuid":format!("r-{call}")});
    let none = Value::Null;
    let sub = json!("toolu_agent");
    let rows = [
        json!({"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Read","Edit","TodoWrite","Agent","Grep"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i-1"}),
        json!({"type":"user","message":{"role":"user","content":"Fix it."},"parent_tool_use_id":null,"session_id":"s1","uuid":"u-1"}),
        asst(
            "m1",
            none.clone(),
            json!([{"type":"tool_use","id":"toolu_read","name":"Read","input":{"file_path":"/w/a.py"}}]),
        ),
        result("toolu_read", none.clone(), "     1\tone\n     2\ttwo\n"),
        asst(
            "m2",
            none.clone(),
            json!([{"type":"tool_use","id":"toolu_edit","name":"Edit","input":{"file_path":"/w/a.py","old_string":"one","new_string":"uno"}}]),
        ),
        result(
            "toolu_edit",
            none.clone(),
            "The file /w/a.py has been updated.",
        ),
        asst(
            "m3",
            none.clone(),
            json!([{"type":"tool_use","id":"toolu_todo","name":"TodoWrite","input":{"todos":[{"content":"Fix a.py","status":"completed","activeForm":"Fixing a.py"}]}}]),
        ),
        result(
            "toolu_todo",
            none.clone(),
            "Todos have been modified successfully.",
        ),
        asst(
            "m4",
            none.clone(),
            json!([{"type":"tool_use","id":"toolu_agent","name":"Agent","input":{"description":"Look","subagent_type":"Explore","prompt":"Find the tests."}}]),
        ),
        json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"Find the tests."}]},"parent_tool_use_id":"toolu_agent","session_id":"s1","uuid":"sp"}),
        asst(
            "s1",
            sub.clone(),
            json!([{"type":"tool_use","id":"toolu_grep","name":"Grep","input":{"pattern":"def test","path":"/w"}}]),
        ),
        result("toolu_grep", sub.clone(), "/w/test_a.py"),
        asst(
            "s2",
            sub.clone(),
            json!([{"type":"text","text":"Found the tests in test_a.py."}]),
        ),
        result("toolu_agent", none.clone(), "One test file."),
        json!({"type":"assistant","message":{"id":"m5","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s1","uuid":"m5-u"}),
    ];
    rows.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn the_default_text_view_says_where_it_leaves_a_tool_s_words_out() {
    let input = stream();
    let text = stdout_of(
        &["--to", "text", "--color", "never", "--width", "200"],
        input.clone(),
    );
    for said in [
        "Read 2 lines … --full shows them",
        "… +1 line of reply (--full shows it)",
        "… its transcript, 3 turns (--full shows it)",
    ] {
        assert!(text.contains(said), "{said:?} not in\n{text}");
    }
    // The edit's and the todo list's replies: one note each.
    assert_eq!(text.matches("of reply (--full shows").count(), 2, "{text}");
    for hidden in [
        "The file /w/a.py has been updated.",
        "Todos have been modified successfully.",
        "/w/test_a.py",
    ] {
        assert!(!text.contains(hidden), "{hidden:?} in\n{text}");
    }
    let full = stdout_of(
        &[
            "--to", "text", "--full", "--color", "never", "--width", "200",
        ],
        input,
    );
    for shown in [
        "The file /w/a.py has been updated.",
        "Todos have been modified successfully.",
        "/w/test_a.py",
        "Found the tests in test_a.py.",
        "2    two",
    ] {
        assert!(full.contains(shown), "{shown:?} not in\n{full}");
    }
    assert!(!full.contains("--full shows"), "{full}");
}
