//! Claude Code saved sessions (`~/.claude/projects/<escaped cwd>/<sessionId>.jsonl`) → normalized
//! events, the same ones the stream-json adapter emits, so the fold and the renderers cannot tell
//! which Claude format they came from.
//!
//! A session file is not a stream: its order is the `parentUuid` chain (`chain.rs`), sub-agents
//! live in files of their own (`subagents.rs`), and most of its entries are book-keeping
//! (`entries.rs`). So this adapter reads the file twice, and memory stays flat however large it
//! is: pass 1 (`log.rs`) indexes each row (keys of its ids, its parent, its byte offset, its role)
//! as the lines arrive, reading only those fields of it (`head.rs`: no `Value` tree); pass 2
//! (`emit.rs`), from `finish` on, reads each row again by offset (`source.rs`, through a
//! read-ahead window; standard input is spooled to a temporary file for this) and writes, a batch
//! at a time:
//!
//! 1. a session snapshot built from the facts the rows repeat (there is no `init` line);
//! 2. the main line in chain order, user and assistant rows through the shared
//!    `ClaudeMessages` with the session's field spellings (`Wire::SESSION`), each Agent call
//!    followed by its sub-agent's rows (threaded under the call, as the stream does) and each
//!    abandoned branch sent between `BranchStarted` and `BranchEnded` where it forked off (the
//!    fold makes it one `branch` notice);
//! 3. the entries outside the chain (cost, queue removals, absorbed book-keeping), each after the
//!    chain row read before it;
//! 4. sub-agent runs no Agent call claimed, which the fold keeps as `subagent` notices.
//!
//! Usage is counted once per `message.id` + `requestId`: the CLI repeats the usage object on every
//! content-block row of a message.
//!
//! A call no row of the file answers is said to be so after its row (`unanswered.rs`), so that
//! the fold does not hold its turn, and everything after it, to the end of the input.
//!
//! Follow mode (`scribe --follow`, `live.rs`) cannot wait for the end: it writes each row in file
//! order as it is read, through the same emitter.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::input::{Adapter, InputLine, Report};
use crate::model::event::{Event, EventKind};
use crate::model::session::SessionSnapshot;

mod chain;
mod chunked;
mod emit;
mod entries;
mod facts;
mod head;
mod inline;
mod live;
mod log;
mod queued;
#[cfg(test)]
mod robustness;
mod source;
mod subagents;
mod unanswered;
mod uuids;

pub(crate) use subagents::is_agent_file;

use emit::Emitter;
use log::SessionLog;
use source::{Peek, Source, Sources, Spool};
use subagents::Agent;

/// The saved-session adapter: indexes the file as it arrives, then writes it in chain order.
#[derive(Default)]
pub(crate) struct ClaudeSession {
    path: Option<PathBuf>,
    log: SessionLog,
    started: bool,
    /// Pass 2, once the input has ended.
    emitter: Option<Emitter>,
    /// Follow mode (`live.rs`): rows are written in file order as they are read.
    live: Option<Box<live::Live>>,
}

