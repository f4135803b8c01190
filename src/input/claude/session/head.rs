//! Pass 1's view of a row: the few fields the index needs (ids, parent, flags, the session facts,
//! the sub-agent links), decoded straight from the line's text, borrowing it.
//!
//! Building a `serde_json::Value` tree of every row only to read a dozen fields of it was most of
//! pass 1's time (every key and string copied, every object a map, then all of it dropped). Here
//! each object is read into a small struct whose fields are the keys pass 1 reads; every other
//! value is only checked ([`Checked`]), not kept.
//!
//! The decoding accepts and rejects exactly the lines `Value` does, so a line's diagnostics do not
//! change: the structs are `scribe_json::lenient`'s ([`lenient_struct!`]: a key given twice keeps
//! its last value, every key not named is read as [`Checked`], through the same `deserialize_any`
//! paths as a `Value` parse: nesting limit, string escapes, number range), and a field of an
//! unexpected kind reads as absent, as `Value::as_str` gives `None` for it. A line this decoding
//! rejects is decoded again as a `Value` (`parse_json_line`) for its diagnostic.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

use scribe_json::lenient::{Bool, Given, LEAD_TOKEN, Lead, Obj, PresentStr, Same, Str};
use scribe_json::{lenient_struct, visit_others};

use crate::model::recent::Hashed;

lenient_struct! {
    /// A row's fields pass 1 reads (wire spec §7: conversation rows, and the entries outside the
    /// chain whose titles and operations it records).
    pub(crate) struct Head<'a> {
        "type" => ty: Str<'a> as Same<Str<'a>>,
        "uuid" => uuid: PresentStr<'a> as Same<PresentStr<'a>>,
        "parentUuid" => parent_uuid: PresentStr<'a> as Same<PresentStr<'a>>,
        "logicalParentUuid" => logical_parent_uuid: Str<'a> as Same<Str<'a>>,
        "isSidechain" => is_sidechain: Bool as Same<Bool>,
        "agentId" => agent_id: Str<'a> as Same<Str<'a>>,
        "subtype" => subtype: Str<'a> as Same<Str<'a>>,
        "sessionId" => session_id: Str<'a> as Same<Str<'a>>,
        "cwd" => cwd: Str<'a> as Same<Str<'a>>,
        "version" => version: Str<'a> as Same<Str<'a>>,
        "gitBranch" => git_branch: Str<'a> as Same<Str<'a>>,
        "permissionMode" => permission_mode: Str<'a> as Same<Str<'a>>,
        "timestamp" => timestamp: Str<'a> as Same<Str<'a>>,
        "message" => message: Obj<Message<'a>> as Same<Obj<Message<'a>>>,
        "toolUseResult" => tool_use_result: Obj<ToolUseResult<'a>> as Same<Obj<ToolUseResult<'a>>>,
        "attachment" => attachment: Obj<Attachment<'a>> as Same<Obj<Attachment<'a>>>,
        "customTitle" => custom_title: Str<'a> as Same<Str<'a>>,
        "title" => title: Str<'a> as Same<Str<'a>>,
        "aiTitle" => ai_title: Str<'a> as Same<Str<'a>>,
        "summary" => summary: Str<'a> as Same<Str<'a>>,
        "operation" => operation: Str<'a> as Same<Str<'a>>,
        "content" => content: Str<'a> as Same<Str<'a>>,
        /// A tool result the permission system decided on (pass 2 reads such a row whole).
        "permissionDecision" => permission_decision: Given as Same<Given>,
        "toolDenialKind" => tool_denial_kind: Given as Same<Given>,
    }
}

