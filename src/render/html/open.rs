//! What the page shows open on load: the one rule, in one place (docs/html.md repeats it for
//! readers).
//!
//! A reader opens a transcript to see what changed and what went wrong, not to click through
//! every card. So:
//!
//! 1. A tool call that failed or was denied is open.
//! 2. A change is open: an edit or a write (its diff), a todo update (its checklist), a plan. A
//!    diff longer than [`DIFF_PREVIEW_LINES`] lines (a whole file written) shows its first lines
//!    and a "show all N lines" toggle.
//! 3. A sub-agent call is open: its report shows; its own transcript is folded.
//! 4. A file read is folded: its summary names the file and how many lines came back.
//! 5. Every other call is open. An output longer than [`PREVIEW_LINES`] lines shows its first
//!    lines and a "show all N lines" toggle (a `<details>`, so it works without script).
//! 6. Thinking, hidden context (system reminders, skill bodies, hook output), the session's
//!    setup (its summary line names the model, the tool count and the MCP servers) and unparsed
//!    lines are folded.
//!
//! The header's "expand all" / "collapse all" buttons (script) change every toggle at once.

use crate::model::tool_kind::ToolFamily;
use crate::model::transcript::{ToolCall, ToolState};

pub(crate) use crate::render::{DIFF_PREVIEW_LINES, OUTPUT_PREVIEW_LINES as PREVIEW_LINES};

/// Whether a tool call's card is open on load (rules 1–5 above).
pub(crate) fn card_open(call: &ToolCall) -> bool {
    if call.denied.is_some() || matches!(call.state, ToolState::Error | ToolState::ApprovalDenied) {
        return true;
    }
    match call.family() {
        ToolFamily::Read => false,
        ToolFamily::Edit
        | ToolFamily::Write
        | ToolFamily::Todo
        | ToolFamily::Plan
        | ToolFamily::Agent
        | ToolFamily::Shell
        | ToolFamily::Search
        | ToolFamily::Web
        | ToolFamily::Other => true,
    }
}
