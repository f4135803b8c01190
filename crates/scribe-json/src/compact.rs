//! JSON text put into the compact form [`write`](crate::write) gives the `Value` a parse of it
//! gives, in one walk with the [`Scanner`], without building the `Value`.
//!
//! Text from another writer (Python's `json.dumps`: `", "` and `": "` between tokens, every
//! non-ASCII character as a `\u` escape) holds the same values as the compact form but not its
//! bytes, so a reader that keeps such a value as compact text must rewrite it. Building a
//! `Value` tree for that (a key, a value and a hashed map slot for each, then a walk to write
//! it) costs several times the walk here, which copies what is already in the written form and
//! decodes and escapes again only the strings with escapes.

use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};
use serde_json::value::RawValue;

use crate::scan::{COMPACT_TOKEN, Refused, Scan, Scanner, escape_end, unicode_escape};
use crate::write::{ESCAPE, put_escape, write, write_str};

/// Objects with more keys than this are left to the caller's `Value` (so that the check for a
/// repeated key, which compares each key with the ones before it, stays short).
const KEYS_COMPARED: usize = 32;

/// The one JSON value of `text` written as [`write`] writes the `serde_json::Value` that
/// `serde_json::from_str` gives for it, keys in their order (serde_json's `preserve_order`).
///
/// `None` where the answer is the `Value`'s to give: the [`Scanner`] declines the text (it is
/// not JSON, or not JSON the scanner decides), or an object repeats a key (a `Value` keeps the
/// last value in the first one's place) or has more than [`KEYS_COMPARED`] keys.
pub fn compact(text: &str) -> Option<Vec<u8>> {
    let mut scanner = Scanner::new(text)?;
    let mut out = Vec::with_capacity(text.len());
    // Where each key of the open objects was written in `out`, outermost first.
    let mut keys = Vec::new();
    compact_value(&mut scanner, &mut out, &mut keys).ok()?;
    scanner.end().ok()?;
    Some(out)
}

/// A JSON value read for a reader that keeps it as text in the compact form (a call's details):
/// where a line's scanner reads, put into that form in the walk that checks it, in place in the
/// line, rather than stepped over and walked again by [`compact`].
#[derive(Debug)]
pub enum Compacted<'a> {
    /// The value in the form [`compact`] gives (the scanner's walk).
    Written(String),
    /// The value's text, checked, where the scanner did not put it in that form (a repeated key,
    /// an object of many keys: [`compact`]'s `None`).
    Text(&'a str),
    /// The value's text as serde_json's `RawValue` takes it, where another deserializer reads.
    Raw(Box<RawValue>),
}

impl<'de> Deserialize<'de> for Compacted<'de> {
    /// Asked for as a newtype under [`COMPACT_TOKEN`]: the line's scanner hands the value over
    /// written (`visit_string`) or as its text (`visit_borrowed_str`); any other deserializer
    /// reads the newtype's one value as a `RawValue`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(COMPACT_TOKEN, CompactedVisitor)
    }
}

/// The visitor behind [`Compacted`].
struct CompactedVisitor;

impl<'de> Visitor<'de> for CompactedVisitor {
    type Value = Compacted<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_string<E>(self, text: String) -> Result<Compacted<'de>, E> {
        Ok(Compacted::Written(text))
    }

    fn visit_str<E>(self, text: &str) -> Result<Compacted<'de>, E> {
        Ok(Compacted::Written(text.to_owned()))
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Compacted<'de>, E> {
        Ok(Compacted::Text(text))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Compacted<'de>, D::Error> {
        Box::<RawValue>::deserialize(d).map(Compacted::Raw)
    }
}

/// The next value of `s` written to `out` in the compact form [`compact`] gives, in the walk
/// that checks it (for the scanner's deserializer, which puts a value in that form where it
/// lies: [`Compacted`]). Refused where [`compact`] gives `None`; `s` is then part way into the
/// value, and `out` holds part of it.
pub(crate) fn compact_next(s: &mut Scanner<'_>, out: &mut Vec<u8>) -> Scan<()> {
    compact_value(s, out, &mut Vec::new())
}

