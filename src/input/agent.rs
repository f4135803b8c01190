//! What an agent's folder tells the shared input code about itself: the formats it writes (each
//! with its `--from` name, the rules that recognise its lines and the decoder that reads them)
//! and how its saved sessions are found. Each agent folder declares one [`Agent`]; `registry`
//! lists them, and shared code reaches an agent only through that list.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Adapter;

/// One agent: its formats and its sessions on disk.
pub(crate) struct Agent {
    /// Its name, as `scribe ls --agent` takes it and lists it.
    pub(crate) name: &'static str,
    /// The formats it writes, in the order `--from` and messages list them.
    pub(crate) formats: &'static [&'static Format],
    /// How its saved sessions are found under a directory.
    pub(crate) discovery: Discovery,
}

/// One input format, as `--from` names it.
pub(crate) struct Format {
    /// The name `--from` takes and transcript headers carry.
    pub(crate) name: &'static str,
    /// What it is, for `--help`.
    pub(crate) help: &'static str,
    /// The rules that recognise a JSON object of this format (see [`Claim`]).
    pub(crate) claims: &'static [Claim],
    /// True when files of this format also hold lines shaped like Claude Code stream-json, lines
    /// its own rules cannot tell from Claude's (Qwen copies its messages; a Claude saved session
    /// holds rows without a `sessionId`): such lines agree with it rather than contradict it. A
    /// format whose every line its own rules recognise says false, so that one of its lines
    /// before a Claude stream does not take the Claude lines for its own.
    pub(crate) claude_shaped: bool,
    /// True when the format is a Server-Sent Events body: SSE field lines are its own, not
    /// chatter, and an input of SSE fields alone is read as this format.
    pub(crate) sse: bool,
    /// Builds the decoder.
    pub(crate) adapter: fn() -> Box<dyn Adapter>,
}

/// A detection rule: `test` accepts the JSON objects it recognises. Rules of every format are
/// tried by `rank`, lowest first, and the first that accepts an object decides its format, so a
/// rule that also accepts another format's lines ranks after that format's own rule.
pub(crate) struct Claim {
    /// Where the rule stands among all formats' rules.
    pub(crate) rank: u8,
    /// True when the object is of this format.
    pub(crate) test: fn(&Map<String, Value>) -> bool,
}

/// How an agent's saved sessions are found under a directory. The walk itself is shared
/// (`discover`): every `.jsonl` file is a session unless an agent says it is a side file of one.
pub(crate) struct Discovery {
    /// True for a `.jsonl` file that belongs to a session but is not one.
    pub(crate) is_side_file: fn(&Path) -> bool,
    /// True for a directory that holds a session's side files, not sessions: not walked.
    pub(crate) is_side_dir: fn(&Path) -> bool,
    /// True for a path, as a file watcher reports it, that lies among a session's side files.
    pub(crate) is_side_path: fn(&Path) -> bool,
    /// The session file an agent's notification names by id rather than by path, for agents that
    /// send one.
    pub(crate) by_id: Option<fn(&str) -> anyhow::Result<PathBuf>>,
    /// The directories where the agent saves its sessions, as its own environment variables
    /// place them (`scribe ls`, `scribe last`); some may not exist.
    pub(crate) homes: fn() -> Vec<PathBuf>,
}

impl Discovery {
    /// An agent whose session directories hold sessions and nothing else.
    pub(crate) const PLAIN: Discovery = Discovery {
        is_side_file: |_| false,
        is_side_dir: |_| false,
        is_side_path: |_| false,
        by_id: None,
        homes: Vec::new,
    };
}

/// `$VAR` when it is set and not empty, else `$HOME/<below_home>`: where an agent keeps its
/// files (`CODEX_HOME`, else `~/.codex`).
pub(crate) fn env_dir_or_home(var: &str, below_home: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(below_home)))
}

/// `$HOME`, when it is set and not empty.
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

impl Format {
    /// A new decoder for this format.
    pub(crate) fn adapter(&self) -> Box<dyn Adapter> {
        (self.adapter)()
    }
}

/// Formats are compared by identity: each is one static in its agent's folder.
impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Format {}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}
