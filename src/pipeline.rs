//! The Pipe layer (docs/architecture.md): drives each input through read → decode → fold →
//! render, and owns the flush policy and `--output-dir`. One input is `driver::InputDriver`'s.
//!
//! Output is buffered and flushed whenever the reader has nothing left in its buffer (just before
//! a read that may block), never per line: a live pipe shows each record as soon as it is final,
//! and a file is written in large blocks.

use foldhash::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::{Cli, Command, Generate, OutputFormat};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::input;
use crate::input::lines::InputLine;
use crate::model::Header;
use crate::model::event::{Event, EventKind};
use crate::model::transcript::TranscriptItem;
use crate::render::html::index::{IndexRow, Tally, write_index};
use crate::render::{self, Render};
use crate::settings::Settings;
use crate::stats::Stats;
use crate::transform::Transforms;
use crate::transform::redact::Redactor;
use manifest::Manifest;

/// Whether the process may run on two cores, not two hardware threads of one (two threads
/// for a cheap renderer's large input).
mod cores;
/// The input driver: one input from bytes to transcript items (shared with `scribe diff`).
pub(crate) mod driver;

/// `scribe --follow`: inputs read while they are written.
mod follow;
/// `scribe hook`: archive the session an agent's hook payload names.
mod hook;
/// `DIR/.scribe-index.json`: the pages an earlier `-o DIR --to html` run made, and with what.
mod manifest;
/// `--jobs` with several inputs on standard output: rendered side by side, written in order.
mod ordered;
/// `--output-dir` pages rewritten whole, atomically (follow mode and `scribe hook`).
mod pages;
/// `--jobs`: several inputs converted at a time under `--output-dir`.
mod parallel;
/// One input on two threads: the driver's and the renderer's.
mod threaded;
/// A growing file read as a stream.
mod watch;

use driver::{InputDriver, Sink, StrictStop};

/// Runs scribe; returns the exit status.
pub(crate) fn run(cli: &Cli) -> Result<u8> {
    if let Some(what) = cli.generate {
        return generate(what);
    }
    match &cli.command {
        Some(Command::Diff(args)) => return crate::diff::run(cli, args),
        Some(Command::Hook(args)) => return Ok(hook::run(cli, args)),
        None => {}
    }
    let settings = Settings::resolve(cli);
    if settings.redact {
        crate::diagnostics::redact_messages(settings.home.as_deref());
    }
    if settings.follow {
        return follow::run(&settings);
    }
    let mut diag = Diagnostics::new(settings.strict);
    let mut stats = Stats::default();
    let code = run_inputs(&settings, &mut diag, &mut stats);
    if settings.stats {
        stats.print(diag.kinds());
    }
    code
}

/// Whether `-o DIR` names an existing file that is not a directory; if so, says so and how to
/// write one file instead: `-o` is `--output-dir`, and a user who expects `-o FILE` (as in many
/// tools) should learn the way that works. The path goes through [`crate::diagnostics::say`],
/// so a planted name's control bytes don't reach the terminal. Plain runs and `--follow` ask it.
pub(crate) fn output_dir_is_a_file(dir: &std::path::Path) -> bool {
    let refused = dir.exists() && !dir.is_dir();
    if refused {
        crate::diagnostics::say(&format!(
            "--output-dir {}: this is a file, not a directory (-o writes one file per input into \
             a directory; to write one file, redirect standard output: scribe INPUT > FILE)",
            dir.display()
        ));
    }
    refused
}

