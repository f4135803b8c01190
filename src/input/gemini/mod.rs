//! Google Gemini CLI: `gemini -p --output-format stream-json` and saved chats.

use crate::input::agent::{Agent, Claim, Discovery, Format};

pub(crate) mod session;
pub(crate) mod stream;
mod tool_names;
mod tools;

/// Gemini CLI: its two formats; its saved chats are found like any other session.
pub(crate) static AGENT: Agent = Agent {
    name: "gemini",
    formats: &[&STREAM, &SESSION],
    discovery: Discovery {
        homes: saved_chats_home,
        ..Discovery::PLAIN
    },
};

/// `gemini -p --output-format stream-json` (and `--output-format json`'s one object).
pub(crate) static STREAM: Format = Format {
    name: "gemini-stream",
    help: "Google Gemini CLI `--output-format stream-json`",
    claims: &[
        Claim {
            rank: 40,
            test: stream::is_json_output,
        },
        Claim {
            rank: 85,
            test: stream::is_gemini_line,
        },
    ],
    claude_shaped: false,
    sse: false,
    adapter: || Box::new(stream::GeminiStream::default()),
};

/// A saved chat, `~/.gemini/tmp/<project>/chats/session-*.jsonl`.
pub(crate) static SESSION: Format = Format {
    name: "gemini-session",
    help: "A Google Gemini CLI saved chat (`~/.gemini/tmp/<project>/chats/session-*.jsonl`)",
    claims: &[
        Claim {
            rank: 50,
            test: session::is_header_object,
        },
        // After Claude's session rows (their `sessionId`), before Claude's stream types.
        Claim {
            rank: 75,
            test: session::is_message_record,
        },
    ],
    claude_shaped: false,
    sse: false,
    adapter: || Box::new(session::GeminiSession::default()),
};

/// Where Gemini CLI saves its chats: `~/.gemini/tmp/<project>/chats/`, the home directory being
/// `$GEMINI_CLI_HOME` when set.
fn saved_chats_home() -> Vec<std::path::PathBuf> {
    crate::input::agent::env_dir_or_home("GEMINI_CLI_HOME", "")
        .map(|h| h.join(".gemini").join("tmp"))
        .into_iter()
        .collect()
}
