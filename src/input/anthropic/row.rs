//! A Claude `assistant` or `user` line (stream-json) or row (saved session), decoded into typed,
//! borrowed structs: only the fields `messages` and `blocks` read, strings lent by the line where
//! they have no escapes, free-form content (a call's input, a result's content, the result
//! details) kept as `Value`. Parsing these lines into whole `Value` trees was a third of a run
//! (issue 14); every field reads as the `Value` accessor it replaces (`input::lenient`).
//!
//! The same structs are read from a `&Value` for the callers that hold one (a saved session's
//! rows, Qwen's stream-json), so there is one decoder for both.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::input::lenient;
use crate::model::transcript::Usage;

/// The fields of a row that the message decoder reads.
#[derive(Debug, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
pub(crate) struct Row<'a> {
    #[serde(rename = "type", deserialize_with = "lenient::str")]
    pub(crate) ty: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::object")]
    pub(crate) message: Option<Message<'a>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) uuid: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) timestamp: Option<Cow<'a, str>>,
    /// The stream's spelling.
    #[serde(deserialize_with = "lenient::bool")]
    pub(crate) is_api_error_message: Option<bool>,
    /// A saved session's spelling.
    #[serde(rename = "isApiErrorMessage", deserialize_with = "lenient::bool")]
    pub(crate) is_api_error_message_saved: Option<bool>,
    /// `Some` when the field is there (even `null`), holding its text when it is a string.
    #[serde(deserialize_with = "lenient::present_str")]
    pub(crate) error: Option<Option<Cow<'a, str>>>,
    #[serde(deserialize_with = "lenient::bool")]
    pub(crate) aborted: Option<bool>,
    /// The result details, stream spelling.
    #[serde(deserialize_with = "lenient::present")]
    pub(crate) tool_use_result: Option<Value>,
    /// The result details, saved-session spelling.
    #[serde(rename = "toolUseResult", deserialize_with = "lenient::present")]
    pub(crate) tool_use_result_saved: Option<Value>,
    #[serde(rename = "isReplay", deserialize_with = "lenient::bool")]
    pub(crate) is_replay: Option<bool>,
    #[serde(rename = "isSynthetic", deserialize_with = "lenient::bool")]
    pub(crate) is_synthetic: Option<bool>,
    #[serde(rename = "isMeta", deserialize_with = "lenient::bool")]
    pub(crate) is_meta: Option<bool>,
    #[serde(
        rename = "isVisibleInTranscriptOnly",
        deserialize_with = "lenient::bool"
    )]
    pub(crate) is_visible_in_transcript_only: Option<bool>,
    #[serde(rename = "isCompactSummary", deserialize_with = "lenient::bool")]
    pub(crate) is_compact_summary: Option<bool>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) priority: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::array")]
    pub(crate) file_attachments: Option<Vec<Value>>,
    /// A saved session's spelling; `Some` when the field is there.
    #[serde(rename = "sourceToolUseID", deserialize_with = "lenient::present_str")]
    pub(crate) source_tool_use_id_saved: Option<Option<Cow<'a, str>>>,
    #[serde(deserialize_with = "lenient::present_str")]
    pub(crate) source_tool_use_id: Option<Option<Cow<'a, str>>>,
}

/// The `message` object of a row.
#[derive(Debug, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
pub(crate) struct Message<'a> {
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) id: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) model: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) stop_reason: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::object")]
    pub(crate) usage: Option<UsageFields>,
    pub(crate) content: Content<'a>,
}

/// A message's token counts (`Usage::from_json`, typed).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct UsageFields {
    #[serde(deserialize_with = "lenient::u64")]
    input_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient::u64")]
    output_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient::u64")]
    cache_read_input_tokens: Option<u64>,
    #[serde(deserialize_with = "lenient::u64")]
    cache_creation_input_tokens: Option<u64>,
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

/// The fields of a content block that `blocks::block` reads, for every block type it knows.
#[derive(Debug, Default, Deserialize)]
#[serde(default, bound(deserialize = "'de: 'a"))]
pub(crate) struct RawBlock<'a> {
    #[serde(rename = "type", deserialize_with = "lenient::str")]
    pub(crate) ty: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) text: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::present")]
    pub(crate) citations: Option<Value>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) thinking: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) signature: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) id: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) name: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::present")]
    pub(crate) input: Option<Value>,
    #[serde(deserialize_with = "lenient::present")]
    pub(crate) caller: Option<Value>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) server_name: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) tool_use_id: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::bool")]
    pub(crate) is_error: Option<bool>,
    #[serde(deserialize_with = "lenient::present")]
    pub(crate) content: Option<Value>,
    #[serde(deserialize_with = "lenient::present")]
    pub(crate) source: Option<Value>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) title: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) file_id: Option<Cow<'a, str>>,
    #[serde(deserialize_with = "lenient::str")]
    pub(crate) tool_name: Option<Cow<'a, str>>,
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
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Content::None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Content<'a>, E> {
        Ok(Content::None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Content<'a>, E> {
        Ok(Content::None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Content<'a>, E> {
        Ok(Content::None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Content<'a>, E> {
        Ok(Content::None)
    }

    fn visit_unit<E>(self) -> Result<Content<'a>, E> {
        Ok(Content::None)
    }

    fn visit_none<E>(self) -> Result<Content<'a>, E> {
        Ok(Content::None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Content<'a>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Element<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match lenient::object::<D, RawBlock<'a>>(d)? {
            Some(b) => Element::Block(Box::new(b)),
            None => Element::NotObject,
        })
    }
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
                parsed.get_or_init(|| serde_json::from_str(text).unwrap_or(Value::Null))
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

/// A row read from a `Value` (a saved session's row, Qwen's stream-json line). It cannot fail:
/// every field is lenient, and a `Value` holds no duplicate key; anything not an object reads
/// as a row with no fields, as `Value::get` reads it.
pub(crate) fn from_value(v: &Value) -> Row<'_> {
    Row::deserialize(v).unwrap_or_default()
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

    /// The result details (`tool_use_result` / `toolUseResult`) when there and not `null`.
    pub(crate) fn take_details(&mut self, spelling: Spelling) -> Option<Value> {
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
