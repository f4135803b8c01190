//! The input formats scribe reads, as `--from` names them. They belong to the input layer: the
//! command line offers them, the sniffer picks one, the driver asks `input::adapter_for` for its
//! decoder.

use clap::ValueEnum;

/// The formats scribe reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SourceFormat {
    /// Detect from the first JSON line.
    Auto,
    /// Claude Code `--output-format stream-json` (the Agent SDK wire format).
    ClaudeStream,
    /// A Claude Code saved session (`~/.claude/projects/<dir>/<sessionId>.jsonl`), with the
    /// sub-agent transcripts stored beside it.
    ClaudeSession,
    /// Qwen Code daemon (`qwen serve`) session events: the SSE body of `GET /session/:id/events`,
    /// or the same envelopes one JSON object per line.
    QwenDaemon,
    /// Qwen Code `--output-format stream-json`.
    QwenStream,
    /// A Qwen Code saved chat (`~/.qwen/tmp/<project>/chats/<sessionId>.jsonl`).
    QwenSession,
    /// OpenAI Codex CLI `codex exec --json`.
    CodexExec,
    /// An OpenAI Codex CLI saved session (`$CODEX_HOME/sessions/…/rollout-*.jsonl`).
    CodexRollout,
    /// Google Gemini CLI `--output-format stream-json`.
    GeminiStream,
    /// A Google Gemini CLI saved chat (`~/.gemini/tmp/<project>/chats/session-*.jsonl`).
    GeminiSession,
}

impl SourceFormat {
    /// The name used in headers and `--from`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SourceFormat::Auto => "auto",
            SourceFormat::ClaudeStream => "claude-stream",
            SourceFormat::ClaudeSession => "claude-session",
            SourceFormat::QwenDaemon => "qwen-daemon",
            SourceFormat::QwenStream => "qwen-stream",
            SourceFormat::QwenSession => "qwen-session",
            SourceFormat::CodexExec => "codex-exec",
            SourceFormat::CodexRollout => "codex-rollout",
            SourceFormat::GeminiStream => "gemini-stream",
            SourceFormat::GeminiSession => "gemini-session",
        }
    }
}
