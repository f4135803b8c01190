//! Qwen Code: the daemon's SSE event stream (`qwen serve`) and `qwen -p --output-format stream-json`.

use crate::input::agent::{Agent, Claim, Discovery, Format};

mod acp;
/// An ACP call's own kind, locations and diffs → what it does.
mod acp_kind;
/// Sub-agents run in the background: the launch, the completion, the notification turn.
mod background;
pub(crate) mod chat;
pub(crate) mod daemon;
mod messages;
/// The calls still open at the end of a prompt.
mod open_calls;
mod order;
mod permissions;
mod plan;
mod rewind;
mod state;
pub(crate) mod stream;
mod tool_names;
mod tools;
/// Records that wait for a gathered run of chunks that began before them.
mod waiting;
mod wire;

/// Qwen Code: its three formats; its saved chats are found like any other session.
pub(crate) static AGENT: Agent = Agent {
    name: "qwen",
    formats: &[&DAEMON, &STREAM, &SESSION],
    discovery: Discovery {
        homes: saved_chats_home,
        ..Discovery::PLAIN
    },
};

/// `qwen serve`'s session events.
pub(crate) static DAEMON: Format = Format {
    name: "qwen-daemon",
    help: "Qwen Code daemon (`qwen serve`) session events: the SSE body of `GET \
           /session/:id/events`, or the same envelopes one JSON object per line",
    claims: &[Claim {
        rank: 10,
        test: daemon::is_envelope,
    }],
    claude_shaped: false,
    sse: true,
    adapter: || Box::new(daemon::QwenDaemon::default()),
};

/// `qwen -p --output-format stream-json`.
pub(crate) static STREAM: Format = Format {
    name: "qwen-stream",
    help: "Qwen Code `--output-format stream-json`",
    claims: &[Claim {
        rank: 80,
        test: stream::is_qwen_line,
    }],
    claude_shaped: true,
    sse: false,
    adapter: || Box::new(stream::QwenStream::default()),
};

/// A saved chat, `~/.qwen/tmp/<project>/chats/<sessionId>.jsonl`.
pub(crate) static SESSION: Format = Format {
    name: "qwen-session",
    help: "A Qwen Code saved chat (`~/.qwen/tmp/<project>/chats/<sessionId>.jsonl`)",
    claims: &[Claim {
        rank: 60,
        test: chat::is_chat_record,
    }],
    claude_shaped: true,
    sse: false,
    adapter: || Box::new(chat::QwenChat::default()),
};

/// Where Qwen Code saves its chats: `~/.qwen/tmp/<project>/chats/`.
fn saved_chats_home() -> Vec<std::path::PathBuf> {
    crate::input::agent::home()
        .map(|h| h.join(".qwen").join("tmp"))
        .into_iter()
        .collect()
}
