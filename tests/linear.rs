//! No quadratic path (issue 14 point 2): a run on an input four times larger takes well under
//! sixteen times as long. Each case is compared with itself at two sizes in the same test, in CPU
//! time of the child (which the machine's load does not inflate as it does wall time); the bound
//! (8×) is far from linear (4×) and from quadratic (16×). And memory: a stream ten times larger
//! needs no more (issue 14 point 6).

use std::time::Duration;

/// A Claude Code stream of `turns` assistant turns, each naming a tool call, so that every turn
/// brings new ids (`--stable` numbers them and looks for them in text).
fn stream(turns: usize) -> String {
    let session = "5f0c2a9e-0000-4c1b-9d7e-2b8f1e6a3c10";
    let mut s = format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/x\",\"session_id\":\"{session}\",\"tools\":[\"Bash\"],\"model\":\"m\",\"uuid\":\"init-000000\"}}\n"
    );
    for i in 0..turns {
        s.push_str(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_{i:012}\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{{\"type\":\"text\",\"text\":\"turn {i} after msg_{prev:012}\"}},{{\"type\":\"tool_use\",\"id\":\"toolu_{i:012}\",\"name\":\"Bash\",\"input\":{{\"command\":\"echo {i}\"}}}}]}},\"session_id\":\"{session}\",\"uuid\":\"a-{i:010}\"}}\n",
            prev = i.saturating_sub(1)
        ));
        s.push_str(&format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{i:012}\",\"content\":\"ran toolu_{i:012}\"}}]}},\"session_id\":\"{session}\",\"uuid\":\"u-{i:010}\"}}\n"
        ));
    }
    s
}

/// The smaller CPU time (user + system) of two runs of scribe with `args` over `input`. CPU
/// time, not wall time: other work on the machine slows a run down but does not add to it.
fn best_time(args: &[&str], input: &str) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.jsonl");
    std::fs::write(&path, input).unwrap();
    (0..2)
        .map(|_| {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("scribe"));
            cmd.args(args)
                .env_remove("HOME")
                .stdin(std::fs::File::open(&path).unwrap())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let (status, cpu) = cpu_time(cmd);
            assert_eq!(status, 0, "scribe {args:?}");
            cpu
        })
        .min()
        .expect("two runs")
}

/// Runs `cmd` to its end; its exit status and the CPU time it used (from `wait4`, which reports
/// on that one child, whatever other tests run beside it).
// The child is reaped by `wait4` below, which `Child::wait` cannot do with its rusage.
#[allow(clippy::zombie_processes)]
fn cpu_time(mut cmd: std::process::Command) -> (i32, Duration) {
    let child = cmd.spawn().expect("spawn scribe");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for (`child` is never waited on); the
    // pointers are to live locals.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4: {}", std::io::Error::last_os_error());
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, time(usage.ru_utime) + time(usage.ru_stime))
}

fn assert_linear(args: &[&str]) {
    assert_linear_in("the input", args, &stream, 1_000);
}

#[test]
fn stable_is_linear_in_the_number_of_ids() {
    assert_linear(&["--to", "jsonl", "--stable"]);
}

#[test]
fn stable_html_is_linear_in_the_number_of_ids() {
    assert_linear(&["--to", "html", "--stable"]);
}

/// One assistant message calling `calls` tools in parallel (one stream line per block, as Claude
/// Code writes them), then every result.
fn parallel_calls(calls: usize) -> String {
    let session = "5f0c2a9e-0000-4c1b-9d7e-2b8f1e6a3c11";
    let mut s = format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/x\",\"session_id\":\"{session}\",\"tools\":[\"Bash\"],\"model\":\"m\",\"uuid\":\"init-000001\"}}\n"
    );
    for i in 0..calls {
        s.push_str(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_one\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"toolu_{i:012}\",\"name\":\"Bash\",\"input\":{{\"command\":\"echo {i}\"}}}}]}},\"session_id\":\"{session}\"}}\n"
        ));
    }
    for i in 0..calls {
        s.push_str(&format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{i:012}\",\"content\":\"{i}\"}}]}},\"session_id\":\"{session}\"}}\n"
        ));
    }
    s
}

#[test]
fn many_calls_in_one_message_are_linear_in_every_format() {
    // 100 000 calls in one message must not take minutes (issue 14): 1 000 vs 4 000 here.
    let small = parallel_calls(1_000);
    let large = parallel_calls(4_000);
    for to in ["jsonl", "html", "md", "text"] {
        let args = ["--to", to];
        let t_small = best_time(&args, &small);
        let t_large = best_time(&args, &large);
        let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
        assert!(
            ratio < 8.0,
            "--to {to}: 4x the calls took {ratio:.1}x the time ({t_small:?} -> {t_large:?})"
        );
    }
}

