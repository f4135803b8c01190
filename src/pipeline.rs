//! Drives each input through read → decode → fold → render, and owns the flush policy.
//!
//! Output is buffered and flushed whenever the reader has nothing left in its buffer (just before
//! a read that may block), never per line: a live pipe shows each record as soon as it is final,
//! and a file is written in large blocks.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::{Cli, Command, Generate, OutputFormat, SourceFormat};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::fold::Folder;
use crate::input::lines::LineReader;
use crate::input::scribe_jsonl::{self, TranscriptReader};
use crate::input::{self, Adapter, Report};
use crate::model::event::EventKind;
use crate::model::transcript::TranscriptItem;
use crate::render::html::index::{IndexRow, Manifest, Tally, write_index};
use crate::render::{self, Header, Render, Summary};
use crate::settings::Settings;
use crate::transform::Transforms;

/// Runs scribe; returns the exit status.
pub(crate) fn run(cli: &Cli) -> Result<u8> {
    if let Some(what) = cli.generate {
        return generate(what);
    }
    if let Some(Command::Diff(args)) = &cli.command {
        return crate::diff::run(cli, args);
    }
    let settings = Settings::resolve(cli);
    let mut diag = Diagnostics::new(settings.strict);
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut renderer = render::renderer_for(settings.to, &settings);
    let mut trouble = false;
    // A directory stands for the session files in it (sub-agent files are read with their session).
    let inputs: Vec<PathBuf> = settings
        .inputs
        .iter()
        .flat_map(|p| match p.is_dir() {
            true => input::claude::session::session_files(p),
            false => vec![p.clone()],
        })
        .collect();
    // `index.html` is the HTML index's own name: no session page may take it.
    // Two HTML documents back to back are not a page a browser can open.
    if settings.to == OutputFormat::Html && settings.output_dir.is_none() && inputs.len() > 1 {
        eprintln!(
            "scribe: --to html writes one page per input: with {} inputs, use --output-dir DIR",
            inputs.len()
        );
        return Ok(exit::TROUBLE);
    }
    let mut written: HashSet<PathBuf> = HashSet::new();
    let mut index: Vec<IndexRow> = Vec::new();
    // HTML pages of inputs unchanged since the last run over the same directory are kept.
    let mut manifest = None;
    if let (Some(dir), OutputFormat::Html) = (&settings.output_dir, settings.to) {
        written.insert(dir.join("index.html"));
        manifest = Some(Manifest::load(dir));
    }
    for path in &inputs {
        if let (Some(dir), Some(m)) = (&settings.output_dir, &manifest)
            && let Some(row) = m.unchanged(dir, path)
        {
            written.insert(dir.join(&row.href));
            index.push(row);
            continue;
        }
        let name = path.display().to_string();
        let reader: Box<dyn Read> = if name == "-" {
            Box::new(io::stdin())
        } else {
            match File::open(path) {
                Ok(f) => Box::new(f),
                Err(e) => {
                    diag_io(&name, &e);
                    trouble = true;
                    continue;
                }
            }
        };
        let done = match &settings.output_dir {
            None => run_one(
                path,
                reader,
                &settings,
                renderer.as_mut(),
                &mut out,
                &mut diag,
            )
            .map(|_| ()),
            Some(dir) => write_session_file(
                dir,
                path,
                reader,
                &settings,
                renderer.as_mut(),
                &mut diag,
                &mut written,
                &mut index,
            ),
        };
        match done {
            Ok(()) => {
                if let (Some(m), Some(row)) = (manifest.as_mut(), index.last()) {
                    m.record(path, row);
                }
            }
            Err(e) if exit::is_broken_pipe(&e) => return Err(e),
            Err(e) if e.downcast_ref::<StrictStop>().is_some() => {
                out.flush()?;
                return Ok(exit::INPUT_ERROR);
            }
            Err(e) => {
                eprintln!("scribe: {name}: {e:#}");
                trouble = true;
            }
        }
    }
    if let (Some(dir), false) = (&settings.output_dir, index.is_empty()) {
        let target = dir.join("index.html");
        let mut f = BufWriter::new(
            File::create(&target).with_context(|| format!("cannot write {}", target.display()))?,
        );
        write_index(&mut f, &index)
            .and_then(|()| f.flush())
            .with_context(|| format!("cannot write {}", target.display()))?;
        if let Some(m) = manifest.as_mut() {
            m.retain_inputs(&inputs);
            m.save(dir)
                .with_context(|| format!("cannot write {}", dir.display()))?;
        }
    }
    out.flush()?;
    Ok(if trouble {
        exit::TROUBLE
    } else {
        exit::SUCCESS
    })
}

