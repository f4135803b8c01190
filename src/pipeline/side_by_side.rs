//! The driver of several inputs side by side (`--jobs N`, more than one input, none of them
//! standard input): written in input order, to standard output or to `--output-dir` files.
//!
//! N - 1 other threads render the inputs after the head, each input with a renderer,
//! diagnostics and `--stats` totals of its own ([`Lane`]), into a `tempfile::SpooledTempFile`
//! (memory, then an unnamed temporary file). This thread takes them in input order: copies a
//! spool to standard output, or names its file and moves it into place (with its index row); an
//! input's diagnostics are printed and its totals added when its turn comes. So standard output,
//! standard error, file names and the index are the same whatever N is and whichever input
//! finished first.
//!
//! On standard output the input at the head is converted on this thread straight to the output,
//! so its records appear as they are made. While the head is rendered elsewhere, this thread
//! renders the next input nobody took rather than wait. No input more than
//! [`AHEAD_PER_THREAD`] × N past the head is taken, so what waits is bounded.
//!
//! On standard output only for formats whose output for an input does not depend on the inputs
//! before it (`Render::stands_alone`); under `--output-dir` each input has a file of its own.

use std::collections::HashMap;
use std::io::{self, BufWriter, Seek};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Condvar, Mutex};

use anyhow::Result;
use tempfile::SpooledTempFile;

use super::driver::{NotALog, StrictStop};
use super::names::Names;
use super::output_dir::OutputDir;
use super::progress::Progress;
use super::{Lane, Rendered, Run, open_input};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::render::html::index::IndexRow;
use crate::settings::Settings;
use crate::stats::Stats;

/// How many inputs past the head may be taken, per thread of the run.
const AHEAD_PER_THREAD: usize = 2;
/// Bytes of an input's output held in memory before the rest goes to a temporary file.
const IN_MEMORY: usize = 4 << 20;

