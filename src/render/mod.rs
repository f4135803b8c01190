//! Stage 3 → bytes. One renderer per output format, all behind the same small `Render` trait.
//!
//! A renderer sees a header, then every normalized event as it arrives (`live`: only the live
//! terminal view and `--to events` care), then each transcript item once it is final, then the
//! end of the input. Adding an output format is one new module and one arm in `renderer_for`.

// A match on one of our own enums names every variant: a new variant is a compile error here,
// never silently swallowed by `_`. (Wildcards stay allowed on text, numbers and foreign types.)
#![deny(clippy::wildcard_enum_match_arm)]

use std::io::{self, Write};

use clap::ValueEnum;

use crate::model::Header;
use crate::model::event::Event;
use crate::model::transcript::{Part, TranscriptItem};

/// `--to text` (its number formats are shared with Markdown).
pub(crate) mod ansi;
mod atif;
mod events;
/// How every view writes a count and a duration.
pub(crate) mod figures;
pub(crate) mod html;
mod jsonl;
pub(crate) mod markdown;
/// Notice wordings shared by the text, Markdown and HTML renderers.
pub(crate) mod notice_text;
/// Terminal colours (SGR) in output: one parser, drawn as classed spans (HTML) or styled runs
/// (the text view), stripped for Markdown.
pub(crate) mod sgr;
/// One-line tool-call summaries shared by the human-readable renderers.
pub(crate) mod summary;
/// The totals of `result` notices shared by the text, Markdown and HTML renderers.
pub(crate) mod totals;

/// The formats scribe writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    /// The terminal view: coloured when stdout is a terminal, wrapped, live (the default).
    Text,
    /// GitHub-flavoured Markdown, for a pull request or an issue.
    Md,
    /// The folded transcript, one JSON record per line (docs/schema.md).
    Jsonl,
    /// The stage-2 normalized event stream, one JSON event per line, each with its input line.
    Events,
    /// One self-contained HTML page per input: safe, searchable, streamed as it is read.
    Html,
    /// One Agent Trajectory Interchange Format document per input, on one line (docs/atif.md).
    Atif,
}

impl OutputFormat {
    /// The file extension for `--output-dir` files in this format.
    pub(crate) fn extension(self) -> &'static str {
        match self {
            OutputFormat::Jsonl => "jsonl",
            OutputFormat::Events => "events.jsonl",
            OutputFormat::Html => "html",
            OutputFormat::Text => "txt",
            OutputFormat::Md => "md",
            OutputFormat::Atif => "atif.json",
        }
    }
}

/// What a renderer needs to know about the run, resolved once from the command line and the
/// terminal (renderers never look at either).
#[derive(Debug, Clone)]
pub(crate) struct RenderOptions {
    /// The output format.
    pub(crate) format: OutputFormat,
    /// Whether terminal output may contain colour escapes.
    pub(crate) color: bool,
    /// The column at which text output wraps.
    pub(crate) width: usize,
    /// `--full`: show results, sub-agent transcripts and long inputs whole.
    pub(crate) full: bool,
    /// `--thinking`: show the model's reasoning.
    pub(crate) thinking: bool,
    /// `--context`: show synthetic context (skill bodies, reminders, hook output).
    pub(crate) context: bool,
    /// `--output-dir`: HTML pages sit beside an `index.html` and link back to it.
    pub(crate) archive: bool,
    /// `--stable`: tool results in call order, not in the order parallel calls finished.
    pub(crate) results_in_call_order: bool,
    /// `--debug`: debug records are shown where they came (by default only counted at the
    /// end), in HTML with their raw input.
    pub(crate) debug: bool,
    /// `--compact`: Markdown that fits a pull-request comment.
    pub(crate) compact: bool,
}

