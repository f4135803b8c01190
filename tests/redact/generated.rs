//! Property: a generated secret of any kind, placed in a random string field of a real
//! sample line, never survives `--redact` in any format.

use proptest::prelude::*;

use super::{FORMATS, run, write};
use crate::util::{files_under, root};

/// (prefix, length of the random body, what follows) per kind; the body is what must not
/// survive.
const KINDS: &[(&str, usize, &str)] = &[
    ("sk-ant-api03-", 32, ""),
    ("sk-proj-", 32, ""),
    ("ghp_", 36, ""),
    ("github_pat_", 40, ""),
    ("glpat-", 20, ""),
    ("xoxb-1234-5678-", 24, ""),
    ("https://hooks.slack.com/services/T000/B000/", 24, ""),
    ("sk_live_", 24, ""),
    ("npm_", 36, ""),
    ("hf_", 34, ""),
    ("AIza", 35, ""),
    ("Authorization: Bearer ", 24, ""),
    ("TOKEN=", 14, ""),
    ("SECRET_KEY_BASE=", 20, ""),
    ("password=", 12, ""),
    ("\"client_secret\": \"", 16, "\""),
    ("api_key: ", 16, ""),
    ("aws_secret_access_key = ", 40, ""),
    ("curl -u bob:", 12, " https://x.example"),
    ("mysql -u root -p", 12, " db"),
    ("postgres://bob:", 12, "@db.example/app"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
        40,
        "\n-----END RSA PRIVATE KEY-----",
    ),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl", 40, ""),
];

/// Every line of the samples that is a JSON object, with the paths of its string values.
fn sample_lines() -> Vec<(serde_json::Value, Vec<Vec<String>>)> {
    let files = files_under(&root().join("samples"), &|p| {
        p.extension().is_some_and(|e| e == "jsonl")
    });
    let mut out = Vec::new();
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap_or_default().lines() {
            let Ok(v @ serde_json::Value::Object(_)) = serde_json::from_str(line) else {
                continue;
            };
            let mut paths = Vec::new();
            string_paths(&v, &mut Vec::new(), &mut paths);
            if !paths.is_empty() {
                out.push((v, paths));
            }
        }
    }
    out
}

fn string_paths(v: &serde_json::Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        serde_json::Value::String(_) => out.push(at.clone()),
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(i.to_string());
                string_paths(x, at, out);
                at.pop();
            }
        }
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                at.push(k.clone());
                string_paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'a>(v: &'a mut serde_json::Value, path: &[String]) -> &'a mut serde_json::Value {
    path.iter().fold(v, |v, k| match v {
        serde_json::Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
        other => &mut other[k.as_str()],
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_generated_secret_survives_in_any_format(
        pick in any::<prop::sample::Index>(),
        field in any::<prop::sample::Index>(),
        kind in 0..KINDS.len(),
        body in "[A-Za-z0-9]{64}",
        replace in any::<bool>(),
    ) {
        let lines = sample_lines();
        let (mut line, paths) = lines[pick.index(lines.len())].clone();
        let (prefix, len, suffix) = KINDS[kind];
        // A digit and both cases, so every kind's shape is met.
        let body = format!("7aZ{}", &body[..len - 3]);
        let secret = format!("{prefix}{body}{suffix}");
        let path = &paths[field.index(paths.len())];
        let slot = at_path(&mut line, path);
        let old = slot.as_str().unwrap_or_default().to_owned();
        *slot = serde_json::Value::String(match replace {
            true => secret.clone(),
            false => format!("{old} {secret} "),
        });
        let dir = tempfile::tempdir().unwrap();
        let f = write(dir.path(), "in.jsonl", &format!("{line}\n"));
        for to in FORMATS {
            let out = run(&f, to, true);
            prop_assert!(
                !out.contains(&body),
                "{} in {:?} of {}, --to {}:\n{}", secret, path, line, to, out
            );
        }
    }
}
