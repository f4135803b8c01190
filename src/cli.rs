//! The command line, as clap sees it. Doc comments here are the `--help` text and the man page.
//!
//! Nothing here looks at the environment: `settings::Settings::resolve` turns these raw choices
//! into decisions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub(crate) use crate::input::SourceFormat;
pub(crate) use crate::render::OutputFormat;
pub(crate) use crate::transform::StableMode;

/// Fold a coding agent's event stream into a transcript you can read, share and diff.
///
/// scribe reads the logs of four coding agents: Claude Code (stream-json from `claude -p …
/// --output-format stream-json --verbose`, and the sessions it saves under
/// `~/.claude/projects/`), Qwen Code (its daemon's events and stream-json), Codex CLI (`codex
/// exec --json` and its rollout files) and Gemini CLI (stream-json and its saved chats), and its
/// own JSONL. It classifies every message, folds tool calls, sub-agents,
/// skills and MCP calls into turns, and writes the transcript as terminal text, Markdown, HTML or
/// normalized JSONL. It is a filter: with no FILE, or with `-`, it reads standard input, and it
/// prints each record as soon as it is
/// final, so it can sit at the end of a live pipe.
#[derive(Debug, Parser)]
#[command(
    name = "scribe",
    version,
    max_term_width = 100,
    args_override_self = true
)]
#[command(after_help = "EXAMPLES:
  claude -p 'fix the bug' --output-format stream-json --verbose | scribe
  scribe ~/.claude/projects/-home-me-app/3f2a….jsonl --to html > session.html
  scribe --stable run.jsonl > golden.jsonl; scribe diff golden.jsonl new-run.jsonl

More options, examples and the exit status: scribe --help.")]
#[command(after_long_help = "EXAMPLES:
  claude -p 'fix the bug' --output-format stream-json --verbose | scribe
  scribe session.jsonl --to md > transcript.md
  scribe session.jsonl --to jsonl > transcript.jsonl
  scribe --to events run.jsonl | jq -c 'select(.event == \"tool-result\")'
  scribe --stable run.jsonl > golden.jsonl       (a golden transcript: --stable writes JSONL
                                                  unless --to says otherwise)
  scribe diff golden.jsonl new-run.jsonl         (exit 1 when the behaviour changed)
  scribe --redact session.jsonl > shareable.jsonl
  scribe ~/.claude/projects/-home-me-app/ -o transcripts/

EXIT STATUS:
  0  success (input problems are reported on stderr and the run goes on)
  1  the input had an error and --strict was given, an input was not JSON Lines or not a
     log scribe knows, or a directory held no sessions
  2  usage error, or a file could not be read or written")]
pub(crate) struct Cli {
    /// Input files or directories of saved sessions; none or `-` reads stdin.
    ///
    /// Input files; `-` or none reads standard input. Each file is its own transcript. A
    /// directory stands for the saved Claude Code sessions in it (sub-agent files are read with
    /// their session). A saved session is read twice (once to index its chain, once to write
    /// it): on standard input it is copied to a temporary file as it arrives, which is removed
    /// at exit.
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    /// How to read the inputs and what to write.
    #[command(flatten)]
    pub(crate) convert: ConvertArgs,

    /// When to colour terminal output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN", global = true)]
    pub(crate) color: ColorWhen,

    /// Same bytes for the same behaviour: ids renumbered, times and noise dropped.
    ///
    /// Byte-identical output for identical behaviour: renumber ids by first appearance, drop
    /// timestamps, durations, version strings, temp paths and sockets, and token counts and cost
    /// (`--stable=keep-usage` keeps those). See "Using scribe in CI" in the README.
    #[arg(long, value_enum, value_name = "MODE", num_args = 0..=1, require_equals = true,
          default_missing_value = "default", global = true)]
    pub(crate) stable: Option<StableMode>,

    /// Replace secrets with [REDACTED:<kind>] and the home directory with ~.
    ///
    /// Replace secrets (API keys, tokens, private keys, passwords) with `[REDACTED:<kind>]`,
    /// and the home directory with `~`, everywhere in the output.
    #[arg(long, global = true)]
    pub(crate) redact: bool,

    /// Compare two runs (see `scribe diff --help`).
    #[command(subcommand)]
    pub(crate) command: Option<Command>,

    /// Print the man page or a shell's completion script.
    ///
    /// Print a generated document instead of reading input: the man page, or a shell's
    /// completion script (`scribe --generate bash > /etc/bash_completion.d/scribe`).
    #[arg(hide_short_help = true, long, value_enum, value_name = "WHAT")]
    pub(crate) generate: Option<Generate>,
}

