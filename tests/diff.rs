//! `scribe diff OLD NEW`: exit codes, what it shows, golden transcripts, `--ignore`, `--to jsonl`.

use crate::stable::{output, rerun, write};
use crate::util::{json_lines, sample, scribe};

fn ci_run() -> String {
    std::fs::read_to_string(sample("ci-run.jsonl")).expect("sample")
}

/// `scribe diff` with arguments: (exit code, stdout).
fn diff(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = scribe().arg("diff").args(args).output().expect("runs");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).expect("UTF-8"),
    )
}

macro_rules! os {
    ($($x:expr),* $(,)?) => { &[$(std::ffi::OsStr::new($x)),*] };
}

#[test]
fn a_run_and_itself_are_the_same() {
    let s = sample("ci-run.jsonl");
    assert_eq!(diff(os![&s, &s]), (0, String::new()));
}

#[test]
fn a_second_capture_of_the_same_behaviour_is_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let b = write(dir.path(), "b.jsonl", &rerun(&ci_run()));
    assert_eq!(diff(os![&sample("ci-run.jsonl"), &b]), (0, String::new()));
}

#[test]
fn a_golden_transcript_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let golden = write(
        dir.path(),
        "golden.jsonl",
        &output(&sample("ci-run.jsonl"), &["--stable"]),
    );
    let unstable = write(
        dir.path(),
        "plain.jsonl",
        &output(&sample("ci-run.jsonl"), &[]),
    );
    let b = write(dir.path(), "b.jsonl", &rerun(&ci_run()));
    assert_eq!(diff(os![&golden, &b]), (0, String::new()));
    assert_eq!(diff(os![&b, &golden]), (0, String::new()));
    assert_eq!(diff(os![&unstable, &b]), (0, String::new()));
    assert_eq!(diff(os![&golden, &unstable]), (0, String::new()));
}

#[test]
fn one_changed_tool_output_shows_exactly_that_change() {
    let dir = tempfile::tempdir().unwrap();
    // The tool result and the harness's sidecar copy of it both change, as in a real run.
    let changed = rerun(&ci_run()).replace(
        "test result: ok. 12 passed; 0 failed; finished in 0.40s",
        "test result: ok. 13 passed; 0 failed; finished in 0.40s",
    );
    let c = write(dir.path(), "c.jsonl", &changed);
    let s = sample("ci-run.jsonl");

    let (code, out) = diff(os![&s, &c, "--to", "jsonl"]);
    assert_eq!(code, 1);
    let recs = json_lines(out.as_bytes());
    assert_eq!(recs.len(), 1, "{out}");
    assert_eq!(recs[0]["change"], "changed");
    assert_eq!(recs[0]["item"], "turn 3 (assistant)");
    assert_eq!(
        recs[0]["path"],
        serde_json::json!(["call 1 (Bash)", "output"])
    );
    assert_eq!(
        recs[0]["old"],
        "test result: ok. 12 passed; 0 failed; finished in 0.40s"
    );
    assert_eq!(
        recs[0]["new"],
        "test result: ok. 13 passed; 0 failed; finished in 0.40s"
    );

    let (code, text) = diff(os![&s, &c]);
    assert_eq!(code, 1);
    assert_eq!(
        text,
        "~ turn 3 (assistant)\n\
         \x20 ~ call 1 (Bash) › output\n\
         \x20   - test result: ok. 12 passed; 0 failed; finished in 0.40s\n\
         \x20   + test result: ok. 13 passed; 0 failed; finished in 0.40s\n"
    );
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );

    let (code, coloured) = diff(os![&s, &c, "--color", "always"]);
    assert_eq!(code, 1);
    assert!(
        coloured.contains("\x1b[31m    - test result"),
        "{coloured:?}"
    );
    assert!(
        coloured.contains("\x1b[32m    + test result"),
        "{coloured:?}"
    );

    assert_eq!(diff(os![&s, &c, "--ignore", "output"]), (0, String::new()));
    let (code, both) = diff(os![&s, &c, "--sidecars", "--to", "jsonl"]);
    assert_eq!(code, 1);
    let paths: Vec<_> = json_lines(both.as_bytes())
        .into_iter()
        .map(|r| r["path"].clone())
        .collect();
    assert_eq!(
        paths,
        [
            serde_json::json!(["call 1 (Bash)", "output"]),
            serde_json::json!(["call 1 (Bash)", "sidecar", "stdout"])
        ]
    );
    assert_eq!(diff(os![&s, &c, "--ignore", "usage,reasoning"]).0, 1);
}

