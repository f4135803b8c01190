//! The wording of notices that several human-readable renderers share, as plain text: each
//! renderer escapes or styles it for its format.
//!
//! Only what the formats word alike lives here (the rate-limit line, the retry details, the hook
//! line, an MCP elicitation, a side branch). The formats deliberately differ on the rest (how
//! much of a compaction, task or persisted-files notice to show), and the goldens pin that.

/// `missed events 3–5: ring_evicted` (the design's `formatMissedRange`), with whichever end of
/// the range is known. Shared by the terminal view and Markdown, so neither drops the range.
pub(crate) fn missed_events(from: Option<u64>, to: Option<u64>, reason: &str) -> String {
    let range = match (from, to) {
        (Some(a), Some(b)) if a == b => format!(" {a}"),
        (Some(a), Some(b)) => format!(" {a}–{b}"),
        (Some(a), None) => format!(" from {a}"),
        (None, Some(b)) => format!(" up to {b}"),
        (None, None) => String::new(),
    };
    format!("missed events{range}: {reason}")
}

/// `rate limit: rejected (five_hour)`. Shared by the terminal view and the HTML page.
pub(crate) fn rate_limit(status: &str, kind: Option<&str>) -> String {
    format!(
        "rate limit: {status}{}",
        kind.map(|t| format!(" ({t})")).unwrap_or_default()
    )
}

/// What went wrong before an API retry: ` · HTTP 529 · overloaded` (empty when nothing is
/// known). Shared by every human-readable renderer after its own `API retry n/m`.
pub(crate) fn retry_detail(error_status: Option<u64>, error: Option<&str>) -> String {
    format!(
        "{}{}",
        error_status
            .map(|s| format!(" · HTTP {s}"))
            .unwrap_or_default(),
        error.map(|e| format!(" · {e}")).unwrap_or_default()
    )
}

/// `API retry 2/10 · HTTP 529 · overloaded`: which attempt of how many, and why. Shared by
/// Markdown and ATIF (the terminal view and HTML put the wait in the middle).
pub(crate) fn api_retry(
    attempt: u64,
    max: u64,
    error_status: Option<u64>,
    error: Option<&str>,
) -> String {
    format!(
        "API retry {attempt}/{max}{}",
        retry_detail(error_status, error)
    )
}

/// `conversation compacted (auto)`, with what triggered it when known. Shared by the terminal
/// view (which adds the tokens), Markdown and ATIF.
pub(crate) fn compacted(trigger: Option<&str>) -> String {
    format!(
        "conversation compacted{}",
        trigger.map(|t| format!(" ({t})")).unwrap_or_default()
    )
}

/// A hook as one line: `hook lint: blocked (exit 2)`, or `hook lint: started, no end reported`
/// for one whose end never came (`ended` false). Shared by the terminal view and Markdown.
pub(crate) fn hook_line(
    hook_name: &str,
    ended: bool,
    outcome: Option<&str>,
    exit_code: Option<i64>,
) -> String {
    let outcome = match (ended, outcome) {
        (true, o) => o.map(str::to_owned),
        (false, Some(o)) => Some(format!("started, no end reported, {o}")),
        (false, None) => Some("started, no end reported".to_owned()),
    };
    format!(
        "hook {hook_name}{}{}",
        outcome.map(|o| format!(": {o}")).unwrap_or_default(),
        exit_code
            .map(|c| format!(" (exit {c})"))
            .unwrap_or_default()
    )
}

/// An MCP server asking the user for input. Shared by every human-readable renderer.
pub(crate) fn elicitation(server: &str) -> String {
    format!("MCP server {server} asked for input")
}

/// A branch of the session left behind by a rewind or a fork (turns off the main line). Shared
/// by the terminal view and Markdown, which show it as a heading over its turns.
pub(crate) fn branch(turns: usize) -> String {
    let turns = super::figures::count(turns, "turn");
    format!("rewound: a branch of {turns} off the main line")
}

/// The words of an `info` notice: its text, or, when it has none (a kind the adapter passed on
/// without words, a wire kind nobody here knows among them), its source's name as words, so
/// that no view draws an empty line in its place. Shared by every human-readable renderer.
pub(crate) fn info_words<'a>(source: &str, text: &'a str) -> std::borrow::Cow<'a, str> {
    if text.trim().is_empty() {
        std::borrow::Cow::Owned(source.replace(['_', '-'], " "))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// How a result whose subtype is neither `success` nor empty (one outside the design's list
/// among them) ended without an error: `result: brand_new_ok`, naming the subtype rather than
/// calling it done or stopped. `None` for a plain success, which the closing line covers.
pub(crate) fn unusual_result(subtype: &str) -> Option<String> {
    (!subtype.is_empty() && subtype != "success").then(|| format!("result: {subtype}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordings() {
        assert_eq!(
            rate_limit("rejected", Some("five_hour")),
            "rate limit: rejected (five_hour)"
        );
        assert_eq!(
            retry_detail(Some(529), Some("overloaded")),
            " · HTTP 529 · overloaded"
        );
        assert_eq!(retry_detail(None, None), "");
        assert_eq!(
            hook_line("lint", true, Some("blocked"), Some(2)),
            "hook lint: blocked (exit 2)"
        );
        assert_eq!(elicitation("db"), "MCP server db asked for input");
        assert_eq!(branch(3), "rewound: a branch of 3 turns off the main line");
        assert_eq!(branch(1), "rewound: a branch of 1 turn off the main line");
    }
}
