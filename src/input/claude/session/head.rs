//! Pass 1's view of a row: the few fields the index needs (ids, parent, flags, the session facts,
//! the sub-agent links), decoded straight from the line's text, borrowing it.
//!
//! Building a `serde_json::Value` tree of every row only to read a dozen fields of it was most of
//! pass 1's time (every key and string copied, every object a map, then all of it dropped). Here
//! each object is read into a small struct whose fields are the keys pass 1 reads; every other
//! value is only checked ([`Checked`]), not kept.
//!
//! The decoding accepts and rejects exactly the lines `Value` does, so a line's diagnostics do not
//! change: [`Checked`] (`input::lenient`) walks a value through the same `deserialize_any` paths (nesting limit,
//! string escapes, number range) without keeping it, a key given twice keeps its last value (as a
//! `Value` map does), and a field of an unexpected kind reads as absent, as `Value::as_str` gives
//! `None` for it. A line this decoding rejects is decoded again as a `Value`
//! (`parse_json_line`) for its diagnostic.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::chain::key;
use crate::input::lenient::Checked;

/// The visitor methods for the value kinds a field does not read: each is checked and reads as
/// `$other`.
macro_rules! other_kinds {
    ($other:expr) => {
        other_scalars!($other);
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq).map(|_| $other)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            drain_map(map).map(|_| $other)
        }
    };
}

/// The visitor methods for null and numbers, which read as `$other`.
macro_rules! other_scalars {
    ($other:expr) => {
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
}

/// An object's fields by name: `index` numbers a key pass 1 reads, `field` decodes the value of
/// the key numbered `i` into its slot.
pub(crate) trait Fields<'de>: Default {
    fn index(name: &str) -> Option<usize>;
    fn field<A: MapAccess<'de>>(&mut self, i: usize, map: &mut A) -> Result<(), A::Error>;
}

/// Implements [`Fields`] for a struct from its wire names and fields, in one list.
macro_rules! fields {
    ($lt:lifetime, $ty:ty { $($name:literal => $field:ident),* $(,)? }) => {
        impl<$lt> Fields<$lt> for $ty {
            fn index(name: &str) -> Option<usize> {
                #[allow(non_camel_case_types)]
                enum F { $($field),* }
                match name {
                    $($name => Some(F::$field as usize),)*
                    _ => None,
                }
            }
            fn field<A: MapAccess<$lt>>(&mut self, i: usize, map: &mut A) -> Result<(), A::Error> {
                #[allow(non_camel_case_types)]
                enum F { $($field),* }
                $(
                    if i == F::$field as usize {
                        self.$field = map.next_value()?;
                        return Ok(());
                    }
                )*
                map.next_value::<Checked>().map(drop)
            }
        }
    };
}

/// A row's fields pass 1 reads (wire spec §7: conversation rows, and the entries outside the
/// chain whose titles and operations it records).
#[derive(Debug, Default)]
pub(crate) struct Head<'a> {
    pub(crate) ty: Scalar<'a>,
    pub(crate) uuid: Scalar<'a>,
    pub(crate) parent_uuid: Scalar<'a>,
    pub(crate) logical_parent_uuid: Scalar<'a>,
    pub(crate) is_sidechain: Scalar<'a>,
    pub(crate) agent_id: Scalar<'a>,
    pub(crate) subtype: Scalar<'a>,
    pub(crate) session_id: Scalar<'a>,
    pub(crate) cwd: Scalar<'a>,
    pub(crate) version: Scalar<'a>,
    pub(crate) git_branch: Scalar<'a>,
    pub(crate) permission_mode: Scalar<'a>,
    pub(crate) timestamp: Scalar<'a>,
    pub(crate) message: Obj<Message<'a>>,
    pub(crate) tool_use_result: Obj<ToolUseResult<'a>>,
    pub(crate) attachment: Obj<Attachment<'a>>,
    pub(crate) custom_title: Scalar<'a>,
    pub(crate) title: Scalar<'a>,
    pub(crate) ai_title: Scalar<'a>,
    pub(crate) summary: Scalar<'a>,
    pub(crate) operation: Scalar<'a>,
    pub(crate) content: Scalar<'a>,
    /// A tool result the permission system decided on (pass 2 reads such a row whole).
    pub(crate) permission_decision: Present,
    pub(crate) tool_denial_kind: Present,
}