#[test]
fn an_inserted_turn_is_one_insertion() {
    let dir = tempfile::tempdir().unwrap();
    let base = rerun(&ci_run());
    let at = base[..base.find("One test fails").expect("2nd turn")]
        .rfind('\n')
        .expect("a line before")
        + 1;
    let inserted = r#"{"type":"assistant","message":{"id":"msg_01Inserted00000000000000","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Let me look at the failure more closely."}]},"parent_tool_use_id":null,"session_id":"x","uuid":"00000000-aaaa-bbbb-cccc-dddddddddddd"}"#;
    let with = format!("{}{inserted}\n{}", &base[..at], &base[at..]);
    let n = write(dir.path(), "n.jsonl", &with);
    let s = sample("ci-run.jsonl");

    let (code, out) = diff(os![&s, &n, "--to", "jsonl"]);
    assert_eq!(code, 1);
    let recs = json_lines(out.as_bytes());
    assert_eq!(recs.len(), 1, "{out}");
    assert_eq!(recs[0]["change"], "added");
    assert_eq!(recs[0]["item"], "turn 2 (assistant)");
    assert_eq!(
        recs[0]["new"]["parts"][0]["text"],
        "Let me look at the failure more closely."
    );

    let (_, text) = diff(os![&s, &n]);
    assert_eq!(
        text,
        "+ turn 2 (assistant)\n    text: Let me look at the failure more closely.\n"
    );
    let (code, back) = diff(os![&n, &s]);
    assert_eq!(code, 1);
    assert!(back.starts_with("- turn 2 (assistant)\n"), "{back}");
}

#[test]
fn an_extra_tool_call_in_a_turn_and_a_sub_agent_change_show_where_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let base = ci_run();
    let extra = base.replace(
        r#"{"type":"tool_use","id":"toolu_01CdEfGhIjKlMnOpQrStUvWy","name":"Read","input":{"file_path":"/tmp/ci-run-a1/src/parse.rs"}}"#,
        r#"{"type":"tool_use","id":"toolu_01CdEfGhIjKlMnOpQrStUvWy","name":"Read","input":{"file_path":"/tmp/ci-run-a1/src/parse.rs"}},{"type":"tool_use","id":"toolu_01Extra","name":"Grep","input":{"pattern":"parse"}}"#,
    );
    assert_ne!(extra, base);
    let e = write(dir.path(), "e.jsonl", &extra);
    let (code, out) = diff(os![&sample("ci-run.jsonl"), &e, "--to", "jsonl"]);
    assert_eq!(code, 1);
    let recs = json_lines(out.as_bytes());
    let added: Vec<_> = recs.iter().filter(|r| r["change"] == "added").collect();
    assert_eq!(added.len(), 1, "{out}");
    assert_eq!(added[0]["item"], "turn 2 (assistant)");
    assert_eq!(
        added[0]["path"],
        serde_json::json!([
            "call 1 (Agent)",
            "sub-agent",
            "turn 2 (assistant)",
            "call 2 (Grep)"
        ])
    );
    assert_eq!(added[0]["new"]["call"]["input"]["pattern"], "parse");
}

#[test]
fn trouble_is_exit_2() {
    let s = sample("ci-run.jsonl");
    let (code, out) = diff(os![&s, "/no/such/file.jsonl"]);
    assert_eq!((code, out.as_str()), (2, ""));
    scribe().arg("diff").arg(&s).assert().code(2);
}

#[test]
fn global_options_go_either_side_of_diff_and_the_filter_s_own_do_not() {
    let s = sample("ci-run.jsonl");
    let out = scribe()
        .args(["--stable=keep-usage", "--redact", "diff"])
        .arg(&s)
        .arg(&s)
        .assert()
        .code(0);
    assert!(out.get_output().stdout.is_empty());
    let out = scribe()
        .args(["--to", "events", "diff"])
        .arg(&s)
        .arg(&s)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("go after `diff`"), "{err}");
    scribe()
        .args(["-o", "somewhere", "diff"])
        .arg(&s)
        .arg(&s)
        .assert()
        .code(2);
}

#[test]
fn plain_file_arguments_still_work_beside_the_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "diff.jsonl", &ci_run());
    scribe().arg(&f).assert().success();
    scribe()
        .current_dir(dir.path())
        .arg("./diff.jsonl")
        .assert()
        .success();
}

#[test]
fn control_characters_in_the_transcript_do_not_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = rerun(&ci_run()).replace(
        "test result: ok. 12 passed",
        "test result: \\u001b[2J\\u001b]0;pwned\\u0007 ok. 12 passed",
    );
    let h = write(dir.path(), "h.jsonl", &hostile);
    let (code, text) = diff(os![&sample("ci-run.jsonl"), &h]);
    assert_eq!(code, 1);
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    assert!(
        text.contains("\\x1b[2J\\x1b]0;pwned\\x07 ok. 12 passed"),
        "{text}"
    );
    // A tool name is untrusted too: it heads the change lines.
    let renamed = rerun(&ci_run()).replacen(
        "\"name\":\"Bash\"",
        "\"name\":\"Bash\\u001b]0;pwned\\u0007\"",
        1,
    );
    let r = write(dir.path(), "r.jsonl", &renamed);
    let (code, text) = diff(os![&sample("ci-run.jsonl"), &r]);
    assert_eq!(code, 1);
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text:?}");
    assert!(text.contains("Bash\\x1b]0;pwned\\x07"), "{text}");
}

