//! Fields and blocks of the Claude wire that the design names and the old message type lost
//! (docs/conformance.md rows C5-C34, C75, C90, C113-C118, C139, C147): each kept, typed, in the
//! folded output; and `--include-raw` (Q66).

use serde_json::{Value, json};

use crate::util::{json_lines, scribe};

/// Runs `--to jsonl` (or `args`) over input lines given as JSON values.
fn run(lines: &[Value], args: &[&str]) -> Vec<Value> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = scribe()
        .args(["--to", "jsonl", "--from", "claude-stream"])
        .args(args)
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    json_lines(&out)
}

fn assistant(id: &str, content: Value) -> Value {
    json!({"type": "assistant", "session_id": "s", "parent_tool_use_id": null,
           "message": {"id": id, "role": "assistant", "model": "m", "content": content}})
}

fn user(uuid: &str, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "session_id": "s", "parent_tool_use_id": null,
           "message": {"role": "user", "content": content}})
}

fn turn<'a>(recs: &'a [Value], id: &str) -> &'a Value {
    recs.iter()
        .find(|r| r["kind"] == "turn" && r["id"] == id)
        .unwrap_or_else(|| panic!("no turn {id} in {recs:#?}"))
}

fn no_debug(recs: &[Value]) {
    assert!(
        !recs.iter().any(|r| r["kind"] == "debug"),
        "debug records: {recs:#?}"
    );
}

/// C5, C6: a user message's `priority` and a replayed message's `file_attachments` are kept.
#[test]
fn user_priority_and_file_attachments_are_kept() {
    let mut queued = user("u1", json!("do this next"));
    queued["priority"] = json!("next");
    let mut replayed = user("u2", json!("see the file"));
    replayed["isReplay"] = json!(true);
    replayed["file_attachments"] = json!([{"path": "a.png", "type": "image"}]);
    let recs = run(&[queued, replayed], &[]);
    assert_eq!(turn(&recs, "u1")["metadata"]["priority"], "next");
    let u2 = turn(&recs, "u2");
    assert_eq!(u2["origin"]["kind"], "replay");
    assert_eq!(u2["metadata"]["fileAttachments"][0]["path"], "a.png");
    no_debug(&recs);
}

/// C8, C10: `result` keeps `modelUsage` and `fast_mode_state`; `init` keeps `fast_mode_state`.
#[test]
fn result_keeps_model_usage_and_fast_mode_state() {
    let init = json!({"type": "system", "subtype": "init", "uuid": "i1", "session_id": "s",
        "model": "m", "cwd": "/w", "tools": [], "fast_mode_state": "off"});
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "num_turns": 1, "total_cost_usd": 0.5, "fast_mode_state": "on",
        "modelUsage": {"claude-haiku": {"inputTokens": 3, "outputTokens": 4, "costUSD": 0.01},
                       "claude-opus": {"inputTokens": 30, "outputTokens": 40, "costUSD": 0.49}}});
    let recs = run(&[init, result], &[]);
    let session = recs.iter().find(|r| r["kind"] == "session").unwrap();
    assert_eq!(session["fastModeState"], "off");
    let r = recs
        .iter()
        .find(|r| r["notice"]["kind"] == "result")
        .unwrap();
    assert_eq!(r["notice"]["fastModeState"], "on");
    assert_eq!(r["notice"]["modelUsage"]["claude-opus"]["costUSD"], 0.49);
    assert_eq!(r["notice"]["modelUsage"]["claude-haiku"]["outputTokens"], 4);
}

