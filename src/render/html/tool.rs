//! One tool call as a card: a native `<details>` whose summary names the tool, its input in one
//! line and its state, and whose body shows the input and the output in the form that suits the
//! tool (a diff for edits, a checklist for todos, an image, a skill body, a nested sub-agent).

use scribe_highlight::Language;
use serde_json::Value;

use super::escape::{Html, numbered_id, safe_href, safe_image_src};
use super::handback::{self, Handback};
use super::markdown::push_markdown;
use super::open::card_open;
use super::output::push_pre;
use super::{diff, turn};
use crate::model::tool_kind::{InputShape, TodoItem, TodoStatus, ToolFamily};
use crate::model::transcript::{SubagentRecord, SubagentStatus, TaskDetails, ToolCall, ToolState};
use crate::render::figures::count;
use crate::render::summary::{Fit, fitted_summary};

/// The state shown on a card: a CSS class and a word. A refused permission wins over the state
/// the call ended in (the CLI reports a denial as an error result).
fn state_of(call: &ToolCall) -> (&'static str, &'static str) {
    if call.denied.is_some() {
        return ("denied", "denied");
    }
    match call.state {
        ToolState::Pending => ("running", "pending"),
        ToolState::ApprovalPending => ("running", "awaiting approval"),
        ToolState::Running => ("running", "running"),
        ToolState::Success => ("success", "success"),
        ToolState::Error => ("error", "error"),
        ToolState::ApprovalDenied => ("denied", "denied"),
    }
}

/// Writes one card. `scope` is a unique prefix for anchors of nested sub-agent turns.
pub(crate) fn push_call(h: &mut Html, call: &ToolCall, scope: &str) {
    let (class, word) = state_of(call);
    let family = call.family();
    h.raw_trusted("<details class=\"tool st-")
        .raw_trusted(class)
        .raw_trusted(" k-")
        .raw_trusted(family.word())
        .raw_trusted("\" id=\"")
        .attr(scope)
        .raw_trusted(if card_open(call) { "\" open>" } else { "\">" })
        .raw_trusted("<summary><span class=\"tname\">");
    h.text(call.tool_name()).raw_trusted("</span>");
    if let Some(server) = &call.mcp_server {
        h.raw_trusted(" <span class=\"badge mcp\">MCP · ")
            .text(server)
            .raw_trusted("</span>");
    }
    if let Some(mark) = call.caller_mark() {
        h.raw_trusted(" <span class=\"badge server\">")
            .text(mark)
            .raw_trusted("</span>");
    }
    if let Some(skill) = &call.skill {
        h.raw_trusted(" <span class=\"badge skill\">skill · ")
            .text(&skill.skill_name)
            .raw_trusted("</span>");
    }
    h.raw_trusted(" <span class=\"tsum\">")
        .text(&fitted_summary(call, Fit::CARD).unwrap_or_default())
        .raw_trusted("</span>");
    // The output's text, once per card (borrowed when it is one string).
    let text = call.output.as_ref().map(|_| call.output_words());
    // Lines of text that came back: the harness's own count when it gives one (what the text
    // view says too; the output may hold a reminder after the file's lines), else the output's
    // lines (an image is not lines).
    let lines = || {
        if let Some(n) = call.facts.lines_read {
            return usize::try_from(n).unwrap_or(usize::MAX);
        }
        let image = call.output.as_ref().is_some_and(|o| {
            o.as_array().is_some_and(|a| {
                a.iter()
                    .any(|i| i.get("type").and_then(Value::as_str) == Some("file"))
            })
        });
        match &text {
            Some(t) if !image => line_count(t),
            Some(_) | None => 0,
        }
    };
    if family == ToolFamily::Read
        && let lines = lines()
        && lines > 0
    {
        h.raw_trusted(" <span class=\"meta\">")
            .text(&count(lines, "line"))
            .raw_trusted("</span>");
    }
    if let Some(ms) = call_duration_ms(call) {
        h.raw_trusted(" <span class=\"meta dur\">");
        super::times::push_duration(h, ms).raw_trusted("</span>");
    }
    h.raw_trusted(" <span class=\"state\">")
        .raw_trusted(word)
        .raw_trusted("</span></summary><div class=\"tbody\">");
    push_input(h, call);
    if let Some(skill) = &call.skill
        && let Some(body) = &skill.body
    {
        h.raw_trusted("<details class=\"skill-body\"><summary>Skill body: ")
            .text(&skill.skill_name)
            .raw_trusted("</summary><div class=\"md\">");
        push_markdown(h, body);
        h.raw_trusted("</div></details>");
    }
    // A sub-agent's hand-back: the report once, its trailer as facts.
    let agent = family == ToolFamily::Agent;
    let handback = text.as_deref().filter(|_| agent).and_then(handback::parse);
    if let Some(sub) = &call.subagent {
        let report = handback.as_ref().map(|hb| hb.report.as_str());
        push_subagent(h, sub, scope, report);
    }
    // A sub-agent's summary that is its whole output is not written twice.
    let summary_is_output = call.state == ToolState::Success
        && call
            .subagent
            .as_ref()
            .and_then(|sub| sub.summary.as_deref())
            .zip(text.as_deref())
            .is_some_and(|(s, o)| s.trim() == o.trim());
    match (&handback, call.denied.is_some()) {
        (Some(hb), false) => push_handback(h, hb),
        _ if summary_is_output => {}
        _ => push_result(h, call, text.as_deref().unwrap_or_default()),
    }
    h.raw_trusted("</div></details>");
}

