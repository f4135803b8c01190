//! Every option that takes a value, of every subcommand, behaves as every CLI's does: one value
//! per use, never the positionals after it, and a value outside the documented ones exits 2
//! naming them.
//!
//! The options are read from each subcommand's own `--help`, so a new option is checked (or
//! fails here until it has a valid value in [`VALID`]).

use std::path::Path;

use crate::util::{json_lines, sample, scribe};

/// The subcommands, each with the arguments that make a command line complete (`""` is the
/// filter itself).
const SUBCOMMANDS: &[&str] = &["", "diff", "ls", "last", "hook"];

/// A valid value of each option that takes one, by subcommand and long name; `None` for one
/// that reads no input (`--generate`) or has no file after it (`last -o`); the filter's `-o` gets
/// a directory the test makes.
const VALID: &[(&str, &str, Option<&str>)] = &[
    ("", "to", Some("jsonl")),
    ("", "from", Some("auto")),
    ("", "output-dir", Some("")),
    ("", "jobs", Some("1")),
    ("", "paging", Some("never")),
    ("", "width", Some("80")),
    ("", "color", Some("never")),
    ("", "stable", Some("keep-usage")),
    ("", "generate", None),
    ("diff", "to", Some("text")),
    ("diff", "ignore", Some("output")),
    ("diff", "from", Some("auto")),
    ("diff", "color", Some("never")),
    ("diff", "stable", Some("keep-usage")),
    ("ls", "agent", Some("claude")),
    ("ls", "project", Some(".")),
    ("ls", "since", Some("3d")),
    ("ls", "limit", Some("5")),
    ("ls", "to", Some("jsonl")),
    ("ls", "color", Some("never")),
    ("ls", "stable", Some("keep-usage")),
    ("last", "agent", Some("claude")),
    ("last", "project", Some(".")),
    ("last", "since", Some("3d")),
    ("last", "to", Some("jsonl")),
    ("last", "from", Some("auto")),
    ("last", "output-dir", None),
    ("last", "jobs", Some("1")),
    ("last", "paging", Some("never")),
    ("last", "width", Some("80")),
    ("last", "color", Some("never")),
    ("last", "stable", Some("keep-usage")),
    ("hook", "to", Some("html")),
    ("hook", "output-dir", None),
    ("hook", "color", Some("never")),
    ("hook", "stable", Some("keep-usage")),
];

/// An option that takes a value, as `--help` lists it.
#[derive(Debug)]
struct ValueOption {
    long: String,
    /// `--stable[=<MODE>]`: the value only after `=`.
    equals_only: bool,
    /// The documented values, when the option has a closed list.
    values: Vec<String>,
}

/// The options of `scribe [sub] --help` that take a value.
fn value_options(sub: &str) -> Vec<ValueOption> {
    let mut cmd = scribe();
    if !sub.is_empty() {
        cmd.arg(sub);
    }
    let out = cmd.arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let mut options: Vec<ValueOption> = Vec::new();
    let mut in_values = false;
    for line in help.lines() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if indent <= 6 && (t.starts_with("--") || t.starts_with('-')) {
            in_values = false;
            let long = t.split("--").nth(1).unwrap_or("");
            let name: String = long
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            let rest = &long[name.len()..];
            if rest.starts_with(" <") || rest.starts_with("[=<") {
                options.push(ValueOption {
                    long: name,
                    equals_only: rest.starts_with("[=<"),
                    values: Vec::new(),
                });
            }
        } else if t == "Possible values:" {
            in_values = true;
        } else if in_values && t.starts_with("- ") {
            let value = t[2..].split(':').next().unwrap_or("").trim().to_owned();
            if let Some(o) = options.last_mut() {
                o.values.push(value);
            }
        } else if t.starts_with("[default") || t.is_empty() {
            in_values = in_values && t.is_empty();
        }
    }
    options
}

