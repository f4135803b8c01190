//! What a tool result's details and text say of its outcome beyond `is_error`: a failure the
//! details state, and a person's rejection written before `toolDenialKind` existed.

use serde_json::Value;

use crate::model::details::Details;
use crate::model::transcript::{NonText, output_text};

/// A result's details that hold `success: false` (§6: the Skill ack's `tool_use_result`
/// carries `success` beside `commandName`). Only details that spell it are parsed.
pub(super) fn says_it_failed(details: &Details) -> bool {
    /// The one field read.
    #[derive(serde::Deserialize)]
    struct Outcome {
        success: Option<bool>,
    }
    details.text().contains(r#""success":false"#)
        && details
            .read::<Outcome>()
            .is_some_and(|o| o.success == Some(false))
}

/// What the CLI writes when the person rejects a tool call (1.0.x to 2.0.x, before
/// `toolDenialKind`): `toolUseResult: "User rejected tool use"`, or a result that begins "The user doesn't want to
/// proceed with this tool use" (or "… to take this action right now", for the calls beside it).
const REJECTED_SIDECAR: &str = "User rejected tool use";
const REJECTED_TEXT: &str = "The user doesn't want to ";

/// True when an error result is the person's rejection of the call.
pub(super) fn is_rejection(sidecar: Option<&str>, output: &Value) -> bool {
    let side = sidecar.unwrap_or_default();
    side == REJECTED_SIDECAR
        || side
            .trim_start_matches("Error:")
            .trim_start()
            .starts_with(REJECTED_TEXT)
        || output_text(output, NonText::Skip)
            .trim_start()
            .starts_with(REJECTED_TEXT)
}
