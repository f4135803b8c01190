//! The command line, as clap sees it. Doc comments here are the `--help` text and the man page.
//!
//! Nothing here looks at the environment: `settings::Settings::resolve` turns these raw choices
//! into decisions.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// Fold a coding agent's event stream into a transcript you can read, share and diff.
///
/// scribe reads Claude Code stream-json (`claude -p … --output-format stream-json --verbose`)
/// and the sessions Claude Code saves under `~/.claude/projects/`, classifies every message,
/// folds tool calls, sub-agents, skills and MCP calls into turns, and writes the transcript as normalized JSONL, HTML, Markdown or terminal text. It is a filter:
/// with no FILE, or with `-`, it reads standard input, and it prints each record as soon as it is
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
  scribe session.jsonl --to md > transcript.md
  scribe session.jsonl --to jsonl > transcript.jsonl
  scribe --to events run.jsonl | jq -c 'select(.event == \"tool-result\")'
  scribe ~/.claude/projects/-home-me-app/ -o transcripts/

EXIT STATUS:
  0  success (input problems are reported on stderr and the run goes on)
  1  the input had an error and --strict was given
  2  usage error, or a file could not be read or written")]
pub(crate) struct Cli {
    /// Input files; `-` or none reads standard input. Each file is its own transcript. A
    /// directory stands for the saved Claude Code sessions in it (sub-agent files are read with
    /// their session).
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    /// Output format.
    #[arg(long = "to", short = 't', value_enum, default_value_t = OutputFormat::Text)]
    pub(crate) to: OutputFormat,

    /// Input format; by default it is detected from the first JSON line of each input.
    #[arg(long = "from", short = 'f', value_enum, default_value_t = SourceFormat::Auto)]
    pub(crate) from: SourceFormat,

    /// Write one output file per input session into DIR, named after the session id with the
    /// format's extension (`<sessionId>.jsonl`, …), instead of writing to standard output.
    #[arg(long = "output-dir", short = 'o', value_name = "DIR")]
    pub(crate) output_dir: Option<PathBuf>,

    /// Make the first input error fatal (exit 1) instead of reporting it and going on.
    #[arg(long)]
    pub(crate) strict: bool,

    /// When to colour terminal output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub(crate) color: ColorWhen,

    /// Show tool results, sub-agent transcripts and long inputs whole in text output (Markdown
    /// always holds them whole, in collapsed blocks).
    #[arg(long)]
    pub(crate) full: bool,

    /// Show the model's thinking (dimmed in text output, collapsed in Markdown).
    #[arg(long)]
    pub(crate) thinking: bool,

    /// Show synthetic context the harness injected (skill bodies, reminders, hook output).
    #[arg(long)]
    pub(crate) context: bool,

    /// Wrap text output at N columns (default: the terminal's width, or 80 when not a terminal).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(20..))]
    pub(crate) width: Option<u16>,

    /// Print a generated document instead of reading input (the man page).
    #[arg(long, value_enum, hide = true, value_name = "WHAT")]
    pub(crate) generate: Option<Generate>,
}

/// The formats scribe writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputFormat {
    /// The terminal view: coloured when stdout is a terminal, wrapped, live (the default).
    Text,
    /// GitHub-flavoured Markdown, for a pull request or an issue.
    Md,
    /// The folded transcript, one JSON record per line (docs/schema.md).
    Jsonl,
    /// The stage-2 normalized event stream, one JSON event per line, each with its input line.
    Events,
    /// One self-contained HTML page per input: safe, searchable, streamed as it is read.
    Html,
}

impl OutputFormat {
    /// The file extension for `--output-dir` files in this format.
    pub(crate) fn extension(self) -> &'static str {
        match self {
            OutputFormat::Jsonl => "jsonl",
            OutputFormat::Events => "events.jsonl",
            OutputFormat::Html => "html",
            OutputFormat::Text => "txt",
            OutputFormat::Md => "md",
        }
    }
}

/// The formats scribe reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SourceFormat {
    /// Detect from the first JSON line.
    Auto,
    /// Claude Code `--output-format stream-json` (the Agent SDK wire format).
    ClaudeStream,
    /// A Claude Code saved session (`~/.claude/projects/<dir>/<sessionId>.jsonl`), with the
    /// sub-agent transcripts stored beside it.
    ClaudeSession,
    /// Qwen Code daemon (`qwen serve`) session events: the SSE body of `GET /session/:id/events`,
    /// or the same envelopes one JSON object per line.
    QwenDaemon,
    /// Qwen Code `--output-format stream-json`.
    QwenStream,
}

impl SourceFormat {
    /// The name used in headers and `--from`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SourceFormat::Auto => "auto",
            SourceFormat::ClaudeStream => "claude-stream",
            SourceFormat::ClaudeSession => "claude-session",
            SourceFormat::QwenDaemon => "qwen-daemon",
            SourceFormat::QwenStream => "qwen-stream",
        }
    }
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
}
