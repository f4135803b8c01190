//! Notices in the terminal view: dim one-line notes (retries, hooks, compaction, permission
//! denials, background tasks), nothing for the ones a reader does not need (session state,
//! status pings, trace-level info), and the failure line of a `result`.

use super::View;
use super::layout::Line;
use crate::model::session::{HookStatus, Level, SystemNotice};
use crate::render::figures::{count, seconds, thousands};
use crate::render::notice_text;

impl View {
    /// A notice as a one-line note (nothing for the ones a reader does not need), and under the
    /// note of a result no call took, its output.
    pub(super) fn notice(&self, n: &SystemNotice, depth: usize) -> Vec<Line> {
        let mut lines = self.notice_line(n, depth);
        if let Some(output) = n.result_output().filter(|_| !lines.is_empty()) {
            lines.extend(self.loose_output(output, depth));
        }
        lines
    }

    /// A notice's one-line note, or its block (a hook's output, an orphan sub-agent, a branch).
    fn notice_line(&self, n: &SystemNotice, depth: usize) -> Vec<Line> {
        let pal = &self.pal;
        let (text, style) = match n {
            SystemNotice::RateLimit {
                status,
                rate_limit_type,
                ..
            } => {
                if status == "allowed" {
                    return Vec::new();
                }
                (
                    notice_text::rate_limit(status, rate_limit_type.as_deref()),
                    pal.warning,
                )
            }
            SystemNotice::ApiRetry {
                attempt,
                max,
                delay_ms,
                error_status,
                error,
            } => (
                format!(
                    "API retry {attempt}/{max} in {}{}",
                    seconds(*delay_ms),
                    notice_text::retry_detail(*error_status, error.as_deref())
                ),
                pal.warning,
            ),
            SystemNotice::Compact {
                trigger,
                pre_tokens,
                post_tokens,
                ..
            } => (
                compact_text(trigger.as_deref(), *pre_tokens, *post_tokens),
                pal.dim,
            ),
            SystemNotice::Hook {
                hook_id: _,
                hook_name,
                event,
                status,
                output,
                exit_code,
                outcome,
            } => {
                let ended = *status == HookStatus::Response;
                let t = hook_title(hook_name, event, ended, outcome.as_deref(), *exit_code);
                let failed = exit_code.is_some_and(|c| c != 0);
                return self.hook_lines(&t, failed, output.as_deref(), depth);
            }
            SystemNotice::SessionState { .. } => return Vec::new(),
            SystemNotice::Status { status, detail } => match detail {
                Some(d) => (
                    format!("{}: {d}", status.as_deref().unwrap_or("status")),
                    pal.dim,
                ),
                None => return Vec::new(),
            },
            SystemNotice::FilesPersisted { files, failed, .. } => {
                (files_text(files, failed.len()), pal.dim)
            }
            SystemNotice::Elicitation { server, .. } => (notice_text::elicitation(server), pal.dim),
            SystemNotice::PermissionDenied {
                tool_name, message, ..
            } => (
                format!("✗ permission denied: {tool_name} · {message}"),
                pal.error,
            ),
            SystemNotice::Task {
                task_id,
                status,
                description,
                summary,
                result,
                ..
            } => {
                let what = summary.as_deref().or(description.as_deref());
                let line = task_text(task_id, status.as_ref(), what);
                return self.task_lines(&line, result.as_deref(), depth);
            }
            SystemNotice::MissedEvents { from, to, reason } => (
                crate::render::notice_text::missed_events(*from, *to, reason),
                pal.warning,
            ),
            SystemNotice::Subagent { record, .. } => {
                let mut lines = self.note("sub-agent without its Agent call:", pal.dim, depth);
                lines.extend(self.subagent_status(record, depth));
                if self.full {
                    lines.extend(self.nested_turns(&record.transcript, depth + 1));
                }
                return lines;
            }
            SystemNotice::Branch { turns, .. } => {
                // Left behind by a rewind: its turns stay readable, indented under the heading.
                let heading = format!("· {}", notice_text::branch(turns.len()));
                let mut lines = self.note(&heading, pal.dim, depth);
                lines.extend(self.nested_turns(turns, depth + 1));
                return lines;
            }
            SystemNotice::Result { .. } => return self.result_lines(n, depth),
            SystemNotice::Info {
                source,
                level,
                text,
                ..
            } => {
                let words = notice_text::info_words(source, text).into_owned();
                match level {
                    Level::Trace => return Vec::new(),
                    Level::Info => (words, pal.dim),
                    Level::Warning => (words, pal.warning),
                    Level::Error => (words, pal.error),
                }
            }
        };
        self.note(&format!("· {text}"), style, depth)
    }

