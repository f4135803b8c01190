//! The lexer: one line at a time, a language's tokens into the page's seven classes.
//!
//! It knows what a language's comments, strings, numbers and words look like (a [`Language`]),
//! not its grammar: a keyword is a keyword wherever it stands, a word before `(` is a call, a
//! capitalised word is a type where the language says so. That is what the seven classes need,
//! and it runs in one pass over the bytes with no backtracking, in a fortieth of the
//! instructions of the grammar-driven highlighter it replaced (issue 14). What carries from one line to the next (an
//! open comment, string, tag or fence) is one small [`Open`] value, so two sides of a diff are
//! "in step" when two of them are equal.
//!
//! Every piece ends at an ASCII byte or at the end of the line, so every range is on a
//! character boundary.

use std::ops::Range;

use super::languages::{Kind, Language, Quote, Traits};

/// One piece of a line and its class, if any.
pub(crate) type Segment = (Range<usize>, Option<&'static str>);

/// A comment.
const COMMENT: Option<&str> = Some("h-c");
/// A string or character literal.
const STRING: Option<&str> = Some("h-s");
/// A number or a language constant (`true`, `None`).
const NUMBER: Option<&str> = Some("h-n");
/// A keyword.
const KEYWORD: Option<&str> = Some("h-k");
/// A function's name, where it is defined or called.
const FUNCTION: Option<&str> = Some("h-f");
/// A type, a class or a markup tag.
const TYPE: Option<&str> = Some("h-t");
/// An attribute, a decorator, a key or a variable.
const ATTRIBUTE: Option<&str> = Some("h-a");

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
pub(crate) fn line(lang: &Language, open: &mut Open, line: &str, out: &mut Vec<Segment>) {
    let b = line.as_bytes();
    let indent = b.len() - b.trim_ascii_start().len();
    let after_dash = (b.get(indent) == Some(&b'-'))
        .then(|| indent + 1 + b[indent + 1..].len() - b[indent + 1..].trim_ascii_start().len());
    let mut lexer = Lexer {
        lang,
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

/// One line being cut into pieces.
struct Lexer<'a, 'o> {
    lang: &'a Language,
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
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// True for a byte that starts a word.
fn starts_word(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

impl Lexer<'_, '_> {
    /// Appends a piece, merged into the last one when it has the same class and touches it.
    fn push(&mut self, r: Range<usize>, class: Option<&'static str>) {
        if r.is_empty() {
            return;
        }
        match self.out.last_mut() {
            Some((last, c)) if *c == class && last.end == r.start => last.end = r.end,
            _ => self.out.push((r, class)),
        }
    }

    /// True when `text` is at `i`.
    fn at(&self, i: usize, text: &str) -> bool {
        self.b[i..].starts_with(text.as_bytes())
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
        for t in self.lang.line_comments {
            // A `#` starts a comment only where a word cannot go on (`a#b`, `${#x}` in shell).
            if self.at(i, t) && (t != &"#" || matches!(prev, b' ' | b'\t' | b';' | b'(' | b')')) {
                self.push(i..n, COMMENT);
                return n;
            }
        }
        if let Some((start, _)) = self.lang.block_comment {
            if self.at(i, start) {
                let j = i + start.len();
                self.push(i..j, COMMENT);
                *open = Open::Comment(1);
                return j;
            }
        }
        if !is_word(prev) || i == 0 {
            if let Some(q) = self.quote_at(i) {
                return self.string_or_key(i, q, open);
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
        match c {
            b'@' if traits.has(Traits::AT_ANNOTATIONS) || traits.has(Traits::AT_KEYWORDS) => {
                let j = i + 1 + self.word_len(i + 1, true);
                if j > i + 1 {
                    let class = if traits.has(Traits::AT_KEYWORDS) {
                        KEYWORD
                    } else {
                        ATTRIBUTE
                    };
                    self.push(i..j, class);
                    return j;
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
                return j;
            }
            b'#' if traits.has(Traits::HASH_COLOURS) && self.byte(i + 1).is_ascii_hexdigit() => {
                let j = i + 1 + self.word_len(i + 1, false);
                self.push(i..j, NUMBER);
                return j;
            }
            b'$' if traits.has(Traits::DOLLAR_VARIABLES) => {
                let j = self.variable(i);
                if j > i + 1 {
                    self.push(i..j, ATTRIBUTE);
                    return j;
                }
            }
            b'!' if traits.has(Traits::AT_KEYWORDS) && self.at(i, "!important") => {
                let j = i + "!important".len();
                self.push(i..j, KEYWORD);
                return j;
            }
            _ => {}
        }
        self.next = Next::Anything;
        self.push(i..i + 1, None);
        i + 1
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

    /// The end of a number at `i`: digits, letters (`0x1f`, `10u8`, `12px`), `_`, one decimal
    /// point before a digit and an exponent's sign.
    fn number(&self, i: usize) -> usize {
        let b = self.b;
        let hex = b[i..].starts_with(b"0x") || b[i..].starts_with(b"0X");
        let mut j = i;
        let mut dot = false;
        while j < b.len() {
            let d = b[j];
            if d.is_ascii_alphanumeric() || d == b'_' {
                j += 1;
                if !hex && matches!(d, b'e' | b'E') && matches!(self.byte(j), b'+' | b'-') {
                    j += 1;
                }
            } else if d == b'.' && !dot && self.byte(j + 1).is_ascii_digit() {
                dot = true;
                j += 1;
            } else if d == b'%' && self.lang.traits.has(Traits::HASH_COLOURS) {
                j += 1;
                break;
            } else {
                break;
            }
        }
        j.min(b.len())
    }

    /// The length of the word at `i` (with `-` inside it where `dashes` or the language says).
    fn word_len(&self, i: usize, dashes: bool) -> usize {
        let b = self.b;
        let dashes = dashes || self.lang.traits.has(Traits::DASHED_WORDS);
        let mut j = i;
        while j < b.len() {
            if is_word(b[j]) || (dashes && b[j] == b'-' && j > i && is_word(self.byte(j + 1))) {
                j += 1;
            } else if b[j] == b'.' && self.lang.traits.has(Traits::AT_ANNOTATIONS) && j > i {
                // `@app.route`: a decorator's dotted name.
                if b[i.saturating_sub(1)] != b'@' || !starts_word(self.byte(j + 1)) {
                    break;
                }
                j += 1;
            } else {
                break;
            }
        }
        j - i
    }

    /// A word at `i`: a string's prefix, a keyword, a constant, a type, a name after a keyword
    /// that defines one, a key, a call, or a plain name.
    fn word(&mut self, i: usize, open: &mut Open) -> usize {
        let lang = self.lang;
        let traits = lang.traits;
        let j = i + self.word_len(i, false);
        let word = &self.b[i..j];
        // `r"…"`, `b'…'`, `f"…"`: the prefix belongs to the string.
        if word.len() <= 2
            && word
                .iter()
                .all(|c| lang.string_prefixes.as_bytes().contains(c))
        {
            if let Some(q) = self.quote_at(j) {
                self.push(i..j, STRING);
                return self.string_or_key(j, q, open);
            }
        }
        if traits.has(Traits::KEYS_COLON) && self.starts_line(i, true) {
            if let Some(k) = self.yaml_key(i) {
                self.next = Next::Anything;
                self.push(i..k, ATTRIBUTE);
                return k;
            }
        }
        let next = self.next;
        self.next = Next::Anything;
        let kind = lang.kind(word);
        let class =
            if let Some(k @ (Kind::Keyword | Kind::DefinesFunction | Kind::DefinesType)) = kind {
                self.next = match k {
                    Kind::DefinesFunction => Next::Function,
                    Kind::DefinesType => Next::Type,
                    Kind::Keyword | Kind::Constant | Kind::Type => Next::Anything,
                };
                KEYWORD
            } else if kind == Some(Kind::Constant) {
                NUMBER
            } else if next == Next::Function {
                FUNCTION
            } else if next == Next::Type || kind == Some(Kind::Type) {
                TYPE
            } else if traits.has(Traits::KEYS_EQUALS) && self.starts_line(i, false) && {
                let after = j + self.b[j..].iter().take_while(|&&c| c == b' ').count();
                self.byte(after) == b'='
            } {
                ATTRIBUTE
            } else if traits.has(Traits::CALLS) && self.byte(j) == b'(' {
                FUNCTION
            } else if traits.has(Traits::CALLS)
                && self.byte(j) == b'!'
                && matches!(self.byte(j + 1), b'(' | b'[' | b'{')
            {
                // A Rust macro, with its `!`.
                self.push(i..j + 1, FUNCTION);
                return j + 1;
            } else if traits.has(Traits::CAPITALISED_TYPES)
                && word[0].is_ascii_uppercase()
                && word.iter().any(u8::is_ascii_lowercase)
            {
                TYPE
            } else {
                None
            };
        self.push(i..j, class);
        j
    }

    /// The end of a YAML-style key at `i` (`name:`, `- name:` with a space or the line's end
    /// after the colon), if one is there.
    fn yaml_key(&self, i: usize) -> Option<usize> {
        let b = self.b;
        let mut j = i;
        while j < b.len() {
            match b[j] {
                b':' if matches!(self.byte(j + 1), 0 | b' ' | b'\t') => {
                    return (j > i).then_some(j);
                }
                b'#' | b'"' | b'\'' | b'{' | b'[' | b',' => return None,
                b' ' if matches!(self.byte(j + 1), b' ' | b'#') => return None,
                _ => j += 1,
            }
        }
        None
    }

    /// The end of a variable at `i` (`$name`, `${name}`, `$(name)`, `$1`, `$@`).
    fn variable(&self, i: usize) -> usize {
        let b = self.b;
        match self.byte(i + 1) {
            open @ (b'{' | b'(') => {
                let close = if open == b'{' { b'}' } else { b')' };
                b[i + 2..]
                    .iter()
                    .position(|&c| c == close)
                    .map_or(b.len(), |k| i + 2 + k + 1)
            }
            c if starts_word(c) => i + 1 + self.word_len(i + 1, false),
            c if c.is_ascii_digit() || matches!(c, b'@' | b'*' | b'#' | b'?' | b'$' | b'!') => {
                i + 2
            }
            _ => i + 1,
        }
    }

    /// Text between a markup page's tags, from `i`: up to a tag, a comment or an entity.
    fn markup_text(&mut self, i: usize, open: &mut Open) -> usize {
        let b = self.b;
        if let Some((start, _)) = self.lang.block_comment {
            if self.at(i, start) {
                let j = i + start.len();
                self.push(i..j, COMMENT);
                *open = Open::Comment(1);
                return j;
            }
        }
        match b[i] {
            b'<' if matches!(self.byte(i + 1), b'/' | b'!' | b'?')
                || starts_word(self.byte(i + 1)) =>
            {
                let name = i + 1 + usize::from(matches!(self.byte(i + 1), b'/' | b'!' | b'?'));
                self.push(i..name, None);
                let j = name + self.word_len_markup(name);
                self.push(name..j, TYPE);
                *open = Open::Tag;
                j
            }
            b'&' => {
                let len = b[i + 1..]
                    .iter()
                    .take(32)
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'#')
                    .count();
                if len > 0 && self.byte(i + 1 + len) == b';' {
                    self.push(i..i + len + 2, NUMBER);
                    i + len + 2
                } else {
                    self.push(i..i + 1, None);
                    i + 1
                }
            }
            _ => {
                let j = i
                    + 1
                    + b[i + 1..]
                        .iter()
                        .take_while(|&&c| c != b'<' && c != b'&')
                        .count();
                self.push(i..j, None);
                j
            }
        }
    }

    /// The length of a tag's or an attribute's name at `i` (`svg:rect`, `data-id`, `v-on.x`).
    fn word_len_markup(&self, i: usize) -> usize {
        self.b[i..]
            .iter()
            .take_while(|&&c| is_word(c) || matches!(c, b'-' | b':' | b'.' | b'@'))
            .count()
    }

    /// Inside a markup tag from `i`: attribute names, values, up to the closing `>`.
    fn tag(&mut self, i: usize, open: &mut Open) -> usize {
        let c = self.b[i];
        if c == b'>' {
            self.push(i..i + 1, None);
            *open = Open::Code;
            return i + 1;
        }
        if c == b'/' && self.byte(i + 1) == b'>' {
            self.push(i..i + 2, None);
            *open = Open::Code;
            return i + 2;
        }
        if let Some(q) = self.quote_at(i) {
            return self.open_quote(i, q, true, open);
        }
        let len = self.word_len_markup(i);
        if len > 0 {
            self.push(i..i + len, ATTRIBUTE);
            return i + len;
        }
        self.push(i..i + 1, None);
        i + 1
    }

    /// A line of Markdown: a heading, a fence, or text with `code` spans.
    fn markdown(&mut self, open: &mut Open) {
        let b = self.b;
        let n = b.len();
        let trimmed = b.trim_ascii_start();
        if trimmed.starts_with(b"```") || trimmed.starts_with(b"~~~") {
            *open = if *open == Open::Fence {
                Open::Code
            } else {
                Open::Fence
            };
            self.push(0..n, None);
            return;
        }
        if *open == Open::Fence {
            self.push(0..n, None);
            return;
        }
        let hashes = trimmed.iter().take_while(|&&c| c == b'#').count();
        if (1..=6).contains(&hashes) && matches!(trimmed.get(hashes), None | Some(b' ')) {
            self.push(0..n, KEYWORD);
            return;
        }
        let mut i = 0;
        while i < n {
            let j = i + b[i..].iter().take_while(|&&c| c != b'`').count();
            self.push(i..j, None);
            if j >= n {
                break;
            }
            let ticks = b[j..].iter().take_while(|&&c| c == b'`').count();
            let fence = &b[j..j + ticks];
            let end = b[j + ticks..]
                .windows(ticks)
                .position(|w| w == fence)
                .map(|k| j + ticks + k + ticks);
            match end {
                Some(e) => {
                    self.push(j..e, STRING);
                    i = e;
                }
                None => {
                    self.push(j..j + ticks, None);
                    i = j + ticks;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::languages;
    use super::*;

    /// The classed pieces of `code`'s lines in `lang`, as `class:text` (plain text left out).
    fn classes(lang: &str, code: &str) -> Vec<String> {
        let index = languages::index();
        let lang = languages::find(&index, lang).expect("a language");
        let mut open = Open::Code;
        let mut out = Vec::new();
        for l in code.split('\n') {
            let mut segs = Vec::new();
            line(lang, &mut open, l, &mut segs);
            let mut at = 0;
            for (r, class) in segs {
                assert_eq!(r.start, at, "{l:?}: pieces leave a gap");
                at = r.end;
                if let Some(c) = class {
                    out.push(format!("{}:{}", &c[2..], &l[r]));
                }
            }
            assert_eq!(at, l.len(), "{l:?}: pieces do not reach the end");
        }
        out
    }

    #[test]
    fn rust() {
        assert_eq!(
            classes(
                "rust",
                "#[derive(Debug)]\npub fn f<'a>(x: &'a str) -> Vec<u8> { let c = 'x'; vec![1, 0x1f] } // end\n/* a /* nested */ still\n*/ struct Point; r#\"raw \"q\"\"#"
            ),
            [
                "a:#[derive(Debug)]",
                "k:pub",
                "k:fn",
                "f:f",
                "k:'a",
                "k:'a",
                "t:str",
                "t:Vec",
                "t:u8",
                "k:let",
                "s:'x'",
                "f:vec!",
                "n:1",
                "n:0x1f",
                "c:// end",
                "c:/* a /* nested */ still",
                "c:*/",
                "k:struct",
                "t:Point",
                "s:r#\"raw \"q\"\"#",
            ]
        );
    }

    #[test]
    fn python() {
        assert_eq!(
            classes(
                "py",
                "@app.route('/x')\ndef go(self, n=1.5e-3):\n    \"\"\"Doc\n    more\"\"\"\n    return f'{n}' if n else None  # why\nclass Box(Base): pass"
            ),
            [
                "a:@app.route",
                "s:'/x'",
                "k:def",
                "f:go",
                "n:self",
                "n:1.5e-3",
                "s:\"\"\"Doc",
                "s:    more\"\"\"",
                "k:return",
                "s:f'{n}'",
                "k:if",
                "k:else",
                "n:None",
                "c:# why",
                "k:class",
                "t:Box",
                "t:Base",
                "k:pass",
            ]
        );
    }

    #[test]
    fn javascript_template_literals_span_lines() {
        assert_eq!(
            classes(
                "ts",
                "const s = `a\nb`; interface Props { x: number }\nfoo(null)"
            ),
            [
                "k:const",
                "s:`a",
                "s:b`",
                "k:interface",
                "t:Props",
                "t:number",
                "f:foo",
                "n:null",
            ]
        );
    }

    #[test]
    fn shell_comments_variables_and_apostrophes() {
        assert_eq!(
            classes(
                "sh",
                "if [ -n \"$HOME\" ]; then echo ${#x} $1 # note\nfi\necho don't"
            ),
            [
                "k:if",
                "s:\"$HOME\"",
                "k:then",
                "k:echo",
                "a:${#x}",
                "a:$1",
                "c:# note",
                "k:fi",
                "k:echo",
            ]
        );
    }

    #[test]
    fn data_formats_mark_keys() {
        assert_eq!(
            classes("json", "{\"name\": \"x\", \"n\": -1.5, \"ok\": true}"),
            [
                "a:\"name\"",
                "s:\"x\"",
                "a:\"n\"",
                "n:1.5",
                "a:\"ok\"",
                "n:true"
            ]
        );
        // A key right after a string is a piece of its own, never laid over the string.
        assert_eq!(
            classes("json", "[\"a\"\"b\": 1]"),
            ["s:\"a\"", "a:\"b\"", "n:1"]
        );
        assert_eq!(
            classes(
                "yaml",
                "# top\nname: demo\n- run: cargo test # ci\n  on: yes\nurl: http://x"
            ),
            [
                "c:# top", "a:name", "a:run", "c:# ci", "a:on", "n:yes", "a:url",
            ]
        );
        assert_eq!(
            classes(
                "toml",
                "[package]\nname = \"scribe\" # it\nedition = 2024\ntext = '''\nraw\n'''"
            ),
            [
                "t:[package]",
                "a:name",
                "s:\"scribe\"",
                "c:# it",
                "a:edition",
                "n:2024",
                "a:text",
                "s:'''",
                "s:raw",
                "s:'''",
            ]
        );
    }

    #[test]
    fn markup_tags_attributes_and_comments() {
        assert_eq!(
            classes(
                "html",
                "<!-- a\nb --><a href=\"x\"\n  class='y'>T &amp; U</a>"
            ),
            [
                "c:<!-- a", "c:b -->", "t:a", "a:href", "s:\"x\"", "a:class", "s:'y'", "n:&amp;",
                "t:a",
            ]
        );
    }

    #[test]
    fn markdown_headings_code_and_fences() {
        assert_eq!(
            classes(
                "md",
                "# Title\nUse `cargo` now.\n```sh\n# not a heading\n```"
            ),
            ["k:# Title", "s:`cargo`"]
        );
    }

    #[test]
    fn css_and_sql() {
        assert_eq!(
            classes(
                "css",
                "@media screen {\n  a:hover {\n    color: #fff !important;\n    width: calc(50% - 2px) }\n}"
            ),
            [
                "k:@media",
                "a:color",
                "n:#fff",
                "k:!important",
                "a:width",
                "f:calc",
                "n:50%",
                "n:2px",
            ]
        );
        assert_eq!(
            classes("sql", "SELECT id, count(*) FROM t WHERE x = 'it''s' -- c"),
            [
                "k:SELECT",
                "f:count",
                "k:FROM",
                "k:WHERE",
                "s:'it''s'",
                "c:-- c"
            ]
        );
    }

    #[test]
    fn c_preprocessor_and_unicode_stay_whole() {
        assert_eq!(
            classes(
                "c",
                "#include <stdio.h>\nint main(void) { printf(\"é→%d\", 1); }"
            ),
            [
                "k:#include",
                "t:int",
                "f:main",
                "t:void",
                "f:printf",
                "s:\"é→%d\"",
                "n:1"
            ]
        );
        // Non-ASCII text outside strings is kept whole and on character boundaries.
        assert_eq!(
            classes("rust", "let é = \"ü\"; // ✓"),
            ["k:let", "s:\"ü\"", "c:// ✓"]
        );
    }

    #[test]
    fn every_piece_is_on_a_character_boundary_for_any_input() {
        let index = languages::index();
        let samples = [
            "a\\é\"b'c`d/*e*/f#g$h@i<j>k&l;m'",
            "\"a\"\"b\": f\"c\"'d': x",
            "\"\\é",
            "'\\",
            "'é",
            "<a b='é",
            "${é",
            "# é",
            "`é",
            "[é",
            "#[é",
            "0xé1e+é",
        ];
        for lang in languages::LANGUAGES {
            for s in samples {
                let mut open = Open::Code;
                for _ in 0..2 {
                    let mut segs = Vec::new();
                    line(lang, &mut open, s, &mut segs);
                    let mut at = 0;
                    for (r, _) in &segs {
                        assert!(s.get(r.clone()).is_some(), "{}: {s:?} {r:?}", lang.name);
                        assert_eq!(r.start, at, "{}: {s:?}: a gap or an overlap", lang.name);
                        at = r.end;
                    }
                    assert_eq!(
                        segs.last().map(|(r, _)| r.end),
                        Some(s.len()),
                        "{}",
                        lang.name
                    );
                }
            }
        }
        assert!(languages::find(&index, "rs").is_some());
    }

    /// Text made of the pieces that open and close things, the quotes and the colon most often,
    /// so that they meet (`"a""b":`, `/* "`, `<a b='`).
    fn fragments() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            4 => Just("\""),
            3 => Just("'"),
            3 => Just(":"),
            2 => Just(" "),
            2 => Just("a"),
            1 => Just("`"),
            1 => Just("#"),
            1 => Just("$"),
            1 => Just("@"),
            1 => Just("<"),
            1 => Just(">"),
            1 => Just("&"),
            1 => Just("="),
            1 => Just("/*"),
            1 => Just("*/"),
            1 => Just("\\"),
            1 => Just("["),
            1 => Just("]"),
            1 => Just("{"),
            1 => Just("-"),
            1 => Just("1"),
            1 => Just("Z"),
            1 => Just("é"),
            1 => Just("\n"),
        ];
        proptest::collection::vec(piece, 0..48).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// Any text, in every language, line after line: the pieces of each line follow one
        /// another with no gap or overlap, on character boundaries, to the line's end.
        #[test]
        fn pieces_tile_every_line_of_any_text(text in fragments()) {
            for lang in languages::LANGUAGES {
                let mut open = Open::Code;
                for l in text.split('\n') {
                    let mut segs = Vec::new();
                    line(lang, &mut open, l, &mut segs);
                    let mut at = 0;
                    for (r, _) in &segs {
                        proptest::prop_assert_eq!(r.start, at, "{}: {:?}", lang.name, l);
                        proptest::prop_assert!(l.get(r.clone()).is_some(), "{}: {:?}", lang.name, l);
                        at = r.end;
                    }
                    proptest::prop_assert_eq!(at, l.len(), "{}: {:?}", lang.name, l);
                }
            }
        }
    }
}
