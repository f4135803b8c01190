//! Assistant Markdown for the terminal, through pulldown-cmark: headings, emphasis, lists, code
//! blocks, block quotes, tables, rules, and links as their text followed by the URL (also an OSC 8
//! hyperlink when colour is on). Everything is wrapped to the width; code is cut, never joined.
//!
//! The text is untrusted: every piece goes through `Span::new` / `Wrapper`, which sanitize it,
//! and link targets become hyperlinks only when they are plain printable ASCII.

use owo_colors::Style;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::layout::{Line, Margin, Span, Wrapper, width};
use super::palette::Palette;
use super::table::Table;

/// How many containers are drawn at each end of a deep stack. Past twice this depth the middle
/// ones are drawn as one mark that says how many levels it stands for (`┆12 `), so a line's
/// gutter, and the work of drawing it, stays bounded however deep the nesting: output and time
/// stay linear in the input.
const SHOWN_AT_EACH_END: usize = 4;

struct Md<'p> {
    pal: &'p Palette,
    width: usize,
    base: Style,
    stack: Vec<Margin>,
    /// The containers below this depth have had a line drawn inside them (their next line
    /// takes the `rest` prefix, a list item's bullet is drawn once).
    used_below: usize,
    out: Vec<Line>,
    cur: Option<Wrapper>,
    bold: bool,
    italic: bool,
    strike: bool,
    heading: bool,
    link: Option<(String, String)>,
    code: Option<String>,
    lists: Vec<Option<u64>>,
    table: Option<Table>,
}

/// Renders Markdown `text` as lines `width` columns wide, each started by `margin`; `base` is
/// the style of plain text (dim for thinking).
pub(crate) fn render(
    text: &str,
    pal: &Palette,
    width: usize,
    margin: Margin,
    base: Style,
) -> Vec<Line> {
    let mut md = Md {
        pal,
        width,
        base,
        stack: vec![margin],
        used_below: 0,
        out: Vec::new(),
        cur: None,
        bold: false,
        italic: false,
        strike: false,
        heading: false,
        link: None,
        code: None,
        lists: Vec::new(),
        table: None,
    };
    // Sanitize first: the parser must not see a control character (it would take a lone `\r`
    // for a line break); the visible escapes (`\x1b`, `\u{202e}`, `\r`) mean nothing to it.
    let text = crate::sanitize::sanitize(text);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for ev in Parser::new_ext(&text, opts) {
        md.event(ev);
    }
    md.flush();
    while md
        .out
        .last()
        .is_some_and(|l| l.iter().all(|s| s.text.trim().is_empty()))
    {
        md.out.pop();
    }
    md.out
}