/// Reads every input in turn (`run` less the `--stats` account).
fn run_inputs(settings: &Settings, diag: &mut Diagnostics, stats: &mut Stats) -> Result<u8> {
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut renderer = render::renderer_for(&settings.render_options());
    let mut trouble = false;
    let mut stopped = false;
    if let Some(dir) = &settings.output_dir {
        if output_dir_is_a_file(dir) {
            return Ok(exit::TROUBLE);
        }
    }
    // A directory stands for the session files in it (sub-agent files are read with their session).
    let mut inputs: Vec<PathBuf> = Vec::new();
    for p in &settings.inputs {
        if !p.is_dir() {
            inputs.push(p.clone());
            continue;
        }
        let found = input::claude::session::session_files(p);
        if found.is_empty() {
            crate::diagnostics::say(&format!("no sessions found in {}", p.display()));
            stopped = true;
        }
        inputs.extend(found);
    }
    // Two HTML documents back to back are not a page a browser can open.
    if settings.to == OutputFormat::Html && settings.output_dir.is_none() && inputs.len() > 1 {
        crate::diagnostics::say(&format!(
            "--to html writes one page per input: with {} inputs, use --output-dir DIR",
            inputs.len()
        ));
        return Ok(exit::TROUBLE);
    }
    let mut files = settings
        .output_dir
        .as_ref()
        .map(|dir| OutputDir::new(dir, settings));
    // Standard input is read where it stands in the list: one at a time.
    let side_by_side =
        settings.jobs > 1 && inputs.len() > 1 && !inputs.iter().any(|p| p.as_os_str() == "-");
    if side_by_side {
        if let Some(mut files) = files.take() {
            let done = parallel::convert(&inputs, settings, &mut files, diag, stats)?;
            files.finish()?;
            return Ok(exit_code(trouble || done.trouble, stopped || done.stopped));
        }
        if renderer.stands_alone() {
            let done =
                ordered::convert(&inputs, settings, renderer.as_mut(), &mut out, diag, stats)?;
            out.flush()?;
            return Ok(exit_code(trouble || done.trouble, stopped || done.stopped));
        }
    }
    for path in &inputs {
        let name = path.display().to_string();
        // The input's size, when it is a file that has one (standard input counts as unknown).
        let mut size = None;
        let reader: Box<dyn Read + Send> = if name == "-" {
            Box::new(io::stdin())
        } else {
            match open_input(path) {
                Ok(f) => {
                    size = f.metadata().ok().map(|m| m.len());
                    Box::new(f)
                }
                Err(e) => {
                    crate::diagnostics::say(&crate::diagnostics::error_words(&e));
                    trouble = true;
                    continue;
                }
            }
        };
        // One input at a time: its driver on one thread, its fold and renderer on another,
        // unless --jobs 1, or rendering is too cheap to pay for the handover: a small input, or
        // a second thread without a core of its own (`cores`).
        let cheap = renderer.renders_cheaply() && settings.transforms().is_empty();
        let threads = Threads::from(
            settings.jobs > 1
                && (!cheap
                    || size.is_some_and(|s| s >= cores::WORTH_TWO_THREADS) && cores::two_cores()),
        );
        let done = match files.as_mut() {
            None => run_one_on(
                threads,
                path,
                reader,
                settings,
                renderer.as_mut(),
                &mut out,
                diag,
                stats,
            ),
            Some(files) => files.write(
                threads,
                path,
                reader,
                settings,
                renderer.as_mut(),
                diag,
                stats,
            ),
        };
        match done {
            Ok(rendered) => stopped |= rendered.stopped,
            Err(e) if exit::is_broken_pipe(&e) => return Err(e),
            Err(e) if e.downcast_ref::<StrictStop>().is_some() => {
                out.flush()?;
                return Ok(exit::INPUT_ERROR);
            }
            Err(e) => {
                crate::diagnostics::say(&crate::diagnostics::error_words(&e));
                trouble = true;
            }
        }
    }
    if let Some(files) = files {
        files.finish()?;
    }
    out.flush()?;
    Ok(exit_code(trouble, stopped))
}

/// The exit status of a run: an input that could not be read or written, else one abandoned as
/// not JSON Lines, else success.
fn exit_code(trouble: bool, stopped: bool) -> u8 {
    if trouble {
        exit::TROUBLE
    } else if stopped {
        exit::INPUT_ERROR
    } else {
        exit::SUCCESS
    }
}

/// `--output-dir`: where each input's file goes, the names taken so far, and (for HTML) the
/// rows of `index.html`.
struct OutputDir {
    dir: PathBuf,
    written: HashSet<PathBuf>,
    index: Vec<IndexRow>,
    /// HTML: the inputs a previous run rendered here (size, mtime, row), so that an unchanged
    /// input keeps its page.
    manifest: Option<Manifest>,
}

impl OutputDir {
    fn new(dir: &Path, settings: &Settings) -> OutputDir {
        let html = settings.to == OutputFormat::Html;
        let mut written = HashSet::default();
        // `index.html` is the HTML index's own name: no session page may take it.
        if html {
            written.insert(dir.join("index.html"));
        }
        OutputDir {
            dir: dir.to_owned(),
            written,
            index: Vec::new(),
            manifest: html.then(|| {
                let redactor = settings
                    .redact
                    .then(|| Redactor::new(settings.home.as_deref()));
                Manifest::load(dir, settings.output_fingerprint(), redactor)
            }),
        }
    }

