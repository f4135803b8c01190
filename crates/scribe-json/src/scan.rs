//! A JSON line read in place, as strictly as a `Value` parse reads it, for a reader that wants a
//! few fields of a large line (a saved session's first pass over its rows).
//!
//! Through serde, every value a reader skips is still decoded: serde_json's string scan goes
//! eight bytes at a time and copies each string with escapes into its scratch buffer, and a
//! skipped value must go through `deserialize_any` to be checked as strictly as a `Value` parse
//! (`lenient::Checked`): most of that work goes to tool outputs nobody reads. Here a string is
//! skipped with `memchr2` (the next quote or backslash, many bytes at a time), an escape is
//! checked where it is, and nothing is copied unless a reader asks for a string that has escapes.
//!
//! What is checked is what a `Value` parse refuses: the grammar, escapes (a surrogate escape
//! must be a leading one followed by a trailing one), numbers that do not fit an `f64`, nesting
//! deeper than serde_json's limit of 127, anything after the value. A line with a control byte
//! anywhere (which JSON allows only as white space between tokens, and JSON Lines writers never
//! write) is left to serde ([`Scanner::new`] gives `None`), and so is every line this scanner
//! refuses: the caller reads it through serde, whose verdict and diagnostic are the reference.
//! So a scanner that refused too much would cost time, never change a result; one that accepted
//! too much would, and the tests hold it to serde_json on every kind of fault.
//!
//! [`de`] makes the scanner a serde `Deserializer` with the same rule, for the typed rows of a
//! stream's lines (`lenient::fill_from_str`).

use std::borrow::Cow;

mod de;
mod wide;

pub use de::Declined;
pub(crate) use de::{CHECKED_TOKEN, COMPACT_TOKEN, fill_object};

/// serde_json's nesting limit: 127 arrays and objects inside each other (its depth counter
/// starts at 128 and fails when it reaches 0).
const MAX_DEPTH: u32 = 127;

/// The line is not JSON as a `Value` parse reads it, or not one this scanner decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused;

/// A scanner's step.
pub type Scan<T> = Result<T, Refused>;