/// The one line the text view, Markdown and HTML write at the end when lines nothing understood
/// were not shown (`debug` records are hidden unless `--debug`, as the shared-layer design
/// says renderers do; the count keeps them from being silent). `None` when there are none.
pub(crate) fn debug_summary(debug: u64) -> Option<String> {
    (debug > 0).then(|| {
        let (lines, them) = (figures::count(debug, "line"), figures::them(debug));
        format!("{lines} not understood (--debug shows {them})")
    })
}

/// What a renderer learns at the end of one input.
#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    /// Lines read.
    pub(crate) lines: u64,
    /// `debug` records written (lines nothing understood).
    pub(crate) debug: u64,
    /// Input errors reported on stderr (bad JSON, truncated line, invalid UTF-8).
    pub(crate) errors: u64,
}

/// An output format.
/// One JSON record per line, serialized into a buffer kept between records and written at once:
/// serde_json writes a record in many small pieces, each a dynamic call through the output's
/// `dyn Write` when written straight to it.
#[derive(Default)]
pub(crate) struct JsonLine(Vec<u8>);

impl JsonLine {
    /// A buffer grown past this by one large record is given back after it.
    const KEEP: usize = 1 << 20;

    /// Writes `record` and a newline.
    pub(crate) fn write<T: serde::Serialize + ?Sized>(
        &mut self,
        out: &mut dyn Write,
        record: &T,
    ) -> io::Result<()> {
        self.0.clear();
        scribe_json::write(&mut self.0, record)?;
        self.0.push(b'\n');
        let written = out.write_all(&self.0);
        if self.0.capacity() > Self::KEEP {
            self.0 = Vec::new();
        }
        written
    }
}

/// Under `--output-dir`, where a renderer puts the files that go beside an input's own (ATIF's
/// sub-agent trajectories): the pipeline names and writes them as it does the input's own file.
pub(crate) trait Beside {
    /// The stem of the input's own file (`<stem>.<ext>`), fixed now if it was not yet: then
    /// from the input's file name, as for an input that names no session.
    fn stem(&mut self) -> io::Result<String>;
    /// Writes the file `name` (a plain file name, beside the input's own), installed with it.
    fn write(&mut self, name: &str, bytes: &[u8]) -> io::Result<()>;
}

pub(crate) trait Render {
    /// Whether this format writes files beside an input's own under `--output-dir`: then the
    /// input's file is named as soon as its session is known, and [`Render::beside`] is called.
    fn writes_beside(&self) -> bool {
        false
    }
    /// Where the files beside the next input's own go (before its `begin`): `None` when the
    /// output is one stream (standard output), where such a format embeds them instead.
    fn beside(&mut self, _files: Option<Box<dyn Beside>>) {}
    /// Called once per input, before anything else.
    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()>;
    /// Every normalized event, as soon as it is decoded (before it is folded).
    fn live(&mut self, _out: &mut dyn Write, _event: &Event) -> io::Result<()> {
        Ok(())
    }
    /// True when `live` writes anything. The formats that show only final items say false (the
    /// default, as `live` is), so the pipeline skips rewriting events nobody reads (with
    /// `--stable`, a large share of a `--to jsonl` run).
    fn shows_events(&self) -> bool {
        false
    }
    /// True when what this format writes for an input does not depend on the inputs before it,
    /// so that several inputs on standard output may be rendered side by side, each alone, and
    /// written in their order (`pipeline::side_by_side`). The terminal view says false: whether a
    /// blank line parts two blocks carries over from one input to the next.
    fn stands_alone(&self) -> bool;
    /// An event with the raw input line it came from (`--include-raw`); only `--to events`
    /// writes the line, every other format takes the event alone.
    fn live_raw(&mut self, out: &mut dyn Write, event: &Event, _raw: &str) -> io::Result<()> {
        self.live(out, event)
    }
    /// Whether the input about to begin arrives as it is written (a pipe, a terminal,
    /// `--follow`) rather than being a file already written. Only the terminal view draws the
    /// two apart.
    fn input_is_live(&mut self, _live: bool) {}
    /// A transcript item that will not change any more.
    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()>;
    /// Called once per input, after its last item.
    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()>;
}

