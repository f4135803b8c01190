//! Writes `scribe diff`'s differences: a readable report (coloured when `Settings.color`), or
//! one JSON record per difference (`--to jsonl`).
//!
//! The report groups differences by record:
//!
//! ```text
//! ~ turn 3 (assistant)
//!   ~ call 1 (Bash) › output
//!     - hello from bash
//!     + goodbye from bash
//! + turn 5 (assistant)
//!     text: Let me also check the tests.
//!     call Bash {"command":"cargo test"} → success
//! ```
//!
//! Transcript text is untrusted: control characters are shown as `\u{…}` before they reach a
//! terminal.

use std::io::{self, Write};

use owo_colors::{OwoColorize, Style};
use serde::Serialize;
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::compare::{Change, Kind};

/// Longest excerpt of a whole added or removed record or value, in lines.
const MAX_LINES: usize = 12;
/// After this many lines of a text diff, the remaining places that differ are only counted.
const MAX_DIFF_LINES: usize = 200;

/// The colours of the report; all plain when colour is off.
struct Palette {
    added: Style,
    removed: Style,
    changed: Style,
    dim: Style,
}

impl Palette {
    fn new(color: bool) -> Palette {
        let shown = |style: Style| if color { style } else { Style::new() };
        Palette {
            added: shown(Style::new().green()),
            removed: shown(Style::new().red()),
            changed: shown(Style::new().yellow().bold()),
            dim: shown(Style::new().dimmed()),
        }
    }

    fn of(&self, kind: Kind) -> (Style, char) {
        match kind {
            Kind::Added => (self.added, '+'),
            Kind::Removed => (self.removed, '-'),
            Kind::Changed => (self.changed, '~'),
        }
    }
}

/// Untrusted text made safe for the terminal: the same rule as the text view (controls, bidi
/// and zero-width characters shown as visible escapes).
fn clean(s: &str) -> String {
    crate::sanitize::sanitize(s).into_owned()
}

/// The readable report.
pub(crate) fn text(out: &mut dyn Write, changes: &[Change], color: bool) -> io::Result<()> {
    let pal = Palette::new(color);
    let mut current: Option<&str> = None;
    for c in changes {
        if c.path.is_empty() {
            let (style, sign) = pal.of(c.kind);
            writeln!(out, "{}", format!("{sign} {}", clean(&c.item)).style(style))?;
            current = None;
            let side = c.new.as_ref().or(c.old.as_ref());
            if let Some(v) = side {
                excerpt(out, pal.dim, v, "    ")?;
            }
            continue;
        }
        if current != Some(c.item.as_str()) {
            writeln!(
                out,
                "{}",
                format!("~ {}", clean(&c.item)).style(pal.changed)
            )?;
            current = Some(&c.item);
        }
        let (style, sign) = pal.of(c.kind);
        writeln!(
            out,
            "  {}",
            format!("{sign} {}", clean(&c.path.join(" › "))).style(style)
        )?;
        match (&c.old, &c.new) {
            (Some(Value::String(a)), Some(Value::String(b))) => lines_diff(out, &pal, a, b)?,
            (Some(Value::Array(a)), Some(Value::Array(b))) if is_flat(a) && is_flat(b) => {
                list_diff(out, &pal, a, b)?
            }
            (Some(a), Some(b)) if is_record(a) && is_record(b) => {
                excerpt(out, pal.dim, a, "    - ")?;
                excerpt(out, pal.dim, b, "    + ")?;
            }
            (old, new) => {
                if let Some(a) = old {
                    one_side(out, pal.removed, "    - ", a)?;
                }
                if let Some(b) = new {
                    one_side(out, pal.added, "    + ", b)?;
                }
            }
        }
    }
    Ok(())
}

/// A list of plain values (tool names, skills, progress lines): shown element by element.
fn is_flat(list: &[Value]) -> bool {
    list.iter().all(|v| !v.is_array() && !v.is_object())
}

fn list_diff(out: &mut dyn Write, pal: &Palette, a: &[Value], b: &[Value]) -> io::Result<()> {
    let show = |v: &Value| match v {
        Value::String(s) => clean(s),
        other => other.to_string(),
    };
    let (a, b): (Vec<String>, Vec<String>) =
        (a.iter().map(show).collect(), b.iter().map(show).collect());
    if super::align::too_long_for_myers(a.len(), b.len()) {
        return long_diff(out, pal, a, b, None);
    }
    let mut printed = 0;
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        let (tag, removed, added) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        for (sign, style, items) in [('-', pal.removed, &a[removed]), ('+', pal.added, &b[added])] {
            for item in items {
                printed += 1;
                if printed > MAX_DIFF_LINES {
                    return writeln!(out, "{}", "    …".style(pal.dim));
                }
                writeln!(out, "{}", format!("    {sign} {item}").style(style))?;
            }
        }
    }
    Ok(())
}

