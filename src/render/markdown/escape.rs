//! Escaping for Markdown output: fences that outgrow their content, HTML escapes for scribe's
//! own tags, backslash escapes for scribe's own lines, and `safe_markdown` for untrusted
//! Markdown text (raw HTML escaped, open fences closed, control and invisible characters made
//! visible, and inert on GitHub: images shown as links, only `http(s)`/`mailto` links, `@`
//! mentions in code spans).

use std::borrow::Cow;

use pulldown_cmark::{CodeBlockKind, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::sanitize::{cr_frames, sanitize};

/// A fence of `c` (a backtick or a tilde) longer than any run of `c` in `text` (at least
/// three), found with memchr: a run is consecutive places of `c`.
pub(crate) fn fence_for(text: &str, c: u8) -> String {
    let (mut longest, mut run, mut next) = (0, 0, usize::MAX);
    for i in memchr::memchr_iter(c, text.as_bytes()) {
        run = if i == next { run + 1 } else { 1 };
        longest = longest.max(run);
        next = i + 1;
    }
    char::from(c).to_string().repeat((longest + 1).max(3))
}

/// Text as an inline code span on one line: shown as it is (a code span takes no markup, and
/// GitHub notifies nobody named in one); the backticks it holds are dropped, as a span could not
/// hold them whole.
pub(crate) fn code_span(text: &str) -> String {
    let text = sanitize(text).replace(['`', '\n', '\r'], "");
    format!("`{text}`")
}

/// A fenced code block holding `text` whole.
pub(crate) fn fenced(out: &mut String, lang: &str, text: &str) {
    let text = sanitize_frames(text);
    let fence = fence_for(&text, b'`');
    out.push_str(&fence);
    out.push_str(lang);
    out.push('\n');
    out.push_str(&text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&fence);
    out.push_str("\n\n");
}

/// The text made safe, each frame a carriage return redrew on a line of its own and ending in
/// a visible `\r` (a CRLF's CR is a line end, as [`sanitize`] reads it).
fn sanitize_frames(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return sanitize(text);
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let frames: Vec<Cow<'_, str>> = cr_frames(line).into_iter().map(sanitize).collect();
            frames.join("\n")
        })
        .collect();
    Cow::Owned(lines.join("\n"))
}

/// Escapes text for HTML (inside `<summary>`), on one line. An `@mention` is put in `<code>`,
/// where GitHub does not notify anyone.
pub(super) fn html(text: &str) -> String {
    // One line: a line break inside `<summary>` could end the HTML block at a blank line.
    let text = sanitize(text).replace(['\n', '\t'], " ");
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for m in mentions(&text) {
        out.push_str(&html_escape(&text[last..m.start]));
        out.push_str("<code>");
        out.push_str(&html_escape(&text[m.clone()]));
        out.push_str("</code>");
        last = m.end;
    }
    out.push_str(&html_escape(&text[last..]));
    out
}

fn html_escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['&', '<', '>', '"']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The byte ranges of the `@user` and `@org/team` mentions GitHub would turn into notifications:
/// an `@` not preceded by a word character (so `me@example.com` is not one), then a login.
fn mentions(text: &str) -> Vec<std::ops::Range<usize>> {
    static MENTION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)?")
            .expect("valid regex")
    });
    MENTION
        .find_iter(text)
        .filter(|m| {
            !text[..m.start()]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '`' | '@' | '/'))
        })
        .map(|m| m.range())
        .collect()
}

/// Escapes text for a line of scribe's own Markdown (notices): no markup, no HTML, mentions in
/// code spans.
pub(crate) fn inline(text: &str) -> String {
    let text = sanitize(text);
    let mut out = String::new();
    let mut last = 0;
    for m in mentions(&text) {
        inline_escaped(&mut out, &text[last..m.start]);
        out.push('`');
        out.push_str(&text[m.clone()]);
        out.push('`');
        last = m.end;
    }
    inline_escaped(&mut out, &text[last..]);
    out
}

fn inline_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
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
}