/// `--output-dir`: renders one input into a temporary file in `dir` (so memory stays flat, as on
/// standard output), then renames it after the session it named. For HTML, also notes the page's
/// row for `index.html`.
#[allow(
    clippy::too_many_arguments,
    reason = "the run's state, passed down once per input"
)]
fn write_session_file(
    dir: &Path,
    path: &Path,
    reader: Box<dyn Read>,
    settings: &Settings,
    renderer: &mut dyn Render,
    diag: &mut Diagnostics,
    written: &mut HashSet<PathBuf>,
    index: &mut Vec<IndexRow>,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let temp = dir.join(format!(".scribe-{}.part", std::process::id()));
    let file = File::create(&temp).with_context(|| format!("cannot write {}", temp.display()))?;
    let mut buf = BufWriter::with_capacity(64 * 1024, file);
    let (outcome, row) = if settings.to == OutputFormat::Html {
        let mut tally = Tally::new(renderer);
        let outcome = run_one(path, reader, settings, &mut tally, &mut buf, diag);
        (outcome, Some(tally.row))
    } else {
        (
            run_one(path, reader, settings, renderer, &mut buf, diag),
            None,
        )
    };
    let session_id = match outcome {
        Ok(id) => id,
        Err(e) => {
            drop(buf);
            let _ = std::fs::remove_file(&temp);
            return Err(e);
        }
    };
    buf.flush()
        .with_context(|| format!("cannot write {}", temp.display()))?;
    drop(buf);
    let target = output_path(dir, session_id, path, settings, written);
    std::fs::rename(&temp, &target)
        .with_context(|| format!("cannot write {}", target.display()))?;
    if let Some(mut row) = row {
        row.href = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        index.push(row);
    }
    Ok(())
}

/// `--strict` stopped the run at the first input error.
#[derive(Debug)]
struct StrictStop;

impl std::fmt::Display for StrictStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped at the first input error (--strict)")
    }
}

impl std::error::Error for StrictStop {}

fn diag_io(name: &str, e: &io::Error) {
    eprintln!("scribe: {name}: {e}");
}

/// The `--output-dir` file for one input: `<sessionId>.<ext>`, else the input's own name; a
/// name already written in this run gets a `-2`, `-3`, … suffix.
fn output_path(
    dir: &Path,
    session_id: Option<String>,
    input: &Path,
    settings: &Settings,
    written: &mut HashSet<PathBuf>,
) -> PathBuf {
    let stem = session_id
        // Only a plain file name: no separator, no control character, nothing a shell or a
        // terminal would read as more, and short enough for any file system.
        .filter(|s| {
            !s.is_empty()
                && s.len() <= 128
                && s != "."
                && s != ".."
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        })
        .or_else(|| {
            input
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| s != "-")
        })
        .unwrap_or_else(|| "stdin".to_owned());
    let ext = settings.to.extension();
    let mut target = dir.join(format!("{stem}.{ext}"));
    let mut n = 2;
    while !written.insert(target.clone()) {
        target = dir.join(format!("{stem}-{n}.{ext}"));
        n += 1;
    }
    target
}

