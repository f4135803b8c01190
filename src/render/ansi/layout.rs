//! Styled lines and word wrapping for the terminal view.
//!
//! Everything the text renderer prints is first laid out as `Line`s of `Span`s (text that is
//! already sanitized, a palette style, an optional hyperlink), then written by `emit`. Keeping
//! layout apart from writing makes wrapping testable and keeps escape sequences in one place
//! (`Palette::paint`).

use std::io::{self, Write};

use owo_colors::Style;

use super::palette::Palette;
use crate::sanitize::sanitize;

/// A run of text in one style. The text never holds a control character.
#[derive(Debug, Clone)]
pub(crate) struct Span {
    /// The text, never holding a control character.
    pub(crate) text: String,
    /// Its palette style (ignored when colour is off).
    pub(crate) style: Style,
    /// A hyperlink target (written as OSC 8 only when colour is on).
    pub(crate) link: Option<String>,
}

impl Span {
    /// A span of untrusted text: sanitized here, so no caller can forget.
    pub(crate) fn new(text: &str, style: Style) -> Span {
        Span {
            text: sanitize(text).into_owned(),
            style,
            link: None,
        }
    }
}

/// One output line.
pub(crate) type Line = Vec<Span>;

/// What the lines of a block start with: the first line's prefix (a bullet, a marker, a
/// quote's bar) and the prefix of every line after it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Margin {
    /// The prefix of the block's first line.
    pub(crate) first: Line,
    /// The prefix of each line after the first.
    pub(crate) rest: Line,
}

impl Margin {
    /// The prefix of the block's next line: `first` while none of it is written yet.
    pub(crate) fn start(&self, none_written: bool) -> Line {
        if none_written {
            self.first.clone()
        } else {
            self.rest.clone()
        }
    }
}

/// The number of terminal columns a character takes (Unicode's East Asian Width, as terminals
/// draw it); a control character, which the sanitizer has already made visible, takes none.
fn char_width(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
}

/// Display width of a string.
pub(crate) fn width(s: &str) -> usize {
    // Printable ASCII takes one column a character, so ASCII text is as wide as it is long;
    // the char-by-char sum would be a large part of `--to text`.
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char_width).sum()
}

/// Text on one line: its line breaks and runs of blanks as one space (a title, a listed prompt).
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts `s` to at most `max` columns, ending with `…` when something was cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw + 1 > max {
            break;
        }
        w += cw;
        out.push(c);
    }
    out.push('…');
    out
}

/// Builds wrapped lines: words are placed until the width is reached, then a new line starts
/// with the continuation prefix. Words wider than a line are cut.
#[derive(Debug)]
pub(crate) struct Wrapper {
    width: usize,
    first: Line,
    rest: Line,
    lines: Vec<Line>,
    cur: Line,
    col: usize,
    /// The current line has its prefix.
    started: bool,
    /// The current line holds something beyond its prefix.
    content: bool,
    space: bool,
}

impl Wrapper {
    /// A wrapper for lines `width` columns wide, whose first line starts with `first` and the
    /// following ones with `rest`.
    pub(crate) fn new(width: usize, first: Line, rest: Line) -> Wrapper {
        Wrapper {
            width,
            first,
            rest,
            lines: Vec::new(),
            cur: Vec::new(),
            col: 0,
            started: false,
            content: false,
            space: false,
        }
    }

    fn start(&mut self) {
        if self.started {
            return;
        }
        let prefix = if self.lines.is_empty() {
            self.first.clone()
        } else {
            self.rest.clone()
        };
        self.col = prefix.iter().map(|s| width(&s.text)).sum();
        self.cur = prefix;
        self.started = true;
        self.content = false;
        self.space = false;
    }

    fn put(&mut self, text: &str, style: Style, link: Option<&String>) {
        self.col += width(text);
        self.content = true;
        if let Some(last) = self.cur.last_mut() {
            if last.style == style && last.link.as_ref() == link {
                last.text.push_str(text);
                return;
            }
        }
        self.cur.push(Span {
            text: text.to_owned(),
            style,
            link: link.cloned(),
        });
    }

