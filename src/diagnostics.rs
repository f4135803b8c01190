//! Problems with the input, reported as `scribe: FILE:LINE: what` on stderr and counted.
//!
//! The run goes on after an input error unless `--strict` was given; the exit status is decided
//! from the counts at the end.
//!
//! Every message goes through the terminal sanitizer: a file name, an agent id or a role read
//! from the input can carry escape sequences, and stderr is usually a terminal. [`say`] is the
//! one way to print a message that is not about a line. Under `--redact`, messages are redacted
//! as well.

use std::collections::BTreeMap;
use std::io::Write;

use crate::sanitize::sanitize;

/// Counts and prints input problems.
#[derive(Debug, Default)]
pub(crate) struct Diagnostics {
    strict: bool,
    errors: u64,
    warnings: u64,
    /// Diagnostics counted by kind (severity and the message up to its first colon), for `--stats`.
    kinds: BTreeMap<String, u64>,
    /// The input whose line numbers are being noted for `--stats` (not its sub-agent files).
    tracked: Option<String>,
    /// Lines of the tracked input a diagnostic named since the last `take_noted`.
    noted: Vec<u64>,
    /// Line spans of the tracked input that a multi-line record took in (first, last).
    spans: Vec<(u64, u64)>,
    /// Count, but print nothing (the fuzz targets, which would spend their time on stderr).
    quiet: bool,
    /// Messages kept to be printed later, in input order (`--jobs`), instead of printed now.
    held: Option<String>,
}

impl Diagnostics {
    /// Diagnostics for one run; with `strict`, the first error stops it.
    pub(crate) fn new(strict: bool) -> Diagnostics {
        Diagnostics {
            strict,
            ..Diagnostics::default()
        }
    }

    /// The same diagnostics, counted but not printed.
    pub(crate) fn quiet(mut self) -> Diagnostics {
        self.quiet = true;
        self
    }

    /// The same diagnostics, with messages kept until [`Diagnostics::absorb`] prints them.
    pub(crate) fn held(mut self) -> Diagnostics {
        self.held = Some(String::new());
        self
    }

