//! Edit, MultiEdit and Write calls as a diff.
//!
//! The harness's own `structuredPatch` (in the call's sidecar) is used when it has hunks; without
//! it the diff is built from the input by `render::summary::file_diff` (shared with the text and
//! Markdown views), with a few lines of context.

use serde_json::Value;

use super::escape::Html;
use crate::model::tool_kind::ToolKind;
use crate::render::summary::{DiffLine, changed_file, file_diff};

/// Lines of shared context kept at either end of a computed hunk.
const CONTEXT: usize = 3;

/// Writes the file path and the change it received.
pub(crate) fn push_file_change(h: &mut Html, kind: &ToolKind, sidecar: Option<&Value>) {
    h.raw_trusted("<p class=\"path\">")
        .text(changed_file(kind))
        .raw_trusted("</p><pre class=\"diff\">");
    let patch = sidecar
        .and_then(|v| v.get("structuredPatch"))
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty());
    if let Some(hunks) = patch {
        for hunk in hunks {
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

/// One hunk of the harness's structured patch: `@@` header and prefixed lines.
fn push_hunk(h: &mut Html, hunk: &Value) {
    let n = |k: &str| hunk.get(k).and_then(Value::as_u64).unwrap_or(0);
    h.raw_trusted("<span class=\"hunk\">@@ -")
        .num(n("oldStart"))
        .raw_trusted(",")
        .num(n("oldLines"))
        .raw_trusted(" +")
        .num(n("newStart"))
        .raw_trusted(",")
        .num(n("newLines"))
        .raw_trusted(" @@\n</span>");
    let lines = hunk.get("lines").and_then(Value::as_array);
    for line in lines.into_iter().flatten().filter_map(Value::as_str) {
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
    use serde_json::json;

    #[test]
    fn computed_diff_keeps_shared_lines_as_context() {
        let mut h = Html::default();
        let kind = ToolKind::Edit {
            path: "a.txt".into(),
            old: "x\ny\nz".into(),
            new: "x\nY\nz".into(),
        };
        push_file_change(&mut h, &kind, None);
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
    fn structured_patch_wins() {
        let mut h = Html::default();
        let side = json!({"structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+<b>"]}]});
        let kind = ToolKind::Edit {
            path: "f".into(),
            old: String::new(),
            new: String::new(),
        };
        push_file_change(&mut h, &kind, Some(&side));
        assert!(h.as_str().contains("@@ -1,1 +1,1 @@"));
        assert!(h.as_str().contains("+&lt;b&gt;"));
    }
}
