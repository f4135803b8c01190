//! `index.html` for `--to html --output-dir DIR`: the archive of the session pages written there,
//! grouped by project (newest project and newest session first), each session with its title,
//! time range, turns, tool calls, tokens and cost, totals per project and overall, and a search
//! over titles, prompts, tool names and touched files (the words are embedded in each row; no
//! request).
//!
//! `Tally` wraps the HTML renderer while one session is rendered and keeps the few facts a row
//! needs as the items go by (capped lists, so memory stays small per session); `write_index`
//! writes the page once every input is done. The page has the same Content-Security-Policy,
//! stylesheet and script as a session page. Rows are serializable: the pipeline's manifest keeps
//! them between runs.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::escape::Html;
use super::map::short;
use super::times::{parse_ms, push_time, push_time_as};
use super::{CSS, JS, csp};
use crate::model::Header;
use crate::model::counts::Counts;
use crate::model::event::Event;
use crate::model::session::said;
use crate::model::transcript::{Part, TranscriptItem, Usage};
use crate::render::figures::{count, thousands};
use crate::render::totals::{Totals, all_input, call_outcomes};
use crate::render::{Render, Summary};

/// Prompts, tool names and files kept per session for the search (each capped).
const MAX_TERMS: usize = 100;

/// What the index shows about one session page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct IndexRow {
    /// The page's file name, relative to the index.
    pub(crate) href: String,
    /// The first timestamp seen (or the session's own date).
    pub(crate) date: Option<String>,
    /// The last timestamp seen.
    #[serde(default)]
    pub(crate) end: Option<String>,
    pub(crate) first_prompt: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) model: Option<String>,
    /// Turns, prompts, calls and errors, counted as the page counts them.
    pub(crate) counts: Counts,
    pub(crate) usage: Usage,
    /// What the runs in this input cost, as the page says it.
    pub(crate) cost: Option<f64>,
    /// The session's running total, when it is more than `cost` (a resumed run).
    pub(crate) session_cost: Option<f64>,
    pub(crate) source: String,
    /// The project: the session's working directory, else the decoded name of the
    /// `~/.claude/projects/<dir>` folder the input sits in.
    #[serde(default)]
    pub(crate) project: Option<String>,
    /// Words for the search: prompts, tool names, touched files.
    #[serde(default)]
    pub(crate) terms: Vec<String>,
}

/// A renderer that forwards everything to `inner` and fills `row` on the way.
pub(crate) struct Tally<'a> {
    pub(crate) inner: &'a mut dyn Render,
    pub(crate) row: IndexRow,
    /// Tool names and files already in `row.terms`.
    seen: BTreeSet<String>,
    /// The row's figures, added up as the page adds them (`Totals`).
    pub(crate) totals: Totals,
}

impl<'a> Tally<'a> {
    /// A tally of one session rendered by `inner`.
    pub(crate) fn new(inner: &'a mut dyn Render) -> Tally<'a> {
        Tally {
            inner,
            row: IndexRow::default(),
            seen: BTreeSet::new(),
            totals: Totals::default(),
        }
    }

    fn term(&mut self, t: String) {
        if self.row.terms.len() < 3 * MAX_TERMS && self.seen.insert(t.clone()) {
            self.row.terms.push(t);
        }
    }

    fn time(&mut self, ts: Option<&String>) {
        let Some((ts, ms)) = ts.and_then(|t| Some((t, parse_ms(t)?))) else {
            return;
        };
        if self
            .row
            .date
            .as_deref()
            .is_none_or(|d| Some(ms) < parse_ms(d))
        {
            self.row.date = Some(ts.clone());
        }
        if self
            .row
            .end
            .as_deref()
            .is_none_or(|e| Some(ms) > parse_ms(e))
        {
            self.row.end = Some(ts.clone());
        }
    }

    fn observe(&mut self, item: &TranscriptItem) {
        match item {
            TranscriptItem::Session(s) => {
                if self.row.model.is_none() {
                    self.row.model = said(&s.model).map(str::to_owned);
                }
                if s.title.is_some() {
                    self.row.title.clone_from(&s.title);
                }
                if let Some(cwd) = said(&s.cwd) {
                    self.row.project = Some(cwd.to_owned());
                }
                if self.row.date.is_none() {
                    self.row.date.clone_from(&s.updated_at);
                }
            }
            TranscriptItem::Turn(t) => {
                self.time(t.timestamp.as_ref());
                if self.row.model.is_none() {
                    self.row.model.clone_from(&t.metadata.model);
                }
                self.totals.add_turn(t);
                if t.is_prompt() {
                    let text = t.text();
                    if self.row.first_prompt.is_none() && !text.trim().is_empty() {
                        self.row.first_prompt = Some(short(&text, 300));
                    }
                    if !text.trim().is_empty() {
                        self.term(short(&text, 200));
                    }
                }
                for p in &t.parts {
                    if let Part::ToolCall { call } = p {
                        self.term(call.display_name());
                        for f in call.kind.files() {
                            self.term(f.to_owned());
                        }
                    }
                }
            }
            TranscriptItem::Notice(n) => self.totals.add(n),
            TranscriptItem::Debug(_) => {}
        }
        // The page's figures, as `Totals` adds them up.
        self.row.counts = self.totals.counts;
        self.row.usage = *self.totals.usage();
        self.row.cost = self.totals.own_cost();
        self.row.session_cost = self.totals.session_cost();
    }
}

impl Render for Tally<'_> {
    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()> {
        self.row.source = header.source.to_owned();
        self.row.project = project_of_path(Path::new(&header.file));
        self.inner.begin(out, header)
    }

