//! The scanner as a serde `Deserializer`: a line's typed structs (`lenient_struct!`, read by
//! `lenient::fill_from_str`) decoded by [`Scanner`] rather than by serde_json.
//!
//! Most of a stream line's bytes are in values nobody reads (a tool's output, a file's text), or
//! in long strings that are read once and borrowed. serde_json copies each string with escapes
//! into its scratch buffer and checks a skipped value by building it for `lenient::Checked`;
//! here a skipped value is stepped over by [`Scanner::skip`], and a string is found with
//! `memchr2`. This deserializer only ever *declines*: any line it cannot read as serde_json
//! would, it gives up on ([`Declined`]), and the caller reads the line again through serde_json,
//! whose verdict and diagnostic are the reference. What it reads, it reads as serde_json does:
//! the same visitor calls for strings, maps and lists, numbers handed to serde_json itself, a
//! `RawValue` lent by the same protocol, a map or list the visitor leaves unfinished refused as
//! serde_json refuses it.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Refused, Scanner};
use crate::lenient::{Fill, LEAD_TOKEN};
use crate::write::RAW_JSON_TOKEN;

/// The name `lenient::Checked` asks for with `deserialize_newtype_struct`: the scanner steps
/// over the value ([`Scanner::skip`], as strict as a `Value` parse) instead of building it. Any
/// other deserializer sees an ordinary newtype and reads the value as before.
pub(crate) const CHECKED_TOKEN: &str = "$scribe::Checked";

/// The name [`crate::Compacted`] asks for with `deserialize_newtype_struct`: the scanner hands
/// over the next value put into the form [`crate::write`] writes, in the walk that checks it
/// ([`crate::compact`]'s), as `visit_string`; where it does not put it in that form (a repeated
/// key, an object of many keys), it hands over the value's text, checked, as
/// `visit_borrowed_str`. Any other deserializer sees an ordinary newtype.
pub(crate) const COMPACT_TOKEN: &str = "$scribe::Compact";

/// What [`COMPACT_TOKEN`] reserves for the value's written form: the rest of the line, as the
/// value seldom takes less of it (a line's free-form details come last), up to this much.
const COMPACT_RESERVED: usize = 1 << 16;

/// The scanner gave up on the line; serde_json reads it instead (see the module doc).
#[derive(Debug)]
pub struct Declined;

impl fmt::Display for Declined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("left to serde_json")
    }
}

impl std::error::Error for Declined {}

impl de::Error for Declined {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Declined
    }
}

impl From<Refused> for Declined {
    fn from(_: Refused) -> Self {
        Declined
    }
}