impl Md<'_> {
    /// The gutter of the next line and of the lines after it: each container's prefix, outer
    /// first, the middle of a deep stack drawn as one mark.
    fn prefixes(&self) -> Margin {
        let depth = self.stack.len();
        let hidden = depth.saturating_sub(2 * SHOWN_AT_EACH_END);
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for i in (0..depth)
            .filter(|&i| hidden == 0 || i < SHOWN_AT_EACH_END || i >= depth - SHOWN_AT_EACH_END)
        {
            if hidden > 0 && i == depth - SHOWN_AT_EACH_END {
                let mark = Span::new(&format!("┆{hidden} "), self.pal.dim);
                first.push(mark.clone());
                rest.push(mark);
            }
            let c = &self.stack[i];
            first.extend(if i < self.used_below {
                c.rest.clone()
            } else {
                c.first.clone()
            });
            rest.extend(c.rest.clone());
        }
        Margin { first, rest }
    }

    /// Every container open now has had a line drawn inside it.
    fn mark_used(&mut self) {
        self.used_below = self.stack.len();
    }

    /// Closes the innermost container.
    fn pop_container(&mut self) {
        self.stack.pop();
        self.used_below = self.used_below.min(self.stack.len());
    }

    fn wrapper(&mut self) -> &mut Wrapper {
        if self.cur.is_none() {
            let Margin { first, rest } = self.prefixes();
            self.cur = Some(Wrapper::new(self.width, first, rest));
        }
        self.cur.as_mut().expect("just set")
    }

    /// Ends the current leaf block.
    fn flush(&mut self) {
        if let Some(w) = self.cur.take() {
            self.push_lines(w.finish());
        }
    }

    fn push_lines(&mut self, lines: Vec<Line>) {
        if !lines.is_empty() {
            self.out.extend(lines);
            self.mark_used();
        }
    }

    /// A blank line before a new block, unless one is there already.
    fn blank(&mut self) {
        self.flush();
        let last_blank = self
            .out
            .last()
            .is_none_or(|l| l.iter().all(|s| s.text.trim().is_empty()));
        if !last_blank {
            let rest = self.prefixes().rest;
            self.out.push(rest);
        }
    }

    fn style(&self) -> Style {
        if !self.pal.enabled {
            return Style::new();
        }
        let mut s = if self.heading {
            self.pal.heading
        } else if self.link.is_some() {
            self.pal.link
        } else {
            self.base
        };
        if self.bold {
            s = s.bold();
        }
        if self.italic {
            s = s.italic();
        }
        if self.strike {
            s = s.strikethrough();
        }
        s
    }

    fn text(&mut self, t: &str, style: Style) {
        if let Some(code) = self.code.as_mut() {
            code.push_str(t);
            return;
        }
        if let Some(table) = self.table.as_mut() {
            table.cell.push_str(t);
            return;
        }
        if let Some((_, text)) = self.link.as_mut() {
            text.push_str(t);
        }
        let link = self.link.as_ref().map(|(u, _)| u.clone());
        self.wrapper().words(t, style, link.as_ref());
    }

    fn event(&mut self, ev: Event<'_>) {
        match ev {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                let s = self.style();
                // Soft line breaks inside a text event (code aside) are spaces.
                if self.code.is_some() {
                    self.text(&t, s);
                } else {
                    self.text(&t.replace('\n', " "), s);
                }
            }
            Event::Code(t) => self.text(&t, self.pal.code),
            Event::Html(t) | Event::InlineHtml(t) => {
                let s = self.pal.dim;
                if self.code.is_some() || self.table.is_some() {
                    self.text(&t, s);
                } else {
                    for (i, l) in t.split('\n').enumerate() {
                        if i > 0 {
                            self.wrapper().end_line();
                        }
                        self.text(l, s);
                    }
                }
            }
            Event::SoftBreak => self.text(" ", Style::new()),
            Event::HardBreak => {
                if self.table.is_none() {
                    self.wrapper().end_line();
                }
            }
            Event::Rule => {
                self.blank();
                let first = self.prefixes().first;
                let w = self
                    .width
                    .saturating_sub(first.iter().map(|s| width(&s.text)).sum());
                let mut line = first;
                line.push(Span::new(&"─".repeat(w.min(40)), self.pal.dim));
                self.push_lines(vec![line]);
            }
            Event::TaskListMarker(done) => {
                let s = self.style();
                self.text(if done { "[x] " } else { "[ ] " }, s);
            }
            Event::FootnoteReference(r) => {
                let s = self.style();
                self.text(&format!("[^{r}]"), s);
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => {
                let s = self.style();
                self.text(&t, s);
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                if self.table.is_none() {
                    self.blank();
                }
            }
            Tag::Heading { level, .. } => {
                self.blank();
                self.heading = true;
                if level >= HeadingLevel::H3 {
                    let s = self.style();
                    self.text(&format!("{} ", "#".repeat(level as usize)), s);
                }
            }
            Tag::BlockQuote(_) => {
                self.blank();
                let bar = Span::new("│ ", self.pal.quote);
                self.stack.push(Margin {
                    first: vec![bar.clone()],
                    rest: vec![bar],
                });
            }
            Tag::CodeBlock(kind) => {
                self.blank();
                if let CodeBlockKind::Fenced(lang) = kind {
                    if !lang.is_empty() {
                        let first = self.prefixes().first;
                        let mut line = first;
                        line.push(Span::new(&format!("  {lang}"), self.pal.dim));
                        self.push_lines(vec![line]);
                    }
                }
                self.code = Some(String::new());
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.blank();
                } else {
                    self.flush();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_owned(),
                };
                let pad = " ".repeat(width(&marker));
                self.stack.push(Margin {
                    first: vec![Span::new(&marker, self.pal.dim)],
                    rest: vec![Span::new(&pad, Style::new())],
                });
            }
            Tag::Emphasis => self.italic = true,
            Tag::Strong => self.bold = true,
            Tag::Strikethrough => self.strike = true,
            Tag::Link { dest_url, .. } => self.link = Some((dest_url.to_string(), String::new())),
            Tag::Image { dest_url, .. } => {
                let s = self.style();
                self.text("[image: ", s);
                self.link = Some((dest_url.to_string(), String::new()));
            }
            Tag::Table(align) => {
                self.blank();
                self.table = Some(Table {
                    align,
                    rows: Vec::new(),
                    cell: String::new(),
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = self.table.as_mut() {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(t) = self.table.as_mut() {
                    t.cell.clear();
                }
            }
            Tag::HtmlBlock => self.blank(),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::Superscript
            | Tag::Subscript
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.flush(),
            TagEnd::Heading(_) => {
                self.flush();
                self.heading = false;
            }
            TagEnd::BlockQuote(_) | TagEnd::Item => {
                self.flush();
                self.pop_container();
            }
            TagEnd::CodeBlock => {
                let code = self.code.take().unwrap_or_default();
                let Margin { first, rest } = self.prefixes();
                let mut indent_first = first;
                indent_first.push(Span::new("  ", Style::new()));
                let mut indent_rest = rest;
                indent_rest.push(Span::new("  ", Style::new()));
                let mut w = Wrapper::new(self.width, indent_first, indent_rest);
                for l in code.strip_suffix('\n').unwrap_or(&code).split('\n') {
                    w.raw_line(l, self.pal.code);
                }
                let lines = w.finish();
                self.push_lines(lines);
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
            }
            TagEnd::Emphasis => self.italic = false,
            TagEnd::Strong => self.bold = false,
            TagEnd::Strikethrough => self.strike = false,
            TagEnd::Link => {
                if let Some((url, text)) = self.link.take() {
                    if !url.is_empty() && url != text && !url.starts_with('#') {
                        let s = self.pal.url;
                        self.text(&format!(" ({url})"), s);
                    }
                }
            }
            TagEnd::Image => {
                let url = self.link.take().map(|(u, _)| u).unwrap_or_default();
                let s = self.style();
                self.text("]", s);
                if !url.is_empty() {
                    let s = self.pal.url;
                    self.text(&format!(" ({url})"), s);
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = self.table.as_mut() {
                    let cell = std::mem::take(&mut t.cell);
                    if let Some(row) = t.rows.last_mut() {
                        row.push(cell);
                    }
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    let lines = t.lines(self.pal, self.width, self.prefixes(), self.base);
                    self.push_lines(lines);
                }
            }
            TagEnd::TableHead
            | TagEnd::TableRow
            | TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::MetadataBlock(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str, width: usize) -> Vec<String> {
        render(
            text,
            &Palette::default(),
            width,
            Margin::default(),
            Style::new(),
        )
        .iter()
        .map(|l| {
            l.iter()
                .map(|s| s.text.as_str())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect()
    }

    #[test]
    fn paragraphs_lists_and_code() {
        let out = plain(
            "# Title\n\nSome *text* here.\n\n- one\n- two\n\n```rust\nfn main() {}\n```\n",
            40,
        );
        assert_eq!(
            out,
            [
                "Title",
                "",
                "Some text here.",
                "",
                "• one",
                "• two",
                "",
                "  rust",
                "  fn main() {}"
            ]
        );
    }

    #[test]
    fn links_show_their_url() {
        assert_eq!(
            plain("see [docs](https://x.y/z)", 80),
            ["see docs (https://x.y/z)"]
        );
        assert_eq!(plain("<https://x.y>", 80), ["https://x.y"]);
    }

    #[test]
    fn tables_are_aligned() {
        let out = plain("| a | bb |\n|---|---:|\n| ccc | d |\n", 40);
        assert_eq!(out, ["a   │ bb", "────┼───", "ccc │  d"]);
    }

    #[test]
    fn wraps_list_items_under_their_text() {
        let out = plain("1. alpha beta gamma delta", 14);
        assert_eq!(out, ["1. alpha beta", "   gamma delta"]);
    }
}
