//! `--jobs N` with `--output-dir` (issue 14 point 4): inputs converted side by side give the same
//! files, the same names, the same index and the same stderr as one at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::{root, scribe};

/// Every file in `dir` by name, with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The inputs: every top-level sample (several share a session id, so names get `-2`
/// suffixes in input order), the saved sessions of a directory, a missing file and a file that
/// is not JSON Lines.
fn inputs(scratch: &Path) -> Vec<PathBuf> {
    let samples = root().join("samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let prose = scratch.join("prose.jsonl");
    std::fs::write(&prose, "not json\nat all\n").unwrap();
    files.push(samples.join("claude-session"));
    files.push(scratch.join("missing.jsonl"));
    files.push(prose);
    // The same sessions again: every name is taken once already.
    files.extend(files.clone().into_iter().take(6));
    files
}

#[test]
fn jobs_one_and_jobs_four_write_the_same_bytes_under_the_same_names() {
    let scratch = tempfile::tempdir().unwrap();
    let inputs = inputs(scratch.path());
    for to in ["html", "jsonl"] {
        let mut runs = Vec::new();
        for jobs in ["1", "4"] {
            let dir = scratch.path().join(format!("{to}-{jobs}"));
            let out = scribe()
                .args(["--to", to, "--jobs", jobs, "-o"])
                .arg(&dir)
                .args(&inputs)
                .output()
                .unwrap();
            runs.push((out.status.code(), out.stderr, contents(&dir)));
        }
        let (one, four) = (&runs[0], &runs[1]);
        assert!(one.2.len() > 20, "{to}: files written: {:?}", one.2.keys());
        assert!(
            one.2.keys().any(|n| n.contains("-2.")),
            "{to}: a name taken twice gets a suffix"
        );
        assert_eq!(one.0, Some(2), "{to}: the missing file is trouble");
        assert_eq!(
            one.2.keys().collect::<Vec<_>>(),
            four.2.keys().collect::<Vec<_>>(),
            "{to}: the same names"
        );
        for (name, bytes) in &one.2 {
            assert!(four.2[name] == *bytes, "{to}: {name} differs with --jobs 4");
        }
        assert_eq!(one.0, four.0, "{to}: the same exit status");
        assert_eq!(
            String::from_utf8_lossy(&one.1),
            String::from_utf8_lossy(&four.1),
            "{to}: the same diagnostics, in input order"
        );
    }
}

/// Several inputs on standard output (issue 14 point 4): rendered side by side with `--jobs 4`
/// (the formats whose output for an input stands alone) and one at a time with `--jobs 1`, the
/// same bytes on stdout and stderr and the same exit status, in every format that takes several
/// inputs there, with and without `--stable` and `--stats`.
#[test]
fn several_inputs_on_standard_output_are_the_same_with_any_jobs() {
    let scratch = tempfile::tempdir().unwrap();
    let inputs = inputs(scratch.path());
    for to in ["jsonl", "events", "md", "text"] {
        for extra in [&[][..], &["--stable", "--stats"][..]] {
            let run = |jobs: &str| {
                scribe()
                    .args(["--to", to, "--jobs", jobs])
                    .args(extra)
                    .args(&inputs)
                    .output()
                    .unwrap()
            };
            let (one, four) = (run("1"), run("4"));
            assert!(one.stdout.len() > 10_000, "{to} {extra:?}: output written");
            assert_eq!(
                one.status.code(),
                Some(2),
                "{to}: the missing file is trouble"
            );
            assert!(
                one.stdout == four.stdout,
                "{to} {extra:?}: standard output differs with --jobs 4"
            );
            assert_eq!(
                String::from_utf8_lossy(&one.stderr),
                String::from_utf8_lossy(&four.stderr),
                "{to} {extra:?}: the same diagnostics, in input order"
            );
            assert_eq!(
                one.status.code(),
                four.status.code(),
                "{to}: the same exit status"
            );
        }
    }
}

/// Several inputs on standard output whose reader goes away: the run stops quietly, as with one
/// input (no error about the closed pipe, no panic), whatever `--jobs` is.
#[cfg(unix)]
#[test]
fn several_inputs_into_a_closed_pipe_stop_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let scratch = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    for i in 0..40 {
        let p = scratch.path().join(format!("s{i}.jsonl"));
        std::fs::copy(root().join("samples/demo.jsonl"), &p).unwrap();
        inputs.push(p);
    }
    for jobs in ["1", "4"] {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("scribe"))
            .args(["--to", "md", "--jobs", jobs])
            .args(&inputs)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 64];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // Standard output is closed here (dropped): the next write fails with a broken pipe.
        let done = child.wait_with_output().unwrap();
        let (status, err) = (done.status, String::from_utf8_lossy(&done.stderr));
        assert!(
            !err.contains("panicked") && !err.to_lowercase().contains("broken pipe"),
            "--jobs {jobs}: {err}"
        );
        assert!(
            status.code().is_some(),
            "--jobs {jobs}: exited, not killed: {status:?}"
        );
    }
}

