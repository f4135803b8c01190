//! Notices in Markdown: short italic lines (nothing for session state, status pings and
//! trace-level info), hook output in a collapsed block with `--context`, orphan sub-agents as
//! their own block, and `result` notices added up for the closing line.

use super::MarkdownRenderer;
use super::escape::{fenced, inline};
use crate::model::session::{HookStatus, Level, SystemNotice};
use crate::model::transcript::{NonText, output_text};
use crate::render::notice_text;
use crate::render::sgr::strip;

impl MarkdownRenderer {
    /// Writes one notice.
    pub(super) fn notice(&mut self, out: &mut String, n: &SystemNotice) {
        let text = match n {
            SystemNotice::RateLimit { status, .. } => {
                if status == "allowed" {
                    return;
                }
                format!("rate limit: {status}")
            }
            SystemNotice::ApiRetry {
                attempt,
                max,
                error_status,
                error,
                ..
            } => notice_text::api_retry(*attempt, *max, *error_status, error.as_deref()),
            SystemNotice::Compact { trigger, .. } => notice_text::compacted(trigger.as_deref()),
            SystemNotice::Hook {
                hook_name,
                status,
                outcome,
                exit_code,
                output,
                ..
            } => {
                let ended = *status == HookStatus::Response;
                let line = notice_text::hook_line(hook_name, ended, outcome.as_deref(), *exit_code);
                out.push_str(&format!("*{}*\n\n", inline(&line)));
                if self.context {
                    if let Some(o) = output.as_deref().filter(|o| !o.trim().is_empty()) {
                        out.push_str("<details>\n<summary>hook output</summary>\n\n");
                        fenced(out, "text", o);
                        out.push_str("</details>\n\n");
                    }
                }
                return;
            }
            SystemNotice::SessionState { .. } | SystemNotice::Status { .. } => return,
            SystemNotice::FilesPersisted { files, .. } => {
                format!("files persisted: {}", files.join(", "))
            }
            SystemNotice::Elicitation { server, .. } => notice_text::elicitation(server),
            // The message is in the call's block already.
            SystemNotice::PermissionDenied { tool_name, .. } => {
                format!("permission denied: {tool_name}")
            }
            SystemNotice::Task {
                task_id,
                status,
                description,
                summary,
                result,
                ..
            } => {
                let line = format!(
                    "task {task_id}{}: {}",
                    status.map(|s| format!(" {}", s.word())).unwrap_or_default(),
                    summary
                        .as_deref()
                        .or(description.as_deref())
                        .unwrap_or_default()
                );
                out.push_str(&format!("*{}*\n\n", inline(&line)));
                // The task's own report (a background agent's final words), under its line.
                if let Some(r) = result {
                    super::quote(out, "Result", r);
                }
                return;
            }
            SystemNotice::MissedEvents { from, to, reason } => {
                notice_text::missed_events(*from, *to, reason)
            }
            SystemNotice::Subagent { record, .. } => {
                self.subagent(out, record);
                return;
            }
            SystemNotice::Branch { turns, .. } => {
                // Left behind by a rewind: collapsed, its turns readable inside.
                out.push_str(&format!(
                    "<details>\n<summary>{}</summary>\n\n",
                    super::escape::html(&notice_text::branch(turns.len()))
                ));
                for t in turns {
                    self.turn(out, t);
                }
                out.push_str("</details>\n\n");
                return;
            }
            SystemNotice::Result {
                subtype,
                is_error,
                errors,
                ..
            } => {
                if !*is_error {
                    if let Some(t) = notice_text::unusual_result(subtype) {
                        out.push_str(&format!("*{}*\n\n", inline(&t)));
                    }
                    return;
                }
                let word = if subtype.is_empty() { "error" } else { subtype };
                let mut t = format!("result: {word}");
                if !errors.is_empty() {
                    t.push_str(&format!(" · {}", errors.join("; ")));
                }
                t
            }
            SystemNotice::Info {
                source,
                level,
                text,
                ..
            } => match level {
                Level::Trace => return,
                Level::Info | Level::Warning | Level::Error => {
                    notice_text::info_words(source, text).into_owned()
                }
            },
        };
        out.push_str(&format!("*{}*\n\n", inline(&text)));
        // A result no call took: its output under its words.
        if let Some(output) = n.result_output() {
            self.output(out, &strip(&output_text(output, NonText::Mark)));
        }
    }
}
