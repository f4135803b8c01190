//! `--to text`: the terminal view, live.
//!
//! The look Claude Code users know: `⏺` before assistant text and tool calls, `⎿` before a
//! result, `>` before the user's prompt, thinking and synthetic context hidden unless asked for,
//! notices as dim one-line notes, and a closing line with turns, duration, tokens and cost.
//! Colours come from one `Palette`; all content passes through `sanitize` (via `layout::Span`
//! and `layout::Wrapper`), so the only escape sequences written are scribe's own.
//!
//! # Live output and reconciliation
//!
//! The pipeline hands every normalized event to `live` as it is decoded, and each transcript item
//! to `item` once it is final (an assistant turn can be final long after its text streamed: it
//! waits for its tool calls). The rule that keeps the two from printing anything twice:
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
//! The same code runs for a file and for a live pipe, so the output bytes do not depend on how
//! the input arrived. The pipeline flushes whenever the input runs dry.

use std::io::{self, Write};

use owo_colors::Style;

use super::{Header, Render, Summary};
use crate::model::event::{Event, EventKind};
use crate::model::session::{HookStatus, Level, SessionSnapshot, SystemNotice};
use crate::model::transcript::{Part, Role, ToolCall, TranscriptItem, Turn, TurnOrigin, Usage};
use crate::settings::Settings;

mod layout;
mod live;
mod markdown;
mod palette;
pub(crate) mod sanitize;
mod tools;

use layout::{Line, Span, Wrapper, emit};
use live::{Live, Stream, chunks};
use palette::Palette;

/// How to draw (shared by every part of the view).
#[derive(Debug)]
pub(crate) struct View {
    pal: Palette,
    width: usize,
    full: bool,
    thinking: bool,
    context: bool,
}

/// The terminal renderer.
pub(crate) struct TextRenderer {
    view: View,
    live: Live,
    /// Something was written (blocks after the first are preceded by a blank line).
    wrote: bool,
    /// The last block was a one-line note (notes follow each other without blank lines).
    after_note: bool,
    totals: Totals,
}

/// What the `result` notices of one input add up to.
#[derive(Debug, Default)]
struct Totals {
    results: u64,
    turns: u64,
    duration_ms: u64,
    usage: Usage,
    cost: f64,
    has_cost: bool,
}

