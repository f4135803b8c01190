//! Pass 2 reads each row again from where pass 1 found it: the session file itself, a sub-agent
//! file, or, for standard input (which cannot be read twice), a temporary spool file.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

/// Where one log's rows can be read again.
#[derive(Debug)]
pub(crate) enum Source {
    /// A regular file, read again by path.
    Path(PathBuf),
    /// The spool of an input that cannot be read twice (standard input, a pipe).
    Spool(File),
}

/// The sources of one session and the one currently open.
#[derive(Debug, Default)]
pub(crate) struct Sources {
    list: Vec<Source>,
    /// The source the window holds bytes of.
    window_of: Option<usize>,
    /// Its file while open, and where the read position is (`None`: not known, seek first; a
    /// spool's handle shares its position with the writer's).
    open: Option<(File, Option<u64>)>,
    /// Follow mode: the file is closed after each read (the window is kept), so a quiet session
    /// holds no descriptor (`--follow-all` follows hundreds).
    let_go: bool,
    /// Bytes of the open source from `window_at` on, read ahead: rows are mostly read again in
    /// file order, so most rows are in the window already, and each byte is copied from the file
    /// about once (seeking a `BufReader` for every row threw its buffer away and read 64 KB
    /// again). Only its first `filled` bytes hold the file's; the rest is room for the next
    /// read, zeroed once when the window grows, not before every read.
    window: Vec<u8>,
    filled: usize,
    window_at: u64,
    /// For each source, where the records of its lines that hold several glued together start
    /// (`SessionLog::glued`): only these are cut from the rest of their line.
    glued: Vec<Vec<u64>>,
}

/// The first record of a line that holds several JSON records glued together (pass 1 read each
/// as a row of its own, at the offset where its value begins: `input::glued`); any other line
/// whole.
fn first_of_glued(line: &str) -> &str {
    match scribe_json::glued_values(line) {
        Some(values) => &line[values[0].clone()],
        None => line,
    }
}

/// How much is read ahead at a time.
const CHUNK: usize = 64 * 1024;

/// A window grown past this for one huge line is let go before the next read.
const KEEP: usize = 1 << 20;

impl Sources {
    /// Sources read in follow mode: no file is kept open between reads.
    pub(crate) fn following() -> Sources {
        Sources {
            let_go: true,
            ..Sources::default()
        }
    }

    /// Registers a source; returns its id.
    pub(crate) fn add(&mut self, s: Source) -> usize {
        self.list.push(s);
        self.glued.push(Vec::new());
        self.list.len() - 1
    }

    /// Where in source `id` the records of lines that hold several glued together start
    /// (`SessionLog::glued`, taken once its file is read): every other line is a record whole,
    /// and is not searched for a second one. In follow mode every line is, as a record may be
    /// read again before the rest of its line is indexed.
    pub(crate) fn note_glued(&mut self, id: usize, offsets: Vec<u64>) {
        if let Some(g) = self.glued.get_mut(id) {
            *g = offsets;
        }
    }

    /// The name diagnostics give source `id` (its path; standard input's spool is `-`).
    pub(crate) fn name(&self, id: usize) -> String {
        match self.list.get(id) {
            Some(Source::Path(p)) => p.display().to_string(),
            Some(Source::Spool(_)) | None => "-".to_owned(),
        }
    }

