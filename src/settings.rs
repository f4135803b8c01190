//! Resolves the raw command line into decisions, once. Nothing after this reads the environment
//! or asks whether a stream is a terminal.

use std::ffi::{OsStr, OsString};
use std::io::IsTerminal;
use std::path::PathBuf;

use crate::cli::{Cli, ColorWhen, ConvertArgs, OutputFormat, Paging, SourceFormat, StableMode};
use crate::render::RenderOptions;
use crate::transform::Transforms;

/// Everything the pipeline and the renderers need to know about this run.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// Inputs in order; `-` is standard input.
    pub(crate) inputs: Vec<PathBuf>,
    pub(crate) to: OutputFormat,
    pub(crate) from: SourceFormat,
    pub(crate) strict: bool,
    /// `--output-dir`: one file per input session there, instead of standard output.
    pub(crate) output_dir: Option<PathBuf>,
    /// `--jobs`: inputs converted at a time under `--output-dir` (`--strict`: always 1).
    pub(crate) jobs: usize,
    /// Whether terminal output may contain colour escapes.
    pub(crate) color: bool,
    /// `--full`: show results, sub-agent transcripts and long inputs whole.
    pub(crate) full: bool,
    /// `--thinking`: show the model's reasoning.
    pub(crate) thinking: bool,
    /// `--context`: show synthetic context (skill bodies, reminders, hook output).
    pub(crate) context: bool,
    /// `--debug`: show the raw line of each `debug` record in HTML (by default only the note
    /// saying which line was not understood and why).
    pub(crate) debug: bool,
    /// `--compact`: with `--to md`, a transcript within a comment's 65,536 characters.
    pub(crate) compact: bool,
    /// `--include-raw`: `--to events` writes each event's raw input line beside it.
    pub(crate) include_raw: bool,
    /// The column at which text output wraps.
    pub(crate) width: usize,
    /// `--stable`: neutralise run-to-run noise.
    pub(crate) stable: Option<StableMode>,
    /// `--redact`: replace secrets and the home directory.
    pub(crate) redact: bool,
    /// `--stats`: account for every input line on stderr at the end.
    pub(crate) stats: bool,
    /// `--follow`: keep reading inputs as they grow.
    pub(crate) follow: bool,
    /// `--follow-all`: follow every active session of a directory.
    pub(crate) follow_all: bool,
    /// The pager the output goes through (`--paging`), when it does.
    pub(crate) pager: Option<Vec<OsString>>,
    /// `$HOME`, read once here, for `--redact` (`None` when unset, empty or `/`).
    pub(crate) home: Option<String>,
    /// Standard error is a terminal: a long `--output-dir` run shows its progress there.
    pub(crate) progress: bool,
    /// Standard input is a pipe or a terminal (not a file redirected to it): what comes on it
    /// may still be being written.
    pub(crate) stdin_streams: bool,
}

impl Settings {
    /// What the renderers need of these settings.
    pub(crate) fn render_options(&self) -> RenderOptions {
        RenderOptions {
            format: self.to,
            color: self.color,
            width: self.width,
            full: self.full,
            thinking: self.thinking,
            context: self.context,
            archive: self.output_dir.is_some(),
            results_in_call_order: self.stable.is_some(),
            debug: self.debug,
            compact: self.compact,
        }
    }

    /// Everything that changes an output file's bytes besides its input: scribe's version, the
    /// render options and the transforms. `-o DIR` keeps a page from an earlier run only when
    /// this is the same.
    pub(crate) fn output_fingerprint(&self) -> String {
        format!(
            "{} {:?} stable={:?} redact={}",
            env!("CARGO_PKG_VERSION"),
            self.render_options(),
            self.stable,
            self.redact,
        )
    }

    /// Whether the input `path` arrives as it is written (`--follow`, or standard input from a
    /// pipe or a terminal), rather than being a file already written: the terminal view shows a
    /// live input part by part as it comes, and a file as its transcript's final items.
    pub(crate) fn input_is_live(&self, path: &std::path::Path) -> bool {
        self.follow || (path.as_os_str() == "-" && self.stdin_streams)
    }

    /// The `--redact` / `--stable` passes for one input (numbering restarts with each).
    pub(crate) fn transforms(&self) -> Transforms {
        Transforms::with(self.stable, self.redact, self.home.as_deref())
            .ordering_events(self.to == OutputFormat::Events)
    }

    /// Turns every `auto` of `scribe [OPTIONS] FILE…` into a concrete choice.
    pub(crate) fn resolve(cli: &Cli) -> Settings {
        Settings::resolve_for(cli, &cli.convert, &cli.files)
    }