fn is_record(v: &Value) -> bool {
    v.get("role").is_some() || v.get("type").is_some()
}

fn one_side(out: &mut dyn Write, style: Style, prefix: &str, v: &Value) -> io::Result<()> {
    if is_record(v) {
        return excerpt(out, style, v, prefix);
    }
    let s = match v {
        Value::String(s) => s.clone(),
        // Short values on one line, long ones pretty-printed (one field a line).
        other => match other.to_string() {
            short if short.len() <= 100 => short,
            long => serde_json::to_string_pretty(other).unwrap_or(long),
        },
    };
    let s = clean(&s);
    capped(out, style, prefix, &s.lines().collect::<Vec<_>>())
}

/// Writes `lines` after `prefix` in `style`: at most [`MAX_LINES`] of them, then how many more
/// there were.
fn capped(out: &mut dyn Write, style: Style, prefix: &str, lines: &[&str]) -> io::Result<()> {
    for line in lines.iter().take(MAX_LINES) {
        writeln!(out, "{}", format!("{prefix}{line}").style(style))?;
    }
    if lines.len() > MAX_LINES {
        let more = format!("{prefix}… ({} more lines)", lines.len() - MAX_LINES);
        writeln!(out, "{}", more.style(style))?;
    }
    Ok(())
}

/// The differences of two long sequences (lines or list items) in linear time, aligned as
/// records are (`align`), with `context` equal lines around each change (`None`: no context).
fn long_diff(
    out: &mut dyn Write,
    pal: &Palette,
    a: Vec<String>,
    b: Vec<String>,
    context: Option<usize>,
) -> io::Result<()> {
    use super::align::Pair;
    // One round: `Same`, `Old` and `New` only.
    let pairs = super::align::align(std::slice::from_ref(&a), std::slice::from_ref(&b));
    let changed = |p: &Pair| !matches!(p, Pair::Same(..));
    let reach = context.unwrap_or(0);
    // Which pairs are shown: every change, and equal lines within `reach` of one.
    let mut shown = vec![false; pairs.len()];
    let mut last_change: Option<usize> = None;
    for (k, p) in pairs.iter().enumerate() {
        if changed(p) {
            last_change = Some(k);
            shown[k.saturating_sub(reach)..=k]
                .iter_mut()
                .for_each(|s| *s = true);
        } else if context.is_some() && last_change.is_some_and(|c| k - c <= reach) {
            shown[k] = true;
        }
    }
    let mut printed = 0;
    let mut gap = false;
    for (k, p) in pairs.iter().enumerate() {
        if !shown[k] {
            gap = printed > 0;
            continue;
        }
        if printed >= MAX_DIFF_LINES {
            let rest = pairs[k..].iter().filter(|p| changed(p)).count();
            let more = format!("    … ({rest} more lines differ)");
            return writeln!(out, "{}", more.style(pal.dim));
        }
        if std::mem::take(&mut gap) && context.is_some() {
            writeln!(out, "{}", "    …".style(pal.dim))?;
        }
        printed += 1;
        let (sign, style, line) = match *p {
            Pair::Same(i, _) => (' ', pal.dim, &a[i]),
            Pair::Old(i) | Pair::Changed(i, _) => ('-', pal.removed, &a[i]),
            Pair::New(j) => ('+', pal.added, &b[j]),
        };
        writeln!(out, "{}", format!("    {sign} {line}").style(style))?;
        if let Pair::Changed(_, j) = *p {
            writeln!(out, "{}", format!("    + {}", b[j]).style(pal.added))?;
        }
    }
    Ok(())
}