#[test]
fn strict_converts_one_input_at_a_time_and_stops_at_the_first_error() {
    let scratch = tempfile::tempdir().unwrap();
    let bad = scratch.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"type\":\"user\"\n").unwrap();
    let dir = scratch.path().join("out");
    let out = scribe()
        .args(["--strict", "--jobs", "4", "--to", "jsonl", "-o"])
        .arg(&dir)
        .arg(&bad)
        .arg(root().join("samples/demo.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !names.iter().any(|n| n.starts_with("5f0c2a9e")),
        "the input after the error is not converted: {names:?}"
    );
}

/// A stream whose one assistant turn per line carries a 60 KB JSON fence.
fn code_heavy_stream(path: &Path, session: &str, turns: usize) {
    let line = "  {\"id\": 12, \"ok\": true, \"tags\": [\"a\", \"b\"], \"note\": null},\n";
    let fence = format!("```json\n{}```", line.repeat(60_000 / line.len()));
    let mut s = String::new();
    for i in 0..turns {
        let row = serde_json::json!({
            "type": "assistant",
            "session_id": session,
            "message": {"id": format!("m{i}"), "role": "assistant", "model": "m",
                        "content": [{"type": "text", "text": fence}]}
        });
        s.push_str(&row.to_string());
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

/// Pages rendered side by side are the pages rendered one at a time, and every code block of
/// each is highlighted, however much code the page holds (a page once highlighted only its
/// first 512 KB of code, and pages side by side shared that budget, issue 14).
#[test]
fn pages_rendered_side_by_side_highlight_every_block_as_alone() {
    let scratch = tempfile::tempdir().unwrap();
    let inputs: Vec<PathBuf> = (0..2)
        .map(|k| {
            let p = scratch.path().join(format!("code{k}.jsonl"));
            code_heavy_stream(&p, &format!("s{k}"), 20);
            p
        })
        .collect();
    let mut runs = Vec::new();
    for jobs in ["1", "2"] {
        let dir = scratch.path().join(format!("out-{jobs}"));
        let out = scribe()
            .args(["--to", "html", "--jobs", jobs, "-o"])
            .arg(&dir)
            .args(&inputs)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        runs.push(contents(&dir));
    }
    for (name, bytes) in &runs[0] {
        let page = String::from_utf8_lossy(bytes);
        if name.ends_with(".html") && name != "index.html" {
            let highlighted = page
                .split("<pre class=\"code hl\">")
                .skip(1)
                .filter(|b| {
                    b.split("</pre>")
                        .next()
                        .unwrap_or("")
                        .contains("<span class=\"h-")
                })
                .count();
            assert_eq!(
                highlighted, 20,
                "{name}: every block of 60 KB, 1.2 MB of code"
            );
        }
        assert!(runs[1][name] == *bytes, "{name} differs with --jobs 2");
    }
}

/// A stream whose turns each carry every kind of block the page highlights: a Rust fence
/// between Markdown, a numbered file read longer than its preview, an edit's diff, then a long
/// command output that is never highlighted; some outputs are megabytes of page at once.
fn mixed_code_stream(path: &Path, turns: usize) {
    let code = |i: usize, n: usize| {
        (0..n)
            .map(|k| format!("fn f{i}_{k}(x: u32) -> &'static str {{ if x > {k} {{ \"<b>\" }} else {{ \"&\" }} }} // {k}\n"))
            .collect::<String>()
    };
    let mut s = String::new();
    for i in 0..turns {
        let text = format!(
            "Turn {i}, *some* prose.\n\n```rust\n{}```\n\n- a list\n- with `code`\n\n```python\ndef g{i}():\n    return '<i>'\n```\n",
            code(i, 20 + i % 7)
        );
        let read: String = code(i, 120)
            .lines()
            .enumerate()
            .map(|(n, l)| format!("{:>6}\t{l}\n", n + 1))
            .collect();
        // Every twentieth output is more page at once than the window holds.
        let lines = if i % 20 == 10 { 25_000 } else { 800 };
        let log = format!("line {i} of a build log, <nothing> to highlight & more\n").repeat(lines);
        let row = |v: serde_json::Value| {
            s.push_str(&v.to_string());
            s.push('\n');
        };
        let mut row = row;
        row(serde_json::json!({
            "type": "assistant", "session_id": "mixed",
            "message": {"id": format!("m{i}"), "role": "assistant", "model": "m", "content": [
                {"type": "text", "text": text},
                {"type": "tool_use", "id": format!("r{i}"), "name": "Read",
                 "input": {"file_path": format!("/p/src/f{i}.rs")}},
                {"type": "tool_use", "id": format!("e{i}"), "name": "Edit",
                 "input": {"file_path": format!("/p/src/f{i}.rs"),
                           "old_string": code(i, 6), "new_string": code(i + 1, 7)}},
                {"type": "tool_use", "id": format!("b{i}"), "name": "Bash",
                 "input": {"command": "make"}}
            ]}
        }));
        row(serde_json::json!({
            "type": "user", "session_id": "mixed",
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("r{i}"), "content": read},
                {"type": "tool_result", "tool_use_id": format!("e{i}"), "content": "ok"},
                {"type": "tool_result", "tool_use_id": format!("b{i}"), "content": log}
            ]}
        }));
    }
    std::fs::write(path, s).unwrap();
}

