//! Conservation where a reader looks: every text a model wrote, every tool call and every tool
//! output of a raw log is visible in the rendered views, not only kept in `--to jsonl`.
//!
//! The extractors of `conservation` (Claude Code) and `conservation_agents` (Codex, Gemini,
//! Qwen) say what a raw file holds; this module renders each file once per view and looks for
//! every piece in it. It knows nothing of the renderers beyond "the words are in there": each
//! view is reduced to its visible words (HTML tags stripped and entities decoded, Markdown and
//! ANSI marks dropped), each line of a piece to its words, and a line is found when its words
//! appear in that order, adjacent, somewhere in the view. So it holds whatever the renderers
//! escape, highlight or indent, and for logs nobody has seen.
//!
//! Views that show everything must show every line: `--to md --full`, `--to text --full` (no
//! colour, no wrapping) and the HTML page (text inside `<details>` counts: a click opens it).
//! The default Markdown and text views may abbreviate, but only when they say so ("+N lines",
//! "show all N lines", a sub-agent's "N tool calls").

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::conservation_external2_known::EXTERNAL2_VIEW_LOSSES;
use crate::conservation_views_known::KNOWN_VIEW_LOSSES;
use crate::util::scribe;

/// What must be visible from one raw file: (kind, text) pieces and tool calls.
#[derive(Debug, Default)]
pub(crate) struct Visible {
    /// Texts shown whole: "assistant text", "tool output".
    pub(crate) texts: Vec<(&'static str, String)>,
    /// Tool calls: the tool's name and its input (any JSON).
    pub(crate) calls: Vec<(String, Value)>,
}

/// A view and the arguments that make it.
struct View {
    name: &'static str,
    args: &'static [&'static str],
    /// A view that shows everything (every line must be there) or one that may abbreviate
    /// when it says so.
    whole: bool,
    html: bool,
}

const VIEWS: &[View] = &[
    View {
        name: "md --full",
        args: &["--to", "md", "--full"],
        whole: true,
        html: false,
    },
    View {
        name: "text --full",
        args: &[
            "--to", "text", "--full", "--color", "never", "--width", "65535",
        ],
        whole: true,
        html: false,
    },
    View {
        name: "html",
        args: &["--to", "html"],
        whole: true,
        html: true,
    },
    View {
        name: "text",
        args: &["--to", "text", "--color", "never", "--width", "65535"],
        whole: false,
        html: false,
    },
];

/// Fails, listing every lost piece, unless every file of `files` shows all it promises in every
/// view (the assertion both conservation tests end with).
pub(crate) fn assert_all_visible(files: Vec<(PathBuf, Visible)>) {
    let n = files.len();
    let lost = check_files(files);
    assert!(
        lost.is_empty(),
        "{} pieces lost over {n} files:\n{}",
        lost.len(),
        lost.join("\n")
    );
}

/// Checks every file of `files` (path, what it promises) in every view, on a few threads, and
/// returns one line per lost piece (`file: view: kind lost: text`) that [`KNOWN_VIEW_LOSSES`]
/// and [`EXTERNAL2_VIEW_LOSSES`] do not list, and one per listed loss no longer found.
fn check_files(files: Vec<(PathBuf, Visible)>) -> Vec<String> {
    let paths: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
    let lost = lost_pieces(files);
    let matches = |(suffix, view, what, _): &(&str, &str, &str, &str), line: &str| {
        let mut parts = line.splitn(3, ": ");
        let (file, v, rest) = (parts.next(), parts.next(), parts.next().unwrap_or_default());
        file.is_some_and(|f| f.ends_with(suffix)) && v == Some(*view) && rest.contains(what)
    };
    let known_losses = || KNOWN_VIEW_LOSSES.iter().chain(EXTERNAL2_VIEW_LOSSES);
    let mut out: Vec<String> = lost
        .iter()
        .filter(|l| !known_losses().any(|k| matches(k, l)))
        .cloned()
        .collect();
    for known in known_losses() {
        let checked = paths.iter().any(|p| p.ends_with(known.0));
        if checked && !lost.iter().any(|l| matches(known, l)) {
            out.push(format!(
                "{} {} '{}' is no longer lost: take it off the known losses ({})",
                known.0, known.1, known.2, known.3
            ));
        }
    }
    out
}

