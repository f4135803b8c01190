//! `--to atif`: one Agent Trajectory Interchange Format document per input (Harbor's RFC 0001,
//! `ATIF-v1.8`), on one line, for eval harnesses and training pipelines (docs/atif.md).
//!
//! Turns become steps (`step`), notices system steps (`notice`), sub-agent runs trajectories of
//! their own embedded in the document and referenced from their call's result. What ATIF has
//! no field for goes in the `extra` of the object it belongs to, so nothing the transcript
//! holds is lost. Each step is written to a spool as soon as its item is final, and the document
//! is put together from the spools when the input ends: memory holds one item, not a session.

use std::borrow::Cow;
use std::io::{self, Read, Seek, SeekFrom, Write};

use foldhash::HashSet;
use serde::Serialize;
use serde_json::{Map, json};
use tempfile::SpooledTempFile;

mod content;
mod notice;
mod step;
mod wire;

use super::totals::Totals;
use super::{Beside, Render, Summary};
use crate::model::Header;
use crate::model::session::SystemNotice;
use crate::model::session::{SessionSnapshot, said};
use crate::model::transcript::{Part, SubagentRecord, TranscriptItem};
use step::{Files, Made, Steps};
use wire::{Agent, Content, FinalMetrics, SCHEMA_VERSION, Source, Step, Trajectory};

/// A JSON array's items written one after another, in memory up to half a megabyte and in a
/// temporary file past that.
struct Spool {
    file: SpooledTempFile,
    count: usize,
    /// Items' JSON not yet written to `file`: written a block at a time, not a system call
    /// per step (docs/performance.md).
    buf: Vec<u8>,
}

/// How much of the items' JSON is gathered before it goes to the spool's file, and how much is
/// read back at a time.
const BLOCK: usize = 256 << 10;

impl Default for Spool {
    /// Held in memory up to half a megabyte.
    fn default() -> Spool {
        Spool {
            file: SpooledTempFile::new(512 << 10),
            count: 0,
            buf: Vec::new(),
        }
    }
}

