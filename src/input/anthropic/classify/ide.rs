//! What an IDE attaches before the words a person typed in its chat box: context, split off
//! the prompt so that the prompt is what was typed.

use serde_json::{Map, Value, json};

use super::Classified;
use super::tags::leading;
use crate::model::transcript::{SyntheticReason, TurnOrigin};

/// The elements an IDE puts before the words typed in its chat box: the file open in the editor
/// (`<ide_opened_file>`) and the lines selected in it (`<ide_selection>`).
const IDE_TAGS: &[&str] = &["ide_opened_file", "ide_selection"];

/// What an IDE attached at the start of a prompt, split off the words typed after it: the
/// context as a message of its own (harness context, `ide-context`, each element's tag and text
/// in `machinery.ideContext`), and the rest of the text. `None` when the text does not begin
/// with an IDE element.
pub(crate) fn ide_context(text: &str) -> Option<(Classified, &str)> {
    let (elems, rest) = leading(text, IDE_TAGS)?;
    let shown: Vec<&str> = elems.iter().map(|(_, inner)| inner.as_str()).collect();
    let listed: Vec<Value> = elems
        .iter()
        .map(|(tag, inner)| json!({ "tag": tag, "text": inner }))
        .collect();
    let mut machinery = Map::new();
    machinery.insert("ideContext".into(), Value::Array(listed));
    let c = Classified {
        origin: TurnOrigin::Synthetic {
            reason: SyntheticReason::IdeContext,
        },
        text: shown.join("\n"),
        machinery,
    };
    Some((c, rest))
}
