//! `--to html`: goldens of the hand-written samples, the hostile sample's markup checked tag by
//! tag, the CSP hashes, streaming (a turn is on stdout before the input ends) and flat memory on
//! a 10 000-turn session. The real-browser check is in `html_browser.rs`.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{peak_rss_kib, root, scribe};

/// The page for a sample, rendered with the sample's path relative to the repository root (the
/// path appears in the page, so goldens must not depend on where the checkout is). The hostile
/// sample is rendered with `--debug`, so that its hostile lines nothing understood (their reason
/// and raw text) are on the page and checked as escaped too.
fn render(name: &str) -> String {
    let debug: &[&str] = if name.contains("hostile") {
        &["--debug"]
    } else {
        &[]
    };
    let out = scribe()
        .current_dir(root())
        .args(["--to", "html"])
        .args(debug)
        .arg(Path::new("samples").join(name))
        .output()
        .expect("scribe runs");
    assert!(out.status.success(), "{name}: {out:?}");
    String::from_utf8(out.stdout).expect("HTML is UTF-8")
}

/// Compares with `tests/golden/<name>.html`; `BLESS=1` rewrites the golden instead.
fn golden(sample_name: &str) {
    let got = render(sample_name);
    let path = root()
        .join("tests/golden")
        .join(sample_name.replace(".jsonl", ".html"));
    if std::env::var_os("BLESS").is_some() {
        fs::write(&path, &got).expect("write golden");
        return;
    }
    let want = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display()));
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "{} differs from the output at line {} (BLESS=1 rewrites it)\n got: {:?}\nwant: {:?}",
            path.display(),
            line + 1,
            got.lines().nth(line),
            want.lines().nth(line)
        );
    }
}

#[test]
fn golden_tour() {
    golden("html-tour.jsonl");
}

#[test]
fn golden_hostile() {
    golden("html-hostile.jsonl");
}

/// Tags the renderer (and pulldown-cmark, for Markdown) may write.
const TAGS: &[&str] = &[
    "!doctype",
    "html",
    "head",
    "meta",
    "link",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "div",
    "span",
    "input",
    "main",
    "section",
    "dl",
    "dt",
    "dd",
    "details",
    "summary",
    "article",
    "a",
    "time",
    "pre",
    "code",
    "ul",
    "ol",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "img",
    "strong",
    "em",
    "del",
    "blockquote",
    "hr",
    "br",
    "footer",
    "script",
    "nav",
    "button",
    "label",
    // The timeline (written by the renderer only: content never becomes SVG).
    "svg",
    "rect",
    "line",
    "text",
];
/// Attributes they may carry.
const ATTRS: &[&str] = &[
    "lang",
    "charset",
    "http-equiv",
    "content",
    "name",
    "rel",
    "href",
    "class",
    "id",
    "hidden",
    "type",
    "placeholder",
    "aria-label",
    "aria-labelledby",
    "autocomplete",
    "title",
    "alt",
    "src",
    "disabled",
    "checked",
    "start",
    "html",
    "open",
    "datetime",
    "aria-live",
    "value",
    "role",
    "viewBox",
    "x",
    "y",
    "x1",
    "x2",
    "y1",
    "y2",
    "width",
    "height",
];

/// Every start tag in `html` as (name, [(attribute, value)]). Attribute values are always
/// double-quoted by the renderer, and `>` inside them is escaped, so this small scanner suffices.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        if rest.starts_with('/') {
            continue;
        }
        let end = rest.find('>').expect("every tag is closed");
        let inner = rest[..end].trim_end_matches('/');
        rest = &rest[end..];
        let name_end = inner.find(char::is_whitespace).unwrap_or(inner.len());
        let name = inner[..name_end].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut a = inner[name_end..].trim_start();
        while !a.is_empty() {
            let k_end = a.find(['=', ' ']).unwrap_or(a.len());
            let key = a[..k_end].to_owned();
            a = &a[k_end..];
            let mut value = String::new();
            assert!(!key.is_empty(), "unparsable tag <{inner}>");
            if let Some(v) = a.strip_prefix("=\"") {
                let close = v.find('"').expect("quoted attribute closes");
                value = v[..close].to_owned();
                a = &v[close + 1..];
            }
            attrs.push((key, value));
            a = a.trim_start();
        }
        // Style and script bodies are ours and are not markup.
        if name == "style" || name == "script" {
            let close = format!("</{name}>");
            rest = &rest[rest.find(&close).expect("raw text element closes")..];
        }
        out.push((name, attrs));
    }
    out
}

