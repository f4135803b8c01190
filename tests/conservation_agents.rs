//! Conservation for Codex, Gemini and Qwen (issue 11 point 6): over every raw file of those
//! agents in the shared corpus (external included) and in `samples/`, every call id, assistant
//! text, typed prompt and tool output the raw log holds is kept in `--to jsonl`, and every
//! typed prompt is visible in `--to md` and `--to text`. Each format has its own extractor
//! that reads the raw lines without scribe's code, so a fact an adapter drops is caught.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Each raw format's facts, read from its lines.
mod raw_formats;

use crate::conservation_external2_known::KNOWN_FACT_LOSSES;
use crate::conservation_views::{Visible, assert_all_visible};
use crate::util::{Ext2, corpus, external2_files, files_under, json_lines, root, scribe};
use raw_formats::{
    codex_exec, codex_rollout, gemini_chat, gemini_stream, qwen_chat, qwen_daemon, qwen_stream,
};

/// What a raw log holds that the transcript must keep.
#[derive(Default, Debug)]
struct Facts {
    call_ids: Vec<String>,
    texts: Vec<String>,
    prompts: Vec<String>,
    outputs: Vec<String>,
    /// Tool calls (name, input): visible in the rendered views (`conservation_views`).
    calls: Vec<(String, Value)>,
    /// Assistant texts as a reader sees them when `texts` holds streamed pieces of them (Qwen
    /// daemon chunks); empty when `texts` are whole.
    views: Vec<String>,
}

/// The raw formats these extractors read.
#[derive(Debug, Clone, Copy)]
enum Raw {
    CodexExec,
    CodexRollout,
    GeminiStream,
    GeminiChat,
    QwenStream,
    QwenDaemon,
    QwenChat,
}

/// The Codex, Gemini and Qwen samples, with their format.
fn sample_raw_files() -> Vec<(PathBuf, Raw)> {
    let samples = root().join("samples");
    [
        ("codex-exec-edges.jsonl", Raw::CodexExec),
        ("codex-rollout-edges.jsonl", Raw::CodexRollout),
        ("codex-rollout-legacy.jsonl", Raw::CodexRollout),
        ("gemini-stream-edges.jsonl", Raw::GeminiStream),
        ("qwen-session.jsonl", Raw::QwenChat),
        ("qwen-daemon-edges.sse", Raw::QwenDaemon),
    ]
    .map(|(name, raw)| (samples.join(name), raw))
    .into()
}

/// Every Codex, Gemini and Qwen raw file of the shared corpus (external included), with its
/// format.
fn corpus_raw_files() -> Vec<(PathBuf, Raw)> {
    let mut out = Vec::new();
    let dir = corpus();
    for p in files_under(&dir, &|_| true) {
        let s = p.to_string_lossy().into_owned();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let raw = if s.contains("/codex/") && name.starts_with("rollout-") {
            Some(Raw::CodexRollout)
        } else if name.starts_with("stream-output")
            || s.contains("/codex/") && name == "stream.jsonl"
        {
            Some(Raw::CodexExec)
        } else if s.contains("gemini-cli/") && name == "stream.jsonl"
            || s.contains("google-gemini/") && name.ends_with(".jsonl")
        {
            Some(Raw::GeminiStream)
        } else if s.contains("gemini-cli/") && s.contains("/chats/") && name.ends_with(".jsonl") {
            Some(Raw::GeminiChat)
        } else if s.contains("qwen-code/") && name == "stream.jsonl"
            || name == "qwen_output_sample.jsonl"
        {
            Some(Raw::QwenStream)
        } else if s.contains("qwen-daemon/")
            && (name.ends_with(".sse")
                || name.starts_with("conformance-") && name.ends_with(".jsonl"))
        {
            Some(Raw::QwenDaemon)
        } else {
            None
        };
        if let Some(r) = raw {
            out.push((p, r));
        }
    }
    out
}

