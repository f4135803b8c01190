//! Which format is this input? Decided from consistent evidence in its first JSON values, never
//! from one line when more are there to read.
//!
//! Each JSON object among the first `EVIDENCE` values (a line of JSON Lines, the `data:` payload of
//! an SSE frame, or an element of a JSON document) is classified on its own by `classify`. The
//! formats seen are then reconciled by `decide`: one format → that one; Claude-shaped lines next to
//! the marker of a format that also writes Claude-shaped lines (Qwen stream-json, a saved Claude
//! session) → the more specific format; two unrelated formats → the one with more lines, and a
//! warning (so one Gemini `init` line before a Claude stream is outvoted by the Claude lines).
//! Lines before the first JSON value that are not JSON (CLI chatter such as
//! `Loaded cached credentials.`) do not count; the driver reports them once. JSON values that no
//! format claims make the input not a log scribe knows: the verdict names their keys.

use std::sync::LazyLock;

use serde_json::Value;

use super::agent::{Claim, Format};
use super::document::short;
use super::{registry, sse};

/// How many JSON values are read before deciding (fewer when the input ends first).
pub(crate) const EVIDENCE: usize = 5;
/// How many distinct top-level keys of unclaimed values a message names.
const KEYS_SHOWN: usize = 12;

/// What one line of the input is, before any format is chosen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LineShape {
    /// Blank.
    Blank,
    /// A JSON object (or the JSON payload of an SSE `data:` field).
    Json(Value),
    /// An SSE field line without a JSON payload (`event:`, `id:`, `retry:`, a `:` comment).
    SseField,
    /// The first line of a JSON document spread over several lines, or a JSON array.
    DocumentStart,
    /// A line that opens a JSON object but does not parse (cut off, or broken): JSON Lines, of
    /// no format one can tell.
    BrokenJson,
    /// Anything else: chatter before the JSON, or a broken line after it.
    Other,
}

/// Looks at one line.
pub(crate) fn shape(text: &str) -> LineShape {
    let t = text.trim();
    if t.is_empty() {
        return LineShape::Blank;
    }
    if sse::looks_like_sse(t) {
        return match t.strip_prefix("data:") {
            Some(data) => match scribe_json::parse_line(data.trim()) {
                Ok(v @ Value::Object(_)) => LineShape::Json(v),
                _ => LineShape::SseField,
            },
            None => LineShape::SseField,
        };
    }
    match t.as_bytes()[0] {
        b'{' => match scribe_json::parse_line(t) {
            Ok(v) => LineShape::Json(v),
            // A lone `{` opens a pretty-printed object.
            Err(_) if t == "{" => LineShape::DocumentStart,
            Err(_) => LineShape::BrokenJson,
        },
        b'[' => match scribe_json::parse_line(t) {
            Ok(Value::Array(_)) => LineShape::DocumentStart,
            Ok(_) => LineShape::Other,
            // `[` alone, `[{…`, `[ "…`: a multi-line array; `[INFO] …` is chatter.
            Err(_) => match t[1..].trim_start().bytes().next() {
                None | Some(b'{' | b'[' | b'"' | b']') => LineShape::DocumentStart,
                Some(_) => LineShape::Other,
            },
        },
        _ => LineShape::Other,
    }
}

/// Every format's detection rules, lowest rank first (see [`Claim`]).
static RULES: LazyLock<Vec<(&'static Claim, &'static Format)>> = LazyLock::new(|| {
    let mut rules: Vec<(&'static Claim, &'static Format)> = registry::formats()
        .flat_map(|f| f.claims.iter().map(move |c| (c, f)))
        .collect();
    rules.sort_by_key(|(c, _)| c.rank);
    rules
});

/// The format one JSON object says it belongs to, if any (`None`: no format claims it).
pub(crate) fn classify(v: &Value) -> Option<&'static Format> {
    let o = v.as_object()?;
    RULES
        .iter()
        .find(|(claim, _)| (claim.test)(o))
        .map(|(_, f)| *f)
}

/// The evidence gathered so far: what each JSON value was taken for.
#[derive(Debug, Default)]
pub(crate) struct Evidence {
    /// One entry per JSON value read, in order.
    seen: Vec<Option<&'static Format>>,
    /// The top-level keys of the values no format claimed, in the order first seen, at most
    /// `KEYS_SHOWN` of them (for the error message).
    keys: Vec<String>,
    /// Distinct keys past `KEYS_SHOWN`, counted rather than kept.
    more_keys: usize,
    /// Unclaimed values that are not objects.
    not_objects: usize,
}