/// How long a call ran: what the harness timed (`facts.duration_ms`, set by the adapter), else a
/// sub-agent's own count, else the time from the line that started it to the line that brought
/// its result.
fn call_duration_ms(call: &ToolCall) -> Option<u64> {
    call.facts
        .duration_ms
        .or_else(|| call.subagent.as_ref()?.usage.map(|u| u.duration_ms))
        .filter(|&ms| ms > 0)
        .or_else(|| super::times::span_ms(call.started_at.as_deref(), call.ended_at.as_deref()))
}

/// A sub-agent's parsed hand-back: its report as Markdown, the trailer's facts in words, and
/// the frame's lines as written, folded.
fn push_handback(h: &mut Html, hb: &Handback) {
    if !hb.report.is_empty() {
        h.raw_trusted("<div class=\"md report\">");
        push_markdown(h, &hb.report);
        h.raw_trusted("</div>");
    }
    let mut facts: Vec<String> = Vec::new();
    if let Some(t) = &hb.tools_used {
        facts.push(format!("tools used: {t}"));
    }
    for (k, v) in &hb.usage {
        let n = v.parse::<u64>().ok();
        facts.push(match (k.as_str(), n) {
            ("subagent_tokens" | "total_tokens", Some(n)) => {
                format!("{} tokens", crate::render::figures::thousands(n))
            }
            ("tool_uses", Some(n)) => count(n, "tool use"),
            ("duration_ms", Some(n)) => super::times::duration(n),
            _ => format!("{}: {v}", k.replace('_', " ")),
        });
    }
    if let Some(id) = &hb.agent_id {
        let note = hb.agent_note.as_deref().unwrap_or_default();
        facts.push(format!("agentId: {id} {note}").trim_end().to_owned());
    }
    if !facts.is_empty() {
        h.raw_trusted("<p class=\"meta\">")
            .text(&facts.join(" · "))
            .raw_trusted("</p>");
    }
    if !hb.frame.is_empty() {
        h.raw_trusted("<details class=\"frame\"><summary>as the model read it</summary><pre>")
            .text(&hb.frame.join("\n"))
            .raw_trusted("</pre></details>");
    }
}

/// What a task's lines said beside its description (its type, workflow, last tool, progress
/// summary, output file), in one quiet line; nothing when they said none of it.
pub(crate) fn push_task_details(h: &mut Html, details: &TaskDetails) {
    let facts = details.facts();
    if facts.is_empty() {
        return;
    }
    h.raw_trusted("<p class=\"meta task-details\">");
    for (i, (what, said)) in facts.into_iter().enumerate() {
        if i > 0 {
            h.raw_trusted(" · ");
        }
        h.text(what).raw_trusted(": ").text(said);
    }
    h.raw_trusted("</p>");
}

/// The input, shaped by what the call does.
fn push_input(h: &mut Html, call: &ToolCall) {
    match call.kind.input_shape() {
        InputShape::Command {
            command,
            description,
        } => {
            if let Some(d) = description {
                h.raw_trusted("<p class=\"desc\">")
                    .text(d)
                    .raw_trusted("</p>");
            }
            h.raw_trusted("<pre class=\"cmd\">$ ")
                .text(command)
                .raw_trusted("</pre>");
        }
        InputShape::FileChange(change) => diff::push_file_change(h, &change, &call.facts),
        InputShape::Checklist(items) => push_todos(h, items),
        InputShape::Plan(plan) => {
            h.raw_trusted("<div class=\"md plan\">");
            push_markdown(h, plan);
            h.raw_trusted("</div>");
        }
        // The description and type are the sub-agent's heading: only the prompt is new here.
        InputShape::Subagent => match call.input.get("prompt").and_then(Value::as_str) {
            Some(prompt) => {
                h.raw_trusted("<details class=\"prompt\"><summary>Prompt</summary>")
                    .raw_trusted("<div class=\"plain\">")
                    .text(prompt)
                    .raw_trusted("</div></details>");
            }
            None => push_fields(h, &call.input),
        },
        InputShape::Answer | InputShape::Fields => push_fields(h, &call.input),
    }
}

