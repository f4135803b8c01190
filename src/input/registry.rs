//! The agents scribe reads, one entry each. This table is the only place shared code learns of
//! an agent: detection (`sniff`), the decoders, the `--from` names and session discovery all go
//! through it. An agent's folder declares its own entry (its formats, their detection rules and
//! decoders, its discovery); adding an agent is its folder plus one line here.

use std::path::PathBuf;
use std::sync::LazyLock;

use serde_json::Value;

use super::agent::{Agent, Format};
use super::{SourceFormat, claude, codex, gemini, qwen};
use crate::model::details::Details;
use crate::model::transcript::{ResultFacts, ToolKind};

/// Every agent, in the order `--from` and messages list their formats.
static AGENTS: [&Agent; 4] = [&claude::AGENT, &qwen::AGENT, &codex::AGENT, &gemini::AGENT];

/// Every format of every agent, in the order `--from` lists them.
pub(crate) fn formats() -> impl Iterator<Item = &'static Format> {
    AGENTS.iter().flat_map(|a| a.formats.iter().copied())
}

/// The agents, for what each says of its sessions on disk.
pub(crate) fn agents() -> impl Iterator<Item = &'static Agent> {
    AGENTS.iter().copied()
}

/// The agent whose formats include the one named `format` (a transcript header's `source`).
pub(crate) fn agent_of_format(format: &str) -> Option<&'static Agent> {
    agents().find(|a| a.formats.iter().any(|f| f.name == format))
}

/// Checks an agent name given on the command line (`scribe ls --agent`): one of the agents'.
pub(crate) fn agent_name(name: &str) -> Result<String, String> {
    if agents().any(|a| a.name == name) {
        Ok(name.to_owned())
    } else {
        let names: Vec<&str> = agents().map(|a| a.name).collect();
        Err(format!(
            "no agent named that; the agents: {}",
            names.join(", ")
        ))
    }
}

/// Claude Code's stream-json: the shape other formats copy (see `Format::claude_shaped`), and
/// how an input is read when its format cannot be told.
pub(crate) fn claude_stream() -> &'static Format {
    &claude::STREAM
}

/// The format an input of SSE fields alone is read as.
pub(crate) fn sse_stream() -> &'static Format {
    formats().find(|f| f.sse).unwrap_or(claude_stream())
}

/// `--from`'s values: `auto`, then every format.
pub(crate) static FROM: LazyLock<Vec<SourceFormat>> = LazyLock::new(|| {
    std::iter::once(SourceFormat::Auto)
        .chain(formats().map(SourceFormat::Known))
        .collect()
});

/// The session file an agent's notification names by `id` (a Codex thread), from the first
/// agent that finds sessions by id; `None` when no agent does.
pub(crate) fn session_by_id(id: &str) -> Option<anyhow::Result<PathBuf>> {
    agents()
        .find_map(|a| a.discovery.by_id)
        .map(|find| find(id))
}

/// What transcripts written by older scribes relied on the renderers of their day to know, for
/// `scribe_jsonl` to fill in: those renderers read Claude Code's tool names and result details,
/// and Codex's `duration`.
pub(crate) mod read_back {
    use super::{Details, ResultFacts, ToolKind, Value, claude, codex};

    /// Claude Code's tool names → tool kinds.
    pub(crate) fn tool_kind(name: &str, input: &Value) -> Option<ToolKind> {
        claude::tools::known(name, input)
    }

    /// Claude Code's result details → facts.
    pub(crate) fn result_facts(details: &Details) -> ResultFacts {
        claude::results::result_facts(details)
    }

    /// Codex's `duration` (`{secs, nanos}`) in a call's details, in milliseconds.
    pub(crate) fn codex_duration_ms(sidecar: &Value) -> Option<u64> {
        codex::result_facts(Some(sidecar)).duration_ms
    }
}
