//! The pieces of the terminal view that need no live state: text chunks, user turns, whole
//! turns (sub-agent transcripts), the session header and one-line notes.

use owo_colors::Style;

use super::View;
use super::layout::{self, Line, Margin, Span, Wrapper};
use super::live::chunks;
use super::markdown;
use super::palette;
use crate::model::session::{SessionSnapshot, said};
use crate::model::transcript::{Part, Role, SyntheticReason, Turn, TurnOrigin};
use crate::render::sgr;

impl View {
    /// The indentation of a sub-agent's transcript, `depth` levels down.
    pub(super) fn indent(&self, depth: usize) -> Span {
        Span::new(&"     ".repeat(depth), Style::new())
    }

    /// One chunk of text or reasoning; the first chunk of a part carries the bullet.
    pub(super) fn chunk(
        &self,
        text: &str,
        depth: usize,
        reasoning: bool,
        first: bool,
    ) -> Vec<Line> {
        let (bullet, bullet_style, base) = if reasoning {
            ("✻ ", self.pal.dim, self.pal.dim)
        } else {
            ("⏺ ", self.pal.bullet, Style::new())
        };
        let (ind, pad) = (self.indent(depth), Span::new("  ", Style::new()));
        let mark = if first {
            Span::new(bullet, bullet_style)
        } else {
            pad.clone()
        };
        let margin = Margin {
            first: vec![ind.clone(), mark],
            rest: vec![ind, pad],
        };
        markdown::render(text, &self.pal, self.width, margin, base)
    }

