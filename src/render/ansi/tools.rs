//! Tool calls in the terminal view: the one-line call (`⏺ Bash(ls -la)`), its result under `⎿`
//! (shortened to a few lines with `… +N lines` unless `--full`), file edits and writes as a
//! coloured diff, a todo list as a checklist, and sub-agents as an indented block, each by the
//! call's kind.

use std::borrow::Cow;

use owo_colors::Style;

use super::View;
use super::layout::{Line, Margin, Span, Wrapper};
use crate::model::file_change::{DiffLine, FileChange};
use crate::model::tool_kind::{InputShape, TodoStatus, ToolFamily};
use crate::model::transcript::{
    NonText, Part, SubagentRecord, SubagentStatus, ToolCall, ToolState, output_text,
};
use crate::render::figures::{count, seconds, them};
use crate::render::sgr::{self, SgrStyle};
use crate::render::summary;
use crate::sanitize::frames_on_lines;

use super::palette;

/// The input of a call of no known shape that no one-line summary shows (a Codex custom tool's
/// script, a tool's own fields): `--full` shows it whole, as text when it is a string, else as
/// JSON (the Markdown view shows the same JSON).
fn unsummarised_input(call: &ToolCall) -> Option<String> {
    if call.subagent.is_some() || !matches!(call.kind.input_shape(), InputShape::Fields) {
        return None;
    }
    whole_input(&call.input)
}

/// A call's input shown whole: a string as it is (a script, or arguments that were not JSON),
/// an object as JSON; nothing for an empty one.
fn whole_input(input: &serde_json::Value) -> Option<String> {
    if let Some(s) = input.as_str() {
        return (!s.trim().is_empty()).then(|| s.to_owned());
    }
    let object = input.as_object().filter(|o| !o.is_empty());
    object.and_then(|_| serde_json::to_string_pretty(input).ok())
}

/// Result lines shown before `… +N lines`.
const RESULT_LINES: usize = 5;
/// Diff lines shown before `… +N lines`.
const DIFF_LINES: usize = 20;

impl View {
    /// `⏺ Bash(ls -la)`.
    pub(super) fn call_head(&self, call: &ToolCall, depth: usize) -> Vec<Line> {
        let ind = self.indent(depth);
        let mut w = Wrapper::new(
            self.width,
            vec![ind.clone(), Span::new("⏺ ", self.pal.tool_bullet)],
            vec![ind, Span::new("  ", Style::new())],
        );
        let name = call.display_name();
        w.words(&name, self.pal.tool, None);
        if call.kind.mcp_tool().is_some() {
            let mut lines = w.finish();
            // An MCP call's arguments have no one-line summary: `--full` shows them whole.
            if let Some(args) = whole_input(&call.input).filter(|_| self.full) {
                lines.extend(self.input_block(&args, depth));
            }
            return lines;
        }
        let summary = summary::input_summary(call);
        if let Some(s) = &summary {
            w.words(&format!("({s})"), Style::new(), None);
        }
        if let Some(mark) = call.caller_mark() {
            w.words(&format!(" · {mark}"), self.pal.dim, None);
        }
        let mut lines = w.finish();
        if self.full {
            if let Some(long) = summary::long_input(call) {
                lines.extend(self.input_block(&long, depth));
            } else if summary.is_none()
                && let Some(whole) = unsummarised_input(call)
            {
                lines.extend(self.input_block(&whole, depth));
            }
        }
        lines
    }

    /// A call's input shown whole under its head (`--full`), behind a dim bar.
    fn input_block(&self, input: &str, depth: usize) -> Vec<Line> {
        let ind = self.indent(depth);
        let bar = vec![ind, Span::new("  │ ", self.pal.dim)];
        let mut w = Wrapper::new(self.width, bar.clone(), bar);
        for l in input.trim_end().split('\n') {
            w.raw_line(l, self.pal.dim);
        }
        w.finish()
    }

    /// A command's coloured output as lines of styled pieces (its uncoloured text in
    /// `style`).
    fn coloured_lines(&self, text: &str, style: Style) -> Vec<Vec<(Style, String)>> {
        let mut lines = vec![Vec::new()];
        for (sgr_style, run) in sgr::colour_runs(text) {
            let run_style = match sgr_style == SgrStyle::default() {
                true => style,
                false => palette::from_sgr(&sgr_style),
            };
            for (i, piece) in run.split('\n').enumerate() {
                if i > 0 {
                    lines.push(Vec::new());
                }
                if !piece.is_empty()
                    && let Some(line) = lines.last_mut()
                {
                    line.push((run_style, piece.to_owned()));
                }
            }
        }
        lines
    }