/// Every lost piece of every file, sorted.
fn lost_pieces(files: Vec<(PathBuf, Visible)>) -> Vec<String> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let queue = std::sync::Mutex::new(files.into_iter());
    let out = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let Some((path, want)) = queue.lock().unwrap().next() else {
                        break;
                    };
                    let lost = check_file(&path, &want);
                    out.lock().unwrap().extend(lost);
                }
            });
        }
    });
    let mut out = out.into_inner().unwrap();
    out.sort();
    out
}

/// Every lost piece of one file, over every view.
fn check_file(path: &Path, want: &Visible) -> Vec<String> {
    let mut lost = Vec::new();
    for view in VIEWS {
        let raw = render(path, view.args);
        // Markdown writes `<`, `>` and `&` of untrusted text as entities.
        let words = match (view.html, view.name.starts_with("md")) {
            (true, _) => Words::new(&html_text(&raw)),
            (false, true) => Words::new(&markdown_text(&raw)),
            (false, false) => Words::new(&raw),
        };
        let mut cut = 0;
        for (kind, text) in &want.texts {
            if let Some(line) = missing_line(&words, text) {
                if view.whole {
                    lost.push(format!(
                        "{}: {}: {kind} lost: {}",
                        path.display(),
                        view.name,
                        short(&line)
                    ));
                } else {
                    cut += 1;
                }
            }
        }
        for (name, input) in want.calls.iter().filter(|_| view.whole) {
            if !call_found(&words, name, input) {
                lost.push(format!(
                    "{}: {}: tool call lost: {name} {}",
                    path.display(),
                    view.name,
                    short(&input.to_string())
                ));
            }
        }
        if cut > 0 && !says_abbreviated(&raw) {
            lost.push(format!(
                "{}: {}: {cut} pieces cut without saying so",
                path.display(),
                view.name
            ));
        }
    }
    lost
}

/// The first line of `text` whose words are not in the view, if any.
fn missing_line(words: &Words, text: &str) -> Option<String> {
    let text = strip_ansi(text);
    text.lines()
        .filter(|l| !is_fence(l))
        .map(without_list_marker)
        .flat_map(printable_pieces)
        // A link's target is markup where the text is rendered Markdown, words where it is
        // shown as it is (a tool's output): either way of reading the line will do.
        .find(|piece| {
            !words.contains(&tokens(piece))
                && !words.contains(&tokens(&without_anchor_targets(piece)))
                && !words.contains(&tokens(&as_rendered(piece)))
        })
        .map(str::to_owned)
}

/// A line as a Markdown renderer draws its words: a task-list item's `[ ]` / `[x]` is a
/// checkbox, and a code span's backticks are dropped, so the words on either side of one join
/// (`` `os.RemoveAll`s `` reads `os.RemoveAlls`).
fn as_rendered(line: &str) -> String {
    let unticked = ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|m| line.trim_start().strip_prefix(m))
        .unwrap_or(line);
    without_anchor_targets(&unticked.replace('`', ""))
}

/// The text a reader of a Markdown view sees: entities decoded where Markdown decodes them,
/// outside code blocks and code spans (inside them `&lt;` is what a reader reads).
fn markdown_text(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fence: Option<String> = None;
    for line in md.split_inclusive('\n') {
        let t = line.trim_start();
        let first = t.chars().next().filter(|&c| c == '`' || c == '~');
        let marker: String = t.chars().take_while(|&c| Some(c) == first).collect();
        match &fence {
            Some(open) if marker.len() >= open.len() && marker.starts_with(&open[..1]) => {
                fence = None;
                out.push_str(line);
            }
            Some(_) => out.push_str(line),
            None if marker.len() >= 3 => {
                fence = Some(marker);
                out.push_str(line);
            }
            None => out.push_str(&outside_code_spans(line)),
        }
    }
    out
}

/// A Markdown line with entities decoded outside its code spans (a run of backticks up to the
/// next run of as many).
fn outside_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        out.push_str(&decode_entities(&rest[..open]));
        let ticks = rest[open..].chars().take_while(|&c| c == '`').count();
        let after = &rest[open + ticks..];
        let close = after
            .match_indices(&rest[open..open + ticks])
            .find(|&(i, _)| {
                !after[i + ticks..].starts_with('`') && (i == 0 || !after[..i].ends_with('`'))
            });
        match close {
            Some((i, _)) => {
                out.push_str(&rest[open..open + ticks + i + ticks]);
                rest = &after[i + ticks..];
            }
            None => {
                out.push_str(&rest[open..open + ticks]);
                rest = after;
            }
        }
    }
    out.push_str(&decode_entities(rest));
    out
}

