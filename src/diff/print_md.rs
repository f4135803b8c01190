//! `scribe diff --to md`: the differences as GitHub Markdown, for a pull-request comment or
//! `$GITHUB_STEP_SUMMARY`. A count, then each record that differs under its own heading with
//! the readable report of its differences in a `diff` block; at most [`LIMIT`] characters (a
//! GitHub comment's), saying what it left out and the command that shows everything.

use std::io::{self, Write};
use std::path::Path;

use super::compare::{Change, Kind};
use crate::render::markdown::escape::{code_span, fenced, inline};

/// The most characters the report holds: GitHub refuses a longer comment.
pub(crate) const LIMIT: usize = 65_536;

/// Room kept for the closing note when records are left out.
const NOTE_ROOM: usize = 600;

/// Writes the report of `changes` between the files `old` and `new`.
pub(crate) fn markdown(
    out: &mut dyn Write,
    changes: &[Change],
    old: &Path,
    new: &Path,
) -> io::Result<()> {
    let groups = by_record(changes);
    let mut doc = heading(&groups, old, new);
    let mut chars = doc.chars().count();
    let mut shown = 0;
    for group in &groups {
        let section = section(group)?;
        let more = section.chars().count();
        if chars + more + NOTE_ROOM > LIMIT {
            break;
        }
        doc.push_str(&section);
        chars += more;
        shown += 1;
    }
    if shown < groups.len() {
        let left: usize = groups[shown..].iter().map(|g| g.len()).sum();
        doc.push_str(&format!(
            "_{} more record(s) with {left} difference(s) are not shown: a comment holds at most \
             {LIMIT} characters. {} shows them all._\n",
            groups.len() - shown,
            code_span(&format!("scribe diff {} {}", old.display(), new.display())),
        ));
    }
    out.write_all(doc.as_bytes())
}

/// The changes, in runs that concern one top-level record (a whole record added or removed is
/// a run of its own).
fn by_record(changes: &[Change]) -> Vec<&[Change]> {
    let inside =
        |a: &Change, b: &Change| a.item == b.item && !a.path.is_empty() && !b.path.is_empty();
    changes.chunk_by(inside).collect()
}

/// The title and the counts.
fn heading(groups: &[&[Change]], old: &Path, new: &Path) -> String {
    let count = |kind: Kind| {
        groups
            .iter()
            .filter(|g| g.len() == 1 && g[0].path.is_empty() && g[0].kind == kind)
            .count()
    };
    let (added, removed) = (count(Kind::Added), count(Kind::Removed));
    let changed = groups.len() - added - removed;
    let files = format!(
        "{} → {}",
        inline(&old.display().to_string()),
        inline(&new.display().to_string())
    );
    if groups.is_empty() {
        return format!("### scribe diff: the runs did the same things\n\n{files}\n");
    }
    format!(
        "### scribe diff: {} record(s) differ\n\n{files}: {changed} changed, {added} added, \
         {removed} removed.\n\n",
        groups.len()
    )
}

/// One record's heading and its differences, as the text report shows them, in a `diff` block.
fn section(group: &[Change]) -> io::Result<String> {
    let first = &group[0];
    let sign = match (first.path.is_empty(), first.kind) {
        (true, Kind::Added) => '+',
        (true, Kind::Removed) => '-',
        _ => '~',
    };
    let mut report = Vec::new();
    super::print::text(&mut report, group, false)?;
    let report = String::from_utf8_lossy(&report);
    let mut out = format!("#### {sign} {}\n\n", inline(&first.item));
    fenced(&mut out, "diff", &report);
    Ok(out)
}
