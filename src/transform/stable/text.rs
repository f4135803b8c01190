//! Finding what varies between runs inside text: ids written in prose, UUIDs, timestamps,
//! temp dirs, sockets, PGID lines and usage counters, with the needles and regexes that
//! find them. `Stable` decides what each becomes.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::{MIN_ID_IN_TEXT, fingerprint, name};
use crate::transform::id_table::IdTable;

/// Ids longer than this are not searched for inside text (no agent's id is this long, and a
/// bound keeps the per-word search linear in the text).
pub(super) const MAX_ID_IN_TEXT: usize = 256;

/// At most this many `_`/`-` separators of a word are tried as the start or end of an id glued
/// to a prefix or suffix (`client_<uuid>`, `agent-<id>`): the search per word stays bounded.
pub(super) const MAX_PARTS: usize = 24;

/// A needle searched for in every string of every item, compiled once (memchr's SIMD search;
/// `str::contains` for these five was a tenth of a --stable run).
pub(super) type Needle = LazyLock<memchr::memmem::Finder<'static>>;

/// Whether `s` holds the needle.
pub(super) fn holds(s: &str, needle: &Needle) -> bool {
    needle.find(s.as_bytes()).is_some()
}

pub(super) static SOCK: Needle = LazyLock::new(|| memchr::memmem::Finder::new(".sock"));
pub(super) static TMP: Needle = LazyLock::new(|| memchr::memmem::Finder::new("/tmp"));
pub(super) static VAR_FOLDERS: Needle =
    LazyLock::new(|| memchr::memmem::Finder::new("/var/folders/"));
pub(super) static TMP_SLUG: Needle = LazyLock::new(|| memchr::memmem::Finder::new("-tmp-"));
pub(super) static VAR_FOLDERS_SLUG: Needle =
    LazyLock::new(|| memchr::memmem::Finder::new("-var-folders-"));
pub(super) static PGID: Needle = LazyLock::new(|| memchr::memmem::Finder::new("PGID"));
pub(super) static USAGE: Needle = LazyLock::new(|| memchr::memmem::Finder::new("<usage>"));

/// The bytes a check of [`super::Stable::rewrite_text`] needs: a check whose byte the text lacks
/// cannot match, and is skipped. Most strings of an item are short (a tool's name, a path, a
/// line), and asking each of them for five needles and two scans for `-` cost more than
/// looking for their bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Marks(u8);

impl Marks {
    /// `-`: a UUID, a date.
    pub(super) const DASH: u8 = 1 << 1;
    /// `/`: a temp dir.
    pub(super) const SLASH: u8 = 1 << 2;
    /// `.`: a socket.
    pub(super) const DOT: u8 = 1 << 3;
    /// `P`: the shell's PGID line.
    pub(super) const CAPITAL_P: u8 = 1 << 4;
    /// `<`: a usage block.
    pub(super) const ANGLE: u8 = 1 << 5;
    /// Every check runs (a text already rewritten may hold what its first form did not).
    pub(super) const ALL: Marks = Marks(u8::MAX);

    /// The marks of the bytes of `s`: a short text's bytes looked up one by one, a long text
    /// searched with `memchr` for each mark's byte (many bytes at a time, and a search stops at
    /// its first hit: a long text holds most of them early).
    pub(super) fn of(s: &str) -> Marks {
        const LONG: usize = 64;
        let b = s.as_bytes();
        if b.len() < LONG {
            return Marks(b.iter().fold(0, |seen, &c| seen | CLASSES[c as usize]));
        }
        let bytes = [
            (b'-', Marks::DASH),
            (b'/', Marks::SLASH),
            (b'.', Marks::DOT),
            (b'P', Marks::CAPITAL_P),
            (b'<', Marks::ANGLE),
        ];
        Marks(
            bytes
                .iter()
                .fold(0, |seen, &(c, mark)| match memchr::memchr(c, b) {
                    Some(_) => seen | mark,
                    None => seen,
                }),
        )
    }

    /// Whether a byte of `mark` was seen.
    pub(super) fn has(self, mark: u8) -> bool {
        self.0 & mark != 0
    }
}

/// A byte that can be part of an id written in text.
const ID: u8 = 1;

/// Each byte's class: [`ID`] and the [`Marks`] it sets, as a table (the walk reads it for every
/// byte of every text).
const CLASSES: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let id = c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.' || c == b':';
        t[b] = match c {
            b'-' => ID | Marks::DASH,
            b'/' => Marks::SLASH,
            b'.' => ID | Marks::DOT,
            b'P' => ID | Marks::CAPITAL_P,
            b'<' => Marks::ANGLE,
            _ if id => ID,
            _ => 0,
        };
        b += 1;
    }
    t
};

/// A set of id lengths up to [`MAX_ID_IN_TEXT`], as bits.
#[derive(Debug, Default)]
pub(super) struct IdLengths([u64; MAX_ID_IN_TEXT / 64 + 1]);

impl IdLengths {
    pub(super) fn insert(&mut self, len: usize) {
        self.0[len / 64] |= 1 << (len % 64);
    }

