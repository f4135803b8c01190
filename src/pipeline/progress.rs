//! The progress bar of a long `--output-dir` run on a terminal.

use std::sync::mpsc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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
pub(super) struct Progress {
    bar: ProgressBar,
    /// Whether it may be shown at all (standard error is a terminal).
    terminal: bool,
}

impl Progress {
    /// A bar over `total` inputs, hidden for good unless `terminal`.
    pub(super) fn new(terminal: bool, total: usize) -> Progress {
        let style = ProgressStyle::with_template(TEMPLATE)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden())
            .with_style(style);
        Progress { bar, terminal }
    }

    /// Runs `work`, showing the bar if it is still running after [`SHOW_AFTER`], and erases the
    /// bar when it returns.
    pub(super) fn around<T>(&self, work: impl FnOnce() -> T) -> T {
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

    /// One more input converted.
    pub(super) fn one_done(&self) {
        self.bar.inc(1);
    }

    /// Runs `write` (which may print diagnostics) with the bar off the screen, then draws it
    /// again.
    pub(super) fn suspend<T>(&self, write: impl FnOnce() -> T) -> T {
        self.bar.suspend(write)
    }
}
