//! The session snapshot (§14 `SessionSnapshot`) on Claude streams: built from what the lines
//! say when no `init` came (§2: `session_id` is on every wire message), and driving the header
//! of every view. The lines are the wire's `user` / `assistant` messages and `system/init`
//! (`claude-code-adapter-notes.md` §2). What a snapshot is not told stays absent, whatever the
//! agent.

use crate::util::{json_lines, stdout_of};

/// A user and an assistant message carrying their session's id, and no `init` line.
const NO_INIT: &str = concat!(
    r#"{"type":"user","uuid":"u1","session_id":"sess-42","parent_tool_use_id":null,"message":{"role":"user","content":"hi"}}"#,
    "\n",
    r#"{"type":"assistant","uuid":"a1","session_id":"sess-42","parent_tool_use_id":null,"message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"text","text":"hello"}]}}"#,
    "\n",
);

/// A stream without `init` still names its session: one snapshot, before the first message,
/// holding the messages' `session_id` and nothing the lines do not say (no model, directory,
/// tools or permission mode); the page shows the id.
#[test]
fn a_stream_without_init_keeps_its_session_id() {
    let recs = json_lines(stdout_of(&["--to", "jsonl", "-"], NO_INIT.to_owned()).as_bytes());
    let sessions: Vec<&serde_json::Value> =
        recs.iter().filter(|r| r["kind"] == "session").collect();
    assert_eq!(sessions.len(), 1, "{recs:?}");
    let s = sessions[0];
    assert_eq!(s["sessionId"], "sess-42");
    for absent in ["model", "cwd", "permissionMode"] {
        assert!(
            s.get(absent).is_none(),
            "{absent} is not said by the lines: {s}"
        );
    }
    assert!(s["tools"].as_array().unwrap().is_empty(), "{s}");
    let first = recs.iter().position(|r| r["kind"] == "session").unwrap();
    let prompt = recs.iter().position(|r| r["kind"] == "turn").unwrap();
    assert!(first < prompt, "{recs:?}");
    let page = stdout_of(&["--to", "html", "-"], NO_INIT.to_owned());
    assert!(page.contains("sess-42"), "the page names the session");
}

/// An `init` naming its permission mode (§2's `permissionMode`), then a prompt.
const PLAN_INIT: &str = concat!(
    r#"{"type":"system","subtype":"init","uuid":"i1","session_id":"s","cwd":"/w","model":"claude-x","permissionMode":"plan","tools":["Read"],"mcp_servers":[]}"#,
    "\n",
    r#"{"type":"user","uuid":"u1","session_id":"s","parent_tool_use_id":null,"message":{"role":"user","content":"hi"}}"#,
    "\n",
);

/// The snapshot drives every view's header: the text and Markdown headers name the permission
/// mode where the input says it, as the page does, and say nothing of one where it does not.
#[test]
fn the_headers_name_the_permission_mode_the_input_says() {
    let text = stdout_of(
        &["--to", "text", "--color", "never", "-"],
        PLAN_INIT.to_owned(),
    );
    let header = text.lines().next().unwrap_or_default();
    assert!(header.contains("permission mode: plan"), "{text}");
    let md = stdout_of(&["--to", "md", "-"], PLAN_INIT.to_owned());
    assert!(md.contains("**Permission mode:** plan"), "{md}");
    let page = stdout_of(&["--to", "html", "-"], PLAN_INIT.to_owned());
    assert!(page.contains("claude-x · plan"), "the page names it too");
    for format in ["text", "md"] {
        let out = stdout_of(
            &["--to", format, "--color", "never", "-"],
            NO_INIT.to_owned(),
        );
        assert!(!out.to_lowercase().contains("permission mode"), "{out}");
    }
}

/// An `init` (§2) whose working directory is long enough that the text header must wrap at 80
/// columns, and whose permission mode is the longest Claude's `PermissionMode` names.
const LONG_CWD_INIT: &str = concat!(
    r#"{"type":"system","subtype":"init","uuid":"i1","session_id":"s","cwd":"/home/dev/projects/widget-shop","model":"claude-x","permissionMode":"bypassPermissions","tools":["Read"],"mcp_servers":[]}"#,
    "\n",
    r#"{"type":"user","uuid":"u1","session_id":"s","parent_tool_use_id":null,"message":{"role":"user","content":"hi"}}"#,
    "\n",
);