/// Every Codex, Gemini and Qwen log of `../shared/external2`, with its format.
fn external2_raw_files() -> Vec<(PathBuf, Raw)> {
    external2_files()
        .into_iter()
        .filter_map(|(p, kind)| {
            let raw = match kind {
                Ext2::CodexRollout => Raw::CodexRollout,
                Ext2::CodexExec => Raw::CodexExec,
                Ext2::GeminiChat => Raw::GeminiChat,
                Ext2::QwenChat => Raw::QwenChat,
                Ext2::ClaudeSession
                | Ext2::ClaudeSubagent
                | Ext2::ClaudeStream
                | Ext2::ClaudeStreamDerived
                | Ext2::ClaudeResult
                | Ext2::NotALog => return None,
            };
            Some((p, raw))
        })
        .collect()
}

/// The JSON objects of a raw file: one a line, or one an SSE `data:` line; for a file that is
/// one JSON document (a Gemini saved chat), the messages it lists.
fn objects(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| l.strip_prefix("data:").map_or(l, str::trim_start))
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(Value::is_object)
        .collect();
    if !lines.is_empty() {
        return lines;
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut doc)) => match doc.remove("messages") {
            Some(Value::Array(messages)) => messages,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// A rollout line's kind and payload; a line of a rollout written before the envelopes (a bare
/// response item: `{type: "message", …}`) is read as the `response_item` it stands for.
fn rollout_line(o: &Value) -> (String, &Value) {
    match o.get("payload") {
        Some(p) => (s(o, "type"), p),
        None if o["type"].is_string() => ("response_item".to_owned(), o),
        None => (String::new(), o),
    }
}

fn s(v: &Value, k: &str) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The text of a content list (`[{text}]`, `[{type, text}]`) or a string.
fn content(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|c| c.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// True for a message a harness wrote (`<environment_context>…`, `<session_context>…`).
fn harness(t: &str) -> bool {
    let t = t.trim();
    t.starts_with('<') || t.starts_with("# AGENTS.md")
}

fn extract(path: &Path, raw: Raw) -> Facts {
    let mut f = Facts::default();
    let objs = objects(path);
    match raw {
        Raw::CodexExec => codex_exec(&objs, &mut f),
        Raw::CodexRollout => codex_rollout(&objs, &mut f),
        Raw::GeminiStream => gemini_stream(&objs, &mut f),
        Raw::GeminiChat => gemini_chat(&objs, &mut f),
        Raw::QwenStream => qwen_stream(&objs, &mut f),
        Raw::QwenDaemon => qwen_daemon(&objs, &mut f),
        Raw::QwenChat => qwen_chat(&objs, &mut f),
    }
    // Codex's IDE extension puts a context block before the typed request: the prompt a reader
    // must see is the request (the block is a context turn of its own).
    for p in &mut f.prompts {
        if let Some(request) = codex_ide_request(p) {
            *p = request;
        }
    }
    for list in [
        &mut f.call_ids,
        &mut f.texts,
        &mut f.prompts,
        &mut f.outputs,
    ] {
        list.retain(|t| !t.trim().is_empty());
    }
    f
}

/// The typed request of a prompt in the Codex IDE extension's shape (`# Context from my IDE
/// setup:` … `## My request for Codex:` request).
fn codex_ide_request(prompt: &str) -> Option<String> {
    let body = prompt.trim_start();
    if !body.starts_with("# Context from my IDE setup:") {
        return None;
    }
    let (_, request) = body.split_once("\n## My request for Codex:")?;
    Some(request.trim().to_owned())
}

/// Every assistant text, tool call and tool output of every Codex, Gemini and Qwen sample is
/// visible in the rendered views (`conservation_views`), not only kept in the JSONL.
#[test]
fn every_codex_gemini_and_qwen_sample_shows_what_a_reader_must_see() {
    assert_each_file_shows_what_a_reader_must_see(sample_raw_files());
}

/// The same over every Codex, Gemini and Qwen file of the shared corpus.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_codex_gemini_and_qwen_corpus_file_shows_what_a_reader_must_see() {
    assert_each_file_shows_what_a_reader_must_see(corpus_raw_files());
}

/// The same over every Codex, Gemini and Qwen log of `../shared/external2`.
#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn every_codex_gemini_and_qwen_external2_file_shows_what_a_reader_must_see() {
    assert_each_file_shows_what_a_reader_must_see(external2_raw_files());
}