fields!('de, Head<'de> {
    "type" => ty,
    "uuid" => uuid,
    "parentUuid" => parent_uuid,
    "logicalParentUuid" => logical_parent_uuid,
    "isSidechain" => is_sidechain,
    "agentId" => agent_id,
    "subtype" => subtype,
    "sessionId" => session_id,
    "cwd" => cwd,
    "version" => version,
    "gitBranch" => git_branch,
    "permissionMode" => permission_mode,
    "timestamp" => timestamp,
    "message" => message,
    "toolUseResult" => tool_use_result,
    "attachment" => attachment,
    "customTitle" => custom_title,
    "title" => title,
    "aiTitle" => ai_title,
    "summary" => summary,
    "operation" => operation,
    "content" => content,
    "permissionDecision" => permission_decision,
    "toolDenialKind" => tool_denial_kind,
});

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

/// `message`: its id, model and content.
#[derive(Debug, Default)]
pub(crate) struct Message<'a> {
    pub(crate) id: Scalar<'a>,
    pub(crate) model: Scalar<'a>,
    pub(crate) content: Content<'a>,
}

fields!('de, Message<'de> { "id" => id, "model" => model, "content" => content });

/// `toolUseResult`: the sub-agent a result names.
#[derive(Debug, Default)]
pub(crate) struct ToolUseResult<'a> {
    pub(crate) agent_id: Scalar<'a>,
}

fields!('de, ToolUseResult<'de> { "agentId" => agent_id });

/// `attachment`: its type.
#[derive(Debug, Default)]
pub(crate) struct Attachment<'a> {
    pub(crate) ty: Scalar<'a>,
}

fields!('de, Attachment<'de> { "type" => ty });

/// One content block: its kind, ids, text (as a key) and an Agent call's input.
#[derive(Debug, Default)]
pub(crate) struct Block<'a> {
    pub(crate) ty: Scalar<'a>,
    pub(crate) id: Scalar<'a>,
    pub(crate) tool_use_id: Scalar<'a>,
    /// The key of its `text` when that is a string (a sub-agent's first prompt is matched by it).
    pub(crate) text: Hashed,
    pub(crate) input: Obj<Input>,
    /// Its `content` may be a `<persisted-output>` preview (pass 2 reads such a row whole).
    pub(crate) preview: Preview,
}

fields!('de, Block<'de> {
    "type" => ty,
    "id" => id,
    "tool_use_id" => tool_use_id,
    "text" => text,
    "input" => input,
    "content" => preview,
});

/// Whether a tool result's `content` starts as a preview of an output kept in a file of its own:
/// its text, or the first of its items' texts that is not blank, begins `<persisted-output>`
/// (what `emit::persisted_output` looks for).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Preview(pub(crate) bool);

/// How a content item's `text` begins, for [`Preview`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) enum TextStart {
    /// Absent, or not a string.
    #[default]
    None,
    Blank,
    /// Not blank: whether it begins `<persisted-output>`.
    Starts(bool),
}

/// One item of a tool result's `content` list, for [`Preview`].
#[derive(Debug, Default)]
pub(crate) struct Item {
    pub(crate) text: TextStart,
}

fields!('de, Item { "text" => text });

/// How a preview of a tool output kept in a file of its own starts.
pub(crate) const PERSISTED: &str = "<persisted-output>";

impl TextStart {
    fn of(s: &str) -> TextStart {
        let t = s.trim_start();
        if t.is_empty() {
            TextStart::Blank
        } else {
            TextStart::Starts(t.starts_with(PERSISTED))
        }
    }
}

impl<'de> Deserialize<'de> for TextStart {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TextStart;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(TextStart::of(s))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(TextStart::None)
            }
            other_kinds!(TextStart::None);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Preview {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Preview;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Preview(matches!(TextStart::of(s), TextStart::Starts(true))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Preview(false))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut first = None;
                while let Some(item) = seq.next_element::<Obj<Item>>()? {
                    if let (None, TextStart::Starts(p)) = (first, item.0.text) {
                        first = Some(p);
                    }
                }
                Ok(Preview(first == Some(true)))
            }
            other_scalars!(Preview(false));
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map).map(|_| Preview(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// A tool call's input, as far as telling an Agent call: does it have a description or agent
/// type, and the key of its prompt.
#[derive(Debug, Default)]
pub(crate) struct Input {
    pub(crate) description: Present,
    pub(crate) subagent_type: Present,
    pub(crate) prompt: Hashed,
}

fields!('de, Input { "description" => description, "subagent_type" => subagent_type, "prompt" => prompt });

/// `message.content`: a string (kept as its key) or a list of blocks.
#[derive(Debug, Default)]
pub(crate) enum Content<'a> {
    /// Absent, or neither a string nor a list.
    #[default]
    Other,
    Text(u64),
    Blocks(Vec<Obj<Block<'a>>>),
}

/// Decodes a row's line; `None` when it is not a JSON object (or not JSON): the caller decodes it
/// as a `Value` for the diagnostic.
pub(crate) fn read(text: &str) -> Option<Head<'_>> {
    match serde_json::from_str::<Obj<Head<'_>>>(text) {
        Ok(o) if o.1 => Some(o.0),
        Ok(_) | Err(_) => None,
    }
}

/// A row already decoded as a `Value` (the fallback after [`read`] refused it): the same view.
pub(crate) fn of_value(v: &serde_json::Value) -> Head<'_> {
    Obj::<Head<'_>>::deserialize(v).map_or_else(|_| Head::default(), |o| o.0)
}