/// `agents` Agent calls, each in a message of its own and each with a sub-agent thread (a
/// prompt, a tool call and its result, a last word), whose results all come at the end: every
/// top-level turn waits for its call, and each result must find its turn among all of them.
fn waiting_subagents(agents: usize) -> String {
    let session = "5f0c2a9e-0000-4c1b-9d7e-2b8f1e6a3c13";
    let line = |v: serde_json::Value| format!("{v}\n");
    let mut s = line(
        serde_json::json!({"type": "system", "subtype": "init", "cwd": "/x",
        "session_id": session, "tools": ["Agent", "Bash"], "model": "m", "uuid": "init"}),
    );
    let assistant = |id: String, parent: Option<&str>, content: serde_json::Value| {
        line(
            serde_json::json!({"type": "assistant", "session_id": session,
            "parent_tool_use_id": parent, "message": {"id": id, "role": "assistant",
            "model": "m", "content": content}}),
        )
    };
    let user = |parent: Option<&str>, content: serde_json::Value| {
        line(serde_json::json!({"type": "user", "session_id": session,
            "parent_tool_use_id": parent, "message": {"role": "user", "content": content}}))
    };
    for i in 0..agents {
        let call = format!("toolu_agent_{i:08}");
        let inner = format!("toolu_inner_{i:08}");
        s += &assistant(
            format!("msg_a{i}"),
            None,
            serde_json::json!([{"type": "tool_use",
            "id": call, "name": "Agent", "input": {"description": format!("task {i}"),
            "subagent_type": "Explore", "prompt": format!("look {i}")}}]),
        );
        s += &user(
            Some(&call),
            serde_json::json!([{"type": "text", "text": format!("look {i}")}]),
        );
        s += &assistant(
            format!("msg_s{i}"),
            Some(&call),
            serde_json::json!([{"type": "tool_use",
            "id": inner, "name": "Bash", "input": {"command": "ls"}}]),
        );
        s += &user(
            Some(&call),
            serde_json::json!([{"type": "tool_result",
            "tool_use_id": inner, "content": "a"}]),
        );
        s += &assistant(
            format!("msg_t{i}"),
            Some(&call),
            serde_json::json!([{"type": "text", "text": format!("found {i}")}]),
        );
    }
    for i in 0..agents {
        s += &user(
            None,
            serde_json::json!([{"type": "tool_result",
            "tool_use_id": format!("toolu_agent_{i:08}"), "content": format!("report {i}")}]),
        );
    }
    s
}

#[test]
fn many_waiting_subagents_are_linear() {
    // Each result used to look for its turn by a scan of every pending turn: 2 500 such
    // sub-agents took 0.2 s and 20 000 took 9 s (release build).
    // The fold is the same for every format: one is timed (a debug build: 2 500 → 10 000 took
    // 4.0x the time after the fix, 11.5x before it).
    let args = ["--to", "jsonl"];
    let t_small = best_time(&args, &waiting_subagents(2_500));
    let t_large = best_time(&args, &waiting_subagents(10_000));
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    eprintln!("4x the sub-agents: {ratio:.1}x the time ({t_small:?} -> {t_large:?})");
    assert!(
        ratio < 8.0,
        "4x the sub-agents took {ratio:.1}x the time ({t_small:?} -> {t_large:?})"
    );
}

/// A stream whose one call reads `file`, `lines` lines of `line` each.
fn file_read(file: &str, line: &str, lines: usize) -> String {
    let session = "5f0c2a9e-0000-4c1b-9d7e-2b8f1e6a3c12";
    let content = format!("{line}\n").repeat(lines);
    let call = serde_json::json!({"type": "assistant", "session_id": session, "message": {
    "id": "msg_read", "role": "assistant", "model": "m", "content": [
        {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": file}}
    ]}});
    let result = serde_json::json!({"type": "user", "session_id": session, "message": {
    "role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_read", "content": content}
    ]}});
    format!("{call}\n{result}\n")
}