    /// Adds sanitized text, wrapping at spaces. Runs of spaces collapse to one; line feeds and
    /// tabs are spaces here (callers that keep lines use `newline` or `raw_line`).
    pub(crate) fn words(&mut self, text: &str, style: Style, link: Option<&String>) {
        self.words_by(text, style, link, true);
    }

    /// Adds text as [`Wrapper::words`] does, but kept on one line where it fits on one: text
    /// that would not fit after what the line holds, yet would on a line of its own, starts the
    /// next line. Text wider than any line wraps at its spaces as `words` does. A space before
    /// the text (a leading one, or one left by the last call) separates it from what precedes.
    pub(crate) fn words_together(&mut self, text: &str, style: Style, link: Option<&String>) {
        let flat = sanitize(text).replace(['\n', '\t'], " ");
        let words: Vec<&str> = flat.split(' ').filter(|w| !w.is_empty()).collect();
        let need = words.iter().map(|w| width(w)).sum::<usize>() + words.len().saturating_sub(1);
        let gap = usize::from((self.space || flat.starts_with(' ')) && self.has_content());
        let line_room = self
            .width
            .saturating_sub(self.rest.iter().map(|s| width(&s.text)).sum());
        if self.has_content() && self.col + gap + need > self.width && need <= line_room {
            self.newline();
        }
        self.words(text, style, link);
    }

    /// `·`-separated items, each in its style, that wrap only between items, never inside one
    /// ("permission mode: plan" stays whole), unless an item is wider than a line. Each
    /// separator ends the item before it, so that no line starts with one.
    pub(crate) fn items(&mut self, items: &[(String, Style)]) {
        for (i, (item, style)) in items.iter().enumerate() {
            let sep = if i + 1 < items.len() { " ·" } else { "" };
            self.words_together(&format!(" {item}{sep}"), *style, None);
        }
    }

    /// [`Wrapper::words`], placing runs of words that fit at once when `runs` (tests compare
    /// it with word by word).
    fn words_by(&mut self, text: &str, style: Style, link: Option<&String>, runs: bool) {
        let text = sanitize(text);
        let text = match text.contains(['\n', '\t']) {
            true => std::borrow::Cow::Owned(text.replace(['\n', '\t'], " ")),
            false => text,
        };
        let ascii = runs && text.is_ascii();
        // The words between single spaces, as `split(' ')` gives them; `rest` is `None` after
        // the last.
        let mut rest = Some(&*text);
        let mut first = true;
        while let Some(left) = rest {
            let (word, after) = match left.find(' ') {
                Some(i) => (&left[..i], Some(&left[i + 1..])),
                None => (left, None),
            };
            rest = after;
            if !first {
                self.space = true;
            }
            first = false;
            if word.is_empty() {
                continue;
            }
            self.start();
            let w = width(word);
            let gap = usize::from(self.space && self.has_content());
            if self.has_content() && self.col + gap + w > self.width {
                self.newline();
                self.start();
            } else if gap == 1 {
                // The space belongs to the run it continues (a link's words stay one link);
                // between two runs it is plain.
                let same = self
                    .cur
                    .last()
                    .is_some_and(|s| s.style == style && s.link.as_ref() == link);
                if same {
                    self.put(" ", style, link);
                } else {
                    self.put(" ", Style::new(), None);
                }
            }
            self.space = false;
            if self.col + w <= self.width {
                self.put(word, style, link);
                if let (true, Some(after)) = (ascii, rest) {
                    rest = self.put_run(after);
                }
                continue;
            }
            // Longer than a whole line: cut it.
            let prefix_w: usize = self.rest.iter().map(|s| width(&s.text)).sum();
            self.put_cut(word, self.width.max(prefix_w + 1), style, link);
        }
    }

