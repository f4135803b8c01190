//! One input on two threads: the driver (reading and decoding) on one; the fold, `--redact`,
//! `--stable` and the renderer on the other. The one-input driver takes this way when `--jobs`
//! allows a second thread (`Run::convert_input`); docs/performance.md has the figures.
//!
//! The driver runs on a thread of its own and hands what it delivers (events, still to be
//! folded, and records) to the thread that renders, in order, in batches: a batch goes when the
//! driver's reader has nothing left in its buffer (the moment the one-thread pipeline flushes,
//! so a live pipe shows each record as soon as it is final) or when it holds [`BATCH`] messages
//! or [`BATCH_BYTES`] of input. At most [`DEPTH`] batches wait between the threads, so memory
//! stays bounded as the input grows. Decoding is the larger part of a run, so the fold goes
//! with the renderer, and an event crosses once.
//!
//! The renderer folds each event itself, not a copy: the strings an event carries (a tool's
//! output, most of a saved session's bytes) become the items' strings, written and freed on the
//! renderer's thread. Those frees are remote frees for the allocator (the block was allocated
//! on the driver's thread); copying every event so that each thread frees only its own blocks
//! cost more on a saved session (the copy, its allocations and their page faults) and about as
//! much on a stream (docs/performance.md). The batch (its vectors, and the calls the renderer
//! only borrowed) is handed back to the driver, to be reused and freed there.
//!
//! The output is the same byte for byte: the renderer sees the same calls in the same order.
//! Only diagnostics may reach standard error a little earlier relative to standard output.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use anyhow::Result;

use super::RenderSink;
use super::driver::{Delivery, Outcome, Sink};
use crate::diagnostics::Diagnostics;
use crate::fold::Folder;
use crate::input::lines::InputLine;
use crate::model::Header;
use crate::model::event::Event;
use crate::model::transcript::TranscriptItem;
use crate::settings::Settings;

/// Messages in a batch before it is handed over: small batches make the threads wake each other
/// for every batch; large ones hold more in flight (a saved session's second pass sends events,
/// each with its tool output, with no input line read between them, so only this count bounds
/// its batches). 256 keeps the two threads busy; 64 held a few MB less but took the second
/// thread's gain away on a saved session (docs/performance.md).
const BATCH: usize = 256;
/// Input bytes read into a batch before it is handed over (the driver's reader hands one over at
/// each refill of its 256 KB buffer anyway; this bounds a batch of long lines).
const BATCH_BYTES: usize = 1 << 20;
/// Batches waiting between the threads before the driver waits.
const DEPTH: usize = 2;

/// One call the driver made on its sink, to be made on the renderer's.
enum Call {
    Begin(Header),
    /// `--include-raw`: an input line's number and text.
    RawLine(u64, String),
    /// The batch's next event, to fold (the events travel apart, in [`Batch::events`]: an
    /// event is larger than the other calls, and a vector of them is reused batch to batch).
    Event,
    Item(TranscriptItem),
    EndOfEvents,
    Idle,
}

/// Calls handed over together, and handed back to be freed where they were made.
struct Batch {
    calls: Vec<Call>,
    events: Vec<Event>,
}

impl Batch {
    fn new() -> Batch {
        Batch {
            calls: Vec::with_capacity(BATCH),
            events: Vec::with_capacity(BATCH),
        }
    }
}

/// The renderer's thread stopped taking batches (it failed: its own error is the one reported).
#[derive(Debug)]
struct RendererGone;

impl std::fmt::Display for RendererGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the renderer stopped")
    }
}

impl std::error::Error for RendererGone {}

/// The driver's sink: the calls, batched for the renderer's thread.
struct Handover {
    to_renderer: SyncSender<Batch>,
    /// Batches the renderer is done with, to be freed here.
    written: Receiver<Batch>,
    batch: Batch,
    /// Input bytes read since the last batch went.
    bytes: usize,
    /// `--include-raw`: input lines go over.
    raw_lines: bool,
}

