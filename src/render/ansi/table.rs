//! Markdown tables for the terminal: aligned columns separated by `│`, cells wrapped within
//! their column so that nothing is cut; a table too wide even so is written as `header: value`
//! lines per row.

use owo_colors::Style;
use pulldown_cmark::Alignment;

use super::layout::{Line, Margin, Span, truncate, width as text_width};
use super::palette::Palette;
use crate::sanitize::sanitize;

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
    /// The table as lines: columns as wide as their widest cell, shrunk (cells wrapped over
    /// several lines) until the table fits the width; the header bold and underlined with a
    /// rule. Each line starts with `margin`.
    pub(super) fn lines(
        self,
        pal: &Palette,
        width: usize,
        margin: Margin,
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
            .saturating_sub(
                margin
                    .rest
                    .iter()
                    .map(|s| text_width(&s.text))
                    .sum::<usize>(),
            )
            .saturating_sub(3 * (cols - 1));
        while widths.iter().sum::<usize>() > avail {
            let (i, &w) = widths
                .iter()
                .enumerate()
                .max_by_key(|(_, w)| **w)
                .expect("cols > 0");
            if w <= 6 {
                break;
            }
            widths[i] -= 1;
        }
        if widths.iter().sum::<usize>() > avail {
            return as_list(&rows, pal, &margin, base);
        }
        let mut out = Vec::new();
        let sep = Span::new(" │ ", pal.dim);
        for (r, row) in rows.iter().enumerate() {
            let cells: Vec<Vec<String>> = row
                .iter()
                .enumerate()
                .map(|(i, c)| wrap_cell(c, widths[i]))
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for k in 0..height {
                let mut line = margin.start(out.is_empty());
                for (i, cell) in cells.iter().enumerate() {
                    if i > 0 {
                        line.push(sep.clone());
                    }
                    let cell = cell.get(k).map_or("", String::as_str);
                    let pad = widths[i].saturating_sub(text_width(cell));
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
            }
            if r == 0 {
                let mut line = margin.rest.clone();
                let bar: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                line.push(Span::new(&bar.join("─┼─"), pal.dim));
                out.push(line);
            }
        }
        out
    }
}

/// A cell's text in lines of at most `width` columns: whole words where they fit, a word wider
/// than the column cut where it must. Never empty.
fn wrap_cell(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("never empty");
        let used = text_width(last);
        let need = text_width(word) + usize::from(used > 0);
        if used + need <= width {
            if used > 0 {
                last.push(' ');
            }
            last.push_str(word);
            continue;
        }
        if used > 0 {
            lines.push(String::new());
        }
        for c in word.chars() {
            let last = lines.last_mut().expect("never empty");
            if text_width(last) + text_width(c.encode_utf8(&mut [0; 4])) > width && !last.is_empty()
            {
                lines.push(String::new());
            }
            lines.last_mut().expect("never empty").push(c);
        }
    }
    lines
}

/// Columns of a header name that labels a cell in a table written as a list; a longer name is
/// cut there, and the whole names are written once above the rows.
const LABEL_COLUMNS: usize = 24;

/// A table too wide for the terminal: each row as `header: value` lines, rows apart. Empty
/// cells (a short row's missing ones too) are left out and header names cut short as labels, so
/// that what is written stays linear in the table's text however many columns it has.
fn as_list(rows: &[Vec<String>], pal: &Palette, margin: &Margin, base: Style) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    let header = &rows[0];
    let line_start = |out: &Vec<Line>| margin.start(out.is_empty());
    if header.iter().any(|name| text_width(name) > LABEL_COLUMNS) {
        for (i, name) in header.iter().enumerate() {
            let mut line = line_start(&out);
            line.push(Span::new(&format!("column {}: ", i + 1), pal.dim));
            line.push(Span::new(name, base));
            out.push(line);
        }
    }
    let labels: Vec<String> = header.iter().map(|h| truncate(h, LABEL_COLUMNS)).collect();
    for row in &rows[1..] {
        let filled = || row.iter().enumerate().filter(|(_, c)| !c.trim().is_empty());
        if filled().next().is_none() {
            continue;
        }
        if !out.is_empty() {
            out.push(margin.rest.clone());
        }
        for (i, cell) in filled() {
            let mut line = line_start(&out);
            let name = labels.get(i).map_or("", String::as_str);
            line.push(Span::new(&format!("{name}: "), pal.dim));
            line.push(Span {
                text: cell.clone(),
                style: base,
                link: None,
            });
            out.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Margin, Palette, Style, as_list, wrap_cell};

    #[test]
    fn a_list_leaves_empty_cells_out_and_names_long_columns_once() {
        let long = "a header name far longer than a label".to_owned();
        let rows = vec![
            vec![long.clone(), "b".to_owned()],
            vec!["1".to_owned(), String::new()],
            vec![String::new(), String::new()],
            vec![String::new(), "2".to_owned()],
        ];
        let lines = as_list(&rows, &Palette::default(), &Margin::default(), Style::new());
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.iter().map(|s| s.text.as_str()).collect())
            .collect();
        assert_eq!(
            text,
            [
                format!("column 1: {long}"),
                "column 2: b".to_owned(),
                String::new(),
                "a header name far longe…: 1".to_owned(),
                String::new(),
                "b: 2".to_owned(),
            ]
        );
    }

    #[test]
    fn cells_wrap_at_words_and_cut_long_words() {
        assert_eq!(
            wrap_cell("stop at the first error", 10),
            ["stop at", "the first", "error"]
        );
        assert_eq!(wrap_cell("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_cell("", 4), [""]);
        assert_eq!(wrap_cell("日本語です", 4), ["日本", "語で", "す"]);
    }
}
