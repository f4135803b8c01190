//! OpenAI Codex CLI: `codex exec --json` and saved rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).

pub(crate) mod exec;
mod items;
mod tools;
pub(crate) mod rollout;