impl Spool {
    /// Appends one item.
    fn push<T: Serialize + ?Sized>(&mut self, item: &T) -> io::Result<()> {
        if self.count > 0 {
            self.buf.push(b',');
        }
        scribe_json::write(&mut self.buf, item).map_err(io::Error::other)?;
        self.count += 1;
        if self.buf.len() >= BLOCK {
            self.file.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes the items as a JSON array.
    fn write_array(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(b"[")?;
        self.file.seek(SeekFrom::Start(0))?;
        // `io::copy` into a `dyn Write` goes 8 KiB at a time.
        let mut block = vec![0; BLOCK];
        loop {
            match self.file.read(&mut block) {
                Ok(0) => break,
                Ok(n) => out.write_all(&block[..n])?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        out.write_all(&self.buf)?;
        out.write_all(b"]")
    }
}

/// The ATIF renderer: the input's name and format, its session snapshots, the spooled steps,
/// sub-agent trajectories and debug records, and the running totals.
#[derive(Default)]
pub(crate) struct AtifRenderer {
    file: String,
    source: &'static str,
    sessions: Vec<SessionSnapshot>,
    steps: Spool,
    subagents: Spool,
    debug: Spool,
    /// Sub-agent trajectory ids taken in this document.
    taken: HashSet<String>,
    totals: FinalMetrics,
    /// The cost as every view counts it (results' own costs, else a saved session's
    /// `cost-state` record).
    costs: Totals,
    /// The model of the first agent step, when no snapshot names one.
    first_model: Option<String>,
    /// `--output-dir`: each sub-agent trajectory is a file of its own, written here.
    beside: Option<Box<dyn Beside>>,
}

impl AtifRenderer {
    /// The agent system, as the newest session snapshot names it (the input format when none
    /// does; `unknown` for a version nobody reported).
    fn agent(&self) -> Agent<'static> {
        let snapshot = self.sessions.last();
        let name = snapshot
            .map(|s| s.agent.clone())
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| self.source.to_owned());
        let version = snapshot
            .and_then(|s| s.version.clone())
            .unwrap_or_else(|| "unknown".to_owned());
        let model = snapshot
            .and_then(|s| said(&s.model))
            .map(str::to_owned)
            .or_else(|| self.first_model.clone());
        Agent {
            name: Cow::Owned(name),
            version: Cow::Owned(version),
            model_name: model.map(Cow::Owned),
            extra: Map::new(),
        }
    }

    /// Makes the step of `item` with the document's agent and sub-agent ids, and spools it.
    /// Under `--output-dir`, a step that runs a sub-agent names the session's file first: its
    /// sub-agents' files are named after it.
    fn step<'a>(
        &mut self,
        item: &TranscriptItem,
        make: impl FnOnce(&mut Steps<'_, 'a>) -> Made<'a>,
    ) -> io::Result<()> {
        let stem = match &mut self.beside {
            Some(beside) if runs_subagent(item) => Some(beside.stem()?),
            Some(_) | None => None,
        };
        let agent = self.agent();
        let mut taken = std::mem::take(&mut self.taken);
        let made = make(&mut Steps {
            agent: &agent,
            taken: &mut taken,
            files: stem.as_deref().map(|stem| Files { stem, prefix: stem }),
        });
        self.taken = taken;
        self.put(made)
    }

    /// Spools a made step, and its sub-agent trajectories (or writes each to its file).
    fn put(&mut self, made: Made<'_>) -> io::Result<()> {
        if let Some(m) = &made.step.metrics {
            self.totals.add(m);
        }
        if self.first_model.is_none() {
            self.first_model = made.step.model_name.map(str::to_owned);
        }
        self.steps.push(&made.step)?;
        let session = self.session_id().map(str::to_owned);
        for t in made.subagents {
            match &mut self.beside {
                Some(beside) if t.file.is_some() => {
                    write_file(&mut **beside, t, session.as_deref())?
                }
                Some(_) | None => self.subagents.push(&t)?,
            }
        }
        Ok(())
    }

    /// The session's id: the newest snapshot's that names one.
    fn session_id(&self) -> Option<&str> {
        self.sessions
            .iter()
            .rev()
            .map(|s| s.session_id.as_str())
            .find(|s| !s.is_empty())
    }

    /// The step a document with nothing else holds: ATIF requires one.
    fn empty_step(&mut self) -> io::Result<()> {
        let step = Step {
            step_id: 1,
            timestamp: None,
            source: Source::System,
            model_name: None,
            message: Content::Text(Cow::Borrowed("")),
            reasoning_content: None,
            tool_calls: None,
            observation: None,
            metrics: None,
            extra: json!({"empty": "the input held no turns and no notices"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        };
        self.steps.push(&step)
    }

    /// What the document says beyond ATIF's fields: what wrote it, from which input, every
    /// session snapshot, the debug records.
    fn write_extra(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        let head = json!({
            "generator": format!("scribe {}", env!("CARGO_PKG_VERSION")),
            "source": self.source,
            "file": self.file,
            "input": {"debug": summary.debug, "errors": summary.errors},
            "sessions": self.sessions,
        });
        let mut text = Vec::new();
        scribe_json::write(&mut text, &head).map_err(io::Error::other)?;
        // The object without its closing brace, then the debug records beside it.
        text.pop();
        out.write_all(&text)?;
        out.write_all(b",\"debug\":")?;
        self.debug.write_array(out)?;
        out.write_all(b"}")
    }
}

/// Whether an item runs a sub-agent whose turns are in the input (a trajectory of its own).
fn runs_subagent(item: &TranscriptItem) -> bool {
    let has_turns = |r: &SubagentRecord| !r.transcript.is_empty();
    match item {
        TranscriptItem::Turn(t) => t
            .parts
            .iter()
            .filter_map(Part::call)
            .any(|call| call.subagent.as_ref().is_some_and(has_turns)),
        TranscriptItem::Notice(n) => {
            if let SystemNotice::Subagent { record, .. } = &**n {
                has_turns(record)
            } else {
                false
            }
        }
        TranscriptItem::Session(_) | TranscriptItem::Debug(_) => false,
    }
}

/// Writes a sub-agent trajectory to its file, a whole document with the session's id, after
/// the files of its own sub-agents (each referenced by its path, not embedded).
fn write_file(
    beside: &mut dyn Beside,
    mut t: Trajectory<'_>,
    session_id: Option<&str>,
) -> io::Result<()> {
    for nested in std::mem::take(&mut t.subagent_trajectories) {
        write_file(beside, nested, session_id)?;
    }
    let Some(name) = t.file.take() else {
        return Ok(());
    };
    t.session_id = session_id.map(str::to_owned);
    let mut text = Vec::new();
    scribe_json::write(&mut text, &t).map_err(io::Error::other)?;
    text.push(b'\n');
    beside.write(&name, &text)
}

/// Writes `,"key":` and the value.
fn field<T: Serialize + ?Sized>(out: &mut dyn Write, key: &str, v: &T) -> io::Result<()> {
    let mut text = Vec::new();
    scribe_json::write(&mut text, v).map_err(io::Error::other)?;
    write!(out, ",\"{key}\":")?;
    out.write_all(&text)
}

impl Render for AtifRenderer {
    /// Each input is its own document.
    fn stands_alone(&self) -> bool {
        true
    }

    /// Under `--output-dir`, each sub-agent trajectory is a file of its own.
    fn writes_beside(&self) -> bool {
        true
    }

    fn beside(&mut self, files: Option<Box<dyn Beside>>) {
        self.beside = files;
    }

    fn begin(&mut self, _out: &mut dyn Write, header: &Header) -> io::Result<()> {
        *self = AtifRenderer {
            file: header.file.clone(),
            source: header.source,
            beside: self.beside.take(),
            ..AtifRenderer::default()
        };
        Ok(())
    }

    fn item(&mut self, _out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        let step_id = self.steps.count + 1;
        match item {
            TranscriptItem::Session(s) => {
                self.sessions.push((**s).clone());
                Ok(())
            }
            TranscriptItem::Turn(t) => self.step(item, |s| s.turn(t, step_id)),
            TranscriptItem::Notice(n) => {
                self.costs.add(n);
                self.step(item, |s| s.notice(n, step_id))
            }
            TranscriptItem::Debug(d) => self.debug.push(&**d),
        }
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        if self.steps.count == 0 {
            self.empty_step()?;
        }
        write!(out, "{{\"schema_version\":\"{SCHEMA_VERSION}\"")?;
        if let Some(id) = self.session_id() {
            field(out, "session_id", id)?;
        }
        field(out, "agent", &self.agent())?;
        out.write_all(b",\"steps\":")?;
        self.steps.write_array(out)?;
        if self.subagents.count > 0 {
            out.write_all(b",\"subagent_trajectories\":")?;
            self.subagents.write_array(out)?;
        }
        let totals = FinalMetrics {
            // A sum of the runs' costs, rounded to a billionth of a dollar so that float noise
            // (0.15000000000000002) is not written.
            total_cost_usd: self.costs.own_cost().map(|c| (c * 1e9).round() / 1e9),
            total_steps: self.steps.count,
            ..self.totals
        };
        field(out, "final_metrics", &totals)?;
        out.write_all(b",\"extra\":")?;
        self.write_extra(out, summary)?;
        out.write_all(b"}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::Spool;

    /// Items past the spool's half megabyte in memory and past several blocks come back as one
    /// JSON array, in order, each once.
    #[test]
    fn a_spool_larger_than_its_memory_and_its_blocks_is_one_array() {
        let mut spool = Spool::default();
        let item = "x".repeat(1000);
        for i in 0..3000 {
            spool.push(&(i, &item)).unwrap();
        }
        let mut out = Vec::new();
        spool.write_array(&mut out).unwrap();
        let items: Vec<(u32, String)> = serde_json::from_slice(&out).unwrap();
        assert_eq!(items.len(), 3000);
        assert!(
            items
                .iter()
                .enumerate()
                .all(|(i, (n, s))| *n as usize == i && *s == item)
        );
        // Written again, the same.
        let mut again = Vec::new();
        spool.write_array(&mut again).unwrap();
        assert_eq!(again, out);
        let mut empty = Vec::new();
        Spool::default().write_array(&mut empty).unwrap();
        assert_eq!(empty, b"[]");
    }
}
