//! The walk over stage-2 events (`--to events`): the same fields as the transcript walk, met in
//! the order the stream sends them.

use super::item::{walk_meta, walk_notice, walk_part, walk_session, walk_turn};
use super::tool::{walk_facts, walk_tool_kind};
use super::{
    IdKind, ValueRole, VisitMut, id, opt_details, opt_id, opt_text, opt_value, task_details,
};
use crate::model::event::{Event, EventKind};

/// Walks one stage-2 event (for `--to events`).
pub(crate) fn walk_event<V: VisitMut + ?Sized>(v: &mut V, e: &mut Event) {
    v.line(&mut e.line);
    match &mut e.kind {
        EventKind::SessionInit { session } => walk_session(v, session),
        EventKind::UserTurn {
            turn,
            source_tool_call_id,
        } => {
            walk_turn(v, turn);
            opt_id(v, IdKind::Call, source_tool_call_id);
        }
        EventKind::AssistantBlock {
            thread,
            message_id,
            part,
            meta,
            timestamp,
        } => {
            opt_id(v, IdKind::Call, thread);
            id(v, IdKind::Turn, message_id);
            walk_part(v, part);
            walk_meta(v, meta);
            v.timestamp(timestamp);
        }
        EventKind::AssistantEnd {
            thread,
            message_id,
            meta,
        } => {
            opt_id(v, IdKind::Call, thread);
            id(v, IdKind::Turn, message_id);
            walk_meta(v, meta);
        }
        EventKind::TextDelta {
            thread,
            message_id,
            index: _,
            text,
        }
        | EventKind::ReasoningDelta {
            thread,
            message_id,
            index: _,
            text,
        } => {
            opt_id(v, IdKind::Call, thread);
            id(v, IdKind::Turn, message_id);
            v.text(text);
        }
        EventKind::ToolInputStarted { .. }
        | EventKind::ToolResult { .. }
        | EventKind::ToolUpdate { .. }
        | EventKind::ToolDenied { .. }
        | EventKind::ToolUnanswered { .. }
        | EventKind::ToolProgress { .. }
        | EventKind::SubtaskUpdated { .. }
        | EventKind::SubtaskFinished { .. } => walk_call_event(v, &mut e.kind),
        EventKind::SubtaskStarted {
            task_id,
            tool_call_id,
            description,
            subagent_type,
            details,
        } => {
            id(v, IdKind::Task, task_id);
            opt_id(v, IdKind::Call, tool_call_id);
            v.text(description);
            opt_text(v, subagent_type);
            task_details(v, details);
        }
        EventKind::SubtaskProgress {
            task_id,
            tool_call_id,
            description,
            usage,
            details,
        } => {
            id(v, IdKind::Task, task_id);
            opt_id(v, IdKind::Call, tool_call_id);
            v.text(description);
            v.subagent_usage(usage);
            task_details(v, details);
        }
        EventKind::Notice { notice } => walk_notice(v, notice),
        EventKind::ConversationReset | EventKind::BranchEnded => {}
        EventKind::BranchStarted { leaf_id, thread } => {
            id(v, IdKind::Turn, leaf_id);
            opt_id(v, IdKind::Call, thread);
        }
        EventKind::Absorbed { what } => v.text(what),
        EventKind::Debug {
            reason,
            raw,
            malformed: _,
        } => {
            v.text(reason);
            v.raw(raw);
        }
    }
}

/// Walks the events of tool calls and of sub-agent tasks' updates and ends; [`walk_event`] walks the others.
fn walk_call_event<V: VisitMut + ?Sized>(v: &mut V, kind: &mut EventKind) {
    match kind {
        EventKind::ToolInputStarted {
            thread,
            message_id,
            tool_call_id,
            name,
        } => {
            opt_id(v, IdKind::Call, thread);
            id(v, IdKind::Turn, message_id);
            id(v, IdKind::Call, tool_call_id);
            v.text(name);
        }
        EventKind::ToolResult {
            thread,
            tool_call_id,
            is_error: _,
            output,
            error_text,
            sidecar,
            facts,
            server_run: _,
            replay: _,
            timestamp,
        } => {
            opt_id(v, IdKind::Call, thread);
            id(v, IdKind::Call, tool_call_id);
            v.value(ValueRole::Content, output);
            opt_text(v, error_text);
            opt_details(v, ValueRole::Meta, sidecar);
            walk_facts(v, facts);
            v.timestamp(timestamp);
        }
        EventKind::ToolUpdate {
            tool_call_id,
            state: _,
            output,
            input,
            kind,
            error_text,
            sidecar,
        } => {
            id(v, IdKind::Call, tool_call_id);
            opt_value(v, ValueRole::Content, output);
            opt_value(v, ValueRole::Content, input);
            if let Some(k) = kind {
                walk_tool_kind(v, k);
            }
            opt_text(v, error_text);
            opt_details(v, ValueRole::Meta, sidecar);
        }
        EventKind::ToolDenied {
            tool_call_id,
            tool_name,
            message,
        } => {
            id(v, IdKind::Call, tool_call_id);
            v.text(tool_name);
            v.text(message);
        }
        EventKind::ToolUnanswered { tool_call_id } => id(v, IdKind::Call, tool_call_id),
        EventKind::ToolProgress {
            thread,
            tool_call_id,
            tool_name,
            elapsed_seconds,
            task_id,
        } => {
            opt_id(v, IdKind::Call, thread);
            id(v, IdKind::Call, tool_call_id);
            v.text(tool_name);
            v.seconds(elapsed_seconds);
            opt_id(v, IdKind::Task, task_id);
        }
        EventKind::SubtaskUpdated {
            task_id,
            status: _,
            description,
            error,
        } => {
            id(v, IdKind::Task, task_id);
            opt_text(v, description);
            opt_text(v, error);
        }
        EventKind::SubtaskFinished {
            task_id,
            tool_call_id,
            status: _,
            summary,
            usage,
            result,
            details,
        } => {
            id(v, IdKind::Task, task_id);
            opt_id(v, IdKind::Call, tool_call_id);
            opt_text(v, summary);
            v.subagent_usage(usage);
            opt_text(v, result);
            task_details(v, details);
        }
        // Walked by walk_event.
        EventKind::SessionInit { .. }
        | EventKind::UserTurn { .. }
        | EventKind::SubtaskStarted { .. }
        | EventKind::SubtaskProgress { .. }
        | EventKind::AssistantBlock { .. }
        | EventKind::AssistantEnd { .. }
        | EventKind::TextDelta { .. }
        | EventKind::ReasoningDelta { .. }
        | EventKind::Notice { .. }
        | EventKind::ConversationReset
        | EventKind::BranchEnded
        | EventKind::BranchStarted { .. }
        | EventKind::Absorbed { .. }
        | EventKind::Debug { .. } => {}
    }
}
