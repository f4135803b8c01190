//! Reading a file that is still being written: `FollowReader` is a `Read` over a growing file
//! that waits at its end (woken by inotify through `notify`, or by polling when no watcher can
//! be made) instead of returning end of file, so `InputDriver` reads a live session exactly as it
//! reads a finished one.
//!
//! Only whole lines are handed on: a partly written last line is held back until its newline
//! arrives, so it is never reported as cut. The reader ends (returns end of file) when SIGINT
//! sets the stop flag, when its `Switch` says a newer file should be read instead, or when the
//! file was rewritten (`mark.rs`): the caller then reads it again from its start.
//!
//! The file is open only while there is something to read: once the driver has been told the
//! input is quiet, the reader closes it (and gives back its place in `budget.rs`) and waits;
//! it opens the file again when the file's metadata changed.

mod budget;
mod mark;

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use mark::{Mark, Stamp};

/// How long a wait lasts before the stop flag and the file are looked at again even without a
/// file-system event (the bound on how late Ctrl-C is noticed).
const TICK: Duration = Duration::from_millis(200);
/// The polling interval when no watcher could be made.
const POLL: Duration = Duration::from_millis(100);

/// Wakes a waiting reader when something under a path changes.
pub(crate) struct Watch {
    /// Paths the watcher reported; `None` when polling.
    events: Option<Receiver<PathBuf>>,
    /// Kept alive for as long as the watch lasts.
    _watcher: Option<notify::RecommendedWatcher>,
}

impl Watch {
    /// Watches `path` (a file, or a directory and everything below it). Reads of a file (its
    /// opening and closing) are not changes: scribe's own reads must not wake it.
    pub(crate) fn new(path: &Path) -> Watch {
        let (tx, rx) = channel();
        let watcher =
            notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
                Ok(ev) if !ev.kind.is_access() => {
                    for p in ev.paths {
                        let _ = tx.send(p);
                    }
                }
                Ok(_) | Err(_) => {}
            });
        let mode = if path.is_dir() {
            RecursiveMode::Recursive
        } else {
            RecursiveMode::NonRecursive
        };
        match watcher {
            Ok(mut w) => match w.watch(path, mode) {
                Ok(()) => Watch {
                    events: Some(rx),
                    _watcher: Some(w),
                },
                Err(_) => Watch::polling(),
            },
            // No inotify (a full instance table, an odd file system): poll instead.
            Err(_) => Watch::polling(),
        }
    }

    /// A watch fed by another one: the paths `events` brings (`--follow-all` routes a
    /// directory's events to the session each names, one watcher for all of them).
    pub(crate) fn fed(events: Receiver<PathBuf>) -> Watch {
        Watch {
            events: Some(events),
            _watcher: None,
        }
    }

    /// A watch that polls.
    pub(crate) fn polling() -> Watch {
        Watch {
            events: None,
            _watcher: None,
        }
    }

    /// Waits for a change or one tick; returns the paths that changed (empty after a tick, and
    /// always when polling).
    pub(crate) fn wait(&self) -> Vec<PathBuf> {
        let Some(rx) = &self.events else {
            std::thread::sleep(POLL);
            return Vec::new();
        };
        let mut seen = Vec::new();
        match rx.recv_timeout(TICK) {
            Ok(p) => seen.push(p),
            Err(RecvTimeoutError::Timeout) => return seen,
            // The feeder is gone: a tick, as when polling.
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(TICK);
                return seen;
            }
        }
        seen.extend(rx.try_iter());
        seen
    }

    /// True when changes arrive by events, false when polling.
    pub(crate) fn is_live(&self) -> bool {
        self.events.is_some()
    }
}

/// Asked at each wait whether to stop reading this file for a newer one.
pub(crate) trait Switch {
    /// `seen`: the paths a watcher reported since the last call (empty on a tick).
    fn newer(&mut self, seen: &[PathBuf]) -> bool;
}

/// Called at each wait (to write pages that were held back by the once-a-second limit).
pub(crate) type Tick<'a> = Box<dyn FnMut() + 'a>;

/// The followed file while it is open, and its place in the budget.
struct Open {
    file: File,
    _place: budget::Place,
}

/// A growing file read as a stream (see the module comment).
pub(crate) struct FollowReader<'a> {
    path: PathBuf,
    /// The file, while there is something to read in it.
    open: Option<Open>,
    /// Where the reader stands, and what it read.
    mark: Mark,
    /// The file's metadata when it was closed: a change opens it again.
    rested: Option<Stamp>,
    /// Bytes after the last newline read: a line still being written.
    partial: Vec<u8>,
    /// Whole lines ready to hand on, and how many of them were handed on.
    ready: Vec<u8>,
    ready_at: usize,
    chunk: Vec<u8>,
    stop: &'a AtomicBool,
    watch: &'a Watch,
    switch: Option<&'a mut dyn Switch>,
    tick: Option<Tick<'a>>,
    /// The driver was told the input is quiet since the last wait.
    told_quiet: bool,
    /// The reader handed on its last bytes and returns end of file from now on.
    ended: bool,
    /// The reader ended because `switch` said so.
    pub(crate) switched: bool,
    /// The reader ended because the file was rewritten: it is to be read again from its start.
    pub(crate) rewritten: bool,
}

