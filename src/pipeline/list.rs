//! `scribe ls`, `scribe last`, and what a bare `scribe` on a terminal prints: the saved sessions
//! of every agent in their default places (`input::discover::saved_sessions`), each read once
//! through the ordinary driver into a [`Tally`] (the row an `-o DIR` index keeps: title, first
//! prompt, project, times, turns, calls) with nothing rendered.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Result;
use jiff::Timestamp;
use rayon::prelude::*;
use serde::Serialize;

use super::{Run, exit};
use crate::cli::{Cli, ConvertArgs, LastArgs, ListFormat, LsArgs, PickArgs};
use crate::diagnostics::Diagnostics;
use crate::input::agent::Agent;
use crate::input::{discover, registry};
use crate::model::Header;
use crate::model::transcript::TranscriptItem;
use crate::render::ansi::layout::{one_line, truncate as cut};
use crate::render::html::index::{IndexRow, Tally};
use crate::render::{Render, Summary};
use crate::settings::Settings;
use crate::stats::Stats;

/// How many sessions a bare `scribe` on a terminal lists.
const GREETING_SESSIONS: usize = 5;

/// A saved session as `scribe ls` lists it.
#[derive(Debug, Serialize)]
struct Listed {
    /// The agent that wrote it.
    agent: &'static str,
    /// The format it was read as (`claude-session`, `codex-rollout`, …).
    format: String,
    path: PathBuf,
    /// The session's working directory, when it says.
    project: Option<String>,
    /// The agent's own title for it, else the first prompt typed.
    title: Option<String>,
    /// The first and last timestamps in it.
    started: Option<String>,
    ended: Option<String>,
    /// When the file was last written (RFC 3339).
    modified: String,
    turns: u64,
    tool_calls: u64,
    bytes: u64,
    model: Option<String>,
    /// Newest first is by this.
    #[serde(skip)]
    modified_at: SystemTime,
}

/// Parses `--since`: a time, a date (midnight UTC) or a span back from now (`3d`, `12h`,
/// `2 weeks`; a day is 24 hours).
pub(crate) fn parse_since(text: &str) -> Result<Timestamp, String> {
    if let Ok(t) = text.parse::<Timestamp>() {
        return Ok(t);
    }
    if let Ok(d) = text.parse::<jiff::civil::Date>() {
        return format!("{d}T00:00:00Z")
            .parse::<Timestamp>()
            .map_err(|e| e.to_string());
    }
    let span: jiff::Span = text.parse().map_err(|_| {
        "not a time (2026-12-01T09:00:00Z), a date (2026-12-01) or a span (3d, 12h)".to_owned()
    })?;
    let back = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .map_err(|e| e.to_string())?;
    Timestamp::now()
        .checked_sub(back.abs())
        .map_err(|e| e.to_string())
}

/// `scribe ls`: prints the sessions that match, newest first.
pub(crate) fn ls(cli: &Cli, args: &LsArgs) -> Result<u8> {
    let here = args.here.then(current_dir).flatten();
    let mut sessions = matching(cli, &args.pick, here.as_deref());
    if let Some(n) = args.limit {
        sessions.truncate(n);
    }
    let mut out = BufWriter::new(io::stdout().lock());
    match args.to {
        ListFormat::Jsonl => {
            let mut line = crate::render::JsonLine::default();
            for s in &sessions {
                line.write(&mut out, s)?;
            }
        }
        ListFormat::Text => write_lines(&mut out, &sessions)?,
    }
    out.flush()?;
    if sessions.is_empty() {
        crate::diagnostics::say(&nothing_found(&args.pick));
    }
    Ok(exit::SUCCESS)
}

/// `scribe last`: converts the newest session that matches, with the conversion's options.
pub(crate) fn last(cli: &Cli, args: &LastArgs) -> Result<u8> {
    let here = if args.all || args.pick.project.is_some() {
        None
    } else {
        current_dir()
    };
    let Some(newest) = matching(cli, &args.pick, here.as_deref())
        .into_iter()
        .next()
    else {
        let mut words = nothing_found(&args.pick);
        if let Some(dir) = &here {
            words = format!(
                "no saved session of {} or a directory above it (scribe last --all takes the \
                 newest of any project)",
                dir.display()
            );
        }
        crate::diagnostics::say(&words);
        return Ok(exit::INPUT_ERROR);
    };
    let settings = Settings::resolve_for(cli, &args.convert, &[newest.path]);
    super::convert(&settings)
}