impl Handover {
    fn push(&mut self, call: Call) -> Result<()> {
        self.batch.calls.push(call);
        if self.batch.calls.len() >= BATCH {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Sends the batch, if any.
    fn hand_over(&mut self) -> Result<()> {
        self.bytes = 0;
        if self.batch.calls.is_empty() {
            return Ok(());
        }
        // The written batches are dropped here; the last one's vectors are reused.
        let mut next = None;
        for mut written in self.written.try_iter() {
            written.calls.clear();
            written.events.clear();
            next = Some(written);
        }
        let next = next.unwrap_or_else(Batch::new);
        let batch = std::mem::replace(&mut self.batch, next);
        self.to_renderer
            .send(batch)
            .map_err(|_| anyhow::Error::new(RendererGone))
    }
}

impl Delivery for Handover {
    fn begin(&mut self, header: Header) -> Result<()> {
        self.push(Call::Begin(header))
    }

    fn raw_line(&mut self, line: &InputLine) -> Result<()> {
        if self.raw_lines {
            self.push(Call::RawLine(line.number, line.text.clone()))?;
        }
        self.bytes += line.text.len();
        if self.bytes >= BATCH_BYTES {
            self.hand_over()?;
        }
        Ok(())
    }

    fn event(&mut self, event: Event) -> Result<()> {
        self.batch.events.push(event);
        self.push(Call::Event)
    }

    fn item(&mut self, item: TranscriptItem) -> Result<()> {
        self.push(Call::Item(item))
    }

    fn end_of_events(&mut self) -> Result<()> {
        self.push(Call::EndOfEvents)
    }

    fn idle(&mut self) -> Result<()> {
        self.batch.calls.push(Call::Idle);
        self.hand_over()
    }
}

/// The renderer's end: the fold, and the sink it gives to.
struct Renderer<'r, 'o, W: Write> {
    sink: &'r mut RenderSink<'o, W>,
    folder: Folder,
}

impl<W: Write> Renderer<'_, '_, W> {
    /// Makes one call on the renderer's sink, leaving what it borrows to be freed by the
    /// driver; the fold takes the event itself, and the items it folds go into `folded`, to be
    /// freed here. `events`: the batch's events not yet folded.
    fn make(
        &mut self,
        call: &mut Call,
        events: &mut std::vec::Drain<'_, Event>,
        folded: &mut Vec<TranscriptItem>,
    ) -> Result<()> {
        let start = folded.len();
        match call {
            Call::Begin(header) => return self.sink.begin(header.clone()),
            Call::RawLine(number, text) => {
                self.sink.keep_raw_line(*number, text.clone());
                return Ok(());
            }
            Call::Event => {
                if let Some(event) = events.next() {
                    self.sink.live(&event)?;
                    self.folder.push(event, folded);
                }
            }
            Call::Item(item) => return self.sink.render_item(item),
            Call::EndOfEvents => self.folder.finish(folded),
            Call::Idle => return self.sink.idle(),
        }
        for item in &mut folded[start..] {
            self.sink.render_item(item)?;
        }
        Ok(())
    }
}

/// Reads one input to its end with the driver on a thread of its own, spawned here, rendering
/// into `sink` on this one (not for `--follow`, whose reader waits on the terminal's switches).
pub(super) fn drive(
    path: &Path,
    reader: impl Read + Send,
    settings: &Settings,
    sink: &mut RenderSink<'_, impl Write>,
    diag: &mut Diagnostics,
) -> Result<Outcome> {
    let name = path.display().to_string();
    let (to_renderer, batches) = sync_channel::<Batch>(DEPTH);
    let (give_back, written) = channel::<Batch>();
    let handover = Handover {
        to_renderer,
        written,
        batch: Batch::new(),
        bytes: 0,
        raw_lines: settings.include_raw,
    };
    let (outcome, failed) = std::thread::scope(|scope| {
        let driving = std::thread::Builder::new()
            .name("scribe-driver".to_owned())
            .spawn_scoped(scope, move || {
                // Moved here: the renderer's loop ends when this sink (its sender) is dropped.
                let mut handover = handover;
                let outcome =
                    super::driver_for(&name, path, settings).deliver(reader, &mut handover, diag);
                // What the driver gave last goes over even when it failed (`--strict`).
                let sent = handover.hand_over();
                outcome.and_then(|o| sent.map(|()| o))
            });
        let driving = match driving {
            Ok(handle) => handle,
            Err(e) => return (Err(e.into()), None),
        };
        let mut renderer = Renderer {
            sink,
            folder: Folder::new(),
        };
        let mut failed = None;
        let mut folded = Vec::new();
        'batches: for mut batch in batches.iter() {
            let mut events = batch.events.drain(..);
            for call in &mut batch.calls {
                if let Err(e) = renderer.make(call, &mut events, &mut folded) {
                    failed = Some(e);
                    break;
                }
            }
            drop(events);
            if failed.is_some() {
                break 'batches;
            }
            folded.clear();
            // Freed by the driver; once it has ended, here.
            let _ = give_back.send(batch);
        }
        // A renderer that failed stops taking batches: the driver stops at its next one.
        drop(batches);
        let outcome = driving
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (outcome, failed)
    });
    match failed {
        Some(e) => Err(e),
        None => outcome,
    }
}
