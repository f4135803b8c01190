//! A directory argument: the session files in it, in name order, for every agent at once.
//!
//! Works on one project directory (`~/.claude/projects/-home-u-app/`) and on the roots above
//! them (`~/.claude/projects`, `~/.codex/sessions`, `~/.gemini/tmp`). A `.jsonl` file is a
//! session unless an agent's discovery (in its folder, through `registry`) says it belongs to
//! one without being one (a Claude sub-agent's transcript), or lies in a directory that holds a
//! session's side files.

use std::path::{Path, PathBuf};

use super::registry;
use super::walk::Walk;

/// How deep below the argument to look: a Claude projects root holds project directories, which
/// hold session files; Codex keeps its rollouts under `sessions/YYYY/MM/DD/`.
const MAX_DEPTH: usize = 5;

/// Every session file under `dir` (see the module comment), sorted.
pub(crate) fn session_files(dir: &Path) -> Vec<PathBuf> {
    let walk = Walk {
        depth: MAX_DEPTH,
        skip_dir: &|d| registry::agents().any(|a| (a.discovery.is_side_dir)(d)),
        keep: &|p| is_jsonl(p) && !registry::agents().any(|a| (a.discovery.is_side_file)(p)),
    };
    let mut out = walk.files(dir);
    out.sort();
    out
}

/// Could this path, as a file watcher reports it, be a session file (and not a file that
/// belongs to one)?
pub(crate) fn could_be_session(p: &Path) -> bool {
    is_jsonl(p) && !registry::agents().any(|a| (a.discovery.is_side_path)(p))
}

fn is_jsonl(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "jsonl")
}
