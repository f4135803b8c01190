//! Integration tests: one binary, driving the real `scribe` executable.

// Shared helpers: a hermetic `scribe()` command, paths to samples and the corpus.
mod util;

// Flags, stdin, several files, exit codes, --strict, broken pipe, live flushing.
mod cli;
// The spine over the real Claude Code corpus (skipped when ../shared is absent).
mod corpus;
// --to html: goldens, hostile markup, CSP hashes, streaming, flat memory.
mod html;
// --to html pages in headless Chromium (skipped with a reason when it is not installed).
mod html_browser;