/// A field pass 1 reads as a string or a flag, whatever kind of value it turns out to be.
#[derive(Debug, Default)]
pub(crate) enum Scalar<'a> {
    #[default]
    Absent,
    /// A string: borrowed from the line unless it had escapes.
    Str(Cow<'a, str>),
    Bool(bool),
    /// Present, of another kind (null, a number, an array, an object).
    Other,
}

impl Scalar<'_> {
    /// `Value::as_str`.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            Scalar::Absent | Scalar::Bool(_) | Scalar::Other => None,
        }
    }

    /// `Value::as_bool`.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Scalar::Bool(b) => Some(*b),
            Scalar::Absent | Scalar::Str(_) | Scalar::Other => None,
        }
    }

    /// The key is there, whatever its value (`Value::get(k).is_some()`).
    pub(crate) fn is_present(&self) -> bool {
        !matches!(self, Scalar::Absent)
    }
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(s.to_owned())))
            }
            fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
                Ok(Scalar::Bool(b))
            }
            other_kinds!(Scalar::Other);
        }
        d.deserialize_any(V)
    }
}

/// The key (`chain::key`) of a field when it is a string; the string itself is not kept.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Hashed(pub(crate) Option<u64>);

impl<'de> Deserialize<'de> for Hashed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Hashed;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Hashed(Some(key(s))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Hashed(None))
            }
            other_kinds!(Hashed(None));
        }
        d.deserialize_any(V)
    }
}

/// Whether a key is there, whatever its value (`Value::pointer(..).is_some()`).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Present(pub(crate) bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Checked::deserialize(d).map(|_| Present(true))
    }
}

impl<'de> Deserialize<'de> for Content<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(key(s)))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1).min(16));
                while let Some(b) = seq.next_element()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            other_scalars!(Content::Other);
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map).map(|_| Content::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// An object read as `T`, and whether it was one: any other kind of value is checked and reads as
/// `T::default()` (every field absent), as `Value::get` finds nothing in it.
#[derive(Debug, Default)]
pub(crate) struct Obj<T>(pub(crate) T, pub(crate) bool);

impl<'de, T: Fields<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Fields<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut t = T::default();
                while let Some(k) = map.next_key_seed(FieldOf::<T>(PhantomData))? {
                    match k {
                        // A key given twice keeps its last value, as a `Value` map does.
                        Some(i) => t.field(i, &mut map)?,
                        None => map.next_value::<Checked>().map(drop)?,
                    }
                }
                Ok(Obj(t, true))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq).map(|_| Obj(T::default(), false))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Obj(T::default(), false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Obj(T::default(), false))
            }
            other_scalars!(Obj(T::default(), false));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A key, as the number `T` gives its name (`None`: a key `T` does not read); the key's text is
/// never copied.
struct FieldOf<T>(PhantomData<T>);

impl<'de, T: Fields<'de>> DeserializeSeed<'de> for FieldOf<T> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, T: Fields<'de>> Visitor<'de> for FieldOf<T> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(T::index(s))
    }
}

/// Reads the rest of a list, each item checked as a `Value` parse would read it ([`Checked`]).
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<Checked>()?.is_some() {}
    Ok(())
}

/// Reads the rest of an object, each key and value checked as a `Value` parse would read them.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<Checked, Checked>()?.is_some() {}
    Ok(())
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
        assert!(!blocks[1].1);
        assert!(blocks[2].0.input.0.description.0);
        assert!(!blocks[2].0.input.0.subagent_type.0);
        assert_eq!(blocks[2].0.input.0.prompt.0, Some(key("p")));
        assert!(!h.tool_use_result.1);
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
