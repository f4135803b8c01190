//! `--jobs N` with several inputs on standard output (issue 14: every core). The inputs are
//! written in their order, each as it would be alone, while up to N - 1 other threads render the
//! inputs that come next, each with its own renderer, diagnostics and `--stats` totals, into a
//! [`Spool`]: memory up to [`IN_MEMORY`] bytes, then an unnamed temporary file (created
//! exclusively in the system's temporary directory, gone when closed). The input at the head of
//! the order is converted on this thread straight to standard output, so its records appear as
//! they are made; an input another thread took is copied out when its turn comes, and its
//! diagnostics printed then. While the head is still being rendered elsewhere, this thread
//! renders the next input nobody took, rather than wait. Standard output and standard error are
//! the same bytes whatever N is.
//!
//! Only for formats whose output for an input does not depend on the inputs before it
//! (`Render::stands_alone`). No input more than [`AHEAD_PER_THREAD`] × N past the head is taken,
//! so the spools hold a bounded share of the output, and as many descriptors stay open.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Condvar, Mutex};

use anyhow::Result;

use super::parallel::Done;
use super::{Rendered, Threads, run_one_on};
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::render::{self, Render};
use crate::settings::Settings;
use crate::stats::Stats;

/// How many inputs past the head may be taken, per thread of the run.
const AHEAD_PER_THREAD: usize = 2;
/// Bytes of an input's output held in memory before the rest goes to a temporary file.
const IN_MEMORY: usize = 4 << 20;

/// What the threads share: which inputs are taken, where the head is, and whether to stop.
struct Shared {
    /// One flag per input: some thread has taken it.
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

