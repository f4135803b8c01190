//! `--to events`: the stage-2 normalized event stream, one JSON object per line, each carrying
//! the input line it came from. Useful to see how scribe understood a stream before folding.

use std::io::{self, Write};

use serde::Serialize;

use super::{Render, Summary};
use crate::model::Header;
use crate::model::SCHEMA_VERSION;
use crate::model::event::Event;
use crate::model::transcript::TranscriptItem;

/// Writes every event as it is decoded; ignores the folded items.
#[derive(Default)]
pub(crate) struct EventsRenderer {
    line: super::JsonLine,
}

#[derive(Serialize)]
struct HeaderEvent<'a> {
    event: &'static str,
    schema: &'static str,
    version: u32,
    source: &'a str,
    file: &'a str,
}

impl Render for EventsRenderer {
    /// Each input is its header and its events.
    fn stands_alone(&self) -> bool {
        true
    }

    fn shows_events(&self) -> bool {
        true
    }

    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()> {
        self.line.write(
            out,
            &HeaderEvent {
                event: "header",
                schema: "scribe.events",
                version: SCHEMA_VERSION,
                source: header.source,
                file: &header.file,
            },
        )
    }

    fn live(&mut self, out: &mut dyn Write, event: &Event) -> io::Result<()> {
        if event.kind.is_fold_hint() {
            return Ok(());
        }
        self.line.write(out, event)
    }

    fn live_raw(&mut self, out: &mut dyn Write, event: &Event, raw: &str) -> io::Result<()> {
        if event.kind.is_fold_hint() {
            return Ok(());
        }
        let mut v = serde_json::to_value(event)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("raw".into(), serde_json::Value::String(raw.to_owned()));
        }
        self.line.write(out, &v)
    }

    fn item(&mut self, _out: &mut dyn Write, _item: &TranscriptItem) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, _out: &mut dyn Write, _summary: &Summary) -> io::Result<()> {
        Ok(())
    }
}
