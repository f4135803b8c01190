//! Syntax highlighting of code fences, file reads, writes and diffs, on the server.
//!
//! Each piece of text gets at most one of seven short classes (`h-c` comment, `h-s` string, `h-n`
//! number or constant, `h-k` keyword, `h-f` function, `h-t` type or tag, `h-a` attribute, key or
//! variable), coloured by the page's stylesheet for light and dark alike. No script, no
//! `style=`.
//!
//! The classes come from a lexer ([`lexer`]) over a table of languages ([`languages`]): their
//! comments, strings, numbers and word lists, not their grammars. It replaced syntect (Sublime
//! Text's grammars, the Oniguruma regex engine), which highlighted about a megabyte per CPU
//! second here: that was most of a large page's time, so only the first 512 KB of a page's code
//! could be coloured (issue 14). The lexer takes about a fortieth of its instructions (33 M
//! against 1 485 M for the bench stream's 228 KB of code), so every block is highlighted; what
//! it gives up is a grammar's finer judgement (a word's role from its context), which seven
//! classes barely show.
//!
//! A line longer than [`MAX_LINE`] (minified code, a data blob) and every line after it in its
//! block is written plain: colour does not help read it, and its spans would double its size.

mod languages;
mod lexer;
mod words;

use std::sync::OnceLock;

pub(crate) use languages::Language;
pub(crate) use lexer::Segment;

use super::escape::Html;

/// The longest line highlighted, in bytes (minified code stays plain).
const MAX_LINE: usize = 2_000;

/// Every file name, extension and fence word a language is found by, once.
fn index() -> &'static foldhash::HashMap<&'static str, &'static Language> {
    static INDEX: OnceLock<foldhash::HashMap<&'static str, &'static Language>> = OnceLock::new();
    INDEX.get_or_init(languages::index)
}

/// The language for a fence's info string (`rust`, `py`, `sh`, `rust,ignore`) or a file name
/// (`src/main.rs`, `Makefile`), if scribe highlights it.
pub(crate) fn language(hint: &str) -> Option<&'static Language> {
    languages::find(index(), hint)
}

/// Parses lines in order, one language, one state.
pub(crate) struct Highlighter {
    /// The language, or none for plain text (no language, or past an overlong line).
    lang: Option<&'static Language>,
    /// What the last line left open.
    open: lexer::Open,
    /// The last line's segments, reused line to line.
    segments: Vec<Segment>,
}

impl Highlighter {
    /// A highlighter for `lang` (plain for none).
    pub(crate) fn new(lang: Option<&'static Language>) -> Highlighter {
        Highlighter {
            lang,
            open: lexer::Open::default(),
            segments: Vec::new(),
        }
    }

    /// True when `other` is where this one is (the same language, the same thing left open): a
    /// line then highlights the same in both.
    pub(crate) fn in_step_with(&self, other: &Highlighter) -> bool {
        self.open == other.open
            && match (self.lang, other.lang) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (None, None) => true,
                (Some(_), None) | (None, Some(_)) => false,
            }
    }

    /// Moves to where `other` is: what lexing the lines `other` lexed since the two were in
    /// step would have done, without lexing them again.
    pub(crate) fn catch_up(&mut self, other: &Highlighter) {
        self.lang = other.lang;
        self.open = other.open;
    }

    /// The classed segments of one line (given without its newline). After an overlong line,
    /// this and every later line are one plain segment.
    pub(crate) fn line(&mut self, line: &str) -> &[Segment] {
        self.segments.clear();
        match self.lang {
            Some(_) if line.len() > MAX_LINE => {
                self.lang = None;
                self.segments.push((0..line.len(), None));
            }
            Some(lang) => lexer::line(lang, &mut self.open, line, &mut self.segments),
            None => self.segments.push((0..line.len(), None)),
        }
        &self.segments
    }
}

/// Writes one line's segments as escaped text in spans.
pub(crate) fn push_segments(h: &mut Html, line: &str, segments: &[Segment]) {
    for (r, class) in segments {
        let text = &line[r.clone()];
        match class {
            Some(c) => {
                h.raw_trusted("<span class=\"")
                    .raw_trusted(c)
                    .raw_trusted("\">")
                    .text(text)
                    .raw_trusted("</span>");
            }
            None => {
                h.text(text);
            }
        }
    }
}

/// Writes a whole block (a fence, a file's content) highlighted for `lang`.
pub(crate) fn push_code(h: &mut Html, lang: Option<&'static Language>, code: &str) {
    let mut hl = Highlighter::new(lang);
    for (i, line) in code.split('\n').enumerate() {
        if i > 0 {
            h.raw_trusted("\n");
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let segs = hl.line(line);
        push_segments(h, line, segs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_gets_classes_and_stays_escaped() {
        let mut h = Html::default();
        push_code(
            &mut h,
            language("rust"),
            "fn main() { let s = \"<b>\"; } // hi",
        );
        let out = h.as_str();
        assert!(out.contains("<span class=\"h-k\">fn</span>"), "{out}");
        assert!(
            out.contains("<span class=\"h-s\">\"&lt;b&gt;\"</span>"),
            "{out}"
        );
        assert!(out.contains("<span class=\"h-c\">// hi</span>"), "{out}");
        assert!(!out.contains("<b>"), "{out}");
    }

    #[test]
    fn languages_from_paths_and_words() {
        assert_eq!(language("src/main.rs").map(|s| s.name), Some("Rust"));
        assert_eq!(language("python").map(|s| s.name), Some("Python"));
        assert_eq!(language("Makefile").map(|s| s.name), Some("Makefile"));
        assert!(language("notes.unknownext").is_none());
        assert!(language("").is_none());
    }
}