    /// A hook's line, a warning when it exited non-zero, with what it wrote under it when the
    /// view shows context.
    fn hook_lines(
        &self,
        title: &str,
        failed: bool,
        output: Option<&str>,
        depth: usize,
    ) -> Vec<Line> {
        let pal = &self.pal;
        let mut lines = self.note(title, if failed { pal.warning } else { pal.dim }, depth);
        if self.context {
            if let Some(o) = output.filter(|o| !o.trim().is_empty()) {
                lines.extend(self.marked(self.marker("  ", pal.dim, depth), o, pal.dim, 10));
            }
        }
        lines
    }

    /// A `result`'s lines: its failure when it failed, its subtype when that is neither success
    /// nor a failure (one no list knows), and how many calls were denied.
    fn result_lines(&self, n: &SystemNotice, depth: usize) -> Vec<Line> {
        let SystemNotice::Result {
            subtype,
            is_error,
            errors,
            terminal_reason,
            permission_denials,
            ..
        } = n
        else {
            // Called for `result` notices only.
            return Vec::new();
        };
        let pal = &self.pal;
        let mut lines = Vec::new();
        if *is_error {
            let t = failure_text(subtype, terminal_reason.as_deref(), errors);
            lines.extend(self.note(&t, pal.error, depth));
        } else if let Some(t) = notice_text::unusual_result(subtype) {
            lines.extend(self.note(&format!("· {t}"), pal.dim, depth));
        }
        let denied = permission_denials.len();
        if denied != 0 {
            lines.extend(self.note(
                &format!("{} denied", count(denied, "tool call")),
                pal.dim,
                depth,
            ));
        }
        lines
    }

    /// A task's line, with the task's own report (a background agent's final words) under it
    /// when it has one.
    fn task_lines(&self, line: &str, result: Option<&str>, depth: usize) -> Vec<Line> {
        let pal = &self.pal;
        let mut lines = self.note(&format!("· {line}"), pal.dim, depth);
        if let Some(r) = result {
            for l in r.trim().lines() {
                lines.extend(self.note(l, pal.result, depth + 1));
            }
        }
        lines
    }

    /// Turns drawn under a notice (a sub-agent's transcript, a rewound branch), one level in.
    fn nested_turns(&self, turns: &[crate::model::transcript::Turn], depth: usize) -> Vec<Line> {
        let mut lines = Vec::new();
        for t in turns {
            for b in self.turn_blocks(t, depth) {
                lines.extend(b);
            }
        }
        lines
    }
}

/// A hook's line: its name, whether it ended, its outcome and exit code; a nameless hook is
/// named by its event.
fn hook_title(
    hook_name: &str,
    event: &str,
    ended: bool,
    outcome: Option<&str>,
    exit_code: Option<i64>,
) -> String {
    if hook_name.is_empty() {
        return format!("hook {event}");
    }
    notice_text::hook_line(hook_name, ended, outcome, exit_code)
}

/// A compaction's note: its trigger and the tokens before and after, where known.
fn compact_text(trigger: Option<&str>, pre: Option<u64>, post: Option<u64>) -> String {
    format!(
        "{}{}",
        notice_text::compacted(trigger),
        match (pre, post) {
            (Some(a), Some(b)) => format!(" · {} → {} tokens", thousands(a), thousands(b)),
            (Some(a), None) => format!(" · {} tokens before", thousands(a)),
            _ => String::new(),
        }
    )
}

/// The files a `files_persisted` notice names, and how many failed.
fn files_text(files: &[String], failed: usize) -> String {
    let failed = (failed != 0).then(|| format!(" ({failed} failed)"));
    format!(
        "files persisted: {}{}",
        files.join(", "),
        failed.unwrap_or_default()
    )
}

/// A task's line: its id, its status word (`updated` when it has none) and what it is about.
fn task_text(
    task_id: &str,
    status: Option<&crate::model::transcript::SubagentStatus>,
    what: Option<&str>,
) -> String {
    let word = status.map_or("updated", |s| s.word());
    let what = what.filter(|w| !w.is_empty()).map(|w| format!(": {w}"));
    format!("task {task_id} {word}{}", what.unwrap_or_default())
}

/// A failed `result`'s line: its subtype (`error` for a plain one), its terminal reason unless
/// `completed`, and its errors.
fn failure_text(subtype: &str, terminal_reason: Option<&str>, errors: &[String]) -> String {
    let word = if subtype == "success" || subtype.is_empty() {
        "error"
    } else {
        subtype
    };
    let mut t = format!("✗ {word}");
    if let Some(r) = terminal_reason.filter(|r| *r != "completed") {
        t.push_str(&format!(" ({r})"));
    }
    if !errors.is_empty() {
        t.push_str(&format!(": {}", errors.join("; ")));
    }
    t
}
