//! `index.html` for `--to html --output-dir DIR`: one row per session page written in the run
//! (date, first prompt, model, turns, cost, source), each linking to its page.
//!
//! `Tally` wraps the HTML renderer while one session is rendered and keeps the few facts a row
//! needs as the items go by (O(1) memory per session); `write_index` writes the page once every
//! input is done. The page has the same Content-Security-Policy and stylesheet as a session page.

use std::io::{self, Write};

use super::escape::Html;
use super::{CSS, csp};
use crate::model::Header;
use crate::model::event::Event;
use crate::model::session::SystemNotice;
use crate::model::transcript::{Part, Role, TranscriptItem, TurnOrigin};
use crate::render::totals::Totals;
use crate::render::{Render, Summary};

/// What the index shows about one session page.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub(crate) struct IndexRow {
    /// The page's file name, relative to the index.
    pub(crate) href: String,
    pub(crate) date: Option<String>,
    pub(crate) first_prompt: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) turns: u64,
    pub(crate) cost: Option<f64>,
    pub(crate) source: String,
}

/// A renderer that forwards everything to `inner` and fills `row` on the way.
pub(crate) struct Tally<'a> {
    pub(crate) inner: &'a mut dyn Render,
    pub(crate) row: IndexRow,
    /// The results seen, for the row's cost (the session's running total, `Totals`).
    pub(crate) totals: Totals,
}

impl Tally<'_> {
    fn observe(&mut self, item: &TranscriptItem) {
        let row = &mut self.row;
        match item {
            TranscriptItem::Session(s) => {
                if row.model.is_none() && !s.model.is_empty() {
                    row.model = Some(s.model.clone());
                }
                if s.title.is_some() {
                    row.title.clone_from(&s.title);
                }
                if row.date.is_none() {
                    row.date.clone_from(&s.updated_at);
                }
            }
            TranscriptItem::Turn(t) => {
                row.turns += 1;
                if row.date.is_none() {
                    row.date.clone_from(&t.timestamp);
                }
                if row.model.is_none() {
                    row.model.clone_from(&t.metadata.model);
                }
                let prompt = t.role == Role::User
                    && matches!(t.origin, TurnOrigin::UserInput | TurnOrigin::Replay);
                if prompt && row.first_prompt.is_none() {
                    row.first_prompt = t.parts.iter().find_map(|p| match p {
                        Part::Text { text, .. } if !text.trim().is_empty() => Some(text.clone()),
                        Part::Text { .. }
                        | Part::Reasoning { .. }
                        | Part::ToolCall { .. }
                        | Part::File { .. }
                        | Part::SourceUrl { .. }
                        | Part::SourceDocument { .. }
                        | Part::Compaction { .. }
                        | Part::Data { .. } => None,
                    });
                }
            }
            TranscriptItem::Notice(n) => {
                if matches!(n.as_ref(), SystemNotice::Result { .. }) {
                    // The session's cost: its running total, earlier runs included.
                    self.totals.add(n);
                    row.cost = self.totals.session_total();
                }
            }
            TranscriptItem::Debug(_) => {}
        }
    }
}

impl Render for Tally<'_> {
    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()> {
        self.row.source = header.source.to_owned();
        self.inner.begin(out, header)
    }

    fn live(&mut self, out: &mut dyn Write, event: &Event) -> io::Result<()> {
        self.inner.live(out, event)
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        self.observe(item);
        self.inner.item(out, item)
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        self.inner.finish(out, summary)
    }
}

/// `2026-11-30T08:16:33.625Z` → `2026-11-30 08:16`.
fn short_date(iso: &str) -> String {
    iso.get(..16).unwrap_or(iso).replacen('T', " ", 1)
}

/// The first line of a prompt, shortened for a table cell.
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim();
    let mut out: String = line.chars().take(120).collect();
    if line.chars().count() > 120 {
        out.push('…');
    }
    out
}

/// Writes the index page for the session pages of one run.
/// Rows are listed newest first (by date, then file name).
pub(crate) fn write_index(out: &mut dyn Write, rows: &[IndexRow]) -> io::Result<()> {
    let mut rows: Vec<&IndexRow> = rows.iter().collect();
    rows.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.href.cmp(&b.href)));
    let mut h = Html::default();
    h.raw_trusted("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
        .raw_trusted("<meta http-equiv=\"Content-Security-Policy\" content=\"")
        .attr(csp())
        .raw_trusted("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .raw_trusted("<meta name=\"color-scheme\" content=\"light dark\">\n")
        .raw_trusted("<link rel=\"icon\" href=\"data:,\">\n<title>Sessions · scribe</title>\n<style>")
        .raw_trusted(CSS)
        .raw_trusted("</style>\n</head>\n<body>\n<header class=\"page-h\"><h1>Sessions</h1><p class=\"meta\">")
        .num(rows.len())
        .raw_trusted(" sessions · scribe ")
        .text(env!("CARGO_PKG_VERSION"))
        .raw_trusted("</p></header>\n<main>\n<table class=\"index\"><thead><tr>")
        .raw_trusted("<th>date</th><th>session</th><th>model</th><th>turns</th><th>cost</th><th>source</th>")
        .raw_trusted("</tr></thead><tbody>\n");
    for r in &rows {
        let label = r
            .title
            .as_deref()
            .or(r.first_prompt.as_deref())
            .map(first_line)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| r.href.clone());
        h.raw_trusted("<tr><td class=\"mono nowrap\">")
            .text(&r.date.as_deref().map(short_date).unwrap_or_default())
            .raw_trusted("</td><td><a href=\"")
            .attr(&percent_path(&r.href))
            .raw_trusted("\">")
            .text(&label)
            .raw_trusted("</a></td><td class=\"mono nowrap\">")
            .text(r.model.as_deref().unwrap_or(""))
            .raw_trusted("</td><td>")
            .num(r.turns)
            .raw_trusted("</td><td>")
            .text(&r.cost.map(|c| format!("${c:.4}")).unwrap_or_default())
            .raw_trusted("</td><td class=\"mono nowrap\">")
            .text(&r.source)
            .raw_trusted("</td></tr>\n");
    }
    h.raw_trusted("</tbody></table>\n</main>\n</body></html>\n");
    out.write_all(h.as_str().as_bytes())
}

/// A file name as a relative URL: everything but unreserved characters percent-encoded, so a
/// session id can never become a scheme (`javascript:`) or leave the directory.
fn percent_path(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_cannot_become_schemes() {
        assert_eq!(
            percent_path("javascript:alert(1).html"),
            "javascript%3Aalert%281%29.html"
        );
        assert_eq!(percent_path("a b/c.html"), "a%20b%2Fc.html");
    }

    #[test]
    fn rows_are_escaped() {
        let mut out = Vec::new();
        let row = IndexRow {
            href: "s1.html".into(),
            first_prompt: Some("<script>alert(1)</script>".into()),
            ..IndexRow::default()
        };
        write_index(&mut out, &[row]).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert_eq!(page.matches("<script").count(), 0);
    }
}
