//! OpenAI Codex CLI: `codex exec --json` and saved rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).

pub(crate) mod exec;
mod items;
pub(crate) mod rollout;
