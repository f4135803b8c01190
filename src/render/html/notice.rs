//! The side lanes of the page: the session summary, quiet one-line notices, unparsed lines, and
//! the footer (with the totals `render::totals` adds up from `result` notices).

use super::escape::Html;
use super::tool::push_subagent;
use super::turn::{Context, push_turn};
use crate::model::session::{HookStatus, Level, SessionSnapshot, SystemNotice, said};
use crate::model::transcript::DebugRecord;
use crate::render::figures::count;
use crate::render::notice_text;

use super::times::duration;

/// A sentence's first letter in capitals (the shared wordings start in lower case, for the
/// middle of a terminal line).
fn sentence(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn list(h: &mut Html, label: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    h.raw_trusted("<details class=\"inv\"><summary>")
        .text(label)
        .raw_trusted(" (")
        .num(items.len())
        .raw_trusted(")</summary><p>");
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            h.raw_trusted(", ");
        }
        h.raw_trusted("<code>").text(it).raw_trusted("</code>");
    }
    h.raw_trusted("</p></details>");
}

/// The session summary. The first one is the page's header card; later ones (a re-`init`) are
/// written in place, folded.
pub(crate) fn push_session(h: &mut Html, s: &SessionSnapshot, first: bool) {
    // Folded: its summary names what a reader checks first (model, tools, MCP servers).
    h.raw_trusted("<details class=\"item session\"><summary>")
        .raw_trusted(if first {
            "Setup"
        } else {
            "Session re-initialised"
        });
    // The first fact follows a colon, the others a middle dot, whichever the input gave.
    let mut said_one = false;
    let mut sep = |h: &mut Html| {
        h.raw_trusted(if said_one { " · " } else { ": " });
        said_one = true;
    };
    for part in [&s.model, &s.permission_mode] {
        if let Some(part) = said(part) {
            sep(h);
            h.text(part);
        }
    }
    if !s.tools.is_empty() {
        sep(h);
        h.num(s.tools.len()).raw_trusted(" tools");
    }
    for m in &s.mcp_servers {
        sep(h);
        h.raw_trusted("MCP ")
            .text(&m.name)
            .raw_trusted(" (")
            .text(&m.status)
            .raw_trusted(")");
    }
    h.raw_trusted("</summary>");
    h.raw_trusted("<dl class=\"facts\">");
    fn or_none(v: &Option<String>) -> &str {
        v.as_deref().unwrap_or_default()
    }
    let facts = [
        ("model", or_none(&s.model)),
        ("cwd", or_none(&s.cwd)),
        ("permission mode", or_none(&s.permission_mode)),
        ("output style", or_none(&s.output_style)),
        ("API key source", or_none(&s.api_key_source)),
        ("fast mode", or_none(&s.fast_mode_state)),
        ("agent", &s.agent),
        ("version", or_none(&s.version)),
        ("source format", &s.source),
        ("session", &s.session_id),
    ];
    for (k, v) in facts.iter().filter(|(_, v)| !v.is_empty()) {
        h.raw_trusted("<dt>")
            .text(k)
            .raw_trusted("</dt><dd>")
            .text(v)
            .raw_trusted("</dd>");
    }
    h.raw_trusted("</dl>");
    if !s.mcp_servers.is_empty() {
        h.raw_trusted("<p class=\"mcp\">MCP servers: ");
        for m in &s.mcp_servers {
            let dot = match m.status.as_str() {
                "connected" => "ok",
                "failed" | "error" => "bad",
                _ => "wait",
            };
            h.raw_trusted("<span class=\"server\"><span class=\"dot ")
                .raw_trusted(dot)
                .raw_trusted("\" title=\"")
                .attr(&m.status)
                .raw_trusted("\"></span>")
                .text(&m.name)
                .raw_trusted(" <span class=\"meta\">")
                .text(&m.status)
                .raw_trusted("</span></span> ");
        }
        h.raw_trusted("</p>");
    }
    list(h, "tools", &s.tools);
    list(h, "skills", &s.skills);
    list(h, "agents", &s.agents);
    let plugins: Vec<String> = s.plugins.iter().map(|p| p.name.clone()).collect();
    list(h, "plugins", &plugins);
    h.raw_trusted("</details>\n");
}

fn open(h: &mut Html, class: &'static str) {
    h.raw_trusted("<div class=\"item notice ")
        .raw_trusted(class)
        .raw_trusted("\">");
}

