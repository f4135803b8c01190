//! Claude Code: the stream-json adapter and saved sessions (`~/.claude/projects/…`).

/// Where its sessions are among other files.
mod discover;
/// Claude Code's result details → facts a reader wants.
pub(crate) mod results;
pub(crate) mod session;
/// Claude Code's tool names → tool kinds.
pub(crate) mod tools;

use serde_json::{Map, Value};

use crate::input::agent::{Agent, Claim, Format};
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
    StreamJson::new(&STREAM_WIRE).naming_the_session()
}

/// Claude Code's stream-json adapter. The Agent SDK wire format is Claude Code's own; its decoder
/// lives in `input::anthropic` only because Qwen Code's stream-json copies it.
pub(crate) type ClaudeStream = crate::input::anthropic::stream::StreamJson;

/// Claude Code: its two formats and where its sessions are.
pub(crate) static AGENT: Agent = Agent {
    name: "claude",
    formats: &[&STREAM, &SESSION],
    discovery: discover::DISCOVERY,
};

/// `claude -p --output-format stream-json`.
pub(crate) static STREAM: Format = Format {
    name: "claude-stream",
    help: "Claude Code `--output-format stream-json` (the Agent SDK wire format)",
    // Last: other formats copy these message types.
    claims: &[Claim {
        rank: 90,
        test: is_stream_line,
    }],
    claude_shaped: false,
    sse: false,
    adapter: || Box::new(stream()),
};

/// A saved session, `~/.claude/projects/<dir>/<sessionId>.jsonl`.
pub(crate) static SESSION: Format = Format {
    name: "claude-session",
    help: "A Claude Code saved session (`~/.claude/projects/<dir>/<sessionId>.jsonl`), with the \
           sub-agent transcripts stored beside it",
    claims: &[Claim {
        rank: 70,
        test: session::looks_like_session,
    }],
    claude_shaped: true,
    sse: false,
    adapter: || Box::new(session::ClaudeSession::default()),
};

/// A stream-json message type (the Agent SDK's): the last rule detection tries.
fn is_stream_line(o: &Map<String, Value>) -> bool {
    o.get("type").and_then(Value::as_str).is_some_and(|t| {
        matches!(
            t,
            "system"
                | "assistant"
                | "user"
                | "result"
                | "stream_event"
                | "rate_limit_event"
                | "tool_progress"
                | "tool_use_summary"
                | "auth_status"
                | "prompt_suggestion"
                | "conversation_reset"
                | "active_goal"
                | "keep_alive"
                | "control_request"
                | "control_response"
                | "control_cancel_request"
        )
    })
}
