//! The Pipe layer (docs/architecture.md): drives each input through read → decode → fold →
//! render, and owns the flush policy and `--output-dir`. Two drivers: one input at a time
//! (`one_at_a_time`, each input through [`Run::convert`], which runs `driver::InputDriver`),
//! and several inputs side by side, written in input order (`side_by_side`).
//!
//! Output is buffered and flushed whenever the reader has nothing left in its buffer (just before
//! a read that may block), never per line: a live pipe shows each record as soon as it is final,
//! and a file is written in large blocks.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, Command, Generate, OutputFormat};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::input;
use crate::render::{self, Render};
use crate::settings::Settings;
use crate::stats::Stats;

/// The input driver: one input from bytes to transcript items (shared with `scribe diff`).
pub(crate) mod driver;

/// `scribe --follow`: inputs read while they are written.
mod follow;
/// `scribe hook`: archive the session an agent's hook payload names.
mod hook;
/// `scribe ls`, `scribe last` and the greeting of a bare `scribe`.
pub(crate) mod list;
/// `DIR/.scribe-index.json`: the pages an earlier `-o DIR --to html` run made, and with what.
mod manifest;
/// The names of `--output-dir` files, in input order.
mod names;
/// `--output-dir`: a file per input, named after its session, and the HTML index.
mod output_dir;
/// Standard output, or a pager in front of it.
pub(crate) mod pager;
/// `--output-dir` pages rewritten whole, atomically (follow mode and `scribe hook`).
mod pages;
/// The progress bar of a long `--output-dir` run on a terminal.
mod progress;
/// The driver's sink for `scribe FILE`: the passes, the renderer, the `--stats` account.
mod render_sink;
/// Several inputs converted side by side, written in input order.
mod side_by_side;
/// One input on two threads: the driver's and the renderer's.
mod threaded;
/// A growing file read as a stream.
mod watch;

use driver::{InputDriver, NotALog, Outcome, StrictStop};
use names::{InputName, Named};
use output_dir::OutputDir;
use render_sink::RenderSink;
use side_by_side::{Destination, Done};

/// Runs scribe; returns the exit status.
pub(crate) fn run(cli: &Cli) -> Result<u8> {
    if let Some(what) = cli.generate {
        return generate(what);
    }
    match &cli.command {
        Some(Command::Diff(args)) => return crate::diff::run(cli, args),
        Some(Command::Hook(args)) => return Ok(hook::run(cli, args)),
        Some(Command::Ls(args)) => return list::ls(cli, args),
        Some(Command::Last(args)) => return last(cli, args),
        None => {}
    }
    if cli.files.is_empty() && io::stdin().is_terminal() {
        return list::greet(cli);
    }
    convert(&Settings::resolve(cli))
}

/// `scribe last`, after checking that no option of a conversion stands before `last`, where it
/// would be silently ignored.
fn last(cli: &Cli, args: &crate::cli::LastArgs) -> Result<u8> {
    if cli.convert != crate::cli::ConvertArgs::default() || !cli.files.is_empty() {
        crate::diagnostics::say(
            "the options of `scribe last` go after it (scribe last --to html); FILE arguments \
             do not apply to it",
        );
        return Ok(exit::TROUBLE);
    }
    list::last(cli, args)
}

