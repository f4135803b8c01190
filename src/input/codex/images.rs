//! Image generation, a tool the model provider runs: the `image_generation_call` response
//! item (openai/codex `codex-rs/protocol/src/models.rs`, `ResponseItem::ImageGenerationCall
//! {id, status, revised_prompt, result}`), the `image_generation_end` event that repeats it
//! under the same id (`protocol.rs`, `ImageGenerationEndEvent {call_id, status,
//! revised_prompt, result, saved_path}`) and the `ImageGeneration` UI item. `result` is the
//! image, base64 PNG (Codex itself shows it as `data:image/png;base64,…`).
//!
//! Each is one call named `image_generation`, its input the prompt the image was made from,
//! its output the image as a `file` part (the HTML page shows it; the text views mark it with
//! its type and size).

use serde_json::{Value, json};

use crate::input::codex::items::{Outcome, ToolItem};
use crate::input::fields::str_of;
use crate::model::tool_kind::ToolKind;
use crate::model::transcript::{Caller, Part};

/// The media type of the image Codex reports.
const MEDIA_TYPE: &str = "image/png";

/// One image generation, from any of its three shapes (`saved_path` only the event and the UI
/// item have): the call, with its outcome once its status is final.
pub(crate) fn image_item(p: &Value) -> ToolItem {
    let prompt = p.get("revised_prompt").and_then(Value::as_str);
    let saved = p.get("saved_path").and_then(Value::as_str);
    let mut input = json!({});
    if let Some(text) = prompt {
        input["revised_prompt"] = Value::String(text.to_owned());
    }
    if let Some(path) = saved {
        input["saved_path"] = Value::String(path.to_owned());
    }
    let status = str_of(p, "status");
    let image = str_of(p, "result");
    let outcome = match status {
        "completed" | "success" => Some(Outcome {
            output: image_output(image, saved),
            ..Outcome::default()
        }),
        "failed" | "incomplete" | "cancelled" => Some(Outcome {
            is_error: true,
            output: image_output(image, saved),
            error_text: Some(format!("image generation {status}")),
            sidecar: p.get("failure").filter(|f| !f.is_null()).cloned(),
        }),
        _ => None,
    };
    ToolItem {
        name: "image_generation".into(),
        kind: ToolKind::Other {
            subject: prompt.map(str::to_owned).filter(|t| !t.is_empty()),
        },
        caller: Caller::ServerTool,
        input,
        outcome,
        ..ToolItem::default()
    }
}

/// The image as a call's output: one `file` part with a `data:` URL (named by the path Codex
/// saved it to, when it says); an empty list when there is no image.
fn image_output(base64: &str, saved: Option<&str>) -> Value {
    if base64.is_empty() {
        return json!([]);
    }
    let part = Part::File {
        media_type: MEDIA_TYPE.to_owned(),
        url: format!("data:{MEDIA_TYPE};base64,{base64}"),
        filename: saved.map(str::to_owned),
    };
    Value::Array(vec![serde_json::to_value(part).unwrap_or(Value::Null)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_generation_carries_its_image() {
        let t = image_item(
            &json!({"id": "ig_1", "status": "completed", "revised_prompt": "a cat", "result": "Zm9v"}),
        );
        assert_eq!(
            t.kind,
            ToolKind::Other {
                subject: Some("a cat".into())
            }
        );
        let o = t.outcome.unwrap();
        assert!(!o.is_error);
        assert_eq!(o.output[0]["url"], "data:image/png;base64,Zm9v");
        assert_eq!(o.output[0]["type"], "file");
        assert!(
            image_item(&json!({"status": "generating"}))
                .outcome
                .is_none()
        );
        assert!(
            image_item(&json!({"status": "failed", "result": ""}))
                .outcome
                .unwrap()
                .is_error
        );
    }
}
