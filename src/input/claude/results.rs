//! Claude Code's result details (`tool_use_result` / `toolUseResult`) → what a reader of a
//! finished call wants beside its output ([`ResultFacts`]).
//!
//! Claude Code reports a read's line count in `file.numLines` and an edit's or write's change as
//! `structuredPatch` hunks. The details stay whole in the call's sidecar; these are copied out so
//! that no renderer reads Claude Code's result shape.

use serde_json::Value;

use crate::model::tool_kind::{DiffHunk, ResultFacts};

/// The facts in one result's details; a detail not in the expected shape is left out.
pub(crate) fn result_facts(details: &Value) -> ResultFacts {
    ResultFacts {
        lines_read: details.pointer("/file/numLines").and_then(Value::as_u64),
        hunks: details
            .get("structuredPatch")
            .and_then(Value::as_array)
            .map(|hunks| hunks.iter().map(hunk).collect())
            .unwrap_or_default(),
    }
}

/// One `structuredPatch` hunk; missing numbers are 0 and lines that are not text are skipped.
fn hunk(h: &Value) -> DiffHunk {
    let n = |k: &str| h.get(k).and_then(Value::as_u64).unwrap_or(0);
    DiffHunk {
        old_start: n("oldStart"),
        old_lines: n("oldLines"),
        new_start: n("newStart"),
        new_lines: n("newLines"),
        lines: h
            .get("lines")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_line_count_and_hunks() {
        let f = result_facts(&json!({
            "file": {"filePath": "a", "numLines": 7},
            "structuredPatch": [{"oldStart": 2, "oldLines": 1, "newStart": 2, "newLines": 2, "lines": ["-a", "+b", "+c", 5]}]
        }));
        assert_eq!(f.lines_read, Some(7));
        assert_eq!(f.hunks.len(), 1);
        assert_eq!(f.hunks[0].new_lines, 2);
        assert_eq!(f.hunks[0].lines, ["-a", "+b", "+c"]);
    }

    #[test]
    fn other_details_say_nothing() {
        assert!(result_facts(&json!("Error: no")).is_empty());
        assert!(result_facts(&json!({"stdout": "x", "structuredPatch": []})).is_empty());
    }
}