/// Any input as a list of its top-level fields (strings as text, the rest as JSON).
fn push_fields(h: &mut Html, input: &Value) {
    let Some(obj) = input.as_object() else {
        if !input.is_null() {
            push_json(h, input);
        }
        return;
    };
    if obj.is_empty() {
        return;
    }
    h.raw_trusted("<dl class=\"kv\">");
    for (k, v) in obj {
        h.raw_trusted("<dt>").text(k).raw_trusted("</dt><dd>");
        match v.as_str() {
            Some(s) => h.text(s),
            None => h.text(&v.to_string()),
        };
        h.raw_trusted("</dd>");
    }
    h.raw_trusted("</dl>");
}

fn push_json(h: &mut Html, v: &Value) {
    let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
    h.raw_trusted("<pre class=\"json\">")
        .text(&pretty)
        .raw_trusted("</pre>");
}

/// A todo list as a checklist.
fn push_todos(h: &mut Html, items: &[TodoItem]) {
    h.raw_trusted("<ul class=\"todos\">");
    for t in items {
        let (class, mark) = match t.status {
            TodoStatus::Completed => ("done", "☑"),
            TodoStatus::InProgress => ("doing", "◐"),
            TodoStatus::Pending => ("todo", "☐"),
        };
        h.raw_trusted("<li class=\"")
            .raw_trusted(class)
            .raw_trusted("\"><span class=\"box\">")
            .raw_trusted(mark)
            .raw_trusted("</span> ")
            .text(&t.text)
            .raw_trusted("</li>");
    }
    h.raw_trusted("</ul>");
}

/// The output (whose text is `output_text`), or why there is none.
fn push_result(h: &mut Html, call: &ToolCall, output_text: &str) {
    if let Some(msg) = &call.denied {
        h.raw_trusted("<p class=\"denied-msg\">Permission denied: ")
            .text(msg)
            .raw_trusted("</p>");
        return;
    }
    let class = if call.state == ToolState::Error {
        "out err"
    } else {
        "out"
    };
    // An error's message, when the output does not already say it (a failed command's exit
    // code, an MCP error beside a result).
    if let Some(e) = call.error_text.as_deref().filter(|e| !e.trim().is_empty()) {
        if !output_text.contains(e.trim()) {
            push_pre(h, "out err", e, None);
        }
    }
    push_persisted_preview(h, call);
    // A file read's content is highlighted by the file's language.
    let lang = call.kind.read_file().and_then(scribe_highlight::language);
    if let Some(output) = &call.output {
        push_output(h, output, class, lang);
    }
}

/// The preview the model read of an output the harness saved to a file, folded above the saved
/// output the card shows.
fn push_persisted_preview(h: &mut Html, call: &ToolCall) {
    if let Some(preview) = &call.facts.persisted_preview {
        h.raw_trusted("<details class=\"model-read\"><summary>")
            .text(crate::render::summary::PERSISTED_PREVIEW)
            .raw_trusted("</summary>");
        push_pre(h, "out", preview, None);
        h.raw_trusted("</details>");
    }
}

/// How many lines `text` has, its last newlines aside (`lines().count()` of it trimmed, by
/// `memchr`: a file read's output is counted whole).
fn line_count(text: &str) -> usize {
    let body = text.trim_end_matches('\n');
    match body.is_empty() {
        true => 0,
        false => memchr::memchr_iter(b'\n', body.as_bytes()).count() + 1,
    }
}

/// A normalized tool output: a string, an array of text / file parts, or any JSON.
pub(crate) fn push_output(
    h: &mut Html,
    output: &Value,
    class: &'static str,
    lang: Option<&'static Language>,
) {
    match output {
        Value::Null => {}
        Value::String(s) if s.is_empty() => {
            h.raw_trusted("<p class=\"meta\">(no output)</p>");
        }
        Value::String(s) => push_pre(h, class, s, lang),
        Value::Array(items) => {
            for item in items {
                let s = |k: &str| item.get(k).and_then(Value::as_str);
                match s("type") {
                    Some("text") => push_pre(h, class, s("text").unwrap_or_default(), lang),
                    Some("file") => push_file(
                        h,
                        s("mediaType").unwrap_or_default(),
                        s("url").unwrap_or_default(),
                        s("filename"),
                    ),
                    _ => push_json(h, item),
                }
            }
        }
        Value::Bool(_) | Value::Number(_) | Value::Object(_) => push_json(h, output),
    }
}

