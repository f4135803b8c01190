//! One input, from its bytes to final transcript items: the only place that opens an input,
//! sniffs it, picks the adapter (or reads scribe's own JSONL back), feeds it lines and finishes
//! it. `scribe FILE` (a `Sink` that renders) and `scribe diff` (a `Sink` that collects records)
//! both read through it, so they detect, warn and fail alike.
//!
//! States of one input (`State`):
//!
//! ```text
//! Sniffing ──(scribe header)──────────────▶ Transcript  records → items, no fold
//!    │ ─────(evidence decides a format)───▶ Stream      adapter → events → fold → items
//!    │ ─────(a JSON array or a `{` alone)─▶ Document    held whole, values → adapter at the end
//!    │ ─────(JSON of no known format)─────▶ Stopped     one message, nothing written (`NotALog`)
//!    └─────(a NUL byte, or only non-JSON)─▶ Stopped     one message, nothing more read
//! Stream ──(more than 100 lines in a row with an input error)──▶ Stopped
//! ```
//!
//! While sniffing, lines are held (at most `EVIDENCE` JSON values plus the chatter before them,
//! and never more than `MAX_HELD` lines) and replayed into the chosen decoder, so nothing read
//! for detection is lost and nothing is written before the format is chosen. The window is the
//! only place detection looks: an input whose window misled it is caught at its end, when more
//! than half of its lines became `debug` records (`MOSTLY_NOT_UNDERSTOOD`): an input error,
//! so `--strict` fails on it.

use std::io::{BufReader, Read};
use std::path::Path;

use anyhow::{Context, Result};

use crate::diagnostics::Diagnostics;
use crate::fold::Folder;
use crate::input::lines::LineReader;
use crate::input::scribe_jsonl::{self, TranscriptReader};
use crate::input::sniff::{self, Evidence, LineShape};
use crate::input::{self, Adapter, InputLine, Report, SourceFormat};
use crate::model::Header;
use crate::model::event::{Event, EventKind};
use crate::model::transcript::TranscriptItem;
use crate::render::Summary;
use crate::stats::Ledger;

/// Ending detection: choosing the decoder, replaying the held lines, whole documents, inputs
/// that are not logs.
mod decide;

pub(crate) use decide::NotALog;
use decide::{report_skipped, say_of_read};

/// More consecutive lines with an input error than this, and the input is not JSON Lines.
const MAX_BAD_RUN: u64 = 100;
/// Detection decides once it holds this many lines, whatever the evidence.
const MAX_HELD: usize = 200;
/// A NUL byte this early means a binary file.
const NUL_WINDOW: u64 = 8 * 1024;

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
/// already (scribe's own transcript read back). [`InputDriver::run`] folds them on the spot
/// ([`Folding`]); the two-thread pipeline (`threaded`) hands the events over and folds them on
/// the renderer's thread, so that a second core does the fold as well as the rendering.
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
pub(crate) struct Folding<'s> {
    sink: &'s mut dyn Sink,
    folder: Folder,
    items: Vec<TranscriptItem>,
}

