//! `scribe --follow`: one input (or a directory's sessions) read while it is written, through the
//! same `InputDriver` as a finished file; only the reader differs (`watch::FollowReader` waits
//! at the end of the file instead of ending).
//!
//! * `--follow FILE`: the file, to standard output or (with `-o DIR`) a page rewritten as it grows.
//! * `--follow DIR`: the most recently written session in DIR; when a newer session file appears,
//!   the current one is finished (its output closed) and the newer one is followed, after a
//!   separator line naming it. A session already followed in this run is not returned to.
//! * `--follow-all DIR`: every active session at once, one thread each, every output line
//!   prefixed with a short session tag (or one page each with `-o DIR`): `follow/all.rs`.
//!
//! A file rewritten while followed (replaced, truncated, or written again from its start:
//! `watch::FollowReader` tells) is read again from its start after a line that says so.
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
use super::{Lane, Run};
use crate::cli::OutputFormat;
use crate::diagnostics::Diagnostics;
use crate::exit;
use crate::input;
use crate::settings::Settings;

mod all;

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
        crate::diagnostics::say(&format!("{}: no such file or directory", input.display()));
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
        all::all(input, settings, &stop, index.as_ref())
    } else if dir_input {
        latest(input, settings, &stop, index.as_ref())
    } else {
        let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
        let mut lane = Lane::new(settings, Diagnostics::new(settings.strict), false);
        let followed = Followed {
            path: input,
            watch: Watch::new(input),
            switch: None,
        };
        let target = target(settings, &mut out, index.as_ref());
        let r = one(followed, &mut lane.run(settings), &stop, target);
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
    Out(&'a mut BufWriter<W>),
    /// A page in the output directory.
    Dir {
        dir: &'a Path,
        index: &'a Mutex<Index>,
    },
}

/// A page in `-o DIR` when there is one, else `out`.
fn target<'a, W: Write>(
    settings: &'a Settings,
    out: &'a mut BufWriter<W>,
    index: Option<&'a Mutex<Index>>,
) -> Target<'a, W> {
    match (settings.output_dir.as_deref(), index) {
        (Some(dir), Some(index)) => Target::Dir { dir, index },
        _ => Target::Out(out),
    }
}

/// How following one input ended.
#[derive(Default)]
struct Ended {
    /// A newer session took its place.
    switched: bool,
    /// It was abandoned as not JSON Lines.
    stopped: bool,
    /// The file was rewritten: it is to be read again from its start.
    rewritten: bool,
}

/// The file followed: where it is, what wakes its reader, and what may end it for a newer one.
struct Followed<'s> {
    path: &'s Path,
    watch: Watch,
    switch: Option<&'s mut dyn Switch>,
}

/// Follows one file until Ctrl-C (or until its `switch` finds a newer one); a file rewritten
/// while followed is read again from its start, after a line that says so.
fn one<W: Write>(
    mut followed: Followed<'_>,
    run: &mut Run<'_>,
    stop: &AtomicBool,
    mut target: Target<'_, W>,
) -> Result<Ended> {
    loop {
        let ended = once(&mut followed, run, stop, &mut target)?;
        if !ended.rewritten || ended.stopped || stop.load(Ordering::Relaxed) {
            return Ok(ended);
        }
        let line = format!(
            "{} was rewritten; reading it again from the start",
            shown(followed.path)
        );
        let out: Option<&mut dyn Write> = match &mut target {
            Target::Out(out) => Some(&mut **out),
            Target::Dir { .. } => None,
        };
        announce(&line, run.settings, out)?;
    }
}

/// Reads the file followed once, until Ctrl-C, a newer file, or a rewrite ends the reader.
fn once<W: Write>(
    followed: &mut Followed<'_>,
    run: &mut Run<'_>,
    stop: &AtomicBool,
    target: &mut Target<'_, W>,
) -> Result<Ended> {
    let settings = run.settings;
    let path = followed.path;
    let name = path.display().to_string();
    let opened = || {
        FollowReader::open(path, stop, &followed.watch)
            .with_context(|| format!("cannot read {name}"))
    };
    match target {
        Target::Out(out) => {
            let mut reader = opened()?;
            if let Some(s) = followed.switch.as_deref_mut() {
                reader = reader.with_switch(s);
            }
            // Follow mode prints no --stats account (the input has no end to account at).
            let rendered = run.convert(path, &mut reader, &mut **out)?;
            Ok(Ended {
                switched: reader.switched,
                stopped: rendered.stopped,
                rewritten: reader.rewritten,
            })
        }
        Target::Dir { dir, index } => {
            let page = RefCell::new(
                Page::new(
                    dir,
                    path,
                    settings.render_options(),
                    settings.transforms(),
                    Some(*index),
                )
                .following(),
            );
            let warned = std::cell::Cell::new(false);
            let tick = Box::new(|| {
                if let Err(e) = page.borrow_mut().write_due() {
                    if !warned.replace(true) {
                        crate::diagnostics::say(&crate::diagnostics::error_words(&e));
                    }
                }
            });
            let mut reader = opened()?.with_tick(tick);
            if let Some(s) = followed.switch.as_deref_mut() {
                reader = reader.with_switch(s);
            }
            let outcome = InputDriver::new(&name, path, settings.from)
                .following()
                .run(&mut reader, &mut SharedPage(&page), run.diag)?;
            let (switched, rewritten) = (reader.switched, reader.rewritten);
            drop(reader);
            // The last write: the whole session, without the reload tag.
            page.borrow_mut().write(&outcome.summary, false)?;
            Ok(Ended {
                switched,
                stopped: outcome.stopped,
                rewritten,
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
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut lane = Lane::new(settings, Diagnostics::new(settings.strict), false);
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
        let session = Followed {
            path: &current,
            watch: Watch::new(dir),
            switch: Some(&mut switch),
        };
        let target = target(settings, &mut out, index);
        let ended = one(session, &mut lane.run(settings), stop, target);
        let ended = match ended {
            Ok(e) => e,
            Err(e) if crate::exit::is_broken_pipe(&e) => return Err(e),
            Err(e) if e.downcast_ref::<StrictStop>().is_some() => return Err(e),
            // Said already; the next session is still followed.
            Err(e) if e.is::<NotALog>() => Ended {
                stopped: true,
                ..Ended::default()
            },
            Err(e) => {
                crate::diagnostics::say(&crate::diagnostics::error_words(&e));
                Ended::default()
            }
        };
        stopped |= ended.stopped;
        followed.insert(current.clone());
        let next = match switch.next {
            Some(next) if ended.switched => next,
            _ => break,
        };
        announce(
            &format!("now following {}", shown(&next)),
            settings,
            Some(&mut out),
        )?;
        current = next;
    }
    out.flush()?;
    Ok(stopped)
}

/// A path as a message shows it (made safe for a terminal).
pub(super) fn shown(path: &Path) -> String {
    crate::sanitize::sanitize(&path.display().to_string()).into_owned()
}

/// A line that says where the output comes from now (another session, or the file read again):
/// in the output for text and Markdown on standard output, else on standard error (a JSON
/// record stream's header record names the file; a page is rewritten whole).
fn announce(line: &str, settings: &Settings, out: Option<&mut dyn Write>) -> Result<()> {
    match (settings.to, &settings.output_dir, out) {
        (OutputFormat::Text | OutputFormat::Md, None, Some(out)) => {
            writeln!(out, "\n──── {line} ────\n")?;
            out.flush()?;
        }
        _ => crate::diagnostics::say(line),
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
            eprintln!("scribe: {}: no session yet; waiting for one", shown(dir));
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
