//! `--stats`: an account of every input line, printed on stderr at the end of the run.
//!
//! The promise is that nothing is lost: each line read ends up reflected in a record (its content
//! decoded into at least one event that is not `absorbed`), absorbed (book-keeping, or content
//! another line's record carries: counted apart, by the name the adapter gave to where it went),
//! kept whole in a `debug` record, or named by a diagnostic on stderr (blank lines, which carry
//! nothing, are counted apart). A line whose content went nowhere is `unaccounted`: a defect. The ledger marks each line as the run
//! goes and classifies it at the end of its input, so the totals are checked, not assumed: a line
//! in none of those classes is counted as `unaccounted` and its number printed.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::Value;

use crate::model::event::{Event, EventKind};
use crate::model::transcript::TranscriptItem;

/// The line decoded into an event that went to the fold.
const EVENT: u8 = 1;
/// The line is kept in a `debug` record.
const DEBUG: u8 = 2;
/// A diagnostic named the line.
const DIAGNOSED: u8 = 4;
/// The line was blank (or only white space).
const BLANK: u8 = 8;
/// The line decoded into an `absorbed` event only (its content is in no record of its own).
const ABSORBED: u8 = 16;

/// How many unaccounted line numbers are printed (all are counted).
const SHOWN_UNACCOUNTED: usize = 20;

/// The account of one input's lines. `pending` is always kept: the lines read that nothing has
/// named yet (an adapter that holds lines until the end keeps them there until then), so that a
/// line decoded into nothing becomes a `debug` record or a diagnostic instead of silence. The
/// per-line marks are kept only with `--stats`.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    /// One byte of flags per line, index 0 = line 1 (`--stats` only).
    marks: Option<Vec<u8>>,
    /// Lines a multi-line record took in with its first line (an SSE frame's fields).
    spans: Vec<(u64, u64)>,
    /// Non-blank lines read that no event or diagnostic has named yet.
    pending: LineSet,
    /// The lines `absorbed` events named, with the name of where each went (`--stats` only).
    absorbed_as: Vec<(u64, String)>,
}

/// A set of line numbers, one bit a line from the oldest still in it: a saved session holds all
/// its lines pending until its end, and a `BTreeSet` of them was 19 MB of a 1 GiB session's peak;
/// this is 300 KB, and a stream, whose lines are named as they are read, keeps a few
/// words.
#[derive(Debug, Default)]
struct LineSet {
    /// The line number of bit 0 of `words[0]` (a multiple of 64).
    base: u64,
    words: std::collections::VecDeque<u64>,
}

impl LineSet {
    /// The word and bit of `line`, if it is at or after `base`.
    fn place(&self, line: u64) -> Option<(usize, u64)> {
        let at = line.checked_sub(self.base)?;
        Some((usize::try_from(at / 64).ok()?, 1 << (at % 64)))
    }

    fn insert(&mut self, line: u64) {
        if self.words.is_empty() {
            self.base = line - line % 64;
        }
        if line < self.base {
            // Older than every line held (lines come in order; this is for safety): grow in front.
            let words = (self.base - line).div_ceil(64);
            for _ in 0..words {
                self.words.push_front(0);
            }
            self.base -= words * 64;
        }
        let Some((w, bit)) = self.place(line) else {
            return;
        };
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= bit;
    }

    fn remove(&mut self, line: u64) {
        let Some((w, bit)) = self.place(line) else {
            return;
        };
        if let Some(word) = self.words.get_mut(w) {
            *word &= !bit;
        }
        // Words emptied at the front go: a stream keeps only the lines still waiting.
        while self.words.front() == Some(&0) {
            self.words.pop_front();
            self.base += 64;
        }
    }

    fn contains(&self, line: u64) -> bool {
        self.place(line)
            .and_then(|(w, bit)| self.words.get(w).map(|word| word & bit != 0))
            .unwrap_or(false)
    }

