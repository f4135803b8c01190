//! Claude Code saved sessions (`~/.claude/projects/<escaped cwd>/<sessionId>.jsonl`) → normalized
//! events, the same ones the stream-json adapter emits, so the fold and the renderers cannot tell
//! which Claude format they came from.
//!
//! A session file is not a stream: its order is the `parentUuid` chain (`chain.rs`), sub-agents
//! live in files of their own (`subagents.rs`), and most of its entries are book-keeping
//! (`entries.rs`). So this adapter reads the whole file first (`log.rs`) and emits at `finish`:
//!
//! 1. a session snapshot built from the facts the rows repeat (there is no `init` line);
//! 2. the main line in chain order, user and assistant rows through the shared
//!    `ClaudeMessages` with the session's field spellings (`Wire::SESSION`), each Agent call
//!    followed by its sub-agent's rows (threaded under the call, as the stream does) and each
//!    abandoned branch folded into one `branch` notice where it forked off;
//! 3. the entries outside the chain (cost, queue removals, absorbed book-keeping), each after the
//!    chain row read before it;
//! 4. sub-agent runs no Agent call claimed, which the fold keeps as `subagent` notices.
//!
//! Usage is counted once per `message.id` + `requestId`: the CLI repeats the usage object on every
//! content-block row of a message.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::input::{Adapter, InputLine, Report};
use crate::model::event::{Event, EventKind};
use crate::model::session::SessionSnapshot;

mod chain;
mod discover;
mod emit;
mod entries;
mod live;
mod log;
#[cfg(test)]
mod robustness;
mod subagents;

pub(crate) use discover::session_files;

use emit::Emitter;
use log::SessionLog;
use subagents::Agent;

/// The saved-session adapter: holds the file until its end, then emits it in chain order (in
/// follow mode, `live.rs`: in file order as it is read).
#[derive(Default)]
pub(crate) struct ClaudeSession {
    path: Option<PathBuf>,
    log: SessionLog,
    live: Option<Box<live::Live>>,
}

impl Adapter for ClaudeSession {
    fn set_path(&mut self, path: &Path) {
        self.path = Some(path.to_path_buf());
    }

    fn set_live(&mut self) {
        self.live = Some(Box::new(live::Live::new()));
    }

    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        self.log.line(line, report, false);
        if let Some(live) = self.live.as_mut() {
            live.emit(&mut self.log, out);
        }
    }

    fn poll(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if let (Some(live), Some(path)) = (self.live.as_mut(), &self.path) {
            live.poll(path, out, report);
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if let Some(mut live) = self.live.take() {
            if let Some(path) = &self.path {
                live.poll(path, out, report);
            }
            live.emit(&mut self.log, out);
            live.finish(&mut self.log, out);
            return;
        }
        let mut log = std::mem::take(&mut self.log);
        let mut agents: Vec<Agent> = std::mem::take(&mut log.sidechains)
            .into_iter()
            .map(|(agent_id, log)| Agent {
                agent_id,
                tool_use_id: None,
                description: String::new(),
                agent_type: None,
                log,
            })
            .collect();
        if let Some(path) = &self.path {
            for p in subagents::agent_files(path, log.facts.session_id.as_deref()) {
                if let Some(a) = subagents::load(&p, report) {
                    agents.push(a);
                }
            }
        }
        out.push(Event {
            line: 0,
            kind: EventKind::SessionInit {
                session: Box::new(snapshot(&log)),
            },
        });
        let mut emitter = Emitter::new(agents, &log);
        emitter.missing_agents(&log, self.path.as_deref(), report);
        emitter.conversation(log, None, out);
        emitter.orphans(out);
    }
}

/// Sniffing: is this first line a saved-session entry? Session entries are camelCase and chained
/// (`sessionId`, `parentUuid`, `leafUuid`), and the first line is often book-keeping that the
/// stream never sends (`file-history-snapshot` has none of those keys).
pub(crate) fn looks_like_session(o: &serde_json::Map<String, Value>) -> bool {
    ["sessionId", "parentUuid", "leafUuid"]
        .iter()
        .any(|k| o.contains_key(*k))
        || o.get("type")
            .and_then(Value::as_str)
            .is_some_and(entries::is_session_only_type)
}

/// The session header: a saved session has no `init` line, so it is built from the rows.
fn snapshot(log: &SessionLog) -> SessionSnapshot {
    let f = &log.facts;
    SessionSnapshot {
        id: f.first_uuid.clone().unwrap_or_default(),
        session_id: f.session_id.clone().unwrap_or_default(),
        agent: "claude-code".into(),
        source: "claude-session".into(),
        version: f.version.clone(),
        model: f.model.clone().unwrap_or_default(),
        cwd: f.cwd.clone().unwrap_or_default(),
        permission_mode: f.permission_mode.clone().unwrap_or_default(),
        git_branch: f.git_branch.clone(),
        title: f.title(),
        updated_at: f.last_timestamp.clone(),
        ..SessionSnapshot::default()
    }
}
