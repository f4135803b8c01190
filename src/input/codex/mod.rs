//! OpenAI Codex CLI: `codex exec --json` and saved rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).

pub(crate) mod exec;
mod history;
mod items;
mod legacy;
mod tools;
pub(crate) mod rollout;
