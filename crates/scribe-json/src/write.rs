//! Compact JSON text, written the way `serde_json::to_writer` writes it, byte for byte, but with
//! strings escaped sixteen bytes at a time (eight where SSE2 is not there).
//!
//! Exists because serde_json looks up every byte of every string in a table, and a `--to jsonl`
//! run is mostly strings. Everything
//! else (numbers through `itoa` and `zmij`, as serde_json does; maps, sequences, enum variants
//! in serde_json's shapes) is kept identical, so a record reads back the same and the output
//! does not change; the tests compare the two on generated values.

use serde::Serialize;
use serde::ser;

/// serde_json's error type: a custom error from a `Serialize` impl keeps its message.
type Error = serde_json::Error;

/// Appends `value` as compact JSON to `out`.
pub fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), Error> {
    value.serialize(&mut Writer { out })
}

/// The serializer: an output buffer (the record's, kept between records by `JsonLine`).
struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

/// Which bytes serde_json escapes in a string, and how: 0 none, `u` as `\u00XX`, any other byte
/// as a backslash and itself.
pub(crate) const ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0a] = b'n';
    t[0x0c] = b'f';
    t[0x0d] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Eight copies of a byte, for the word-at-a-time tests.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// The bytes of `w` (eight bytes, the first in the low bits) that serde_json escapes: below
