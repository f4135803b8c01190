//! The timeline: the session drawn as inline SVG (no script, no library), turns and tool calls
//! along time, each sub-agent in a lane of its own below the main one, errors and denials in
//! their colours, and every mark a link to its place on the page.
//!
//! Marks are kept as the items go by, at most [`MAX_MARKS`] of them; past that only prompts,
//! errors and denials are added (the ones a reader looks for), so a huge session still draws a
//! small picture. When the input has no timestamps, marks are placed in order instead.

use super::escape::Html;
use super::times;

/// Marks drawn at most (prompts, errors and denials past it are still kept, up to twice this).
const MAX_MARKS: usize = 1_200;
/// Sub-agent lanes drawn; later sub-agents share the last one.
const MAX_LANES: u16 = 8;
/// The drawing's width in SVG units (it scales to the page's width).
const WIDTH: i64 = 1000;
/// Left margin for the lane names.
const LEFT: i64 = 70;
/// Height of one lane.
const LANE_H: i64 = 16;

/// Where a mark is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    Main,
    Sub(u16),
}

/// What a mark stands for (its shape and colour).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkKind {
    Prompt,
    Turn,
    Tool,
    Error,
    Denied,
    /// A user turn that is not a prompt (a tool return, a notification).
    Other,
}

impl MarkKind {
    /// How a mark of this kind is drawn and said: its CSS class, its width and height, its word.
    fn look(self) -> (&'static str, i64, i64, &'static str) {
        match self {
            MarkKind::Prompt => ("tl-p", 3, 14, "prompt"),
            MarkKind::Turn => ("tl-t", 2, 6, "assistant"),
            MarkKind::Tool => ("tl-c", 3, 8, "tool call"),
            MarkKind::Error => ("tl-e", 6, 10, "error"),
            MarkKind::Denied => ("tl-d", 6, 10, "denied"),
            MarkKind::Other => ("tl-o", 2, 6, "user turn"),
        }
    }
}

/// One mark.
#[derive(Debug)]
pub(crate) struct Mark {
    pub(crate) ms: Option<i64>,
    pub(crate) kind: MarkKind,
    /// The element id it links to.
    pub(crate) anchor: String,
    /// Its tooltip.
    pub(crate) label: String,
}

/// The marks of every lane.
#[derive(Debug, Default)]
pub(crate) struct Lanes {
    marks: Vec<(Lane, Mark)>,
    subs: u16,
    dropped: u64,
}

impl Lanes {
    /// A lane for a new sub-agent.
    pub(crate) fn new_lane(&mut self) -> Lane {
        self.subs = (self.subs + 1).min(MAX_LANES);
        Lane::Sub(self.subs)
    }

    /// Adds a mark (or counts it, past the cap).
    pub(crate) fn mark(&mut self, lane: Lane, mark: Mark) {
        let wanted = matches!(
            mark.kind,
            MarkKind::Prompt | MarkKind::Error | MarkKind::Denied
        );
        if self.marks.len() < MAX_MARKS || (wanted && self.marks.len() < 2 * MAX_MARKS) {
            self.marks.push((lane, mark));
        } else {
            self.dropped += 1;
        }
    }