    /// Adds the counts of `other` (an input converted on its own, `--jobs`) and prints the
    /// messages it held.
    pub(crate) fn absorb(&mut self, other: Diagnostics) {
        self.errors += other.errors;
        self.warnings += other.warnings;
        crate::stats::add_counts(&mut self.kinds, other.kinds);
        if let Some(text) = other.held.filter(|t| !t.is_empty()) {
            if !self.quiet {
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
        }
    }

    /// Prints a message about `file` (line 0: the whole file), or keeps it (`held`).
    fn print(&mut self, file: &str, line: u64, what: &str) {
        if self.quiet {
            return;
        }
        let text = message(file, line, what);
        match self.held.as_mut() {
            Some(held) => held.push_str(&text),
            None => {
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
        }
    }

    /// An input error: the line could not be used as it is.
    pub(crate) fn error(&mut self, file: &str, line: u64, what: &str) {
        self.errors += 1;
        self.note("error", file, line, what);
        self.print(file, line, what);
    }

    /// Something odd that did not stop the line from being used.
    pub(crate) fn warning(&mut self, file: &str, line: u64, what: &str) {
        self.warnings += 1;
        self.note("warning", file, line, what);
        self.print(file, line, what);
    }

    fn note(&mut self, severity: &str, file: &str, line: u64, what: &str) {
        let gist = what.split(':').next().unwrap_or(what).trim();
        let kind = format!("{severity}: {}", crate::stats::printable(gist, 60));
        *self.kinds.entry(kind).or_default() += 1;
        if self.tracked.as_deref() == Some(file) && line > 0 {
            self.noted.push(line);
        }
    }

    /// From now on, note the lines diagnostics name in `file` (`None`: stop noting).
    pub(crate) fn track(&mut self, file: Option<&str>) {
        self.tracked = file.map(str::to_owned);
        self.noted.clear();
        self.spans.clear();
    }

    /// Lines `first..=last` of `file` were read as one record.
    pub(crate) fn span(&mut self, file: &str, first: u64, last: u64) {
        if self.tracked.as_deref() == Some(file) && last > first {
            self.spans.push((first, last));
        }
    }

    /// Hands the noted lines and spans to the `--stats` ledger.
    pub(crate) fn take_noted(&mut self, ledger: &mut crate::stats::Ledger) {
        for line in self.noted.drain(..) {
            ledger.diagnosed(line);
        }
        for (first, last) in self.spans.drain(..) {
            ledger.span(first, last);
        }
    }

    /// Diagnostics so far, by kind.
    pub(crate) fn kinds(&self) -> &BTreeMap<String, u64> {
        &self.kinds
    }

    /// A message about a whole input that is not an input error of one line (the caller decides
    /// the exit status).
    pub(crate) fn message(&mut self, file: &str, what: &str) {
        self.print(file, 0, what);
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

/// The input layer's problems are the run's diagnostics.
impl crate::input::Problems for Diagnostics {
    fn error(&mut self, file: &str, line: u64, what: &str) {
        Diagnostics::error(self, file, line, what);
    }

    fn warning(&mut self, file: &str, line: u64, what: &str) {
        Diagnostics::warning(self, file, line, what);
    }

    fn span(&mut self, file: &str, first: u64, last: u64) {
        Diagnostics::span(self, file, first, last);
    }
}

/// An I/O error in words, without the `(os error N)` the standard library appends.
pub(crate) fn io_words(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "no such file or directory".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        ErrorKind::AlreadyExists => "it already exists".to_owned(),
        ErrorKind::IsADirectory => "it is a directory".to_owned(),
        ErrorKind::NotADirectory => "a part of the path is not a directory".to_owned(),
        ErrorKind::StorageFull => "no space left on the device".to_owned(),
        ErrorKind::ReadOnlyFilesystem => "the file system is read-only".to_owned(),
        ErrorKind::InvalidData => "the data is not valid".to_owned(),
        _ => {
            let text = e.to_string();
            match text.find(" (os error") {
                Some(i) => text[..i].to_owned(),
                None => text,
            }
        }
    }
}

/// An error chain as one line, each I/O error in words (see `io_words`).
pub(crate) fn error_words(e: &anyhow::Error) -> String {
    e.chain()
        .map(|cause| match cause.downcast_ref::<std::io::Error>() {
            Some(io) => io_words(io),
            None => cause.to_string(),
        })
        .collect::<Vec<_>>()
        .join(": ")
}

/// Set by `--redact`: messages quote input text, and stderr often ends up in a CI log.
static REDACTOR: std::sync::OnceLock<crate::transform::redact::Redactor> =
    std::sync::OnceLock::new();

/// Makes every later message pass through `--redact` too (secrets and the home directory).
pub(crate) fn redact_messages(home: Option<&str>) {
    let _ = REDACTOR.set(crate::transform::redact::Redactor::new(home));
}

/// `text` redacted when `--redact` was given, then sanitized for the terminal.
fn clean(text: &str) -> String {
    match REDACTOR.get() {
        Some(r) => {
            let mut t = text.to_owned();
            r.redact(&mut t);
            sanitize(&t).into_owned()
        }
        None => sanitize(text).into_owned(),
    }
}

/// `scribe: FILE:LINE: WHAT` (or `scribe: FILE: WHAT` for line 0) and a newline, cleaned.
fn message(file: &str, line: u64, what: &str) -> String {
    // A file name is one line of the message, even when it holds a line break.
    let file = clean(file).replace('\n', "\\n").replace('\r', "\\r");
    let what = clean(what);
    if line == 0 {
        format!("scribe: {file}: {what}\n")
    } else {
        format!("scribe: {file}:{line}: {what}\n")
    }
}

/// Prints `scribe: MESSAGE` on stderr with every control and invisible character made visible
/// (the message may quote a file name or input text).
pub(crate) fn say(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "scribe: {}", clean(message));
}