    fn result_wrapper(&self, depth: usize) -> Wrapper {
        let ind = self.indent(depth);
        Wrapper::new(
            self.width,
            vec![ind.clone(), Span::new("  ⎿  ", self.pal.result)],
            vec![ind, Span::new("     ", Style::new())],
        )
    }

    /// Lines of text under `⎿`, at most `max` of them unless `--full`: each frame a carriage
    /// return redrew on a line of its own, a command's colours drawn as colours.
    fn capped(&self, w: &mut Wrapper, text: &str, style: Style, max: usize) {
        // A CRLF's CR ends a line as its LF does; a lone CR ends a frame.
        let text = match text.contains("\r\n") {
            true => Cow::Owned(text.replace("\r\n", "\n")),
            false => Cow::Borrowed(text),
        };
        let text = frames_on_lines(text.trim_end_matches('\n'));
        let lines = if sgr::has_escapes(&text) {
            self.coloured_lines(&text, style)
        } else {
            text.split('\n')
                .map(|l| vec![(style, l.to_owned())])
                .collect()
        };
        let keep = if self.full {
            lines.len()
        } else {
            max.min(lines.len())
        };
        for l in &lines[..keep] {
            w.raw_runs(l);
        }
        if keep < lines.len() {
            w.raw_line(&cut_note(lines.len() - keep), self.pal.dim);
        }
    }

    /// What a call came to: its result, error or denial (or that it has none).
    pub(super) fn call_result(&self, call: &ToolCall, depth: usize) -> Vec<Line> {
        let mut w = self.result_wrapper(depth);
        let out_text = call.output_words();
        match call.state {
            ToolState::ApprovalPending | ToolState::Pending | ToolState::Running => {
                // A sub-agent still at work when the input ended: what it did so far.
                if call.subagent.is_some() && call.state != ToolState::ApprovalPending {
                    let mut lines = self.subagent(call, depth);
                    w.raw_line("(no result yet)", self.pal.dim);
                    lines.extend(w.finish());
                    return lines;
                }
                let said = summary::open_state(call.state).unwrap_or_default();
                w.raw_line(&format!("({said})"), self.pal.dim);
            }
            ToolState::ApprovalDenied => {
                let msg = call
                    .denied
                    .as_deref()
                    .or(call.error_text.as_deref())
                    .unwrap_or("");
                self.capped(
                    &mut w,
                    &format!("Denied: {msg}"),
                    self.pal.error,
                    RESULT_LINES,
                );
            }
            ToolState::Error => {
                // Said in words, not only in red: a log or a pipe has no colour.
                self.persisted_preview(&mut w, call);
                let msg = call.error_text.as_deref().unwrap_or(&out_text);
                let msg = if msg.trim().is_empty() {
                    "Error".to_owned()
                } else {
                    format!("Error: {msg}")
                };
                self.capped(&mut w, &msg, self.pal.error, RESULT_LINES);
                if let Some(output) = summary::output_beside_error(call) {
                    self.capped(&mut w, &output, self.pal.result, RESULT_LINES);
                }
            }
            ToolState::Success => {
                if call.family() == ToolFamily::Agent {
                    return self.subagent(call, depth);
                }
                if let Some(plan) = call.kind.plan() {
                    let mut lines = self.plan(plan, depth);
                    self.full_result(&mut w, &out_text);
                    lines.extend(w.finish());
                    return lines;
                }
                self.success(&mut w, call, &out_text);
            }
        }
        let mut lines = w.finish();
        // A sub-agent that failed, was denied or still runs did work all the same: its prompt
        // and calls are shown as for one that succeeded.
        if let Some(rec) = &call.subagent {
            lines.extend(self.subagent_body(rec, depth));
        }
        lines
    }

