//! Integration tests: one binary, driving the real `scribe` executable.

// Shared helpers: a hermetic `scribe()` command, paths to samples and the corpus.
mod util;

// Flags, stdin, several files, exit codes, --strict, broken pipe, live flushing.
mod cli;
// The spine over the real Claude Code corpus (skipped when ../shared is absent).
mod corpus;
// --to text: goldens, corpus, hostile content, colour, the live view.
mod render_text;
// --to md: goldens and the <details> structure under a CommonMark parser.
mod render_md;
