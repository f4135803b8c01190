//! Where Claude Code's saved sessions are among other files: `~/.claude/projects/<dir>/` holds
//! `<sessionId>.jsonl` files; sub-agent transcripts (`agent-*.jsonl`, and everything under a
//! session's own `<sessionId>/` directory: `subagents/`, `tool-results/`) are not sessions: they
//! are read with the session they belong to.

use std::path::Path;

use super::session::is_agent_file;
use crate::input::agent::Discovery;

/// Claude Code's part in session discovery.
pub(crate) const DISCOVERY: Discovery = Discovery {
    is_side_file: is_agent_file,
    is_side_dir: is_companion,
    is_side_path,
    by_id: None,
    homes: projects_home,
};

/// Where Claude Code saves its sessions: `$CLAUDE_CONFIG_DIR/projects`, else
/// `~/.claude/projects`.
fn projects_home() -> Vec<std::path::PathBuf> {
    crate::input::agent::env_dir_or_home("CLAUDE_CONFIG_DIR", ".claude")
        .map(|d| d.join("projects"))
        .into_iter()
        .collect()
}

/// `<sessionId>/` beside `<sessionId>.jsonl` holds that session's sub-agents and outputs, as do
/// `subagents/` and `tool-results/` wherever they are.
fn is_companion(d: &Path) -> bool {
    d.with_extension("jsonl").is_file()
        || d.file_name()
            .is_some_and(|n| n == "subagents" || n == "tool-results")
}

/// A path under `subagents/` or `tool-results/`, or a sub-agent's transcript.
fn is_side_path(p: &Path) -> bool {
    p.components()
        .any(|c| c.as_os_str() == "subagents" || c.as_os_str() == "tool-results")
        || p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("agent-"))
}