/// C31, C32, C34, C118: `container_upload`, `compaction` and `search_result` blocks are typed
/// parts (a file reference, a compaction summary, a source document with its text), not data.
#[test]
fn container_upload_compaction_and_search_result_are_typed_parts() {
    let recs = run(
        &[
            user(
                "u1",
                json!([
                    {"type": "text", "text": "use these"},
                    {"type": "container_upload", "file_id": "file_01"},
                    {"type": "search_result", "source": "https://docs.test/x", "title": "X docs",
                     "content": [{"type": "text", "text": "X is a thing."}]}
                ]),
            ),
            assistant(
                "msg_1",
                json!([
                    {"type": "compaction", "content": "Earlier: the user asked about X."},
                    {"type": "compaction", "content": null},
                    {"type": "text", "text": "ok"}
                ]),
            ),
        ],
        &[],
    );
    let parts = &turn(&recs, "u1")["parts"];
    assert_eq!(parts[1]["type"], "file");
    assert_eq!(parts[1]["url"], "file-id:file_01");
    assert_eq!(parts[2]["type"], "source-document");
    assert_eq!(parts[2]["title"], "X docs");
    assert_eq!(parts[2]["sourceId"], "https://docs.test/x");
    assert_eq!(parts[2]["text"], "X is a thing.");
    let a = &turn(&recs, "msg_1")["parts"];
    assert_eq!(a[0]["type"], "compaction");
    assert_eq!(a[0]["summary"], "Earlier: the user asked about X.");
    assert_eq!(a[1], json!({"type": "compaction"}));
    assert!(
        !recs
            .iter()
            .any(|r| r.to_string().contains("\"type\":\"data\""))
    );
    no_debug(&recs);
    // Every reader sees the summary.
    let input: String = [assistant(
        "msg_1",
        json!([{"type": "compaction", "content": "Earlier: the user asked about X."}]),
    )]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect();
    for to in ["text", "md", "html"] {
        let out = scribe()
            .args(["--to", to, "--from", "claude-stream"])
            .write_stdin(input.clone())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("the user asked about X"), "{to}: {out}");
    }
}

/// C23, C113: citations of every location kind become §14's `{url, title, quote}`, the API's
/// other fields kept beside them.
#[test]
fn citations_of_every_location_kind_are_url_title_quote() {
    let recs = run(
        &[assistant(
            "msg_1",
            json!([{"type": "text", "text": "As written.", "citations": [
                {"type": "char_location", "document_title": "Spec", "cited_text": "the rule",
                 "document_index": 0, "start_char_index": 3, "end_char_index": 11},
                {"type": "search_result_location", "source": "https://s.test/1", "title": "S1",
                 "cited_text": "found it", "search_result_index": 0},
                {"type": "web_search_result_location", "url": "https://w.test", "title": "W",
                 "cited_text": "on the web", "encrypted_index": "e"}
            ]}]),
        )],
        &[],
    );
    let c = &turn(&recs, "msg_1")["parts"][0]["citations"];
    assert_eq!(c[0]["title"], "Spec");
    assert_eq!(c[0]["quote"], "the rule");
    assert_eq!(c[0]["start_char_index"], 3);
    assert!(c[0].get("url").is_none());
    assert_eq!(c[1]["url"], "https://s.test/1");
    assert_eq!(c[1]["quote"], "found it");
    assert_eq!(c[2]["url"], "https://w.test");
    assert_eq!(c[2]["title"], "W");
    assert_eq!(c[2]["quote"], "on the web");
    assert_eq!(c[2]["encrypted_index"], "e");
}

/// C117: a web search's hits become `source-url` parts beside the search call.
#[test]
fn web_search_hits_become_source_url_parts() {
    let recs = run(
        &[assistant(
            "msg_1",
            json!([
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {"query": "rust"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                    {"type": "web_search_result", "url": "https://a.test", "title": "A",
                     "encrypted_content": "x", "page_age": "1 day"},
                    {"type": "web_search_result", "url": "https://b.test", "title": "B",
                     "encrypted_content": "y"}
                ]},
                {"type": "text", "text": "Found two."}
            ]),
        )],
        &[],
    );
    let parts = turn(&recs, "msg_1")["parts"].as_array().unwrap().clone();
    let urls: Vec<&Value> = parts.iter().filter(|p| p["type"] == "source-url").collect();
    assert_eq!(urls.len(), 2, "{parts:#?}");
    assert_eq!(urls[0]["url"], "https://a.test");
    assert_eq!(urls[0]["title"], "A");
    assert_eq!(urls[0]["sourceId"], "srvtoolu_1#1");
    assert_eq!(urls[1]["sourceId"], "srvtoolu_1#2");
    assert_eq!(parts[0]["call"]["state"], "success");
    no_debug(&recs);
}

