//! One tool call as a card: a native `<details>` whose summary names the tool, its input in one
//! line and its state, and whose body shows the input and the output in the form that suits the
//! tool (a diff for edits, a checklist for todos, an image, a skill body, a nested sub-agent).

use serde_json::Value;

use super::escape::{Html, safe_href, safe_image_src};
use super::markdown::push_markdown;
use super::{diff, turn};
use crate::model::tool_kind::{TodoItem, TodoStatus, ToolKind};
use crate::model::transcript::{SubagentRecord, SubagentStatus, ToolCall, ToolState};
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
    h.raw_trusted("<details class=\"tool st-")
        .raw_trusted(class)
        .raw_trusted("\"><summary><span class=\"tname\">");
    let shown_name = match &call.kind {
        ToolKind::Mcp { tool, .. } => tool,
        ToolKind::Shell { .. }
        | ToolKind::Read { .. }
        | ToolKind::Write { .. }
        | ToolKind::Edit { .. }
        | ToolKind::MultiEdit { .. }
        | ToolKind::Patch { .. }
        | ToolKind::Search { .. }
        | ToolKind::WebFetch { .. }
        | ToolKind::WebSearch { .. }
        | ToolKind::Todo { .. }
        | ToolKind::Plan { .. }
        | ToolKind::Subagent { .. }
        | ToolKind::Skill { .. }
        | ToolKind::StructuredOutput
        | ToolKind::Other { .. } => &call.name,
    };
    h.text(shown_name).raw_trusted("</span>");
    if let Some(server) = &call.mcp_server {
        h.raw_trusted(" <span class=\"badge mcp\">MCP · ")
            .text(server)
            .raw_trusted("</span>");
    }
    if let Some(skill) = &call.skill {
        h.raw_trusted(" <span class=\"badge skill\">skill · ")
            .text(&skill.skill_name)
            .raw_trusted("</span>");
    }
    h.raw_trusted(" <span class=\"tsum\">")
        .text(&fitted_summary(call, Fit::CARD).unwrap_or_default())
        .raw_trusted("</span> <span class=\"state\">")
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
    if let Some(sub) = &call.subagent {
        push_subagent(h, sub, scope);
    }
    push_result(h, call);
    h.raw_trusted("</div></details>");
}

/// The input, shaped by what the call does.
fn push_input(h: &mut Html, call: &ToolCall) {
    match &call.kind {
        ToolKind::Shell {
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
        ToolKind::Edit { .. } | ToolKind::MultiEdit { .. } | ToolKind::Write { .. } => {
            diff::push_file_change(h, &call.kind, &call.facts)
        }
        ToolKind::Todo { items } => push_todos(h, items),
        ToolKind::Plan { plan } => {
            h.raw_trusted("<div class=\"md plan\">");
            push_markdown(h, plan);
            h.raw_trusted("</div>");
        }
        ToolKind::Read { .. }
        | ToolKind::Patch { .. }
        | ToolKind::Search { .. }
        | ToolKind::WebFetch { .. }
        | ToolKind::WebSearch { .. }
        | ToolKind::Subagent { .. }
        | ToolKind::Skill { .. }
        | ToolKind::Mcp { .. }
        | ToolKind::StructuredOutput
        | ToolKind::Other { .. } => push_fields(h, &call.input),
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
        match v {
            Value::String(s) => h.text(s),
            Value::Null
            | Value::Bool(_)
            | Value::Number(_)
            | Value::Array(_)
            | Value::Object(_) => h.text(&v.to_string()),
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

/// The output, or why there is none.
fn push_result(h: &mut Html, call: &ToolCall) {
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
    let output_text = call
        .output
        .as_ref()
        .map(crate::render::summary::output_text)
        .unwrap_or_default();
    if let Some(e) = call.error_text.as_deref().filter(|e| !e.trim().is_empty()) {
        if !output_text.contains(e.trim()) {
            push_pre(h, "out err", e);
        }
    }
    if let Some(output) = &call.output {
        push_output(h, output, class);
    }
}

fn push_pre(h: &mut Html, class: &'static str, text: &str) {
    h.raw_trusted("<pre class=\"")
        .raw_trusted(class)
        .raw_trusted("\">")
        .text(text)
        .raw_trusted("</pre>");
}

/// A normalized tool output: a string, an array of text / file parts, or any JSON.
fn push_output(h: &mut Html, output: &Value, class: &'static str) {
    match output {
        Value::Null => {}
        Value::String(s) if s.is_empty() => {
            h.raw_trusted("<p class=\"meta\">(no output)</p>");
        }
        Value::String(s) => push_pre(h, class, s),
        Value::Array(items) => {
            for item in items {
                let s = |k: &str| item.get(k).and_then(Value::as_str);
                match s("type") {
                    Some("text") => push_pre(h, class, s("text").unwrap_or_default()),
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
pub(crate) fn push_subagent(h: &mut Html, sub: &SubagentRecord, scope: &str) {
    let (class, word) = match sub.status {
        SubagentStatus::Running => ("running", "running"),
        SubagentStatus::Completed => ("success", "completed"),
        SubagentStatus::Failed => ("error", "failed"),
        SubagentStatus::Stopped => ("denied", "stopped"),
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
        .raw_trusted(word)
        .raw_trusted("</span>");
    if let Some(u) = &sub.usage {
        h.raw_trusted(" <span class=\"meta\">")
            .num(u.tool_uses)
            .raw_trusted(if u.tool_uses == 1 {
                " tool use · "
            } else {
                " tool uses · "
            })
            .num(u.total_tokens)
            .raw_trusted(" tokens");
        // `--stable=keep-usage` zeroes the duration: a zero is no duration at all.
        if u.duration_ms > 0 {
            h.raw_trusted(" · ")
                .text(&super::notice::duration(u.duration_ms));
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
    if let Some(s) = &sub.summary {
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
        .num(sub.transcript.len())
        .raw_trusted(if sub.transcript.len() == 1 {
            " turn"
        } else {
            " turns"
        })
        .raw_trusted("</summary><div class=\"nested\">");
    for (i, t) in sub.transcript.iter().enumerate() {
        let anchor = format!("{scope}-{}", i + 1);
        turn::push_turn(h, t, &anchor);
    }
    h.raw_trusted("</div></details></div>");
}
