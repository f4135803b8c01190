//! `--redact`: every secret pattern, positive and negative, in every output format, wherever the
//! secret sits (assistant text, tool input, tool output, harness sidecar).

use crate::stable::{FORMATS, write};
use crate::util::scribe;

/// (kind, a secret, a token of the secret that must not survive, a look-alike that must).
///
/// Every string is one line of plain characters, so that it reads the same in every format's
/// escaping (JSON, HTML, Markdown); the private key is the exception and is checked by its body.
const CASES: &[(&str, &str, &str, &str)] = &[
    (
        "private-key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
        "BEGIN PUBLIC KEY MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",
    ),
    (
        "anthropic-key",
        "sk-ant-api03-Zx8Qm2Lk9Pw4Rt6Yu1Io3PaSdFgHjKl",
        "Zx8Qm2Lk9Pw4Rt6Yu1Io3PaSdFgHjKl",
        "the risk-ant-farm model",
    ),
    (
        "openai-key",
        "sk-proj-Ab12Cd34Ef56Gh78Ij90KlMnOpQr",
        "Ab12Cd34Ef56Gh78Ij90KlMnOpQr",
        "desk-proj-Zz99Yy88Xx77Ww66Vv55Uu44Tt",
    ),
    (
        "google-api-key",
        "AIzaSyD4kF9xQ2mN7pL3vB8cR1tY6wZ0hJ5gK2s",
        "SyD4kF9xQ2mN7pL3vB8cR1tY6wZ0hJ5gK2s",
        "AIzaShort",
    ),
    (
        "github-token",
        "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy",
        "R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXy",
        "ghp_tooShort",
    ),
    (
        "aws-access-key",
        "AKIAQWERTYUIOPASDFGH",
        "QWERTYUIOPASDFGH",
        "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    ),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1ib3QifQ.c2lnbmF0dXJlLXZhbHVlLWhlcmU",
        "c2lnbmF0dXJlLXZhbHVlLWhlcmU",
        "eyJub3QiOiJhIGp3dCJ9",
    ),
    (
        "bearer",
        "curl -H 'Authorization: Bearer 9f8e7d6c5b4a39281706'",
        "9f8e7d6c5b4a39281706",
        "a bearer bond",
    ),
    (
        "url-password",
        "git clone https://deploy:s3cr3tPa55@git.example.com/app.git",
        "s3cr3tPa55",
        "https://git.example.com:8443/app.git",
    ),
    (
        "env",
        "export STRIPE_SECRET=whsec9a8b7c6d5e4f",
        "whsec9a8b7c6d5e4f",
        "KEYBOARD_LAYOUT=us",
    ),
];

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
    let mut cmd = scribe();
    cmd.args(["--to", to]).env("HOME", "/home/alice").arg(file);
    if redact {
        cmd.arg("--redact");
    }
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
fn every_pattern_positive_and_negative_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, secret, token, look_alike) in CASES {
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
