//! Emission: a parsed session (and its sub-agents) → normalized events, in chain order.
//!
//! User and assistant rows go through the shared [`ClaudeMessages`] with the session's field
//! spellings; an Agent call is followed by its sub-agent's rows, threaded under the call; an
//! abandoned branch is folded on its own into one `branch` notice. Usage is kept on the first row
//! of each `message.id` + `requestId` only.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::chain::{self, Step};
use super::entries;
use super::log::{Body, SessionLog};
use super::subagents::{self, Agent};
use crate::fold::Folder;
use crate::input::Report;
use crate::input::anthropic::stream::ClaudeMessages;
use crate::model::event::{Event, EventKind, Thread};
use crate::model::session::SystemNotice;
use crate::model::transcript::{SubagentStatus, SubagentUsage, TranscriptItem, Turn};

/// Emission state shared by the main line, its branches and its sub-agents.
pub(crate) struct Emitter {
    messages: ClaudeMessages,
    usage_seen: HashSet<(String, String)>,
    agents: Vec<Option<Agent>>,
    /// Agent call id → index in `agents`.
    by_call: HashMap<String, usize>,
    /// Agent calls whose sub-agent was announced and not yet finished.
    started: HashSet<String>,
    /// Tool name of every call emitted so far (a denial names the tool; the result row does not).
    tool_names: HashMap<String, String>,
}

impl Emitter {
    /// Matches each sub-agent to the Agent call that spawned it.
    pub(crate) fn new(agents: Vec<Agent>, main: &SessionLog) -> Emitter {
        let mut by_call = HashMap::new();
        // The spawning call: from the meta file, else from the call's result (`agentId`), else
        // from the prompt the call sent.
        let mut result_agent: HashMap<String, String> = HashMap::new();
        let mut prompt_call: HashMap<String, String> = HashMap::new();
        let mut all_logs: Vec<&SessionLog> = vec![main];
        all_logs.extend(agents.iter().map(|a| &a.log));
        for log in all_logs {
            for r in &log.rows {
                let Body::Entry(v) = &r.body else { continue };
                // CLI 2.0 put the sub-agent's id on the main-line result row itself.
                let row_agent = v
                    .get("agentId")
                    .filter(|_| v.get("isSidechain").and_then(Value::as_bool) != Some(true));
                let agent_id = v.pointer("/toolUseResult/agentId").or(row_agent);
                if let Some(aid) = agent_id.and_then(Value::as_str) {
                    if let Some(call) = first_result_id(v) {
                        result_agent.insert(aid.to_owned(), call);
                    }
                }
                for b in blocks(v) {
                    // An Agent/Task call: a prompt plus a description or agent type (WebFetch
                    // also has a `prompt`, and no sub-agent).
                    let spawns = b.pointer("/input/description").is_some()
                        || b.pointer("/input/subagent_type").is_some();
                    if b.get("type").and_then(Value::as_str) == Some("tool_use") && spawns {
                        if let (Some(p), Some(id)) = (
                            b.pointer("/input/prompt").and_then(Value::as_str),
                            b.get("id").and_then(Value::as_str),
                        ) {
                            prompt_call.insert(p.to_owned(), id.to_owned());
                        }
                    }
                }
            }
        }
        for (i, a) in agents.iter().enumerate() {
            let call = a
                .tool_use_id
                .clone()
                .or_else(|| result_agent.get(&a.agent_id).cloned())
                .or_else(|| {
                    subagents::first_prompt(&a.log).and_then(|p| prompt_call.get(&p).cloned())
                });
            if let Some(c) = call {
                by_call.entry(c).or_insert(i);
            }
        }
        Emitter {
            messages: ClaudeMessages::default(),
            usage_seen: HashSet::new(),
            agents: agents.into_iter().map(Some).collect(),
            by_call,
            started: HashSet::new(),
            tool_names: HashMap::new(),
        }
    }

    /// Reports Agent results that name a sub-agent whose transcript is not on disk.
    pub(crate) fn missing_agents(
        &self,
        log: &SessionLog,
        path: Option<&std::path::Path>,
        report: &mut Report<'_>,
    ) {
        if path.is_none() {
            return;
        }
        let known: HashSet<&str> = self
            .agents
            .iter()
            .flatten()
            .map(|a| a.agent_id.as_str())
            .collect();
        for r in &log.rows {
            let Body::Entry(v) = &r.body else { continue };
            if let Some(aid) = v.pointer("/toolUseResult/agentId").and_then(Value::as_str) {
                if !known.contains(aid) {
                    report.diag.warning(
                        report.file,
                        r.line,
                        &format!("sub-agent transcript agent-{aid}.jsonl not found"),
                    );
                }
            }
        }
    }

