//! Escaping for Markdown output: fences that outgrow their content, HTML escapes for scribe's
//! own tags, backslash escapes for scribe's own lines, and `safe_markdown` for untrusted
//! Markdown text (raw HTML escaped, open fences closed, control characters made visible).

use pulldown_cmark::{Event, Options, Parser};

use crate::render::ansi::sanitize::sanitize;

/// A fence of `c` longer than any run of `c` in `text` (at least three).
pub(crate) fn fence_for(text: &str, c: char) -> String {
    let mut longest = 0;
    let mut run = 0;
    for ch in text.chars() {
        if ch == c {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    c.to_string().repeat((longest + 1).max(3))
}

/// A fenced code block holding `text` whole.
pub(super) fn fenced(out: &mut String, lang: &str, text: &str) {
    let text = sanitize(text);
    let fence = fence_for(&text, '`');
    out.push_str(&format!("{fence}{lang}\n{}", text));
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("{fence}\n\n"));
}

/// Escapes text for HTML (inside `<summary>`).
pub(super) fn html(text: &str) -> String {
    sanitize(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Escapes text for a line of scribe's own Markdown (notices): no markup, no HTML.
pub(super) fn inline(text: &str) -> String {
    let mut out = String::new();
    for c in sanitize(text).chars() {
        match c {
            '\n' => out.push(' '),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Makes Markdown text safe to place among scribe's blocks: raw HTML is escaped and an open code
/// fence is closed (see the module doc).
pub(crate) fn safe_markdown(text: &str) -> String {
    let text = sanitize(text);
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for (ev, range) in Parser::new_ext(&text, opts).into_offset_iter() {
        if let Event::Html(_) | Event::InlineHtml(_) = ev {
            if range.start < last {
                continue;
            }
            out.push_str(&text[last..range.start]);
            out.push_str(
                &text[range.clone()]
                    .replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;"),
            );
            last = range.end;
        }
    }
    out.push_str(&text[last..]);
    // A fence that never closes would swallow the rest of the page.
    let mut fence: Option<(char, usize)> = None;
    for line in out.lines() {
        let t = line.trim();
        let run = |c: char| t.chars().take_while(|&x| x == c).count();
        match fence {
            Some((c, n)) => {
                if run(c) >= n && t.chars().all(|x| x == c) {
                    fence = None;
                }
            }
            None => {
                for c in ['`', '~'] {
                    if run(c) >= 3 {
                        fence = Some((c, run(c)));
                    }
                }
            }
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some((c, n)) = fence {
        out.push_str(&c.to_string().repeat(n));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fence_for("no ticks", '`'), "```");
        assert_eq!(fence_for("a ```` b", '`'), "`````");
    }

    #[test]
    fn raw_html_is_escaped_but_code_is_not() {
        let t = safe_markdown("a </details> b\n\n`<b>` and\n\n```\n<i>\n```\n");
        assert!(t.contains("&lt;/details&gt;"), "{t}");
        assert!(t.contains("`<b>`"), "{t}");
        assert!(t.contains("\n<i>\n"), "{t}");
    }

    #[test]
    fn an_open_fence_is_closed() {
        assert_eq!(safe_markdown("```\ncode"), "```\ncode\n```\n");
    }
}
