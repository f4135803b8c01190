//! One turn as an `<article>` with an anchor; the same code draws top-level turns and the turns
//! of a sub-agent transcript, to any depth.

use super::escape::{Html, numbered_id, safe_href};
use super::markdown::push_markdown;
use super::times::{self, parse_ms, push_time};
use super::tool::{push_call, push_file};
use crate::model::transcript::{Part, Role, SyntheticReason, Turn, TurnOrigin};
use crate::render::figures::thousands;
use crate::render::sgr;

/// What the previous turn of the same transcript said, so that a turn shows only what changed:
/// the model when it is not the one before, its own duration and the time since the turn before.
#[derive(Debug, Default)]
pub(crate) struct Context {
    model: Option<String>,
    ms: Option<i64>,
}

/// The label and CSS class of a turn's origin.
fn origin_label(origin: &TurnOrigin) -> (&'static str, &'static str) {
    match origin {
        TurnOrigin::UserInput => ("User", "user"),
        TurnOrigin::ToolReturn { .. } => ("Tool return", "tool-return"),
        TurnOrigin::Synthetic { reason } => (synthetic_label(*reason), "synthetic"),
        TurnOrigin::SubagentPrompt { .. } => ("Sub-agent prompt", "subagent-prompt"),
        TurnOrigin::Replay => ("User (replayed)", "replay"),
        TurnOrigin::Notification => ("Notification", "notification"),
        TurnOrigin::Model => ("Assistant", "model"),
    }
}

fn synthetic_label(reason: SyntheticReason) -> &'static str {
    match reason {
        SyntheticReason::SkillBody => "Context: skill body",
        SyntheticReason::SystemReminder => "Context: system reminder",
        SyntheticReason::HookOutput => "Context: hook output",
        SyntheticReason::SlashCommand => "Command",
        SyntheticReason::LocalCommandOutput => "Command output",
        SyntheticReason::LocalCommandCaveat => "Context: local command caveat",
        SyntheticReason::Interrupt => "Context: interrupt",
        SyntheticReason::BashInput => "Bash command",
        SyntheticReason::BashOutput => "Bash output",
        SyntheticReason::MemoryInput => "Memory note",
        SyntheticReason::CompactSummary => "Context: compaction summary",
        SyntheticReason::CommandExpansion => "Context: command expansion",
        SyntheticReason::IdeContext => "Context: IDE",
        SyntheticReason::Other => "Context",
    }
}

/// Writes one turn whose element id is `anchor` (`t12`, or `t12-c1-3` inside a sub-agent).
pub(crate) fn push_turn(h: &mut Html, turn: &Turn, anchor: &str, cx: &mut Context) {
    let (label, class) = origin_label(&turn.origin);
    let role = match turn.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    h.raw_trusted("<article class=\"turn ")
        .raw_trusted(role)
        .raw_trusted(" o-")
        .raw_trusted(class)
        .raw_trusted("\" id=\"")
        .attr(anchor)
        .raw_trusted("\"><header class=\"turn-h\"><a class=\"anchor\" href=\"#")
        .attr(anchor)
        .raw_trusted("\">#")
        .text(anchor.trim_start_matches('t'))
        .raw_trusted("</a> <span class=\"who\">")
        .raw_trusted(label)
        .raw_trusted("</span>");
    push_meta(h, turn, cx);
    h.raw_trusted("</header>");
    let hidden = turn.origin.is_hidden_context();
    if hidden {
        h.raw_trusted("<details class=\"ctx\"><summary>show hidden context</summary>");
    }
    if let Some(err) = &turn.metadata.error {
        h.raw_trusted("<p class=\"api-error\">API error: ")
            .text(err)
            .raw_trusted("</p>");
    }
    let markdown = turn.role == Role::Assistant;
    // A local command's output keeps its terminal colours in the text: the words only here.
    let colours = matches!(
        turn.origin,
        TurnOrigin::Synthetic {
            reason: SyntheticReason::LocalCommandOutput
        }
    );
    for (i, part) in turn.parts.iter().enumerate() {
        match part {
            Part::Text { text, .. } if colours && sgr::has_escapes(text) => {
                h.raw_trusted("<div class=\"plain\">")
                    .text(&sgr::strip(text))
                    .raw_trusted("</div>");
            }
            Part::Text { .. }
            | Part::Reasoning { .. }
            | Part::ToolCall { .. }
            | Part::File { .. }
            | Part::SourceUrl { .. }
            | Part::SourceDocument { .. }
            | Part::Data { .. }
            | Part::Compaction { .. } => {
                push_part(h, part, markdown, &numbered_id(anchor, "-c", i + 1))
            }
        }
    }
    if hidden {
        h.raw_trusted("</details>");
    }
    h.raw_trusted("</article>\n");
}