#[test]
fn a_redacted_golden_matches_a_raw_run_diffed_with_redact() {
    let dir = tempfile::tempdir().unwrap();
    let with_secret = ci_run().replace(
        "test result: ok. 12 passed",
        "GH_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy test result: ok. 12 passed",
    );
    let raw = write(dir.path(), "raw.jsonl", &with_secret);
    let golden = write(
        dir.path(),
        "golden.jsonl",
        &output(&raw, &["--stable", "--redact"]),
    );
    assert!(!std::fs::read_to_string(&golden).unwrap().contains("ghp_"));
    let again = write(dir.path(), "again.jsonl", &rerun(&with_secret));
    assert_eq!(diff(os![&golden, &again, "--redact"]), (0, String::new()));
    let (code, shown) = diff(os![&golden, &again]);
    assert_eq!(
        code, 1,
        "without --redact the secret differs from its placeholder"
    );
    assert!(shown.contains("+ GH_TOKEN=ghp_"), "{shown}");
}

/// `--ignore NAME` takes one value per use (repeated, or several separated by commas) and never
/// swallows OLD or NEW, whichever order the arguments come in.
#[test]
fn ignore_takes_one_value_and_never_the_files() {
    let s = sample("ci-run.jsonl");
    let s = s.to_str().unwrap();
    for args in [
        vec!["--ignore", "output", s, s],
        vec!["--ignore", "output,usage", "--ignore", "reasoning", s, s],
        vec![s, "--ignore", "output", s],
        vec![s, s, "--ignore", "output"],
        vec!["--ignore=output", s, s],
    ] {
        scribe().arg("diff").args(&args).assert().code(0);
    }
}

/// A session's tools, servers, skills and commands are sets: two runs that list them in another
/// order are the same run (`--stable` writes one order), and a tool added is still a difference.
#[test]
fn the_session_lists_are_sets() {
    let dir = tempfile::tempdir().unwrap();
    let reordered = rerun(&ci_run())
        .replace(
            r#""tools":["Task","Bash","Read"]"#,
            r#""tools":["Read","Task","Bash"]"#,
        )
        .replace(
            r#""slash_commands":["compact","review"]"#,
            r#""slash_commands":["review","compact"]"#,
        );
    assert!(reordered.contains(r#""tools":["Read","Task","Bash"]"#));
    let b = write(dir.path(), "b.jsonl", &reordered);
    let a = sample("ci-run.jsonl");
    assert_eq!(diff(os![&a, &b]), (0, String::new()));
    for to in ["jsonl", "md", "html", "text"] {
        assert_eq!(
            output(&a, &["--stable", "--to", to]),
            output(&b, &["--stable", "--to", to]),
            "--stable --to {to}"
        );
    }
    let added = write(
        dir.path(),
        "c.jsonl",
        &reordered.replace(
            r#""tools":["Read","Task","Bash"]"#,
            r#""tools":["Read","Task","Bash","Grep"]"#,
        ),
    );
    let (code, report) = diff(os![&a, &added]);
    assert_eq!(code, 1);
    assert!(report.contains("tools"), "{report}");
}

/// The names of docs/schema.md's `--ignore` section, by group.
fn documented_names() -> Vec<(String, Vec<String>)> {
    let schema = std::fs::read_to_string(crate::util::root().join("docs/schema.md")).unwrap();
    let section = schema
        .split("### 1.10 The names `scribe diff --ignore` takes")
        .nth(1)
        .expect("the section");
    section
        .lines()
        .take_while(|l| !l.starts_with('#') && !l.starts_with("---"))
        .filter_map(|l| l.strip_prefix("- ")?.split_once(':'))
        .map(|(group, names)| {
            let names = names.split('`').skip(1).step_by(2).map(str::to_owned);
            (group.trim().to_owned(), names.collect())
        })
        .collect()
}

/// `--ignore` takes the documented names, whether or not the transcripts hold them (a notice
/// that did not happen can be ignored), and refuses any other, listing the documented names.
#[test]
fn ignore_names_are_the_documented_ones() {
    let s = sample("ci-run.jsonl");
    let all: Vec<String> = documented_names()
        .into_iter()
        .flat_map(|(_, n)| n)
        .collect();
    assert!(all.len() > 100, "{all:?}");
    scribe()
        .args(["diff", "--ignore", "api-retry,rate-limit", "--ignore"])
        .arg(all.join(","))
        .args([&s, &s])
        .assert()
        .code(0);
    let out = scribe()
        .args(["diff", "--ignore", "claudesonnet45"])
        .args([&s, &s])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let listed = err.split("the names:").nth(1).expect("the names listed");
    assert!(listed.contains("record kinds: header, session"), "{err}");
    assert!(!listed.contains("claudesonnet45"), "{err}");
}

/// Every record kind, notice kind, part type and field scribe writes for the samples (outside
/// the agent's own data: tool input and output, sidecars, notices' raw payloads) is documented,
/// so `--ignore` can name it.
#[test]
fn every_name_the_samples_write_is_documented() {
    let documented: std::collections::BTreeSet<String> = documented_names()
        .into_iter()
        .flat_map(|(_, n)| n)
        .collect();
    const DATA: &[&str] = &[
        "input",
        "output",
        "structuredOutput",
        "sidecar",
        "data",
        "info",
        "permissionDenials",
        "modelUsage",
        "raw",
        "content",
        "request",
    ];
    fn walk(v: &serde_json::Value, top: bool, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    out.push(k.clone());
                    let passthrough = DATA.contains(&k.as_str()) || (k == "metadata" && !top);
                    if !passthrough {
                        walk(x, false, out);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, false, out)),
            _ => {}
        }
    }
    let dir = crate::util::root().join("tests/golden/jsonl");
    let mut missing = std::collections::BTreeSet::new();
    for f in crate::util::files_under(&dir, &|p| p.extension().is_some_and(|e| e == "jsonl")) {
        for record in json_lines(&std::fs::read(&f).unwrap()) {
            let mut names = Vec::new();
            walk(&record, true, &mut names);
            let kinds =
                ["/kind", "/notice/kind"].map(|p| record.pointer(p).and_then(|v| v.as_str()));
            names.extend(kinds.into_iter().flatten().map(str::to_owned));
            for part in record["parts"].as_array().into_iter().flatten() {
                names.extend(part["type"].as_str().map(str::to_owned));
            }
            missing.extend(names.into_iter().filter(|n| !documented.contains(n)));
        }
    }
    assert!(
        missing.is_empty(),
        "not in docs/schema.md's --ignore names: {missing:?}"
    );
}

