//! Problems with the input, reported as `scribe: FILE:LINE: what` on stderr and counted.
//!
//! The run goes on after an input error unless `--strict` was given; the exit status is decided
//! from the counts at the end.
//!
//! Every message goes through the terminal sanitizer: a file name, an agent id or a role read
//! from the input can carry escape sequences, and stderr is usually a terminal. [`say`] is the
//! one way to print a message that is not about a line.

use std::io::Write;

use crate::render::ansi::sanitize::sanitize;

/// Counts and prints input problems.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    strict: bool,
    errors: u64,
    warnings: u64,
}

impl Diagnostics {
    /// Diagnostics for one run; with `strict`, the first error stops it.
    pub(crate) fn new(strict: bool) -> Diagnostics {
        Diagnostics {
            strict,
            ..Diagnostics::default()
        }
    }

    /// An input error: the line could not be used as it is.
    pub(crate) fn error(&mut self, file: &str, line: u64, what: &str) {
        self.errors += 1;
        print(file, line, what);
    }

    /// Something odd that did not stop the line from being used.
    pub(crate) fn warning(&mut self, file: &str, line: u64, what: &str) {
        self.warnings += 1;
        print(file, line, what);
    }

    /// `--strict` was given and an error has happened: stop now.
    pub(crate) fn must_stop(&self) -> bool {
        self.strict && self.errors > 0
    }

    /// Input errors so far.
    pub(crate) fn errors(&self) -> u64 {
        self.errors
    }
}

fn print(file: &str, line: u64, what: &str) {
    let file = sanitize(file);
    let what = sanitize(what);
    let mut err = std::io::stderr().lock();
    let _ = if line == 0 {
        writeln!(err, "scribe: {file}: {what}")
    } else {
        writeln!(err, "scribe: {file}:{line}: {what}")
    };
}

/// Prints `scribe: MESSAGE` on stderr with every control and invisible character made visible
/// (the message may quote a file name or input text).
pub(crate) fn say(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "scribe: {}", sanitize(message));
}
