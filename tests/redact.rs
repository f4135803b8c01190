//! `--redact`: every secret pattern, positive and negative, in every output format, wherever the
//! secret sits (assistant text, tool input, tool output, harness sidecar).

use std::sync::LazyLock;

use crate::stable::{FORMATS, write};
use crate::util::scribe;

/// (kind, a secret, a token of the secret that must not survive, a look-alike that must): the
/// rows of the documented table in `docs/redaction.md`, read from the file so that the table is
/// what is tested. A `\n` in a cell stands for a line break.
///
/// Every string is one line of plain characters, so that it reads the same in every format's
/// escaping (JSON, HTML, Markdown); private keys are the exception and are checked by their body.
static CASES: LazyLock<Vec<(String, String, String, String)>> = LazyLock::new(|| {
    let doc = std::fs::read_to_string(crate::util::root().join("docs/redaction.md")).unwrap();
    let rows: Vec<_> = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().trim_matches('`').to_owned())
                .collect();
            assert_eq!(cells.len(), 4, "{l}");
            (
                cells[0].clone(),
                cells[1].replace("\\n", "\n"),
                cells[2].clone(),
                cells[3].clone(),
            )
        })
        .collect();
    assert!(rows.len() >= 30, "docs/redaction.md lost its table");
    rows
});

/// A Claude stream that carries `secret` in assistant text, a Bash input, its output and the
/// result's sidecar, and the look-alike beside it.
fn stream(secret: &str, look_alike: &str) -> String {
    let e = |s: &str| serde_json::to_string(s).unwrap();
    let text = e(&format!("Found {secret} and {look_alike}"));
    let cmd = e(&format!("echo {secret}"));
    let out = e(&format!("{secret}\n{look_alike}"));
    format!(
        concat!(
            r#"{{"type":"assistant","message":{{"id":"msg_1","content":[{{"type":"text","text":{text}}},{{"type":"tool_use","id":"toolu_1","name":"Bash","input":{{"command":{cmd}}}}}]}},"parent_tool_use_id":null}}"#,
            "\n",
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"toolu_1","type":"tool_result","content":{out},"is_error":false}}]}},"parent_tool_use_id":null,"tool_use_result":{{"stdout":{out}}}}}"#,
            "\n"
        ),
        text = text,
        cmd = cmd,
        out = out
    )
}

fn run(file: &std::path::Path, to: &str, redact: bool) -> String {
    run_with(file, to, redact, &[])
}

/// [`run`] with more arguments (`--from`).
fn run_with(file: &std::path::Path, to: &str, redact: bool, more: &[&str]) -> String {
    let mut cmd = scribe();
    // Wide enough that the terminal view never cuts a long secret in two.
    cmd.args(["--to", to, "--width", "1000"])
        .args(more)
        .env("HOME", "/home/alice")
        .arg(file);
    if redact {
        cmd.arg("--redact");
    }
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
fn every_pattern_positive_and_negative_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, secret, token, look_alike) in CASES.iter() {
        let secret = secret.replace("\\n", "\n");
        let f = write(
            dir.path(),
            &format!("{kind}.jsonl"),
            &stream(&secret, look_alike),
        );
        for to in FORMATS {
            let plain = run(&f, to, false);
            assert!(
                plain.contains(token),
                "{kind} {to}: the test input lacks the secret"
            );
            let red = run(&f, to, true);
            assert!(!red.contains(token), "{kind} {to}: secret left in\n{red}");
            let marker = format!("[REDACTED:{kind}]");
            assert!(red.contains(&marker), "{kind} {to}: want {marker}\n{red}");
            assert!(
                red.contains(look_alike),
                "{kind} {to}: look-alike redacted\n{red}"
            );
        }
    }
}

#[test]
fn home_becomes_tilde_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "home.jsonl",
        &stream("/home/alice/project/.env", "/home/alicetwo/notes"),
    );
    for to in FORMATS {
        let red = run(&f, to, true);
        assert!(red.contains("~/project/.env"), "{to}\n{red}");
        assert!(!red.contains("/home/alice/"), "{to}\n{red}");
        assert!(red.contains("/home/alicetwo/notes"), "{to}\n{red}");
    }
}

