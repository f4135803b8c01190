//! `--to md`: goldens over samples/, and the page structure: every tool call stays inside its own
//! `<details>` whatever its content, checked with a CommonMark parser.

use pulldown_cmark::{Event, Options, Parser};

use crate::render_text::golden;
use crate::util::{corpus, json_lines, sample, scribe};

fn md(args: &[&str], input: &std::path::Path) -> String {
    let out = scribe()
        .args(["--to", "md"])
        .args(args)
        .arg(input)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn golden_markdown() {
    golden("subagent.md", md(&[], &sample("subagent.jsonl")).as_bytes());
    golden(
        "render-demo.md",
        md(&[], &sample("render-demo.jsonl")).as_bytes(),
    );
    golden(
        "render-demo.full.md",
        md(&["--thinking", "--context"], &sample("render-demo.jsonl")).as_bytes(),
    );
    golden(
        "hostile.md",
        md(&["--thinking", "--context"], &sample("hostile.jsonl")).as_bytes(),
    );
}

/// The `<summary>` of every `<details>` block, in document order, with the nesting depth at
/// which it opened; panics if a block closes that was not open or one is left open.
fn details(page: &str) -> Vec<(usize, String)> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for ev in Parser::new_ext(page, Options::ENABLE_TABLES) {
        let (Event::Html(h) | Event::InlineHtml(h)) = ev else {
            continue;
        };
        for line in h.lines() {
            let line = line.trim();
            if line == "<details>" {
                depth += 1;
            } else if let Some(s) = line
                .strip_prefix("<summary>")
                .and_then(|s| s.strip_suffix("</summary>"))
            {
                out.push((depth, s.to_owned()));
            } else if line == "</details>" {
                assert!(depth > 0, "a </details> closes nothing:\n{page}");
                depth -= 1;
            } else if !line.is_empty() {
                panic!("HTML that scribe did not write: {line:?}\n{page}");
            }
        }
    }
    assert_eq!(depth, 0, "a <details> was left open:\n{page}");
    out
}

