//! Pass 1's uuid table: which row has a uuid (or the key a row without one is known by), in 8
//! bytes a row plus a table of row numbers, and no uuid text.
//!
//! A row is found by a fingerprint of its key, and a fingerprint is never trusted alone: every hit
//! is checked against the row's real uuid, so two uuids that share a fingerprint stay two rows
//! (neither merged as a repeat nor taken for each other's parent). The uuid is found among the
//! last rows read (a row's parent nearly always is one of them), or else read again from the
//! row's line: pass 1 notes where in the line the uuid's text is, so that is a read of a few dozen
//! bytes (`Peek`). A uuid whose text is not byte for byte in the line (it has escapes, or the line
//! was repaired) is kept as text; real files have none.
//!
//! A row that repeats a uuid is an exact copy when its line is the first row's, byte for byte:
//! that line is read again too (as far as the new line's length, so never more than the file).
//!
//! A parent named before its row is read (a reordered file) waits in `Rare::pending`, with its
//! text, and is resolved when the row comes. A key given again by a `<uuid>#<line>` row replaces
//! the row it named, as the map this replaces did.

use std::collections::VecDeque;
use std::hash::BuildHasher;

use foldhash::HashMap;
use hashbrown::HashTable;

use super::chunked::Chunked;
use super::log::{Row, UuidForm};
use super::source::Peek;

/// `Side::at` of a row without a uuid.
const EMPTY: u32 = u32::MAX;
/// `Side::at` of a row whose uuid is kept as text, in `Rare::spelled`.
pub(crate) const SPELLED: u32 = u32::MAX - 1;

/// How many of the last rows' uuids are kept as text.
const RECENT: usize = 64;

/// What the table keeps of one row (pass 1 only).
#[derive(Debug, Clone, Copy)]
struct Side {
    /// The fingerprint of its key.
    hash: u32,
    /// Where its uuid's text starts in its line, or `EMPTY` / `SPELLED`.
    at: u32,
}

/// The parts of a uuid table that real files rarely need.
#[derive(Debug, Default)]
struct Rare {
    /// Uuids that are not byte for byte in their line, by row.
    spelled: HashMap<u32, Box<str>>,
    /// Parents named before their row: key fingerprint → (child row, the parent's key).
    pending: HashMap<u32, Vec<(u32, Box<str>)>>,
}

/// See the module comment.
#[derive(Debug, Default)]
pub(crate) struct Uuids {
    /// Row numbers, found by `Side::hash`.
    table: HashTable<u32>,
    side: Chunked<Side>,
    /// The uuids of the last rows read: (row, uuid), newest last.
    recent: VecDeque<(u32, String)>,
    /// What few tables hold any of (made at the first): a session may have thousands of
    /// inline sub-agent runs, each with a table of its own.
    rare: Option<Box<Rare>>,
    /// A seed chosen per run, so that no file can be made to collide on purpose.
    seed: foldhash::fast::RandomState,
    buf: Vec<u8>,
    /// Tests: every key has the same fingerprint.
    #[cfg(test)]
    collide: bool,
}

/// A row being added to the index: its number in `rows`, the key it is found by, and its uuid.
pub(crate) struct NewRow<'a> {
    pub(crate) r: u32,
    pub(crate) key: &'a str,
    pub(crate) uuid: UuidText<'a>,
}

