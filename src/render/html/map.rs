//! The map of a session: the header (title, project, times, counts, tokens, cost), the prompt
//! index and the timeline.
//!
//! The page is streamed, so these facts are known only at the end: [`Map`] gathers them as the
//! items go by (a few numbers, one short line per prompt and one mark per turn or tool call, both
//! capped), and [`Map::push`] writes them after the transcript. The stylesheet places them above
//! it (a grid row), and on a wide screen the prompt index stays beside the transcript as it
//! scrolls.

use super::escape::{Html, numbered_id};
use super::timeline::{self, Lane, Mark, MarkKind};
use super::times::{self, parse_ms, push_time};
use crate::model::tool_kind::ToolFamily;
use crate::model::transcript::{Part, Role, Turn, Usage};
use crate::render::figures::count;
use crate::render::totals::Totals;

/// Prompts listed in the index; past this, the index says how many more there are.
const MAX_PROMPTS: usize = 2_000;
/// Characters of a prompt shown in the index.
const PROMPT_CHARS: usize = 90;

/// One user prompt in the index.
#[derive(Debug)]
struct Prompt {
    anchor: String,
    time: Option<String>,
    text: String,
}

/// What the map knows so far.
#[derive(Debug, Default)]
pub(crate) struct Map {
    /// A custom or AI title from the session.
    title: Option<String>,
    first_prompt: Option<String>,
    project: Option<String>,
    agent: Option<String>,
    start: Option<i64>,
    end: Option<i64>,
    prompts: Vec<Prompt>,
    prompts_dropped: u64,
    /// The main thread's calls by family (the counts every view shows are `Totals::counts`).
    tools: [u64; ToolFamily::ALL.len()],
    pub(crate) lanes: timeline::Lanes,
}

