//! One input on two threads: the driver (reading, decoding, folding) on one, `--redact`,
//! `--stable` and the renderer on the other (issue 14).
//!
//! A single large input used one core while the other sat idle: decoding and folding are about
//! two thirds of a run, rendering the rest. Here the driver runs on a thread of its own and hands
//! what it would have given the sink to the thread that renders, in order, in batches: a batch
//! goes when the driver's reader has nothing left in its buffer (the moment the one-thread
//! pipeline flushes, so a live pipe shows each record as soon as it is final) or when it holds
//! [`BATCH`] messages or [`BATCH_BYTES`] of input. At most [`DEPTH`] batches wait between the
//! threads, so memory stays bounded as the input grows.
//!
//! What the driver made is freed by the driver: the renderer hands each batch back once it is
//! written. Freed on the renderer's thread, each of an item's allocations was a remote free for
//! the allocator (mimalloc), and those frees and their collection cost as much as the second
//! core gave.
//!
//! The output is the same byte for byte: the renderer sees the same calls in the same order.
//! Only diagnostics may reach standard error a little earlier relative to standard output.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};

use anyhow::Result;

use super::RenderSink;
use super::driver::{Outcome, Sink};
use crate::diagnostics::Diagnostics;
use crate::input::lines::InputLine;
use crate::model::Header;
use crate::model::event::{Event, EventKind};
use crate::model::transcript::TranscriptItem;
use crate::settings::Settings;

/// Messages in a batch before it is handed over.
const BATCH: usize = 16;
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
    /// Boxed: only debug events go over unless the renderer shows events, and an event is
    /// larger than the other calls.
    Live(Box<Event>),
    Item(TranscriptItem),
    Idle,
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
    to_renderer: SyncSender<Vec<Call>>,
    /// Batches the renderer is done with, to be freed here.
    written: Receiver<Vec<Call>>,
    batch: Vec<Call>,
    /// Input bytes read since the last batch went.
    bytes: usize,
    /// Every event goes over (the renderer shows them); otherwise only debug events, which
    /// `--stats` counts.
    all_events: bool,
    /// `--include-raw`: input lines go over.
    raw_lines: bool,
}

impl Handover {
    fn push(&mut self, call: Call) -> Result<()> {
        self.batch.push(call);
        if self.batch.len() >= BATCH {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Sends the batch, if any.
    fn hand_over(&mut self) -> Result<()> {
        self.bytes = 0;
        if self.batch.is_empty() {
            return Ok(());
        }
        // The written batches are dropped here; the last one's vector is reused.
        let mut next = None;
        for mut written in self.written.try_iter() {
            written.clear();
            next = Some(written);
        }
        let next = next.unwrap_or_else(|| Vec::with_capacity(BATCH));
        let batch = std::mem::replace(&mut self.batch, next);
        self.to_renderer
            .send(batch)
            .map_err(|_| anyhow::Error::new(RendererGone))
    }
}

impl Sink for Handover {
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

    fn live(&mut self, event: &Event) -> Result<()> {
        if self.all_events || matches!(event.kind, EventKind::Debug { .. }) {
            self.push(Call::Live(Box::new(event.clone())))?;
        }
        Ok(())
    }

    fn item(&mut self, item: TranscriptItem) -> Result<()> {
        self.push(Call::Item(item))
    }

    fn idle(&mut self) -> Result<()> {
        self.batch.push(Call::Idle);
        self.hand_over()
    }
}

/// Makes one call on the renderer's sink, leaving what it carries to be freed by its maker.
fn make(sink: &mut RenderSink<'_, impl Write>, call: &mut Call) -> Result<()> {
    match call {
        Call::Begin(header) => sink.begin(header.clone()),
        Call::RawLine(number, text) => {
            sink.keep_raw_line(*number, std::mem::take(text));
            Ok(())
        }
        Call::Live(event) => sink.live(event),
        Call::Item(item) => sink.render_item(item),
        Call::Idle => sink.idle(),
    }
}

/// Reads one input to its end with the driver on a thread of its own, making its calls on
/// `sink` here (`pipeline::run_one_on`; not for `--follow`, whose reader waits on the terminal's
/// switches).
pub(super) fn drive(
    name: &str,
    path: &Path,
    reader: impl Read + Send,
    settings: &Settings,
    sink: &mut RenderSink<'_, impl Write>,
    diag: &mut Diagnostics,
) -> Result<Outcome> {
    let all_events = sink.renderer.shows_events();
    let (to_renderer, batches) = sync_channel::<Vec<Call>>(DEPTH);
    let (give_back, written) = channel::<Vec<Call>>();
    let handover = Handover {
        to_renderer,
        written,
        batch: Vec::with_capacity(BATCH),
        bytes: 0,
        all_events,
        raw_lines: settings.include_raw,
    };
    let (outcome, failed) = std::thread::scope(|scope| {
        let driving = std::thread::Builder::new()
            .name("scribe-driver".to_owned())
            .spawn_scoped(scope, move || {
                // Moved here: the renderer's loop ends when this sink (its sender) is dropped.
                let mut handover = handover;
                let outcome =
                    super::driver_for(name, path, settings).run(reader, &mut handover, diag);
                // What the driver gave last goes over even when it failed (`--strict`).
                let sent = handover.hand_over();
                outcome.and_then(|o| sent.map(|()| o))
            });
        let driving = match driving {
            Ok(handle) => handle,
            Err(e) => return (Err(e.into()), None),
        };
        let mut failed = None;
        'batches: for mut batch in batches.iter() {
            for call in &mut batch {
                if let Err(e) = make(sink, call) {
                    failed = Some(e);
                    break 'batches;
                }
            }
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