/// C26, C90: a `tool_use` made by server-side code execution keeps its `caller`; a direct one
/// says nothing more.
#[test]
fn a_programmatic_tool_call_keeps_its_caller() {
    let recs = run(
        &[assistant(
            "msg_1",
            json!([
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"},
                 "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "pwd"},
                 "caller": {"type": "direct"}}
            ]),
        )],
        &[],
    );
    let parts = &turn(&recs, "msg_1")["parts"];
    assert_eq!(parts[0]["call"]["calledBy"]["tool_id"], "srvtoolu_9");
    assert_eq!(parts[0]["call"]["caller"], "model");
    assert!(parts[1]["call"].get("calledBy").is_none());
}

/// C75: parallel Skill calls each get their own body, matched by the skill the body names, even
/// when the bodies come in another order and a system reminder comes first.
#[test]
fn parallel_skill_calls_each_get_their_own_body() {
    let mut reminder = user(
        "r1",
        json!("<system-reminder>files changed</system-reminder>"),
    );
    reminder["isSynthetic"] = json!(true);
    let mut body_loop = user(
        "b1",
        json!("Base directory for this skill: /w/.claude/skills/loop\n\nLOOP BODY"),
    );
    body_loop["isSynthetic"] = json!(true);
    let mut body_widgets = user(
        "b2",
        json!("Base directory for this skill: /w/.claude/skills/widgets\n\nWIDGETS BODY"),
    );
    body_widgets["isSynthetic"] = json!(true);
    let recs = run(
        &[
            json!({"type": "system", "subtype": "init", "uuid": "i1", "session_id": "s",
                   "model": "m", "cwd": "/w", "tools": ["Skill"], "skills": ["widgets", "loop"]}),
            assistant(
                "msg_1",
                json!([
                    {"type": "tool_use", "id": "sk1", "name": "Skill", "input": {"skill": "widgets"}},
                    {"type": "tool_use", "id": "sk2", "name": "Skill", "input": {"skill": "loop"}}
                ]),
            ),
            user(
                "u1",
                json!([
                    {"type": "tool_result", "tool_use_id": "sk1", "content": "Launching skill: widgets"},
                    {"type": "tool_result", "tool_use_id": "sk2", "content": "Launching skill: loop"}
                ]),
            ),
            reminder,
            body_loop,
            body_widgets,
        ],
        &[],
    );
    let calls = &turn(&recs, "msg_1")["parts"];
    let body = |i: usize| {
        calls[i]["call"]["skill"]["body"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    assert!(body(0).contains("WIDGETS BODY"), "{calls:#?}");
    assert!(body(1).contains("LOOP BODY"), "{calls:#?}");
    // The reminder is its own (hidden) turn, not a body.
    assert_eq!(turn(&recs, "r1")["origin"]["reason"], "system-reminder");
    assert!(
        !recs
            .iter()
            .any(|r| r["kind"] == "turn" && (r["id"] == "b1" || r["id"] == "b2"))
    );
}

/// C19, C20, C21, C147: elicitation, tool progress, tool-use summaries, auth status and prompt
/// suggestions are each understood: notices (tool progress feeds only the live view), never
/// debug records.
#[test]
fn rarer_wire_kinds_are_notices_not_debug() {
    let recs = run(
        &[
            json!({"type": "system", "subtype": "elicitation_complete", "session_id": "s",
                   "mcp_server_name": "gh", "elicitation_id": "el-1"}),
            json!({"type": "tool_progress", "session_id": "s", "tool_use_id": "t1",
                   "tool_name": "Bash", "elapsed_time_seconds": 3}),
            json!({"type": "tool_use_summary", "session_id": "s", "summary": "Ran 3 commands"}),
            json!({"type": "auth_status", "session_id": "s", "isAuthenticating": true,
                   "output": ["Opening browser"]}),
            json!({"type": "prompt_suggestion", "session_id": "s", "suggestion": "run the tests"}),
        ],
        &[],
    );
    no_debug(&recs);
    let e = recs
        .iter()
        .find(|r| r["notice"]["kind"] == "elicitation")
        .unwrap();
    assert_eq!(e["notice"]["server"], "gh");
    assert_eq!(e["notice"]["id"], "el-1");
    for source in ["tool_use_summary", "auth_status", "prompt_suggestion"] {
        assert!(
            recs.iter().any(|r| r["notice"]["source"] == source),
            "{source}: {recs:#?}"
        );
    }
    assert!(
        recs.iter()
            .any(|r| r.to_string().contains("Ran 3 commands"))
    );
}

/// Q66: `--include-raw` writes each input line beside the events it gave in `--to events`;
/// without it no event carries one; `--redact` reaches the raw line too.
#[test]
fn include_raw_puts_each_line_beside_its_events() {
    let lines = [
        user("u1", json!("hello")),
        assistant("msg_1", json!([{"type": "text", "text": "hi"}])),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let events = |args: &[&str]| {
        let out = scribe()
            .args(["--to", "events", "--from", "claude-stream"])
            .args(args)
            .write_stdin(input.clone())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        json_lines(&out)
    };
    let with = events(&["--include-raw"]);
    let evs: Vec<&Value> = with.iter().filter(|e| e.get("line").is_some()).collect();
    assert!(evs.len() >= 2);
    for e in &evs {
        let n = e["line"].as_u64().unwrap() as usize;
        let raw: Value = serde_json::from_str(e["raw"].as_str().unwrap()).unwrap();
        assert_eq!(raw, lines[n - 1], "{e}");
    }
    assert!(events(&[]).iter().all(|e| e.get("raw").is_none()));
    // A secret in a raw line is redacted like the rest.
    let secret = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy";
    let out = scribe()
        .args([
            "--to",
            "events",
            "--from",
            "claude-stream",
            "--include-raw",
            "--redact",
        ])
        .write_stdin(format!(
            "{}\n",
            user("u1", json!(format!("token {secret}")))
        ))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("\"raw\""), "{out}");
    assert!(!out.contains(secret), "{out}");
}

/// Q67: the upstream `malformed-payload-redaction` vector's payload never reaches rendered
/// output (text, Markdown, HTML, with or without --full); the JSONL keeps it in its debug record.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_malformed_payload_never_reaches_rendered_output() {
    let dir = crate::util::corpus();
    let path = dir.join("qwen-daemon/upstream/conformance-malformed-payload-redaction.jsonl");
    let leak = "must-not-leak-malformed-payload";
    let render = |args: &[&str]| {
        let out = scribe()
            .args(args)
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    for to in ["text", "md", "html"] {
        assert!(!render(&["--to", to]).contains(leak), "--to {to}");
        assert!(
            !render(&["--to", to, "--full"]).contains(leak),
            "--to {to} --full"
        );
    }
    let jsonl = json_lines(render(&["--to", "jsonl"]).as_bytes());
    let debug: Vec<&Value> = jsonl.iter().filter(|r| r["kind"] == "debug").collect();
    assert_eq!(debug.len(), 1);
    assert!(debug[0]["raw"].as_str().unwrap().contains(leak));
}

/// C139: `updatedAt` is set for every source whose session line has a time: Claude saved
/// sessions, Qwen daemon events (`serverTimestamp`), Codex rollouts, Gemini saved chats and
/// Gemini stream-json `init`. (Claude, Codex and Qwen stream lines carry no time.)
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_source_with_a_time_sets_updated_at() {
    let dir = crate::util::corpus();
    let mut inputs = vec![
        dir.join("claude-code/07-skill/session.jsonl"),
        dir.join("claude-code/09-hooks/stream.jsonl"),
        dir.join("qwen-daemon/perm/events.sse"),
        dir.join("gemini-cli/api-error/stream.jsonl"),
    ];
    inputs.extend(
        crate::util::codex_captures(&dir)
            .into_iter()
            .filter(|p| p.to_string_lossy().contains("rollout-"))
            .take(1),
    );
    inputs.extend(
        crate::util::files_under(&dir.join("gemini-cli"), &|p| {
            p.to_string_lossy().contains("/chats/")
        })
        .into_iter()
        .take(1),
    );
    assert_eq!(inputs.len(), 6);
    for path in inputs {
        let out = scribe()
            .args(["--to", "jsonl"])
            .arg(&path)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let recs = json_lines(&out);
        let s = recs
            .iter()
            .find(|r| r["kind"] == "session")
            .unwrap_or_else(|| panic!("{}: no session", path.display()));
        let at = s["updatedAt"].as_str().unwrap_or_else(|| {
            panic!("{}: no updatedAt in {s}", path.display());
        });
        assert!(at.starts_with("20"), "{}: {at}", path.display());
    }
}

/// C108: `origin.reason` of a synthetic turn is §14's closed set; scribe's finer kinds (bash mode,
/// interrupt, …) are `detail` beside it, and a version-2 transcript, which wrote them in
/// `reason`, reads back to the same turns and renders the same.
#[test]
fn synthetic_reasons_are_the_design_set_with_the_detail_beside_them() {
    let closed = [
        "skill-body",
        "system-reminder",
        "hook-output",
        "slash-command",
        "other",
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut details = std::collections::BTreeSet::new();
    let names = std::fs::read_dir(crate::util::sample("claude-stream"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("classify-"))
        })
        .collect::<Vec<_>>();
    assert!(names.len() >= 10, "{names:?}");
    for path in names {
        let out = scribe()
            .arg(&path)
            .args(["--to", "jsonl"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let recs = json_lines(&out);
        let mut old = Vec::new();
        for r in &recs {
            let mut v2 = r.clone();
            if r["kind"] == "header" {
                assert_eq!(r["version"], 3);
                v2["version"] = json!(2);
            }
            if r["origin"]["kind"] == "synthetic" {
                let reason = r["origin"]["reason"].as_str().unwrap();
                assert!(closed.contains(&reason), "{path:?}: {r}");
                if let Some(d) = r["origin"]["detail"].as_str() {
                    assert!(
                        !closed.contains(&d),
                        "{path:?}: a detail that says nothing: {r}"
                    );
                    details.insert(d.to_owned());
                    v2["origin"] = json!({"kind": "synthetic", "reason": d});
                }
            }
            old.push(format!("{v2}\n"));
        }
        let (new_file, old_file) = (dir.path().join("v3.jsonl"), dir.path().join("v2.jsonl"));
        std::fs::write(&new_file, &out).unwrap();
        std::fs::write(&old_file, old.concat()).unwrap();
        for to in [
            &["--to", "jsonl"][..],
            &["--to", "md", "--context"],
            &["--to", "text", "--context"],
        ] {
            let render = |f: &std::path::Path| {
                let o = scribe()
                    .arg(f)
                    .args(to)
                    .assert()
                    .success()
                    .get_output()
                    .clone();
                assert!(
                    o.stderr.is_empty(),
                    "{f:?} {to:?}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                String::from_utf8(o.stdout)
                    .unwrap()
                    .replace("v2.jsonl", "v3.jsonl")
            };
            assert_eq!(render(&old_file), render(&new_file), "{path:?} {to:?}");
        }
    }
    let want = [
        "bash-input",
        "bash-output",
        "command-expansion",
        "compact-summary",
        "interrupt",
        "local-command-caveat",
        "local-command-output",
        "memory-input",
    ];
    assert_eq!(details.into_iter().collect::<Vec<_>>(), want);
}

/// Q65: the shared-layer design's renderers do not show debug records unless the host opts in;
/// scribe's promise is that a line nobody understood is never silent. So the text view,
/// Markdown and HTML show none of them by default but count them in one line at the end, and
/// `--debug` shows each where it came (HTML with its raw input); `--to jsonl` keeps them always.
#[test]
fn lines_not_understood_are_counted_by_default_and_shown_with_debug() {
    let lines = [
        json!({"type": "system", "subtype": "init", "session_id": "s", "model": "m", "tools": [], "cwd": "/w"}),
        json!({"type": "mystery_one", "secret": "raw-of-line-two"}),
        user("u1", json!("hello")),
        json!({"type": "mystery_two"}),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let render = |args: &[&str]| {
        let out = scribe()
            .args(["--from", "claude-stream"])
            .args(args)
            .write_stdin(input.clone())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    for to in ["text", "md", "html"] {
        let plain = render(&["--to", to, "--width", "200"]);
        let flat = plain.replace('\n', " ").to_lowercase();
        assert_eq!(
            flat.matches("2 lines not understood (--debug shows them)")
                .count(),
            1,
            "--to {to}: {plain}"
        );
        assert!(
            !flat.contains("line 2 not understood"),
            "--to {to}: {plain}"
        );
        assert!(
            !flat.contains("line 4 not understood"),
            "--to {to}: {plain}"
        );
        assert!(!plain.contains("raw-of-line-two"), "--to {to}: {plain}");
        let debug = render(&["--to", to, "--debug"]).to_lowercase();
        assert!(
            debug.contains("line 2 not understood"),
            "--to {to} --debug: {debug}"
        );
        assert!(
            debug.contains("line 4 not understood"),
            "--to {to} --debug: {debug}"
        );
        assert!(
            !debug.contains("lines not understood"),
            "--to {to} --debug: {debug}"
        );
        assert_eq!(
            debug.contains("raw-of-line-two"),
            to == "html",
            "--to {to} --debug"
        );
    }
    let jsonl = run(&lines, &[]);
    assert_eq!(jsonl.iter().filter(|r| r["kind"] == "debug").count(), 2);
}

/// C81: every stage-2 kind §10 lists has its counterpart in `--to events`, as the table "The
/// design's stage-2 kinds" in docs/schema.md §2 maps them (§10 names the concerns; scribe's
/// events are spelled in its own kebab-case, and `error` and `cost_update` are notices). One
/// Claude stream per concern is converted and each counterpart looked for.
#[test]
fn every_stage_two_kind_of_the_design_has_its_event() {
    let mut events = Vec::new();
    for name in [
        "fold-partial-messages.jsonl",
        "fold-subagent.jsonl",
        "fold-session-and-notices.jsonl",
    ] {
        let out = scribe()
            .arg(crate::util::sample("claude-stream").join(name))
            .args(["--to", "events"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        events.extend(json_lines(&out));
    }
    let meta = |id: &str| json!({"parent_tool_use_id": null, "session_id": "s", "uuid": id});
    let stream = |id: &str, event: Value| {
        let mut l = meta(id);
        l["type"] = json!("stream_event");
        l["event"] = event;
        l
    };
    let mut progress = meta("p1");
    progress["type"] = json!("tool_progress");
    progress["tool_use_id"] = json!("toolu_9");
    progress["tool_name"] = json!("Bash");
    progress["elapsed_time_seconds"] = json!(2);
    let lines = [
        stream(
            "e0",
            json!({"type": "message_start", "message": {"id": "msg_T", "role": "assistant", "model": "m", "content": []}}),
        ),
        stream(
            "e1",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hmm"}}),
        ),
        stream(
            "e2",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {}}}),
        ),
        progress,
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = scribe()
        .args(["--to", "events", "--from", "claude-stream"])
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    events.extend(json_lines(&out));
    // §10 kind, its event, the notice kind (for a notice), a field the notice must carry.
    let design = [
        ("user_text", "user-turn", "", ""),
        ("assistant_text_delta", "text-delta", "", ""),
        ("thinking_delta", "reasoning-delta", "", ""),
        ("tool_started", "tool-input-started", "", ""),
        ("tool_progress", "tool-progress", "", ""),
        ("tool_finished", "tool-result", "", ""),
        ("subtask_started", "subtask-started", "", ""),
        ("subtask_progress", "subtask-progress", "", ""),
        ("subtask_finished", "subtask-finished", "", ""),
        ("session_init", "session-init", "", ""),
        ("session_status", "notice", "status", ""),
        ("rate_limit", "notice", "rate-limit", ""),
        ("result", "notice", "result", ""),
        ("error", "notice", "api-retry", "error"),
        ("cost_update", "notice", "result", "cost"),
    ];
    for (kind, event, notice, field) in design {
        let found = events.iter().any(|e| {
            e["event"] == event
                && (notice.is_empty() || e["notice"]["kind"] == notice)
                && (field.is_empty() || !e["notice"][field].is_null())
        });
        assert!(found, "§10 {kind}: no {event} {notice} {field}");
    }
    // The table in docs/schema.md names each of them.
    let schema = std::fs::read_to_string(crate::util::root().join("docs/schema.md")).unwrap();
    for (kind, ..) in design {
        assert!(
            schema.contains(&format!("| `{kind}` |")),
            "schema.md: {kind}"
        );
    }
}

/// C4, C9: the real API-error capture keeps the API's `error` on its turn (the CLI's synthetic
/// message), and the real max-turns capture's result is the failure subtype, as an error.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn api_errors_and_failed_results_of_real_captures_are_kept() {
    let dir = crate::util::corpus();
    let jsonl = |name: &str| {
        let (recs, _) = crate::util::run_jsonl(&dir.join("claude-code").join(name), &[]);
        recs
    };
    let recs = jsonl("13-api-error/stream.jsonl");
    let t = recs
        .iter()
        .find(|r| r["kind"] == "turn" && r["metadata"]["model"] == "<synthetic>")
        .expect("the API error message");
    assert_eq!(t["metadata"]["error"], "unknown");
    assert!(
        t["parts"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("API Error: 400")
    );
    let recs = jsonl("11-max-turns/stream.jsonl");
    let result = recs
        .iter()
        .find(|r| r["notice"]["kind"] == "result")
        .expect("a result");
    assert_eq!(result["notice"]["subtype"], "error_max_turns");
    assert_eq!(result["notice"]["isError"], true);
}

/// C15: a hook's `output` is what it wrote; a hook response without one keeps its stdout and its
/// stderr both, neither dropped for the other.
#[test]
fn a_hook_response_keeps_stdout_and_stderr() {
    let hook = |output: &str, stdout: &str, stderr: &str| {
        json!({"type": "system", "subtype": "hook_response", "hook_id": "h1",
               "hook_name": "Stop", "hook_event": "Stop", "output": output, "stdout": stdout,
               "stderr": stderr, "exit_code": 2, "outcome": "error", "uuid": "h", "session_id": "s"})
    };
    let recs = run(
        &[
            hook("", "checked 3 files", "lint: 1 warning"),
            hook("all of it", "all", "of it"),
        ],
        &[],
    );
    let outputs: Vec<&Value> = recs
        .iter()
        .filter(|r| r["notice"]["kind"] == "hook")
        .map(|r| &r["notice"]["output"])
        .collect();
    assert_eq!(
        outputs,
        [
            &json!("checked 3 files\nlint: 1 warning"),
            &json!("all of it")
        ]
    );
}