    /// Renders one input into a temporary file in the directory (so memory stays flat, as on
    /// standard output), then renames it after the session it named. For HTML, also notes the
    /// page's row for `index.html`.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        threads: Threads,
        path: &Path,
        reader: Box<dyn Read + Send>,
        settings: &Settings,
        renderer: &mut dyn Render,
        diag: &mut Diagnostics,
        stats: &mut Stats,
    ) -> Result<Rendered> {
        if self.keep_unchanged(path) {
            return Ok(Rendered::default());
        }
        let (buf, rendered, row) = render_into_dir(
            threads, &self.dir, path, reader, settings, renderer, diag, stats,
        )?;
        self.place(
            crate::output_file::finished(buf)?,
            &rendered,
            row,
            path,
            settings,
        )?;
        Ok(rendered)
    }

    /// True when `.scribe-index.json` says the input has not changed since its page was made
    /// (checked before a parallel run, which then renders only the others).
    fn is_unchanged(&self, path: &Path) -> bool {
        self.manifest
            .as_ref()
            .is_some_and(|m| m.unchanged(&self.dir, path).is_some())
    }

    /// The page of an input unchanged since the last run over this directory is kept: its row
    /// (from `.scribe-index.json`) goes into the index and the name it had stays taken. True
    /// when the input needs no rendering.
    fn keep_unchanged(&mut self, path: &Path) -> bool {
        let dir = &self.dir;
        let Some(m) = self.manifest.as_mut() else {
            return false;
        };
        let Some(row) = m.unchanged(dir, path) else {
            return false;
        };
        self.written.insert(dir.join(&row.href));
        m.record(path, &row);
        self.index.push(row);
        true
    }

    /// Names a rendered input's file (in the order inputs are placed, which is the order of the
    /// inputs, so names never depend on which input finished first) and renames it there; for
    /// HTML, adds its row to the index (and the manifest).
    fn place(
        &mut self,
        temp: tempfile::TempPath,
        rendered: &Rendered,
        row: Option<IndexRow>,
        path: &Path,
        settings: &Settings,
    ) -> Result<()> {
        let target = output_path(
            &self.dir,
            rendered.session_id.clone(),
            path,
            settings,
            &mut self.written,
        );
        crate::output_file::install_path(temp, &target)?;
        if let Some(mut row) = row {
            row.href = target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(m) = self.manifest.as_mut() {
                m.record(path, &row);
            }
            self.index.push(row);
        }
        Ok(())
    }

    /// Writes `index.html` (HTML only, when a page was written).
    fn finish(self) -> Result<()> {
        if self.index.is_empty() {
            return Ok(());
        }
        let target = self.dir.join("index.html");
        crate::output_file::write_whole(&self.dir, &target, |f| write_index(f, &self.index))?;
        match self.manifest {
            Some(m) => {
                let file = self.dir.join(Manifest::FILE);
                crate::output_file::write_whole(&self.dir, &file, |f| m.save(f))
            }
            None => Ok(()),
        }
    }
}

/// Renders one input into a new temporary file in `dir`; for HTML, also the page's row for
/// `index.html` (its `href` is set when the file is named).
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn render_into_dir(
    threads: Threads,
    dir: &Path,
    path: &Path,
    reader: Box<dyn Read + Send>,
    settings: &Settings,
    renderer: &mut dyn Render,
    diag: &mut Diagnostics,
    stats: &mut Stats,
) -> Result<(
    BufWriter<tempfile::NamedTempFile>,
    Rendered,
    Option<IndexRow>,
)> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // Removed when dropped: an error below leaves nothing behind.
    let mut buf = crate::output_file::temp_in(dir)?;
    if settings.to == OutputFormat::Html {
        let mut tally = Tally::new(renderer);
        let rendered = run_one_on(
            threads, path, reader, settings, &mut tally, &mut buf, diag, stats,
        )?;
        Ok((buf, rendered, Some(tally.row)))
    } else {
        let rendered = run_one_on(
            threads, path, reader, settings, renderer, &mut buf, diag, stats,
        )?;
        Ok((buf, rendered, None))
    }
}

