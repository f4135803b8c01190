//! OpenAI Codex CLI: `codex exec --json` and saved rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).

pub(crate) mod exec;
mod history;
mod items;
mod legacy;
pub(crate) mod rollout;
mod tools;
mod ui_items;
