//! `--follow-all DIR`: every active session of a directory at once, one thread each, every
//! output line prefixed with a short session tag (or one page each with `-o DIR`).
//!
//! One watcher serves the whole directory tree: this thread receives its events and hands each
//! to the session its path names, so a session costs no watcher of its own (and its reader keeps
//! its file open only while it reads). A session is known by its canonical path: the same file
//! reached by two spellings (`./proj/s.jsonl` from the walk, `/home/me/proj/s.jsonl` from the
//! watcher) is followed once.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::time::SystemTime;

use anyhow::Result;
use foldhash::HashMap;

use super::super::Lane;
use super::super::pages::Index;
use super::super::watch::Watch;
use super::{ACTIVE, Followed, modified, one, target};
use crate::diagnostics::Diagnostics;
use crate::input;
use crate::settings::Settings;

/// What every session's thread shares.
struct Shared<'a> {
    settings: &'a Settings,
    stop: &'a AtomicBool,
    index: Option<&'a Mutex<Index>>,
    stdout: Mutex<io::Stdout>,
}

/// The sessions followed, each under every path it was reached by.
#[derive(Default)]
struct Sessions {
    /// A path (as given, or canonical) → the session's index in `wake`.
    by_path: HashMap<PathBuf, usize>,
    /// Where each session's reader hears of changes to its file (`None` when polling).
    wake: Vec<Option<Sender<PathBuf>>>,
}

impl Sessions {
    /// A session file not followed yet (its canonical path) when `path` names one; wakes the
    /// session's reader when it is followed already.
    fn route(&mut self, path: PathBuf) -> Option<PathBuf> {
        if let Some(&i) = self.by_path.get(&path) {
            self.wake_up(i, path);
            return None;
        }
        if !input::discover::could_be_session(&path) {
            return None;
        }
        let canonical = std::fs::canonicalize(&path).ok()?;
        if let Some(&i) = self.by_path.get(&canonical) {
            self.by_path.insert(path.clone(), i);
            self.wake_up(i, path);
            return None;
        }
        if !canonical.is_file() {
            return None;
        }
        self.by_path.insert(path, self.wake.len());
        self.by_path.insert(canonical.clone(), self.wake.len());
        self.wake.push(None);
        Some(canonical)
    }

    /// Hands `path` to session `i`'s reader.
    fn wake_up(&self, i: usize, path: PathBuf) {
        if let Some(Some(tx)) = self.wake.get(i) {
            // A session that ended has dropped its end: nothing to wake.
            let _ = tx.send(path);
        }
    }

    /// The watch of the session just added: fed from `events` when it is live.
    fn watch_for_last(&mut self, events: &Watch) -> Watch {
        if !events.is_live() {
            return Watch::polling();
        }
        let (tx, rx) = channel();
        if let Some(last) = self.wake.last_mut() {
            *last = Some(tx);
        }
        Watch::fed(rx)
    }
}

/// `--follow-all DIR`: every active session, one thread each.
pub(super) fn all(
    dir: &Path,
    settings: &Settings,
    stop: &AtomicBool,
    index: Option<&Mutex<Index>>,
) -> Result<bool> {
    let shared = Shared {
        settings,
        stop,
        index,
        stdout: Mutex::new(io::stdout()),
    };
    let now = SystemTime::now();
    let events = Watch::new(dir);
    let mut sessions = Sessions::default();
    let first: Vec<PathBuf> = input::discover::session_files(dir)
        .into_iter()
        .filter(|p| {
            modified(p)
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age <= ACTIVE)
        })
        .collect();
    if first.is_empty() {
        eprintln!(
            "scribe: {}: no session written in the last 10 minutes; waiting for one",
            super::shown(dir)
        );
    }
    std::thread::scope(|scope| {
        let shared = &shared;
        let start = |found: Vec<PathBuf>, sessions: &mut Sessions| {
            for p in found {
                if sessions.route(p.clone()).is_some() {
                    let watch = sessions.watch_for_last(&events);
                    scope.spawn(move || tagged(&p, watch, shared));
                }
            }
        };
        start(first, &mut sessions);
        while !stop.load(Ordering::Relaxed) {
            let seen = events.wait();
            let found = if events.is_live() {
                seen
            } else {
                input::discover::session_files(dir)
            };
            start(found, &mut sessions);
        }
    });
    Ok(false)
}

/// One session of `--follow-all`.
fn tagged(path: &Path, watch: Watch, shared: &Shared<'_>) {
    let settings = shared.settings;
    let mut lane = Lane::new(settings, Diagnostics::new(settings.strict), false);
    let mut out = BufWriter::with_capacity(
        64 * 1024,
        Tagged {
            tag: format!("[{}] ", tag(path)),
            pending: Vec::new(),
            out: &shared.stdout,
        },
    );
    let followed = Followed {
        path,
        watch,
        switch: None,
    };
    let target = target(settings, &mut out, shared.index);
    let r = one(followed, &mut lane.run(settings), shared.stop, target);
    let r = r.and_then(|_| Ok(out.flush()?));
    if let Err(e) = r {
        if !crate::exit::is_broken_pipe(&e) {
            crate::diagnostics::say(&crate::diagnostics::error_words(&e));
        }
    }
}

/// A short tag for a session file: the last 8 letters and digits of its name.
fn tag(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let chars: Vec<char> = stem.chars().filter(char::is_ascii_alphanumeric).collect();
    chars[chars.len().saturating_sub(8)..].iter().collect()
}

/// One session's output in `--follow-all`: whole lines, each prefixed with the session's tag,
/// written to the shared standard output one batch at a time.
struct Tagged<'a> {
    tag: String,
    pending: Vec<u8>,
    out: &'a Mutex<io::Stdout>,
}

impl Write for Tagged<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let Some(end) = memchr::memrchr(b'\n', &self.pending) else {
            return Ok(());
        };
        let mut text = Vec::with_capacity(end + 1 + self.tag.len() * 8);
        for line in self.pending[..=end].split_inclusive(|&b| b == b'\n') {
            text.extend_from_slice(self.tag.as_bytes());
            text.extend_from_slice(line);
        }
        self.pending.drain(..=end);
        let out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = out.lock();
        out.write_all(&text)?;
        out.flush()
    }
}

impl Drop for Tagged<'_> {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            self.pending.push(b'\n');
            let _ = self.flush();
        }
    }
}
