//! The names of `--output-dir` files: `<sessionId>.<ext>`, else the input's own name, made a
//! safe file name, never given twice in a run (a `-2`, `-3`, … suffix).
//!
//! Most formats name an input's file when it is placed, in input order. A format that writes
//! files beside an input's own (ATIF's sub-agent trajectories, `<stem>.<id>….<ext>`) must know
//! the input's stem while it renders: then each input takes its name as soon as its session is
//! known (its first session snapshot), when the renderer asks, or at its end, whichever comes
//! first, after every input before it has taken its own (or failed), so that names follow the
//! inputs' order however many inputs render side by side. An input never waits for a later one,
//! so the wait always ends. Such a stem has no `.` (it becomes `_`), nor has any other part of
//! the names of the files beside it: they never take a name of another input's.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use foldhash::HashSet;
use tempfile::TempPath;

use crate::render::Beside;
use crate::settings::Settings;

/// The names of one run's `--output-dir` files, shared by the threads that render its inputs.
pub(super) struct Names {
    dir: PathBuf,
    ext: &'static str,
    redact: bool,
    /// The format writes files beside an input's own: names are taken while inputs render.
    beside: bool,
    book: Mutex<Book>,
    /// Signalled when an input's name is settled (or the run stops).
    turn: Condvar,
}

/// The names taken so far, and (files beside) whose turn it is to take one.
#[derive(Default)]
struct Book {
    written: HashSet<PathBuf>,
    /// Files beside: the first input whose name is not settled yet…
    next: usize,
    /// … and the inputs after it whose name is.
    settled: BTreeSet<usize>,
    /// The run stopped: nobody waits for a turn any more.
    closed: bool,
}

