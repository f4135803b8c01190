//! A directory argument: the session files in it, in name order, for every agent at once.
//!
//! Works on one project directory (`~/.claude/projects/-home-u-app/`) and on the roots above
//! them (`~/.claude/projects`, `~/.codex/sessions`, `~/.gemini/tmp`). A `.jsonl` file is a
//! session unless an agent's discovery (in its folder, through `registry`) says it belongs to
//! one without being one (a Claude sub-agent's transcript), or lies in a directory that holds a
//! session's side files.

use std::path::{Path, PathBuf};

use super::agent::Agent;
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

/// The session files in every agent's default places (`Discovery::homes`), each with the agent
/// whose place it is in; only `agent`'s when one is named.
pub(crate) fn saved_sessions(agent: Option<&str>) -> Vec<(&'static Agent, PathBuf)> {
    let mut out = Vec::new();
    for a in registry::agents().filter(|a| agent.is_none_or(|name| a.name == name)) {
        for home in (a.discovery.homes)().into_iter().filter(|h| h.is_dir()) {
            out.extend(session_files(&home).into_iter().map(|p| (a, p)));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A projects directory with a session's side files, sub-agent files, a tree deeper than the
    /// walk looks, a linked directory and a link that leads nowhere.
    #[cfg(unix)]
    #[test]
    fn sessions_are_told_from_what_belongs_to_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "a.jsonl",
            "a/subagents/agent-1.jsonl",
            "a/x.jsonl",
            "agent-2.jsonl",
            "p/b.jsonl",
            "p/tool-results/c.jsonl",
            "d1/d2/d3/d4/e.jsonl",
            "d1/d2/d3/d4/d5/f.jsonl",
            "p/notes.txt",
        ] {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}\n").unwrap();
        }
        std::os::unix::fs::symlink("p", root.join("link")).unwrap();
        std::os::unix::fs::symlink("nowhere.jsonl", root.join("gone.jsonl")).unwrap();
        let found: Vec<String> = session_files(root)
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "a.jsonl",
                "d1/d2/d3/d4/e.jsonl",
                "gone.jsonl",
                "link/b.jsonl",
                "p/b.jsonl"
            ]
        );
        assert!(could_be_session(Path::new("/x/s.jsonl")));
        assert!(!could_be_session(Path::new("/x/s/subagents/agent-1.jsonl")));
        assert!(!could_be_session(Path::new("/x/agent-1.jsonl")));
    }
}
