//! Reading a file that is still being written: `FollowReader` is a `Read` over a growing file
//! that waits at its end (woken by inotify through `notify`, or by polling when no watcher can
//! be made) instead of returning end of file, so `InputDriver` reads a live session exactly as it
//! reads a finished one.
//!
//! Only whole lines are handed on: a partly written last line is held back until its newline
//! arrives, so it is never reported as truncated. The reader ends (returns end of file) when
//! SIGINT sets the stop flag, or when its `Switch` says a newer file should be read instead.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

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
    /// Watches `path` (a file, or a directory and everything below it).
    pub(crate) fn new(path: &Path) -> Watch {
        let (tx, rx) = channel();
        let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(ev) = res {
                for p in ev.paths {
                    let _ = tx.send(p);
                }
            }
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

    /// A watch that polls.
    fn polling() -> Watch {
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
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return seen,
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

/// A growing file read as a stream (see the module comment).
pub(crate) struct FollowReader<'a> {
    file: File,
    name: String,
    /// Bytes read from the file so far.
    offset: u64,
    /// Bytes after the last newline read: a line still being written.
    partial: Vec<u8>,
    /// Whole lines ready to hand on, and how many of them were handed on.
    ready: Vec<u8>,
    ready_at: usize,
    chunk: Vec<u8>,
    stop: &'a AtomicBool,
    watch: Watch,
    switch: Option<&'a mut dyn Switch>,
    tick: Option<Tick<'a>>,
    /// The reader handed on its last bytes and returns end of file from now on.
    ended: bool,
    /// The reader ended because `switch` said so.
    pub(crate) switched: bool,
}

impl<'a> FollowReader<'a> {
    /// Follows `path` until `stop` is set (or `switch` says so).
    pub(crate) fn open(
        path: &Path,
        stop: &'a AtomicBool,
        watch: Option<Watch>,
    ) -> io::Result<FollowReader<'a>> {
        let file = File::open(path)?;
        Ok(FollowReader {
            file,
            name: path.display().to_string(),
            offset: 0,
            partial: Vec::new(),
            ready: Vec::new(),
            ready_at: 0,
            chunk: vec![0; 64 * 1024],
            stop,
            watch: watch.unwrap_or_else(|| Watch::new(path)),
            switch: None,
            tick: None,
            ended: false,
            switched: false,
        })
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

    /// Reads what the file holds now; false at its current end.
    fn fill(&mut self) -> io::Result<bool> {
        let n = loop {
            match self.file.read(&mut self.chunk) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            return Ok(false);
        }
        self.offset += n as u64;
        self.partial.extend_from_slice(&self.chunk[..n]);
        if let Some(i) = memchr::memrchr(b'\n', &self.partial) {
            let rest = self.partial.split_off(i + 1);
            self.ready = std::mem::replace(&mut self.partial, rest);
            self.ready_at = 0;
        }
        Ok(true)
    }

    /// The file is shorter than what was read: it was replaced or truncated, not appended to.
    fn shrunk(&self) -> bool {
        self.file.metadata().is_ok_and(|m| m.len() < self.offset)
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
                continue;
            }
            if self.switched {
                // A last line that never got its newline is handed on as it is: the file is
                // left for good, so it is cut.
                self.ready = std::mem::take(&mut self.partial);
                self.ready_at = 0;
                self.ended = true;
                continue;
            }
            if self.shrunk() {
                crate::diagnostics::Diagnostics::new(false).message(
                    &self.name,
                    "the file became shorter while followed (replaced or truncated); stopped \
                     following it",
                );
                self.ended = true;
                continue;
            }
            if let Some(tick) = self.tick.as_mut() {
                tick();
            }
            let seen = self.watch.wait();
            if let Some(switch) = self.switch.as_mut() {
                if switch.newer(&seen) {
                    self.switched = true;
                    continue;
                }
            }
            // Nothing new in this file: let the driver look beside it (sub-agent files) and
            // flush. Only whole lines were handed on, so the line reader holds no part of one.
            return Err(io::ErrorKind::WouldBlock.into());
        }
    }
}