impl<'a> FollowReader<'a> {
    /// Follows `path`, woken by `watch`, until `stop` is set (or `switch` says so, or the file
    /// is rewritten).
    pub(crate) fn open(
        path: &Path,
        stop: &'a AtomicBool,
        watch: &'a Watch,
    ) -> io::Result<FollowReader<'a>> {
        let mut reader = FollowReader {
            path: path.to_owned(),
            open: None,
            mark: Mark::default(),
            rested: None,
            partial: Vec::new(),
            ready: Vec::new(),
            ready_at: 0,
            chunk: vec![0; 64 * 1024],
            stop,
            watch,
            switch: None,
            tick: None,
            told_quiet: false,
            ended: false,
            switched: false,
            rewritten: false,
        };
        reader.reopen()?;
        if reader.open.is_none() && !stop.load(Ordering::Relaxed) {
            return Err(io::ErrorKind::NotFound.into());
        }
        Ok(reader)
    }

    /// Ends the reader when `switch` says a newer file is there.
    pub(crate) fn with_switch(mut self, switch: &'a mut dyn Switch) -> Self {
        self.switch = Some(switch);
        self
    }

    /// Calls `tick` at each wait.
    pub(crate) fn with_tick(mut self, tick: Tick<'a>) -> Self {
        self.tick = Some(tick);
        self
    }

    /// Opens the file (taking a place in the budget) when it changed since it was closed;
    /// marks it rewritten when it is not the file read any more.
    fn reopen(&mut self) -> io::Result<()> {
        if self.open.is_some() {
            return Ok(());
        }
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            // Gone for now (being replaced): looked for again at the next wake.
            Err(e) if e.kind() == io::ErrorKind::NotFound && self.rested.is_some() => {
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        // Unchanged, and nothing past what was read (bytes written just before it was closed
        // are read now).
        if self.rested.is_some_and(|s| s == Stamp::of(&meta)) && meta.len() == self.mark.offset {
            return Ok(());
        }
        let Some(place) = budget::take(self.stop) else {
            return Ok(());
        };
        let file = File::open(&self.path)?;
        let meta = file.metadata()?;
        self.mark.opened(&meta);
        if !self.mark.holds(&file, &meta)? {
            self.rewritten = true;
            return Ok(());
        }
        self.open = Some(Open {
            file,
            _place: place,
        });
        self.rested = None;
        Ok(())
    }

    /// Closes the file while it is quiet, noting its metadata to see when it changes.
    fn rest(&mut self) {
        if let Some(open) = self.open.take() {
            self.rested = open.file.metadata().ok().map(|m| Stamp::of(&m));
        }
    }

    /// Reads what the file holds now; false at its current end (or when it was rewritten).
    fn fill(&mut self) -> io::Result<bool> {
        let Some(open) = self.open.as_mut() else {
            return Ok(false);
        };
        open.file.seek(SeekFrom::Start(self.mark.offset))?;
        let n = loop {
            match open.file.read(&mut self.chunk) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            return Ok(false);
        }
        // Bytes read after the file was rewritten are not the rest of what was read.
        let meta = open.file.metadata()?;
        if !self.mark.holds(&open.file, &meta)? {
            self.rewritten = true;
            return Ok(false);
        }
        self.mark.advance(&self.chunk[..n]);
        self.partial.extend_from_slice(&self.chunk[..n]);
        if let Some(i) = memchr::memrchr(b'\n', &self.partial) {
            let rest = self.partial.split_off(i + 1);
            self.ready = std::mem::replace(&mut self.partial, rest);
            self.ready_at = 0;
        }
        Ok(true)
    }

    /// The file is left for good: a last line that never got its newline is handed on as it
    /// is (cut), and the reader returns end of file after it.
    fn end(&mut self) {
        self.ready = std::mem::take(&mut self.partial);
        self.ready_at = 0;
        self.ended = true;
        self.open = None;
    }
}

impl Read for FollowReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.ready_at < self.ready.len() {
                let n = buf.len().min(self.ready.len() - self.ready_at);
                buf[..n].copy_from_slice(&self.ready[self.ready_at..self.ready_at + n]);
                self.ready_at += n;
                if self.ready_at == self.ready.len() {
                    self.ready.clear();
                    self.ready_at = 0;
                }
                return Ok(n);
            }
            // Ctrl-C: the line still being written is dropped, never shown as cut.
            if self.ended || self.stop.load(Ordering::Relaxed) {
                return Ok(0);
            }
            if self.fill()? {
                // What comes now is flushed at the next quiet moment, before any wait.
                self.told_quiet = false;
                continue;
            }
            if self.switched || self.rewritten {
                self.end();
                continue;
            }
            if !self.told_quiet {
                // Nothing new in this file: the driver flushes and looks beside it (sub-agent
                // files) while the file is still open. Only whole lines were handed on, so the
                // line reader holds no part of one.
                self.told_quiet = true;
                return Err(io::ErrorKind::WouldBlock.into());
            }
            if let Some(tick) = self.tick.as_mut() {
                tick();
            }
            self.rest();
            let seen = self.watch.wait();
            self.told_quiet = false;
            if let Some(switch) = self.switch.as_mut() {
                // The rest of this file is still read before the reader ends.
                self.switched = switch.newer(&seen);
            }
            self.reopen()?;
        }
    }
}