/// Writes the next value of `s` to `out` in the compact form; `keys` holds where the keys of
/// the objects around it were written.
fn compact_value(
    s: &mut Scanner<'_>,
    out: &mut Vec<u8>,
    keys: &mut Vec<(usize, usize)>,
) -> Scan<()> {
    match s.peek() {
        Some(b'{') => {
            s.begin_object()?;
            out.push(b'{');
            let base = keys.len();
            let mut first = true;
            while let Some(key) = s.key(&mut first)? {
                if keys.len() > base {
                    out.push(b',');
                }
                if keys.len() - base >= KEYS_COMPARED {
                    return Err(Refused);
                }
                // Two keys are the same string exactly when their written forms are the same.
                let start = out.len();
                write_str(out, &key);
                let written = &out[start..];
                if keys[base..].iter().any(|&(a, b)| out[a..b] == *written) {
                    return Err(Refused);
                }
                keys.push((start, out.len()));
                out.push(b':');
                compact_value(s, out, keys)?;
            }
            keys.truncate(base);
            out.push(b'}');
        }
        Some(b'[') => {
            s.begin_array()?;
            out.push(b'[');
            let mut first = true;
            let mut written = false;
            while s.element(&mut first)? {
                if written {
                    out.push(b',');
                }
                written = true;
                compact_value(s, out, keys)?;
            }
            out.push(b']');
        }
        Some(b'"') => compact_string(s, out)?,
        Some(b'-' | b'0'..=b'9') => compact_number(s.raw_value()?, out)?,
        // `true`, `false`, `null`: written as they stand (and anything else refused).
        _ => out.extend_from_slice(s.raw_value()?.as_bytes()),
    }
    Ok(())
}

/// Writes the next value of `s`, a string, in the written form, in the one walk that checks it:
/// what is not an escape, and an escape the writer writes the same way (`\n`, `\"`, …), is
/// copied; a `\/` or `\u` escape is decoded, and its character written as the writer writes
/// it. No string is decoded whole and escaped again.
fn compact_string(s: &mut Scanner<'_>, out: &mut Vec<u8>) -> Scan<()> {
    out.push(b'"');
    // The first byte of the string's text not yet written.
    let mut from = 0;
    let raw = s.string_escapes(|text, backslash| {
        let bytes = text.as_bytes();
        let (c, end) = match bytes.get(backslash + 1) {
            Some(b'u') => unicode_escape(bytes, backslash)?,
            Some(b'/') => ('/', backslash + 2),
            // Any other escape is written as it stands, and is not handed over unless refused.
            _ => return escape_end(bytes, backslash),
        };
        out.extend_from_slice(&bytes[from..backslash]);
        match u8::try_from(c) {
            Ok(byte) if ESCAPE[byte as usize] != 0 => put_escape(out, byte),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
        from = end;
        Some(end)
    })?;
    out.extend_from_slice(&raw.as_bytes()[from..]);
    out.push(b'"');
    Ok(())
}

/// Writes a number the scanner checked as the `Value` holds it: up to 19 digits (always a
/// `u64`, and the scanner refuses leading zeros) as they stand, any other through serde_json's
/// own reading of it, as the scanner's `Deserializer` hands it over.
fn compact_number(token: &str, out: &mut Vec<u8>) -> Scan<()> {
    if token.len() <= 19 && token.bytes().all(|b| b.is_ascii_digit()) {
        out.extend_from_slice(token.as_bytes());
        return Ok(());
    }
    let value: serde_json::Value = serde_json::from_str(token).map_err(|_| Refused)?;
    write(out, &value).map_err(|_| Refused)
}

#[cfg(test)]
mod tests;
