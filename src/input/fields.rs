//! Reading fields of the JSON lines the adapters decode, and the `info` notice they all build.
//!
//! Claude stream-json, Claude session files and the Qwen formats each had their own copies of
//! these few accessors; they read the same way for every vendor, so one copy serves.

use serde_json::Value;

use crate::model::event::{EventKind, Thread};
use crate::model::session::{Level, SystemNotice};

/// A string field, or "" when it is missing or not a string. Exists because most wire fields
/// are optional in practice and an empty string is what the model keeps for "unknown".
pub(crate) fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// [`str_of`], owned.
pub(crate) fn string(v: &Value, key: &str) -> String {
    str_of(v, key).to_owned()
}

/// A string field, owned, when it is there. Exists for the optional fields of the model
/// (`Option<String>`), which every adapter fills from the wire the same way.
pub(crate) fn opt_string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The items of an array field, none when it is missing or not an array: the one way to walk a
/// list the wire may leave out.
pub(crate) fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The thread of a Claude-style line (`parent_tool_use_id`, which Qwen's stream-json copies):
/// the Agent call a sub-agent's line belongs to, `None` for the main line.
pub(crate) fn parent_tool_use_id(v: &Value) -> Thread {
    v.get("parent_tool_use_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// A list of names (tools, skills, commands) given either as strings or as objects with a
/// `name`, as both the Claude `init` line and the Qwen daemon send them.
pub(crate) fn names(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().or_else(|| x.get("name").and_then(Value::as_str)))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// An `info` notice: `source` names the wire kind, `data` keeps the payload. The one
/// constructor for the long tail every adapter reports.
pub(crate) fn info(source: &str, level: Level, text: String, data: Value) -> EventKind {
    EventKind::notice(SystemNotice::Info {
        source: source.to_owned(),
        level,
        text,
        data,
    })
}