/// A bare `scribe` with a terminal for input: instead of waiting for a stream nobody is typing,
/// how to use it and the latest sessions.
pub(crate) fn greet(cli: &Cli) -> Result<u8> {
    let sessions = matching(cli, &PickArgs::default(), None);
    let mut out = BufWriter::new(io::stdout().lock());
    writeln!(
        out,
        "scribe reads a coding agent's log: pipe one in (claude -p … --output-format stream-json \
         --verbose | scribe) or name files.\n  scribe FILE          read a saved session\n  \
         scribe last          the newest session of this directory's project\n  scribe ls            \
         every saved session\n  scribe --help        every option"
    )?;
    if !sessions.is_empty() {
        writeln!(out, "\nLatest sessions:")?;
        write_lines(&mut out, &sessions[..sessions.len().min(GREETING_SESSIONS)])?;
    }
    out.flush()?;
    Ok(exit::SUCCESS)
}

/// The words for an empty list: where scribe looked.
fn nothing_found(pick: &PickArgs) -> String {
    let places: Vec<String> = registry::agents()
        .filter(|a| pick.agent.as_deref().is_none_or(|n| a.name == n))
        .flat_map(|a| (a.discovery.homes)())
        .map(|p| p.display().to_string())
        .collect();
    format!("no saved sessions found (looked in {})", places.join(", "))
}

/// The working directory, as sessions record theirs.
fn current_dir() -> Option<PathBuf> {
    let dir = std::env::current_dir().ok()?;
    Some(dir.canonicalize().unwrap_or(dir))
}

/// The saved sessions that pass `pick` (and, with `here`, whose project is `here` or a
/// directory above it), newest first.
fn matching(cli: &Cli, pick: &PickArgs, here: Option<&Path>) -> Vec<Listed> {
    let since = pick.since.map(system_time);
    let mut found: Vec<(&'static Agent, PathBuf, std::fs::Metadata)> =
        discover::saved_sessions(pick.agent.as_deref())
            .into_iter()
            .filter_map(|(a, p)| std::fs::metadata(&p).ok().map(|m| (a, p, m)))
            // A session that started after `since` was written after it too.
            .filter(|(_, _, m)| since.is_none_or(|s| m.modified().is_ok_and(|t| t >= s)))
            .collect();
    found.sort_by_key(|(_, p, m)| (std::cmp::Reverse(m.modified().ok()), p.clone()));
    let settings = Settings::resolve_for(cli, &ConvertArgs::default(), &[]);
    let project = pick
        .project
        .as_ref()
        .map(|p| p.canonicalize().unwrap_or(p.clone()));
    let mut listed: Vec<Listed> = found
        .into_par_iter()
        .filter_map(|(agent, path, meta)| summarise(&settings, agent, path, &meta))
        .filter(|l| pick.since.is_none_or(|s| started_since(l, s)))
        .filter(|l| project.as_deref().is_none_or(|d| project_within(l, d)))
        .filter(|l| here.is_none_or(|d| project_above(l, d)))
        .collect();
    listed.sort_by_key(|l| std::cmp::Reverse(l.modified_at));
    listed
}

/// Whether a session started at or after `since` (one with no times: by its file's time).
fn started_since(l: &Listed, since: Timestamp) -> bool {
    match l
        .started
        .as_deref()
        .and_then(|s| s.parse::<Timestamp>().ok())
    {
        Some(t) => t >= since,
        None => l.modified_at >= system_time(since),
    }
}

/// A timestamp as the file system's clock gives times (before 1970: 1970).
fn system_time(t: Timestamp) -> SystemTime {
    let secs = u64::try_from(t.as_second()).unwrap_or(0);
    SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs)
}

/// The session's project is `dir` or a directory inside it.
fn project_within(l: &Listed, dir: &Path) -> bool {
    l.project
        .as_deref()
        .is_some_and(|p| Path::new(p).starts_with(dir))
}

/// The session's project is `dir` or a directory above it (`dir` lies inside the project).
fn project_above(l: &Listed, dir: &Path) -> bool {
    l.project.as_deref().is_some_and(|p| dir.starts_with(p))
}

/// Reads one session to its end, rendering nothing, for its listing; `None` when it cannot be
/// read.
fn summarise(
    settings: &Settings,
    agent: &'static Agent,
    path: PathBuf,
    meta: &std::fs::Metadata,
) -> Option<Listed> {
    let file = std::fs::File::open(&path).ok()?;
    let mut nothing = NoOutput;
    let mut tally = Tally::new(&mut nothing);
    let mut diag = Diagnostics::new(false).quiet();
    let mut stats = Stats::default();
    let mut run = Run {
        settings,
        renderer: &mut tally,
        diag: &mut diag,
        stats: &mut stats,
        decode_thread: false,
        name: None,
    };
    let mut sink = BufWriter::new(io::sink());
    run.convert(&path, file, &mut sink).ok()?;
    let row = tally.row;
    let modified_at = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    Some(listed(agent, path, row, meta.len(), modified_at))
}