impl TextRenderer {
    /// A renderer for the run's settings.
    pub(crate) fn new(settings: &Settings) -> TextRenderer {
        TextRenderer {
            view: View {
                pal: Palette::new(settings.color),
                width: settings.width.max(20),
                full: settings.full,
                thinking: settings.thinking,
                context: settings.context,
            },
            live: Live::default(),
            wrote: false,
            after_note: false,
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
            emit(out, &self.view.pal, lines)?;
        } else {
            self.block(out, lines)?;
        }
        self.after_note = true;
        Ok(())
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
            emit(out, &self.view.pal, lines)?;
        } else {
            let mut all = vec![vec![Span::new(
                &format!("↳ {}", crate::render::summary::call_line(call)),
                self.view.pal.dim,
            )]];
            all.extend_from_slice(lines);
            self.block(out, &all)?;
        }
        self.live.last_call = Some(call.tool_call_id.clone());
        Ok(())
    }

    fn head(&mut self, out: &mut dyn Write, call: &ToolCall) -> io::Result<()> {
        let lines = self.view.call_head(call, 0);
        self.block(out, &lines)?;
        self.live.last_call = Some(call.tool_call_id.clone());
        Ok(())
    }

    /// Prints the chunks of `text` (text or reasoning) as blocks.
    fn text(
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

    /// A delta arrived: print every chunk it completed.
    fn delta(
        &mut self,
        out: &mut dyn Write,
        message_id: &str,
        index: u64,
        text: &str,
        reasoning: bool,
    ) -> io::Result<()> {
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
                });
                self.live.streams.len() - 1
            }
        };
        let s = &mut self.live.streams[pos];
        s.text.push_str(text);
        let Some(b) = live::boundaries(&s.text[s.printed..]).last().copied() else {
            return Ok(());
        };
        let start = s.printed;
        s.printed += b;
        let chunk = s.text[start..start + b].to_owned();
        let mut bulleted = s.bulleted;
        self.text(out, &chunk, reasoning, &mut bulleted)?;
        if let Some(s) = self.live.streams.get_mut(pos) {
            s.bulleted = bulleted;
        }
        Ok(())
    }

    /// A text or reasoning part is final: print what its stream (if any) did not.
    fn settle_text(
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
    fn live_part(&mut self, out: &mut dyn Write, message_id: &str, part: &Part) -> io::Result<()> {
        if !matches!(part, Part::ToolCall { .. }) {
            self.live.mark(message_id, part);
        }
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
            Part::ToolCall { call } => {
                self.live
                    .heads
                    .insert(call.tool_call_id.clone(), (**call).clone());
                self.head(out, call)
            }
            Part::File { .. }
            | Part::SourceUrl { .. }
            | Part::SourceDocument { .. }
            | Part::Data { .. } => {
                let lines = self.view.other_part(part, 0);
                self.block(out, &lines)
            }
        }
    }

    /// A final assistant turn of the main thread: print what the live path did not.
    fn final_turn(&mut self, out: &mut dyn Write, turn: &Turn) -> io::Result<()> {
        for part in &turn.parts {
            if !matches!(part, Part::ToolCall { .. }) && self.live.take(&turn.id, part) {
                continue;
            }
            match part {
                Part::ToolCall { call } => {
                    if self.live.heads.remove(&call.tool_call_id).is_none() {
                        self.head(out, call)?;
                    }
                    if !self.live.results.remove(&call.tool_call_id) {
                        let lines = self.view.call_result(call, 0);
                        self.call_lines(out, call, &lines)?;
                    }
                    self.live.progress.remove(&call.tool_call_id);
                }
                Part::Text { text, .. } => self.settle_text(out, &turn.id, text, false)?,
                Part::Reasoning { text, redacted, .. } => {
                    let text = if *redacted {
                        "(redacted thinking)"
                    } else {
                        text
                    };
                    self.settle_text(out, &turn.id, text, true)?
                }
                Part::File { .. }
                | Part::SourceUrl { .. }
                | Part::SourceDocument { .. }
                | Part::Data { .. } => {
                    let lines = self.view.other_part(part, 0);
                    self.block(out, &lines)?
                }
            }
        }
        Ok(())
    }

    fn result(&mut self, out: &mut dyn Write, n: &SystemNotice) -> io::Result<()> {
        if let SystemNotice::Result {
            cost,
            turns,
            duration_ms,
            usage,
            ..
        } = n
        {
            let t = &mut self.totals;
            t.results += 1;
            t.turns += turns.unwrap_or(0);
            t.duration_ms += duration_ms.unwrap_or(0);
            if let Some(u) = usage {
                t.usage.add(u);
            }
            if let Some(c) = cost {
                t.cost += c;
                t.has_cost = true;
            }
        }
        let lines = self.view.notice(n, 0);
        if matches!(n, SystemNotice::Subagent { .. }) {
            self.block(out, &lines)
        } else {
            self.note_block(out, &lines)
        }
    }
}

impl Render for TextRenderer {
    fn begin(&mut self, _out: &mut dyn Write, _header: &Header) -> io::Result<()> {
        self.live = Live::default();
        self.totals = Totals::default();
        Ok(())
    }

