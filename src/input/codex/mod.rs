//! OpenAI Codex CLI: `codex exec --json` and saved rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).

pub(crate) mod exec;
mod history;
mod items;
mod legacy;
pub(crate) mod rollout;
mod tools;
mod ui_items;

/// What a finished call's details say beside its output (read back by `input::scribe_jsonl` for
/// transcripts written before the adapter set it).
pub(crate) use tools::result_facts;
