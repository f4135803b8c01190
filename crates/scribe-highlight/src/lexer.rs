//! The lexer: one line at a time, a language's tokens into seven [`Class`]es.
//!
//! It is generic: everything it knows of a language is that language's row of data (a
//! [`Language`]: what its comments, strings, numbers and words look like), not its grammar. A
//! keyword is a keyword wherever it stands, a word before `(` is a call, a capitalised word is a
//! type where the language says so. That is what the seven classes need, and it runs in one
//! pass over the bytes with no backtracking. What carries from one line to the next (an open
//! comment, string, tag or fence) is one small [`Open`] value, so two sides of a diff are "in
//! step" when two of them are equal. Markup and Markdown lines are read in `lexer/markup.rs`.
//!
//! Every piece ends at an ASCII byte or at the end of the line, so every range is on a
//! character boundary.

mod markup;
mod words;

use std::ops::Range;

use crate::language::{Language, Quote, Traits};
use crate::lexicon::{self, Lexicon};
use crate::{Class, Segment};

/// A comment.
const COMMENT: Option<Class> = Some(Class::Comment);
/// A string or character literal.
const STRING: Option<Class> = Some(Class::String);
/// A number or a language constant (`true`, `None`).
const NUMBER: Option<Class> = Some(Class::Number);
/// A keyword.
const KEYWORD: Option<Class> = Some(Class::Keyword);
/// A function's name, where it is defined or called.
const FUNCTION: Option<Class> = Some(Class::Function);
/// A type, a class or a markup tag.
const TYPE: Option<Class> = Some(Class::Type);
/// An attribute, a decorator, a key or a variable.
const ATTRIBUTE: Option<Class> = Some(Class::Attribute);

/// What a line leaves open for the next one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Open {
    /// Nothing: the next line starts in code (or a markup page's text).
    #[default]
    Code,
    /// A block comment, nested this deep (1 where comments do not nest).
    Comment(u8),
    /// A string opened by the language's quote of this index, inside a markup tag or not.
    Quote { quote: u8, in_tag: bool },
    /// A markup tag's attributes (`<a href="…"` up to its `>`).
    Tag,
    /// A Markdown fenced code block.
    Fence,
}

/// What the last keyword says the next word is (`fn` → a function's name).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Anything,
    Function,
    Type,
}

/// The pieces of one line, appended to `out` (adjacent pieces of one class merged), and what it
/// leaves open.
pub(crate) fn line(setup: Setup, open: &mut Open, line: &str, out: &mut Vec<Segment>) {
    let Setup {
        lang,
        openers,
        words,
    } = setup;
    let b = line.as_bytes();
    let indent = b.len() - b.trim_ascii_start().len();
    let after_dash = (b.get(indent) == Some(&b'-'))
        .then(|| indent + 1 + b[indent + 1..].len() - b[indent + 1..].trim_ascii_start().len());
    let mut lexer = Lexer {
        lang,
        openers,
        words,
        b,
        out,
        next: Next::Anything,
        indent,
        after_dash,
    };
    if lang.traits.has(Traits::HEADINGS) {
        lexer.markdown(open);
    } else {
        lexer.code(open);
    }
    if let Open::Quote { quote, .. } = *open {
        if !lang.quotes[usize::from(quote)].spans_lines {
            *open = Open::Code;
        }
    }
}

/// What the lexer reads a language with, worked out once a block (a [`Highlighter`]'s life).
///
/// [`Highlighter`]: crate::Highlighter
#[derive(Clone, Copy)]
pub(crate) struct Setup {
    lang: &'static Language,
    /// The bytes that may open a comment or a string in `lang`.
    openers: Openers,
    /// `lang`'s listed words.
    words: &'static Lexicon,
}

impl Setup {
    /// How to read `lang`.
    pub(crate) fn of(lang: &'static Language) -> Setup {
        Setup {
            lang,
            openers: Openers::of(lang),
            words: lexicon::of(lang),
        }
    }
}

