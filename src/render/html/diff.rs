//! Edit, MultiEdit and Write calls as a diff.
//!
//! The harness's own hunks (the call's `facts`, read by the adapter) are used when it reported
//! them; without them the diff is the one the call's input describes (`model::file_change`,
//! shared with the text and Markdown views), with a few lines of context.
//!
//! Lines are highlighted by the file's language (the old side and the new side each parsed in
//! order, so a string or comment that spans lines stays right), and inside a removed line and
//! the added line that replaced it, the words that changed are marked.

use std::ops::Range;

use scribe_highlight::{Highlighter, Language, Segment};
use similar::{Algorithm, DiffTag, capture_diff_slices};

use super::code::span_open;
use super::escape::{Html, Pieces};
use super::open::DIFF_PREVIEW_LINES;
use crate::model::file_change::{DiffLine, FileChange};
use crate::model::tool_kind::{DiffHunk, ResultFacts};

/// Lines longer than this are compared whole, not word by word.
const MAX_WORD_DIFF: usize = 1_000;

/// The changed byte ranges of a removed line and of the added line paired with it.
type WordMarks = (Vec<Range<usize>>, Vec<Range<usize>>);

/// One line of the diff as written: its mark and text, or a hunk header.
enum Row {
    Hunk(String),
    Line(char, String),
}

/// Lines of shared context kept at either end of a computed hunk.
const CONTEXT: usize = 3;

/// Writes the file path and the change it received.
pub(crate) fn push_file_change(h: &mut Html, change: &FileChange<'_>, facts: &ResultFacts) {
    let path = change.path;
    h.raw_trusted("<p class=\"path\">")
        .text(path)
        .raw_trusted("</p>");
    let mut rows = Vec::new();
    if !facts.hunks.is_empty() {
        for hunk in &facts.hunks {
            hunk_rows(hunk, &mut rows);
        }
    } else {
        for line in change.diff(CONTEXT) {
            rows.push(match line {
                DiffLine::Gap => Row::Hunk("…".to_owned()),
                DiffLine::Ctx(l) => Row::Line(' ', l),
                DiffLine::Del(l) => Row::Line('-', l),
                DiffLine::Add(l) => Row::Line('+', l),
            });
        }
    }
    let lang = scribe_highlight::language(path);
    let class = if lang.is_some() { "diff hl" } else { "diff" };
    h.raw_trusted("<pre class=\"")
        .raw_trusted(class)
        .raw_trusted("\">");
    let mut fold = Fold::new(rows.len(), class);
    push_rows(h, &rows, lang, &mut fold);
    h.raw_trusted("</pre>");
    fold.close(h);
}

/// Where a long diff (a whole file written, a large edit) is cut: its first
/// [`DIFF_PREVIEW_LINES`] rows shown, the rest behind a "show all N lines" toggle, as a long
/// output's are, so that one write does not make the page thousands of pixels tall. Each side
/// stays highlighted in order across the cut.
struct Fold {
    /// The row the toggle opens before, when the diff is long enough to cut.
    at: Option<usize>,
    /// Rows written so far.
    written: usize,
    /// All the rows.
    total: usize,
    /// The class of the diff's `<pre>`, repeated on the part behind the toggle.
    class: &'static str,
}

impl Fold {
    /// The cut of a diff of `total` rows (none when it would hide only a few).
    fn new(total: usize, class: &'static str) -> Fold {
        let at =
            crate::render::worth_cutting(total, DIFF_PREVIEW_LINES).then_some(DIFF_PREVIEW_LINES);
        Fold {
            at,
            written: 0,
            total,
            class,
        }
    }

    /// Called before each row: opens the toggle when this row is the first one behind it.
    fn row(&mut self, h: &mut Html) {
        if self.at == Some(self.written) {
            h.raw_trusted("</pre>")
                .show_all(self.total)
                .raw_trusted("<pre class=\"")
                .raw_trusted(self.class)
                .raw_trusted(" cont\">");
        }
        self.written += 1;
    }

    /// Closes the toggle after the diff's `<pre>` when one was opened.
    fn close(&self, h: &mut Html) {
        if self.at.is_some_and(|at| at < self.written) {
            h.raw_trusted("</details>");
        }
    }
}

