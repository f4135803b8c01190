//! Bytes to numbered lines, tolerant of everything real files contain.
//!
//! Reads up to each `\n` (as `read_until` does), so a line may be long (a saved session holds
//! lines of several megabytes), up to [`MAX_LINE_BYTES`]: past that the rest of the line is
//! skipped as it is read, counted, never held (an endless line, `/dev/zero`, keeps memory
//! bounded). Strips a UTF-8 byte-order mark at the start of the input and a CR before
//! the LF. Decodes invalid UTF-8 lossily and says so, and marks a last line that has no newline,
//! so that a cut-off stream can be reported without losing the lines before it.

use std::io::{self, BufRead};

/// `InputLine::offset` of a line that is not in the input as such (a value taken out of a JSON
/// document).
pub(crate) const NOT_IN_FILE: u64 = u64::MAX;

/// The longest line kept: a line past this is cut here, and the rest of it is skipped and
/// counted. Real lines (a screenshot's base64, a large tool output) stay far below it.
pub(crate) const MAX_LINE_BYTES: usize = 128 << 20;

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

impl InputLine {
    /// A value of a whole JSON document, given to an adapter as if it were line `number`. Not a
    /// line of the file: an adapter that reads rows again spools them.
    pub(crate) fn of_value(number: u64, value: &serde_json::Value) -> InputLine {
        InputLine {
            number,
            offset: NOT_IN_FILE,
            text: value.to_string(),
            lossy: false,
            unterminated: false,
        }
    }
}

/// Reads numbered lines from any buffered reader.
pub(crate) struct LineReader<R> {
    inner: R,
    number: u64,
    /// Bytes consumed so far.
    offset: u64,
    buf: Vec<u8>,
    /// The line last returned was cut at [`MAX_LINE_BYTES`]; the rest of it is still to skip.
    cut: bool,
    /// A cut line's number and the bytes of it skipped, once its end (or the input's) is read.
    skipped: Option<(u64, u64)>,
}

impl<R: BufRead> LineReader<R> {
    /// A reader at the start of an input.
    pub(crate) fn new(inner: R) -> LineReader<R> {
        LineReader {
            inner,
            number: 0,
            offset: 0,
            buf: Vec::new(),
            cut: false,
            skipped: None,
        }
    }

    /// True when the line last returned was longer than [`MAX_LINE_BYTES`] and was cut there.
    pub(crate) fn was_cut(&self) -> bool {
        self.cut
    }

    /// The number of a cut line and how many of its bytes were skipped, once they all were
    /// (reported once).
    pub(crate) fn take_skipped(&mut self) -> Option<(u64, u64)> {
        self.skipped.take()
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
        if self.cut {
            self.skip_rest_of_line()?;
        }
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
        let ends_with_newline = bytes.last() == Some(&b'\n');
        // A cut line is not cut off: the input goes on past it.
        let unterminated = !self.cut && !ends_with_newline;
        if ends_with_newline {
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
            let room = MAX_LINE_BYTES - self.buf.len();
            match memchr::memchr(b'\n', available) {
                Some(i) if i < room => {
                    if self.buf.is_empty() {
                        self.buf.reserve_exact(i + 1);
                    }
                    self.buf.extend_from_slice(&available[..=i]);
                    self.inner.consume(i + 1);
                    return Ok(true);
                }
                _ if available.len() >= room => {
                    // The line reaches the maximum: keep what fits, skip the rest later.
                    self.buf.extend_from_slice(&available[..room]);
                    self.inner.consume(room);
                    self.cut = true;
                    return Ok(true);
                }
                _ => {
                    let n = available.len();
                    self.buf.extend_from_slice(available);
                    self.inner.consume(n);
                }
            }
        }
    }

    /// Consumes the rest of a cut line, its newline included, counting it and holding none of
    /// it; a followed input that pauses here (`WouldBlock`) resumes the skip on the next call.
    fn skip_rest_of_line(&mut self) -> io::Result<()> {
        let (number, mut count) = self.skipped.take().unwrap_or((self.number, 0));
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.skipped = Some((number, count));
                    return Err(e);
                }
            };
            let (n, end) = match memchr::memchr(b'\n', available) {
                Some(i) => (i + 1, true),
                None => (available.len(), available.is_empty()),
            };
            self.inner.consume(n);
            count += n as u64;
            self.offset += n as u64;
            if end {
                self.cut = false;
                self.skipped = Some((number, count));
                return Ok(());
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
    fn a_line_past_the_maximum_is_cut_and_its_rest_skipped() {
        let mut input = vec![b'a'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\nnext\n");
        let mut r = LineReader::new(&input[..]);
        let first = r.next_line().unwrap().unwrap();
        assert_eq!(first.text.len(), MAX_LINE_BYTES);
        assert!(r.was_cut() && !first.unterminated);
        let second = r.next_line().unwrap().unwrap();
        assert_eq!((second.number, second.text.as_str()), (2, "next"));
        assert_eq!(r.take_skipped(), Some((1, 11)));
        assert_eq!(second.offset, MAX_LINE_BYTES as u64 + 11);
        assert!(r.next_line().unwrap().is_none());
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