    /// The head moved to `i` (or the run stopped): wakes the threads waiting for it.
    fn head_at(&self, i: usize) {
        if let Ok(mut head) = self.head.lock() {
            *head = i;
        }
        self.moved.notify_all();
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
}

/// One input rendered by another thread into its temporary file, waiting for its turn.
struct Spooled {
    outcome: Result<(Spool, Rendered)>,
    diag: Diagnostics,
    stats: Stats,
}

/// Writes `inputs` to `out` in their order, rendering ahead on `settings.jobs - 1` other threads
/// (see the module comment). `renderer` renders the inputs converted on this thread.
pub(super) fn convert(
    inputs: &[PathBuf],
    settings: &Settings,
    renderer: &mut dyn Render,
    out: &mut BufWriter<impl Write>,
    diag: &mut Diagnostics,
    stats: &mut Stats,
) -> Result<Done> {
    let helpers = settings.jobs.saturating_sub(1).max(1);
    let shared = Shared {
        taken: inputs.iter().map(|_| AtomicBool::new(false)).collect(),
        next: AtomicUsize::new(0),
        head: Mutex::new(0),
        moved: Condvar::new(),
        stop: AtomicBool::new(false),
        ahead: AHEAD_PER_THREAD * settings.jobs,
    };
    // The first input is this thread's, so that its output streams.
    shared.take(0);
    let (give, spooled) = channel::<(usize, Spooled)>();
    std::thread::scope(|scope| {
        for _ in 0..helpers {
            let give = give.clone();
            let shared = &shared;
            scope.spawn(move || {
                while let Some(i) = next_to_take(shared, inputs.len()) {
                    let done = spool(&inputs[i], settings);
                    if give.send((i, done)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(give);
        let result = write_in_order(
            inputs, settings, renderer, out, diag, stats, &shared, &spooled,
        );
        shared.stop.store(true, Ordering::Release);
        shared.head_at(inputs.len());
        result
    })
}

/// The next input another thread should render, once it is near enough to the head; `None`
/// when none is left or the run stopped.
fn next_to_take(shared: &Shared, count: usize) -> Option<usize> {
    loop {
        let i = shared.next.fetch_add(1, Ordering::AcqRel);
        if i >= count || !shared.wait_for_room(i) {
            return None;
        }
        if shared.take(i) {
            return Some(i);
        }
    }
}

/// This thread's part: each input in turn, converted here or copied from where another thread
/// rendered it.
#[allow(clippy::too_many_arguments)]
fn write_in_order(
    inputs: &[PathBuf],
    settings: &Settings,
    renderer: &mut dyn Render,
    out: &mut BufWriter<impl Write>,
    diag: &mut Diagnostics,
    stats: &mut Stats,
    shared: &Shared,
    spooled: &Receiver<(usize, Spooled)>,
) -> Result<Done> {
    let mut done = Done {
        trouble: false,
        stopped: false,
    };
    // Inputs rendered before their turn came.
    let mut early: HashMap<usize, Spooled> = HashMap::new();
    for (i, path) in inputs.iter().enumerate() {
        shared.head_at(i);
        let outcome = if i == 0 || shared.take(i) {
            convert_here(path, settings, renderer, out, diag, stats)
        } else {
            let s = wait_for(i, inputs, settings, shared, spooled, &mut early)?;
            diag.absorb(s.diag);
            stats.absorb(s.stats);
            s.outcome
                .and_then(|(spool, rendered)| spool.copy_to(out).map(|()| rendered))
        };
        match outcome {
            Ok(rendered) => done.stopped |= rendered.stopped,
            Err(e) if exit::is_broken_pipe(&e) => return Err(e),
            Err(e) => {
                crate::diagnostics::say(&crate::diagnostics::error_words(&e));
                done.trouble = true;
            }
        }
    }
    Ok(done)
}

/// Input `i`, which another thread took: while it is not ready, this thread renders the next
/// inputs nobody has taken yet (within reach of the head), so that it does not sit idle.
fn wait_for(
    i: usize,
    inputs: &[PathBuf],
    settings: &Settings,
    shared: &Shared,
    spooled: &Receiver<(usize, Spooled)>,
    early: &mut HashMap<usize, Spooled>,
) -> Result<Spooled> {
    let reach = inputs.len().min(i + 1 + shared.ahead);
    loop {
        if let Some(s) = early.remove(&i) {
            return Ok(s);
        }
        match spooled.try_recv() {
            Ok((j, s)) => {
                early.insert(j, s);
                continue;
            }
            Err(TryRecvError::Empty) => {}
            Err(TryRecvError::Disconnected) => {
                anyhow::bail!("{}: the thread rendering it stopped", inputs[i].display())
            }
        }
        if let Some(j) = (i + 1..reach).find(|&j| shared.take(j)) {
            early.insert(j, spool(&inputs[j], settings));
            continue;
        }
        match spooled.recv() {
            Ok((j, s)) => {
                early.insert(j, s);
            }
            Err(_) => anyhow::bail!("{}: the thread rendering it stopped", inputs[i].display()),
        }
    }
}

/// Converts one input on this thread, straight to `out`.
fn convert_here(
    path: &Path,
    settings: &Settings,
    renderer: &mut dyn Render,
    out: &mut BufWriter<impl Write>,
    diag: &mut Diagnostics,
    stats: &mut Stats,
) -> Result<Rendered> {
    let file = super::open_input(path)?;
    run_one_on(
        Threads::One,
        path,
        file,
        settings,
        renderer,
        out,
        diag,
        stats,
    )
}

/// Renders one input into a temporary file, with its own renderer, diagnostics and totals.
fn spool(path: &Path, settings: &Settings) -> Spooled {
    let mut diag = Diagnostics::new(settings.strict).held();
    let mut stats = Stats::default();
    let mut renderer = render::renderer_for(&settings.render_options());
    let outcome = super::open_input(path).and_then(|input| {
        let mut buf = BufWriter::with_capacity(8 * 1024, Spool::Memory(Vec::new()));
        let rendered = run_one_on(
            Threads::One,
            path,
            input,
            settings,
            renderer.as_mut(),
            &mut buf,
            &mut diag,
            &mut stats,
        )?;
        let spool = buf.into_inner().map_err(io::IntoInnerError::into_error)?;
        Ok((spool, rendered))
    });
    Spooled {
        outcome,
        diag,
        stats,
    }
}

/// Where an input rendered ahead of its turn waits: in memory up to [`IN_MEMORY`] bytes, then in
/// an unnamed temporary file (created exclusively, removed when closed).
enum Spool {
    Memory(Vec<u8>),
    File(BufWriter<File>),
}

impl Spool {
    /// Writes what it holds to `out`.
    fn copy_to(self, out: &mut impl Write) -> Result<()> {
        match self {
            Spool::Memory(bytes) => out.write_all(&bytes)?,
            Spool::File(buf) => {
                let mut file = buf.into_inner().map_err(io::IntoInnerError::into_error)?;
                file.rewind()?;
                io::copy(&mut file, out)?;
            }
        }
        Ok(())
    }
}

impl Write for Spool {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Spool::Memory(held) if held.len() + bytes.len() <= IN_MEMORY => {
                held.extend_from_slice(bytes);
                Ok(bytes.len())
            }
            Spool::Memory(held) => {
                let mut file = BufWriter::with_capacity(64 * 1024, tempfile::tempfile()?);
                file.write_all(held)?;
                file.write_all(bytes)?;
                *self = Spool::File(file);
                Ok(bytes.len())
            }
            Spool::File(file) => file.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Spool::Memory(_) => Ok(()),
            Spool::File(file) => file.flush(),
        }
    }
}