impl std::fmt::Debug for ClaudeSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClaudeSession")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Adapter for ClaudeSession {
    /// Holds lines: a saved session is read whole, then its chain is walked.
    fn holds_line(&self, _number: u64) -> bool {
        true
    }

    fn set_path(&mut self, path: &Path) {
        self.path = Some(path.to_path_buf());
        // `agent-*.jsonl` named on its own is a sub-agent's transcript, read as a conversation.
        self.log.standalone = subagents::is_agent_file(path);
    }

    fn set_live(&mut self) {
        let tool_results = self
            .path
            .as_deref()
            .map(tool_results_dirs)
            .unwrap_or_default();
        let path = self.path.clone().unwrap_or_default();
        self.log.peek = Peek::file(&path);
        self.live = Some(Box::new(live::Live::new(path, tool_results)));
    }

    fn line(&mut self, line: &InputLine, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if let Some(live) = self.live.as_mut() {
            // Follow mode reads a file (never standard input): its rows are read again from it.
            self.log.line(line, line.offset, report, false);
            live.emit(&mut self.log, out, report);
            return;
        }
        if !self.started {
            self.started = true;
            let seekable = self
                .path
                .as_deref()
                .and_then(|p| std::fs::metadata(p).ok())
                .is_some_and(|m| m.is_file())
                && line.offset != crate::input::lines::NOT_IN_FILE;
            if seekable {
                if let Some(p) = &self.path {
                    self.log.peek = Peek::file(p);
                }
            } else {
                match Spool::new() {
                    Ok(s) => self.log.peek = Peek::Spool(s),
                    Err(e) => report.error(
                        line.number,
                        &format!("cannot create a temporary file to read the session twice: {e}"),
                    ),
                }
            }
        }
        let offset = match &mut self.log.peek {
            Peek::Spool(s) => match s.push(&line.text) {
                Ok(at) => at,
                Err(e) => {
                    report.error(
                        line.number,
                        &format!("cannot write the temporary file: {e}"),
                    );
                    line.offset
                }
            },
            Peek::Nothing | Peek::File { .. } => line.offset,
        };
        self.log.line(line, offset, report, false);
    }

    fn poll(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if let Some(live) = self.live.as_mut() {
            live.poll(out, report);
            // The input is quiet: the files its rows are read again from are closed until it
            // grows, so a session waiting holds no descriptor.
            live.rest();
            self.log.peek.rest();
        }
    }

    fn finish(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        if let Some(mut live) = self.live.take() {
            live.poll(out, report);
            live.emit(&mut self.log, out, report);
            live.finish(&mut self.log, out, report);
            return;
        }
        let mut log = std::mem::take(&mut self.log);
        let mut sources = Sources::default();
        let spool = match std::mem::take(&mut log.peek) {
            Peek::Spool(s) => Some(s),
            Peek::Nothing | Peek::File { .. } => None,
        };
        let main = match (spool, &self.path) {
            (Some(spool), _) => match spool.into_source() {
                Ok(s) => sources.add(s),
                Err(e) => {
                    report.error(0, &format!("cannot read the temporary file: {e}"));
                    sources.add(Source::Path(PathBuf::new()))
                }
            },
            (None, Some(p)) => sources.add(Source::Path(p.clone())),
            (None, None) => sources.add(Source::Path(PathBuf::new())),
        };
        log.source = main;
        sources.note_glued(main, log.take_glued());
        // The file has been read: its uuid table is let go before the sub-agents are loaded and
        // the chain is ordered, not after (it was the peak of a 1 GiB session).
        log.resolve();
        let mut agents: Vec<Agent> = log
            .take_sidechains()
            .into_iter()
            .map(|(agent_id, mut log)| {
                log.source = main;
                sources.note_glued(main, log.take_glued());
                // The file has been read: its uuid table is let go now (see `subagents::load`).
                log.resolve();
                Agent {
                    agent_id,
                    tool_use_id: None,
                    description: String::new(),
                    agent_type: None,
                    log,
                }
            })
            .collect();
        if let Some(path) = &self.path {
            // A sub-agent's own file owns no sibling files: only a session's are looked for
            // beside it.
            let session_id = log
                .facts()
                .session_id
                .as_deref()
                .filter(|_| !log.standalone);
            for p in subagents::agent_files(path, session_id) {
                if let Some(mut a) = subagents::load(&p, report) {
                    a.log.source = sources.add(Source::Path(p));
                    sources.note_glued(a.log.source, a.log.take_glued());
                    agents.push(a);
                }
            }
        }
        // Sub-agents recorded inline, for those whose own file is not beside the session (the
        // file wins: see `inline`).
        let inline = log.take_inline_agents();
        let has_file = |id: &str| agents.iter().any(|a| a.agent_id == id);
        let inline = inline.into_agents(&mut sources, has_file, report);
        agents.extend(inline);
        out.push(Event::at(0, EventKind::session(snapshot(&log))));
        let tool_results = self
            .path
            .as_deref()
            .map(tool_results_dirs)
            .unwrap_or_default();
        let emitter = Emitter::new(log, agents, sources, tool_results);
        if self.path.is_some() {
            emitter.missing_agents(report);
        }
        self.emitter = Some(emitter);
        self.drain(out, report);
    }

    fn drain(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) -> bool {
        let more = self.emitter.as_mut().is_some_and(|e| e.drain(out, report));
        if !more {
            self.emitter = None;
        }
        more
    }
}

/// Sniffing: is this first line a saved-session entry? Session entries are camelCase and chained
/// (`sessionId`, `parentUuid`, `leafUuid`), and the first line is often book-keeping that the
/// stream never sends (`file-history-snapshot` has none of those keys).
pub(crate) fn looks_like_session(o: &serde_json::Map<String, Value>) -> bool {
    // Every entry of a saved session has a `type` (the loader's type table); an object with a
    // `sessionId` and no `type` is some other file's (a capture's summary), not a row.
    let Some(ty) = o.get("type").and_then(Value::as_str) else {
        return false;
    };
    ["sessionId", "parentUuid", "leafUuid"]
        .iter()
        .any(|k| o.contains_key(*k))
        || entries::is_session_only_type(ty)
}

/// Where the CLI keeps the full text of tool outputs too large for the session file (2.0.52 and
/// later): `<sessionId>/tool-results/` beside the session, or `tool-results/` in the project
/// directory.
fn tool_results_dirs(path: &Path) -> Vec<PathBuf> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut out = Vec::new();
    if let Some(stem) = path.file_stem() {
        out.push(dir.join(stem).join("tool-results"));
    }
    out.push(dir.join("tool-results"));
    out
}

/// The session header: a saved session has no `init` line, so it is built from the rows.
fn snapshot(log: &SessionLog) -> SessionSnapshot {
    let f = log.facts();
    // A sub-agent's own file: its id is the agent's (its rows' `sessionId` is its parent's).
    let session_id = match (&log.agent_id, log.standalone) {
        (Some(a), true) => format!("agent-{a}"),
        _ => f.session_id.clone().unwrap_or_default(),
    };
    SessionSnapshot {
        id: f.first_uuid.clone().unwrap_or_default(),
        session_id,
        agent: "claude-code".into(),
        source: "claude-session".into(),
        version: f.version.clone(),
        model: f.model.clone(),
        cwd: f.cwd.clone(),
        permission_mode: f.permission_mode.clone(),
        git_branch: f.git_branch.clone(),
        title: f.title(),
        updated_at: f.last_timestamp.clone(),
        ..SessionSnapshot::default()
    }
}
