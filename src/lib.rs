//! scribe: fold a coding agent's event stream into a transcript.
//!
//! The crate is the `scribe` binary; this library holds all of it so that the fuzz targets in
//! `fuzz/` can drive the same code (`fuzzing`). Nothing here is a stable API: `main` is what the
//! binary runs, and everything else is private to the crate.

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod diagnostics;
mod diff;
mod exit;
mod fold;
mod input;
/// The man page, from the same clap definitions as `--help`.
mod man;
mod model;
mod output_file;
mod pipeline;
mod render;
/// Untrusted text made safe to print on a terminal: used by the renderers, `scribe diff` and the
/// pipeline's messages alike, so it belongs to none of them.
mod sanitize;
mod settings;
mod stats;
mod transform;

/// Whether Ctrl-C ends the run at once, quietly, with the shell's status for SIGINT (128 + 2).
/// A `--follow` run clears it: it catches Ctrl-C itself, to end its output well-formed first.
pub(crate) static CTRL_C_EXITS: std::sync::LazyLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
    std::sync::LazyLock::new(|| std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)));

/// The `scribe` command: parse, resolve settings, run the pipeline, map the outcome to an exit
/// status. A closed output pipe is a normal end (exit 0, nothing on stderr).
pub fn main() -> ExitCode {
    // Failing to install the handler only loses the quiet exit on Ctrl-C.
    let _ = signal_hook::flag::register_conditional_shutdown(
        signal_hook::consts::SIGINT,
        130,
        std::sync::Arc::clone(&CTRL_C_EXITS),
    );
    let cli = cli::Cli::parse();
    match pipeline::run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) if exit::is_broken_pipe(&err) => ExitCode::from(exit::SUCCESS),
        Err(err) => {
            diagnostics::say(&diagnostics::error_words(&err));
            ExitCode::from(exit::TROUBLE)
        }
    }
}

/// Entry points for the fuzz targets (`fuzz/`): not an API.
#[doc(hidden)]
pub mod fuzzing {
    /// The output formats, as `--to` names them.
    pub const OUTPUTS: [&str; 5] = ["jsonl", "events", "text", "md", "html"];

    /// Runs scribe over `data` with the command-line `args` (output and diagnostics go nowhere).
    /// Returns whether the run ended without a run-level error; a panic is the failure fuzzing
    /// looks for.
    pub fn run(args: &[&str], data: &[u8]) -> bool {
        crate::pipeline::run_bytes(args, data).is_ok()
    }

    /// The terminal view of a text part of the model's (`text`, Markdown), `width` columns wide
    /// (at least 20, as `--width`), with colour or without, as its reasoning or its answer: the
    /// bytes a terminal would get.
    pub fn terminal_markdown(text: &str, width: usize, color: bool, reasoning: bool) -> Vec<u8> {
        crate::render::ansi::text_part_bytes(text, width, color, reasoning)
    }

    /// Bytes the terminal view may write per byte of Markdown and per column of its width:
    /// a column is at most a 3-byte character, and its share of the colour escapes is less
    /// than one byte.
    pub const MARKDOWN_BYTES_PER_COLUMN: usize = 4;
    /// Columns allowed beyond the width for each byte of Markdown: a gutter that is cut at
    /// eight levels and its mark of the levels between.
    pub const MARKDOWN_GUTTER_COLUMNS: usize = 64;
    /// Bytes allowed whatever the text (a first line's bullet and colour resets).
    pub const MARKDOWN_BASE: usize = 4096;

    /// The most the terminal view of `text_bytes` bytes of Markdown may write at `width`
    /// columns: linear in the text, each byte paying for at most one line of the width and
    /// a gutter. A shape whose output grows faster than the text (a gutter per level of
    /// nesting on every line, a table's header names repeated on every row) passes this bound
    /// at a few kilobytes of input; the fuzz target `terminal_markdown` checks it.
    pub fn terminal_markdown_bound(text_bytes: usize, width: usize) -> usize {
        text_bytes * MARKDOWN_BYTES_PER_COLUMN * (width.max(20) + MARKDOWN_GUTTER_COLUMNS)
            + MARKDOWN_BASE
    }
}

#[cfg(test)]
mod robustness_tests;
#[cfg(test)]
mod test_files;

#[cfg(test)]
mod tests {
    #[test]
    fn the_fuzz_entry_point_runs_the_pipeline() {
        for to in super::fuzzing::OUTPUTS {
            assert!(super::fuzzing::run(
                &["--to", to],
                b"{\"type\":\"x\"}\nnot json\n"
            ));
        }
        for from in crate::input::registry::formats() {
            assert!(super::fuzzing::run(&["--from", from.name], b"\xff{\n"));
        }
    }
}
