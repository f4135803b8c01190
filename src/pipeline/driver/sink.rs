//! What the driver delivers to: a [`Sink`], through the fold ([`Folding`]); how an input
//! ended ([`Outcome`]); the error that stops a `--strict` run ([`StrictStop`]).

use anyhow::Result;

use crate::fold::Folder;
use crate::input::InputLine;
use crate::model::Header;
use crate::model::event::Event;
use crate::model::transcript::TranscriptItem;
use crate::render::Summary;
use crate::stats::Ledger;

/// Where a driver delivers what it read.
pub(crate) trait Sink {
    /// The input's header, once its format is known (or known to be unknown).
    fn begin(&mut self, header: Header) -> Result<()>;
    /// A decoded event, before the fold sees it.
    fn live(&mut self, _event: &Event) -> Result<()> {
        Ok(())
    }
    /// An input line, before the events it gives (`--include-raw` writes it beside them).
    fn raw_line(&mut self, _line: &InputLine) -> Result<()> {
        Ok(())
    }
    /// A final transcript item.
    fn item(&mut self, item: TranscriptItem) -> Result<()>;
    /// The input has nothing more buffered: a good moment to flush.
    fn idle(&mut self) -> Result<()> {
        Ok(())
    }
}

/// What a driver hands on: the events it decoded, still to be folded, or items that are final
/// already (scribe's own transcript read back). [`InputDriver::run`](super::InputDriver::run)
/// folds them on the spot ([`Folding`]); `pipeline::threaded` hands the events over and folds
/// them on the renderer's thread, so that a second core does the fold as well as the rendering.
pub(crate) trait Delivery {
    /// The input's header, once its format is known (or known to be unknown).
    fn begin(&mut self, header: Header) -> Result<()>;
    /// An input line, before the events it gives.
    fn raw_line(&mut self, line: &InputLine) -> Result<()>;
    /// A decoded event, to be folded.
    fn event(&mut self, event: Event) -> Result<()>;
    /// A final transcript item that needs no fold.
    fn item(&mut self, item: TranscriptItem) -> Result<()>;
    /// No event follows: the fold gives what it still holds.
    fn end_of_events(&mut self) -> Result<()>;
    /// The input has nothing more buffered: a good moment to flush.
    fn idle(&mut self) -> Result<()>;
}

/// Folds the events a driver delivers and gives the fold's items to a [`Sink`].
pub(super) struct Folding<'s> {
    sink: &'s mut dyn Sink,
    folder: Folder,
    items: Vec<TranscriptItem>,
}

impl<'s> Folding<'s> {
    /// A fold into `sink`.
    pub(super) fn new(sink: &'s mut dyn Sink) -> Folding<'s> {
        Folding {
            sink,
            folder: Folder::new(),
            items: Vec::new(),
        }
    }

    /// Gives the items the fold made final.
    fn give(&mut self) -> Result<()> {
        for item in self.items.drain(..) {
            self.sink.item(item)?;
        }
        Ok(())
    }
}

impl Delivery for Folding<'_> {
    fn begin(&mut self, header: Header) -> Result<()> {
        self.sink.begin(header)
    }

    fn raw_line(&mut self, line: &InputLine) -> Result<()> {
        self.sink.raw_line(line)
    }

    fn event(&mut self, event: Event) -> Result<()> {
        self.sink.live(&event)?;
        self.folder.push(event, &mut self.items);
        self.give()
    }

    fn item(&mut self, item: TranscriptItem) -> Result<()> {
        self.sink.item(item)
    }

    fn end_of_events(&mut self) -> Result<()> {
        self.folder.finish(&mut self.items);
        self.give()
    }

    fn idle(&mut self) -> Result<()> {
        self.sink.idle()
    }
}

/// How an input ended.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// Lines read, debug records and input errors.
    pub(crate) summary: Summary,
    /// The format that was read; `None` when none was recognised.
    pub(crate) source: Option<&'static str>,
    /// The input was abandoned as not JSON Lines (the run exits 1).
    pub(crate) stopped: bool,
    /// The account of its lines (per-line marks only with `keep_line_marks`).
    pub(crate) ledger: Ledger,
}

/// `--strict` stopped the run at the first input error.
#[derive(Debug)]
pub(crate) struct StrictStop;

impl std::fmt::Display for StrictStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped at the first input error (--strict)")
    }
}

impl std::error::Error for StrictStop {}