    /// The preview the model read of an output the harness saved to a file, above the saved
    /// output: whole with `--full`, else one line that says it is there.
    fn persisted_preview(&self, w: &mut Wrapper, call: &ToolCall) {
        let Some(preview) = &call.facts.persisted_preview else {
            return;
        };
        if !self.full {
            let cut = "… the model read only a preview of this output (--full shows it)";
            w.raw_line(cut, self.pal.dim);
            return;
        }
        w.raw_line(&format!("{}:", summary::PERSISTED_PREVIEW), self.pal.dim);
        self.capped(w, preview, self.pal.dim, usize::MAX);
        w.raw_line(&format!("{}:", summary::SAVED_OUTPUT), self.pal.dim);
    }

    fn success(&self, w: &mut Wrapper, call: &ToolCall, out_text: &str) {
        self.persisted_preview(w, call);
        match call.kind.input_shape() {
            InputShape::FileChange(change) => {
                self.file_change(w, &change);
                self.full_result(w, out_text);
                return;
            }
            InputShape::Checklist(items) if !items.is_empty() => {
                for item in items {
                    let (mark, style) = match item.status {
                        TodoStatus::Completed => ("☒ ", self.pal.todo_done),
                        TodoStatus::InProgress => ("◼ ", self.pal.todo_active),
                        TodoStatus::Pending => ("☐ ", Style::new()),
                    };
                    w.raw_line(&format!("{mark}{}", item.text), style);
                }
                self.full_result(w, out_text);
                return;
            }
            InputShape::Answer => {
                let json = serde_json::to_string_pretty(&call.input).unwrap_or_default();
                self.capped(w, &json, self.pal.result, DIFF_LINES);
                self.full_result(w, out_text);
                return;
            }
            InputShape::Fields
                if call.kind.read_file().is_some()
                    && !self.full
                    && out_text.lines().next().is_some_and(|l| !l.starts_with('[')) =>
            {
                let n = call
                    .facts
                    .lines_read
                    .unwrap_or_else(|| out_text.lines().count() as u64);
                w.raw_runs(&[
                    (Style::new(), format!("Read {}", count(n, "line"))),
                    (self.pal.dim, format!(" … --full shows {}", them(n))),
                ]);
                return;
            }
            // Drawn as their output below.
            InputShape::Command { .. }
            | InputShape::Checklist(_)
            | InputShape::Plan(_)
            | InputShape::Subagent
            | InputShape::Fields => {}
        }
        if out_text.trim().is_empty() {
            w.raw_line("(no output)", self.pal.dim);
        } else {
            self.capped(w, out_text, self.pal.result, RESULT_LINES);
        }
        if self.context {
            if let Some(body) = call.skill.as_ref().and_then(|s| s.body.as_deref()) {
                self.capped(w, body, self.pal.dim, 10);
            }
        }
    }

    /// The output of a result the fold gave to no call (a second or replayed result that differs
    /// from its call's, a late one, one whose call is not in the input), under `⎿` as a call's
    /// output is, shortened unless `--full`.
    pub(super) fn loose_output(&self, output: &serde_json::Value, depth: usize) -> Vec<Line> {
        let mut w = self.result_wrapper(depth);
        let text = output_text(output, NonText::Mark);
        if text.trim().is_empty() {
            w.raw_line("(no output)", self.pal.dim);
        } else {
            self.capped(&mut w, &text, self.pal.result, RESULT_LINES);
        }
        w.finish()
    }

    /// A file edit or write as a coloured diff under a head saying what changed, shortened
    /// unless `--full`.
    fn file_change(&self, w: &mut Wrapper, change: &FileChange<'_>) {
        let diff = change.diff(0);
        let adds = diff
            .iter()
            .filter(|d| matches!(d, DiffLine::Add(_)))
            .count();
        let dels = diff
            .iter()
            .filter(|d| matches!(d, DiffLine::Del(_)))
            .count();
        let path = change.path;
        let head = if change.writes_whole_file() {
            format!("Wrote {} to {path}", count(adds, "line"))
        } else {
            format!("Updated {path} (+{adds} −{dels})")
        };
        w.raw_line(&head, Style::new());
        let keep = if self.full {
            diff.len()
        } else {
            DIFF_LINES.min(diff.len())
        };
        for d in &diff[..keep] {
            match d {
                DiffLine::Gap => w.raw_line("⋯", self.pal.dim),
                DiffLine::Ctx(l) => w.raw_line(&format!("  {l}"), self.pal.dim),
                DiffLine::Del(l) => w.raw_line(&format!("- {l}"), self.pal.diff_del),
                DiffLine::Add(l) => w.raw_line(&format!("+ {l}"), self.pal.diff_add),
            }
        }
        if keep < diff.len() {
            w.raw_line(&cut_note(diff.len() - keep), self.pal.dim);
        }
    }

