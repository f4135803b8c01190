//! Private keys that arrive one line at a time: a command's stderr merged into the stream puts
//! each line of a PEM block in a `debug` record of its own, where the pattern that finds a whole
//! key sees only its `-----BEGIN … PRIVATE KEY-----` line. [`KeyBlocks`] follows a block across
//! those records: from a line that opens one, every line nothing understood is inside it up to
//! and including the matching `-----END` line, or until a JSON line comes (whatever came of that
//! line, the block was cut short there; the lines already inside it stay redacted). Blank lines
//! (an encrypted key's headers end with one) leave a block open.
//!
//! It watches the events in input order, as the driver decodes them, and remembers line numbers,
//! never lines: a `debug` record reaches the transforms after its event (the fold may hold it
//! behind an unfinished turn), and then asks whether its line was inside a block.

use std::collections::VecDeque;
use std::sync::LazyLock;

use regex::Regex;

use crate::model::event::{Event, EventKind};

/// What a line inside a block becomes.
const REDACTED_LINE: &str = "[REDACTED:private-key]";

/// Closed blocks remembered at most; past that, the two oldest are merged into one that covers
/// both and the lines between (a line too many redacted rather than one too few).
const CLOSED_MAX: usize = 64;

/// The line that opens a private-key block (`label`: what stands between `BEGIN` and the last
/// dashes, which its `END` line repeats).
static BEGIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-----BEGIN (?P<label>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----").expect("valid regex")
});

/// The block the lines being read are inside, if any.
#[derive(Debug)]
struct Open {
    /// The line of its `BEGIN`.
    first: u64,
    /// Its `END` line, word for word.
    end: String,
}

/// The private-key blocks of one input, by line number.
#[derive(Debug, Default)]
pub(crate) struct KeyBlocks {
    open: Option<Open>,
    /// Blocks that ended, as (first line, last line), oldest first.
    closed: VecDeque<(u64, u64)>,
}

impl KeyBlocks {
    /// Takes in one event, in the order the driver decoded them: a `debug` record of a line that
    /// is not JSON may open, continue or end a block; any other event from a line past the
    /// block's start (a JSON line understood) ends it before that line.
    pub(crate) fn watch(&mut self, event: &Event) {
        // Only a `debug` record of a line that is not JSON can be part of a block.
        let raw = if let EventKind::Debug { raw, .. } = &event.kind {
            Some(raw).filter(|r| scribe_json::parse_line(r).is_err())
        } else {
            None
        };
        match (&self.open, raw) {
            (Some(open), Some(raw)) if raw.contains(&open.end) && event.line > open.first => {
                self.close(event.line);
            }
            (Some(open), None) if event.line > open.first => self.close(event.line - 1),
            (Some(_), _) => {}
            (None, Some(raw)) => self.open = opened(event.line, raw),
            (None, None) => {}
        }
    }

    /// True when line `line` is inside a block: its text is to be redacted whole. A block's
    /// `BEGIN` line is not: the pattern for private keys redacts it, keeping what precedes it.
    fn covers(&self, line: u64) -> bool {
        let open = self.open.as_ref().is_some_and(|o| line > o.first);
        open || self
            .closed
            .iter()
            .any(|&(first, last)| line > first && line <= last)
    }

    /// A `debug` record's raw line, redacted whole when line `line` is inside a block.
    pub(crate) fn redact_line(&self, line: u64, raw: &mut String) {
        if self.covers(line) {
            REDACTED_LINE.clone_into(raw);
        }
    }

    /// The open block ends at line `last`.
    fn close(&mut self, last: u64) {
        let Some(open) = self.open.take() else {
            return;
        };
        if self.closed.len() == CLOSED_MAX {
            if let (Some((first, _)), Some((_, last))) =
                (self.closed.pop_front(), self.closed.pop_front())
            {
                self.closed.push_front((first, last));
            }
        }
        self.closed.push_back((open.first, last));
    }
}

/// The block that `raw` (line `line`, not JSON) opens: a private key's `BEGIN` line whose `END`
/// does not follow on the same line.
fn opened(line: u64, raw: &str) -> Option<Open> {
    let begin = BEGIN.captures_iter(raw).last()?;
    let end = format!("-----END {}-----", &begin["label"]);
    let after = &raw[begin.get(0).map_or(raw.len(), |m| m.end())..];
    (!after.contains(&end)).then_some(Open { first: line, end })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn debug(line: u64, raw: &str) -> Event {
        Event {
            line,
            kind: EventKind::Debug {
                reason: String::new(),
                raw: raw.to_owned(),
                malformed: false,
            },
        }
    }

    fn understood(line: u64) -> Event {
        Event {
            line,
            kind: EventKind::ConversationReset,
        }
    }

    #[test]
    fn a_block_runs_from_its_begin_to_its_matching_end() {
        let mut k = KeyBlocks::default();
        k.watch(&debug(2, "-----BEGIN RSA PRIVATE KEY-----"));
        k.watch(&debug(3, "MIIEpAIBAAKCAQEA"));
        k.watch(&debug(4, "-----END EC PRIVATE KEY-----"));
        k.watch(&debug(5, "-----END RSA PRIVATE KEY-----"));
        k.watch(&debug(6, "after"));
        assert_eq!(
            (1..=6).map(|n| k.covers(n)).collect::<Vec<_>>(),
            [false, false, true, true, true, false]
        );
    }

    #[test]
    fn a_json_line_ends_a_block_and_blank_lines_do_not() {
        let mut k = KeyBlocks::default();
        k.watch(&debug(2, "-----BEGIN PRIVATE KEY-----"));
        k.watch(&debug(3, "Proc-Type: 4,ENCRYPTED"));
        // Line 4 is blank: no event.
        k.watch(&debug(5, "MIIEpAIBAAKCAQEA"));
        k.watch(&understood(6));
        k.watch(&debug(7, "after"));
        k.watch(&debug(8, r#"{"type":"x"}"#));
        assert_eq!(
            (1..=8).map(|n| k.covers(n)).collect::<Vec<_>>(),
            [false, false, true, true, true, false, false, false]
        );
    }

    #[test]
    fn a_key_on_one_line_and_a_late_event_open_or_close_nothing() {
        let mut k = KeyBlocks::default();
        k.watch(&debug(
            2,
            r"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
        ));
        k.watch(&debug(3, "plain"));
        assert!(!k.covers(3));
        k.watch(&debug(4, "-----BEGIN OPENSSH PRIVATE KEY-----"));
        k.watch(&understood(3));
        k.watch(&debug(5, "b3BlbnNzaC1rZXktdjEAAAAA"));
        assert!(k.covers(5));
    }

    #[test]
    fn memory_stays_bounded_and_never_uncovers_a_line() {
        let mut k = KeyBlocks::default();
        for b in 0..1000 {
            let first = b * 10;
            k.watch(&debug(first, "-----BEGIN PRIVATE KEY-----"));
            k.watch(&debug(first + 1, "MIIE"));
            k.watch(&debug(first + 2, "-----END PRIVATE KEY-----"));
        }
        assert!(k.closed.len() <= CLOSED_MAX);
        assert!((0..1000).all(|b| k.covers(b * 10 + 1) && k.covers(b * 10 + 2)));
        assert!(!k.covers(99_995));
    }
}