    /// Turns every `auto` into a concrete choice, for a conversion of `files` (none: standard
    /// input) with the options `convert` (the filter's own, or `scribe last`'s) and the global
    /// ones of `cli`.
    pub(crate) fn resolve_for(cli: &Cli, convert: &ConvertArgs, files: &[PathBuf]) -> Settings {
        let inputs = if files.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            files.to_vec()
        };
        // With `--output-dir` the output goes to files, whatever stdout is; with `--stable` the
        // bytes must not depend on where they go (no colour, width 80, JSONL by default).
        let stdout_tty =
            convert.output_dir.is_none() && cli.stable.is_none() && std::io::stdout().is_terminal();
        let color = decide_color(
            cli.color,
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("CLICOLOR_FORCE").as_deref(),
            stdout_tty,
        );
        let width = match convert.width {
            Some(n) => usize::from(n),
            None if stdout_tty => terminal_size::terminal_size()
                .map_or(80, |(w, _)| usize::from(w.0))
                .max(20),
            None => 80,
        };
        let to = convert.to.unwrap_or(match (cli.stable, stdout_tty) {
            // `scribe --stable run.jsonl > golden.jsonl`: the README's CI recipe.
            (Some(_), false) => OutputFormat::Jsonl,
            _ => OutputFormat::Text,
        });
        let follow = convert.follow || convert.follow_all;
        let pages = match convert.paging {
            Paging::Never => false,
            Paging::Always => true,
            // A live stream is read as it comes: a pager would hold it back.
            Paging::Auto => {
                stdout_tty
                    && to == OutputFormat::Text
                    && !follow
                    && !files.is_empty()
                    && files.iter().all(|f| f.as_os_str() != "-")
            }
        };
        Settings {
            inputs,
            to,
            from: convert.from,
            strict: convert.strict,
            output_dir: convert.output_dir.clone(),
            jobs: match (convert.strict, convert.jobs) {
                (true, _) => 1,
                (false, Some(n)) => usize::from(n),
                (false, None) => std::thread::available_parallelism().map_or(1, |n| n.get()),
            },
            color,
            full: convert.full,
            thinking: convert.thinking,
            context: convert.context,
            debug: convert.debug,
            include_raw: convert.include_raw,
            compact: convert.compact,
            width,
            stable: cli.stable,
            redact: cli.redact,
            stats: convert.stats,
            follow,
            follow_all: convert.follow_all,
            pager: pages
                .then(|| {
                    crate::pipeline::pager::command(
                        std::env::var_os("SCRIBE_PAGER"),
                        std::env::var_os("PAGER"),
                    )
                })
                .flatten(),
            home: home(),
            progress: std::io::stderr().is_terminal(),
            stdin_streams: !stdin_is_a_file(),
        }
    }
}

/// `$HOME` without its trailing `/`, for `--redact`; `None` when unset, empty or `/`.
pub(crate) fn home() -> Option<String> {
    std::env::var("HOME")
        .ok()
        .map(|h| h.trim_end_matches('/').to_owned())
        .filter(|h| !h.is_empty())
}

/// Whether standard input is a regular file (`scribe < session.jsonl`), which is read as a file
/// already written, not as a live stream.
fn stdin_is_a_file() -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .map(std::fs::File::from)
            .and_then(|f| f.metadata())
            .is_ok_and(|m| m.is_file())
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// The colour decision, apart from the environment so that it can be tested: `always` and
/// `never` are final; `auto` colours when `CLICOLOR_FORCE` is set to anything but empty or `0`,
/// or else when stdout is a terminal and `NO_COLOR` is unset or empty.
fn decide_color(
    when: ColorWhen,
    no_color: Option<&OsStr>,
    clicolor_force: Option<&OsStr>,
    stdout_tty: bool,
) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            let forced = clicolor_force.is_some_and(|v| !v.is_empty() && v != "0");
            let no_color = no_color.is_some_and(|v| !v.is_empty());
            forced || (!no_color && stdout_tty)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn always_and_never_ignore_the_environment() {
        assert!(decide_color(ColorWhen::Always, os("1"), None, false));
        assert!(!decide_color(ColorWhen::Never, None, os("1"), true));
    }

    #[test]
    fn auto_follows_the_terminal_and_no_color() {
        assert!(decide_color(ColorWhen::Auto, None, None, true));
        assert!(!decide_color(ColorWhen::Auto, None, None, false));
        assert!(!decide_color(ColorWhen::Auto, os("1"), None, true));
        // An empty NO_COLOR does not count (no-color.org).
        assert!(decide_color(ColorWhen::Auto, os(""), None, true));
    }

    #[test]
    fn clicolor_force_forces_colour_unless_empty_or_zero() {
        assert!(decide_color(ColorWhen::Auto, None, os("1"), false));
        assert!(decide_color(ColorWhen::Auto, os("1"), os("1"), false));
        assert!(!decide_color(ColorWhen::Auto, None, os("0"), false));
        assert!(!decide_color(ColorWhen::Auto, None, os(""), false));
    }
}