/// A large page of every kind of highlighted block is the same page with `--jobs 2` as with
/// `--jobs 1`, read from a file or from a pipe, and every
/// fence, file read and diff on it is highlighted while the build logs are not.
#[test]
fn a_page_of_code_on_two_threads_is_the_page_written_alone() {
    let scratch = tempfile::tempdir().unwrap();
    let input = scratch.path().join("mixed.jsonl");
    mixed_code_stream(&input, 40);
    let run = |jobs: &str, stdin: bool| {
        let mut cmd = scribe();
        cmd.args(["--to", "html", "--jobs", jobs]);
        if stdin {
            cmd.arg("-").pipe_stdin(&input).unwrap();
        } else {
            cmd.arg(&input);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (out.stdout, out.stderr)
    };
    let alone = run("1", false);
    let page = String::from_utf8_lossy(&alone.0);
    let highlighted = |open: &str| {
        page.split(open)
            .skip(1)
            .map(|b| b.split("</pre>").next().unwrap_or(""))
            .partition::<Vec<_>, _>(|b| b.contains("<span class=\"h-"))
    };
    for open in [
        "<pre class=\"code hl\">",
        "<pre class=\"out hl\">",
        "<pre class=\"diff hl\">",
    ] {
        let (hl, plain) = highlighted(open);
        assert!(
            hl.len() >= 40 && plain.is_empty(),
            "{open}: every block highlighted ({} and {} plain)",
            hl.len(),
            plain.len()
        );
    }
    let logs = page.matches("<pre class=\"out\">line ").count();
    assert!(logs >= 40, "the build logs are not highlighted: {logs}");
    assert!(page.len() > 2 << 20, "megabytes of page");
    assert!(run("2", false) == alone, "--jobs 2 gives another page");
    // Read from a pipe, the page is named `-`, and the input pauses more often.
    assert!(
        run("2", true) == run("1", true),
        "--jobs 2 gives another page from a pipe"
    );
}

/// One input with `--jobs 2` writes what it writes with `--jobs 1` (one input is always read
/// by the driver of one input): standard output, standard error and the exit status, for
/// every sample in every format, plain, with `--stable`, and with `--include-raw`.
#[test]
fn one_input_on_two_threads_is_the_same_as_on_one() {
    let samples = root().join("samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&samples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl" || e == "sse"))
        .collect();
    files.sort();
    files.push(samples.join("claude-session"));
    assert!(files.len() > 20, "{files:?}");
    let run = |file: &Path, args: &[&str], jobs: &str| {
        let out = scribe()
            .args(args)
            .args(["--jobs", jobs, "--color", "never"])
            .arg(file)
            .output()
            .unwrap();
        (out.status.code(), out.stdout, out.stderr)
    };
    let mut compared = 0;
    for file in &files {
        for to in ["jsonl", "events", "html", "md", "text"] {
            for extra in [&[][..], &["--stable"], &["--include-raw"]] {
                let mut args = vec!["--to", to];
                args.extend_from_slice(extra);
                let one = run(file, &args, "1");
                let two = run(file, &args, "2");
                assert!(
                    one == two,
                    "{} {args:?}: --jobs 1 and --jobs 2 differ",
                    file.display()
                );
                compared += usize::from(!one.1.is_empty());
            }
        }
    }
    assert!(compared > 300, "{compared} runs wrote something");
}