    /// The text of the line that starts at `offset` in source `id`, decoded as the line reader
    /// decoded it the first time (newline, CR and a leading byte-order mark removed, invalid
    /// UTF-8 replaced): borrowed from the window unless it had to be repaired.
    pub(crate) fn read(&mut self, id: usize, offset: u64) -> io::Result<Cow<'_, str>> {
        let found = self.line_at(id, offset);
        if self.let_go {
            self.open = None;
        }
        let (start, end) = found?;
        let mut bytes = &self.window[start..end];
        debug_assert!(end <= self.filled);
        if bytes.last() == Some(&b'\n') {
            bytes = &bytes[..bytes.len() - 1];
            if bytes.last() == Some(&b'\r') {
                bytes = &bytes[..bytes.len() - 1];
            }
        }
        if offset == 0 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let glued =
            self.let_go || (self.glued.get(id)).is_some_and(|g| g.binary_search(&offset).is_ok());
        Ok(match scribe_json::utf8::as_str(bytes) {
            Some(s) if glued => Cow::Borrowed(first_of_glued(s)),
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(String::from_utf8_lossy(bytes).into_owned()),
        })
    }

    /// Makes the window hold the line at `offset` of source `id`, its newline included when it
    /// has one; returns where it is in the window.
    fn line_at(&mut self, id: usize, offset: u64) -> io::Result<(usize, usize)> {
        if self.window_of != Some(id) {
            if id >= self.list.len() {
                return Err(io::Error::other("no such source"));
            }
            self.window_of = Some(id);
            self.open = None;
            self.filled = 0;
        }
        if self.window.len() > KEEP {
            // One huge line must not keep its buffer for the rest of the run.
            self.window = Vec::new();
            self.filled = 0;
        }
        let end = self.window_at + self.filled as u64;
        if offset < self.window_at || offset >= end {
            self.filled = 0;
            self.window_at = offset;
        }
        let mut from = (offset - self.window_at) as usize;
        let mut searched = from;
        loop {
            if let Some(nl) = memchr::memchr(b'\n', &self.window[searched..self.filled]) {
                return Ok((from, searched + nl + 1));
            }
            // Not all of the line is here: keep what is, from the line's start, and read on.
            if from > 0 {
                self.window.copy_within(from..self.filled, 0);
                self.filled -= from;
                self.window_at = offset;
                from = 0;
            }
            searched = self.filled;
            if self.fill()? == 0 {
                // The last line, without a newline.
                return Ok((0, self.filled));
            }
        }
    }

    /// Reads what follows the window onto its end (at least `CHUNK`, and as much again as it
    /// holds, so a long line is read in few steps); returns how many bytes came.
    fn fill(&mut self) -> io::Result<usize> {
        if self.open.is_none() {
            let file = match self.window_of.and_then(|id| self.list.get(id)) {
                Some(Source::Path(p)) => File::open(p)?,
                Some(Source::Spool(f)) => f.try_clone()?,
                None => return Err(io::Error::other("no source open")),
            };
            self.open = Some((file, None));
        }
        let Some((file, pos)) = self.open.as_mut() else {
            return Err(io::Error::other("no source open"));
        };
        let at = self.window_at + self.filled as u64;
        if *pos != Some(at) {
            file.seek(SeekFrom::Start(at))?;
        }
        // One read into the window's room, which is zeroed only when the window grows: zeroing
        // it before each read cost a few percent of a saved session's run, and `read_to_end`
        // (which needs no zeroed room) read in steps from 8 KiB up, several system calls a
        // chunk (docs/performance.md).
        let want = CHUNK.max(self.filled);
        if self.window.len() < self.filled + want {
            self.window.resize(self.filled + want, 0);
        }
        let room = &mut self.window[self.filled..self.filled + want];
        let n = loop {
            match file.read(room) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    *pos = None;
                    return Err(e);
                }
            }
        };
        self.filled += n;
        *pos = Some(at + n as u64);
        Ok(n)
    }
}

/// Standard input copied to an unnamed temporary file as it is read, so that the rows can be
/// read again by offset.
#[derive(Debug)]
pub(crate) struct Spool {
    out: io::BufWriter<File>,
    written: u64,
}

impl Spool {
    /// A new spool in the system's temporary directory (removed when closed).
    pub(crate) fn new() -> io::Result<Spool> {
        Ok(Spool {
            out: io::BufWriter::with_capacity(256 * 1024, tempfile::tempfile()?),
            written: 0,
        })
    }