/// Converts the inputs `settings` names: `scribe FILE…` and `scribe last`.
pub(crate) fn convert(settings: &Settings) -> Result<u8> {
    if settings.compact && settings.to != OutputFormat::Md {
        crate::diagnostics::say("--compact goes with --to md (a transcript for a pull request)");
        return Ok(exit::TROUBLE);
    }
    if settings.redact {
        crate::diagnostics::redact_messages(settings.home.as_deref());
    }
    if settings.follow {
        return follow::run(settings);
    }
    let diag = Diagnostics::new(settings.strict);
    let mut lane = Lane::new(settings, diag, settings.jobs > 1);
    let code = run_inputs(&mut lane.run(settings));
    if settings.stats {
        // Nowhere left to say that standard error failed.
        let _ = lane.stats.print(lane.diag.kinds());
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

/// Converts every input, one at a time or side by side (`run` less the `--stats` account).
fn run_inputs(run: &mut Run<'_>) -> Result<u8> {
    let settings = run.settings;
    if let Some(dir) = &settings.output_dir {
        if output_dir_is_a_file(dir) {
            return Ok(exit::TROUBLE);
        }
    }
    let (inputs, mut stopped) = expand_directories(&settings.inputs);
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
        .map(|dir| OutputDir::new(dir, settings, run.renderer.writes_beside()));
    let mut out =
        BufWriter::with_capacity(64 * 1024, pager::Stdout::open(settings.pager.as_deref()));
    // Standard input is read where it stands in the list: one at a time.
    let side_by_side = settings.jobs > 1
        && inputs.len() > 1
        && !inputs.iter().any(|p| p.as_os_str() == "-")
        && (files.is_some() || run.renderer.stands_alone());
    let done = match (side_by_side, files.as_mut()) {
        (true, Some(files)) => side_by_side::convert(&inputs, run, Destination::Dir(files)),
        (true, None) => side_by_side::convert(&inputs, run, Destination::Out(&mut out)),
        (false, files) => one_at_a_time(&inputs, run, &mut out, files),
    };
    let done = match done {
        Ok(done) => done,
        Err(e) if e.downcast_ref::<StrictStop>().is_some() => {
            out.flush()?;
            return Ok(exit::INPUT_ERROR);
        }
        Err(e) => return Err(e),
    };
    if let Some(files) = files {
        files.finish()?;
    }
    out.flush()?;
    stopped |= done.stopped;
    Ok(exit_code(done.trouble, stopped))
}

/// The inputs, with a directory standing for the session files in it (sub-agent files are read
/// with their session); true when a directory held none (said on stderr).
fn expand_directories(given: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    let mut inputs = Vec::new();
    let mut none_found = false;
    for p in given {
        if !p.is_dir() {
            inputs.push(p.clone());
            continue;
        }
        let found = input::discover::session_files(p);
        if found.is_empty() {
            crate::diagnostics::say(&format!("no sessions found in {}", p.display()));
            none_found = true;
        }
        inputs.extend(found);
    }
    (inputs, none_found)
}

/// The driver of one input at a time: each input in turn, to standard output or its file under
/// `--output-dir`. `--strict` stops at the first input error (`StrictStop`).
fn one_at_a_time(
    inputs: &[PathBuf],
    run: &mut Run<'_>,
    out: &mut BufWriter<impl Write>,
    mut files: Option<&mut OutputDir>,
) -> Result<Done> {
    let mut done = Done::default();
    for path in inputs {
        let reader: Result<Box<dyn Read + Send>> = if path.as_os_str() == "-" {
            Ok(Box::new(io::stdin()))
        } else {
            open_input(path).map(|f| Box::new(f) as _)
        };
        let converted = reader.and_then(|reader| match files.as_deref_mut() {
            None => run.convert_input(path, reader, out),
            Some(files) => files.write(run, path, reader),
        });
        done.count(converted, crate::diagnostics::say)?;
    }
    Ok(done)
}

/// The exit status of a run: an input that could not be read or written, else one abandoned as
/// not JSON Lines or not a log scribe knows, else success.
fn exit_code(trouble: bool, stopped: bool) -> u8 {
    if trouble {
        exit::TROUBLE
    } else if stopped {
        exit::INPUT_ERROR
    } else {
        exit::SUCCESS
    }
}

/// Opens an input file; the error names it (as every input error on stderr does).
fn open_input(path: &Path) -> Result<File> {
    File::open(path)
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), crate::diagnostics::io_words(&e)))
}

/// What converting an input takes besides the input: the run's settings, a renderer, and where
/// diagnostics and `--stats` totals go. One per thread.
pub(super) struct Run<'a> {
    pub(super) settings: &'a Settings,
    pub(super) renderer: &'a mut dyn Render,
    pub(super) diag: &'a mut Diagnostics,
    pub(super) stats: &'a mut Stats,
    /// The input is decoded on a thread of its own (`threaded`; `--jobs` above 1, one input
    /// at a time).
    pub(super) decode_thread: bool,
    /// `--output-dir`, for a format that writes files beside an input's: the input's name,
    /// taken while it renders.
    name: Option<Arc<InputName>>,
}