/// A large input in plain `--to jsonl` or `--to events` with `--jobs 2`: the bytes on standard
/// output and the `--stats` account are those of `--jobs 1`.
#[test]
fn a_large_input_in_jsonl_or_events_writes_the_same_on_two_threads_as_on_one() {
    let scratch = tempfile::tempdir().unwrap();
    let sample = std::fs::read(root().join("samples/demo.jsonl")).unwrap();
    let big = scratch.path().join("big.jsonl");
    let copies = (9 << 20) / sample.len() + 1;
    std::fs::write(&big, sample.repeat(copies)).unwrap();
    for to in ["jsonl", "events"] {
        let run = |jobs: &str| {
            let out = scribe()
                .args(["--stats", "--to", to, "--jobs", jobs])
                .arg(&big)
                .output()
                .unwrap();
            assert!(out.status.success(), "--to {to} --jobs {jobs}: {out:?}");
            (out.stdout, out.stderr)
        };
        let (one, one_err) = run("1");
        let (two, two_err) = run("2");
        assert!(one.len() > 1 << 20, "--to {to}: {} bytes", one.len());
        assert!(one == two, "--to {to}: --jobs 2 writes other bytes");
        assert_eq!(
            String::from_utf8_lossy(&one_err),
            String::from_utf8_lossy(&two_err),
            "--to {to}"
        );
    }
}

/// Converts a quick input and one that is a named pipe (whose writer comes `wait` later) into
/// a directory, on a terminal (`script`'s pseudo-terminal) or not, and returns what reached the
/// terminal (or standard error).
#[cfg(target_os = "linux")]
fn convert_while_waiting(on_terminal: bool, wait: std::time::Duration) -> String {
    use std::process::{Command, Stdio};
    let scratch = tempfile::tempdir().unwrap();
    let quick = scratch.path().join("quick.jsonl");
    std::fs::copy(root().join("samples/demo.jsonl"), &quick).unwrap();
    let slow = scratch.path().join("slow.jsonl");
    let made = Command::new("mkfifo").arg(&slow).status().unwrap();
    assert!(made.success(), "mkfifo");
    let out_dir = scratch.path().join("out");
    let bin = assert_cmd::cargo::cargo_bin("scribe");
    let args = |cmd: &mut Command| {
        cmd.arg("--to")
            .arg("md")
            .arg("-o")
            .arg(&out_dir)
            .arg(&quick)
            .arg(&slow);
    };
    let run = if on_terminal {
        let quote = |p: &Path| format!("'{}'", p.display());
        let line = format!(
            "{} --to md -o {} {} {}",
            quote(&bin),
            quote(&out_dir),
            quote(&quick),
            quote(&slow)
        );
        Command::new("script")
            .args(["-qfec", &line, "/dev/null"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("script (util-linux) runs the command on a pseudo-terminal")
    } else {
        let mut cmd = Command::new(&bin);
        args(&mut cmd);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    std::thread::sleep(wait);
    // Opening the pipe waits for scribe to open it too.
    std::fs::write(&slow, std::fs::read(&quick).unwrap()).unwrap();
    let out = run.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 2);
    let screen = if on_terminal { out.stdout } else { out.stderr };
    String::from_utf8_lossy(&screen).into_owned()
}

/// Issue 14 point 4: a conversion into a directory that lasts shows a progress bar on a terminal
/// (the inputs done of all, redrawn while nothing finishes) and erases it at the end; off a
/// terminal, or when the run is quick, standard error holds nothing of it.
#[cfg(target_os = "linux")]
#[test]
fn a_long_conversion_into_a_directory_shows_a_progress_bar_on_a_terminal_only() {
    use std::time::Duration;
    let screen = convert_while_waiting(true, Duration::from_millis(2500));
    let frames = screen.matches("1/2 inputs").count();
    assert!(
        frames >= 2,
        "a bar counting the quick input, redrawn while the slow one waits: {screen:?}"
    );
    assert!(
        screen.ends_with("\r\x1b[2K"),
        "the bar is erased at the end: {screen:?}"
    );
    let quick = convert_while_waiting(true, Duration::ZERO);
    assert!(
        !quick.contains("inputs"),
        "a quick run shows no bar: {quick:?}"
    );
    let piped = convert_while_waiting(false, Duration::from_millis(1500));
    assert!(piped.is_empty(), "no bar off a terminal: {piped:?}");
}
