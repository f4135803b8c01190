//! A harness's free-form details about a tool call (Claude Code's `tool_use_result`, Qwen
//! Code's tool-call record, Codex's exit codes …), kept as compact JSON text.
//!
//! Why text and not a `Value` tree: Claude Code's details repeat a call's whole output in the
//! harness's own shape (a read's file, an edit's patch, a command's stdout), in many small
//! strings. Building a tree of them (a key, a value and a hashed map slot for each) and walking
//! it again to write it was a large part of a `--to jsonl` run (docs/performance.md). Details already in the form the JSONL
//! output writes (`scribe_json::write`) are copied from the line as they stand in the walk that
//! checks them, others put into that form in the same walk ([`read`]), and only a repeated key
//! or an object of many keys goes through a `Value` ([`capture`]). Either way they are copied into
//! the output, and a reader that wants a field reads just that one ([`Details::fields`]).
//!
//! What a `Value` would have kept is kept: the same numbers, the same escapes, keys in their
//! order, and for a key given twice in one object the last value in the first one's place.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use scribe_json::{Compacted, RAW_JSON_TOKEN};

mod rewrite;

pub(crate) use rewrite::Rewrite;

/// Compact JSON text, as `scribe_json::write` writes the `Value` it stands for.
#[derive(Clone, PartialEq)]
pub(crate) struct Details(Box<str>);

/// Objects with more keys than this go through a `Value` (so that the check for repeated keys
/// stays linear); smaller ones are checked by comparing their keys.
const KEYS_COMPARED: usize = 32;

impl Details {
    /// The text of `value`.
    pub(crate) fn from_value(value: &Value) -> Details {
        let mut out = Vec::new();
        // A `Value` always serializes (its keys are strings, its floats finite).
        let _ = scribe_json::write(&mut out, value);
        Details::from_json(out)
    }

    /// JSON text that `scribe_json::write` wrote (so UTF-8).
    fn from_json(out: Vec<u8>) -> Details {
        Details(
            String::from_utf8(out)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
                .into_boxed_str(),
        )
    }

    /// The JSON text.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }

    /// The details as a `Value` tree (parsed again: for a reader that walks all of them).
    pub(crate) fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// True for JSON `null`.
    pub(crate) fn is_null(&self) -> bool {
        &*self.0 == "null"
    }

    /// The string, when the details are one (`Value::as_str`).
    pub(crate) fn as_str(&self) -> Option<String> {
        if self.0.starts_with('"') {
            serde_json::from_str(&self.0).ok()
        } else {
            None
        }
    }

    /// Reads the details as `T` (a reader's typed view of a few fields): by the JSON layer's
    /// scanner, which steps over the fields `T` does not name (a read's whole file, an edit's
    /// original file) without decoding them.
    pub(crate) fn read<'a, T: Deserialize<'a>>(&'a self) -> Option<T> {
        scribe_json::from_text(&self.0).ok()
    }

    /// Changes the details through their `Value` tree, and writes them again.
    pub(crate) fn edit(&mut self, change: impl FnOnce(&mut Value)) {
        let mut v = self.to_value();
        change(&mut v);
        *self = Details::from_value(&v);
    }
}

impl From<Value> for Details {
    fn from(value: Value) -> Details {
        Details::from_value(&value)
    }
}

impl fmt::Debug for Details {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Written as serde_json writes its `RawValue`: the JSONL writer and serde_json's own writers
/// copy the text, serde_json's `to_value` parses it.
impl Serialize for Details {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut raw = s.serialize_struct(RAW_JSON_TOKEN, 1)?;
        raw.serialize_field(RAW_JSON_TOKEN, &*self.0)?;
        raw.end()
    }
}

/// Read back (a JSONL transcript's `sidecar`) by [`capture`], which any deserializer can feed
/// (serde's buffer for an internally tagged enum, which a transcript's parts are, cannot give
/// [`read`] its raw text).
impl<'de> Deserialize<'de> for Details {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        capture(d)
    }
}