/// The tool calls of a transcript (sub-agents' included), as the JSONL output names them.
fn tool_calls(input: &std::path::Path) -> Vec<String> {
    let out = scribe()
        .args(["--to", "jsonl"])
        .arg(input)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    fn walk(v: &serde_json::Value, names: &mut Vec<String>) {
        if let Some(call) = v.get("call") {
            names.push(call["name"].as_str().unwrap_or_default().to_owned());
        }
        match v {
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, names)),
            serde_json::Value::Object(o) => o.values().for_each(|x| walk(x, names)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    for rec in json_lines(&out) {
        walk(&rec, &mut names);
    }
    names
}

fn check_structure(input: &std::path::Path) {
    let page = md(&["--thinking", "--context"], input);
    let blocks = details(&page);
    let calls = tool_calls(input);
    let call_blocks: Vec<&(usize, String)> = blocks
        .iter()
        .filter(|(_, s)| {
            !s.starts_with("Sub-agent:")
                && s != "Thinking"
                && !s.starts_with("Context:")
                && s != "hook output"
                && s != "Skill body"
        })
        .collect();
    assert_eq!(
        call_blocks.len(),
        calls.len(),
        "{}: {blocks:?} vs {calls:?}",
        input.display()
    );
    for ((_, summary), name) in call_blocks.iter().zip(&calls) {
        let shown = name.rsplit("__").next().unwrap();
        assert!(summary.starts_with(shown), "{summary} is not a {name} call");
    }
}

#[test]
fn every_call_keeps_its_own_details_block() {
    check_structure(&sample("render-demo.jsonl"));
    check_structure(&sample("hostile.jsonl"));
    check_structure(&sample("subagent.jsonl"));
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn every_call_of_a_corpus_stream_keeps_its_own_details_block() {
    let dir = corpus();
    for scenario in ["05-subagent", "04-files"] {
        check_structure(&dir.join("claude-code").join(scenario).join("stream.jsonl"));
    }
}

#[test]
#[ignore = "needs ../shared/corpus; .ci/run runs it"]
fn sub_agents_nest() {
    let dir = corpus();
    let page = md(&[], &dir.join("claude-code/05-subagent/stream.jsonl"));
    let blocks = details(&page);
    let agent = blocks
        .iter()
        .position(|(_, s)| s.starts_with("Agent("))
        .expect("an Agent call");
    let (d, s) = &blocks[agent + 1];
    assert!(s.starts_with("Sub-agent: Count files"), "{s}");
    assert_eq!(*d, blocks[agent].0 + 1);
    let (d, s) = &blocks[agent + 2];
    assert!(s.starts_with("Bash("), "{s}");
    assert_eq!(*d, blocks[agent].0 + 2);
}

/// A tiny deterministic generator (no dependency needed for a property test this small).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Text made of the pieces that break Markdown pages most often.
    fn nasty(&mut self) -> String {
        const PIECES: &[&str] = &[
            "```",
            "````",
            "~~~",
            "</details>",
            "<details>",
            "<summary>x</summary>",
            "</summary>",
            "\n",
            "\n\n",
            "    ",
            "- ",
            "> ",
            "1. ",
            "<!--",
            "-->",
            "`",
            "<script>",
            "text",
            "|",
            "* ",
            "<div>",
            "</div>",
            "&amp;",
            "\\",
            "[a](b)",
            "<https://x.y>",
            "#",
            "---",
        ];
        let n = 1 + self.next() % 25;
        (0..n)
            .map(|_| PIECES[(self.next() % PIECES.len() as u64) as usize])
            .collect()
    }
}

#[test]
fn no_content_breaks_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    for case in 0..150 {
        let (text, output, command, sub) = (rng.nasty(), rng.nasty(), rng.nasty(), rng.nasty());
        let lines = [
            serde_json::json!({"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash","Agent"],"mcp_servers":[],"model":"m","permissionMode":"default","uuid":"i"}),
            serde_json::json!({"type":"user","message":{"role":"user","content":rng.nasty()},"parent_tool_use_id":null,"session_id":"s","uuid":"p"}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":text}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a1"}),
            serde_json::json!({"type":"assistant","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":command}}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a2"}),
            serde_json::json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":output,"is_error":case % 2 == 0}]},"parent_tool_use_id":null,"session_id":"s","uuid":"r1"}),
            serde_json::json!({"type":"assistant","message":{"id":"m2","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t2","name":"Agent","input":{"description":rng.nasty(),"prompt":"p"}}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a3"}),
            serde_json::json!({"type":"assistant","message":{"id":"m3","role":"assistant","model":"m","content":[{"type":"text","text":sub}]},"parent_tool_use_id":"t2","session_id":"s","uuid":"a4"}),
            serde_json::json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t2","type":"tool_result","content":rng.nasty(),"is_error":false}]},"parent_tool_use_id":null,"session_id":"s","uuid":"r2"}),
            serde_json::json!({"type":"assistant","message":{"id":"m4","role":"assistant","model":"m","content":[{"type":"text","text":rng.nasty()}]},"parent_tool_use_id":null,"session_id":"s","uuid":"a5"}),
        ];
        let path = dir.path().join(format!("case{case}.jsonl"));
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, body).unwrap();
        let page = md(&["--thinking", "--context"], &path);
        let blocks = details(&page);
        let calls: Vec<&(usize, String)> = blocks
            .iter()
            .filter(|(_, s)| s.starts_with("Bash") || s.starts_with("Agent"))
            .collect();
        assert_eq!(calls.len(), 2, "case {case}: {blocks:?}\n{page}");
        assert_eq!(
            calls[0].0, 1,
            "case {case}: the Bash call is not at the top level\n{page}"
        );
    }
}
