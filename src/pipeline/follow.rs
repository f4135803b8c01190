//! `scribe --follow`: one input (or a directory's sessions) read while it is written, through the
//! same `InputDriver` as a finished file; only the reader differs (`watch::FollowReader` waits
//! at the end of the file instead of ending).
//!
//! * `--follow FILE`: the file, to standard output or (with `-o DIR`) a page rewritten as it grows.
//! * `--follow DIR`: the most recently written session in DIR; when a newer session file appears,
//!   the current one is finished (its output closed) and the newer one is followed, after a
//!   separator line naming it. A session already followed in this run is not returned to.
//! * `--follow-all DIR`: every active session at once, one thread each, every output line
//!   prefixed with a short session tag (or one page each with `-o DIR`).
//!
//! Ctrl-C sets a flag (SIGINT is caught only in follow mode): each reader returns end of file,
//! so every adapter, the fold and the renderer finish as at the end of a file (an HTML page is
//! closed, pending records are written), and the run exits 130.

use foldhash::HashSet;
use std::cell::RefCell;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};

use super::driver::{InputDriver, NotALog, StrictStop};
use super::pages::{Index, Page, SharedPage};
use super::watch::{FollowReader, Switch, Watch};
use crate::cli::OutputFormat;
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::input;
use crate::render::{self, Render};
use crate::settings::Settings;

/// The exit status after Ctrl-C (128 + SIGINT), as a shell reports a job it interrupted.
pub(crate) const INTERRUPTED: u8 = 130;
/// `--follow-all` starts with the sessions written this recently.
const ACTIVE: Duration = Duration::from_secs(10 * 60);
/// A directory is scanned for a newer session at most this often.
const SCAN_EVERY: Duration = Duration::from_millis(500);
/// …and at least this often, even without a file-system event (when polling).
const SCAN_ANYWAY: Duration = Duration::from_secs(2);

/// Runs `scribe --follow`; returns the exit status.
pub(crate) fn run(settings: &Settings) -> Result<u8> {
    let [input] = settings.inputs.as_slice() else {
        eprintln!("scribe: --follow takes one file or directory");
        return Ok(exit::TROUBLE);
    };
    if input.as_os_str() == "-" {
        eprintln!(
            "scribe: --follow needs a file or a directory (standard input is read as it comes \
             without it)"
        );
        return Ok(exit::TROUBLE);
    }
    if !input.exists() {
        eprintln!("scribe: {}: no such file or directory", input.display());
        return Ok(exit::TROUBLE);
    }
    let dir_input = input.is_dir();
    if settings.follow_all && !dir_input {
        eprintln!("scribe: --follow-all follows the sessions of a directory: give a directory");
        return Ok(exit::TROUBLE);
    }
    if settings.to == OutputFormat::Html && settings.output_dir.is_none() && dir_input {
        eprintln!(
            "scribe: --follow DIR --to html writes one page per session: use --output-dir DIR"
        );
        return Ok(exit::TROUBLE);
    }
    if let Some(dir) = &settings.output_dir {
        if super::output_dir_is_a_file(dir) {
            return Ok(exit::TROUBLE);
        }
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    crate::CTRL_C_EXITS.store(false, Ordering::SeqCst);
    signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&stop))
        .context("cannot catch Ctrl-C")?;
    let index = settings
        .output_dir
        .as_deref()
        .map(|d| Mutex::new(Index::load(d)));
    let ended = if settings.follow_all {
        all(input, settings, &stop, index.as_ref())
    } else if dir_input {
        latest(input, settings, &stop, index.as_ref())
    } else {
        let stdout = io::stdout().lock();
        let mut out = BufWriter::with_capacity(64 * 1024, stdout);
        let mut renderer = render::renderer_for(&settings.render_options());
        let mut diag = Diagnostics::new(settings.strict);
        let target = target(settings, &mut out, renderer.as_mut(), index.as_ref());
        let r = one(
            Followed {
                path: input,
                watch: Watch::new(input),
                switch: None,
            },
            settings,
            &stop,
            target,
            &mut diag,
        );
        out.flush()?;
        r.map(|e| e.stopped)
    };
    match ended {
        Ok(_) if stop.load(Ordering::Relaxed) => Ok(INTERRUPTED),
        Ok(true) => Ok(exit::INPUT_ERROR),
        Ok(false) => Ok(exit::SUCCESS),
        Err(e) if e.downcast_ref::<StrictStop>().is_some() || e.is::<NotALog>() => {
            Ok(exit::INPUT_ERROR)
        }
        Err(e) => Err(e),
    }
}

/// Where one followed input goes.
enum Target<'a, W: Write> {
    /// A stream of output (standard output, or one session's tagged lines).
    Out {
        out: &'a mut BufWriter<W>,
        renderer: &'a mut dyn Render,
    },
    /// A page in the output directory.
    Dir {
        dir: &'a Path,
        index: &'a Mutex<Index>,
    },
}