/// One notice as a quiet line in words (or a folded block when it carries turns).
/// `shown_denial` tells whether a tool card already said that a call was denied (then its
/// notice is not written again).
pub(crate) fn push_notice(
    h: &mut Html,
    n: &SystemNotice,
    scope: &str,
    shown_denial: &dyn Fn(&str) -> bool,
) {
    match n {
        SystemNotice::RateLimit {
            status,
            rate_limit_type,
            ..
        } => {
            let words = notice_text::rate_limit(status, rate_limit_type.as_deref());
            line(h, "info", &sentence(&words));
        }
        SystemNotice::ApiRetry {
            attempt,
            max,
            delay_ms,
            error_status,
            error,
        } => {
            let detail = notice_text::retry_detail(*error_status, error.as_deref());
            let words = format!(
                "API retry {attempt}/{max} in {}{detail}",
                duration(*delay_ms)
            );
            line(h, "warning", &words);
        }
        SystemNotice::Compact {
            trigger,
            pre_tokens,
            post_tokens,
            ..
        } => {
            let mut words = "Context compacted".to_owned();
            if let Some(t) = trigger {
                words.push_str(&format!(" ({t})"));
            }
            if let (Some(a), Some(b)) = (pre_tokens, post_tokens) {
                words.push_str(&format!(": {a} → {b} tokens"));
            }
            line(h, "info", &words);
        }
        SystemNotice::Hook { .. } => push_hook(h, n),
        SystemNotice::SessionState { state } => line(h, "trace", &format!("Session {state}")),
        SystemNotice::Status { status, detail } => {
            let status = status.as_deref().unwrap_or("—");
            let detail = detail
                .as_ref()
                .map(|d| format!(" · {d}"))
                .unwrap_or_default();
            line(h, "trace", &format!("Status: {status}{detail}"));
        }
        SystemNotice::FilesPersisted {
            files,
            failed,
            processed_at,
        } => {
            let mut words = format!("Files saved: {}", files.len());
            if !failed.is_empty() {
                words.push_str(&format!(" ({} failed)", failed.len()));
            }
            if let Some(at) = processed_at {
                words.push_str(&format!(" · processed at {at}"));
            }
            line(h, "info", &words);
        }
        SystemNotice::Elicitation { server, id: _ } => {
            line(h, "info", &sentence(&notice_text::elicitation(server)));
        }
        SystemNotice::PermissionDenied { tool_call_id, .. } if shown_denial(tool_call_id) => {
            return;
        }
        SystemNotice::PermissionDenied {
            tool_name,
            tool_call_id: _,
            message,
        } => line(
            h,
            "warning",
            &format!("Permission denied: {tool_name} · {message}"),
        ),
        task @ SystemNotice::Task { .. } => push_task(h, task),
        SystemNotice::MissedEvents { from, to, reason } => {
            let range = match (from, to) {
                (Some(a), Some(b)) => format!(" {a}–{b}"),
                _ => String::new(),
            };
            line(h, "warning", &format!("Events missed{range}: {reason}"));
        }
        SystemNotice::Subagent {
            tool_call_id: _,
            record,
        } => {
            open(h, "info");
            push_subagent(h, record, &format!("{scope}-s"), None);
        }
        SystemNotice::Branch { leaf_id: _, turns } => push_branch(h, turns, scope),
        SystemNotice::Result { is_error, .. } => {
            let class = if *is_error { "error" } else { "result" };
            line(h, class, &result_words(n));
        }
        SystemNotice::Info {
            source,
            level,
            text,
            data: _,
        } => {
            let class = match level {
                Level::Trace => "trace",
                Level::Info => "info",
                Level::Warning => "warning",
                Level::Error => "error",
            };
            // The record's name is machinery: the words say what happened.
            line(h, class, &sentence(&notice_text::info_words(source, text)));
            // A result no call took: its output, folded under its words.
            if let Some(output) = n.result_output() {
                h.raw_trusted("<details class=\"loose-result\"><summary>output</summary>");
                super::tool::push_output(h, output, "out", None);
                h.raw_trusted("</details>");
            }
        }
    }
    h.raw_trusted("</div>\n");
}

/// A notice that is one line of words, drawn at `class`.
fn line(h: &mut Html, class: &'static str, words: &str) {
    open(h, class);
    h.text(words);
}

/// A hook's line (the fold holds its start until its end): its name, its event when the name
/// does not say it, how far it got when its end never came, its outcome, exit code and output.
fn push_hook(h: &mut Html, n: &SystemNotice) {
    let SystemNotice::Hook {
        hook_id: _,
        hook_name,
        event,
        status,
        output,
        exit_code,
        outcome,
    } = n
    else {
        unreachable!("push_notice sends only hook notices here");
    };
    let mut words = format!("Hook {hook_name}");
    if !event.is_empty() && !hook_name.starts_with(event.as_str()) {
        words.push_str(&format!(" ({event})"));
    }
    match status {
        HookStatus::Started | HookStatus::Progress => words.push_str(" · started, no end reported"),
        HookStatus::Response => {}
    }
    if let Some(o) = outcome {
        words.push_str(&format!(" · {o}"));
    }
    if let Some(c) = exit_code {
        words.push_str(&format!(" · exit {c}"));
    }
    line(h, "trace hook", &words);
    if let Some(o) = output.as_deref().filter(|o| !o.trim().is_empty()) {
        h.raw_trusted(" · <code>")
            .text(o.trim_end())
            .raw_trusted("</code>");
    }
}

