//! Finding what varies between runs inside text: ids written in prose, UUIDs, timestamps,
//! temp dirs, sockets, PGID lines and usage counters, with the needles and regexes that
//! find them. `Stable` decides what each becomes.

use std::ops::ControlFlow;
use std::sync::LazyLock;

use aho_corasick::packed;
use regex::{Captures, Regex};

use super::{MIN_ID_IN_TEXT, fingerprint, name};
use crate::transform::id_table::IdTable;
use crate::transform::visit::IdKind;

/// Ids longer than this are not searched for inside text (no agent's id is this long, and a
/// bound keeps the per-word search linear in the text).
pub(super) const MAX_ID_IN_TEXT: usize = 256;

/// At most this many `_`/`-` separators of a word are tried as the start or end of an id glued
/// to a prefix or suffix (`client_<uuid>`, `agent-<id>`): the search per word stays bounded.
pub(super) const MAX_PARTS: usize = 24;

/// What a text holds that a check of [`super::Stable::rewrite_text`] looks for: a check whose
/// piece the text lacks cannot match, and is skipped. Each piece starts with one of five bytes
/// (`-`, `/`, `.`, `P`, `<`). In a short text (most strings of an item: a name, a path, a
/// model) only those bytes are looked at, read one by one, where a searcher's setup would cost
/// more than the search. In a long one, the fixed pieces are found by one SIMD searcher for
/// all of them ([`LITERALS`]), and the shaped ones (a date, a UUID) from each `-`, which memchr
/// finds: `/` and `.` are everywhere in code and paths, and stopping at each of them cost more
/// than the rest of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Found(u8);

impl Found {
    /// A UUID ([`uuids`] finds one).
    pub(super) const UUID: u8 = 1;
    /// `.sock`: a socket.
    pub(super) const SOCKET: u8 = 1 << 1;
    /// `/tmp` or `/var/folders/`: a temp dir.
    pub(super) const TMP: u8 = 1 << 2;
    /// `-tmp-` or `-var-folders-`: a temp dir as a project directory's name.
    pub(super) const SLUG: u8 = 1 << 3;
    /// `d-dd-` in a text long enough for a date of [`TIMESTAMP`] (`dddd-dd-ddTdd:dd:dd`), which
    /// holds it: the regex need not look elsewhere.
    pub(super) const DATE: u8 = 1 << 4;
    /// `PGID`: the shell's process group line.
    pub(super) const PGID: u8 = 1 << 5;
    /// `<usage>`: a sub-agent's usage block.
    pub(super) const USAGE: u8 = 1 << 6;

    /// What `s` holds.
    pub(super) fn of(s: &str) -> Found {
        let b = s.as_bytes();
        let mut found = 0;
        match &*LITERALS {
            Some((searcher, bits)) if b.len() >= SHORT => {
                for i in memchr::memchr_iter(b'-', b) {
                    found |= piece_at(b, i);
                }
                for m in searcher.find_iter(b) {
                    found |= bits[m.pattern().as_usize()];
                }
            }
            _ => {
                for (i, &c) in b.iter().enumerate() {
                    if STARTS[usize::from(c)] {
                        found |= piece_at(b, i);
                    }
                }
            }
        }
        // The shortest date the regex finds is `dddd-dd-ddTdd:dd:dd`.
        if b.len() < 19 {
            found &= !Found::DATE;
        }
        Found(found)
    }

    /// Whether `s` held any piece.
    pub(super) fn any(self) -> bool {
        self.0 != 0
    }

    /// Whether `s` held a piece of `what`.
    pub(super) fn has(self, what: u8) -> bool {
        self.0 & what != 0
    }
}

