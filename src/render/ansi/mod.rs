//! `--to text`: the terminal view, live.
//!
//! The look Claude Code users know: `⏺` before assistant text and tool calls, `⎿` before a
//! result, `>` before the user's prompt, thinking and synthetic context hidden unless asked for,
//! notices as dim one-line notes, and a closing line with turns, duration, tokens and cost.
//! Colours come from one `Palette`; all content passes through `sanitize` (via `layout::Span`
//! and `layout::Wrapper`), so the only escape sequences written are scribe's own.
//!
//! # A file, and a live input
//!
//! A file already written (a path, or a file redirected to standard input) is drawn from its
//! transcript's final items alone, in their order: each tool call once, its result under it,
//! parallel calls one after the other, a sub-agent's progress steps under its call.
//!
//! A live input (standard input from a pipe or a terminal, `--follow`) is drawn as it arrives, so
//! that a reader sees a call the moment the model makes it, while it runs. A call's result is
//! drawn right under it when nothing else was drawn in between; when the stream has moved on (a
//! parallel call, text, a notice), the result comes later under a `↳` line naming its call. A
//! pipe cannot redraw what it wrote, as Claude Code's own screen does.
//!
//! # Live output and reconciliation
//!
//! For a live input the pipeline hands every normalized event to `live` as it is decoded, and
//! each transcript item to `item` once it is final (an assistant turn can be final long after its
//! text streamed: it waits for its tool calls). The rule that keeps the two from printing
//! anything twice:
//!
//! - **Main-thread assistant content is printed by `live`**: text and reasoning chunk by chunk
//!   from `TextDelta` / `ReasoningDelta` (see `live.rs`: a chunk ends at a blank line outside
//!   fenced code) and the rest of the block when its `AssistantBlock` arrives (the block is
//!   authoritative: if it does not start with what was printed, which a well-formed stream never
//!   does, the block is printed whole); a tool call's line when its `AssistantBlock` arrives; its
//!   result when its `ToolResult` arrives (except Agent calls, whose result needs the sub-agent
//!   record and so waits for the item, as does a Skill call's with `--context`, to show the skill
//!   body that follows it); a sub-agent's progress line on `SubtaskProgress`. Each
//!   printed part is remembered by message id and fingerprint, each call by id.
//! - **Notices are printed by `live`** from their `Notice` event (remembered by fingerprint),
//!   except `result`, which is printed by `item`: the fold writes every turn it still holds
//!   before it, so the result stays last.
//! - **Everything else is printed by `item`**: user turns, notices the fold makes itself
//!   (permission denials, background tasks), the session header,
//!   sub-agent transcripts, and any part of a final turn that `live` did not remember (a turn
//!   from a sub-agent thread, text that only ever arrived as deltas before the input was cut).
//!   `item` consumes what it skips, so the memory only holds parts whose turn is not final yet.
//!
//! A live input's text is cut into the same chunks as a file's, so the two differ only where
//! calls overlap. The pipeline flushes whenever the input runs dry.

use std::io::{self, Write};

use super::totals::Totals;
use super::{Render, Summary};
use crate::model::Header;
use crate::model::event::{Event, EventKind};
use crate::model::hooks::HookStep;
use crate::model::session::SystemNotice;
use crate::model::tool_kind::ToolFamily;
use crate::model::transcript::{CallResult, Role, ToolCall, TranscriptItem};
use crate::render::RenderOptions;

pub(crate) mod layout;
mod live;
mod markdown;
mod notices;
mod palette;
mod table;
mod tools;
mod view;

use layout::{Line, Span, emit};
use live::{Live, StreamOf};
use palette::Palette;

/// How to draw (shared by every part of the view).
#[derive(Debug)]
pub(crate) struct View {
    pal: Palette,
    width: usize,
    full: bool,
    thinking: bool,
    context: bool,
    /// A sub-agent's progress steps are drawn with its call's result: no live input showed
    /// them as they came.
    steps: bool,
}

/// The terminal renderer.
pub(crate) struct TextRenderer {
    view: View,
    live: Live,
    /// `--stable`: tool results wait for their turn and print in call order, not in the order
    /// parallel calls happened to finish.
    results_in_call_order: bool,
    /// Something was written (blocks after the first are preceded by a blank line).
    wrote: bool,
    /// The last block was a one-line note (notes follow each other without blank lines).
    after_note: bool,
    /// `--debug`: each line nothing understood is shown where it came, not only counted.
    debug: bool,
    /// The input arrives as it is written: its parts are drawn as their events come. A file
    /// already written is drawn from its final items alone.
    live_input: bool,
    totals: Totals,
}