/// The options of a conversion: `scribe [OPTIONS] FILE…` and `scribe last [OPTIONS]` take them.
#[derive(Debug, Args, Default, PartialEq)]
pub(crate) struct ConvertArgs {
    /// Output format [default: text].
    ///
    /// Output format [default: text; with --stable, jsonl, so that `scribe --stable run.jsonl >
    /// golden.jsonl` writes a golden `scribe diff` reads].
    #[arg(long = "to", short = 't', value_enum)]
    pub(crate) to: Option<OutputFormat>,

    /// Input format (detected by default).
    ///
    /// Input format; by default it is detected from the first JSON lines of each input (lines
    /// before them that are not JSON, such as a CLI's start-up messages, are skipped with one
    /// warning). A JSON array of messages, or pretty-printed messages, is read too. An input that
    /// matches no format is an error.
    #[arg(long = "from", short = 'f', value_enum, default_value_t = SourceFormat::Auto)]
    pub(crate) from: SourceFormat,

    /// Write one file per session into DIR (and index.html for html).
    ///
    /// Write one output file per input session into DIR, named after the session id with the
    /// format's extension (`<sessionId>.jsonl`, …), instead of writing to standard output. With
    /// `--to atif`, each sub-agent's trajectory is a file of its own beside its session's
    /// (`<sessionId>.<callId>.atif.json`), which names it. When standard error is a terminal and
    /// the run lasts more than a second, a progress bar there counts the inputs done (it is
    /// erased at the end).
    #[arg(long = "output-dir", short = 'o', value_name = "DIR")]
    pub(crate) output_dir: Option<PathBuf>,

    /// Convert up to N inputs at a time [default: one per core].
    ///
    /// Convert up to N inputs at a time (default: one per core): into `--output-dir`, or onto
    /// standard output in `jsonl`, `events` and `md` (the inputs ahead of the one being written
    /// wait in memory or in a temporary file; the terminal view converts one at a time). File
    /// names, the HTML index, standard output and the messages on stderr follow the order of the
    /// inputs whatever N is (each input's messages are printed when its turn comes). `--strict`
    /// converts one at a time.
    /// Above 1, an input not converted beside others is decoded on one thread while another
    /// folds and writes it (plain `--to jsonl`/`events` only for a file of 8 MiB or more on two
    /// cores, not two hardware threads of one: below, one thread is faster); the output is the
    /// same.
    #[arg(hide_short_help = true, long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) jobs: Option<u16>,

    /// Make the first input error fatal (exit 1) instead of reporting it and going on.
    #[arg(long)]
    pub(crate) strict: bool,

    /// Follow a growing session (a directory: its newest session), like tail -f.
    ///
    /// Follow a growing session, like `tail -f`: render FILE as it is now, then each record as
    /// it is written, until Ctrl-C (exit 130, output closed properly). A directory (a project
    /// directory, `~/.claude/projects`, `~/.codex/sessions`, `~/.gemini/tmp`) follows its most
    /// recently written session and switches to a newer one when it appears. With `-o DIR`, the
    /// files there are rewritten (at most once a second) as the session grows; HTML pages reload
    /// themselves.
    #[arg(long, short = 'F')]
    pub(crate) follow: bool,

    /// With --follow DIR: follow every active session in DIR at once.
    ///
    /// With --follow DIR: follow every active session in DIR at once (those written in the last
    /// 10 minutes, and each new one), each output line prefixed with a short session tag.
    #[arg(hide_short_help = true, long)]
    pub(crate) follow_all: bool,

    /// Show tool results, sub-agent transcripts and long inputs whole.
    ///
    /// Show tool results, sub-agent transcripts and long inputs whole in text output, long
    /// outputs and diffs whole in Markdown (by default their first lines and how many more), and
    /// the page's "show all N lines" toggles open on load.
    #[arg(long)]
    pub(crate) full: bool,

    /// Show the model's thinking (dimmed in text output, collapsed in Markdown).
    #[arg(long)]
    pub(crate) thinking: bool,

    /// Show synthetic context the harness injected (skill bodies, reminders, hook output).
    #[arg(hide_short_help = true, long)]
    pub(crate) context: bool,

    /// Show each line nothing understood where it came.
    ///
    /// Show each line nothing understood where it came: which line and why (text, Markdown), and
    /// its raw input (HTML; never the payload of a known kind that is malformed). By default they are only counted, in one line at the end ("3 lines
    /// not understood"); --to jsonl always keeps them whole.
    #[arg(hide_short_help = true, long)]
    pub(crate) debug: bool,

