//! The README's "Using scribe in CI" section, run as written: the commands are read from the
//! README itself, so the test fails when the README and scribe disagree.

use std::path::Path;
use std::process::Command;

use crate::stable::rerun;
use crate::util::{root, sample};

/// The `scribe …` commands of the README's CI section, in order: from the shell block of step 1
/// and the `- run:` lines of the job step (the agent and `git` commands are not scribe's).
fn readme_ci_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme
        .split("## Using scribe in CI")
        .nth(1)
        .expect("README has a CI section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut commands = Vec::new();
    let mut in_code = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let line = line
            .trim()
            .trim_start_matches("- run:")
            .trim_start_matches("run:")
            .trim();
        if in_code && line.starts_with("scribe ") && !line.contains('#') {
            commands.push(line.to_owned());
        }
    }
    commands
}

/// Runs one README command with `sh` in `dir`, the scribe under test first on PATH; returns its
/// exit code.
fn sh(dir: &Path, command: &str) -> i32 {
    let bin = assert_cmd::cargo::cargo_bin("scribe");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("HOME")
        .output()
        .expect("sh runs");
    assert!(
        out.status.code() != Some(2),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.status.code().expect("exit code")
}

#[test]
fn the_readme_ci_recipe_works_as_written() {
    let commands = readme_ci_commands();
    let (golden, diffs): (Vec<&String>, Vec<&String>) =
        commands.iter().partition(|c| !c.starts_with("scribe diff"));
    let (summary, check): (Vec<&String>, Vec<&String>) = diffs
        .into_iter()
        .partition(|c| c.contains("GITHUB_STEP_SUMMARY"));
    assert_eq!(golden.len(), 1, "one golden command in {commands:?}");
    assert_eq!(check.len(), 1, "one diff command in {commands:?}");
    assert_eq!(summary.len(), 1, "one summary command in {commands:?}");
    let summary = format!("export GITHUB_STEP_SUMMARY=summary.md; {}", summary[0]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("tests/agent")).unwrap();
    let run = std::fs::read_to_string(sample("ci-run.jsonl")).unwrap();
    std::fs::write(dir.path().join("run.jsonl"), &run).unwrap();
    // 1. The golden, as the README writes it (stdout is a file, not a terminal).
    assert_eq!(sh(dir.path(), golden[0]), 0);
    let written = std::fs::read_to_string(dir.path().join("tests/agent/golden.jsonl")).unwrap();
    assert!(
        written.starts_with("{\"kind\":\"header\""),
        "the golden is scribe's JSONL: {}",
        &written[..written.len().min(200)]
    );
    // 2. The job step on a rerun that did the same things: exit 0.
    std::fs::write(dir.path().join("run.jsonl"), rerun(&run)).unwrap();
    assert_eq!(sh(dir.path(), check[0]), 0, "a rerun passes");
    // …and on a run whose tool output changed: exit 1.
    let changed = rerun(&run).replacen("\"content\":\"", "\"content\":\"CHANGED ", 1);
    assert_ne!(changed, rerun(&run));
    std::fs::write(dir.path().join("run.jsonl"), changed).unwrap();
    assert_eq!(sh(dir.path(), check[0]), 1, "a changed run fails the job");
    // The failure's summary: what changed, as Markdown, on the run's page.
    assert_eq!(sh(dir.path(), &summary), 1);
    let page = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        page.starts_with("### scribe diff: 1 record(s) differ"),
        "{page}"
    );
    assert!(page.contains("CHANGED"), "{page}");
}

#[test]
fn stable_alone_writes_jsonl_to_a_file_and_text_when_asked() {
    let out = crate::util::scribe()
        .args(["--stable"])
        .arg(sample("ci-run.jsonl"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("{\"kind\":\"header\""));
    let out = crate::util::scribe()
        .args(["--stable", "--to", "text"])
        .arg(sample("ci-run.jsonl"))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).starts_with('{'));
    // Without --stable the default stays the terminal view.
    let out = crate::util::scribe()
        .arg(sample("ci-run.jsonl"))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).starts_with('{'));
}

/// A run with a shell result that names its process group and pid, and a result notice with a
/// duration.
const NOISY: &str = r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"],"cwd":"/w"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"session_id":"s"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt\nExit Code: 0\nProcess Group PGID: 30936\n"}]},"tool_use_result":{"stdout":"a.txt","pid":30936},"session_id":"s"}
{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]},"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":12345,"duration_api_ms":2345,"num_turns":2,"result":"done","session_id":"s","total_cost_usd":0.01,"usage":{"input_tokens":10,"output_tokens":5}}
"#;

#[test]
fn stable_drops_turn_durations_the_pgid_line_and_pid_in_every_format() {
    for to in ["text", "md", "html", "jsonl", "events"] {
        let out = crate::util::scribe()
            .args(["--stable", "--to", to])
            .write_stdin(NOISY)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("a.txt"), "{to}: the output is kept:\n{text}");
        for noise in ["PGID", "30936", "12345", "12.3", "2345"] {
            assert!(!text.contains(noise), "{to}: {noise} left in:\n{text}");
        }
        assert!(
            !text.contains("0.0s"),
            "{to}: a dropped duration shows as 0.0s:\n{text}"
        );
    }
}

