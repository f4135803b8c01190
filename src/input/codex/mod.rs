//! OpenAI Codex CLI: `codex exec --json` and saved rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).

use crate::input::agent::{Agent, Claim, Format};

/// Rollouts written before the envelopes, read as the enveloped lines they stand for.
mod bare;
/// Where its rollouts are, and the rollout of a thread.
mod discover;
pub(crate) mod exec;
/// The header before a process's output: its exit code, wall time and running session.
mod exec_output;
/// A call's result waiting one line for the output line that states its facts.
mod held_result;
mod history;
/// The IDE extension's context block before a typed request.
mod ide;
/// Image generation: a call whose output is the image.
mod images;
mod items;
mod legacy;
/// The UI events of older rollouts beside messages, commands, MCP calls and patches.
mod legacy_ui;
/// The output of an MCP call whose result the model read as text.
mod mcp_output;
pub(crate) mod rollout;
mod tools;
mod ui_items;
/// Unified exec sessions: a call whose process outlives its output.
mod unified_exec;

/// What a finished call's details say beside its output (read back by `input::scribe_jsonl` for
/// transcripts written before the adapter set it).
pub(crate) use tools::result_facts;

/// Codex CLI: its two formats and where its rollouts are.
pub(crate) static AGENT: Agent = Agent {
    name: "codex",
    formats: &[&EXEC, &ROLLOUT],
    discovery: discover::DISCOVERY,
};

/// `codex exec --json`.
pub(crate) static EXEC: Format = Format {
    name: "codex-exec",
    help: "OpenAI Codex CLI `codex exec --json`",
    claims: &[Claim {
        rank: 30,
        test: exec::is_codex_exec_line,
    }],
    claude_shaped: false,
    sse: false,
    adapter: || Box::new(exec::CodexExec::default()),
};

/// A saved rollout, `$CODEX_HOME/sessions/…/rollout-*.jsonl`.
pub(crate) static ROLLOUT: Format = Format {
    name: "codex-rollout",
    help: "An OpenAI Codex CLI saved session (`$CODEX_HOME/sessions/…/rollout-*.jsonl`)",
    claims: &[
        Claim {
            rank: 20,
            test: rollout::is_rollout_line,
        },
        // Before Gemini's stream (rank 85), whose `message` lines a bare `message` item resembles.
        Claim {
            rank: 21,
            test: bare::is_bare_rollout_line,
        },
    ],
    claude_shaped: false,
    sse: false,
    adapter: || Box::new(rollout::CodexRollout::default()),
};