/// One hunk the harness reported: `@@` header and prefixed lines.
fn hunk_rows(hunk: &DiffHunk, rows: &mut Vec<Row>) {
    rows.push(Row::Hunk(format!(
        "@@ -{},{} +{},{} @@",
        hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
    )));
    for line in &hunk.lines {
        let mut chars = line.chars();
        rows.push(match chars.next() {
            Some(c @ ('+' | '-' | ' ')) => Row::Line(c, chars.as_str().to_owned()),
            _ => Row::Line(' ', line.to_owned()),
        });
    }
}

/// Writes the rows: each side highlighted in order for `lang`, changed words marked in paired
/// lines.
fn push_rows(h: &mut Html, rows: &[Row], lang: Option<&'static Language>, fold: &mut Fold) {
    let mut old = Highlighter::new(lang);
    let mut new = Highlighter::new(lang);
    let mut i = 0;
    while i < rows.len() {
        match &rows[i] {
            Row::Hunk(text) => {
                fold.row(h);
                h.raw_trusted("<span class=\"hunk\">")
                    .text(text)
                    .raw_trusted("\n</span>");
                i += 1;
            }
            Row::Line(' ', l) => {
                // A shared line is parsed once while both sides are in step (the usual case:
                // an edit rarely leaves a comment or a string open).
                let in_step = old.in_step_with(&new);
                if !in_step {
                    old.line(l);
                }
                let segs = new.line(l);
                fold.row(h);
                push_line(h, ' ', l, segs, &[]);
                if in_step {
                    old.catch_up(&new);
                }
                i += 1;
            }
            Row::Line(_, _) => {
                // A block of removed lines, then the added lines that replace them.
                let dels: Vec<&str> = take_run(&rows[i..], '-');
                let adds: Vec<&str> = take_run(&rows[i + dels.len()..], '+');
                let marks: Vec<WordMarks> = dels
                    .iter()
                    .zip(&adds)
                    .map(|(a, b)| changed_words(a, b))
                    .collect();
                for (k, l) in dels.iter().enumerate() {
                    let segs = old.line(l);
                    let m = marks.get(k).map_or(&[][..], |m| &m.0[..]);
                    fold.row(h);
                    push_line(h, '-', l, segs, m);
                }
                for (k, l) in adds.iter().enumerate() {
                    let segs = new.line(l);
                    let m = marks.get(k).map_or(&[][..], |m| &m.1[..]);
                    fold.row(h);
                    push_line(h, '+', l, segs, m);
                }
                i += dels.len() + adds.len();
                if dels.is_empty() && adds.is_empty() {
                    i += 1;
                }
            }
        }
    }
}

/// The texts of the rows at the start of `rows` marked `mark`.
fn take_run(rows: &[Row], mark: char) -> Vec<&str> {
    rows.iter()
        .map_while(|r| match r {
            Row::Line(m, l) if *m == mark => Some(l.as_str()),
            Row::Line(..) | Row::Hunk(_) => None,
        })
        .collect()
}

/// Splits a line into words, runs of spaces and single punctuation marks.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut prev: Option<u8> = None;
    for (i, c) in s.char_indices() {
        let k = class(c);
        if i > start && (prev != Some(k) || k == 2) {
            out.push(&s[start..i]);
            start = i;
        }
        prev = Some(k);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The byte ranges that differ between a removed line and its replacement; none when the lines
/// share too little for marks to help (the whole line is the change then).
fn changed_words(old: &str, new: &str) -> WordMarks {
    if old.len() > MAX_WORD_DIFF || new.len() > MAX_WORD_DIFF {
        return (vec![], vec![]);
    }
    let a = tokens(old);
    let b = tokens(new);
    // Marks help only when most of the line stayed (checked again below on what the diff
    // kept): the tokens the lines share, counted as multisets, bound what any diff can keep,
    // so lines that share too little skip the diff, whose cost grows with how much differs.
    if shared_bytes(&a, &b) * 2 < old.len().max(new.len()) {
        return (vec![], vec![]);
    }
    let offsets = |t: &[&str]| {
        let mut at = 0;
        let mut v = Vec::with_capacity(t.len() + 1);
        for s in t {
            v.push(at);
            at += s.len();
        }
        v.push(at);
        v
    };
    let (oa, ob) = (offsets(&a), offsets(&b));
    let mut ra = Vec::new();
    let mut rb = Vec::new();
    let mut same = 0;
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (tag, x, y) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => same += oa[x.end] - oa[x.start],
            DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                if !x.is_empty() {
                    ra.push(oa[x.start]..oa[x.end]);
                }
                if !y.is_empty() {
                    rb.push(ob[y.start]..ob[y.end]);
                }
            }
        }
    }
    // Marks help only when most of the line stayed.
    if same * 2 < old.len().max(new.len()) {
        return (vec![], vec![]);
    }
    (ra, rb)
}