    /// Every line in the set, in order, leaving it empty.
    fn take(&mut self) -> Vec<u64> {
        let base = self.base;
        let words = std::mem::take(&mut self.words);
        let mut out = Vec::new();
        for (i, word) in words.into_iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let bit = u64::from(word.trailing_zeros());
                out.push(base + i as u64 * 64 + bit);
                word &= word - 1;
            }
        }
        out
    }
}

impl Ledger {
    /// A ledger for one input; `stats` keeps the per-line marks for `--stats`.
    pub(crate) fn new(stats: bool) -> Ledger {
        Ledger {
            marks: stats.then(Vec::new),
            ..Ledger::default()
        }
    }

    fn mark(&mut self, line: u64, flag: u8) {
        if flag != BLANK {
            self.pending.remove(line);
        }
        let Some(marks) = self.marks.as_mut() else {
            return;
        };
        let Some(i) = usize::try_from(line).ok().and_then(|l| l.checked_sub(1)) else {
            return;
        };
        // Events only name lines already read; anything beyond is ignored, not allocated.
        if let Some(m) = marks.get_mut(i) {
            *m |= flag;
        }
    }

    /// Line `number` was read (`blank` when it holds nothing but white space).
    pub(crate) fn read(&mut self, number: u64, blank: bool) {
        if !blank {
            self.pending.insert(number);
        }
        if let Some(marks) = self.marks.as_mut() {
            marks.push(if blank { BLANK } else { 0 });
        }
    }

    /// True while no event, record or diagnostic has named this line.
    pub(crate) fn is_pending(&self, line: u64) -> bool {
        self.pending.contains(line)
    }

    /// The lines nothing named, oldest first; they are no longer pending.
    pub(crate) fn take_pending(&mut self) -> Vec<u64> {
        self.pending.take()
    }

    /// An event went to the fold.
    pub(crate) fn event(&mut self, event: &Event) {
        let flag = match &event.kind {
            EventKind::Debug { .. } => DEBUG,
            EventKind::Absorbed { what } => {
                if self.marks.is_some() {
                    self.absorbed_as.push((event.line, what.clone()));
                }
                ABSORBED
            }
            _ => EVENT,
        };
        self.mark(event.line, flag);
    }

    /// A scribe-JSONL line produced a record as it is.
    pub(crate) fn record(&mut self, line: u64) {
        self.mark(line, EVENT);
    }

    /// A diagnostic named this line.
    pub(crate) fn diagnosed(&mut self, line: u64) {
        self.mark(line, DIAGNOSED);
    }

    /// Lines `first..=last` were read as one JSON document: each that nothing else named is in
    /// its records when it gave any (`decoded`), else under the error that named the document.
    pub(crate) fn document(&mut self, first: u64, last: u64, decoded: bool) {
        for l in first..=last {
            if self.pending.contains(l) {
                self.mark(l, if decoded { EVENT } else { DIAGNOSED });
            }
        }
    }

    /// Lines `first + 1 ..= last` belong to the record that begins at `first`.
    pub(crate) fn span(&mut self, first: u64, last: u64) {
        if last > first {
            for l in first + 1..=last {
                self.pending.remove(l);
            }
            if self.marks.is_some() {
                self.spans.push((first, last));
            }
        }
    }
}

/// The totals over every input of the run.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    inputs: u64,
    lines_read: u64,
    in_records: u64,
    absorbed: u64,
    in_debug: u64,
    diagnosed: u64,
    blank: u64,
    unaccounted: u64,
    /// `file:line` of the first unaccounted lines.
    unaccounted_at: Vec<String>,
    records: BTreeMap<&'static str, u64>,
    debug_by_raw_kind: BTreeMap<String, u64>,
    /// Absorbed lines by the name of where they went.
    absorbed_by: BTreeMap<String, u64>,
}

impl Stats {
    /// A record was written.
    pub(crate) fn record_written(&mut self, item: &TranscriptItem) {
        let kind = match item {
            TranscriptItem::Session(_) => "session",
            TranscriptItem::Turn(_) => "turn",
            TranscriptItem::Notice(_) => "notice",
            TranscriptItem::Debug(_) => "debug",
        };
        *self.records.entry(kind).or_default() += 1;
    }

