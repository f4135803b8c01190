//! Qwen Code: the daemon's SSE event stream (`qwen serve`) and `qwen -p --output-format stream-json`.

mod acp;
pub(crate) mod daemon;
mod permissions;
pub(crate) mod stream;
mod tool_names;
mod tools;
mod wire;
