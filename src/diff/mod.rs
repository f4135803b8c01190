//! `scribe diff OLD NEW`: what did the agent do differently between two runs?
//!
//! 1. `load` each side through the same input driver as `scribe FILE`: a raw stream goes through
//!    its adapter and the fold; scribe's own JSONL (a golden transcript) is read back record by
//!    record; anything else is an error (exit 2). Either way every item goes through
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
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use anyhow::{Result, bail};
use serde_json::{Map, Value};

use crate::cli::{Cli, DiffArgs, DiffFormat, SourceFormat, StableMode};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::model::Header;
use crate::model::event::Event;
use crate::model::transcript::TranscriptItem;
use crate::pipeline::driver::NotALog;
use crate::pipeline::driver::{InputDriver, Sink};
use crate::settings::Settings;
use crate::transform::Transforms;

mod align;
mod compare;
mod print;
mod print_md;
mod vocabulary;

/// Runs `scribe diff`; returns the exit status.
pub(crate) fn run(cli: &Cli, args: &DiffArgs) -> Result<u8> {
    // Options of the filter itself, given before `diff`, would be silently ignored otherwise
    // (`--to` is compared with its default, the terminal view).
    if cli.convert.to.is_some()
        || cli.convert.from != SourceFormat::Auto
        || cli.convert.strict
        || cli.convert.output_dir.is_some()
    {
        eprintln!(
            "scribe: --to, --from and --strict go after `diff` (scribe diff [OPTIONS] OLD NEW); \
             --output-dir does not apply to it"
        );
        return Ok(exit::TROUBLE);
    }
    let settings = Settings::resolve(cli);
    if settings.redact {
        crate::diagnostics::redact_messages(settings.home.as_deref());
    }
    let forms = compare::Forms::new(&args.ignore, args.sidecars);
    let unknown = forms.unknown();
    if !unknown.is_empty() {
        // The names come from the command line: sanitized.
        let message = format!(
            "--ignore {}: not a record kind, notice kind, part type or field of the transcript; \
             the names: {}",
            unknown.join(","),
            vocabulary::words()
        );
        eprintln!("scribe diff: {}", crate::sanitize::sanitize(&message));
        return Ok(exit::TROUBLE);
    }
    let stable = Some(settings.stable.unwrap_or(StableMode::Default));
    let mut diag = Diagnostics::new(args.strict);
    let mut side = |path: &Path| -> Result<Vec<Value>> {
        let mut transforms = Transforms::with(stable, settings.redact, settings.home.as_deref());
        load(path, args.from, &mut transforms, &mut diag)
    };
    let old = side(&args.old)?;
    let new = side(&args.new)?;
    let changes = compare::compare(&forms.apply(old), &forms.apply(new));
    let mut out = BufWriter::new(io::stdout().lock());
    match args.to {
        DiffFormat::Text => print::text(&mut out, &changes, settings.color)?,
        DiffFormat::Jsonl => print::jsonl(&mut out, &changes)?,
        DiffFormat::Md => print_md::markdown(&mut out, &changes, &args.old, &args.new)?,
    }
    out.flush()?;
    Ok(if changes.is_empty() {
        exit::SUCCESS
    } else {
        exit::INPUT_ERROR
    })
}

/// Reads one side into stable JSON records (`{"kind":"turn",…}`, as `--to jsonl` writes them,
/// without the header), through the same driver as `scribe FILE`. An input that is neither a
/// transcript nor a raw log of a known format is an error (exit 2).
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
        Box::new(
            File::open(path)
                .map_err(|e| anyhow::anyhow!("{name}: {}", crate::diagnostics::io_words(&e)))?,
        )
    };
    let mut sink = Records {
        transforms,
        records: Vec::new(),
    };
    let outcome = InputDriver::new(&name, path, from).run(reader, &mut sink, diag);
    let not_a_log = matches!(&outcome, Err(e) if e.is::<NotALog>());
    if not_a_log
        || outcome
            .as_ref()
            .is_ok_and(|o| o.stopped || o.source.is_none())
    {
        bail!("{name} is neither a scribe transcript nor an agent log scribe knows");
    }
    outcome?;
    Ok(sink.records)
}

/// The driver's sink for `scribe diff`: every item through `--stable`/`--redact`, as a record.
struct Records<'a> {
    transforms: &'a mut Transforms,
    records: Vec<Value>,
}

impl Sink for Records<'_> {
    fn begin(&mut self, _header: Header) -> Result<()> {
        Ok(())
    }

    fn live(&mut self, event: &Event) -> Result<()> {
        self.transforms.watch(event);
        Ok(())
    }

    fn item(&mut self, mut item: TranscriptItem) -> Result<()> {
        self.transforms.item(&mut item);
        self.records.push(record(&item));
        Ok(())
    }
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