    /// Right after a word was put: puts at once the words of `after` (ASCII text that followed
    /// the word and one space) that fit on the line and are each one space apart, as the word
    /// loop would one by one (each then joins the word's span, a space before it), and returns
    /// what is left for the loop. Prose fills a line with one copy instead of two calls a word.
    fn put_run<'t>(&mut self, after: &'t str) -> Option<&'t str> {
        let room = (self.width - self.col).saturating_sub(1);
        let end = if after.len() <= room {
            after.len()
        } else if after.as_bytes()[room] == b' ' {
            room
        } else {
            after[..room].rfind(' ').unwrap_or(0)
        };
        let mut end = after[..end].find("  ").unwrap_or(end);
        if after[..end].ends_with(' ') {
            end -= 1;
        }
        if end == 0 || after.starts_with(' ') {
            return Some(after);
        }
        let last = self.cur.last_mut().expect("the word just put");
        last.text.push(' ');
        last.text.push_str(&after[..end]);
        self.col += 1 + end;
        // What follows is a space (the loop's next, possibly empty, word after it) or nothing.
        after.get(end + 1..).filter(|_| end < after.len())
    }

    /// Puts text that may be longer than a line, cut into pieces that end at column `limit`
    /// (each piece at least one character). The one place a word or a preformatted line is
    /// broken mid-way, for `push` and `raw_line`.
    fn put_cut(&mut self, text: &str, limit: usize, style: Style, link: Option<&String>) {
        // Most lines fit: put whole, without building them again a character at a time.
        if self.col + width(text) <= limit {
            self.put(text, style, link);
            return;
        }
        let mut piece = String::new();
        // The piece's width, kept as it grows (measuring it again for each character made a
        // line cost its length squared).
        let mut piece_width = 0;
        for c in text.chars() {
            let w = char_width(c);
            if self.col + piece_width + w > limit && !piece.is_empty() {
                self.put(&piece, style, link);
                piece.clear();
                piece_width = 0;
                self.newline();
                self.start();
            }
            piece.push(c);
            piece_width += w;
        }
        self.put(&piece, style, link);
    }

    /// Adds one line of preformatted text (code, tool output): never joined, cut at the width.
    pub(crate) fn raw_line(&mut self, text: &str, style: Style) {
        let text = sanitize(text);
        let text = match text.contains('\t') {
            true => std::borrow::Cow::Owned(text.replace('\t', "    ")),
            false => text,
        };
        self.start();
        self.put_cut(&text, self.width, style, None);
        self.newline();
    }

    /// Adds one line of preformatted text in styled pieces (a command's coloured output), as
    /// [`Wrapper::raw_line`] adds one in a single style.
    pub(crate) fn raw_runs(&mut self, runs: &[(Style, String)]) {
        self.start();
        for (style, text) in runs {
            let text = sanitize(text).replace('\t', "    ");
            self.put_cut(&text, self.width, *style, None);
        }
        self.newline();
    }

    fn has_content(&self) -> bool {
        self.started && self.content
    }

    /// Ends the current line (an empty line if nothing was added since the last one).
    pub(crate) fn newline(&mut self) {
        self.start();
        let line = std::mem::take(&mut self.cur);
        self.lines.push(line);
        self.started = false;
        self.col = 0;
    }

    /// Ends the current line if it holds anything.
    pub(crate) fn end_line(&mut self) {
        if self.has_content() {
            self.newline();
        }
        self.started = false;
    }

    /// The lines built so far (the current one included when it holds anything).
    pub(crate) fn finish(mut self) -> Vec<Line> {
        self.end_line();
        self.lines
    }
}

