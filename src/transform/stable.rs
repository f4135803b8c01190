//! `--stable`: make two runs that did the same things print the same bytes.
//!
//! What varies between runs and is not behaviour goes or becomes a placeholder:
//!
//! ```text
//! what                                   becomes
//! ─────────────────────────────────────  ─────────────────────────────────────────────────────
//! turn / message / row ids               t1, t2, …        (numbered by first appearance,
//! tool-call ids                          call-1, …         each kind on its own; every
//! task ids                               task-1, …         reference to an id, and every
//! session ids, init line ids             s1, init-1, …     mention of it inside text, follows)
//! timestamps, durations, version strings dropped (inside text, timestamps: <time>)
//! thinking signatures                    dropped
//! token counts and cost                  dropped (kept with --stable=keep-usage); a notice
//!                                          that only reports them says <usage>
//! temp dirs (/tmp/x, /var/folders/…/T/x) <tmp-1>, <tmp-2>, … (numbered by first appearance)
//! counters in a sub-agent's <usage>      <n> (tool_uses kept; tokens kept with keep-usage)
//! sockets (…/name.sock)                  <socket>
//! the shell's `Process Group PGID: N`    dropped (the whole line), and `pid`/`pgid` keys
//!   line
//! harness payloads (sidecars, notice     keys naming times, durations, versions, uuids, costs
//!   data, machinery)                     and tokens dropped
//! other UUIDs inside text                id-1, id-2, …    (numbered by first appearance)
//! debug record line numbers              0
//! event line numbers (--to events)       1, 2, 3, … over the events kept
//! ```
//!
//! Each item is walked twice: first to number the ids it introduces (in walk order, which is
//! the order the output shows them), then to rewrite, so that a mention of an id in a text that
//! comes before the id's own field is rewritten too. Nothing here iterates a hash map into the
//! output.

use foldhash::HashMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

use super::id_table::IdTable;
use super::visit::{IdKind, ValueRole, VisitMut, walk_value};
use crate::model::details::Details;
use crate::model::transcript::{SubagentUsage, Usage};

/// Ids shorter than this are not searched for inside text (generated ids like `u1` would match
/// ordinary words); real ids are uuids or long random strings.
const MIN_ID_IN_TEXT: usize = 8;

/// The `--stable` pass. One per input: numbering starts again for each transcript.
#[derive(Debug, Default)]
pub(crate) struct Stable {
    keep_usage: bool,
    /// The number of each id under the first kind it was seen as, by the id's [`fingerprint`]
    /// (not the id itself: a long stream brings millions of ids). The name is made
    /// from the kind and the number. It is also what text is searched for: text is cut into
    /// id-shaped words and each is looked up here (one hash lookup per candidate, whatever the
    /// number of ids; the first kind's name wins). 12 bytes an id (`id_table`).
    first: IdTable,
    /// The rare id seen under a second kind too: its number as that kind.
    others: HashMap<(IdKind, u64), u32>,
    counters: HashMap<IdKind, u32>,
    /// The lengths of the ids long enough to be looked for in text: only a part of a word of
    /// one of these lengths is looked up (most words of a long tool output are no id's length).
    id_lengths: IdLengths,
    tmp_dirs: HashMap<String, String>,
    /// Events kept so far (`--to events` line numbers).
    events: u64,
    /// What [`Stable::judge_key`] said of each key met so far (at most [`KEYS_REMEMBERED`]):
    /// a harness payload's few key names come back in every call's details, and judging one
    /// (a dozen substring searches) was a fifth of what `--stable` added to a page.
    volatile_keys: HashMap<Box<str>, bool>,
}

/// Keys whose verdict [`Stable`] remembers: past that, a key is judged each time (an input of
/// endless distinct keys keeps its memory bounded).
const KEYS_REMEMBERED: usize = 4096;

impl Stable {
    /// A pass that drops usage unless `keep_usage`.
    pub(crate) fn new(keep_usage: bool) -> Stable {
        Stable {
            keep_usage,
            ..Stable::default()
        }
    }

    /// The next event number (events get consecutive numbers instead of input line numbers).
    pub(crate) fn next_event_line(&mut self) -> u64 {
        self.events += 1;
        self.events
    }