#[test]
fn highlighting_is_linear_in_the_length_of_a_line() {
    // Lines four times longer (up to the 2 000 bytes a line is highlighted), as many of them.
    // The lexer asks of every word whether only spaces come before it (a YAML key, a TOML
    // key), and of every run of backticks in Markdown where its closing run is: answered by a
    // scan of the line, each is quadratic (a scan of what comes before each word took 9.8x).
    let cases = [
        ("f.yaml", "key: ", "word "),
        ("f.md", "text ", "` `` ``` "),
        ("f.toml", "k = ", "[1, 'a'] "),
    ];
    for (file, start, unit) in cases {
        let line = |len: usize| format!("{start}{}", unit.repeat(len / unit.len()));
        let small = file_read(file, &line(480), 2_000);
        let large = file_read(file, &line(1_920), 2_000);
        let args = ["--to", "html"];
        let t_small = best_time(&args, &small);
        let t_large = best_time(&args, &large);
        let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
        assert!(
            ratio < 8.0,
            "{file}: lines 4x longer took {ratio:.1}x the time ({t_small:?} -> {t_large:?})"
        );
    }
}

/// Asserts that `input(4n)` takes well under sixteen times as long as `input(n)` with `args`.
fn assert_linear_in(what: &str, args: &[&str], input: &dyn Fn(usize) -> String, n: usize) {
    let t_small = best_time(args, &input(n));
    let t_large = best_time(args, &input(4 * n));
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    assert!(
        ratio < 8.0,
        "scribe {args:?}: 4x {what} took {ratio:.1}x the time ({t_small:?} -> {t_large:?})"
    );
}

/// Every output format, plain and with `--stable --redact` (the runs each test times).
const EVERY_WAY: [&[&str]; 10] = [
    &["--to", "jsonl"],
    &["--to", "events"],
    &["--to", "html"],
    &["--to", "md"],
    &["--to", "text"],
    &["--to", "jsonl", "--stable", "--redact"],
    &["--to", "events", "--stable", "--redact"],
    &["--to", "html", "--stable", "--redact"],
    &["--to", "md", "--stable", "--redact"],
    &["--to", "text", "--stable", "--redact"],
];

#[test]
fn many_turns_are_linear_in_every_format() {
    // Issue 14: 100 000 turns; 1 000 and 4 000 here (a debug build).
    for args in EVERY_WAY {
        assert_linear_in("the turns", args, &stream, 1_000);
    }
}

/// One streamed assistant message (`--include-partial-messages`): a text block of `deltas`
/// text deltas, a paragraph every tenth, then a tool call whose input arrives in `deltas`
/// pieces of eight bytes; then the whole message and the call's result.
fn streamed_deltas(deltas: usize) -> String {
    let session = "5f0c2a9e-0000-4c1b-9d7e-2b8f1e6a3c14";
    let event = |e: serde_json::Value| {
        format!(
            "{}\n",
            serde_json::json!({"type": "stream_event", "event": e, "session_id": session,
                "parent_tool_use_id": null})
        )
    };
    let mut s = format!(
        "{}\n",
        serde_json::json!({"type": "system", "subtype": "init", "cwd": "/x",
            "session_id": session, "tools": ["Bash"], "model": "m"})
    );
    s.push_str(&event(
        serde_json::json!({"type": "message_start", "message": {
        "id": "msg_deltas", "type": "message", "role": "assistant", "model": "m",
        "content": [], "stop_reason": null}}),
    ));
    s.push_str(&event(
        serde_json::json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "text", "text": ""}}),
    ));
    let mut text = String::new();
    for i in 0..deltas {
        let piece = if i % 10 == 9 {
            format!("w{i}.\n\n")
        } else {
            format!("w{i} ")
        };
        text.push_str(&piece);
        s.push_str(&event(
            serde_json::json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": piece}}),
        ));
    }
    s.push_str(&event(
        serde_json::json!({"type": "content_block_stop", "index": 0}),
    ));
    s.push_str(&event(
        serde_json::json!({"type": "content_block_start", "index": 1,
        "content_block": {"type": "tool_use", "id": "toolu_deltas", "name": "Bash",
            "input": {}}}),
    ));
    let command = format!("echo {}", "abcdefgh".repeat(deltas));
    let input = serde_json::json!({ "command": command }).to_string();
    for piece in input.as_bytes().chunks(8) {
        let piece = std::str::from_utf8(piece).expect("ASCII");
        s.push_str(&event(
            serde_json::json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": piece}}),
        ));
    }
    s.push_str(&event(
        serde_json::json!({"type": "content_block_stop", "index": 1}),
    ));
    s.push_str(&event(serde_json::json!({"type": "message_stop"})));
    s.push_str(&format!(
        "{}\n",
        serde_json::json!({"type": "assistant", "session_id": session, "message": {
            "id": "msg_deltas", "role": "assistant", "model": "m", "content": [
                {"type": "text", "text": text},
                {"type": "tool_use", "id": "toolu_deltas", "name": "Bash",
                    "input": {"command": command}}]}})
    ));
    s.push_str(&format!(
        "{}\n",
        serde_json::json!({"type": "user", "session_id": session, "message": {
            "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_deltas",
                "content": "done"}]}})
    ));
    s
}