/// Writes lines, each ending with a line feed; trailing spaces are dropped.
pub(crate) fn emit(out: &mut dyn Write, pal: &Palette, lines: &[Line]) -> io::Result<()> {
    for line in lines {
        let last = line
            .iter()
            .rposition(|s| !s.text.trim_end().is_empty())
            .map_or(0, |i| i + 1);
        for (i, span) in line[..last].iter().enumerate() {
            let text = if i + 1 == last {
                span.text.trim_end()
            } else {
                span.text.as_str()
            };
            match &span.link {
                Some(url) => pal.paint_link(out, span.style, text, url)?,
                None => pal.paint(out, span.style, text)?,
            }
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|s| s.text.as_str()).collect::<String>())
            .collect()
    }

    #[test]
    fn wraps_at_the_width_with_prefixes() {
        let s = Style::new();
        let mut w = Wrapper::new(12, vec![Span::new("⏺ ", s)], vec![Span::new("  ", s)]);
        w.words("one two three four five", s, None);
        assert_eq!(plain(&w.finish()), ["⏺ one two", "  three four", "  five"]);
    }

    #[test]
    fn long_words_are_cut_and_raw_lines_kept() {
        let s = Style::new();
        let mut w = Wrapper::new(6, vec![], vec![]);
        w.words("abcdefghij", s, None);
        w.end_line();
        w.raw_line("a\x1b[2Jb", s);
        assert_eq!(plain(&w.finish()), ["abcdef", "ghij", "a\\x1b[", "2Jb"]);
    }

    /// Every span of `lines`: its text, style and link.
    fn spans(lines: &[Line]) -> Vec<Vec<(String, Style, Option<String>)>> {
        lines
            .iter()
            .map(|l| {
                l.iter()
                    .map(|s| (s.text.clone(), s.style, s.link.clone()))
                    .collect()
            })
            .collect()
    }

    proptest::proptest! {
        /// Runs placed at once wrap exactly as words placed one by one: any text of words,
        /// runs of spaces and line feeds (ASCII or not), in styles and links that change from
        /// one piece to the next, at any width, after a prefix.
        #[test]
        fn runs_wrap_as_words_one_by_one(
            pieces in proptest::collection::vec(("[ab \n]{0,40}|[aé ]{0,12}", 0..3u8), 1..6),
            width in 1usize..24,
        ) {
            let run = |runs: bool| {
                let s = Style::new();
                let mut w = Wrapper::new(width, vec![Span::new("> ", s)], vec![Span::new("  ", s)]);
                let link = String::from("https://example.com");
                for (text, kind) in &pieces {
                    let (style, link) = match kind {
                        0 => (s, None),
                        1 => (s.bold(), None),
                        _ => (s, Some(&link)),
                    };
                    w.words_by(text, style, link, runs);
                }
                spans(&w.finish())
            };
            proptest::prop_assert_eq!(run(true), run(false));
        }
    }

    #[test]
    fn words_together_move_to_the_next_line_whole_unless_wider_than_one() {
        let s = Style::new();
        let mut w = Wrapper::new(14, vec![], vec![Span::new("  ", s)]);
        w.words_together("one ·", s, None);
        w.words_together(" mode: plan ·", s, None);
        w.words_together(" a very long item", s, None);
        assert_eq!(
            plain(&w.finish()),
            ["one ·", "  mode: plan ·", "  a very long", "  item"]
        );
    }

    #[test]
    fn line_feeds_in_words_are_spaces() {
        let s = Style::new();
        let mut w = Wrapper::new(40, vec![], vec![]);
        w.words("one\ntwo\tthree", s, None);
        assert_eq!(plain(&w.finish()), ["one two three"]);
    }

    #[test]
    fn plain_palette_writes_no_escape() {
        let pal = Palette::default();
        let line = vec![
            Span::new("bold", Style::new().bold().red()),
            Span {
                text: "link".into(),
                style: Style::new().underline(),
                link: Some("https://example.com".into()),
            },
        ];
        let mut out = Vec::new();
        emit(&mut out, &pal, std::slice::from_ref(&line)).unwrap();
        assert_eq!(out, b"boldlink\n");
        let mut out = Vec::new();
        emit(&mut out, &Palette::colored(), &[line]).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("\x1b]8;;https://example.com\x1b\\"), "{s:?}");
    }

    #[test]
    fn truncates_with_an_ellipsis() {
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("short", 6), "short");
    }
}