#[test]
fn hostile_sample_markup_is_only_ours() {
    let html = render("html-hostile.jsonl");
    let all = tags(&html);
    let count = |t: &str| all.iter().filter(|(n, _)| n == t).count();
    assert_eq!(count("script"), 1, "exactly the page's own script");
    assert_eq!(count("style"), 1, "exactly the page's own style");
    assert!(count("svg") <= 1, "at most the timeline");
    assert_eq!(
        count("meta"),
        5,
        "charset, CSP, viewport, colour scheme, generator"
    );
    let mut checked = 0;
    for (name, attrs) in &all {
        assert!(
            TAGS.contains(&name.as_str()),
            "unexpected tag <{name} {attrs:?}>"
        );
        for (k, v) in attrs {
            assert!(
                ATTRS.contains(&k.as_str()),
                "unexpected attribute {k} on <{name}>"
            );
            let lower = v.to_ascii_lowercase();
            if k == "href" {
                checked += 1;
                assert!(
                    ["http://", "https://", "mailto:", "#", "data:,"]
                        .iter()
                        .any(|p| lower.starts_with(p)),
                    "unsafe href {v:?}"
                );
            }
            if k == "src" {
                checked += 1;
                assert!(lower.starts_with("data:image/"), "unsafe src {v:?}");
                assert!(!lower.contains(['"', '\'', ' ']), "src breaks out: {v:?}");
            }
        }
    }
    assert!(checked > 5, "the sample has links and images to check");
    // The payloads are all there, as text.
    assert!(html.contains("&lt;script&gt;window.__scribe_xss=1&lt;/script&gt;"));
    assert!(html.contains("&lt;/details&gt;&lt;/summary&gt;"));
}

/// The CSP names the hashes of exactly the style and script the page carries.
#[test]
fn csp_hashes_match_the_inline_style_and_script() {
    let html = render("html-tour.jsonl");
    let csp_start = html
        .find("Content-Security-Policy\" content=\"")
        .expect("CSP")
        + 34;
    let csp = &html[csp_start..csp_start + html[csp_start..].find('"').unwrap()];
    assert!(
        csp.starts_with("default-src &#39;none&#39;; style-src &#39;sha256-"),
        "{csp}"
    );
    assert!(csp.contains("img-src data:;"), "{csp}");
    for (open, close) in [("<style>", "</style>"), ("<script>", "</script>")] {
        let s = html.find(open).unwrap() + open.len();
        let body = &html[s..s + html[s..].find(close).unwrap()];
        let hash = sha256_base64(body.as_bytes());
        assert!(
            csp.contains(&format!("sha256-{hash}")),
            "{open} hash {hash} not in {csp}"
        );
    }
}

/// SHA-256 from coreutils `sha256sum`, base64-encoded here: the check does not trust the crates
/// the renderer uses.
fn sha256_base64(bytes: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils)");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    let hex = String::from_utf8(out.stdout).unwrap();
    let raw: Vec<u8> = (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    base64(&raw)
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Writes a synthetic stream-json session of `turns` assistant turns, each ~4 KB of Markdown.
fn synthetic_session(path: &Path, turns: usize) {
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    let init = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i"}"#;
    writeln!(f, "{init}").unwrap();
    let para = "Lorem ipsum dolor sit amet, **consectetur** adipiscing elit. ".repeat(64);
    for i in 0..turns {
        let text = serde_json::to_string(&format!("Turn {i}.\n\n{para}")).unwrap();
        writeln!(
            f,
            r#"{{"type":"assistant","message":{{"id":"msg_{i}","type":"message","role":"assistant","model":"m","content":[{{"type":"text","text":{text}}}]}},"parent_tool_use_id":null,"uuid":"u{i}","session_id":"s"}}"#
        )
        .unwrap();
    }
    f.flush().unwrap();
}

#[test]
fn ten_thousand_turns_are_written_with_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("long.jsonl");
    let output = dir.path().join("long.html");
    synthetic_session(&input, 10_000);
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("scribe"));
    cmd.args(["--to", "html"])
        .arg(&input)
        .stdout(fs::File::create(&output).unwrap())
        .stderr(Stdio::null());
    let (status, rss_kib) = peak_rss_kib(cmd);
    assert_eq!(status, 0, "scribe exit status");
    let out_kib = fs::metadata(&output).unwrap().len() / 1024;
    eprintln!("peak RSS {rss_kib} KiB for a {out_kib} KiB page");
    let articles = BufReader::new(fs::File::open(&output).unwrap())
        .lines()
        .filter(|l| l.as_ref().unwrap().starts_with("<article class=\"turn"))
        .count();
    assert_eq!(articles, 10_000, "every turn written");
    assert!(out_kib > 40_000, "the page is large ({out_kib} KiB)");
    // A renderer that kept the page (or the transcript) in memory would need more than the page.
    assert!(rss_kib > 0, "the peak was read");
    assert!(
        rss_kib < 24 * 1024,
        "peak RSS {rss_kib} KiB for a {out_kib} KiB page: memory grows with the session"
    );
}