/// Reads one JSON value from `d` as [`Details`], refusing what a `Value` parse refuses.
///
/// Where a line's scanner reads, it puts the value into the written form in the walk that
/// checks it (`scribe_json::Compacted`), so the value is walked once. Another deserializer
/// lends the value's text, taken as it stands when it is already what the writer would write
/// ([`is_written_form`]: what `JSON.stringify` writes, bar floats, nearly always is), so only
/// scanned, never decoded; anything else is read again by [`capture`].
pub(crate) fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Details, D::Error> {
    match Compacted::deserialize(d)? {
        Compacted::Written(text) => Ok(Details(text.into_boxed_str())),
        Compacted::Text(text) if is_written_form(text.as_bytes()) => Ok(Details(text.into())),
        Compacted::Text(text) => not_written(text).map_err(de::Error::custom),
        Compacted::Raw(raw) if is_written_form(raw.get().as_bytes()) => Ok(Details(raw.into())),
        Compacted::Raw(raw) => not_written(raw.get()).map_err(de::Error::custom),
    }
}

/// [`read`] of a value's text that is not in the written form as it stands.
fn not_written(text: &str) -> serde_json::Result<Details> {
    if let Some(details) = scanned(text) {
        return Ok(details);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    capture(&mut de)
}

/// What [`capture`] makes of `text` read by the JSON layer's scanner (the same visits as
/// serde_json's, with less copying), or `None` where the scanner declines it. Put into the
/// written form in one walk (`scribe_json::compact`) where it can be; through a `Value` where
/// that declines (a repeated key, an object of many keys).
fn scanned(text: &str) -> Option<Details> {
    if let Some(out) = scribe_json::compact(text) {
        return Some(Details::from_json(out));
    }
    let mut scanner = scribe_json::Scanner::new(text)?;
    let details = capture(&mut scanner).ok()?;
    scanner.end().ok()?;
    Some(details)
}

/// `v.get(k).cloned()` kept as compact JSON text ([`Details`]), a field of a
/// `scribe_json::lenient_struct!`: a free-form field that is copied to the output, not read, so
/// never built as a `Value` tree (`null` included).
#[derive(Debug, Default)]
pub(crate) struct PresentDetails(pub(crate) Option<Details>);

impl<'de> Deserialize<'de> for PresentDetails {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read(d).map(|x| PresentDetails(Some(x)))
    }
}

impl<'de> scribe_json::lenient::ReadInto<'de> for PresentDetails {
    type Out = Option<Details>;
    fn read_into<A: MapAccess<'de>>(
        map: &mut A,
        out: &mut Option<Details>,
    ) -> Result<(), A::Error> {
        *out = map.next_value::<Self>()?.0;
        Ok(())
    }
}

/// The deepest nesting [`is_written_form`] follows; deeper text goes to [`capture`], which
/// applies serde_json's own limit.
const DEPTH_SCANNED: usize = 16;

/// True when `b` is one JSON value exactly as `scribe_json::write` writes the `Value` a parse of it
/// gives: no white space, strings escaped only where the writer escapes (so `\/`, a `\u`
/// escape of a printable character or an upper-case hex digit are not), integers only (a float
/// may be spelled many ways) in the range a `Value` keeps as an integer, no repeated key and no
/// object of [`KEYS_COMPARED`] keys or more, at most [`DEPTH_SCANNED`] deep. A `true` means the
/// text is valid JSON that a `Value` parse accepts; a `false` only that [`capture`] must decide.
fn is_written_form(b: &[u8]) -> bool {
    // The open containers (`[` or `{`, and where their keys start in `keys`), and the keys
    // of the open objects: on the stack, as details are small and many.
    let mut open = Stack::<(u8, usize), DEPTH_SCANNED>::new((0, 0));
    let mut keys = Stack::<(usize, usize), KEYS_SCANNED>::new((0, 0));
    let mut i = 0;
    'value: loop {
        match b.get(i) {
            Some(b'"') => match string_end(b, i) {
                Some(end) => i = end,
                None => return false,
            },
            Some(&c @ (b'[' | b'{')) => {
                i += 1;
                let base = keys.len();
                if !open.push((c, base)) {
                    return false;
                }
                let close = if c == b'[' { b']' } else { b'}' };
                if b.get(i) == Some(&close) {
                    i += 1;
                    open.pop();
                } else if c == b'[' {
                    continue 'value;
                } else {
                    match key(b, i, &mut keys, base) {
                        Some(next) => i = next,
                        None => return false,
                    }
                    continue 'value;
                }
            }
            Some(b't') if b[i..].starts_with(b"true") => i += 4,
            Some(b'f') if b[i..].starts_with(b"false") => i += 5,
            Some(b'n') if b[i..].starts_with(b"null") => i += 4,
            Some(b'-' | b'0'..=b'9') => match integer_end(b, i) {
                Some(end) => i = end,
                None => return false,
            },
            _ => return false,
        }
        // After a value: commas and closing brackets, until the next value or the end.
        loop {
            let Some(&(c, base)) = open.last() else {
                return i == b.len();
            };
            match (c, b.get(i)) {
                (b'[', Some(b',')) => {
                    i += 1;
                    continue 'value;
                }
                (b'{', Some(b',')) => {
                    match key(b, i + 1, &mut keys, base) {
                        Some(next) => i = next,
                        None => return false,
                    }
                    continue 'value;
                }
                (b'[', Some(b']')) | (b'{', Some(b'}')) => {
                    i += 1;
                    open.pop();
                    keys.truncate(base);
                }
                _ => return false,
            }
        }
    }
}