/// The text header's lines before the first blank line, at `width` columns.
fn text_header(width: &str) -> Vec<String> {
    let text = stdout_of(
        &["--to", "text", "--color", "never", "--width", width, "-"],
        LONG_CWD_INIT.to_owned(),
    );
    text.lines()
        .take_while(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The header wraps between its `·`-separated items, never inside one: "permission mode:"
/// stays on the line of its value. An item wider than the line still wraps inside, and every
/// word of the header is there, in order, at any width.
#[test]
fn the_text_header_wraps_between_its_items() {
    let header = text_header("80");
    assert!(header.len() > 1, "the header must wrap at 80: {header:?}");
    assert!(
        header
            .iter()
            .any(|l| l.contains("permission mode: bypassPermissions")),
        "{header:?}"
    );
    for line in &header {
        assert!(line.chars().count() <= 80, "{line:?}");
        assert!(!line.trim_start().starts_with('·'), "{header:?}");
    }
    let words = "claude-code · claude-x · /home/dev/projects/widget-shop · permission mode: \
                 bypassPermissions · 1 tool · session s";
    for width in ["80", "24"] {
        let header = text_header(width);
        let said: Vec<&str> = header.iter().flat_map(|l| l.split_whitespace()).collect();
        let want: Vec<&str> = words.split_whitespace().collect();
        if width == "80" {
            assert_eq!(said, want, "{header:?}");
        } else {
            // At 24 columns the directory is wider than a line and is cut as before.
            assert_eq!(said.concat(), want.concat(), "{header:?}");
        }
    }
}

/// Inputs whose snapshot is told some of the model, the directory and the permission mode, and
/// not the rest: a Gemini stream's `init` without its `model` (`session_id` and `model` are its
/// two fields, spec/gemini-stream-json.md), and a Codex rollout whose `session_meta` (with its
/// `cwd`) is followed by no `turn_context` (which names the model and the approval policy).
const PARTLY_TOLD: [(&str, &str, &[&str]); 2] = [
    (
        "gemini-stream",
        concat!(
            r#"{"type":"init","timestamp":"2026-01-01T00:00:00.000Z","session_id":"g-1"}"#,
            "\n",
            r#"{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","role":"user","content":"hi"}"#,
            "\n",
        ),
        &[],
    ),
    (
        "codex-rollout",
        concat!(
            r#"{"timestamp":"2026-11-30T08:11:55.636Z","type":"session_meta","payload":{"id":"01a22b82-b351-7753-a23b-3067841d47a4","timestamp":"2026-11-30T08:11:55.605Z","cwd":"/tmp/work","originator":"codex_exec","cli_version":"0.171.0","source":"exec"}}"#,
            "\n",
            r#"{"timestamp":"2026-11-30T08:11:56.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"List the files."}]}}"#,
            "\n",
        ),
        &["cwd"],
    ),
];

/// A snapshot writes only the model, directory and permission mode its input said (absent, as
/// docs/schema.md leaves out an optional field, never `""`), and no view labels one it lacks.
#[test]
fn a_snapshot_leaves_out_what_its_input_did_not_say() {
    for (from, input, told) in PARTLY_TOLD {
        let recs = json_lines(
            stdout_of(&["--to", "jsonl", "--from", from, "-"], input.to_owned()).as_bytes(),
        );
        let s = recs
            .iter()
            .find(|r| r["kind"] == "session")
            .expect("a snapshot");
        for field in ["model", "cwd", "permissionMode"] {
            assert_eq!(
                s.get(field).is_some(),
                told.contains(&field),
                "{from}: {field}: {s}"
            );
        }
        // The labels each view gives the three (the text header labels only the mode).
        let labels = [
            ("model", "**Model:**"),
            ("cwd", "**Directory:**"),
            ("permissionMode", "**Permission mode:**"),
            ("permissionMode", "permission mode:"),
        ];
        for format in ["text", "md"] {
            let args = ["--to", format, "--color", "never", "--from", from, "-"];
            let out = stdout_of(&args, input.to_owned());
            for (field, label) in labels.iter().filter(|(f, _)| !told.contains(f)) {
                assert!(!out.contains(label), "{from} {format}, {field}: {out}");
            }
        }
    }
}

/// The text and Markdown headers name the session, as the page's facts and the JSONL do, where
/// the input gives its id (the `init`'s `session_id`), and say nothing of one where it does not
/// (a Gemini `init` without `session_id`).
#[test]
fn the_headers_name_the_session_the_input_gives() {
    let text = stdout_of(
        &["--to", "text", "--color", "never", "--width", "200", "-"],
        PLAN_INIT.replace(r#""session_id":"s""#, r#""session_id":"5eb71b5f-a82a""#),
    );
    let header = text.lines().next().unwrap_or_default();
    assert!(header.ends_with(" · session 5eb71b5f-a82a"), "{text}");
    let md = stdout_of(&["--to", "md", "-"], PLAN_INIT.to_owned());
    assert!(md.contains(" · **Session:** s\n"), "{md}");
    let nameless = concat!(
        r#"{"type":"init","timestamp":"2026-01-01T00:00:00.000Z","model":"auto"}"#,
        "\n",
        r#"{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","role":"user","content":"hi"}"#,
        "\n",
    );
    for format in ["text", "md"] {
        let args = [
            "--to",
            format,
            "--color",
            "never",
            "--from",
            "gemini-stream",
            "-",
        ];
        let out = stdout_of(&args, nameless.to_owned());
        assert!(out.contains("auto"), "{out}");
        assert!(!out.to_lowercase().contains("session"), "{format}: {out}");
    }
}

/// The page's setup line puts a colon before its first fact and a middle dot between the
/// others, whichever facts the input gave: a Claude `init` without a model once read
/// "Setup · default · 2 tools".
#[test]
fn the_setup_line_starts_with_its_first_fact_whatever_it_is() {
    let init = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s","cwd":"/w","permissionMode":"default","tools":["Bash","Read"],"mcp_servers":[]}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"hi"},"session_id":"s"}"#,
        "\n",
    );
    let page = stdout_of(&["--to", "html", "-"], init.to_owned());
    assert!(
        page.contains("<summary>Setup: default · 2 tools</summary>"),
        "{page}"
    );
}
