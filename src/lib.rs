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
