//! The `-o DIR` archive and each page's header figures: the index of the session pages, what
//! each row says against its page, the page's name and path, and the header's call counts.

use std::fs;

use crate::util::scribe;

#[test]
fn output_dir_writes_an_index_of_the_session_pages() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    fs::write(
        &a,
        concat!(
            r#"{"type":"system","subtype":"init","session_id":"sess-a","model":"m-a","cwd":"/w","tools":[],"mcp_servers":[],"uuid":"i1"}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"<script>window.x=1</script> first prompt"},"parent_tool_use_id":null,"uuid":"u1","timestamp":"2026-01-02T03:04:05Z"}"#,
            "\n",
            r#"{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.5,"num_turns":1}"#,
            "\n"
        ),
    )
    .unwrap();
    fs::write(
        &b,
        concat!(
            r#"{"type":"system","subtype":"init","session_id":"sess-b","model":"m-b","cwd":"/w","tools":[],"mcp_servers":[],"uuid":"i2"}"#,
            "\n",
            r#"{"type":"user","message":{"role":"user","content":"second"},"parent_tool_use_id":null,"uuid":"u2","timestamp":"2026-02-02T03:04:05Z"}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("site");
    crate::util::scribe()
        .args(["--to", "html", "-o"])
        .arg(&out)
        .arg(&a)
        .arg(&b)
        .assert()
        .success();
    let mut names: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".scribe-index.json",
            "index.html",
            "sess-a.html",
            "sess-b.html"
        ],
        "no temporary file is left"
    );
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    let a_row = index
        .find("href=\"sess-a.html\"")
        .expect("a row links to page a");
    let b_row = index
        .find("href=\"sess-b.html\"")
        .expect("a row links to page b");
    assert!(b_row < a_row, "newest first");
    assert!(index.contains("&lt;script&gt;window.x=1&lt;/script&gt; first prompt"));
    assert_eq!(
        index.matches("<script").count(),
        1,
        "the index runs only its own script"
    );
    assert!(index.contains("<h2>/w</h2>"), "grouped by project");
    assert!(index.contains("2 sessions · 2 turns"), "{index}");
    // Every page links back to the index.
    let page_a = fs::read_to_string(out.join("sess-a.html")).unwrap();
    assert!(page_a.contains("<a href=\"index.html\">"));

    // A second run renders only the input that changed.
    let stamp = |name: &str| fs::metadata(out.join(name)).unwrap().modified().unwrap();
    let (a_before, b_before) = (stamp("sess-a.html"), stamp("sess-b.html"));
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut more = fs::read_to_string(&b).unwrap();
    more.push_str(concat!(
        r#"{"type":"user","message":{"role":"user","content":"third"},"parent_tool_use_id":null,"uuid":"u3","timestamp":"2026-02-02T03:05:05Z"}"#,
        "\n"
    ));
    fs::write(&b, more).unwrap();
    crate::util::scribe()
        .args(["--to", "html", "-o"])
        .arg(&out)
        .arg(&a)
        .arg(&b)
        .assert()
        .success();
    assert_eq!(
        stamp("sess-a.html"),
        a_before,
        "an unchanged input keeps its page"
    );
    assert_ne!(
        stamp("sess-b.html"),
        b_before,
        "a changed input is rendered again"
    );
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("first prompt") && index.contains("third"),
        "both rows are listed"
    );
    assert!(index.contains("$0.5000"));
    assert!(index.contains("m-a") && index.contains("m-b"));
    assert!(index.contains("2026-02-02 03:04"));
}

#[test]
fn several_inputs_to_html_on_stdout_ask_for_an_output_dir() {
    let a = crate::util::sample("demo.jsonl");
    let out = crate::util::scribe()
        .args(["--to", "html"])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no half-written page");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--output-dir"));
}