impl Names {
    /// The names of the files a run writes into `dir`; `beside`: the renderer writes files
    /// beside each input's own ([`crate::render::Render::writes_beside`]).
    pub(super) fn new(dir: &Path, settings: &Settings, beside: bool) -> Names {
        Names {
            dir: dir.to_owned(),
            ext: settings.to.extension(),
            redact: settings.redact,
            beside,
            book: Mutex::new(Book::default()),
            turn: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Book> {
        self.book.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes `path` as it is (a page kept from an earlier run, the HTML index).
    pub(super) fn reserve(&self, path: PathBuf) {
        self.lock().written.insert(path);
    }

    /// The file for an input named now (when it is placed): `key` is the first session id its
    /// transcript named.
    pub(super) fn take(&self, key: Option<&str>, input: &Path) -> PathBuf {
        self.take_in(&mut self.lock(), key, input).1
    }

    /// The stem and the file of an input, taken in `book`: the session id, else the input's own
    /// name, made a safe file name (`output_file::stem_for`: with `--redact`, a name that holds a
    /// secret is replaced by `session-<hash>`; with files beside it, without a `.`), with a
    /// suffix if the name is taken.
    fn take_in(&self, book: &mut Book, key: Option<&str>, input: &Path) -> (String, PathBuf) {
        let stem_for = |name: &str| crate::output_file::stem_for(name, self.redact);
        let stem = key
            .and_then(stem_for)
            .or_else(|| {
                input
                    .file_stem()
                    .map(|s| s.to_string_lossy())
                    .filter(|s| s != "-")
                    .and_then(|s| stem_for(&s))
            })
            .unwrap_or_else(|| "stdin".to_owned());
        let stem = if self.beside {
            stem.replace('.', "_")
        } else {
            stem
        };
        let mut n = 1;
        loop {
            let candidate = match n {
                1 => stem.clone(),
                _ => format!("{stem}-{n}"),
            };
            let target = self.dir.join(format!("{candidate}.{}", self.ext));
            if book.written.insert(target.clone()) {
                return (candidate, target);
            }
            n += 1;
        }
    }

    /// Input `index`'s name, taken while it renders when its files have others beside them;
    /// `None` for the formats whose files are named when placed.
    pub(super) fn ticket(self: &Arc<Self>, index: usize, input: &Path) -> Option<Arc<InputName>> {
        self.beside.then(|| {
            Arc::new(InputName {
                names: Arc::clone(self),
                index,
                input: input.to_owned(),
                state: Mutex::new(NameState::default()),
            })
        })
    }

    /// Input `index` has its name, or will have none: the next input's turn may come.
    fn settle(&self, book: &mut Book, index: usize) {
        book.settled.insert(index);
        while book.settled.remove(&book.next) {
            book.next += 1;
        }
        self.turn.notify_all();
    }

    /// The run stopped: an input waiting for its turn to be named gives up.
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.turn.notify_all();
    }
}

/// One input's name when its files have others beside them: taken once, in its turn.
pub(super) struct InputName {
    names: Arc<Names>,
    index: usize,
    input: PathBuf,
    state: Mutex<NameState>,
}

/// An input's name and the files written beside it so far.
#[derive(Default)]
struct NameState {
    /// The stem and the file, once taken.
    named: Option<(String, PathBuf)>,
    beside: Vec<(TempPath, PathBuf)>,
    settled: bool,
}

/// An input's file as it was named while it rendered, and the files written beside it (each a
/// temporary file in the directory and the name it goes to): installed together when the input
/// is placed, or removed when dropped.
#[derive(Debug)]
pub(super) struct Named {
    pub(super) target: PathBuf,
    pub(super) beside: Vec<(TempPath, PathBuf)>,
}

impl InputName {
    fn state(&self) -> MutexGuard<'_, NameState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the input's name from `key` (its first session id; `None`: its file name) unless
    /// it has one, once every input before it has settled its own; returns its stem.
    pub(super) fn fix(&self, key: Option<&str>) -> io::Result<String> {
        let mut state = self.state();
        if let Some((stem, _)) = &state.named {
            return Ok(stem.clone());
        }
        let names = &self.names;
        let mut book = names.lock();
        while book.next < self.index && !book.closed {
            book = names
                .turn
                .wait(book)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if book.next < self.index {
            return Err(io::Error::other(
                "the run stopped before this input's file was named",
            ));
        }
        let (stem, target) = names.take_in(&mut book, key, &self.input);
        names.settle(&mut book, self.index);
        state.settled = true;
        state.named = Some((stem.clone(), target));
        Ok(stem)
    }

    /// The input is done: if it took no name (it failed), the next input's turn comes anyway.
    pub(super) fn settle(&self) {
        let mut state = self.state();
        if !state.settled {
            state.settled = true;
            self.names.settle(&mut self.names.lock(), self.index);
        }
    }

    /// The input's file and the files beside it, once it is named.
    pub(super) fn take_named(&self) -> Option<Named> {
        let mut state = self.state();
        let target = state.named.as_ref()?.1.clone();
        Some(Named {
            target,
            beside: std::mem::take(&mut state.beside),
        })
    }
}

impl Drop for InputName {
    fn drop(&mut self) {
        self.settle();
    }
}

/// What a renderer writes beside an input's file goes through its name (`Beside`).
pub(super) struct BesideFiles(pub(super) Arc<InputName>);

impl Beside for BesideFiles {
    fn stem(&mut self) -> io::Result<String> {
        self.0.fix(None)
    }

    fn write(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let plain = !name.starts_with('.')
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !plain {
            return Err(io::Error::other(format!(
                "{name:?} is not a plain file name"
            )));
        }
        let dir = &self.0.names.dir;
        std::fs::create_dir_all(dir)?;
        let mut temp = crate::output_file::temp_in(dir).map_err(io::Error::other)?;
        temp.write_all(bytes)?;
        let temp = crate::output_file::finished(temp).map_err(io::Error::other)?;
        self.0.state().beside.push((temp, dir.join(name)));
        Ok(())
    }
}