/// A position in a line being read.
pub struct Scanner<'a> {
    text: &'a str,
    at: usize,
    depth: u32,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `text`, or `None` when a byte below U+0020 is in it (left to
    /// serde: see the module doc).
    pub fn new(text: &'a str) -> Option<Scanner<'a>> {
        (!has_control_byte(text.as_bytes())).then_some(Scanner {
            text,
            at: 0,
            depth: 0,
        })
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte that is not a space (the only white space a line without control bytes
    /// has), without taking it.
    #[inline(always)]
    pub fn peek(&mut self) -> Option<u8> {
        match self.bytes().get(self.at) {
            Some(b' ') => self.peek_past_spaces(),
            other => other.copied(),
        }
    }

    /// [`Scanner::peek`] past spaces (JSON Lines writers write none between tokens, so this is
    /// out of the way of the common case).
    #[cold]
    fn peek_past_spaces(&mut self) -> Option<u8> {
        while self.bytes().get(self.at) == Some(&b' ') {
            self.at += 1;
        }
        self.bytes().get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> Scan<()> {
        if self.peek() == Some(b) {
            self.at += 1;
            Ok(())
        } else {
            Err(Refused)
        }
    }

    /// Nothing but white space is left.
    pub fn end(mut self) -> Scan<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Refused),
        }
    }

    fn enter(&mut self) -> Scan<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Refused);
        }
        Ok(())
    }

    /// Takes the `{` of an object (refused if the next value is not one).
    pub fn begin_object(&mut self) -> Scan<()> {
        self.eat(b'{')?;
        self.enter()
    }

    /// The object's next key, with its `:` taken, or `None` at its `}`. `first`: no key has
    /// been read yet (set by the caller to `true` after [`Scanner::begin_object`]).
    ///
    /// Keys are most of a line's strings, short and without escapes: such a key is found and
    /// lent here in one step; a key with an escape is read by [`Scanner::string`].
    pub fn key(&mut self, first: &mut bool) -> Scan<Option<Cow<'a, str>>> {
        match self.peek() {
            Some(b'}') => {
                self.at += 1;
                self.depth -= 1;
                return Ok(None);
            }
            Some(b',') if !*first => self.at += 1,
            Some(_) if *first => {}
            _ => return Err(Refused),
        }
        *first = false;
        if self.peek() != Some(b'"') {
            return Err(Refused);
        }
        let start = self.at + 1;
        let text = self.text;
        let bytes = text.as_bytes();
        let end = start + quote_or_backslash(&bytes[start..]).ok_or(Refused)?;
        let key = if bytes[end] == b'"' {
            self.at = end + 1;
            // Cut at the quotes with `split_at`, whose boundary checks are inlined (`&text[..]`
            // of a range is a call, on the path of every key).
            Cow::Borrowed(text.split_at(end).0.split_at(start).1)
        } else {
            self.string()?
        };
        if bytes.get(self.at) == Some(&b':') {
            self.at += 1;
        } else {
            self.eat(b':')?;
        }
        Ok(Some(key))
    }

    /// Takes the `[` of an array (refused if the next value is not one).
    pub fn begin_array(&mut self) -> Scan<()> {
        self.eat(b'[')?;
        self.enter()
    }

    /// Whether another element follows (the scanner is then at it), or the array's `]` was
    /// taken. `first`: as for [`Scanner::key`].
    pub fn element(&mut self, first: &mut bool) -> Scan<bool> {
        match self.peek() {
            Some(b']') => {
                self.at += 1;
                self.depth -= 1;
                Ok(false)
            }
            Some(b',') if !*first => {
                self.at += 1;
                Ok(true)
            }
            Some(_) if *first => {
                *first = false;
                Ok(true)
            }
            _ => Err(Refused),
        }
    }

    /// The next value if it is a string (its text, borrowed when it has no escapes), else the
    /// value checked and `None` (as `Value::as_str` reads it).
    pub fn str_or_skip(&mut self) -> Scan<Option<Cow<'a, str>>> {
        match self.peek() {
            Some(b'"') => self.string().map(Some),
            _ => self.skip().map(|()| None),
        }
    }

    /// The next value if it is a boolean, else the value checked and `None`.
    pub fn bool_or_skip(&mut self) -> Scan<Option<bool>> {
        match self.peek() {
            Some(b't') => self.literal("true").map(|()| Some(true)),
            Some(b'f') => self.literal("false").map(|()| Some(false)),
            _ => self.skip().map(|()| None),
        }
    }

    /// The next value, which must be a string: its text, borrowed when it has no escapes.
    ///
    /// A string with escapes is checked and decoded in the same walk, a block at a time
    /// ([`wide::decode`]): its text is copied up to each escape as the escape is found. Finding
    /// its end first ([`Scanner::raw_string`]) and decoding it after would be two walks over
    /// every escape-dense tool output.
    pub fn string(&mut self) -> Scan<Cow<'a, str>> {
        let start = match self.plain_or_first_escape()? {
            Ok(plain) => return Ok(Cow::Borrowed(plain)),
            Err(start) => start,
        };
        let mut out = String::with_capacity(2 * (self.at - start) + 64);
        out.push_str(&self.text[start..self.at]);
        let end = wide::decode(self.text, self.at, &mut out).ok_or(Refused)?;
        self.at = end + 1;
        Ok(Cow::Owned(out))
    }

    /// The next value, which must be a string: its text as written between the quotes, checked,
    /// and whether it has escapes.
    ///
    /// A string is looked at up to its first quote or backslash; past a backslash, the rest of
    /// an escape-dense text is read a block at a time ([`wide`]), and only one with a fault is
    /// stepped through escape by escape (which decides it).
    pub fn raw_string(&mut self) -> Scan<(&'a str, bool)> {
        let start = match self.plain_or_first_escape()? {
            Ok(plain) => return Ok((plain, false)),
            Err(start) => start,
        };
        let bytes = self.bytes();
        if let Some(n) = wide::string_end(&bytes[self.at..]) {
            let end = self.at + n;
            self.at = end + 1;
            return Ok((&self.text[start..end], true));
        }
        let mut escaped = false;
        loop {
            let Some(n) = quote_or_backslash(&bytes[self.at..]) else {
                return Err(Refused);
            };
            self.at += n;
            if bytes[self.at] == b'"' {
                let raw = &self.text[start..self.at];
                self.at += 1;
                return Ok((raw, escaped));
            }
            escaped = true;
            self.at = escape_end(bytes, self.at).ok_or(Refused)?;
        }
    }

    /// The next value, which must be a string: its text as written between the quotes, each of
    /// its escapes the writer writes otherwise (`\/`, `\u`, and any the walk refuses) handed
    /// to `escape` in the walk that checks it, as [`wide::walk_escapes`] hands them (`escape`
    /// gets the text from the string's start to the line's end and where in it the escape's
    /// backslash is, and says where the escape ends, or `None` to refuse it). For a reader
    /// that rewrites those escapes as it goes ([`crate::compact`]).
    pub(crate) fn string_escapes(
        &mut self,
        mut escape: impl FnMut(&'a str, usize) -> Option<usize>,
    ) -> Scan<&'a str> {
        let start = match self.plain_or_first_escape()? {
            Ok(plain) => return Ok(plain),
            Err(start) => start,
        };
        let rest = &self.text[start..];
        let end = wide::walk_escapes(
            rest.as_bytes(),
            self.at - start,
            &wide::WRITTEN,
            |backslash| escape(rest, backslash),
        )
        .ok_or(Refused)?;
        self.at = start + end + 1;
        Ok(&rest[..end])
    }

    /// Takes a string's opening quote and looks up to its first quote or backslash: its text
    /// when it has no escapes (its closing quote taken too), else `Err` with where its text
    /// starts, the scanner at its first backslash. Always inlined: it is on the path of every
    /// string, and a call costs more than its common case.
    #[inline(always)]
    fn plain_or_first_escape(&mut self) -> Scan<Result<&'a str, usize>> {
        self.eat(b'"')?;
        let bytes = self.bytes();
        let start = self.at;
        self.at += quote_or_backslash(&bytes[start..]).ok_or(Refused)?;
        if bytes[self.at] == b'"' {
            self.at += 1;
            return Ok(Ok(&self.text[start..self.at - 1]));
        }
        Ok(Err(start))
    }

    fn literal(&mut self, word: &str) -> Scan<()> {
        match self.bytes()[self.at..].starts_with(word.as_bytes()) {
            true => {
                self.at += word.len();
                Ok(())
            }
            false => Err(Refused),
        }
    }

    /// Checks the next value, whatever it is, and steps over it: its text as written (for a
    /// reader that copies what it does not change).
    pub fn raw_value(&mut self) -> Scan<&'a str> {
        self.peek();
        let start = self.at;
        self.skip()?;
        Ok(&self.text[start..self.at])
    }

    /// Checks the next value, whatever it is, and steps over it.
    pub fn skip(&mut self) -> Scan<()> {
        match self.peek() {
            Some(b'"') => self.raw_string().map(drop),
            Some(b'{') => {
                self.begin_object()?;
                let mut first = true;
                while self.key(&mut first)?.is_some() {
                    self.skip()?;
                }
                Ok(())
            }
            Some(b'[') => {
                self.begin_array()?;
                let mut first = true;
                while self.element(&mut first)? {
                    self.skip()?;
                }
                Ok(())
            }
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(Refused),
        }
    }

    /// A number: its grammar here, its range (an `f64` that is not infinite) from serde_json
    /// when it has an exponent or many digits, the only numbers that can be out of range.
    fn number(&mut self) -> Scan<()> {
        let bytes = self.bytes();
        let start = self.at;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > from
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'0') => {
                i += 1;
                if bytes.get(i).is_some_and(u8::is_ascii_digit) {
                    return Err(Refused);
                }
            }
            Some(b'1'..=b'9') => {
                digits(&mut i);
            }
            _ => return Err(Refused),
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            if !digits(&mut i) {
                return Err(Refused);
            }
        }
        let mut exponent = false;
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            exponent = true;
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digits(&mut i) {
                return Err(Refused);
            }
        }
        self.at = i;
        let token = &self.text[start..i];
        if (exponent || token.len() > 20)
            && serde_json::from_str::<serde_json::Value>(token).is_err()
        {
            return Err(Refused);
        }
        Ok(())
    }
}