/// How a row's own uuid can be found again.
#[derive(Debug, Clone, Copy)]
pub(crate) enum UuidText<'a> {
    /// No uuid.
    Empty,
    /// Its text, which is byte for byte at `at` in its line.
    At(&'a str, u32),
    /// Its text, which is not (kept as text).
    Spelled(&'a str),
}

impl Uuids {
    fn hash(&self, key: &str) -> u32 {
        #[cfg(test)]
        if self.collide {
            return 7;
        }
        self.seed.hash_one(key) as u32
    }

    /// A table in which every key has the same fingerprint (tests: every hit must be checked).
    #[cfg(test)]
    pub(crate) fn colliding() -> Uuids {
        Uuids {
            collide: true,
            ..Uuids::default()
        }
    }

    /// Tests: how many rows wait for a parent not read yet.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        let pending = self.rare.iter().flat_map(|r| r.pending.values());
        pending.map(Vec::len).sum()
    }

    /// Lets go of the uuids of the last rows read: they only spare reading a parent's uuid again
    /// from its line, so nothing is found differently without them.
    pub(crate) fn forget_recent(&mut self) {
        self.recent = VecDeque::new();
        self.buf = Vec::new();
    }

    /// The table, and a [`Check`] over the other fields, borrowed apart: a lookup's comparison
    /// reads them while the table is searched.
    fn table_and_check<'a>(
        &'a mut self,
        rows: &'a Chunked<Row>,
        peek: &'a mut Peek,
    ) -> (&'a mut HashTable<u32>, Check<'a>) {
        let Uuids {
            table,
            side,
            rare,
            recent,
            buf,
            ..
        } = self;
        let check = Check {
            side,
            spelled: rare.as_deref().map(|r| &r.spelled),
            recent,
            buf,
            peek,
            rows,
        };
        (table, check)
    }

    /// The row whose key is `key`, if one has been read.
    pub(crate) fn find(&mut self, rows: &Chunked<Row>, key: &str, peek: &mut Peek) -> Option<u32> {
        let h = self.hash(key);
        let (table, mut check) = self.table_and_check(rows, peek);
        table
            .find(spread(h), |&r| {
                check.side[r as usize].hash == h && check.is_key_of(r, key)
            })
            .copied()
    }

    /// Whether row `r`'s line, read again, is `text` (as the line reader decoded it: newline,
    /// CR and a first line's byte-order mark removed, invalid UTF-8 replaced). A line that cannot
    /// be read again is taken as different: the new row is kept, never dropped.
    pub(crate) fn same_line(
        &mut self,
        rows: &Chunked<Row>,
        r: u32,
        text: &str,
        peek: &mut Peek,
    ) -> bool {
        let offset = rows[r as usize].offset();
        // Decoding never makes a line shorter: a line longer than `text` plus a BOM and CR LF is
        // not it.
        self.buf.clear();
        self.buf.resize(text.len() + 6, 0);
        let Ok(n) = peek.read_at(offset, &mut self.buf) else {
            return false;
        };
        let mut bytes = &self.buf[..n];
        if offset == 0 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let line = match memchr::memchr(b'\n', bytes) {
            Some(end) => &bytes[..end],
            None if n < self.buf.len() => bytes,
            None => return false,
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match scribe_json::utf8::as_str(line) {
            Some(s) => s == text,
            None => String::from_utf8_lossy(line) == text,
        }
    }

    /// Notes that `child`'s parent, `key`, has no row yet.
    pub(crate) fn wait(&mut self, child: u32, key: &str) {
        let h = self.hash(key);
        let rare = self.rare.get_or_insert_with(Box::default);
        rare.pending.entry(h).or_default().push((child, key.into()));
    }

    /// Adds a row (already in `rows`) under its key; `replace`: a row found under the same key is
    /// replaced. Returns the waiting children whose parent it is (see `wait`).
    pub(crate) fn insert(
        &mut self,
        rows: &Chunked<Row>,
        NewRow { r, key, uuid }: NewRow<'_>,
        replace: bool,
        peek: &mut Peek,
    ) -> Vec<u32> {
        let h = self.hash(key);
        let at = match uuid {
            UuidText::Empty => EMPTY,
            UuidText::At(_, at) => at,
            UuidText::Spelled(s) => {
                let rare = self.rare.get_or_insert_with(Box::default);
                rare.spelled.insert(r, s.into());
                SPELLED
            }
        };
        let replaced = if replace {
            let (table, mut check) = self.table_and_check(rows, peek);
            match table.find_mut(spread(h), |&x| {
                check.side[x as usize].hash == h && check.is_key_of(x, key)
            }) {
                Some(slot) => {
                    *slot = r;
                    true
                }
                None => false,
            }
        } else {
            false
        };
        self.side.push(Side { hash: h, at });
        if !replaced {
            let side = &self.side;
            self.table
                .insert_unique(spread(h), r, |&x| spread(side[x as usize].hash));
        }
        let text = match uuid {
            UuidText::Empty => "",
            UuidText::At(s, _) | UuidText::Spelled(s) => s,
        };
        if self.recent.len() == RECENT {
            if let Some((_, mut s)) = self.recent.pop_front() {
                s.clear();
                s.push_str(text);
                self.recent.push_back((r, s));
            }
        } else {
            self.recent.push_back((r, text.to_owned()));
        }
        let mut found = Vec::new();
        let waiting = self.rare.as_mut().and_then(|rare| rare.pending.remove(&h));
        if let Some(mut list) = waiting {
            let (_, mut check) = self.table_and_check(rows, peek);
            list.retain(|(child, k)| {
                let is = check.is_key_of(r, k);
                if is {
                    found.push(*child);
                }
                !is
            });
            if let (false, Some(rare)) = (list.is_empty(), self.rare.as_mut()) {
                rare.pending.insert(h, list);
            }
        }
        found
    }
}

/// A 32-bit fingerprint spread over the 64 bits the table reads (it takes its buckets from the
/// low bits and a tag from the high ones).
fn spread(h: u32) -> u64 {
    u64::from(h).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// What checking a hit needs, borrowed apart from the table.
struct Check<'a> {
    side: &'a Chunked<Side>,
    /// The uuids kept as text, if any.
    spelled: Option<&'a HashMap<u32, Box<str>>>,
    recent: &'a VecDeque<(u32, String)>,
    buf: &'a mut Vec<u8>,
    peek: &'a mut Peek,
    rows: &'a Chunked<Row>,
}

impl Check<'_> {
    /// Whether row `r` is known by `key`: its uuid, `<uuid>#<line>` for a row repeating an
    /// earlier row's uuid, `line:<n>` for a row without one (`log::push_row`).
    fn is_key_of(&mut self, r: u32, key: &str) -> bool {
        let row = &self.rows[r as usize];
        match row.uuid_form() {
            UuidForm::Own => self.uuid_is(r, key),
            UuidForm::Repeated => {
                let suffix = format!("#{}", row.line());
                key.strip_suffix(suffix.as_str())
                    .is_some_and(|u| self.uuid_is(r, u))
            }
            UuidForm::Missing => key == format!("line:{}", row.line()),
        }
    }

    /// Whether row `r`'s uuid is `u`.
    fn uuid_is(&mut self, r: u32, u: &str) -> bool {
        if let Some((_, s)) = self.recent.iter().rev().find(|(x, _)| *x == r) {
            return s == u;
        }
        match self.side[r as usize].at {
            EMPTY => u.is_empty(),
            SPELLED => (self.spelled.and_then(|m| m.get(&r))).is_some_and(|s| **s == *u),
            at => {
                // The uuid's bytes and the quote that closes them.
                self.buf.clear();
                self.buf.resize(u.len() + 1, 0);
                let offset = self.rows[r as usize].offset() + u64::from(at);
                match self.peek.read_at(offset, self.buf) {
                    Ok(n) => {
                        n == u.len() + 1
                            && self.buf[..u.len()] == *u.as_bytes()
                            && self.buf[u.len()] == b'"'
                    }
                    // The line cannot be read again (an I/O error, a log built in a test): the
                    // fingerprint is trusted.
                    Err(_) => true,
                }
            }
        }
    }
}
