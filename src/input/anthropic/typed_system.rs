//! A `system` task line (`task_started`, `task_progress`, `task_notification`) and a `result`
//! line, decoded into typed, borrowed structs (`input::lenient`), from a line's text or from a
//! `&Value`, so that both ways share one mapping to events.
//!
//! Exists because these short lines cost more than any other to parse into a `Value`: a fifth
//! of a stream's instructions for a fifth of its lines, each key an allocated string hashed into
//! an insertion-ordered map (issue 14). Every field reads as the `Value` accessor it replaces.

use std::borrow::Cow;

use serde_json::Value;

use crate::input::anthropic::row::UsageFields;
use crate::input::lenient::{Array, Bool, F64, Object, Present, Str, U64, lenient_struct};
use crate::model::event::EventKind;
use crate::model::transcript::{SubagentStatus, SubagentUsage};

lenient_struct! {
    /// The fields of a `system` task line that the events and the message decoder read.
    pub(crate) struct TaskLine<'a> {
        "subtype" => subtype: Option<Cow<'a, str>> as Str<'a>,
        "task_id" => task_id: Option<Cow<'a, str>> as Str<'a>,
        "tool_use_id" => tool_use_id: Option<Cow<'a, str>> as Str<'a>,
        "description" => description: Option<Cow<'a, str>> as Str<'a>,
        "subagent_type" => subagent_type: Option<Cow<'a, str>> as Str<'a>,
        "task_type" => task_type: Option<Cow<'a, str>> as Str<'a>,
        /// `task_started`: the prompt the sub-agent was given.
        "prompt" => prompt: Option<Cow<'a, str>> as Str<'a>,
        "timestamp" => timestamp: Option<Cow<'a, str>> as Str<'a>,
        "status" => status: Option<Cow<'a, str>> as Str<'a>,
        "summary" => summary: Option<Cow<'a, str>> as Str<'a>,
        "usage" => usage: Option<SubagentUsageFields> as Object<SubagentUsageFields>,
    }
}

lenient_struct! {
    /// A task's token and tool counts (`SubagentUsage::from_json`, typed).
    pub(crate) struct SubagentUsageFields {
        "total_tokens" => total_tokens: Option<u64> as U64,
        "tool_uses" => tool_uses: Option<u64> as U64,
        "duration_ms" => duration_ms: Option<u64> as U64,
    }
}

/// An optional string field, owned.
fn owned(s: &Option<Cow<'_, str>>) -> Option<String> {
    s.as_deref().map(str::to_owned)
}

/// A string field, owned, "" when missing.
fn text(s: &Option<Cow<'_, str>>) -> String {
    s.as_deref().unwrap_or_default().to_owned()
}

impl TaskLine<'_> {
    /// The line's event; `None` when its subtype is not one of the three task kinds.
    pub(crate) fn event(&self) -> Option<EventKind> {
        let usage = self.usage.as_ref().map(|u| SubagentUsage {
            total_tokens: u.total_tokens.unwrap_or(0),
            tool_uses: u.tool_uses.unwrap_or(0),
            duration_ms: u.duration_ms.unwrap_or(0),
        });
        Some(match self.subtype.as_deref()? {
            "task_started" => EventKind::SubtaskStarted {
                task_id: text(&self.task_id),
                tool_call_id: owned(&self.tool_use_id),
                description: text(&self.description),
                subagent_type: owned(&self.subagent_type),
                task_type: owned(&self.task_type),
            },
            "task_progress" => EventKind::SubtaskProgress {
                task_id: text(&self.task_id),
                tool_call_id: owned(&self.tool_use_id),
                description: text(&self.description),
                usage,
            },
            "task_notification" => EventKind::SubtaskFinished {
                task_id: text(&self.task_id),
                tool_call_id: owned(&self.tool_use_id),
                status: SubagentStatus::from_word(self.status.as_deref().unwrap_or_default())
                    .unwrap_or(SubagentStatus::Completed),
                summary: owned(&self.summary),
                usage,
                result: None,
            },
            _ => return None,
        })
    }

    /// The line read from a `Value` (a Qwen stream, or a Claude line the typed way refused).
    pub(crate) fn from_value(v: &Value) -> TaskLine<'_> {
        serde::Deserialize::deserialize(v).unwrap_or_default()
    }
}

lenient_struct! {
    /// The fields of a `result` line that its notice reads.
    pub(crate) struct ResultLine<'a> {
        "subtype" => subtype: Option<Cow<'a, str>> as Str<'a>,
        "is_error" => is_error: Option<bool> as Bool,
        "total_cost_usd" => total_cost_usd: Option<f64> as F64,
        "num_turns" => num_turns: Option<u64> as U64,
        "duration_ms" => duration_ms: Option<u64> as U64,
        "duration_api_ms" => duration_api_ms: Option<u64> as U64,
        "usage" => usage: Option<UsageFields> as Object<UsageFields>,
        "result" => result: Option<Cow<'a, str>> as Str<'a>,
        "stop_reason" => stop_reason: Option<Cow<'a, str>> as Str<'a>,
        "terminal_reason" => terminal_reason: Option<Cow<'a, str>> as Str<'a>,
        "errors" => errors: Option<Vec<Value>> as Array,
        "permission_denials" => permission_denials: Option<Vec<Value>> as Array,
        "structured_output" => structured_output: Option<Value> as Present,
        "modelUsage" => model_usage: Option<Value> as Present,
        /// The run's own part, per model (`input::anthropic::cost`).
        "model_usage_since_last_result" => since_last_result: Option<Value> as Present,
        "fast_mode_state" => fast_mode_state: Option<Value> as Present,
    }
}

impl ResultLine<'_> {
    /// The line read from a `Value` (a Qwen stream, or a Claude line the typed way refused).
    pub(crate) fn from_value(v: &Value) -> ResultLine<'_> {
        serde::Deserialize::deserialize(v).unwrap_or_default()
    }
}