/// An object key at `i` and its colon: where the value starts. `None` when the key is not in
/// the written form, repeats a key of the object (those from `base` in `keys`), or the object
/// has [`KEYS_COMPARED`] keys already.
fn key(
    b: &[u8],
    i: usize,
    keys: &mut Stack<(usize, usize), KEYS_SCANNED>,
    base: usize,
) -> Option<usize> {
    if b.get(i) != Some(&b'"') || keys.len() - base >= KEYS_COMPARED {
        return None;
    }
    let end = string_end(b, i)?;
    if keys.items()[base..]
        .iter()
        .any(|&(s, e)| b[s..e] == b[i..end])
    {
        return None;
    }
    if !keys.push((i, end)) {
        return None;
    }
    (b.get(end) == Some(&b':')).then_some(end + 1)
}

/// The most keys of open objects [`is_written_form`] holds at once.
const KEYS_SCANNED: usize = 48;

/// A stack of at most `N` items, in place (no allocation for the small values it scans).
struct Stack<T: Copy, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Copy, const N: usize> Stack<T, N> {
    fn new(fill: T) -> Self {
        Stack {
            items: [fill; N],
            len: 0,
        }
    }

    /// Pushes `item`; false when the stack is full.
    fn push(&mut self, item: T) -> bool {
        if self.len == N {
            return false;
        }
        self.items[self.len] = item;
        self.len += 1;
        true
    }

    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    fn last(&self) -> Option<&T> {
        self.items[..self.len].last()
    }

    fn len(&self) -> usize {
        self.len
    }

    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    fn items(&self) -> &[T] {
        &self.items[..self.len]
    }
}

/// The end of the string that starts (with its quote) at `i`, when it is in the written form:
/// no control character, and only the escapes the writer writes.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        // Eight bytes at a time up to the next quote, backslash or control character.
        while let Some(word) = b.get(j..j + 8) {
            let marks = scribe_json::escapes_in(u64::from_le_bytes(word.try_into().ok()?));
            if marks != 0 {
                j += (marks.trailing_zeros() / 8) as usize;
                break;
            }
            j += 8;
        }
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => {
                j += match *b.get(j + 1)? {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                    b'u' => {
                        let hex = b.get(j + 2..j + 6)?;
                        let lower = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
                        let code = u8::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16);
                        let written = hex.starts_with(b"00")
                            && hex[2..].iter().all(|&c| lower(c))
                            && code.is_ok_and(|c| c < 0x20 && !matches!(c, 8 | 9 | 10 | 12 | 13));
                        if !written {
                            return None;
                        }
                        6
                    }
                    _ => return None,
                };
            }
            0x00..=0x1f => return None,
            _ => j += 1,
        }
    }
}

/// The end of the integer at `i`, when it is one a `Value` keeps as an integer and the writer
/// writes as it stands (no leading zero, no `-0`, no fraction or exponent).
fn integer_end(b: &[u8], i: usize) -> Option<usize> {
    let negative = b[i] == b'-';
    let start = i + usize::from(negative);
    let digits = b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
    let end = start + digits;
    let text = &b[start..end];
    if digits == 0
        || (text[0] == b'0' && (digits > 1 || negative))
        || matches!(b.get(end), Some(b'.' | b'e' | b'E'))
    {
        return None;
    }
    let n: u64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    (!negative || n <= 1 << 63).then_some(end)
}

/// Reads one JSON value from `d` as [`Details`]: through a `Value` (the same parser, the same
/// recursion limit; a repeated key's last value in the first one's place), written once.
pub(crate) fn capture<'de, D: Deserializer<'de>>(d: D) -> Result<Details, D::Error> {
    Value::deserialize(d).map(|v| Details::from_value(&v))
}

#[cfg(test)]
mod tests;
