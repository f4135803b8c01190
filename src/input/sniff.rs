//! Which format is this input? Decided from consistent evidence in its first JSON values, never
//! from one line when more are there to read.
//!
//! Each JSON object among the first `EVIDENCE` values (a line of JSON Lines, the `data:` payload of
//! an SSE frame, or an element of a JSON document) is classified on its own by `classify`. The
//! formats seen are then reconciled by `decide`: one format → that one; Claude-shaped lines next to
//! the marker of a format that also writes Claude-shaped lines (Qwen stream-json, a saved Claude
//! session, a Gemini saved chat) → the more specific format; two unrelated formats → the one with
//! more lines, and a warning. Lines before the first JSON value that are not JSON (CLI chatter such
//! as `Loaded cached credentials.`) do not count; the driver reports them once.

use std::sync::LazyLock;

use serde_json::Value;

use super::agent::{Claim, Format};
use super::document::describe;
use super::{registry, sse};

/// How many JSON values are read before deciding (fewer when the input ends first).
pub(crate) const EVIDENCE: usize = 5;

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
    /// A short description of the first values no format claimed (for the error message).
    unclaimed: Vec<String>,
}

/// What the evidence says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Every value agrees on this format.
    Agreed(&'static Format),
    /// Values of unrelated formats: the one with most values wins; the text says what was seen.
    Mixed(&'static Format, String),
    /// No value belongs to a known format; the text describes what was seen.
    Unknown(String),
}

impl Evidence {
    /// Adds one JSON value.
    pub(crate) fn add(&mut self, v: &Value) {
        let f = classify(v);
        if f.is_none() && self.unclaimed.len() < 3 {
            self.unclaimed.push(describe(v));
        }
        self.seen.push(f);
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
            [] => Verdict::Unknown(self.unclaimed.join("; ")),
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
            verdict(&[r#"{"foo":1}"#]),
            Verdict::Unknown("an object with keys foo".to_owned())
        );
    }
}