fn target<'a, W: Write>(
    settings: &'a Settings,
    out: &'a mut BufWriter<W>,
    renderer: &'a mut dyn Render,
    index: Option<&'a Mutex<Index>>,
) -> Target<'a, W> {
    match (settings.output_dir.as_deref(), index) {
        (Some(dir), Some(index)) => Target::Dir { dir, index },
        _ => Target::Out { out, renderer },
    }
}

/// How following one input ended.
struct Ended {
    /// A newer session took its place.
    switched: bool,
    /// It was abandoned as not JSON Lines.
    stopped: bool,
}

/// The file followed: where it is, what wakes its reader, and what may end it for a newer one.
struct Followed<'s> {
    path: &'s Path,
    watch: Watch,
    switch: Option<&'s mut dyn Switch>,
}

/// Follows one file until Ctrl-C (or until its `switch` finds a newer one).
fn one<W: Write>(
    followed: Followed<'_>,
    settings: &Settings,
    stop: &AtomicBool,
    target: Target<'_, W>,
    diag: &mut Diagnostics,
) -> Result<Ended> {
    let Followed {
        path,
        watch,
        switch,
    } = followed;
    let name = path.display().to_string();
    match target {
        Target::Out { out, renderer } => {
            let mut reader = FollowReader::open(path, stop, Some(watch))
                .with_context(|| format!("cannot read {name}"))?;
            if let Some(s) = switch {
                reader = reader.with_switch(s);
            }
            // Follow mode prints no --stats account (the input has no end to account at).
            let mut stats = crate::stats::Stats::default();
            let mut run = super::Run {
                settings,
                renderer,
                diag,
                stats: &mut stats,
                decode_thread: false,
            };
            let rendered = run.convert(path, &mut reader, out)?;
            Ok(Ended {
                switched: reader.switched,
                stopped: rendered.stopped,
            })
        }
        Target::Dir { dir, index } => {
            let page = RefCell::new(
                Page::new(
                    dir,
                    path,
                    settings.render_options(),
                    settings.transforms(),
                    Some(index),
                )
                .following(),
            );
            let warned = std::cell::Cell::new(false);
            let tick = Box::new(|| {
                if let Err(e) = page.borrow_mut().write_due() {
                    if !warned.replace(true) {
                        eprintln!("scribe: {}", crate::diagnostics::error_words(&e));
                    }
                }
            });
            let mut reader = FollowReader::open(path, stop, Some(watch))
                .with_context(|| format!("cannot read {name}"))?
                .with_tick(tick);
            if let Some(s) = switch {
                reader = reader.with_switch(s);
            }
            let outcome = InputDriver::new(&name, path, settings.from)
                .following()
                .run(&mut reader, &mut SharedPage(&page), diag)?;
            let switched = reader.switched;
            drop(reader);
            // The last write: the whole session, without the reload tag.
            page.borrow_mut().write(&outcome.summary, false)?;
            Ok(Ended {
                switched,
                stopped: outcome.stopped,
            })
        }
    }
}

/// `--follow DIR`: the newest session, then each newer one.
fn latest(
    dir: &Path,
    settings: &Settings,
    stop: &AtomicBool,
    index: Option<&Mutex<Index>>,
) -> Result<bool> {
    let stdout = io::stdout().lock();
    let mut out = BufWriter::with_capacity(64 * 1024, stdout);
    let mut renderer = render::renderer_for(&settings.render_options());
    let mut diag = Diagnostics::new(settings.strict);
    let mut followed: HashSet<PathBuf> = HashSet::default();
    let mut stopped = false;
    let Some(mut current) = wait_for_session(dir, stop, &followed) else {
        return Ok(false);
    };
    loop {
        let mut switch = Latest {
            dir: dir.to_owned(),
            current: current.clone(),
            followed: followed.clone(),
            next: None,
            last_scan: Instant::now(),
        };
        let target = target(settings, &mut out, renderer.as_mut(), index);
        let ended = one(
            Followed {
                path: &current,
                watch: Watch::new(dir),
                switch: Some(&mut switch),
            },
            settings,
            stop,
            target,
            &mut diag,
        );
        let ended = match ended {
            Ok(e) => e,
            Err(e) if crate::exit::is_broken_pipe(&e) => return Err(e),
            Err(e) if e.downcast_ref::<StrictStop>().is_some() => return Err(e),
            // Said already; the next session is still followed.
            Err(e) if e.is::<NotALog>() => Ended {
                switched: false,
                stopped: true,
            },
            Err(e) => {
                eprintln!("scribe: {}", crate::diagnostics::error_words(&e));
                Ended {
                    switched: false,
                    stopped: false,
                }
            }
        };
        stopped |= ended.stopped;
        followed.insert(current.clone());
        let next = match switch.next {
            Some(next) if ended.switched => next,
            _ => break,
        };
        separator(&next, settings, &mut out)?;
        current = next;
    }
    out.flush()?;
    Ok(stopped)
}

