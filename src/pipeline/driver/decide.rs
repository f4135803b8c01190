//! Ending detection: the format is chosen from the evidence (or `--from`), its decoder built and
//! the lines held while sniffing replayed into it, chatter before the first JSON line skipped with
//! one warning; a whole JSON document is split into values, classified like lines, and given to
//! its decoder at once. JSON that no format claims is refused here (`NotALog`), before anything
//! is written; at the end, an input most of whose lines went unread is said.

use anyhow::Result;

use super::{Delivery, HeldDocument, InputDriver, MAX_BAD_RUN, State, StrictStop};
use crate::diagnostics::Diagnostics;
use crate::input::agent::Format;
use crate::input::document::{self, DocValue};
use crate::input::lines::MAX_LINE_BYTES;
use crate::input::sniff::{self, Evidence, LineShape, Verdict};
use crate::input::{self, Adapter, InputLine, Report, SourceFormat, registry};

/// The input is not a log of any format scribe knows (said on stderr): nothing was written for
/// it, and the run ends with exit status 1 once the other inputs are converted.
#[derive(Debug)]
pub(crate) struct NotALog;

impl std::fmt::Display for NotALog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a log scribe knows")
    }
}

impl std::error::Error for NotALog {}

impl InputDriver<'_> {
    /// Ends detection: picks the decoder and replays the held lines into it.
    pub(super) fn decide(&mut self, sink: &mut dyn Delivery, diag: &mut Diagnostics) -> Result<()> {
        let State::Sniffing(s) = &self.state else {
            return Ok(());
        };
        let first = s.held.first().map_or(0, |l| l.number);
        let verdict = match self.from {
            SourceFormat::Auto if s.evidence.len() == 0 && s.sse > 0 => {
                Verdict::Agreed(registry::sse_stream())
            }
            // Only broken JSON lines (an input cut inside its first line): no format can be
            // told; read it as the most common one so that the adapter reports each line.
            SourceFormat::Auto if s.evidence.len() == 0 && s.broken > 0 => {
                diag.warning(
                    self.name,
                    first,
                    "could not detect the input format (no complete JSON line); reading it as \
                     claude-stream (use --from)",
                );
                Verdict::Agreed(registry::claude_stream())
            }
            SourceFormat::Auto => s.evidence.verdict(),
            SourceFormat::Known(forced) => Verdict::Agreed(forced),
        };
        let format = match verdict {
            Verdict::Agreed(f) => f,
            Verdict::Mixed(f, what) => {
                diag.warning(
                    self.name,
                    first,
                    &format!(
                        "its first JSON lines look like different formats ({what}); \
                         reading it as {} (use --from to choose)",
                        f.name
                    ),
                );
                f
            }
            // Only blank lines: an empty transcript (`finish` writes the header).
            Verdict::Unknown(_) if s.evidence.len() == 0 && s.chatter == 0 => return Ok(()),
            // Nothing but lines that are not JSON.
            Verdict::Unknown(_) if s.evidence.len() == 0 => {
                return self.stop(diag, "no JSON line in it");
            }
            Verdict::Unknown(what) => return self.not_a_log(diag, &what),
        };
        let mut adapter = format.adapter();
        if self.name != "-" {
            adapter.set_path(self.path);
        }
        if self.live {
            adapter.set_live();
        }
        let State::Sniffing(s) = std::mem::replace(&mut self.state, State::Stream(adapter)) else {
            return Ok(());
        };
        self.begin(sink, format.name)?;
        // Lines before the first JSON value that the decoder would not read (chatter, and SSE
        // fields when the input is not SSE) are skipped, with one warning.
        let mut held = s.held.into_iter().peekable();
        let mut before = Vec::new();
        while let Some(line) = held.next_if(|l| match sniff::shape(&l.text) {
            LineShape::Other | LineShape::Blank => true,
            LineShape::SseField => !format.sse,
            LineShape::Json(_) | LineShape::DocumentStart | LineShape::BrokenJson => false,
        }) {
            before.push(line);
        }
        self.skip_chatter(before, sink, diag)?;
        self.replay(held, sink, diag)
    }

    /// Gives up on an input whose JSON no format claims: one message naming the keys it holds and
    /// the formats tried, nothing written for it, and the run's exit status 1 ([`NotALog`]).
    /// Nothing was written before: detection ends before the first output.
    fn not_a_log(&mut self, diag: &mut Diagnostics, what: &str) -> Result<()> {
        diag.message(
            self.name,
            &format!(
                "not a log scribe knows: {what}; formats tried: {} (use --from FORMAT to read it \
                 as one of them)",
                sniff::tried()
            ),
        );
        self.state = State::Stopped;
        self.stopped = true;
        Err(NotALog.into())
    }

    /// Says, as one input error about the whole input, that more than half of its lines that are
    /// not blank became `debug` records: the first lines detection decided on misled it, or the
    /// input is of a shape nobody here has seen. The run goes on (the records keep every line);
    /// `--strict` fails on it.
    pub(super) fn mostly_not_understood(&self, diag: &mut Diagnostics) {
        let (debug, lines) = (self.summary.debug, self.content_lines);
        if lines == 0 || debug * 2 <= lines {
            return;
        }
        diag.error(
            self.name,
            0,
            &format!(
                "most of it was not understood: {debug} debug records for its {lines} lines, read \
                 as {} (--debug shows them; --from reads it as another format)",
                self.began.unwrap_or("none")
            ),
        );
    }

    /// Feeds held lines to the decoder just chosen, stopping as reading them live would.
    pub(super) fn replay(
        &mut self,
        lines: impl Iterator<Item = InputLine>,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<()> {
        for line in lines {
            let errors = diag.errors();
            if !self.take(line, errors, sink, diag)? {
                break;
            }
        }
        Ok(())
    }

    /// Hands one line to the input's state, then stops at `--strict`'s first error or after a
    /// run of bad lines (`errors`: the count before the line). False once the input is stopped.
    /// A line that holds several JSON records glued together (`input::glued`) is said once and
    /// handed on as that many lines.
    pub(super) fn take(
        &mut self,
        line: InputLine,
        errors: u64,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<bool> {
        let name = self.name;
        let parts = input::glued::split(line, |n, what| diag.warning(name, n, what));
        let mut errors = errors;
        for part in parts {
            self.line(part, sink, diag)?;
            if diag.must_stop() {
                return Err(StrictStop.into());
            }
            self.count_bad(diag.errors() > errors, diag)?;
            if matches!(self.state, State::Stopped) {
                return Ok(false);
            }
            errors = diag.errors();
        }
        Ok(true)
    }

    /// Counts lines in a row that raised an input error; past `MAX_BAD_RUN` the input is not
    /// JSON Lines.
    pub(super) fn count_bad(&mut self, bad: bool, diag: &mut Diagnostics) -> Result<()> {
        self.bad_run = if bad { self.bad_run + 1 } else { 0 };
        if self.bad_run > MAX_BAD_RUN && !matches!(self.state, State::Stopped) {
            self.stop(diag, "more than 100 lines in a row it could not decode")?;
        }
        Ok(())
    }

    /// Lines before the first JSON line that are not JSON (a CLI's `Loaded cached credentials.`):
    /// one warning for all of them, and each kept as a debug record.
    pub(super) fn skip_chatter(
        &mut self,
        held: Vec<InputLine>,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<()> {
        let skipped: Vec<InputLine> = held
            .into_iter()
            .filter(|l| !l.text.trim().is_empty())
            .collect();
        let Some(first) = skipped.first() else {
            return Ok(());
        };
        diag.warning(
            self.name,
            first.number,
            &format!(
                "skipped {} line{} that {} not JSON, before the first JSON line",
                skipped.len(),
                if skipped.len() == 1 { "" } else { "s" },
                if skipped.len() == 1 { "is" } else { "are" }
            ),
        );
        for line in &skipped {
            input::push_debug(
                &mut self.events,
                line,
                "not JSON (output before the first JSON line)",
            );
        }
        self.feed(sink)
    }

    /// A whole JSON document: its values are classified like lines, then given to the adapter.
    pub(super) fn document(
        &mut self,
        doc: &HeldDocument,
        sink: &mut dyn Delivery,
        diag: &mut Diagnostics,
    ) -> Result<()> {
        let HeldDocument {
            format,
            ref text,
            first_line,
        } = *doc;
        let values = match document::values(text, first_line) {
            Ok(v) => v,
            Err((line, what)) => {
                diag.error(
                    self.name,
                    line,
                    &format!("a JSON document that does not parse: {what}"),
                );
                // Detected, not asked for: nothing in the input was JSON, so it is no log.
                if format == SourceFormat::Auto {
                    self.state = State::Stopped;
                    self.stopped = true;
                    return Err(NotALog.into());
                }
                return self.begin(sink, "none");
            }
        };
        let format: &'static Format = match format {
            SourceFormat::Auto => {
                let mut evidence = Evidence::default();
                for DocValue { value, .. } in values.iter().take(sniff::EVIDENCE) {
                    evidence.add(value);
                }
                match evidence.verdict() {
                    Verdict::Agreed(f) | Verdict::Mixed(f, _) => f,
                    // `[]`: no value to tell a format by.
                    Verdict::Unknown(_) if values.is_empty() => {
                        diag.error(
                            self.name,
                            first_line,
                            &format!(
                                "an empty JSON array: no format to tell; tried {} (use --from \
                                 to force one)",
                                sniff::tried()
                            ),
                        );
                        return self.begin(sink, "none");
                    }
                    Verdict::Unknown(what) => return self.not_a_log(diag, &what),
                }
            }
            SourceFormat::Known(f) => f,
        };
        let mut adapter = format.adapter();
        if self.name != "-" {
            adapter.set_path(self.path);
        }
        self.begin(sink, format.name)?;
        let mut report = Report {
            file: self.name,
            problems: diag,
        };
        adapter.document(values, &mut self.events, &mut report);
        self.finish_adapter(adapter.as_mut(), &mut report, sink)?;
        sink.end_of_events()
    }

    /// The input ended: the adapter emits what it held. A saved session sends its events in
    /// batches (flat memory); the call that says nothing is left may still have sent the last
    /// batch.
    pub(super) fn finish_adapter(
        &mut self,
        adapter: &mut dyn Adapter,
        report: &mut Report<'_>,
        sink: &mut dyn Delivery,
    ) -> Result<()> {
        adapter.finish(&mut self.events, report);
        loop {
            self.feed(sink)?;
            let more = adapter.drain(&mut self.events, report);
            if !more {
                return self.feed(sink);
            }
        }
    }
}

/// What the reader says of a line it read: cut at [`MAX_LINE_BYTES`] (with the bytes of an earlier
/// cut line skipped, once its end was read), or not valid UTF-8.
pub(super) fn say_of_read(
    name: &str,
    (line, cut, skipped): (&InputLine, bool, Option<(u64, u64)>),
    diag: &mut Diagnostics,
) {
    if cut {
        diag.error(
            name,
            line.number,
            &format!(
                "longer than {} MiB, the most a line may hold: the rest of the line is skipped, \
                 not read into memory",
                MAX_LINE_BYTES >> 20
            ),
        );
    }
    report_skipped(name, skipped, diag);
    if line.lossy {
        diag.error(name, line.number, "invalid UTF-8 (replaced with U+FFFD)");
    }
}

/// Reports how much of a line past [`MAX_LINE_BYTES`] was skipped (its line and byte count).
pub(super) fn report_skipped(name: &str, skipped: Option<(u64, u64)>, diag: &mut Diagnostics) {
    if let Some((number, bytes)) = skipped {
        diag.error(
            name,
            number,
            &format!("{bytes} bytes past the line maximum were skipped"),
        );
    }
}