impl Run<'_> {
    /// Reads one input to its end through the driver, rendering into `out` as it goes.
    pub(super) fn convert(
        &mut self,
        path: &Path,
        input: impl Read,
        out: &mut BufWriter<impl Write>,
    ) -> Result<Rendered> {
        self.render(path, out, |settings, sink, diag| {
            let name = path.display().to_string();
            driver_for(&name, path, settings).run(input, sink, diag)
        })
    }

    /// Reads one input to its end, on two threads when the run may use them (`threaded`).
    pub(super) fn convert_input(
        &mut self,
        path: &Path,
        input: impl Read + Send,
        out: &mut BufWriter<impl Write>,
    ) -> Result<Rendered> {
        if !self.decode_thread {
            return self.convert(path, input, out);
        }
        self.render(path, out, |settings, sink, diag| {
            threaded::drive(path, input, settings, sink, diag)
        })
    }

    /// Renders `path` into `out` through the sink that `read` reads the input into.
    fn render<W: Write>(
        &mut self,
        path: &Path,
        out: &mut BufWriter<W>,
        read: impl FnOnce(&Settings, &mut RenderSink<'_, W>, &mut Diagnostics) -> Result<Outcome>,
    ) -> Result<Rendered> {
        let live = self.settings.input_is_live(path);
        let mut sink = RenderSink::new(&mut *self.renderer, out, self.settings, self.stats, live)
            .naming(self.name.clone());
        let outcome = read(self.settings, &mut sink, self.diag)?;
        sink.finish(&path.display().to_string(), outcome)
    }

    /// Adds the diagnostics (printing what they held) and the totals of an input converted on
    /// a lane of its own.
    pub(super) fn absorb(&mut self, diag: Diagnostics, stats: Stats) {
        self.diag.absorb(diag);
        self.stats.absorb(stats);
    }
}

/// A renderer, diagnostics and `--stats` totals of one's own: the run's, or one input's when it
/// is converted side by side with others (its messages held until its turn).
pub(super) struct Lane {
    renderer: Box<dyn Render>,
    diag: Diagnostics,
    stats: Stats,
    /// Its inputs are decoded on a thread of their own ([`Run::decode_thread`]).
    decode_thread: bool,
}

impl Lane {
    /// A lane with a renderer for `settings` that reports through `diag`, its inputs decoded
    /// on a thread of their own when `decode_thread`.
    pub(super) fn new(settings: &Settings, diag: Diagnostics, decode_thread: bool) -> Lane {
        Lane {
            renderer: render::renderer_for(&settings.render_options()),
            diag,
            stats: Stats::default(),
            decode_thread,
        }
    }

    /// The lane as what converting an input takes.
    pub(super) fn run<'a>(&'a mut self, settings: &'a Settings) -> Run<'a> {
        Run {
            settings,
            renderer: self.renderer.as_mut(),
            diag: &mut self.diag,
            stats: &mut self.stats,
            decode_thread: self.decode_thread,
            name: None,
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

/// What rendering one input left to know.
#[derive(Debug, Default)]
pub(super) struct Rendered {
    /// The first session id its transcript named (for `--output-dir` file names).
    session_id: Option<String>,
    /// The input was abandoned as not JSON Lines.
    stopped: bool,
    /// Its `--output-dir` file and the files beside it, when they were named as it rendered.
    named: Option<Named>,
}

/// Runs the filter over `data` as standard input, with the command-line `args`, writing the
/// output nowhere and the diagnostics nowhere: the entry point of the fuzz targets (`fuzz/`).
pub(crate) fn run_bytes(args: &[&str], data: &[u8]) -> Result<()> {
    use clap::Parser;
    let cli = Cli::try_parse_from(std::iter::once("scribe").chain(args.iter().copied()))?;
    let settings = Settings::resolve(&cli);
    let mut lane = Lane::new(&settings, Diagnostics::new(settings.strict).quiet(), false);
    let mut out = BufWriter::new(io::sink());
    let reader = io::Cursor::new(data.to_vec());
    match lane
        .run(&settings)
        .convert(Path::new("-"), reader, &mut out)
    {
        Ok(_) => Ok(()),
        // How an input ends, not a failure of the run.
        Err(e) if e.downcast_ref::<StrictStop>().is_some() || e.is::<NotALog>() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Prints a document scribe makes about itself.
fn generate(what: Generate) -> Result<u8> {
    use clap_complete::Shell;
    let mut out = io::stdout().lock();
    let shell = match what {
        Generate::Man => {
            crate::man::write(&mut out)?;
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
