//! The walk over transcript items: sessions, turns with their metadata and parts, notices and
//! debug records.

use super::tool::{walk_call, walk_subagent};
use super::{IdKind, ValueRole, VisitMut, id, opt_id, opt_text, opt_value, task_details, walk_map};
use crate::model::session::{SessionSnapshot, SystemNotice};
use crate::model::transcript::{DebugRecord, Part, TranscriptItem, Turn, TurnMeta, TurnOrigin};

/// Walks one transcript item.
pub(crate) fn walk_item<V: VisitMut + ?Sized>(v: &mut V, item: &mut TranscriptItem) {
    match item {
        TranscriptItem::Session(s) => walk_session(v, s),
        TranscriptItem::Turn(t) => walk_turn(v, t),
        TranscriptItem::Notice(n) => walk_notice(v, n),
        TranscriptItem::Debug(d) => walk_debug(v, d),
    }
}

fn walk_debug<V: VisitMut + ?Sized>(v: &mut V, d: &mut DebugRecord) {
    let DebugRecord {
        reason,
        line,
        raw,
        malformed: _,
    } = d;
    v.text(reason);
    v.line(line);
    v.raw(raw);
}

pub(super) fn walk_session<V: VisitMut + ?Sized>(v: &mut V, s: &mut SessionSnapshot) {
    let SessionSnapshot {
        id: init_id,
        session_id,
        agent,
        source,
        version,
        model,
        cwd,
        permission_mode,
        tools,
        mcp_servers,
        plugins,
        skills,
        slash_commands,
        agents,
        git_branch,
        title,
        updated_at,
        fast_mode_state,
        output_style,
        api_key_source,
    } = s;
    id(v, IdKind::Init, init_id);
    id(v, IdKind::Session, session_id);
    v.text(agent);
    v.text(source);
    v.version(version);
    opt_text(v, model);
    opt_text(v, cwd);
    opt_text(v, permission_mode);
    tools.iter_mut().for_each(|t| v.text(t));
    for m in mcp_servers.iter_mut() {
        v.text(&mut m.name);
        v.text(&mut m.status);
    }
    for p in plugins.iter_mut() {
        v.text(&mut p.name);
        v.text(&mut p.path);
    }
    skills.iter_mut().for_each(|t| v.text(t));
    slash_commands.iter_mut().for_each(|t| v.text(t));
    agents.iter_mut().for_each(|t| v.text(t));
    v.unordered(tools);
    v.unordered(mcp_servers);
    v.unordered(plugins);
    v.unordered(skills);
    v.unordered(slash_commands);
    v.unordered(agents);
    opt_text(v, git_branch);
    opt_text(v, title);
    v.timestamp(updated_at);
    opt_text(v, fast_mode_state);
    opt_text(v, output_style);
    opt_text(v, api_key_source);
}

/// Walks one turn, its parts and any sub-agent transcripts inside them.
pub(crate) fn walk_turn<V: VisitMut + ?Sized>(v: &mut V, t: &mut Turn) {
    let Turn {
        id: turn_id,
        role: _,
        origin,
        parent_task_id,
        parts,
        metadata,
        timestamp,
        end_timestamp,
    } = t;
    id(v, IdKind::Turn, turn_id);
    match origin {
        TurnOrigin::ToolReturn { tool_call_id } => id(v, IdKind::Call, tool_call_id),
        TurnOrigin::SubagentPrompt {
            parent_tool_call_id,
        } => id(v, IdKind::Call, parent_tool_call_id),
        TurnOrigin::UserInput
        | TurnOrigin::Synthetic { .. }
        | TurnOrigin::Replay
        | TurnOrigin::Notification
        | TurnOrigin::Model => {}
    }
    opt_id(v, IdKind::Call, parent_task_id);
    parts.iter_mut().for_each(|p| walk_part(v, p));
    walk_meta(v, metadata);
    v.timestamp(timestamp);
    v.timestamp(end_timestamp);
}

pub(super) fn walk_meta<V: VisitMut + ?Sized>(v: &mut V, m: &mut TurnMeta) {
    let TurnMeta {
        model,
        stop_reason,
        usage,
        error,
        aborted: _,
        machinery,
        priority,
        file_attachments,
    } = m;
    opt_text(v, model);
    opt_text(v, stop_reason);
    v.usage(usage);
    opt_text(v, error);
    opt_text(v, priority);
    file_attachments
        .iter_mut()
        .for_each(|f| v.value(ValueRole::Content, f));
    walk_map(v, ValueRole::Meta, machinery);
}

pub(super) fn walk_part<V: VisitMut + ?Sized>(v: &mut V, p: &mut Part) {
    match p {
        Part::Text { text, citations } => {
            v.text(text);
            for c in citations {
                opt_text(v, &mut c.url);
                opt_text(v, &mut c.title);
                opt_text(v, &mut c.quote);
                walk_map(v, ValueRole::Content, &mut c.detail);
            }
        }
        Part::Reasoning {
            text,
            redacted: _,
            signature,
        } => {
            v.text(text);
            v.opaque(signature);
        }
        Part::ToolCall { call } => walk_call(v, call),
        Part::File {
            media_type,
            url,
            filename,
        } => {
            v.text(media_type);
            v.text(url);
            opt_text(v, filename);
        }
        Part::SourceUrl {
            url,
            title,
            source_id,
        } => {
            v.text(url);
            opt_text(v, title);
            id(v, IdKind::Other, source_id);
        }
        Part::SourceDocument {
            media_type,
            title,
            source_id,
            text,
        } => {
            v.text(media_type);
            v.text(title);
            id(v, IdKind::Other, source_id);
            opt_text(v, text);
        }
        Part::Compaction { summary } => opt_text(v, summary),
        Part::Data {
            name,
            data,
            summary,
        } => {
            v.text(name);
            v.value(ValueRole::Content, data);
            opt_text(v, summary);
        }
    }
}

