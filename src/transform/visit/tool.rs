//! The walk over a tool call: its ids, input, result facts, what kind of tool it is, and the
//! sub-agent it ran.

use super::item::walk_turn;
use super::{IdKind, ValueRole, VisitMut, id, opt_details, opt_text, opt_value, task_details};
use crate::model::transcript::{ResultFacts, SubagentRecord, ToolCall, ToolKind};

pub(super) fn walk_call<V: VisitMut + ?Sized>(v: &mut V, c: &mut ToolCall) {
    let ToolCall {
        tool_call_id,
        name,
        kind,
        caller: _,
        called_by,
        mcp_server,
        state: _,
        input,
        output,
        error_text,
        denied,
        sidecar,
        facts,
        subagent,
        skill,
        started_at,
        ended_at,
    } = c;
    id(v, IdKind::Call, tool_call_id);
    v.text(name);
    opt_text(v, mcp_server);
    opt_value(v, ValueRole::Meta, called_by);
    v.value(ValueRole::Content, input);
    // After the input, which holds the same strings: a pass that numbers what it meets first
    // (`--stable`) numbers them in input order.
    walk_tool_kind(v, kind);
    opt_value(v, ValueRole::Content, output);
    opt_text(v, error_text);
    opt_text(v, denied);
    opt_details(v, ValueRole::Meta, sidecar);
    walk_facts(v, facts);
    if let Some(s) = subagent {
        walk_subagent(v, s);
    }
    if let Some(s) = skill {
        v.text(&mut s.skill_name);
        opt_text(v, &mut s.body);
    }
    v.timestamp(started_at);
    v.timestamp(ended_at);
}

/// The text of a result's facts (the lines of the diff an edit made, the preview the model read
/// of a saved output) and its duration.
pub(super) fn walk_facts<V: VisitMut + ?Sized>(v: &mut V, f: &mut ResultFacts) {
    let ResultFacts {
        lines_read: _,
        hunks,
        duration_ms,
        exit_code: _,
        persisted_preview,
    } = f;
    for h in hunks {
        h.lines.iter_mut().for_each(|l| v.text(l));
    }
    v.duration(duration_ms);
    opt_text(v, persisted_preview);
}

/// The strings a tool kind copied from the call's input (commands, paths, text, todo items).
pub(super) fn walk_tool_kind<V: VisitMut + ?Sized>(v: &mut V, k: &mut ToolKind) {
    match k {
        ToolKind::Shell {
            command,
            description,
        } => {
            v.text(command);
            opt_text(v, description);
        }
        ToolKind::Read { path } => v.text(path),
        ToolKind::Write { path, content } => {
            v.text(path);
            v.text(content);
        }
        ToolKind::Edit { path, old, new } => {
            v.text(path);
            v.text(old);
            v.text(new);
        }
        ToolKind::MultiEdit { path, edits } => {
            v.text(path);
            for e in edits {
                v.text(&mut e.old);
                v.text(&mut e.new);
            }
        }
        ToolKind::Patch { files } => {
            for f in files {
                v.text(&mut f.path);
                v.text(&mut f.change);
            }
        }
        ToolKind::Search { pattern, path } => {
            v.text(pattern);
            opt_text(v, path);
        }
        ToolKind::WebFetch { url } => v.text(url),
        ToolKind::WebSearch { query } => v.text(query),
        ToolKind::Todo { items } => items.iter_mut().for_each(|i| v.text(&mut i.text)),
        ToolKind::Plan { plan } => v.text(plan),
        ToolKind::Subagent { description } => v.text(description),
        ToolKind::Skill { skill } => v.text(skill),
        ToolKind::Mcp {
            server,
            tool,
            subject,
        } => {
            v.text(server);
            v.text(tool);
            opt_text(v, subject);
        }
        ToolKind::StructuredOutput => {}
        ToolKind::Other { subject } => opt_text(v, subject),
    }
}

pub(super) fn walk_subagent<V: VisitMut + ?Sized>(v: &mut V, s: &mut SubagentRecord) {
    let SubagentRecord {
        task_id,
        description,
        subagent_type,
        progress,
        status: _,
        summary,
        error,
        usage,
        result,
        details,
        transcript,
    } = s;
    id(v, IdKind::Task, task_id);
    v.text(description);
    opt_text(v, subagent_type);
    progress.iter_mut().for_each(|p| v.text(p));
    opt_text(v, summary);
    opt_text(v, error);
    v.subagent_usage(usage);
    opt_text(v, result);
    task_details(v, details);
    transcript.iter_mut().for_each(|t| walk_turn(v, t));
}
