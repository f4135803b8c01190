//! Highlighting on the other cores, the page written in order (issue 14).
//!
//! Highlighting is most of a page's CPU time, and each highlighted block depends only on its own
//! text and on a decision taken before it: whether the page's budget lets it be highlighted. That
//! decision is still taken on the page's thread, in page order (so a page is the same whatever
//! the timing and `--jobs`); what it decided is handed with a copy of the block to a [`Job`] on
//! rayon's pool, and the page keeps a hole where the job's markup goes. [`Pending`] writes the
//! page in order: the text up to the first hole that is not filled yet, and the rest once it is.
//!
//! Memory stays bounded: only blocks the budget let through become jobs (their copies are at
//! most the budget), and when more than [`WINDOW`] bytes of page wait behind a hole, the page's
//! thread works on the waiting jobs itself until they are written. A job never waits for
//! anything, and a thread that needs a job nobody has started runs it itself, so a pool whose
//! threads all render pages (`-o DIR --jobs N`) cannot deadlock.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::escape::Html;

/// Bytes of page held behind unfilled holes before the page's thread stops to fill them.
const WINDOW: usize = 1 << 20;

/// The work of one hole: writes the block's markup into a fragment of its own.
type Work = Box<dyn FnOnce(&mut Html) + Send>;

/// Where a job is.
enum State {
    /// Nobody has started it.
    Todo(Work),
    /// A thread is running it.
    Running,
    /// Its markup, not yet taken.
    Done(String),
    /// Its markup was taken.
    Taken,
}

/// One block's highlighting, run by whichever thread gets to it first.
pub(crate) struct Job(Arc<(Mutex<State>, Condvar)>);

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

impl Job {
    /// A job for `work`, queued on the current rayon pool (the global one outside a pool).
    pub(crate) fn spawn(work: impl FnOnce(&mut Html) + Send + 'static) -> Job {
        let job = Job(Arc::new((
            Mutex::new(State::Todo(Box::new(work))),
            Condvar::new(),
        )));
        let shared = Arc::clone(&job.0);
        rayon::spawn_fifo(move || {
            Job(shared).run_if_todo();
        });
        job
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs the job here if nobody has started it; true when it did.
    fn run_if_todo(&self) -> bool {
        let work = {
            let mut state = self.lock();
            match std::mem::replace(&mut *state, State::Running) {
                State::Todo(work) => work,
                other @ (State::Running | State::Done(_) | State::Taken) => {
                    *state = other;
                    return false;
                }
            }
        };
        let mut h = Html::default();
        work(&mut h);
        *self.lock() = State::Done(h.into_string());
        self.0.1.notify_all();
        true
    }

    /// The job's markup if it is done, without waiting.
    fn try_take(&self) -> Option<String> {
        let mut state = self.lock();
        match std::mem::replace(&mut *state, State::Taken) {
            State::Done(s) => Some(s),
            other @ (State::Todo(_) | State::Running | State::Taken) => {
                *state = other;
                None
            }
        }
    }

    /// The job's markup: run here if nobody has started it, else waited for.
    fn take(&self) -> String {
        self.run_if_todo();
        let mut state = self.lock();
        loop {
            match std::mem::replace(&mut *state, State::Taken) {
                State::Done(s) => return s,
                // Taken twice is a bug of this module; the hole stays empty rather than hang.
                State::Taken => return String::new(),
                other @ (State::Running | State::Todo(_)) => {
                    *state = other;
                    state = self.0.1.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
    }
}

#[derive(Debug)]
/// A written piece of page with the holes in it, in order: (byte offset in `text`, job).
struct Piece {
    text: String,
    holes: VecDeque<(usize, Job)>,
    /// Bytes of `text` already written out.
    written: usize,
}

/// The page's pieces that wait behind an unfilled hole, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pieces: VecDeque<Piece>,
    /// Bytes of text held in `pieces` (not yet written).
    held: usize,
    /// A written piece's buffer, emptied, for the page's next one (so the page's buffer keeps
    /// its size instead of growing again for each item).
    spare: String,
}

/// A written piece's buffer larger than this is given back rather than kept as the spare.
const KEEP: usize = 1 << 20;

impl Pending {
    /// Writes `h` (emptied) to `out`, or as much of it as the holes before it allow.
    pub(crate) fn write(&mut self, out: &mut dyn Write, h: &mut Html) -> io::Result<()> {
        let holes = h.take_holes();
        if holes.is_empty() && self.pieces.is_empty() {
            out.write_all(h.as_str().as_bytes())?;
            h.clear();
            return Ok(());
        }
        let text = h.swap_string(std::mem::take(&mut self.spare));
        self.held += text.len();
        self.pieces.push_back(Piece {
            text,
            holes,
            written: 0,
        });
        self.drain(out)?;
        while self.held > WINDOW {
            self.help();
            self.drain_one(out)?;
        }
        Ok(())
    }

    /// Writes everything, filling every hole (at the end of a page, or when the input pauses).
    pub(crate) fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        while !self.pieces.is_empty() {
            self.help();
            self.drain_one(out)?;
        }
        Ok(())
    }

    /// Runs here every job nobody has started (the newest first: the pool's threads take the
    /// oldest).
    fn help(&self) {
        for piece in self.pieces.iter().rev() {
            for (_, job) in piece.holes.iter().rev() {
                job.run_if_todo();
            }
        }
    }

    /// Writes the text and the filled holes from the front, up to the first hole that is not
    /// filled yet.
    fn drain(&mut self, out: &mut dyn Write) -> io::Result<()> {
        while let Some(piece) = self.pieces.front_mut() {
            while let Some((at, job)) = piece.holes.front() {
                let at = *at;
                let filled = job.try_take();
                out.write_all(&piece.text.as_bytes()[piece.written..at])?;
                self.held -= at - piece.written;
                piece.written = at;
                let Some(markup) = filled else {
                    return Ok(());
                };
                out.write_all(markup.as_bytes())?;
                piece.holes.pop_front();
            }
            out.write_all(&piece.text.as_bytes()[piece.written..])?;
            self.held -= piece.text.len() - piece.written;
            if let Some(done) = self.pieces.pop_front()
                && done.text.capacity() <= KEEP
                && done.text.capacity() > self.spare.capacity()
            {
                self.spare = done.text;
                self.spare.clear();
            }
        }
        Ok(())
    }

    /// Writes at least the oldest piece, waiting for its holes.
    fn drain_one(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if let Some(piece) = self.pieces.front_mut() {
            for (at, job) in std::mem::take(&mut piece.holes) {
                let markup = job.take();
                out.write_all(&piece.text.as_bytes()[piece.written..at])?;
                self.held -= at - piece.written;
                piece.written = at;
                out.write_all(markup.as_bytes())?;
            }
        }
        self.drain(out)
    }
}
