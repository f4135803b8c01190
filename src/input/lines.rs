//! Bytes to numbered lines, tolerant of everything real files contain.
//!
//! Reads up to each `\n` (as `read_until` does), so a line may be of any length (a saved session holds lines of
//! several megabytes). Strips a UTF-8 byte-order mark at the start of the input and a CR before
//! the LF. Decodes invalid UTF-8 lossily and says so, and marks a last line that has no newline,
//! so that a cut-off stream can be reported without losing the lines before it.

use std::io::{self, BufRead};

/// `InputLine::offset` of a line that is not in the input as such (a value taken out of a JSON
/// document).
pub(crate) const NOT_IN_FILE: u64 = u64::MAX;

/// One line of input, decoded.
#[derive(Debug)]
pub(crate) struct InputLine {
    /// 1-based line number in its file.
    pub(crate) number: u64,
    /// Byte offset of the line's first byte in the input (a saved session reads its rows back
    /// by offset, see `input::claude::session`).
    pub(crate) offset: u64,
    pub(crate) text: String,
    /// The bytes were not valid UTF-8; `text` holds U+FFFD where they were.
    pub(crate) lossy: bool,
    /// The input ended without a newline after this line.
    pub(crate) unterminated: bool,
}

/// Reads numbered lines from any buffered reader.
pub(crate) struct LineReader<R> {
    inner: R,
    number: u64,
    /// Bytes consumed so far.
    offset: u64,
    buf: Vec<u8>,
}

impl<R: BufRead> LineReader<R> {
    /// A reader at the start of an input.
    pub(crate) fn new(inner: R) -> LineReader<R> {
        LineReader {
            inner,
            number: 0,
            offset: 0,
            buf: Vec::new(),
        }
    }

    /// True when the next line is not already in memory, so reading it may have to wait for more
    /// input: the moment to flush output. (A partial line in the buffer counts as drained: the
    /// writer may pause in the middle of a long line.)
    pub(crate) fn is_drained(&self) -> bool
    where
        R: Buffered,
    {
        memchr::memchr(b'\n', self.inner.buffered()).is_none()
    }

    /// The next line, or `None` at the end of the input.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<InputLine>> {
        self.buf.clear();
        if !self.read_line_bytes()? {
            return Ok(None);
        }
        self.number += 1;
        let offset = self.offset;
        self.offset += self.buf.len() as u64;
        // The line's bytes become its text without a copy; the next line is read into a new
        // buffer (one allocation, as a copy would need).
        let mut bytes = std::mem::take(&mut self.buf);
        let unterminated = bytes.last() != Some(&b'\n');
        if !unterminated {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        if self.number == 1 && bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes.drain(..3);
        }
        let (text, lossy) = match scribe_json::utf8::into_string(bytes) {
            Ok(s) => (s, false),
            Err(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), true),
        };
        let mut text = text;
        // A long line read in pieces may hold twice its length: give the slack back.
        if text.capacity() - text.len() > 64 * 1024 {
            text.shrink_to_fit();
        }
        Ok(Some(InputLine {
            number: self.number,
            offset,
            text,
            lossy,
            unterminated,
        }))
    }
}

impl<R: BufRead> LineReader<R> {
    /// Reads the next line's bytes, its newline included, into `self.buf` (empty before);
    /// false at the end of the input. Like `read_until`, but a line that is whole in the
    /// reader's buffer is copied once into a buffer of its size: `read_until` grew a new
    /// buffer by doubling for every line (about seven reallocations a line).
    fn read_line_bytes(&mut self) -> io::Result<bool> {
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                return Ok(!self.buf.is_empty());
            }
            match memchr::memchr(b'\n', available) {
                Some(i) => {
                    if self.buf.is_empty() {
                        self.buf.reserve_exact(i + 1);
                    }
                    self.buf.extend_from_slice(&available[..=i]);
                    self.inner.consume(i + 1);
                    return Ok(true);
                }
                None => {
                    let n = available.len();
                    self.buf.extend_from_slice(available);
                    self.inner.consume(n);
                }
            }
        }
    }
}

/// A reader that can show the bytes it holds that have not been read yet.
pub(crate) trait Buffered {
    fn buffered(&self) -> &[u8];
}

impl<R> Buffered for io::BufReader<R> {
    fn buffered(&self) -> &[u8] {
        self.buffer()
    }
}

impl Buffered for &[u8] {
    fn buffered(&self) -> &[u8] {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<InputLine> {
        let mut r = LineReader::new(input);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    #[test]
    fn strips_bom_and_crlf() {
        let got = lines(b"\xEF\xBB\xBF{\"a\":1}\r\n{\"b\":2}\n");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].text, "{\"a\":1}");
        assert_eq!(got[1].text, "{\"b\":2}");
        assert!(!got[1].unterminated);
    }

    #[test]
    fn marks_lossy_and_unterminated() {
        let got = lines(b"ok\n\xff\xfe bad\nlast");
        assert!(!got[0].lossy);
        assert!(got[1].lossy);
        assert!(got[1].text.contains('\u{FFFD}'));
        assert!(got[2].unterminated);
        assert_eq!(got[2].number, 3);
    }

    #[test]
    fn bom_only_on_first_line() {
        let got = lines(b"a\n\xEF\xBB\xBFb\n");
        assert_eq!(got[1].text, "\u{FEFF}b");
    }
}