/// The line that says the output now comes from another session.
fn separator(next: &Path, settings: &Settings, out: &mut impl Write) -> Result<()> {
    let shown = next.display().to_string();
    let name = crate::sanitize::sanitize(&shown);
    match (settings.to, &settings.output_dir) {
        (OutputFormat::Text | OutputFormat::Md, None) => {
            writeln!(out, "\n──── now following {name} ────\n")?;
            out.flush()?;
        }
        _ => eprintln!("scribe: now following {name}"),
    }
    Ok(())
}

/// The newest session file in `dir` (waiting for one to appear), not one of `skip`.
fn wait_for_session(dir: &Path, stop: &AtomicBool, skip: &HashSet<PathBuf>) -> Option<PathBuf> {
    let watch = Watch::new(dir);
    let mut said = false;
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if let Some((p, _)) = newest(dir, skip) {
            return Some(p);
        }
        if !said {
            eprintln!(
                "scribe: {}: no session yet; waiting for one",
                crate::sanitize::sanitize(&dir.display().to_string())
            );
            said = true;
        }
        watch.wait();
    }
}

/// The most recently written session file under `dir`, other than `skip`.
fn newest(dir: &Path, skip: &HashSet<PathBuf>) -> Option<(PathBuf, SystemTime)> {
    input::discover::session_files(dir)
        .into_iter()
        .filter(|p| !skip.contains(p))
        .filter_map(|p: PathBuf| Some((modified(&p)?, p)))
        .max()
        .map(|(t, p)| (p, t))
}

fn modified(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// `--follow DIR`'s switch: a session written after the current one.
struct Latest {
    dir: PathBuf,
    current: PathBuf,
    followed: HashSet<PathBuf>,
    next: Option<PathBuf>,
    last_scan: Instant,
}

impl Switch for Latest {
    fn newer(&mut self, seen: &[PathBuf]) -> bool {
        let hint = seen.iter().any(|p| {
            *p != self.current && input::discover::could_be_session(p) && !self.followed.contains(p)
        });
        let since = self.last_scan.elapsed();
        if !(hint && since >= SCAN_EVERY || since >= SCAN_ANYWAY) {
            return false;
        }
        self.last_scan = Instant::now();
        let mut skip = self.followed.clone();
        skip.insert(self.current.clone());
        let Some((p, t)) = newest(&self.dir, &skip) else {
            return false;
        };
        if modified(&self.current).is_some_and(|cur| t > cur) {
            self.next = Some(p);
            return true;
        }
        false
    }
}

/// `--follow-all DIR`: every active session, one thread each.
fn all(
    dir: &Path,
    settings: &Settings,
    stop: &AtomicBool,
    index: Option<&Mutex<Index>>,
) -> Result<bool> {
    let shared = Mutex::new(io::stdout());
    let now = SystemTime::now();
    let watch = Watch::new(dir);
    let mut started: HashSet<PathBuf> = HashSet::default();
    let mut first: Vec<PathBuf> = input::discover::session_files(dir)
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
            crate::sanitize::sanitize(&dir.display().to_string())
        );
    }
    std::thread::scope(|scope| {
        let shared = &shared;
        let spawn = |path: PathBuf| {
            scope.spawn(move || tagged(&path, settings, stop, index, shared));
        };
        for p in first.drain(..) {
            started.insert(p.clone());
            spawn(p);
        }
        while !stop.load(Ordering::Relaxed) {
            let seen = watch.wait();
            let fresh: Vec<PathBuf> = if watch.is_live() {
                seen.into_iter()
                    .filter(|p| input::discover::could_be_session(p) && p.is_file())
                    .collect()
            } else {
                input::discover::session_files(dir)
            };
            for p in fresh {
                if started.insert(p.clone()) {
                    spawn(p);
                }
            }
        }
    });
    Ok(false)
}

/// One session of `--follow-all`.
fn tagged(
    path: &Path,
    settings: &Settings,
    stop: &AtomicBool,
    index: Option<&Mutex<Index>>,
    shared: &Mutex<io::Stdout>,
) {
    let mut diag = Diagnostics::new(settings.strict);
    let mut renderer = render::renderer_for(&settings.render_options());
    let mut out = BufWriter::with_capacity(
        64 * 1024,
        Tagged {
            tag: format!("[{}] ", tag(path)),
            pending: Vec::new(),
            out: shared,
        },
    );
    let target = target(settings, &mut out, renderer.as_mut(), index);
    let r = one(
        Followed {
            path,
            watch: Watch::new(path),
            switch: None,
        },
        settings,
        stop,
        target,
        &mut diag,
    );
    let r = r.and_then(|_| Ok(out.flush()?));
    if let Err(e) = r {
        if !crate::exit::is_broken_pipe(&e) {
            eprintln!("scribe: {}", crate::diagnostics::error_words(&e));
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