#[test]
fn each_turn_is_written_as_soon_as_it_is_final() {
    let (mut child, mut stdin, rx) = crate::util::spawn_live(&["--to", "html"]);
    let msg = |id: &str, text: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"{id}","type":"message","role":"assistant","model":"m","content":[{{"type":"text","text":"{text}"}}]}},"parent_tool_use_id":null,"uuid":"u-{id}","session_id":"s"}}"#
        )
    };
    writeln!(stdin, r#"{{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":[],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i"}}"#).unwrap();
    writeln!(stdin, "{}", msg("msg_1", "first answer")).unwrap();
    writeln!(stdin, "{}", msg("msg_2", "second answer")).unwrap();
    stdin.flush().unwrap();
    // stdin stays open: the first turn must arrive anyway (a hang here fails after a minute).
    let mut seen = Vec::new();
    loop {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the first turn was not written while the input was still open");
        let done = line.contains("id=\"t1\"");
        seen.push(line);
        if done {
            break;
        }
    }
    assert!(
        seen[0].starts_with("<!DOCTYPE html>"),
        "head first: {seen:?}"
    );
    assert!(!seen.iter().any(|l| l.contains("</html>")), "tail last");
    drop(stdin);
    let rest: Vec<String> = rx.iter().collect();
    assert!(child.wait().unwrap().success());
    assert!(
        rest.iter().any(|l| l.contains("id=\"t2\"")),
        "second turn at the end"
    );
    assert_eq!(rest.last().map(String::as_str), Some("</body></html>"));
}

/// The size discipline (issue 12): every corpus session's page stays under 44 KB, the page's
/// own stylesheet and script (highlighting and colour classes included) counted in.
#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn corpus_pages_stay_small() {
    let dir = crate::util::corpus();
    let mut biggest = (0, String::new());
    for input in crate::util::corpus_captures(&dir) {
        let out = scribe()
            .args(["--to", "html"])
            .arg(&input)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", input.display());
        if out.stdout.len() > biggest.0 {
            biggest = (out.stdout.len(), input.display().to_string());
        }
    }
    // 40 KB before the timeline gained its list of named marks and the page its focus, print
    // and reduced-motion styles (about 2 KB on the largest page).
    assert!(biggest.0 < 44_000, "{} bytes: {}", biggest.0, biggest.1);
}

/// Terminal colours in a tool's output (issue 12): the HTML page shows them as coloured spans
/// around the very words, the Markdown keeps every word and drops only the escape sequences;
/// neither shows an ESC, nor the codes as text. An escape left open at the end (a title
/// sequence cut off by a truncated output) must not swallow the text after it.
#[test]
fn terminal_colours_are_spans_in_html_and_only_the_codes_go_in_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("colours.jsonl");
    let output = "\u{1b}[1;32m   Compiling\u{1b}[0m calc v0.1.0\ntest a ... \u{1b}[31mFAILED\u{1b}[0m\n\
                  \u{1b}[2Kdone\u{1b}]0;cut off title and what follows";
    let lines = [
        serde_json::json!({"type": "assistant", "message": {"id": "m1", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [{"type": "tool_use", "id": "t1",
            "name": "Bash", "input": {"command": "cargo test --color=always"}}]}}),
        serde_json::json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": output}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&input, text).unwrap();
    let run = |to: &str| {
        let out = scribe().args(["--to", to]).arg(&input).output().unwrap();
        assert!(out.status.success(), "{to}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let md = run("md");
    let words =
        "   Compiling calc v0.1.0\ntest a ... FAILED\ndone]0;cut off title and what follows";
    assert!(md.contains(words), "Markdown lost words: {md}");
    for code in ["\u{1b}", "[1;32m", "[0m", "\\x1b", "␛", "[2K"] {
        assert!(!md.contains(code), "Markdown shows {code:?}: {md}");
    }
    let html = run("html");
    assert!(
        html.contains("<span class=\"a-f2 a-b\">   Compiling</span> calc v0.1.0"),
        "{html}"
    );
    assert!(
        html.contains("<span class=\"a-f1\">FAILED</span>"),
        "{html}"
    );
    assert!(
        html.contains("done]0;cut off title and what follows"),
        "{html}"
    );
    assert!(
        !html.contains('\u{1b}') && !html.contains("[1;32m"),
        "{html}"
    );
}
