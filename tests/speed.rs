//! Small hostile inputs must not make output grow faster than the input. Output size is
//! checked, never time: the scaling of time is measured by `benches/scaling.sh`.

use serde_json::json;

use crate::util::scribe;

/// Markdown nested deep (a quote in a quote in a quote…, a list item in a list item…) keeps the
/// terminal view's output linear in the input: past a few levels the gutter is one mark naming
/// the depth. Output size is checked, not time: a quadratic gutter is quadratic bytes.
#[test]
fn deeply_nested_markdown_stays_linear_in_the_terminal_view() {
    let input = |n: usize| {
        let quotes = format!("{} deep\n\nafter", ">".repeat(n));
        let items = format!("{} x", vec!["-"; n].join(" "));
        [quotes, items]
            .iter()
            .map(|t| {
                json!({"type":"assistant","message":{"id":"m","content":[{"type":"text","text":t}]},"parent_tool_use_id":null})
                    .to_string()
                    + "\n"
            })
            .collect::<String>()
    };
    let out = |n: usize| {
        let out = scribe()
            .args(["--to", "text", "--color", "never", "--width", "100"])
            .write_stdin(input(n))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let (small, large) = (out(1_000), out(8_000));
    assert!(large.contains("deep") && large.contains("after") && large.contains(" x"));
    assert!(large.contains("┆7993"), "the depth is said:\n{large}");
    assert!(
        large.len() < small.len() * 2,
        "{} bytes for 1 000 levels, {} for 8 000",
        small.len(),
        large.len()
    );
}
