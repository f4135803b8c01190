//! Resolves the raw command line into decisions, once. Nothing after this reads the environment
//! or asks whether a stream is a terminal.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::cli::{Cli, ColorWhen, OutputFormat, SourceFormat, StableMode};

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
    /// Whether terminal output may contain colour escapes.
    #[allow(dead_code, reason = "read by the terminal renderer (issue 4)")]
    pub(crate) color: bool,
    /// `--stable`: neutralise run-to-run noise (issue 7).
    pub(crate) stable: Option<StableMode>,
    /// `--redact`: replace secrets and the home directory.
    pub(crate) redact: bool,
    /// `$HOME`, read once here, for `--redact` (`None` when unset, empty or `/`).
    pub(crate) home: Option<String>,
}

impl Settings {
    /// Turns every `auto` into a concrete choice.
    pub(crate) fn resolve(cli: &Cli) -> Settings {
        let inputs = if cli.files.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            cli.files.clone()
        };
        let color = match cli.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                let forced =
                    std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0");
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                // With `--output-dir` the output goes to files, whatever stdout is.
                let to_terminal = cli.output_dir.is_none() && std::io::stdout().is_terminal();
                forced || (!no_color && to_terminal)
            }
        };
        Settings {
            inputs,
            to: cli.to,
            from: cli.from,
            strict: cli.strict,
            output_dir: cli.output_dir.clone(),
            color,
            stable: cli.stable,
            redact: cli.redact,
            home: std::env::var("HOME")
                .ok()
                .map(|h| h.trim_end_matches('/').to_owned())
                .filter(|h| !h.is_empty()),
        }
    }
}
