//! What the live path has already printed, and how streamed text is cut into printable chunks.
//!
//! Assistant text is Markdown, and Markdown cannot be rendered word by word (a `**` or a table
//! only means something once it is closed). So text is cut into *chunks* at blank lines outside
//! fenced code, and each chunk is rendered on its own. The cut depends only on the text before
//! it, so a chunk can be printed as soon as the blank line after it has streamed in, and a text
//! rendered whole (no deltas) is cut at exactly the same places: the output is the same bytes
//! whether or not the input had partial messages.

use foldhash::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

use std::io::{self, Write};

use super::TextRenderer;
use crate::model::hooks::OpenHooks;
use crate::model::session::SystemNotice;
use crate::model::transcript::{Part, ToolCall, Turn};

/// Byte offsets just after each blank line that is outside fenced code (only complete lines
/// count; the text is assumed to start outside a fence).
pub(super) fn boundaries(text: &str) -> Vec<usize> {
    Cuts::default().scan(text)
}

/// A scan for chunk boundaries that goes on where it stopped, so that text streamed in many
/// deltas is scanned once in all, not once per delta.
#[derive(Debug, Default, Clone)]
pub(super) struct Cuts {
    /// Bytes scanned (always just after a line feed).
    pos: usize,
    /// The fence the scan is inside: its character and length.
    fence: Option<(char, usize)>,
}

impl Cuts {
    /// Scans the complete lines of `text` after the previous call's position (the text only
    /// ever grows); returns the new boundaries as offsets into `text`.
    pub(super) fn scan(&mut self, text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        for line in text[self.pos..].split_inclusive('\n') {
            if !line.ends_with('\n') {
                break;
            }
            self.pos += line.len();
            let t = line.trim();
            // A fence may open after list or quote markers (`- ````, `> ~~~`): look past them.
            // Seeing a fence that is not one only delays printing; missing one would cut a block.
            let opener = t.trim_start_matches(|c: char| {
                matches!(c, '>' | '-' | '*' | '+' | '.' | ')' | ' ') || c.is_ascii_digit()
            });
            let run = |s: &str, c: char| s.chars().take_while(|&x| x == c).count();
            match self.fence {
                Some((c, n)) => {
                    if run(t, c) >= n && t.chars().all(|x| x == c) {
                        self.fence = None;
                    }
                }
                None => {
                    if t.is_empty() {
                        out.push(self.pos);
                    } else if run(opener, '`') >= 3 {
                        self.fence = Some(('`', run(opener, '`')));
                    } else if run(opener, '~') >= 3 {
                        self.fence = Some(('~', run(opener, '~')));
                    }
                }
            }
        }
        out
    }
}

/// Cuts a whole text into chunks (see the module doc). Blank chunks are dropped.
pub(super) fn chunks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for b in boundaries(text).into_iter().chain([text.len()]) {
        let c = &text[start..b];
        if !c.trim().is_empty() {
            out.push(c);
        }
        start = b;
    }
    out
}

/// Which stream a delta extends: its message, its content block's index there, and whether the
/// block is thinking.
#[derive(Debug, Clone, Copy)]
pub(super) struct StreamOf<'a> {
    /// The message the delta belongs to.
    pub(super) message_id: &'a str,
    /// The content block's index in its message.
    pub(super) index: u64,
    /// Thinking rather than text.
    pub(super) reasoning: bool,
}

impl StreamOf<'_> {
    /// The stream of block `index` of message `message_id`, thinking or text.
    pub(super) fn new(message_id: &str, index: u64, reasoning: bool) -> StreamOf<'_> {
        StreamOf {
            message_id,
            index,
            reasoning,
        }
    }
}

/// Delta text of one content block, and how much of it has been printed.
#[derive(Debug)]
pub(super) struct Stream {
    /// The message and content-block index the deltas belong to.
    pub(super) message_id: String,
    /// The content block's index in its message.
    pub(super) index: u64,
    /// Thinking rather than text.
    pub(super) reasoning: bool,
    /// The text streamed so far.
    pub(super) text: String,
    /// Bytes of `text` printed (always at a chunk boundary).
    pub(super) printed: usize,
    /// The first chunk (the one with the bullet) has been printed.
    pub(super) bulleted: bool,
    /// Where the boundary scan of `text` stands.
    pub(super) cuts: Cuts,
}