/// What the evidence says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Every value agrees on this format.
    Agreed(&'static Format),
    /// Values of unrelated formats: the one with most values wins; the text says what was seen.
    Mixed(&'static Format, String),
    /// No value belongs to a known format; the text says what was seen (`saw keys …`).
    Unknown(String),
}

impl Evidence {
    /// Adds one JSON value.
    pub(crate) fn add(&mut self, v: &Value) {
        let f = classify(v);
        if f.is_none() {
            self.note_keys(v);
        }
        self.seen.push(f);
    }

    /// Keeps the top-level keys of a value no format claimed, made short and printable.
    fn note_keys(&mut self, v: &Value) {
        let Some(o) = v.as_object() else {
            self.not_objects += 1;
            return;
        };
        for k in o.keys() {
            let k = short(k);
            if self.keys.contains(&k) {
                continue;
            }
            if self.keys.len() < KEYS_SHOWN {
                self.keys.push(k);
            } else {
                self.more_keys += 1;
            }
        }
    }

    /// What the values no format claimed hold: `saw keys a, b, …`.
    fn unclaimed(&self) -> String {
        let mut text = match self.keys.as_slice() {
            [] => "saw no keys".to_owned(),
            keys => format!("saw keys {}", keys.join(", ")),
        };
        if self.more_keys > 0 {
            text.push_str(&format!(" and {} more", self.more_keys));
        }
        if self.not_objects > 0 {
            text.push_str(&format!(
                " and {} value{} that {} not an object",
                self.not_objects,
                if self.not_objects == 1 { "" } else { "s" },
                if self.not_objects == 1 { "is" } else { "are" },
            ));
        }
        text
    }

    /// JSON values seen.
    pub(crate) fn len(&self) -> usize {
        self.seen.len()
    }

    /// True when enough values were seen to decide without waiting for the end of the input.
    pub(crate) fn is_enough(&self) -> bool {
        self.seen.len() >= EVIDENCE
    }

    /// True when at least two values were seen and they agree: a live stream that pauses may be
    /// decided then, without holding its output until `EVIDENCE` values have arrived.
    pub(crate) fn is_consistent(&self) -> bool {
        self.seen.len() >= 2 && matches!(self.verdict(), Verdict::Agreed(_))
    }

    /// The decision from what was seen.
    pub(crate) fn verdict(&self) -> Verdict {
        let mut counts: Vec<(&'static Format, usize)> = Vec::new();
        for f in self.seen.iter().flatten() {
            match counts.iter_mut().find(|(g, _)| g == f) {
                Some((_, n)) => *n += 1,
                None => counts.push((*f, 1)),
            }
        }
        // Claude-shaped values count for the more specific format they appear with.
        if let Some(specific) = counts.iter().map(|(f, _)| *f).find(|f| f.claude_shaped) {
            let plain = counts
                .iter()
                .position(|(f, _)| *f == registry::claude_stream());
            if let Some(i) = plain {
                let (_, n) = counts.remove(i);
                if let Some((_, m)) = counts.iter_mut().find(|(f, _)| *f == specific) {
                    *m += n;
                }
            }
        }
        match counts.as_slice() {
            [] => Verdict::Unknown(self.unclaimed()),
            [(f, _)] => Verdict::Agreed(f),
            _ => {
                let best = counts
                    .iter()
                    .enumerate()
                    .max_by_key(|(i, (_, n))| (*n, std::cmp::Reverse(*i)))
                    .map(|(_, (f, _))| *f)
                    .unwrap_or(registry::claude_stream());
                let what = counts
                    .iter()
                    .map(|(f, n)| format!("{} ({n})", f.name))
                    .collect::<Vec<_>>()
                    .join(", ");
                Verdict::Mixed(best, what)
            }
        }
    }
}

/// The names of the formats detection tries, for messages.
pub(crate) fn tried() -> String {
    registry::formats()
        .map(|f| f.name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(name: &str) -> &'static Format {
        registry::formats().find(|f| f.name == name).unwrap()
    }

    fn verdict(lines: &[&str]) -> Verdict {
        let mut e = Evidence::default();
        for l in lines {
            if let LineShape::Json(v) = shape(l) {
                e.add(&v);
            }
        }
        e.verdict()
    }

    #[test]
    fn no_two_rules_share_a_rank() {
        let ranks: Vec<u8> = RULES.iter().map(|(c, _)| c.rank).collect();
        let mut unique = ranks.clone();
        unique.dedup();
        assert_eq!(ranks, unique);
    }

    #[test]
    fn an_sse_field_alone_is_no_evidence() {
        assert_eq!(shape("event: x"), LineShape::SseField);
        assert_eq!(
            verdict(&["event: x", r#"{"type":"system","subtype":"init"}"#]),
            Verdict::Agreed(registry::claude_stream())
        );
    }

    #[test]
    fn claude_shaped_lines_agree_with_a_qwen_init() {
        let init = r#"{"type":"system","subtype":"init","qwen_code_version":"0.1"}"#;
        let user = r#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(
            verdict(&[init, user, user]),
            Verdict::Agreed(format("qwen-stream"))
        );
    }

    #[test]
    fn claude_lines_outvote_one_gemini_init() {
        let init = r#"{"type":"init","timestamp":"t","session_id":"g","model":"auto"}"#;
        let system = r#"{"type":"system","subtype":"init","session_id":"s"}"#;
        let user = r#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
        let result = r#"{"type":"result","subtype":"success","is_error":false}"#;
        assert!(matches!(
            verdict(&[init, system, user, user, result]),
            Verdict::Mixed(f, _) if f == registry::claude_stream()
        ));
        let gemini_result = r#"{"type":"result","timestamp":"t","status":"success","stats":{}}"#;
        assert_eq!(
            verdict(&[init, gemini_result]),
            Verdict::Agreed(format("gemini-stream"))
        );
    }

    #[test]
    fn chatter_and_documents_are_told_apart() {
        assert_eq!(shape("Loaded cached credentials."), LineShape::Other);
        assert_eq!(shape("[INFO] starting"), LineShape::Other);
        assert_eq!(shape("["), LineShape::DocumentStart);
        assert_eq!(shape("{"), LineShape::DocumentStart);
        assert_eq!(shape(r#"[{"type":"user"}]"#), LineShape::DocumentStart);
    }

    #[test]
    fn unknown_objects_are_described() {
        assert_eq!(
            verdict(&[r#"{"foo":1}"#, r#"{"foo":2,"bar\u001b":[]}"#]),
            Verdict::Unknown("saw keys foo, bar?".to_owned())
        );
    }
}
