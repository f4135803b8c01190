//! Assistant Markdown → HTML with pulldown-cmark, made safe for untrusted text.
//!
//! pulldown-cmark writes `Html` / `InlineHtml` events verbatim and lets any link scheme through
//! (style.md §2, "two traps"). Before `push_html` the events are filtered: raw HTML becomes text,
//! links keep their tag only when `safe_href` accepts the destination, images never become
//! `<img>` (a remote image would be a network request; a safe one becomes a link), and table
//! alignments are dropped (they are written as `style=` attributes, which the page's CSP forbids).

use std::cell::RefCell;

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd, html};

use super::code;
use super::escape::{Html, invisible_mark, safe_href};
use crate::sanitize::is_invisible;

/// Renders untrusted Markdown into `out`.
pub(crate) fn push_markdown(out: &mut Html, source: &str) {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // For each open link or image: its destination when it was refused (`None`: its tag kept).
    let mut refused: Vec<Option<String>> = Vec::new();
    // The code block being collected: its language word and its text so far.
    let mut code: Option<(String, String)> = None;
    // Shared by the writer below and the code blocks, which are written into the page directly:
    // the writer has written every earlier event when the parser hands over a block's end.
    let page = RefCell::new(out);
    let events = Parser::new_ext(source, opts).flat_map(|event| -> Emit<'_> {
        #[allow(
            clippy::wildcard_enum_match_arm,
            reason = "inside a code block only its text and its end matter; the rest is dropped"
        )]
        if let Some((_, text)) = code.as_mut() {
            match event {
                Event::Text(t) | Event::Html(t) => {
                    text.push_str(&t);
                    return Emit::none();
                }
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, text) = code.take().unwrap_or_default();
                    code_block(&mut page.borrow_mut(), &lang, text);
                    // The block's last byte goes through the writer, which so knows that a
                    // line ended, as it did when the block was one event.
                    return Emit::one(Event::Html(CowStr::Borrowed("\n")));
                }
                _ => return Emit::none(),
            }
        }
        #[allow(
            clippy::wildcard_enum_match_arm,
            reason = "the Markdown parser's events: the rest pass through unchanged"
        )]
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split([' ', ',', '{'])
                        .next()
                        .unwrap_or_default()
                        .to_owned(),
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
                Emit::none()
            }
            Event::Html(s) | Event::InlineHtml(s) => marked(s),
            Event::Text(s) => marked(s),
            Event::Code(s) if has_invisible(&s) => {
                let mut v = vec![Event::InlineHtml(CowStr::Borrowed("<code>"))];
                v.extend(marked(s));
                v.push(Event::InlineHtml(CowStr::Borrowed("</code>")));
                Emit::Many(v.into_iter())
            }
            Event::Start(Tag::Table(aligns)) => {
                let none = vec![Alignment::None; aligns.len()];
                Emit::one(Event::Start(Tag::Table(none)))
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                if safe_href(&dest_url).is_some() {
                    refused.push(None);
                    Emit::one(Event::Start(Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    }))
                } else {
                    refused.push(Some(dest_url.into_string()));
                    Emit::none()
                }
            }
            Event::Start(Tag::Image {
                dest_url, title, ..
            }) => {
                // Never an <img>: shown as a link to the image when the URL is safe.
                if safe_href(&dest_url).is_some() {
                    refused.push(None);
                    Emit::Many(
                        vec![
                            Event::Start(Tag::Link {
                                link_type: pulldown_cmark::LinkType::Inline,
                                dest_url,
                                title,
                                id: CowStr::Borrowed(""),
                            }),
                            Event::Text(CowStr::Borrowed("[image] ")),
                        ]
                        .into_iter(),
                    )
                } else {
                    refused.push(Some(dest_url.into_string()));
                    Emit::one(Event::Text(CowStr::Borrowed("[image] ")))
                }
            }
            Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => match refused.pop() {
                Some(None) => Emit::one(Event::End(TagEnd::Link)),
                // The refused destination stays readable as text.
                url => {
                    let shown = url.flatten().map(|u| format!(" <{u}>")).unwrap_or_default();
                    Emit::one(Event::Text(CowStr::from(shown)))
                }
            },
            other => Emit::one(other),
        }
    });
    // Writing into a `String` cannot fail.
    let _ = html::write_html_fmt(Writer(&page), events);
}

/// The filtered Markdown renderer's output, written into the page: every event it writes is one
/// the filter above let through or made, so its markup is trusted as `raw_trusted` is.
struct Writer<'p, 'h>(&'p RefCell<&'h mut Html>);

impl std::fmt::Write for Writer<'_, '_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.borrow_mut().raw_trusted(s);
        Ok(())
    }
}