    pub(super) fn contains(&self, len: usize) -> bool {
        self.0
            .get(len / 64)
            .is_some_and(|w| w & (1 << (len % 64)) != 0)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The shortest length in the set (past [`MAX_ID_IN_TEXT`] when it is empty): a word
    /// shorter than that holds no id.
    pub(super) fn shortest(&self) -> usize {
        let mut base = 0;
        for w in self.0 {
            if w != 0 {
                return base + w.trailing_zeros() as usize;
            }
            base += 64;
        }
        base
    }
}

/// Rewrites every known id in `s` (each word of id bytes, or a part of it between `_`/`-`/`.`/`:`
/// separators, leftmost and then longest first); `None` when nothing changed. Linear in `s`:
/// only the words as long as an id are looked at ([`next_long_word`]), each looked up a bounded
/// number of times.
pub(super) fn rename_ids_in_text(s: &str, names: &IdTable, lengths: &IdLengths) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    // A word shorter than every id looked for holds none.
    let shortest = lengths.shortest().max(MIN_ID_IN_TEXT);
    // The boundaries of the current word, kept between words (one allocation, not one a word).
    let mut cuts: Vec<usize> = Vec::new();
    let mut at = 0;
    while let Some((start, end)) = next_long_word(bytes, at, shortest) {
        // The byte at `end` is not an id byte (or the text ends there).
        at = end + 1;
        let word = &s[start..end];
        // Boundaries: the word's ends and each separator (all ASCII, so char boundaries).
        cuts.clear();
        cuts.push(0);
        cuts.extend(
            word.bytes()
                .enumerate()
                .filter(|(_, b)| !b.is_ascii_alphanumeric())
                .map(|(k, _)| k)
                .take(MAX_PARTS),
        );
        let mut from = 0;
        let mut a = 0;
        while a < cuts.len() {
            // A part starts at the word's start or right after a separator, and is tried from
            // its longest end down.
            let begin = if a == 0 { 0 } else { cuts[a] + 1 };
            if begin < from || word.len() - begin < MIN_ID_IN_TEXT {
                a += 1;
                continue;
            }
            let ends = std::iter::once(word.len()).chain(cuts[a + 1..].iter().rev().copied());
            let hit = ends
                .filter(|&end| {
                    end >= begin + MIN_ID_IN_TEXT
                        && end - begin <= MAX_ID_IN_TEXT
                        && lengths.contains(end - begin)
                })
                .find_map(|end| {
                    names
                        .get(fingerprint(&word[begin..end]))
                        .map(|(kind, n)| (end, kind, n))
                });
            if let Some((end, kind, n)) = hit {
                let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
                o.push_str(&s[copied..start + begin]);
                o.push_str(&name(kind, n));
                copied = start + end;
                from = end;
            }
            a += 1;
        }
    }
    let mut o = out?;
    o.push_str(&s[copied..]);
    Some(o)
}

/// The first word (a longest run of id bytes) of at least `min` bytes that starts at or after
/// `from`, which is 0 or follows a byte that is no id byte: its start and end.
///
/// Where words are short (prose, code), most of the text is never looked at: a byte `min - 1`
/// ahead that is no id byte rules out every long word that would start before it, and from one
/// that is, only the bytes back to the last byte that is not (at most once each) are read.
fn next_long_word(b: &[u8], from: usize, min: usize) -> Option<(usize, usize)> {
    let is_id = |k: usize| CLASSES[b[k] as usize] & ID != 0;
    let mut i = from;
    // The bytes from `i` up to `known` are id bytes.
    let mut known = i;
    loop {
        let probe = i + min - 1;
        if probe >= b.len() {
            return None;
        }
        if !is_id(probe) {
            i = probe + 1;
            known = i;
            continue;
        }
        match (known..probe).rev().find(|&k| !is_id(k)) {
            Some(k) => {
                i = k + 1;
                known = probe + 1;
            }
            None => {
                let end = (probe + 1..b.len()).find(|&k| !is_id(k));
                return Some((i, end.unwrap_or(b.len())));
            }
        }
    }
}

pub(super) fn replace(s: &mut String, re: &Regex, mut with: impl FnMut(&Captures<'_>) -> String) {
    if re.is_match(s) {
        *s = re.replace_all(s, |c: &Captures<'_>| with(c)).into_owned();
    }
}

/// False when `s` holds no `d-dd-` (a digit, `-`, two digits, `-`), which every date of
/// [`TIMESTAMP`] (`dddd-dd-dd…`) holds: the regex need not look.
pub(super) fn may_hold_a_date(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'-', b).any(|i| {
        i > 0
            && b[i - 1].is_ascii_digit()
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            && b.get(i + 2).is_some_and(u8::is_ascii_digit)
            && b.get(i + 3) == Some(&b'-')
    })
}

/// Where the UUIDs of `s` are (`8-4-4-4-12` hex digits, leftmost first, not overlapping): what
/// the regex `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-…-[0-9a-fA-F]{12}` finds, found from each `-` (which
/// memchr finds fast) instead of by trying every position: the regex's search of every text was
/// a tenth of a `--stable` run. No word boundaries: harnesses glue prefixes on
/// (`client_<uuid>`, `agent-<uuid>`).
pub(super) fn uuids(s: &str) -> Vec<std::ops::Range<usize>> {
    const SHAPE: &[u8; 36] = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    let b = s.as_bytes();
    let at = |start: usize| {
        b.get(start..start + 36).is_some_and(|w| {
            w.iter().zip(SHAPE).all(|(c, want)| match want {
                b'-' => *c == b'-',
                _ => c.is_ascii_hexdigit(),
            })
        })
    };
    let mut found = Vec::new();
    let mut next = 0;
    // Every UUID has its first `-` 8 bytes after its start.
    for dash in memchr::memchr_iter(b'-', b) {
        let Some(start) = dash.checked_sub(8) else {
            continue;
        };
        if start >= next && at(start) {
            found.push(start..start + 36);
            next = start + 36;
        }
    }
    found
}

pub(super) static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
        .expect("valid regex")
});

