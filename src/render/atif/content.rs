//! Content as ATIF holds it: a string, or parts of text and images (`ContentPart`, since
//! ATIF-v1.6). What a part list cannot hold exactly (a file that is not an image of a type
//! Harbor accepts, a data item, a field beside an item's text) leaves the content a string of
//! the output's plain text and the output whole in the result's `extra`.

use std::borrow::Cow;

use serde_json::Value;

use super::wire::{Content, ContentPart, IMAGE_TYPES, ImageSource};
use crate::model::transcript::{NonText, Part, output_text};

/// A turn's part as a message part: its text, or an image of a type ATIF accepts (by its URL,
/// a `data:` URL when the bytes were inline). `None` for every other part.
pub(super) fn message_part(part: &Part) -> Option<ContentPart<'_>> {
    match part {
        Part::Text { text, .. } => Some(ContentPart::Text {
            text: Cow::Borrowed(text),
        }),
        Part::File {
            media_type, url, ..
        } => image(media_type, url),
        Part::Reasoning { .. }
        | Part::ToolCall { .. }
        | Part::SourceUrl { .. }
        | Part::SourceDocument { .. }
        | Part::Compaction { .. }
        | Part::Data { .. } => None,
    }
}

/// An image part, when ATIF accepts its type.
fn image<'a>(media_type: &'a str, url: &'a str) -> Option<ContentPart<'a>> {
    IMAGE_TYPES
        .contains(&media_type)
        .then_some(ContentPart::Image {
            source: ImageSource {
                media_type,
                path: url,
            },
        })
}

/// A tool output as a result's content, and whether the content holds it whole (when not, the
/// output goes beside it in `extra`). A string is itself; an array of text items and images is
/// parts (one text item, its text); anything else is its plain text, the way the other views
/// show it.
pub(super) fn output_content(output: &Value) -> (Option<Content<'_>>, bool) {
    match output {
        Value::String(s) => (Some(Content::Text(Cow::Borrowed(s))), true),
        Value::Null => (None, true),
        Value::Array(items) => match items.iter().map(item_part).collect::<Option<Vec<_>>>() {
            Some(parts) if parts.is_empty() => (None, false),
            Some(mut parts) if parts.len() == 1 => match parts.remove(0) {
                ContentPart::Text { text } => (Some(Content::Text(text)), true),
                image @ ContentPart::Image { .. } => (Some(Content::Parts(vec![image])), true),
            },
            Some(parts) => (Some(Content::Parts(parts)), true),
            None => (
                Some(Content::Text(Cow::Owned(output_text(
                    output,
                    NonText::Mark,
                )))),
                false,
            ),
        },
        Value::Bool(_) | Value::Number(_) | Value::Object(_) => {
            (Some(Content::Text(Cow::Owned(output.to_string()))), false)
        }
    }
}

/// One item of an output array as a part, when a part holds all of it: `{type: "text", text}`,
/// or `{type: "file", mediaType, url}` of an image type ATIF accepts.
fn item_part(item: &Value) -> Option<ContentPart<'_>> {
    let o = item.as_object()?;
    let field = |k: &str| o.get(k).and_then(Value::as_str);
    match field("type")? {
        "text" if o.len() == 2 => Some(ContentPart::Text {
            text: Cow::Borrowed(field("text")?),
        }),
        "file" if o.len() == 3 => image(field("mediaType")?, field("url")?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn written(output: &Value) -> (Value, bool) {
        let (content, whole) = output_content(output);
        (serde_json::to_value(&content).unwrap(), whole)
    }

    /// Text items and images are parts; anything else leaves the output whole beside its text.
    #[test]
    fn outputs_become_content() {
        assert_eq!(written(&json!("ok")), (json!("ok"), true));
        assert_eq!(
            written(&json!([{"type": "text", "text": "a"}])),
            (json!("a"), true)
        );
        let img = json!([{"type": "text", "text": "a"}, {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,AA=="}]);
        assert_eq!(
            written(&img),
            (
                json!([{"type": "text", "text": "a"}, {"type": "image", "source": {"media_type": "image/png", "path": "data:image/png;base64,AA=="}}]),
                true
            )
        );
        let pdf =
            json!([{"type": "file", "mediaType": "application/pdf", "url": "https://x/y.pdf"}]);
        assert_eq!(written(&pdf), (json!("[application/pdf]"), false));
        assert_eq!(written(&json!({"a": 1})), (json!("{\"a\":1}"), false));
    }
}