    /// The tool's own words under a call drawn from its input (an edit's diff, a todo
    /// checklist, a plan, a structured output), dimmed: `--full` promises every tool output
    /// whole, and the tool's reply ("The file … has been updated", "User has approved your
    /// plan") is one. Without `--full`, one line says it is there.
    fn full_result(&self, w: &mut Wrapper, out_text: &str) {
        if out_text.trim().is_empty() {
            return;
        }
        if self.full {
            self.capped(w, out_text, self.pal.dim, usize::MAX);
        } else {
            let n = out_text.trim_end_matches('\n').split('\n').count() as u64;
            let note = format!(
                "… +{} of reply (--full shows {})",
                count(n, "line"),
                them(n)
            );
            w.raw_line(&note, self.pal.dim);
        }
    }

    /// A plan (ExitPlanMode) rendered as Markdown under `⎿`, shortened unless `--full`.
    fn plan(&self, plan: &str, depth: usize) -> Vec<Line> {
        let first = vec![self.indent(depth), Span::new("  ⎿  ", self.pal.result)];
        self.markdown_block(plan, first, depth, DIFF_LINES)
    }

    /// Markdown drawn in a call's result (`first` opens its first line), at most `max` lines
    /// unless `--full`.
    fn markdown_block(&self, text: &str, first: Vec<Span>, depth: usize, max: usize) -> Vec<Line> {
        let pad = vec![self.indent(depth), Span::new("     ", Style::new())];
        let margin = Margin {
            first,
            rest: pad.clone(),
        };
        let mut lines = super::markdown::render(text, &self.pal, self.width, margin, Style::new());
        if !self.full && lines.len() > max {
            let more = lines.len() - max;
            lines.truncate(max);
            let mut w = Wrapper::new(self.width, pad.clone(), pad);
            w.words(&cut_note(more), self.pal.dim, None);
            lines.extend(w.finish());
        }
        lines
    }

    /// A sub-agent's final status, its transcript with `--full`, and its report.
    fn subagent(&self, call: &ToolCall, depth: usize) -> Vec<Line> {
        let mut lines = Vec::new();
        // The call's own result, when the report does not cover it (a background launch).
        if let Some(ack) = summary::hand_back_beside_report(call) {
            let mut w = self.result_wrapper(depth);
            self.capped(&mut w, &ack, self.pal.dim, RESULT_LINES);
            lines.extend(w.finish());
        }
        let report = call.output_words().into_owned();
        match &call.subagent {
            Some(rec) => lines.extend(self.subagent_body(rec, depth)),
            // No record of the run: what the harness handed back is all there is to say (a
            // call that only starts a sub-agent returns before the sub-agent finishes, so its
            // success says nothing of the sub-agent's end).
            None if !report.trim().is_empty() => {}
            None => {
                let mut w = self.result_wrapper(depth);
                w.raw_line("sub-agent finished", self.pal.dim);
                lines.extend(w.finish());
            }
        }
        // The sub-agent's own final words, else what the harness handed back; after the error a
        // status patch gave the run.
        let report = call
            .subagent
            .as_ref()
            .and_then(|r| match (&r.summary, &r.result) {
                (Some(s), Some(x)) => Some(format!("{s}\n\n{x}")),
                (s, x) => x.clone().or_else(|| s.clone()),
            })
            .unwrap_or(report);
        let report = match call.subagent.as_ref().and_then(|r| r.error.as_deref()) {
            Some(e) => format!("error: {e}\n\n{report}"),
            None => report,
        };
        if !report.trim().is_empty() {
            // The report opens the result when nothing above it did.
            let mark = if lines.is_empty() {
                Span::new("  ⎿  ", self.pal.result)
            } else {
                Span::new("     ", Style::new())
            };
            let first = vec![self.indent(depth), mark];
            lines.extend(self.markdown_block(report.trim(), first, depth, RESULT_LINES));
        }
        lines
    }