    /// With --to md: a transcript that fits a pull-request comment.
    ///
    /// With --to md: the session's title, every prompt on a line, each tool call on a line with
    /// its state, the final answer and the totals, within 65,536 characters (a GitHub comment)
    /// whatever the session; what did not fit is counted, with the command that shows it.
    #[arg(hide_short_help = true, long)]
    pub(crate) compact: bool,

    /// With --to events: write each input line's raw text beside its events.
    ///
    /// With --to events: write each input line's raw text beside the events it gave (`raw`),
    /// to see how scribe read it (the design's includeRawEvent). Holds the raw lines of the
    /// input in memory.
    #[arg(hide_short_help = true, long)]
    pub(crate) include_raw: bool,

    /// Page the terminal view of files through $PAGER (default: less -R -F).
    ///
    /// When to page the terminal view: `auto` (the default) sends the text view of files, not of
    /// standard input or --follow, through `$SCRIBE_PAGER`, else `$PAGER`, else `less -R -F`
    /// when standard output is a terminal; `never` writes straight to the terminal; `always`
    /// pages whatever the output is.
    #[arg(hide_short_help = true, long, value_enum, value_name = "WHEN", default_value_t = Paging::Auto)]
    pub(crate) paging: Paging,

    /// Wrap text output at N columns (default: the terminal's width, or 80 when not a terminal).
    #[arg(hide_short_help = true, long, value_name = "N", value_parser = clap::value_parser!(u16).range(20..))]
    pub(crate) width: Option<u16>,
    /// Print on stderr an account of every input line at the end.
    ///
    /// At the end, print on stderr an account of every input line: lines read, and how many are
    /// reflected in a record, kept in a `debug` record, named by a diagnostic or blank (the sum is
    /// checked); records written by kind; `debug` records by the raw line's kind; diagnostics by
    /// kind.
    #[arg(hide_short_help = true, long)]
    pub(crate) stats: bool,
}

/// When to page the terminal view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Paging {
    /// The text view of files, when standard output is a terminal.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// When to use colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    /// Colour when stdout is a terminal and NO_COLOR is unset or empty (CLICOLOR_FORCE forces it).
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Documents scribe can print about itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Generate {
    /// The roff man page (man/scribe.1).
    Man,
    /// Completions for bash.
    Bash,
    /// Completions for zsh.
    Zsh,
    /// Completions for fish.
    Fish,
    /// Completions for elvish.
    Elvish,
    /// Completions for PowerShell.
    Powershell,
}

/// Subcommands. `scribe [FILE]...` with no subcommand is the filter.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Compare two runs of the same task and show what the agent did differently.
    Diff(DiffArgs),
    /// Run as an agent's hook: archive the session a hook payload names into DIR.
    Hook(HookArgs),
    /// List the saved sessions of every agent, newest first.
    Ls(LsArgs),
    /// Convert the newest saved session (of the current directory's project by default).
    Last(LastArgs),
}

/// Which saved sessions `scribe ls` and `scribe last` look at.
#[derive(Debug, Args, Default)]
pub(crate) struct PickArgs {
    /// Only this agent's sessions (claude, qwen, codex, gemini).
    #[arg(long, value_name = "AGENT", value_parser = crate::input::registry::agent_name)]
    pub(crate) agent: Option<String>,
    /// Only the sessions of this project directory (or a directory inside it).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Only sessions that started since WHEN: a date (2026-12-01), a time
    /// (2026-12-01T09:00:00Z) or a span back from now (3d, 12h, 2 weeks).
    #[arg(long, value_name = "WHEN", value_parser = crate::pipeline::list::parse_since)]
    pub(crate) since: Option<jiff::Timestamp>,
}

/// `scribe ls`.
#[derive(Debug, Args)]
#[command(
    after_help = "Looks in ~/.claude/projects ($CLAUDE_CONFIG_DIR/projects), \
~/.codex/sessions ($CODEX_HOME/sessions), ~/.gemini/tmp ($GEMINI_CLI_HOME/.gemini/tmp) and \
~/.qwen/tmp. Newest first by last write; the title is the agent's own title, else the first \
prompt typed."
)]
pub(crate) struct LsArgs {
    #[command(flatten)]
    pub(crate) pick: PickArgs,
    /// Only the sessions of the current directory's project.
    #[arg(long)]
    pub(crate) here: bool,
    /// At most N sessions.
    #[arg(long, short = 'n', value_name = "N")]
    pub(crate) limit: Option<usize>,
    /// How to print the list.
    #[arg(long = "to", short = 't', value_enum, default_value_t = ListFormat::Text)]
    pub(crate) to: ListFormat,
}