    /// A `debug` event was decoded: counted by what its raw line said it was.
    pub(crate) fn debug_event(&mut self, event: &Event) {
        if let EventKind::Debug { raw, .. } = &event.kind {
            *self.debug_by_raw_kind.entry(raw_kind(raw)).or_default() += 1;
        }
    }

    /// Classifies one finished input's lines.
    pub(crate) fn close(&mut self, file: &str, ledger: Ledger) {
        let Some(mut marks) = ledger.marks else {
            return;
        };
        self.inputs += 1;
        let marks = &mut marks;
        for &(first, last) in &ledger.spans {
            let head = usize::try_from(first).unwrap_or(usize::MAX).wrapping_sub(1);
            let Some(&flag) = marks.get(head) else {
                continue;
            };
            let end = usize::try_from(last).unwrap_or(usize::MAX).min(marks.len());
            for m in marks.iter_mut().take(end).skip(head + 1) {
                *m |= flag & !BLANK;
            }
        }
        let mut absorbed_as: BTreeMap<u64, String> = BTreeMap::new();
        for (line, what) in ledger.absorbed_as {
            absorbed_as.entry(line).or_insert(what);
        }
        for (i, &m) in marks.iter().enumerate() {
            self.lines_read += 1;
            if m & DEBUG != 0 {
                self.in_debug += 1;
            } else if m & EVENT != 0 {
                self.in_records += 1;
            } else if m & ABSORBED != 0 {
                self.absorbed += 1;
                let what = absorbed_as.remove(&(i as u64 + 1)).unwrap_or_default();
                *self.absorbed_by.entry(what).or_default() += 1;
            } else if m & DIAGNOSED != 0 {
                self.diagnosed += 1;
            } else if m & BLANK != 0 {
                self.blank += 1;
            } else {
                self.unaccounted += 1;
                if self.unaccounted_at.len() < SHOWN_UNACCOUNTED {
                    self.unaccounted_at.push(format!("{file}:{}", i + 1));
                }
            }
        }
    }

    /// Adds the totals of `other` (an input converted on its own, `--jobs`).
    pub(crate) fn absorb(&mut self, other: Stats) {
        self.inputs += other.inputs;
        self.lines_read += other.lines_read;
        self.in_records += other.in_records;
        self.absorbed += other.absorbed;
        self.in_debug += other.in_debug;
        self.diagnosed += other.diagnosed;
        self.blank += other.blank;
        self.unaccounted += other.unaccounted;
        let room = SHOWN_UNACCOUNTED.saturating_sub(self.unaccounted_at.len());
        self.unaccounted_at
            .extend(other.unaccounted_at.into_iter().take(room));
        add_counts(&mut self.records, other.records);
        add_counts(&mut self.absorbed_by, other.absorbed_by);
        add_counts(&mut self.debug_by_raw_kind, other.debug_by_raw_kind);
    }

    /// Prints the account on stderr.
    pub(crate) fn print(&self, diagnostics: &BTreeMap<String, u64>) -> std::io::Result<()> {
        let w = &mut std::io::stderr().lock();
        writeln!(
            w,
            "scribe: stats: {} input(s), {} lines read = {} in records + {} absorbed + {} in debug \
             records + {} with a diagnostic + {} blank + {} unaccounted",
            self.inputs,
            self.lines_read,
            self.in_records,
            self.absorbed,
            self.in_debug,
            self.diagnosed,
            self.blank,
            self.unaccounted
        )?;
        if !self.unaccounted_at.is_empty() {
            writeln!(
                w,
                "scribe: stats: unaccounted lines: {}",
                self.unaccounted_at.join(", ")
            )?;
        }
        for (what, counts) in [
            ("records written", tally(&self.records)),
            (
                "absorbed lines by where they went",
                tally(&self.absorbed_by),
            ),
            ("debug records by raw kind", tally(&self.debug_by_raw_kind)),
            ("diagnostics", tally(diagnostics)),
        ] {
            writeln!(w, "scribe: stats: {what}: {counts}")?;
        }
        Ok(())
    }
}