/// Model (when it changed), tokens, interruption, time, the turn's own duration and the time
/// since the turn before: the quiet line beside the speaker.
fn push_meta(h: &mut Html, turn: &Turn, cx: &mut Context) {
    let m = &turn.metadata;
    if let Some(model) = &m.model
        && cx.model.as_ref() != Some(model)
    {
        h.raw_trusted(" <span class=\"meta model\">")
            .text(model)
            .raw_trusted("</span>");
        cx.model = Some(model.clone());
    }
    if let Some(u) = &m.usage {
        h.raw_trusted(" <span class=\"meta\" title=\"")
            .attr(&format!(
                "input {} · cache read {} · cache write {} · output {}",
                thousands(u.input_tokens),
                thousands(u.cache_read_input_tokens),
                thousands(u.cache_creation_input_tokens),
                thousands(u.output_tokens)
            ))
            .raw_trusted("\">")
            .text(&thousands(crate::render::totals::all_input(u)))
            .raw_trusted(" in · ")
            .text(&thousands(u.output_tokens))
            .raw_trusted(" out</span>");
    }
    if m.aborted {
        h.raw_trusted(" <span class=\"badge warn\">interrupted</span>");
    }
    if let Some(ts) = &turn.timestamp {
        h.raw_trusted(" <span class=\"meta\">");
        push_time(h, ts);
        if let Some(took) = times::span_ms(Some(ts), turn.end_timestamp.as_deref()) {
            h.raw_trusted(
                " · <span class=\"dur took\" title=\"the turn, from its first to its last event\">",
            );
            times::push_duration(h, took).raw_trusted("</span>");
        }
        let ms = parse_ms(ts);
        if let (Some(now), Some(before)) = (ms, cx.ms)
            && now > before
        {
            h.raw_trusted(" <span class=\"dur\" title=\"since the turn before\">+");
            times::push_duration(h, (now - before) as u64).raw_trusted("</span>");
        }
        h.raw_trusted("</span>");
        if ms.is_some() {
            cx.ms = ms;
        }
    }
}

/// A text part's citations (§14 `Citation`): each source, linked when its URL is safe, and the
/// words it quotes.
fn push_citations(h: &mut Html, citations: &[crate::model::transcript::Citation]) {
    h.raw_trusted("<ul class=\"meta citations\">");
    for c in citations {
        h.raw_trusted("<li>");
        let label = c.title.as_deref().or(c.url.as_deref()).unwrap_or("source");
        push_link(h, c.url.as_deref().unwrap_or_default(), label);
        if let Some(q) = &c.quote {
            h.raw_trusted(" — “").text(q).raw_trusted("”");
        }
        h.raw_trusted("</li>");
    }
    h.raw_trusted("</ul>");
}

/// `label` as a link to `url` when the URL is safe to follow ([`safe_href`]), else as text;
/// false when it is not a link.
fn push_link(h: &mut Html, url: &str, label: &str) -> bool {
    let Some(href) = safe_href(url) else {
        h.text(label);
        return false;
    };
    h.raw_trusted("<a href=\"").attr(href).raw_trusted("\">");
    h.text(label).raw_trusted("</a>");
    true
}

/// One part. `markdown`: the text is the model's (rendered as Markdown) rather than a person's.
fn push_part(h: &mut Html, part: &Part, markdown: bool, scope: &str) {
    match part {
        Part::Text { text, citations } => {
            if markdown {
                h.raw_trusted("<div class=\"md\">");
                push_markdown(h, text);
                h.raw_trusted("</div>");
            } else {
                h.raw_trusted("<div class=\"plain\">")
                    .text(text)
                    .raw_trusted("</div>");
            }
            if !citations.is_empty() {
                push_citations(h, citations);
            }
        }
        Part::Reasoning {
            text,
            redacted,
            signature: _,
        } => {
            h.raw_trusted("<details class=\"thinking\"><summary>Thinking");
            if *redacted {
                h.raw_trusted(" (redacted)</summary>");
            } else {
                h.raw_trusted("</summary><div class=\"plain\">")
                    .text(text)
                    .raw_trusted("</div>");
            }
            h.raw_trusted("</details>");
        }
        Part::ToolCall { call } => push_call(h, call, scope),
        Part::File {
            media_type,
            url,
            filename,
        } => push_file(h, media_type, url, filename.as_deref()),
        Part::SourceUrl {
            url,
            title,
            source_id: _,
        } => {
            let label = title.as_deref().unwrap_or(url);
            h.raw_trusted("<p class=\"source\">source: ");
            if !push_link(h, url, label) {
                h.raw_trusted(" <code>").text(url).raw_trusted("</code>");
            }
            h.raw_trusted("</p>");
        }
        Part::SourceDocument {
            media_type,
            title,
            source_id,
            text,
        } => {
            h.raw_trusted("<p class=\"source\">document: ")
                .text(title)
                .raw_trusted(" <span class=\"meta\">")
                .text(media_type)
                .raw_trusted(" ")
                .text(source_id)
                .raw_trusted("</span></p>");
            if let Some(text) = text {
                h.raw_trusted(
                    "<details class=\"data\"><summary>document text</summary><div class=\"plain\">",
                )
                .text(text)
                .raw_trusted("</div></details>");
            }
        }
        Part::Compaction { summary } => {
            h.raw_trusted("<details class=\"data\"><summary>Earlier turns compacted</summary><div class=\"plain\">")
                .text(summary.as_deref().unwrap_or("(no summary: compaction failed)"))
                .raw_trusted("</div></details>");
        }
        Part::Data {
            name,
            data,
            summary: _,
        } => {
            h.raw_trusted("<details class=\"data\"><summary>")
                .text(name)
                .raw_trusted("</summary><pre class=\"json\">")
                .text(&serde_json::to_string_pretty(data).unwrap_or_default())
                .raw_trusted("</pre></details>");
        }
    }
}
