//! A directory argument: the session files in it, in name order.
//!
//! Works on one project directory (`~/.claude/projects/-home-u-app/`) and on the projects root
//! above it. Sub-agent transcripts (`agent-*.jsonl`, and everything under a session's own
//! `<sessionId>/` directory: `subagents/`, `tool-results/`) are not sessions: they are read with
//! the session they belong to.

use std::path::{Path, PathBuf};

use super::subagents::is_agent_file;

/// How deep below the argument to look: a Claude projects root holds project directories, which
/// hold session files; Codex keeps its rollouts under `sessions/YYYY/MM/DD/`.
const MAX_DEPTH: u32 = 5;

/// Every session file under `dir` (see the module comment), sorted.
pub(crate) fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, MAX_DEPTH, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs = Vec::new();
    for e in rd.flatten() {
        let p = e.path();
        // The listing says what an entry is; only a symbolic link is followed to see.
        let is_dir = match e.file_type() {
            Ok(kind) if !kind.is_symlink() => kind.is_dir(),
            _ => p.is_dir(),
        };
        if is_dir {
            subdirs.push(p);
        } else if p.extension().is_some_and(|x| x == "jsonl") && !is_agent_file(&p) {
            out.push(p);
        }
    }
    if depth <= 1 {
        return;
    }
    for d in subdirs {
        // `<sessionId>/` beside `<sessionId>.jsonl` holds that session's sub-agents and outputs.
        let companion = d.with_extension("jsonl").is_file()
            || d.file_name()
                .is_some_and(|n| n == "subagents" || n == "tool-results");
        if !companion {
            walk(&d, depth - 1, out);
        }
    }
}