/// Reads one input to its end; returns the session id its transcript named, if any.
fn run_one(
    path: &Path,
    reader: Box<dyn Read>,
    settings: &Settings,
    renderer: &mut dyn Render,
    out: &mut BufWriter<impl Write>,
    diag: &mut Diagnostics,
) -> Result<Option<String>> {
    let display = path.display().to_string();
    let name = display.as_str();
    let mut session_id = None;
    let mut lines = LineReader::new(BufReader::with_capacity(256 * 1024, reader));
    let mut adapter: Option<Box<dyn Adapter>> = None;
    let mut folder: Option<Folder> = None;
    let mut events = Vec::new();
    let mut items = Vec::new();
    let mut summary = Summary::default();
    let errors_before = diag.errors();
    let mut source = settings.from;
    let mut transforms = Transforms::new(settings);
    let mut transcript: Option<TranscriptReader> = None;

    loop {
        if lines.is_drained() {
            out.flush()?;
        }
        let Some(line) = lines.next_line().with_context(|| "read failed")? else {
            break;
        };
        summary.lines += 1;
        if line.lossy {
            diag.error(name, line.number, "invalid UTF-8 (replaced with U+FFFD)");
        }
        if let Some(reader) = transcript.as_mut() {
            let mut report = Report { file: name, diag };
            reader.line(&line, &mut items, &mut report);
            for mut item in items.drain(..) {
                note_session(&item, &mut session_id);
                transforms.item(&mut item);
                renderer.item(out, &item)?;
            }
            if diag.must_stop() {
                return Err(StrictStop.into());
            }
            continue;
        }
        if adapter.is_none() {
            if line.text.trim().is_empty() {
                continue;
            }
            if source == SourceFormat::Auto && scribe_jsonl::is_header(&line.text) {
                // scribe's own transcript: its records are final items already (no fold).
                transcript = Some(TranscriptReader);
                let mut header = Header {
                    file: name.to_owned(),
                    source: scribe_jsonl::header_source(&line.text),
                };
                transforms.header(&mut header);
                renderer.begin(out, &header)?;
                continue;
            }
            if source == SourceFormat::Auto {
                source = input::sniff(&line.text).unwrap_or_else(|| {
                    diag.warning(
                        name,
                        line.number,
                        "could not detect the input format; reading it as claude-stream (use --from)",
                    );
                    SourceFormat::ClaudeStream
                });
            }
            let mut a = input::adapter_for(source);
            if name != "-" {
                a.set_path(path);
            }
            adapter = Some(a);
            folder = Some(Folder::new());
            let mut header = Header {
                file: name.to_owned(),
                source: source.name(),
            };
            transforms.header(&mut header);
            renderer.begin(out, &header)?;
        }
        let (Some(adapter), Some(folder)) = (adapter.as_mut(), folder.as_mut()) else {
            unreachable!("created above");
        };
        let mut report = Report { file: name, diag };
        adapter.line(&line, &mut events, &mut report);
        feed(
            &mut events,
            &mut items,
            folder,
            renderer,
            out,
            &mut summary,
            &mut session_id,
            &mut transforms,
        )?;
        if diag.must_stop() {
            return Err(StrictStop.into());
        }
    }

    match (adapter.as_mut(), folder.as_mut()) {
        (Some(adapter), Some(folder)) => {
            let mut report = Report { file: name, diag };
            adapter.finish(&mut events, &mut report);
            feed(
                &mut events,
                &mut items,
                folder,
                renderer,
                out,
                &mut summary,
                &mut session_id,
                &mut transforms,
            )?;
            folder.finish(&mut items);
            for mut item in items.drain(..) {
                note_session(&item, &mut session_id);
                transforms.item(&mut item);
                renderer.item(out, &item)?;
            }
        }
        _ if transcript.is_some() => {}
        _ => {
            let src = if source == SourceFormat::Auto {
                "none"
            } else {
                source.name()
            };
            let mut header = Header {
                file: name.to_owned(),
                source: src,
            };
            transforms.header(&mut header);
            renderer.begin(out, &header)?;
        }
    }
    if diag.must_stop() {
        return Err(StrictStop.into());
    }
    summary.errors = diag.errors() - errors_before;
    renderer.finish(out, &summary)?;
    Ok(session_id)
}

/// Remembers the first session id a transcript names (for `--output-dir` file names).
fn note_session(item: &TranscriptItem, session_id: &mut Option<String>) {
    if let (TranscriptItem::Session(s), None) = (item, &session_id) {
        *session_id = Some(s.session_id.clone());
    }
}

/// Passes decoded events to the renderer (live) and the fold, and the fold's final items on.
#[allow(
    clippy::too_many_arguments,
    reason = "per-input state (summary, session id, --stable/--redact passes) passed along"
)]
fn feed(
    events: &mut Vec<crate::model::event::Event>,
    items: &mut Vec<crate::model::transcript::TranscriptItem>,
    folder: &mut Folder,
    renderer: &mut dyn Render,
    out: &mut dyn Write,
    summary: &mut Summary,
    session_id: &mut Option<String>,
    transforms: &mut Transforms,
) -> Result<()> {
    for event in events.drain(..) {
        if transforms.is_empty() {
            renderer.live(out, &event)?;
        } else if let Some(shown) = transforms.event(&event) {
            renderer.live(out, &shown)?;
        }
        if matches!(event.kind, EventKind::Debug { .. }) {
            summary.debug += 1;
        }
        folder.push(event, items);
        for mut item in items.drain(..) {
            note_session(&item, session_id);
            transforms.item(&mut item);
            renderer.item(out, &item)?;
        }
    }
    Ok(())
}

fn generate(what: Generate) -> Result<u8> {
    match what {
        Generate::Man => {
            let mut out = io::stdout().lock();
            clap_mangen::Man::new(Cli::command()).render(&mut out)?;
            out.flush()?;
        }
    }
    Ok(exit::SUCCESS)
}
