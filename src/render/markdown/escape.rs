//! Escaping for Markdown output: fences that outgrow their content, HTML escapes for scribe's
//! own tags, backslash escapes for scribe's own lines, and `safe_markdown` for untrusted
//! Markdown text (raw HTML escaped, open fences closed, control characters made visible).

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

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

/// Escapes text for HTML (inside `<summary>`), on one line.
pub(super) fn html(text: &str) -> String {
    // One line: a line break inside `<summary>` could end the HTML block at a blank line.
    sanitize(text)
        .replace(['\n', '\t'], " ")
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
    // Escaping one piece of HTML can change how the rest parses (an HTML block that swallowed
    // the next lines becomes a paragraph, and a line that was code joins a list and shows its
    // tags), so escape until the parser finds no HTML. Each pass removes at least one `<`.
    let mut out = sanitize(text).into_owned();
    while let Some(escaped) = escape_html_once(&out) {
        out = escaped;
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // A top-level fence that never closes would swallow the rest of the page: close it. Ask the
    // parser which fences are real (a ``` inside an indented code block is not one), and leave
    // fences inside list items and quotes alone: those end with their container.
    if let Some(close) = open_fence(&out) {
        out.push_str(&close);
        out.push('\n');
    }
    out
}

/// `text` with the raw HTML the parser finds escaped, or `None` when it finds none.
fn escape_html_once(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for (ev, range) in Parser::new_ext(text, opts).into_offset_iter() {
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
    if last == 0 {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// The line that closes a top-level fenced code block left open at the end of `text`.
fn open_fence(text: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut last = None;
    for (ev, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match ev {
            Event::Start(Tag::Item | Tag::BlockQuote(_) | Tag::FootnoteDefinition(_)) => depth += 1,
            Event::End(TagEnd::Item | TagEnd::BlockQuote(_) | TagEnd::FootnoteDefinition) => {
                depth = depth.saturating_sub(1)
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) if depth == 0 => {
                last = Some(range)
            }
            _ => {}
        }
    }
    let range = last?;
    let block = &text[range];
    let first = block.lines().next()?.trim_start();
    let c = first.chars().next()?;
    let n = first.chars().take_while(|&x| x == c).count();
    let closed = block.lines().count() > 1
        && block.lines().last().is_some_and(|l| {
            // A closing fence is indented by three spaces at most (four make it code).
            let body = l.trim_start_matches(' ');
            let body_trimmed = body.trim_end();
            l.len() - body.len() <= 3
                && body_trimmed.chars().all(|x| x == c)
                && body_trimmed.chars().count() >= n
        });
    if closed || range_end_is_not_the_end(text, block) {
        return None;
    }
    Some(c.to_string().repeat(n))
}

/// True when text follows the block (then the block did close, by the parser's rules).
fn range_end_is_not_the_end(text: &str, block: &str) -> bool {
    let end = block.as_ptr() as usize - text.as_ptr() as usize + block.len();
    !text[end..].trim().is_empty()
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
        assert_eq!(safe_markdown("~~~~ x\na\n~~~"), "~~~~ x\na\n~~~\n~~~~\n");
        // Not fences, or fences that end with their container: nothing added.
        assert_eq!(safe_markdown("    ```\n    code"), "    ```\n    code\n");
        assert_eq!(safe_markdown("- ```\n  code"), "- ```\n  code\n");
        assert_eq!(safe_markdown("```\nok\n```"), "```\nok\n```\n");
        assert_eq!(safe_markdown("```\nx\n    ```"), "```\nx\n    ```\n```\n");
    }

    #[test]
    fn escaping_until_no_html_is_left() {
        // Escaping the HTML block on the first line turns the next lines into a list whose
        // item shows a tag that was code before.
        let t = safe_markdown("</details>#\n* ---|\n\n    a </summary>");
        assert!(!t.contains("</summary>"), "{t}");
    }
}