/// The `--output-dir` file for one input: `<sessionId>.<ext>`, else the input's own name, made a
/// safe file name (`output_file::safe_stem`); with `--redact`, a name that holds a secret is
/// replaced by `session-<hash>`. A name already written in this run gets a `-2`, `-3`, … suffix.
fn output_path(
    dir: &Path,
    session_id: Option<String>,
    input: &Path,
    settings: &Settings,
    written: &mut HashSet<PathBuf>,
) -> PathBuf {
    use crate::output_file::safe_stem;
    let stem = session_id
        .as_deref()
        .and_then(safe_stem)
        .or_else(|| {
            input
                .file_stem()
                .map(|s| s.to_string_lossy())
                .filter(|s| s != "-")
                .and_then(|s| safe_stem(&s))
        })
        .unwrap_or_else(|| "stdin".to_owned());
    let stem = match settings.redact {
        true => crate::transform::redact::redacted_file_stem(stem),
        false => stem,
    };
    let ext = settings.to.extension();
    let mut target = dir.join(format!("{stem}.{ext}"));
    let mut n = 2;
    while !written.insert(target.clone()) {
        target = dir.join(format!("{stem}-{n}.{ext}"));
        n += 1;
    }
    target
}

/// How many threads one input is converted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Threads {
    /// All on the calling thread (`--jobs 1`, and each of several inputs converted side by side).
    One,
    /// The driver on a thread of its own, the renderer on the calling one (`threaded`).
    Two,
}

impl From<bool> for Threads {
    fn from(two: bool) -> Threads {
        if two { Threads::Two } else { Threads::One }
    }
}

/// Opens an input file; the error names it (as every input error on stderr does).
fn open_input(path: &Path) -> Result<File> {
    File::open(path)
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), crate::diagnostics::io_words(&e)))
}

/// `run_one`, on the threads asked for.
#[allow(clippy::too_many_arguments)]
fn run_one_on(
    threads: Threads,
    path: &Path,
    reader: impl Read + Send,
    settings: &Settings,
    renderer: &mut dyn Render,
    out: &mut BufWriter<impl Write>,
    diag: &mut Diagnostics,
    stats: &mut Stats,
) -> Result<Rendered> {
    match threads {
        Threads::One => run_one(path, reader, settings, renderer, out, diag, stats),
        Threads::Two => {
            let name = path.display().to_string();
            let mut sink = RenderSink::new(renderer, out, settings, stats);
            let outcome = threaded::drive(&name, path, reader, settings, &mut sink, diag)?;
            sink.finish(&name, outcome)
        }
    }
}

/// The driver for one input, as the settings ask for it.
fn driver_for<'a>(name: &'a str, path: &'a Path, settings: &Settings) -> InputDriver<'a> {
    let driver = InputDriver::new(name, path, settings.from).keep_line_marks(settings.stats);
    if settings.follow {
        driver.following()
    } else {
        driver
    }
}

/// Reads one input to its end through the driver, rendering as it goes.
fn run_one(
    path: &Path,
    reader: impl Read,
    settings: &Settings,
    renderer: &mut dyn Render,
    out: &mut BufWriter<impl Write>,
    diag: &mut Diagnostics,
    stats: &mut Stats,
) -> Result<Rendered> {
    let name = path.display().to_string();
    let mut sink = RenderSink::new(renderer, out, settings, stats);
    let outcome = driver_for(&name, path, settings).run(reader, &mut sink, diag)?;
    sink.finish(&name, outcome)
}

/// What rendering one input left to know.
#[derive(Debug, Default)]
struct Rendered {
    /// The first session id its transcript named (for `--output-dir` file names).
    session_id: Option<String>,
    /// The input was abandoned as not JSON Lines.
    stopped: bool,
}

/// The driver's sink for `scribe FILE`: `--redact`/`--stable`, then the renderer.
struct RenderSink<'a, W: Write> {
    renderer: &'a mut dyn Render,
    out: &'a mut BufWriter<W>,
    transforms: Transforms,
    session_id: Option<String>,
    /// The `--stats` totals: records written by kind, debug records by raw kind.
    stats: &'a mut Stats,
    /// `--include-raw`: each input line's text, by line number, for the events it gives.
    raw_lines: Option<HashMap<u64, String>>,
}