    fn live(&mut self, out: &mut dyn Write, event: &Event) -> io::Result<()> {
        self.inner.live(out, event)
    }

    fn shows_events(&self) -> bool {
        self.inner.shows_events()
    }

    fn stands_alone(&self) -> bool {
        self.inner.stands_alone()
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        self.observe(item);
        self.inner.item(out, item)
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        self.inner.finish(out, summary)
    }
}

/// The project of a saved session file: `~/.claude/projects/-home-me-app/x.jsonl` →
/// `/home/me/app` (Claude Code writes the path with `/` and `.` as `-`; the session's own `cwd`,
/// when it has one, replaces this guess).
fn project_of_path(path: &Path) -> Option<String> {
    let dir = path.parent()?.file_name()?.to_str()?;
    dir.starts_with('-').then(|| dir.replace('-', "/"))
}

/// The sums of some rows.
#[derive(Debug, Default)]
struct Sums {
    sessions: u64,
    turns: u64,
    tool_calls: u64,
    usage: Usage,
    cost: Option<f64>,
}

impl Sums {
    fn add(&mut self, r: &IndexRow) {
        self.sessions += 1;
        self.turns = self.turns.saturating_add(r.counts.turns);
        self.tool_calls = self.tool_calls.saturating_add(r.counts.calls);
        self.usage.add(&r.usage);
        if let Some(c) = r.cost {
            self.cost = Some(self.cost.unwrap_or(0.0) + c);
        }
    }

    /// `3 sessions · 41 turns · 17 tool calls · 12,345 tokens in · 678 out · $0.1234`.
    fn words(&self) -> String {
        let u = &self.usage;
        let input = all_input(u);
        let mut s = format!(
            "{} · {} turns · {} tool calls · {} tokens in · {} out",
            count(self.sessions, "session"),
            thousands(self.turns),
            thousands(self.tool_calls),
            thousands(input),
            thousands(u.output_tokens)
        );
        if let Some(c) = self.cost {
            s.push_str(&format!(" · ${c:.4}"));
        }
        s
    }
}

