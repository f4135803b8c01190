//! Where Codex CLI keeps its rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread>.jsonl`
//! (`CODEX_HOME` defaults to `~/.codex`). Its `notify` hook names a thread, not a file: the
//! rollout is found by that id.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};

use crate::input::agent::Discovery;
use crate::input::walk::Walk;

/// Codex's part in session discovery: its rollouts are plain sessions, found by thread id too.
pub(crate) const DISCOVERY: Discovery = Discovery {
    by_id: Some(rollout_of_thread),
    homes: || sessions_home().into_iter().collect(),
    ..Discovery::PLAIN
};

/// How deep below `sessions/` rollouts lie (`YYYY/MM/DD/`), with room to spare.
const DEPTH: usize = 5;

/// Where Codex keeps its rollouts by default: `$CODEX_HOME/sessions`, else `~/.codex/sessions`.
fn sessions_home() -> Result<PathBuf> {
    let home = crate::input::agent::env_dir_or_home("CODEX_HOME", ".codex")
        .ok_or_else(|| anyhow!("neither CODEX_HOME nor HOME is set"))?;
    Ok(home.join("sessions"))
}

/// The rollout of a thread: the last, in name order, whose name ends with `<thread>.jsonl`.
fn rollout_of_thread(thread: &str) -> Result<PathBuf> {
    if thread.is_empty()
        || !thread
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        bail!("the Codex thread id is not one");
    }
    let sessions = sessions_home()?;
    let suffix = format!("{thread}.jsonl");
    let named = |p: &Path| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with(&suffix))
    };
    let walk = Walk {
        depth: DEPTH,
        skip_dir: &|_| false,
        keep: &named,
    };
    walk.files(&sessions).into_iter().max().ok_or_else(|| {
        anyhow!(
            "no rollout of Codex thread {thread} under {}",
            sessions.display()
        )
    })
}