/// A prompt's first line, shortened for the index.
pub(crate) fn short(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    // A line of no more bytes than `max` has no more characters: copied whole.
    if line.len() <= max {
        return line.to_owned();
    }
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

impl Map {
    /// A session snapshot: title, project and agent.
    pub(crate) fn session(&mut self, s: &crate::model::session::SessionSnapshot) {
        if let Some(t) = s.title.as_ref().filter(|t| !t.trim().is_empty()) {
            self.title = Some(t.clone());
        }
        if self.project.is_none() {
            self.project = crate::model::session::said(&s.cwd).map(str::to_owned);
        }
        if self.agent.is_none() && !s.agent.is_empty() {
            self.agent = Some(s.agent.clone());
        }
    }

    fn time(&mut self, ts: Option<&str>) -> Option<i64> {
        let ms = parse_ms(ts?)?;
        self.start = Some(self.start.map_or(ms, |s| s.min(ms)));
        self.end = Some(self.end.map_or(ms, |e| e.max(ms)));
        Some(ms)
    }

    /// A top-level turn written with element id `anchor`.
    pub(crate) fn turn(&mut self, t: &Turn, anchor: &str) {
        let ms = self.time(t.timestamp.as_deref());
        let prompt = t.is_prompt();
        if prompt {
            let text = t.text();
            if self.first_prompt.is_none() && !text.trim().is_empty() {
                self.first_prompt = Some(short(&text, 200));
            }
            if self.prompts.len() < MAX_PROMPTS {
                self.prompts.push(Prompt {
                    anchor: anchor.to_owned(),
                    time: t.timestamp.clone(),
                    text: short(&text, PROMPT_CHARS),
                });
            } else {
                self.prompts_dropped += 1;
            }
        }
        let kind = match (prompt, t.role, &t.metadata.error) {
            (true, _, _) => MarkKind::Prompt,
            (_, _, Some(_)) => MarkKind::Error,
            (_, Role::Assistant, None) => MarkKind::Turn,
            (_, Role::User, None) => MarkKind::Other,
        };
        let label = match prompt {
            true => format!("prompt: {}", short(&t.text(), 60)),
            false => "turn".to_owned(),
        };
        self.lanes.mark(
            Lane::Main,
            Mark {
                ms,
                kind,
                anchor: anchor.to_owned(),
                label,
            },
        );
        self.parts(t, anchor, ms, Lane::Main);
    }

    /// The tool calls of a turn (and the turns of their sub-agents, each in its own lane). The
    /// anchors follow the ones `turn::push_turn` and `tool::push_subagent` write.
    fn parts(&mut self, t: &Turn, anchor: &str, ms: Option<i64>, lane: Lane) {
        for (i, part) in t.parts.iter().enumerate() {
            let Part::ToolCall { call } = part else {
                continue;
            };
            let scope = numbered_id(anchor, "-c", i + 1);
            let family = call.family();
            if lane == Lane::Main {
                self.tools[ToolFamily::ALL
                    .iter()
                    .position(|f| *f == family)
                    .unwrap_or(0)] += 1;
            }
            let mark = if call.is_denied() {
                MarkKind::Denied
            } else if call.is_error() {
                MarkKind::Error
            } else {
                MarkKind::Tool
            };
            let summary = crate::render::summary::call_line(call);
            self.lanes.mark(
                lane,
                Mark {
                    ms,
                    kind: mark,
                    anchor: scope.clone(),
                    label: short(&summary, 80),
                },
            );
            if let Some(sub) = &call.subagent {
                let sub_lane = match lane {
                    Lane::Main => self.lanes.new_lane(),
                    other => other,
                };
                for (j, st) in sub.transcript.iter().enumerate() {
                    let sub_anchor = numbered_id(&scope, "-", j + 1);
                    let sms = st.timestamp.as_deref().and_then(parse_ms);
                    let kind = if st.metadata.error.is_some() {
                        MarkKind::Error
                    } else {
                        MarkKind::Turn
                    };
                    self.lanes.mark(
                        sub_lane,
                        Mark {
                            ms: sms,
                            kind,
                            anchor: sub_anchor.clone(),
                            label: format!("sub-agent: {}", short(&sub.description, 60)),
                        },
                    );
                    self.parts(st, &sub_anchor, sms, sub_lane);
                }
            }
        }
    }

    /// The session's title: its own, else its first prompt.
    pub(crate) fn title(&self) -> Option<&str> {
        self.title.as_deref().or(self.first_prompt.as_deref())
    }

    /// Writes the header card, the timeline and the prompt index (after the transcript).
    pub(crate) fn push(&self, h: &mut Html, totals: &Totals, file: &str) {
        h.raw_trusted("<section class=\"map\" id=\"map\" aria-label=\"Overview\"><h1>")
            .text(self.title().unwrap_or(super::file_name(file)))
            .raw_trusted("</h1><p class=\"meta\">");
        if let Some(p) = &self.project {
            h.raw_trusted("<span class=\"proj\">")
                .text(p)
                .raw_trusted("</span> · ");
        }
        if let Some(a) = &self.agent {
            h.text(a).raw_trusted(" · ");
        }
        h.text(super::file_name(file))
            .raw_trusted("</p><dl class=\"facts\">");
        if let Some(s) = self.start {
            h.raw_trusted("<dt>started</dt><dd>");
            push_time(h, &iso(s));
            if let Some(e) = self.end.filter(|e| *e > s) {
                h.raw_trusted(" · ");
                times::push_duration(h, (e - s) as u64);
            }
            h.raw_trusted("</dd>");
        }
        push_counts(h, &self.tools, totals);
        push_tokens_and_cost(h, totals);
        // The input's whole path, below the figures (the heading and the line above name it).
        if file != super::file_name(file) {
            h.raw_trusted("<dt>file</dt><dd>")
                .text(file)
                .raw_trusted("</dd>");
        }
        h.raw_trusted("</dl>");
        self.lanes.push_svg(h, self.start, self.end);
        h.raw_trusted("</section>\n");
        self.push_prompts(h);
    }

    fn push_prompts(&self, h: &mut Html) {
        if self.prompts.is_empty() {
            return;
        }
        h.raw_trusted(
            "<nav class=\"prompts\" id=\"prompts\" aria-label=\"Prompts\"><h2>Prompts</h2><ol>",
        );
        for p in &self.prompts {
            h.raw_trusted("<li><a href=\"#")
                .attr(&p.anchor)
                .raw_trusted("\">")
                .text(if p.text.is_empty() {
                    "(empty prompt)"
                } else {
                    &p.text
                })
                .raw_trusted("</a>");
            if let Some(t) = &p.time {
                h.raw_trusted(" ");
                push_time(h, t);
            }
            h.raw_trusted("</li>");
        }
        h.raw_trusted("</ol>");
        if self.prompts_dropped > 0 {
            h.raw_trusted("<p class=\"meta\">and ")
                .num(self.prompts_dropped)
                .raw_trusted(" more</p>");
        }
        h.raw_trusted("</nav>\n");
    }
}

/// Milliseconds since 1970 as an RFC 3339 UTC timestamp.
fn iso(ms: i64) -> String {
    let w = times::utc_words(ms);
    // `YYYY-MM-DD HH:MM:SS UTC` → `YYYY-MM-DDTHH:MM:SSZ`.
    format!("{}T{}Z", &w[..10], &w[11..19])
}

/// The header's turns and calls: the figures every view shows (`Totals::counts`), the main
/// thread's calls broken down by family.
fn push_counts(h: &mut Html, tools: &[u64], totals: &Totals) {
    let c = totals.counts;
    h.raw_trusted("<dt>turns</dt><dd>")
        .num(c.turns)
        .raw_trusted(" (")
        .text(&count(c.prompts, "prompt"))
        .raw_trusted(")</dd>");
    if c.calls == 0 && c.sub_calls == 0 {
        return;
    }
    h.raw_trusted("<dt>tool calls</dt><dd>").num(c.calls);
    let by: Vec<String> = ToolFamily::ALL
        .iter()
        .zip(tools)
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{n} {}", k.word()))
        .collect();
    if !by.is_empty() {
        h.raw_trusted(": ").text(&by.join(", "));
    }
    if c.errors > 0 {
        h.raw_trusted(" · <span class=\"bad\">")
            .text(&count(c.errors, "error"))
            .raw_trusted("</span>");
    }
    if c.denied > 0 {
        h.raw_trusted(" · <span class=\"deny\">")
            .num(c.denied)
            .raw_trusted(" denied</span>");
    }
    if c.sub_calls > 0 {
        h.raw_trusted(" · ")
            .num(c.sub_calls)
            .raw_trusted(" more in sub-agents");
        if c.sub_failed > 0 {
            h.raw_trusted(" (<span class=\"bad\">")
                .num(c.sub_failed)
                .raw_trusted(" failed or denied</span>)");
        }
    }
    h.raw_trusted("</dd>");
}

/// The header's tokens and cost, as every view says them (`Totals`).
fn push_tokens_and_cost(h: &mut Html, totals: &Totals) {
    let u = totals.usage();
    if *u != Usage::default() {
        let t = crate::render::figures::thousands;
        h.raw_trusted("<dt>tokens</dt><dd>")
            .text(&t(totals.input_tokens()))
            .raw_trusted(" in (")
            .text(&t(u.cache_read_input_tokens))
            .raw_trusted(" cache read, ")
            .text(&t(u.cache_creation_input_tokens))
            .raw_trusted(" cache write) · ")
            .text(&t(u.output_tokens))
            .raw_trusted(" out</dd>");
    }
    // The runs' own cost (and the session's running total when larger); else a saved
    // session's cost-state record.
    if let Some(label) = totals.cost_label() {
        h.raw_trusted("<dt>cost</dt><dd>")
            .text(&label)
            .raw_trusted("</dd>");
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn short_keeps_the_first_line_and_cuts_by_characters() {
        assert_eq!(short("\n  fix the bug  \nmore", 20), "fix the bug");
        assert_eq!(short("abcdef", 6), "abcdef");
        assert_eq!(short("abcdefg", 6), "abcdef…");
        // Six characters in twelve bytes: not cut.
        assert_eq!(short("éééééé", 6), "éééééé");
        assert_eq!(short("ééééééé", 6), "éééééé…");
        assert_eq!(short("", 6), "");
    }
}
