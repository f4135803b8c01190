//! Reads scribe's own `--to jsonl` output back into transcript items, so that a checked-in
//! golden transcript can be one side of `scribe diff`.
//!
//! The format is recognised by its first record, the header
//! (`{"kind":"header","schema":"scribe.transcript",…}`). Records are already folded: they become
//! `TranscriptItem`s directly, without an adapter or the fold.

use serde_json::Value;

use super::registry;
use super::tool_kind;
use super::{InputLine, Report, fields};
use crate::model::SCHEMA_VERSION;
use crate::model::transcript::{Caller, DebugRecord, TranscriptItem};

/// The `schema` value of the header record.
pub(crate) const SCHEMA: &str = "scribe.transcript";

/// True when `first_line` is the header of scribe's JSONL transcript.
pub(crate) fn is_header(first_line: &str) -> bool {
    scribe_json::parse_line(first_line.trim()).is_ok_and(|v| {
        v.get("kind").and_then(Value::as_str) == Some("header")
            && v.get("schema").and_then(Value::as_str) == Some(SCHEMA)
    })
}

/// The `source` a transcript header names, as one of scribe's own format names (so that
/// re-reading a transcript keeps its header); `scribe-jsonl` when it names none.
pub(crate) fn header_source(first_line: &str) -> &'static str {
    let v = scribe_json::parse_line(first_line.trim()).unwrap_or(Value::Null);
    let named = v.get("source").and_then(Value::as_str).unwrap_or("");
    registry::formats()
        .map(|f| f.name)
        .find(|n| *n == named)
        .unwrap_or("scribe-jsonl")
}

/// Reads the records after the header, one line at a time, reporting lines it cannot use.
#[derive(Debug, Default)]
pub(crate) struct TranscriptReader;

impl TranscriptReader {
    /// Appends the item a line holds (none for a blank line or a repeated header).
    pub(crate) fn line(
        &mut self,
        line: &InputLine,
        out: &mut Vec<TranscriptItem>,
        report: &mut Report<'_>,
    ) {
        if line.text.trim().is_empty() {
            return;
        }
        match record(&line.text) {
            Ok(Some(item)) => out.push(item),
            Ok(None) => {}
            Err(what) => report.error(line.number, &what),
        }
    }
}

/// One record of the transcript: `Ok(None)` for the header, an error for a line that is not a
/// record this version of scribe knows.
pub(crate) fn record(line: &str) -> Result<Option<TranscriptItem>, String> {
    let mut v = scribe_json::parse_line(line).map_err(|e| format!("invalid JSON: {e}"))?;
    add_missing_fields(&mut v);
    let kind = fields::string(&v, "kind");
    let bad = |e: serde_json::Error| format!("not a scribe {kind} record: {e}");
    Ok(Some(match kind.as_str() {
        "header" => {
            let version = v.get("version").and_then(Value::as_u64).unwrap_or(0);
            if version > u64::from(SCHEMA_VERSION) {
                return Err(format!(
                    "written with schema version {version}; this scribe reads up to {SCHEMA_VERSION}"
                ));
            }
            return Ok(None);
        }
        "session" => TranscriptItem::Session(Box::new(serde_json::from_value(v).map_err(bad)?)),
        "turn" => TranscriptItem::Turn(Box::new(serde_json::from_value(v).map_err(bad)?)),
        "notice" => TranscriptItem::Notice(Box::new(
            serde_json::from_value(v.get("notice").cloned().unwrap_or(Value::Null)).map_err(bad)?,
        )),
        "debug" => TranscriptItem::Debug(Box::new(
            serde_json::from_value::<DebugRecord>(v).map_err(bad)?,
        )),
        other => return Err(format!("unknown record kind {other:?}")),
    }))
}