/// A line without the Markdown link targets no reader reads as words: in-page anchors
/// (`[section 1](#t1)`) and a target that only repeats the link's text (`[a.md](a.md)`, which a
/// view draws once).
fn without_anchor_targets(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let text = rest[..i].rsplit('[').next().unwrap_or_default();
        let target = &rest[i + 2..];
        let Some(close) = target.find(')') else {
            break;
        };
        out.push_str(&rest[..=i]);
        if target.starts_with('#') || target[..close] == *text {
            rest = &target[close + 1..];
        } else {
            rest = &rest[i + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// A Markdown code fence line (its backticks and language are markup, not words of the text).
fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A Markdown list item's line without its marker (`1.`, `-`): HTML draws the marker itself.
fn without_list_marker(line: &str) -> &str {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let rest = if digits > 0 {
        t[digits..].strip_prefix(['.', ')'])
    } else {
        t.strip_prefix(['-', '*', '+'])
    };
    match rest {
        Some(r) if r.starts_with(' ') => r,
        _ => line,
    }
}

/// A call is visible when a recognisable part of its input is (the first or last words of one
/// of the first lines of one of its string values: a command, a path, a query), or its name (an
/// MCP tool's own) when the input holds no words.
fn call_found(words: &Words, name: &str, input: &Value) -> bool {
    let mut leaves = Vec::new();
    string_leaves(input, &mut leaves);
    let mut probes: Vec<Vec<String>> = Vec::new();
    for leaf in &leaves {
        for line in leaf.lines().flat_map(printable_pieces).take(5) {
            let t = tokens(line);
            let k = t.len().min(4);
            probes.push(t[..k].to_vec());
            probes.push(t[t.len() - k..].to_vec());
            // A command inside a wrapper (`/bin/bash -lc 'ls'`): what follows its first words.
            for skip in 1..=3 {
                probes.push(t.iter().skip(skip).take(4).cloned().collect());
            }
        }
    }
    probes.retain(|t| !t.is_empty());
    if probes.is_empty() {
        // An MCP tool (`mcp__server__tool`) is drawn by its own name beside its server's.
        let tool = name
            .strip_prefix("mcp__")
            .and_then(|n| n.split_once("__"))
            .map_or(name, |(_, tool)| tool);
        return words.contains(&tokens(tool));
    }
    probes.iter().any(|p| words.contains(p))
}

/// Every string in a JSON value; a string that is itself a JSON object or array (Codex's
/// `arguments`) is read as JSON.
fn string_leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(inner @ (Value::Object(_) | Value::Array(_))) => string_leaves(&inner, out),
            _ => out.push(s.clone()),
        },
        Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        Value::Object(o) => o.values().for_each(|x| string_leaves(x, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// True when a view says it left something out.
fn says_abbreviated(view: &str) -> bool {
    let marks = ["lines", "tool call", "show all", "--full", "more"];
    view.lines()
        .any(|l| (l.contains('+') || l.contains('…')) && marks.iter().any(|m| l.contains(m)))
}

/// The binary's stdout on `path` (exit 0 required).
fn render(path: &Path, args: &[&str]) -> String {
    let out = scribe().args(args).arg(path).output().expect("run scribe");
    assert!(
        out.status.success(),
        "{}: {args:?} failed: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A view's words in order, with an index from each word to where it stands.
struct Words {
    words: Vec<String>,
    at: HashMap<String, Vec<usize>>,
}

impl Words {
    fn new(text: &str) -> Self {
        let words = tokens(text);
        let mut at: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, w) in words.iter().enumerate() {
            at.entry(w.clone()).or_default().push(i);
        }
        Words { words, at }
    }

    /// True when `needle`'s words stand adjacent, in order, somewhere in the view (an empty
    /// needle is always there).
    fn contains(&self, needle: &[String]) -> bool {
        let Some((j, starts)) = needle
            .iter()
            .enumerate()
            .map(|(j, w)| (j, self.at.get(w).map_or(&[][..], Vec::as_slice)))
            .min_by_key(|(_, p)| p.len())
        else {
            return true;
        };
        starts.iter().any(|&p| {
            p >= j
                && needle
                    .iter()
                    .enumerate()
                    .all(|(i, w)| self.words.get(p - j + i) == Some(w))
        })
    }
}

/// The words of a text: maximal runs of letters and digits.
fn tokens(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The runs of a line between control and invisible format characters (the views show those as
/// visible escapes, which are words of their own).
fn printable_pieces(line: &str) -> Vec<&str> {
    line.split(|c: char| {
        c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
    })
    .filter(|x| !x.trim().is_empty())
    .collect()
}

/// A text without its ANSI escape sequences (the views strip or render them).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates up to a final byte in @..~.
                for n in chars.by_ref() {
                    if ('@'..='~').contains(&n) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // OSC: up to BEL or ST.
                while let Some(n) = chars.next() {
                    if n == '\u{7}' || (n == '\u{1b}' && chars.peek() == Some(&'\\')) {
                        chars.next_if_eq(&'\\');
                        break;
                    }
                }
            }
            _ => {
                chars.next();
            }
        }
    }
    out
}

/// The text a reader of an HTML page sees: the body without tags, scripts and styles, entities
/// decoded (the text of `<details>` included).
fn html_text(page: &str) -> String {
    let body = page.find("<body").map_or(page, |i| &page[i..]);
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    let mut href_open: Option<String> = None;
    // Inside a line number's gutter span: its end separates the number from the code.
    let mut gutter = false;
    while let Some(lt) = rest.find('<') {
        out.push_str(&decode_entities(&rest[..lt]));
        rest = &rest[lt..];
        let skip_to = ["script", "style", "template"]
            .iter()
            .find(|t| rest[1..].starts_with(*t))
            .map(|t| format!("</{t}>"));
        let end = match skip_to {
            Some(close) => rest.find(&close).map(|e| e + close.len()),
            None => rest.find('>').map(|e| e + 1),
        };
        let Some(end) = end else { break };
        // A tag separates words (a block or a line break); a highlight span must not, but a
        // space there only splits a word the needle also splits at punctuation. A read line's
        // number is drawn apart, in a gutter (`.ln`, an inline block with a margin).
        let tag = &rest[..end];
        if !(tag.starts_with("<span") || tag.starts_with("</span")) || gutter {
            out.push(' ');
        }
        gutter = tag.starts_with("<span class=\"ln\"");
        // A link's target is visible to its reader (hover, status bar): after its text.
        if let Some(href) = tag
            .strip_prefix("<a ")
            .and_then(|t| t.split("href=\"").nth(1))
            .and_then(|h| h.split('"').next())
        {
            href_open = Some(decode_entities(href));
        }
        if tag.starts_with("</a") {
            if let Some(h) = href_open.take().filter(|h| !h.starts_with('#')) {
                out.push_str(&h);
                out.push(' ');
            }
        }
        rest = &rest[end..];
    }
    out.push_str(&decode_entities(rest));
    out
}

/// HTML character references decoded: the named ones scribe writes and numeric ones.
fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.bytes().take(12).position(|b| b == b';') else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let name = &rest[1..semi];
        let c = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            _ => name
                .strip_prefix("#x")
                .or_else(|| name.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn short(s: &str) -> String {
    let one = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

#[test]
fn html_text_decodes_and_strips() {
    let w = Words::new(&html_text(
        "<body><p>a &amp; <span class=k>fn</span> b&#39;c</p><details><summary>x</summary>hidden word</details><script>nope</script></body>",
    ));
    assert!(w.contains(&tokens("a fn b'c")));
    assert!(w.contains(&tokens("hidden word")));
    let read = Words::new(&html_text(
        "<body><pre><span class=\"ln\">12</span><span class=k>fn</span> main</pre></body>",
    ));
    assert!(read.contains(&tokens("12 fn main")));
    assert!(!w.contains(&tokens("nope")));
    assert!(!w.contains(&tokens("fn a")));
}

#[test]
fn markdown_decodes_entities_outside_code_only() {
    let md = "a &lt;b&gt; `c &amp; d`\n```\n&nbsp;x\n```\ne &amp; f\n";
    assert_eq!(
        markdown_text(md),
        "a <b> `c &amp; d`\n```\n&nbsp;x\n```\ne & f\n"
    );
    assert_eq!(as_rendered("[x] `os.RemoveAll`s"), "os.RemoveAlls");
}