    fn live(&mut self, out: &mut dyn Write, event: &Event) -> io::Result<()> {
        match &event.kind {
            EventKind::TextDelta {
                thread: None,
                message_id,
                index,
                text,
            } => self.delta(out, message_id, *index, text, false),
            EventKind::ReasoningDelta {
                thread: None,
                message_id,
                index,
                text,
            } => self.delta(out, message_id, *index, text, true),
            EventKind::AssistantBlock {
                thread: None,
                message_id,
                part,
                ..
            } => self.live_part(out, message_id, part),
            EventKind::ToolResult {
                thread: None,
                tool_call_id,
                is_error,
                output,
                error_text,
                sidecar,
            } => {
                let Some(call) = self.live.heads.get(tool_call_id) else {
                    return Ok(());
                };
                // An Agent call's result needs its sub-agent record, and with --context a Skill
                // call shows the skill body that follows its result: both wait for the item.
                if crate::render::summary::is_agent(&call.name)
                    || (call.name == "Skill" && self.view.context)
                {
                    return Ok(());
                }
                let mut call = call.clone();
                call.state = if *is_error {
                    crate::model::transcript::ToolState::Error
                } else {
                    crate::model::transcript::ToolState::Success
                };
                call.output = Some(output.clone());
                call.error_text = error_text
                    .clone()
                    .or_else(|| is_error.then(|| crate::render::summary::output_text(output)));
                call.sidecar = sidecar.clone();
                let lines = self.view.call_result(&call, 0);
                self.call_lines(out, &call, &lines)?;
                self.live.results.insert(tool_call_id.clone());
                Ok(())
            }
            // A result waits for its item: the fold writes every turn still held before it.
            EventKind::Notice { notice } if !matches!(**notice, SystemNotice::Result { .. }) => {
                self.live.mark_notice(notice);
                self.result(out, notice)
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
                let Some(call) = call_id.and_then(|id| self.live.heads.get(&id)).cloned() else {
                    return Ok(());
                };
                if self.live.progress.get(&call.tool_call_id) == Some(description) {
                    return Ok(());
                }
                self.live
                    .progress
                    .insert(call.tool_call_id.clone(), description.clone());
                let lines = self.view.progress_line(description, 0);
                self.call_lines(out, &call, &lines)
            }
            _ => Ok(()),
        }
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
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
            TranscriptItem::Notice(n) => self.result(out, n),
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
        let mut bits = Vec::new();
        if t.results > 0 {
            bits.push(format!(
                "{} turn{}",
                t.turns,
                if t.turns == 1 { "" } else { "s" }
            ));
            bits.push(seconds(t.duration_ms));
            let u = &t.usage;
            let input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
            bits.push(format!(
                "{} in · {} out tokens",
                thousands(input),
                thousands(u.output_tokens)
            ));
            if t.has_cost {
                bits.push(format!("${:.4}", t.cost));
            }
        }
        if summary.errors > 0 {
            bits.push(format!(
                "{} input error{}",
                summary.errors,
                if summary.errors == 1 { "" } else { "s" }
            ));
        }
        if bits.is_empty() {
            return Ok(());
        }
        let line = vec![Span::new(
            &format!("── {} ──", bits.join(" · ")),
            self.view.pal.dim,
        )];
        self.block(out, &[line])
    }
}