#[test]
fn many_deltas_in_one_block_are_linear_in_every_format() {
    // Issue 14: 100 000 deltas in one block; 5 000 and 20 000 here.
    for args in EVERY_WAY {
        assert_linear_in("the deltas", args, &streamed_deltas, 5_000);
    }
}

/// One line holding a text of `kb` KB with no line break in it and a tool output of as many
/// KB of short lines: what a single line of 50 MB holds.
fn one_long_line(kb: usize) -> String {
    let session = "5f0c2a9e-0000-4c1b-9d7e-2b8f1e6a3c15";
    let text = "word <b> & `x` ".repeat(kb * 1024 / 16);
    let output = "output line\n".repeat(kb * 1024 / 12);
    let call = serde_json::json!({"type": "assistant", "session_id": session, "message": {
        "id": "msg_long", "role": "assistant", "model": "m", "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": "toolu_long", "name": "Bash",
                "input": {"command": "cat big"}}]}});
    let result = serde_json::json!({"type": "user", "session_id": session, "message": {
        "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_long",
            "content": output}]}});
    format!("{call}\n{result}\n")
}

#[test]
fn one_long_line_is_linear_in_every_format() {
    // Issue 14: a 50 MB single line; 512 KB and 2 MB of each here.
    for args in EVERY_WAY {
        assert_linear_in("the line", args, &one_long_line, 512);
    }
}

#[test]
fn a_stream_ten_times_larger_needs_no_more_memory() {
    // Issue 14: a stream is folded as it is read; only the open turn is held. Not timed: the
    // peak resident set size of the child is compared (see `util::peak_rss_kib`).
    let dir = tempfile::tempdir().unwrap();
    for to in ["jsonl", "html"] {
        let mut peaks = Vec::new();
        for turns in [3_000, 30_000] {
            let input = dir.path().join(format!("s{turns}.jsonl"));
            if !input.exists() {
                std::fs::write(&input, stream(turns)).unwrap();
            }
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("scribe"));
            cmd.args(["--to", to])
                .arg(&input)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            let (status, kib) = crate::util::peak_rss_kib(cmd);
            assert_eq!(status, 0);
            let mib = std::fs::metadata(&input).unwrap().len() >> 20;
            eprintln!("--to {to}, {turns} turns ({mib} MiB): peak RSS {kib} KiB");
            peaks.push(kib);
        }
        assert!(peaks[0] > 0 && peaks[1] > 0, "the peaks were read");
        // The file grows by ~14 MiB; a fold that kept it would grow by as much.
        assert!(
            peaks[1] < peaks[0] * 3 / 2 + 2 * 1024,
            "--to {to}: peak RSS {peaks:?} KiB grows with the stream"
        );
    }
}

#[test]
fn a_qwen_stream_of_many_calls_needs_no_more_memory() {
    // Qwen Code's stream-json is read by its own adapter (Claude's core, Qwen's tool names and
    // denials): its memory of call names and denied calls grew with every call (9.6 MB of the
    // peak of a 72 MB stream of 80 000 calls) until it was bounded like Claude's.
    let dir = tempfile::tempdir().unwrap();
    let mut peaks = Vec::new();
    for turns in [3_000, 100_000] {
        let input = dir.path().join(format!("q{turns}.jsonl"));
        let qwen = stream(turns).replacen(
            "\"subtype\":\"init\",",
            "\"subtype\":\"init\",\"qwen_code_version\":\"0.1.0\",",
            1,
        );
        std::fs::write(&input, qwen).unwrap();
        let output = dir.path().join(format!("q{turns}.out.jsonl"));
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("scribe"));
        cmd.args(["--to", "jsonl"])
            .arg(&input)
            .stdout(std::fs::File::create(&output).unwrap())
            .stderr(std::process::Stdio::null());
        let (status, kib) = crate::util::peak_rss_kib(cmd);
        assert_eq!(status, 0);
        let written = std::fs::read_to_string(&output).unwrap();
        let header = written.lines().next().unwrap_or("");
        assert!(
            header.contains("\"source\":\"qwen-stream\""),
            "read as Qwen's stream-json: {header}"
        );
        eprintln!("qwen stream, {turns} turns: peak RSS {kib} KiB");
        peaks.push(kib);
    }
    assert!(
        peaks[1] < peaks[0] * 3 / 2 + 2 * 1024,
        "peak RSS {peaks:?} KiB grows with the stream"
    );
}
