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
    for (i, part) in [&s.model, &s.permission_mode].into_iter().enumerate() {
        if let Some(part) = said(part) {
            h.raw_trusted(if i == 0 { ": " } else { " · " }).text(part);
        }
    }
    if !s.tools.is_empty() {
        h.raw_trusted(" · ")
            .num(s.tools.len())
            .raw_trusted(" tools");
    }
    for m in &s.mcp_servers {
        h.raw_trusted(" · MCP ")
            .text(&m.name)
            .raw_trusted(" (")
            .text(&m.status)
            .raw_trusted(")");
    }
    h.raw_trusted("</summary>");
    h.raw_trusted("<dl class=\"facts\">");
    let mut fact = |k: &str, v: &str| {
        if !v.is_empty() {
            h.raw_trusted("<dt>")
                .text(k)
                .raw_trusted("</dt><dd>")
                .text(v)
                .raw_trusted("</dd>");
        }
    };
    fact("model", said(&s.model).unwrap_or_default());
    fact("cwd", said(&s.cwd).unwrap_or_default());
    fact(
        "permission mode",
        said(&s.permission_mode).unwrap_or_default(),
    );
    fact(
        "output style",
        s.output_style.as_deref().unwrap_or_default(),
    );
    fact(
        "API key source",
        s.api_key_source.as_deref().unwrap_or_default(),
    );
    fact(
        "fast mode",
        s.fast_mode_state.as_deref().unwrap_or_default(),
    );
    fact("agent", &s.agent);
    fact("version", s.version.as_deref().unwrap_or_default());
    fact("source format", &s.source);
    fact("session", &s.session_id);
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