/// The live path's memory, so that the final items print only what it has not.
#[derive(Debug, Default)]
pub(super) struct Live {
    /// How many abandoned branches the events are inside: their turns are shown once, under the
    /// branch notice, not live.
    pub(super) branch_depth: usize,
    /// Blocks whose deltas are streaming (main thread only).
    pub(super) streams: Vec<Stream>,
    /// Content parts printed from an `AssistantBlock`, by fingerprint (of the message id and
    /// the part), counted.
    shown: HashMap<u64, u32>,
    /// Main-thread calls whose head line was printed, kept to render their result later (boxed:
    /// a message of 100 000 parallel calls grows this map, and a rehash moves only pointers).
    pub(super) heads: HashMap<String, Box<ToolCall>>,
    /// Calls in `heads` whose line waits for their input: some sources open a call before they
    /// send its arguments (a `tool-update` brings them), and a line without them says nothing.
    pub(super) deferred: HashSet<String>,
    /// Calls whose result was printed.
    pub(super) results: HashSet<String>,
    /// Task id → the Agent call that owns it.
    pub(super) tasks: HashMap<String, String>,
    /// The last progress line printed per call (the CLI repeats them).
    pub(super) progress: HashMap<String, String>,
    /// Notices printed from their event, by fingerprint, counted.
    notices: HashMap<u64, u32>,
    /// Hooks started and not ended, paired as the fold pairs them: a hook is printed once, at
    /// its end, as the fold writes it (one that never ends is printed by `item`).
    pub(super) hooks: OpenHooks,
    /// The call whose lines were the last thing printed (a result right below its call needs no
    /// reminder of which call it belongs to).
    pub(super) last_call: Option<String>,
    /// The buffer fingerprints are written into.
    scratch: Vec<u8>,
}

/// A 64-bit fingerprint of `value`'s JSON text, after `scope` (a message id, or nothing), so
/// that a final item can tell whether the live path printed it. Written into `scratch` (kept
/// between calls, given back when one large value grew it) and hashed with a fixed seed: no
/// allocation per part, where a `String` of the JSON and an owned key were.
fn fingerprint<T: serde::Serialize>(scratch: &mut Vec<u8>, scope: &str, value: &T) -> u64 {
    const KEEP: usize = 1 << 20;
    scratch.clear();
    scratch.extend_from_slice(scope.as_bytes());
    scratch.push(0);
    // A part or notice always serializes (the JSONL output writes the same values).
    let _ = scribe_json::write(scratch, value);
    let h = foldhash::quality::FixedState::default().hash_one(&scratch[..]);
    if scratch.capacity() > KEEP {
        *scratch = Vec::new();
    }
    h
}

/// Takes one from a counted set.
fn take_one<K: Eq + Hash>(map: &mut HashMap<K, u32>, key: K) -> bool {
    match map.get_mut(&key) {
        Some(n) if *n > 1 => {
            *n -= 1;
            true
        }
        Some(_) => {
            map.remove(&key);
            true
        }
        None => false,
    }
}

impl Live {
    /// Remembers that a part of `message_id` was printed.
    pub(super) fn mark(&mut self, message_id: &str, part: &Part) {
        let key = fingerprint(&mut self.scratch, message_id, part);
        *self.shown.entry(key).or_default() += 1;
    }

    /// True (once) if the live path printed this part.
    pub(super) fn take(&mut self, message_id: &str, part: &Part) -> bool {
        let key = fingerprint(&mut self.scratch, message_id, part);
        take_one(&mut self.shown, key)
    }

    /// Remembers that a notice was printed from its event.
    pub(super) fn mark_notice(&mut self, notice: &SystemNotice) {
        let key = fingerprint(&mut self.scratch, "", notice);
        *self.notices.entry(key).or_default() += 1;
    }

    /// True (once) if the live path printed this notice.
    pub(super) fn take_notice(&mut self, notice: &SystemNotice) -> bool {
        let key = fingerprint(&mut self.scratch, "", notice);
        take_one(&mut self.notices, key)
    }

