//! A Claude `assistant` or `user` line (stream-json) or row (saved session), decoded into typed,
//! borrowed structs: only the fields `messages` and `blocks` read, strings lent by the line where
//! they have no escapes, free-form content (a call's input, a result's content, the result
//! details) kept as `Value`, because parsing these lines into whole `Value` trees was the
//! costliest part of a run; every field reads as the `Value` accessor it replaces
//! (`scribe_json::lenient`).
//!
//! The same structs are read from a `&Value` for the callers that hold one (a saved session's
//! rows, Qwen's stream-json), so there is one decoder for both.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use scribe_json::lenient::{
    Array, Bool, Checked, Fill, Object, Present, PresentStr, Same, Str, U64,
};
use scribe_json::{lenient_struct, visit_others};

use crate::model::details::{Details, PresentDetails};
use crate::model::transcript::Usage;

lenient_struct! {
    /// The fields of a row that the message decoder reads.
    pub(crate) struct Row<'a> {
        "type" => ty: Option<Cow<'a, str>> as Str<'a>,
        "message" => message: Option<Message<'a>> as Object<Message<'a>>,
        "parent_tool_use_id" => parent_tool_use_id: Option<Cow<'a, str>> as Str<'a>,
        "uuid" => uuid: Option<Cow<'a, str>> as Str<'a>,
        /// A saved session's API request (its usage is counted once per message and request).
        "requestId" => request_id: Option<Cow<'a, str>> as Str<'a>,
        "timestamp" => timestamp: Option<Cow<'a, str>> as Str<'a>,
        /// The stream's spelling.
        "is_api_error_message" => is_api_error_message: Option<bool> as Bool,
        /// A saved session's spelling.
        "isApiErrorMessage" => is_api_error_message_saved: Option<bool> as Bool,
        /// `Some` when the field is there (even `null`), holding its text when it is a string.
        "error" => error: Option<Option<Cow<'a, str>>> as PresentStr<'a>,
        "aborted" => aborted: Option<bool> as Bool,
        /// The result details, stream spelling.
        "tool_use_result" => tool_use_result: Option<Details> as PresentDetails,
        /// The result details, saved-session spelling.
        "toolUseResult" => tool_use_result_saved: Option<Details> as PresentDetails,
        "isReplay" => is_replay: Option<bool> as Bool,
        "isSynthetic" => is_synthetic: Option<bool> as Bool,
        "isMeta" => is_meta: Option<bool> as Bool,
        "isVisibleInTranscriptOnly" => is_visible_in_transcript_only: Option<bool> as Bool,
        "isCompactSummary" => is_compact_summary: Option<bool> as Bool,
        "priority" => priority: Option<Cow<'a, str>> as Str<'a>,
        "file_attachments" => file_attachments: Option<Vec<Value>> as Array,
        /// A saved session's spelling; `Some` when the field is there.
        "sourceToolUseID" => source_tool_use_id_saved: Option<Option<Cow<'a, str>>> as PresentStr<'a>,
        "source_tool_use_id" => source_tool_use_id: Option<Option<Cow<'a, str>>> as PresentStr<'a>,
    }
}

lenient_struct! {
    /// The `message` object of a row.
    pub(crate) struct Message<'a> {
        "id" => id: Option<Cow<'a, str>> as Str<'a>,
        "model" => model: Option<Cow<'a, str>> as Str<'a>,
        "stop_reason" => stop_reason: Option<Cow<'a, str>> as Str<'a>,
        "usage" => usage: Option<UsageFields> as Object<UsageFields>,
        "content" => content: Content<'a> as Same<Content<'a>>,
    }
}

lenient_struct! {
    /// A message's token counts (`Usage::from_json`, typed).
    pub(crate) struct UsageFields {
        "input_tokens" => input_tokens: Option<u64> as U64,
        "output_tokens" => output_tokens: Option<u64> as U64,
        "cache_read_input_tokens" => cache_read_input_tokens: Option<u64> as U64,
        "cache_creation_input_tokens" => cache_creation_input_tokens: Option<u64> as U64,
    }
}

impl UsageFields {
    /// The counts, a missing or non-numeric one as 0.
    pub(crate) fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_input_tokens: self.cache_read_input_tokens.unwrap_or(0),
            cache_creation_input_tokens: self.cache_creation_input_tokens.unwrap_or(0),
        }
    }
}

/// A message's `content`: a plain string, blocks, or anything else (no content).
#[derive(Debug, Default)]
pub(crate) enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Element<'a>>),
    #[default]
    None,
}

/// One item of a `content` array: a block, or something that is not an object (kept whole,
/// read again from [`Whole`] when written).
#[derive(Debug)]
pub(crate) enum Element<'a> {
    Block(Box<RawBlock<'a>>),
    NotObject,
}