fn lines_diff(out: &mut dyn Write, pal: &Palette, a: &str, b: &str) -> io::Result<()> {
    let (a, b) = (clean(a), clean(b));
    let (la, lb) = (a.lines().count(), b.lines().count());
    if super::align::too_long_for_myers(la, lb) {
        let lines = |s: &str| s.lines().map(str::to_owned).collect::<Vec<_>>();
        return long_diff(out, pal, lines(&a), lines(&b), Some(2));
    }
    let diff = TextDiff::from_lines(&a, &b);
    let mut printed = 0;
    for (n, group) in diff.grouped_ops(2).iter().enumerate() {
        if printed >= MAX_DIFF_LINES {
            let rest = diff.grouped_ops(2).len() - n;
            let more = format!("    … ({rest} more places differ)");
            writeln!(out, "{}", more.style(pal.dim))?;
            break;
        }
        if n > 0 {
            writeln!(out, "{}", "    …".style(pal.dim))?;
        }
        for op in group {
            for change in diff.iter_changes(op) {
                printed += 1;
                let line = change.value().trim_end_matches('\n');
                let (sign, style) = match change.tag() {
                    ChangeTag::Delete => ('-', pal.removed),
                    ChangeTag::Insert => ('+', pal.added),
                    ChangeTag::Equal => (' ', pal.dim),
                };
                writeln!(out, "{}", format!("    {sign} {line}").style(style))?;
            }
        }
    }
    Ok(())
}

/// A few lines that say what a whole record, turn or part holds.
fn excerpt(out: &mut dyn Write, style: Style, v: &Value, indent: &str) -> io::Result<()> {
    let mut lines = Vec::new();
    summarize(v, &mut lines);
    let lines: Vec<String> = lines.iter().map(|l| clean(l)).collect();
    capped(
        out,
        style,
        indent,
        &lines.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}

fn first_line(s: &str) -> String {
    let mut it = s.lines();
    let first = it.next().unwrap_or("");
    if it.next().is_some() {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}

fn summarize(v: &Value, lines: &mut Vec<String>) {
    if let Some(parts) = v.get("parts").and_then(Value::as_array) {
        parts.iter().for_each(|p| summarize(p, lines));
        return;
    }
    if let Some(notice) = v.get("notice") {
        lines.push(compact(notice));
        return;
    }
    match v.get("type").and_then(Value::as_str) {
        Some("text") | Some("reasoning") => {
            let t = v.get("text").and_then(Value::as_str).unwrap_or("");
            lines.push(format!(
                "{}: {}",
                v["type"].as_str().unwrap_or(""),
                first_line(t)
            ));
        }
        Some("tool-call") => {
            let call = &v["call"];
            let state = call.get("state").and_then(Value::as_str).unwrap_or("");
            lines.push(format!(
                "call {} {} → {state}",
                call.get("name").and_then(Value::as_str).unwrap_or("?"),
                compact(call.get("input").unwrap_or(&Value::Null)),
            ));
            if let Some(t) = call
                .get("subagent")
                .and_then(|s| s.get("transcript"))
                .and_then(Value::as_array)
            {
                for turn in t {
                    let mut inner = Vec::new();
                    summarize(turn, &mut inner);
                    lines.extend(inner.into_iter().map(|l| format!("  │ {l}")));
                }
            }
        }
        _ => lines.push(compact(v)),
    }
}

fn compact(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        let cut: String = s.chars().take(160).collect();
        format!("{cut}…")
    } else {
        s
    }
}

/// One JSONL record per difference.
#[serde_with::skip_serializing_none]
#[derive(Serialize)]
struct Record<'a> {
    change: &'static str,
    item: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    path: &'a [String],
    old: Option<&'a Value>,
    new: Option<&'a Value>,
}

/// The differences as JSON Lines (`--to jsonl`).
pub(crate) fn jsonl(out: &mut dyn Write, changes: &[Change]) -> io::Result<()> {
    for c in changes {
        serde_json::to_writer(
            &mut *out,
            &Record {
                change: c.kind.word(),
                item: &c.item,
                path: &c.path,
                old: c.old.as_ref(),
                new: c.new.as_ref(),
            },
        )?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_escapes_controls_and_bidi_but_keeps_newlines_and_tabs() {
        assert_eq!(clean("a\tb\nc"), "a\tb\nc");
        assert_eq!(clean("\x1b[31mred\u{202e}"), "\\x1b[31mred<U+202E>");
    }

    #[test]
    fn plain_palette_writes_no_escapes() {
        let change = Change {
            kind: Kind::Changed,
            item: "turn 1 (assistant)".to_owned(),
            path: vec!["text 1".to_owned(), "text".to_owned()],
            old: Some(Value::from("a")),
            new: Some(Value::from("b")),
        };
        let mut out = Vec::new();
        text(&mut out, std::slice::from_ref(&change), false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "~ turn 1 (assistant)\n  ~ text 1 › text\n    - a\n    + b\n"
        );
        let mut coloured = Vec::new();
        text(&mut coloured, &[change], true).unwrap();
        assert!(
            String::from_utf8(coloured)
                .unwrap()
                .contains("\x1b[31m    - a")
        );
    }
}
