//! `--to html` in a real browser: every corpus stream, the hand-written samples (one under a
//! hostile file name) and an `-o DIR` archive index loaded in Debian's headless Chromium by
//! `tests/browser/check.mjs`, which also runs axe-core (WCAG 2.1 A/AA and best practices, light
//! and dark) on each and checks what issue 12 asked for (open-on-load, previews,
//! colours, highlighting, prompt index, timeline, search, the index) and saves the README's
//! screenshots in `target/browser-shots/`. Skipped
//! with a printed reason when chromium or `tests/browser/node_modules` is missing, unless
//! `SCRIBE_BROWSER_TEST=required` (set by `.ci/run`), which makes a missing browser a failure.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{corpus, corpus_captures, root, sample, scribe};

/// Why the browser check cannot run here, if it cannot.
fn browser_missing(dir: &Path) -> Option<String> {
    // SCRIBE_CHROMIUM (also read by check.mjs) points at another build; Debian's by default.
    let chromium = std::env::var("SCRIBE_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return Some(format!(
            "{chromium} is not installed (apt-get install chromium)"
        ));
    }
    if !dir.join("node_modules/playwright-core").is_dir() {
        return Some("tests/browser/node_modules is missing (cd tests/browser && npm ci)".into());
    }
    if Command::new("node").arg("--version").output().is_err() {
        return Some("node is not installed".into());
    }
    None
}

/// The largest `.jsonl` file below `dir`, by bytes.
fn longest_session(dir: &Path) -> Option<PathBuf> {
    crate::util::files_under(dir, &|p| p.extension().is_some_and(|e| e == "jsonl"))
        .into_iter()
        .max_by_key(|p| fs::metadata(p).map_or(0, |m| m.len()))
}

#[test]
fn pages_work_in_headless_chromium() {
    let dir = root().join("tests/browser");
    if let Some(why) = browser_missing(&dir) {
        if std::env::var("SCRIBE_BROWSER_TEST").as_deref() == Ok("required") {
            panic!("SCRIBE_BROWSER_TEST=required but {why}");
        }
        eprintln!("skipping the browser test: {why}");
        return;
    }
    let pages = tempfile::tempdir().unwrap();
    let mut inputs: Vec<(String, PathBuf)> = vec![
        ("tour".into(), sample("html-tour.jsonl")),
        ("colour".into(), sample("html-colour.jsonl")),
        ("hostile".into(), sample("html-hostile.jsonl")),
    ];
    // The file name is shown in the title and header: make it hostile too.
    let evil_name = pages
        .path()
        .join("<img src=x onerror=window.__scribe_xss=99>\"'.jsonl");
    fs::copy(sample("html-hostile.jsonl"), &evil_name).unwrap();
    inputs.push(("hostile-name".into(), evil_name));
    if let Some(c) = corpus() {
        // Claude streams and saved sessions, Qwen daemon and stream-json, Codex captures.
        for p in corpus_captures(&c) {
            let rel = p
                .strip_prefix(&c)
                .unwrap()
                .to_string_lossy()
                .replace(['/', '.'], "-");
            inputs.push((format!("corpus-{rel}"), p));
        }
        // The longest session other people's tools wrote (the most marks on the timeline).
        if let Some(p) = longest_session(&c.join("external")) {
            inputs.push(("external-longest".into(), p));
        }
    }
    // Rendered four at a time: an unoptimised build spends ~0.5 s of CPU a page compiling the
    // highlighter's regexes; one after another, the 83 pages took ~40 s on a loaded machine.
    let mut files: Vec<PathBuf> = inputs
        .iter()
        .map(|(name, _)| pages.path().join(format!("{name}.html")))
        .collect();
    let lanes = 4;
    std::thread::scope(|scope| {
        for lane in 0..lanes {
            let (inputs, files) = (&inputs, &files);
            scope.spawn(move || {
                for ((name, input), page) in inputs.iter().zip(files).skip(lane).step_by(lanes) {
                    let out = scribe().args(["--to", "html"]).arg(input).output().unwrap();
                    assert!(out.status.success(), "{name}: {out:?}");
                    fs::write(page, &out.stdout).unwrap();
                }
            });
        }
    });
    // An archive of three sessions in two projects (`-o DIR`): its index is checked too.
    let archive = pages.path().join("archive");
    let out = scribe()
        .args(["--to", "html", "-o"])
        .arg(&archive)
        .args(["html-tour.jsonl", "html-colour.jsonl", "demo.jsonl"].map(sample))
        .output()
        .unwrap();
    assert!(out.status.success(), "archive: {out:?}");
    files.push(archive.join("index.html"));
    let shots = root().join("target/browser-shots");
    fs::create_dir_all(&shots).unwrap();
    let out = Command::new("node")
        .current_dir(&dir)
        .arg("check.mjs")
        .arg(&shots)
        .args(&files)
        .output()
        .expect("node runs");
    let report = String::from_utf8_lossy(&out.stdout);
    eprintln!("{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "browser check failed:\n{report}");
    assert_eq!(
        report.lines().filter(|l| l.starts_with("ok ")).count(),
        files.len()
    );
    for shot in ["colour", "tour", "index"] {
        for scheme in ["light", "dark"] {
            let png = shots.join(format!("{shot}-{scheme}.png"));
            assert!(png.is_file(), "{} saved", png.display());
        }
    }
}