impl<'a> Head<'a> {
    /// A top-level string field by its wire name, as `v.get(k).and_then(Value::as_str)` reads it
    /// (for the rules `entries` shares with pass 2).
    pub(crate) fn str(&self, k: &str) -> Option<&str> {
        match k {
            "customTitle" => self.custom_title.as_str(),
            "title" => self.title.as_str(),
            "aiTitle" => self.ai_title.as_str(),
            "summary" => self.summary.as_str(),
            "operation" => self.operation.as_str(),
            "content" => self.content.as_str(),
            "uuid" => self.uuid.as_str(),
            _ => None,
        }
    }

    /// `message.content` as blocks (empty when it is a string or absent).
    pub(crate) fn blocks(&self) -> &[Obj<Block<'a>>] {
        match &self.message.0.content {
            Content::Blocks(b) => b,
            Content::Other | Content::Text(_) => &[],
        }
    }
}

lenient_struct! {
    /// `message`: its id, model and content.
    pub(crate) struct Message<'a> {
        "id" => id: Str<'a> as Same<Str<'a>>,
        "model" => model: Str<'a> as Same<Str<'a>>,
        "content" => content: Content<'a> as Same<Content<'a>>,
    }
}

lenient_struct! {
    /// `toolUseResult`: the sub-agent a result names.
    pub(crate) struct ToolUseResult<'a> {
        "agentId" => agent_id: Str<'a> as Same<Str<'a>>,
    }
}

lenient_struct! {
    /// `attachment`: its type.
    pub(crate) struct Attachment<'a> {
        "type" => ty: Str<'a> as Same<Str<'a>>,
    }
}

lenient_struct! {
    /// One content block: its kind, ids, text (as a fingerprint) and an Agent call's input.
    pub(crate) struct Block<'a> {
        "type" => ty: Str<'a> as Same<Str<'a>>,
        "id" => id: Str<'a> as Same<Str<'a>>,
        "tool_use_id" => tool_use_id: Str<'a> as Same<Str<'a>>,
        /// The fingerprint of its `text` when that is a string (a sub-agent's first prompt is
        /// matched by it).
        "text" => text: Hashed as Same<Hashed>,
        "input" => input: Obj<Input> as Same<Obj<Input>>,
        /// Its `content` may be a `<persisted-output>` preview (pass 2 reads such a row whole).
        "content" => preview: Preview as Same<Preview>,
    }
}

/// Whether a tool result's `content` starts as a preview of an output kept in a file of its own:
/// its text, or the first of its items' texts that is not blank, begins `<persisted-output>`
/// (what `emit::persisted_output` looks for).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Preview(pub(crate) bool);

lenient_struct! {
    /// One item of a tool result's `content` list, for [`Preview`].
    pub(crate) struct Item {
        "text" => text: Lead as Same<Lead>,
    }
}

/// How a preview of a tool output kept in a file of its own starts.
pub(crate) const PERSISTED: &str = "<persisted-output>";

impl<'de> Deserialize<'de> for Preview {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Preview;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Preview, D::Error> {
                d.deserialize_any(self)
            }
            /// Read through `Lead::of` only: the line's scanner hands over only a long output's
            /// lead ([`LEAD_TOKEN`]).
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Preview(Lead::of(s).as_str().starts_with(PERSISTED)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // The first item text that is not blank decides.
                let mut first = None;
                while let Some(item) = seq.next_element::<Obj<Item>>()? {
                    match (first, item.0.text.0) {
                        (None, Some(lead)) if !lead.as_str().is_empty() => {
                            first = Some(lead.as_str().starts_with(PERSISTED));
                        }
                        _ => {}
                    }
                }
                Ok(Preview(first == Some(true)))
            }
            visit_others!(Preview(false); scalars);
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                use scribe_json::lenient::Checked;
                while map.next_entry::<Checked, Checked>()?.is_some() {}
                Ok(Preview(false))
            }
        }
        d.deserialize_newtype_struct(LEAD_TOKEN, V)
    }
}

lenient_struct! {
    /// A tool call's input, as far as telling an Agent call: does it have a description or
    /// agent type, and the fingerprint of its prompt.
    pub(crate) struct Input {
        "description" => description: Given as Same<Given>,
        "subagent_type" => subagent_type: Given as Same<Given>,
        "prompt" => prompt: Hashed as Same<Hashed>,
    }
}