/// The bytes of the tokens `a` and `b` have in common, each token counted as often as it is in
/// both: no common subsequence of the two holds more.
fn shared_bytes(a: &[&str], b: &[&str]) -> usize {
    let mut counts: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    for t in a {
        *counts.entry(t).or_default() += 1;
    }
    let mut shared = 0;
    for t in b {
        if let Some(n) = counts.get_mut(t)
            && *n > 0
        {
            *n -= 1;
            shared += t.len();
        }
    }
    shared
}

/// One diff line: its syntax segments, with the changed ranges marked `w`.
fn push_line(h: &mut Html, mark: char, line: &str, segs: &[Segment], changed: &[Range<usize>]) {
    // The line's tag and mark, written whole for the three marks a diff has.
    match mark {
        '+' => h.raw_trusted("<span class=\"add\">+"),
        '-' => h.raw_trusted("<span class=\"del\">-"),
        ' ' => h.raw_trusted("<span class=\"ctx\"> "),
        other => h
            .raw_trusted("<span class=\"ctx\">")
            .text(other.encode_utf8(&mut [0u8; 4])),
    };
    // The segments tile the line and the changed ranges are in order and apart: one walk over
    // both cuts the line where either starts or ends.
    let pieces = Pieces::new(line);
    let (mut seg, mut hit) = (segs.iter().peekable(), changed.iter().peekable());
    let mut a = 0;
    while a < line.len() {
        while seg.next_if(|(r, _)| r.end <= a).is_some() {}
        while hit.next_if(|r| r.end <= a).is_some() {}
        let (mut b, mut syn) = (line.len(), None);
        match seg.peek() {
            Some((r, c)) if r.start <= a => (b, syn) = (r.end, *c),
            Some((r, _)) => b = r.start,
            None => {}
        }
        let in_change = match hit.peek() {
            Some(r) if r.start <= a => {
                b = b.min(r.end);
                true
            }
            Some(r) => {
                b = b.min(r.start);
                false
            }
            None => false,
        };
        let piece = a..b;
        a = b;
        if !line.is_char_boundary(piece.start) || !line.is_char_boundary(piece.end) {
            continue;
        }
        match (syn, in_change) {
            (None, false) => {
                h.text_piece(&pieces, piece);
            }
            (Some(c), false) => {
                h.raw_trusted(span_open(c))
                    .text_piece(&pieces, piece)
                    .raw_trusted("</span>");
            }
            (c, true) => {
                h.raw_trusted("<span class=\"w");
                if let Some(c) = c {
                    h.raw_trusted(" ").raw_trusted(c.css());
                }
                h.raw_trusted("\">")
                    .text_piece(&pieces, piece)
                    .raw_trusted("</span>");
            }
        }
    }
    h.raw_trusted("\n</span>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::file_change::Edit;

    #[test]
    fn computed_diff_keeps_shared_lines_as_context() {
        let mut h = Html::default();
        let change = FileChange::new(
            "a.txt",
            Edit::Replace {
                old: "x\ny\nz",
                new: "x\nY\nz",
            },
        );
        push_file_change(&mut h, &change, &ResultFacts::default());
        let out = h.as_str();
        assert!(
            out.contains(concat!(
                "<span class=\"ctx\"> x\n</span><span class=\"del\">-y\n</span>",
                "<span class=\"add\">+Y\n</span><span class=\"ctx\"> z\n</span>"
            )),
            "{out}"
        );
    }

    #[test]
    fn changed_words_are_marked() {
        let mut h = Html::default();
        let change = FileChange::new(
            "a.txt",
            Edit::Replace {
                old: "let total = 1;",
                new: "let total = 2;",
            },
        );
        push_file_change(&mut h, &change, &ResultFacts::default());
        let out = h.as_str();
        assert!(
            out.contains("-let total = <span class=\"w\">1</span>;"),
            "{out}"
        );
        assert!(
            out.contains("+let total = <span class=\"w\">2</span>;"),
            "{out}"
        );
    }

    #[test]
    fn reported_hunks_win() {
        let mut h = Html::default();
        let facts = ResultFacts {
            lines_read: None,
            hunks: vec![DiffHunk {
                old_start: 1,
                old_lines: 1,
                new_start: 1,
                new_lines: 1,
                lines: vec!["-a".into(), "+<b>".into()],
            }],
            duration_ms: None,
            exit_code: None,
            persisted_preview: None,
        };
        let change = FileChange::new("f", Edit::Replace { old: "", new: "" });
        push_file_change(&mut h, &change, &facts);
        assert!(h.as_str().contains("@@ -1,1 +1,1 @@"));
        assert!(h.as_str().contains("+&lt;b&gt;"));
    }

    /// The marks of the word diff as first written: the diff always run, then the share of the
    /// line it kept checked. The bound that skips the diff must never change them.
    fn marks_reference(old: &str, new: &str) -> WordMarks {
        let (a, b) = (tokens(old), tokens(new));
        let at = |t: &[&str], k: usize| t[..k].iter().map(|s| s.len()).sum::<usize>();
        let (mut ra, mut rb, mut same) = (Vec::new(), Vec::new(), 0);
        for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
            let (tag, x, y) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                same += at(&a, x.end) - at(&a, x.start);
                continue;
            }
            if !x.is_empty() {
                ra.push(at(&a, x.start)..at(&a, x.end));
            }
            if !y.is_empty() {
                rb.push(at(&b, y.start)..at(&b, y.end));
            }
        }
        if same * 2 < old.len().max(new.len()) {
            return (vec![], vec![]);
        }
        (ra, rb)
    }

    /// A diff line as first written: every cut collected and sorted, each piece's class and
    /// mark looked up among all the segments and ranges.
    fn line_reference(line: &str, segs: &[Segment], changed: &[Range<usize>]) -> String {
        let mut h = Html::default();
        let mut cuts: Vec<usize> = segs.iter().flat_map(|(r, _)| [r.start, r.end]).collect();
        cuts.extend(changed.iter().flat_map(|r| [r.start, r.end]));
        cuts.extend([0, line.len()]);
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let Some(text) = line.get(w[0]..w[1]) else {
                continue;
            };
            let inside = |r: &Range<usize>| r.start <= w[0] && w[1] <= r.end;
            let syn = segs.iter().find(|(r, _)| inside(r)).and_then(|(_, c)| *c);
            match (syn, changed.iter().any(inside)) {
                (None, false) => h.text(text),
                (Some(c), false) => h
                    .raw_trusted("<span class=\"")
                    .raw_trusted(c.css())
                    .raw_trusted("\">")
                    .text(text)
                    .raw_trusted("</span>"),
                (c, true) => h
                    .raw_trusted("<span class=\"w")
                    .raw_trusted(c.map_or("", |_| " "))
                    .raw_trusted(c.map_or("", |c| c.css()))
                    .raw_trusted("\">")
                    .text(text)
                    .raw_trusted("</span>"),
            };
        }
        h.as_str().to_owned()
    }

    proptest::proptest! {
        #[test]
        fn the_bound_never_changes_the_marks(
            [head, x, y, tail] in proptest::array::uniform4("([a-c_ ]|[(){};=]|é){0,12}"),
        ) {
            let (old, new) = (format!("{head}{x}{tail}"), format!("{head}{y}{tail}"));
            proptest::prop_assert_eq!(changed_words(&old, &new), marks_reference(&old, &new));
        }

        #[test]
        fn one_walk_cuts_lines_as_the_sort_did(
            [head, x, y, tail] in proptest::array::uniform4("([a-c_ ]|[(){};=\"/]|é){0,12}"),
        ) {
            // Two lines that share their ends, as an edit's usually do, so that words are marked.
            let (old, new) = (format!("{head}{x}{tail}"), format!("{head}{y}{tail}"));
            let lang = scribe_highlight::language("rs");
            let marks = changed_words(&old, &new);
            for (line, changed) in [(&old, &marks.0), (&new, &marks.1)] {
                let mut hl = Highlighter::new(lang);
                let segs = hl.line(line).to_vec();
                let mut h = Html::default();
                push_line(&mut h, '+', line, &segs, changed);
                let want = format!("<span class=\"add\">+{}\n</span>", line_reference(line, &segs, changed));
                proptest::prop_assert_eq!(h.as_str(), want);
            }
        }
    }
}