/// Two parallel calls whose results arrive in the other order in the second run.
fn parallel(first: &str, second: &str) -> String {
    let call = |id: &str, cmd: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"m1","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Bash","input":{{"command":"{cmd}"}}}}]}},"session_id":"s"}}"#
        )
    };
    let result = |id: &str| {
        format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"out of {id}"}}]}},"session_id":"s"}}"#
        )
    };
    [
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"],"cwd":"/w"}"#.to_owned(),
        call("t1", "sleep 1; echo one"),
        call("t2", "echo two"),
        result(first),
        result(second),
        r#"{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]},"session_id":"s"}"#.to_owned(),
    ]
    .join("\n")
        + "\n"
}

#[test]
fn stable_orders_parallel_tool_results_by_call_order_in_every_format() {
    for to in ["text", "md", "html", "jsonl", "events"] {
        let run = |input: String| {
            let out = crate::util::scribe()
                .args(["--stable", "--to", to])
                .write_stdin(input)
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        let (a, b) = (run(parallel("t1", "t2")), run(parallel("t2", "t1")));
        assert_eq!(a, b, "{to}: the order results arrived in shows");
        let (one, two) = (a.find("out of t1").unwrap(), a.find("out of t2").unwrap());
        assert!(one < two, "{to}: results in call order:\n{a}");
    }
}

/// Two parallel Agent calls whose sub-agents talk in turn, each result naming a uuid of its own:
/// the order their lines arrived in must not show under `--stable` (nor the uuids' numbering).
fn parallel_agents(order: &[usize]) -> String {
    let lines = [
        // 0, 1: the sub-agents' prompts and first words; 2, 3: their results (each after its own
        // agent's words).
        r#"{"type":"user","parent_tool_use_id":"a1","message":{"role":"user","content":"prompt one"},"session_id":"s"}
{"type":"assistant","parent_tool_use_id":"a1","message":{"id":"s1","role":"assistant","content":[{"type":"text","text":"first agent at work"}]},"session_id":"s"}"#,
        r#"{"type":"user","parent_tool_use_id":"a2","message":{"role":"user","content":"prompt two"},"session_id":"s"}
{"type":"assistant","parent_tool_use_id":"a2","message":{"id":"s2","role":"assistant","content":[{"type":"text","text":"second agent at work"}]},"session_id":"s"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a1","content":"one 11111111-1111-4111-8111-111111111111"}]},"session_id":"s"}"#,
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a2","content":"two 22222222-2222-4222-8222-222222222222"}]},"session_id":"s"}"#,
    ];
    let call = |id: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"m1","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Task","input":{{"description":"d {id}","prompt":"p"}}}}]}},"session_id":"s"}}"#
        )
    };
    let mut all = vec![
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Task"],"cwd":"/w"}"#.to_owned(),
        call("a1"),
        call("a2"),
    ];
    all.extend(order.iter().map(|&i| lines[i].to_owned()));
    all.push(r#"{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]},"session_id":"s"}"#.to_owned());
    all.join("\n") + "\n"
}

#[test]
fn stable_events_hold_parallel_sub_agents_and_results_in_call_order() {
    let run = |input: String| {
        let out = crate::util::scribe()
            .args(["--stable", "--to", "events"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let a = run(parallel_agents(&[0, 1, 2, 3]));
    for order in [[1, 0, 3, 2], [1, 3, 0, 2], [0, 2, 1, 3], [1, 0, 2, 3]] {
        assert_eq!(
            a,
            run(parallel_agents(&order)),
            "arrival order {order:?} shows"
        );
    }
    let at = |s: &str| a.find(s).unwrap_or_else(|| panic!("{s} missing:\n{a}"));
    assert!(at("prompt one") < at("first agent"), "{a}");
    assert!(at("first agent") < at("one id-1"), "{a}");
    assert!(at("one id-1") < at("prompt two"), "{a}");
    assert!(at("one id-1") < at("second agent"), "{a}");
    assert!(at("second agent") < at("two id-2"), "{a}");
    assert!(at("two id-2") < at("\"done\""), "{a}");
    // Without --stable, events stay in arrival order.
    let out = crate::util::scribe()
        .args(["--to", "events"])
        .write_stdin(parallel_agents(&[1, 3, 0, 2]))
        .output()
        .unwrap();
    let raw = String::from_utf8(out.stdout).unwrap();
    assert!(raw.find("second agent").unwrap() < raw.find("first agent").unwrap());
}

#[test]
fn stable_debug_records_lose_durations_and_times() {
    let input = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":[],"cwd":"/w"}"#,
        "\n",
        r#"{"type":"mystery","durationMs":98765,"timestamp":"2026-01-10T10:00:02.000Z","what":"kept"}"#,
        "\n",
        r#"{"type":"mystery","elapsed_ms":45678,"what":"cut"#,
        "\n",
    );
    for to in ["jsonl", "events", "html"] {
        let out = crate::util::scribe()
            .args(["--stable", "--debug", "--to", to])
            .write_stdin(input)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("mystery"),
            "{to}: the debug record is kept:\n{text}"
        );
        for noise in ["98765", "45678", "2026-01-10"] {
            assert!(!text.contains(noise), "{to}: {noise} left in:\n{text}");
        }
    }
}
