//! A mutable walk over every model type (`model/*`), so that a pass (`--stable`, `--redact`) is
//! written once as a `VisitMut` and reaches every field of every item and event.
//!
//! The walk names what each field *is* (an id of some kind, content text, a timestamp, a token
//! count, a harness payload, …) and the pass decides what to do with it. Every enum is matched
//! exhaustively: a new variant in the model is a compile error here until the walk covers it.

use serde_json::Value;

use crate::model::details::Details;
use crate::model::session::{SessionSnapshot, SystemNotice};
use crate::model::transcript::{
    DebugRecord, Part, ResultFacts, SubagentRecord, SubagentUsage, ToolCall, ToolKind,
    TranscriptItem, Turn, TurnMeta, TurnOrigin, Usage,
};

mod event;

pub(crate) use event::walk_event;

/// The namespaces ids live in; `--stable` numbers each one separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum IdKind {
    /// A turn: an assistant message id or a user row's uuid (`t1`, `t2`, …).
    Turn,
    /// A tool call (`call-1`, …).
    Call,
    /// A sub-agent or background task (`task-1`, …).
    Task,
    /// An agent session (`s1`, …).
    Session,
    /// The id of the line that announced a session (`init-1`, …).
    Init,
    /// Any other reference (elicitations, citation sources): `id-1`, ….
    Other,
}

/// What a `serde_json::Value` holds, which decides how much a pass may touch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueRole {
    /// What the agent did or got: tool input and output, structured output, data parts.
    Content,
    /// What the harness said about it: sidecars, machinery, notice payloads.
    Meta,
}

/// A pass over the model. Every method defaults to doing nothing (values are walked string by
/// string through `text`).
pub(crate) trait VisitMut {
    /// An identifier of the given kind (never empty when called).
    fn id(&mut self, _kind: IdKind, _id: &mut String) {}
    /// Any other string: content, names, paths, messages.
    fn text(&mut self, _s: &mut String) {}
    /// A JSON payload. The default walks every string in it (keys are left alone).
    fn value(&mut self, _role: ValueRole, v: &mut Value) {
        walk_value(self, v);
    }
    /// A JSON payload kept as text ([`Details`]). The default walks it as the `Value` it holds
    /// (through [`VisitMut::value`]) and writes it again; a pass that leaves values alone says
    /// so here, and the text is not read at all.
    fn details(&mut self, role: ValueRole, d: &mut Details) {
        d.edit(|x| self.value(role, x));
    }
    /// A wall-clock time.
    fn timestamp(&mut self, _t: &mut Option<String>) {}
    /// A wall-clock time kept as JSON (a number or a string).
    fn timestamp_value(&mut self, _t: &mut Option<Value>) {}
    /// The version string of the agent that produced the stream.
    fn version(&mut self, _v: &mut Option<String>) {}
    /// An opaque value that differs on every run by design (a thinking block's signature).
    fn opaque(&mut self, _v: &mut Option<String>) {}
    /// An optional duration in milliseconds.
    fn duration(&mut self, _ms: &mut Option<u64>) {}
    /// A duration that is always present.
    fn millis(&mut self, _ms: &mut u64) {}
    /// Seconds elapsed (tool progress).
    fn seconds(&mut self, _s: &mut f64) {}
    /// A model response's token counts.
    fn usage(&mut self, _u: &mut Option<Usage>) {}
    /// A sub-agent's totals (tokens, tool uses, duration).
    fn subagent_usage(&mut self, _u: &mut Option<SubagentUsage>) {}
    /// A token count on its own (compaction).
    fn tokens(&mut self, _n: &mut Option<u64>) {}
    /// Money spent.
    fn cost(&mut self, _c: &mut Option<f64>) {}
    /// A text that only reports usage or cost (an `info` notice such as `cost-state`).
    fn usage_text(&mut self, s: &mut String) {
        self.text(s);
    }
    /// An input line kept as it was read (a `debug` record's `raw`).
    fn raw(&mut self, s: &mut String) {
        self.text(s);
    }
    /// A text that only reports how long something took (an `info` notice such as
    /// `turn_duration`).
    fn duration_text(&mut self, s: &mut String) {
        self.text(s);
    }
    /// The input line an event came from.
    fn line(&mut self, _line: &mut u64) {}
}

fn opt_text<V: VisitMut + ?Sized>(v: &mut V, s: &mut Option<String>) {
    if let Some(s) = s {
        v.text(s);
    }
}

fn id<V: VisitMut + ?Sized>(v: &mut V, kind: IdKind, s: &mut String) {
    if !s.is_empty() {
        v.id(kind, s);
    }
}

fn opt_id<V: VisitMut + ?Sized>(v: &mut V, kind: IdKind, s: &mut Option<String>) {
    if let Some(s) = s {
        id(v, kind, s);
    }
}