    /// Emits one conversation (the session, or a sub-agent under `thread`) in chain order.
    pub(crate) fn conversation(
        &mut self,
        mut log: SessionLog,
        thread: Thread,
        out: &mut Vec<Event>,
    ) {
        let steps = chain::order(&log.nodes());
        // Entries outside the chain go right after the row read before them.
        let mut anchored: HashMap<usize, Vec<Event>> = HashMap::new();
        for (after, e) in std::mem::take(&mut log.loose) {
            match after {
                Some(i) => anchored.entry(i).or_default().push(e),
                None => out.push(e),
            }
        }
        for step in steps {
            match step {
                Step::Row(i) => {
                    self.row(&mut log, i, &thread, out);
                    out.extend(anchored.remove(&i).unwrap_or_default());
                }
                Step::Branch { rows, leaf } => {
                    self.branch(&mut log, &rows, leaf, &thread, &mut anchored, out)
                }
            }
        }
        let mut rest: Vec<(usize, Vec<Event>)> = anchored.into_iter().collect();
        rest.sort_by_key(|(i, _)| *i);
        out.extend(rest.into_iter().flat_map(|(_, e)| e));
    }

    fn row(&mut self, log: &mut SessionLog, i: usize, thread: &Thread, out: &mut Vec<Event>) {
        let r = &mut log.rows[i];
        let n = r.line;
        let body = std::mem::replace(&mut r.body, Body::Absorbed(String::new()));
        let mut v = match body {
            Body::Absorbed(what) => {
                out.push(Event {
                    line: n,
                    kind: EventKind::Absorbed { what },
                });
                return;
            }
            Body::Entry(v) => v,
        };
        if let (Some(t), Some(o)) = (thread, v.as_object_mut()) {
            o.insert("parent_tool_use_id".into(), json!(t));
        }
        let ty = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match ty.as_str() {
            "assistant" => {
                self.count_usage_once(&mut v);
                self.messages
                    .assistant(&v, &crate::input::claude::SESSION_WIRE, &mut |kind| {
                        out.push(Event { line: n, kind })
                    });
                let mut calls = Vec::new();
                for b in blocks(&v) {
                    if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or_default();
                    self.tool_names
                        .insert(s("id").to_owned(), s("name").to_owned());
                    calls.push(s("id").to_owned());
                }
                for call in calls {
                    self.subagent(&call, n, out);
                }
            }
            "user" => {
                if let Some(kind) = self.denial(&v) {
                    out.push(Event { line: n, kind });
                }
                for call in result_ids(&v) {
                    if self.started.remove(&call) {
                        out.push(Event {
                            line: n,
                            kind: finished(&call, &v),
                        });
                    }
                }
                self.messages
                    .user(&v, &crate::input::claude::SESSION_WIRE, &mut |kind| {
                        out.push(Event { line: n, kind })
                    });
            }
            "system" => out.push(Event {
                line: n,
                kind: entries::system(&v),
            }),
            "attachment" => {
                if v.pointer("/attachment/type").and_then(Value::as_str) == Some("queued_command") {
                    // Input typed while the agent worked, delivered as the next user message.
                    let prompt = v
                        .pointer("/attachment/prompt")
                        .cloned()
                        .unwrap_or(Value::Null);
                    let mut user = json!({
                        "type": "user",
                        "uuid": v.get("uuid"),
                        "timestamp": v.get("timestamp"),
                        "message": {"role": "user", "content": prompt},
                    });
                    if let Some(t) = thread {
                        user["parent_tool_use_id"] = json!(t);
                    }
                    self.messages
                        .user(&user, &crate::input::claude::SESSION_WIRE, &mut |kind| {
                            out.push(Event { line: n, kind })
                        });
                } else {
                    out.push(Event {
                        line: n,
                        kind: entries::attachment(&v),
                    });
                }
            }
            other => out.push(Event {
                line: n,
                kind: EventKind::Absorbed {
                    what: other.to_owned(),
                },
            }),
        }
    }