/// Checks that every assistant text, tool call and tool output of each file is visible in the
/// rendered views.
fn assert_each_file_shows_what_a_reader_must_see(raw_files: Vec<(PathBuf, Raw)>) {
    let files: Vec<(PathBuf, Visible)> = raw_files
        .into_iter()
        .map(|(p, raw)| {
            let f = extract(&p, raw);
            let whole = if f.views.is_empty() { f.texts } else { f.views };
            let texts = whole
                .into_iter()
                .map(|t| ("assistant text", t))
                .chain(f.outputs.into_iter().map(|t| ("tool output", t)))
                .collect();
            (
                p,
                Visible {
                    texts,
                    calls: f.calls,
                },
            )
        })
        .collect();
    assert_all_visible(files);
}

/// Every string anywhere in a list of records.
fn strings(recs: &[Value], out: &mut Vec<String>) {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    recs.iter().for_each(|r| walk(r, out));
}

/// A few plain words from the start of a prompt: what a reader must find in the rendered text
/// whatever the renderer escapes or wraps.
fn probe(prompt: &str) -> Vec<String> {
    prompt
        .split_whitespace()
        .filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_alphanumeric()))
        .take(4)
        .map(str::to_owned)
        .collect()
}

fn render(path: &Path, to: &str) -> String {
    let out = scribe()
        .args(["--to", to, "--color", "never"])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}: --to {to} failed", path.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_codex_gemini_and_qwen_sample_fact_is_kept() {
    assert_every_fact_is_kept(&sample_raw_files());
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_codex_gemini_and_qwen_corpus_fact_is_kept() {
    assert_every_fact_is_kept(&corpus_raw_files());
}

#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn every_codex_gemini_and_qwen_external2_fact_is_kept() {
    assert_every_fact_is_kept(&external2_raw_files());
}

/// Checks that each file's call ids, assistant texts, typed prompts and tool outputs are kept
/// in `--to jsonl` and `--to atif`, and its typed prompts shown in `--to md` and `--to text`.
fn assert_every_fact_is_kept(files: &[(PathBuf, Raw)]) {
    assert!(files.len() >= 6);
    let mut failures = Vec::new();
    for (path, raw) in files {
        let facts = extract(path, *raw);
        let name = path.display();
        for to in ["jsonl", "atif"] {
            let recs = json_lines(render(path, to).as_bytes());
            let mut all = Vec::new();
            strings(&recs, &mut all);
            let kept = |t: &String| all.iter().any(|s| s.contains(t.trim()));
            for (what, list) in [
                ("call id", &facts.call_ids),
                ("assistant text", &facts.texts),
                ("typed prompt", &facts.prompts),
                ("tool output", &facts.outputs),
            ] {
                for t in list.iter().filter(|t| !kept(t)) {
                    failures.push(format!(
                        "{name} ({raw:?}): {what} lost: {:.80} (--to {to})",
                        t.trim()
                    ));
                }
            }
        }
        if facts.prompts.is_empty() {
            continue;
        }
        for to in ["md", "text"] {
            let shown = render(path, to);
            for p in &facts.prompts {
                for w in probe(p).iter().filter(|w| !shown.contains(w.as_str())) {
                    failures.push(format!("{name}: prompt word {w:?} not in --to {to}"));
                }
            }
        }
    }
    let checked = |suffix: &str| files.iter().any(|(p, _)| p.ends_with(suffix));
    for (suffix, what, why) in KNOWN_FACT_LOSSES.iter().filter(|k| checked(k.0)) {
        let found = failures
            .iter()
            .any(|f| f.contains(suffix) && f.contains(what));
        if !found {
            failures.push(format!(
                "{suffix}: '{what}' is no longer lost: take it off KNOWN_FACT_LOSSES ({why})"
            ));
        }
    }
    failures.retain(|f| {
        !KNOWN_FACT_LOSSES
            .iter()
            .any(|(suffix, what, _)| f.contains(suffix) && f.contains(what))
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