    /// A sub-agent's progress steps (when no live input showed them), its status line, then its
    /// whole transcript with `--full`, else its last calls.
    fn subagent_body(&self, rec: &SubagentRecord, depth: usize) -> Vec<Line> {
        let mut lines = Vec::new();
        if self.steps {
            // The CLI repeats a step while it lasts: each is drawn once, as the live view does.
            let mut last = None;
            for step in &rec.progress {
                if last != Some(step) {
                    lines.extend(self.progress_line(step, depth));
                }
                last = Some(step);
            }
        }
        lines.extend(self.subagent_status(rec, depth));
        if self.full {
            for turn in &rec.transcript {
                for block in self.turn_blocks(turn, depth + 1) {
                    lines.extend(block);
                }
            }
        } else {
            lines.extend(self.subagent_calls(rec, depth));
        }
        lines
    }

    /// What a sub-agent did, one line per tool call (the last few; `--full` shows its whole
    /// transcript instead): the view Claude Code gives of a running Task.
    fn subagent_calls(&self, rec: &SubagentRecord, depth: usize) -> Vec<Line> {
        const SHOWN: usize = 3;
        let calls: Vec<&ToolCall> = rec
            .transcript
            .iter()
            .flat_map(|t| &t.parts)
            .filter_map(Part::call)
            .collect();
        let ind = self.indent(depth);
        let pad = vec![ind, Span::new("     ", Style::new())];
        let mut w = Wrapper::new(self.width, pad.clone(), pad);
        let skipped = calls.len().saturating_sub(SHOWN);
        if skipped > 0 {
            let earlier = count(skipped, "earlier tool use");
            w.raw_line(&format!("… +{earlier} (--full shows them)"), self.pal.dim);
        }
        for call in &calls[skipped..] {
            let (mark, style) = match call.state {
                ToolState::Success => ("⏺ ", self.pal.dim),
                ToolState::Error | ToolState::ApprovalDenied => ("✗ ", self.pal.error),
                ToolState::Pending | ToolState::ApprovalPending | ToolState::Running => {
                    ("… ", self.pal.dim)
                }
            };
            w.raw_line(
                &super::layout::truncate(
                    &format!("{mark}{}", summary::call_line(call)),
                    self.width.saturating_sub(5 + 2 * depth),
                ),
                style,
            );
        }
        // The calls' outputs and the sub-agent's words are in its transcript.
        if skipped == 0 && !rec.transcript.is_empty() {
            let turns = count(rec.transcript.len(), "turn");
            w.raw_line(
                &format!("… its transcript, {turns} (--full shows it)"),
                self.pal.dim,
            );
        }
        w.finish()
    }

    /// `⎿  general-purpose · completed · 3 tool uses · 12,000 tokens · 4.2s`.
    pub(super) fn subagent_status(&self, rec: &SubagentRecord, depth: usize) -> Vec<Line> {
        let mut w = self.result_wrapper(depth);
        let style = match rec.status {
            SubagentStatus::Running => self.pal.dim,
            SubagentStatus::Completed => self.pal.ok,
            SubagentStatus::Failed => self.pal.error,
            SubagentStatus::Stopped => self.pal.warning,
        };
        let mut items = Vec::new();
        if !rec.description.is_empty() {
            items.push((rec.description.clone(), Style::new()));
        }
        if let Some(t) = &rec.subagent_type {
            items.push((t.clone(), Style::new()));
        }
        items.push((rec.status.word().to_owned(), style));
        if let Some(u) = rec.usage {
            items.push((summary::subagent_usage(&u), self.pal.dim));
            // `--stable=keep-usage` zeroes the duration: a zero is no duration at all.
            if u.duration_ms > 0 {
                items.push((seconds(u.duration_ms), self.pal.dim));
            }
        }
        w.items(&items);
        w.finish()
    }

    /// A sub-agent's live progress line.
    pub(super) fn progress_line(&self, text: &str, depth: usize) -> Vec<Line> {
        let mut w = self.result_wrapper(depth);
        w.words(text, self.pal.dim, None);
        w.finish()
    }
}

/// The line that stands for what the default view leaves out of a long output or diff: how much,
/// and how to see it (the terminal has no click to open it, as Claude Code's own "ctrl+r to
/// expand" has).
pub(super) fn cut_note(lines: usize) -> String {
    format!("… +{lines} lines (--full shows them)")
}