impl<'a, W: Write> RenderSink<'a, W> {
    /// The sink for one input.
    fn new(
        renderer: &'a mut dyn Render,
        out: &'a mut BufWriter<W>,
        settings: &Settings,
        stats: &'a mut Stats,
    ) -> RenderSink<'a, W> {
        RenderSink {
            renderer,
            out,
            transforms: settings.transforms(),
            session_id: None,
            stats,
            raw_lines: settings.include_raw.then(HashMap::default),
        }
    }

    /// `--include-raw`: keeps an input line's text for the events it gives.
    fn keep_raw_line(&mut self, number: u64, text: String) {
        if let Some(lines) = &mut self.raw_lines {
            lines.insert(number, text);
        }
    }

    /// `Sink::item`, leaving the item to its owner (`threaded` gives it back to the thread that
    /// made it, to be freed there).
    fn render_item(&mut self, item: &mut TranscriptItem) -> Result<()> {
        if let (TranscriptItem::Session(s), None) = (&*item, &self.session_id) {
            self.session_id = Some(s.session_id.clone());
        }
        self.transforms.item(item);
        self.stats.record_written(item);
        Ok(self.renderer.item(self.out, item)?)
    }

    /// Ends the input `name` once the driver is done with it: the events `--stable` held, the
    /// renderer's last words, the `--stats` account.
    fn finish(mut self, name: &str, outcome: driver::Outcome) -> Result<Rendered> {
        for held in self.transforms.finish_events() {
            self.renderer.live(self.out, &held)?;
        }
        self.renderer.finish(self.out, &outcome.summary)?;
        self.stats.close(name, outcome.ledger);
        Ok(Rendered {
            session_id: self.session_id,
            stopped: outcome.stopped,
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
            // The raw line goes through the same passes (as a debug record's raw text would).
            let raw = raw.and_then(|raw| {
                let as_debug = Event {
                    line: event.line,
                    kind: EventKind::Debug {
                        reason: String::new(),
                        raw,
                    },
                };
                match self.transforms.raw_text(&as_debug)?.kind {
                    EventKind::Debug { raw, .. } => Some(raw),
                    _ => None,
                }
            });
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

/// Runs the filter over `data` as standard input, with the command-line `args`, writing the
/// output nowhere and the diagnostics nowhere: the entry point of the fuzz targets (`fuzz/`).
pub(crate) fn run_bytes(args: &[&str], data: &[u8]) -> Result<()> {
    use clap::Parser;
    let cli = Cli::try_parse_from(std::iter::once("scribe").chain(args.iter().copied()))?;
    let settings = Settings::resolve(&cli);
    let mut diag = Diagnostics::new(settings.strict).quiet();
    let mut stats = Stats::default();
    let mut renderer = render::renderer_for(&settings.render_options());
    let mut out = BufWriter::new(io::sink());
    let reader: Box<dyn Read> = Box::new(io::Cursor::new(data.to_vec()));
    match run_one(
        Path::new("-"),
        reader,
        &settings,
        renderer.as_mut(),
        &mut out,
        &mut diag,
        &mut stats,
    ) {
        Ok(_) => Ok(()),
        Err(e) if e.downcast_ref::<StrictStop>().is_some() => Ok(()),
        Err(e) => Err(e),
    }
}

/// The man page: clap_mangen's sections, except that `scribe diff` is described here rather
/// than referred to as `scribe-diff(1)`, a page that does not exist.
fn man_page(out: &mut dyn Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(Cli::command());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    out.write_all(
        b".SH SUBCOMMANDS\n.TP\n\\fBscribe diff\\fR [\\fIOPTIONS\\fR] \\fIOLD\\fR \\fINEW\\fR\n\
          Compare two runs of the same task and show what the agent did differently; \
          \\fBscribe diff \\-\\-help\\fR lists its options.\n",
    )?;
    man.render_extra_section(out)?;
    man.render_version_section(out)
}

fn generate(what: Generate) -> Result<u8> {
    use clap_complete::Shell;
    let mut out = io::stdout().lock();
    let shell = match what {
        Generate::Man => {
            man_page(&mut out)?;
            out.flush()?;
            return Ok(exit::SUCCESS);
        }
        Generate::Bash => Shell::Bash,
        Generate::Zsh => Shell::Zsh,
        Generate::Fish => Shell::Fish,
        Generate::Elvish => Shell::Elvish,
        Generate::Powershell => Shell::PowerShell,
    };
    clap_complete::generate(shell, &mut Cli::command(), "scribe", &mut out);
    out.flush()?;
    Ok(exit::SUCCESS)
}
