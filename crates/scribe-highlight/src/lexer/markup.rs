//! Markup and Markdown lines: tags, their attributes and entities between text (HTML, XML),
//! headings, fences and code spans (Markdown). The rest of a markup page (comments, quoted
//! attribute values) is read by the code lexer's own steps.

use super::{ATTRIBUTE, COMMENT, KEYWORD, Lexer, NUMBER, Open, STRING, TYPE, is_word, starts_word};

impl Lexer<'_, '_> {
    /// Text between a markup page's tags, from `i`: up to a tag, a comment or an entity.
    pub(super) fn markup_text(&mut self, i: usize, open: &mut Open) -> usize {
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
    pub(super) fn tag(&mut self, i: usize, open: &mut Open) -> usize {
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
    pub(super) fn markdown(&mut self, open: &mut Open) {
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
