//! Pass 2 reads each row again from where pass 1 found it: the session file itself, a sub-agent
//! file, or, for standard input (which cannot be read twice), a temporary spool file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
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
    open: Option<(usize, BufReader<File>)>,
    buf: Vec<u8>,
}

impl Sources {
    /// Registers a source; returns its id.
    pub(crate) fn add(&mut self, s: Source) -> usize {
        self.list.push(s);
        self.list.len() - 1
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
    /// UTF-8 replaced).
    pub(crate) fn read(&mut self, id: usize, offset: u64) -> io::Result<String> {
        if self.open.as_ref().is_none_or(|(o, _)| *o != id) {
            let file = match self.list.get(id) {
                Some(Source::Path(p)) => File::open(p)?,
                Some(Source::Spool(f)) => f.try_clone()?,
                None => return Err(io::Error::other("no such source")),
            };
            self.open = Some((id, BufReader::with_capacity(64 * 1024, file)));
        }
        let Some((_, reader)) = self.open.as_mut() else {
            return Err(io::Error::other("no source open"));
        };
        reader.seek(SeekFrom::Start(offset))?;
        self.buf.clear();
        reader.read_until(b'\n', &mut self.buf)?;
        let mut bytes = &self.buf[..];
        if bytes.last() == Some(&b'\n') {
            bytes = &bytes[..bytes.len() - 1];
            if bytes.last() == Some(&b'\r') {
                bytes = &bytes[..bytes.len() - 1];
            }
        }
        if offset == 0 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if self.buf.len() > 1 << 20 {
            // One huge line must not keep its buffer for the rest of the run.
            let text = String::from_utf8_lossy(bytes).into_owned();
            self.buf = Vec::new();
            return Ok(text);
        }
        Ok(String::from_utf8_lossy(bytes).into_owned())
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