/// How `scribe ls` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    /// One aligned line per session.
    Text,
    /// One JSON object per session, for scripts.
    Jsonl,
}

/// `scribe last`: the options of a conversion, and which sessions to pick from.
#[derive(Debug, Args)]
#[command(
    after_help = "By default the newest session whose project is the current directory \
(or a directory above it); --all takes the newest of every project. Every option of a \
conversion applies: scribe last --to html > session.html, scribe last -F."
)]
pub(crate) struct LastArgs {
    #[command(flatten)]
    pub(crate) pick: PickArgs,
    /// The newest session of any project, not only the current directory's.
    #[arg(long, conflicts_with = "project")]
    pub(crate) all: bool,
    #[command(flatten)]
    pub(crate) convert: ConvertArgs,
}

/// `scribe hook --to html -o DIR`.
#[derive(Debug, Args)]
#[command(
    after_help = "Reads the hook payload as Claude Code (JSON on stdin: session_id, transcript_path, \
cwd, hook_event_name), Gemini CLI (the same fields on stdin) and Codex (`notify`: the JSON as the \
last argument, naming the thread; its rollout is looked up under $CODEX_HOME/sessions) send it, \
converts the session's transcript (with its sub-agent files) into DIR and rewrites DIR's \
index.html. It never fails the agent's turn: problems are written to DIR/scribe-hook.log and \
it exits 0."
)]
pub(crate) struct HookArgs {
    /// Output format of the archived page.
    #[arg(long = "to", short = 't', value_enum, default_value_t = OutputFormat::Html)]
    pub(crate) to: OutputFormat,
    /// The archive directory.
    #[arg(long = "output-dir", short = 'o', value_name = "DIR")]
    pub(crate) output_dir: PathBuf,
    /// A payload passed as an argument (Codex's `notify`); otherwise it is read from stdin.
    #[arg(value_name = "PAYLOAD")]
    pub(crate) payload: Option<String>,
    /// Internal: convert this transcript (the hook runs itself with it, its stderr going to the
    /// log file).
    #[arg(long, hide = true, value_name = "PATH")]
    pub(crate) transcript: Option<PathBuf>,
}

/// `scribe diff OLD NEW`.
#[derive(Debug, Args)]
#[command(
    after_help = "Both sides may be a raw stream (claude-stream) or scribe's own JSONL \
(`scribe --to jsonl`, e.g. a checked-in golden transcript). --stable is implied.

EXIT STATUS:
  0  the runs did the same things
  1  they differ (the differences are printed)
  2  an input could not be read, is not a transcript or an agent log, or (--strict) had an
     error"
)]
pub(crate) struct DiffArgs {
    /// The reference run (e.g. the golden transcript).
    #[arg(value_name = "OLD")]
    pub(crate) old: PathBuf,
    /// The run to check.
    #[arg(value_name = "NEW")]
    pub(crate) new: PathBuf,
    /// How to print the differences.
    #[arg(long = "to", short = 't', value_enum, default_value_t = DiffFormat::Text)]
    pub(crate) to: DiffFormat,
    /// Leave these things out of the comparison: a field name (`output`, `usage`, `input`,
    /// `errorText`, …), a part type (`reasoning`, `text`), a record kind (`notice`, `session`) or a
    /// notice kind (`result`, `hook`, `api-retry`). Repeat or separate with commas. The names are
    /// listed in docs/schema.md ("The names `scribe diff --ignore` takes"); any other is an error.
    #[arg(long, value_name = "FIELD", value_delimiter = ',', action = clap::ArgAction::Append)]
    pub(crate) ignore: Vec<String>,
    /// Also compare tool-result sidecars (the harness's structured copy of each result: stdout
    /// and stderr apart, edit patches, sub-agent totals); left out by default since they repeat
    /// the output.
    #[arg(long)]
    pub(crate) sidecars: bool,
    /// Make the first input error fatal (exit 2) instead of reporting it and going on.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Input format of both sides; by default each is detected.
    #[arg(long = "from", short = 'f', value_enum, default_value_t = SourceFormat::Auto)]
    pub(crate) from: SourceFormat,
}

/// How `scribe diff` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
    /// A readable, coloured report.
    Text,
    /// One JSON record per difference.
    Jsonl,
    /// GitHub Markdown for a pull-request comment or $GITHUB_STEP_SUMMARY: each record that
    /// differs under a heading, at most 65,536 characters.
    Md,
}