fn opt_value<V: VisitMut + ?Sized>(v: &mut V, role: ValueRole, x: &mut Option<Value>) {
    if let Some(x) = x {
        v.value(role, x);
    }
}

/// Details kept as text, through [`VisitMut::details`].
fn opt_details<V: VisitMut + ?Sized>(v: &mut V, role: ValueRole, x: &mut Option<Details>) {
    if let Some(x) = x {
        v.details(role, x);
    }
}

/// Walks every string inside a JSON value (object keys are not visited).
pub(crate) fn walk_value<V: VisitMut + ?Sized>(v: &mut V, x: &mut Value) {
    match x {
        Value::String(s) => v.text(s),
        Value::Array(a) => a.iter_mut().for_each(|x| walk_value(v, x)),
        Value::Object(o) => o.values_mut().for_each(|x| walk_value(v, x)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

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
    let DebugRecord { reason, line, raw } = d;
    v.text(reason);
    v.line(line);
    v.raw(raw);
}

fn walk_session<V: VisitMut + ?Sized>(v: &mut V, s: &mut SessionSnapshot) {
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
    } = s;
    id(v, IdKind::Init, init_id);
    id(v, IdKind::Session, session_id);
    v.text(agent);
    v.text(source);
    v.version(version);
    v.text(model);
    v.text(cwd);
    v.text(permission_mode);
    tools.iter_mut().for_each(|t| v.text(t));
    for m in mcp_servers {
        v.text(&mut m.name);
        v.text(&mut m.status);
    }
    for p in plugins {
        v.text(&mut p.name);
        v.text(&mut p.path);
    }
    skills.iter_mut().for_each(|t| v.text(t));
    slash_commands.iter_mut().for_each(|t| v.text(t));
    agents.iter_mut().for_each(|t| v.text(t));
    opt_text(v, git_branch);
    opt_text(v, title);
    v.timestamp(updated_at);
    opt_text(v, fast_mode_state);
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

fn walk_meta<V: VisitMut + ?Sized>(v: &mut V, m: &mut TurnMeta) {
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
    if !machinery.is_empty() {
        let mut x = Value::Object(std::mem::take(machinery));
        v.value(ValueRole::Meta, &mut x);
        if let Value::Object(o) = x {
            *machinery = o;
        }
    }
}

fn walk_part<V: VisitMut + ?Sized>(v: &mut V, p: &mut Part) {
    match p {
        Part::Text { text, citations } => {
            v.text(text);
            for c in citations {
                opt_text(v, &mut c.url);
                opt_text(v, &mut c.title);
                opt_text(v, &mut c.quote);
                if !c.detail.is_empty() {
                    let mut x = Value::Object(std::mem::take(&mut c.detail));
                    v.value(ValueRole::Content, &mut x);
                    if let Value::Object(o) = x {
                        c.detail = o;
                    }
                }
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

fn walk_call<V: VisitMut + ?Sized>(v: &mut V, c: &mut ToolCall) {
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

/// The text of a result's facts (the lines of the diff an edit made) and its duration.
pub(super) fn walk_facts<V: VisitMut + ?Sized>(v: &mut V, f: &mut ResultFacts) {
    let ResultFacts {
        lines_read: _,
        hunks,
        duration_ms,
    } = f;
    for h in hunks {
        h.lines.iter_mut().for_each(|l| v.text(l));
    }
    v.duration(duration_ms);
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

fn walk_subagent<V: VisitMut + ?Sized>(v: &mut V, s: &mut SubagentRecord) {
    let SubagentRecord {
        task_id,
        description,
        subagent_type,
        progress,
        status: _,
        summary,
        usage,
        result,
        transcript,
    } = s;
    id(v, IdKind::Task, task_id);
    v.text(description);
    opt_text(v, subagent_type);
    progress.iter_mut().for_each(|p| v.text(p));
    opt_text(v, summary);
    v.subagent_usage(usage);
    opt_text(v, result);
    transcript.iter_mut().for_each(|t| walk_turn(v, t));
}

fn walk_notice<V: VisitMut + ?Sized>(v: &mut V, n: &mut SystemNotice) {
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
        SystemNotice::FilesPersisted { files, failed } => {
            files.iter_mut().for_each(|f| v.text(f));
            failed.iter_mut().for_each(|f| v.value(ValueRole::Meta, f));
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
        SystemNotice::Task {
            task_id,
            status: _,
            description,
            summary,
            usage,
            result,
        } => {
            id(v, IdKind::Task, task_id);
            opt_text(v, description);
            opt_text(v, summary);
            v.subagent_usage(usage);
            opt_text(v, result);
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
    }
}