#[test]
fn hashes_and_uuids_survive_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let plain = "commit 3f786850e387550fdab836ed7e6dc881de23001b session 710ebeea-0a89-4141-926d-dc18e6a4cce1";
    let f = write(dir.path(), "hash.jsonl", &stream(plain, "x"));
    for to in FORMATS {
        let red = run(&f, to, true);
        assert!(!red.contains("REDACTED"), "{to}\n{red}");
        // Text output may wrap the line: each word must survive whole.
        for word in plain.split(' ') {
            assert!(red.contains(word), "{to}: {word} lost\n{red}");
        }
    }
}

#[test]
fn redact_and_stable_together() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "both.jsonl",
        &stream(
            "GH_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy in /tmp/job-41/x",
            "ok",
        ),
    );
    let out = String::from_utf8(
        scribe()
            .args(["--redact", "--stable"])
            .arg(&f)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert!(
        out.contains("GH_TOKEN=[REDACTED:github-token] in <tmp-1>/x"),
        "{out}"
    );
}

/// A key split across two streamed deltas is still redacted, and the text is shown once.
#[test]
fn a_secret_split_across_deltas_never_shows() {
    let f = crate::util::sample("redact-split-delta.jsonl");
    for to in FORMATS {
        let out = run(&f, to, true);
        assert!(!out.contains("ABCDEFG"), "{to}: the key leaked\n{out}");
        assert!(!out.contains("HIJKLMN"), "{to}: the key leaked\n{out}");
        if *to == "text" {
            assert_eq!(out.matches("Your key is").count(), 1, "{out}");
        }
    }
}

/// A Claude stream: an init line, then `extra` lines.
fn stream_with(extra: &str) -> String {
    format!(
        "{}\n{extra}\n",
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s-1","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i"}"#
    )
}

/// Asserts that no format of `--redact` output over `input` holds `token`, while the output
/// without `--redact` does (so the test can fail).
fn assert_redacted_everywhere(what: &str, input: &str, token: &str) {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "in.jsonl", input);
    assert!(
        run(&f, "jsonl", false).contains(token),
        "{what}: the input lacks the secret"
    );
    for to in FORMATS {
        let red = run(&f, to, true);
        assert!(!red.contains(token), "{what} {to}: secret left in\n{red}");
    }
}

#[test]
fn secret_in_a_debug_record_is_redacted() {
    let line = r#"{"type":"mystery","note":"GH_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy"}"#;
    assert_redacted_everywhere("debug", &stream_with(line), "R4nd0mT0k3n");
}

/// Base64 lines of a PEM body, each a token that must not survive.
const PEM_BODY: &[&str] = &[
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
];

/// A Claude stream with a command's stderr merged in: an ordinary line, a private key whose
/// lines each are a line of the stream, closed by `end` (its END line, a JSON line, or nothing:
/// the input ends), then `after`.
fn stream_with_pem_lines(end: &str, after: &str) -> String {
    let mut lines = vec!["stderr: cloning repo", "-----BEGIN RSA PRIVATE KEY-----"];
    lines.extend(PEM_BODY);
    lines.extend([end, after].into_iter().filter(|l| !l.is_empty()));
    stream_with(&lines.join("\n"))
}