    /// Gives `id` a number if it has none yet; its number (`None` for an empty id).
    pub(crate) fn number(&mut self, kind: IdKind, id: &str) -> Option<u32> {
        if id.is_empty() {
            return None;
        }
        let key = fingerprint(id);
        if let Some(n) = self.number_of(kind, key) {
            return Some(n);
        }
        // An id already renamed (e.g. read back from stable output) keeps its name's shape but
        // still gets a number here, so that a golden made by an older scribe stays comparable.
        let counter = self.counters.entry(kind).or_insert(0);
        *counter += 1;
        let n = *counter;
        if id.len() >= MIN_ID_IN_TEXT && id.len() <= MAX_ID_IN_TEXT {
            self.id_lengths.insert(id.len());
        }
        if !self.first.insert_new(key, kind, n) {
            self.others.insert((kind, key), n);
        }
        Some(n)
    }

    /// The number an id (by fingerprint) has as `kind`, if any.
    fn number_of(&self, kind: IdKind, key: u64) -> Option<u32> {
        match self.first.get(key) {
            Some((k, n)) if k == kind => Some(n),
            Some(_) => self.others.get(&(kind, key)).copied(),
            None => None,
        }
    }

    fn rewrite_text(&mut self, s: &mut String) {
        if !self.id_lengths.is_empty() {
            if let Some(renamed) = rename_ids_in_text(s, &self.first, &self.id_lengths) {
                *s = renamed;
            }
        }
        // A UUID no field introduced (inside a raw line, a path, a tool's output) is random too.
        let found = uuids(s);
        if !found.is_empty() {
            let mut out = String::with_capacity(s.len());
            let mut copied = 0;
            for r in found {
                let n = self
                    .number(IdKind::Other, &s[r.clone()])
                    .expect("a UUID is not empty");
                out.push_str(&s[copied..r.start]);
                out.push_str(&name(IdKind::Other, n));
                copied = r.end;
            }
            out.push_str(&s[copied..]);
            *s = out;
        }
        // Each pattern below needs a piece of text checked first with memchr/memmem, far faster
        // than asking the regex (which every string of every item went through).
        if holds(s, &SOCK) {
            replace(s, &SOCKET, |_| "<socket>".to_owned());
        }
        let tmp_dirs = &mut self.tmp_dirs;
        if holds(s, &TMP) || holds(s, &VAR_FOLDERS) {
            replace(s, &TMP_DIR, |c| {
                let next = tmp_dirs.len() + 1;
                tmp_dirs
                    .entry(c[0].to_owned())
                    .or_insert_with(|| format!("<tmp-{next}>"))
                    .clone()
            });
        }
        if may_hold_a_date(s) {
            replace(s, &TIMESTAMP, |_| "<time>".to_owned());
        }
        // The shell tool's process group id (Qwen Code, Gemini CLI) changes on every run.
        if holds(s, &PGID) {
            replace(s, &PGID_LINE, |_| String::new());
        }
        let keep_usage = self.keep_usage;
        if !holds(s, &USAGE) {
            return;
        }
        replace(s, &USAGE_BLOCK, |block| {
            VOLATILE_NUMBER
                .replace_all(&block[0], |c: &Captures<'_>| {
                    if keep_usage && is_usage_key(&c[1]) {
                        c[0].to_owned()
                    } else {
                        format!("{}{}<n>", &c[1], &c[2])
                    }
                })
                .into_owned()
        });
    }

    /// Whether a payload key holds run-to-run noise ([`Stable::judge_key`]), remembered.
    fn is_volatile_key(&mut self, key: &str) -> bool {
        if let Some(&volatile) = self.volatile_keys.get(key) {
            return volatile;
        }
        let volatile = self.judge_key(key);
        if self.volatile_keys.len() < KEYS_REMEMBERED {
            self.volatile_keys.insert(key.into(), volatile);
        }
        volatile
    }

    /// Whether a payload key holds run-to-run noise: a time, a duration, a version, a process
    /// or session identity, and (unless kept) usage.
    fn judge_key(&self, key: &str) -> bool {
        // The key in lower case without `_` and `-`: on the stack for the usual short ASCII key
        // (a `String` per key of every sidecar was a tenth of a `--stable` run).
        let mut short = [0u8; 64];
        let mut len = 0;
        let owned: String;
        let k: &str = if key.is_ascii() && key.len() <= short.len() {
            for b in key.bytes().filter(|b| *b != b'_' && *b != b'-') {
                short[len] = b.to_ascii_lowercase();
                len += 1;
            }
            std::str::from_utf8(&short[..len]).unwrap_or_default()
        } else {
            owned = key
                .chars()
                .filter(|c| *c != '_' && *c != '-')
                .flat_map(char::to_lowercase)
                .collect();
            &owned
        };
        let timeish = k.contains("timestamp")
            || k.contains("duration")
            || k.contains("elapsed")
            || k == "time"
            || key.ends_with("_time")
            || key.ends_with("Time")
            || key.ends_with("_ms")
            || key.ends_with("Ms")
            || key.ends_with("_at")
            || key.ends_with("At");
        let identity = k.contains("version")
            || k.contains("uuid")
            || k == "sessionid"
            || k == "requestid"
            || k == "runid"
            || k == "pid"
            || k == "pgid"
            || k.ends_with("socketpath");
        let usage = !self.keep_usage && is_usage_key(key);
        timeish || identity || usage
    }

    fn meta_value(&mut self, v: &mut Value) {
        match v {
            Value::Object(o) => {
                // In place: rebuilding the map hashed every key kept into a new table.
                o.retain(|k, _| !self.is_volatile_key(k));
                o.values_mut().for_each(|x| self.meta_value(x));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.meta_value(x)),
            Value::String(s) => self.rewrite_text(s),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// Token counts and money, which `--stable=keep-usage` keeps.
fn is_usage_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.contains("token") || k.contains("usage") || k.contains("cost")
}

/// Ids longer than this are not searched for inside text (no agent's id is this long, and a
/// bound keeps the per-word search linear in the text).
const MAX_ID_IN_TEXT: usize = 256;

/// At most this many `_`/`-` separators of a word are tried as the start or end of an id glued
/// to a prefix or suffix (`client_<uuid>`, `agent-<id>`): the search per word stays bounded.
const MAX_PARTS: usize = 24;

/// The new name of the `n`th id of a kind.
fn name(kind: IdKind, n: u32) -> String {
    match kind {
        IdKind::Turn => format!("t{n}"),
        IdKind::Call => format!("call-{n}"),
        IdKind::Task => format!("task-{n}"),
        IdKind::Session => format!("s{n}"),
        IdKind::Init => format!("init-{n}"),
        IdKind::Other => format!("id-{n}"),
    }
}

/// An id's 64-bit fingerprint (`model::recent`'s): the maps hold this instead of the id. Two ids
/// of a run share one only by a chance of about n²/2⁶⁵ (10⁻⁸ for a million ids).
fn fingerprint(id: &str) -> u64 {
    crate::model::recent::fingerprint(id)
}

/// A needle searched for in every string of every item, compiled once (memchr's SIMD search;
/// `str::contains` for these five was a tenth of a --stable run).
type Needle = LazyLock<memchr::memmem::Finder<'static>>;

/// Whether `s` holds the needle.
fn holds(s: &str, needle: &Needle) -> bool {
    needle.find(s.as_bytes()).is_some()
}

static SOCK: Needle = LazyLock::new(|| memchr::memmem::Finder::new(".sock"));
static TMP: Needle = LazyLock::new(|| memchr::memmem::Finder::new("/tmp"));
static VAR_FOLDERS: Needle = LazyLock::new(|| memchr::memmem::Finder::new("/var/folders/"));
static PGID: Needle = LazyLock::new(|| memchr::memmem::Finder::new("PGID"));
static USAGE: Needle = LazyLock::new(|| memchr::memmem::Finder::new("<usage>"));

/// A byte that can be part of an id written in text.
fn is_id_byte(b: u8) -> bool {
    /// The bytes of [`is_id_byte`], as a table: the test runs on every byte of every text.
    const ID_BYTES: [bool; 256] = {
        let mut t = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            t[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.' || c == b':';
            b += 1;
        }
        t
    };
    ID_BYTES[b as usize]
}

/// A set of id lengths up to [`MAX_ID_IN_TEXT`], as bits.
#[derive(Debug, Default)]
struct IdLengths([u64; MAX_ID_IN_TEXT / 64 + 1]);

impl IdLengths {
    fn insert(&mut self, len: usize) {
        self.0[len / 64] |= 1 << (len % 64);
    }

    fn contains(&self, len: usize) -> bool {
        self.0
            .get(len / 64)
            .is_some_and(|w| w & (1 << (len % 64)) != 0)
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
}

/// Rewrites every known id in `s` (each word of id bytes, or a part of it between `_`/`-`/`.`/`:`
/// separators, leftmost and then longest first); `None` when nothing changed. Linear in `s`:
/// each word is looked up a bounded number of times.
fn rename_ids_in_text(s: &str, names: &IdTable, lengths: &IdLengths) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    // The boundaries of the current word, kept between words (one allocation, not one a word).
    let mut cuts: Vec<usize> = Vec::new();
    while i < bytes.len() {
        if !is_id_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_id_byte(bytes[i]) {
            i += 1;
        }
        let word = &s[start..i];
        if word.len() < MIN_ID_IN_TEXT {
            continue;
        }
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

fn replace(s: &mut String, re: &Regex, mut with: impl FnMut(&Captures<'_>) -> String) {
    if re.is_match(s) {
        *s = re.replace_all(s, |c: &Captures<'_>| with(c)).into_owned();
    }
}

/// False when `s` holds no `d-dd-` (a digit, `-`, two digits, `-`), which every date of
/// [`TIMESTAMP`] (`dddd-dd-dd…`) holds: the regex need not look.
fn may_hold_a_date(s: &str) -> bool {
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
fn uuids(s: &str) -> Vec<std::ops::Range<usize>> {
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

static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
        .expect("valid regex")
});

/// A Unix socket path, whole.
static SOCKET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"[^\s"'`]*\.sock\b"#).expect("valid regex"));

/// The first directory under a temp root (it is the part that changes between runs).
static TMP_DIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?:(?:/private)?/var/folders/[^/\s"'`]+/[^/\s"'`]+/T|/tmp)"#,
        r#"/[^/\s"'`:,;()\[\]{}<>]*[^/\s"'`:,;()\[\]{}<>.]"#
    ))
    .expect("valid regex")
});

/// The `<usage>…</usage>` block the harness appends to a sub-agent's report: the only place in
/// text where counters are rewritten (a `max_tokens=1024` the agent typed is behaviour).
static USAGE_BLOCK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<usage>.*?</usage>").expect("valid regex"));

/// The shell tool's `Process Group PGID: 12345` line (with its line end).
static PGID_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^Process Group PGID: (?:\d+|\(none\))(?:\r?\n|$)").expect("valid regex")
});