lenient_struct! {
    /// The fields of a content block that `blocks::block` reads, for every block type it knows.
    pub(crate) struct RawBlock<'a> {
        "type" => ty: Option<Cow<'a, str>> as Str<'a>,
        "text" => text: Option<Cow<'a, str>> as Str<'a>,
        "citations" => citations: Option<Value> as Present,
        "thinking" => thinking: Option<Cow<'a, str>> as Str<'a>,
        "signature" => signature: Option<Cow<'a, str>> as Str<'a>,
        "id" => id: Option<Cow<'a, str>> as Str<'a>,
        "name" => name: Option<Cow<'a, str>> as Str<'a>,
        "input" => input: Option<Value> as Present,
        "caller" => caller: Option<Value> as Present,
        "server_name" => server_name: Option<Cow<'a, str>> as Str<'a>,
        "tool_use_id" => tool_use_id: Option<Cow<'a, str>> as Str<'a>,
        "is_error" => is_error: Option<bool> as Bool,
        "content" => content: Option<Value> as Present,
        "source" => source: Option<Value> as Present,
        "title" => title: Option<Cow<'a, str>> as Str<'a>,
        "file_id" => file_id: Option<Cow<'a, str>> as Str<'a>,
        "tool_name" => tool_name: Option<Cow<'a, str>> as Str<'a>,
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ContentVisitor(std::marker::PhantomData))
    }
}

/// The visitor behind [`Content`].
struct ContentVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
    type Value = Content<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Content<'a>, E> {
        Ok(Content::Text(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Content<'a>, E> {
        Ok(Content::Text(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Content<'a>, E> {
        Ok(Content::Text(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(64));
        while let Some(e) = seq.next_element()? {
            blocks.push(e);
        }
        Ok(Content::Blocks(blocks))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'a>, A::Error> {
        while map.next_entry::<Checked, Checked>()?.is_some() {}
        Ok(Content::None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Content<'a>, D::Error> {
        d.deserialize_any(self)
    }

    visit_others!(Content::None; scalars);
}

impl<'de: 'a, 'a> Deserialize<'de> for Element<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ElementVisitor(std::marker::PhantomData))
    }
}

/// The visitor behind [`Element`]: an object is read into its box where it lies
/// (`RawBlock::fill`; the block is large, and moving it out of each layer of serde's visitors
/// copied it each time), anything else is read and dropped, as [`Object`] reads it.
struct ElementVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ElementVisitor<'a> {
    type Value = Element<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Element<'a>, A::Error> {
        let mut block = Box::<RawBlock<'a>>::default();
        Fill::fill(&mut *block, map)?;
        Ok(Element::Block(block))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Element<'a>, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Element<'a>, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Element::NotObject)
    }

    visit_others!(Element::NotObject; strs, scalars);
}

/// Where a row's content blocks can be had whole, as `Value`s, for the rare block kept as it is
/// (a block type nobody knows, an item that is not an object): the line's text, parsed once on
/// first need, or the `Value` the row was read from.
pub(crate) enum Whole<'a> {
    Text {
        text: &'a str,
        parsed: OnceCell<Value>,
    },
    Value(&'a Value),
}

impl<'a> Whole<'a> {
    /// The row given as its line's text.
    pub(crate) fn text(text: &'a str) -> Whole<'a> {
        Whole::Text {
            text,
            parsed: OnceCell::new(),
        }
    }

    /// Item `i` of the row's `message.content`, whole (`null` if there is none).
    pub(crate) fn block(&self, i: usize) -> Value {
        let row = match self {
            Whole::Text { text, parsed } => {
                parsed.get_or_init(|| scribe_json::parse_line(text).unwrap_or(Value::Null))
            }
            Whole::Value(v) => v,
        };
        row.get("message")
            .and_then(|m| m.get("content"))
            .and_then(|c| c.get(i))
            .cloned()
            .unwrap_or(Value::Null)
    }
}

/// A row read from its line's text, where it lies ([`Fill`]), or `None` when the line is not
/// one JSON object: what `serde_json::from_str::<Row>` gives, without the copies of the row.
pub(crate) fn from_text(text: &str) -> Option<Row<'_>> {
    scribe_json::from_str(text).ok()
}

/// A row or line read from a `Value` (a saved session's row, Qwen's stream-json line, a line
/// the typed way refused). It cannot fail: every field is lenient, and a `Value` holds no
/// duplicate key; anything not an object reads as one with no fields, as `Value::get` reads it.
pub(crate) fn from_value<'a, T: Deserialize<'a> + Default>(v: &'a Value) -> T {
    T::deserialize(v).unwrap_or_default()
}