/// The arguments that complete a `sub` command line besides the option under test.
fn completing(sub: &str, dir: &Path) -> Vec<String> {
    let s = sample("ci-run.jsonl").to_string_lossy().into_owned();
    match sub {
        "diff" => vec![s.clone(), s],
        "hook" => vec!["-o".into(), dir.to_string_lossy().into_owned()],
        _ => Vec::new(),
    }
}

/// Every closed list of values is enforced: a value outside it exits 2, and the message names
/// every documented value.
#[test]
fn an_unknown_value_exits_2_naming_the_documented_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for sub in SUBCOMMANDS {
        for o in value_options(sub) {
            if o.values.is_empty() {
                continue;
            }
            let mut cmd = scribe();
            cmd.env("HOME", dir.path());
            if !sub.is_empty() {
                cmd.arg(sub);
            }
            if o.equals_only {
                cmd.arg(format!("--{}=no-such-value", o.long));
            } else {
                cmd.args([format!("--{}", o.long), "no-such-value".into()]);
            }
            let out = cmd.args(completing(sub, dir.path())).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{sub} --{}: {err}", o.long);
            for v in &o.values {
                assert!(
                    err.contains(v.as_str()),
                    "{sub} --{}: {v} not named: {err}",
                    o.long
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 14, "{checked} closed lists");
}

/// `--agent`, which names its values in words rather than a list, names them when one is
/// wrong; and a comma does not make one value two.
#[test]
fn an_unknown_agent_names_the_agents() {
    for sub in ["ls", "last"] {
        for value in ["cursor", "claude,codex"] {
            let out = scribe().args([sub, "--agent", value]).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{err}");
            assert!(err.contains("claude, qwen, codex, gemini"), "{err}");
        }
    }
}

/// Every option that takes a value takes one: the files after it are still the files (two
/// inputs converted, or two sides compared), and every option in `--help` is in [`VALID`].
#[test]
fn no_option_takes_the_files_after_it() {
    let a = sample("ci-run.jsonl");
    let b = sample("demo.jsonl");
    for sub in SUBCOMMANDS {
        for o in value_options(sub) {
            let valid = VALID
                .iter()
                .find(|(s, long, _)| s == sub && *long == o.long)
                .unwrap_or_else(|| panic!("`scribe {sub} --{}` is not in VALID", o.long));
            let Some(value) = valid.2 else { continue };
            // `--stable[=MODE]` bare: the file after it is not its value.
            let mut args = vec![format!("--{}", o.long)];
            if !o.equals_only {
                args.push(value.into());
            }
            match *sub {
                "" if o.long == "output-dir" => {
                    let dir = tempfile::tempdir().unwrap();
                    scribe()
                        .args(["--to", "jsonl", "-o"])
                        .arg(dir.path())
                        .arg(&a)
                        .arg(&b)
                        .assert()
                        .success();
                    let written = std::fs::read_dir(dir.path()).unwrap().count();
                    assert!(written >= 2, "-o DIR FILE FILE writes both: {written}");
                }
                "" => {
                    if o.long != "to" {
                        args.extend(["--to".into(), "jsonl".into()]);
                    }
                    let out = scribe().args(&args).arg(&a).arg(&b).output().unwrap();
                    assert!(out.status.success(), "{args:?}");
                    let headers = json_lines(&out.stdout)
                        .iter()
                        .filter(|r| r["kind"] == "header")
                        .count();
                    assert_eq!(headers, 2, "scribe {args:?} FILE FILE converts both");
                }
                "diff" => {
                    let out = scribe()
                        .arg("diff")
                        .args(&args)
                        .arg(&a)
                        .arg(&a)
                        .output()
                        .unwrap();
                    assert_eq!(out.status.code(), Some(0), "scribe diff {args:?} A A");
                }
                // No positional to take: `ls`, `last` and `hook` (whose payload is its
                // argument) are checked by the list above being complete.
                _ => {}
            }
        }
    }
}
