//! Claude Code message content across CLI versions (issue 15): slash commands, local commands,
//! rejected tools, background tasks and results, each on a sample built from real lines, in
//! every output.

use serde_json::Value;

use crate::util::{json_lines, sample, scribe, thousands};

/// A `samples/claude-stream/` file (or `dir/file` under `samples/`) rendered with `args`; exit 0
/// required.
pub(crate) fn render(name: &str, args: &[&str]) -> String {
    let path = if name.contains('/') {
        sample(name)
    } else {
        sample(&format!("claude-stream/{name}"))
    };
    let out = scribe()
        .args(args)
        .arg(path)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The sample's folded records.
pub(crate) fn records(name: &str) -> Vec<Value> {
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

/// Every tool call's (id, state) in a sample's JSONL.
fn call_states(name: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for r in records(name) {
        for p in r["parts"].as_array().into_iter().flatten() {
            if p["type"] == "tool-call" {
                let c = &p["call"];
                out.push((
                    c["toolCallId"].as_str().unwrap_or_default().to_owned(),
                    c["state"].as_str().unwrap_or_default().to_owned(),
                ));
            }
        }
    }
    out
}

// Point 7: 1.0.17 rejections (an is_error result "The user doesn't want to proceed…", and "…to
// take this action right now" for the call beside it) are denials, said once in every view.
#[test]
fn rejected_tools_are_denials_printed_once() {
    let name = "claude-session/rejected-tools.jsonl";
    let states: Vec<String> = call_states(name).into_iter().map(|(_, s)| s).collect();
    assert_eq!(states, ["success", "approval-denied", "approval-denied"]);
    for to in ["text", "md", "html"] {
        let out = render(name, &["--to", to]);
        for phrase in [
            "want to proceed with this tool use",
            "want to take this action",
        ] {
            assert_eq!(
                out.matches(phrase).count(),
                1,
                "--to {to}, {phrase}:\n{out}"
            );
        }
        assert!(!out.contains("Error: The user"), "--to {to}:\n{out}");
    }
}

// Point 8: a replayed result never moves a finished call backwards (success stays success).
#[test]
fn a_replayed_error_result_does_not_undo_a_success() {
    let name = "fold-replayed-result.jsonl";
    let states: Vec<String> = call_states(name).into_iter().map(|(_, s)| s).collect();
    assert_eq!(states, ["success", "success"]);
    let text = render(name, &["--to", "text"]);
    assert!(!text.contains("Error"), "{text}");
}

// Point 8: a replayed result (`isReplay`) whose call was already written with its first result
// (a saved session: the turn is final before the replay row) is said to be a replayed result for
// that call, never "a call that is not in the input", in every output; its output stays visible.
#[test]
fn a_replayed_result_after_its_call_was_written_is_a_second_result() {
    let name = "claude-session/replayed-result.jsonl";
    let states: Vec<String> = call_states(name).into_iter().map(|(_, s)| s).collect();
    assert_eq!(states, ["success"]);
    for to in ["text", "md", "html"] {
        let out = render(name, &["--to", to]);
        // Markdown escapes the id's underscore.
        let id = if to == "md" { "toolu\\_q1" } else { "toolu_q1" };
        // HTML writes notices as sentences (capitalised).
        assert!(
            out.to_lowercase().contains(&format!(
                "a replayed result for the finished call {id} (line 4)"
            )),
            "--to {to}:\n{out}"
        );
        assert!(
            out.contains("Request interrupted by user for tool use"),
            "--to {to}:\n{out}"
        );
        assert!(!out.contains("not in the input"), "--to {to}:\n{out}");
    }
    let jsonl = render(name, &["--to", "jsonl"]);
    assert!(
        jsonl.contains("Request interrupted by user for tool use"),
        "{jsonl}"
    );
}

// Point 10: claude-code-action's trimmed `result` (no `subtype`, no `is_error`) is not a failure.
#[test]
fn a_result_without_subtype_or_is_error_is_not_a_failure() {
    let name = "result-without-subtype.jsonl";
    let result = records(name)
        .into_iter()
        .find(|r| r["notice"]["kind"] == "result")
        .expect("a result notice");
    assert_eq!(result["notice"]["isError"], false, "{result}");
    for to in ["text", "md", "html"] {
        let out = render(name, &["--to", to]);
        assert!(!out.contains('✗'), "--to {to}:\n{out}");
        assert!(!out.contains("result: error"), "--to {to}:\n{out}");
        assert!(!out.contains("notice error"), "--to {to}:\n{out}");
    }
}

// Point 10: `system/turn_duration` keeps its notice but not its figure under --stable; newer
// session entry types nobody knows (`started`, `result`) stay counted debug records.
#[test]
fn durations_go_under_stable_and_unknown_entries_stay_debug() {
    let name = "claude-session/durations-and-unknown-types.jsonl";
    let plain = render(name, &["--to", "jsonl"]);
    assert!(plain.contains("1873"), "{plain}");
    let stable = render(name, &["--stable", "--to", "jsonl"]);
    assert!(!stable.contains("1873"), "{stable}");
    assert!(stable.contains("\"source\":\"turn_duration\""), "{stable}");
    let debug: Vec<Value> = json_lines(stable.as_bytes())
        .into_iter()
        .filter(|r| r["kind"] == "debug")
        .collect();
    assert_eq!(debug.len(), 2, "{stable}");
    assert!(debug[0]["reason"].as_str().unwrap().contains("\"started\""));
    assert!(debug[1]["reason"].as_str().unwrap().contains("\"result\""));
}

// Point 10: one token total in every view (cache reads and writes counted as input).
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn token_totals_are_the_same_in_every_output() {
    let dir = crate::util::corpus();
    // A real 2.1.3 capture whose result counts cache reads.
    let path = dir.join(
        "external/charlieyou/claude-agent-sdk-gleam/test/fixtures/assembled_stream_2.1.4.jsonl",
    );
    let run = |to: &str| {
        let out = scribe().args(["--to", to]).arg(&path).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let result = json_lines(run("jsonl").as_bytes())
        .into_iter()
        .find(|r| r["notice"]["kind"] == "result")
        .expect("a result");
    let u = &result["notice"]["usage"];
    let input = [
        "inputTokens",
        "cacheReadInputTokens",
        "cacheCreationInputTokens",
    ]
    .iter()
    .map(|k| u[*k].as_u64().unwrap_or(0))
    .sum::<u64>();
    assert!(u["cacheReadInputTokens"].as_u64().unwrap_or(0) > 0, "{u}");
    let grouped = thousands(input);
    let text = run("text");
    assert!(text.contains(&format!("{grouped} in ·")), "{text}");
    let md = run("md");
    assert!(md.contains(&format!("{grouped} in ·")), "{md}");
    let html = run("html");
    assert!(html.contains(&format!("{grouped} in (")), "{html}");
}

// Point 6: a local command (`/context`) from a 2.1.x saved session (`system/local_command`
// rows) and from the wire (`system/local_command_output`) reads the same: the command, then its
// output, markup gone, the table drawn as a table; its terminal colours stay in the JSONL text,
// become the text view's own styling (`--color always`) and are dropped in Markdown and HTML.
#[test]
fn local_command_output_is_the_command_and_its_output_from_stream_or_session() {
    for name in [
        "claude-session/local-command.jsonl",
        "local-command-output.jsonl",
    ] {
        let recs = records(name);
        let out = recs
            .iter()
            .find(|r| r["origin"]["detail"] == "local-command-output")
            .unwrap_or_else(|| panic!("{name}: no local command output turn"));
        assert_eq!(
            out["origin"]["reason"], "slash-command",
            "{name}: §14's reason"
        );
        assert_eq!(out["role"], "user", "{name}: not the model's words");
        let shown = out["parts"][0]["text"].as_str().unwrap();
        assert!(
            shown.starts_with("\u{1b}[1mContext Usage\u{1b}[22m\n"),
            "{name}: {shown}"
        );
        // The raw text is kept beside the classification when it differs from the text.
        let raw = out["metadata"]["machinery"]["raw"]
            .as_str()
            .unwrap_or(shown);
        assert!(raw.contains("\u{1b}[1m"), "{name}: {raw}");
        let text = render(name, &["--to", "text"]);
        assert!(text.contains("· Context Usage\n"), "{name}:\n{text}");
        assert!(text.contains("System prompt │ 3.1k"), "{name}:\n{text}");
        assert!(
            !text.contains("⏺ Context"),
            "{name}: shown as the model's:\n{text}"
        );
        let md = render(name, &["--to", "md"]);
        assert!(md.contains("> **Command output**"), "{name}:\n{md}");
        assert!(
            md.contains("> | System prompt | 3.1k | 1.6% |"),
            "{name}:\n{md}"
        );
        let html = render(name, &["--to", "html"]);
        assert!(html.contains("Command output"), "{name}");
        for view in [&text, &md, &html] {
            assert!(
                !view.contains("local-command-stdout"),
                "{name}: markup left"
            );
            assert!(!view.contains("[38;2"), "{name}: escape left");
            assert!(!view.contains('\u{1b}'), "{name}: escape left");
        }
        // In colour, the command's own colours as the text view's styling: bold, RGB grey.
        let coloured = render(name, &["--to", "text", "--color", "always"]);
        assert!(
            coloured.contains("\u{1b}[1mContext Usage\u{1b}[0m"),
            "{name}:\n{coloured}"
        );
        assert!(
            coloured.contains("\u{1b}[38;2;136;136;136m⛁ ⛁\u{1b}[0m"),
            "{name}:\n{coloured}"
        );
    }
    let session = render("claude-session/local-command.jsonl", &["--to", "text"]);
    assert!(session.contains("· /context\n"), "{session}");
}

// Point 8, from the real 05-subagent stream with its lines reordered as a background run writes
// them: the Agent call's result comes first, then `task_updated` completed, a late `running`
// update, and only then `task_notification` with the final usage. The completion lands on the
// call, the finished run is not reopened, no phantom record or notice appears, and the
// sub-agent's prompt comes from `task_started.prompt` (the stream sent no first user message).
#[test]
fn a_background_agent_completion_lands_on_its_call() {
    let recs = records("fold-background-agent.jsonl");
    let notices: Vec<&str> = recs
        .iter()
        .filter(|r| r["kind"] == "notice")
        .map(|r| r["notice"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(notices, ["result"], "no task or orphan sub-agent notice");
    let agent = recs
        .iter()
        .flat_map(|r| r["parts"].as_array().cloned().unwrap_or_default())
        .find(|p| p["call"]["name"] == "Agent")
        .expect("the Agent call");
    let rec = &agent["call"]["subagent"];
    assert_eq!(rec["status"], "completed");
    assert_eq!(rec["usage"]["totalTokens"], 8652);
    assert_eq!(rec["usage"]["durationMs"], 570);
    assert_eq!(rec["transcript"][0]["origin"]["kind"], "subagent-prompt");
    assert!(
        rec["transcript"][0]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[sub] Count the files")
    );
}

// Point 8: a plain background Bash call (task_type local_bash, no agent, no transcript) gets no
// phantom sub-agent record; its completion is written right after the turn of its call.
#[test]
fn a_background_bash_call_gets_no_phantom_subagent() {
    let recs = records("fold-background-bash.jsonl");
    let turn_at = recs
        .iter()
        .position(|r| r["id"] == "msg_A")
        .expect("the Bash call's turn");
    let call = &recs[turn_at]["parts"][0]["call"];
    assert!(call.get("subagent").is_none(), "{call}");
    let next = &recs[turn_at + 1]["notice"];
    assert_eq!(next["kind"], "task", "{next}");
    assert_eq!(next["status"], "completed");
    assert!(next["summary"].as_str().unwrap().contains("exit code 0"));
    let text = render("fold-background-bash.jsonl", &["--to", "text"]);
    assert!(!text.contains("sub-agent"), "{text}");
}

// Issue 17 point 2: the SDK's permission round trip (`control_request can_use_tool`, then the
// host's `control_response`) in §14's vocabulary: a question makes the call approval-pending, an
// allow lets it run, a deny ends it approval-denied with the host's reason; a question still
// open at the end says it waits for approval in every view. Point 3 and 4 ride along:
// `session-state` is spelled `requires-action`, a rate-limit notice carries `at`, and
// `system/status.permissionMode` writes the session snapshot again.
#[test]
fn permission_prompts_are_approval_states_in_every_output() {
    let name = "fold-permission-prompts.jsonl";
    let recs = records(name);
    let states: Vec<(String, String)> = call_states(name);
    let want = [
        ("toolu_1", "success"),
        ("toolu_2", "approval-denied"),
        ("toolu_3", "approval-pending"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(states, want);
    let denied = recs
        .iter()
        .flat_map(|r| r["parts"].as_array().cloned().unwrap_or_default())
        .find(|p| p["call"]["toolCallId"] == "toolu_2")
        .unwrap();
    assert_eq!(denied["call"]["errorText"], "rm is not allowed here");
    let text = render(name, &["--to", "text"]);
    assert!(text.contains("(waiting for approval)"), "{text}");
    assert!(text.contains("Denied: rm is not allowed here"), "{text}");
    assert_eq!(text.matches("(no result)").count(), 0, "{text}");
    let md = render(name, &["--to", "md"]);
    assert!(md.contains("Bash(make) · waiting for approval"), "{md}");
    let html = render(name, &["--to", "html"]);
    assert!(html.contains("awaiting approval"), "html names the wait");

    let notice = |kind: &str| {
        recs.iter()
            .find(|r| r["kind"] == "notice" && r["notice"]["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} notice"))["notice"]
            .clone()
    };
    assert_eq!(notice("session-state")["state"], "requires-action");
    assert_eq!(notice("rate-limit")["at"], "2026-11-30T10:00:00.000Z");
    let modes: Vec<&str> = recs
        .iter()
        .filter(|r| r["kind"] == "session")
        .map(|r| r["permissionMode"].as_str().unwrap())
        .collect();
    assert_eq!(
        modes,
        ["default", "plan"],
        "the status line's mode updates the session"
    );
}

// Point 8: the stream's `task_started.prompt` is the sub-agent's prompt turn; when the thread's
// own first message follows (it has a time and an id, `task_started` has neither), the turn takes
// them, and the prompt is shown once.
#[test]
fn a_subagent_prompt_from_task_started_takes_its_time_from_the_threads_first_message() {
    let recs = records("./html-tour.jsonl");
    let prompts: Vec<&Value> = recs
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(|t| t["parts"].as_array().into_iter().flatten())
        .filter_map(|p| p["call"]["subagent"]["transcript"].as_array())
        .flatten()
        .filter(|t| t["origin"]["kind"] == "subagent-prompt")
        .collect();
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    assert_eq!(prompts[0]["id"], "u-sp");
    assert!(prompts[0]["timestamp"].as_str().is_some(), "{}", prompts[0]);
    // The thread's first message is the turn, not a second copy of it.
    let events = render("./html-tour.jsonl", &["--to", "events"]);
    assert_eq!(events.matches("\"subagent-prompt\"").count(), 1, "{events}");
}

// Point 6: a local command's output that holds escapes other than colours (a title, a link,
// clearing the screen, a cut-off sequence) reaches the terminal with none of them: only the
// text view's own styling is written.
#[test]
fn a_local_commands_other_escapes_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hostile-local-command.jsonl");
    let content = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{1b}[31mred\u{1b}[0m \u{1b}]8;;file:///etc/passwd\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{1b}[5;1Hend \u{1b}]";
    let line = serde_json::json!({
        "type": "system", "subtype": "local_command_output", "content": content,
        "uuid": "lc-h", "session_id": "s1"
    });
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let run = |args: &[&str]| {
        let out = scribe().args(args).arg(&path).assert().success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let coloured = run(&["--to", "text", "--color", "always"]);
    assert!(coloured.contains("\u{1b}[31mred\u{1b}[0m"), "{coloured:?}");
    for bad in [
        "pwned",
        "\u{1b}]",
        "\u{1b}[2J",
        "\u{1b}[5;1H",
        "/etc/passwd",
    ] {
        assert!(!coloured.contains(bad), "{bad:?} in {coloured:?}");
    }
    assert!(coloured.contains("link"), "{coloured:?}");
    for args in [
        &["--to", "text", "--color", "never"][..],
        &["--to", "md"],
        &["--to", "html"],
    ] {
        let out = run(args);
        assert!(!out.contains('\u{1b}'), "{args:?}: {out:?}");
        assert!(out.contains("red"), "{args:?}: {out:?}");
    }
}

/// A saved session written by another JSON writer (Python's `json.dumps`: spaces between
/// tokens, every character past ASCII as a `\u` escape, `\/`, a float spelt `1.50`) keeps a
/// call's details as the value they hold, in the compact form a `Value` written again has, with
/// and without `--stable`; the facts are read from them.
#[test]
fn details_spelt_by_another_writer_are_kept_as_their_value() {
    let rows = [
        r#"{"parentUuid": null, "isSidechain": false, "sessionId": "s-1", "version": "1.0.17", "type": "user", "uuid": "u1", "message": {"role": "user", "content": "read it"}}"#,
        r#"{"parentUuid": "u1", "isSidechain": false, "sessionId": "s-1", "version": "1.0.17", "type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/w/a.rs"}}]}}"#,
        r#"{"parentUuid": "a1", "isSidechain": false, "sessionId": "s-1", "version": "1.0.17", "type": "user", "uuid": "u2", "toolUseResult": {"type": "text", "file": {"filePath": "\/w\/a.rs", "content": "caf\u00e9 \u2192 \ud83d\ude00\n\"q\"\t\u0001", "numLines": 2, "ratio": 1.50, "big": 1e3}}, "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "     1\u2192caf\u00e9"}]}}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    let want = concat!(
        r#""sidecar":{"type":"text","file":{"filePath":"/w/a.rs","#,
        r#""content":"café → 😀\n\"q\"\t\u0001","numLines":2,"ratio":1.5,"big":1000.0}}"#,
    );
    for stable in [false, true] {
        let mut cmd = scribe();
        cmd.args(["--to", "jsonl"]).arg(&path);
        if stable {
            cmd.arg("--stable");
        }
        let out = cmd.assert().success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(text.contains(want), "{text}");
        assert!(text.contains(r#""facts":{"linesRead":2}"#), "{text}");
    }
}
