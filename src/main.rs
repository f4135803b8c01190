//! scribe: fold a coding agent's event stream into a transcript.
//!
//! `main` stays small: parse, resolve settings, run the pipeline, map the outcome to an exit
//! status. A closed output pipe is a normal end (exit 0, nothing on stderr).

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod diagnostics;
mod diff;
mod exit;
mod fold;
mod input;
mod model;
mod output_file;
mod pipeline;
mod render;
mod settings;
mod transform;

fn main() -> ExitCode {
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
#[cfg(test)]
mod robustness_tests;
