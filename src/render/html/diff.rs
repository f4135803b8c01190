//! Edit, MultiEdit and Write calls as a diff.
//!
//! The harness's own hunks (the call's `facts`, read by the adapter) are used when it reported
//! them; without them the diff is built from the kind by `render::summary::file_diff` (shared with the text and
//! Markdown views), with a few lines of context.

use super::escape::Html;
use crate::model::tool_kind::{DiffHunk, ResultFacts, ToolKind};
use crate::render::summary::{DiffLine, changed_file, file_diff};

/// Lines of shared context kept at either end of a computed hunk.
const CONTEXT: usize = 3;

/// Writes the file path and the change it received.
pub(crate) fn push_file_change(h: &mut Html, kind: &ToolKind, facts: &ResultFacts) {
    h.raw_trusted("<p class=\"path\">")
        .text(changed_file(kind))
        .raw_trusted("</p><pre class=\"diff\">");
    if !facts.hunks.is_empty() {
        for hunk in &facts.hunks {
            push_hunk(h, hunk);
        }
    } else {
        let lines = file_diff(kind, CONTEXT).unwrap_or_default();
        for line in lines {
            match line {
                DiffLine::Gap => {
                    h.raw_trusted("<span class=\"hunk\">…\n</span>");
                }
                DiffLine::Ctx(l) => push_line(h, ' ', &l),
                DiffLine::Del(l) => push_line(h, '-', &l),
                DiffLine::Add(l) => push_line(h, '+', &l),
            }
        }
    }
    h.raw_trusted("</pre>");
}

/// One hunk the harness reported: `@@` header and prefixed lines.
fn push_hunk(h: &mut Html, hunk: &DiffHunk) {
    h.raw_trusted("<span class=\"hunk\">@@ -")
        .num(hunk.old_start)
        .raw_trusted(",")
        .num(hunk.old_lines)
        .raw_trusted(" +")
        .num(hunk.new_start)
        .raw_trusted(",")
        .num(hunk.new_lines)
        .raw_trusted(" @@\n</span>");
    for line in &hunk.lines {
        let mut chars = line.chars();
        match chars.next() {
            Some(c @ ('+' | '-' | ' ')) => push_line(h, c, chars.as_str()),
            _ => push_line(h, ' ', line),
        }
    }
}

fn push_line(h: &mut Html, mark: char, line: &str) {
    let class = match mark {
        '+' => "add",
        '-' => "del",
        _ => "ctx",
    };
    let mut m = [0u8; 4];
    h.raw_trusted("<span class=\"")
        .raw_trusted(class)
        .raw_trusted("\">")
        .text(mark.encode_utf8(&mut m))
        .text(line)
        .raw_trusted("\n</span>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computed_diff_keeps_shared_lines_as_context() {
        let mut h = Html::default();
        let kind = ToolKind::Edit {
            path: "a.txt".into(),
            old: "x\ny\nz".into(),
            new: "x\nY\nz".into(),
        };
        push_file_change(&mut h, &kind, &ResultFacts::default());
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
        };
        let kind = ToolKind::Edit {
            path: "f".into(),
            old: String::new(),
            new: String::new(),
        };
        push_file_change(&mut h, &kind, &facts);
        assert!(h.as_str().contains("@@ -1,1 +1,1 @@"));
        assert!(h.as_str().contains("+&lt;b&gt;"));
    }
}
