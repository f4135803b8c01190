//! `--jobs N` with `--output-dir`: inputs are rendered side by side on a pool of N threads
//! (rayon), each into a temporary file of its own with its own renderer, diagnostics and
//! `--stats` totals; then, on this thread and in input order, each file is named and renamed into
//! place, its index row added, its diagnostics printed and its totals added. So file names, the
//! index and stderr are the same whatever N is and whichever input finished first.
//!
//! A finished file is kept as a closed temporary file (a name, no descriptor), so a directory of
//! thousands of sessions does not run out of file descriptors while earlier ones are rendered.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use tempfile::TempPath;

use super::{OutputDir, Rendered, render_into_dir};
use crate::diagnostics::Diagnostics;
use crate::render::{self, html::index::IndexRow};
use crate::settings::Settings;
use crate::stats::Stats;

/// What the run as a whole learnt.
pub(super) struct Done {
    /// An input could not be read or its file written.
    pub(super) trouble: bool,
    /// An input was abandoned as not JSON Lines.
    pub(super) stopped: bool,
}

/// One input rendered on a worker thread, waiting for its turn to be placed.
struct Converted {
    outcome: Result<(TempPath, Rendered, Option<IndexRow>)>,
    diag: Diagnostics,
    stats: Stats,
}

/// Renders `inputs` side by side, then places them in order (see the module comment).
pub(super) fn convert(
    inputs: &[PathBuf],
    settings: &Settings,
    files: &mut OutputDir,
    diag: &mut Diagnostics,
    stats: &mut Stats,
) -> Result<Done> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.jobs)
        .build()?;
    let progress = Progress::new(settings.progress, inputs.len());
    let dir = files.dir.clone();
    // Inputs whose pages a previous run made and that have not changed are not rendered again.
    let unchanged: Vec<bool> = inputs.iter().map(|p| files.is_unchanged(p)).collect();
    let converted: Vec<Option<Converted>> = progress.around(|| {
        pool.install(|| {
            inputs
                .par_iter()
                .zip(&unchanged)
                .map(|(path, &kept)| {
                    let c = (!kept).then(|| convert_one(&dir, path, settings));
                    progress.one_done();
                    c
                })
                .collect()
        })
    });
    let mut done = Done {
        trouble: false,
        stopped: false,
    };
    for (path, c) in inputs.iter().zip(converted) {
        let Some(c) = c else {
            files.keep_unchanged(path);
            continue;
        };
        diag.absorb(c.diag);
        stats.absorb(c.stats);
        let placed = c.outcome.and_then(|(temp, rendered, row)| {
            files.place(temp, &rendered, row, path, settings)?;
            Ok(rendered)
        });
        match placed {
            Ok(rendered) => done.stopped |= rendered.stopped,
            Err(e) => {
                crate::diagnostics::say(&crate::diagnostics::error_words(&e));
                done.trouble = true;
            }
        }
    }
    Ok(done)
}

/// Renders one input into its temporary file in `dir`.
fn convert_one(dir: &Path, path: &Path, settings: &Settings) -> Converted {
    let mut diag = Diagnostics::new(settings.strict).held();
    let mut stats = Stats::default();
    let mut renderer = render::renderer_for(&settings.render_options());
    let outcome = super::open_input(path)
        .and_then(|f| {
            render_into_dir(
                super::Threads::One,
                dir,
                path,
                Box::new(f),
                settings,
                renderer.as_mut(),
                &mut diag,
                &mut stats,
            )
        })
        .and_then(|(buf, rendered, row)| Ok((crate::output_file::finished(buf)?, rendered, row)));
    Converted {
        outcome,
        diag,
        stats,
    }
}

/// How long a run goes before its progress bar appears: a few quick files print nothing.
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// How often a shown bar is redrawn on its own, so that its clock moves while one long input is
/// converted and nothing finishes.
const REDRAW_EVERY: Duration = Duration::from_millis(250);
/// The bar: elapsed time, the bar itself, inputs done of all, time left. Counts only: no input's
/// name (text from the disk, which may hold control sequences) reaches the terminal.
const TEMPLATE: &str = "scribe: {elapsed_precise} [{bar:30}] {pos}/{len} inputs, {eta} left";

/// A progress bar on standard error while the inputs are converted (indicatif: it redraws in
/// place at a bounded rate, measures the rate for the time left, and erases itself at the end),
/// drawn only when standard error is a terminal and the run has lasted [`SHOW_AFTER`]. Built
/// hidden; a watcher thread shows it once that time has passed with work left.
struct Progress {
    bar: ProgressBar,
    /// Whether it may be shown at all (standard error is a terminal).
    terminal: bool,
}

impl Progress {
    fn new(terminal: bool, total: usize) -> Progress {
        let style = ProgressStyle::with_template(TEMPLATE)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden())
            .with_style(style);
        Progress { bar, terminal }
    }

    /// Runs `work`, showing the bar if it is still running after [`SHOW_AFTER`], and erases the
    /// bar when it returns.
    fn around<T>(&self, work: impl FnOnce() -> T) -> T {
        let (finished, wait) = mpsc::channel::<()>();
        let out = std::thread::scope(|scope| {
            if self.terminal {
                let bar = self.bar.clone();
                scope.spawn(move || {
                    if wait.recv_timeout(SHOW_AFTER) == Err(mpsc::RecvTimeoutError::Timeout) {
                        bar.set_draw_target(ProgressDrawTarget::stderr());
                        bar.enable_steady_tick(REDRAW_EVERY);
                    }
                });
            }
            let out = work();
            drop(finished);
            out
        });
        self.bar.finish_and_clear();
        out
    }

    fn one_done(&self) {
        self.bar.inc(1);
    }
}