impl<'s> Folding<'s> {
    /// A fold into `sink`.
    pub(crate) fn new(sink: &'s mut dyn Sink) -> Folding<'s> {
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

/// Where one input is in its life (see the module comment).
enum State {
    Sniffing(Box<Sniffing>),
    Transcript(TranscriptReader),
    Stream(Box<dyn Adapter>),
    Document(HeldDocument),
    Stopped,
}

/// A whole JSON document being read: given to its adapter when the input ends.
struct HeldDocument {
    /// The format asked for (`auto`: told from the document's values).
    format: SourceFormat,
    /// Its text so far.
    text: String,
    /// The line it starts at.
    first_line: u64,
}

/// What detection holds until it decides.
#[derive(Default)]
struct Sniffing {
    /// Lines read so far, to be replayed into the decoder.
    held: Vec<InputLine>,
    evidence: Evidence,
    /// Lines before the first JSON value that are neither JSON nor SSE.
    chatter: u64,
    /// SSE field lines (`event:`, `id:`, …): evidence of the daemon's SSE only when no JSON
    /// value says otherwise (a cut-off frame may hold none).
    sse: u64,
    /// Lines that open a JSON object but do not parse.
    broken: u64,
}

/// One input being read: its name, its state and its counts.
pub(crate) struct InputDriver<'a> {
    name: &'a str,
    path: &'a Path,
    from: SourceFormat,
    state: State,
    summary: Summary,
    events: Vec<Event>,
    items: Vec<TranscriptItem>,
    /// Lines in a row that each raised an input error.
    bad_run: u64,
    /// Bytes read so far (counted up to `NUL_WINDOW`, for the binary check).
    bytes: u64,
    /// The source named in the header, once written.
    began: Option<&'static str>,
    /// The input was abandoned as not JSON Lines.
    stopped: bool,
    /// Which lines an event, a record or a diagnostic named: a line of a streaming adapter that
    /// nothing named becomes a `debug` record, one an adapter held and never used a diagnostic.
    ledger: Ledger,
    /// Events fed to the fold so far.
    fed: u64,
    /// Follow mode: the input is still being written (`Adapter::set_live`).
    live: bool,
    /// Lines read that are not blank.
    content_lines: u64,
}

impl<'a> InputDriver<'a> {
    /// Keeps a mark per line for `--stats` (the account of every line, checked at the end).
    pub(crate) fn keep_line_marks(mut self, keep: bool) -> Self {
        self.ledger = Ledger::new(keep);
        self
    }

    /// Follow mode: the adapter emits as it reads, and a reader that returns `WouldBlock` (the
    /// input is quiet) gives it a moment to read the files beside the input (`Adapter::poll`).
    pub(crate) fn following(mut self) -> Self {
        self.live = true;
        self
    }

    /// A driver for the input `path` (named `name` in messages; `-` is standard input), read as
    /// `from` (`Auto`: detected).
    pub(crate) fn new(name: &'a str, path: &'a Path, from: SourceFormat) -> InputDriver<'a> {
        InputDriver {
            name,
            path,
            from,
            state: State::Sniffing(Box::default()),
            summary: Summary::default(),
            events: Vec::new(),
            items: Vec::new(),
            bad_run: 0,
            bytes: 0,
            began: None,
            stopped: false,
            ledger: Ledger::default(),
            fed: 0,
            live: false,
            content_lines: 0,
        }
    }

    /// Reads the whole input into `sink`, folding its events here.
    pub(crate) fn run(
        self,
        reader: impl Read,
        sink: &mut dyn Sink,
        diag: &mut Diagnostics,
    ) -> Result<Outcome> {
        self.deliver(reader, &mut Folding::new(sink), diag)
    }

    /// Reads the whole input, handing its events (unfolded) and records to `sink`.
    pub(crate) fn deliver(
        self,
        reader: impl Read,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<Outcome> {
        let errors_before = diag.errors();
        diag.track(Some(self.name));
        let result = self.read_all(reader, sink, diag);
        diag.track(None);
        let mut outcome = result?;
        outcome.summary.errors = diag.errors() - errors_before;
        Ok(outcome)
    }

    /// `run` less the diagnostics' line tracking.
    fn read_all(
        mut self,
        reader: impl Read,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<Outcome> {
        let mut lines = LineReader::new(BufReader::with_capacity(256 * 1024, reader));
        loop {
            if lines.is_drained() {
                self.drained(sink, diag)?;
                sink.idle()?;
            }
            let name = self.name;
            let next = match lines.next_line() {
                // A followed input is quiet (it only hands on whole lines, so nothing is lost).
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    self.poll(sink, diag)?;
                    continue;
                }
                next => next.with_context(|| format!("cannot read {name}"))?,
            };
            let Some(line) = next else {
                break;
            };
            self.summary.lines += 1;
            let blank = line.text.trim().is_empty();
            self.content_lines += u64::from(!blank);
            self.ledger.read(line.number, blank);
            if self.bytes < NUL_WINDOW {
                self.bytes += line.text.len() as u64 + 1;
                if line.text.contains('\0') {
                    self.stop(diag, "a NUL byte in its first 8 KB")?;
                    break;
                }
            }
            let errors = diag.errors();
            say_of_read(
                self.name,
                (&line, lines.was_cut(), lines.take_skipped()),
                diag,
            );
            if !self.take(line, errors, sink, diag)? {
                break;
            }
        }
        // A cut last line whose rest ran to the end of the input.
        report_skipped(self.name, lines.take_skipped(), diag);
        if !matches!(self.state, State::Stopped) {
            self.finish(sink, diag)?;
        }
        let stopped = self.stopped;
        if diag.must_stop() {
            return Err(StrictStop.into());
        }
        diag.take_noted(&mut self.ledger);
        Ok(Outcome {
            summary: self.summary,
            source: self.began.filter(|s| *s != "none"),
            stopped,
            ledger: self.ledger,
        })
    }

    /// One line, in whatever state the input is.
    fn line(
        &mut self,
        line: InputLine,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<()> {
        match &mut self.state {
            State::Sniffing(s) => {
                let first_json = s.evidence.len() == 0;
                match sniff::shape(&line.text) {
                    LineShape::Json(_)
                        if first_json
                            && self.from == SourceFormat::Auto
                            && scribe_jsonl::is_header(&line.text) =>
                    {
                        // scribe's own transcript: its records are final items already.
                        let source = scribe_jsonl::header_source(&line.text);
                        let held = std::mem::take(&mut s.held);
                        self.state = State::Transcript(TranscriptReader);
                        self.begin(sink, source)?;
                        self.skip_chatter(held, sink, diag)?;
                        return Ok(());
                    }
                    LineShape::Json(v) => s.evidence.add(&v),
                    LineShape::DocumentStart if first_json => {
                        let held = std::mem::take(&mut s.held);
                        self.state = State::Document(HeldDocument {
                            format: self.from,
                            first_line: line.number,
                            text: String::new(),
                        });
                        self.skip_chatter(held, sink, diag)?;
                        return self.line(line, sink, diag);
                    }
                    LineShape::Other if first_json => s.chatter += 1,
                    LineShape::SseField => s.sse += 1,
                    LineShape::BrokenJson => s.broken += 1,
                    LineShape::Blank | LineShape::Other | LineShape::DocumentStart => {}
                }
                s.held.push(line);
                let forced = self.from != SourceFormat::Auto && s.evidence.len() > 0;
                // Detection holds a bounded number of lines: past that, the evidence is what
                // it is.
                let full = s.evidence.len() > 0 && s.held.len() >= MAX_HELD;
                if forced || full || s.evidence.is_enough() {
                    self.decide(sink, diag)?;
                } else if s.evidence.len() == 0 && s.chatter > MAX_BAD_RUN {
                    self.stop(diag, "no JSON in its first 100 lines")?;
                }
            }
            State::Transcript(reader) => {
                let mut report = Report {
                    file: self.name,
                    problems: diag,
                };
                reader.line(&line, &mut self.items, &mut report);
                if !self.items.is_empty() {
                    self.ledger.record(line.number);
                }
                for item in self.items.drain(..) {
                    sink.item(item)?;
                }
            }
            State::Stream(adapter) => {
                let mut report = Report {
                    file: self.name,
                    problems: diag,
                };
                sink.raw_line(&line)?;
                adapter.line(&line, &mut self.events, &mut report);
                diag.take_noted(&mut self.ledger);
                if !adapter.holds_line(line.number)
                    && self.ledger.is_pending(line.number)
                    && !self.events.iter().any(|e| e.line == line.number)
                {
                    // Nothing came of a line the adapter did not keep: a shape nobody foresaw.
                    // It is kept whole, never dropped.
                    input::push_debug(&mut self.events, &line, "line decoded into nothing");
                }
                self.feed(sink)?;
            }
            State::Document(doc) => {
                doc.text.push_str(&line.text);
                doc.text.push('\n');
            }
            State::Stopped => {}
        }
        Ok(())
    }

    /// Follow mode, the input quiet: the adapter reads the files beside it.
    fn poll(&mut self, sink: &mut dyn Delivery, diag: &mut Diagnostics) -> Result<()> {
        if let State::Stream(adapter) = &mut self.state {
            let mut report = Report {
                file: self.name,
                problems: diag,
            };
            adapter.poll(&mut self.events, &mut report);
            self.feed(sink)?;
        }
        Ok(())
    }

    /// The reader has nothing buffered: a live stream may be paused here, so decide now if the
    /// evidence already agrees rather than hold its output back.
    fn drained(&mut self, sink: &mut dyn Delivery, diag: &mut Diagnostics) -> Result<()> {
        match &self.state {
            State::Sniffing(s) if s.evidence.is_consistent() => self.decide(sink, diag),
            _ => Ok(()),
        }
    }

    /// Abandons the input: it is not JSON Lines. One message for the whole input, not one per
    /// line; the run's exit status (1) says it failed. An input of which nothing was written
    /// yet (no JSON before it: a TOML file, an app's log) gets no empty document either: it
    /// ends as [`NotALog`].
    fn stop(&mut self, diag: &mut Diagnostics, why: &str) -> Result<()> {
        diag.message(
            self.name,
            &format!("does not look like JSON Lines ({why}); stopped reading it"),
        );
        // The message names the whole input: it accounts for every line read and not yet used.
        for n in self.ledger.take_pending() {
            self.ledger.diagnosed(n);
        }
        self.state = State::Stopped;
        self.stopped = true;
        if self.began.is_none() {
            return Err(NotALog.into());
        }
        Ok(())
    }

    /// The input ended.
    fn finish(&mut self, sink: &mut dyn Delivery, diag: &mut Diagnostics) -> Result<()> {
        if matches!(self.state, State::Sniffing(_)) {
            self.decide(sink, diag)?;
        }
        match std::mem::replace(&mut self.state, State::Stopped) {
            State::Stream(mut adapter) => {
                let mut report = Report {
                    file: self.name,
                    problems: diag,
                };
                self.finish_adapter(adapter.as_mut(), &mut report, sink)?;
                self.unreflected(diag);
                self.mostly_not_understood(diag);
                sink.end_of_events()?;
            }
            State::Document(doc) => {
                let before = self.fed;
                self.document(&doc, sink, diag)?;
                // A document is read whole: its lines are in its records, or its error names it.
                self.ledger
                    .document(doc.first_line, self.summary.lines, self.fed > before);
                self.unreflected(diag);
                self.mostly_not_understood(diag);
            }
            State::Sniffing(_) | State::Transcript(_) | State::Stopped => {}
        }
        if self.began.is_none() {
            let source = match self.from {
                SourceFormat::Auto => "none",
                f => f.name(),
            };
            self.begin(sink, source)?;
        }
        Ok(())
    }

    /// Lines an adapter held to the end and still reflected nowhere: said, rather than lost.
    fn unreflected(&mut self, diag: &mut Diagnostics) {
        diag.take_noted(&mut self.ledger);
        for n in self.ledger.take_pending() {
            diag.error(
                self.name,
                n,
                "line not reflected in any record (read, but nothing was kept of it)",
            );
        }
        diag.take_noted(&mut self.ledger);
    }

    /// Writes the header.
    fn begin(&mut self, sink: &mut dyn Delivery, source: &'static str) -> Result<()> {
        self.began = Some(source);
        sink.begin(Header {
            file: self.name.to_owned(),
            source,
        })
    }

    /// Passes decoded events on, to be folded.
    fn feed(&mut self, sink: &mut dyn Delivery) -> Result<()> {
        for event in self.events.drain(..) {
            self.fed += 1;
            self.ledger.event(&event);
            if matches!(event.kind, EventKind::Debug { .. }) {
                self.summary.debug += 1;
            }
            sink.event(event)?;
        }
        Ok(())
    }
}
