//! Finding a saved session's sub-agent transcripts and the Agent call each belongs to.
//!
//! Two layouts (wire spec §7.1): the current one, `<dir>/<sessionId>/subagents/agent-<id>.jsonl`
//! (or up to two directories deeper, as `workflows/<run>/` is) with a sidecar
//! `agent-<id>.meta.json` naming the spawning call (`toolUseId`), and the older one,
//! `agent-<id>.jsonl` beside the session file, whose rows carry `isSidechain`, `agentId` and the
//! parent's `sessionId`. `agent-acompact-*` files are the CLI's own compaction agents: skipped.
//! A file that cannot be read is reported and the session is written without it.

use std::collections::VecDeque;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use foldhash::HashMap;
use serde_json::Value;

use super::log::SessionLog;
use super::source::Peek;
use crate::input::lines::LineReader;
use crate::input::walk::Walk;
use crate::input::{Report, glued};

/// One sub-agent run read from disk (or split out of the session file itself).
#[derive(Debug)]
pub(crate) struct Agent {
    /// The `<id>` of `agent-<id>.jsonl` (the sub-agent's `taskId`).
    pub(crate) agent_id: String,
    /// The spawning Agent call, when the meta file names it.
    pub(crate) tool_use_id: Option<String>,
    /// The meta file's `description` (empty without one).
    pub(crate) description: String,
    /// The meta file's `agentType`.
    pub(crate) agent_type: Option<String>,
    /// Its rows' index (boxed: a session may hold thousands of runs, moved between lists).
    pub(crate) log: Box<SessionLog>,
}

/// The sub-agent files that belong to the session file at `path`.
pub(crate) fn agent_files(path: &Path, session_id: Option<&str>) -> Vec<PathBuf> {
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    // A bare file name (`scribe 5e55….jsonl`) lives in the current directory.
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let mut out = Vec::new();
    if let Some(stem) = path.file_stem() {
        let sub = dir.join(stem).join("subagents");
        collect(&sub, &mut out, 3);
    }
    // The older layout: beside the session file, tied to it by the rows' sessionId.
    if let Some(sid) = session_id {
        let mut beside = Vec::new();
        collect(dir, &mut beside, 1);
        for p in beside {
            if p.file_name() != path.file_name() && first_session_id(&p).as_deref() == Some(sid) {
                out.push(p);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Is this the file name of a sub-agent transcript (and not a compaction agent)?
pub(crate) fn is_agent_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    name.starts_with("agent-") && name.ends_with(".jsonl")
}

/// Adds the sub-agent files in `dir` (and `depth - 1` levels below it) to `out`. A directory
/// of many sessions is listed once per session, so an entry's kind comes from the listing
/// itself (no `stat` per entry); only a symbolic link is followed to see what it names.
fn collect(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    let walk = Walk {
        depth,
        skip_dir: &|_| false,
        keep: &|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("agent-")
                    && n.ends_with(".jsonl")
                    && !n.starts_with("agent-acompact-")
            })
        },
    };
    out.extend(walk.files(dir));
}

/// The `sessionId` of the first row that has one (the older layout's link to its parent). Every
/// session of a directory asks about every `agent-*.jsonl` beside it, so an answer found is kept
/// for the process: a sub-agent file is only ever appended to, and its first rows stay as they
/// are.
fn first_session_id(p: &Path) -> Option<String> {
    type Known = std::sync::Mutex<std::collections::HashMap<PathBuf, String>>;
    static KNOWN: std::sync::OnceLock<Known> = std::sync::OnceLock::new();
    let known = KNOWN.get_or_init(Known::default);
    if let Some(sid) = known.lock().ok().and_then(|k| k.get(p).cloned()) {
        return Some(sid);
    }
    let sid = read_first_session_id(p)?;
    if let Ok(mut k) = known.lock() {
        k.insert(p.to_owned(), sid.clone());
    }
    Some(sid)
}

/// Reads [`first_session_id`]'s answer from the file.
fn read_first_session_id(p: &Path) -> Option<String> {
    let f = File::open(p).ok()?;
    let mut lines = LineReader::new(BufReader::new(f));
    for _ in 0..20 {
        let line = lines.next_line().ok()??;
        if let Ok(v) = scribe_json::parse_line(&line.text) {
            if let Some(s) = v.get("sessionId").and_then(Value::as_str) {
                return Some(s.to_owned());
            }
        }
    }
    None
}