impl<'de> Deserializer<'de> for &mut Scanner<'de> {
    type Error = Declined;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Declined> {
        match self.peek() {
            Some(b'"') => match self.string()? {
                Cow::Borrowed(raw) => visitor.visit_borrowed_str(raw),
                Cow::Owned(text) => visitor.visit_string(text),
            },
            Some(b'{') => {
                self.begin_object()?;
                let mut entries = Entries::new(self);
                let value = visitor.visit_map(&mut entries)?;
                // serde_json refuses an object its visitor stopped reading part way.
                entries.done.then_some(value).ok_or(Declined)
            }
            Some(b'[') => {
                self.begin_array()?;
                let mut elements = Elements {
                    scanner: self,
                    first: true,
                    done: false,
                };
                let value = visitor.visit_seq(&mut elements)?;
                elements.done.then_some(value).ok_or(Declined)
            }
            Some(b't') => {
                self.literal("true")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.literal("false")?;
                visitor.visit_bool(false)
            }
            Some(b'n') => {
                self.literal("null")?;
                visitor.visit_unit()
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.at;
                self.number()?;
                let token = &self.text[start..self.at];
                // Up to 19 digits always fit a `u64`: serde_json visits them as one.
                if token.len() <= 19 && token.bytes().all(|b| b.is_ascii_digit()) {
                    return visitor.visit_u64(token.parse().map_err(|_| Declined)?);
                }
                // Negative, fractional, exponent, long: serde_json's own reading, exactly.
                serde_json::Deserializer::from_str(token)
                    .deserialize_any(visitor)
                    .map_err(|_| Declined)
            }
            _ => Err(Declined),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Declined> {
        match self.peek() {
            Some(b'n') => {
                self.literal("null")?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Declined> {
        match name {
            CHECKED_TOKEN => {
                self.skip()?;
                visitor.visit_unit()
            }
            COMPACT_TOKEN => {
                self.peek();
                let (start, depth) = (self.at, self.depth);
                let rest = self.text.len() - start;
                let mut out = Vec::with_capacity(rest.min(COMPACT_RESERVED));
                if crate::compact::compact_next(self, &mut out).is_ok() {
                    let text = crate::utf8::into_string(out).map_err(|_| Declined)?;
                    return visitor.visit_string(text);
                }
                self.at = start;
                self.depth = depth;
                self.skip()?;
                visitor.visit_borrowed_str(&self.text[start..self.at])
            }
            LEAD_TOKEN => match self.peek() {
                Some(b'"') => match self.raw_string()? {
                    (plain, false) => visitor.visit_borrowed_str(plain),
                    (raw, true) => visitor.visit_str(&lead_of_escaped(raw)),
                },
                _ => visitor.visit_newtype_struct(self),
            },
            // serde_json's `RawValue`: the value's text, as a one-entry map under the token.
            RAW_JSON_TOKEN => {
                self.peek();
                let start = self.at;
                self.skip()?;
                visitor.visit_map(RawEntry(Some(&self.text[start..self.at])))
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    /// serde_json's own skip lets through what a `Value` parse refuses; this one does not, and
    /// a line it refuses goes to serde_json, which then decides.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Declined> {
        self.skip()?;
        visitor.visit_unit()
    }

    /// serde_json's enum access is not mirrored: such a line is left to it.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Declined> {
        Err(Declined)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

/// The first characters of a string with escapes (`raw`, its text as written, checked), past its
/// leading white space, decoded: enough of them for [`crate::lenient::Lead::of`] to give what it
/// gives of the whole string, without decoding the rest (a tool output may be megabytes).
fn lead_of_escaped(raw: &str) -> String {
    let mut lead = String::with_capacity(crate::lenient::Lead::LEN + 4);
    for c in super::Chars::new(raw).skip_while(|c| c.is_whitespace()) {
        if lead.len() > crate::lenient::Lead::LEN {
            break;
        }
        lead.push(c);
    }
    lead
}

/// An object's entries, read one by one by a visitor.
struct Entries<'s, 'de> {
    scanner: &'s mut Scanner<'de>,
    first: bool,
    /// The closing `}` was taken.
    done: bool,
}

impl<'s, 'de> Entries<'s, 'de> {
    /// The entries of the object whose `{` the scanner has just taken.
    fn new(scanner: &'s mut Scanner<'de>) -> Self {
        Entries {
            scanner,
            first: true,
            done: false,
        }
    }
}

impl<'de> MapAccess<'de> for &mut Entries<'_, 'de> {
    type Error = Declined;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Declined> {
        if self.done {
            return Ok(None);
        }
        match self.scanner.key(&mut self.first)? {
            None => {
                self.done = true;
                Ok(None)
            }
            Some(Cow::Borrowed(key)) => seed
                .deserialize(BorrowedStrDeserializer::<Declined>::new(key))
                .map(Some),
            Some(Cow::Owned(key)) => seed
                .deserialize(de::value::StringDeserializer::<Declined>::new(key))
                .map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Declined> {
        seed.deserialize(&mut *self.scanner)
    }
}

/// A list's elements, read one by one by a visitor.
struct Elements<'s, 'de> {
    scanner: &'s mut Scanner<'de>,
    first: bool,
    /// The closing `]` was taken.
    done: bool,
}

impl<'de> SeqAccess<'de> for &mut Elements<'_, 'de> {
    type Error = Declined;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Declined> {
        if self.done {
            return Ok(None);
        }
        match self.scanner.element(&mut self.first)? {
            false => {
                self.done = true;
                Ok(None)
            }
            true => seed.deserialize(&mut *self.scanner).map(Some),
        }
    }
}

/// A `RawValue`'s text, handed over as serde_json hands it: one entry, keyed by the token.
struct RawEntry<'de>(Option<&'de str>);

impl<'de> MapAccess<'de> for RawEntry<'de> {
    type Error = Declined;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Declined> {
        match self.0 {
            None => Ok(None),
            Some(_) => seed
                .deserialize(BorrowedStrDeserializer::<Declined>::new(RAW_JSON_TOKEN))
                .map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Declined> {
        let raw = self.0.take().ok_or(Declined)?;
        seed.deserialize(BorrowedStrDeserializer::<Declined>::new(raw))
    }
}

/// Reads `text`, which must be one JSON object with nothing after it, into `out` as
/// [`Fill::fill`] reads an object, or declines; what was written into `out` before a decline is
/// the caller's to drop.
pub(crate) fn fill_object<'de, T: Fill<'de>>(text: &'de str, out: &mut T) -> Result<(), Declined> {
    let mut scanner = Scanner::new(text).ok_or(Declined)?;
    scanner.begin_object()?;
    let mut entries = Entries::new(&mut scanner);
    out.fill(&mut entries)?;
    if !entries.done {
        return Err(Declined);
    }
    Ok(scanner.end()?)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::path::Path;

    use serde_json::Value;
    use serde_json::value::RawValue;

    use super::*;
    use crate::lenient::{Array, Bool, Items, Obj, Object, Present, PresentStr, Same, Str, U64};
    use crate::line::scanned as scanned_value;

    crate::lenient_struct! {
        /// A row of a stream line, with a field of every reader kind.
        pub(crate) struct Row<'a> {
            "type" => ty: Option<Cow<'a, str>> as Str<'a>,
            "uuid" => uuid: Option<Option<Cow<'a, str>>> as PresentStr<'a>,
            "isMeta" => is_meta: Option<bool> as Bool,
            "message" => message: Option<Message<'a>> as Object<Message<'a>>,
            "toolUseResult" => result: Option<Box<RawValue>> as Same<Option<Box<RawValue>>>,
            "attachments" => attachments: Option<Vec<Value>> as Array,
        }
    }

    crate::lenient_struct! {
        /// A row's `message`.
        pub(crate) struct Message<'a> {
            "id" => id: Option<Cow<'a, str>> as Str<'a>,
            "usage" => usage: Option<Value> as Present,
            "content" => content: Option<Vec<Obj<Block<'a>>>> as Items<Obj<Block<'a>>>,
        }
    }

    crate::lenient_struct! {
        /// One block of a message's content.
        pub(crate) struct Block<'a> {
            "type" => ty: Option<Cow<'a, str>> as Str<'a>,
            "text" => text: Option<Cow<'a, str>> as Str<'a>,
            "n" => n: Option<u64> as U64,
            "input" => input: Option<Box<RawValue>> as Same<Option<Box<RawValue>>>,
        }
    }

    /// A row read by the scanner and the same row read by serde_json, as their `Debug` text
    /// (the scanner's `None` where it declines, serde_json's where it refuses).
    fn rows(text: &str) -> (Option<String>, Option<String>) {
        let mut ours = Row::default();
        let ours = fill_object(text, &mut ours)
            .is_ok()
            .then(|| format!("{ours:?}"));
        let theirs = serde_json::from_str::<Row>(text)
            .ok()
            .map(|row| format!("{row:?}"));
        (ours, theirs)
    }

    /// Every line of the repository's own samples (`samples/` at the workspace's root).
    fn sample_lines() -> Vec<String> {
        let mut lines = Vec::new();
        let mut folders = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")];
        while let Some(folder) = folders.pop() {
            for path in std::fs::read_dir(folder)
                .unwrap()
                .flatten()
                .map(|e| e.path())
            {
                if path.is_dir() {
                    folders.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    lines.extend(text.lines().map(str::to_owned));
                }
            }
        }
        lines
    }

    /// Lines that hold what the samples may not: every kind of number, escapes in keys and
    /// values, repeated keys, raw details, nesting.
    const EDGES: &[&str] = &[
        r#"{"a":0,"b":-0,"c":-1,"d":18446744073709551615,"e":18446744073709551616,"f":-9223372036854775808,"g":-9223372036854775809}"#,
        r#"{"a":1.5,"b":-0.0,"c":1e3,"d":1E-3,"e":2.5e+10,"f":123456789012345678901234567890,"g":0.1}"#,
        r#"{"a":9999999999999999999,"b":99999999999999999999,"c":1.7976931348623157e308}"#,
        r#"{"k\u0065y":"v\n\"q\"","\"":"\ud83d\ude00","a":"é"}"#,
        r#"{"type":"user","type":"assistant","message":{"content":"x"},"message":{"content":[{"type":"text","text":"y"}]}}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls","n":[1,2.5,{"x":null}]}}]}}"#,
        r#" { "type" : "user" , "message" : { "content" : [ { "type" : "tool_result" , "content" : [ ] } ] } } "#,
        r#"{"type":"result","usage":{"input_tokens":12,"output_tokens":3.0},"total_cost_usd":0.012345}"#,
        r#"{"a":[[[[[[]]]]]],"b":{"c":{"d":{}}},"e":[true,false,null,""]}"#,
        r#"{}"#,
        r#"{"ty\u0070e":"user","message":{"c\u006fntent":"x","id":"m"},"\u0075uid":"u"}"#,
    ];

    /// What the scanner reads as a `Value` is what serde_json reads, on every sample line and
    /// every edge, and it declines almost none of them.
    #[test]
    fn reads_values_as_serde_does() {
        let lines = sample_lines();
        let mut read = 0;
        for line in lines
            .iter()
            .map(String::as_str)
            .chain(EDGES.iter().copied())
        {
            let theirs = serde_json::from_str::<Value>(line).ok();
            match scanned_value(line) {
                Some(ours) => {
                    assert_eq!(Some(&ours), theirs.as_ref(), "{line}");
                    // Equal as text too: a number that compares equal but prints otherwise.
                    assert_eq!(ours.to_string(), theirs.unwrap().to_string(), "{line}");
                    read += 1;
                }
                None => assert!(
                    theirs.is_none() || Scanner::new(line).is_none(),
                    "declined: {line}"
                ),
            }
        }
        assert!(read > 500, "{read}");
    }

    /// A row read by the scanner is the row serde_json reads: every field, the tool input's
    /// raw text, repeated keys (the last wins).
    #[test]
    fn reads_rows_as_serde_does() {
        let mut read = 0;
        for line in sample_lines()
            .iter()
            .map(String::as_str)
            .chain(EDGES.iter().copied())
        {
            match rows(line) {
                (Some(ours), theirs) => {
                    assert_eq!(Some(ours), theirs, "{line}");
                    read += 1;
                }
                (None, theirs) => assert!(
                    theirs.is_none() || Scanner::new(line).is_none() || !line.starts_with('{'),
                    "declined: {line}"
                ),
            }
        }
        assert!(read > 500, "{read}");
    }

    /// Each mutant of a row-like line at every byte: a row the scanner reads, serde_json reads
    /// the same; and a mutant serde_json refuses, the scanner does not read.
    #[test]
    fn never_reads_a_mutant_otherwise() {
        let line = r#"{"type":"assistant","uuid":"u1","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"a\"b\\c\u00e9","n":[1,-2.5e3,true,null]}},{"type":"text","text":"hi\ud83d\ude00"}],"usage":{"input_tokens":5}},"x":{"k":{}}}"#;
        let replacements = [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'e', b'0', b'-', b'u', b'd', b'x',
            b' ',
        ];
        let mut read = 0;
        for mutant in crate::scan::tests::mutants(line, &replacements) {
            let (ours, theirs) = rows(&mutant);
            if ours.is_some() {
                assert_eq!(ours, theirs, "{mutant}");
                read += 1;
            } else {
                assert!(theirs.is_none(), "declined a row serde reads: {mutant}");
            }
            if let Some(value) = scanned_value(&mutant) {
                assert_eq!(Some(value), serde_json::from_str(&mutant).ok(), "{mutant}");
            }
        }
        for i in 0..line.len() {
            let (ours, theirs) = rows(&line[..i]);
            assert!(ours.is_none() && theirs.is_none(), "{}", &line[..i]);
        }
        assert!(read > 100, "{read}");
    }
}
