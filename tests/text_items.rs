//! The text view's `·`-joined lines wrap between their items, never inside one, as the
//! session header does: a sub-agent call's facts line (`⎿  Count files · general-purpose ·
//! completed · 1 tool use · 8,652 tokens · 0.6s`) and the totals line (`── … ──`). The input
//! is our sample of a Claude stream with a background sub-agent.

use crate::util::{converted, sample};

/// The text view of the sample at `width` columns.
fn text_at(width: usize) -> Vec<String> {
    let width = width.to_string();
    let args = ["--to", "text", "--color", "never", "--width", &width];
    converted(&sample("claude-stream/fold-background-agent.jsonl"), &args)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The lines from the one `first` starts to the one `last` ends (both trimmed).
fn block(lines: &[String], first: &str, last: &str) -> Vec<String> {
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(first))
        .unwrap_or_else(|| panic!("no line starts {first:?}: {lines:#?}"));
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.trim_end().ends_with(last))
            .unwrap_or_else(|| panic!("no line ends {last:?}: {lines:#?}"));
    lines[start..=end]
        .iter()
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn the_facts_and_totals_lines_wrap_between_their_items() {
    let facts = "⎿  Count files · general-purpose · completed · 1 tool use · 8,652 tokens · 0.6s";
    let totals = "── 2 turns (0 prompts) · 0.8s · 30,028 in · 96 out tokens · $0.1425 · 1 tool call · \
         1 more in sub-agents ──";
    for width in [40, 50, 60, 72, 80] {
        let lines = text_at(width);
        for (what, first, last) in [(facts, "⎿  Count files", "0.6s"), (totals, "── ", " ──")]
        {
            let block = block(&lines, first, last);
            // Every word is there, in order, and each line but the last ends at an item's end.
            assert_eq!(block.join(" "), what, "{width}: {block:#?}");
            for line in &block[..block.len() - 1] {
                assert!(line.ends_with(" ·"), "{width}: {block:#?}");
            }
            for line in &block {
                assert!(line.chars().count() <= width, "{width}: {block:#?}");
            }
        }
    }
}