/// What one parser event becomes: nothing, one event, or a few. Most become one, and a `Vec`
/// for each was an allocation per event.
enum Emit<'a> {
    /// Nothing or one event.
    One(Option<Event<'a>>),
    /// Several events (an inline code span with a marked invisible character, an image).
    Many(std::vec::IntoIter<Event<'a>>),
}

impl<'a> Emit<'a> {
    /// The event is dropped.
    fn none() -> Emit<'a> {
        Emit::One(None)
    }

    /// The event becomes `e`.
    fn one(e: Event<'a>) -> Emit<'a> {
        Emit::One(Some(e))
    }
}

impl<'a> Iterator for Emit<'a> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        match self {
            Emit::One(e) => e.take(),
            Emit::Many(v) => v.next(),
        }
    }
}

/// A code block, but for its last newline: highlighted when its fence names a language scribe
/// knows.
fn code_block(h: &mut Html, lang: &str, mut text: String) {
    let syntax = scribe_highlight::language(lang);
    h.raw_trusted(if syntax.is_some() {
        "<pre class=\"code hl\"><code>"
    } else {
        "<pre class=\"code\"><code>"
    });
    if text.ends_with('\n') {
        text.pop();
    }
    code::push_code(h, syntax, &text);
    h.raw_trusted("</code></pre>");
}

/// True when `s` holds an invisible character. Every one is outside ASCII, so text that is all
/// ASCII (most of it) is not read a character at a time.
fn has_invisible(s: &str) -> bool {
    !s.is_ascii() && s.chars().any(is_invisible)
}

/// A text event, split so that each invisible character becomes a marked `<U+…>` (written as
/// markup this module makes; the text around it stays a text event, escaped by `push_html`).
fn marked(s: CowStr<'_>) -> Emit<'_> {
    if !has_invisible(&s) {
        return Emit::one(Event::Text(s));
    }
    let mut v = Vec::new();
    let mut rest: &str = &s;
    while let Some((i, c)) = rest.char_indices().find(|&(_, c)| is_invisible(c)) {
        if i > 0 {
            v.push(Event::Text(CowStr::from(rest[..i].to_owned())));
        }
        v.push(Event::InlineHtml(CowStr::from(invisible_mark(c))));
        rest = &rest[i + c.len_utf8()..];
    }
    if !rest.is_empty() {
        v.push(Event::Text(CowStr::from(rest.to_owned())));
    }
    Emit::Many(v.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(s: &str) -> String {
        let mut h = Html::default();
        push_markdown(&mut h, s);
        h.as_str().to_owned()
    }

    proptest::proptest! {
        #[test]
        fn ascii_holds_no_invisible_character(s in "([a-z~\x00-\x7f]|\u{ad}|\u{200b}|é){0,12}") {
            proptest::prop_assert_eq!(has_invisible(&s), s.chars().any(is_invisible));
        }
    }

    #[test]
    fn fences_are_highlighted_and_escaped() {
        let out = md("```rust\nfn x() {} // <script>\n```\n\n```\n<b>\n```\n");
        assert!(out.contains("<span class=\"h-k\">fn</span>"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(
            out.contains("<pre class=\"code\"><code>&lt;b&gt;</code></pre>"),
            "{out}"
        );
    }

    #[test]
    fn raw_html_becomes_text() {
        let out = md("hi <script>window.x=1</script>\n\n<img src=x onerror=alert(1)>\n");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
    }

    #[test]
    fn bad_links_become_text() {
        let out = md("[click](javascript:alert(1)) and [ok](https://example.org)");
        assert!(!out.contains("href=\"javascript"), "{out}");
        assert!(out.contains("click &lt;javascript:alert(1)&gt;"), "{out}");
        assert!(
            out.contains("<a href=\"https://example.org\">ok</a>"),
            "{out}"
        );
    }

    #[test]
    fn images_never_load() {
        let out = md("![a](https://evil.example/t.png) ![b](data:image/png;base64,AA)");
        assert!(!out.contains("<img"), "{out}");
        assert!(
            out.contains("<a href=\"https://evil.example/t.png\">[image] a</a>"),
            "{out}"
        );
        assert!(
            out.contains("[image] b &lt;data:image/png;base64,AA&gt;"),
            "{out}"
        );
    }

    #[test]
    fn tables_have_no_style_attributes() {
        let out = md("| a | b |\n|:--|--:|\n| 1 | 2 |\n");
        assert!(out.contains("<table>"), "{out}");
        assert!(!out.contains("style="), "{out}");
    }

    #[test]
    fn attribute_breakout_in_link_is_escaped() {
        let out = md("[x](https://a.org/\"onmouseover=\"alert(1))");
        assert!(!out.contains("\"onmouseover"), "{out}");
    }

    #[test]
    fn invisible_characters_are_marked() {
        let out = md("see\u{e0049}\u{e0047} `a\u{200b}b`\n\n```\nx\u{202e}y\n```\n");
        assert!(!out.contains('\u{e0049}'), "{out}");
        assert!(!out.contains('\u{200b}'), "{out}");
        assert!(!out.contains('\u{202e}'), "{out}");
        assert!(out.contains("&lt;U+E0049&gt;</mark>"), "{out}");
        assert!(out.contains("<code>a<mark"), "{out}");
        assert!(out.contains("&lt;U+202E&gt;"), "{out}");
    }
}