/// One line being cut into pieces.
struct Lexer<'a, 'o> {
    lang: &'a Language,
    /// The bytes that may open a comment or a string in `lang`.
    openers: Openers,
    /// `lang`'s listed words.
    words: &'a Lexicon,
    b: &'a [u8],
    out: &'o mut Vec<Segment>,
    next: Next,
    /// Where the line's first non-space byte is.
    indent: usize,
    /// Where the line's first non-space byte after a leading `-` is (a YAML list item).
    after_dash: Option<usize>,
}

/// True for a byte that continues a word: letters, digits, `_` and any byte of a non-ASCII
/// character.
fn is_word(c: u8) -> bool {
    WORD[usize::from(c)]
}

/// [`is_word`] of each byte, as a table: the lexer asks it of nearly every byte it reads.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
        c += 1;
    }
    t
};

/// The bytes that may open a comment or a string in a language (the first byte of each of its
/// comment and quote openers): a byte not among them opens neither, and the lexer need not
/// compare the openers with the text there.
#[derive(Clone, Copy)]
struct Openers([u64; 4]);

impl Openers {
    /// The first bytes of `lang`'s comment and quote openers.
    fn of(lang: &Language) -> Openers {
        let mut bits = [0u64; 4];
        let block = lang.block_comment.map(|(start, _)| start);
        let openers = lang.line_comments.iter().copied().chain(block);
        for opener in openers.chain(lang.quotes.iter().map(|q| q.open)) {
            if let Some(&first) = opener.as_bytes().first() {
                bits[usize::from(first >> 6)] |= 1 << (first & 63);
            }
        }
        Openers(bits)
    }

    /// Whether a comment or a string may open at a byte `c`.
    fn may_open(self, c: u8) -> bool {
        self.0[usize::from(c >> 6)] & (1 << (c & 63)) != 0
    }
}