/// How a format spells the fields the live wire and a saved session name differently.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Spelling {
    /// stream-json (Claude Code's and Qwen Code's): `isSynthetic`, `tool_use_result`.
    Live,
    /// A saved session: `isMeta` / `isVisibleInTranscriptOnly`, `toolUseResult`.
    Saved,
}

impl Row<'_> {
    /// The harness wrote this message itself (§4 row 3's flag, as the format spells it).
    pub(crate) fn synthetic(&self, spelling: Spelling) -> bool {
        match spelling {
            Spelling::Live => self.is_synthetic.unwrap_or(false),
            Spelling::Saved => {
                self.is_meta.unwrap_or(false) || self.is_visible_in_transcript_only.unwrap_or(false)
            }
        }
    }

    /// The call this message answers (`sourceToolUseID` of a saved log, else the stream's
    /// `source_tool_use_id`), when given and not `null`.
    pub(crate) fn take_source_tool_call_id(&mut self) -> Option<String> {
        self.source_tool_use_id_saved
            .take()
            .or(self.source_tool_use_id.take())
            .flatten()
            .map(Cow::into_owned)
    }

    /// The result details (`tool_use_result` / `toolUseResult`) when there and not `null`.
    pub(crate) fn take_details(&mut self, spelling: Spelling) -> Option<Details> {
        match spelling {
            Spelling::Live => self.tool_use_result.take(),
            Spelling::Saved => self.tool_use_result_saved.take(),
        }
        .filter(|d| !d.is_null())
    }
}

/// A `Cow` field as the owned `String` the model keeps ("" when absent).
pub(crate) fn owned(s: Option<Cow<'_, str>>) -> String {
    s.map(Cow::into_owned).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row read where it lies reads as a `Value` of the line does: a repeated `message` keeps
    /// only its last value (not the first one's fields merged with it), a `message` that is not
    /// an object leaves none, and a block that is not an object is kept as such.
    #[test]
    fn a_row_read_in_place_reads_as_a_value_does() {
        let cases = [
            (
                r#"{"message":{"id":"a","model":"m"},"message":{"id":"b"}}"#,
                Some(("b", None)),
            ),
            (r#"{"message":{"id":"a"},"message":"x"}"#, None),
            (
                r#"{"message":"x","message":{"id":"b","model":"n"}}"#,
                Some(("b", Some("n"))),
            ),
            (r#"{"message":[{"id":"a"}]}"#, None),
        ];
        for (line, want) in cases {
            let row = from_text(line).expect(line);
            let got = row
                .message
                .as_ref()
                .map(|m| (m.id.as_deref().unwrap_or(""), m.model.as_deref()));
            assert_eq!(got, want, "{line}");
            let value: Value = serde_json::from_str(line).unwrap();
            assert_eq!(got.map(|g| g.0), value["message"]["id"].as_str(), "{line}");
        }
        let row = from_text(
            r#"{"message":{"content":[{"type":"text","type":"tool_use","id":"t"},7,[1]]}}"#,
        )
        .unwrap();
        let Content::Blocks(blocks) = &row.message.unwrap().content else {
            panic!("blocks");
        };
        assert!(
            matches!(&blocks[0], Element::Block(b) if b.ty.as_deref() == Some("tool_use") && b.id.as_deref() == Some("t"))
        );
        assert!(matches!(blocks[1], Element::NotObject));
        assert!(matches!(blocks[2], Element::NotObject));
    }

    /// What is not one JSON object is refused, as `serde_json::from_str` refuses it.
    #[test]
    fn a_line_that_is_not_one_object_is_refused() {
        for line in [
            r#"[1]"#,
            r#"{"type":"user"} x"#,
            r#"{"type":"user""#,
            r#""s""#,
            r#"{"a":"\ud800"}"#,
        ] {
            assert!(from_text(line).is_none(), "{line}");
            assert!(serde_json::from_str::<Row>(line).is_err(), "{line}");
        }
        assert!(from_text(" {\"type\":\"user\"} \n").is_some());
    }

    /// A row read by `scribe_json` (its scanner, else serde_json) is the row serde_json reads,
    /// on every line of the repository's samples: every field, raw details, repeated keys.
    #[test]
    fn rows_read_as_serde_json_reads_them() {
        let texts = crate::test_files::texts_under(crate::test_files::samples(), |_| true);
        let mut read = 0;
        for line in texts.iter().flat_map(|(_, text)| text.lines()) {
            let ours = scribe_json::from_str::<Row>(line).map(|row| format!("{row:?}"));
            let theirs = serde_json::from_str::<Row>(line).map(|row| format!("{row:?}"));
            assert_eq!(ours.ok(), theirs.as_ref().ok().cloned(), "{line}");
            read += usize::from(theirs.is_ok());
        }
        assert!(read > 500, "{read}");
    }
}