/// `message.content`: a string (kept as its fingerprint) or a list of blocks.
#[derive(Debug, Default)]
pub(crate) enum Content<'a> {
    /// Absent, or neither a string nor a list.
    #[default]
    Other,
    Text(u64),
    Blocks(Vec<Obj<Block<'a>>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(crate::model::recent::fingerprint(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(16));
                while let Some(b) = seq.next_element()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            visit_others!(Content::Other; scalars);
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                use scribe_json::lenient::Checked;
                while map.next_entry::<Checked, Checked>()?.is_some() {}
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Decodes a row's line; `None` when it is not a JSON object (or not JSON): the caller decodes it
/// as a `Value` for the diagnostic.
pub(crate) fn read(text: &str) -> Option<Head<'_>> {
    scribe_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines `Value` refuses, this decoding refuses too (their diagnostics come from `Value`).
    #[test]
    fn refuses_what_value_refuses() {
        let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        for bad in [
            r#"{"message":{"content":"\ud800"}}"#,
            r#"{"x":1e999}"#,
            r#"{"x":"a"#,
            r#"{"x":1} trailing"#,
            r#"{"x":"\q"}"#,
            deep.as_str(),
        ] {
            assert!(
                serde_json::from_str::<serde_json::Value>(bad).is_err(),
                "{bad}"
            );
            assert!(read(bad).is_none(), "{bad}");
        }
        for not_object in ["[1]", "\"s\"", "3", "null"] {
            assert!(read(not_object).is_none(), "{not_object}");
        }
    }

    #[test]
    fn reads_fields_as_value_reads_them() {
        let h = read(
            r#"{"type":"user","uuid":"u1","uuid":"u2","isSidechain":"yes","parentUuid":null,
               "message":{"content":[{"type":"tool_result","tool_use_id":"t\u0031"},7,
               {"type":"tool_use","id":"c","input":{"description":null,"prompt":"p"}}]},
               "toolUseResult":"error text","extra":{"deep":[1,2,{"x":null}]}}"#,
        )
        .unwrap();
        assert_eq!(h.ty.as_str(), Some("user"));
        // The last of a repeated key, as a `Value` map keeps it.
        assert_eq!(h.uuid.as_str(), Some("u2"));
        assert_eq!(h.is_sidechain.as_bool(), None);
        assert!(h.parent_uuid.is_present() && h.parent_uuid.as_str().is_none());
        let blocks = h.blocks();
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].0.tool_use_id.as_str(), Some("t1"));
        assert!(blocks[1].0.ty.as_str().is_none() && blocks[1].0.id.as_str().is_none());
        assert!(blocks[2].0.input.0.description.0);
        assert!(!blocks[2].0.input.0.subagent_type.0);
        assert_eq!(
            blocks[2].0.input.0.prompt.0,
            Some(crate::model::recent::fingerprint("p"))
        );
        assert!(h.tool_use_result.0.agent_id.as_str().is_none());
    }

    /// A row reads as serde reads it: the same fields, the same absences, the same refusals (the
    /// corpus's sessions are compared too, in `tests/corpus.rs`'s outputs).
    #[test]
    fn a_row_reads_as_serde_does() {
        let big = format!("{}<persisted-output>", "\\n ".repeat(40));
        let lines = [
            r#"{"type":"user","uuid":"u1","uuid":"u2","isSidechain":"yes","parentUuid":null,
               "message":{"content":[{"type":"tool_result","tool_use_id":"t\u0031"},7,
               {"type":"tool_use","id":"c","input":{"description":null,"prompt":"p\n"}}]},
               "toolUseResult":"error text","extra":{"deep":[1,2,{"x":null}]}}"#
                .replace('\n', " "),
            r#"{"type":"assistant","isSidechain":true,"agentId":"a","sessionId":"s","cwd":"/x","version":"2","gitBranch":"b","permissionMode":"m","timestamp":"t","logicalParentUuid":"l","subtype":"st","message":{"id":"m1","model":"x","content":"hello \ud83d\ude00"},"message":{"id":"m2"}}"#.to_owned(),
            r#"{"type":"user","toolUseResult":{"agentId":"ag","x":[1,{"y":"z"}]},"toolUseResult":{"other":1},"attachment":{"type":"file","type":7},"customTitle":"c","title":"t","aiTitle":"a","summary":"s","operation":"o","content":"c\t","permissionDecision":{"a":1},"toolDenialKind":null}"#.to_owned(),
            format!(r#"{{"message":{{"content":[{{"type":"tool_result","content":"{big}"}},{{"content":[{{"text":"  "}},3,{{"text":"\u0020<persisted-output>"}}]}},{{"content":{{"text":"x"}}}},{{"text":"a\u00e9b","text":5}}]}}}}"#),
            r#"{"message":[1,2],"toolUseResult":[],"attachment":"x","uuid":5,"parentUuid":"p","isSidechain":false}"#.to_owned(),
            r#"{"message":{"content":{"a":1}}}"#.to_owned(),
            r#"{"message":{"content":null},"t\u0079pe":"user"}"#.to_owned(),
            r#"{"message":{"content":"\ud800"}}"#.to_owned(),
            r#"{"x":1e999,"type":"user"}"#.to_owned(),
            r#"{"type":"user"} x"#.to_owned(),
            r#"[{"type":"user"}]"#.to_owned(),
            "{\"type\":\t\"user\"}".to_owned(),
        ];
        for line in &lines {
            let serde = serde_json::from_str::<Head<'_>>(line).ok();
            assert_eq!(format!("{:?}", read(line)), format!("{serde:?}"), "{line}");
        }
    }

    /// Every JSON line of the shared corpus (every agent, every CLI version there) reads the same
    /// through `read` as through serde, and each of its lines cut short is refused by both
    /// or read alike. Skipped when the corpus is not beside the crate, unless it is required.
    #[test]
    fn every_corpus_line_reads_as_serde_does() {
        let Some(root) = crate::test_files::shared_corpus() else {
            return;
        };
        let same = |line: &str| {
            let serde = serde_json::from_str::<Head<'_>>(line).ok();
            assert_eq!(format!("{:?}", read(line)), format!("{serde:?}"), "{line}");
            serde.is_some()
        };
        let mut read_whole = 0;
        for (_, text) in crate::test_files::texts_under(root, |_| true) {
            for line in text.lines().filter(|l| l.trim_start().starts_with('{')) {
                read_whole += usize::from(same(line));
                let cut = (line.len() * 2 / 3..line.len())
                    .find(|&i| line.is_char_boundary(i))
                    .unwrap_or(0);
                same(&line[..cut]);
            }
        }
        assert!(read_whole > 1000, "{read_whole}");
    }

    /// `Block::preview` says what `emit::persisted_output` would look at: the text, or the first
    /// item text that is not blank.
    #[test]
    fn tells_a_persisted_output_preview() {
        let preview = |content: &str| {
            let line = format!(
                r#"{{"message":{{"content":[{{"type":"tool_result","content":{content}}}]}}}}"#
            );
            read(&line).unwrap().blocks()[0].0.preview.0
        };
        assert!(preview(r#"" \n<persisted-output>x""#));
        assert!(!preview(r#""out <persisted-output>""#));
        assert!(preview(
            r#"[{"type":"text","text":"  "},7,{"text":"<persisted-output>"}]"#
        ));
        assert!(!preview(r#"[{"text":"a"},{"text":"<persisted-output>"}]"#));
        assert!(!preview(r#"{"text":"<persisted-output>"}"#));
        assert!(!preview("7"));
    }
}