/// Writes the index page for the session pages of one run: projects (newest first), each with
/// its sessions (newest first) and totals, then the overall totals.
pub(crate) fn write_index(out: &mut dyn Write, rows: &[IndexRow]) -> io::Result<()> {
    let mut rows: Vec<&IndexRow> = rows.iter().collect();
    let key = |r: &IndexRow| r.date.as_deref().and_then(parse_ms);
    rows.sort_by(|a, b| key(b).cmp(&key(a)).then_with(|| a.href.cmp(&b.href)));
    // Projects in the order of their newest session.
    let mut projects: Vec<(&str, Vec<&IndexRow>)> = Vec::new();
    for r in &rows {
        let p = r.project.as_deref().unwrap_or("(no project)");
        match projects.iter_mut().find(|(name, _)| *name == p) {
            Some((_, list)) => list.push(r),
            None => projects.push((p, vec![r])),
        }
    }
    let mut all = Sums::default();
    rows.iter().for_each(|r| all.add(r));
    let mut h = Html::default();
    h.raw_trusted("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
        .raw_trusted("<meta http-equiv=\"Content-Security-Policy\" content=\"")
        .attr(csp())
        .raw_trusted("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .raw_trusted("<meta name=\"color-scheme\" content=\"light dark\">\n")
        .raw_trusted("<link rel=\"icon\" href=\"data:,\">\n<title>Sessions · scribe</title>\n<style>")
        .raw_trusted(CSS)
        .raw_trusted("</style>\n</head>\n<body class=\"archive\">\n<header class=\"page-h\"><h1>Sessions</h1><p class=\"meta totals\">")
        .text(&count(projects.len(), "project"))
        .raw_trusted(" · ")
        .text(&all.words())
        .raw_trusted(" · scribe ")
        .text(env!("CARGO_PKG_VERSION"))
        .raw_trusted("</p><div id=\"search\" class=\"search\" hidden>")
        .raw_trusted("<input id=\"q\" type=\"search\" placeholder=\"Search titles, prompts, tools, files\" ")
        .raw_trusted("aria-label=\"Search sessions\" autocomplete=\"off\"> <span id=\"qcount\" class=\"meta\" aria-live=\"polite\"></span>")
        .raw_trusted("</div></header>\n<main>\n");
    for (name, list) in &projects {
        let mut sums = Sums::default();
        list.iter().for_each(|r| sums.add(r));
        h.raw_trusted("<section class=\"project\"><h2>")
            .text(name)
            .raw_trusted("</h2><table class=\"index\"><thead><tr>")
            .raw_trusted("<th>when</th><th>session</th><th>turns</th><th>tool calls</th><th>tokens in / out</th><th>cost</th>")
            .raw_trusted("</tr></thead><tbody>\n");
        for r in list {
            push_row(&mut h, r);
        }
        h.raw_trusted("</tbody><tfoot><tr><td colspan=\"6\" class=\"meta\">")
            .text(&sums.words())
            .raw_trusted("</td></tr></tfoot></table></section>\n");
    }
    h.raw_trusted("</main>\n<footer class=\"page-f\"><span>Total: ")
        .text(&all.words())
        .raw_trusted("</span></footer>\n<script>")
        .raw_trusted(JS)
        .raw_trusted("</script>\n</body></html>\n");
    out.write_all(h.as_str().as_bytes())
}

fn push_row(h: &mut Html, r: &IndexRow) {
    let label = r
        .title
        .as_deref()
        .or(r.first_prompt.as_deref())
        .map(|t| short(t, 120))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| r.href.clone());
    let mut words: Vec<&str> = vec![&label];
    words.extend(r.first_prompt.as_deref());
    words.extend(r.terms.iter().map(String::as_str));
    h.raw_trusted("<tr data-s=\"")
        .attr(&words.join("\n").to_lowercase())
        .raw_trusted("\"><td>");
    if let Some(d) = &r.date {
        push_time(h, d);
        if let Some(e) = r.end.as_ref().filter(|e| *e != d) {
            h.raw_trusted(" – ");
            push_time_as(h, e, "end");
        }
    }
    h.raw_trusted("</td><td><a href=\"")
        .attr(&percent_path(&r.href))
        .raw_trusted("\">")
        .text(&label)
        .raw_trusted("</a><br><span class=\"meta\">")
        .text(r.model.as_deref().unwrap_or(""))
        .raw_trusted(" · ")
        .text(&r.source)
        .raw_trusted("</span></td><td>")
        .num(r.counts.turns)
        .raw_trusted("</td><td>");
    push_calls(h, &r.counts);
    h.raw_trusted("</td><td class=\"nowrap\">");
    let u = &r.usage;
    let input = all_input(u);
    if input > 0 || u.output_tokens > 0 {
        h.text(&thousands(input))
            .raw_trusted(" / ")
            .text(&thousands(u.output_tokens));
    }
    h.raw_trusted("</td><td>");
    if let Some(c) = r.cost {
        h.text(&format!("${c:.4}"));
    }
    if let Some(s) = r.session_cost {
        h.raw_trusted("<br><span class=\"meta\">")
            .text(&format!("${s:.4} session total"))
            .raw_trusted("</span>");
    }
    h.raw_trusted("</td></tr>\n");
}

/// A row's calls: the main thread's, then what failed and what sub-agents did, as the page's
/// header says them.
fn push_calls(h: &mut Html, c: &Counts) {
    h.num(c.calls);
    let more = call_outcomes(c);
    if !more.is_empty() {
        h.raw_trusted("<br><span class=\"meta\">")
            .text(&more.join(" · "))
            .raw_trusted("</span>");
    }
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
            terms: vec!["\"><script>".into()],
            ..IndexRow::default()
        };
        write_index(&mut out, &[row]).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("data-s=\"&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert_eq!(page.matches("<script").count(), 1, "only the page's own");
    }

    #[test]
    fn project_folders_decode_to_paths() {
        assert_eq!(
            project_of_path(Path::new("/h/.claude/projects/-home-me-app/s.jsonl")).as_deref(),
            Some("/home/me/app")
        );
        assert_eq!(project_of_path(Path::new("logs/s.jsonl")), None);
    }
}