/// What older transcripts left out, filled in as the renderers of their day judged it, so an old
/// transcript renders as it did: a tool call written before calls had a kind (schema version 1)
/// gets one from its name and input (Claude Code's tool names, then the input's shape); a call
/// written before calls had `facts` gets them from its sidecar (Claude Code's result details,
/// which those renderers read), and one written before facts had a `durationMs` gets the
/// duration the page read from the sidecar ([`duration_in_sidecar`]) and one written before
/// facts had a `persistedPreview` the preview the session's reader kept there; a tool reference
/// written before data parts had a `summary` gets the tool it names.
fn add_missing_fields(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if o.contains_key("toolCallId")
                && o.contains_key("caller")
                && !o.contains_key("facts")
                && let Some(sidecar) = o.get("sidecar")
            {
                let facts = registry::read_back::result_facts(
                    &crate::model::details::Details::from_value(sidecar),
                );
                if !facts.is_empty()
                    && let Ok(f) = serde_json::to_value(facts)
                {
                    o.insert("facts".into(), f);
                }
            }
            if o.contains_key("toolCallId") && o.contains_key("caller") {
                let sidecar = o.get("sidecar");
                let from_sidecar = [
                    (
                        "durationMs",
                        sidecar.and_then(duration_in_sidecar).map(Value::from),
                    ),
                    (
                        "persistedPreview",
                        sidecar
                            .and_then(|s| s.get("persistedPreview"))
                            .filter(|p| p.is_string())
                            .cloned(),
                    ),
                ];
                for (key, value) in from_sidecar {
                    if let Some(value) = value
                        && let Value::Object(facts) = o
                            .entry("facts")
                            .or_insert_with(|| Value::Object(serde_json::Map::new()))
                    {
                        facts.entry(key).or_insert(value);
                    }
                }
            }
            if o.get("type").and_then(Value::as_str) == Some("data")
                && o.get("name").and_then(Value::as_str) == Some("tool_reference")
                && !o.contains_key("summary")
                && let Some(tool) = o.get("data").and_then(|d| d.get("tool_name")).cloned()
            {
                o.insert("summary".into(), tool);
            }
            if o.contains_key("toolCallId") && o.contains_key("caller") && !o.contains_key("kind") {
                let caller = o
                    .get("caller")
                    .cloned()
                    .and_then(|c| serde_json::from_value(c).ok())
                    .unwrap_or(Caller::Model);
                let s = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or_default();
                let kind = tool_kind::classify(
                    s("name"),
                    caller,
                    o.get("mcpServer").and_then(Value::as_str),
                    o.get("input").unwrap_or(&Value::Null),
                    registry::read_back::tool_kind,
                );
                if let Ok(k) = serde_json::to_value(kind) {
                    o.insert("kind".into(), k);
                }
            }
            o.values_mut().for_each(add_missing_fields);
        }
        Value::Array(a) => a.iter_mut().for_each(add_missing_fields),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// The duration the HTML page of schema 3 read from a call's sidecar, before the adapters set