impl TextRenderer {
    /// A renderer for the run's settings.
    pub(crate) fn new(settings: &RenderOptions) -> TextRenderer {
        TextRenderer {
            view: View {
                pal: Palette::new(settings.color),
                width: settings.width.max(20),
                full: settings.full,
                thinking: settings.thinking,
                context: settings.context,
                steps: true,
            },
            live: Live::default(),
            results_in_call_order: settings.results_in_call_order,
            wrote: false,
            after_note: false,
            debug: settings.debug,
            live_input: false,
            totals: Totals::default(),
        }
    }

    /// Writes one block, after a blank line unless it is the first.
    fn block(&mut self, out: &mut dyn Write, lines: &[Line]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        if self.wrote {
            out.write_all(b"\n")?;
        }
        self.wrote = true;
        self.after_note = false;
        self.live.last_call = None;
        emit(out, &self.view.pal, lines)
    }

    /// Writes a note: right below the previous one when that was a note too.
    fn note_block(&mut self, out: &mut dyn Write, lines: &[Line]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        if self.after_note {
            self.live.last_call = None;
            emit(out, &self.view.pal, lines)?;
        } else {
            self.block(out, lines)?;
        }
        self.after_note = true;
        Ok(())
    }

    /// Whether an event is a branch's (its start, its end, or anything between): a branch's events
    /// are shown once, under its notice (the match of `live` lists every event kind).
    fn inside_branch(&mut self, kind: &EventKind) -> bool {
        if let EventKind::BranchStarted { .. } = kind {
            self.live.branch_depth += 1;
            return true;
        }
        if let EventKind::BranchEnded = kind {
            self.live.branch_depth = self.live.branch_depth.saturating_sub(1);
            return true;
        }
        self.live.branch_depth > 0
    }

    /// A call's result as it arrives, drawn under its call (once: a second result for a call, a
    /// replay, adds nothing). An Agent call's result needs its sub-agent record, and with
    /// --context a Skill call shows the skill body that follows its result: both wait for the
    /// item. `result` is the result as the fold applies it, so the live line and the final item
    /// agree.
    fn live_result(
        &mut self,
        out: &mut dyn Write,
        tool_call_id: &str,
        result: impl FnOnce() -> CallResult,
    ) -> io::Result<()> {
        if !self.live.heads.contains_key(tool_call_id)
            || self.live.results.contains(tool_call_id)
            || self.results_in_call_order
        {
            return Ok(());
        }
        self.head_before_result(out, tool_call_id)?;
        let Some(call) = self.live.heads.get(tool_call_id) else {
            return Ok(());
        };
        if call.family() == ToolFamily::Agent || (call.skill.is_some() && self.view.context) {
            return Ok(());
        }
        let mut call = call.clone();
        call.set_result(result());
        let lines = self.view.call_result(&call, 0);
        self.call_lines(out, &call, &lines)?;
        self.live.results.insert(tool_call_id.to_owned());
        Ok(())
    }

    /// A sub-agent's progress line, under the call that started it, when it says something new.
    fn live_progress(
        &mut self,
        out: &mut dyn Write,
        call_id: Option<String>,
        description: &str,
    ) -> io::Result<()> {
        let Some(call) = call_id.and_then(|id| self.live.heads.get(&id)).cloned() else {
            return Ok(());
        };
        if self
            .live
            .progress
            .get(&call.tool_call_id)
            .map(String::as_str)
            == Some(description)
        {
            return Ok(());
        }
        self.live
            .progress
            .insert(call.tool_call_id.clone(), description.to_owned());
        let lines = self.view.progress_line(description, 0);
        self.call_lines(out, &call, &lines)
    }

