//! scribe's syntax highlighter: lines of code in, classed pieces of each line out.
//!
//! - [`language()`] finds a [`Language`] from a file name (`src/main.rs`, `Makefile`) or a
//!   Markdown fence's info string (`rust`, `py`, `rust,ignore`); `None` when none is known.
//!   [`languages()`] lists them all.
//! - A [`Highlighter`] reads one block's lines in order (each without its newline) and gives, for
//!   each, [`Segment`]s: byte ranges that tile the line, on character boundaries, each with at
//!   most one [`Class`] (comment, string, number, keyword, function, type, attribute).
//!   [`Class::css`] names the class a stylesheet colours (`h-k`).
//! - What a line leaves open (a block comment, a string, a tag) carries to the next, so two
//!   highlighters over the two sides of a diff can share a line while they are in step
//!   ([`Highlighter::in_step_with`], [`Highlighter::catch_up`]).
//!
//! Escaping is the caller's: the pieces are ranges of the text it gave.
//!
//! ```
//! use scribe_highlight::{Class, Highlighter, language};
//!
//! let mut hl = Highlighter::new(language("src/main.rs"));
//! let line = "fn main() {} // hi";
//! let classed: Vec<(&str, Class)> = hl
//!     .line(line)
//!     .iter()
//!     .filter_map(|(range, class)| Some((&line[range.clone()], (*class)?)))
//!     .collect();
//! assert_eq!(
//!     classed,
//!     [("fn", Class::Keyword), ("main", Class::Function), ("// hi", Class::Comment)]
//! );
//! ```
//!
//! How it works: one generic lexer (`lexer.rs`) reads every language from its row of data
//! (`languages/`: comments, quotes, listed words, a few traits such as "a word before `(` is a
//! call"), not from a grammar. It gives up a grammar's finer judgement (a word's role from its
//! context), which seven classes barely show, for one pass over the bytes with no backtracking.
//! A line longer than [`MAX_LINE`] (minified code, a data blob) and every line after it in its
//! block stay plain: colour does not help read it, and its spans would double its size.
//!
//! The bench highlights a few megabytes of code in several languages and prints MB/s:
//! `cargo bench -p scribe-highlight`.

mod language;
mod languages;
mod lexer;
mod lexicon;

use std::ops::Range;
use std::sync::OnceLock;

pub use language::Language;

/// The longest line highlighted, in bytes (minified code stays plain).
pub const MAX_LINE: usize = 2_000;

/// What a piece of code is, as far as its colour goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A comment.
    Comment,
    /// A string or character literal.
    String,
    /// A number or a language constant (`true`, `None`).
    Number,
    /// A keyword.
    Keyword,
    /// A function's name, where it is defined or called.
    Function,
    /// A type, a class or a markup tag.
    Type,
    /// An attribute, a decorator, a key or a variable.
    Attribute,
}

impl Class {
    /// The short class name a stylesheet colours this class by.
    pub fn css(self) -> &'static str {
        match self {
            Class::Comment => "h-c",
            Class::String => "h-s",
            Class::Number => "h-n",
            Class::Keyword => "h-k",
            Class::Function => "h-f",
            Class::Type => "h-t",
            Class::Attribute => "h-a",
        }
    }
}

/// One piece of a line: its byte range and its class, if any (plain text has none).
pub type Segment = (Range<usize>, Option<Class>);

/// Every file name, extension and fence word a language is found by, once.
fn index() -> &'static foldhash::HashMap<&'static str, &'static Language> {
    static INDEX: OnceLock<foldhash::HashMap<&'static str, &'static Language>> = OnceLock::new();
    INDEX.get_or_init(language::index)
}

/// The language for a fence's info string (`rust`, `py`, `sh`, `rust,ignore`) or a file name
/// (`src/main.rs`, `Makefile`), if it is one highlighted.
pub fn language(hint: &str) -> Option<&'static Language> {
    language::find(index(), hint)
}

/// Every language highlighted.
pub fn languages() -> impl Iterator<Item = &'static Language> {
    languages::LANGUAGES.iter().copied()
}

/// Reads lines in order, one language, one state.
pub struct Highlighter {
    /// The language, or none for plain text (no language, or past an overlong line).
    lang: Option<&'static Language>,
    /// What the last line left open.
    open: lexer::Open,
    /// How the lexer reads `lang` (none for plain text).
    setup: Option<lexer::Setup>,
    /// The last line's segments, reused line to line.
    segments: Vec<Segment>,
}

impl Highlighter {
    /// A highlighter for `lang` (plain for none).
    pub fn new(lang: Option<&'static Language>) -> Highlighter {
        Highlighter {
            lang,
            open: lexer::Open::default(),
            setup: lang.map(lexer::Setup::of),
            segments: Vec::new(),
        }
    }

    /// True when `other` is where this one is (the same language, the same thing left open): a
    /// line then highlights the same in both.
    pub fn in_step_with(&self, other: &Highlighter) -> bool {
        self.open == other.open
            && match (self.lang, other.lang) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (None, None) => true,
                (Some(_), None) | (None, Some(_)) => false,
            }
    }

    /// Moves to where `other` is: what lexing the lines `other` lexed since the two were in
    /// step would have done, without lexing them again.
    pub fn catch_up(&mut self, other: &Highlighter) {
        self.lang = other.lang;
        self.open = other.open;
        self.setup = other.setup;
    }

    /// The classed segments of one line (given without its newline), in order, from 0 to the
    /// line's length. After an overlong line, this and every later line are one plain segment.
    pub fn line(&mut self, line: &str) -> &[Segment] {
        self.segments.clear();
        match self.lang {
            Some(_) if line.len() > MAX_LINE => {
                self.lang = None;
                self.segments.push((0..line.len(), None));
            }
            Some(lang) => {
                let setup = *self.setup.get_or_insert_with(|| lexer::Setup::of(lang));
                lexer::line(setup, &mut self.open, line, &mut self.segments);
            }
            None => self.segments.push((0..line.len(), None)),
        }
        &self.segments
    }
}