/// scribe's output in format `to`, with every line nothing understood shown (`--debug`).
fn run_debug(file: &std::path::Path, to: &str, redact: bool) -> String {
    let mut cmd = scribe();
    cmd.args(["--to", to, "--debug", "--width", "1000"])
        .arg(file);
    if redact {
        cmd.arg("--redact");
    }
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

/// How many `debug` records an output shows.
fn debug_records(out: &str) -> usize {
    out.matches("not understood").count() + out.matches(r#""reason":"#).count()
}

/// A private key arriving as non-JSON lines (stderr merged into the stream), one `debug` record
/// a line: no line of its body survives in any format, whether the block ends with its END line,
/// a JSON line or the end of the input; every line is still a record, and the ordinary lines
/// around the key stay as they were.
#[test]
fn a_private_key_split_over_non_json_lines_never_shows() {
    let dir = tempfile::tempdir().unwrap();
    let endings = [
        ("-----END RSA PRIVATE KEY-----", "done: exit 0"),
        (r#"{"type":"mystery"}"#, "done: exit 0"),
        ("", ""),
    ];
    for (end, after) in endings {
        let f = write(dir.path(), "in.jsonl", &stream_with_pem_lines(end, after));
        let plain = run_debug(&f, "jsonl", false);
        assert!(PEM_BODY.iter().all(|b| plain.contains(b)), "{plain}");
        for to in FORMATS {
            let red = run_debug(&f, to, true);
            for body in PEM_BODY {
                assert!(
                    !red.contains(body),
                    "{to}, ended by {end:?}: {body} left in\n{red}"
                );
            }
            assert!(
                !red.contains("-----END"),
                "{to}: the END line left in\n{red}"
            );
            let records = debug_records(&run_debug(&f, to, false));
            assert_eq!(debug_records(&red), records, "{to}\n{red}");
            if matches!(*to, "jsonl" | "events" | "html") {
                assert!(red.contains("stderr: cloning repo"), "{to}\n{red}");
                assert!(red.contains(after), "{to}\n{red}");
            }
        }
    }
}

#[test]
fn json_escaped_secret_in_a_kept_raw_line_is_redacted() {
    // `\u0070` is `p`: `password` and `ghp_` spelled so that no pattern sees them in the raw text.
    let line = r#"{"type":"mystery","\u0070assword":"Zx8Qm2Lk9Pw4","k":"gh\u0070_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy"}"#;
    let input = stream_with(line);
    assert_redacted_everywhere("escaped", &input, "Zx8Qm2Lk9Pw4");
    assert_redacted_everywhere("escaped", &input, "R4nd0mT0k3n");
    // Not even valid JSON: the escapes are decoded to look for secrets all the same.
    let broken = r#"{"type":"mystery","k":"gh\u0070_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy""#;
    assert_redacted_everywhere("escaped", &stream_with(broken), "R4nd0mT0k3n");
}

#[test]
fn secret_used_as_a_json_key_is_redacted() {
    let line = r#"{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Deploy","input":{"ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy":true}}]},"parent_tool_use_id":null,"session_id":"s-1","uuid":"u1"}"#;
    assert_redacted_everywhere("json key", &stream_with(line), "R4nd0mT0k3n");
}

#[test]
fn secret_shaped_session_id_is_redacted_in_every_format() {
    let input = stream_with("").replace("\"s-1\"", "\"sk-ant-api03-Zx8Qm2Lk9Pw4Rt6Yu1Io3PaSd\"");
    assert_redacted_everywhere("session id", &input, "Zx8Qm2Lk9Pw4");
}

#[test]
fn redact_works_with_diff() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.jsonl",
        &stream("GH_TOKEN=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy", "x"),
    );
    let b = write(
        dir.path(),
        "b.jsonl",
        &stream("GH_TOKEN=ghp_Zx8Qm2Lk9Pw4Rt6Yu1Io3PaSdFgHjKlQwErTy", "y"),
    );
    let out = scribe()
        .args(["--redact", "diff"])
        .arg(&a)
        .arg(&b)
        .env("HOME", "/home/alice")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "the look-alikes differ: {text}");
    assert!(
        !text.contains("R4nd0m") && !text.contains("Zx8Qm2"),
        "{text}"
    );
    assert!(
        text.contains("[REDACTED:github-token]") || !text.contains("ghp_"),
        "{text}"
    );
}

/// Generated secrets in random fields of real sample lines.
mod generated;

/// A session state the wire does not define is kept as it came: the adapter once wrote every
/// `_` as `-`, which turned a `github_pat_…` in it into a `github-pat-…` that no pattern knows,
/// and the secret went out in three formats (found by `no_generated_secret_survives_in_any_format`,
/// which picks its line and field at random).
#[test]
fn a_secret_in_a_session_state_is_redacted() {
    let body = "7aZq8Rk2LmP0xYv5Tn3WcQe9HbUi1JoAs4DfGh";
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "state.jsonl",
        &format!(
            "{{\"type\":\"system\",\"subtype\":\"session_state_changed\",\"uuid\":\"s3\",\"session_id\":\"s1\",\"state\":\"requires_action github_pat_{body}\"}}\n"
        ),
    );
    for to in FORMATS {
        let red = run(&f, to, true);
        assert!(!red.contains(body), "--to {to}: secret left in\n{red}");
    }
    assert!(run(&f, "jsonl", false).contains(&format!("requires_action github_pat_{body}")));
}