/// `duration_ms: 574`, `subagent_tokens: 8652` inside a usage block.
static VOLATILE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b([a-z_]*(?:duration|elapsed|tokens|cost)[a-z_]*)("?\s*[:=]\s*)\d+(?:\.\d+)?"#,
    )
    .expect("valid regex")
});

/// `"key": 123` inside a JSON line that did not parse (a debug record's cut line).
static JSON_NUMBER_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""([A-Za-z0-9_\-]{1,64})"(\s*:\s*)-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"#)
        .expect("valid regex")
});

/// The first walk: numbers every id in the order the walk meets it.
pub(crate) struct Numbering<'a>(pub(crate) &'a mut Stable);

impl VisitMut for Numbering<'_> {
    fn id(&mut self, kind: IdKind, id: &mut String) {
        self.0.number(kind, id);
    }
    fn value(&mut self, _role: ValueRole, _v: &mut Value) {}
    fn details(&mut self, _role: ValueRole, _d: &mut Details) {}
}

impl VisitMut for Stable {
    fn id(&mut self, kind: IdKind, id: &mut String) {
        if let Some(n) = self.number(kind, id) {
            *id = name(kind, n);
        }
    }

    fn text(&mut self, s: &mut String) {
        self.rewrite_text(s);
    }

    fn value(&mut self, role: ValueRole, v: &mut Value) {
        match role {
            ValueRole::Content => walk_value(self, v),
            ValueRole::Meta => self.meta_value(v),
        }
    }

