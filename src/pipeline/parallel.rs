//! `--jobs N` with `--output-dir`: inputs are rendered side by side on a pool of N threads
//! (rayon), each into a temporary file of its own with its own renderer, diagnostics and
//! `--stats` totals; then, on this thread and in input order, each file is named and renamed into
//! place, its index row added, its diagnostics printed and its totals added. So file names, the
//! index and stderr are the same whatever N is and whichever input finished first.
//!
//! A finished file is kept as a closed temporary file (a name, no descriptor), so a directory of
//! thousands of sessions does not run out of file descriptors while earlier ones are rendered.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
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
    let converted: Vec<Option<Converted>> = pool.install(|| {
        inputs
            .par_iter()
            .zip(&unchanged)
            .map(|(path, &kept)| {
                let c = (!kept).then(|| convert_one(&dir, path, settings));
                progress.one_done();
                c
            })
            .collect()
    });
    progress.clear();
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
    let outcome = File::open(path)
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), crate::diagnostics::io_words(&e)))
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

/// `scribe: 12/170 inputs converted` on standard error while the run lasts, shown only when
/// stderr is a terminal and the run has taken more than a second (a few quick files print
/// nothing). Hand-made rather than a progress-bar crate: one line rewritten in place is all
/// it needs.
struct Progress {
    show: bool,
    total: usize,
    done: AtomicUsize,
    start: Instant,
    /// Set once a line was drawn (so that `clear` erases it).
    drawn: AtomicBool,
}

impl Progress {
    fn new(terminal: bool, total: usize) -> Progress {
        Progress {
            show: terminal,
            total,
            done: AtomicUsize::new(0),
            start: Instant::now(),
            drawn: AtomicBool::new(false),
        }
    }

    fn one_done(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.show || self.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        self.drawn.store(true, Ordering::Relaxed);
        let mut err = io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2Kscribe: {done}/{} inputs converted",
            self.total
        );
        let _ = err.flush();
    }

    fn clear(&self) {
        if self.drawn.load(Ordering::Relaxed) {
            let _ = write!(io::stderr().lock(), "\r\x1b[2K");
        }
    }
}