#[test]
fn secret_echoed_in_a_stderr_diagnostic_is_redacted() {
    let header = scribe()
        .args(["--to", "jsonl"])
        .arg(crate::util::sample("demo.jsonl"))
        .output()
        .unwrap()
        .stdout;
    let first = String::from_utf8_lossy(&header)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    let input = format!("{first}\n{{\"kind\":\"ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy\"}}\n");
    let plain = scribe().write_stdin(input.clone()).output().unwrap();
    assert!(String::from_utf8_lossy(&plain.stderr).contains("R4nd0mT0k3n"));
    let red = scribe()
        .arg("--redact")
        .write_stdin(input)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&red.stderr);
    assert!(err.contains("[REDACTED:github-token]"), "{err}");
    assert!(!err.contains("R4nd0mT0k3n"), "{err}");
}

/// A Claude stream with one secret of each kind in `CASES`, and the home directory, in the
/// assistant's text: what the hook and `-o DIR` tests archive.
fn every_secret_stream() -> String {
    CASES
        .iter()
        .map(|(_, secret, _, _)| stream(&secret.replace("\\n", "\n"), "ok"))
        .chain([stream("/home/alice/project/.env", "ok")])
        .collect()
}

/// Every file under `dir` (pages, index, manifests, the hook's log) holds no secret of `CASES`
/// and no home path.
fn assert_dir_redacted(dir: &std::path::Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        for (kind, _, token, _) in CASES.iter() {
            assert!(
                !text.contains(token),
                "{kind}: secret left in {}",
                path.display()
            );
        }
        assert!(
            !text.contains("/home/alice"),
            "home left in {}",
            path.display()
        );
    }
}

/// `scribe hook --redact` passes `--redact` on to the conversion it runs, whether it is written
/// before or after `hook`: no archived file keeps a secret or the home path.
#[test]
fn the_hook_redacts_what_it_archives() {
    for redact_first in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home/alice");
        std::fs::create_dir_all(&home).unwrap();
        let transcript = home.join("s.jsonl");
        std::fs::write(&transcript, every_secret_stream()).unwrap();
        let archive = tmp.path().join("archive");
        let payload = serde_json::json!({
            "session_id": "s", "transcript_path": transcript, "hook_event_name": "Stop",
        });
        let mut cmd = scribe();
        if redact_first {
            cmd.arg("--redact");
        }
        cmd.args(["hook", "--to", "html", "-o"]).arg(&archive);
        if !redact_first {
            cmd.arg("--redact");
        }
        cmd.env("HOME", "/home/alice")
            .write_stdin(payload.to_string())
            .assert()
            .code(0);
        let page = std::fs::read_to_string(archive.join("s.html")).unwrap();
        for (kind, _, _, _) in CASES.iter() {
            assert!(page.contains(&format!("[REDACTED:{kind}]")), "{kind}");
        }
        assert!(page.contains("~/project/.env"), "{page}");
        assert_dir_redacted(&archive);
    }
}

/// `scribe hook --stable` and `--color` reach the conversion too: a stable archive has no
/// timestamps or token counts, a coloured text archive has escapes and a plain one has none.
#[test]
fn the_hook_passes_every_option_on() {
    let tmp = tempfile::tempdir().unwrap();
    let transcript = tmp.path().join("s.jsonl");
    std::fs::copy(crate::util::sample("render-demo.jsonl"), &transcript).unwrap();
    let payload = serde_json::json!({"transcript_path": transcript}).to_string();
    let archive_with = |args: &[&str]| {
        let archive = tempfile::tempdir().unwrap();
        scribe()
            .args(args)
            .arg("-o")
            .arg(archive.path())
            .write_stdin(payload.clone())
            .assert()
            .code(0);
        let name = std::fs::read_dir(archive.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x != "log" && x != "json"))
            .unwrap();
        std::fs::read_to_string(name).unwrap()
    };
    let plain = archive_with(&["hook", "--to", "jsonl"]);
    let stable = archive_with(&["hook", "--to", "jsonl", "--stable"]);
    assert!(plain.contains("\"cost\""), "{plain}");
    assert!(!stable.contains("\"cost\""), "{stable}");
    assert_ne!(plain, stable);
    let keep = archive_with(&["hook", "--to", "jsonl", "--stable=keep-usage"]);
    assert!(keep.contains("\"cost\""), "{keep}");
    assert_ne!(keep, plain);
    let grey = archive_with(&["hook", "--to", "text"]);
    let colour = archive_with(&["hook", "--to", "text", "--color", "always"]);
    assert!(!grey.contains('\u{1b}'), "{grey}");
    assert!(colour.contains('\u{1b}'), "{colour}");
}

