//! Claude Code's result details (`tool_use_result` / `toolUseResult`) → what a reader of a
//! finished call wants beside its output ([`ResultFacts`]).
//!
//! Claude Code reports a read's line count in `file.numLines` and an edit's or write's change as
//! `structuredPatch` hunks. The details stay whole in the call's sidecar; these are copied out so
//! that no renderer reads Claude Code's result shape.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem;

use serde::Deserialize;

use crate::model::details::Details;
use crate::model::tool_kind::{DiffHunk, ResultFacts};
use scribe_json::lenient::{Items, Obj, Object, Str, U64};

/// The fields of the details that hold facts: a read's file, an edit's patch. Read leniently
/// (`scribe_json::lenient`: a field of another type reads as absent), and everything else skipped
/// unread: the details' text is already known to be valid JSON without repeated keys.
#[derive(Deserialize, Default)]
struct FactFields<'a> {
    #[serde(default)]
    file: Object<FileFields>,
    #[serde(default, rename = "structuredPatch", borrow)]
    patch: Items<Obj<HunkFields<'a>>>,
    /// How long the tool ran.
    #[serde(default, rename = "durationMs")]
    duration_ms: U64,
    /// How long a sub-agent ran (an Agent call's result).
    #[serde(default, rename = "totalDurationMs")]
    total_duration_ms: U64,
    /// The `<persisted-output>` preview the model read, which the session's reader put here
    /// when it replaced the preview by the saved output.
    #[serde(default, rename = "persistedPreview", borrow)]
    persisted_preview: Str<'a>,
}

/// A read's `file`.
#[derive(Deserialize, Default)]
struct FileFields {
    #[serde(default, rename = "numLines")]
    num_lines: U64,
}

/// One `structuredPatch` hunk; missing numbers are 0 and lines that are not text are skipped.
#[derive(Deserialize, Default)]
struct HunkFields<'a> {
    #[serde(default, rename = "oldStart")]
    old_start: U64,
    #[serde(default, rename = "oldLines")]
    old_lines: U64,
    #[serde(default, rename = "newStart")]
    new_start: U64,
    #[serde(default, rename = "newLines")]
    new_lines: U64,
    #[serde(default, borrow)]
    lines: Items<Str<'a>>,
}

/// The facts in one result's details; a detail not in the expected shape is left out. Only the
/// fields that hold them are read from the details' text.
pub(crate) fn result_facts(details: &Details) -> ResultFacts {
    // The text is in the written form (`model::details`), where a key is written out quoted:
    // details that name no such field are not parsed. `urationMs"` ends both `"durationMs"` and
    // `"totalDurationMs"`: one scan for the two (each scan reads the whole details).
    static NAMES: LazyLock<[memmem::Finder<'static>; 4]> = LazyLock::new(|| {
        [
            memmem::Finder::new(br#""file""#),
            memmem::Finder::new(br#""structuredPatch""#),
            memmem::Finder::new(br#"urationMs""#),
            memmem::Finder::new(br#""persistedPreview""#),
        ]
    });
    let text = details.text().as_bytes();
    if NAMES.iter().all(|name| name.find(text).is_none()) {
        return ResultFacts::default();
    }
    // A derived struct refuses anything but an object: such details hold no facts.
    let Some(f) = details.read::<FactFields<'_>>() else {
        return ResultFacts::default();
    };
    ResultFacts {
        lines_read: f.file.0.and_then(|file| file.num_lines.0),
        duration_ms: f.duration_ms.0.or(f.total_duration_ms.0),
        // Claude Code's results state no exit code (a failed command is an error result).
        exit_code: None,
        persisted_preview: f.persisted_preview.0.map(Cow::into_owned),
        hunks: f
            .patch
            .0
            .unwrap_or_default()
            .into_iter()
            .map(|Obj(h)| DiffHunk {
                old_start: h.old_start.0.unwrap_or(0),
                old_lines: h.old_lines.0.unwrap_or(0),
                new_start: h.new_start.0.unwrap_or(0),
                new_lines: h.new_lines.0.unwrap_or(0),
                lines: h
                    .lines
                    .0
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|s| s.0.map(Cow::into_owned))
                    .collect(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn reads_line_count_and_hunks() {
        let f = result_facts(&Details::from_value(&json!({
            "file": {"filePath": "a", "numLines": 7},
            "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 2, "lines": ["-a", "+b", "+c", 5]}]
        })));
        assert_eq!(f.lines_read, Some(7));
        assert_eq!(f.hunks.len(), 1);
        assert_eq!(f.hunks[0].new_lines, 2);
        assert_eq!(f.hunks[0].lines, ["-a", "+b", "+c"]);
    }

    /// A tool's `durationMs`, else a sub-agent's `totalDurationMs`; a duration that is not a
    /// whole number of milliseconds is left out.
    #[test]
    fn reads_how_long_the_call_ran() {
        let facts = |v: Value| result_facts(&Details::from_value(&v));
        assert_eq!(
            facts(json!({"durationMs": 1370, "filenames": []})).duration_ms,
            Some(1370)
        );
        assert_eq!(
            facts(json!({"totalDurationMs": 90, "status": "completed"})).duration_ms,
            Some(90)
        );
        assert_eq!(
            facts(json!({"durationMs": 5, "totalDurationMs": 90})).duration_ms,
            Some(5)
        );
        assert_eq!(facts(json!({"durationMs": "5"})).duration_ms, None);
        assert_eq!(
            facts(json!({"durationMs": -5, "totalDurationMs": 7})).duration_ms,
            Some(7)
        );
    }

    #[test]
    fn other_details_say_nothing() {
        let facts = |v: Value| result_facts(&Details::from_value(&v));
        assert!(facts(json!("Error: no")).is_empty());
        assert!(facts(json!({"stdout": "x", "structuredPatch": []})).is_empty());
        assert!(facts(json!({"file": "x", "structuredPatch": 3})).is_empty());
    }
}