/// Adds the counts of `from` to `into`, key by key (the totals of inputs converted apart).
pub(crate) fn add_counts<K: Ord>(into: &mut BTreeMap<K, u64>, from: BTreeMap<K, u64>) {
    for (k, n) in from {
        *into.entry(k).or_default() += n;
    }
}

/// `a 3, b 1`, or `none`.
fn tally<K: AsRef<str>>(counts: &BTreeMap<K, u64>) -> String {
    if counts.is_empty() {
        return "none".to_owned();
    }
    counts
        .iter()
        .map(|(k, n)| format!("{} {n}", k.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a raw line said it was: its `type` (or `event`, `kind`), or what kind of non-object it is.
fn raw_kind(raw: &str) -> String {
    let kind = match scribe_json::parse_line(raw.trim_start_matches("data:").trim()) {
        Ok(Value::Object(o)) => ["type", "event", "kind"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .map_or_else(
                || "(object without type)".to_owned(),
                |t| format!("type={t}"),
            ),
        Ok(_) => "(JSON, not an object)".to_owned(),
        Err(_) => "(not JSON)".to_owned(),
    };
    printable(&kind, 40)
}

/// `s` cut to `max` characters, with control and invisible characters (which could drive a
/// terminal, or hide or reorder what is printed: `\x1b`, U+202E, U+2028, U+FEFF) made visible as
/// the terminal view shows them.
pub(crate) fn printable(s: &str, max: usize) -> String {
    let cut: String = s.chars().take(max).collect();
    let mut out = crate::sanitize::sanitize(&cut)
        .replace('\n', "\\n")
        .replace('\t', "\\t");
    if s.chars().count() > max {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod line_set_tests {
    use super::LineSet;

    /// The set holds what was put in and not taken out, in order, from any starting line.
    #[test]
    fn a_line_set_is_a_set() {
        let mut s = LineSet::default();
        let mut model = std::collections::BTreeSet::new();
        for n in [70u64, 71, 200, 64, 3, 1000, 1001] {
            s.insert(n);
            model.insert(n);
        }
        for n in [71u64, 3, 5, 1000] {
            s.remove(n);
            model.remove(&n);
        }
        for n in 0..1100 {
            assert_eq!(s.contains(n), model.contains(&n), "{n}");
        }
        assert_eq!(s.take(), model.into_iter().collect::<Vec<_>>());
        assert!(!s.contains(70));
    }

    /// Lines named as they come (a stream) leave the set a word or two, however many are read.
    #[test]
    fn a_stream_keeps_a_few_words() {
        let mut s = LineSet::default();
        for n in 1..100_000u64 {
            s.insert(n);
            s.remove(n);
        }
        assert!(s.words.len() <= 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_inherit_their_head_line_class() {
        let mut ledger = Ledger::new(true);
        for (i, blank) in [false, false, false, true].into_iter().enumerate() {
            ledger.read(i as u64 + 1, blank);
        }
        ledger.mark(1, EVENT);
        ledger.span(1, 4);
        let mut stats = Stats::default();
        stats.close("f", ledger);
        assert_eq!(
            (stats.in_records, stats.blank, stats.unaccounted),
            (4, 0, 0)
        );
    }

    #[test]
    fn an_unmarked_line_is_unaccounted() {
        let mut ledger = Ledger::new(true);
        ledger.read(1, false);
        ledger.read(2, false);
        ledger.mark(2, DIAGNOSED);
        let mut stats = Stats::default();
        stats.close("f", ledger);
        assert_eq!(stats.unaccounted_at, vec!["f:1".to_owned()]);
    }

    #[test]
    fn raw_kinds_name_the_type_or_the_shape() {
        assert_eq!(raw_kind(r#"{"type":"x"}"#), "type=x");
        assert_eq!(raw_kind("12"), "(JSON, not an object)");
        assert_eq!(raw_kind("garbage"), "(not JSON)");
        assert_eq!(
            raw_kind("{\"type\":\"a\\u202eb\\u2028c\\ufeffd\\u001be\\nf\"}"),
            "type=a<U+202E>b<U+2028>c<U+FEFF>d\\x1be\\nf"
        );
    }
}