/// A listing from an index row.
fn listed(
    home_agent: &'static Agent,
    path: PathBuf,
    row: IndexRow,
    bytes: u64,
    modified_at: SystemTime,
) -> Listed {
    let agent = registry::agent_of_format(&row.source).unwrap_or(home_agent);
    Listed {
        agent: agent.name,
        format: row.source,
        path,
        project: row.project,
        title: row.title.or(row.first_prompt),
        started: row.date,
        ended: row.end,
        modified: Timestamp::try_from(modified_at)
            .map(|t| t.to_string())
            .unwrap_or_default(),
        turns: row.counts.turns,
        tool_calls: row.counts.calls,
        bytes,
        model: row.model,
        modified_at,
    }
}

/// One line per session: when, agent, turns, size, project, title, in aligned columns.
fn write_lines(out: &mut dyn Write, sessions: &[Listed]) -> io::Result<()> {
    /// The widest a project column grows; a longer project is cut.
    const PROJECT_MAX: usize = 40;
    let home = crate::input::agent::home();
    let width = if io::stdout().is_terminal() {
        terminal_size::terminal_size().map_or(100, |(w, _)| usize::from(w.0))
    } else {
        usize::MAX
    };
    let projects: Vec<String> = sessions
        .iter()
        .map(|s| {
            let p = s
                .project
                .as_deref()
                .map_or_else(String::new, |p| home_short(p, home.as_deref()));
            cut(&crate::sanitize::sanitize(&p), PROJECT_MAX)
        })
        .collect();
    let project_width = projects
        .iter()
        .map(|p| p.chars().count())
        .max()
        .unwrap_or(0);
    for (s, project) in sessions.iter().zip(&projects) {
        let when = s
            .started
            .as_deref()
            .unwrap_or(&s.modified)
            .get(..16)
            .unwrap_or_default()
            .replace('T', " ");
        let title = s.title.as_deref().unwrap_or("(no prompt)");
        let line = format!(
            "{when:16}  {:6}  {:>4} turns  {:>8}  {project:project_width$}  {}",
            s.agent,
            s.turns,
            size_words(s.bytes),
            crate::sanitize::sanitize(&one_line(title))
        );
        writeln!(out, "{}", cut(&line, width))?;
    }
    Ok(())
}

/// A path with the home directory as `~`.
fn home_short(path: &str, home: Option<&Path>) -> String {
    match home.and_then(|h| Path::new(path).strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.to_owned(),
    }
}

/// `812 B`, `4.1 KB`, `12.0 MB`.
fn size_words(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1000.0;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// A renderer that writes nothing: the [`Tally`] around it is what a listing reads.
struct NoOutput;

impl Render for NoOutput {
    fn begin(&mut self, _out: &mut dyn Write, _header: &Header) -> io::Result<()> {
        Ok(())
    }

    fn stands_alone(&self) -> bool {
        true
    }

    fn item(&mut self, _out: &mut dyn Write, _item: &TranscriptItem) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, _out: &mut dyn Write, _summary: &Summary) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_times_dates_and_spans() {
        assert_eq!(
            parse_since("2026-12-01").unwrap().to_string(),
            "2026-12-01T00:00:00Z"
        );
        assert_eq!(
            parse_since("2026-12-01T09:30:00Z").unwrap().to_string(),
            "2026-12-01T09:30:00Z"
        );
        let three_days = parse_since("3d").unwrap();
        let back = Timestamp::now().duration_since(three_days);
        assert!((back.as_secs() - 3 * 86_400).abs() < 60, "{back:?}");
        assert!(parse_since("yesterday-ish").is_err());
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_words(812), "812 B");
        assert_eq!(size_words(4_100), "4.1 KB");
        assert_eq!(size_words(12_000_000), "12.0 MB");
    }

    #[test]
    fn home_becomes_a_tilde() {
        let home = Path::new("/home/me");
        assert_eq!(home_short("/home/me/app", Some(home)), "~/app");
        assert_eq!(home_short("/home/me", Some(home)), "~");
        assert_eq!(home_short("/srv/app", Some(home)), "/srv/app");
    }
}