    fn timestamp(&mut self, t: &mut Option<String>) {
        *t = None;
    }

    fn timestamp_value(&mut self, t: &mut Option<Value>) {
        *t = None;
    }

    fn version(&mut self, v: &mut Option<String>) {
        *v = None;
    }

    fn opaque(&mut self, v: &mut Option<String>) {
        *v = None;
    }

    fn duration(&mut self, ms: &mut Option<u64>) {
        *ms = None;
    }

    fn millis(&mut self, ms: &mut u64) {
        *ms = 0;
    }

    fn seconds(&mut self, s: &mut f64) {
        *s = 0.0;
    }

    fn usage(&mut self, u: &mut Option<Usage>) {
        if !self.keep_usage {
            *u = None;
        }
    }

    fn subagent_usage(&mut self, u: &mut Option<SubagentUsage>) {
        match u {
            Some(u) if self.keep_usage => u.duration_ms = 0,
            _ => *u = None,
        }
    }

    fn tokens(&mut self, n: &mut Option<u64>) {
        if !self.keep_usage {
            *n = None;
        }
    }

    fn cost(&mut self, c: &mut Option<f64>) {
        if !self.keep_usage {
            *c = None;
        }
    }

    /// A debug record's raw line: as JSON, it loses the keys a harness payload loses (times,
    /// durations, versions, uuids, pids); cut or broken, its volatile numbers become 0.
    fn raw(&mut self, s: &mut String) {
        match serde_json::from_str::<Value>(s) {
            Ok(mut v @ (Value::Object(_) | Value::Array(_))) => {
                self.meta_value(&mut v);
                *s = v.to_string();
            }
            Ok(_) | Err(_) => {
                self.rewrite_text(s);
                let mut volatile = |key: &str| self.is_volatile_key(key);
                if JSON_NUMBER_FIELD.is_match(s) {
                    let renamed = JSON_NUMBER_FIELD.replace_all(s, |c: &Captures<'_>| {
                        if volatile(&c[1]) {
                            format!("\"{}\"{}0", &c[1], &c[2])
                        } else {
                            c[0].to_owned()
                        }
                    });
                    *s = renamed.into_owned();
                }
            }
        }
    }

    fn usage_text(&mut self, s: &mut String) {
        if self.keep_usage {
            self.rewrite_text(s);
        } else {
            *s = "<usage>".to_owned();
        }
    }

    /// Durations are run-to-run noise, always dropped (the notice stays, counted).
    fn duration_text(&mut self, s: &mut String) {
        *s = "<duration>".to_owned();
    }

    /// Input line numbers shift when keep-alives or retries come and go.
    fn line(&mut self, line: &mut u64) {
        *line = 0;
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
mod tests {
    use super::*;

    fn text(st: &mut Stable, s: &str) -> String {
        let mut s = s.to_owned();
        st.rewrite_text(&mut s);
        s
    }

    /// A key's remembered verdict is the verdict, met once or many times, and the memory of
    /// verdicts stops growing at its bound.
    #[test]
    fn remembered_key_verdicts_are_the_verdicts() {
        for keep_usage in [false, true] {
            let mut st = Stable::new(keep_usage);
            let keys = [
                "timestamp",
                "durationMs",
                "elapsed_s",
                "time",
                "start_time",
                "createdAt",
                "version",
                "session_id",
                "sessionId",
                "pid",
                "input_tokens",
                "costUSD",
                "file_path",
                "command",
                "stdout",
                "",
                "Ünïcode_Time",
                "UUID",
            ];
            for _ in 0..2 {
                for k in keys {
                    assert_eq!(st.is_volatile_key(k), st.judge_key(k), "{k} {keep_usage}");
                }
            }
            assert!(st.is_volatile_key("timestamp") && !st.is_volatile_key("command"));
            assert_eq!(st.is_volatile_key("input_tokens"), !keep_usage);
            for n in 0..KEYS_REMEMBERED + 100 {
                let k = format!("k{n}_at");
                assert!(st.is_volatile_key(&k), "{k}");
            }
            assert_eq!(st.volatile_keys.len(), KEYS_REMEMBERED);
        }
    }

    #[test]
    fn ids_are_numbered_per_kind_by_first_appearance() {
        let mut st = Stable::new(false);
        let mut a = "toolu_0123456789".to_owned();
        let mut b = "toolu_abcdefghij".to_owned();
        let mut m = "msg_0123456789".to_owned();
        st.id(IdKind::Call, &mut a);
        st.id(IdKind::Turn, &mut m);
        st.id(IdKind::Call, &mut b);
        assert_eq!(
            (a.as_str(), b.as_str(), m.as_str()),
            ("call-1", "call-2", "t1")
        );
        let mut again = "toolu_0123456789".to_owned();
        st.id(IdKind::Call, &mut again);
        assert_eq!(again, "call-1");
        assert_eq!(
            text(&mut st, "result of toolu_abcdefghij"),
            "result of call-2"
        );
        assert_eq!(
            text(
                &mut st,
                "raw 710ebeea-0a89-4141-926d-dc18e6a4cce1 then 710EBEEA-0A89-4141-926D-DC18E6A4CCE2, client_710ebeea-0a89-4141-926d-dc18e6a4cce1"
            ),
            "raw id-1 then id-2, client_id-1"
        );
    }

    #[test]
    fn text_loses_times_temp_dirs_sockets_and_counters() {
        let mut st = Stable::new(false);
        assert_eq!(
            text(
                &mut st,
                "at 2026-11-30T08:16:28.573Z in /tmp/work-a1/x and /tmp/other."
            ),
            "at <time> in <tmp-1>/x and <tmp-2>."
        );
        assert_eq!(text(&mut st, "cd /tmp/work-a1"), "cd <tmp-1>");
        assert_eq!(
            text(&mut st, "/var/folders/zz/abc123/T/tmp.XYZ/f"),
            "<tmp-3>/f"
        );
        assert_eq!(
            text(&mut st, "listen on /tmp/cc-socks/31697.sock"),
            "listen on <socket>"
        );
        assert_eq!(
            text(
                &mut st,
                "done\n<usage>subagent_tokens: 8652\ntool_uses: 1\nduration_ms: 574</usage>"
            ),
            "done\n<usage>subagent_tokens: <n>\ntool_uses: 1\nduration_ms: <n></usage>"
        );
        assert_eq!(
            text(&mut st, "curl -d max_tokens=1024 timeout_duration=5"),
            "curl -d max_tokens=1024 timeout_duration=5"
        );
        let mut keep = Stable::new(true);
        assert_eq!(
            text(
                &mut keep,
                "<usage>subagent_tokens: 8652 duration_ms: 574</usage>"
            ),
            "<usage>subagent_tokens: 8652 duration_ms: <n></usage>"
        );
    }

    #[test]
    fn harness_payloads_lose_volatile_keys_only() {
        let mut st = Stable::new(false);
        let mut v = serde_json::json!({
            "stdout": "hi", "totalDurationMs": 5, "end_time": 1, "createdAt": "x",
            "uuid": "u", "session_id": "s", "claude_code_version": "2", "totalTokens": 3,
            "usage": {"input_tokens": 1}, "status": "completed", "format": "png", "items": 2
        });
        st.value(ValueRole::Meta, &mut v);
        assert_eq!(
            v,
            serde_json::json!({"stdout": "hi", "status": "completed", "format": "png", "items": 2})
        );
        let mut content = serde_json::json!({"timeout_ms": 5});
        st.value(ValueRole::Content, &mut content);
        assert_eq!(content, serde_json::json!({"timeout_ms": 5}));
    }

    #[test]
    fn a_debug_records_raw_line_loses_durations_and_times() {
        let mut st = Stable::new(false);
        let mut raw =
            r#"{"type":"x","durationMs":574,"timestamp":"2026-01-10T10:00:02.000Z","n":3}"#
                .to_owned();
        st.raw(&mut raw);
        assert_eq!(raw, r#"{"type":"x","n":3}"#);
        let mut cut = r#"{"type":"x","durationMs":574,"n":3,"elapsed_ms": 12.5"#.to_owned();
        st.raw(&mut cut);
        assert_eq!(cut, r#"{"type":"x","durationMs":0,"n":3,"elapsed_ms": 0"#);
    }

    #[test]
    fn a_notice_that_only_reports_cost_says_usage() {
        use crate::model::session::{Level, SystemNotice};
        use crate::model::transcript::TranscriptItem;
        let notice = |source: &str| {
            TranscriptItem::Notice(Box::new(SystemNotice::Info {
                source: source.to_owned(),
                level: Level::Info,
                text: "session cost so far: $0.1456".to_owned(),
                data: Value::Null,
            }))
        };
        let text = |item: &TranscriptItem| match item {
            TranscriptItem::Notice(n) => match n.as_ref() {
                SystemNotice::Info { text, .. } => text.clone(),
                _ => unreachable!(),
            },
            _ => unreachable!(),
        };
        let mut item = notice("cost-state");
        crate::transform::visit::walk_item(&mut Stable::new(false), &mut item);
        assert_eq!(text(&item), "<usage>");
        let mut kept = notice("cost-state");
        crate::transform::visit::walk_item(&mut Stable::new(true), &mut kept);
        assert_eq!(text(&kept), "session cost so far: $0.1456");
        let mut other = notice("local-command");
        crate::transform::visit::walk_item(&mut Stable::new(false), &mut other);
        assert_eq!(text(&other), "session cost so far: $0.1456");
    }
}
