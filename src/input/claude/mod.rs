//! Claude Code: the stream-json adapter and saved sessions (`~/.claude/projects/…`).

pub(crate) mod session;

/// Claude Code's stream-json adapter. The Agent SDK wire format is Claude Code's own; its decoder
/// lives in `input::anthropic` only because Qwen Code's stream-json copies it.
pub(crate) type ClaudeStream = crate::input::anthropic::stream::StreamJson;