/// The pieces [`piece_at`] finds by their bytes alone, each with its [`Found`] bit, and one
/// SIMD searcher (Teddy) for all of them; `None` where the machine has no SIMD for it (then
/// every text is read byte by byte). A match hides no other piece's: the only needle that can
/// start inside another's match is a `-…-` or `/…/` one, of the same bit.
static LITERALS: LazyLock<Option<(packed::Searcher, Vec<u8>)>> = LazyLock::new(|| {
    let pieces: [(&str, u8); 7] = [
        ("/tmp", Found::TMP),
        ("/var/folders/", Found::TMP),
        (".sock", Found::SOCKET),
        ("PGID", Found::PGID),
        ("<usage>", Found::USAGE),
        ("-tmp-", Found::SLUG),
        ("-var-folders-", Found::SLUG),
    ];
    let searcher = packed::Searcher::new(pieces.map(|(needle, _)| needle))?;
    Some((searcher, pieces.map(|(_, bit)| bit).to_vec()))
});

/// A text shorter than this is read byte by byte rather than searched.
const SHORT: usize = 64;

/// The bytes a piece [`Found`] looks for starts with (a UUID: its first `-`).
const STARTS: [bool; 256] = {
    let mut t = [false; 256];
    t[b'-' as usize] = true;
    t[b'/' as usize] = true;
    t[b'.' as usize] = true;
    t[b'P' as usize] = true;
    t[b'<' as usize] = true;
    t
};

/// The [`Found`] pieces that start at `i` (a UUID: whose first `-` is at `i`).
fn piece_at(b: &[u8], i: usize) -> u8 {
    let rest = &b[i..];
    let has = |piece: &[u8], what: u8| if rest.starts_with(piece) { what } else { 0 };
    match b[i] {
        b'-' => {
            let date = i > 0
                && b[i - 1].is_ascii_digit()
                && rest.get(1).is_some_and(u8::is_ascii_digit)
                && rest.get(2).is_some_and(u8::is_ascii_digit)
                && rest.get(3) == Some(&b'-');
            let uuid = i >= 8 && is_uuid_at(b, i - 8);
            has(b"-tmp-", Found::SLUG)
                | has(b"-var-folders-", Found::SLUG)
                | if date { Found::DATE } else { 0 }
                | if uuid { Found::UUID } else { 0 }
        }
        b'/' => has(b"/tmp", Found::TMP) | has(b"/var/folders/", Found::TMP),
        b'.' => has(b".sock", Found::SOCKET),
        b'P' => has(b"PGID", Found::PGID),
        b'<' => has(b"<usage>", Found::USAGE),
        _ => 0,
    }
}

/// A byte that can be part of an id written in text.
const ID: u8 = 1;
/// An id byte that is no letter or digit (`_`, `-`, `.`, `:`): where a word is cut into parts.
const SEP: u8 = 2;

/// Each byte's class: [`ID`], [`ID`] and [`SEP`], or neither, as a table (the walk reads it for
/// every byte it looks at).
const CLASSES: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphanumeric() {
            ID
        } else if c == b'_' || c == b'-' || c == b'.' || c == b':' {
            ID | SEP
        } else {
            0
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

/// Rewrites every known id in `s` ([`each_known_id`]); `None` when nothing changed.
pub(super) fn rename_ids_in_text(s: &str, names: &IdTable, lengths: &IdLengths) -> Option<String> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    each_known_id(s, names, lengths, false, |start, end, kind, n| {
        let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
        o.push_str(&s[copied..start]);
        o.push_str(&name(kind, n));
        copied = end;
        ControlFlow::Continue(())
    });
    let mut o = out?;
    o.push_str(&s[copied..]);
    Some(o)
}

/// Whether the string written `raw` (as the JSON writer writes it, between the quotes) holds a
/// known id: whether [`rename_ids_in_text`] would change its text.
pub(super) fn holds_known_id(raw: &str, names: &IdTable, lengths: &IdLengths) -> bool {
    let mut held = false;
    each_known_id(raw, names, lengths, true, |_, _, _, _| {
        held = true;
        ControlFlow::Break(())
    });
    held
}