/// Reads one sub-agent file and its meta sidecar. Problems are reported against the file.
pub(crate) fn load(p: &Path, report: &mut Report<'_>) -> Option<Agent> {
    let name = p.display().to_string();
    let mut sub = Report {
        file: &name,
        problems: report.problems,
    };
    let f = match File::open(p) {
        Ok(f) => f,
        Err(e) => {
            sub.warning(0, &format!("sub-agent transcript not read: {e}"));
            return None;
        }
    };
    let mut lines = LineReader::new(BufReader::new(f));
    let mut log = SessionLog::default();
    log.peek = Peek::file(p);
    loop {
        match lines.next_line() {
            Ok(Some(line)) => {
                if line.lossy {
                    sub.error(line.number, "invalid UTF-8 (replaced with U+FFFD)");
                }
                for part in glued::split(line, |n, what| sub.warning(n, what)) {
                    log.line(&part, part.offset, &mut sub, true);
                }
            }
            Ok(None) => break,
            Err(e) => {
                sub.warning(0, &format!("sub-agent transcript cut short: {e}"));
                break;
            }
        }
    }
    // Its pass 1 is over: the uuid table is let go now, not when its turn to be written comes
    // (a session may have thousands of sub-agents, all loaded before the first is written).
    log.resolve();
    Some(with_meta(p, log))
}

/// A sub-agent run from its file's name and its meta sidecar (`agent-<id>.meta.json`).
pub(crate) fn with_meta(p: &Path, log: SessionLog) -> Agent {
    let stem = p
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .trim_end_matches(".jsonl");
    let meta: Value = std::fs::read_to_string(p.with_file_name(format!("{stem}.meta.json")))
        .ok()
        .and_then(|t| scribe_json::parse_line(&t).ok())
        .unwrap_or(Value::Null);
    let s = |k: &str| {
        meta.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    Agent {
        agent_id: stem.trim_start_matches("agent-").to_owned(),
        tool_use_id: s("toolUseId"),
        description: s("description").unwrap_or_default(),
        agent_type: s("agentType"),
        log: Box::new(log),
    }
}

/// The run each Agent call spawned: call id → index in `agents`.
///
/// A run is named by its meta file (`toolUseId`), else by a result row naming its agent id;
/// those links are taken first, and a call keeps the first run that names it. A run named by
/// neither (the oldest CLIs' inline sidechains) is matched by the prompt it was sent: the k-th
/// such run, in `agents` order (file order of its first row), whose first prompt is P goes to
/// the k-th Agent call, in file order, that sent P and that no run has claimed. A person who
/// re-runs a step sends the same prompt twice, and each run stays under its own call. A run
/// with no call left is unclaimed.
pub(crate) fn spawning_calls(main: &SessionLog, agents: &[Agent]) -> HashMap<String, usize> {
    let logs = || std::iter::once(main).chain(agents.iter().map(|a| &*a.log));
    let mut result_agent: HashMap<&str, &str> = HashMap::default();
    let mut by_prompt: HashMap<u64, VecDeque<&str>> = HashMap::default();
    for log in logs() {
        for (_, aid, call, _) in &log.links.results {
            if let Some(c) = call {
                result_agent.insert(aid, c);
            }
        }
        for (prompt, call) in &log.links.calls {
            by_prompt.entry(*prompt).or_default().push_back(call);
        }
    }
    let mut by_call: HashMap<String, usize> = HashMap::default();
    let mut unnamed = Vec::new();
    for (i, a) in agents.iter().enumerate() {
        let named = a
            .tool_use_id
            .as_deref()
            .or_else(|| result_agent.get(a.agent_id.as_str()).copied());
        match named {
            Some(c) => {
                by_call.entry(c.to_owned()).or_insert(i);
            }
            None => unnamed.push(i),
        }
    }
    for i in unnamed {
        let Some(queue) = (agents[i].log.links.first_prompt).and_then(|p| by_prompt.get_mut(&p))
        else {
            continue;
        };
        while let Some(c) = queue.pop_front() {
            if !by_call.contains_key(c) {
                by_call.insert(c.to_owned(), i);
                break;
            }
        }
    }
    by_call
}