/// Where the first `"` or `\\` in `bytes` is. Most strings are short (keys, ids, names), and
/// `memchr2`'s set-up costs more than their scan: the
/// first [`BLOCKED_BYTES`] are looked at a block at a time ([`first_hit`]), the rest by `memchr2`.
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < BLOCKED_BYTES {
        let Some(block) = bytes[i..].first_chunk::<BLOCK>() else {
            return (bytes[i..].iter().position(|&b| b == b'"' || b == b'\\')).map(|n| i + n);
        };
        if let Some(n) = first_hit(block) {
            return Some(i + n);
        }
        i += BLOCK;
    }
    memchr::memchr2(b'"', b'\\', &bytes[i..]).map(|n| i + n)
}

/// The bytes [`first_hit`] looks at in one step.
#[cfg(target_arch = "x86_64")]
const BLOCK: usize = 16;
/// The bytes [`first_hit`] looks at in one step.
#[cfg(not(target_arch = "x86_64"))]
const BLOCK: usize = 8;

/// Where the first `"` or `\\` of `block` is: SSE2's byte compares, which every x86-64 has.
#[cfg(target_arch = "x86_64")]
fn first_hit(block: &[u8; BLOCK]) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is in x86-64's baseline, so its intrinsics can run on any x86-64; the load
    // reads the 16 bytes of `block`, a reference to 16 bytes, and needs no alignment (`loadu`).
    let found = unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(quote, backslash))
    };
    (found != 0).then(|| found.trailing_zeros() as usize)
}