    /// A tool result the permission system refused (`permissionDecision.decision: "reject"`):
    /// the stream's `permission_denied`, so the call gets `denied` as it does there.
    fn denial(&self, v: &Value) -> Option<EventKind> {
        let rejected = v
            .pointer("/permissionDecision/decision")
            .and_then(Value::as_str)
            == Some("reject")
            || v.get("toolDenialKind").is_some_and(|k| !k.is_null());
        if !rejected {
            return None;
        }
        let block =
            blocks(v).find(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))?;
        let id = block.get("tool_use_id").and_then(Value::as_str)?.to_owned();
        let message = match block.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        Some(EventKind::ToolDenied {
            tool_name: self.tool_names.get(&id).cloned().unwrap_or_default(),
            tool_call_id: id,
            message,
        })
    }

    /// The CLI repeats a message's usage on each of its rows: keep it on the first only.
    fn count_usage_once(&mut self, v: &mut Value) {
        let id = v.pointer("/message/id").and_then(Value::as_str);
        let request = v.get("requestId").and_then(Value::as_str).unwrap_or("");
        let Some(id) = id else { return };
        if !self.usage_seen.insert((id.to_owned(), request.to_owned())) {
            if let Some(m) = v.get_mut("message").and_then(Value::as_object_mut) {
                m.shift_remove("usage");
            }
        }
    }

    /// After an Agent call's row: its sub-agent's run, threaded under the call.
    fn subagent(&mut self, call: &str, line: u64, out: &mut Vec<Event>) {
        let Some(&i) = self.by_call.get(call) else {
            return;
        };
        let Some(agent) = self.agents[i].take() else {
            return;
        };
        out.push(Event {
            line,
            kind: EventKind::SubtaskStarted {
                task_id: agent.agent_id.clone(),
                tool_call_id: Some(call.to_owned()),
                description: agent.description.clone(),
                subagent_type: agent.agent_type.clone(),
                task_type: None,
            },
        });
        self.started.insert(call.to_owned());
        self.conversation(agent.log, Some(call.to_owned()), out);
    }

    /// An abandoned branch: folded on its own into one `branch` notice; the notices it held
    /// follow it, so nothing in it is lost.
    fn branch(
        &mut self,
        log: &mut SessionLog,
        rows: &[usize],
        leaf: usize,
        thread: &Thread,
        anchored: &mut HashMap<usize, Vec<Event>>,
        out: &mut Vec<Event>,
    ) {
        let first_line = rows.first().map_or(0, |&i| log.rows[i].line);
        let leaf_id = log.rows[leaf].uuid.clone();
        let mut events = Vec::new();
        for &i in rows {
            self.row(log, i, &None, &mut events);
            events.extend(anchored.remove(&i).unwrap_or_default());
        }
        let mut folder = Folder::new();
        let mut items = Vec::new();
        // Each row's line is still accounted for in `--to events`: its events went into the
        // branch notice.
        let mut lines: Vec<u64> = events.iter().map(|e| e.line).collect();
        lines.dedup();
        for e in events {
            folder.push(e, &mut items);
        }
        folder.finish(&mut items);
        let mut turns: Vec<Turn> = Vec::new();
        let mut rest = Vec::new();
        for item in items {
            match item {
                TranscriptItem::Turn(mut t) => {
                    t.parent_task_id = thread.clone();
                    turns.push(*t);
                }
                TranscriptItem::Notice(n) => rest.push(EventKind::Notice { notice: n }),
                TranscriptItem::Debug(d) => rest.push(EventKind::Debug {
                    reason: d.reason,
                    raw: d.raw,
                }),
                TranscriptItem::Session(_) => {}
            }
        }
        out.push(Event {
            line: first_line,
            kind: EventKind::Notice {
                notice: Box::new(SystemNotice::Branch { leaf_id, turns }),
            },
        });
        out.extend(rest.into_iter().map(|kind| Event {
            line: first_line,
            kind,
        }));
        out.extend(lines.into_iter().map(|line| Event {
            line,
            kind: EventKind::Absorbed {
                what: "row of an abandoned branch (in the branch notice)".into(),
            },
        }));
    }

    /// Sub-agent runs no Agent call claimed: threaded under their own id, so the fold keeps each
    /// as a `subagent` notice.
    pub(crate) fn orphans(&mut self, out: &mut Vec<Event>) {
        let left: Vec<Agent> = self.agents.iter_mut().filter_map(Option::take).collect();
        for agent in left {
            self.conversation(agent.log, Some(format!("agent-{}", agent.agent_id)), out);
        }
    }
}

/// The `SubtaskFinished` an Agent call's result implies (the stream's `task_notification`).
fn finished(call: &str, v: &Value) -> EventKind {
    let r = v.get("toolUseResult").unwrap_or(&Value::Null);
    let is_error = blocks(v).any(|b| {
        b.get("tool_use_id").and_then(Value::as_str) == Some(call)
            && b.get("is_error").and_then(Value::as_bool) == Some(true)
    });
    let status = r
        .get("status")
        .and_then(Value::as_str)
        .and_then(SubagentStatus::from_word)
        .unwrap_or(if is_error {
            SubagentStatus::Failed
        } else {
            SubagentStatus::Completed
        });
    let summary = r
        .get("content")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .rev()
                .find_map(|b| b.get("text").and_then(Value::as_str))
        })
        .map(str::to_owned);
    let n = |k: &str| r.get(k).and_then(Value::as_u64);
    let usage =
        (n("totalTokens").is_some() || n("totalToolUseCount").is_some()).then(|| SubagentUsage {
            total_tokens: n("totalTokens").unwrap_or(0),
            tool_uses: n("totalToolUseCount").unwrap_or(0),
            duration_ms: n("totalDurationMs").unwrap_or(0),
        });
    EventKind::SubtaskFinished {
        task_id: r
            .get("agentId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        tool_call_id: Some(call.to_owned()),
        status,
        summary,
        usage,
    }
}

fn blocks(v: &Value) -> impl Iterator<Item = &Value> {
    v.pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn result_ids(v: &Value) -> Vec<String> {
    blocks(v)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

fn first_result_id(v: &Value) -> Option<String> {
    result_ids(v).into_iter().next()
}