/// Hands `hit` each known id in `s` (where it starts and ends, its kind and number): each word
/// of id bytes, or a part of it between `_`/`-`/`.`/`:` separators, leftmost and then longest
/// first, until `hit` breaks. Linear in `s`: only the words as long as an id are looked at
/// ([`next_long_word`]), each read once ([`scan_word`]) and looked up a bounded number of
/// times.
///
/// `escaped`: `s` is a string as the JSON writer writes it, whose escapes stand for control
/// characters, quotes and backslashes, none an id byte. Its words are the text's, but for the
/// letters of an escape a word begins with (`\n`'s `n`, `\u001f`'s `u001f`), which are left out.
fn each_known_id(
    s: &str,
    names: &IdTable,
    lengths: &IdLengths,
    escaped: bool,
    mut hit: impl FnMut(usize, usize, IdKind, u32) -> ControlFlow<()>,
) {
    let bytes = s.as_bytes();
    // A word shorter than every id looked for holds none.
    let shortest = lengths.shortest().max(MIN_ID_IN_TEXT);
    let mut cuts = Cuts::default();
    let mut at = 0;
    while let Some(mut start) = next_long_word(bytes, at, shortest) {
        if escaped {
            start = past_escape(bytes, start);
        }
        let end = scan_word(bytes, start, &mut cuts);
        // The byte at `end` is not an id byte (or the text ends there).
        at = end + 1;
        let word = &s[start..end];
        let seps = cuts.seps();
        let mut from = 0;
        // A part starts at the word's start or right after a separator, and is tried from its
        // longest end (the word's end, then each later separator) down.
        for a in 0..=seps.len() {
            let begin = if a == 0 { 0 } else { seps[a - 1] + 1 };
            if begin < from || word.len() - begin < MIN_ID_IN_TEXT {
                continue;
            }
            let ends = std::iter::once(word.len()).chain(seps[a..].iter().rev().copied());
            let found = ends
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
            if let Some((end, kind, n)) = found {
                if hit(start + begin, start + end, kind, n).is_break() {
                    return;
                }
                from = end;
            }
        }
    }
}

/// Where the text of a word found at `start` of a string as written begins: past the letters
/// of the escape it begins with, if any (its backslash is the last of an odd run).
fn past_escape(b: &[u8], start: usize) -> usize {
    let backslashes = b[..start].iter().rev().take_while(|&&c| c == b'\\').count();
    match (backslashes % 2, b[start]) {
        (0, _) => start,
        (_, b'u') => start + 5,
        _ => start + 1,
    }
}

/// Where a word's first [`MAX_PARTS`] separators are, from the word's start: on the stack, one
/// for the whole text.
#[derive(Default)]
struct Cuts {
    at: [usize; MAX_PARTS],
    len: usize,
}

impl Cuts {
    /// The separators found.
    fn seps(&self) -> &[usize] {
        &self.at[..self.len]
    }
}

/// The end of the word of id bytes that starts at `start` (the first byte past it that is no
/// id byte, or the text's end), read once, its separators put in `cuts`.
fn scan_word(b: &[u8], start: usize, cuts: &mut Cuts) -> usize {
    cuts.len = 0;
    let mut end = start;
    while let Some(&c) = b.get(end) {
        let class = CLASSES[usize::from(c)];
        if class == 0 {
            break;
        }
        if class & SEP != 0 && cuts.len < MAX_PARTS {
            cuts.at[cuts.len] = end - start;
            cuts.len += 1;
        }
        end += 1;
    }
    end
}

/// The start of the first word (a longest run of id bytes) of at least `min` bytes that starts
/// at or after `from`, which is 0 or follows a byte that is no id byte ([`scan_word`] finds its
/// end).
///
/// Where words are short (prose, code), most of the text is never looked at: a byte `min - 1`
/// ahead that is no id byte rules out every long word that would start before it, and from one
/// that is, only the bytes back to the last byte that is not (at most once each) are read.
fn next_long_word(b: &[u8], from: usize, min: usize) -> Option<usize> {
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
            None => return Some(i),
        }
    }
}

