//! The conservation test (issue 15 point 1): whatever a raw log holds that a reader must see is
//! found again in scribe's output.
//!
//! The test reads each raw file itself, line by line, and asks a per-format extractor what the
//! file promises: tool call ids and result ids, every text the model wrote, every tool output,
//! every user text, and every prompt a person typed. It then runs the real binary and looks for
//! each item in `--to jsonl` and `--to atif` (anywhere in the records, whitespace-insensitive), and for each typed
//! prompt in `--to md` and `--to text` too (without `--context`). It knows nothing of scribe's
//! model beyond "the text is in there", so it keeps holding on logs nobody has seen yet.
//!
//! To cover another agent, add a [`Format`] to [`FORMATS`]: a way to list its files and an
//! extractor from raw JSON lines to [`Conserved`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::conservation_views::{Visible, assert_all_visible};
use crate::util::{Ext2, corpus, corpus_captures, external2_logs, files_under, root, scribe};

/// What a reader must find again from one raw file.
#[derive(Debug, Default)]
struct Conserved {
    /// Ids that must appear verbatim as a string in the JSONL (tool call and tool result ids).
    ids: Vec<(&'static str, String)>,
    /// Texts that must appear in the JSONL (whitespace-insensitive): what the model wrote, tool
    /// outputs, every user message's raw text.
    texts: Vec<(&'static str, String)>,
    /// Prompts a person typed: in the JSONL and visible in Markdown and the terminal view.
    prompts: Vec<String>,
    /// Tool calls (name, input): visible in the rendered views (`conservation_views`).
    calls: Vec<(String, Value)>,
}

/// One kind of log: where its files are and what each promises.
struct Format {
    name: &'static str,
    /// The files of this format in `samples/`.
    samples: fn() -> Vec<PathBuf>,
    /// The files of this format in the shared corpus, given its directory.
    corpus: fn(&Path) -> Vec<PathBuf>,
    /// What must be conserved, from the file's raw JSON lines.
    extract: fn(&[Value]) -> Conserved,
}

/// Every format the test covers.
const FORMATS: &[Format] = &[Format {
    name: "claude-code",
    samples: claude_samples,
    corpus: claude_corpus_files,
    extract: claude_conserved,
}];

/// Files that still lose content for a reason another part of issue 15 fixes, with that reason.
/// The test fails when one of them stops losing content, so the list only shrinks.
const KNOWN_LOSSES: &[(&str, &str)] = &[];

#[test]
fn every_claude_sample_keeps_what_a_reader_must_see() {
    assert_each_file_keeps_what_a_reader_must_see(&|f| (f.samples)());
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_claude_corpus_file_keeps_what_a_reader_must_see() {
    let dir = corpus();
    assert_each_file_keeps_what_a_reader_must_see(&|f| (f.corpus)(&dir));
}

/// The Claude Code logs of `../shared/external2`: sessions, sub-agent transcripts (read on their
/// own: some have no parent session), streams (one re-serialised by an SDK wrapper) and
/// `--output-format json` results.
fn claude_external2_files() -> Vec<PathBuf> {
    external2_logs(&[
        Ext2::ClaudeSession,
        Ext2::ClaudeSubagent,
        Ext2::ClaudeStream,
        Ext2::ClaudeStreamDerived,
        Ext2::ClaudeResult,
    ])
}

#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn every_claude_external2_file_keeps_what_a_reader_must_see() {
    assert_each_file_keeps_what_a_reader_must_see(&|_| claude_external2_files());
}

/// Checks every file `files_of` lists for each format: each keeps what its raw lines promise,
/// and the files of [`KNOWN_LOSSES`] still lose something.
fn assert_each_file_keeps_what_a_reader_must_see(files_of: &dyn Fn(&Format) -> Vec<PathBuf>) {
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut known_losses = 0;
    for format in FORMATS {
        let files = files_of(format);
        assert!(!files.is_empty(), "{}: no files found", format.name);
        for path in &files {
            let raw = raw_lines(path);
            let want = (format.extract)(&raw);
            checked += 1;
            let missing = check(path, &want);
            let known = KNOWN_LOSSES
                .iter()
                .find(|(suffix, _)| path.ends_with(suffix));
            if let Some((suffix, why)) = known {
                known_losses += usize::from(!missing.is_empty());
                // Kept honest: a listed file that no longer loses anything must leave the list.
                if missing.is_empty() {
                    failures.push(format!(
                        "{suffix} conserves everything now: take it off KNOWN_LOSSES ({why})"
                    ));
                }
                continue;
            }
            if !missing.is_empty() {
                failures.push(format!(
                    "{} ({} missing):\n  {}",
                    path.display(),
                    missing.len(),
                    missing
                        .iter()
                        .take(8)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n  ")
                ));
            }
        }
    }
    eprintln!(
        "conservation: {checked} files checked, {} losing content, {known_losses} with the known losses of KNOWN_LOSSES",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} files lose content:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every assistant text, tool call and tool output of every Claude sample is visible in the
/// rendered views (`conservation_views`), not only kept in the JSONL.
#[test]
fn every_claude_sample_shows_what_a_reader_must_see() {
    assert_each_file_shows_what_a_reader_must_see(&|f| (f.samples)());
}

/// Every assistant text, tool call and tool output of every Claude file of the shared corpus is
/// visible in the rendered views.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_claude_corpus_file_shows_what_a_reader_must_see() {
    let dir = corpus();
    assert_each_file_shows_what_a_reader_must_see(&|f| (f.corpus)(&dir));
}

/// The same over every Claude file of `../shared/external2`.
#[test]
#[ignore = "needs ../shared/external2; .ci/run runs it"]
fn every_claude_external2_file_shows_what_a_reader_must_see() {
    assert_each_file_shows_what_a_reader_must_see(&|_| claude_external2_files());
}

/// Checks that what each file `files_of` lists for each format promises is visible in the
/// rendered views.
fn assert_each_file_shows_what_a_reader_must_see(files_of: &dyn Fn(&Format) -> Vec<PathBuf>) {
    let files: Vec<(PathBuf, Visible)> = FORMATS
        .iter()
        .flat_map(|f| files_of(f).into_iter().map(|p| (p, f.extract)))
        .map(|(p, extract)| {
            let c = extract(&raw_lines(&p));
            let texts = c
                .texts
                .into_iter()
                .filter(|(what, _)| matches!(*what, "assistant text" | "tool output"))
                .collect();
            (
                p,
                Visible {
                    texts,
                    calls: c.calls,
                },
            )
        })
        .collect();
    assert_all_visible(files);
}

/// The JSON outputs every promised id, text and prompt must be found in: the transcript, and
/// the ATIF trajectory.
const JSON_OUTPUTS: [&str; 2] = ["jsonl", "atif"];

/// Runs the binary on `path` and lists every promised item it cannot find.
fn check(path: &Path, want: &Conserved) -> Vec<String> {
    let mut missing = Vec::new();
    for to in JSON_OUTPUTS {
        missing.extend(missing_in_json(path, want, to));
    }
    let md = normalize(&unescape_md(&run(path, &["--to", "md"])));
    let text = normalize(&run(
        path,
        &["--to", "text", "--color", "never", "--width", "65535"],
    ));
    for p in &want.prompts {
        // Each line on its own (the views prefix and indent lines of a long prompt), in pieces
        // between control characters (the views show those as visible escapes).
        let pieces: Vec<String> = p.lines().flat_map(printable_pieces).collect();
        if let Some(piece) = pieces
            .iter()
            .find(|x| !md.contains(&normalize(&unescape_md(x))))
        {
            missing.push(format!("prompt not in --to md: {}", short(piece)));
        }
        if let Some(piece) = pieces.iter().find(|x| !text.contains(x.as_str())) {
            missing.push(format!("prompt not in --to text: {}", short(piece)));
        }
    }
    missing
}

/// Every promised id, text and prompt that the JSON output `--to <to>` of `path` lacks.
fn missing_in_json(path: &Path, want: &Conserved, to: &str) -> Vec<String> {
    let out = run(path, &["--to", to]);
    let mut strings = Vec::new();
    let mut exact = HashSet::new();
    for line in out.lines() {
        if let Ok(v) = serde_json::from_str::<Value>(line) {
            collect_strings(&v, &mut strings, &mut exact);
        }
    }
    let haystack = normalize(&strings.join("\n"));
    let mut missing = Vec::new();
    for (what, id) in &want.ids {
        // Ids are unique tokens: one inside a notice's text (an orphan result) is found too.
        if !exact.contains(id.as_str()) && !haystack.contains(id.as_str()) {
            missing.push(format!("{what} {id} not in --to {to}"));
        }
    }
    for (what, t) in &want.texts {
        if !haystack.contains(&normalize(t)) {
            missing.push(format!("{what} not in --to {to}: {}", short(t)));
        }
    }
    for p in &want.prompts {
        if !haystack.contains(&normalize(p)) {
            missing.push(format!("prompt not in --to {to}: {}", short(p)));
        }
    }
    missing
}

/// The binary's stdout on `path` (exit 0 required: bad input is reported, not fatal).
fn run(path: &Path, args: &[&str]) -> String {
    let out = scribe()
        .args(args)
        .arg(path)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every string in a JSON value (object keys excluded), appended to `out` and to `exact`.
fn collect_strings(v: &Value, out: &mut Vec<String>, exact: &mut HashSet<String>) {
    match v {
        Value::String(s) => {
            out.push(s.clone());
            exact.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out, exact)),
        Value::Object(o) => o.values().for_each(|x| collect_strings(x, out, exact)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Whitespace-insensitive form: every run of whitespace becomes one space.
fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Markdown's escapes undone (backslash before punctuation, the HTML entities scribe writes, and
/// backticks: `@user` mentions are put in code spans so GitHub pings nobody), so a prompt's words
/// can be found in it.
fn unescape_md(s: &str) -> String {
    let s = s
        .replace('`', "")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| n.is_ascii_punctuation()) {
            continue;
        }
        out.push(c);
    }
    out
}

/// The runs of a line between control and invisible format characters, normalized.
fn printable_pieces(line: &str) -> Vec<String> {
    line.split(|c: char| {
        c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    })
    .map(normalize)
    .filter(|x| !x.is_empty())
    .collect()
}

fn short(s: &str) -> String {
    let one = normalize(s);
    match one.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

/// A raw file's JSON lines (lines that are not JSON are not promises; scribe reports them).
fn raw_lines(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).expect("read raw file");
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Claude Code: stream-json and saved sessions share the message shapes.

/// The Claude Code files of the shared corpus: its streams and saved sessions, and the Claude
/// line files of `corpus/external` (per its README; whole JSON documents are left to their
/// reader).
fn claude_corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = corpus_captures(dir)
        .into_iter()
        .filter(|p| p.starts_with(dir.join("claude-code")))
        .collect();
    out.extend(external_claude_files(&dir.join("external")));
    out
}

/// The samples scribe reads as Claude Code's (sub-agent files are read with their session).
fn claude_samples() -> Vec<PathBuf> {
    let samples = files_under(&root().join("samples"), &|p| {
        p.extension().is_some_and(|e| e == "jsonl") && !p.to_string_lossy().contains("/subagents/")
    });
    // A sample is Claude's when scribe's own detection says so (the header's `source`).
    samples
        .into_iter()
        .filter(|p| {
            let head = run(p, &["--to", "jsonl"]);
            let source = head
                .lines()
                .next()
                .and_then(|l| serde_json::from_str::<Value>(l).ok())
                .and_then(|h| h.get("source").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default();
            source.starts_with("claude") && !is_subagent_file(p)
        })
        .collect()
}

/// `agent-*.jsonl` beside a session: read with its session, not on its own here.
fn is_subagent_file(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("agent-"))
        && p.parent().is_some_and(|d| d.ends_with("subagents"))
}

/// The external corpus's Claude Code line files, from the README's table.
fn external_claude_files(dir: &Path) -> Vec<PathBuf> {
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("external README");
    let mut out = Vec::new();
    for row in readme.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | repo | commit | path | agent / format | …
        let (Some(repo), Some(path), Some(format)) = (cells.get(1), cells.get(3), cells.get(4))
        else {
            continue;
        };
        let path = path.trim_matches('`');
        if !format.starts_with("Claude Code")
            || !(path.ends_with(".jsonl") || path.ends_with(".ndjson"))
        {
            continue;
        }
        let p = dir.join(repo).join(path);
        assert!(
            p.is_file(),
            "README lists {} but it is missing",
            p.display()
        );
        out.push(p);
    }
    assert!(
        !out.is_empty(),
        "no Claude files listed in {}",
        dir.display()
    );
    out
}

/// What a Claude Code file promises: tool_use and tool_result ids, assistant text blocks, tool
/// outputs, every user text (raw, as the classifier must keep it), typed prompts.
fn claude_conserved(rows: &[Value]) -> Conserved {
    let mut c = Conserved::default();
    for row in rows {
        let ty = row.get("type").and_then(Value::as_str).unwrap_or_default();
        // A `system` row's words (local command output, informational messages); a compact
        // boundary's `content` is the fixed label its compaction notice stands for.
        let subtype = row
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if ty == "system" && subtype != "compact_boundary" {
            push_text(&mut c, "system row content", row.get("content"));
        }
        let Some(content) = row.pointer("/message/content") else {
            continue;
        };
        let blocks: Vec<Value> = match content {
            Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
            Value::Array(a) => a.clone(),
            _ => continue,
        };
        match ty {
            "assistant" => {
                for b in &blocks {
                    match b.get("type").and_then(Value::as_str).unwrap_or_default() {
                        "text" => push_text(&mut c, "assistant text", b.get("text")),
                        "tool_use" | "server_tool_use" | "mcp_tool_use" => {
                            push_id(&mut c, "tool_use id", b.get("id"));
                            c.calls.push((
                                b.get("name")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .to_owned(),
                                b.get("input").cloned().unwrap_or(Value::Null),
                            ));
                        }
                        _ => {}
                    }
                }
            }
            "user" => {
                let mut texts = Vec::new();
                let mut has_result = false;
                for b in &blocks {
                    match b.get("type").and_then(Value::as_str).unwrap_or_default() {
                        "text" => {
                            if let Some(t) = b.get("text").and_then(Value::as_str) {
                                texts.push(t.to_owned());
                            }
                        }
                        "tool_result" => {
                            has_result = true;
                            push_id(&mut c, "tool_result id", b.get("tool_use_id"));
                            for t in result_texts(b.get("content")) {
                                push_text(&mut c, "tool output", Some(&Value::String(t)));
                            }
                        }
                        _ => {}
                    }
                }
                // What an IDE put before the typed words is context of its own turn: its
                // elements' text must be kept, and the prompt is what follows them.
                let texts: Vec<String> = texts
                    .into_iter()
                    .map(|t| {
                        let (context, typed) = split_ide_context(&t);
                        for x in context {
                            push_text(&mut c, "IDE context", Some(&Value::String(x)));
                        }
                        typed
                    })
                    .collect();
                for t in &texts {
                    // A `<task-notification>` naming a call of the input becomes that call's
                    // task end: its words (summary, the agent's `<result>`) and task id are what
                    // must be kept, not the markup around them.
                    if t.trim_start().starts_with("<task-notification") {
                        push_id(
                            &mut c,
                            "task-notification task id",
                            inner(t, "task-id").map(Value::String).as_ref(),
                        );
                        for tag in ["summary", "result"] {
                            let v = inner(t, tag).map(Value::String);
                            push_text(&mut c, "task-notification text", v.as_ref());
                        }
                        continue;
                    }
                    push_text(&mut c, "user text", Some(&Value::String(t.clone())));
                }
                if !has_result && !is_harness_row(row) {
                    if let Some(p) = typed_prompt(&texts.join("\n")) {
                        c.prompts.push(p);
                    }
                }
            }
            _ => {}
        }
    }
    c
}

/// The `<ide_opened_file>` / `<ide_selection>` elements at the start of a prompt (their inner
/// text) and the words typed after them.
fn split_ide_context(text: &str) -> (Vec<String>, String) {
    let mut context = Vec::new();
    let mut rest = text;
    'elements: loop {
        let trimmed = rest.trim_start();
        for tag in ["ide_opened_file", "ide_selection"] {
            let open = format!("<{tag}>");
            let close = format!("</{tag}>");
            if let Some(after) = trimmed.strip_prefix(&open) {
                if let Some(end) = after.find(&close) {
                    context.push(after[..end].to_owned());
                    rest = &after[end + close.len()..];
                    continue 'elements;
                }
            }
        }
        break;
    }
    if context.is_empty() {
        return (context, text.to_owned());
    }
    (context, rest.trim_start().to_owned())
}

fn push_id(c: &mut Conserved, what: &'static str, v: Option<&Value>) {
    if let Some(id) = v.and_then(Value::as_str).filter(|s| !s.is_empty()) {
        c.ids.push((what, id.to_owned()));
    }
}

fn push_text(c: &mut Conserved, what: &'static str, v: Option<&Value>) {
    if let Some(t) = v.and_then(Value::as_str).filter(|s| !s.trim().is_empty()) {
        c.texts.push((what, t.to_owned()));
    }
}

/// The text of a tool_result's content: a string, or its text blocks.
fn result_texts(content: Option<&Value>) -> Vec<String> {
    match content {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Rows the harness wrote, not a person: flagged context, sub-agent threads.
fn is_harness_row(row: &Value) -> bool {
    let flag = |k: &str| row.get(k).and_then(Value::as_bool).unwrap_or(false);
    flag("isMeta")
        || flag("isSynthetic")
        || flag("isCompactSummary")
        || flag("isVisibleInTranscriptOnly")
        || flag("isSidechain")
        || row.get("parent_tool_use_id").is_some_and(|p| !p.is_null())
}

/// The prompt a person typed, if this user text is one: plain text (reminder envelopes taken
/// out), a slash command that carries a request (`/name args`), a bash-mode command or a memory
/// note; none for CLI machinery (command output, caveats, interrupts, notifications).
fn typed_prompt(text: &str) -> Option<String> {
    let mut t = text.to_owned();
    for tag in ["system-reminder", "user-prompt-submit-hook"] {
        while let Some(start) = t.find(&format!("<{tag}>")) {
            let close = format!("</{tag}>");
            let end = t[start..]
                .find(&close)
                .map_or(t.len(), |e| start + e + close.len());
            t.replace_range(start..end, "");
        }
    }
    let t = t.trim();
    if t.is_empty() {
        return None;
    }
    const MACHINERY: &[&str] = &[
        "<local-command-",
        "<bash-stdout",
        "<bash-stderr",
        "<task-notification",
        "[Request interrupted",
        "Caveat: The messages below were generated",
        "This session is being continued",
        "[SYSTEM NOTIFICATION",
    ];
    if MACHINERY.iter().any(|m| t.starts_with(m)) {
        return None;
    }
    if t.starts_with("<command-") {
        let name = inner(t, "command-name").unwrap_or_default();
        let name = name.trim_start_matches('/');
        let message = inner(t, "command-message").unwrap_or_default();
        let args = inner(t, "command-args").unwrap_or_default();
        let carries_request = !args.is_empty()
            || inner(t, "command-contents").is_some()
            || (!message.is_empty() && message != name);
        return carries_request.then(|| {
            if args.is_empty() {
                format!("/{name}")
            } else {
                format!("/{name} {args}")
            }
        });
    }
    if t.starts_with("<bash-input>") {
        return inner(t, "bash-input").map(|c| format!("! {c}"));
    }
    if t.starts_with("<user-memory-input>") {
        return inner(t, "user-memory-input");
    }
    Some(t.to_owned())
}

/// The trimmed text inside the first `<tag>…</tag>`.
fn inner(t: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let start = t.find(&open)? + open.len();
    let end = t[start..]
        .find(&format!("</{tag}>"))
        .map_or(t.len(), |e| start + e);
    Some(t[start..end].trim().to_owned())
}
