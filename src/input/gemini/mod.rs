//! Google Gemini CLI: `gemini -p --output-format stream-json` and saved chats.

pub(crate) mod session;
pub(crate) mod stream;
mod tool_names;
mod tools;
