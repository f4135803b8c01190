//! `--to md --compact`: a transcript that fits a pull-request comment. The session's title,
//! every prompt on a line, each tool call on a line with its state, the final answer and the
//! totals; at most [`LIMIT`] characters whatever the session, saying what it left out and the
//! command that shows everything. The assistant's text between calls is left out (the full
//! `--to md` has it).

use std::io::{self, Write};

use super::escape::{code_span, inline, safe_markdown};
use super::totals_line;
use crate::model::Header;
use crate::model::transcript::{Part, Role, ToolCall, ToolState, TranscriptItem, Turn, TurnOrigin};
use crate::render::ansi::layout::{one_line, truncate as cut};
use crate::render::summary::call_line;
use crate::render::totals::Totals;
use crate::render::{Render, Summary};

/// The most characters the transcript holds: GitHub refuses a longer comment.
pub(crate) const LIMIT: usize = 65_536;
/// The most characters of one prompt, on its line.
const PROMPT_MAX: usize = 500;
/// The most characters of the final answer.
const ANSWER_MAX: usize = 12_000;
/// Room kept for what `finish` writes: the note of what was left out, the answer, the totals.
const RESERVE: usize = ANSWER_MAX + 2_000;

/// The compact Markdown renderer.
#[derive(Default)]
pub(crate) struct CompactMarkdown {
    /// The input as named on the command line, for the command that shows everything.
    file: String,
    /// The session's own title, once a session record gave one.
    title: Option<String>,
    /// Whether the title line is written.
    titled: bool,
    /// Characters written so far.
    written: usize,
    /// Prompts and calls left out for room.
    cut_prompts: u64,
    cut_calls: u64,
    /// The assistant's last text: the final answer, when the session ends.
    answer: Option<String>,
    /// The closing line's figures, the calls counted as every view counts them.
    totals: Totals,
}

impl CompactMarkdown {
    /// Writes `text` when it fits beside the room kept for the end; false when it does not.
    fn put(&mut self, out: &mut dyn Write, text: &str) -> io::Result<bool> {
        let n = text.chars().count();
        if self.cut_prompts + self.cut_calls > 0 || self.written + n + RESERVE > LIMIT {
            return Ok(false);
        }
        out.write_all(text.as_bytes())?;
        self.written += n;
        Ok(true)
    }

    /// The title line, before the first thing written: the session's title, else the first
    /// prompt.
    fn title(&mut self, out: &mut dyn Write, first_prompt: Option<&str>) -> io::Result<()> {
        if self.titled {
            return Ok(());
        }
        self.titled = true;
        let title = self
            .title
            .clone()
            .or_else(|| first_prompt.map(|p| cut(&one_line(p), 100)))
            .unwrap_or_else(|| "Transcript".to_owned());
        self.put(out, &format!("# {}\n\n", inline(&title)))?;
        Ok(())
    }

    fn turn(&mut self, out: &mut dyn Write, turn: &Turn) -> io::Result<()> {
        let prompt = turn.role == Role::User
            && matches!(turn.origin, TurnOrigin::UserInput | TurnOrigin::Replay);
        if prompt {
            let text = turn.text();
            if text.trim().is_empty() {
                return Ok(());
            }
            self.title(out, Some(&text))?;
            // A blank line first: right after a call's list item, the prompt would join it.
            let line = format!("\n**›** {}\n\n", inline(&cut(&one_line(&text), PROMPT_MAX)));
            if !self.put(out, &line)? {
                self.cut_prompts += 1;
            }
            return Ok(());
        }
        if turn.role != Role::Assistant {
            return Ok(());
        }
        let text = turn.text();
        if !text.trim().is_empty() {
            self.answer = Some(cut(&text, ANSWER_MAX));
        }
        for part in &turn.parts {
            if let Part::ToolCall { call } = part {
                self.title(out, None)?;
                self.call(out, call)?;
            }
        }
        Ok(())
    }

    fn call(&mut self, out: &mut dyn Write, call: &ToolCall) -> io::Result<()> {
        let state = match call.state {
            ToolState::Success => "✓",
            ToolState::Error => "✗ error",
            ToolState::ApprovalDenied => "⊘ denied",
            ToolState::ApprovalPending => "⏸ waiting for approval",
            ToolState::Pending => "… not started",
            ToolState::Running => "… running",
        };
        let nested = call.subagent.as_ref().map_or(String::new(), |rec| {
            let n: usize = rec
                .transcript
                .iter()
                .flat_map(|t| &t.parts)
                .filter(|p| matches!(p, Part::ToolCall { .. }))
                .count();
            format!(" (sub-agent: {})", crate::render::figures::count(n, "call"))
        });
        let line = format!(
            "- {state} {}{}\n",
            inline(&call_line(call)),
            inline(&nested)
        );
        if !self.put(out, &line)? {
            self.cut_calls += 1;
        }
        Ok(())
    }
}

impl Render for CompactMarkdown {
    fn stands_alone(&self) -> bool {
        true
    }

    fn begin(&mut self, _out: &mut dyn Write, header: &Header) -> io::Result<()> {
        *self = CompactMarkdown {
            file: header.file.clone(),
            ..CompactMarkdown::default()
        };
        Ok(())
    }

    fn item(&mut self, out: &mut dyn Write, item: &TranscriptItem) -> io::Result<()> {
        match item {
            TranscriptItem::Session(s) => {
                if s.title.is_some() {
                    self.title.clone_from(&s.title);
                }
                Ok(())
            }
            TranscriptItem::Turn(t) => {
                self.totals.add_turn(t);
                self.turn(out, t)
            }
            TranscriptItem::Notice(n) => {
                self.totals.add(n);
                Ok(())
            }
            TranscriptItem::Debug(_) => Ok(()),
        }
    }

    fn finish(&mut self, out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
        self.title(out, None)?;
        let mut end = String::new();
        if self.cut_prompts + self.cut_calls > 0 {
            let file = if self.file == "-" { "FILE" } else { &self.file };
            end.push_str(&format!(
                "\n*{} prompt(s) and {} call(s) after this are left out to stay within {LIMIT} \
                 characters: {} shows everything.*\n",
                self.cut_prompts,
                self.cut_calls,
                code_span(&format!("scribe {file} --to md"))
            ));
        }
        if let Some(answer) = &self.answer {
            end.push_str(&format!("\n## Final answer\n\n{}\n", safe_markdown(answer)));
        }
        let mut totals = totals_line(&self.totals).unwrap_or_default();
        if let Some(note) = crate::render::debug_summary(summary.debug) {
            totals.push_str(&format!(" · {note}"));
        }
        end.push_str(&format!(
            "\n---\n\n**{}**\n",
            inline(totals.trim_start_matches(" · "))
        ));
        out.write_all(end.as_bytes())
    }
}
