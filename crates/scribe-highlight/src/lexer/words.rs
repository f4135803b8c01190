//! Numbers, words (keywords, calls, types), YAML keys and shell variables: the pieces of a
//! line that a byte table and the language's word lists decide.

use super::{
    ATTRIBUTE, FUNCTION, KEYWORD, Lexer, NUMBER, Next, Open, STRING, TYPE, is_word, starts_word,
};
use crate::language::{Kind, Traits};

impl Lexer<'_, '_> {
    /// The end of a number at `i`: digits, letters (`0x1f`, `10u8`, `12px`), `_`, one decimal
    /// point before a digit and an exponent's sign.
    pub(super) fn number(&self, i: usize) -> usize {
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
    pub(super) fn word_len(&self, i: usize, dashes: bool) -> usize {
        let b = self.b;
        let dashes = dashes || self.lang.traits.has(Traits::DASHED_WORDS);
        let mut j = i;
        while j < b.len() {
            // The word's plain bytes in one run, then the one byte that may go on with it.
            j += b[j..].iter().take_while(|&&c| is_word(c)).count();
            if j >= b.len() {
                break;
            }
            if dashes && b[j] == b'-' && j > i && is_word(self.byte(j + 1)) {
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
    pub(super) fn word(&mut self, i: usize, open: &mut Open) -> usize {
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
        let kind = self.words.kind(word);
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
    pub(super) fn yaml_key(&self, i: usize) -> Option<usize> {
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
    pub(super) fn variable(&self, i: usize) -> usize {
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
}
