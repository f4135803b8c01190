//! Notices in the terminal view: dim one-line notes (retries, hooks, compaction, permission
//! denials, background tasks), nothing for the ones a reader does not need (session state,
//! status pings, trace-level info), and the failure line of a `result`.

use super::View;
use super::layout::Line;
use super::{seconds, thousands};
use crate::model::session::{HookStatus, Level, SystemNotice};
use crate::render::notice_text;

impl View {
    /// A notice as a one-line note (nothing for the ones a reader does not need).
    pub(super) fn notice(&self, n: &SystemNotice, depth: usize) -> Vec<Line> {
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
                format!(
                    "conversation compacted{}{}",
                    trigger
                        .as_deref()
                        .map(|t| format!(" ({t})"))
                        .unwrap_or_default(),
                    match (pre_tokens, post_tokens) {
                        (Some(a), Some(b)) =>
                            format!(" · {} → {} tokens", thousands(*a), thousands(*b)),
                        (Some(a), None) => format!(" · {} tokens before", thousands(*a)),
                        _ => String::new(),
                    }
                ),
                pal.dim,
            ),
            SystemNotice::Hook {
                hook_name,
                event,
                status,
                output,
                exit_code,
                outcome,
            } => {
                let ended = *status == HookStatus::Response;
                let mut t =
                    notice_text::hook_line(hook_name, ended, outcome.as_deref(), *exit_code);
                if hook_name.is_empty() {
                    t = format!("hook {event}");
                }
                let failed = exit_code.is_some_and(|c| c != 0);
                let mut lines = self.note(&t, if failed { pal.warning } else { pal.dim }, depth);
                if self.context {
                    if let Some(o) = output.as_deref().filter(|o| !o.trim().is_empty()) {
                        lines.extend(self.marked("  ", pal.dim, o, pal.dim, depth, 10));
                    }
                }
                return lines;
            }
            SystemNotice::SessionState { .. } => return Vec::new(),
            SystemNotice::Status { status, detail } => match detail {
                Some(d) => (
                    format!("{}: {d}", status.as_deref().unwrap_or("status")),
                    pal.dim,
                ),
                None => return Vec::new(),
            },
            SystemNotice::FilesPersisted { files, failed } => (
                format!(
                    "files persisted: {}{}",
                    files.join(", "),
                    if failed.is_empty() {
                        String::new()
                    } else {
                        format!(" ({} failed)", failed.len())
                    }
                ),
                pal.dim,
            ),
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
                let word = status
                    .map(|s| format!("{s:?}").to_lowercase())
                    .unwrap_or_else(|| "updated".into());
                let what = summary.as_deref().or(description.as_deref()).unwrap_or("");
                let line = format!(
                    "task {task_id} {word}{}",
                    if what.is_empty() {
                        String::new()
                    } else {
                        format!(": {what}")
                    }
                );
                let Some(r) = result else {
                    return self.note(&format!("· {line}"), pal.dim, depth);
                };
                // The task's own report (a background agent's final words), under its line.
                let mut lines = self.note(&format!("· {line}"), pal.dim, depth);
                for l in r.trim().lines() {
                    lines.extend(self.note(l, pal.result, depth + 1));
                }
                return lines;
            }
            SystemNotice::MissedEvents { from, to, reason } => (
                crate::render::notice_text::missed_events(*from, *to, reason),
                pal.warning,
            ),
            SystemNotice::Subagent { record, .. } => {
                let mut lines = self.note("sub-agent without its Agent call:", pal.dim, depth);
                lines.extend(self.subagent_status(record, depth));
                if self.full {
                    for t in &record.transcript {
                        for b in self.turn_blocks(t, depth + 1) {
                            lines.extend(b);
                        }
                    }
                }
                return lines;
            }
            SystemNotice::Branch { turns, .. } => {
                // Left behind by a rewind: its turns stay readable, indented under the heading.
                let heading = format!("· {}", notice_text::branch(turns.len()));
                let mut lines = self.note(&heading, pal.dim, depth);
                for t in turns {
                    for b in self.turn_blocks(t, depth + 1) {
                        lines.extend(b);
                    }
                }
                return lines;
            }
            SystemNotice::Result {
                subtype,
                is_error,
                errors,
                terminal_reason,
                permission_denials,
                ..
            } => {
                let mut lines = Vec::new();
                if *is_error {
                    let word = if subtype == "success" || subtype.is_empty() {
                        "error"
                    } else {
                        subtype.as_str()
                    };
                    let mut t = format!("✗ {word}");
                    if let Some(r) = terminal_reason.as_deref().filter(|r| *r != "completed") {
                        t.push_str(&format!(" ({r})"));
                    }
                    if !errors.is_empty() {
                        t.push_str(&format!(": {}", errors.join("; ")));
                    }
                    lines.extend(self.note(&t, pal.error, depth));
                }
                if !permission_denials.is_empty() {
                    let n = permission_denials.len();
                    lines.extend(self.note(
                        &format!("{n} tool call{} denied", if n == 1 { "" } else { "s" }),
                        pal.dim,
                        depth,
                    ));
                }
                return lines;
            }
            SystemNotice::Info { level, text, .. } => match level {
                Level::Trace => return Vec::new(),
                Level::Info => (text.clone(), pal.dim),
                Level::Warning => (text.clone(), pal.warning),
                Level::Error => (text.clone(), pal.error),
            },
        };
        self.note(&format!("· {text}"), style, depth)
    }
}