/// True for a byte that starts a word.
fn starts_word(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

impl Lexer<'_, '_> {
    /// Appends a piece, merged into the last one when it has the same class and touches it.
    fn push(&mut self, r: Range<usize>, class: Option<Class>) {
        if r.is_empty() {
            return;
        }
        match self.out.last_mut() {
            Some((last, c)) if *c == class && last.end == r.start => last.end = r.end,
            _ => self.out.push((r, class)),
        }
    }

    /// True when `text` is at `i` (its first byte compared before the rest: the lexer asks this
    /// of most bytes of a string or a comment, where it rarely holds).
    fn at(&self, i: usize, text: &str) -> bool {
        let t = text.as_bytes();
        match t.first() {
            Some(first) => self.b.get(i) == Some(first) && self.b[i..].starts_with(t),
            None => true,
        }
    }

    /// The byte at `i`, or 0 past the end.
    fn byte(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    /// True when only spaces (and, where `dash` is set, one list dash) come before `i`, the
    /// start of a token that is not a space (worked out once a line, asked of every word).
    fn starts_line(&self, i: usize, dash: bool) -> bool {
        i <= self.indent || (dash && Some(i) == self.after_dash)
    }

    /// A line of code (or of a markup page), from where `open` says it starts.
    fn code(&mut self, open: &mut Open) {
        let n = self.b.len();
        let mut i = 0;
        while i < n {
            i = match *open {
                Open::Comment(depth) => self.comment(i, depth, open),
                Open::Quote { quote, in_tag } => self.quoted(i, quote, in_tag, open),
                Open::Tag => self.tag(i, open),
                Open::Code | Open::Fence if self.lang.traits.has(Traits::MARKUP) => {
                    self.markup_text(i, open)
                }
                Open::Code | Open::Fence => self.token(i, open),
            };
        }
    }

    /// The rest of a block comment from `i`: to its end (then code again) or the line's.
    fn comment(&mut self, i: usize, mut depth: u8, open: &mut Open) -> usize {
        let Some((start, end)) = self.lang.block_comment else {
            *open = Open::Code;
            return i;
        };
        let nests = self.lang.traits.has(Traits::NESTED_COMMENTS);
        let mut j = i;
        while j < self.b.len() {
            if self.at(j, end) {
                j += end.len();
                depth -= 1;
                if depth == 0 {
                    self.push(i..j, COMMENT);
                    *open = Open::Code;
                    return j;
                }
            } else if nests && self.at(j, start) {
                j += start.len();
                depth = depth.saturating_add(1);
            } else {
                j += 1;
            }
        }
        self.push(i..j, COMMENT);
        *open = Open::Comment(depth);
        j
    }

    /// The rest of a string from `i`: to its closing quote or the line's end.
    fn quoted(&mut self, i: usize, quote: u8, in_tag: bool, open: &mut Open) -> usize {
        let (j, closed) = self.scan_quote(i, quote);
        self.push(i..j, STRING);
        if closed {
            *open = if in_tag { Open::Tag } else { Open::Code };
        }
        j
    }

    /// Where the string of quote `quote` whose text starts at `i` ends: after its closing quote
    /// (true) or at the end of the line (false).
    fn scan_quote(&self, i: usize, quote: u8) -> (usize, bool) {
        let q: &Quote = &self.lang.quotes[usize::from(quote)];
        let mut j = i;
        while j < self.b.len() {
            if q.escapes && self.b[j] == b'\\' {
                j += 2;
            } else if self.at(j, q.close) {
                return (j + q.close.len(), true);
            } else {
                j += 1;
            }
        }
        (j.min(self.b.len()), false)
    }

    /// The quote that opens a string at `i`, if one does (longest first, as listed).
    fn quote_at(&self, i: usize) -> Option<u8> {
        let found = self.lang.quotes.iter().position(|q| self.at(i, q.open))?;
        u8::try_from(found).ok()
    }

    /// Opens the string of quote `quote` at `i`.
    fn open_quote(&mut self, i: usize, quote: u8, in_tag: bool, open: &mut Open) -> usize {
        let q = &self.lang.quotes[usize::from(quote)];
        let j = i + q.open.len();
        self.push(i..j, STRING);
        *open = Open::Quote { quote, in_tag };
        j
    }

    /// One token of code at `i` (`open` is [`Open::Code`]); returns where the next starts.
    fn token(&mut self, i: usize, open: &mut Open) -> usize {
        let b = self.b;
        let n = b.len();
        let c = b[i];
        let traits = self.lang.traits;
        let prev = if i > 0 { b[i - 1] } else { b' ' };
        if c == b' ' || c == b'\t' {
            let j = i + b[i..]
                .iter()
                .take_while(|&&c| c == b' ' || c == b'\t')
                .count();
            self.push(i..j, None);
            return j;
        }
        if traits.has(Traits::SECTIONS) && c == b'[' && self.starts_line(i, false) {
            let j = b[i..]
                .iter()
                .rposition(|&c| c == b']')
                .map_or(n, |k| i + k + 1);
            self.push(i..j, TYPE);
            return j;
        }
        if traits.has(Traits::PREPROCESSOR) && c == b'#' && self.starts_line(i, false) {
            let j = i
                + 1
                + b[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .count();
            self.push(i..j, KEYWORD);
            return j;
        }
        if self.openers.may_open(c) {
            if let Some(j) = self.comment_or_string(i, prev, open) {
                return j;
            }
        }
        if c == b'\'' && traits.has(Traits::LIFETIMES) {
            return self.tick(i);
        }
        // Not after a word or a dot: `x1`, `v1.2.0` and `t.0` are not numbers.
        if !is_word(prev)
            && prev != b'.'
            && (c.is_ascii_digit() || (c == b'.' && self.byte(i + 1).is_ascii_digit()))
        {
            let j = self.number(i);
            self.push(i..j, NUMBER);
            return j;
        }
        if starts_word(c) {
            return self.word(i, open);
        }
        if traits.has(Traits::KEYS_COLON)
            && self.starts_line(i, true)
            && !(c == b'-' && self.byte(i + 1) == b' ')
        {
            if let Some(j) = self.yaml_key(i) {
                self.push(i..j, ATTRIBUTE);
                return j;
            }
        }
        if let Some(j) = self.sigil(i) {
            return j;
        }
        self.next = Next::Anything;
        self.push(i..i + 1, None);
        i + 1
    }

    /// A comment or a string that opens at `i` (after the byte `prev`), if one does; returns
    /// where the next token starts.
    fn comment_or_string(&mut self, i: usize, prev: u8, open: &mut Open) -> Option<usize> {
        let n = self.b.len();
        for t in self.lang.line_comments {
            // A `#` starts a comment only where a word cannot go on (`a#b`, `${#x}` in shell).
            if self.at(i, t) && (t != &"#" || matches!(prev, b' ' | b'\t' | b';' | b'(' | b')')) {
                self.push(i..n, COMMENT);
                return Some(n);
            }
        }
        if let Some((start, _)) = self.lang.block_comment {
            if self.at(i, start) {
                let j = i + start.len();
                self.push(i..j, COMMENT);
                *open = Open::Comment(1);
                return Some(j);
            }
        }
        if !is_word(prev) || i == 0 {
            if let Some(q) = self.quote_at(i) {
                return Some(self.string_or_key(i, q, open));
            }
        }
        None
    }

    /// A token a sigil starts where the language gives it a meaning (`@name`, `#[…]`, `#fff`,
    /// `$name`, `!important`); returns where it ends, or `None` for a plain byte.
    fn sigil(&mut self, i: usize) -> Option<usize> {
        let b = self.b;
        let n = b.len();
        let traits = self.lang.traits;
        match b[i] {
            b'@' if traits.has(Traits::AT_ANNOTATIONS) || traits.has(Traits::AT_KEYWORDS) => {
                let j = i + 1 + self.word_len(i + 1, true);
                if j > i + 1 {
                    let class = if traits.has(Traits::AT_KEYWORDS) {
                        KEYWORD
                    } else {
                        ATTRIBUTE
                    };
                    self.push(i..j, class);
                    return Some(j);
                }
            }
            b'#' if traits.has(Traits::HASH_ATTRIBUTES)
                && matches!(self.byte(i + 1), b'[' | b'!') =>
            {
                let j = b[i..]
                    .iter()
                    .position(|&c| c == b']')
                    .map_or(n, |k| i + k + 1);
                self.push(i..j, ATTRIBUTE);
                return Some(j);
            }
            b'#' if traits.has(Traits::HASH_COLOURS) && self.byte(i + 1).is_ascii_hexdigit() => {
                let j = i + 1 + self.word_len(i + 1, false);
                self.push(i..j, NUMBER);
                return Some(j);
            }
            b'$' if traits.has(Traits::DOLLAR_VARIABLES) => {
                let j = self.variable(i);
                if j > i + 1 {
                    self.push(i..j, ATTRIBUTE);
                    return Some(j);
                }
            }
            b'!' if traits.has(Traits::AT_KEYWORDS) && self.at(i, "!important") => {
                let j = i + "!important".len();
                self.push(i..j, KEYWORD);
                return Some(j);
            }
            _ => {}
        }
        None
    }

    /// A string at `i`, or, where the language has keys before a colon, a key written as one.
    fn string_or_key(&mut self, i: usize, quote: u8, open: &mut Open) -> usize {
        let opened = i + self.lang.quotes[usize::from(quote)].open.len();
        let (j, closed) = self.scan_quote(opened, quote);
        if !closed {
            self.push(i..j, STRING);
            *open = Open::Quote {
                quote,
                in_tag: false,
            };
            return j;
        }
        let after = j + self.b[j..].iter().take_while(|&&c| c == b' ').count();
        let key = self.lang.traits.has(Traits::KEYS_COLON) && self.byte(after) == b':';
        self.push(i..j, if key { ATTRIBUTE } else { STRING });
        j
    }

    /// A `'` in a language with lifetimes: a character literal (`'a'`, `'\n'`) or a lifetime or
    /// label (`'a`, `'outer`).
    fn tick(&mut self, i: usize) -> usize {
        let b = self.b;
        if self.byte(i + 1) == b'\\' {
            let j = b[i + 2..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(b.len(), |k| i + 2 + k + 1);
            self.push(i..j, STRING);
            return j;
        }
        let char_len = match self.byte(i + 1) {
            0 => 0,
            c if c < 0x80 => 1,
            c if c >= 0xf0 => 4,
            c if c >= 0xe0 => 3,
            _ => 2,
        };
        if char_len > 0 && self.byte(i + 1 + char_len) == b'\'' {
            let j = i + char_len + 2;
            self.push(i..j, STRING);
            return j;
        }
        let j = i + 1 + self.word_len(i + 1, false);
        self.push(i..j, if j > i + 1 { KEYWORD } else { None });
        j.max(i + 1)
    }
}
