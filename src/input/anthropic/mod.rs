//! The Anthropic Messages / Agent SDK wire shapes shared by more than one agent.
//!
//! Claude Code's stream-json and saved sessions carry Anthropic Messages (content blocks, user
//! envelopes); Qwen Code's stream-json copies the same shapes. What decodes them lives here, below
//! both agents' folders, so neither imports the other.

pub(crate) mod blocks;
pub(crate) mod classify;
pub(crate) mod control;
pub(crate) mod cost;
pub(crate) mod messages;
/// Assistant and user rows, typed and borrowed.
pub(crate) mod row;
pub(crate) mod stream;
pub(crate) mod system;
/// `system` task lines and `result` lines, typed and borrowed.
pub(crate) mod typed_system;