/// `facts.durationMs`: the first whole number of milliseconds among `durationMs`,
/// `totalDurationMs` and `duration_ms`, else Codex's `duration` (`{secs, nanos}`).
fn duration_in_sidecar(sidecar: &Value) -> Option<u64> {
    ["durationMs", "totalDurationMs", "duration_ms"]
        .iter()
        .find_map(|k| sidecar.get(k).and_then(Value::as_u64))
        .or_else(|| registry::read_back::codex_duration_ms(sidecar))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_what_jsonl_writes() {
        assert!(is_header(
            r#"{"kind":"header","schema":"scribe.transcript","version":1,"source":"x","file":""}"#
        ));
        assert!(!is_header(r#"{"type":"system","subtype":"init"}"#));
        let turn = r#"{"kind":"turn","id":"t1","role":"assistant","origin":{"kind":"model"},"parts":[{"type":"text","text":"hi"},{"type":"tool-call","call":{"toolCallId":"call-1","name":"Bash","caller":"model","state":"success","input":{"command":"ls"},"output":"a"}}]}"#;
        let Ok(Some(TranscriptItem::Turn(t))) = record(turn) else {
            panic!("a turn");
        };
        assert_eq!(t.id, "t1");
        assert_eq!(t.parts.len(), 2);
        // A version-1 call (no kind) is given the kind its name and input say.
        let crate::model::transcript::Part::ToolCall { call } = &t.parts[1] else {
            panic!("a call");
        };
        assert!(matches!(
            call.kind,
            crate::model::tool_kind::ToolKind::Shell { .. }
        ));
        let notice = r#"{"kind":"notice","notice":{"kind":"result","subtype":"success","isError":false,"turns":2}}"#;
        assert!(matches!(
            record(notice),
            Ok(Some(TranscriptItem::Notice(_)))
        ));
        assert!(record(r#"{"kind":"mystery"}"#).is_err());
    }

    #[test]
    fn older_calls_get_facts_and_tool_references_a_summary() {
        let turn = r#"{"kind":"turn","id":"t1","role":"assistant","origin":{"kind":"model"},"parts":[{"type":"tool-call","call":{"toolCallId":"c","name":"Read","kind":{"type":"read","path":"a"},"caller":"model","state":"success","input":{"file_path":"a"},"output":[{"type":"data","name":"tool_reference","data":{"type":"tool_reference","tool_name":"T"}}],"sidecar":{"file":{"numLines":9}}}}]}"#;
        let Ok(Some(TranscriptItem::Turn(t))) = record(turn) else {
            panic!("a turn");
        };
        let crate::model::transcript::Part::ToolCall { call } = &t.parts[0] else {
            panic!("a call");
        };
        assert_eq!(call.facts.lines_read, Some(9));
        assert_eq!(
            call.output.as_ref().and_then(|o| o.pointer("/0/summary")),
            Some(&Value::from("T"))
        );
    }

    /// A call written before facts had a `persistedPreview` gets the one its sidecar kept.
    #[test]
    fn older_calls_get_the_preview_the_model_read() {
        let turn = r#"{"kind":"turn","id":"t","role":"assistant","origin":{"kind":"model"},"parts":[{"type":"tool-call","call":{"toolCallId":"c","name":"Bash","caller":"model","state":"success","input":{},"output":"all","sidecar":{"persistedPreview":"<persisted-output>p</persisted-output>"},"facts":{"durationMs":3}}}]}"#;
        let Ok(Some(TranscriptItem::Turn(t))) = record(turn) else {
            panic!("a turn");
        };
        let crate::model::transcript::Part::ToolCall { call } = &t.parts[0] else {
            panic!("a call");
        };
        assert_eq!(
            call.facts.persisted_preview.as_deref(),
            Some("<persisted-output>p</persisted-output>")
        );
        assert_eq!(call.facts.duration_ms, Some(3));
    }

    /// A call written before facts had a duration gets the one the page read from its sidecar;
    /// a duration its facts already hold is kept.
    #[test]
    fn older_calls_get_the_duration_their_page_showed() {
        let duration = |call: &str| {
            let turn = format!(
                r#"{{"kind":"turn","id":"t","role":"assistant","origin":{{"kind":"model"}},"parts":[{{"type":"tool-call","call":{call}}}]}}"#
            );
            let Ok(Some(TranscriptItem::Turn(t))) = record(&turn) else {
                panic!("a turn: {turn}");
            };
            let crate::model::transcript::Part::ToolCall { call } = &t.parts[0] else {
                panic!("a call");
            };
            (call.facts.duration_ms, call.facts.lines_read)
        };
        let call = |sidecar: &str, facts: &str| {
            format!(
                r#"{{"toolCallId":"c","name":"Bash","caller":"model","state":"success","input":{{}},"output":"a","sidecar":{sidecar}{facts}}}"#
            )
        };
        assert_eq!(
            duration(&call(r#"{"durationMs":40}"#, "")),
            (Some(40), None)
        );
        assert_eq!(
            duration(&call(r#"{"duration":{"secs":2,"nanos":500000000}}"#, "")),
            (Some(2500), None)
        );
        assert_eq!(
            duration(&call(r#"{"duration_ms":7}"#, r#","facts":{"linesRead":3}"#)),
            (Some(7), Some(3))
        );
        assert_eq!(
            duration(&call(
                r#"{"durationMs":40}"#,
                r#","facts":{"durationMs":9}"#
            )),
            (Some(9), None)
        );
        assert_eq!(duration(&call(r#"{"status":"ok"}"#, "")), (None, None));
    }
}