    /// Writes lines that belong to a call: right below it when it was the last thing written,
    /// else as a new block that starts with a reminder of the call.
    fn call_lines(
        &mut self,
        out: &mut dyn Write,
        call: &ToolCall,
        lines: &[Line],
    ) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        if self.live.last_call.as_deref() == Some(call.tool_call_id.as_str()) {
            self.after_note = false;
            emit(out, &self.view.pal, lines)?;
        } else {
            let mut all = self.view.note(
                &format!("↳ {}", crate::render::summary::call_line(call)),
                self.view.pal.dim,
                0,
            );
            all.extend_from_slice(lines);
            self.block(out, &all)?;
        }
        self.live.last_call = Some(call.tool_call_id.clone());
        Ok(())
    }

    /// A tool call's line, as a new block.
    fn head(&mut self, out: &mut dyn Write, call: &ToolCall) -> io::Result<()> {
        let lines = self.view.call_head(call, 0);
        self.block(out, &lines)?;
        self.live.last_call = Some(call.tool_call_id.clone());
        Ok(())
    }

    /// A notice from its event, remembered so that its item is not printed again. A hook's
    /// start or progress waits for its end, paired as the fold pairs them, so that the line
    /// printed is the one the fold writes.
    fn live_notice(&mut self, out: &mut dyn Write, notice: &SystemNotice) -> io::Result<()> {
        if !matches!(notice, SystemNotice::Hook { .. }) {
            self.live.mark_notice(notice);
            return self.notice(out, notice);
        }
        let ready = match self.live.hooks.notice(notice.clone()) {
            HookStep::Write(notices) => notices,
            HookStep::Held => return Ok(()),
        };
        for n in &ready {
            self.live.mark_notice(n);
            self.notice(out, n)?;
        }
        Ok(())
    }

    /// A notice as a note; a `result` also adds to the closing line's totals.
    fn notice(&mut self, out: &mut dyn Write, n: &SystemNotice) -> io::Result<()> {
        self.totals.add(n);
        let lines = self.view.notice(n, 0);
        if matches!(n, SystemNotice::Subagent { .. }) {
            self.block(out, &lines)
        } else {
            self.note_block(out, &lines)
        }
    }
}

impl Render for TextRenderer {
    /// A blank line parts two blocks, the last of one input and the first of the next too.
    fn stands_alone(&self) -> bool {
        false
    }

    /// A file already written is drawn from its items alone.
    fn shows_events(&self) -> bool {
        self.live_input
    }

    fn begin(&mut self, _out: &mut dyn Write, _header: &Header) -> io::Result<()> {
        self.live = Live::default();
        self.totals = Totals::default();
        Ok(())
    }

    fn input_is_live(&mut self, live: bool) {
        self.live_input = live;
        self.view.steps = !live;
    }

