//! `--to text`: goldens over samples/ (plain and coloured, the coloured one also stored in a
//! readable `[bold blue]…[/]` form), the whole corpus, hostile content, colour decisions and the
//! live view.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
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
        tagged.contains("\\u{202e}"),
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
fn every_corpus_stream_renders() {
    let Some(dir) = corpus() else { return };
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

#[test]
fn live_text_appears_before_the_input_ends_and_only_once() {
    let Some(dir) = corpus() else { return };
    let input = std::fs::read_to_string(dir.join("claude-code/10-partial-messages/stream.jsonl"))
        .expect("corpus stream");
    let lines: Vec<&str> = input.lines().collect();
    let first_words = "Let me check.";
    let last_words = "The kernel is Linux.";
    // The line that carries the message's last frame for the first text block.
    let first_text_line = lines
        .iter()
        .position(|l| l.contains(first_words))
        .expect("the stream has the first sentence");

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
        if i == first_text_line + 2 && shown_at.is_none() {
            // Give the child all the time it needs (no timing assertion: this only bounds a hang).
            while !seen.contains(first_words) {
                match rx.recv_timeout(Duration::from_secs(30)) {
                    Ok(chunk) => seen.push_str(&chunk),
                    Err(_) => break,
                }
            }
        }
        if shown_at.is_none() && seen.contains(first_words) {
            shown_at = Some(i);
        }
    }
    let shown_at = shown_at.expect("the first words never appeared while the input was open");
    assert!(
        shown_at < lines.len() - 1,
        "the first words appeared only with the last input line"
    );
    assert!(!seen.contains(last_words) || shown_at < lines.len() - 1);
    drop(stdin);
    let mut rest = String::new();
    reader.join().unwrap();
    while let Ok(chunk) = rx.try_recv() {
        rest.push_str(&chunk);
    }
    seen.push_str(&rest);
    assert!(child.wait().unwrap().success());
    for sentence in [first_words, last_words] {
        assert_eq!(
            seen.matches(sentence).count(),
            1,
            "{sentence:?} in:\n{seen}"
        );
    }
    // The same bytes as a run over the whole file.
    let whole = scribe()
        .args(["--to", "text", "--color", "never"])
        .arg(dir.join("claude-code/10-partial-messages/stream.jsonl"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(seen, String::from_utf8(whole).unwrap());
}