/// The figures `index.html` lists for a session are its page's: turns and tokens, for every
/// agent (a Codex session's tokens come from its result, not from its turns).
#[test]
fn an_archive_index_says_what_each_page_says() {
    let inputs = crate::util::AGENT_SAMPLES;
    let dir = tempfile::tempdir().unwrap();
    scribe()
        .args(["--to", "html", "-o"])
        .arg(dir.path())
        .args(inputs.iter().map(|n| crate::util::sample(n)))
        .assert()
        .success();
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(".scribe-index.json")).unwrap())
            .unwrap();
    let entries = index["entries"].as_array().unwrap();
    assert_eq!(entries.len(), inputs.len());
    let number = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
    let mut with_tokens = 0;
    for e in entries {
        let row = &e["row"];
        let page = std::fs::read_to_string(dir.path().join(row["href"].as_str().unwrap())).unwrap();
        let turns = page.split("<dt>turns</dt><dd>").nth(1).unwrap();
        let turns = turns
            .split(|c: char| !c.is_ascii_digit() && c != ',')
            .next()
            .unwrap();
        assert_eq!(
            row["counts"]["turns"].as_u64(),
            Some(number(turns)),
            "turns of {}",
            e["input"]
        );
        let u = &row["usage"];
        let field = |k: &str| u[k].as_u64().unwrap_or(0);
        let input = field("inputTokens")
            + field("cacheReadInputTokens")
            + field("cacheCreationInputTokens");
        match page.split("<dt>tokens</dt><dd>").nth(1) {
            Some(t) => {
                with_tokens += 1;
                let shown_in = number(t.split(" in").next().unwrap());
                let shown_out =
                    number(t.split(" · ").nth(1).unwrap().split(" out").next().unwrap());
                assert_eq!(
                    (input, field("outputTokens")),
                    (shown_in, shown_out),
                    "{}",
                    e["input"]
                );
            }
            None => assert_eq!((input, field("outputTokens")), (0, 0), "{}", e["input"]),
        }
    }
    assert!(with_tokens >= 4, "{with_tokens} pages with tokens");
}

/// A page's tab and heading name the input file, not its whole path, which the header's
/// details give.
#[test]
fn a_page_names_its_file_and_keeps_the_path_in_the_details() {
    let input = crate::util::sample("codex-rollout-edges.jsonl");
    let page = String::from_utf8(
        scribe()
            .args(["--to", "html"])
            .arg(&input)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        page.contains("<title>codex-rollout-edges.jsonl · scribe</title>"),
        "{}",
        &page[..600]
    );
    let meta = page
        .split("<p class=\"meta\">")
        .nth(1)
        .unwrap()
        .split("</p>")
        .next()
        .unwrap();
    assert!(!meta.contains("samples/"), "{meta}");
    let path = input.display().to_string();
    assert!(
        page.contains(&format!("<dt>file</dt><dd>{path}</dd>")),
        "the path in the details"
    );
}

/// The page header's call figures each say what they count: the main thread's calls and their
/// errors, then the calls sub-agents made (and how many of those failed), as the transcript has
/// them.
#[test]
fn the_header_counts_main_thread_and_sub_agent_calls_apart() {
    let input = crate::util::sample("html-hostile.jsonl");
    let records = crate::util::json_lines(
        &scribe()
            .args(["--to", "jsonl"])
            .arg(&input)
            .output()
            .unwrap()
            .stdout,
    );
    let calls_of = |turn: &serde_json::Value| -> Vec<serde_json::Value> {
        turn["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["type"] == "tool-call")
            .map(|p| p["call"].clone())
            .collect()
    };
    let main: Vec<serde_json::Value> = records
        .iter()
        .filter(|r| r["kind"] == "turn")
        .flat_map(calls_of)
        .collect();
    let sub: Vec<serde_json::Value> = main
        .iter()
        .flat_map(|c| {
            c["subagent"]["transcript"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|t| calls_of(&t))
        .collect();
    let failed = |c: &&serde_json::Value| c["state"] == "error" && c.get("denied").is_none();
    let main_errors = main.iter().filter(failed).count();
    assert!(!sub.is_empty(), "the sample has sub-agent calls");
    let page = String::from_utf8(
        scribe()
            .args(["--to", "html"])
            .arg(&input)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let header = page
        .split("<dt>tool calls</dt><dd>")
        .nth(1)
        .unwrap()
        .split("</dd>")
        .next()
        .unwrap();
    assert!(header.starts_with(&format!("{}:", main.len())), "{header}");
    let errors = if main_errors == 1 {
        "1 error<".to_owned()
    } else {
        format!("{main_errors} errors<")
    };
    assert!(header.contains(&errors), "{header}");
    assert!(
        header.contains(&format!("{} more in sub-agents", sub.len())),
        "{header}"
    );
}
