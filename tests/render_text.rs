//! `--to text`: goldens over samples/ (plain and coloured, the coloured one also stored in a
//! readable `[bold blue]…[/]` form), the whole corpus, hostile content, colour decisions and the
//! live view.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use crate::util::{corpus, files_under, root, sample, scribe};

/// Compares `actual` with `tests/golden/<name>`; `BLESS=1` rewrites the golden instead.
pub(crate) fn golden(name: &str, actual: &[u8]) {
    let path = root().join("tests/golden").join(name);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let want = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display()));
    assert!(
        want == actual,
        "{name} differs from its golden.\n--- want\n{}\n--- got\n{}",
        String::from_utf8_lossy(&want),
        String::from_utf8_lossy(actual)
    );
}

/// Turns scribe's escape sequences into readable tags: SGR as `[bold blue]` … `[/]`, OSC 8 as
/// `[link URL]` … `[/link]`. Panics on any other escape sequence (none may exist).
pub(crate) fn readable(bytes: &[u8]) -> String {
    let s = String::from_utf8(bytes.to_vec()).expect("UTF-8 output");
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find('\x1b') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if let Some(r) = rest.strip_prefix("\x1b[") {
            let end = r.find('m').expect("SGR ends with m");
            let codes = &r[..end];
            assert!(
                codes.bytes().all(|b| b.is_ascii_digit() || b == b';'),
                "not an SGR sequence: {codes:?}"
            );
            if codes == "0" {
                out.push_str("[/]");
            } else {
                let names: Vec<&str> = codes.split(';').map(sgr_name).collect();
                out.push_str(&format!("[{}]", names.join(" ")));
            }
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix("\x1b]8;;") {
            let end = r.find("\x1b\\").expect("OSC 8 ends with ST");
            let url = &r[..end];
            assert!(
                url.bytes().all(|b| (0x21..0x7f).contains(&b)),
                "bad URL {url:?}"
            );
            if url.is_empty() {
                out.push_str("[/link]");
            } else {
                out.push_str(&format!("[link {url}]"));
            }
            rest = &r[end + 2..];
        } else {
            panic!(
                "an escape sequence scribe does not write: {:?}",
                &rest[..rest.len().min(20)]
            );
        }
    }
    out.push_str(rest);
    out
}

fn sgr_name(code: &str) -> &'static str {
    match code {
        "1" => "bold",
        "2" => "dim",
        "3" => "italic",
        "4" => "underline",
        "9" => "strike",
        "31" => "red",
        "32" => "green",
        "33" => "yellow",
        "34" => "blue",
        "35" => "magenta",
        "36" => "cyan",
        "37" => "white",
        other => panic!("unexpected SGR code {other}"),
    }
}