    /// The first unsettled stream of a message's text (or reasoning), removed.
    pub(super) fn settle(&mut self, message_id: &str, reasoning: bool) -> Option<Stream> {
        let i = self
            .streams
            .iter()
            .enumerate()
            .filter(|(_, s)| s.message_id == message_id && s.reasoning == reasoning)
            .min_by_key(|(_, s)| s.index)
            .map(|(i, _)| i)?;
        Some(self.streams.remove(i))
    }
}

/// The live path of the text renderer (see the reconciliation rule in the module doc of
/// `ansi`).
impl TextRenderer {
    /// Prints the chunks of `text` (text or reasoning) as blocks.
    pub(super) fn text(
        &mut self,
        out: &mut dyn Write,
        text: &str,
        reasoning: bool,
        bulleted: &mut bool,
    ) -> io::Result<()> {
        if reasoning && !self.view.thinking {
            return Ok(());
        }
        for chunk in chunks(text) {
            let lines = self.view.chunk(chunk, 0, reasoning, !*bulleted);
            *bulleted = true;
            self.block(out, &lines)?;
        }
        Ok(())
    }

    /// A delta of the stream `of` arrived: print every chunk it completed.
    pub(super) fn delta(
        &mut self,
        out: &mut dyn Write,
        of: StreamOf<'_>,
        text: &str,
    ) -> io::Result<()> {
        let StreamOf {
            message_id,
            index,
            reasoning,
        } = of;
        let pos = match self
            .live
            .streams
            .iter()
            .position(|s| s.message_id == message_id && s.index == index)
        {
            Some(p) => p,
            None => {
                self.live.streams.push(Stream {
                    message_id: message_id.to_owned(),
                    index,
                    reasoning,
                    text: String::new(),
                    printed: 0,
                    bulleted: false,
                    cuts: Cuts::default(),
                });
                self.live.streams.len() - 1
            }
        };
        let s = &mut self.live.streams[pos];
        s.text.push_str(text);
        let Some(b) = s.cuts.scan(&s.text).last().copied() else {
            return Ok(());
        };
        let start = s.printed;
        s.printed = b;
        let chunk = s.text[start..b].to_owned();
        let mut bulleted = s.bulleted;
        self.text(out, &chunk, reasoning, &mut bulleted)?;
        if let Some(s) = self.live.streams.get_mut(pos) {
            s.bulleted = bulleted;
        }
        Ok(())
    }

    /// A text or reasoning part is final: print what its stream (if any) did not.
    pub(super) fn settle_text(
        &mut self,
        out: &mut dyn Write,
        message_id: &str,
        text: &str,
        reasoning: bool,
    ) -> io::Result<()> {
        let (rest, mut bulleted) = match self.live.settle(message_id, reasoning) {
            Some(s) if text.starts_with(&s.text[..s.printed]) => (&text[s.printed..], s.bulleted),
            _ => (text, false),
        };
        self.text(out, rest, reasoning, &mut bulleted)
    }

    /// A main-thread content part, printed the moment its block arrives.
    pub(super) fn live_part(
        &mut self,
        out: &mut dyn Write,
        message_id: &str,
        part: &Part,
    ) -> io::Result<()> {
        let Part::ToolCall { call } = part else {
            self.live.mark(message_id, part);
            return self.settle_part(out, message_id, part);
        };
        self.live
            .heads
            .insert(call.tool_call_id.clone(), call.clone());
        if has_no_input(&call.input) {
            self.live.deferred.insert(call.tool_call_id.clone());
            return Ok(());
        }
        self.head(out, call)
    }

    /// A part other than a call, final: text and reasoning past what their stream printed, any
    /// other part as its one line.
    fn settle_part(
        &mut self,
        out: &mut dyn Write,
        message_id: &str,
        part: &Part,
    ) -> io::Result<()> {
        match part {
            Part::Text { text, .. } => self.settle_text(out, message_id, text, false),
            Part::Reasoning { text, redacted, .. } => {
                let text = if *redacted {
                    "(redacted thinking)"
                } else {
                    text
                };
                self.settle_text(out, message_id, text, true)
            }
            Part::ToolCall { .. }
            | Part::File { .. }
            | Part::SourceUrl { .. }
            | Part::SourceDocument { .. }
            | Part::Compaction { .. }
            | Part::Data { .. } => {
                let lines = self.view.other_part(part, 0);
                self.block(out, &lines)
            }
        }
    }