    /// A piece of a local command's output (`/context`, `/cost`): Markdown (tables drawn as
    /// tables), dimmed, after a quiet `·` like the command line above it.
    fn command_output_chunk(&self, text: &str, depth: usize, first: bool) -> Vec<Line> {
        let ind = self.indent(depth);
        let mark = if first { "· " } else { "  " };
        let first_prefix = vec![ind.clone(), Span::new(mark, self.pal.dim)];
        let rest = vec![ind, Span::new("  ", Style::new())];
        if sgr::has_escapes(text) {
            // Coloured by its command (`/context`): line by line, in the colours it asked for.
            let mut w = Wrapper::new(self.width, first_prefix, rest);
            for (style, run) in sgr::runs(text.trim_end()) {
                let style = palette::from_sgr(&style);
                for (i, piece) in run.split('\n').enumerate() {
                    if i > 0 {
                        w.newline();
                    }
                    w.words(piece, style, None);
                }
            }
            return w.finish();
        }
        // Terminal output is line by line: each line outside a table ends in a hard break.
        let lines: Vec<String> = text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with('|') || l.trim().is_empty() {
                    l.to_owned()
                } else {
                    format!("{l}  ")
                }
            })
            .collect();
        let margin = Margin {
            first: first_prefix,
            rest,
        };
        markdown::render(
            &lines.join("\n"),
            &self.pal,
            self.width,
            margin,
            self.pal.dim,
        )
    }

    /// A whole text part as blocks (the path without live state: sub-agent transcripts).
    pub(super) fn text_blocks(&self, text: &str, depth: usize, reasoning: bool) -> Vec<Vec<Line>> {
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
    pub(super) fn other_part(&self, part: &Part, depth: usize) -> Vec<Line> {
        match crate::render::part_label(part) {
            Some(text) => self.note(&text, self.pal.dim, depth),
            None => Vec::new(),
        }
    }

    /// A dim (or coloured) note, wrapped.
    pub(super) fn note(&self, text: &str, style: Style, depth: usize) -> Vec<Line> {
        let mut w = self.note_wrapper(depth);
        w.words(text, style, None);
        w.finish()
    }

    /// The wrapper of a note `depth` levels down: its lines after the first two columns in.
    fn note_wrapper(&self, depth: usize) -> Wrapper {
        let ind = self.indent(depth);
        Wrapper::new(
            self.width,
            vec![ind.clone()],
            vec![ind, Span::new("  ", Style::new())],
        )
    }

    /// The margin of text set apart with `marker` (in `style`), `depth` levels down: the marker
    /// on the first line, its width of blanks under it.
    pub(super) fn marker(&self, marker: &str, style: Style, depth: usize) -> Margin {
        let ind = self.indent(depth);
        let pad = " ".repeat(layout::width(marker));
        Margin {
            first: vec![ind.clone(), Span::new(marker, style)],
            rest: vec![ind, Span::new(&pad, Style::new())],
        }
    }

    /// Plain text set apart with a marker (user prompts, context; its margin from
    /// [`View::marker`]), at most `max` lines unless `--full`.
    pub(super) fn marked(&self, margin: Margin, text: &str, style: Style, max: usize) -> Vec<Line> {
        let mut w = Wrapper::new(self.width, margin.first, margin.rest);
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
                &super::tools::cut_note(lines.len() - keep),
                self.pal.dim,
                None,
            );
        }
        w.finish()
    }

    /// A turn rendered without live state, as blocks.
    pub(super) fn turn_blocks(&self, turn: &Turn, depth: usize) -> Vec<Vec<Line>> {
        let mut blocks = Vec::new();
        if turn.origin.is_hidden_context() && !self.context {
            return blocks;
        }
        if turn.role == Role::User {
            let text = turn.text();
            let (dim, plain) = (self.pal.dim, Style::new());
            // The marker before the text, its style, the text's style, and the lines shown.
            let (marker, marker_style, style, max) = match &turn.origin {
                TurnOrigin::UserInput | TurnOrigin::ToolReturn { .. } => {
                    ("> ".to_owned(), self.pal.user, plain, usize::MAX)
                }
                TurnOrigin::Replay => ("> ".to_owned(), dim, dim, usize::MAX),
                // A local command's output (`/context`, `/cost`) is Markdown with tables: drawn
                // as such, dimmed, like text the model did not write.
                TurnOrigin::Synthetic {
                    reason: SyntheticReason::LocalCommandOutput,
                } if !text.trim().is_empty() => {
                    blocks.extend(
                        chunks(&text)
                            .into_iter()
                            .enumerate()
                            .map(|(i, c)| self.command_output_chunk(c, depth, i == 0)),
                    );
                    for p in &turn.parts[1..] {
                        blocks.push(self.other_part(p, depth));
                    }
                    return blocks;
                }
                TurnOrigin::Synthetic { reason } if reason.is_person_action() => {
                    if text.trim().is_empty() {
                        return blocks;
                    }
                    ("· ".to_owned(), dim, dim, 10)
                }
                TurnOrigin::Synthetic { reason } => {
                    if !self.context {
                        return blocks;
                    }
                    (format!("⊕ {}: ", reason.name()), dim, dim, 10)
                }
                TurnOrigin::SubagentPrompt { .. } => ("> ".to_owned(), dim, dim, 5),
                TurnOrigin::Notification => ("✉ ".to_owned(), dim, dim, 5),
                TurnOrigin::Model => (String::new(), plain, plain, usize::MAX),
            };
            let margin = self.marker(&marker, marker_style, depth);
            blocks.push(self.marked(margin, &text, style, max));
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
                | Part::Compaction { .. }
                | Part::Data { .. } => blocks.push(self.other_part(part, depth)),
            }
        }
        blocks
    }

    /// The session header: agent, model, working directory, permission mode, tools, MCP
    /// servers, and the session's id where the input gives one (as the page's facts do).
    pub(super) fn session(&self, s: &SessionSnapshot) -> Vec<Line> {
        let mut bits = vec![s.agent.clone()];
        if let Some(v) = &s.version {
            bits[0] = format!("{} {v}", s.agent);
        }
        bits.extend(said(&s.model).map(str::to_owned));
        bits.extend(said(&s.cwd).map(str::to_owned));
        if let Some(mode) = said(&s.permission_mode) {
            bits.push(format!("permission mode: {mode}"));
        }
        // A saved session does not record its tools: say nothing rather than "0 tools".
        if !s.tools.is_empty() {
            bits.push(crate::render::figures::count(s.tools.len(), "tool"));
        }
        if let Some(t) = s.title.as_deref().filter(|t| !t.trim().is_empty()) {
            bits.insert(0, format!("“{}”", t.trim()));
        }
        if !s.mcp_servers.is_empty() {
            let servers: Vec<String> = s
                .mcp_servers
                .iter()
                .map(|m| format!("{} ({})", m.name, m.status))
                .collect();
            bits.push(format!("MCP: {}", servers.join(", ")));
        }
        if !s.session_id.is_empty() {
            bits.push(format!("session {}", s.session_id));
        }
        self.items(bits, self.pal.dim)
    }

    /// A note of `·`-separated items in one style (the session header, the totals) that wraps
    /// only between items ([`Wrapper::items`]).
    pub(super) fn items(&self, items: Vec<String>, style: Style) -> Vec<Line> {
        let mut w = self.note_wrapper(0);
        let styled: Vec<(String, Style)> = items.into_iter().map(|i| (i, style)).collect();
        w.items(&styled);
        w.finish()
    }
}
