//! Markdown tables for the terminal: aligned columns separated by `│`, cut to the width.

use owo_colors::Style;
use pulldown_cmark::Alignment;

use super::layout::{Line, Span, truncate, width as text_width};
use super::palette::Palette;
use super::sanitize::sanitize;

/// A table being collected: cells as plain text, row by row (the header first).
pub(super) struct Table {
    /// Each column's alignment.
    pub(super) align: Vec<Alignment>,
    /// The rows so far, the header first.
    pub(super) rows: Vec<Vec<String>>,
    /// The cell being collected.
    pub(super) cell: String,
}

impl Table {
    /// The table as lines: columns as wide as their widest cell, shrunk (cells cut with `…`)
    /// until the table fits the width; the header bold and underlined with a rule.
    pub(super) fn lines(
        self,
        pal: &Palette,
        width: usize,
        first: Line,
        rest: Line,
        base: Style,
    ) -> Vec<Line> {
        let t = self;
        let cols = t.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return Vec::new();
        }
        let rows: Vec<Vec<String>> = t
            .rows
            .iter()
            .map(|r| {
                (0..cols)
                    .map(|i| sanitize(r.get(i).map_or("", String::as_str)).into_owned())
                    .collect()
            })
            .collect();
        let mut widths: Vec<usize> = (0..cols)
            .map(|i| {
                rows.iter()
                    .map(|r| text_width(&r[i]))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let avail = width
            .saturating_sub(rest.iter().map(|s| text_width(&s.text)).sum::<usize>())
            .saturating_sub(3 * (cols - 1));
        while widths.iter().sum::<usize>() > avail {
            let (i, &w) = widths
                .iter()
                .enumerate()
                .max_by_key(|(_, w)| **w)
                .expect("cols > 0");
            if w <= 3 {
                break;
            }
            widths[i] -= 1;
        }
        let mut out = Vec::new();
        let sep = Span::new(" │ ", pal.dim);
        for (r, row) in rows.iter().enumerate() {
            let mut line = if out.is_empty() {
                first.clone()
            } else {
                rest.clone()
            };
            for (i, cell) in row.iter().enumerate() {
                if i > 0 {
                    line.push(sep.clone());
                }
                let cell = truncate(cell, widths[i]);
                let pad = widths[i].saturating_sub(text_width(&cell));
                let text = match t.align.get(i) {
                    Some(Alignment::Right) => format!("{}{cell}", " ".repeat(pad)),
                    _ => format!("{cell}{}", " ".repeat(pad)),
                };
                let style = if r == 0 && pal.enabled {
                    base.bold()
                } else {
                    base
                };
                line.push(Span {
                    text,
                    style,
                    link: None,
                });
            }
            out.push(line);
            if r == 0 {
                let mut line = rest.clone();
                let bar: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                line.push(Span::new(&bar.join("─┼─"), pal.dim));
                out.push(line);
            }
        }
        out
    }
}