pub(super) fn replace(s: &mut String, re: &Regex, mut with: impl FnMut(&Captures<'_>) -> String) {
    if re.is_match(s) {
        *s = re.replace_all(s, |c: &Captures<'_>| with(c)).into_owned();
    }
}

/// Where the UUIDs of `s` are (`8-4-4-4-12` hex digits, leftmost first, not overlapping): what
/// the regex `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-…-[0-9a-fA-F]{12}` finds, found from each `-` (which
/// memchr finds fast) instead of by trying every position: the regex's search of every text was
/// a tenth of a `--stable` run. No word boundaries: harnesses glue prefixes on
/// (`client_<uuid>`, `agent-<uuid>`).
pub(super) fn uuids(s: &str) -> Vec<std::ops::Range<usize>> {
    let b = s.as_bytes();
    let mut found = Vec::new();
    let mut next = 0;
    // Every UUID has its first `-` 8 bytes after its start.
    for dash in memchr::memchr_iter(b'-', b) {
        let Some(start) = dash.checked_sub(8) else {
            continue;
        };
        if start >= next && is_uuid_at(b, start) {
            found.push(start..start + 36);
            next = start + 36;
        }
    }
    found
}

/// Whether a UUID (`8-4-4-4-12` hex digits) starts at `start`.
fn is_uuid_at(b: &[u8], start: usize) -> bool {
    const SHAPE: &[u8; 36] = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    b.get(start..start + 36).is_some_and(|w| {
        w.iter().zip(SHAPE).all(|(c, want)| match want {
            b'-' => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
    })
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
    use super::{CLASSES, Cuts, ID, SEP, next_long_word, scan_word};

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
            "more_than_twenty_four_separators_in_one_word_a_b_c_d_e_f_g_h_i_j_k_l_m_n_o_p q",
        ];
        for t in texts {
            for min in [8, 9, 12, 30, 36] {
                let mut found = Vec::new();
                let mut at = 0;
                let mut cuts = Cuts::default();
                while let Some(a) = next_long_word(t.as_bytes(), at, min) {
                    let b = scan_word(t.as_bytes(), a, &mut cuts);
                    let seps: Vec<usize> = t.as_bytes()[a..b]
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| CLASSES[usize::from(**c)] & SEP != 0)
                        .map(|(k, _)| k)
                        .take(super::MAX_PARTS)
                        .collect();
                    assert_eq!(cuts.seps(), seps, "{t:?} {min}");
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

#[cfg(test)]
mod found_tests {
    use super::Found;

    /// What the one walk finds is what a search for each piece finds, in short texts and long.
    #[test]
    fn found_is_each_pieces_search() {
        let u = "3f2a9b1c-0d4e-4f5a-8b6c-7d8e9f0a1b2c";
        let uuid = regex::Regex::new(
            r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        )
        .unwrap();
        let date = regex::Regex::new(r"\d-\d\d-").unwrap();
        let pieces = [
            "",
            "Bash",
            "claude-sonnet-4-5-20250929",
            "at 2025-01-02T03:04:05Z",
            "2025-01-02",
            "/tmp",
            "cd /private/var/folders/ab/cd/T/x",
            "-Users-me-tmp-proj",
            "-var-folders-x",
            "run.sock",
            "Process Group PGID: 12",
            "PGI",
            "<usage>tokens: 3</usage>",
            "<usag",
            u,
            &u[1..],
            "é→ü-",
        ];
        let filler = "plain words. a/b c-d P < ".repeat(4);
        for piece in pieces {
            for text in [
                piece.to_owned(),
                format!("{filler}{piece}"),
                format!("{piece}{filler}"),
            ] {
                let found = Found::of(&text);
                let holds = |needles: &[&str]| needles.iter().any(|n| text.contains(n));
                let want = [
                    (Found::UUID, uuid.is_match(&text)),
                    (Found::SOCKET, holds(&[".sock"])),
                    (Found::TMP, holds(&["/tmp", "/var/folders/"])),
                    (Found::SLUG, holds(&["-tmp-", "-var-folders-"])),
                    (Found::DATE, text.len() >= 19 && date.is_match(&text)),
                    (Found::PGID, holds(&["PGID"])),
                    (Found::USAGE, holds(&["<usage>"])),
                ];
                for (what, holds) in want {
                    assert_eq!(found.has(what), holds, "{text:?} {what}");
                }
            }
        }
    }
}