    /// A call whose input arrived after it opened (`tool-update`): its line can be printed now.
    pub(super) fn input_arrived(
        &mut self,
        out: &mut dyn Write,
        call_id: &str,
        input: &serde_json::Value,
        kind: Option<&crate::model::tool_kind::ToolKind>,
    ) -> io::Result<()> {
        let Some(call) = self.live.heads.get_mut(call_id) else {
            return Ok(());
        };
        call.input = input.clone();
        if let Some(k) = kind {
            call.kind = k.clone();
        }
        if has_no_input(input) || !self.live.deferred.remove(call_id) {
            return Ok(());
        }
        let call = call.clone();
        self.head(out, &call)
    }

    /// A call's result arrives live: its deferred line first, if it still waits.
    pub(super) fn head_before_result(
        &mut self,
        out: &mut dyn Write,
        call_id: &str,
    ) -> io::Result<()> {
        if !self.live.deferred.remove(call_id) {
            return Ok(());
        }
        match self.live.heads.get(call_id).cloned() {
            Some(call) => self.head(out, &call),
            None => Ok(()),
        }
    }

    /// A final assistant turn of the main thread: print what the live path did not.
    pub(super) fn final_turn(&mut self, out: &mut dyn Write, turn: &Turn) -> io::Result<()> {
        for part in &turn.parts {
            if !matches!(part, Part::ToolCall { .. }) && self.live.take(&turn.id, part) {
                continue;
            }
            let Part::ToolCall { call } = part else {
                self.settle_part(out, &turn.id, part)?;
                continue;
            };
            let deferred = self.live.deferred.remove(&call.tool_call_id);
            if self.live.heads.remove(&call.tool_call_id).is_none() || deferred {
                self.head(out, call)?;
            }
            if !self.live.results.remove(&call.tool_call_id) {
                let lines = self.view.call_result(call, 0);
                self.call_lines(out, call, &lines)?;
            }
            self.live.progress.remove(&call.tool_call_id);
        }
        Ok(())
    }
}

/// An input that says nothing yet (`null` or `{}`).
fn has_no_input(input: &serde_json::Value) -> bool {
    input.is_null() || input.as_object().is_some_and(serde_json::Map::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_blank_lines_outside_fences() {
        let t = "one\n\n```\na\n\nb\n```\n\ntwo\n\nthree";
        assert_eq!(
            chunks(t),
            ["one\n\n", "```\na\n\nb\n```\n\n", "two\n\n", "three"]
        );
        let t = "- ```\n  a\n\n  b\n  ```\n\nc";
        assert_eq!(chunks(t), ["- ```\n  a\n\n  b\n  ```\n\n", "c"]);
    }

    #[test]
    fn an_unfinished_line_is_not_a_boundary() {
        assert_eq!(boundaries("one\n\n"), [5]);
        assert_eq!(boundaries("one\n"), Vec::<usize>::new());
        assert_eq!(boundaries("one\n  "), Vec::<usize>::new());
    }

    #[test]
    fn cuts_from_a_cut_agree_with_whole_cuts() {
        let t = "a\n\n```\nx\n\ny\n```\n\n- b\n\n  c\n\n~~~~\n~~~\n\n~~~~\nend";
        let whole = boundaries(t);
        for &p in &whole {
            let from: Vec<usize> = boundaries(&t[p..]).into_iter().map(|b| b + p).collect();
            let want: Vec<usize> = whole.iter().copied().filter(|&b| b > p).collect();
            assert_eq!(from, want, "from {p}");
        }
    }

    #[test]
    fn prefix_cuts_agree_with_whole_cuts() {
        let t = "a\n\n~~~\nx\n\n~~~\nb\n\nc\n";
        let whole = boundaries(t);
        for end in 0..=t.len() {
            let part = boundaries(&t[..end]);
            assert!(part.iter().all(|b| whole.contains(b)), "{end}");
        }
    }
}