/// Where the first `"` or `\\` of `block` is: eight bytes at a time in a register.
#[cfg(not(target_arch = "x86_64"))]
fn first_hit(block: &[u8; BLOCK]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let x = u64::from_le_bytes(*block);
    let quote = x ^ (ONES * u64::from(b'"'));
    let backslash = x ^ (ONES * u64::from(b'\\'));
    // A byte of `quote` or `backslash` is zero where `x` has the byte looked for; the lowest
    // such byte's high bit is set exactly (a borrow can only mark bytes above it).
    let found =
        (quote.wrapping_sub(ONES) & !quote | backslash.wrapping_sub(ONES) & !backslash) & HIGHS;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// Bytes of a string [`quote_or_backslash`] looks at itself before `memchr2` takes over.
const BLOCKED_BYTES: usize = 32;

/// Whether a byte below U+0020 is anywhere in `bytes` (a tab, a carriage return, a raw control
/// character), checked a block at a time.
fn has_control_byte(bytes: &[u8]) -> bool {
    bytes
        .chunks(64)
        .any(|block| block.iter().fold(false, |any, &b| any | (b < 0x20)))
}

/// Where the escape at `at` (a backslash) ends, or `None` when it is not one a `Value` parse
/// takes: an unknown escape, a short `\u`, a trailing surrogate alone, or a leading one not
/// followed by a trailing one.
pub(crate) fn escape_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(at + 2),
        b'u' => unicode_escape(bytes, at).map(|(_, end)| end),
        _ => None,
    }
}

/// The character of the `\u` escape at `at` (a backslash, then `u`) and where it ends (past the
/// trailing half of a surrogate pair), or `None` when [`escape_end`] refuses it.
pub(crate) fn unicode_escape(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    if bytes.get(at + 1) != Some(&b'u') {
        return None;
    }
    let n = hex4(bytes, at + 2)?;
    match n {
        0xDC00..=0xDFFF => None,
        0xD800..=0xDBFF => {
            if bytes.get(at + 6..at + 8)? != b"\\u" {
                return None;
            }
            let low = hex4(bytes, at + 8)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            let c = char::from_u32(0x1_0000 + ((n - 0xD800) << 10 | (low - 0xDC00)))?;
            Some((c, at + 12))
        }
        _ => Some((char::from_u32(n)?, at + 6)),
    }
}

/// The four hex digits at `at`, as a number: looked up in [`HEX`], one test for all four.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let [a, b, c, d] = [0, 1, 2, 3].map(|i| u32::from(HEX[digits[i] as usize]));
    ((a | b | c | d) < 16).then_some(a << 12 | b << 8 | c << 4 | d)
}

/// Each byte's value as a hex digit, or 0xFF when it is not one.
static HEX: [u8; 256] = {
    let mut t = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The characters of a string checked by [`Scanner::raw_string`], its escapes decoded one at a
/// time (for a reader that wants how a long text begins, not all of it).
pub struct Chars<'a> {
    raw: &'a str,
    at: usize,
}

impl<'a> Chars<'a> {
    /// The characters of `raw`, a string's text as written between its quotes.
    pub fn new(raw: &'a str) -> Chars<'a> {
        Chars { raw, at: 0 }
    }
}

impl Iterator for Chars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let bytes = self.raw.as_bytes();
        match bytes.get(self.at)? {
            b'\\' => {
                let (c, end) = decode_escape(bytes, self.at);
                self.at = end.min(self.raw.len());
                Some(c)
            }
            _ => {
                let c = self.raw[self.at..].chars().next()?;
                self.at += c.len_utf8();
                Some(c)
            }
        }
    }
}

/// The character an escape checked by [`escape_end`] stands for, and where it ends.
pub(crate) fn decode_escape(bytes: &[u8], at: usize) -> (char, usize) {
    match bytes.get(at + 1) {
        Some(b'b') => ('\u{8}', at + 2),
        Some(b'f') => ('\u{c}', at + 2),
        Some(b'n') => ('\n', at + 2),
        Some(b'r') => ('\r', at + 2),
        Some(b't') => ('\t', at + 2),
        Some(b'u') => {
            let n = hex4(bytes, at + 2).unwrap_or(0xFFFD);
            match n {
                0xD800..=0xDBFF => {
                    let low = hex4(bytes, at + 8).unwrap_or(0xDC00);
                    let c = 0x1_0000 + ((n - 0xD800) << 10 | (low.saturating_sub(0xDC00) & 0x3FF));
                    (char::from_u32(c).unwrap_or('\u{FFFD}'), at + 12)
                }
                _ => (char::from_u32(n).unwrap_or('\u{FFFD}'), at + 6),
            }
        }
        // `"`, `\`, `/`: the character itself.
        Some(&b) => (char::from(b), at + 2),
        None => ('\u{FFFD}', at + 1),
    }
}

#[cfg(test)]
mod tests;
