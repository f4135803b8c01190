//! Sub-agent work recorded inline: Claude Code 2.1 writes each message of a running sub-agent
//! into the main session as a `progress` row (`data.type: "agent_progress"`), the sub-agent's own
//! user or assistant row under `data.message`, its `agentId` under `data`, and the spawning Agent
//! call as the row's `parentToolUseID`.
//!
//! Those rows are collected here, per sub-agent, into a transcript of their own: each message is
//! given the fields a row of `subagents/agent-<id>.jsonl` has (`isSidechain`, `agentId`, a
//! `parentUuid` chaining it to the message before it) and spooled to a temporary file, so that
//! pass 2 reads it again by offset like any sub-agent file. Its rows keep the session's line
//! numbers: the content came from the input's own lines.
//!
//! Which copy wins when the sub-agent's file is beside the session: the file. It is the
//! sub-agent's own complete transcript, written as it runs; the inline rows are the copies the
//! CLI made for its progress display, and may be partial (a session saved while the sub-agent
//! ran, rows the display did not need). So an inline transcript is used only for a sub-agent
//! whose file is absent (see `ClaudeSession::finish`).

use foldhash::HashSet;
use serde_json::Value;

use super::log::SessionLog;
use super::source::{Peek, Source, Sources, Spool};
use super::subagents::Agent;
use crate::input::Report;
use crate::input::lines::InputLine;

/// The name a `progress` row carrying a sub-agent's message is absorbed under in the main
/// conversation: its content is in that sub-agent's transcript.
pub(crate) const ABSORBED_AS: &str = "progress/agent_progress (in the sub-agent's transcript)";

/// Does this line look like an `agent_progress` row (a cheap test before it is decoded)?
pub(crate) fn mentions(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"\"agent_progress\"").is_some()
}

/// One sub-agent's inline messages so far.
#[derive(Debug)]
pub(crate) struct InlineAgent {
    agent_id: String,
    /// The spawning Agent call (`parentToolUseID`).
    call: Option<String>,
    /// Its rows' index; its peek is the spool they are written to.
    log: SessionLog,
    /// The uuid of its last message (the next one's `parentUuid`).
    last_uuid: Option<String>,
    /// Messages already taken (a message repeated in another row is taken once).
    seen: HashSet<String>,
}

/// The inline sub-agents of one session, in the order their first message came.
#[derive(Debug, Default)]
pub(crate) struct InlineAgents {
    agents: Vec<InlineAgent>,
}

impl InlineAgents {
    /// Takes the sub-agent message of a `progress` row, if it carries one.
    pub(crate) fn take(&mut self, line: &InputLine, report: &mut Report<'_>) {
        let Ok(v) = serde_json::from_str::<Value>(&line.text) else {
            return;
        };
        let data = v.get("data").unwrap_or(&Value::Null);
        if data.get("type").and_then(Value::as_str) != Some("agent_progress") {
            return;
        }
        let Some(Value::Object(mut msg)) = data.get("message").cloned() else {
            return;
        };
        let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let call = s(&v, "parentToolUseID");
        let Some(agent_id) = s(data, "agentId").or_else(|| call.clone()) else {
            return;
        };
        let Some(agent) = self.agent(&agent_id, call, line, report) else {
            return;
        };
        let uuid = msg.get("uuid").and_then(Value::as_str).map(str::to_owned);
        if let Some(u) = &uuid {
            if !agent.seen.insert(u.clone()) {
                return;
            }
        }
        if !msg.contains_key("parentUuid") {
            let parent = agent.last_uuid.clone().map_or(Value::Null, Value::String);
            msg.insert("parentUuid".into(), parent);
        }
        msg.insert("isSidechain".into(), Value::Bool(true));
        msg.insert("agentId".into(), Value::String(agent_id));
        if let Some(sid) = v.get("sessionId") {
            msg.entry("sessionId").or_insert_with(|| sid.clone());
        }
        if uuid.is_some() {
            agent.last_uuid = uuid;
        }
        let text = Value::Object(msg).to_string();
        let Peek::Spool(spool) = &mut agent.log.peek else {
            return;
        };
        match spool.push(&text) {
            Ok(offset) => {
                let row = InputLine {
                    number: line.number,
                    offset,
                    text,
                    lossy: false,
                    unterminated: false,
                };
                agent.log.line(&row, offset, report, true);
            }
            Err(e) => report.error(
                line.number,
                &format!("cannot write the temporary file: {e}"),
            ),
        }
    }

    /// The sub-agent `agent_id`, opened at its first message.
    fn agent(
        &mut self,
        agent_id: &str,
        call: Option<String>,
        line: &InputLine,
        report: &mut Report<'_>,
    ) -> Option<&mut InlineAgent> {
        let at = match self.agents.iter().position(|a| a.agent_id == agent_id) {
            Some(at) => at,
            None => {
                let spool = match Spool::new() {
                    Ok(s) => s,
                    Err(e) => {
                        report.error(
                            line.number,
                            &format!("cannot create a temporary file for a sub-agent: {e}"),
                        );
                        return None;
                    }
                };
                let mut log = SessionLog::default();
                log.peek = Peek::Spool(spool);
                log.inline = true;
                self.agents.push(InlineAgent {
                    agent_id: agent_id.to_owned(),
                    call,
                    log,
                    last_uuid: None,
                    seen: HashSet::default(),
                });
                self.agents.len() - 1
            }
        };
        self.agents.get_mut(at)
    }

    /// The sub-agent runs for which `has_file` is false (their file, which wins, is not beside
    /// the session), their spools registered as sources.
    pub(crate) fn into_agents(
        self,
        sources: &mut Sources,
        has_file: impl Fn(&str) -> bool,
        report: &mut Report<'_>,
    ) -> Vec<Agent> {
        let mut out = Vec::new();
        for mut a in self.agents {
            if has_file(&a.agent_id) {
                continue;
            }
            let Peek::Spool(spool) = std::mem::take(&mut a.log.peek) else {
                continue;
            };
            match spool.into_source() {
                Ok(s) => a.log.source = sources.add(s),
                Err(e) => {
                    report.error(0, &format!("cannot read the temporary file: {e}"));
                    a.log.source = sources.add(Source::Path(Default::default()));
                }
            }
            a.log.resolve();
            out.push(Agent {
                agent_id: a.agent_id,
                tool_use_id: a.call,
                description: String::new(),
                agent_type: None,
                log: Box::new(a.log),
            });
        }
        out
    }
}
