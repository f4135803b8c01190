//! The agent-agnostic data model: stage-2 events (`event`) and the stage-3 transcript
//! (`transcript`, `session`). Input adapters produce events; the fold turns them into transcript
//! items; renderers read only transcript items.

// A match on one of our own enums names every variant: a new variant is a compile error here,
// never silently swallowed by `_`. (Wildcards stay allowed on text, numbers and foreign types.)
#![deny(clippy::wildcard_enum_match_arm)]

/// What the views count of a transcript: turns, prompts, calls, errors.
pub(crate) mod counts;
/// Free-form details about a tool call, kept as compact JSON text.
pub(crate) mod details;
pub(crate) mod event;
/// The change an edit or write call makes to a file, and its diff.
pub(crate) mod file_change;
/// Hooks held from their start to their end, so that each is one notice (the fold and the
/// terminal view's live path pair them the same way).
pub(crate) mod hooks;
/// A bounded memory of the ids an input has shown.
pub(crate) mod recent;
pub(crate) mod session;
/// Why a turn is synthetic (§4 rows 3 and 4).
pub(crate) mod synthetic;
/// Instants read and written through `jiff`.
pub(crate) mod time;
/// A tool call, its result, and what a reader is shown of it.
pub(crate) mod tool_call;
pub(crate) mod tool_kind;
pub(crate) mod transcript;

/// Version of the normalized JSONL schema (`docs/schema.md`). Bump on any incompatible change.
pub(crate) const SCHEMA_VERSION: u32 = 3;

/// What a renderer knows about the input before the first item.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    /// The input's name as the user gave it (`-` for stdin).
    pub(crate) file: String,
    /// The input format that was read (`claude-stream`, …), or `none` when nothing was recognised.
    pub(crate) source: &'static str,
}
