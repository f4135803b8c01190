//! `scribe diff OLD NEW`: what did the agent do differently between two runs (issue 7)?
//!
//! 1. `load` each side: a raw stream goes through its adapter and the fold; scribe's own JSONL
//!    (a golden transcript) is read back record by record. Either way every item goes through
//!    `--stable` (implied; `--stable=keep-usage` keeps usage) and `--redact` if asked, and
//!    becomes its JSON record form.
//! 2. `compare::Forms` leaves out ids (renumbering shifts them after an insertion; the nesting
//!    carries the structure) and what `--ignore` names.
//! 3. `compare::compare` aligns records, then parts and sub-agent turns, LCS-style, and lists
//!    what was added, removed or changed.
//! 4. `print` writes a readable report or (`--to jsonl`) one record per difference.
//!
//! Exit status as `diff(1)`: 0 same, 1 different, 2 trouble.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Map, Value};

use crate::cli::{Cli, DiffArgs, DiffFormat, OutputFormat, SourceFormat, StableMode};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::fold::Folder;
use crate::input::lines::LineReader;
use crate::input::{self, Report, scribe_jsonl};
use crate::model::transcript::TranscriptItem;
use crate::settings::Settings;
use crate::transform::Transforms;

mod align;
mod compare;
mod print;

/// Runs `scribe diff`; returns the exit status.
pub(crate) fn run(cli: &Cli, args: &DiffArgs) -> Result<u8> {
    // Options of the filter itself, given before `diff`, would be silently ignored otherwise
    // (`--to` is compared with its default, the terminal view).
    if cli.to != OutputFormat::Text
        || cli.from != SourceFormat::Auto
        || cli.strict
        || cli.output_dir.is_some()
    {
        eprintln!(
            "scribe: --to and --from go after `diff` (scribe diff [OPTIONS] OLD NEW); \
             --strict and --output-dir do not apply to it"
        );
        return Ok(exit::TROUBLE);
    }
    let settings = Settings::resolve(cli);
    let stable = Some(settings.stable.unwrap_or(StableMode::Default));
    let mut diag = Diagnostics::new(false);
    let mut side = |path: &Path| -> Result<Vec<Value>> {
        let mut transforms = Transforms::with(stable, settings.redact, settings.home.as_deref());
        load(path, args.from, &mut transforms, &mut diag)
            .with_context(|| path.display().to_string())
    };
    let old = side(&args.old)?;
    let new = side(&args.new)?;
    let forms = compare::Forms::new(&args.ignore, args.sidecars);
    let changes = compare::compare(&forms.apply(old), &forms.apply(new));
    let mut out = BufWriter::new(io::stdout().lock());
    match args.to {
        DiffFormat::Text => print::text(&mut out, &changes, settings.color)?,
        DiffFormat::Jsonl => print::jsonl(&mut out, &changes)?,
    }
    out.flush()?;
    Ok(if changes.is_empty() {
        exit::SUCCESS
    } else {
        exit::INPUT_ERROR
    })
}

/// Reads one side into stable JSON records (`{"kind":"turn",…}`, as `--to jsonl` writes them,
/// without the header).
fn load(
    path: &Path,
    from: SourceFormat,
    transforms: &mut Transforms,
    diag: &mut Diagnostics,
) -> Result<Vec<Value>> {
    let name = path.display().to_string();
    let reader: Box<dyn Read> = if name == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path)?)
    };
    let mut lines = LineReader::new(BufReader::new(reader));
    let mut items = Vec::new();
    let mut events = Vec::new();
    let mut source = from;
    let mut reading: Option<Reading> = None;
    while let Some(line) = lines.next_line().context("read failed")? {
        if line.lossy {
            diag.error(&name, line.number, "invalid UTF-8 (replaced with U+FFFD)");
        }
        if reading.is_none() {
            if line.text.trim().is_empty() {
                continue;
            }
            reading = Some(if scribe_jsonl::is_header(&line.text) {
                Reading::Transcript(scribe_jsonl::TranscriptReader)
            } else {
                if source == SourceFormat::Auto {
                    source = input::sniff(&line.text).unwrap_or(SourceFormat::ClaudeStream);
                }
                let mut adapter = input::adapter_for(source);
                if name != "-" {
                    adapter.set_path(path);
                }
                Reading::Stream(adapter, Box::new(Folder::new()))
            });
        }
        match reading.as_mut() {
            Some(Reading::Transcript(reader)) => {
                let mut report = Report {
                    file: &name,
                    diag: &mut *diag,
                };
                reader.line(&line, &mut items, &mut report);
            }
            Some(Reading::Stream(adapter, folder)) => {
                let mut report = Report {
                    file: &name,
                    diag: &mut *diag,
                };
                adapter.line(&line, &mut events, &mut report);
                for e in events.drain(..) {
                    folder.push(e, &mut items);
                }
            }
            None => unreachable!("set above"),
        }
    }
    if let Some(Reading::Stream(adapter, folder)) = reading.as_mut() {
        let mut report = Report {
            file: &name,
            diag: &mut *diag,
        };
        adapter.finish(&mut events, &mut report);
        loop {
            for e in events.drain(..) {
                folder.push(e, &mut items);
            }
            if !adapter.drain(&mut events, &mut report) {
                break;
            }
        }
        folder.finish(&mut items);
    }
    Ok(items
        .into_iter()
        .map(|mut item| {
            transforms.item(&mut item);
            record(&item)
        })
        .collect())
}

/// How one side is being read.
enum Reading {
    /// scribe's own JSONL: records are final items already.
    Transcript(scribe_jsonl::TranscriptReader),
    /// A raw stream: adapter, then the fold.
    Stream(Box<dyn input::Adapter>, Box<Folder>),
}

/// An item as its `--to jsonl` record (`kind` first).
fn record(item: &TranscriptItem) -> Value {
    let (kind, body) = match item {
        TranscriptItem::Session(s) => ("session", serde_json::to_value(s)),
        TranscriptItem::Turn(t) => ("turn", serde_json::to_value(t)),
        TranscriptItem::Notice(n) => (
            "notice",
            serde_json::to_value(n).map(|n| {
                let mut o = Map::new();
                o.insert("notice".to_owned(), n);
                Value::Object(o)
            }),
        ),
        TranscriptItem::Debug(d) => ("debug", serde_json::to_value(d)),
    };
    let mut o = Map::new();
    o.insert("kind".to_owned(), Value::String(kind.to_owned()));
    if let Ok(Value::Object(body)) = body {
        o.extend(body);
    }
    Value::Object(o)
}
