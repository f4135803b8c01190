//! An ACP tool call's own description → [`ToolKind`], for a call no tool table names.
//!
//! The daemon speaks the Agent Client Protocol: besides `_meta.toolName` (which the Qwen table
//! reads), every call says its `kind` (`read`, `edit`, `delete`, `move`, `search`, `execute`,
//! `think`, `fetch`, `switch_mode`, `other`), the files it touches (`locations: [{path, line?}]`)
//! and, for an edit, `content` items `{type: "diff", path, oldText?, newText}` (no `oldText`: a
//! new file). A call named only by its title ("Edit auth.ts") is still drawn by what it does.

use serde_json::Value;

use crate::input::fields::{opt_string, str_of};
use crate::input::tool_kind as k;
use crate::model::tool_kind::{PatchFile, TextEdit, ToolKind};

/// What an ACP call says about itself.
pub(super) struct AcpCall<'a> {
    /// The call's `kind`.
    pub(super) kind: &'a str,
    pub(super) locations: &'a Value,
    pub(super) content: &'a Value,
    pub(super) raw_input: &'a Value,
}

/// The kind an ACP call's description supports; `None` when it says too little (a `delete`, a
/// `move`, a `think`, an `execute` without its command): the caller keeps its own judgement.
pub(super) fn acp_kind(c: &AcpCall<'_>) -> Option<ToolKind> {
    match c.kind {
        "edit" => {
            edit(c.content).or_else(|| k::edit(c.raw_input).or_else(|| k::write(c.raw_input)))
        }
        "read" => first_location(c.locations)
            .map(|path| ToolKind::Read { path })
            .or_else(|| k::read(c.raw_input)),
        "execute" => k::shell(c.raw_input),
        "search" => k::search(c.raw_input),
        "fetch" => k::web_fetch(c.raw_input),
        // Nothing more to draw than the name and subject.
        _ => None,
    }
}

/// The first file a call touches, when it says.
pub(super) fn first_location(locations: &Value) -> Option<String> {
    locations
        .as_array()?
        .iter()
        .map(|l| str_of(l, "path"))
        .find(|p| !p.is_empty())
        .map(str::to_owned)
}

/// An edit's `diff` content items → one edit, a new file, several edits of one file, or a
/// change to several files.
fn edit(content: &Value) -> Option<ToolKind> {
    let diffs: Vec<&Value> = content
        .as_array()?
        .iter()
        .filter(|i| str_of(i, "type") == "diff")
        .collect();
    let (first, rest) = diffs.split_first()?;
    let path = str_of(first, "path").to_owned();
    let old = |d: &Value| opt_string(d, "oldText");
    let new = |d: &Value| str_of(d, "newText").to_owned();
    if rest.is_empty() {
        return Some(match old(first) {
            Some(old) => ToolKind::Edit {
                path,
                old,
                new: new(first),
            },
            None => ToolKind::Write {
                path,
                content: new(first),
            },
        });
    }
    if rest.iter().all(|d| str_of(d, "path") == path) {
        return Some(ToolKind::MultiEdit {
            path,
            edits: diffs
                .iter()
                .map(|d| TextEdit {
                    old: old(d).unwrap_or_default(),
                    new: new(d),
                })
                .collect(),
        });
    }
    Some(ToolKind::Patch {
        files: diffs
            .iter()
            .map(|d| PatchFile {
                path: str_of(d, "path").to_owned(),
                change: if old(d).is_some() { "update" } else { "add" }.to_owned(),
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(kind: &str, locations: Value, content: Value, raw_input: Value) -> Option<ToolKind> {
        acp_kind(&AcpCall {
            kind,
            locations: &locations,
            content: &content,
            raw_input: &raw_input,
        })
    }

    #[test]
    fn a_diff_is_an_edit_or_a_new_file() {
        let d = json!([{"type": "diff", "path": "a.ts", "oldText": "x", "newText": "y"}]);
        assert_eq!(
            kind("edit", Value::Null, d, Value::Null),
            Some(ToolKind::Edit {
                path: "a.ts".into(),
                old: "x".into(),
                new: "y".into()
            })
        );
        let d = json!([{"type": "diff", "path": "n.md", "oldText": null, "newText": "hi"}]);
        assert_eq!(
            kind("edit", Value::Null, d, Value::Null),
            Some(ToolKind::Write {
                path: "n.md".into(),
                content: "hi".into()
            })
        );
    }

    #[test]
    fn several_diffs_are_a_multi_edit_or_a_patch() {
        let d = json!([
            {"type": "diff", "path": "a", "oldText": "1", "newText": "2"},
            {"type": "diff", "path": "a", "oldText": "3", "newText": "4"}
        ]);
        assert!(matches!(
            kind("edit", Value::Null, d, Value::Null),
            Some(ToolKind::MultiEdit { edits, .. }) if edits.len() == 2
        ));
        let d = json!([
            {"type": "diff", "path": "a", "oldText": "1", "newText": "2"},
            {"type": "diff", "path": "b", "newText": "4"}
        ]);
        let Some(ToolKind::Patch { files }) = kind("edit", Value::Null, d, Value::Null) else {
            panic!("a patch");
        };
        assert_eq!(files[1].change, "add");
    }

    #[test]
    fn a_read_names_its_location_and_the_rest_needs_its_input() {
        assert_eq!(
            kind(
                "read",
                json!([{"path": "/w/a.rs", "line": 3}]),
                Value::Null,
                Value::Null
            ),
            Some(ToolKind::Read {
                path: "/w/a.rs".into()
            })
        );
        assert!(matches!(
            kind(
                "execute",
                Value::Null,
                Value::Null,
                json!({"command": "ls"})
            ),
            Some(ToolKind::Shell { .. })
        ));
        assert_eq!(kind("execute", Value::Null, Value::Null, Value::Null), None);
        assert_eq!(
            kind("delete", json!([{"path": "a"}]), Value::Null, Value::Null),
            None
        );
        assert_eq!(kind("edit", Value::Null, json!([]), Value::Null), None);
    }
}