/// A result's line: how the run ended (`success` → "Done"; `error_max_turns` → "Stopped: error
/// max turns"; a subtype that is no error and no success, one nobody here knows among them, is
/// named as it is: "Result: brand new ok"), its turns, its duration, its cost (the run's own,
/// and the running total beside it when that is more) and its errors.
fn result_words(n: &SystemNotice) -> String {
    let SystemNotice::Result {
        subtype,
        is_error,
        cost,
        run_cost,
        turns,
        duration_ms,
        errors,
        ..
    } = n
    else {
        unreachable!("push_notice sends only result notices here");
    };
    let mut words = if *is_error {
        format!("Stopped: {}", subtype.replace('_', " "))
    } else if subtype.is_empty() || subtype == "success" {
        "Done".to_owned()
    } else {
        format!("Result: {}", subtype.replace('_', " "))
    };
    if let Some(t) = turns {
        words.push_str(&format!(" · {}", count(*t, "turn")));
    }
    if let Some(d) = duration_ms {
        words.push_str(&format!(" · {}", duration(*d)));
    }
    match (run_cost, cost) {
        (Some(own), Some(total)) if total - own >= 0.00005 => {
            words.push_str(&format!(" · ${own:.4} (${total:.4} session so far)"));
        }
        (Some(c), _) | (None, Some(c)) => words.push_str(&format!(" · ${c:.4}")),
        (None, None) => {}
    }
    for e in errors {
        words.push_str(&format!(" · {e}"));
    }
    words
}

/// A task notice (a task no call owns): its label, status and summary, its final report, and
/// what its lines said beside.
fn push_task(h: &mut Html, n: &SystemNotice) {
    let SystemNotice::Task {
        task_id,
        status,
        description,
        summary,
        usage: _,
        result,
        details,
    } = n
    else {
        unreachable!("push_notice sends only task notices here");
    };
    let label = description.as_deref().unwrap_or(task_id);
    let words = [Some(label), status.map(|s| s.word()), summary.as_deref()];
    let words: Vec<&str> = words.into_iter().flatten().collect();
    line(h, "info", &format!("Task {}", words.join(" · ")));
    if let Some(r) = result {
        h.raw_trusted("<p class=\"plain sub-result\">")
            .text(r)
            .raw_trusted("</p>");
    }
    super::tool::push_task_details(h, details);
}

/// A branch a rewind left behind: its turns, folded under a line that counts them.
fn push_branch(h: &mut Html, turns: &[crate::model::transcript::Turn], scope: &str) {
    open(h, "info");
    h.raw_trusted("<details class=\"branch\"><summary>Rewound branch · ")
        .text(&count(turns.len(), "turn"))
        .raw_trusted("</summary>");
    let mut cx = Context::default();
    for (i, t) in turns.iter().enumerate() {
        push_turn(h, t, &format!("{scope}-b{}", i + 1), &mut cx);
    }
    h.raw_trusted("</details>");
}

/// An input line nothing understood (`--debug`): which line and why, its raw input folded (but
/// for a malformed payload of a known kind, which no page draws).
pub(crate) fn push_debug(h: &mut Html, d: &DebugRecord) {
    h.raw_trusted("<details class=\"item debug\"><summary>Line ")
        .num(d.line)
        .raw_trusted(" not understood: ")
        .text(&d.reason)
        .raw_trusted("</summary>");
    if d.malformed {
        // A known kind with a malformed payload: the page says which line and why, and never
        // draws the payload; the records keep it.
        h.raw_trusted("<p>Its payload is not shown; <code>--to jsonl</code> keeps the line.</p>");
    } else {
        h.raw_trusted("<pre>").text(&d.raw).raw_trusted("</pre>");
    }
    h.raw_trusted("</details>\n");
}

/// The footer: what went wrong reading the input, if anything (lines not read; lines nothing
/// understood that `--debug` would show), and where to go next (the totals are in the map at
/// the top; they are not repeated here).
pub(crate) fn push_footer(h: &mut Html, errors: u64, hidden_debug: u64) {
    h.raw_trusted("<footer class=\"page-f\"><a href=\"#map\">↑ Overview</a>");
    if errors > 0 {
        h.raw_trusted("<span class=\"bad\">")
            .text(&count(errors, "input line"))
            .raw_trusted(" could not be read (see stderr)</span>");
    }
    if let Some(note) = crate::render::debug_summary(hidden_debug) {
        h.raw_trusted("<span class=\"debug\">")
            .text(&note)
            .raw_trusted("</span>");
    }
    h.raw_trusted("</footer>\n");
}
