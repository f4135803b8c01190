//! Stage 3 → bytes. One renderer per output format, all behind the same small `Render` trait.
//!
//! A renderer sees a header, then every normalized event as it arrives (`live`: only the live
//! terminal view and `--to events` care), then each transcript item once it is final, then the
//! end of the input. Adding an output format is one new module and one arm in `renderer_for`.

use std::io::{self, Write};

use crate::cli::OutputFormat;
use crate::model::event::Event;
use crate::model::transcript::TranscriptItem;
use crate::settings::Settings;

/// `--to text` (its sanitizer and number formats are shared with Markdown).
pub(crate) mod ansi;
mod events;
pub(crate) mod html;
mod jsonl;
mod markdown;
/// Notice wordings shared by the text, Markdown and HTML renderers.
pub(crate) mod notice_text;
/// Terminal colour codes in tool output: parsed into styles (HTML) or stripped (Markdown).
pub(crate) mod sgr;
/// One-line tool-call summaries shared by the human-readable renderers.
pub(crate) mod summary;
/// The totals of `result` notices shared by the text, Markdown and HTML renderers.
pub(crate) mod totals;

/// What a renderer knows about the input before the first item.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    /// The input's name as the user gave it (`-` for stdin).
    pub(crate) file: String,
    /// The input format that was read (`claude-stream`, …).
    pub(crate) source: &'static str,
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
pub(crate) trait Render {
    /// Called once per input, before anything else.
    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()>;
    /// Every normalized event, as soon as it is decoded (before it is folded).
    fn live(&mut self, _out: &mut dyn Write, _event: &Event) -> io::Result<()> {
        Ok(())
    }
    /// A transcript item that will not change any more.
    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()>;
    /// Called once per input, after its last item.
    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()>;
}

/// The renderer for an output format. The writer is passed to each call, so that the pipeline
/// keeps it and can flush it whenever the input runs dry.
pub(crate) fn renderer_for(format: OutputFormat, settings: &Settings) -> Box<dyn Render> {
    match format {
        OutputFormat::Text => Box::new(ansi::TextRenderer::new(settings)),
        OutputFormat::Md => Box::new(markdown::MarkdownRenderer::new(settings)),
        OutputFormat::Jsonl => Box::new(jsonl::JsonlRenderer),
        OutputFormat::Events => Box::new(events::EventsRenderer),
        OutputFormat::Html => Box::new(html::HtmlRenderer::new(settings.output_dir.is_some())),
    }
}