/// Walks a notice's fields; the notices of a run's work and outcome in [`walk_run_notice`].
pub(super) fn walk_notice<V: VisitMut + ?Sized>(v: &mut V, n: &mut SystemNotice) {
    match n {
        SystemNotice::RateLimit {
            at,
            status,
            resets_at,
            rate_limit_type,
            info,
        } => {
            v.timestamp(at);
            v.text(status);
            v.timestamp_value(resets_at);
            opt_text(v, rate_limit_type);
            v.value(ValueRole::Meta, info);
        }
        SystemNotice::ApiRetry {
            attempt: _,
            max: _,
            delay_ms,
            error_status: _,
            error,
        } => {
            v.millis(delay_ms);
            opt_text(v, error);
        }
        SystemNotice::Compact {
            trigger,
            pre_tokens,
            post_tokens,
            metadata,
        } => {
            opt_text(v, trigger);
            v.tokens(pre_tokens);
            v.tokens(post_tokens);
            v.value(ValueRole::Meta, metadata);
        }
        SystemNotice::Hook {
            hook_id: _,
            hook_name,
            event,
            status: _,
            output,
            exit_code: _,
            outcome,
        } => {
            v.text(hook_name);
            v.text(event);
            opt_text(v, output);
            opt_text(v, outcome);
        }
        SystemNotice::SessionState { state } => v.text(state),
        SystemNotice::Status { status, detail } => {
            opt_text(v, status);
            opt_text(v, detail);
        }
        SystemNotice::FilesPersisted {
            files,
            failed,
            processed_at,
        } => {
            files.iter_mut().for_each(|f| v.text(f));
            failed.iter_mut().for_each(|f| v.value(ValueRole::Meta, f));
            v.timestamp(processed_at);
        }
        SystemNotice::Elicitation { server, id: eid } => {
            v.text(server);
            id(v, IdKind::Other, eid);
        }
        SystemNotice::PermissionDenied {
            tool_name,
            tool_call_id,
            message,
        } => {
            v.text(tool_name);
            id(v, IdKind::Call, tool_call_id);
            v.text(message);
        }
        SystemNotice::Task { .. }
        | SystemNotice::MissedEvents { .. }
        | SystemNotice::Subagent { .. }
        | SystemNotice::Branch { .. }
        | SystemNotice::Result { .. }
        | SystemNotice::Info { .. } => walk_run_notice(v, n),
    }
}

/// The notices of a run's work and outcome (tasks, sub-agents, branches, results, lines of
/// information); [`walk_notice`] walks the others.
fn walk_run_notice<V: VisitMut + ?Sized>(v: &mut V, n: &mut SystemNotice) {
    match n {
        SystemNotice::Task {
            task_id,
            status: _,
            description,
            summary,
            usage,
            result,
            details,
        } => {
            id(v, IdKind::Task, task_id);
            opt_text(v, description);
            opt_text(v, summary);
            v.subagent_usage(usage);
            opt_text(v, result);
            task_details(v, details);
        }
        SystemNotice::MissedEvents {
            from: _,
            to: _,
            reason,
        } => v.text(reason),
        SystemNotice::Subagent {
            tool_call_id,
            record,
        } => {
            id(v, IdKind::Call, tool_call_id);
            walk_subagent(v, record);
        }
        SystemNotice::Branch { leaf_id, turns } => {
            id(v, IdKind::Turn, leaf_id);
            turns.iter_mut().for_each(|t| walk_turn(v, t));
        }
        SystemNotice::Result {
            subtype,
            is_error: _,
            cost,
            run_cost,
            turns: _,
            duration_ms,
            duration_api_ms,
            usage,
            text,
            stop_reason,
            terminal_reason,
            errors,
            permission_denials,
            structured_output,
            model_usage,
            fast_mode_state,
        } => {
            v.text(subtype);
            v.cost(cost);
            v.cost(run_cost);
            v.duration(duration_ms);
            v.duration(duration_api_ms);
            v.usage(usage);
            opt_text(v, text);
            opt_text(v, stop_reason);
            opt_text(v, terminal_reason);
            errors.iter_mut().for_each(|e| v.text(e));
            permission_denials
                .iter_mut()
                .for_each(|d| v.value(ValueRole::Meta, d));
            opt_value(v, ValueRole::Content, structured_output);
            if let Some(m) = model_usage {
                v.value(ValueRole::Meta, m);
            }
            opt_text(v, fast_mode_state);
        }
        SystemNotice::Info {
            source,
            level: _,
            text,
            data,
        } => {
            let about_usage = ["cost", "usage", "token"]
                .iter()
                .any(|w| source.to_ascii_lowercase().contains(w));
            let about_time = ["duration", "elapsed"]
                .iter()
                .any(|w| source.to_ascii_lowercase().contains(w));
            v.text(source);
            if about_usage {
                v.usage_text(text);
            } else if about_time {
                v.duration_text(text);
            } else {
                v.text(text);
            }
            v.value(ValueRole::Meta, data);
        }
        // Walked by walk_notice.
        SystemNotice::RateLimit { .. }
        | SystemNotice::ApiRetry { .. }
        | SystemNotice::Compact { .. }
        | SystemNotice::Hook { .. }
        | SystemNotice::SessionState { .. }
        | SystemNotice::Status { .. }
        | SystemNotice::FilesPersisted { .. }
        | SystemNotice::Elicitation { .. }
        | SystemNotice::PermissionDenied { .. } => {}
    }
}