fn text(args: &[&str], input: &Path) -> Vec<u8> {
    let out = scribe()
        .args(args)
        .arg(input)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn text_is_the_default_format() {
    let out = text(&[], &sample("render-demo.jsonl"));
    let s = String::from_utf8(out).unwrap();
    assert!(
        s.contains("⏺ Bash(grep -n 'def render' -r widgets/)"),
        "{s}"
    );
}

#[test]
fn golden_plain() {
    let out = text(&["--width", "80"], &sample("render-demo.jsonl"));
    assert!(!out.contains(&0x1b), "an escape byte with colour off");
    golden("render-demo.txt", &out);
    let out = text(
        &["--width", "60", "--thinking", "--full"],
        &sample("render-demo.jsonl"),
    );
    golden("render-demo.full.txt", &out);
    golden(
        "subagent.txt",
        &text(&["--width", "80"], &sample("subagent.jsonl")),
    );
    golden(
        "subagent.full.txt",
        &text(&["--width", "80", "--full"], &sample("subagent.jsonl")),
    );
}

#[test]
fn golden_coloured() {
    let out = text(
        &["--color", "always", "--thinking", "--width", "80"],
        &sample("render-demo.jsonl"),
    );
    golden("render-demo.ansi", &out);
    golden("render-demo.ansi.txt", readable(&out).as_bytes());
}

#[test]
fn colour_follows_the_environment() {
    let demo = sample("render-demo.jsonl");
    let has_esc = |cmd: &mut assert_cmd::Command| {
        cmd.arg(&demo)
            .assert()
            .success()
            .get_output()
            .stdout
            .contains(&0x1b)
    };
    // stdout is a pipe here: auto means no colour…
    assert!(!has_esc(&mut scribe()));
    // …unless CLICOLOR_FORCE says otherwise; NO_COLOR does not beat --color always.
    assert!(has_esc(scribe().env("CLICOLOR_FORCE", "1")));
    assert!(!has_esc(scribe().env("CLICOLOR_FORCE", "0")));
    assert!(has_esc(
        scribe().env("NO_COLOR", "1").args(["--color", "always"])
    ));
    assert!(!has_esc(
        scribe()
            .env("CLICOLOR_FORCE", "1")
            .args(["--color", "never"])
    ));
}

/// Every control byte in `out` must be a line feed or belong to one of scribe's own sequences.
fn assert_no_content_controls(out: &[u8], what: &str) {
    let tagged = readable(out); // panics on any escape sequence scribe does not write
    for c in tagged.chars() {
        assert!(
            c == '\n'
                || !(c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c) || c == '\u{200b}'),
            "{what}: control or bidi character {c:?} in the output"
        );
    }
    for bad in [
        "pwned\x07",
        "\x1b]0;",
        "\x1b]52",
        "\x1b[2J",
        "http://evil.example\x1b",
    ] {
        assert!(
            !String::from_utf8_lossy(out).contains(bad),
            "{what}: {bad:?} got through"
        );
    }
    assert!(
        tagged.contains("\\x1b]0;pwned\\x07"),
        "{what}: the title sequence is not shown"
    );
    assert!(
        tagged.contains("<U+202E>"),
        "{what}: the bidi override is not shown"
    );
    assert!(tagged.contains("\\r"), "{what}: the lone CR is not shown");
}

#[test]
fn hostile_content_never_reaches_the_terminal() {
    let hostile = sample("hostile.jsonl");
    for color in ["never", "always", "auto"] {
        for extra in [&[][..], &["--thinking", "--context", "--full"][..]] {
            for env in [None, Some("CLICOLOR_FORCE")] {
                let mut cmd = scribe();
                if let Some(v) = env {
                    cmd.env(v, "1");
                }
                let out = cmd
                    .args(["--color", color])
                    .args(extra)
                    .arg(&hostile)
                    .assert()
                    .success()
                    .get_output()
                    .stdout
                    .clone();
                assert_no_content_controls(
                    &out,
                    &format!("text --color {color} {extra:?} {env:?}"),
                );
            }
        }
        let out = scribe()
            .args(["--to", "md", "--thinking", "--context", "--color", color])
            .arg(&hostile)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        assert!(!out.contains(&0x1b), "md has an escape byte");
        assert_no_content_controls(&out, "md");
    }
}

#[test]
fn hostile_golden() {
    let out = text(
        &[
            "--color",
            "always",
            "--thinking",
            "--context",
            "--width",
            "80",
        ],
        &sample("hostile.jsonl"),
    );
    golden("hostile.ansi.txt", readable(&out).as_bytes());
}