/// A second `-o DIR --to html` run with `--redact` over unchanged inputs renders them again:
/// the options a page was made with decide whether it is kept. Under `--redact` the manifest
/// names inputs without the home path.
#[test]
fn an_output_dir_rerun_with_redact_replaces_unredacted_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let input = home.join("s.jsonl");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(&input, every_secret_stream()).unwrap();
    let out = tmp.path().join("site");
    let home_str = home.to_str().unwrap();
    let run = |redact: bool| {
        let mut cmd = scribe();
        cmd.env("HOME", home_str)
            .args(["--to", "html", "-o"])
            .arg(&out)
            .arg(&input);
        if redact {
            cmd.arg("--redact");
        }
        cmd.assert().success();
    };
    run(false);
    let first = std::fs::read_to_string(out.join("s.html")).unwrap();
    assert!(first.contains(&CASES[1].2), "the first run is not redacted");
    run(true);
    let page = std::fs::read_to_string(out.join("s.html")).unwrap();
    assert!(page.contains("[REDACTED:anthropic-key]"), "page kept");
    for (kind, _, token, _) in CASES.iter() {
        for f in ["s.html", "index.html", ".scribe-index.json"] {
            let text = std::fs::read_to_string(out.join(f)).unwrap();
            assert!(!text.contains(token), "{kind} left in {f}");
        }
    }
    let manifest = std::fs::read_to_string(out.join(".scribe-index.json")).unwrap();
    assert!(!manifest.contains(home_str), "{manifest}");
    // The same options again keep the page: the skip still works.
    let before = std::fs::metadata(out.join("s.html"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    run(true);
    let after = std::fs::metadata(out.join("s.html"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        before, after,
        "an unchanged input with the same options was rendered again"
    );
    // And going back to no --redact renders again.
    run(false);
    let again = std::fs::read_to_string(out.join("s.html")).unwrap();
    assert!(again.contains(&CASES[1].2));
}

/// A secret in a session id, of any documented kind (those written with `=`, `:`, `/`, `@`,
/// quotes or spaces too), never reaches a file name or the index under `-o DIR --redact`,
/// through a run over files or through the hook: the name is redacted before it is made safe.
#[test]
fn secrets_never_reach_output_file_names() {
    let tmp = tempfile::tempdir().unwrap();
    let inputs: Vec<_> = CASES
        .iter()
        .enumerate()
        .map(|(i, (_, secret, _, _))| {
            let id = serde_json::to_string(&secret.replace("\\n", "\n")).unwrap();
            let path = tmp.path().join(format!("in-{i}.jsonl"));
            std::fs::write(&path, stream_with("").replace("\"s-1\"", &id)).unwrap();
            path
        })
        .collect();
    let out = tmp.path().join("site");
    scribe()
        .args(["--to", "html", "--redact", "-o"])
        .arg(&out)
        .args(&inputs)
        .assert()
        .success();
    let archive = tmp.path().join("archive");
    for input in &inputs {
        let payload = serde_json::json!({"transcript_path": input}).to_string();
        scribe()
            .args(["hook", "--redact", "-o"])
            .arg(&archive)
            .write_stdin(payload)
            .assert()
            .code(0);
    }
    for dir in [&out, &archive] {
        let names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
        for (kind, _, token, _) in CASES.iter() {
            for name in &names {
                assert!(!name.contains(token.as_str()), "{kind}: {name}");
            }
            assert!(
                !index.contains(token.as_str()),
                "{kind} in {}",
                dir.display()
            );
        }
    }
}