/// True for a link destination that may stay a link in Markdown meant for GitHub: `http(s):`,
/// `mailto:` (and the bare address of an `<a@b.example>` autolink).
fn inert_link(url: &str, link_type: LinkType) -> bool {
    let scheme = |p: &str| {
        url.as_bytes()
            .get(..p.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(p.as_bytes()))
    };
    link_type == LinkType::Email
        || ((scheme("https://") || scheme("http://") || scheme("mailto:"))
            && !url.chars().any(char::is_control))
}

/// Backslash-escapes every bracket of a link's source (and the `<` of an autolink), so neither
/// it nor a `[label]` inside it can become a link again.
fn escape_brackets(
    text: &str,
    range: std::ops::Range<usize>,
    edits: &mut Vec<(usize, String, usize)>,
) {
    for (i, b) in text[range.clone()].bytes().enumerate() {
        if matches!(b, b'[' | b']' | b'<') {
            edits.push((range.start + i, "\\".to_owned(), 0));
        }
    }
}

/// Makes Markdown inert when pasted into GitHub: an image becomes a link to it (`\![alt](url)`,
/// so no tracking pixel loads), a link that is not `http(s)`/`mailto` becomes its literal text
/// (`\[text](javascript:…)`), and an `@user` or `@org/team` mention outside code becomes a code
/// span, where GitHub notifies nobody (a zero-width joiner would not survive copy and paste).
fn make_inert(text: &str) -> String {
    // (byte offset, text inserted there, bytes of the source it replaces)
    let mut edits: Vec<(usize, String, usize)> = Vec::new();
    let mut in_code_block = 0usize;
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut parser = Parser::new_ext(text, opts).into_offset_iter();
    for (ev, range) in parser.by_ref() {
        #[allow(
            clippy::wildcard_enum_match_arm,
            reason = "the Markdown parser's events: only the few named here matter"
        )]
        match ev {
            Event::Start(Tag::CodeBlock(_)) => in_code_block += 1,
            Event::End(TagEnd::CodeBlock) => in_code_block = in_code_block.saturating_sub(1),
            Event::Start(Tag::Image {
                dest_url,
                link_type,
                ..
            }) => {
                edits.push((range.start, "\\".to_owned(), 0));
                if !inert_link(&dest_url, link_type) {
                    escape_brackets(text, range, &mut edits);
                }
            }
            Event::Start(Tag::Link {
                dest_url,
                link_type,
                ..
            }) if !inert_link(&dest_url, link_type) => escape_brackets(text, range, &mut edits),
            Event::Text(_) if in_code_block == 0 => {
                let slice = &text[range.clone()];
                for m in mentions(slice) {
                    // A backslash before the `@` is taken into the code span's place.
                    let (start, skip) = match text[..range.start + m.start].ends_with('\\') {
                        true => (range.start + m.start - 1, 1),
                        false => (range.start + m.start, 0),
                    };
                    let name = &slice[m.clone()];
                    edits.push((start, format!("`{name}`"), name.len() + skip));
                }
            }
            _ => {}
        }
    }
    // A link reference definition (`[pix]: https://tracker…`) is invisible and applies to the
    // whole page: a `![x][pix]` or `[x][pix]` in another message (parsed apart, where it is
    // plain text) would embed or link through it once the page is pasted. Each is escaped to
    // its literal text, whatever its scheme.
    for (_, def) in parser.reference_definitions().iter() {
        if let Some(at) = text.get(def.span.clone()).and_then(|d| d.find('[')) {
            edits.push((def.span.start + at, "\\".to_owned(), 0));
        }
    }
    if edits.is_empty() {
        return text.to_owned();
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(text.len() + edits.len() * 2);
    let mut last = 0;
    for (at, insert, replaces) in edits {
        if at < last {
            continue;
        }
        out.push_str(&text[last..at]);
        out.push_str(&insert);
        last = at + replaces;
    }
    out.push_str(&text[last..]);
    out
}

