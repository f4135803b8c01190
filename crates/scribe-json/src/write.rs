//! Compact JSON, written by serde_json itself: the one way scribe writes JSON text (why no
//! writer of its own: `docs/performance.md`).

use serde::Serialize;

/// Appends `value` as compact JSON to `out`, as `serde_json::to_writer` writes it.
pub fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> serde_json::Result<()> {
    serde_json::to_writer(out, value)
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    // A string into a `Vec` always writes.
    let _ = serde_json::to_writer(out, s);
}

/// The struct name (and field name) serde_json's `RawValue` serializes as: JSON text that its
/// serializers copy as it is and its `to_value` parses. A caller's own type of JSON text (scribe's
/// `Details`) serializes the same way, so that text already written once is copied, not walked
/// again.
pub const RAW_JSON_TOKEN: &str = "$serde_json::private::RawValue";

/// Eight copies of a byte, for the word-at-a-time test.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// The bytes of `w` (eight bytes, the first in the low bits) that serde_json escapes: below
/// 0x20, a quote or a backslash, each marked by its top bit, exactly (no carry crosses from one
/// byte into the next: every sum stays below 0x100), so the lowest mark is the first such byte.
/// For a reader that checks text is already in the written form without decoding it.
pub fn escapes_in(w: u64) -> u64 {
    const LOW7: u64 = splat(0x7f);
    const HIGH: u64 = splat(0x80);
    // The top bit of each byte of `v` that is zero.
    let zero = |v: u64| !(((v & LOW7) + LOW7) | v) & HIGH;
    let below_space = !(((w & LOW7) + splat(0x60)) | w) & HIGH;
    below_space | zero(w ^ splat(b'"')) | zero(w ^ splat(b'\\'))
}

#[cfg(test)]
mod tests;