/// A file part: an inline image when it is a `data:` image, otherwise a labelled reference.
pub(crate) fn push_file(h: &mut Html, media_type: &str, url: &str, filename: Option<&str>) {
    let label = filename.unwrap_or(media_type);
    if let Some(src) = safe_image_src(media_type, url) {
        h.raw_trusted("<img class=\"shot\" alt=\"")
            .attr(label)
            .raw_trusted("\" src=\"")
            .attr(src)
            .raw_trusted("\">");
        return;
    }
    h.raw_trusted("<p class=\"file\">file: ").text(label);
    if filename.is_some() {
        h.raw_trusted(" (").text(media_type).raw_trusted(")");
    }
    match safe_href(url) {
        Some(href) => {
            h.raw_trusted(" <a href=\"")
                .attr(href)
                .raw_trusted("\">")
                .text(href)
                .raw_trusted("</a>");
        }
        None if !url.starts_with("data:") => {
            h.raw_trusted(" <code>").text(url).raw_trusted("</code>");
        }
        None => {}
    }
    h.raw_trusted("</p>");
}

/// A sub-agent run: what it was asked, where it stands, and its whole transcript behind a toggle.
/// `report` is the hand-back's report shown below by the card, so the same words are not
/// written twice.
pub(crate) fn push_subagent(h: &mut Html, sub: &SubagentRecord, scope: &str, report: Option<&str>) {
    let class = match sub.status {
        SubagentStatus::Running => "running",
        SubagentStatus::Completed => "success",
        SubagentStatus::Failed => "error",
        SubagentStatus::Stopped => "denied",
    };
    h.raw_trusted(
        "<div class=\"subagent\"><p class=\"sub-h\"><span class=\"badge agent\">sub-agent</span> ",
    );
    if let Some(t) = &sub.subagent_type {
        h.raw_trusted("<span class=\"badge\">")
            .text(t)
            .raw_trusted("</span> ");
    }
    h.text(&sub.description)
        .raw_trusted(" <span class=\"state sub-")
        .raw_trusted(class)
        .raw_trusted("\">")
        .raw_trusted(sub.status.word())
        .raw_trusted("</span>");
    if let Some(u) = &sub.usage {
        h.raw_trusted(" <span class=\"meta\">")
            .text(&count(u.tool_uses, "tool use"))
            .raw_trusted(" · ")
            .num(u.total_tokens)
            .raw_trusted(" tokens");
        // `--stable=keep-usage` zeroes the duration: a zero is no duration at all.
        if u.duration_ms > 0 {
            h.raw_trusted(" · ");
            super::times::push_duration(h, u.duration_ms);
        }
        h.raw_trusted("</span>");
    }
    h.raw_trusted("</p>");
    if !sub.progress.is_empty() {
        h.raw_trusted("<ol class=\"progress\">");
        for p in &sub.progress {
            h.raw_trusted("<li>").text(p).raw_trusted("</li>");
        }
        h.raw_trusted("</ol>");
    }
    push_task_details(h, &sub.details);
    if let Some(e) = &sub.error {
        h.raw_trusted("<p class=\"sub-summary sub-error\">")
            .text(&format!("error: {e}"))
            .raw_trusted("</p>");
    }
    if let Some(s) = sub
        .summary
        .as_ref()
        .filter(|s| report.is_none_or(|r| r.trim() != s.trim()))
    {
        h.raw_trusted("<p class=\"sub-summary\">")
            .text(s)
            .raw_trusted("</p>");
    }
    // The run's final report from its completion notification, line breaks kept.
    if let Some(r) = &sub.result {
        h.raw_trusted("<p class=\"plain sub-result\">")
            .text(r)
            .raw_trusted("</p>");
    }
    h.raw_trusted("<details class=\"sub-transcript\"><summary>Sub-agent transcript · ")
        .text(&count(sub.transcript.len(), "turn"))
        .raw_trusted("</summary><div class=\"nested\">");
    let mut cx = turn::Context::default();
    for (i, t) in sub.transcript.iter().enumerate() {
        let anchor = numbered_id(scope, "-", i + 1);
        turn::push_turn(h, t, &anchor, &mut cx);
    }
    h.raw_trusted("</div></details></div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn line_count_as_by_lines(text in "([x\r\n]|→){0,16}") {
            proptest::prop_assert_eq!(line_count(&text), text.trim_end_matches('\n').lines().count());
        }

    }
}