/// Makes Markdown text safe to place among scribe's blocks: raw HTML is escaped and an open code
/// fence is closed (see the module doc).
pub(crate) fn safe_markdown(text: &str) -> String {
    // Escaping one piece of HTML can change how the rest parses (an HTML block that swallowed
    // the next lines becomes a paragraph, and a line that was code joins a list and shows its
    // tags), so escape until the parser finds no HTML. Each pass removes at least one `<`.
    // Each pass below parses the text; each looks only for what needs a character the text may
    // not hold at all (HTML a `<`; images, links, definitions and mentions a `[`, `<` or `@`;
    // fences three backticks or tildes), so a text without them skips the parse.
    let mut out = sanitize(text).into_owned();
    while out.contains('<') {
        match escape_html_once(&out) {
            Some(escaped) => out = escaped,
            None => break,
        }
    }
    if out.contains(['[', '<', '@']) {
        out = make_inert(&out);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    // A top-level fence that never closes would swallow the rest of the page: close it. Ask the
    // parser which fences are real (a ``` inside an indented code block is not one), and leave
    // fences inside list items and quotes alone: those end with their container.
    let fenced = out.contains("```") || out.contains("~~~");
    if let Some(close) = fenced.then(|| open_fence(&out)).flatten() {
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
        #[allow(
            clippy::wildcard_enum_match_arm,
            reason = "the Markdown parser's events: only the few named here matter"
        )]
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
        assert_eq!(fence_for("no ticks", b'`'), "```");
        assert_eq!(fence_for("a ```` b", b'`'), "`````");
        // Runs told apart by their places: the longest counts, wherever it is.
        assert_eq!(fence_for("``a```b`", b'`'), "````");
        assert_eq!(fence_for("`", b'`'), "```");
        assert_eq!(fence_for("x````````", b'`'), "`````````");
        assert_eq!(fence_for("ab~~~~", b'~'), "~~~~~");
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

    #[test]
    fn images_from_content_become_links() {
        let t = safe_markdown("look ![pixel](https://tracker.example/p.gif) here\n");
        assert_eq!(t, "look \\![pixel](https://tracker.example/p.gif) here\n");
        let parsed = Parser::new(&t).any(|e| matches!(e, Event::Start(Tag::Image { .. })));
        assert!(!parsed, "{t}");
    }

    #[test]
    fn javascript_and_file_links_become_text() {
        for src in [
            "[notes](javascript:alert(1))",
            "[notes](file:///home/u/.ssh/id_rsa)",
            "[notes](data:text/html,x)",
            "<javascript:alert(1)>",
            "![x](javascript:alert(1))",
            "[r][ref]\n\n[ref]: javascript:alert(1)",
        ] {
            let t = safe_markdown(src);
            let link = Parser::new(&t)
                .any(|e| matches!(e, Event::Start(Tag::Link { .. } | Tag::Image { .. })));
            assert!(!link, "{src} → {t}");
        }
        let ok = safe_markdown("[a](https://x.example) <me@x.example> [m](mailto:a@b.c)");
        assert_eq!(
            ok,
            "[a](https://x.example) <me@x.example> [m](mailto:a@b.c)\n"
        );
    }

    #[test]
    fn reference_definitions_become_text() {
        let md = make_inert("a\n\n[ref]: javascript:alert(3)\n[pix]: https://t.example/p.gif\n");
        assert_eq!(
            md,
            "a\n\n\\[ref]: javascript:alert(3)\n\\[pix]: https://t.example/p.gif\n"
        );
        let inner = make_inert("> [q]: https://t.example/q\n");
        assert_eq!(inner, "> \\[q]: https://t.example/q\n");
    }

    #[test]
    fn mentions_become_code_spans() {
        assert_eq!(
            safe_markdown("ping @octocat and @org/team, not me@x.example"),
            "ping `@octocat` and `@org/team`, not me@x.example\n"
        );
        assert_eq!(safe_markdown("\\@octocat"), "`@octocat`\n");
        assert_eq!(
            safe_markdown("`@ok`\n\n```\n@ok\n```"),
            "`@ok`\n\n```\n@ok\n```\n"
        );
        assert_eq!(inline("by @octocat_x"), "by `@octocat`\\_x");
        assert_eq!(html("by @octocat"), "by <code>@octocat</code>");
    }
}