    /// Appends a line; returns its offset in the spool.
    pub(crate) fn push(&mut self, text: &str) -> io::Result<u64> {
        let at = self.written;
        self.out.write_all(text.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.written += text.len() as u64 + 1;
        Ok(at)
    }

    /// The spooled file, ready to be read.
    pub(crate) fn into_source(self) -> io::Result<Source> {
        let f = self.out.into_inner().map_err(|e| e.into_error())?;
        Ok(Source::Spool(f))
    }
}

/// Pass 1's way back to the bytes of a line it has already indexed: the uuid table keeps
/// fingerprints of uuids, not their text, and reads a uuid again from here to tell two uuids
/// with one fingerprint apart (see `uuids`). The file by path, or the spool being written.
#[derive(Debug, Default)]
pub(crate) enum Peek {
    /// Nothing to read from (a log built in a test): a fingerprint is trusted.
    #[default]
    Nothing,
    /// A regular file, opened at the first read.
    File { path: PathBuf, file: Option<File> },
    /// Standard input's spool, still being written.
    Spool(Spool),
}

impl Peek {
    /// The file at `path`.
    pub(crate) fn file(path: &std::path::Path) -> Peek {
        Peek::File {
            path: path.to_path_buf(),
            file: None,
        }
    }

    /// Follow mode, the input quiet: the file is closed until it is read from again.
    pub(crate) fn rest(&mut self) {
        if let Peek::File { file, .. } = self {
            *file = None;
        }
    }

    /// Fills as much of `buf` as the source holds from `at` on; returns how many bytes came.
    pub(crate) fn read_at(&mut self, at: u64, buf: &mut [u8]) -> io::Result<usize> {
        let spool = matches!(self, Peek::Spool(_));
        let file = match self {
            Peek::Nothing => return Err(io::Error::other("nothing to read lines again from")),
            Peek::File { path, file } => match file {
                Some(f) => f,
                None => file.insert(File::open(&*path)?),
            },
            Peek::Spool(s) => {
                s.out.flush()?;
                s.out.get_mut()
            }
        };
        file.seek(SeekFrom::Start(at))?;
        let mut n = 0;
        while n < buf.len() {
            match file.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        if spool {
            // The spool's writer appends where the handle stands.
            file.seek(SeekFrom::End(0))?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, KEEP, Source, Sources};

    /// Lines of every length the window meets (short, across a chunk's end, several chunks,
    /// past `KEEP`), with CR LF, a byte-order mark and a last line without a newline, read again
    /// in file order, backwards and from a second source in between: each is its line.
    #[test]
    fn every_line_is_read_again_whole_in_any_order() {
        let lines: Vec<String> = [
            "{\"a\":1}".to_owned(),
            "x".repeat(CHUNK - 3),
            "y".repeat(3 * CHUNK + 5),
            "short\r".to_owned(),
            "z".repeat(KEEP + 7),
            String::new(),
            "w".repeat(CHUNK),
            "the last line, without a newline".to_owned(),
        ]
        .into();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let text = format!("\u{feff}{}", lines.join("\n"));
        std::fs::write(&path, &text).unwrap();
        let other = dir.path().join("o.jsonl");
        std::fs::write(&other, "{\"other\":true}\n").unwrap();
        let mut offsets = Vec::new();
        let mut at = 3; // the byte-order mark
        for l in &lines {
            offsets.push(at);
            at += l.len() as u64 + 1;
        }
        offsets[0] = 0;
        let expected = |i: usize| lines[i].trim_end_matches('\r').to_owned();
        let mut sources = Sources::default();
        let id = sources.add(Source::Path(path));
        let o = sources.add(Source::Path(other));
        let forward = (0..lines.len()).collect::<Vec<_>>();
        let backward = forward.iter().rev().copied().collect::<Vec<_>>();
        for order in [forward, backward] {
            for i in order {
                assert_eq!(
                    sources.read(id, offsets[i]).unwrap(),
                    expected(i),
                    "line {i}"
                );
                assert_eq!(sources.read(o, 0).unwrap(), "{\"other\":true}");
            }
        }
    }
}