    fn live(&mut self, out: &mut dyn Write, event: &Event) -> io::Result<()> {
        if !self.live_input || self.inside_branch(&event.kind) {
            return Ok(());
        }
        match &event.kind {
            EventKind::TextDelta {
                thread: None,
                message_id,
                index,
                text,
            }
            | EventKind::ReasoningDelta {
                thread: None,
                message_id,
                index,
                text,
            } => {
                let reasoning = matches!(event.kind, EventKind::ReasoningDelta { .. });
                self.delta(out, StreamOf::new(message_id, *index, reasoning), text)
            }
            // With results in call order, a call is printed whole with its turn.
            EventKind::AssistantBlock {
                part: crate::model::transcript::Part::ToolCall { .. },
                ..
            } if self.results_in_call_order => Ok(()),
            EventKind::AssistantBlock {
                thread: None,
                message_id,
                part,
                ..
            } => self.live_part(out, message_id, part),
            // A denial arrives before its call's result: the result is then shown as one.
            EventKind::ToolDenied {
                tool_call_id,
                message,
                ..
            } => {
                if let Some(call) = self.live.heads.get_mut(tool_call_id) {
                    call.denied = Some(message.clone());
                }
                Ok(())
            }
            EventKind::ToolResult {
                thread: None,
                tool_call_id,
                is_error,
                output,
                error_text,
                sidecar,
                facts,
                server_run: _,
                replay: _,
                timestamp: _,
            } => self.live_result(out, tool_call_id, || CallResult {
                is_error: *is_error,
                output: output.clone(),
                error_text: error_text.clone(),
                sidecar: sidecar.clone(),
                facts: facts.clone(),
            }),
            EventKind::ToolUpdate {
                tool_call_id,
                input: Some(input),
                kind,
                ..
            } => self.input_arrived(out, tool_call_id, input, kind.as_ref()),
            // What the call does became clear without new input (an ACP edit's diff): its
            // result is drawn by the new kind.
            EventKind::ToolUpdate {
                tool_call_id,
                input: None,
                kind: Some(kind),
                ..
            } => {
                if let Some(call) = self.live.heads.get_mut(tool_call_id) {
                    call.kind = kind.clone();
                }
                Ok(())
            }
            // A result waits for its item: the fold writes every turn still held before it.
            EventKind::Notice { notice } if !matches!(**notice, SystemNotice::Result { .. }) => {
                self.live_notice(out, notice)
            }
            EventKind::SubtaskStarted {
                task_id,
                tool_call_id: Some(call_id),
                ..
            } => {
                self.live.tasks.insert(task_id.clone(), call_id.clone());
                Ok(())
            }
            EventKind::SubtaskProgress {
                task_id,
                tool_call_id,
                description,
                ..
            } => {
                let call_id = tool_call_id
                    .clone()
                    .or_else(|| self.live.tasks.get(task_id).cloned());
                self.live_progress(out, call_id, description)
            }
            // Shown when their items arrive (sub-agent threads inside their Agent call, a result
            // notice after the turns it closes), or nothing to show as it happens.
            EventKind::SessionInit { .. }
            | EventKind::UserTurn { .. }
            | EventKind::TextDelta { .. }
            | EventKind::ReasoningDelta { .. }
            | EventKind::AssistantBlock { .. }
            | EventKind::AssistantEnd { .. }
            | EventKind::ToolInputStarted { .. }
            | EventKind::ToolResult { .. }
            | EventKind::ToolUpdate { .. }
            | EventKind::ToolProgress { .. }
            | EventKind::ToolUnanswered { .. }
            | EventKind::SubtaskStarted { .. }
            | EventKind::SubtaskUpdated { .. }
            | EventKind::SubtaskFinished { .. }
            | EventKind::Notice { .. }
            | EventKind::ConversationReset
            // Counted above: the turns of a branch are shown once, under its notice.
            | EventKind::BranchStarted { .. }
            | EventKind::BranchEnded
            | EventKind::Absorbed { .. }
            | EventKind::Debug { .. } => Ok(()),
        }
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        if let TranscriptItem::Turn(t) = item {
            self.totals.add_turn(t);
        }
        match item {
            TranscriptItem::Session(s) => {
                let lines = self.view.session(s);
                self.note_block(out, &lines)
            }
            TranscriptItem::Turn(t) if t.role == Role::Assistant && t.parent_task_id.is_none() => {
                self.final_turn(out, t)
            }
            TranscriptItem::Turn(t) => {
                for b in self.view.turn_blocks(t, 0) {
                    self.block(out, &b)?;
                }
                Ok(())
            }
            TranscriptItem::Notice(n) if self.live.take_notice(n) => Ok(()),
            TranscriptItem::Notice(n) => self.notice(out, n),
            TranscriptItem::Debug(_) if !self.debug => Ok(()),
            TranscriptItem::Debug(d) => {
                let lines = vec![vec![Span::new(
                    &format!("? line {} not understood: {}", d.line, d.reason),
                    self.view.pal.dim,
                )]];
                self.block(out, &lines)
            }
        }
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        let t = &self.totals;
        let mut bits = t.figures();
        if summary.errors > 0 {
            bits.push(crate::render::figures::count(summary.errors, "input error"));
        }
        if let Some(note) = super::debug_summary(summary.debug).filter(|_| !self.debug) {
            bits.push(note);
        }
        if bits.is_empty() {
            return Ok(());
        }
        // Each figure is an item, kept whole on a line ("24,100 in · 310 out tokens" too); the
        // rules open the first item and close the last, so that they wrap with them.
        if let Some(first) = bits.first_mut() {
            *first = format!("── {first}");
        }
        if let Some(last) = bits.last_mut() {
            last.push_str(" ──");
        }
        let lines = self.view.items(bits, self.view.pal.dim);
        self.block(out, &lines)
    }
}

/// The terminal view of one text part of the model's (Markdown; its reasoning when `reasoning`),
/// `width` columns wide, as the bytes a terminal gets: what the fuzz target for the Markdown
/// path draws (`fuzzing::terminal_markdown`).
pub(crate) fn text_part_bytes(text: &str, width: usize, color: bool, reasoning: bool) -> Vec<u8> {
    let view = View {
        pal: Palette::new(color),
        width: width.max(20),
        full: false,
        thinking: true,
        context: false,
        steps: true,
    };
    let mut out = Vec::new();
    for block in view.text_blocks(text, 0, reasoning) {
        // Writing into a `Vec` cannot fail.
        let _ = emit(&mut out, &view.pal, &block);
    }
    out
}

#[cfg(test)]
mod tests;
