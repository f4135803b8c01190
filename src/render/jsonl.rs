//! `--to jsonl`: the folded transcript as normalized JSON Lines (docs/schema.md).
//!
//! Record kinds: `header` (first, with the schema version), `session`, `turn`, `notice`, `debug`.
//! Turns and sessions are written flat (`{"kind":"turn","id":…,"role":…}`) so that a `jq` filter
//! reads §14's field names directly; a notice keeps its own `kind` inside `notice`.

use std::io::{self, Write};

use serde::Serialize;

use super::{Render, Summary};
use crate::model::Header;
use crate::model::SCHEMA_VERSION;
use crate::model::session::{SessionSnapshot, SystemNotice};
use crate::model::transcript::{DebugRecord, TranscriptItem, Turn};

/// Writes one JSON record per line.
#[derive(Default)]
pub(crate) struct JsonlRenderer {
    line: super::JsonLine,
}

/// The first record of every transcript.
#[derive(Serialize)]
struct HeaderRecord<'a> {
    kind: &'static str,
    schema: &'static str,
    version: u32,
    generator: String,
    source: &'a str,
    file: &'a str,
}

#[derive(Serialize)]
struct Tagged<'a, T: Serialize> {
    kind: &'static str,
    #[serde(flatten)]
    body: &'a T,
}

#[derive(Serialize)]
struct NoticeRecord<'a> {
    kind: &'static str,
    notice: &'a SystemNotice,
}

impl Render for JsonlRenderer {
    /// Each input is its header and its records.
    fn stands_alone(&self) -> bool {
        true
    }

    fn begin(&mut self, out: &mut dyn Write, header: &Header) -> io::Result<()> {
        self.line.write(
            out,
            &HeaderRecord {
                kind: "header",
                schema: "scribe.transcript",
                version: SCHEMA_VERSION,
                generator: format!("scribe {}", env!("CARGO_PKG_VERSION")),
                source: header.source,
                file: &header.file,
            },
        )
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        match item {
            TranscriptItem::Session(s) => self.line.write(
                out,
                &Tagged::<SessionSnapshot> {
                    kind: "session",
                    body: s,
                },
            ),
            TranscriptItem::Turn(t) => self.line.write(
                out,
                &Tagged::<Turn> {
                    kind: "turn",
                    body: t,
                },
            ),
            TranscriptItem::Notice(n) => self.line.write(
                out,
                &NoticeRecord {
                    kind: "notice",
                    notice: n,
                },
            ),
            TranscriptItem::Debug(d) => self.line.write(
                out,
                &Tagged::<DebugRecord> {
                    kind: "debug",
                    body: d,
                },
            ),
        }
    }

    fn finish(&mut self, _out: &mut dyn Write, _summary: &Summary) -> io::Result<()> {
        Ok(())
    }
}
