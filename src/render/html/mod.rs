//! `--to html`: one self-contained, safe, searchable page per input, streamed.
//!
//! 1. `begin` writes the head: a Content-Security-Policy that allows only this page's own style
//!    and script (by SHA-256 hash) and `data:` images, the inline stylesheet, the page header
//!    and the search box (hidden until the script shows it: with scripting off, every item is
//!    still there and every `<details>` still opens).
//! 2. `item` writes each final transcript item as soon as the fold hands it over, so memory does
//!    not grow with the session and a browser can show a growing file.
//! 3. `finish` writes the footer (totals from `result` notices), the inline script, and closes
//!    the document.
//!
//! All markup goes through `escape::Html`; transcript content is untrusted everywhere.

use foldhash::HashSet;
use std::io::{self, Write};
use std::sync::OnceLock;

use base64::Engine as _;
use sha2::{Digest, Sha256};

use super::{Render, Summary};
use crate::model::Header;
use crate::model::transcript::{Part, TranscriptItem, Turn};

mod code;
mod diff;
pub(crate) mod escape;
mod handback;
pub(crate) mod index;
mod map;
mod markdown;
mod notice;
mod open;
mod output;
mod timeline;
mod times;
mod tool;
mod turn;

use crate::render::totals::Totals;
use escape::{Html, numbered_id};

/// The page's stylesheet, inlined.
const CSS: &str = include_str!("page.css");
/// The page's script (times, search, expand/collapse, print), inlined at the end of the body.
const JS: &str = include_str!("page.js");

/// The policy: nothing may load or run but the inline style and script above (matched by hash),
/// and images only from `data:` URLs. `base-uri` and `form-action` close the two holes that
/// `default-src` does not cover.
fn csp() -> &'static str {
    static CSP: OnceLock<String> = OnceLock::new();
    CSP.get_or_init(|| {
        let hash = |s: &str| base64::engine::general_purpose::STANDARD.encode(Sha256::digest(s));
        format!(
            "default-src 'none'; style-src 'sha256-{}'; script-src 'sha256-{}'; img-src data:; \
             base-uri 'none'; form-action 'none'",
            hash(CSS),
            hash(JS)
        )
    })
}

/// Writes HTML. Holds counters, the map's few facts and one reusable buffer between items.
#[derive(Debug, Default)]
pub(crate) struct HtmlRenderer {
    /// `--debug`: debug records are shown, with their raw input (else only counted in the
    /// footer).
    debug: bool,
    /// Turns written at the top level (the footer's count and the turns' anchors).
    turns: u64,
    totals: Totals,
    sessions: u64,
    /// Notices written, for unique anchors of the turns some of them carry.
    notices: u64,
    buf: Html,
    /// The page sits beside an `index.html` (`--output-dir`): it links back to it.
    in_archive: bool,
    /// The input's name, for the map's heading when the session has no title.
    file: String,
    map: map::Map,
    /// The previous top-level turn (model, time).
    cx: turn::Context,
    /// Calls whose card said they were denied: their permission notice is not repeated.
    denied: HashSet<String>,
}

impl HtmlRenderer {
    /// A renderer for a run of inputs (each input is its own page). `in_archive`: the pages are
    /// written beside an index page they link back to. `debug`: debug records are shown,
    /// with their raw input.
    pub(crate) fn new(in_archive: bool, debug: bool) -> HtmlRenderer {
        HtmlRenderer {
            in_archive,
            debug,
            ..HtmlRenderer::default()
        }
    }

    /// `--full`: the "show all N lines" toggles of long outputs and diffs start open.
    pub(crate) fn toggles_open(mut self, open: bool) -> HtmlRenderer {
        self.buf = Html::with_toggles_open(open);
        self
    }

    /// Writes what the buffer holds and empties it.
    fn flush_buf(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(self.buf.as_str().as_bytes())?;
        self.buf.clear();
        Ok(())
    }

    /// Notes the calls of a turn that were denied (their card says so).
    fn note_denials(&mut self, t: &Turn) {
        for p in &t.parts {
            if let Part::ToolCall { call } = p
                && call.denied.is_some()
            {
                self.denied.insert(call.tool_call_id.clone());
            }
        }
    }
}