/// Where the inputs' outputs go.
pub(super) enum Destination<'o> {
    /// Standard output (buffered): each input's output after the one before.
    Out(&'o mut BufWriter<super::pager::Stdout>),
    /// `--output-dir`: a file per input.
    Dir(&'o mut OutputDir),
}

/// What the run as a whole learnt.
#[derive(Debug, Default)]
pub(super) struct Done {
    /// An input could not be read, or its output written.
    pub(super) trouble: bool,
    /// An input was abandoned as not JSON Lines.
    pub(super) stopped: bool,
}

impl Done {
    /// Counts how one input ended. An error that ends the run (standard output closed,
    /// `--strict`) is handed back; any other is said through `say`, and the run goes on.
    pub(super) fn count(
        &mut self,
        converted: Result<Rendered>,
        say: impl FnOnce(&str),
    ) -> Result<()> {
        match converted {
            Ok(rendered) => self.stopped |= rendered.stopped,
            Err(e) if exit::is_broken_pipe(&e) || e.is::<StrictStop>() => return Err(e),
            // Said already (by its driver); nothing was written for it.
            Err(e) if e.is::<NotALog>() => self.stopped = true,
            Err(e) => {
                say(&crate::diagnostics::error_words(&e));
                self.trouble = true;
            }
        }
        Ok(())
    }
}

/// One input rendered ahead of its turn (on any thread), waiting for it: its output, its
/// diagnostics and totals.
struct Spooled {
    outcome: Result<(SpooledTempFile, Rendered, Option<IndexRow>)>,
    diag: Diagnostics,
    stats: Stats,
}

/// What the threads share: which inputs are taken, where the head is, and whether to stop.
struct Shared {
    /// One flag per input: some thread has taken it (or it needs no rendering).
    taken: Vec<AtomicBool>,
    /// The next input the other threads look at.
    next: AtomicUsize,
    /// The input at the head of the order; the other threads wait while too far ahead of it.
    head: Mutex<usize>,
    moved: Condvar,
    /// The run stopped (standard output closed): take nothing more.
    stop: AtomicBool,
    /// How far past the head another thread may take an input.
    ahead: usize,
}

impl Shared {
    /// Takes input `i` for the calling thread, unless another has it.
    fn take(&self, i: usize) -> bool {
        !self.taken[i].swap(true, Ordering::AcqRel)
    }

    /// The head moved to `i`: wakes the threads waiting for it.
    fn head_at(&self, i: usize) {
        if let Ok(mut head) = self.head.lock() {
            *head = i;
        }
        self.moved.notify_all();
    }

    /// The run is over: the other threads take nothing more.
    fn stop(&self, count: usize) {
        self.stop.store(true, Ordering::Release);
        self.head_at(count);
    }

    /// Waits until input `i` is near enough to the head to be taken; false if the run stopped.
    fn wait_for_room(&self, i: usize) -> bool {
        let Ok(mut head) = self.head.lock() else {
            return false;
        };
        while i >= *head + self.ahead && !self.stop.load(Ordering::Acquire) {
            head = match self.moved.wait(head) {
                Ok(h) => h,
                Err(_) => return false,
            };
        }
        !self.stop.load(Ordering::Acquire)
    }

    /// The next input another thread should render, once it is near enough to the head; `None`
    /// when none is left or the run stopped.
    fn next_to_take(&self) -> Option<usize> {
        loop {
            let i = self.next.fetch_add(1, Ordering::AcqRel);
            if i >= self.taken.len() || !self.wait_for_room(i) {
                return None;
            }
            if self.take(i) {
                return Some(i);
            }
        }
    }
}

/// Converts `inputs` side by side and writes them to `to` in their order (see the module
/// comment). `run` is this thread's: its renderer converts the head on standard output, and the
/// other inputs' diagnostics and totals are added to its own.
pub(super) fn convert(
    inputs: &[PathBuf],
    run: &mut Run<'_>,
    mut to: Destination<'_>,
) -> Result<Done> {
    let settings = run.settings;
    // Pages an earlier run made from inputs that have not changed are kept, not rendered.
    let kept: Vec<bool> = match &to {
        Destination::Dir(files) => inputs.iter().map(|p| files.is_unchanged(p)).collect(),
        Destination::Out(_) => vec![false; inputs.len()],
    };
    let shared = Shared {
        taken: kept.iter().map(|&k| AtomicBool::new(k)).collect(),
        next: AtomicUsize::new(0),
        head: Mutex::new(0),
        moved: Condvar::new(),
        stop: AtomicBool::new(false),
        ahead: AHEAD_PER_THREAD * settings.jobs,
    };
    let names = match &to {
        Destination::Dir(files) => Some(Arc::clone(&files.names)),
        Destination::Out(_) => None,
    };
    let ahead = Ahead {
        inputs,
        settings,
        progress: Progress::new(settings.progress && names.is_some(), inputs.len()),
        names,
    };
    // The first input is this thread's, so that on standard output it streams.
    shared.take(0);
    let (give, spooled) = channel::<(usize, Spooled)>();
    ahead.progress.around(|| {
        std::thread::scope(|scope| {
            for _ in 1..settings.jobs {
                let (give, shared, ahead) = (give.clone(), &shared, &ahead);
                scope.spawn(move || {
                    while let Some(i) = shared.next_to_take() {
                        if give.send((i, ahead.render(i))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(give);
            let mut order = InOrder {
                ahead: &ahead,
                kept: &kept,
                shared: &shared,
                spooled: &spooled,
                early: HashMap::new(),
            };
            let result = order.write_all(run, &mut to);
            shared.stop(inputs.len());
            // An input waiting for its turn to be named gives up.
            if let Some(names) = &ahead.names {
                names.close();
            }
            result
        })
    })
}

/// This thread's part: the inputs in their order, and what the other threads rendered so far.
struct InOrder<'a> {
    ahead: &'a Ahead<'a>,
    /// Inputs whose pages an earlier run made (`--output-dir --to html`): kept as they are.
    kept: &'a [bool],
    shared: &'a Shared,
    spooled: &'a Receiver<(usize, Spooled)>,
    /// Inputs rendered before their turn came.
    early: HashMap<usize, Spooled>,
}

impl InOrder<'_> {
    /// Each input in turn: converted here, kept, or copied from where a thread rendered it.
    fn write_all(&mut self, run: &mut Run<'_>, to: &mut Destination<'_>) -> Result<Done> {
        let mut done = Done::default();
        let progress = &self.ahead.progress;
        for (i, path) in self.ahead.inputs.iter().enumerate() {
            self.shared.head_at(i);
            let here = i == 0 || self.shared.take(i);
            let outcome = match to {
                // The head streams: converted here, straight to the output.
                Destination::Out(out) if here => {
                    open_input(path).and_then(|input| run.convert(path, input, &mut **out))
                }
                Destination::Dir(files) if self.kept[i] => {
                    files.keep_unchanged(path);
                    progress.one_done();
                    continue;
                }
                _ => {
                    let spooled = if here {
                        self.ahead.render(i)
                    } else {
                        self.wait_for(i)?
                    };
                    progress.suspend(|| write_spooled(spooled, path, run, to))
                }
            };
            done.count(outcome, |words| {
                progress.suspend(|| crate::diagnostics::say(words));
            })?;
        }
        Ok(done)
    }

    /// Input `i`, which another thread took: while it is not ready, this thread renders the
    /// next inputs nobody has taken yet (within reach of the head), so that it does not sit idle.
    fn wait_for(&mut self, i: usize) -> Result<Spooled> {
        let stopped = || {
            anyhow::anyhow!(
                "{}: the thread rendering it stopped",
                self.ahead.inputs[i].display()
            )
        };
        let reach = self.ahead.inputs.len().min(i + 1 + self.shared.ahead);
        loop {
            if let Some(s) = self.early.remove(&i) {
                return Ok(s);
            }
            match self.spooled.try_recv() {
                Ok((j, s)) => {
                    self.early.insert(j, s);
                    continue;
                }
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => return Err(stopped()),
            }
            if let Some(j) = (i + 1..reach).find(|&j| self.shared.take(j)) {
                self.early.insert(j, self.ahead.render(j));
                continue;
            }
            let (j, s) = self.spooled.recv().map_err(|_| stopped())?;
            self.early.insert(j, s);
        }
    }
}

/// Writes an input rendered ahead of its turn where it goes, adding its diagnostics and totals
/// to the run's.
fn write_spooled(
    spooled: Spooled,
    path: &Path,
    run: &mut Run<'_>,
    to: &mut Destination<'_>,
) -> Result<Rendered> {
    run.absorb(spooled.diag, spooled.stats);
    let (mut spool, mut rendered, row) = spooled.outcome?;
    spool.rewind()?;
    match to {
        Destination::Out(out) => {
            io::copy(&mut spool, &mut **out)?;
        }
        Destination::Dir(files) => files.place_spooled(spool, &mut rendered, row, path)?,
    }
    Ok(rendered)
}

/// What rendering an input ahead of its turn takes, on any thread.
struct Ahead<'a> {
    inputs: &'a [PathBuf],
    settings: &'a Settings,
    /// `--output-dir`: the names of the files inputs rendered ahead are bound for.
    names: Option<Arc<Names>>,
    progress: Progress,
}

impl Ahead<'_> {
    /// Renders input `i` into a spool, with a renderer, diagnostics and totals of its own, and
    /// counts it done; for `--output-dir` (`names`), its file named as it renders when the
    /// format writes files beside it, and for `--to html` the page's row for `index.html`.
    fn render(&self, i: usize) -> Spooled {
        let (path, settings) = (&self.inputs[i], self.settings);
        // Its messages held until its turn.
        let diag = Diagnostics::new(settings.strict).held();
        let mut lane = Lane::new(settings, diag, false);
        let name = self.names.as_ref().and_then(|n| n.ticket(i, path));
        let outcome = open_input(path).and_then(|input| {
            let mut buf = BufWriter::with_capacity(64 * 1024, SpooledTempFile::new(IN_MEMORY));
            let mut run = lane.run(settings);
            run.name.clone_from(&name);
            let (rendered, row) = match self.names {
                Some(_) => super::output_dir::render_page(&mut run, path, input, &mut buf)?,
                None => (run.convert(path, input, &mut buf)?, None),
            };
            let spool = buf.into_inner().map_err(io::IntoInnerError::into_error)?;
            Ok((spool, rendered, row))
        });
        // Named by now, or never to be: the next input's turn comes.
        if let Some(name) = name {
            name.settle();
        }
        self.progress.one_done();
        Spooled {
            outcome,
            diag: lane.diag,
            stats: lane.stats,
        }
    }
}