#[test]
fn lines_fit_the_width() {
    assert_lines_fit_the_width(vec![sample("render-demo.jsonl"), sample("hostile.jsonl")]);
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn lines_of_every_corpus_stream_fit_the_width() {
    assert_lines_fit_the_width(files_under(&corpus().join("claude-code"), &|p| {
        p.file_name().unwrap().to_string_lossy() == "stream.jsonl"
    }));
}

/// Every line of the terminal view of each input, everything shown, fits 24 and 50 columns.
fn assert_lines_fit_the_width(inputs: Vec<PathBuf>) {
    for path in inputs {
        for width in [24usize, 50] {
            let out = text(
                &[
                    "--width",
                    &width.to_string(),
                    "--full",
                    "--thinking",
                    "--context",
                ],
                &path,
            );
            for line in String::from_utf8(out).unwrap().lines() {
                assert!(
                    line.chars().count() <= width,
                    "{} at {width}: {line:?}",
                    path.display()
                );
            }
        }
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_corpus_stream_renders() {
    let dir = corpus();
    let streams = files_under(&dir.join("claude-code"), &|p| {
        let name = p.file_name().unwrap().to_string_lossy();
        name.starts_with("stream") && name.ends_with(".jsonl")
    });
    assert!(streams.len() >= 18, "found {} streams", streams.len());
    for path in streams {
        for args in [
            &["--to", "text"][..],
            &[
                "--to",
                "text",
                "--color",
                "always",
                "--full",
                "--thinking",
                "--context",
            ][..],
            &["--to", "md"][..],
            &["--to", "md", "--thinking", "--context"][..],
        ] {
            let out = scribe()
                .args(args)
                .arg(&path)
                .assert()
                .success()
                .get_output()
                .clone();
            assert!(
                out.stderr.is_empty(),
                "{} {args:?}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                !out.stdout.is_empty(),
                "{} {args:?}: no output",
                path.display()
            );
            if !args.contains(&"always") {
                assert!(
                    !out.stdout.contains(&0x1b),
                    "{} {args:?}: escape byte",
                    path.display()
                );
            } else {
                readable(&out.stdout);
            }
        }
    }
}

/// Runs scribe as a child fed `lines` one by one with pauses, reading its stdout as it comes.
/// Once line `wait_after` has been written, waits (bounded, only against a hang) until `words`
/// show up. Returns the index of the last line written before `words` appeared (None if they
/// never did while the input was open) and the whole output.
fn feed_live(lines: &[&str], wait_after: usize, words: &str) -> (Option<usize>, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("scribe"))
        .args(["--to", "text", "--color", "never"])
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn scribe");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let reader = thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        let mut line = String::new();
        while r.read_line(&mut line).unwrap_or(0) > 0 {
            if tx.send(std::mem::take(&mut line)).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let mut shown_at = None;
    for (i, l) in lines.iter().enumerate() {
        writeln!(stdin, "{l}").unwrap();
        stdin.flush().unwrap();
        thread::sleep(Duration::from_millis(20));
        while let Ok(chunk) = rx.try_recv() {
            seen.push_str(&chunk);
        }
        if i == wait_after {
            while !seen.contains(words) {
                match rx.recv_timeout(Duration::from_secs(30)) {
                    Ok(chunk) => seen.push_str(&chunk),
                    Err(_) => break,
                }
            }
        }
        if shown_at.is_none() && seen.contains(words) {
            shown_at = Some(i);
        }
    }
    drop(stdin);
    reader.join().unwrap();
    while let Ok(chunk) = rx.try_recv() {
        seen.push_str(&chunk);
    }
    assert!(child.wait().unwrap().success());
    (shown_at, seen)
}

/// The terminal view of the file `path`, without colour.
fn whole(path: &Path) -> String {
    crate::util::converted(path, &["--to", "text", "--color", "never"])
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn live_text_appears_before_the_input_ends_and_only_once() {
    let dir = corpus();
    let path = dir.join("claude-code/10-partial-messages/stream.jsonl");
    let input = std::fs::read_to_string(&path).expect("corpus stream");
    let lines: Vec<&str> = input.lines().collect();
    let (first_words, last_words) = ("Let me check.", "The kernel is Linux.");
    let first_text_line = lines.iter().position(|l| l.contains(first_words)).unwrap();
    let (shown_at, seen) = feed_live(&lines, first_text_line + 2, first_words);
    let shown_at = shown_at.expect("the first words never appeared while the input was open");
    assert!(
        shown_at + 1 < lines.len(),
        "the first words came only with the last line"
    );
    for sentence in [first_words, last_words] {
        assert_eq!(
            seen.matches(sentence).count(),
            1,
            "{sentence:?} in:\n{seen}"
        );
    }
    // The same bytes as a run over the whole file.
    assert_eq!(seen, whole(&path));
}

#[test]
fn streamed_paragraphs_print_as_they_complete_and_once() {
    let path = sample("partial-paragraphs.jsonl");
    let input = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = input.lines().collect();
    // The delta that ends the first paragraph (its blank line) — before the message's frame.
    let delta = lines
        .iter()
        .position(|l| l.contains("\\n\\nSecond"))
        .unwrap();
    let frame = lines
        .iter()
        .position(|l| l.contains("\"type\": \"assistant\""))
        .unwrap();
    assert!(delta < frame);
    let first = "First paragraph, streamed.";
    let (shown_at, seen) = feed_live(&lines, delta, first);
    assert_eq!(
        shown_at,
        Some(delta),
        "the paragraph did not show when it was complete"
    );
    for s in [
        first,
        "Second paragraph, with a list:",
        "• two",
        "more code",
        "Last words.",
    ] {
        assert_eq!(seen.matches(s).count(), 1, "{s:?} in:\n{seen}");
    }
    // Deltas or not, the output is the same bytes.
    assert_eq!(seen, whole(&sample("partial-paragraphs.nodeltas.jsonl")));
    golden("partial-paragraphs.txt", seen.as_bytes());
}

#[test]
fn a_stream_cut_after_its_deltas_prints_each_paragraph_once() {
    let out = whole(&sample("partial-cut.jsonl"));
    for s in [
        "First paragraph, streamed.",
        "Second paragraph",
        "more code",
        "Last words.",
    ] {
        assert_eq!(out.matches(s).count(), 1, "{s:?} in:\n{out}");
    }
}

#[test]
fn no_generated_content_reaches_the_terminal_raw() {
    const PIECES: &[&str] = &[
        "\x1b",
        "\x07",
        "\u{9b}",
        "\r",
        "\r\n",
        "\n",
        "\n\n",
        "\t",
        "\u{202e}",
        "\u{2066}",
        "\u{200b}",
        "\u{feff}",
        "\x1b[2J",
        "\x1b]0;t\x07",
        "\x1b]8;;http://e\x1b\\",
        "[a](http://x\x1b)",
        "**",
        "`",
        "```",
        "- ",
        "> ",
        "| a |\n|---|\n",
        "text",
        " ",
        "\u{85}",
        "\x00",
        "\x7f",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut nasty = || -> String {
        let n = 1 + next() % 20;
        (0..n)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    for case in 0..40 {
        let lines = [
            serde_json::json!({"type":"system","subtype":"init","cwd":nasty(),"session_id":"s","tools":["Bash"],"mcp_servers":[{"name":nasty(),"status":"connected"}],"model":nasty(),"permissionMode":"default","uuid":"i"}),
            serde_json::json!({"type":"user","message":{"role":"user","content":nasty()},"parent_tool_use_id":null,"session_id":"s","uuid":"p"}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"thinking","thinking":nasty(),"signature":"x"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a0"}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":nasty()}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a1"}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":nasty(),"input":{"command":nasty(),"file_path":nasty()}}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a2"}),
            serde_json::json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":nasty(),"is_error":case % 2 == 0}]},"parent_tool_use_id":null,"session_id":"s","uuid":"r1"}),
            serde_json::json!({"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"retry_delay_ms":10,"error_status":529,"error":nasty(),"session_id":"s","uuid":"x"}),
            serde_json::json!({"type":"result","subtype":nasty(),"is_error":true,"num_turns":1,"errors":[nasty()],"session_id":"s","uuid":"r"}),
        ];
        let path = dir.path().join(format!("case{case}.jsonl"));
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, body).unwrap();
        for args in [
            &["--color", "always", "--thinking", "--context", "--full"][..],
            &["--color", "never", "--thinking", "--context", "--full"][..],
            &["--to", "md", "--thinking", "--context"][..],
        ] {
            let out = scribe()
                .args(args)
                .arg(&path)
                .assert()
                .success()
                .get_output()
                .stdout
                .clone();
            let shown = readable(&out);
            for c in shown.chars() {
                assert!(
                    c == '\n'
                        || c == '\t'
                        || !(c.is_control()
                            || ('\u{202a}'..='\u{202e}').contains(&c)
                            || ('\u{2066}'..='\u{2069}').contains(&c)
                            || c == '\u{200b}'
                            || c == '\u{feff}'),
                    "case {case} {args:?}: {c:?} in\n{shown}"
                );
            }
        }
    }
}

/// "Read N lines" (and the page's card) counts what the harness said it read (the call's
/// `facts`, which the Claude adapter reads from `tool_use_result.file.numLines`), not the lines
/// of the output it kept; a transcript written before calls had `facts` reads the same back.
#[test]
fn lines_read_come_from_the_adapters_facts() {
    let input = concat!(
        r#"{"type":"assistant","message":{"id":"msg_A","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_r","name":"Read","input":{"file_path":"/w/big.rs"}}],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s","uuid":"a1"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_r","content":"1\tfn a() {}\n2\tfn b() {}"}]},"parent_tool_use_id":null,"session_id":"s","uuid":"u1","tool_use_result":{"type":"text","file":{"filePath":"/w/big.rs","numLines":50,"startLine":1,"totalLines":50}}}"#,
        "\n"
    );
    let run = |args: &[&str], stdin: String| {
        let out = scribe()
            .args(args)
            .write_stdin(stdin)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    let text = run(&["--from", "claude-stream", "--width", "100"], input.into());
    assert!(text.contains("Read 50 lines"), "{text}");
    let jsonl = run(&["--from", "claude-stream", "--to", "jsonl"], input.into());
    assert!(jsonl.contains(r#""facts":{"linesRead":50}"#), "{jsonl}");
    // The same transcript without `facts` (as scribe wrote it before they existed).
    let old = jsonl.replace(r#","facts":{"linesRead":50}"#, "");
    assert_ne!(old, jsonl);
    let text = run(&["--width", "100"], old);
    assert!(text.contains("Read 50 lines"), "{text}");
    // The page's card says the same count, not the two lines the output kept.
    let page = run(&["--from", "claude-stream", "--to", "html"], input.into());
    assert!(
        page.contains(r#"<span class="meta">50 lines</span>"#),
        "{page}"
    );
}

/// `--full` shows every tool output whole (conservation_views found it missing): under an
/// edit's diff, a todo checklist and a plan, the tool's own reply is shown too, and only there.
#[test]
fn full_text_shows_the_tool_reply_under_an_edit_a_todo_list_and_a_plan() {
    let replies = [
        (
            "demo.jsonl",
            "The file /home/dev/calc/src/calc.rs has been updated.",
        ),
        ("demo.jsonl", "Todos have been modified successfully."),
        ("render-demo.jsonl", "User has approved your plan."),
    ];
    for (file, reply) in replies {
        let args = ["--color", "never", "--width", "65535"];
        let full =
            String::from_utf8(text(&[&args[..], &["--full"]].concat(), &sample(file))).unwrap();
        assert!(
            full.contains(reply),
            "{file} --full lacks {reply:?}:\n{full}"
        );
        let short = String::from_utf8(text(&args, &sample(file))).unwrap();
        assert!(
            !short.contains(reply),
            "{file} without --full shows {reply:?}"
        );
    }
}

/// An MCP call's arguments were in no text view (conservation_views): `--full` shows them under
/// the call's head, the default view keeps the one-line head.
#[test]
fn full_text_shows_an_mcp_calls_arguments() {
    let file = sample("claude-stream/fold-mcp-and-server-tools.jsonl");
    let args = ["--color", "never", "--width", "65535"];
    let full = String::from_utf8(text(&[&args[..], &["--full"]].concat(), &file)).unwrap();
    assert!(
        full.contains("│ {") && full.contains(r#""query": "fold""#),
        "{full}"
    );
    let short = String::from_utf8(text(&args, &file)).unwrap();
    assert!(!short.contains(r#""query": "fold""#), "{short}");
}

/// A failed call's output beside its error text was in no text or Markdown view
/// (conservation_views, Gemini's `output` beside `error.message`): both are shown.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn a_failed_calls_output_beside_its_error_is_shown() {
    let dir = corpus();
    let file = dir.join("gemini-cli/mcp/stream.jsonl");
    let args = ["--color", "never", "--width", "65535"];
    let shown = String::from_utf8(text(&args, &file)).unwrap();
    let md = String::from_utf8(text(&["--to", "md"], &file)).unwrap();
    for view in [&shown, &md] {
        assert!(
            view.contains("MCP tool 'fail' reported an error."),
            "{view}"
        );
        assert!(view.contains("testing the error path"), "{view}");
    }
}

/// A structured output's own reply was in no text view (conservation_views): `--full` shows it
/// under the JSON.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn full_text_shows_a_structured_outputs_reply() {
    let dir = corpus();
    let file = dir.join("claude-code/20-structured-output/stream.jsonl");
    let args = ["--color", "never", "--width", "65535", "--full"];
    let shown = String::from_utf8(text(&args, &file)).unwrap();
    assert!(
        shown.contains("Structured output provided successfully"),
        "{shown}"
    );
}