/// The renderer for an output format. The writer is passed to each call, so that the pipeline
/// keeps it and can flush it whenever the input runs dry.
pub(crate) fn renderer_for(options: &RenderOptions) -> Box<dyn Render> {
    match options.format {
        OutputFormat::Text => Box::new(ansi::TextRenderer::new(options)),
        OutputFormat::Md if options.compact => Box::new(markdown::CompactMarkdown::default()),
        OutputFormat::Md => Box::new(markdown::MarkdownRenderer::new(options)),
        OutputFormat::Jsonl => Box::new(jsonl::JsonlRenderer::default()),
        OutputFormat::Events => Box::new(events::EventsRenderer::default()),
        OutputFormat::Html => Box::new(
            html::HtmlRenderer::new(options.archive, options.debug).toggles_open(options.full),
        ),
        OutputFormat::Atif => Box::new(atif::AtifRenderer::default()),
    }
}

/// Lines of a long tool output the page shows before its "show all" toggle, and Markdown before
/// it cuts (unless `--full`).
pub(crate) const OUTPUT_PREVIEW_LINES: usize = 10;

/// Lines of a long diff (a whole file written, a large edit) shown the same way.
pub(crate) const DIFF_PREVIEW_LINES: usize = 40;

/// Whether `total` lines are worth cutting to `max`: a cut (or a toggle) that would leave out
/// three lines or fewer is not worth a reader's click.
pub(crate) fn worth_cutting(total: usize, max: usize) -> bool {
    total > max + 3
}

/// The first `max` lines of `text` and how many lines follow them; the whole text, and 0, when
/// that is not [`worth_cutting`]. Newlines are found a block at a time with `memchr` (`split`
/// looks for each on its own, and every output of a page goes through here).
pub(crate) fn preview(text: &str, max: usize) -> (&str, usize) {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let total = memchr::memchr_iter(b'\n', body.as_bytes()).count() + 1;
    if !worth_cutting(total, max) {
        return (text, 0);
    }
    match memchr::memchr_iter(b'\n', body.as_bytes()).nth(max - 1) {
        Some(at) => (&body[..=at], total - max),
        None => (text, 0),
    }
}

/// A file, source, data or compaction part in one line (text view and Markdown): what it is,
/// then what names it. `None` for text, reasoning and calls, which each view draws its own way.
pub(crate) fn part_label(part: &Part) -> Option<String> {
    Some(match part {
        Part::File {
            media_type,
            filename,
            ..
        } => match filename {
            Some(f) => format!("[file: {media_type} {f}]"),
            None => format!("[file: {media_type}]"),
        },
        Part::SourceUrl { url, title, .. } => match title {
            Some(t) => format!("[source: {t} {url}]"),
            None => format!("[source: {url}]"),
        },
        Part::SourceDocument { title, .. } => format!("[document: {title}]"),
        Part::Compaction { summary: Some(s) } => format!("[earlier turns compacted: {s}]"),
        Part::Compaction { summary: None } => {
            "[earlier turns compacted (no summary: compaction failed)]".to_owned()
        }
        Part::Data { name, .. } => format!("[data: {name}]"),
        Part::Text { .. } | Part::Reasoning { .. } | Part::ToolCall { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::preview;

    #[test]
    fn a_preview_cuts_only_what_is_worth_a_click() {
        let lines = |n: usize| (1..=n).map(|i| format!("{i}\n")).collect::<String>();
        // Three more lines than the preview: shown whole.
        let few = lines(13);
        assert_eq!(preview(&few, 10), (few.as_str(), 0));
        let many = lines(14);
        assert_eq!(preview(&many, 10), (&many[..lines(10).len()], 4));
        // No final newline: the same count.
        assert_eq!(preview(many.trim_end(), 10).1, 4);
    }
}
