//! Qwen Code: the daemon's SSE event stream (`qwen serve`) and `qwen -p --output-format stream-json`.

mod acp;
/// An ACP call's own kind, locations and diffs → what it does.
mod acp_kind;
/// Sub-agents run in the background: the launch, the completion, the notification turn.
mod background;
pub(crate) mod chat;
pub(crate) mod daemon;
mod messages;
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
