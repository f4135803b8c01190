//! What a `FollowReader` knows of the bytes it has read, so that a file that grew can be told
//! from one rewritten in place: the file's identity, its first bytes and the bytes just before
//! where the reader stands. A file that is another file now (replaced), shorter than that place
//! (truncated), or holds other bytes there (truncated and written again, perhaps longer than
//! before) was rewritten, and is read again from its start rather than from the old offset.

use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom};
use std::time::SystemTime;

/// How many of the first bytes, and of the bytes before the offset, are kept.
const KEPT: usize = 64;

/// The reader's place in a file and the fingerprint of what it read.
#[derive(Default)]
pub(crate) struct Mark {
    /// Bytes read so far.
    pub(crate) offset: u64,
    /// The file's first bytes (up to `KEPT`).
    head: Vec<u8>,
    /// The bytes just before `offset` (up to `KEPT`).
    tail: Vec<u8>,
    /// The file read (device and inode), where the platform says.
    id: Option<(u64, u64)>,
}

impl Mark {
    /// Notes the file opened: a mark that has read nothing takes its identity.
    pub(crate) fn opened(&mut self, meta: &Metadata) {
        if self.offset == 0 {
            self.id = identity(meta);
        }
    }

    /// Takes in `bytes`, read at `offset`.
    pub(crate) fn advance(&mut self, bytes: &[u8]) {
        if self.head.len() < KEPT {
            let n = bytes.len().min(KEPT - self.head.len());
            self.head.extend_from_slice(&bytes[..n]);
        }
        if bytes.len() >= KEPT {
            self.tail.clear();
            self.tail.extend_from_slice(&bytes[bytes.len() - KEPT..]);
        } else {
            self.tail.extend_from_slice(bytes);
            let over = self.tail.len().saturating_sub(KEPT);
            self.tail.drain(..over);
        }
        self.offset += bytes.len() as u64;
    }

    /// True when `file` (described by `meta`) is the file read, at least as long as what was
    /// read, and holds the same bytes at its start and just before the offset.
    pub(crate) fn holds(&self, file: &File, meta: &Metadata) -> io::Result<bool> {
        if self.offset == 0 {
            return Ok(true);
        }
        if identity(meta).is_some_and(|id| Some(id) != self.id) || meta.len() < self.offset {
            return Ok(false);
        }
        let tail_at = self.offset - self.tail.len() as u64;
        Ok(same_bytes(file, 0, &self.head)? && same_bytes(file, tail_at, &self.tail)?)
    }
}

/// What tells a file's metadata changed while it was closed: its identity, length and time.
#[derive(PartialEq, Eq, Clone, Copy)]
pub(crate) struct Stamp {
    id: Option<(u64, u64)>,
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    /// The stamp of a file's metadata.
    pub(crate) fn of(meta: &Metadata) -> Stamp {
        Stamp {
            id: identity(meta),
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// True when `file` holds `want` at `at`.
fn same_bytes(mut file: &File, at: u64, want: &[u8]) -> io::Result<bool> {
    let mut got = vec![0; want.len()];
    file.seek(SeekFrom::Start(at))?;
    let mut n = 0;
    while n < got.len() {
        match file.read(&mut got[n..]) {
            Ok(0) => return Ok(false),
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(got == want)
}

/// A file's device and inode.
#[cfg(unix)]
fn identity(meta: &Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

/// No identity where the platform gives none: the length and the bytes decide.
#[cfg(not(unix))]
fn identity(_meta: &Metadata) -> Option<(u64, u64)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn marked(text: &[u8]) -> (tempfile::NamedTempFile, Mark) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text).unwrap();
        let mut m = Mark::default();
        m.opened(&f.as_file().metadata().unwrap());
        for piece in text.chunks(50) {
            m.advance(piece);
        }
        (f, m)
    }

    fn holds(f: &tempfile::NamedTempFile, m: &Mark) -> bool {
        let file = File::open(f.path()).unwrap();
        m.holds(&file, &file.metadata().unwrap()).unwrap()
    }

    #[test]
    fn a_file_that_grew_holds_its_mark() {
        let text: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
        let (mut f, m) = marked(&text);
        assert_eq!(m.offset, 300);
        assert!(holds(&f, &m));
        f.write_all(b"more\n").unwrap();
        assert!(holds(&f, &m));
    }

    #[test]
    fn a_file_truncated_or_written_again_does_not() {
        let (f, m) = marked(b"{\"a\":1}\n{\"b\":2}\n");
        std::fs::write(f.path(), b"{\"a\":1}\n").unwrap();
        assert!(!holds(&f, &m), "shorter");
        std::fs::write(f.path(), b"{\"a\":1}\n{\"c\":3, \"longer\": true}\n").unwrap();
        assert!(!holds(&f, &m), "other bytes before the offset, and longer");
        std::fs::write(f.path(), b"{\"z\":1}\n{\"b\":2}\n and more").unwrap();
        assert!(!holds(&f, &m), "other first bytes");
    }
}