/// `12,345`.
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `4.2s`, `3m 05s`.
pub(crate) fn seconds(ms: u64) -> String {
    if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m {:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

impl View {
    fn indent(&self, depth: usize) -> Span {
        Span::new(&"     ".repeat(depth), Style::new())
    }

    /// One chunk of text or reasoning; the first chunk of a part carries the bullet.
    fn chunk(&self, text: &str, depth: usize, reasoning: bool, first: bool) -> Vec<Line> {
        let ind = self.indent(depth);
        let (bullet, base) = if reasoning {
            ("✻ ", self.pal.dim)
        } else {
            ("⏺ ", Style::new())
        };
        let first_prefix = if first {
            vec![
                ind.clone(),
                Span::new(
                    bullet,
                    if reasoning {
                        self.pal.dim
                    } else {
                        self.pal.bullet
                    },
                ),
            ]
        } else {
            vec![ind.clone(), Span::new("  ", Style::new())]
        };
        markdown::render(
            text,
            &self.pal,
            self.width,
            first_prefix,
            vec![ind, Span::new("  ", Style::new())],
            base,
        )
    }

    /// A whole text part as blocks (the path without live state: sub-agent transcripts).
    fn text_blocks(&self, text: &str, depth: usize, reasoning: bool) -> Vec<Vec<Line>> {
        if reasoning && !self.thinking {
            return Vec::new();
        }
        chunks(text)
            .into_iter()
            .enumerate()
            .map(|(i, c)| self.chunk(c, depth, reasoning, i == 0))
            .collect()
    }

    /// Files, sources and data parts: one dim line.
    fn other_part(&self, part: &Part, depth: usize) -> Vec<Line> {
        let text = match part {
            Part::File {
                media_type,
                filename,
                ..
            } => {
                format!(
                    "[file: {media_type}{}]",
                    filename
                        .as_deref()
                        .map(|f| format!(" {f}"))
                        .unwrap_or_default()
                )
            }
            Part::SourceUrl { url, title, .. } => {
                format!(
                    "[source: {}{url}]",
                    title
                        .as_deref()
                        .map(|t| format!("{t} "))
                        .unwrap_or_default()
                )
            }
            Part::SourceDocument { title, .. } => format!("[document: {title}]"),
            Part::Data { name, .. } => format!("[data: {name}]"),
            Part::Text { .. } | Part::Reasoning { .. } | Part::ToolCall { .. } => {
                return Vec::new();
            }
        };
        self.note(&text, self.pal.dim, depth)
    }

    /// A dim (or coloured) note, wrapped.
    fn note(&self, text: &str, style: Style, depth: usize) -> Vec<Line> {
        let ind = self.indent(depth);
        let mut w = Wrapper::new(
            self.width,
            vec![ind.clone()],
            vec![ind, Span::new("  ", Style::new())],
        );
        w.words(text, style, None);
        w.finish()
    }

    /// Plain text set apart with a marker (user prompts, context), at most `max` lines unless
    /// `--full`.
    fn marked(
        &self,
        marker: &str,
        marker_style: Style,
        text: &str,
        style: Style,
        depth: usize,
        max: usize,
    ) -> Vec<Line> {
        let ind = self.indent(depth);
        let pad = " ".repeat(layout::width(marker));
        let mut w = Wrapper::new(
            self.width,
            vec![ind.clone(), Span::new(marker, marker_style)],
            vec![ind, Span::new(&pad, Style::new())],
        );
        let lines: Vec<&str> = text.trim_end().split('\n').collect();
        let keep = if self.full {
            lines.len()
        } else {
            lines.len().min(max)
        };
        for l in &lines[..keep] {
            w.words(l, style, None);
            w.newline();
        }
        if keep < lines.len() {
            w.words(
                &format!("… +{} lines", lines.len() - keep),
                self.pal.dim,
                None,
            );
        }
        w.finish()
    }

    /// A turn rendered without live state, as blocks.
    fn turn_blocks(&self, turn: &Turn, depth: usize) -> Vec<Vec<Line>> {
        let mut blocks = Vec::new();
        if turn.origin.is_hidden_context() && !self.context {
            return blocks;
        }
        if turn.role == Role::User {
            let text = turn_text(turn);
            let lines = match &turn.origin {
                TurnOrigin::UserInput | TurnOrigin::ToolReturn { .. } => {
                    self.marked("> ", self.pal.user, &text, Style::new(), depth, usize::MAX)
                }
                TurnOrigin::Replay => {
                    self.marked("> ", self.pal.dim, &text, self.pal.dim, depth, usize::MAX)
                }
                TurnOrigin::Synthetic { reason } => {
                    if !self.context {
                        return blocks;
                    }
                    let word = serde_json::to_value(reason)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default();
                    self.marked(
                        &format!("⊕ {word}: "),
                        self.pal.dim,
                        &text,
                        self.pal.dim,
                        depth,
                        10,
                    )
                }
                TurnOrigin::SubagentPrompt { .. } => {
                    self.marked("> ", self.pal.dim, &text, self.pal.dim, depth, 5)
                }
                TurnOrigin::Notification => {
                    self.marked("✉ ", self.pal.dim, &text, self.pal.dim, depth, 5)
                }
                TurnOrigin::Model => {
                    self.marked("", Style::new(), &text, Style::new(), depth, usize::MAX)
                }
            };
            blocks.push(lines);
            for p in &turn.parts {
                blocks.push(self.other_part(p, depth));
            }
            return blocks;
        }
        if let Some(e) = &turn.metadata.error {
            blocks.push(self.note(&format!("✗ {e}"), self.pal.error, depth));
        }
        for part in &turn.parts {
            match part {
                Part::Text { text, .. } => blocks.extend(self.text_blocks(text, depth, false)),
                Part::Reasoning { text, redacted, .. } => {
                    let text = if *redacted {
                        "(redacted thinking)"
                    } else {
                        text
                    };
                    blocks.extend(self.text_blocks(text, depth, true))
                }
                Part::ToolCall { call } => {
                    let mut lines = self.call_head(call, depth);
                    lines.extend(self.call_result(call, depth));
                    blocks.push(lines);
                }
                Part::File { .. }
                | Part::SourceUrl { .. }
                | Part::SourceDocument { .. }
                | Part::Data { .. } => blocks.push(self.other_part(part, depth)),
            }
        }
        blocks
    }

    /// The session header: agent, model, working directory, MCP servers.
    fn session(&self, s: &SessionSnapshot) -> Vec<Line> {
        let mut bits = vec![s.agent.clone()];
        if let Some(v) = &s.version {
            bits[0] = format!("{} {v}", s.agent);
        }
        if !s.model.is_empty() {
            bits.push(s.model.clone());
        }
        if !s.cwd.is_empty() {
            bits.push(s.cwd.clone());
        }
        bits.push(format!("{} tools", s.tools.len()));
        if !s.mcp_servers.is_empty() {
            let servers: Vec<String> = s
                .mcp_servers
                .iter()
                .map(|m| format!("{} ({})", m.name, m.status))
                .collect();
            bits.push(format!("MCP: {}", servers.join(", ")));
        }
        self.note(&bits.join(" · "), self.pal.dim, 0)
    }

    /// A notice as a one-line note (nothing for the ones a reader does not need).
    fn notice(&self, n: &SystemNotice, depth: usize) -> Vec<Line> {
        let pal = &self.pal;
        let (text, style) = match n {
            SystemNotice::RateLimit {
                status,
                rate_limit_type,
                ..
            } => {
                if status == "allowed" {
                    return Vec::new();
                }
                (
                    format!(
                        "rate limit: {status}{}",
                        rate_limit_type
                            .as_deref()
                            .map(|t| format!(" ({t})"))
                            .unwrap_or_default()
                    ),
                    pal.warning,
                )
            }
            SystemNotice::ApiRetry {
                attempt,
                max,
                delay_ms,
                error_status,
                error,
            } => (
                format!(
                    "API retry {attempt}/{max} in {}{}{}",
                    seconds(*delay_ms),
                    error_status
                        .map(|s| format!(" · HTTP {s}"))
                        .unwrap_or_default(),
                    error
                        .as_deref()
                        .map(|e| format!(" · {e}"))
                        .unwrap_or_default()
                ),
                pal.warning,
            ),
            SystemNotice::Compact {
                trigger,
                pre_tokens,
                post_tokens,
                ..
            } => (
                format!(
                    "conversation compacted{}{}",
                    trigger
                        .as_deref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default(),
                    match (pre_tokens, post_tokens) {
                        (Some(a), Some(b)) =>
                            format!(" · {} → {} tokens", thousands(*a), thousands(*b)),
                        (Some(a), None) => format!(" · {} tokens before", thousands(*a)),
                        _ => String::new(),
                    }
                ),
                pal.dim,
            ),
            SystemNotice::Hook {
                hook_name,
                event,
                status,
                output,
                exit_code,
                outcome,
            } => {
                if *status != HookStatus::Response {
                    return Vec::new();
                }
                let mut t = format!(
                    "hook {hook_name}{}{}",
                    outcome
                        .as_deref()
                        .map(|o| format!(": {o}"))
                        .unwrap_or_default(),
                    exit_code
                        .map(|c| format!(" (exit {c})"))
                        .unwrap_or_default()
                );
                if hook_name.is_empty() {
                    t = format!("hook {event}");
                }
                let failed = exit_code.is_some_and(|c| c != 0);
                let mut lines = self.note(&t, if failed { pal.warning } else { pal.dim }, depth);
                if self.context {
                    if let Some(o) = output.as_deref().filter(|o| !o.trim().is_empty()) {
                        lines.extend(self.marked("  ", pal.dim, o, pal.dim, depth, 10));
                    }
                }
                return lines;
            }
            SystemNotice::SessionState { .. } => return Vec::new(),
            SystemNotice::Status { status, detail } => match detail {
                Some(d) => (
                    format!("{}: {d}", status.as_deref().unwrap_or("status")),
                    pal.dim,
                ),
                None => return Vec::new(),
            },
            SystemNotice::FilesPersisted { files, failed } => (
                format!(
                    "files persisted: {}{}",
                    files.join(", "),
                    if failed.is_empty() {
                        String::new()
                    } else {
                        format!(" ({} failed)", failed.len())
                    }
                ),
                pal.dim,
            ),
            SystemNotice::Elicitation { server, .. } => {
                (format!("MCP server {server} asked for input"), pal.dim)
            }
            SystemNotice::PermissionDenied {
                tool_name, message, ..
            } => (
                format!("✗ permission denied: {tool_name} · {message}"),
                pal.error,
            ),
            SystemNotice::Task {
                task_id,
                status,
                description,
                summary,
                ..
            } => {
                let word = status
                    .map(|s| format!("{s:?}").to_lowercase())
                    .unwrap_or_else(|| "updated".into());
                let what = summary.as_deref().or(description.as_deref()).unwrap_or("");
                (
                    format!(
                        "task {task_id} {word}{}",
                        if what.is_empty() {
                            String::new()
                        } else {
                            format!(": {what}")
                        }
                    ),
                    pal.dim,
                )
            }
            SystemNotice::MissedEvents { from, to, reason } => (
                format!(
                    "missed events{}{}: {reason}",
                    from.map(|f| format!(" from {f}")).unwrap_or_default(),
                    to.map(|t| format!(" to {t}")).unwrap_or_default()
                ),
                pal.warning,
            ),
            SystemNotice::Subagent { record, .. } => {
                let mut lines = self.note("sub-agent without its Agent call:", pal.dim, depth);
                lines.extend(self.subagent_status(record, depth));
                if self.full {
                    for t in &record.transcript {
                        for b in self.turn_blocks(t, depth + 1) {
                            lines.extend(b);
                        }
                    }
                }
                return lines;
            }
            SystemNotice::Branch { turns, .. } => (
                format!("a branch of {} turns off the main line", turns.len()),
                pal.dim,
            ),
            SystemNotice::Result {
                subtype,
                is_error,
                errors,
                terminal_reason,
                permission_denials,
                ..
            } => {
                let mut lines = Vec::new();
                if *is_error || subtype != "success" {
                    let word = if subtype == "success" {
                        "error"
                    } else {
                        subtype.as_str()
                    };
                    let mut t = format!("✗ {word}");
                    if let Some(r) = terminal_reason.as_deref().filter(|r| *r != "completed") {
                        t.push_str(&format!(" ({r})"));
                    }
                    if !errors.is_empty() {
                        t.push_str(&format!(": {}", errors.join("; ")));
                    }
                    lines.extend(self.note(&t, pal.error, depth));
                }
                if !permission_denials.is_empty() {
                    let n = permission_denials.len();
                    lines.extend(self.note(
                        &format!("{n} tool call{} denied", if n == 1 { "" } else { "s" }),
                        pal.dim,
                        depth,
                    ));
                }
                return lines;
            }
            SystemNotice::Info { level, text, .. } => match level {
                Level::Trace => return Vec::new(),
                Level::Info => (text.clone(), pal.dim),
                Level::Warning => (text.clone(), pal.warning),
                Level::Error => (text.clone(), pal.error),
            },
        };
        self.note(&format!("· {text}"), style, depth)
    }
}

/// The text parts of a turn, joined.
fn turn_text(turn: &Turn) -> String {
    turn.parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
