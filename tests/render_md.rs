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

/// `--to md --compact`: every prompt, every call on its line with its state, the final answer
/// and the totals, in the order they came.
#[test]
fn the_compact_transcript_keeps_prompts_calls_and_the_answer() {
    let input = sample("demo.jsonl");
    let compact = md(&["--compact"], &input);
    let records = json_lines(
        &scribe()
            .args(["--to", "jsonl"])
            .arg(&input)
            .output()
            .unwrap()
            .stdout,
    );
    let turns: Vec<&serde_json::Value> = records.iter().filter(|r| r["kind"] == "turn").collect();
    let prompts = turns
        .iter()
        .filter(|t| t["role"] == "user" && t["origin"]["kind"] == "user-input");
    let mut at = 0;
    for p in prompts {
        let text = p["parts"][0]["text"].as_str().unwrap();
        let first = text.split_whitespace().next().unwrap();
        let found = compact[at..]
            .find(first)
            .unwrap_or_else(|| panic!("{first} in order:\n{compact}"));
        at += found;
    }
    let calls = turns
        .iter()
        .flat_map(|t| t["parts"].as_array().unwrap())
        .filter(|p| p["type"] == "tool-call")
        .count();
    assert!(calls > 0);
    assert_eq!(
        compact.lines().filter(|l| l.starts_with("- ")).count(),
        calls,
        "{compact}"
    );
    assert!(compact.starts_with("# "), "{compact}");
    assert!(compact.contains("\n## Final answer\n"), "{compact}");
    assert!(
        compact.contains(&format!("{calls} tool calls")),
        "{compact}"
    );
    assert!(compact.len() < md(&[], &input).len());
}

/// Whatever the session, the compact transcript stays within a comment's 65,536 characters,
/// says what it left out and how to see it, and still ends with the answer and the totals.
#[test]
fn the_compact_transcript_fits_a_comment_whatever_the_session() {
    let mut s = String::new();
    for i in 0..4000 {
        s.push_str(&format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"please run step {i} of the long plan\"}}}}\n\
             {{\"type\":\"assistant\",\"message\":{{\"id\":\"m{i}\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t{i}\",\"name\":\"Bash\",\"input\":{{\"command\":\"make step-{i}\"}}}}]}}}}\n\
             {{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t{i}\",\"content\":\"ok\"}}]}}}}\n"
        ));
    }
    s.push_str("{\"type\":\"assistant\",\"message\":{\"id\":\"last\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"All 4000 steps ran.\"}]}}\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    std::fs::write(&path, s).unwrap();
    let compact = md(&["--compact"], &path);
    let chars = compact.chars().count();
    assert!(chars <= 65_536 && chars > 40_000, "{chars} characters");
    assert!(
        compact.contains("are left out to stay within 65536 characters"),
        "{}",
        &compact[compact.len() - 600..]
    );
    assert!(compact.contains("--to md` shows everything"));
    assert!(compact.contains("## Final answer\n\nAll 4000 steps ran."));
    assert!(
        compact
            .trim_end()
            .ends_with("8001 turns (4000 prompts) · 0 in · 0 out tokens · 4000 tool calls**"),
        "{}",
        &compact[compact.len() - 300..]
    );
    assert!(compact.starts_with("# please run step 0 of the long plan\n"));
}

#[test]
fn compact_goes_with_markdown_only() {
    let out = scribe()
        .args(["--compact", "--to", "html"])
        .arg(sample("demo.jsonl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--compact goes with --to md"));
}