/// One notice as a quiet line in words (or a folded block when it carries turns). `shown_denial` tells whether a tool card already said that a call was denied
/// (then its notice is not written again).
pub(crate) fn push_notice(
    h: &mut Html,
    n: &SystemNotice,
    scope: &str,
    shown_denial: &dyn Fn(&str) -> bool,
) {
    if let SystemNotice::PermissionDenied { tool_call_id, .. } = n
        && shown_denial(tool_call_id)
    {
        return;
    }
    match n {
        SystemNotice::RateLimit {
            status,
            rate_limit_type,
            ..
        } => push_sentence(
            h,
            "info",
            &notice_text::rate_limit(status, rate_limit_type.as_deref()),
        ),
        SystemNotice::ApiRetry {
            attempt,
            max,
            delay_ms,
            error_status,
            error,
        } => {
            let detail = notice_text::retry_detail(*error_status, error.as_deref());
            push_retry(h, (*attempt, *max), *delay_ms, &detail);
        }
        SystemNotice::Compact {
            trigger,
            pre_tokens,
            post_tokens,
            ..
        } => {
            push_compact(h, trigger.as_deref(), *pre_tokens, *post_tokens);
        }
        SystemNotice::Hook {
            hook_id: _,
            hook_name,
            event,
            status,
            output,
            exit_code,
            outcome,
        } => {
            // One line per hook (the fold holds its start until its end): name, event, outcome,
            // output. Only a hook whose end never came says how far it got.
            push_hook_start(h, hook_name, event, *status);
            push_hook_end(h, outcome.as_deref(), *exit_code, output.as_deref());
        }
        SystemNotice::SessionState { state } => {
            open(h, "trace");
            h.raw_trusted("Session ").text(state);
        }
        SystemNotice::Status { status, detail } => {
            push_status(h, status.as_deref(), detail.as_deref());
        }
        SystemNotice::FilesPersisted {
            files,
            failed,
            processed_at,
        } => {
            push_files(h, files.len(), failed.len(), processed_at.as_deref());
        }
        SystemNotice::Elicitation { server, id: _ } => {
            push_sentence(h, "info", &notice_text::elicitation(server));
        }
        SystemNotice::PermissionDenied {
            tool_name,
            tool_call_id: _,
            message,
        } => push_denied(h, tool_name, message),
        task @ SystemNotice::Task { .. } => push_task(h, task),
        SystemNotice::MissedEvents { from, to, reason } => {
            push_missed(h, *from, *to, reason);
        }
        SystemNotice::Subagent {
            tool_call_id: _,
            record,
        } => {
            open(h, "info");
            push_subagent(h, record, &format!("{scope}-s"), None);
        }
        SystemNotice::Branch { leaf_id: _, turns } => {
            push_branch(h, turns, scope);
        }
        SystemNotice::Result {
            subtype,
            is_error,
            cost,
            run_cost,
            turns,
            duration_ms,
            errors,
            ..
        } => {
            push_result_head(h, subtype, *is_error, *turns, *duration_ms);
            push_cost(h, *run_cost, *cost);
            for e in errors {
                h.raw_trusted(" · ").text(e);
            }
        }
        SystemNotice::Info {
            source,
            level,
            text,
            data: _,
        } => {
            push_info(h, source, *level, text);
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

/// A notice that is one sentence, drawn at `class`.
fn push_sentence(h: &mut Html, class: &'static str, text: &str) {
    open(h, class);
    h.text(&sentence(text));
}

/// A status line: the status (a dash when none) and its detail.
fn push_status(h: &mut Html, status: Option<&str>, detail: Option<&str>) {
    open(h, "trace");
    h.raw_trusted("Status: ").text(status.unwrap_or("—"));
    if let Some(d) = detail {
        h.raw_trusted(" · ").text(d);
    }
}

/// How many files were saved, how many failed, and when the CLI says it finished.
fn push_files(h: &mut Html, files: usize, failed: usize, processed_at: Option<&str>) {
    open(h, "info");
    h.raw_trusted("Files saved: ").num(files);
    if failed != 0 {
        h.raw_trusted(" (").num(failed).raw_trusted(" failed)");
    }
    if let Some(at) = processed_at {
        h.raw_trusted(" · processed at ").text(at);
    }
}

/// A denied permission: which tool, and the message.
fn push_denied(h: &mut Html, tool_name: &str, message: &str) {
    open(h, "warning");
    h.raw_trusted("Permission denied: ")
        .text(tool_name)
        .raw_trusted(" · ")
        .text(message);
}

/// An API retry's line: which attempt of how many, the wait before it, and why.
fn push_retry(h: &mut Html, (attempt, max): (u64, u64), delay_ms: u64, detail: &str) {
    open(h, "warning");
    h.raw_trusted("API retry ")
        .num(attempt)
        .raw_trusted("/")
        .num(max)
        .raw_trusted(" in ")
        .text(&duration(delay_ms))
        .text(detail);
}

/// The start of a hook's line: its name, its event when the name does not say it, and, for a
/// hook whose end never came, how far it got.
fn push_hook_start(h: &mut Html, hook_name: &str, event: &str, status: HookStatus) {
    open(h, "trace hook");
    h.raw_trusted("Hook ").text(hook_name);
    if !event.is_empty() && !hook_name.starts_with(event) {
        h.raw_trusted(" (").text(event).raw_trusted(")");
    }
    match status {
        HookStatus::Started | HookStatus::Progress => {
            h.raw_trusted(" · started, no end reported");
        }
        HookStatus::Response => {}
    }
}

/// Events a live source missed: their range when known, and why.
fn push_missed(h: &mut Html, from: Option<u64>, to: Option<u64>, reason: &str) {
    open(h, "warning");
    h.raw_trusted("Events missed");
    if let (Some(a), Some(b)) = (from, to) {
        h.raw_trusted(" ").num(a).raw_trusted("–").num(b);
    }
    h.raw_trusted(": ").text(reason);
}

/// The start of a result's line: how the run ended (`success` → "Done"; `error_max_turns` →
/// "Stopped: error max turns"; a subtype that is no error and no success, one nobody here knows
/// among them, is named as it is: "Result: brand new ok"), its turns and its duration.
fn push_result_head(
    h: &mut Html,
    subtype: &str,
    is_error: bool,
    turns: Option<u64>,
    duration_ms: Option<u64>,
) {
    open(h, if is_error { "error" } else { "result" });
    if is_error {
        h.raw_trusted("Stopped: ").text(&subtype.replace('_', " "));
    } else if subtype.is_empty() || subtype == "success" {
        h.raw_trusted("Done");
    } else {
        h.raw_trusted("Result: ").text(&subtype.replace('_', " "));
    }
    if let Some(t) = turns {
        h.raw_trusted(" · ").text(&count(t, "turn"));
    }
    if let Some(d) = duration_ms {
        h.raw_trusted(" · ").text(&duration(d));
    }
}

/// A line of information, drawn at its level.
fn push_info(h: &mut Html, source: &str, level: Level, text: &str) {
    open(
        h,
        match level {
            Level::Trace => "trace",
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        },
    );
    // The record's name is machinery: the words say what happened.
    h.text(&sentence(&crate::render::notice_text::info_words(
        source, text,
    )));
}

/// A compaction's line: its trigger, and the tokens before and after when both are known.
fn push_compact(h: &mut Html, trigger: Option<&str>, pre: Option<u64>, post: Option<u64>) {
    open(h, "info");
    h.raw_trusted("Context compacted");
    if let Some(t) = trigger {
        h.raw_trusted(" (").text(t).raw_trusted(")");
    }
    if let (Some(a), Some(b)) = (pre, post) {
        h.raw_trusted(": ")
            .num(a)
            .raw_trusted(" → ")
            .num(b)
            .raw_trusted(" tokens");
    }
}

/// The end of a hook's line: its outcome, exit code and output, those it has.
fn push_hook_end(
    h: &mut Html,
    outcome: Option<&str>,
    exit_code: Option<i64>,
    output: Option<&str>,
) {
    if let Some(o) = outcome {
        h.raw_trusted(" · ").text(o);
    }
    if let Some(c) = exit_code {
        h.raw_trusted(" · exit ").num(c);
    }
    if let Some(o) = output.filter(|o| !o.trim().is_empty()) {
        h.raw_trusted(" · <code>")
            .text(o.trim_end())
            .raw_trusted("</code>");
    }
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
    open(h, "info");
    h.raw_trusted("Task ")
        .text(description.as_deref().unwrap_or(task_id));
    if let Some(s) = status {
        h.raw_trusted(" · ")
            .text(crate::render::summary::status_word(*s));
    }
    if let Some(s) = summary {
        h.raw_trusted(" · ").text(s);
    }
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

/// A result's cost: the run's own, and the running total beside it when that is more.
fn push_cost(h: &mut Html, run_cost: Option<f64>, cost: Option<f64>) {
    match (run_cost, cost) {
        (Some(own), Some(total)) if total - own >= 0.00005 => {
            h.raw_trusted(" · $")
                .text(&format!("{own:.4} ($"))
                .text(&format!("{total:.4} session so far)"));
        }
        (Some(c), _) | (None, Some(c)) => {
            h.raw_trusted(" · $").text(&format!("{c:.4}"));
        }
        (None, None) => {}
    }
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
