//! The change an edit, multi-edit or write call makes to a file, as its input says it, and the
//! diff a reader is shown of it.
//!
//! Exists so that the terminal, Markdown and HTML views show the same change from a call's input
//! (each styles the lines its own way). The harness's own hunks, when it reported them, are in
//! the call's `facts`; this is the change when it did not.

use super::tool_kind::TextEdit;

/// A change to one file, read from a call's input (`ToolKind::input_shape`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileChange<'a> {
    /// The file changed (empty when the call did not say).
    pub(crate) path: &'a str,
    edit: Edit<'a>,
}

/// What a file change does to the file.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Edit<'a> {
    /// One piece of text replaced by another.
    Replace { old: &'a str, new: &'a str },
    /// Several replacements, in order.
    Several(&'a [TextEdit]),
    /// The whole file written with this content.
    Whole(&'a str),
}

/// One line of a file change shown as a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DiffLine {
    /// A separator between two edits of one multi-edit.
    Gap,
    /// An unchanged line kept around a change (only when context lines were asked for).
    Ctx(String),
    Del(String),
    Add(String),
}

impl<'a> FileChange<'a> {
    /// The change `edit` to the file `path`.
    pub(crate) fn new(path: &'a str, edit: Edit<'a>) -> FileChange<'a> {
        FileChange { path, edit }
    }

    /// True when the whole file was written, not edited in place.
    pub(crate) fn writes_whole_file(&self) -> bool {
        match self.edit {
            Edit::Whole(_) => true,
            Edit::Replace { .. } | Edit::Several(_) => false,
        }
    }

    /// The lines that differ, with up to `context` unchanged lines kept on either side of each
    /// edit (common leading and trailing lines dropped past that), or the whole new content for
    /// a write. The one place a diff is computed from a call.
    pub(crate) fn diff(&self, context: usize) -> Vec<DiffLine> {
        let mut out = Vec::new();
        match self.edit {
            Edit::Replace { old, new } => pair_diff(old, new, context, &mut out),
            Edit::Several(edits) => {
                for (i, e) in edits.iter().enumerate() {
                    if i > 0 {
                        out.push(DiffLine::Gap);
                    }
                    pair_diff(&e.old, &e.new, context, &mut out);
                }
            }
            Edit::Whole(content) => {
                out.extend(content.lines().map(|l| DiffLine::Add(l.to_owned())));
            }
        }
        out
    }
}

/// A diff of two strings: the shared first and last lines are context (at most `context` of
/// each kept), the middle is removed and added. Not minimal, but exact and cheap.
fn pair_diff(old: &str, new: &str, context: usize, out: &mut Vec<DiffLine>) {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let line = |l: &&str| (*l).to_owned();
    out.extend(
        a[head.saturating_sub(context)..head]
            .iter()
            .map(line)
            .map(DiffLine::Ctx),
    );
    out.extend(a[head..a.len() - tail].iter().map(line).map(DiffLine::Del));
    out.extend(b[head..b.len() - tail].iter().map(line).map(DiffLine::Add));
    out.extend(
        a[a.len() - tail..]
            .iter()
            .take(context)
            .map(line)
            .map(DiffLine::Ctx),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tool_kind::{InputShape, ToolKind};

    fn change(kind: &ToolKind) -> Option<FileChange<'_>> {
        match kind.input_shape() {
            InputShape::FileChange(c) => Some(c),
            InputShape::Command { .. }
            | InputShape::Checklist(_)
            | InputShape::Plan(_)
            | InputShape::Subagent
            | InputShape::Answer
            | InputShape::Fields => None,
        }
    }

    #[test]
    fn edit_keeps_only_changed_lines() {
        let kind = ToolKind::Edit {
            path: String::new(),
            old: "a\nb\nc".into(),
            new: "a\nB\nc".into(),
        };
        let c = change(&kind).unwrap();
        assert_eq!(
            c.diff(0),
            [DiffLine::Del("b".into()), DiffLine::Add("B".into())]
        );
        assert_eq!(
            c.diff(3),
            [
                DiffLine::Ctx("a".into()),
                DiffLine::Del("b".into()),
                DiffLine::Add("B".into()),
                DiffLine::Ctx("c".into())
            ]
        );
        assert!(!c.writes_whole_file());
        assert!(change(&ToolKind::Other { subject: None }).is_none());
    }

    #[test]
    fn a_write_is_its_whole_content_added() {
        let kind = ToolKind::Write {
            path: "a.txt".into(),
            content: "x\ny".into(),
        };
        let c = change(&kind).unwrap();
        assert_eq!(c.path, "a.txt");
        assert!(c.writes_whole_file());
        assert_eq!(
            c.diff(3),
            [DiffLine::Add("x".into()), DiffLine::Add("y".into())]
        );
    }
}