    /// Writes the SVG (nothing when there is nothing to draw).
    pub(crate) fn push_svg(&self, h: &mut Html, start: Option<i64>, end: Option<i64>) {
        if self.marks.is_empty() {
            return;
        }
        let timed = self.marks.iter().filter(|(_, m)| m.ms.is_some()).count();
        let span = match (start, end) {
            (Some(s), Some(e)) if e > s && timed * 2 >= self.marks.len() => Some((s, e - s)),
            _ => None,
        };
        let lanes = i64::from(self.subs) + 1;
        let height = lanes * LANE_H + 16;
        let inner = WIDTH - LEFT - 10;
        h.raw_trusted("<svg class=\"timeline\" viewBox=\"0 0 ")
            .num(WIDTH)
            .raw_trusted(" ")
            .num(height)
            .raw_trusted(
                "\" role=\"group\" aria-label=\"Timeline: turns and tool calls over time\">",
            );
        let y_of = |lane: Lane| match lane {
            Lane::Main => LANE_H / 2 + 2,
            Lane::Sub(n) => i64::from(n) * LANE_H + LANE_H / 2 + 2,
        };
        for l in 0..lanes {
            let y = l * LANE_H + LANE_H / 2 + 2;
            h.raw_trusted("<text class=\"tl-name\" x=\"0\" y=\"")
                .num(y + 4)
                .raw_trusted("\">")
                .raw_trusted(if l == 0 { "main" } else { "sub-agent" });
            if l > 0 {
                h.raw_trusted(" ").num(l);
            }
            h.raw_trusted("</text><line class=\"tl-lane\" x1=\"")
                .num(LEFT)
                .raw_trusted("\" x2=\"")
                .num(WIDTH - 10)
                .raw_trusted("\" y1=\"")
                .num(y)
                .raw_trusted("\" y2=\"")
                .num(y)
                .raw_trusted("\"/>");
        }
        let n = self.marks.len().max(2) as i64 - 1;
        let mut last_x = LEFT;
        for (i, (lane, m)) in self.marks.iter().enumerate() {
            let x = match (span, m.ms) {
                (Some((s, len)), Some(ms)) => LEFT + (ms - s).clamp(0, len) * inner / len,
                (Some(_), None) => last_x,
                (None, _) => LEFT + i as i64 * inner / n,
            };
            last_x = x;
            let y = y_of(*lane);
            let (class, w, hh, _) = m.kind.look();
            // Named by its line in the list below (the page's script adds it as a tooltip).
            h.raw_trusted("<a href=\"#")
                .attr(&m.anchor)
                .raw_trusted("\" aria-labelledby=\"m")
                .num(i as u64)
                .raw_trusted("\">");
            h.raw_trusted("<rect class=\"")
                .raw_trusted(class)
                .raw_trusted("\" x=\"")
                .num(x - w / 2)
                .raw_trusted("\" y=\"")
                .num(y - hh / 2)
                .raw_trusted("\" width=\"")
                .num(w)
                .raw_trusted("\" height=\"")
                .num(hh)
                .raw_trusted("\"/></a>");
        }
        let axis_y = lanes * LANE_H + 12;
        h.raw_trusted("<text class=\"tl-name\" x=\"")
            .num(LEFT)
            .raw_trusted("\" y=\"")
            .num(axis_y)
            .raw_trusted("\">")
            .raw_trusted(if span.is_some() { "0" } else { "first" })
            .raw_trusted("</text><text class=\"tl-name tl-end\" x=\"")
            .num(WIDTH - 10)
            .raw_trusted("\" y=\"")
            .num(axis_y)
            .raw_trusted("\">");
        match span {
            Some((_, len)) => times::push_duration(h, len as u64),
            None => h.raw_trusted("last (no timestamps: in order)"),
        };
        h.raw_trusted("</text></svg>");
        self.push_list(h);
        if self.dropped > 0 {
            h.raw_trusted("<p class=\"meta\">Timeline: ")
                .num(self.dropped)
                .raw_trusted(" more turns and tool calls not drawn.</p>");
        }
    }

    /// The same marks as a list of links, folded under the drawing: the timeline for readers
    /// who do not see the SVG (a screen reader's list navigation, a text browser, paper).
    fn push_list(&self, h: &mut Html) {
        h.raw_trusted("<details class=\"tl-list\"><summary>Timeline as a list (")
            .num(self.marks.len() as u64)
            .raw_trusted(" marks)</summary><ol>");
        for (i, (_, m)) in self.marks.iter().enumerate() {
            h.raw_trusted("<li><a id=\"m")
                .num(i as u64)
                .raw_trusted("\" href=\"#")
                .attr(&m.anchor)
                .raw_trusted("\">")
                .text(&spoken(m))
                .raw_trusted("</a></li>");
        }
        h.raw_trusted("</ol></details>");
    }
}

/// What a mark is called aloud and in its tooltip: where it is, what it is, how it ended and
/// when (`turn 12, call 2, Bash: ls, error, 10:42:03 UTC`).
fn spoken(m: &Mark) -> String {
    let mut out = String::new();
    // Anchors are `tN`, `tN-cK` (a call) and `tN-cK-J` (a sub-agent's turn J).
    for (i, piece) in m.anchor.split('-').enumerate() {
        if !out.is_empty() {
            out.push_str(", ");
        }
        let (word, num) = match (i, piece.strip_prefix('t'), piece.strip_prefix('c')) {
            (0, Some(n), _) => ("turn ", n),
            (_, _, Some(n)) => ("call ", n),
            _ => ("sub-agent turn ", piece),
        };
        out.push_str(word);
        out.push_str(num);
    }
    let kind = m.kind.look().3;
    if m.label != "turn" && !m.label.is_empty() {
        out.push_str(", ");
        out.push_str(&m.label);
    }
    if !m.label.starts_with(kind) {
        out.push_str(", ");
        out.push_str(kind);
    }
    if let Some(ms) = m.ms {
        let words = times::utc_words(ms);
        out.push_str(", ");
        out.push_str(
            words
                .split_once(' ')
                .map_or(words.as_str(), |(_, time)| time),
        );
    }
    out
}
