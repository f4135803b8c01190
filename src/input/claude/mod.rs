//! Claude Code: the stream-json adapter and saved sessions (`~/.claude/projects/…`).

/// Claude Code's result details → facts a reader wants.
pub(crate) mod results;
pub(crate) mod session;
/// Claude Code's tool names → tool kinds.
pub(crate) mod tools;

use crate::input::anthropic::messages::Wire;
use crate::input::anthropic::row::Spelling;
use crate::input::anthropic::stream::StreamJson;

/// The live stream-json spelling, with Claude Code's tool names.
pub(crate) const STREAM_WIRE: Wire = Wire {
    spelling: Spelling::Live,
    tools: tools::known,
    facts: results::result_facts,
};

/// The saved-session spelling, with Claude Code's tool names.
pub(crate) const SESSION_WIRE: Wire = Wire {
    spelling: Spelling::Saved,
    tools: tools::known,
    facts: results::result_facts,
};

/// A Claude Code stream-json adapter.
pub(crate) fn stream() -> ClaudeStream {
    StreamJson::new(&STREAM_WIRE)
}

/// Claude Code's stream-json adapter. The Agent SDK wire format is Claude Code's own; its decoder
/// lives in `input::anthropic` only because Qwen Code's stream-json copies it.
pub(crate) type ClaudeStream = crate::input::anthropic::stream::StreamJson;