/// 0x20, a quote or a backslash, each marked by its top bit, exactly (no carry crosses from one
/// byte into the next: every sum stays below 0x100), so the lowest mark is the first such byte.
pub fn escapes_in(w: u64) -> u64 {
    const LOW7: u64 = splat(0x7f);
    const HIGH: u64 = splat(0x80);
    // The top bit of each byte of `v` that is zero.
    let zero = |v: u64| !(((v & LOW7) + LOW7) | v) & HIGH;
    let below_space = !(((w & LOW7) + splat(0x60)) | w) & HIGH;
    below_space | zero(w ^ splat(b'"')) | zero(w ^ splat(b'\\'))
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it.
///
/// A string is read once, sixteen bytes at a time ([`escapes_in_block`]; then eight, then one),
/// and each byte to escape is found exactly ([`escapes_in`]); the text between two of them is
/// copied whole, so escape-dense text (a saved session's outputs have an escape every few dozen
/// bytes) is not searched again byte by byte.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // The first byte not yet written.
    let mut start = 0;
    // The first byte not yet looked at.
    let mut at = 0;
    #[cfg(target_arch = "x86_64")]
    for block in bytes.chunks_exact(16) {
        let mut marks = escapes_in_block(block.try_into().expect("sixteen bytes"));
        while marks != 0 {
            let i = at + marks.trailing_zeros() as usize;
            out.extend_from_slice(&bytes[start..i]);
            put_escape(out, bytes[i]);
            start = i + 1;
            marks &= marks - 1;
        }
        at += 16;
    }
    let mut words = bytes[at..].chunks_exact(8);
    for word in &mut words {
        let mut marks = escapes_in(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        while marks != 0 {
            let i = at + (marks.trailing_zeros() / 8) as usize;
            out.extend_from_slice(&bytes[start..i]);
            put_escape(out, bytes[i]);
            start = i + 1;
            marks &= marks - 1;
        }
        at += 8;
    }
    for (i, &b) in words.remainder().iter().enumerate() {
        if ESCAPE[b as usize] != 0 {
            out.extend_from_slice(&bytes[start..at + i]);
            put_escape(out, b);
            start = at + i + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The bytes of `block` that serde_json escapes (below 0x20, a quote, a backslash), one bit
/// each, the first byte in the lowest bit: SSE2's byte compares, which every x86-64 has, look
/// at sixteen bytes in the steps [`escapes_in`] takes for eight (a `--to jsonl` run writes
/// mostly long strings).
#[cfg(target_arch = "x86_64")]
fn escapes_in_block(block: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is in x86-64's baseline, so its intrinsics can run on any x86-64; the load
    // reads the 16 bytes of `block`, a reference to 16 bytes, and needs no alignment (`loadu`).
    let found = unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        // A byte is below 0x20 when the smaller of it and 0x1f is itself.
        let below_space = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        _mm_movemask_epi8(_mm_or_si128(below_space, _mm_or_si128(quote, backslash)))
    };
    found as u32
}

/// Appends the escape serde_json writes for `b`, a byte [`ESCAPE`] marks.
pub(crate) fn put_escape(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match ESCAPE[b as usize] {
        b'u' => out.extend_from_slice(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[(b >> 4) as usize],
            HEX[(b & 0xf) as usize],
        ]),
        e => out.extend_from_slice(&[b'\\', e]),
    }
}

impl Writer<'_> {
    /// An integer, as `itoa` writes it (serde_json's way).
    fn integer(&mut self, n: impl itoa::Integer) {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    /// A float as serde_json writes it: `null` unless finite.
    fn float(&mut self, finite: bool, text: impl FnOnce(&mut zmij::Buffer) -> &str) {
        if finite {
            let mut buf = zmij::Buffer::new();
            self.out.extend_from_slice(text(&mut buf).as_bytes());
        } else {
            self.out.extend_from_slice(b"null");
        }
    }

    /// Opens `{"variant":`, the shape serde_json gives an enum variant that holds data.
    fn variant_key(&mut self, variant: &str) {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.push(b':');
    }
}

/// A map, struct, sequence or tuple being written: whether a comma goes before the next item,
/// and what closes it (one bracket, or two for an enum variant's `{"variant":[…]}`).
struct Compound<'w, 'a> {
    writer: &'w mut Writer<'a>,
    first: bool,
    close: &'static [u8],
    /// serde_json's raw-JSON struct ([`RAW_JSON_TOKEN`]): its one field is JSON text, copied.
    raw: bool,
}

/// The struct name (and field name) serde_json's `RawValue` serializes as: JSON text that its
/// serializers copy as it is and its `to_value` parses. A caller's own type of JSON text (scribe's
/// `Details`) serializes the same way, so that text already written once is copied, not walked
/// again.
pub const RAW_JSON_TOKEN: &str = "$serde_json::private::RawValue";

impl<'w, 'a> Compound<'w, 'a> {
    /// Opens with `open` (after a variant key when there is one).
    fn open(writer: &'w mut Writer<'a>, open: u8, close: &'static [u8]) -> Self {
        writer.out.push(open);
        Compound {
            writer,
            first: true,
            close,
            raw: false,
        }
    }

    /// serde_json's raw-JSON struct: nothing around its text.
    fn raw(writer: &'w mut Writer<'a>) -> Self {
        Compound {
            writer,
            first: true,
            close: b"",
            raw: true,
        }
    }

    /// The comma before every item but the first.
    fn comma(&mut self) {
        if !self.first {
            self.writer.out.push(b',');
        }
        self.first = false;
    }

    /// One item of a sequence or tuple.
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.comma();
        value.serialize(&mut *self.writer)
    }

    /// A struct field: its name, a colon, its value. A name (a Rust identifier or a serde
    /// rename, so nearly always plain) is copied without the word-by-word escape: most strings
    /// of a record are field names, and a name of a few bytes would go through the escape's
    /// slower byte-by-byte tail.
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        if self.raw {
            return value.serialize(MapKey {
                out: self.writer.out,
                verbatim: true,
            });
        }
        self.comma();
        let out = &mut *self.writer.out;
        if key.bytes().all(|b| ESCAPE[b as usize] == 0) {
            out.reserve(key.len() + 3);
            out.push(b'"');
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
        } else {
            write_str(out, key);
            out.push(b':');
        }
        value.serialize(&mut *self.writer)
    }

    /// The closing bracket(s).
    fn close(self) -> Result<(), Error> {
        self.writer.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// The ten integer methods of a `Serializer`, each `$body` with the serializer and the value
/// (every integer is written the same way, by `itoa`).
macro_rules! integers {
    (|$ser:ident, $v:ident| $body:expr) => {
        integers!(@ $ser $v $body; serialize_i8 i8, serialize_i16 i16, serialize_i32 i32,
            serialize_i64 i64, serialize_i128 i128, serialize_u8 u8, serialize_u16 u16,
            serialize_u32 u32, serialize_u64 u64, serialize_u128 u128);
    };
    (@ $ser:ident $v:ident $body:expr; $($method:ident $ty:ty),*) => {$(
        fn $method(self, $v: $ty) -> Result<(), Error> {
            let $ser = self;
            $body
        }
    )*};
}

impl<'w, 'a> ser::Serializer for &'w mut Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'w, 'a>;
    type SerializeTuple = Compound<'w, 'a>;
    type SerializeTupleStruct = Compound<'w, 'a>;
    type SerializeTupleVariant = Compound<'w, 'a>;
    type SerializeMap = Compound<'w, 'a>;
    type SerializeStruct = Compound<'w, 'a>;
    type SerializeStructVariant = Compound<'w, 'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    integers!(|w, v| {
        w.integer(v);
        Ok(())
    });
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.float(v.is_finite(), |b| b.format_finite(v));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(v.is_finite(), |b| b.format_finite(v));
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        let mut seq = Compound::open(self, b'[', b"]");
        for b in v {
            seq.element(b)?;
        }
        seq.close()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.variant_key(variant);
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'w, 'a>, Error> {
        Ok(Compound::open(self, b'[', b"]"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'w, 'a>, Error> {
        Ok(Compound::open(self, b'[', b"]"))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>, Error> {
        Ok(Compound::open(self, b'[', b"]"))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>, Error> {
        self.variant_key(variant);
        Ok(Compound::open(self, b'[', b"]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'w, 'a>, Error> {
        Ok(Compound::open(self, b'{', b"}"))
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'w, 'a>, Error> {
        if name == RAW_JSON_TOKEN {
            return Ok(Compound::raw(self));
        }
        Ok(Compound::open(self, b'{', b"}"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>, Error> {
        self.variant_key(variant);
        Ok(Compound::open(self, b'{', b"}}"))
    }
}

/// The four sequence shapes (a sequence, a tuple, a tuple struct, a tuple variant's fields):
/// items after commas, then the closing bracket(s).
macro_rules! sequence {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

sequence!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.comma();
        key.serialize(MapKey {
            out: self.writer.out,
            verbatim: false,
        })?;
        self.writer.out.push(b':');
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.writer)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// The two struct shapes (a struct, a struct variant's fields): `"name":value` after commas.
macro_rules! structure {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.field(key, value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

structure!(SerializeStruct, SerializeStructVariant);

/// Map keys, written as serde_json writes them.
mod key;

use key::MapKey;

#[cfg(test)]
mod tests;
