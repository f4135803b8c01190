//! A notice (a retry, a hook, a compaction, a permission refusal, a side branch, the run's
//! result …) becomes a `system` step, where ATIF puts system events: a line saying what it is as
//! its message, the notice whole in its `extra`. A sub-agent run whose call never appeared is
//! a system step whose observation references its trajectory.

use std::borrow::Cow;

use serde_json::{Map, json};

use super::step::{Made, Steps, timestamp, value};
use super::wire::{Content, Observation, ObservationResult, ResultExtra, Source, Step};
use crate::model::session::{HookStatus, SystemNotice};
use crate::render::notice_text;

/// The line a notice's step says: the words the human-readable views share where there are
/// some, the notice's own text where it carries one (but a result's).
fn message(n: &SystemNotice) -> Cow<'_, str> {
    match n {
        SystemNotice::RateLimit {
            status,
            rate_limit_type,
            ..
        } => notice_text::rate_limit(status, rate_limit_type.as_deref()).into(),
        SystemNotice::ApiRetry {
            attempt,
            max,
            error_status,
            error,
            ..
        } => notice_text::api_retry(*attempt, *max, *error_status, error.as_deref()).into(),
        SystemNotice::Compact { trigger, .. } => notice_text::compacted(trigger.as_deref()).into(),
        SystemNotice::Hook {
            hook_name,
            status,
            outcome,
            exit_code,
            ..
        } => notice_text::hook_line(
            hook_name,
            *status == HookStatus::Response,
            outcome.as_deref(),
            *exit_code,
        )
        .into(),
        SystemNotice::SessionState { state } => format!("session {state}").into(),
        SystemNotice::Status { status, detail } => [status.as_deref(), detail.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(": ")
            .into(),
        SystemNotice::FilesPersisted { files, failed, .. } => {
            format!("{} files persisted, {} failed", files.len(), failed.len()).into()
        }
        SystemNotice::Elicitation { server, .. } => notice_text::elicitation(server).into(),
        SystemNotice::PermissionDenied {
            tool_name, message, ..
        } => format!("permission denied: {tool_name}: {message}").into(),
        SystemNotice::Task {
            task_id,
            summary,
            description,
            ..
        } => summary
            .as_deref()
            .or(description.as_deref())
            .map_or_else(|| format!("task {task_id}").into(), Cow::Borrowed),
        SystemNotice::MissedEvents { from, to, reason } => {
            notice_text::missed_events(*from, *to, reason).into()
        }
        SystemNotice::Subagent { tool_call_id, .. } => {
            format!("sub-agent run of call {tool_call_id}, whose call is not in the input").into()
        }
        SystemNotice::Branch { turns, .. } => notice_text::branch(turns.len()).into(),
        // Its text is the agent's last answer, already its step's message: kept in the notice.
        SystemNotice::Result {
            subtype, is_error, ..
        } => format!(
            "result: {subtype}{}",
            if *is_error { " (error)" } else { "" }
        )
        .into(),
        SystemNotice::Info { source, text, .. } => {
            crate::render::notice_text::info_words(source, text)
        }
    }
}

impl<'a> Steps<'_, 'a> {
    /// The system step of a notice, numbered `step_id`.
    pub(super) fn notice(&mut self, n: &'a SystemNotice, step_id: usize) -> Made<'a> {
        let mut extra = Map::new();
        let timestamp = timestamp(time_of(n), &mut extra);
        let mut subagents = Vec::new();
        // A sub-agent run's turns are its trajectory; the notice keeps the rest.
        let observation = if let SystemNotice::Subagent {
            tool_call_id,
            record,
        } = n
        {
            let mut r = ObservationResult {
                source_call_id: None,
                content: None,
                subagent_trajectory_ref: Vec::new(),
                extra: ResultExtra {
                    notice: Some(json!({"kind": "subagent", "toolCallId": tool_call_id})),
                    ..ResultExtra::default()
                },
            };
            self.link(record, tool_call_id, &mut r, &mut subagents);
            Some(Observation { results: vec![r] })
        } else {
            extra.insert("notice".into(), value(n));
            None
        };
        let step = Step {
            step_id,
            timestamp,
            source: Source::System,
            model_name: None,
            message: Content::Text(message(n)),
            reasoning_content: None,
            tool_calls: None,
            observation,
            metrics: None,
            extra,
        };
        Made { step, subagents }
    }
}

/// The time a notice carries (a rate limit's).
fn time_of(n: &SystemNotice) -> Option<&str> {
    match n {
        SystemNotice::RateLimit { at, .. } => at.as_deref(),
        SystemNotice::Result { .. }
        | SystemNotice::ApiRetry { .. }
        | SystemNotice::Compact { .. }
        | SystemNotice::Hook { .. }
        | SystemNotice::SessionState { .. }
        | SystemNotice::Status { .. }
        | SystemNotice::FilesPersisted { .. }
        | SystemNotice::Elicitation { .. }
        | SystemNotice::PermissionDenied { .. }
        | SystemNotice::Task { .. }
        | SystemNotice::MissedEvents { .. }
        | SystemNotice::Subagent { .. }
        | SystemNotice::Branch { .. }
        | SystemNotice::Info { .. } => None,
    }
}