/// A Claude stream of `n` prompts, each answered with `answer` and its number.
fn long_run(n: usize, answer: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"question {i}\"}}}}\n\
             {{\"type\":\"assistant\",\"message\":{{\"id\":\"m{i}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{{\"type\":\"text\",\"text\":\"{answer} {i}\"}}]}}}}\n"
        ));
    }
    s
}

/// `scribe diff --to md`: each record that differs under its heading, in a `diff` block, exit 1;
/// never more than a comment holds, saying what it left out and how to see it.
#[test]
fn the_markdown_report_fits_a_pull_request_comment() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.jsonl", &long_run(3, "yes"));
    let new = write(
        dir.path(),
        "new.jsonl",
        &long_run(3, "yes").replace("yes 1", "no <b>1</b> @team"),
    );
    let (code, md) = diff(os!["--to", "md", &old, &new]);
    assert_eq!(code, 1);
    assert!(
        md.starts_with("### scribe diff: 1 record(s) differ"),
        "{md}"
    );
    assert!(md.contains("#### ~ turn 4 (assistant)"), "{md}");
    assert!(md.contains("```diff\n"), "{md}");
    assert!(
        md.contains("- yes 1") && md.contains("+ no <b>1</b> @team"),
        "{md}"
    );
    let outside_code: String = md.split("```").step_by(2).collect();
    assert!(!outside_code.contains("<b>"), "{md}");

    let old = write(dir.path(), "old_2.jsonl", &long_run(3000, "yes"));
    let new = write(dir.path(), "new_2.jsonl", &long_run(3000, "no"));
    let (code, md) = diff(os!["--to", "md", &old, &new]);
    assert_eq!(code, 1);
    assert!(
        md.chars().count() <= 65_536,
        "{} characters",
        md.chars().count()
    );
    assert!(md.chars().count() > 60_000, "it fills the comment");
    assert!(
        md.contains("are not shown") && md.contains("`scribe diff "),
        "{}",
        &md[md.len() - 400..]
    );
    // The command is a code span: shown as typed, no Markdown escapes in it.
    assert!(md.contains("new_2.jsonl`"), "{}", &md[md.len() - 400..]);
    let (code, same) = diff(os!["--to", "md", &old, &old]);
    assert_eq!(code, 0);
    assert!(same.contains("the runs did the same things"));
}