impl Render for HtmlRenderer {
    /// A page is one input's alone: several go to a directory (`--output-dir`).
    fn stands_alone(&self) -> bool {
        false
    }

    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()> {
        self.turns = 0;
        self.totals = Totals::default();
        self.sessions = 0;
        self.notices = 0;
        self.map = map::Map::default();
        self.cx = turn::Context::default();
        self.denied.clear();
        self.file.clone_from(&header.file);
        let h = &mut self.buf;
        h.raw_trusted("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
            .raw_trusted("<meta http-equiv=\"Content-Security-Policy\" content=\"")
            .attr(csp())
            .raw_trusted(
                "\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
            )
            .raw_trusted("<meta name=\"color-scheme\" content=\"light dark\">\n")
            .raw_trusted("<meta name=\"generator\" content=\"scribe ")
            .attr(env!("CARGO_PKG_VERSION"))
            .raw_trusted("\">\n<link rel=\"icon\" href=\"data:,\">\n<title>")
            // `attr`, not `text`: a <title> holds no markup, so an invisible character in the
            // file name is written as the plain text `<U+…>`. The file's name, not its path (the
            // path is in the header's details).
            .attr(file_name(&header.file))
            .raw_trusted(" · scribe</title>\n<style>")
            .raw_trusted(CSS)
            .raw_trusted("</style>\n</head>\n<body>\n<header class=\"page-h\"><nav class=\"bar\">");
        if self.in_archive {
            h.raw_trusted("<a href=\"index.html\">← All sessions</a> ");
        }
        h.raw_trusted("<a href=\"#map\">Overview</a> <a href=\"#prompts\">Prompts</a> ")
            .raw_trusted("<span class=\"meta\">")
            .text(header.source)
            .raw_trusted(" · scribe ")
            .text(env!("CARGO_PKG_VERSION"))
            .raw_trusted("</span><span class=\"tools\" id=\"tools\" hidden>")
            .raw_trusted("<button type=\"button\" id=\"expand\">Expand all</button>")
            .raw_trusted(
                "<button type=\"button\" id=\"collapse\">Collapse all</button></span></nav>",
            )
            .raw_trusted("<div id=\"search\" class=\"search\" hidden>")
            .raw_trusted("<input id=\"q\" type=\"search\" placeholder=\"Search\" ")
            .raw_trusted("aria-label=\"Search\" autocomplete=\"off\">")
            .raw_trusted(
                "<button type=\"button\" id=\"qprev\" aria-label=\"Previous match\">↑</button>",
            )
            .raw_trusted(
                "<button type=\"button\" id=\"qnext\" aria-label=\"Next match\">↓</button>",
            )
            .raw_trusted(" <span id=\"qcount\" class=\"meta\" aria-live=\"polite\"></span> ")
            .raw_trusted("<span class=\"kinds\">")
            .raw_trusted(
                "<label><input type=\"checkbox\" value=\"prompt\" checked> prompts</label>",
            )
            .raw_trusted(
                "<label><input type=\"checkbox\" value=\"text\" checked> assistant</label>",
            )
            .raw_trusted(
                "<label><input type=\"checkbox\" value=\"tool\" checked> tool calls</label>",
            )
            .raw_trusted("<label><input type=\"checkbox\" value=\"error\" checked> errors</label>")
            .raw_trusted("</span></div></header>\n<main>\n");
        self.flush_buf(out)
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        match item {
            TranscriptItem::Session(s) => {
                self.sessions += 1;
                self.map.session(s);
                notice::push_session(&mut self.buf, s, self.sessions == 1);
            }
            TranscriptItem::Turn(t) => {
                self.totals.add_turn(t);
                self.turns += 1;
                let anchor = numbered_id("t", "", self.turns);
                self.map.turn(t, &anchor);
                self.note_denials(t);
                turn::push_turn(&mut self.buf, t, &anchor, &mut self.cx);
            }
            TranscriptItem::Notice(n) => {
                self.notices += 1;
                self.totals.add(n);
                let scope = numbered_id("n", "", self.notices);
                let denied = &self.denied;
                notice::push_notice(&mut self.buf, n, &scope, &|id| denied.contains(id));
            }
            TranscriptItem::Debug(_) if !self.debug => {}
            TranscriptItem::Debug(d) => notice::push_debug(&mut self.buf, d),
        }
        self.flush_buf(out)
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        let h = &mut self.buf;
        h.raw_trusted("</main>\n");
        let hidden = if self.debug { 0 } else { summary.debug };
        notice::push_footer(h, summary.errors, hidden);
        self.map.push(h, &self.totals, &self.file);
        h.raw_trusted("<script>")
            .raw_trusted(JS)
            .raw_trusted("</script>\n</body></html>\n");
        self.flush_buf(out)
    }
}

/// The last component of an input's path (`-` stays `-`): what a tab or a heading shows.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\'])
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or(path)
}
