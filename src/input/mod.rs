//! Stage 1 → stage 2 (the Input layer, docs/architecture.md): input adapters, one per source
//! format, in one folder per agent (`claude/`, `qwen/`, `codex/`, `gemini/`; `anthropic/` holds
//! the shapes Claude Code and Qwen Code share). No agent folder imports another's.
//!
//! An adapter receives numbered lines (or a whole document's values) and emits normalized events.
//! It never builds turns: that is the fold's job. Each agent folder declares what shared code
//! needs of it (`agent::Agent`: its formats, their detection rules and decoders, its sessions on
//! disk), and `registry` lists them: shared code reaches an agent only through that table, and
//! agent folders use shared helpers, never the table. `sniff` picks a format from the first JSON
//! values when `--from` is `auto`; `document` splits inputs that are one JSON document rather than
//! JSON Lines; `discover` lists the sessions under a directory. The pipe's `driver` is what calls
//! them.
//!
//! Every adapter reads a line's JSON through the crate `scribe_json`, one way for all: a
//! `Value` by [`parse_json_line`] (`scribe_json::parse_line`, with the diagnostic of a line that is
//! not an object), or typed structs by `scribe_json::from_str` on a hot path.

use std::path::Path;

use serde_json::Value;

use crate::model::event::{Event, EventKind};

/// What an agent's folder declares about itself (the registry's entries).
pub(crate) mod agent;
/// The Anthropic Messages and Agent SDK stream-json shapes, spoken by Claude Code and copied by
/// Qwen Code's stream-json: content blocks, messages, the §4 user-envelope classifier.
pub(crate) mod anthropic;
/// Claude Code: stream-json and saved sessions.
pub(crate) mod claude;
/// OpenAI Codex CLI: `exec --json` and rollout files.
mod codex;
/// The session files under a directory, for every agent.
pub(crate) mod discover;
/// Whole JSON documents (arrays of messages, pretty-printed messages) split into values.
pub(crate) mod document;
/// JSON field accessors and the `info` notice constructor shared by every adapter.
pub(crate) mod fields;
/// The input formats (`--from`).
mod format;
/// Google Gemini CLI: stream-json and saved chats.
mod gemini;
/// Lines that hold several JSON records glued together, split into lines of their own.
pub(crate) mod glued;
pub(crate) mod lines;
/// The input layer's own way to report problems (the pipeline's diagnostics implement it).
pub(crate) mod problems;
/// Qwen Code: the daemon's SSE stream and stream-json.
mod qwen;
/// The agents, one entry each: the only way shared code reaches an agent's folder.
pub(crate) mod registry;
pub(crate) mod scribe_jsonl;
/// Format detection from the first JSON values of an input.
pub(crate) mod sniff;
mod sse;
/// Tool kinds: the constructors and the fallback every adapter shares.
pub(crate) mod tool_kind;
/// The one directory walk (session discovery, sub-agent files).
pub(crate) mod walk;

pub(crate) use format::SourceFormat;
pub(crate) use lines::InputLine;
pub(crate) use problems::{Problems, Unheard};

/// Where adapters report input errors: the file name plus wherever the run's problems go.
pub(crate) struct Report<'a> {
    pub(crate) file: &'a str,
    pub(crate) problems: &'a mut dyn Problems,
}

impl Report<'_> {
    /// An input error at a line.
    pub(crate) fn error(&mut self, line: u64, what: &str) {
        self.problems.error(self.file, line, what);
    }

    /// Something odd at a line that did not stop it from being used.
    pub(crate) fn warning(&mut self, line: u64, what: &str) {
        self.problems.warning(self.file, line, what);
    }

    /// Lines `first..=last` were read as one record that begins at `first` (for `--stats`).
    pub(crate) fn span(&mut self, first: u64, last: u64) {
        self.problems.span(self.file, first, last);
    }
}

/// A source format's decoder.
pub(crate) trait Adapter {
    /// Decodes one line, appending the events it yields.
    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>);
    /// The values of a whole JSON document (see `document`), in order. By default each value is
    /// one message, decoded as if it were a line of its own; an adapter whose format is one
    /// document (a Gemini chat saved as `session-*.json`) takes it apart its own way.
    fn document(
        &mut self,
        values: Vec<document::DocValue>,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        for document::DocValue { line, value } in values {
            self.line(&InputLine::of_value(line, &value), out, report);
        }
    }
    /// The input ended: emit whatever was held back (or its first part, see `drain`).
    fn finish(&mut self, _out: &mut Vec<Event>, _report: &mut Report<'_>) {}
    /// After `finish`: emits the next part of what was held back; false when nothing is left
    /// after the events this call sent (which the caller must still pass on).
    /// An adapter that writes a whole file at its end (a saved session, ordered by its chain)
    /// sends it in parts, so that the events of a large file are never all in memory at once.
    fn drain(&mut self, _out: &mut Vec<Event>, _report: &mut Report<'_>) -> bool {
        false
    }
    /// Where the input file is, for formats that read files beside it (a saved session's
    /// sub-agents). Not called for standard input.
    fn set_path(&mut self, _path: &Path) {}
    /// True when the adapter keeps line `number` (just read) and emits its events later (at the
    /// end of the input, when a multi-line frame closes, or when a header it waits for comes).
    /// Any other line that yields no event and no diagnostic is kept as a `debug` record by the
    /// pipeline, in its place, so that nothing vanishes.
    fn holds_line(&self, _number: u64) -> bool {
        false
    }
    /// Follow mode (`--follow`): the file is still being written, so emit each line's events
    /// as it is read (in file order) rather than holding the file until its end. Formats that
    /// already stream ignore it.
    fn set_live(&mut self) {}
    /// Follow mode, while the input is quiet: read what grew in the files beside it (a saved
    /// session's sub-agent transcripts), then close the files kept open (they are opened again
    /// when read from: a quiet session holds no descriptor).
    fn poll(&mut self, _out: &mut Vec<Event>, _report: &mut Report<'_>) {}
}

/// Parses a line as one JSON object (`scribe_json::parse_line`). On failure, reports an input error and emits a `debug`
/// event that keeps the raw line, so nothing is lost. A blank line is no object and no error:
/// `None`, nothing reported.
pub(crate) fn parse_json_line(
    line: &InputLine,
    out: &mut Vec<Event>,
    report: &mut Report<'_>,
) -> Option<Value> {
    if line.text.trim().is_empty() {
        return None;
    }
    match scribe_json::parse_line(&line.text) {
        Ok(v) if v.is_object() => Some(v),
        Ok(_) => {
            report.error(line.number, "not a JSON object");
            push_debug(out, line, "not a JSON object");
            None
        }
        Err(e) => {
            let what = if line.unterminated && e.is_eof() {
                "truncated last line (no newline, incomplete JSON)".to_owned()
            } else {
                format!("invalid JSON: {e}")
            };
            report.error(line.number, &what);
            push_debug(out, line, &what);
            None
        }
    }
}

/// Emits a `debug` event for a line, keeping it whole.
pub(crate) fn push_debug(out: &mut Vec<Event>, line: &InputLine, reason: &str) {
    out.push(Event::at(
        line.number,
        EventKind::debug(reason.to_owned(), line.text.clone(), false),
    ));
}