/// A Unix socket path, whole.
pub(super) static SOCKET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"[^\s"'`]*\.sock\b"#).expect("valid regex"));

/// The first directory under a temp root (it is the part that changes between runs).
pub(super) static TMP_DIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?:(?:/private)?/var/folders/[^/\s"'`]+/[^/\s"'`]+/T|/tmp)"#,
        r#"/[^/\s"'`:,;()\[\]{}<>]*[^/\s"'`:,;()\[\]{}<>.]"#
    ))
    .expect("valid regex")
});

/// The `<usage>…</usage>` block the harness appends to a sub-agent's report: the only place in
/// text where counters are rewritten (a `max_tokens=1024` the agent typed is behaviour).
pub(super) static USAGE_BLOCK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<usage>.*?</usage>").expect("valid regex"));

/// The shell tool's `Process Group PGID: 12345` line (with its line end).
pub(super) static PGID_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^Process Group PGID: (?:\d+|\(none\))(?:\r?\n|$)").expect("valid regex")
});

/// `duration_ms: 574`, `subagent_tokens: 8652` inside a usage block.
pub(super) static VOLATILE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b([a-z_]*(?:duration|elapsed|tokens|cost)[a-z_]*)("?\s*[:=]\s*)\d+(?:\.\d+)?"#,
    )
    .expect("valid regex")
});

/// `"key": 123` inside a JSON line that did not parse (a debug record's cut line).
pub(super) static JSON_NUMBER_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""([A-Za-z0-9_\-]{1,64})"(\s*:\s*)-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"#)
        .expect("valid regex")
});

#[cfg(test)]
mod word_tests {
    use super::{CLASSES, ID, next_long_word};

    /// The words of `s` of at least `min` bytes, split the plain way.
    fn plain(s: &[u8], min: usize) -> Vec<(usize, usize)> {
        let mut words = Vec::new();
        let mut start = None;
        for k in 0..=s.len() {
            let id = s.get(k).is_some_and(|&c| CLASSES[c as usize] & ID != 0);
            match (id, start) {
                (true, None) => start = Some(k),
                (false, Some(a)) => {
                    if k - a >= min {
                        words.push((a, k));
                    }
                    start = None;
                }
                _ => {}
            }
        }
        words
    }

    /// The long words found skipping ahead are the ones a byte-by-byte walk finds.
    #[test]
    fn long_words_are_the_plain_walks() {
        let texts = [
            "",
            "short words only, nothing long here",
            "toolu_01ABCDEFGHIJ and msg_0123456789abcdef-x.y:z",
            "aaaaaaa bbbbbbbb ccccccccc  dddddddddddddddddddddd\n/eeeeeeee/ffffffff",
            "12345678",
            " 1234567 12345678 123456789 ",
            "é-uuid_3f2a9b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c→end",
        ];
        for t in texts {
            for min in [8, 9, 12, 30, 36] {
                let mut found = Vec::new();
                let mut at = 0;
                while let Some((a, b)) = next_long_word(t.as_bytes(), at, min) {
                    found.push((a, b));
                    at = b + 1;
                }
                assert_eq!(found, plain(t.as_bytes(), min), "{t:?} {min}");
            }
        }
    }
}

#[cfg(test)]
mod uuid_tests {
    use super::uuids;

    /// The UUIDs found are the regex's, leftmost first and not overlapping.
    #[test]
    fn uuids_are_what_the_regex_finds() {
        let re = regex::Regex::new(
            r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        )
        .unwrap();
        let u = "3f2a9b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c";
        let cases = [
            String::new(),
            u.to_owned(),
            format!("client_{u}"),
            format!("agent-{u}-{u}"),
            format!("a{u}{u}b"),
            format!("{}-{u}", &u[..20]),
            format!("ab-{}", &u[1..]),
            "----------------------------------------".to_owned(),
            format!("é{u}ü-{}", u.to_uppercase()),
        ];
        for c in &cases {
            let want: Vec<_> = re.find_iter(c).map(|m| m.range()).collect();
            assert_eq!(uuids(c), want, "{c}");
        }
    }
}
