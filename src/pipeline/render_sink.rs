//! The driver's sink for `scribe FILE`: `--redact`/`--stable` over what the driver delivers,
//! then the renderer, and the `--stats` account.

use foldhash::HashMap;
use std::io::{BufWriter, Write};
use std::sync::Arc;

use anyhow::Result;

use super::Rendered;
use super::driver::{self, Sink};
use super::names::{BesideFiles, InputName};
use crate::input::lines::InputLine;
use crate::model::Header;
use crate::model::event::Event;
use crate::model::transcript::TranscriptItem;
use crate::render::Render;
use crate::settings::Settings;
use crate::stats::Stats;
use crate::transform::Transforms;

/// The driver's sink for `scribe FILE`: `--redact`/`--stable`, then the renderer.
pub(super) struct RenderSink<'a, W: Write> {
    renderer: &'a mut dyn Render,
    out: &'a mut BufWriter<W>,
    transforms: Transforms,
    session_id: Option<String>,
    /// The `--stats` totals: records written by kind, debug records by raw kind.
    stats: &'a mut Stats,
    /// `--include-raw`: each input line's text, by line number, for the events it gives.
    raw_lines: Option<HashMap<u64, String>>,
    /// `--output-dir`, for a format that writes files beside an input's: the input's name,
    /// taken as soon as its first session snapshot comes (else at its end).
    name: Option<Arc<InputName>>,
}

impl<'a, W: Write> RenderSink<'a, W> {
    /// The sink for one input; `live`: it arrives as it is written (`Settings::input_is_live`).
    pub(super) fn new(
        renderer: &'a mut dyn Render,
        out: &'a mut BufWriter<W>,
        settings: &Settings,
        stats: &'a mut Stats,
        live: bool,
    ) -> RenderSink<'a, W> {
        renderer.input_is_live(live);
        RenderSink {
            renderer,
            out,
            transforms: settings.transforms(),
            session_id: None,
            stats,
            raw_lines: settings.include_raw.then(HashMap::default),
            name: None,
        }
    }

    /// Names the input's file as it renders (`name`), and tells the renderer where the files
    /// beside it go (nowhere: `None`, one stream).
    pub(super) fn naming(mut self, name: Option<Arc<InputName>>) -> Self {
        let files = name
            .clone()
            .map(|n| Box::new(BesideFiles(n)) as Box<dyn crate::render::Beside>);
        self.renderer.beside(files);
        self.name = name;
        self
    }

    /// `--include-raw`: keeps an input line's text for the events it gives.
    pub(super) fn keep_raw_line(&mut self, number: u64, text: String) {
        if let Some(lines) = &mut self.raw_lines {
            lines.insert(number, text);
        }
    }

    /// `Sink::item`, leaving the item to its owner (`threaded` gives it back to the thread that
    /// made it, to be freed there).
    pub(super) fn render_item(&mut self, item: &mut TranscriptItem) -> Result<()> {
        if let (TranscriptItem::Session(s), None) = (&*item, &self.session_id) {
            self.session_id = Some(s.session_id.clone());
            if let Some(name) = &self.name {
                name.fix(Some(&s.session_id))?;
            }
        }
        self.transforms.item(item);
        self.stats.record_written(item);
        Ok(self.renderer.item(self.out, item)?)
    }

    /// Ends the input `name` once the driver is done with it: the events `--stable` held, the
    /// renderer's last words, the `--stats` account.
    pub(super) fn finish(mut self, name: &str, outcome: driver::Outcome) -> Result<Rendered> {
        for held in self.transforms.finish_events() {
            self.renderer.live(self.out, &held)?;
        }
        if let Some(name) = &self.name {
            name.fix(None)?;
        }
        self.renderer.finish(self.out, &outcome.summary)?;
        self.stats.close(name, outcome.ledger);
        Ok(Rendered {
            session_id: self.session_id,
            stopped: outcome.stopped,
            named: self.name.and_then(|n| n.take_named()),
        })
    }
}

impl<W: Write> Sink for RenderSink<'_, W> {
    fn begin(&mut self, mut header: Header) -> Result<()> {
        self.transforms.header(&mut header);
        Ok(self.renderer.begin(self.out, &header)?)
    }

    fn raw_line(&mut self, line: &InputLine) -> Result<()> {
        if self.raw_lines.is_some() {
            self.keep_raw_line(line.number, line.text.clone());
        }
        Ok(())
    }

    fn live(&mut self, event: &Event) -> Result<()> {
        self.stats.debug_event(event);
        self.transforms.watch(event);
        if !self.renderer.shows_events() {
            return Ok(());
        }
        let raw = self
            .raw_lines
            .as_ref()
            .and_then(|l| l.get(&event.line))
            .cloned();
        if self.transforms.is_empty() {
            match raw {
                Some(raw) => self.renderer.live_raw(self.out, event, &raw)?,
                None => self.renderer.live(self.out, event)?,
            }
        } else {
            // `--stable --to events` may hold an event back and release several at once.
            let shown_now = self.transforms.event(event);
            let raw = raw.and_then(|raw| self.transforms.raw_text(event.line, raw));
            for shown in shown_now {
                match &raw {
                    Some(raw) => self.renderer.live_raw(self.out, &shown, raw)?,
                    None => self.renderer.live(self.out, &shown)?,
                }
            }
        }
        Ok(())
    }

    fn item(&mut self, mut item: TranscriptItem) -> Result<()> {
        self.render_item(&mut item)
    }

    fn idle(&mut self) -> Result<()> {
        Ok(self.out.flush()?)
    }
}
